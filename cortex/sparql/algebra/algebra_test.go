package algebra_test

import (
	"errors"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
)

func TestFormatTerm(t *testing.T) {
	tests := []struct {
		name string
		in   quad.Value
		want string
	}{
		{"iri", quad.IRI("http://ex/a"), "<http://ex/a>"},
		{"iri with forbidden characters", quad.IRI("http://ex/a b<>\"{}|^`\\\x01"), `<http://ex/a\u0020b\u003C\u003E\u0022\u007B\u007D\u007C\u005E\u0060\u005C\u0001>`},
		{"iri non-ascii kept", quad.IRI("http://ex/é"), "<http://ex/é>"},
		{"bnode", quad.BNode("b1"), "_:b1"},
		{"plain string escapes", quad.String("a\"b\\c\nd\re\tf\x00"), `"a\"b\\c\nd\re\tf\u0000"`},
		{"lang string", quad.LangString{Value: "chat", Lang: "fr-BE"}, `"chat"@fr-BE`},
		{"integer short", quad.TypedString{Value: "-01", Type: algebra.XSDInteger}, "-01"},
		{"integer with bad lexical", quad.TypedString{Value: "1.0", Type: algebra.XSDInteger}, `"1.0"^^<http://www.w3.org/2001/XMLSchema#integer>`},
		{"decimal short", quad.TypedString{Value: ".5", Type: algebra.XSDDecimal}, ".5"},
		{"double short", quad.TypedString{Value: "1E3", Type: algebra.XSDDouble}, "1E3"},
		{"double not a token", quad.TypedString{Value: "INF", Type: algebra.XSDDouble}, `"INF"^^<http://www.w3.org/2001/XMLSchema#double>`},
		{"boolean short", quad.TypedString{Value: "true", Type: algebra.XSDBoolean}, "true"},
		{"boolean long", quad.TypedString{Value: "1", Type: algebra.XSDBoolean}, `"1"^^<http://www.w3.org/2001/XMLSchema#boolean>`},
		{"other datatype", quad.TypedString{Value: "2024-01-01", Type: "http://www.w3.org/2001/XMLSchema#date"}, `"2024-01-01"^^<http://www.w3.org/2001/XMLSchema#date>`},
		{"undef", nil, "UNDEF"},
		{"non-BMP escape", quad.IRI("a\U0001F600 "), "<a\U0001F600\\u0020>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := algebra.FormatTerm(tt.in); got != tt.want {
				t.Errorf("FormatTerm(%#v) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestNumericKind(t *testing.T) {
	tests := map[string]quad.IRI{
		"1": algebra.XSDInteger, "+1": algebra.XSDInteger, "-007": algebra.XSDInteger,
		"1.5": algebra.XSDDecimal, ".5": algebra.XSDDecimal, "-0.0": algebra.XSDDecimal,
		"1e3": algebra.XSDDouble, "1.E3": algebra.XSDDouble, ".5e-2": algebra.XSDDouble, "-1.5E+2": algebra.XSDDouble,
		"": "", "+": "", "1.": "", ".": "", "e3": "", "1e": "", "1x": "", "--1": "", "1.5.": "",
	}
	for in, want := range tests {
		if got := algebra.NumericKind(in); got != want {
			t.Errorf("NumericKind(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestVar_Projectable(t *testing.T) {
	if !algebra.Var("x").Projectable() || !algebra.Var("_x").Projectable() {
		t.Error("user variables must be projectable")
	}
	if algebra.Var("?b").Projectable() || algebra.Var("?.p0").Projectable() {
		t.Error("fresh variables must not be projectable")
	}
}

func TestInScope(t *testing.T) {
	v := algebra.VarTerm
	iri := algebra.ValueTerm(quad.IRI("http://p"))
	bgp := &algebra.BGP{Triples: []algebra.TriplePattern{{Subject: v("s"), Predicate: iri, Object: v("o")}}}
	n := &algebra.Minus{
		Left: &algebra.Extend{
			Input: &algebra.LeftJoin{Left: bgp, Right: &algebra.Graph{Name: v("g"), Input: &algebra.Path{Subject: v("o"), Path: algebra.Link{IRI: "http://q"}, Object: v("z")}}},
			Var:   "e", Expr: algebra.Const{Value: quad.String("x")},
		},
		Right: &algebra.BGP{Triples: []algebra.TriplePattern{{Subject: v("m"), Predicate: iri, Object: v("n")}}},
	}
	got := algebra.InScope(n)
	want := []algebra.Var{"s", "o", "g", "z", "e"}
	if len(got) != len(want) {
		t.Fatalf("InScope = %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("InScope = %v, want %v", got, want)
		}
	}
	g := &algebra.Group{Input: n, By: []algebra.Expr{algebra.Var("s"), &algebra.Call{Op: algebra.OpStr, Args: []algebra.Expr{algebra.Var("o")}}},
		Aggregates: []algebra.AggBinding{{Var: "?.a0", Agg: &algebra.Aggregate{Op: algebra.AggCount}}}}
	if got := algebra.InScope(g); len(got) != 2 || got[0] != "s" || got[1] != "?.a0" {
		t.Errorf("InScope(group) = %v", got)
	}
}

func TestParseSSE_RoundTrip(t *testing.T) {
	v := algebra.VarTerm
	q := &algebra.Query{
		Form:    algebra.Construct,
		Base:    "http://base/",
		Dataset: &algebra.Dataset{Default: []quad.IRI{"http://g1"}, Named: []quad.IRI{"http://g2"}},
		Template: []algebra.TriplePattern{
			{Subject: algebra.ValueTerm(quad.BNode("b0")), Predicate: algebra.ValueTerm(quad.IRI("http://p")), Object: v("o")},
		},
		Pattern: &algebra.Slice{Offset: 2, Limit: -1, Input: &algebra.Reduced{Input: &algebra.Filter{
			Exprs: []algebra.Expr{
				&algebra.Call{Op: algebra.OpLt, Args: []algebra.Expr{algebra.Var("o"), algebra.Const{Value: quad.TypedString{Value: "3", Type: algebra.XSDInteger}}}},
				&algebra.Call{Op: algebra.OpLe, Args: []algebra.Expr{algebra.Var("o"), algebra.Const{Value: quad.IRI("=")}}},
				&algebra.Exists{Not: true, Pattern: &algebra.Table{Vars: []algebra.Var{"o"}, Rows: [][]quad.Value{{nil}, {quad.LangString{Value: "x y", Lang: "en"}}}}},
				&algebra.Call{IRI: "http://fn(x)", Args: []algebra.Expr{algebra.Const{Value: quad.String("a)b(")}}},
			},
			Input: &algebra.Union{
				Left: &algebra.Path{Subject: v("s"), Object: v("o"), Path: &algebra.Alt{
					Left:  &algebra.Seq{Left: algebra.Link{IRI: "http://a"}, Right: &algebra.Inverse{Path: &algebra.ZeroOrOne{Path: algebra.Link{IRI: "http://b"}}}},
					Right: &algebra.OneOrMore{Path: &algebra.ZeroOrMore{Path: &algebra.NegatedPropertySet{IRIs: []quad.IRI{"http://c", "http://d"}}}},
				}},
				Right: &algebra.OrderBy{Conds: []algebra.OrderCond{{Expr: algebra.Var("o"), Desc: true}, {Expr: algebra.Var("s")}},
					Input: &algebra.Group{
						By:         []algebra.Expr{algebra.Var("s")},
						Aggregates: []algebra.AggBinding{{Var: "?.a0", Agg: &algebra.Aggregate{Op: algebra.AggGroupConcat, Distinct: true, Separator: "\n", Arg: algebra.Var("o")}}},
						Input:      &algebra.Graph{Name: algebra.ValueTerm(quad.IRI("http://g")), Input: &algebra.BGP{}},
					}},
			},
		}}},
	}
	text := q.String()
	q2, err := algebra.ParseSSE(text)
	if err != nil {
		t.Fatalf("ParseSSE: %v\n%s", err, text)
	}
	if got := q2.String(); got != text {
		t.Errorf("round trip differs:\n%s\n----\n%s", text, got)
	}
	n, err := algebra.ParseSSENode(q.Pattern.String())
	if err != nil {
		t.Fatalf("ParseSSENode: %v", err)
	}
	if n.String() != q.Pattern.String() {
		t.Errorf("node round trip differs")
	}
}

func TestParseSSE_Errors(t *testing.T) {
	tests := []string{
		"",
		"(",
		")",
		"(select)",
		"(frobnicate (bgp))",
		"(select (vars ?x) (bgp (triple ?x)))",
		"(select (bgp (triple ?x <p> \"unterminated)))",
		"(ask (filter (nosuchfn ?x) (bgp)))",
		"(ask (filter (= ?x) (bgp)))",
		"(ask (slice -1 _ (bgp)))",
		"(ask (table (vars ?x) (row 1 2)))",
		"(ask (bgp)) trailing",
		"(ask (path ?s (frob <p>) ?o))",
		"(ask (group () ((?x (str ?y))) (bgp)))",
		"(ask (bgp (triple ?s <p> \"x\"^^)))",
		"(ask (bgp (triple ?s <p \"\\q\")))",
		"(ask (extend (?x) (bgp)))",
	}
	for _, in := range tests {
		t.Run(in, func(t *testing.T) {
			_, err := algebra.ParseSSE(in)
			if err == nil {
				t.Fatalf("ParseSSE(%q) succeeded", in)
			}
			if !errors.Is(err, algebra.ErrSSE) {
				t.Errorf("error %v does not wrap ErrSSE", err)
			}
			var se *algebra.SSEError
			if !errors.As(err, &se) {
				t.Errorf("error %T is not *SSEError", err)
			}
		})
	}
}

// FuzzParseSSE checks that ParseSSE never panics and that what it accepts prints to a fixed point.
func FuzzParseSSE(f *testing.F) {
	f.Add("(select (vars ?x) (project (?x) (bgp (triple ?x <http://p> \"o\"@en))))")
	f.Add("(ask (filter (exprlist (< ?x 1) (notexists (bgp))) (leftjoin (bgp) (table (vars ?y) (row UNDEF)) (= ?y 2))))")
	f.Add("(describe (terms <http://a> ?x) (slice 1 _ (path ?s (alt (inv <p>) (notoneof)) ?o)))")
	f.Fuzz(func(t *testing.T, in string) {
		q, err := algebra.ParseSSE(in)
		if err != nil {
			return
		}
		text := q.String()
		q2, err := algebra.ParseSSE(text)
		if err != nil {
			t.Fatalf("re-parse failed: %v\n%s", err, text)
		}
		if got := q2.String(); got != text {
			t.Fatalf("not a fixed point:\n%s\n----\n%s", text, got)
		}
	})
}
