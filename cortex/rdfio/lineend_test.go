package rdfio_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/rdfio"
)

// linesReader serves n copies of a statement, each followed by the next of
// ends (cycling), made as they are read, and counts the bytes served.
type linesReader struct {
	stmt   string
	ends   []string
	n, i   int
	served int
	cur    string
}

func (r *linesReader) Read(p []byte) (int, error) {
	k := 0
	for k < len(p) {
		if r.cur == "" {
			if r.i == r.n {
				break
			}
			r.cur = r.stmt + r.ends[r.i%len(r.ends)]
			r.i++
		}
		c := copy(p[k:], r.cur)
		r.cur = r.cur[c:]
		k += c
	}
	r.served += k
	if k == 0 {
		return 0, io.EOF
	}
	return k, nil
}

// TestDecode_StreamsAnyLineEnd reads a large input whose lines end in CR
// alone, CR LF, LF or a mix, and checks that the decoder never reads far
// ahead of the statements it has handed out: a line end of any kind ends a
// chunk (EOL ::= [#xD#xA]+), so the input is never held whole.
func TestDecode_StreamsAnyLineEnd(t *testing.T) {
	const n = 100000 // about 4 MB of input
	const ahead = 1 << 20
	stmt := `<http://ex.org/s> <http://ex.org/p> "o" .`
	for _, f := range []string{rdfio.NTriples, rdfio.NQuads, rdfio.Turtle} {
		for name, ends := range map[string][]string{
			"cr":    {"\r"},
			"crlf":  {"\r\n"},
			"lf":    {"\n"},
			"mixed": {"\r", "\r\n", "\n", "\r\r", "\n\r", "\r\n\r\n"},
		} {
			t.Run(f+"/"+name, func(t *testing.T) {
				r := &linesReader{stmt: stmt, ends: ends, n: n}
				d, err := rdfio.NewDecoder(r, f, rdfio.DecodeOptions{})
				if err != nil {
					t.Fatal(err)
				}
				defer d.Close()
				got, consumed := 0, 0
				for {
					_, err := d.Next()
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					consumed += len(stmt) + len(ends[got%len(ends)])
					got++
					if r.served-consumed > ahead {
						t.Fatalf("after %d statements (%d bytes) the decoder has read %d bytes: more than %d ahead", got, consumed, r.served, ahead)
					}
				}
				if got != n {
					t.Errorf("got %d statements, want %d", got, n)
				}
			})
		}
	}
}

// TestDecode_SyntaxErrorPositionAnyLineEnd checks line and column of syntax
// errors with LF, CR LF and CR alone as line ends (a CR LF pair is one line
// end), also where a line end falls at the edge of the decoder's buffer.
func TestDecode_SyntaxErrorPositionAnyLineEnd(t *testing.T) {
	good := `<http://ex.org/s> <http://ex.org/p> "o" .`
	bad := `<http://ex.org/s> <http://ex.org/p> <o> .` // relative IRI at column 37
	for _, f := range []string{rdfio.NTriples, rdfio.NQuads, rdfio.Turtle} {
		for _, eol := range []string{"\n", "\r\n", "\r"} {
			for _, before := range []int{0, 1, 3, 1000, 1600, 1700, 3000} {
				// pad moves the line ends around the 64 KiB buffer's
				// edge (pad 5 puts the first CR of a CR LF pair last)
				for _, pad := range []int{0, 1, 2, 5, 17} {
					var b strings.Builder
					b.WriteString(strings.Repeat(" ", pad))
					for i := 0; i < before; i++ {
						b.WriteString(good)
						b.WriteString(eol)
					}
					b.WriteString("# comment" + eol + eol)
					b.WriteString("  " + bad + eol)
					name := fmt.Sprintf("%s/%q/%d/%d", f, eol, before, pad)
					err := readErr(t, f, b.String(), rdfio.DecodeOptions{})
					var se *rdfio.SyntaxError
					if !errors.As(err, &se) {
						t.Fatalf("%s: err = %v, want *SyntaxError", name, err)
					}
					if se.Line != before+3 || se.Col != 39 {
						t.Errorf("%s: error at %d:%d, want %d:39 (%v)", name, se.Line, se.Col, before+3, err)
					}
				}
			}
		}
	}
}

// TestDecode_ReadErrorAfterLineEnd: a statement whose line end a read error
// follows is whole, whatever the line end (a CR alone included, where the
// decoder reads on to see whether LF follows): it is handed out, then the
// read error.
func TestDecode_ReadErrorAfterLineEnd(t *testing.T) {
	boom := errors.New("connection reset")
	for _, f := range []string{rdfio.NTriples, rdfio.NQuads, rdfio.Turtle} {
		for _, eol := range []string{"\n", "\r\n", "\r"} {
			for _, cut := range []string{"", "<http://ex/s> <http://ex/p"} {
				name := fmt.Sprintf("%s/%q/%q", f, eol, cut)
				d, err := rdfio.NewDecoder(&errAfter{data: "<http://ex/a> <http://ex/b> <http://ex/c> ." + eol + cut, err: boom}, f, rdfio.DecodeOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := d.Next(); err != nil {
					t.Errorf("%s: the whole first line: %v", name, err)
				}
				if err := drain(d); !errors.Is(err, boom) {
					t.Errorf("%s: err = %v, want the read error", name, err)
				}
				d.Close()
			}
		}
	}
}

// TestTurtle_StreamsOneLine reads a large Turtle document written on one
// line (statements separated by spaces only, with strings, long strings,
// IRIs and escapes holding spaces and quotes) and checks that the decoder
// never reads far ahead of the triples it has handed out (a long line is
// cut at white space between tokens, never inside one) and reads each
// statement right.
func TestTurtle_StreamsOneLine(t *testing.T) {
	const n = 40000
	stmts := []string{
		`<http://ex.org/s> <http://ex.org/p> "a b \" c" . `,
		`<http://ex.org/s> <http://ex.org/p> """x "" y ' z""" . `,
		`<http://ex.org/s> <http://ex.org/p> '''p '' q " r''' . `,
		`<http://ex.org/s> <http://ex.org/p> 'it\'s  ok' . `,
		`<http://ex.org/s> <http://ex.org/p> """ends in quote\"""" . `,
		"<http://ex.org/s>  <http://ex.org/p>\t\"tab\"@en . ",
		`<http://ex.org/s> <http://ex.org/p> ex:a\#b\'c . `,
	}
	objects := []quad.Value{quad.String(`a b " c`), quad.String(`x "" y ' z`), quad.String(`p '' q " r`),
		quad.String(`it's  ok`), quad.String(`ends in quote"`), quad.LangString{Value: "tab", Lang: "en"}, quad.IRI(`http://ex.org/a#b'c`)}
	r := &linesReader{stmt: "", ends: stmts, n: n}
	d, err := rdfio.NewDecoder(io.MultiReader(strings.NewReader("@prefix ex: <http://ex.org/> . "), r), rdfio.Turtle, rdfio.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	got, consumed := 0, 0
	for {
		q, err := d.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if want := objects[got%len(objects)]; q.Object != want {
			t.Fatalf("statement %d: object %#v, want %#v", got, q.Object, want)
		}
		consumed += len(stmts[got%len(stmts)])
		got++
		if r.served-consumed > 1<<20 {
			t.Fatalf("after %d statements (%d bytes) the decoder has read %d bytes: more than 1 MiB ahead", got, consumed, r.served)
		}
	}
	if got != n {
		t.Errorf("got %d statements, want %d", got, n)
	}
}
