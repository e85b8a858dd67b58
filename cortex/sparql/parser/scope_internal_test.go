package parser

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
)

// TestGroupScope_UpdateIsIncremental: a BIND checks that its variable is
// not in scope of the group before it; computing that scope from the whole
// pattern at each BIND took time quadratic in the number of BINDs (4,000
// took seconds). groupScope walks each operator of the pattern once, and
// holds the same variables as algebra.InScope.
func TestGroupScope_UpdateIsIncremental(t *testing.T) {
	const n = 1000
	s := &groupScope{vars: map[algebra.Var]bool{}}
	var g algebra.Node = &algebra.BGP{}
	for i := 0; i < n; i++ {
		v := algebra.Var(fmt.Sprintf("v%d", i))
		switch i % 4 {
		case 0:
			g = &algebra.Extend{Input: g, Var: v, Expr: algebra.Var("x")}
		case 1:
			g = join(g, &algebra.BGP{Triples: []algebra.TriplePattern{{Subject: algebra.VarTerm(v), Predicate: algebra.VarTerm("p"), Object: algebra.VarTerm("o")}}})
		case 2:
			g = &algebra.LeftJoin{Left: g, Right: &algebra.Table{Vars: []algebra.Var{v}, Rows: [][]quad.Value{{nil}}}}
		case 3:
			g = &algebra.Minus{Left: g, Right: &algebra.BGP{Triples: []algebra.TriplePattern{{Subject: algebra.VarTerm(v), Predicate: algebra.VarTerm("p"), Object: algebra.VarTerm("o")}}}}
		}
		s.update(g)
	}
	if s.steps > 2*n {
		t.Fatalf("%d operators walked for a group of %d, want at most %d", s.steps, n, 2*n)
	}
	want := algebra.InScope(g)
	if len(s.vars) != len(want) {
		t.Fatalf("%d variables in scope, want %d", len(s.vars), len(want))
	}
	for _, v := range want {
		if !s.vars[v] {
			t.Fatalf("%s not in scope", v)
		}
	}
}

// TestParse_AssignedVariableAlreadyInScope: BIND and SELECT expressions
// still reject a variable in scope before them, in long groups and
// selections too.
func TestParse_AssignedVariableAlreadyInScope(t *testing.T) {
	for _, tc := range []struct{ name, query string }{
		{"bind after triples", "SELECT * { ?s ?p ?o BIND(1 AS ?o) }"},
		{"bind after bind", "SELECT * { BIND(1 AS ?a) BIND(2 AS ?a) }"},
		{"bind after optional", "SELECT * { ?s ?p ?o . BIND(1 AS ?b) OPTIONAL { ?s ?p ?c } BIND(1 AS ?c) }"},
		{"bind after values", "SELECT * { VALUES ?v { 1 } BIND(1 AS ?v) }"},
		{"bind after group", "SELECT * { { ?s ?p ?o } BIND(1 AS ?o) }"},
		{"bind in a long group", "SELECT * {" + strings.Repeat(" ?s ?p ?o .", 50) + " BIND(1 AS ?x) . ?a ?b ?c BIND(1 AS ?x) }"},
		{"select expression after select expression", "SELECT (1 AS ?a) (2 AS ?b) (3 AS ?a) {}"},
		{"select expression on a where variable", "SELECT (1 AS ?a) (2 AS ?o) { ?s ?p ?o }"},
		{"select expression on a values variable", "SELECT (1 AS ?v) {} VALUES ?v { 1 }"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.query, Options{})
			if err == nil || !strings.Contains(err.Error(), "already in scope") {
				t.Fatalf("err = %v, want 'already in scope'", err)
			}
		})
	}
	for _, ok := range []string{
		"SELECT * { ?s ?p ?o MINUS { ?s ?p ?m } BIND(1 AS ?m) }",
		"SELECT * { BIND(1 AS ?a) BIND(2 AS ?b) { BIND(3 AS ?a) } }",
		"SELECT (1 AS ?a) (2 AS ?b) { ?s ?p ?o }",
	} {
		if _, err := Parse(ok, Options{}); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

// TestParse_ValuesVariableListedTwice: VALUES rejects a variable listed
// twice, also among many (the check searched the list so far for each
// variable: time quadratic in their number; 20,000 took seconds).
func TestParse_ValuesVariableListedTwice(t *testing.T) {
	var b strings.Builder
	b.WriteString("SELECT * { VALUES (")
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&b, " ?v%d", i)
	}
	for _, tc := range []struct {
		tail string
		ok   bool
	}{{" ) {}", true}, {" ?v4999 ) {}", false}, {" ?v0 ) {}", false}} {
		_, err := Parse(b.String()+tc.tail+" }", Options{})
		if tc.ok != (err == nil) || err != nil && !strings.Contains(err.Error(), "listed twice") {
			t.Errorf("%s: err = %v", tc.tail, err)
		}
	}
}
