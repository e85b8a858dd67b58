package rdfio_test

import (
	"errors"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/rdfio"
)

func TestDecode_TermMapping(t *testing.T) {
	cases := []struct {
		name, nt, ttl string
		want          quad.Value
	}{
		{"iri", `<http://ex.org/o>`, `<http://ex.org/o>`, iri("o")},
		{"plain", `"a b"`, `"a b"`, quad.String("a b")},
		{"xsd string normalised", `"x"^^<` + xsd + `string>`, `"x"^^<` + xsd + `string>`, quad.String("x")},
		{"lang keeps case", `"chat"@fr-BE`, `"chat"@fr-BE`, quad.LangString{Value: "chat", Lang: "fr-BE"}},
		{"integer lexical form", `"01"^^<` + xsd + `integer>`, `01`, quad.TypedString{Value: "01", Type: xsd + "integer"}},
		{"negative decimal", `"-.5"^^<` + xsd + `decimal>`, `-.5`, quad.TypedString{Value: "-.5", Type: xsd + "decimal"}},
		{"double", `"1.0E3"^^<` + xsd + `double>`, `1.0E3`, quad.TypedString{Value: "1.0E3", Type: xsd + "double"}},
		{"boolean", `"true"^^<` + xsd + `boolean>`, `true`, quad.TypedString{Value: "true", Type: xsd + "boolean"}},
		{"dateTime", `"2024-01-02T03:04:05Z"^^<` + xsd + `dateTime>`, `"2024-01-02T03:04:05Z"^^<` + xsd + `dateTime>`,
			quad.TypedString{Value: "2024-01-02T03:04:05Z", Type: xsd + "dateTime"}},
		{"custom datatype", `"x y"^^<http://ex.org/dt>`, `"x y"^^<http://ex.org/dt>`, quad.TypedString{Value: "x y", Type: "http://ex.org/dt"}},
		{"escapes", `"q\"\\\n\t\u00e9\U0001F600"`, `"q\"\\\n\t\u00e9\U0001F600"`, quad.String("q\"\\\n\té\U0001F600")},
		{"iri escape", `<http://ex.org/\u00E9>`, `<http://ex.org/\u00E9>`, quad.IRI("http://ex.org/é")},
		// the string, '^^', the datatype and the language tag are distinct
		// terminals: white space may separate them
		{"spaces around datatype marker", `"x" ^^ <http://ex.org/dt>`, `"x" ^^ <http://ex.org/dt>`, quad.TypedString{Value: "x", Type: "http://ex.org/dt"}},
		{"tab before language tag", "\"x\"\t@en", "\"x\"\t@en", quad.LangString{Value: "x", Lang: "en"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			nt := mustRead(t, rdfio.NTriples, "<http://ex.org/s> <http://ex.org/p> "+c.nt+" .\n", rdfio.DecodeOptions{})
			ttl := mustRead(t, rdfio.Turtle, "<http://ex.org/s> <http://ex.org/p> "+c.ttl+" .\n", rdfio.DecodeOptions{})
			for name, qs := range map[string][]quad.Quad{"ntriples": nt, "turtle": ttl} {
				if len(qs) != 1 {
					t.Fatalf("%s: got %d quads", name, len(qs))
				}
				if qs[0].Object != c.want {
					t.Errorf("%s: object = %#v, want %#v", name, qs[0].Object, c.want)
				}
				if qs[0].Label != nil {
					t.Errorf("%s: label = %v, want nil", name, qs[0].Label)
				}
			}
		})
	}
}

func TestDecode_NQuadsGraphs(t *testing.T) {
	src := `<http://ex.org/s> <http://ex.org/p> "a" .
<http://ex.org/s> <http://ex.org/p> "b" <http://ex.org/g> .
<http://ex.org/s> <http://ex.org/p> "c" _:defaultGraph .
_:s <http://ex.org/p> "d" _:g1 .
`
	qs := mustRead(t, rdfio.NQuads, src, rdfio.DecodeOptions{BlankPrefix: "imp1_"})
	want := []quad.Value{nil, iri("g"), quad.BNode("imp1_defaultGraph"), quad.BNode("imp1_g1")}
	if len(qs) != len(want) {
		t.Fatalf("got %d quads", len(qs))
	}
	for i, q := range qs {
		if q.Label != want[i] {
			t.Errorf("quad %d label = %#v, want %#v", i, q.Label, want[i])
		}
	}
	if qs[3].Subject != quad.BNode("imp1_s") {
		t.Errorf("subject = %#v", qs[3].Subject)
	}
}

func TestDecode_NTriplesRejectsGraph(t *testing.T) {
	err := readErr(t, rdfio.NTriples, "<http://ex.org/s> <http://ex.org/p> \"a\" <http://ex.org/g> .\n", rdfio.DecodeOptions{})
	if !errors.Is(err, rdfio.ErrSyntax) {
		t.Fatalf("err = %v, want syntax error", err)
	}
}

func TestDecode_SyntaxErrorPosition(t *testing.T) {
	cases := []struct {
		name, format, src string
		line, col         int
		msg               string
	}{
		{"nt bad iri char", rdfio.NTriples, "<http://ex.org/s> <http://ex.org/p> <http://ex.org/o> .\n<http://ex.org/s> <http://ex.org/p> <http://ex.org/a b> .\n", 2, 53, "not allowed in IRI"},
		{"nt missing dot", rdfio.NTriples, "# c\n\n<http://ex.org/s> <http://ex.org/p> \"x\"\n", 3, 40, "expected '.'"},
		{"nt crlf lines", rdfio.NTriples, "<http://ex.org/s> <http://ex.org/p> \"x\" .\r\n<http://ex.org/s> <p> \"x\" .\r\n", 2, 19, "relative IRI"},
		{"ttl undefined prefix", rdfio.Turtle, "@prefix ex: <http://ex.org/> .\nex:s ex:p nope:o .\n", 2, 11, `undefined prefix "nope"`},
		{"ttl unexpected character", rdfio.Turtle, "@prefix ex: <http://ex.org/> .\n_:a ex:p 12 , 'x' ; ex:q ? .\n", 2, 26, "unexpected '?'"},
		{"ttl relative without base", rdfio.Turtle, "<s> <http://ex.org/p> 1 .\n", 1, 1, "no base"},
		{"ttl bom then error", rdfio.Turtle, "\uFEFF<http://ex.org/s> <http://ex.org/p> <bad iri> .\n", 1, 41, "not allowed in IRI"},
		{"nt bom then error", rdfio.NTriples, "\uFEFF<http://ex.org/s> <p> \"x\" .\n", 1, 19, "relative IRI"},
		{"nq bom then error", rdfio.NQuads, "\uFEFF<http://ex.org/s> <http://ex.org/p> \"x\" <g> .\n", 1, 41, "relative IRI"},
		{"nt escape beyond int32", rdfio.NTriples, "<http://ex.org/s> <http://ex.org/p> \"a\\UA0001F60\" .\n", 1, 39, "not a Unicode scalar value"},
		{"nt escape beyond U+10FFFF in IRI", rdfio.NTriples, "<http://ex.org/\\U00110000> <http://ex.org/p> \"a\" .\n", 1, 16, "not a Unicode scalar value"},
		{"ttl escape beyond int32", rdfio.Turtle, "<http://ex.org/s> <http://ex.org/p> \"a\\UFFFFFFFF\" .\n", 1, 39, "not a Unicode scalar value"},
		{"nt space after datatype marker then no IRI", rdfio.NTriples, "<http://ex.org/s> <http://ex.org/p> \"a\"^^ x .\n", 1, 43, "expected datatype IRI"},
		// RDF 1.1 Concepts 3.3: a literal has datatype rdf:langString if and
		// only if it has a language tag; the error is at the datatype.
		{"nt rdf:langString without a tag", rdfio.NTriples, "<http://ex.org/s> <http://ex.org/p> \"1\"^^<" + rdf + "langString> .\n", 1, 42, "rdf:langString literal without a language tag"},
		{"nq rdf:langString without a tag", rdfio.NQuads, "<http://ex.org/s> <http://ex.org/p> \"1\"^^<" + rdf + "langString> <http://ex.org/g> .\n", 1, 42, "rdf:langString literal without a language tag"},
		{"ttl rdf:langString without a tag", rdfio.Turtle, "<http://ex.org/s> <http://ex.org/p> \"1\"^^<" + rdf + "langString> .\n", 1, 42, "rdf:langString literal without a language tag"},
		{"ttl prefixed rdf:langString without a tag", rdfio.Turtle, "@prefix rdf: <" + rdf + "> .\n<http://ex.org/s> <http://ex.org/p> \"\"\"1\"\"\"^^rdf:langString .\n", 2, 46, "rdf:langString literal without a language tag"},
		{"ttl relative rdf:langString without a tag", rdfio.Turtle, "@base <" + rdf + "> .\n<http://ex.org/s> <http://ex.org/p> \"1\"^^<#langString> .\n", 2, 42, "rdf:langString literal without a language tag"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := readErr(t, c.format, c.src, rdfio.DecodeOptions{})
			var se *rdfio.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("err = %T %v, want *SyntaxError", err, err)
			}
			if se.Line != c.line || se.Col != c.col || !strings.Contains(se.Msg, c.msg) {
				t.Errorf("got %d:%d %q, want %d:%d containing %q", se.Line, se.Col, se.Msg, c.line, c.col, c.msg)
			}
			if !errors.Is(err, rdfio.ErrSyntax) {
				t.Errorf("errors.Is(err, ErrSyntax) = false")
			}
		})
	}
}

func TestSyntaxError_Error(t *testing.T) {
	cases := []struct {
		e    rdfio.SyntaxError
		want string
	}{
		{rdfio.SyntaxError{File: "a.ttl", Line: 3, Col: 7, Msg: "bad"}, "a.ttl:3:7: bad"},
		{rdfio.SyntaxError{Line: 3, Col: 7, Msg: "bad"}, "3:7: bad"},
		{rdfio.SyntaxError{File: "a.ttl", Line: 3, Msg: "bad"}, "a.ttl:3: bad"},
		{rdfio.SyntaxError{Msg: "bad"}, "bad"},
		// A path that is not plain text is quoted, as pathtext.Quote
		// names paths: it can neither garble nor forge the message.
		{rdfio.SyntaxError{File: "my data/a.ttl", Line: 3, Col: 7, Msg: "bad"}, "my data/a.ttl:3:7: bad"},
		{rdfio.SyntaxError{File: "a.ttl:1:1: fine\nb.ttl", Line: 3, Col: 7, Msg: "bad"}, `"a.ttl:1:1: fine\nb.ttl":3:7: bad`},
		{rdfio.SyntaxError{File: `a"b.ttl`, Line: 3, Msg: "bad"}, `"a\"b.ttl":3: bad`},
		{rdfio.SyntaxError{File: "a\u202eb.ttl", Msg: "bad"}, `"a\u202eb.ttl": bad`},
		{rdfio.SyntaxError{File: " a.ttl", Line: 1, Col: 1, Msg: "bad"}, `" a.ttl":1:1: bad`},
	}
	for _, c := range cases {
		if got := c.e.Error(); got != c.want {
			t.Errorf("Error() = %q, want %q", got, c.want)
		}
	}
}

func TestDecode_FileNameInError(t *testing.T) {
	err := readErr(t, rdfio.Turtle, "@prefix ex: <http://ex.org/> .\nex:s ex:p .\n", rdfio.DecodeOptions{File: "data/x.ttl"})
	if !strings.HasPrefix(err.Error(), "data/x.ttl:2:") {
		t.Errorf("error %q does not start with data/x.ttl:2:", err)
	}
}

func TestDecode_BOM(t *testing.T) {
	for _, f := range []string{rdfio.NTriples, rdfio.NQuads, rdfio.Turtle} {
		t.Run(f, func(t *testing.T) {
			qs := mustRead(t, f, "\uFEFF<http://ex.org/s> <http://ex.org/p> \"x\" .\n", rdfio.DecodeOptions{})
			if len(qs) != 1 || qs[0].Subject != iri("s") {
				t.Fatalf("got %v", qs)
			}
		})
	}
}

func TestTurtle_BlankNodesNeverCollide(t *testing.T) {
	src := `@prefix : <http://ex.org/> .
_:b1 :p [] .
[] :p _:b1 .
_:b2 :p ( 1 ) .
_:g1 :q [ :r _:b1 ] .
`
	qs := mustRead(t, rdfio.Turtle, src, rdfio.DecodeOptions{})
	labels := map[quad.Value]bool{}
	for _, q := range qs {
		for _, v := range []quad.Value{q.Subject, q.Object} {
			if _, ok := v.(quad.BNode); ok {
				labels[v] = true
			}
		}
	}
	// explicit: b1, b2, g1; generated: two [], one list node, one [ ... ]
	if len(labels) != 7 {
		t.Errorf("got %d distinct blank nodes %v, want 7", len(labels), labels)
	}
}

func TestDecode_BlankPrefixSeparatesImports(t *testing.T) {
	src := "_:a <http://ex.org/p> _:b .\n"
	for _, f := range []string{rdfio.NTriples, rdfio.Turtle} {
		a := mustRead(t, f, src, rdfio.DecodeOptions{BlankPrefix: "i1_"})
		b := mustRead(t, f, src, rdfio.DecodeOptions{BlankPrefix: "i2_"})
		if a[0].Subject == b[0].Subject || a[0].Object == b[0].Object {
			t.Errorf("%s: imports share blank nodes: %v %v", f, a, b)
		}
		if !strings.HasPrefix(string(a[0].Subject.(quad.BNode)), "i1_") {
			t.Errorf("%s: label %v lacks prefix", f, a[0].Subject)
		}
	}
	if _, err := rdfio.NewDecoder(strings.NewReader(""), rdfio.NTriples, rdfio.DecodeOptions{BlankPrefix: "a:b"}); !errors.Is(err, rdfio.ErrInvalidOption) {
		t.Errorf("bad prefix: err = %v, want ErrInvalidOption", err)
	}
}

func TestTurtle_RelativeIRIs(t *testing.T) {
	src := `<a> <#p> <../b?q> .
@base <http://other.org/x/y/> .
<c> <p> <> .
@prefix r: <rel/> .
r:z <p> <//h/i> .
BASE <sub/>
<d> <p> <e> .
`
	qs := mustRead(t, rdfio.Turtle, src, rdfio.DecodeOptions{Base: "http://ex.org/dir/doc.ttl"})
	want := [][3]quad.Value{
		{quad.IRI("http://ex.org/dir/a"), quad.IRI("http://ex.org/dir/doc.ttl#p"), quad.IRI("http://ex.org/b?q")},
		{quad.IRI("http://other.org/x/y/c"), quad.IRI("http://other.org/x/y/p"), quad.IRI("http://other.org/x/y/")},
		{quad.IRI("http://other.org/x/y/rel/z"), quad.IRI("http://other.org/x/y/p"), quad.IRI("http://h/i")},
		{quad.IRI("http://other.org/x/y/sub/d"), quad.IRI("http://other.org/x/y/sub/p"), quad.IRI("http://other.org/x/y/sub/e")},
	}
	if len(qs) != len(want) {
		t.Fatalf("got %d quads: %v", len(qs), qs)
	}
	for i, q := range qs {
		if got := [3]quad.Value{q.Subject, q.Predicate, q.Object}; got != want[i] {
			t.Errorf("triple %d = %v, want %v", i, got, want[i])
		}
	}
}

// TestDecode_BaseMustBeAnIRI: a base with a character that no IRI holds
// (white space, a control character, <>"{}|^`\, bytes that are not UTF-8)
// is refused, as it is in an @base of the document; it would make every
// relative reference an IRI that no document could write.
func TestDecode_BaseMustBeAnIRI(t *testing.T) {
	for _, base := range []string{"http://ex.org/a b/", "http://ex.org/a\n", "http://ex.org/<a>", "http://ex.org/a\xff", "http://ex.org/{a}", "http://ex.org/a\\b", "http://ex.org/\x00"} {
		for _, f := range []string{rdfio.NTriples, rdfio.Turtle} {
			if _, err := rdfio.NewDecoder(strings.NewReader("<a> <b> <c> .\n"), f, rdfio.DecodeOptions{Base: base}); !errors.Is(err, rdfio.ErrInvalidOption) {
				t.Errorf("%s, base %q: err = %v, want ErrInvalidOption", f, base, err)
			}
		}
	}
	// DEL and characters beyond ASCII are allowed in IRIs.
	qs := mustRead(t, rdfio.Turtle, "<a> <http://ex.org/p> <b> .\n", rdfio.DecodeOptions{Base: "http://ex.org/é\x7f/"})
	if qs[0].Subject != quad.IRI("http://ex.org/é\x7f/a") {
		t.Errorf("subject %v", qs[0].Subject)
	}
}

func TestTurtle_DefaultBaseIsFileURL(t *testing.T) {
	qs := mustRead(t, rdfio.Turtle, "<a> <http://ex.org/p> <#x> .\n", rdfio.DecodeOptions{File: "data/in.ttl"})
	abs, err := filepath.Abs("data/in.ttl")
	if err != nil {
		t.Fatal(err)
	}
	want := "file://" + filepath.ToSlash(abs) + "#x"
	if qs[0].Object != quad.IRI(want) {
		t.Errorf("object = %v, want <%s>", qs[0].Object, want)
	}
}

// TestTurtle_NoFileBase: a source that is not a file (standard input, a
// request body) has its name in messages but no base; a relative IRI is
// then a syntax error at its position, not an IRI made from the name.
func TestTurtle_NoFileBase(t *testing.T) {
	src := "<http://ex.org/s> <http://ex.org/p> <http://ex.org/o> .\n<a> <http://ex.org/p> <#x> .\n"
	_, err := rdfio.ReadAll(strings.NewReader(src), rdfio.Turtle, rdfio.DecodeOptions{File: "<stdin>", NoFileBase: true})
	var se *rdfio.SyntaxError
	if !errors.As(err, &se) || se.File != "<stdin>" || se.Line != 2 || se.Col != 1 || !strings.Contains(se.Msg, "no base") {
		t.Fatalf("relative IRI with NoFileBase: %v, want a syntax error at <stdin>:2:1 saying there is no base", err)
	}
	qs := mustRead(t, rdfio.Turtle, src, rdfio.DecodeOptions{File: "<stdin>", NoFileBase: true, Base: "http://b.org/d/"})
	if got := qs[1].Subject; got != quad.IRI("http://b.org/d/a") {
		t.Fatalf("with a Base too: subject %v, want <http://b.org/d/a>", got)
	}
}

// TestTurtle_LexicalEdgeCases holds cases other Turtle readers (knakk/rdf,
// which we used before) got wrong, and tokens the grammar splits tightly.
func TestTurtle_LexicalEdgeCases(t *testing.T) {
	cases := []struct {
		name, src string
		want      quad.Value
	}{
		{"quote inside long string", `<http://ex.org/s> <http://ex.org/p> """a"b""" .`, quad.String(`a"b`)},
		{"two quotes inside long string", `<http://ex.org/s> <http://ex.org/p> '''a''b''' .`, quad.String(`a''b`)},
		{"quote first in long string", `<http://ex.org/s> <http://ex.org/p> """"a""" .`, quad.String(`"a`)},
		{"quote before line break", "<http://ex.org/s> <http://ex.org/p> \"\"\"a\"\nb\"\"\" .", quad.String("a\"\nb")},
		{"hash line inside long string", "<http://ex.org/s> <http://ex.org/p> \"\"\"a\n# not a comment\nb\"\"\" .", quad.String("a\n# not a comment\nb")},
		{"number before line break", "<http://ex.org/s> <http://ex.org/p> 42\n.", quad.TypedString{Value: "42", Type: xsd + "integer"}},
		{"number before tab", "<http://ex.org/s> <http://ex.org/p> 42\t.", quad.TypedString{Value: "42", Type: xsd + "integer"}},
		{"prefix named base", "@prefix base: <http://ex.org/> .\nbase:s base:p base:o .", iri("o")},
		{"prefix named true", "PREFIX true: <http://ex.org/>\ntrue:s true:p true:o .", iri("o")},
		{"a before line break", "<http://ex.org/s> a\n<http://ex.org/C> .", iri("C")},
		{"relative datatype", "@base <http://ex.org/> .\n<s> <p> \"x\"^^<dt> .", quad.TypedString{Value: "x", Type: "http://ex.org/dt"}},
		{"local name ends before dot", "@prefix : <http://ex.org/> .\n:s :p :o.", iri("o")},
		{"dots inside local name", "@prefix : <http://ex.org/> .\n:s :p :a.b..c.", iri("a.b..c")},
		{"local name escapes and percent", "@prefix : <http://ex.org/> .\n:s :p :a\\-b%20\\.c.", iri("a-b%20.c")},
		{"local name with colons", "@prefix : <http://ex.org/> .\n:s :p ::a:.", iri(":a:")},
		{"empty local name", "@prefix e: <http://ex.org/o> .\ne:s e:p e: .", iri("o")},
		{"prefix with dots", "@prefix a..b: <http://ex.org/> .\na..b:s a..b:p a..b:o .", iri("o")},
		{"integer before dot", "<http://ex.org/s> <http://ex.org/p> 1.", quad.TypedString{Value: "1", Type: xsd + "integer"}},
		{"double without fraction digits", "<http://ex.org/s> <http://ex.org/p> 1.e3.", quad.TypedString{Value: "1.e3", Type: xsd + "double"}},
		{"boolean before dot", "<http://ex.org/s> <http://ex.org/p> true.", quad.TypedString{Value: "true", Type: xsd + "boolean"}},
		{"blank label with inner dots", "<http://ex.org/s> <http://ex.org/p> _:a..b.", quad.BNode("ea..b")},
		{"space before language tag", "<http://ex.org/s> <http://ex.org/p> 'x' @en .", quad.LangString{Value: "x", Lang: "en"}},
		{"language tag named prefix", "<http://ex.org/s> <http://ex.org/p> 'x'@prefix .", quad.LangString{Value: "x", Lang: "prefix"}},
		{"directive without space", "@prefix:<http://ex.org/>.\n:s :p :o .", iri("o")},
		{"lone CR ends lines", "<http://ex.org/s>\r<http://ex.org/p>\r'''a\rb''' .", quad.String("a\rb")},
		{"NUL escape", "<http://ex.org/s> <http://ex.org/p> '\\u0000' .", quad.String("\x00")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			qs := mustRead(t, rdfio.Turtle, c.src, rdfio.DecodeOptions{})
			if len(qs) != 1 || qs[0].Object != c.want {
				t.Fatalf("got %#v, want object %#v", qs, c.want)
			}
		})
	}
}

func TestTurtle_SemicolonBeforeCloseBracket(t *testing.T) {
	const pre = "@prefix : <http://ex.org/> .\n"
	cases := []struct {
		name, src string
		quads     int
	}{
		{"same line", ":a :p [ :q :r ; ] .", 2},
		{"no space", ":a :p [ :q :r;] .", 2},
		{"two semicolons", ":a :p [ :q :r ;; ] .", 2},
		{"spaced semicolons", ":a :p [ :q :r ; ; ] .", 2},
		{"next line", ":a :p [\n  :q :r ;\n] .", 2},
		{"comment between", ":a :p [ :q :r ; # c ] ;\n# more\n\n ] .", 2},
		{"subject blank node", "[ :q :r ; ] :p :o .", 2},
		{"blank node alone", "[ :q :r ; ] .", 1},
		{"nested", ":a :p [ :q [ :r :s ; ] ; ] .", 3},
		{"inside strings untouched", ":a :p \"x ; ]\" , [ :q \"]\" ; ] .", 3},
		{"before dot", ":a :p :o ; .", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			qs := mustRead(t, rdfio.Turtle, pre+c.src, rdfio.DecodeOptions{})
			if len(qs) != c.quads {
				t.Fatalf("got %d quads %v, want %d", len(qs), qs, c.quads)
			}
		})
	}
	t.Run("string keeps its semicolon", func(t *testing.T) {
		qs := mustRead(t, rdfio.Turtle, pre+":a :p [ :q \"x;\" ; ] .", rdfio.DecodeOptions{})
		for _, q := range qs {
			if q.Predicate == iri("q") && q.Object != quad.String("x;") {
				t.Errorf("object = %#v, want \"x;\"", q.Object)
			}
		}
	})
	t.Run("error position after held lines", func(t *testing.T) {
		err := readErr(t, rdfio.Turtle, pre+":a :p [ :q :r ;\n\n ] ? .\n", rdfio.DecodeOptions{})
		var se *rdfio.SyntaxError
		if !errors.As(err, &se) || se.Line != 4 || se.Col != 4 {
			t.Errorf("err = %v, want a syntax error at 4:4", err)
		}
	})
}

func TestTurtle_Rejects(t *testing.T) {
	cases := map[string]string{
		"long string ending in quote": `<http://ex.org/s> <http://ex.org/p> """abc"""" .`,
		"colon in blank label":        `_:a:b <http://ex.org/p> 1 .`,
		"surrogate escape":            `<http://ex.org/s> <http://ex.org/p> "\ud800" .`,
		"escaped space in IRI":        `<http://ex.org/\u0020> <http://ex.org/p> 1 .`,
		"truncated statement":         `<http://ex.org/s> <http://ex.org/p>`,
		"semicolon first in brackets": `<http://ex.org/s> <http://ex.org/p> [ ; ] .`,
		"semicolon after predicate":   `<http://ex.org/s> <http://ex.org/p> [ <http://ex.org/q> ; ] .`,
		"semicolon at end of input":   `<http://ex.org/s> <http://ex.org/p> <http://ex.org/o> ;`,
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			err := readErr(t, rdfio.Turtle, src, rdfio.DecodeOptions{})
			if !errors.Is(err, rdfio.ErrSyntax) {
				t.Errorf("err = %v, want a syntax error", err)
			}
		})
	}
}

func TestDecoder_CloseAndStickyErrors(t *testing.T) {
	for _, f := range []string{rdfio.NTriples, rdfio.Turtle} {
		t.Run(f, func(t *testing.T) {
			d, err := rdfio.NewDecoder(strings.NewReader("<http://ex.org/s> <http://ex.org/p> 'x' @@ .\n<http://ex.org/s> <http://ex.org/p> <http://ex.org/o> .\n"), f, rdfio.DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			_, err1 := d.Next()
			_, err2 := d.Next()
			if err1 == nil || err1 == io.EOF || err2 != err1 {
				t.Errorf("errors not sticky: %v then %v", err1, err2)
			}
			if err := d.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := d.Next(); !errors.Is(err, rdfio.ErrDecoderClosed) {
				t.Errorf("after Close: %v", err)
			}
		})
	}
}

func TestDecode_LongLine(t *testing.T) {
	long := strings.Repeat("é", 200000)
	src := "<http://ex.org/s> <http://ex.org/p> \"" + long + "\" .\n<http://ex.org/s> <http://ex.org/p> \"short\" .\n"
	for _, f := range []string{rdfio.NTriples, rdfio.Turtle} {
		qs := mustRead(t, f, src, rdfio.DecodeOptions{})
		if len(qs) != 2 || qs[0].Object != quad.String(long) {
			t.Errorf("%s: long literal not read back", f)
		}
	}
}

// TestTurtle_NoGoroutineLeak checks that abandoned or failed Turtle decoders
// leave no goroutine behind (no timing involved: it yields until the
// goroutine count is back, with an iteration bound).
func TestTurtle_NoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	for i := 0; i < 20; i++ {
		src := "<http://ex.org/s> <http://ex.org/p> 1 .\n<http://ex.org/s> <http://ex.org/p> ??? .\n" + strings.Repeat("<http://ex.org/s> <http://ex.org/p> 2 .\n", 100)
		d, err := rdfio.NewDecoder(strings.NewReader(src), rdfio.Turtle, rdfio.DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			for {
				if _, err := d.Next(); err != nil {
					break
				}
			}
		} else {
			d.Next() // abandon after one quad
		}
		d.Close()
	}
	for i := 0; i < 1_000_000 && runtime.NumGoroutine() > before; i++ {
		runtime.Gosched()
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines left running (before: %d)", n, before)
	}
}
