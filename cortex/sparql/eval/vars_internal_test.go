package eval

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/parser"
)

// TestCompile_ScopeOfChainsIsLinear: every LeftJoin, Union, Join and Minus
// of a chain asks for the variables in scope of its left operand, which
// holds the rest of the chain; computed from scratch each time, a chain of
// 20,000 OPTIONALs took minutes to compile. The compiler computes the set of
// each node once: the count of sets computed grows linearly with the chain.
func TestCompile_ScopeOfChainsIsLinear(t *testing.T) {
	const n = 2000
	for _, tc := range []struct{ name, unit string }{
		{"optional", " OPTIONAL { ?s ?p ?o }"},
		{"optional new variables", " OPTIONAL { ?s ?p ?oX }"},
		{"union", " UNION {}"},
		{"minus", " MINUS { ?s ?p ?o }"},
		{"join", " { ?s ?p ?oX }"},
		{"bind", " BIND(1 AS ?bX)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString("SELECT * { { ?s ?p ?o }")
			for i := 0; i < n; i++ {
				b.WriteString(strings.ReplaceAll(tc.unit, "X", string(rune('a'+i%26))+strings.Repeat("z", i/26)))
			}
			b.WriteString(" }")
			q, err := parser.Parse(b.String(), parser.Options{})
			if err != nil {
				t.Fatal(err)
			}
			p, err := prepare(context.Background(), NewMemDataset(), q, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if steps := p.c.scopeSteps; steps > 4*n {
				t.Fatalf("%d scope sets computed for a chain of %d, want at most %d", steps, n, 4*n)
			}
		})
	}
}

// TestCompile_StopsWithoutUnwindingWork: once the context ends, compilation
// stops; the operators above the node that saw it did not, each computing the
// variables of its whole left operand and copying them (a chain of 20,000
// groups of new variables ran a minute past a 5 s timeout). No scope set is
// computed after the context has ended.
func TestCompile_StopsWithoutUnwindingWork(t *testing.T) {
	var b strings.Builder
	b.WriteString("SELECT * {")
	for i := 0; i < 500; i++ {
		b.WriteString(" { ?s ?p ?o" + strings.Repeat("z", i) + " } OPTIONAL { ?s ?q ?o" + strings.Repeat("y", i) + " }")
	}
	b.WriteString(" }")
	q, err := parser.Parse(b.String(), parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The context ends deep in the chain: at its 900th look, when the compiler is about to reach the
	// chain's innermost links.
	ctx := &endsAfter{Context: context.Background(), looks: 900}
	ev := &evaluator{ds: NewMemDataset(), cache: map[ID]quad.Value{}, localIDs: map[string]ID{}, tables: map[tableKey]*hashTable{}}
	c := newCompiler(ctx, ev)
	for _, v := range allQueryVars(q) {
		c.slot(v)
	}
	c.node(q.Pattern, varSet{})
	if !errors.Is(c.err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", c.err)
	}
	if c.scopeSteps != 0 {
		t.Fatalf("%d scope sets computed after the context ended, want 0", c.scopeSteps)
	}
}

// endsAfter is a context that ends when its Err has been called looks times.
type endsAfter struct {
	context.Context
	looks int
}

func (c *endsAfter) Err() error {
	if c.looks--; c.looks < 0 {
		return context.Canceled
	}
	return nil
}
