package results_test

import (
	"bytes"
	"io"
	"strconv"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/results"
)

const benchRows = 100_000

func benchResult(n int) *results.Result {
	r := &results.Result{Vars: []string{"s", "p", "o", "n"}, Rows: make([]results.Row, n)}
	for i := range r.Rows {
		var o quad.Value
		switch i % 4 {
		case 0:
			o = quad.String("a plain literal with \"quotes\", commas\tand tabs " + strconv.Itoa(i))
		case 1:
			o = quad.LangString{Value: "bonjour", Lang: "fr"}
		case 2:
			o = quad.BNode("b" + strconv.Itoa(i))
		}
		r.Rows[i] = results.Row{
			quad.IRI("http://example.org/resource/" + strconv.Itoa(i)),
			quad.IRI("http://example.org/vocab#prop"),
			o,
			quad.TypedString{Value: quad.String(strconv.Itoa(i)), Type: xsd + "integer"},
		}
	}
	return r
}

func BenchmarkWriter(b *testing.B) {
	res := benchResult(benchRows)
	for _, name := range results.Names() {
		f, err := results.Lookup(name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				w, err := f.NewWriter(io.Discard, res.Vars)
				if err != nil {
					b.Fatal(err)
				}
				for _, row := range res.Rows {
					if err := w.Write(row); err != nil {
						b.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkWriter_IRIRows writes rows of two IRIs, the shape of bench
// query q4's result (?team ?issue, 2,463 rows at 100k): the cost of the
// SPARQL endpoint's serialisation of a mid-sized result.
func BenchmarkWriter_IRIRows(b *testing.B) {
	res := &results.Result{Vars: []string{"team", "issue"}, Rows: make([]results.Row, 2463)}
	for i := range res.Rows {
		res.Rows[i] = results.Row{
			quad.IRI("urn:cortex:acme:team:T" + strconv.Itoa(1000+i%20)),
			quad.IRI("urn:ex:issue/" + strconv.Itoa(i)),
		}
	}
	for _, name := range []string{"json", "xml", "csv", "tsv"} {
		f, err := results.Lookup(name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if err := f.WriteResult(io.Discard, res); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkReader(b *testing.B) {
	res := benchResult(10_000)
	for _, name := range []string{"json", "xml", "tsv", "csv"} {
		f, _ := results.Lookup(name)
		var buf bytes.Buffer
		if err := f.WriteResult(&buf, res); err != nil {
			b.Fatal(err)
		}
		data := buf.Bytes()
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				if _, err := f.Read(bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEquivalent(b *testing.B) {
	x, y := benchResult(10_000), benchResult(10_000)
	for i, j := 0, len(y.Rows)-1; i < j; i, j = i+1, j-1 {
		y.Rows[i], y.Rows[j] = y.Rows[j], y.Rows[i]
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if !results.Equivalent(x, y, false) {
			b.Fatal("not equivalent")
		}
	}
}
