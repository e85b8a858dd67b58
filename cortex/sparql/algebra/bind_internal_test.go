package algebra

import (
	"testing"

	"github.com/cayleygraph/quad"
)

// TestBind_ScopeOfMinusChainIsLinear: each MINUS of a chain asked for the
// variables in scope of its left operand, which holds the rest of the chain,
// and walked it again each time: binding a chain of n took time quadratic in
// n. The binder computes the bound variables in scope of each node once.
func TestBind_ScopeOfMinusChainIsLinear(t *testing.T) {
	const n = 2000
	// (((?s ?p ?o) MINUS {?s ?p ?m}) MINUS {?s ?p ?m}) ...
	var pattern Node = &BGP{Triples: []TriplePattern{{Subject: VarTerm("s"), Predicate: VarTerm("p"), Object: VarTerm("o")}}}
	for range n {
		right := &BGP{Triples: []TriplePattern{{Subject: VarTerm("s"), Predicate: VarTerm("p"), Object: VarTerm("m")}}}
		pattern = &Minus{Left: pattern, Right: right}
	}
	b := &binder{vals: map[Var]quad.Value{"s": quad.IRI("urn:a")}, used: map[Var]bool{}}
	node := b.node(pattern, true)
	if b.err != nil {
		t.Fatal(b.err)
	}
	// Both sides of each MINUS keep ?s bound (an extend), so that MINUS still compares it.
	extends := 0
	for {
		m, ok := node.(*Minus)
		if !ok {
			break
		}
		if _, ok := m.Right.(*Extend); ok {
			extends++
		}
		node = m.Left
		if e, ok := node.(*Extend); ok {
			extends++
			node = e.Input
		}
	}
	if extends != 2*n {
		t.Fatalf("%d extends of ?s, want %d (both sides of each MINUS)", extends, 2*n)
	}
	if b.scopeVisits > 3*n {
		t.Fatalf("%d nodes visited for the variables in scope of a chain of %d MINUS, want at most %d", b.scopeVisits, n, 3*n)
	}
}
