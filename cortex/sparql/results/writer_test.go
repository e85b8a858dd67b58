package results_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/results"
)

func allFormats(t *testing.T) []results.Format {
	t.Helper()
	var fs []results.Format
	for _, n := range results.Names() {
		f, err := results.Lookup(n)
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
	}
	return fs
}

func TestWriter_InvalidVariables(t *testing.T) {
	for _, f := range allFormats(t) {
		for _, vars := range [][]string{{""}, {"a b"}, {"?x"}, {"x", "x"}, {"x\ty"}, {"-x"}} {
			t.Run(f.Name+"_"+strings.Join(vars, ","), func(t *testing.T) {
				_, err := f.NewWriter(io.Discard, vars)
				if !errors.Is(err, results.ErrInvalidVariable) {
					t.Errorf("NewWriter(%q) err = %v, want ErrInvalidVariable", vars, err)
				}
			})
		}
		t.Run(f.Name+"_UnicodeVarOK", func(t *testing.T) {
			if _, err := f.NewWriter(io.Discard, []string{"été", "_x", "1a", "a·b"}); err != nil {
				t.Errorf("NewWriter: %v", err)
			}
		})
	}
}

func TestWriter_BadRows(t *testing.T) {
	cases := []struct {
		name string
		row  results.Row
		want error
	}{
		{"TooShort", results.Row{quad.IRI("x")}, results.ErrRowLength},
		{"TooLong", results.Row{nil, nil, nil}, results.ErrRowLength},
		{"IntValue", results.Row{nil, quad.Int(1)}, results.ErrInvalidTerm},
		{"FloatValue", results.Row{quad.Float(1.5), nil}, results.ErrInvalidTerm},
		{"BoolValue", results.Row{nil, quad.Bool(true)}, results.ErrInvalidTerm},
		{"InvalidUTF8", results.Row{quad.String("a\xffb"), nil}, results.ErrInvalidTerm},
		{"EmptyBNode", results.Row{quad.BNode(""), nil}, results.ErrInvalidTerm},
		{"EmptyLang", results.Row{quad.LangString{Value: "a"}, nil}, results.ErrInvalidTerm},
		{"BadLang", results.Row{quad.LangString{Value: "a", Lang: "en US"}, nil}, results.ErrInvalidTerm},
		{"EmptyDatatype", results.Row{quad.TypedString{Value: "a"}, nil}, results.ErrInvalidTerm},
		{"LangStringWithoutTag", results.Row{nil, quad.TypedString{Value: "a", Type: "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"}}, results.ErrInvalidTerm},
	}
	for _, f := range allFormats(t) {
		for _, tc := range cases {
			t.Run(f.Name+"_"+tc.name, func(t *testing.T) {
				var buf bytes.Buffer
				w, err := f.NewWriter(&buf, []string{"a", "b"})
				if err != nil {
					t.Fatal(err)
				}
				if err := w.Write(results.Row{quad.IRI(ex + "ok"), nil}); err != nil {
					t.Fatal(err)
				}
				err = w.Write(tc.row)
				if !errors.Is(err, tc.want) {
					t.Fatalf("Write err = %v, want %v", err, tc.want)
				}
				var te *results.TermError
				if tc.want == results.ErrInvalidTerm {
					if !errors.As(err, &te) || te.Row != 1 || te.Var != "a" && te.Var != "b" {
						t.Errorf("err = %#v, want *TermError for row 1", err)
					}
				}
				// The writer stays usable and the bad row left no trace.
				if err := w.Write(results.Row{nil, quad.String("after")}); err != nil {
					t.Fatalf("Write after bad row: %v", err)
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				if f.Read == nil {
					return
				}
				got, err := f.Read(&buf)
				if err != nil {
					t.Fatalf("read back: %v\n%s", err, buf.Bytes())
				}
				if len(got.Rows) != 2 {
					t.Errorf("read back %d rows, want 2", len(got.Rows))
				}
			})
		}
	}
}

func TestWriter_ControlCharacters(t *testing.T) {
	row := results.Row{quad.String("bell\x07 nul\x00 del\x7f"), quad.IRI(ex + "a\x01b")}
	for _, f := range allFormats(t) {
		t.Run(f.Name, func(t *testing.T) {
			var buf bytes.Buffer
			w, err := f.NewWriter(&buf, []string{"a", "b"})
			if err != nil {
				t.Fatal(err)
			}
			err = w.Write(row)
			if f.Name == "xml" {
				// Decision: XML 1.0 cannot carry these characters at all; reject.
				if !errors.Is(err, results.ErrInvalidTerm) {
					t.Fatalf("xml Write err = %v, want ErrInvalidTerm", err)
				}
				w.Close()
				if err := xml.Unmarshal(buf.Bytes(), new(any)); err != nil && !strings.Contains(err.Error(), "unknown type") {
					t.Errorf("document not well-formed: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			switch f.Name {
			case "json", "tsv":
				got, err := f.Read(&buf)
				if err != nil {
					t.Fatalf("read back: %v\n%q", err, buf.Bytes())
				}
				want := &results.Result{Vars: []string{"a", "b"}, Rows: []results.Row{row}}
				if !results.Equivalent(want, got, true) {
					t.Errorf("read back %#v", got.Rows)
				}
			case "table":
				if bytes.ContainsAny(buf.Bytes(), "\x00\x01\x07\x7f") {
					t.Errorf("table output holds raw control characters: %q", buf.Bytes())
				}
			}
		})
	}
}

func TestXMLWriter_WellFormed(t *testing.T) {
	var buf bytes.Buffer
	if err := results.XML().WriteResult(&buf, fixture()); err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(&buf)
	for {
		_, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed: %v", err)
		}
	}
}

func TestJSONWriter_ValidJSON(t *testing.T) {
	var buf bytes.Buffer
	if err := results.JSON().WriteResult(&buf, fixture()); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Head    struct{ Vars []string }
		Results struct {
			Bindings []map[string]map[string]string
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("invalid json: %v\n%s", err, buf.Bytes())
	}
	if len(doc.Results.Bindings) != len(fixture().Rows) {
		t.Fatalf("%d bindings", len(doc.Results.Bindings))
	}
	b := doc.Results.Bindings
	for _, tc := range []struct {
		got, want map[string]string
	}{
		{b[0]["o"], map[string]string{"type": "bnode", "value": "b0"}},
		{b[1]["o"], map[string]string{"type": "literal", "value": "chat", "xml:lang": "fr"}},
		{b[2]["s"], map[string]string{"type": "literal", "value": "01", "datatype": xsd + "integer"}},
		{b[2]["o"], map[string]string{"type": "literal", "value": "typed as string"}}, // never datatype xsd:string
		{b[3]["o"], map[string]string{"type": "literal", "value": "line1\nline2\r\nline3"}},
	} {
		if !mapsEqual(tc.got, tc.want) {
			t.Errorf("binding %v, want %v", tc.got, tc.want)
		}
	}
	if _, ok := b[4]["o"]; ok {
		t.Error("unbound variable present in binding")
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestWriter_CloseContract(t *testing.T) {
	for _, f := range allFormats(t) {
		t.Run(f.Name, func(t *testing.T) {
			w, err := f.NewWriter(io.Discard, []string{"x"})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
			if err := w.Write(results.Row{nil}); !errors.Is(err, results.ErrClosed) {
				t.Errorf("Write after Close err = %v, want ErrClosed", err)
			}
		})
	}
}

type failWriter struct{ n int }

var errDisk = errors.New("disk full")

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n < len(p) {
		n := f.n
		f.n = 0
		return n, errDisk
	}
	f.n -= len(p)
	return len(p), nil
}

func TestWriter_IOErrorIsReported(t *testing.T) {
	row := results.Row{quad.String(strings.Repeat("x", 100))}
	for _, f := range allFormats(t) {
		t.Run(f.Name, func(t *testing.T) {
			w, err := f.NewWriter(&failWriter{n: 1000}, []string{"x"})
			if err != nil {
				t.Fatal(err)
			}
			var werr error
			for i := 0; i < 1000 && werr == nil; i++ {
				werr = w.Write(row)
			}
			if errors.Is(werr, errDisk) {
				if err := w.Write(row); !errors.Is(err, errDisk) {
					t.Errorf("error not sticky: %v", err)
				}
			}
			cerr := w.Close()
			if !errors.Is(werr, errDisk) && !errors.Is(cerr, errDisk) {
				t.Errorf("write err %v, close err %v; want %v", werr, cerr, errDisk)
			}
		})
		t.Run(f.Name+"_Boolean", func(t *testing.T) {
			if err := f.WriteBoolean(&failWriter{}, true); !errors.Is(err, errDisk) {
				t.Errorf("WriteBoolean err = %v", err)
			}
		})
	}
}

func TestTSVWriter_BlankNodeLabels(t *testing.T) {
	for _, tc := range []struct {
		label string
		ok    bool
	}{
		{"b0", true}, {"0b", true}, {"a.b", true}, {"a-b_c", true}, {"é", true},
		{"a b", false}, {"a.", false}, {"-a", false}, {"a\tb", false}, {"a:b", false},
	} {
		t.Run(tc.label, func(t *testing.T) {
			w, _ := results.NewTSVWriter(io.Discard, []string{"x"})
			err := w.Write(results.Row{quad.BNode(tc.label)})
			if (err == nil) != tc.ok {
				t.Errorf("Write(_:%s) err = %v, want ok=%v", tc.label, err, tc.ok)
			}
			if err != nil && !errors.Is(err, results.ErrInvalidTerm) {
				t.Errorf("err = %v, want ErrInvalidTerm", err)
			}
		})
	}
}

func TestCSVWriter_Quoting(t *testing.T) {
	var buf bytes.Buffer
	w, _ := results.NewCSVWriter(&buf, []string{"a", "b", "c", "d"})
	w.Write(results.Row{quad.String(`say "hi"`), quad.String("a,b"), quad.String("x\ny"), quad.String("plain")})
	w.Write(results.Row{nil, quad.String(""), quad.String("\r"), quad.BNode("z")})
	w.Close()
	want := "a,b,c,d\r\n\"say \"\"hi\"\"\",\"a,b\",\"x\ny\",plain\r\n,,\"\r\",_:z\r\n"
	if got := buf.String(); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestCSVWriter_BooleanLikeHeaderIsQuoted(t *testing.T) {
	for _, v := range []string{"true", "false", "_askResult"} {
		t.Run(v, func(t *testing.T) {
			var buf bytes.Buffer
			in := &results.Result{Vars: []string{v}, Rows: []results.Row{{quad.String("true")}}}
			if err := results.CSV().WriteResult(&buf, in); err != nil {
				t.Fatal(err)
			}
			got, err := results.ReadCSV(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, in) {
				t.Errorf("read back %+v, want %+v", got, in)
			}
		})
	}
}

// A SELECT result of one variable named _askResult bound to true, written
// by this package, reads back as itself in every readable format, never as
// the boolean of Jena's TSV and CSV forms of an ASK result.
func TestWriters_AskResultVariableRoundTrips(t *testing.T) {
	in := &results.Result{Vars: []string{"_askResult"}, Rows: []results.Row{{quad.TypedString{Value: "true", Type: xsd + "boolean"}}}}
	for _, name := range results.Names() {
		f, _ := results.Lookup(name)
		if f.Read == nil {
			continue
		}
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := f.WriteResult(&buf, in); err != nil {
				t.Fatal(err)
			}
			got, err := f.Read(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if got.Boolean != nil || !reflect.DeepEqual(got.Vars, in.Vars) || len(got.Rows) != 1 {
				t.Errorf("read back %+v", got)
			}
		})
	}
}

func TestTableWriter_Buffering(t *testing.T) {
	var buf bytes.Buffer
	w, err := results.NewTableWriter(&buf, []string{"x"}, results.DefaultTableOptions().WithBufferRows(2))
	if err != nil {
		t.Fatal(err)
	}
	w.Write(results.Row{quad.String("a")})
	if buf.Len() != 0 {
		t.Errorf("output before the buffer filled: %q", buf.String())
	}
	w.Write(results.Row{quad.String("bb")})
	w.Write(results.Row{quad.String("much longer")})
	w.Write(results.Row{nil})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := "| ?x   |\n|------|\n| \"a\"  |\n| \"bb\" |\n| \"much longer\" |\n|      |\n"
	if got := buf.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if _, err := results.NewTableWriter(io.Discard, nil, results.DefaultTableOptions().WithBufferRows(-1)); err == nil {
		t.Error("negative buffer accepted")
	}
}

func TestTableWriter_PrefixesAndWidths(t *testing.T) {
	opts := results.TableOptions{}.WithPrefixes(map[string]string{
		"ex": "http://example.org/", "exs": "http://example.org/sub/", "bad": "http://bad/",
	})
	var buf bytes.Buffer
	w, err := results.NewTableWriter(&buf, []string{"x", "y"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range []results.Row{
		{quad.IRI("http://example.org/sub/a"), quad.String("日本")},     // longest namespace wins; wide chars
		{quad.IRI("http://example.org/a"), quad.String("e\u0301")},    // combining mark has no width
		{quad.IRI("http://bad/has space"), quad.IRI("http://bad/a.")}, // not local names: full IRIs
		{quad.TypedString{Value: "x", Type: xsd + "integer"}, quad.TypedString{Value: "yes", Type: xsd + "boolean"}},
	} {
		if err := w.Write(row); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	lines := strings.Split(buf.String(), "\n")
	if len(lines) != 7 {
		t.Fatalf("got %d lines:\n%s", len(lines), buf.String())
	}
	for _, s := range []string{"exs:a", "ex:a ", "<http://bad/has\\u0020space>", "<http://bad/a.>", `"x"^^<http://www.w3.org/2001/XMLSchema#integer>`, `"yes"^^`} {
		if !strings.Contains(buf.String(), s) {
			t.Errorf("output lacks %q:\n%s", s, buf.String())
		}
	}
	// All lines within the buffer are aligned by display width.
	w0 := results.DisplayWidthForTest(lines[0])
	for _, l := range lines[1:6] {
		if got := results.DisplayWidthForTest(l); got != w0 {
			t.Errorf("line %q has width %d, want %d", l, got, w0)
		}
	}
}

func TestWriter_DoesNotModifyRow(t *testing.T) {
	for _, f := range allFormats(t) {
		t.Run(f.Name, func(t *testing.T) {
			typed := quad.TypedString{Value: "s", Type: xsd + "string"}
			row := results.Row{typed, quad.IRI(ex)}
			w, _ := f.NewWriter(io.Discard, []string{"a", "b"})
			if err := w.Write(row); err != nil {
				t.Fatal(err)
			}
			w.Close()
			if row[0] != typed || row[1] != quad.IRI(ex) {
				t.Errorf("row modified: %#v", row)
			}
		})
	}
}

// sliceRows is a results.Rows over rows, failing with err after them.
type sliceRows struct {
	rows [][]quad.Value
	i    int
	err  error
}

func (s *sliceRows) Next(context.Context) bool {
	if s.i >= len(s.rows) {
		return false
	}
	s.i++
	return true
}
func (s *sliceRows) Row() []quad.Value { return s.rows[s.i-1] }
func (s *sliceRows) Err() error        { return s.err }

// WriteAll writes every row and the trailer; a stream that fails gets no
// trailer (an incomplete result never looks complete) and its error.
func TestWriteAll(t *testing.T) {
	f, err := results.Lookup("json")
	if err != nil {
		t.Fatal(err)
	}
	rows := [][]quad.Value{{quad.IRI("urn:a")}, {quad.String("b")}}
	var ok bytes.Buffer
	if err := results.WriteAll(context.Background(), &ok, f, []string{"x"}, &sliceRows{rows: rows}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(strings.TrimSpace(ok.String()), "}") || !strings.Contains(ok.String(), `"urn:a"`) {
		t.Fatalf("complete result: %q", ok.String())
	}
	var cut bytes.Buffer
	boom := errors.New("boom")
	if err := results.WriteAll(context.Background(), &cut, f, []string{"x"}, &sliceRows{rows: rows, err: boom}); !errors.Is(err, boom) {
		t.Fatalf("failed stream: %v, want boom", err)
	}
	if strings.HasSuffix(strings.TrimSpace(cut.String()), "}") {
		t.Fatalf("a failed stream was completed: %q", cut.String())
	}
}

// TestXML_WhiteSpaceAroundURIAndBNode: the reader trims only XML white
// space from <uri> and <bnode>, so an IRI ending in U+00A0 or U+3000 (an
// IRI may: RFC 3987 ucschar) reads back whole (it lost that character,
// and the blank nodes "a\u3000" and "a" of one result merged); a term
// starting or ending with XML white space, which cannot read back, is
// refused with a *TermError.
func TestXML_WhiteSpaceAroundURIAndBNode(t *testing.T) {
	tests := []struct {
		name   string
		v      quad.Value
		refuse bool
	}{
		{"IRIEndsInNBSP", quad.IRI(ex + "a\u00a0"), false},
		{"IRIEndsInIdeographicSpace", quad.IRI(ex + "a\u3000"), false},
		{"IRIStartsWithLineSeparator", quad.IRI("\u2028" + ex), false},
		{"BNodeEndsInIdeographicSpace", quad.BNode("a\u3000"), false},
		{"BNodeStartsWithNEL", quad.BNode("\u0085a"), false},
		{"IRIEndsInSpace", quad.IRI(ex + "a "), true},
		{"BNodeStartsWithTab", quad.BNode("\ta"), true},
		{"BNodeEndsInLF", quad.BNode("a\n"), true},
		{"BNodeEndsInCR", quad.BNode("a\r"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			w, err := results.NewXMLWriter(&buf, []string{"x"})
			if err != nil {
				t.Fatal(err)
			}
			rows := []results.Row{{quad.BNode("a")}, {tt.v}}
			for _, row := range rows {
				err = w.Write(row)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if tt.refuse {
				var te *results.TermError
				if !errors.As(err, &te) || !errors.Is(err, results.ErrInvalidTerm) {
					t.Fatalf("Write(%#v) = %v, want a *TermError", tt.v, err)
				}
				rows = rows[:1]
			} else if err != nil {
				t.Fatal(err)
			}
			got, err := results.ReadXML(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Rows, rows) {
				t.Errorf("read back %#v, want %#v", got.Rows, rows)
			}
		})
	}
}

// TestTableWriter_TerminalControls: the table, meant for a terminal, shows
// C1 controls (U+0085, U+009B: CSI, which starts an escape sequence),
// line and paragraph separators and bidirectional formatting characters
// (U+202E reverses the rest of the line) as \u escapes in every kind of
// term, as it did only for C0 controls and DEL (and C1 in blank nodes).
func TestTableWriter_TerminalControls(t *testing.T) {
	opts := results.TableOptions{}.WithPrefixes(map[string]string{"ex": ex})
	tests := []struct {
		name string
		v    quad.Value
		want string
	}{
		{"LiteralCSI", quad.String("a\u009b31mb"), `"a\u009B31mb"`},
		{"LiteralNEL", quad.String("a\u0085b"), `"a\u0085b"`},
		{"LiteralLineSeparator", quad.String("a\u2028b\u2029"), `"a\u2028b\u2029"`},
		{"LiteralRLO", quad.String("abc\u202edef"), `"abc\u202Edef"`},
		{"LangLiteralIsolate", quad.LangString{Value: "x\u2066y\u2069", Lang: "en"}, `"x\u2066y\u2069"@en`},
		{"TypedLiteral", quad.TypedString{Value: "\u200f1", Type: "http://dt/\u202d"}, `"\u200F1"^^<http://dt/\u202D>`},
		{"IRI", quad.IRI("http://x/\u009b\u202e"), `<http://x/\u009B\u202E>`},
		{"PrefixedIRIWithMark", quad.IRI(ex + "a\u061cb"), `<http://example.org/a\u061Cb>`},
		{"BNode", quad.BNode("b\u202e\u0085"), `_:b\u202E\u0085`},
		{"PlainKept", quad.String("é日本\u00a0"), "\"é日本\u00a0\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			w, err := results.NewTableWriter(&buf, []string{"x"}, opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(results.Row{tt.v}); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(buf.String(), "\n")
			if len(lines) != 4 || strings.TrimSpace(strings.Trim(lines[2], "|")) != tt.want {
				t.Errorf("table:\n%s\nwant the cell %s", buf.String(), tt.want)
			}
		})
	}
}

// TestTableWriter_HeaderMark: a variable name may hold U+061C (ARABIC
// LETTER MARK, a bidirectional formatting character in PN_CHARS_U); the
// table's header shows it escaped, as in cells.
func TestTableWriter_HeaderMark(t *testing.T) {
	var buf bytes.Buffer
	w, err := results.NewTableWriter(&buf, []string{"x\u061cy"}, results.DefaultTableOptions())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if head, _, _ := strings.Cut(buf.String(), "\n"); strings.TrimSpace(strings.Trim(head, "|")) != `?x\u061Cy` {
		t.Errorf("header %q, want the cell ?x\\u061Cy", head)
	}
}

// TestCSVWriter_SingleEmptyFieldIsQuoted: a row of one variable, unbound
// or an empty literal, was an empty line, which common CSV readers skip
// (Go's encoding/csv, Python's csv.DictReader, pandas): the row was lost
// to them. It is written as "" (one empty field, RFC 4180), which they and
// ReadCSV read as one row.
func TestCSVWriter_SingleEmptyFieldIsQuoted(t *testing.T) {
	res := &results.Result{Vars: []string{"x"}, Rows: []results.Row{{nil}, {quad.String("a")}, {quad.String("")}, {quad.LangString{Value: "", Lang: "en"}}, {nil}}}
	var buf bytes.Buffer
	if err := results.CSV().WriteResult(&buf, res); err != nil {
		t.Fatal(err)
	}
	if want := "x\r\n\"\"\r\na\r\n\"\"\r\n\"\"\r\n\"\"\r\n"; buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
	records, err := csv.NewReader(bytes.NewReader(buf.Bytes())).ReadAll()
	if err != nil || len(records) != 1+len(res.Rows) {
		t.Errorf("encoding/csv reads %q, %v: want %d records", records, err, 1+len(res.Rows))
	}
	got, err := results.ReadCSV(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if want := results.CSVView(res); !results.Equivalent(want, got, true) {
		t.Errorf("ReadCSV reads %#v, want %#v", got.Rows, want.Rows)
	}
}

// TestTableWriter_BidiControlsEscaped: a bidirectional formatting character
// (an override, embedding, isolate or mark) in a term is shown as \uXXXX,
// as cortexctl's other tables show it: written raw, it reordered the rest
// of its row on a terminal, so a value could hide or forge the cells after
// it. A literal or IRI keeps its N-Triples form (the escape is a UCHAR); a
// prefixed name whose local part holds one is shown as the full IRI.
func TestTableWriter_BidiControlsEscaped(t *testing.T) {
	opts := results.DefaultTableOptions().WithPrefixes(map[string]string{"ex": "http://ex.org/"})
	var buf bytes.Buffer
	w, err := results.NewTableWriter(&buf, []string{"a", "b"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range []results.Row{
		{quad.String("a\u202eb"), quad.LangString{Value: "\u2066x\u2069", Lang: "en"}},
		{quad.IRI("http://ex.org/x\u061cy"), quad.IRI("http://other.org/\u200fz")},
		{quad.BNode("b\u061c"), quad.TypedString{Value: "\u200e1", Type: "http://ex.org/t\u061c"}},
	} {
		if err := w.Write(row); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if i := strings.IndexAny(out, "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"); i >= 0 {
		t.Errorf("the table holds a raw bidirectional formatting character at byte %d:\n%q", i, out)
	}
	for _, want := range []string{`"a\u202Eb"`, `"\u2066x\u2069"@en`, `<http://ex.org/x\u061Cy>`, `<http://other.org/\u200Fz>`, `_:b\u061C`, `"\u200E1"^^<http://ex.org/t\u061C>`} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %s:\n%s", want, out)
		}
	}
}

// TestWriteResult_BadRowWritesNoCompleteResult: a row WriteResult cannot
// write (a value of no term type) made it close the writer, so the rows
// before it went out as a complete document that every reader took for
// the whole result; now the writer is left unclosed, as WriteAll leaves
// it, and this small result writes nothing.
func TestWriteResult_BadRowWritesNoCompleteResult(t *testing.T) {
	res := &results.Result{Vars: []string{"x"}, Rows: []results.Row{{quad.IRI("urn:a")}, {quad.Int(7)}, {quad.IRI("urn:b")}}}
	for _, f := range allFormats(t) {
		t.Run(f.Name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := f.WriteResult(&buf, res); !errors.Is(err, results.ErrInvalidTerm) {
				t.Fatalf("err = %v, want ErrInvalidTerm", err)
			}
			if buf.Len() != 0 {
				t.Errorf("wrote %q", buf.String())
			}
			if f.Read == nil {
				return
			}
			if got, err := f.Read(bytes.NewReader(buf.Bytes())); err == nil {
				t.Errorf("the output reads as a result of %d rows", len(got.Rows))
			}
		})
	}
}
