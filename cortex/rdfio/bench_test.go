package rdfio_test

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/rdfio"
)

// benchNT is a realistic N-Triples document: few predicates, many subjects,
// a mix of IRIs, blank nodes and literals.
func benchNT(lines int) []byte {
	var b bytes.Buffer
	for i := 0; i < lines; i++ {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "<http://cortex.example/agent/%d> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://cortex.example/ns#Finding> .\n", i/4)
		case 1:
			fmt.Fprintf(&b, "<http://cortex.example/agent/%d> <http://cortex.example/ns#text> \"finding number %d with \\\"quotes\\\"\"@en .\n", i/4, i)
		case 2:
			fmt.Fprintf(&b, "<http://cortex.example/agent/%d> <http://cortex.example/ns#score> \"%d\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n", i/4, i)
		case 3:
			fmt.Fprintf(&b, "_:n%d <http://cortex.example/ns#about> <http://cortex.example/agent/%d> .\n", i, i/4)
		}
	}
	return b.Bytes()
}

func benchDecode(b *testing.B, format string, data []byte, lines int) {
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		d, err := rdfio.NewDecoder(bytes.NewReader(data), format, rdfio.DecodeOptions{BlankPrefix: "i1_"})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			_, err := d.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != lines {
			b.Fatalf("decoded %d quads, want %d", n, lines)
		}
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "quads/s")
}

func BenchmarkDecodeNTriples(b *testing.B) {
	const lines = 20000
	benchDecode(b, rdfio.NTriples, benchNT(lines), lines)
}

func BenchmarkDecodeTurtle(b *testing.B) {
	const lines = 20000
	benchDecode(b, rdfio.Turtle, benchNT(lines), lines)
}

func BenchmarkEncodeNQuads(b *testing.B) {
	qs, err := rdfio.ReadAll(bytes.NewReader(benchNT(20000)), rdfio.NTriples, rdfio.DecodeOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for i := range qs {
		qs[i].Label = quad.IRI("http://cortex.example/graph/1")
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := rdfio.WriteAll(io.Discard, rdfio.NQuads, rdfio.EncodeOptions{}, qs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(qs))*float64(b.N)/b.Elapsed().Seconds(), "quads/s")
}
