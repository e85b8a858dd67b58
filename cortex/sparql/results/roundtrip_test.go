package results_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/results"
)

// The writers' round-trip test: random rows of hostile terms (every
// control character, quotes, XML and CSV specials, Unicode white space
// such as U+00A0 and U+3000, non-characters, blank node labels of any
// characters) written by each writer read back exactly (CSV: as CSVView
// has it). A row a writer refuses (XML: a character XML 1.0 cannot carry;
// TSV: a blank node label Turtle cannot) must be refused with a
// *TermError, leaving the document readable.

var hostileRunes = []rune{
	0, 1, 8, '\t', '\n', '\v', '\f', '\r', 0x1b, 0x1f, ' ', '"', '\'', '\\', ',', '&', '<', '>', ';', ']', '#', '?', '$',
	'_', ':', '.', '-', '@', '^', '`', '{', '}', '|', 0x7f, 0x80, 0x85, 0x9f, 0xa0, 0xe9, 0x1680, 0x2000, 0x200b,
	0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff, 0xd7ff, 0xe000, 0xfffd, 0xfffe, 0xffff, 0x10000, 0x1f600, 0x10ffff,
}

type rowGen struct{ r *rand.Rand }

func (g rowGen) text(max int) string {
	var b strings.Builder
	for range g.r.IntN(max + 1) {
		if g.r.IntN(3) == 0 {
			b.WriteByte(byte('!' + g.r.IntN('~'-'!'+1)))
		} else {
			b.WriteRune(hostileRunes[g.r.IntN(len(hostileRunes))])
		}
	}
	return b.String()
}

func (g rowGen) iri() quad.IRI {
	s := g.text(8)
	if g.r.IntN(2) == 0 { // most IRIs hold no character IRIREF excludes
		s = strings.Map(func(r rune) rune {
			if r <= ' ' || strings.ContainsRune("<>\"{}|^`\\", r) {
				return -1
			}
			return r
		}, s)
	}
	return quad.IRI("http://ex.org/" + s)
}

func (g rowGen) term() quad.Value {
	switch g.r.IntN(7) {
	case 0:
		return nil
	case 1:
		return g.iri()
	case 2:
		l := g.text(5)
		if l == "" || g.r.IntN(2) == 0 {
			l = "b" + strings.Map(func(r rune) rune {
				if r < 0x80 && !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r == '_' || r == '-') {
					return -1
				}
				return r
			}, l)
		}
		return quad.BNode(l)
	case 3:
		return quad.String(g.text(12))
	case 4:
		lang := []string{"en", "EN-gb", "x-private", "zh-Hant-TW", "de-CH-1901", "i-klingon"}[g.r.IntN(6)]
		return quad.LangString{Value: quad.String(g.text(12)), Lang: lang}
	case 5:
		dt := g.iri()
		if g.r.IntN(2) == 0 {
			dt = quad.IRI(xsd + []string{"integer", "decimal", "double", "boolean", "string", "date"}[g.r.IntN(6)])
		}
		return quad.TypedString{Value: quad.String(g.text(8)), Type: dt}
	}
	return quad.String([]string{"", " ", "true", "1", "1.5e3", "_:b", "http://x/", "a,b", "\"\"", "\r\n", "<x>", "]]>"}[g.r.IntN(12)])
}

func (g rowGen) result() *results.Result {
	vars := []string{"a", "b", "c"}[:1+g.r.IntN(3)]
	res := &results.Result{Vars: vars}
	for range g.r.IntN(6) {
		row := make(results.Row, len(vars))
		for i := range row {
			row[i] = g.term()
		}
		res.Rows = append(res.Rows, row)
	}
	return res
}

// normalise returns the rows as readers return them: a literal of type
// xsd:string is plain.
func normalise(rows []results.Row) []results.Row {
	out := make([]results.Row, len(rows))
	for i, row := range rows {
		out[i] = append(results.Row(nil), row...)
		for j, v := range out[i] {
			if t, ok := v.(quad.TypedString); ok && t.Type == xsd+"string" {
				out[i][j] = t.Value
			}
		}
	}
	return out
}

// writeAccepted writes res in f row by row and returns the document and
// the rows the writer accepted.
func writeAccepted(t *testing.T, f results.Format, res *results.Result) ([]byte, *results.Result) {
	t.Helper()
	var buf bytes.Buffer
	w, err := f.NewWriter(&buf, res.Vars)
	if err != nil {
		t.Fatal(err)
	}
	kept := &results.Result{Vars: res.Vars, Rows: []results.Row{}}
	for _, row := range res.Rows {
		if err := w.Write(row); err != nil {
			var te *results.TermError
			if !errors.As(err, &te) || !errors.Is(err, results.ErrInvalidTerm) {
				t.Fatalf("%s: row %#v refused with %T %v", f.Name, row, err, err)
			}
			continue
		}
		kept.Rows = append(kept.Rows, row)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), kept
}

func TestWriters_RoundTripHostileTerms(t *testing.T) {
	g := rowGen{rand.New(rand.NewPCG(20261127, 7))}
	for range 3000 {
		res := g.result()
		for _, name := range []string{"json", "xml", "tsv", "csv"} {
			f, err := results.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			doc, kept := writeAccepted(t, f, res)
			got, err := f.Read(bytes.NewReader(doc))
			if err != nil {
				t.Fatalf("%s: our reader rejects what our writer wrote: %v\n%q", name, err, doc)
			}
			want := &results.Result{Vars: kept.Vars, Rows: normalise(kept.Rows)}
			if name == "csv" {
				want = results.CSVView(want)
			}
			if !reflect.DeepEqual(got.Vars, want.Vars) || !reflect.DeepEqual(got.Rows, want.Rows) {
				t.Fatalf("%s: read back other rows\nwrote %#v\nread  %#v\ndocument:\n%q", name, want.Rows, got.Rows, doc)
			}
		}
	}
}

// FuzzWriters_RoundTrip: a row of terms made of arbitrary strings that a
// writer accepts reads back exactly (CSV: as CSVView has it); one it
// refuses is refused with a *TermError.
func FuzzWriters_RoundTrip(f *testing.F) {
	f.Add("http://ex.org/a\u00a0", "b\u3000", "x\"\\\n\r\t\x7f\u2028]]>", "en-GB", xsd+"integer")
	f.Add(" ", "_:x", "", "x", "")
	f.Add("a,b", "\x00", "\uFFFE", "EN", "urn:x")
	f.Fuzz(func(t *testing.T, iri, label, lit, lang, dt string) {
		res := &results.Result{Vars: []string{"a", "b", "c", "d", "e"}, Rows: []results.Row{
			{quad.IRI(iri), quad.BNode(label), quad.String(lit), quad.LangString{Value: quad.String(lit), Lang: lang},
				quad.TypedString{Value: quad.String(lit), Type: quad.IRI(dt)}},
			{quad.BNode(label + "x"), nil, quad.String(iri), quad.IRI(dt), quad.BNode(label)},
		}}
		for _, name := range []string{"json", "xml", "tsv", "csv"} {
			format, err := results.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			doc, kept := writeAccepted(t, format, res)
			got, err := format.Read(bytes.NewReader(doc))
			if err != nil {
				t.Fatalf("%s: our reader rejects what our writer wrote: %v\n%q", name, err, doc)
			}
			want := &results.Result{Vars: kept.Vars, Rows: normalise(kept.Rows)}
			if name == "csv" {
				want = results.CSVView(want)
				// CSV reads "_:l" back as a blank node, so labels are
				// compared up to a bijection.
				if !results.Equivalent(want, got, true) {
					t.Fatalf("csv: read back other rows\nwrote %#v\nread  %#v\ndocument:\n%q", want.Rows, got.Rows, doc)
				}
				continue
			}
			if !reflect.DeepEqual(got.Vars, want.Vars) || !reflect.DeepEqual(got.Rows, want.Rows) {
				t.Fatalf("%s: read back other rows\nwrote %#v\nread  %#v\ndocument:\n%q", name, want.Rows, got.Rows, doc)
			}
		}
	})
}

// Rows with no term to write: a result of one variable whose rows are
// unbound, and a result of no variables (whose rows are empty). TSV has no
// quoted empty field, so such a row is an empty line (the W3C note: an
// unbound variable is an empty field; Jena writes and reads it so); CSV
// writes one unbound variable as "" and a row of no columns as an empty
// line. Each writer's output reads back with every row, however many such
// rows there are and wherever they stand (first, last, in a run).
func TestWriters_RoundTripEmptyRows(t *testing.T) {
	x := quad.IRI("http://ex.org/x")
	shapes := []struct {
		name string
		res  *results.Result
	}{
		{"NoVarsNoRows", &results.Result{Vars: []string{}, Rows: []results.Row{}}},
		{"NoVarsOneRow", &results.Result{Vars: []string{}, Rows: []results.Row{{}}}},
		{"NoVarsThreeRows", &results.Result{Vars: []string{}, Rows: []results.Row{{}, {}, {}}}},
		{"OneVarNoRows", &results.Result{Vars: []string{"a"}, Rows: []results.Row{}}},
		{"OneVarOneUnbound", &results.Result{Vars: []string{"a"}, Rows: []results.Row{{nil}}}},
		{"OneVarUnboundRuns", &results.Result{Vars: []string{"a"}, Rows: []results.Row{{nil}, {nil}, {x}, {nil}, {x}, {nil}, {nil}, {nil}}}},
		{"TwoVarsUnbound", &results.Result{Vars: []string{"a", "b"}, Rows: []results.Row{{nil, nil}, {x, nil}, {nil, nil}}}},
	}
	for _, name := range []string{"tsv", "csv", "json", "xml"} {
		f, err := results.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, sh := range shapes {
			t.Run(name+"/"+sh.name, func(t *testing.T) {
				var buf bytes.Buffer
				if err := f.WriteResult(&buf, sh.res); err != nil {
					t.Fatal(err)
				}
				got, err := f.Read(bytes.NewReader(buf.Bytes()))
				if err != nil {
					t.Fatalf("read back: %v\n%q", err, buf.String())
				}
				if !reflect.DeepEqual(got, sh.res) {
					t.Errorf("read back %d rows %#v, wrote %d rows %#v\n%q", len(got.Rows), got.Rows, len(sh.res.Rows), sh.res.Rows, buf.String())
				}
			})
		}
	}
}
