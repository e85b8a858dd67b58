package rdfio_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/cortex/rdfio/rdftest"
)

// TestTurtle_SyntaxErrors checks that malformed Turtle is rejected with a
// *SyntaxError at the line and column of the offending token (columns count
// bytes; a truncated document fails at the end of the input).
func TestTurtle_SyntaxErrors(t *testing.T) {
	cases := []struct {
		name, src string
		line, col int
		msg       string
	}{
		{"unclosed collection (issue #16)", "@prefix ex: <http://ex/> .\nex:a ex:b ( ex:c .\nex:e ex:f ex:g .\n", 2, 18, "unexpected '.' in the collection opened at 2:11, expected an object or ')'"},
		{"unclosed collection, dot after name", "@prefix ex: <http://ex/> .\nex:a ex:b ( ex:c.\nex:e ex:f ex:g .\n", 2, 17, "in the collection opened at 2:11"},
		{"unclosed collection at end of input", "@prefix ex: <http://ex/> .\nex:a ex:b ( ex:c ( ) \n", 3, 1, "unexpected end of input in the collection opened at 2:11"},
		{"unclosed bracket", "@prefix ex: <http://ex/> .\nex:a ex:b [ ex:c ex:d .\nex:e ex:f ex:g .\n", 2, 23, "']' to close the '[' opened at 2:11"},
		{"unclosed bracket at end of input", "@prefix ex: <http://ex/> .\n[ ex:c ex:d ;\n", 3, 1, "']' to close the '[' opened at 2:1"},
		{"unclosed long string", "@prefix ex: <http://ex/> .\nex:a ex:b \"\"\"x .\nex:e ex:f ex:g .\n", 2, 11, "unterminated long string literal"},
		{"long string ends at first three quotes", "@prefix ex: <http://ex/> .\nex:a ex:b '''x'''' .\n", 2, 18, "unterminated string literal"},
		{"unclosed string", "@prefix ex: <http://ex/> .\nex:a ex:b \"x .\n", 2, 11, "unterminated string literal"},
		{"line break in string", "@prefix ex: <http://ex/> .\nex:a ex:b 'x\n' .\n", 2, 11, "unterminated string literal"},
		{"unclosed IRI", "@prefix ex: <http://ex/> .\nex:a ex:b <http://ex/c\n.\n", 2, 11, "unterminated IRI"},
		{"space in unclosed IRI", "@prefix ex: <http://ex/> .\nex:a ex:b <http://ex/c .\n", 2, 23, "character ' ' not allowed in IRI"},
		{"stray closing parenthesis", "@prefix ex: <http://ex/> .\nex:a ex:b ex:c ) .\n", 2, 16, "unexpected ')', expected ',', ';' or '.'"},
		{"stray closing bracket", "@prefix ex: <http://ex/> .\nex:a ex:b ex:c ] .\n", 2, 16, "unexpected ']', expected ',', ';' or '.'"},
		{"stray dot", "@prefix ex: <http://ex/> .\nex:a ex:b ex:c ..\n", 2, 17, "unexpected '.', expected a subject or a directive"},
		{"double comma", "@prefix ex: <http://ex/> .\nex:a ex:b ex:c ,, ex:d .\n", 2, 17, "unexpected ',', expected an object"},
		{"comma before predicate", "@prefix ex: <http://ex/> .\nex:a ex:b ex:c ; , ex:d .\n", 2, 18, "unexpected ',', expected a predicate, ';' or '.'"},
		{"semicolon first", "@prefix ex: <http://ex/> .\nex:a ; ex:b ex:c .\n", 2, 6, "unexpected ';', expected a predicate"},
		{"semicolon first in brackets", "@prefix ex: <http://ex/> .\nex:a ex:b [ ; ] .\n", 2, 13, "unexpected ';', expected a predicate"},
		{"missing dot at end of input", "@prefix ex: <http://ex/> .\nex:a ex:b ex:c", 2, 15, "unexpected end of input, expected ',', ';' or '.'"},
		{"truncated after predicate", "@prefix ex: <http://ex/> .\nex:a ex:b ", 2, 11, "unexpected end of input, expected an object"},
		{"truncated after datatype marker", "@prefix ex: <http://ex/> .\nex:a ex:b 'x'^^", 2, 16, "expected a datatype IRI after '^^'"},
		{"collection subject alone", "@prefix ex: <http://ex/> .\n( ex:a ) .\n", 2, 10, "unexpected '.', expected a predicate"},
		{"anonymous subject alone", "@prefix ex: <http://ex/> .\n[] .\n", 2, 4, "unexpected '.', expected a predicate"},
		{"literal subject", "@prefix ex: <http://ex/> .\n'x' ex:b ex:c .\n", 2, 1, "unexpected string, expected a subject or a directive"},
		{"literal predicate", "@prefix ex: <http://ex/> .\nex:a 'x' ex:c .\n", 2, 6, "unexpected string, expected a predicate"},
		{"blank node predicate", "@prefix ex: <http://ex/> .\nex:a _:b ex:c .\n", 2, 6, "unexpected blank node _:b, expected a predicate"},
		{"a as object", "@prefix ex: <http://ex/> .\nex:a ex:b a .\n", 2, 11, "unexpected 'a', expected an object"},
		{"bad escape", "@prefix ex: <http://ex/> .\nex:a ex:b \"x\\q\" .\n", 2, 13, "bad escape sequence \\q"},
		{"short unicode escape", "@prefix ex: <http://ex/> .\nex:a ex:b \"x\\u12\" .\n", 2, 13, "bad hex digit"},
		{"surrogate escape", "@prefix ex: <http://ex/> .\nex:a ex:b \"\\uD800\" .\n", 2, 12, "not a Unicode scalar value"},
		{"escaped space in IRI", "@prefix ex: <http://ex/> .\nex:a ex:b <x\\u0020y> .\n", 2, 13, "escaped character ' ' not allowed in IRI"},
		{"space in IRI", "@prefix ex: <http://ex/> .\nex:a ex:b <x y> .\n", 2, 13, "character ' ' not allowed in IRI"},
		{"bad escape in local name", "@prefix ex: <http://ex/> .\nex:a ex:b ex:c\\q .\n", 2, 15, "unexpected '\\\\'"},
		{"undefined prefix", "@prefix ex: <http://ex/> .\nex:a ex:b nope:c .\n", 2, 11, "undefined prefix \"nope\""},
		{"prefix declared later", "ex:a <http://ex/b> <http://ex/c> .\n@prefix ex: <http://ex/> .\n", 1, 1, "undefined prefix \"ex\""},
		{"@prefix without dot", "@prefix ex: <http://ex/>\nex:a ex:b ex:c .\n", 2, 1, "expected '.' after the @prefix directive"},
		{"@base without dot", "@base <http://ex/>\n<a> <b> <c> .\n", 2, 1, "expected '.' after the @base directive"},
		{"PREFIX with dot", "PREFIX ex: <http://ex/> .\nex:a ex:b ex:c .\n", 1, 25, "unexpected '.', expected a subject or a directive"},
		{"BASE with dot", "BASE <http://ex/> .\n<a> <b> <c> .\n", 1, 19, "unexpected '.', expected a subject or a directive"},
		{"capitalised @PREFIX", "@PREFIX ex: <http://ex/> .\n", 1, 1, "unknown directive '@PREFIX'"},
		{"prefix name with local part", "@prefix ex:a <http://ex/> .\n", 1, 9, "expected a prefix name ending in ':'"},
		{"prefix without IRI", "@prefix ex: ex:a .\n", 1, 13, "expected the namespace IRI of prefix \"ex\""},
		{"base without IRI", "BASE ex:a\n", 1, 6, "expected the base IRI"},
		{"language tag and datatype", "@prefix ex: <http://ex/> .\nex:a ex:b \"x\"@en^^ex:d .\n", 2, 17, "unexpected '^^', expected ',', ';' or '.'"},
		{"datatype not an IRI", "@prefix ex: <http://ex/> .\nex:a ex:b \"x\"^^\"y\" .\n", 2, 16, "expected a datatype IRI after '^^'"},
		{"empty language tag", "@prefix ex: <http://ex/> .\nex:a ex:b \"x\"@ .\n", 2, 14, "expected a language tag or a directive after '@'"},
		{"bare word", "@prefix ex: <http://ex/> .\nex:a ex:b foo .\n", 2, 11, "unexpected word \"foo\""},
		{"underscore without colon", "@prefix ex: <http://ex/> .\nex:a ex:b _x .\n", 2, 11, "unexpected '_'"},
		{"blank label starting with dash", "@prefix ex: <http://ex/> .\nex:a ex:b _:-x .\n", 2, 13, "blank node label must start with"},
		{"single caret", "@prefix ex: <http://ex/> .\nex:a ex:b 'x'^ex:d .\n", 2, 14, "unexpected '^'"},
		{"colon in first segment of relative IRI", "@prefix ex: <http://ex/> .\nex:a ex:b <:c/d> .\n", 2, 11, "has a ':' in its first segment"},
		{"invalid UTF-8 in string", "@prefix ex: <http://ex/> .\nex:a ex:b '\xff' .\n", 2, 11, "not valid UTF-8"},
		{"error after a long string over lines", "@prefix ex: <http://ex/> .\nex:a ex:b \"\"\"x\ny\nz\"\"\" ? .\n", 4, 6, "unexpected '?'"},
		{"lone CR counts as a line break", "@prefix ex: <http://ex/> .\nex:a ex:b ex:c .\rex:a ex:b ? .\n", 3, 11, "unexpected '?'"},
		{"byte order mark not counted", "\uFEFF<http://ex/a> <http://ex/b> ? .\n", 1, 29, "unexpected '?'"},
		{"tab counts one column", "@prefix ex: <http://ex/> .\nex:a\tex:b\t? .\n", 2, 11, "unexpected '?'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			qs, err := rdfio.ReadAll(strings.NewReader(c.src), rdfio.Turtle, rdfio.DecodeOptions{File: "in.ttl", Base: "http://base.example/d/"})
			var se *rdfio.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v (%d quads), want a *SyntaxError", err, len(qs))
			}
			if se.Line != c.line || se.Col != c.col || !strings.Contains(se.Msg, c.msg) {
				t.Errorf("got %d:%d %q\nwant %d:%d containing %q", se.Line, se.Col, se.Msg, c.line, c.col, c.msg)
			}
			if want := fmt.Sprintf("in.ttl:%d:%d: ", c.line, c.col); !strings.HasPrefix(err.Error(), want) {
				t.Errorf("Error() = %q, want prefix %q", err, want)
			}
		})
	}
}

// TestTurtle_Collections compares collections, blank node property lists
// and their nesting with the expected graph.
func TestTurtle_Collections(t *testing.T) {
	const pre = "@prefix : <http://ex.org/> .\n"
	first, rest, nil_ := "<"+rdf+"first>", "<"+rdf+"rest>", "<"+rdf+"nil>"
	cases := []struct{ name, ttl, nt string }{
		{"empty collection object", ":s :p () .", "<http://ex.org/s> <http://ex.org/p> " + nil_ + " ."},
		{"empty collection subject", "( ) :p :o .", nil_ + " <http://ex.org/p> <http://ex.org/o> ."},
		{"two items", ":s :p ( :a 1 ) .", `<http://ex.org/s> <http://ex.org/p> _:l1 .
_:l1 ` + first + ` <http://ex.org/a> .
_:l1 ` + rest + ` _:l2 .
_:l2 ` + first + ` "1"^^<http://www.w3.org/2001/XMLSchema#integer> .
_:l2 ` + rest + " " + nil_ + " ."},
		{"nested collections", "( ( ) ( :a ) ) :p :o .", `_:l1 <http://ex.org/p> <http://ex.org/o> .
_:l1 ` + first + " " + nil_ + ` .
_:l1 ` + rest + ` _:l2 .
_:l2 ` + first + ` _:m1 .
_:l2 ` + rest + " " + nil_ + ` .
_:m1 ` + first + ` <http://ex.org/a> .
_:m1 ` + rest + " " + nil_ + " ."},
		{"blank node in collection", ":s :p ( [ :q :r ] [] ) .", `<http://ex.org/s> <http://ex.org/p> _:l1 .
_:l1 ` + first + ` _:b1 .
_:b1 <http://ex.org/q> <http://ex.org/r> .
_:l1 ` + rest + ` _:l2 .
_:l2 ` + first + ` _:b2 .
_:l2 ` + rest + " " + nil_ + " ."},
		{"collection in blank node subject", "[ :p ( :a ) ] :q :r .", `_:b1 <http://ex.org/p> _:l1 .
_:l1 ` + first + ` <http://ex.org/a> .
_:l1 ` + rest + " " + nil_ + ` .
_:b1 <http://ex.org/q> <http://ex.org/r> .`},
		{"blank node subject alone", "[ :p :o ; :q [ :r :s ] ] .", `_:b1 <http://ex.org/p> <http://ex.org/o> .
_:b1 <http://ex.org/q> _:b2 .
_:b2 <http://ex.org/r> <http://ex.org/s> .`},
		{"shared labels", "_:x :p ( _:x ) .", `_:x <http://ex.org/p> _:l1 .
_:l1 ` + first + ` _:x .
_:l1 ` + rest + " " + nil_ + " ."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := mustRead(t, rdfio.Turtle, pre+c.ttl, rdfio.DecodeOptions{})
			want := mustRead(t, rdfio.NTriples, c.nt+"\n", rdfio.DecodeOptions{})
			if !rdftest.Isomorphic(got, want) {
				t.Errorf("got %v\nwant %v", got, want)
			}
		})
	}
}

// TestTurtle_DeepNesting reads nesting far deeper than a recursive parser's
// stack would allow; the parser's stack is on the heap.
func TestTurtle_DeepNesting(t *testing.T) {
	const depth = 200000
	src := "<http://ex.org/s> <http://ex.org/p> " + strings.Repeat("( ", depth) + strings.Repeat(") ", depth) + ".\n" +
		"<http://ex.org/s> <http://ex.org/p> " + strings.Repeat("[ <http://ex.org/q> ", depth) + "<http://ex.org/o> " + strings.Repeat("] ", depth) + ".\n"
	qs, err := rdfio.ReadAll(strings.NewReader(src), rdfio.Turtle, rdfio.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// lists: <s> <p> l1, then rdf:first and rdf:rest of the depth-1 lists
	// that hold one (the innermost is rdf:nil); brackets: <s> <p> b1, one
	// triple per bracket inside it, and the innermost's <q> <o>
	if want := 1 + 2*(depth-1) + depth + 1; len(qs) != want {
		t.Fatalf("got %d quads, want %d", len(qs), want)
	}
	_, err = rdfio.ReadAll(strings.NewReader("<http://ex.org/s> <http://ex.org/p> "+strings.Repeat("( ", depth)+".\n"), rdfio.Turtle, rdfio.DecodeOptions{})
	var se *rdfio.SyntaxError
	if !errors.As(err, &se) || se.Line != 1 || se.Col != 37+2*depth || !strings.Contains(se.Msg, fmt.Sprintf("opened at 1:%d", 37+2*(depth-1))) {
		t.Errorf("err = %v", err)
	}
}

// errAfter yields its data, then fails: a decoder that streams hands out
// the quads before it reads the failure.
type errAfter struct {
	data string
	err  error
}

func (r *errAfter) Read(p []byte) (int, error) {
	if r.data == "" {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestTurtle_Streams(t *testing.T) {
	boom := errors.New("disk on fire")
	// The space after :a: a token the error cuts is not whole (see
	// TestTurtle_ReadErrorAfterATokenLookingWhole).
	r := &errAfter{data: "@prefix : <http://ex.org/> .\n:s :p :o1, :o2 .\n:s :q ( :a ", err: boom}
	d, err := rdfio.NewDecoder(r, rdfio.Turtle, rdfio.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var got []quad.Quad
	for {
		q, err := d.Next()
		if err != nil {
			if !errors.Is(err, boom) {
				t.Fatalf("err = %v, want the read error", err)
			}
			break
		}
		got = append(got, q)
	}
	// :o1, :o2, then the list's first cell and its rdf:first are complete
	if len(got) != 4 || got[0].Object != iri("o1") || got[1].Object != iri("o2") {
		t.Errorf("got %v", got)
	}
	if _, err := d.Next(); !errors.Is(err, boom) {
		t.Errorf("error not sticky: %v", err)
	}
}

func TestTurtle_RelativeIRIAgainstBaseWithoutAuthority(t *testing.T) {
	cases := []struct{ base, ref, want string }{
		{"urn:x:y", "z", "urn:z"},
		{"urn:x:y", "../up", "urn:up"},
		{"tag:a,2000:x", "g;x", "tag:g;x"},
		{"a:b/c", "../x", "a:/x"},
		{"file:/.//d/e.ttl", "rel", "file:/.//d/rel"},
		{"http:/h/a/b", "/x", "http:/x"},
	}
	for _, c := range cases {
		qs := mustRead(t, rdfio.Turtle, "@base <"+c.base+"> .\n<"+c.ref+"> <http://ex.org/p> 1 .\n", rdfio.DecodeOptions{})
		if qs[0].Subject != quad.IRI(c.want) {
			t.Errorf("<%s> against <%s> = %v, want <%s>", c.ref, c.base, qs[0].Subject, c.want)
		}
	}
}

func TestDecode_EmptyDocuments(t *testing.T) {
	for _, f := range []string{rdfio.NTriples, rdfio.NQuads, rdfio.Turtle} {
		for _, src := range []string{"", "\uFEFF", "# only a comment", "\n\r\n\r \t"} {
			d, err := rdfio.NewDecoder(strings.NewReader(src), f, rdfio.DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if q, err := d.Next(); err != io.EOF {
				t.Errorf("%s %q: Next = %v, %v; want io.EOF", f, src, q, err)
			}
		}
	}
}

// TestDecode_ReadErrorCutsAToken: a read error that cuts the input in
// the middle of a token is the decoder's error, not the syntax error the
// cut text makes (an unterminated IRI or literal, a keyword cut short):
// the text may well be whole in the input (a quad of a token the cut
// leaves looking whole may come first: the read error follows it). Turtle
// used to answer
// "unterminated IRI", so that a request body that timed out was 400.
func TestDecode_ReadErrorCutsAToken(t *testing.T) {
	boom := errors.New("connection timed out")
	for _, format := range []string{rdfio.Turtle, rdfio.NTriples, rdfio.NQuads} {
		for _, cut := range []string{
			`<http://ex/s> <http://ex/p`,
			`<http://ex/s> <http://ex/p> "abc`,
			`<http://ex/s> <http://ex/p> "abc"@e`,
			`<http://ex/s> <http://ex/p> "abc"^`,
			`<http://ex/s> <http://ex/p> "abc"^^<http://ex/d`,
			`<http://ex/s> <http://ex/p> _:`,
		} {
			t.Run(format+" "+cut, func(t *testing.T) {
				d, err := rdfio.NewDecoder(&errAfter{data: "<http://ex/a> <http://ex/b> <http://ex/c> .\n" + cut, err: boom}, format, rdfio.DecodeOptions{})
				if err != nil {
					t.Fatal(err)
				}
				defer d.Close()
				if _, err := d.Next(); err != nil {
					t.Fatalf("the whole first line: %v", err)
				}
				if err := drain(d); !errors.Is(err, boom) {
					t.Errorf("err = %v, want the read error", err)
				}
			})
		}
	}
	for _, cut := range []string{`@pre`, `@prefix ex: <http://ex/`, `PREF`, `<http://ex/s> <http://ex/p> """abc`, `<http://ex/s> <http://ex/p> tr`, `<http://ex/s> <http://ex/p> 1.`, `<http://ex/s> <http://ex/p> 1e`} {
		t.Run("turtle "+cut, func(t *testing.T) {
			d, err := rdfio.NewDecoder(&errAfter{data: cut, err: boom}, rdfio.Turtle, rdfio.DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if err := drain(d); !errors.Is(err, boom) {
				t.Errorf("err = %v, want the read error", err)
			}
		})
	}
}

// drain reads d to its first error. A streaming decoder may hand out the
// triple of a token the cut leaves looking whole ("abc"@e, 1.) before it
// reads the error.
func drain(d rdfio.Decoder) error {
	for {
		if _, err := d.Next(); err != nil {
			return err
		}
	}
}

// TestTurtle_ReadErrorAfterATokenLookingWhole: a token that the read
// error cuts may look whole ("abc"@e of "abc"@en, 1. of 1.5, :a of
// :abc); the decoder hands out no triple of it, for a streamed import
// would commit that triple if it ended a chunk. It used to be handed out
// before the error.
func TestTurtle_ReadErrorAfterATokenLookingWhole(t *testing.T) {
	boom := errors.New("connection reset")
	for _, cut := range []string{`"abc"@e`, `1.`, `1e`, `:a`, `true`, `<http://ex/o>`, `"abc"`} {
		t.Run(cut, func(t *testing.T) {
			r := &errAfter{data: "@prefix : <http://ex.org/> .\n:s :p :o .\n:s :q " + cut, err: boom}
			d, err := rdfio.NewDecoder(r, rdfio.Turtle, rdfio.DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if q, err := d.Next(); err != nil || q.Object != iri("o") {
				t.Fatalf("the whole line: %v %v", q, err)
			}
			if q, err := d.Next(); !errors.Is(err, boom) {
				t.Errorf("got %v %v, want the read error", q, err)
			}
		})
	}
}

// TestDecode_ReadErrorSaysWhere: an error of the reader (a network or a
// disk error) is a *rdfio.ReadError that says where it cut the input (the
// file, the line and column after the last byte read, the bytes read) and
// wraps the reader's error; it was the reader's error alone, which named
// neither the file nor the place.
func TestDecode_ReadErrorSaysWhere(t *testing.T) {
	boom := errors.New("connection reset")
	first := "<http://ex/a> <http://ex/b> <http://ex/c> .\n"
	long := strings.Repeat("x", 100<<10) // longer than the decoders' buffer
	cases := []struct {
		name, data string
		line, col  int
		formats    []string
	}{
		{"in a literal", first + `<http://ex/s> <http://ex/p> "ab`, 2, 32, nil},
		{"in a long line", first + `<http://ex/s> <http://ex/p> "` + long, 2, 30 + len(long), nil},
		{"after a line end", first + "<http://ex/s> <http://ex/p> <http://ex/o> .\r", 3, 1, nil},
		{"after a byte order mark", "\uFEFF<http://ex/s> <http", 1, 20, nil},
		{"in a long string", first + "<http://ex/s> <http://ex/p> \"\"\"a\nbc", 3, 3, []string{rdfio.Turtle}},
	}
	for _, c := range cases {
		formats := c.formats
		if formats == nil {
			formats = []string{rdfio.NTriples, rdfio.NQuads, rdfio.Turtle}
		}
		for _, f := range formats {
			t.Run(f+" "+c.name, func(t *testing.T) {
				d, err := rdfio.NewDecoder(&errAfter{data: c.data, err: boom}, f, rdfio.DecodeOptions{File: "in.rdf"})
				if err != nil {
					t.Fatal(err)
				}
				defer d.Close()
				err = drain(d)
				var re *rdfio.ReadError
				if !errors.As(err, &re) || !errors.Is(err, boom) {
					t.Fatalf("err = %.200v, want a *rdfio.ReadError wrapping the reader's error", err)
				}
				if re.File != "in.rdf" || re.Line != c.line || re.Col != c.col || re.Offset != int64(len(c.data)) {
					t.Errorf("error at %s:%d:%d, byte %d; want in.rdf:%d:%d, byte %d", re.File, re.Line, re.Col, re.Offset, c.line, c.col, len(c.data))
				}
				if want := fmt.Sprintf("in.rdf:%d:%d: read error at byte %d: connection reset", c.line, c.col, len(c.data)); err.Error() != want {
					t.Errorf("err = %q, want %q", err, want)
				}
			})
		}
	}
}
