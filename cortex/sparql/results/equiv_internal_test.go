package results

import (
	"fmt"
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
