package results_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/results"
)

func TestEquivalent(t *testing.T) {
	b := func(s string) quad.Value { return quad.BNode(s) }
	s := func(v string) quad.Value { return quad.String(v) }
	typed := func(v, dt string) quad.Value {
		return quad.TypedString{Value: quad.String(v), Type: quad.IRI(xsd + dt)}
	}
	res := func(vars []string, rows ...results.Row) *results.Result {
		return &results.Result{Vars: vars, Rows: rows}
	}
	x := []string{"x"}
	xy := []string{"x", "y"}
	tr, fa := true, false

	cases := []struct {
		name           string
		a, b           *results.Result
		ordered        bool
		want           bool
		wantByValue    bool // result with NumbersByValue
		byValueDiffers bool
	}{
		{name: "Identical", a: fixture(), b: fixture(), ordered: true, want: true},
		{name: "BothNil", a: nil, b: nil, want: true},
		{name: "OneNil", a: res(x), b: nil, want: false},
		{name: "BooleansEqual", a: &results.Result{Boolean: &tr}, b: boolResult(true), want: true},
		{name: "BooleansDiffer", a: &results.Result{Boolean: &tr}, b: &results.Result{Boolean: &fa}, want: false},
		{name: "BooleanVsSelect", a: &results.Result{Boolean: &tr}, b: res(x), want: false},
		{name: "VarOrderIgnored", a: res(xy, results.Row{s("1"), s("2")}), b: res([]string{"y", "x"}, results.Row{s("2"), s("1")}), ordered: true, want: true},
		{name: "VarSetsDiffer", a: res(xy), b: res([]string{"x", "z"}), want: false},
		{name: "VarCountDiffers", a: res(xy), b: res(x), want: false},
		{name: "RowCountDiffers", a: res(x, results.Row{s("1")}), b: res(x, results.Row{s("1")}, results.Row{s("1")}), want: false},
		{name: "MultisetCounts", a: res(x, results.Row{s("1")}, results.Row{s("1")}, results.Row{s("2")}), b: res(x, results.Row{s("1")}, results.Row{s("2")}, results.Row{s("2")}), want: false},
		{name: "RowOrderUnordered", a: res(x, results.Row{s("1")}, results.Row{s("2")}), b: res(x, results.Row{s("2")}, results.Row{s("1")}), want: true},
		{name: "RowOrderOrdered", a: res(x, results.Row{s("1")}, results.Row{s("2")}), b: res(x, results.Row{s("2")}, results.Row{s("1")}), ordered: true, want: false},
		{name: "UnboundVsEmptyString", a: res(x, results.Row{nil}), b: res(x, results.Row{s("")}), want: false},
		{name: "XSDStringIsPlain", a: res(x, results.Row{s("a")}), b: res(x, results.Row{typed("a", "string")}), want: true},
		{name: "LangTagCaseInsensitive", a: res(x, results.Row{quad.LangString{Value: "a", Lang: "en-US"}}), b: res(x, results.Row{quad.LangString{Value: "a", Lang: "EN-us"}}), want: true},
		{name: "LangVsPlain", a: res(x, results.Row{quad.LangString{Value: "a", Lang: "en"}}), b: res(x, results.Row{s("a")}), want: false},
		{name: "IRIVsString", a: res(x, results.Row{quad.IRI("a")}), b: res(x, results.Row{s("a")}), want: false},
		{name: "BNodeVsIRI", a: res(x, results.Row{b("a")}), b: res(x, results.Row{quad.IRI("a")}), want: false},

		// Blank node bijection.
		{name: "BNodeRenamed", a: res(xy, results.Row{b("a"), b("b")}, results.Row{b("b"), s("1")}), b: res(xy, results.Row{b("x"), b("y")}, results.Row{b("y"), s("1")}), want: true},
		{name: "BNodeRenamedOrdered", a: res(xy, results.Row{b("a"), b("b")}, results.Row{b("b"), s("1")}), b: res(xy, results.Row{b("x"), b("y")}, results.Row{b("y"), s("1")}), ordered: true, want: true},
		{name: "TwoBNodesToOne", a: res(x, results.Row{b("a")}, results.Row{b("b")}), b: res(x, results.Row{b("c")}, results.Row{b("c")}), want: false},
		{name: "TwoBNodesToOneOrdered", a: res(x, results.Row{b("a")}, results.Row{b("b")}), b: res(x, results.Row{b("c")}, results.Row{b("c")}), ordered: true, want: false},
		{name: "OneBNodeToTwo", a: res(x, results.Row{b("c")}, results.Row{b("c")}), b: res(x, results.Row{b("a")}, results.Row{b("b")}), want: false},
		{name: "TwoBNodesToOneInRow", a: res(xy, results.Row{b("a"), b("b")}), b: res(xy, results.Row{b("c"), b("c")}), want: false},
		{name: "SameBNodeAcrossColumns", a: res(xy, results.Row{b("a"), b("a")}), b: res(xy, results.Row{b("c"), b("d")}), want: false},
		{name: "ConsistentAcrossRows", a: res(xy, results.Row{b("a"), s("1")}, results.Row{b("a"), s("2")}), b: res(xy, results.Row{b("p"), s("1")}, results.Row{b("q"), s("2")}), want: false},
		{name: "NeedsBacktracking", a: res(xy, results.Row{b("x"), b("y")}, results.Row{b("y"), b("z")}), b: res(xy, results.Row{b("p"), b("q")}, results.Row{b("r"), b("p")}), want: true},
		{name: "NeedsBacktrackingMixed",
			a: res(xy, results.Row{b("x"), s("p")}, results.Row{b("x"), s("q")}, results.Row{b("y"), s("p")}),
			b: res(xy, results.Row{b("m"), s("p")}, results.Row{b("n"), s("p")}, results.Row{b("n"), s("q")}), want: true},
		{name: "NoBijectionExists",
			a: res(xy, results.Row{b("x"), s("p")}, results.Row{b("x"), s("q")}, results.Row{b("y"), s("p")}, results.Row{b("y"), s("q")}),
			b: res(xy, results.Row{b("m"), s("p")}, results.Row{b("m"), s("q")}, results.Row{b("n"), s("p")}, results.Row{b("o"), s("q")}), want: false},
		{name: "BNodeRowsVsGroundRows", a: res(x, results.Row{b("a")}), b: res(x, results.Row{s("a")}), want: false},
		{name: "SameLabelsDifferentStructure", a: res(xy, results.Row{b("a"), b("b")}, results.Row{b("b"), b("a")}), b: res(xy, results.Row{b("a"), b("b")}, results.Row{b("a"), b("b")}), want: false},

		// Numbers.
		{name: "IntegerLexicalForms", a: res(x, results.Row{typed("01", "integer")}), b: res(x, results.Row{typed("1", "integer")}), want: false, byValueDiffers: true, wantByValue: true},
		{name: "IntegerPlusSign", a: res(x, results.Row{typed("+7", "int")}), b: res(x, results.Row{typed("7", "int")}), want: false, byValueDiffers: true, wantByValue: true},
		{name: "DecimalTrailingZero", a: res(x, results.Row{typed("1.50", "decimal")}), b: res(x, results.Row{typed("1.5", "decimal")}), want: false, byValueDiffers: true, wantByValue: true},
		{name: "DecimalIntegerForm", a: res(x, results.Row{typed("2", "decimal")}), b: res(x, results.Row{typed("2.0", "decimal")}), want: false, byValueDiffers: true, wantByValue: true},
		{name: "DoubleExponent", a: res(x, results.Row{typed("1.0E0", "double")}), b: res(x, results.Row{typed("1e0", "double")}), want: false, byValueDiffers: true, wantByValue: true},
		{name: "DoubleNaN", a: res(x, results.Row{typed("NaN", "double")}), b: res(x, results.Row{typed("NaN", "double")}), want: true},
		{name: "DoubleINF", a: res(x, results.Row{typed("INF", "double")}), b: res(x, results.Row{typed("+INF", "double")}), want: false, byValueDiffers: true, wantByValue: true},
		{name: "DifferentNumericTypes", a: res(x, results.Row{typed("1", "integer")}), b: res(x, results.Row{typed("1.0", "decimal")}), want: false},
		{name: "DifferentValues", a: res(x, results.Row{typed("1", "integer")}), b: res(x, results.Row{typed("2", "integer")}), want: false},
		{name: "MalformedNumberByTerm", a: res(x, results.Row{typed("abc", "integer")}), b: res(x, results.Row{typed("abc", "integer")}), want: true},
		{name: "NumbersInBNodeRows", a: res(xy, results.Row{b("a"), typed("01", "integer")}), b: res(xy, results.Row{b("z"), typed("1", "integer")}), want: false, byValueDiffers: true, wantByValue: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := results.Equivalent(tc.a, tc.b, tc.ordered); got != tc.want {
				t.Errorf("Equivalent(a, b) = %v, want %v", got, tc.want)
			}
			if got := results.Equivalent(tc.b, tc.a, tc.ordered); got != tc.want {
				t.Errorf("Equivalent(b, a) = %v, want %v (not symmetric)", got, tc.want)
			}
			wantBV := tc.want
			if tc.byValueDiffers {
				wantBV = tc.wantByValue
			}
			opts := results.EquivalenceOptions{NumbersByValue: true}
			if got := opts.Equivalent(tc.a, tc.b, tc.ordered); got != wantBV {
				t.Errorf("NumbersByValue: Equivalent(a, b) = %v, want %v", got, wantBV)
			}
		})
	}
}

func TestEquivalent_LargeBNodeResult(t *testing.T) {
	// A chain of 200 blank nodes, rows shuffled and relabelled: the search
	// must find the bijection without exploring permutations.
	const n = 200
	a := &results.Result{Vars: []string{"s", "o"}}
	b := &results.Result{Vars: []string{"o", "s"}}
	label := func(p string, i int) quad.Value {
		return quad.BNode(p + string(rune('a'+i%26)) + string(rune('a'+i/26)))
	}
	for i := 0; i < n; i++ {
		a.Rows = append(a.Rows, results.Row{label("a", i), label("a", (i+1)%n)})
	}
	for i := n - 1; i >= 0; i-- {
		j := (i * 7) % n
		b.Rows = append(b.Rows, results.Row{label("b", (j+1)%n), label("b", j)})
	}
	if !results.Equivalent(a, b, false) {
		t.Error("relabelled chain not equivalent")
	}
	b.Rows[0][0] = label("b", 0)
	if results.Equivalent(a, b, false) {
		t.Error("broken chain reported equivalent")
	}
}

// bruteEquivalent is Equivalent by brute force, for results with few
// blank nodes: a's labels mapped to b's in every way, each result then
// compared with its blank nodes as IRIs (no search).
func bruteEquivalent(a, b *results.Result) bool {
	labels := func(r *results.Result) []string {
		seen := map[string]bool{}
		var out []string
		for _, row := range r.Rows {
			for _, v := range row {
				if l, ok := v.(quad.BNode); ok && !seen[string(l)] {
					seen[string(l)] = true
					out = append(out, string(l))
				}
			}
		}
		return out
	}
	ground := func(r *results.Result, rename map[string]string) *results.Result {
		g := &results.Result{Vars: r.Vars}
		for _, row := range r.Rows {
			nr := make(results.Row, len(row))
			for i, v := range row {
				if l, ok := v.(quad.BNode); ok {
					name := string(l)
					if rename != nil {
						name = rename[name]
					}
					v = quad.IRI("bnode:" + name)
				}
				nr[i] = v
			}
			g.Rows = append(g.Rows, nr)
		}
		return g
	}
	la, lb := labels(a), labels(b)
	if len(la) != len(lb) {
		return false
	}
	gb := ground(b, nil)
	perm := make([]int, len(lb))
	for i := range perm {
		perm[i] = i
	}
	var try func(k int) bool
	try = func(k int) bool {
		if k == len(perm) {
			rename := map[string]string{}
			for i, l := range la {
				rename[l] = lb[perm[i]]
			}
			return results.Equivalent(ground(a, rename), gb, false)
		}
		for i := k; i < len(perm); i++ {
			perm[k], perm[i] = perm[i], perm[k]
			if try(k + 1) {
				return true
			}
			perm[k], perm[i] = perm[i], perm[k]
		}
		return false
	}
	return try(0)
}

// Equivalent agrees with the brute force on random small results with a
// few blank nodes: relabelled and shuffled copies (equivalent), and copies
// with one term changed (often not).
func TestEquivalent_AsBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(20261127, 3))
	term := func() quad.Value {
		switch r.IntN(4) {
		case 0:
			return quad.String([]string{"p", "q"}[r.IntN(2)])
		case 1:
			return nil
		}
		return quad.BNode(fmt.Sprint("n", r.IntN(5)))
	}
	agree, differ := 0, 0
	for range 3000 {
		a := &results.Result{Vars: []string{"x", "y"}}
		for range 1 + r.IntN(7) {
			a.Rows = append(a.Rows, results.Row{term(), term()})
		}
		b := &results.Result{Vars: a.Vars}
		relabel := r.Perm(5)
		for _, i := range r.Perm(len(a.Rows)) {
			row := append(results.Row(nil), a.Rows[i]...)
			for j, v := range row {
				if l, ok := v.(quad.BNode); ok {
					row[j] = quad.BNode(fmt.Sprint("m", relabel[l[1]-'0']))
				}
			}
			b.Rows = append(b.Rows, row)
		}
		if r.IntN(2) == 0 {
			b.Rows[r.IntN(len(b.Rows))][r.IntN(2)] = term()
		}
		want := bruteEquivalent(a, b)
		if got := results.Equivalent(a, b, false); got != want {
			t.Fatalf("Equivalent = %v, brute force %v\na %v\nb %v", got, want, a.Rows, b.Rows)
		}
		if want {
			agree++
		} else {
			differ++
		}
	}
	if agree < 100 || differ < 100 {
		t.Fatalf("%d equivalent pairs and %d not: too few of one kind", agree, differ)
	}
}

// regularGraph returns a random d-regular graph on n blank nodes (a
// configuration model, retried until simple) as rows (?s ?o), each edge in
// both directions: every node has one colour under colour refinement, and
// so has every row, whatever the graph.
func regularGraph(r *rand.Rand, n, d int, prefix string) *results.Result {
	for {
		if g := tryRegularGraph(r, n, d, prefix); g != nil {
			return g
		}
	}
}

// tryRegularGraph is one try of regularGraph: nil if it drew a loop or a
// double edge.
func tryRegularGraph(r *rand.Rand, n, d int, prefix string) *results.Result {
	stubs := make([]int, 0, n*d)
	for v := range n {
		for range d {
			stubs = append(stubs, v)
		}
	}
	r.Shuffle(len(stubs), func(i, j int) { stubs[i], stubs[j] = stubs[j], stubs[i] })
	seen := map[[2]int]bool{}
	res := &results.Result{Vars: []string{"s", "o"}}
	for i := 0; i < len(stubs); i += 2 {
		u, v := stubs[i], stubs[i+1]
		if u == v || seen[[2]int{u, v}] {
			return nil
		}
		seen[[2]int{u, v}], seen[[2]int{v, u}] = true, true
		x, y := quad.BNode(fmt.Sprint(prefix, u)), quad.BNode(fmt.Sprint(prefix, v))
		res.Rows = append(res.Rows, results.Row{x, y}, results.Row{y, x})
	}
	return res
}

// Two random 3-regular graphs of 40 nodes: colour refinement cannot split
// them, and the row-by-row search for a bijection backtracks exponentially
// (a search between a graph of this kind and a relabelled copy of it did
// not end in ten minutes) until individualisation-refinement takes over,
// which costs a pass over the rows per round. With a bound smaller than
// that, Compare gives up with ErrSearchBudget, and Equivalent reports
// false; on smaller graphs without a bound the answer is exact.
func TestEquivalent_RegularGraphs_Budget(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	small := [2]*results.Result{regularGraph(r, 10, 3, "a"), regularGraph(r, 10, 3, "b")}
	big := [2]*results.Result{regularGraph(r, 40, 3, "a"), regularGraph(r, 40, 3, "b")}

	bounded := results.EquivalenceOptions{MaxSteps: 1000}
	ok, err := bounded.Compare(big[0], big[1], false)
	if ok || !errors.Is(err, results.ErrSearchBudget) {
		t.Fatalf("Compare = %v, %v; want false, ErrSearchBudget", ok, err)
	}
	if !strings.Contains(err.Error(), "MaxSteps") {
		t.Errorf("error %q does not name the option to raise", err)
	}
	if bounded.Equivalent(big[0], big[1], false) {
		t.Error("Equivalent = true after the search gave up")
	}

	unbounded := results.EquivalenceOptions{MaxSteps: -1}
	if ok, err := unbounded.Compare(small[0], small[1], false); ok || err != nil {
		t.Errorf("small graphs, unbounded: Compare = %v, %v; want false, nil", ok, err)
	}
	if ok, err := results.Compare(small[0], small[0], false); !ok || err != nil {
		t.Errorf("a graph with itself: Compare = %v, %v; want true, nil", ok, err)
	}
	if ok, err := results.Compare(big[0], big[0], true); !ok || err != nil {
		t.Errorf("a graph with itself, ordered: Compare = %v, %v; want true, nil", ok, err)
	}
}

// graphResult returns the graph of edges as rows (?s ?o) of blank nodes
// prefix+number, each edge in both directions when both is set.
func graphResult(edges [][2]int, prefix string, both bool) *results.Result {
	res := &results.Result{Vars: []string{"s", "o"}}
	for _, e := range edges {
		x, y := quad.BNode(fmt.Sprint(prefix, e[0])), quad.BNode(fmt.Sprint(prefix, e[1]))
		res.Rows = append(res.Rows, results.Row{x, y})
		if both {
			res.Rows = append(res.Rows, results.Row{y, x})
		}
	}
	return res
}

// relabelled returns g with its blank nodes renamed at random, its rows
// shuffled and its columns swapped.
func relabelled(r *rand.Rand, g *results.Result) *results.Result {
	name := map[quad.Value]quad.Value{}
	out := &results.Result{Vars: []string{g.Vars[1], g.Vars[0]}}
	for _, i := range r.Perm(len(g.Rows)) {
		row := results.Row{g.Rows[i][1], g.Rows[i][0]}
		for j, v := range row {
			if _, ok := name[v]; !ok {
				name[v] = quad.BNode(fmt.Sprintf("r%d_%d", r.IntN(1e9), len(name)))
			}
			row[j] = name[v]
		}
		out.Rows = append(out.Rows, row)
	}
	return out
}

// edgesOf returns the edges of a graph built by regularGraph (one per pair
// of rows), as numbers.
func edgesOf(g *results.Result, prefix string) [][2]int {
	var edges [][2]int
	for i := 0; i < len(g.Rows); i += 2 {
		var e [2]int
		for j := range e {
			fmt.Sscanf(strings.TrimPrefix(string(g.Rows[i][j].(quad.BNode)), prefix), "%d", &e[j])
		}
		edges = append(edges, e)
	}
	return edges
}

// switched returns edges with one double-edge swap (a-b, c-d become a-d,
// c-b) that keeps the graph simple: the same degrees, another graph.
func switched(r *rand.Rand, edges [][2]int) [][2]int {
	has := map[[2]int]bool{}
	for _, e := range edges {
		has[e], has[[2]int{e[1], e[0]}] = true, true
	}
	for {
		i, j := r.IntN(len(edges)), r.IntN(len(edges))
		a, b, c, d := edges[i][0], edges[i][1], edges[j][0], edges[j][1]
		if a == c || a == d || b == c || b == d || has[[2]int{a, d}] || has[[2]int{c, b}] {
			continue
		}
		out := append([][2]int(nil), edges...)
		out[i], out[j] = [2]int{a, d}, [2]int{c, b}
		return out
	}
}

func cycleEdges(n, from int) [][2]int {
	var edges [][2]int
	for i := range n {
		edges = append(edges, [2]int{from + i, from + (i+1)%n})
	}
	return edges
}

// Graphs that colour refinement cannot tell apart (every node of one
// colour): regular graphs, relabelled, found equal within the default
// budget by individualisation-refinement, and pairs of regular graphs of
// one size and degree that are not the same graph found unequal, with no
// budget error.
func TestEquivalent_RegularGraphs(t *testing.T) {
	r := rand.New(rand.NewPCG(20261128, 1))
	reg200 := regularGraph(r, 200, 3, "a")
	other200 := regularGraph(r, 200, 3, "b")
	reg200x4 := regularGraph(r, 200, 4, "c")
	swapped := graphResult(switched(r, edgesOf(reg200, "a")), "d", true)
	prism := [][2]int{{0, 1}, {1, 2}, {2, 0}, {3, 4}, {4, 5}, {5, 3}, {0, 3}, {1, 4}, {2, 5}}
	k33 := [][2]int{{0, 3}, {0, 4}, {0, 5}, {1, 3}, {1, 4}, {1, 5}, {2, 3}, {2, 4}, {2, 5}}
	petersen := append(append(cycleEdges(5, 0), [][2]int{{0, 5}, {1, 6}, {2, 7}, {3, 8}, {4, 9}}...),
		[][2]int{{5, 7}, {7, 9}, {9, 6}, {6, 8}, {8, 5}}...)
	cube := [][2]int{{0, 1}, {1, 3}, {3, 2}, {2, 0}, {4, 5}, {5, 7}, {7, 6}, {6, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}}
	// Twelve 5-cycles against one 60-cycle, and against six 10-cycles:
	// parts of different sizes. Two cycles of 30 against one of 60, in
	// one direction only.
	var fives, tens [][2]int
	for c := range 12 {
		fives = append(fives, cycleEdges(5, 5*c)...)
	}
	for c := range 6 {
		tens = append(tens, cycleEdges(10, 10*c)...)
	}
	thirties := append(cycleEdges(30, 0), cycleEdges(30, 30)...)
	// Cycles joined into one part by two hubs (nodes 100 and 101, one
	// colour) linked to every node: a 6-cycle against two 3-cycles.
	hubbed := func(edges [][2]int) [][2]int {
		out := append([][2]int(nil), edges...)
		for v := range 6 {
			out = append(out, [2]int{100, v}, [2]int{101, v})
		}
		return out
	}
	// A 3-regular graph, each edge one row in a random direction.
	directed := edgesOf(regularGraph(r, 200, 3, "e"), "e")
	for i := range directed {
		if r.IntN(2) == 0 {
			directed[i] = [2]int{directed[i][1], directed[i][0]}
		}
	}
	// Many parts alike under colour refinement: Petersen graphs and
	// pentagonal prisms (both 3-regular, 10 nodes), 50 and 50 against 51
	// and 49 (each pair of parts costs a search).
	pentaPrism := append(append(cycleEdges(5, 0), cycleEdges(5, 5)...), [][2]int{{0, 5}, {1, 6}, {2, 7}, {3, 8}, {4, 9}}...)
	mix := func(petersens int) [][2]int {
		var out [][2]int
		for i := range 100 {
			e := pentaPrism
			if i < petersens {
				e = petersen
			}
			for _, x := range e {
				out = append(out, [2]int{10*i + x[0], 10*i + x[1]})
			}
		}
		return out
	}
	g := func(edges [][2]int) *results.Result { return graphResult(edges, "g", true) }
	cases := []struct {
		name string
		a, b *results.Result
		want bool
	}{
		{"Random3Regular200", reg200, relabelled(r, reg200), true},
		{"Random4Regular200", reg200x4, relabelled(r, reg200x4), true},
		{"Random3Regular200Directed", graphResult(directed, "e", false), relabelled(r, graphResult(directed, "e", false)), true},
		{"Petersen", g(petersen), relabelled(r, g(petersen)), true},
		{"Cube", g(cube), relabelled(r, g(cube)), true},
		{"Cycle60", g(cycleEdges(60, 0)), relabelled(r, g(cycleEdges(60, 0))), true},
		{"PetersensAndPrisms", g(mix(50)), relabelled(r, g(mix(50))), true},
		{"TwoRandom3Regular200", reg200, other200, false},
		{"PetersensAndPrismsUnequal", g(mix(50)), relabelled(r, g(mix(51))), false},
		{"Random3Regular200Switched", reg200, relabelled(r, swapped), false},
		{"Prism", g(prism), relabelled(r, g(prism)), true},
		{"PrismVsK33Unequal", g(prism), relabelled(r, g(k33)), false},
		{"Cycle6VsTwoCycles3", g(cycleEdges(6, 0)), relabelled(r, g(append(cycleEdges(3, 0), cycleEdges(3, 3)...))), false},
		{"Cycle6TwoHubs", g(hubbed(cycleEdges(6, 0))), relabelled(r, g(hubbed(cycleEdges(6, 0)))), true},
		{"Cycle6VsTwoCycles3TwoHubs", g(hubbed(cycleEdges(6, 0))), relabelled(r, g(hubbed(append(cycleEdges(3, 0), cycleEdges(3, 3)...)))), false},
		{"Cycle60VsTwelveCycles5", g(cycleEdges(60, 0)), relabelled(r, g(fives)), false},
		{"SixCycles10VsTwelveCycles5", g(tens), relabelled(r, g(fives)), false},
		{"Cycle60VsTwoCycles30Directed", graphResult(cycleEdges(60, 0), "g", false), relabelled(r, graphResult(thirties, "g", false)), false},
		{"PetersenVsPrismAndK4", g(petersen), relabelled(r, g(append(append([][2]int(nil), prism...), [][2]int{{6, 7}, {7, 8}, {8, 9}, {9, 6}, {6, 8}, {7, 9}}...))), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, pair := range [][2]*results.Result{{tc.a, tc.b}, {tc.b, tc.a}} {
				if ok, err := results.Compare(pair[0], pair[1], false); ok != tc.want || err != nil {
					t.Fatalf("Compare = %v, %v; want %v, nil", ok, err, tc.want)
				}
			}
		})
	}
}
