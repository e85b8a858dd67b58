package rdfio_test

import (
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/cortex/rdfio"
)

// genReader yields head, then n copies of fill, then tail, made as they are
// read: a document of any size that is never in memory.
type genReader struct {
	head, tail string
	fill       byte
	n          int
}

func (r *genReader) Read(p []byte) (int, error) {
	k := 0
	for k < len(p) {
		switch {
		case r.head != "":
			c := copy(p[k:], r.head)
			r.head, k = r.head[c:], k+c
		case r.n > 0:
			c := min(r.n, len(p)-k)
			p[k] = r.fill
			for i := 1; i < c; i *= 2 {
				copy(p[k+i:k+c], p[k:k+i])
			}
			r.n, k = r.n-c, k+c
		case r.tail != "":
			c := copy(p[k:], r.tail)
			r.tail, k = r.tail[c:], k+c
		default:
			if k == 0 {
				return 0, io.EOF
			}
			return k, nil
		}
	}
	return k, nil
}

// allocated returns the bytes f allocates, on the heap of the whole
// process: the caller must not be a parallel test.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestDecode_BoundedMemory: a comment, a run of white space (or of ';' in
// Turtle) or a token of 96 MB, on one line, is read in memory far below its
// size: a comment is skipped, never held (a 300 MB comment made an import
// take 870 MB), white space is read in pieces, and a token larger than
// MaxTermBytes fails, at its start, once that much of it is read (it was
// read whole before it was refused).
func TestDecode_BoundedMemory(t *testing.T) {
	big := 96 << 20
	if raceOn {
		big = 8 << 20 // (the race detector makes reading each byte slow)
	}
	const most = 8 << 20 // allocated at most: the buffers, a token of 1 MiB, the quads
	s := "<http://ex.org/s> "
	po := "<http://ex.org/p> <http://ex.org/o> ."
	cases := []struct {
		name, head string
		fill       byte
		tail       string
		formats    []string
		quads      int // (-k: one quad, the run of fill a k-th of the size)
		line, col  int // of the error, if line is not 0
	}{
		{"comment", s + po + " #", 'c', "\n" + s + po + "\n", nil, 2, 0, 0},
		{"comment line", "#", '#', "\n" + s + po + "\n", []string{rdfio.Turtle}, 1, 0, 0},
		{"white space", s, ' ', po + "\n", []string{rdfio.NTriples, rdfio.Turtle}, 1, 0, 0},
		{"tabs", s, '\t', po + "\n", []string{rdfio.NQuads}, 1, 0, 0},
		// (each ';' is a step of the parser: an eighth of the size)
		{"semicolons", s + po[:len(po)-1], ';', " .\n", []string{rdfio.Turtle}, -8, 0, 0},
		{"literal", s + "<http://ex.org/p> \"", 'x', "\" .\n", nil, 0, 1, 37},
		{"IRI", s + "<http://ex.org/p> <http://ex.org/", 'x', "> .\n", nil, 0, 1, 37},
		{"blank node", s + "<http://ex.org/p> _:", 'x', " .\n", nil, 0, 1, 37},
		{"prefixed name", "@prefix ex: <http://ex.org/> .\n" + s + "<http://ex.org/p> ex:", 'x', " .\n", []string{rdfio.Turtle}, 0, 2, 37},
		{"integer", s + "<http://ex.org/p> ", '7', " .\n", []string{rdfio.Turtle}, 0, 1, 37},
		{"long string", s + "<http://ex.org/p> '''a\n", 'x', "''' .\n", []string{rdfio.Turtle}, 0, 1, 37},
		{"long string of lines", s + "<http://ex.org/p> \"\"\"a\n", '\n', "\"\"\" .\n", []string{rdfio.Turtle}, 0, 1, 37},
	}
	for _, c := range cases {
		formats := c.formats
		if formats == nil {
			formats = []string{rdfio.NTriples, rdfio.NQuads, rdfio.Turtle}
		}
		for _, f := range formats {
			t.Run(f+" "+c.name, func(t *testing.T) {
				var quads int
				var err error
				size, want := big, c.quads
				if c.quads < 0 {
					size, want = big/-c.quads, 1
				}
				n := allocated(func() {
					var d rdfio.Decoder
					d, err = rdfio.NewDecoder(&genReader{head: c.head, fill: c.fill, n: size, tail: c.tail}, f, rdfio.DecodeOptions{File: "big", MaxTermBytes: 1 << 20})
					if err != nil {
						return
					}
					defer d.Close()
					for {
						if _, err = d.Next(); err != nil {
							break
						}
						quads++
					}
				})
				if c.line == 0 && (err != io.EOF || quads != want) {
					t.Fatalf("read %d quads, then %v; want %d quads", quads, err, want)
				}
				var se *rdfio.SyntaxError
				if c.line != 0 && (!errors.As(err, &se) || se.File != "big" || se.Line != c.line || se.Col != c.col || !strings.Contains(se.Msg, "larger than the largest the store holds (1048576 bytes)")) {
					t.Fatalf("err = %.300v; want a syntax error at big:%d:%d about the term's size", err, c.line, c.col)
				}
				if n > most {
					t.Errorf("reading %d MB allocated %d MB, want at most %d MB", size>>20, n>>20, most>>20)
				}
			})
		}
	}
}

// TestDecode_DefaultMaxTermBytes: with MaxTermBytes 0, a term larger than
// DefaultMaxTermBytes is a syntax error at its start (any term was read
// whole, however large); MaxTermBytes < 0 reads it.
func TestDecode_DefaultMaxTermBytes(t *testing.T) {
	head := "<http://ex.org/s> <http://ex.org/p> \""
	formats := []string{rdfio.NTriples, rdfio.Turtle}
	if raceOn {
		formats = formats[:1] // (the race detector makes reading each byte slow)
	}
	for _, f := range formats {
		d, err := rdfio.NewDecoder(&genReader{head: head, fill: 'x', n: rdfio.DefaultMaxTermBytes + 1, tail: "\" .\n"}, f, rdfio.DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = d.Next()
		var se *rdfio.SyntaxError
		if !errors.As(err, &se) || se.Line != 1 || se.Col != 37 || !strings.Contains(se.Msg, "larger than the largest term read (67108864 bytes)") {
			t.Errorf("%s: err = %.300v; want a syntax error at 1:37 about the term's size", f, err)
		}
		d, err = rdfio.NewDecoder(&genReader{head: head, fill: 'x', n: rdfio.DefaultMaxTermBytes + 1, tail: "\" .\n"}, f, rdfio.DecodeOptions{MaxTermBytes: -1})
		if err != nil {
			t.Fatal(err)
		}
		if q, err := d.Next(); err != nil || rdfio.TermBytes(q.Object) != rdfio.DefaultMaxTermBytes+1 {
			t.Errorf("%s: MaxTermBytes -1: %v, want the term", f, err)
		}
	}
}
