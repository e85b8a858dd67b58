package eval

import (
	"context"
	"strings"
	"testing"

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
