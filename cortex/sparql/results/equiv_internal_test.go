package results

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cayleygraph/quad"
)

// cycle is a cycle of n blank nodes whose rows carry tag.
type cycle struct {
	n   int
	tag string
}

// cyclesResult returns a result of rows (?s ?o ?t) holding blank nodes
// linked in cycles: cycle c of length n is the rows (_:pc_0 _:pc_1 tag) ...
// (_:pc_{n-1} _:pc_0 tag).
func cyclesResult(prefix string, cycles ...cycle) *Result {
	r := &Result{Vars: []string{"s", "o", "t"}}
	for c, cy := range cycles {
		node := func(i int) quad.Value { return quad.BNode(fmt.Sprintf("%s%d_%d", prefix, c, i%cy.n)) }
		for i := range cy.n {
			r.Rows = append(r.Rows, Row{node(i), node(i + 1), quad.String(cy.tag)})
		}
	}
	return r
}

// Two results that differ only in the shape of one part, behind many parts
// that each match in two ways: k 2-cycles tagged "c1" ... "ck", then a
// 4-cycle tagged "z" against two 2-cycles tagged "z". Same rows per
// signature, same degrees: a search that pairs rows one by one, the most
// constrained first, pairs the 2-cycles (two ways each) before it reaches
// the "z" rows and learns that the 4-cycle has no image, and then tries
// the 2^k ways. The number of search steps must stay about linear in the
// number of rows, whatever k.
func TestEquivalent_UnequalManyBNodes_Steps(t *testing.T) {
	for _, k := range []int{4, 8, 12, 200} {
		ok := t.Run(fmt.Sprint(k), func(t *testing.T) {
			var tagged []cycle
			for i := range k {
				tagged = append(tagged, cycle{2, fmt.Sprint("c", i)})
			}
			a := cyclesResult("a", append(tagged[:k:k], cycle{4, "z"})...)
			b := cyclesResult("b", append(tagged[:k:k], cycle{2, "z"}, cycle{2, "z"})...)
			rows := len(a.Rows)
			for _, pair := range [][2]*Result{{a, b}, {b, a}} {
				bud := &budget{max: -1}
				if (EquivalenceOptions{}).equivalent(pair[0], pair[1], false, bud) {
					t.Fatal("a 4-cycle reported equivalent to two 2-cycles")
				}
				if bud.used > 8*rows {
					t.Fatalf("%d search steps for %d rows", bud.used, rows)
				}
			}
			// Equal results of the same shape are found equal, in about as
			// many steps.
			c := cyclesResult("c", append(tagged[:k:k], cycle{4, "z"})...)
			for i, j := 0, len(c.Rows)-1; i < j; i, j = i+1, j-1 {
				c.Rows[i], c.Rows[j] = c.Rows[j], c.Rows[i]
			}
			bud := &budget{max: -1}
			if !(EquivalenceOptions{}).equivalent(a, c, false, bud) {
				t.Fatal("relabelled cycles not equivalent")
			}
			if bud.used > 8*rows {
				t.Fatalf("equal results: %d search steps for %d rows", bud.used, rows)
			}
		})
		if !ok {
			break // a search that is exponential in k would not end
		}
	}
}

// withHub returns r with one more blank node, _:hub, and a row
// (_:hub node "hub") for every blank node of r: all of r is then one
// connected part.
func withHub(r *Result, hub string) *Result {
	out := &Result{Vars: r.Vars, Rows: append([]Row(nil), r.Rows...)}
	seen := map[quad.Value]bool{}
	for _, row := range r.Rows {
		for _, v := range row[:2] {
			if !seen[v] {
				seen[v] = true
				out.Rows = append(out.Rows, Row{quad.BNode(hub), v, quad.String("hub")})
			}
		}
	}
	return out
}

// The same pair joined into one part by a blank node linked to every
// other: k untagged 2-cycles and a 4-cycle against k+2 2-cycles, each with
// a hub. The hub is the only node of its colour on each side, so it is
// paired first and does not link the cycles, which then match (or fail)
// on their own.
func TestEquivalent_UnequalHub_Steps(t *testing.T) {
	for _, k := range []int{4, 8, 12, 200} {
		ok := t.Run(fmt.Sprint(k), func(t *testing.T) {
			var twos []cycle
			for range k {
				twos = append(twos, cycle{2, "e"})
			}
			a := withHub(cyclesResult("a", append(twos[:k:k], cycle{4, "e"})...), "ha")
			b := withHub(cyclesResult("b", append(twos[:k:k], cycle{2, "e"}, cycle{2, "e"})...), "hb")
			c := withHub(cyclesResult("c", append(twos[:k:k], cycle{4, "e"})...), "hc")
			rows := len(a.Rows)
			for _, tc := range []struct {
				x, y *Result
				want bool
			}{{a, b, false}, {b, a, false}, {a, c, true}} {
				bud := &budget{max: -1}
				if got := (EquivalenceOptions{}).equivalent(tc.x, tc.y, false, bud); got != tc.want {
					t.Fatalf("equivalent = %v, want %v", got, tc.want)
				}
				if bud.used > 8*rows {
					t.Fatalf("%d search steps for %d rows", bud.used, rows)
				}
			}
		})
		if !ok {
			break // a search that is exponential in k would not end
		}
	}
}

// graphFromBytes reads a small result from data: a number of blank nodes,
// then rows (?s ?o) of two terms each, a blank node, "p" or unbound.
func graphFromBytes(data []byte, prefix string) *Result {
	r := &Result{Vars: []string{"s", "o"}}
	if len(data) == 0 {
		return r
	}
	k := 2 + int(data[0]%6)
	term := func(b byte) quad.Value {
		switch n := int(b) % (k + 2); n {
		case k:
			return quad.String("p")
		case k + 1:
			return nil
		default:
			return quad.BNode(fmt.Sprint(prefix, n))
		}
	}
	for i := 1; i+1 < len(data) && len(r.Rows) < 12; i += 2 {
		r.Rows = append(r.Rows, Row{term(data[i]), term(data[i+1])})
	}
	return r
}

// checkRefinedAgrees checks that individualisation-refinement alone
// (budget.refineOnly) gives the answer of the row-by-row search, without a
// bound (exact), on a and b, and on a and a copy of it relabelled and
// shuffled (by seed).
func checkRefinedAgrees(t *testing.T, a, b *Result, seed uint64) {
	t.Helper()
	c := &Result{Vars: a.Vars}
	for _, i := range rand.New(rand.NewPCG(seed, 1)).Perm(len(a.Rows)) {
		row := slices.Clone(a.Rows[i])
		for j, v := range row {
			if l, ok := v.(quad.BNode); ok {
				row[j] = quad.BNode("c" + string(l))
			}
		}
		c.Rows = append(c.Rows, row)
	}
	for _, pair := range [][2]*Result{{a, b}, {b, a}, {a, c}} {
		want := EquivalenceOptions{}.equivalent(pair[0], pair[1], false, &budget{max: -1})
		got := EquivalenceOptions{}.equivalent(pair[0], pair[1], false, &budget{max: -1, refineOnly: true})
		if got != want {
			t.Fatalf("refinement: %v, row search: %v\na %v\nb %v", got, want, pair[0].Rows, pair[1].Rows)
		}
	}
	if !(EquivalenceOptions{}).equivalent(a, c, false, &budget{max: -1, refineOnly: true}) {
		t.Fatalf("refinement: a relabelled copy not equivalent\na %v\nc %v", a.Rows, c.Rows)
	}
}

func FuzzEquivalent_Refinement(f *testing.F) {
	f.Add([]byte{4, 0, 1, 1, 2, 2, 3, 3, 0}, []byte{4, 0, 1, 1, 0, 2, 3, 3, 2})
	f.Add([]byte{1, 0, 1, 1, 0}, []byte{1, 0, 0, 1, 1})
	f.Fuzz(func(t *testing.T, x, y []byte) {
		checkRefinedAgrees(t, graphFromBytes(x, "a"), graphFromBytes(y, "b"), uint64(len(x)))
	})
}

// TestEquivalent_RefinementAgrees runs checkRefinedAgrees on random small
// results (a fixed seed): pairs of graphs of 6-cycles and 3-cycles, and
// random rows.
func TestEquivalent_RefinementAgrees(t *testing.T) {
	cyc := func(prefix string, lens ...int) *Result {
		r := &Result{Vars: []string{"s", "o"}}
		base := 0
		for _, n := range lens {
			for i := range n {
				x, y := quad.BNode(fmt.Sprint(prefix, base+i)), quad.BNode(fmt.Sprint(prefix, base+(i+1)%n))
				r.Rows = append(r.Rows, Row{x, y}, Row{y, x})
			}
			base += n
		}
		return r
	}
	// Two hubs of one colour, linked to every node, make one part.
	hubs := func(r *Result) *Result {
		out := &Result{Vars: r.Vars, Rows: slices.Clone(r.Rows)}
		seen := map[quad.Value]bool{}
		for _, row := range r.Rows {
			if v := row[0]; !seen[v] {
				seen[v] = true
				for _, h := range []quad.Value{quad.BNode("h1"), quad.BNode("h2")} {
					out.Rows = append(out.Rows, Row{h, v}, Row{v, h})
				}
			}
		}
		return out
	}
	for i, tc := range []struct {
		a, b *Result
		want bool
	}{
		{cyc("a", 6), cyc("b", 3, 3), false},
		{cyc("a", 6, 3), cyc("b", 3, 3, 3), false},
		{hubs(cyc("a", 6)), hubs(cyc("b", 3, 3)), false},
		{hubs(cyc("a", 8)), hubs(cyc("b", 4, 4)), false},
		{hubs(cyc("a", 4, 4)), hubs(cyc("b", 4, 4)), true},
		{hubs(cyc("a", 5, 3)), hubs(cyc("b", 3, 5)), true},
	} {
		if got := (EquivalenceOptions{}).equivalent(tc.a, tc.b, false, &budget{max: -1, refineOnly: true}); got != tc.want {
			t.Errorf("case %d: refinement: %v, want %v", i, got, tc.want)
		}
		checkRefinedAgrees(t, tc.a, tc.b, uint64(i))
	}
	r := rand.New(rand.NewPCG(11, 12))
	for range 3000 {
		x, y := make([]byte, r.IntN(20)), make([]byte, 0, 20)
		for i := range x {
			x[i] = byte(r.IntN(256))
		}
		y = append(y, x...)
		if len(y) > 1 && r.IntN(2) == 0 {
			y[1+r.IntN(len(y)-1)] = byte(r.IntN(256))
		}
		checkRefinedAgrees(t, graphFromBytes(x, "a"), graphFromBytes(y, "b"), r.Uint64())
	}
}
