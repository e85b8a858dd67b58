package eval

import (
	"context"
	"errors"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
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

// TestCompile_LongChainsAllocateLinearly: each link of a chain of OPTIONALs,
// GRAPH ?g, sub-selects, FILTER EXISTS or MINUS with new variables asked for
// the variables in scope of the chain below it, and the compiler copied that
// growing set at every link (and the planner of each BGP walked the whole
// entry): memory and time quadratic in the chain, so that 20,000 links ran
// into any timeout. The bytes compilation allocates for a chain twice as long
// are about twice as many now (four times before).
func TestCompile_LongChainsAllocateLinearly(t *testing.T) {
	for _, tc := range chainUnits {
		t.Run(tc.name, func(t *testing.T) {
			const n = 2000
			small, large := compileBytes(t, chainQuery(tc.unit, n)), compileBytes(t, chainQuery(tc.unit, 2*n))
			ratio := float64(large) / float64(small)
			t.Logf("%d links: %d bytes; %d links: %d bytes (×%.2f)", n, small, 2*n, large, ratio)
			if ratio > 2.6 {
				t.Fatalf("compiling %d links allocated %.2f times what %d did, want about 2", 2*n, ratio, n)
			}
		})
	}
}

// chainUnits are the links of long chains of new variables (# is the link's number).
var chainUnits = []struct{ name, unit string }{
	{"optional", " OPTIONAL { ?s ?p ?o# }"},
	{"graph", " GRAPH ?g# { ?s ?p ?o }"},
	{"subselect", " { SELECT ?s ?x# { ?s ?p ?x# } }"},
	{"exists", " FILTER EXISTS { ?s ?p ?e# }"},
	{"minus", " MINUS { ?s ?p ?m# }"},
	{"join", " { ?s ?p ?o# }"},
}

// chainQuery returns a SELECT of n links unit after one triple pattern.
func chainQuery(unit string, n int) string {
	var b strings.Builder
	b.WriteString("SELECT * { ?s ?p ?o")
	for i := 0; i < n; i++ {
		b.WriteString(strings.ReplaceAll(unit, "#", strconv.Itoa(i)))
	}
	b.WriteString(" }")
	return b.String()
}

// BenchmarkCompile_LongChain compiles chains of 2,000 links of new variables.
func BenchmarkCompile_LongChain(b *testing.B) {
	for _, tc := range chainUnits {
		b.Run(tc.name, func(b *testing.B) {
			q, err := parser.Parse(chainQuery(tc.unit, 2000), parser.Options{})
			if err != nil {
				b.Fatal(err)
			}
			ds := NewMemDataset()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := prepare(context.Background(), ds, q, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestVarSet_AsMap: the operations of varSet agree with a map of slots on random sets, and leave
// their operands as they were.
func TestVarSet_AsMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := func() (varSet, map[int]bool) {
		var s varSet
		m := map[int]bool{}
		for range rng.IntN(40) {
			v := rng.IntN(60)
			s = s.add(v)
			m[v] = true
		}
		return s, m
	}
	check := func(what string, s varSet, m map[int]bool) {
		t.Helper()
		want := slices.Sorted(maps.Keys(m))
		if got := s.sorted(); !slices.Equal(got, want) || s.len() != len(want) {
			t.Fatalf("%s: %v (len %d), want %v", what, got, s.len(), want)
		}
		for v := -1; v <= 61; v++ {
			if s.has(v) != m[v] {
				t.Fatalf("%s: has(%d) = %v", what, v, s.has(v))
			}
		}
	}
	for range 500 {
		a, am := random()
		b, bm := random()
		union := maps.Clone(am)
		maps.Copy(union, bm)
		inter := map[int]bool{}
		for v := range am {
			if bm[v] {
				inter[v] = true
			}
		}
		check("with", a.with(b), union)
		check("intersect", a.intersect(b), inter)
		check("a after", a, am)
		check("b after", b, bm)
		if got := varSetOf(slices.Sorted(maps.Keys(am))...); !slices.Equal(got.sorted(), a.sorted()) {
			t.Fatalf("varSetOf: %v, want %v", got.sorted(), a.sorted())
		}
	}
}

// compileBytes returns the bytes allocated by compiling the query text.
func compileBytes(t *testing.T, text string) uint64 {
	t.Helper()
	q, err := parser.Parse(text, parser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := prepare(context.Background(), NewMemDataset(), q, Options{}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestCompile_LongConjunctionsAndSequencesAllocateLinearly: the conjuncts
// of FILTER(a && b && ...) were split by copying those of each operand into
// its parent's (a left-deep chain: quadratic), and the greedy join order of a
// large BGP (a path sequence) copied its order so far at every step; 20,000
// of either ran past a timeout, which neither loop looks at. The bytes they
// allocate for twice the operands are about twice as many now (four times
// before).
func TestCompile_LongConjunctionsAndSequencesAllocateLinearly(t *testing.T) {
	for _, tc := range []struct{ name, head, unit, tail string }{
		{"and", "SELECT * { ?s ?p ?o FILTER(?o", " && ?o", ") }"},
		{"sequence", "SELECT * { ?s <urn:p>", "/<urn:p>", " ?o }"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 1000
			small := compileBytes(t, tc.head+strings.Repeat(tc.unit, n)+tc.tail)
			large := compileBytes(t, tc.head+strings.Repeat(tc.unit, 2*n)+tc.tail)
			ratio := float64(large) / float64(small)
			t.Logf("%d operands: %d bytes; %d operands: %d bytes (×%.2f)", n, small, 2*n, large, ratio)
			if ratio > 2.7 {
				t.Fatalf("compiling %d operands allocated %.2f times what %d did, want about 2", 2*n, ratio, n)
			}
		})
	}
}

// TestBGPPlanner_LargeBGPAllocatesLinearly: the planner of a BGP kept a bit
// set of all the BGP's variables per pattern, so a BGP of n patterns of new
// variables (a path sequence of n steps) took memory quadratic in n (20,000:
// 50 MB) before it was ordered. The bytes it allocates for twice the patterns
// are about twice as many now.
func TestBGPPlanner_LargeBGPAllocatesLinearly(t *testing.T) {
	bytes := func(n int) uint64 {
		q, err := parser.Parse("SELECT * { ?s <urn:p>"+strings.Repeat("/<urn:p>", n)+" ?o }", parser.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c := newCompiler(context.Background(), &evaluator{ds: NewMemDataset(), cache: map[ID]quad.Value{}, localIDs: map[string]ID{}, tables: map[tableKey]*hashTable{}})
		for _, v := range allQueryVars(q) {
			c.slot(v)
		}
		bgp := q.Pattern.(*algebra.Project).Input.(*algebra.BGP)
		ts := c.bgpTriples(bgp)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		c.newBGPPlanner(ts, varSet{}, nil)
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	const n = 4000
	small, large := bytes(n), bytes(2*n)
	ratio := float64(large) / float64(small)
	t.Logf("%d patterns: %d bytes; %d patterns: %d bytes (×%.2f)", n, small, 2*n, large, ratio)
	if ratio > 2.6 {
		t.Fatalf("planning %d patterns allocated %.2f times what %d did, want about 2", 2*n, ratio, n)
	}
}
