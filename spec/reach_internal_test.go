package spec

import (
	"fmt"
	"testing"
)

// TestReach_SearchesOncePerStep: the inputs of one step are checked
// against one search of its upstream steps, however many inputs it has.
// Each input searched again: a step at the end of 5,000 steps with 100,000
// inputs from a step not upstream of it (a 3 MB file) took 19 seconds.
func TestReach_SearchesOncePerStep(t *testing.T) {
	const n = 1000
	// z, and s1 → s2 → … → s1000.
	steps := []Step{{Name: "z"}}
	byName := map[string]int{"z": 0}
	for i := 1; i <= n; i++ {
		s := Step{Name: fmt.Sprint("s", i)}
		if i < n {
			s.DependsOn = []string{fmt.Sprint("s", i+1)}
		}
		byName[s.Name] = len(steps)
		steps = append(steps, s)
	}
	r := newReach(steps, byName, false)
	for range 1000 {
		if r.upstream(1, 0) {
			t.Fatal("z is upstream of s1")
		}
		if !r.upstream(1, n) {
			t.Fatal("the last step is not upstream of the first")
		}
	}
	if r.visits > 2*n {
		t.Fatalf("2,000 checks of step 1's inputs visited %d steps, want one search (%d)", r.visits, n)
	}
	if r.upstream(n, 1) || !r.upstream(2, 3) || r.upstream(3, 2) {
		t.Fatal("wrong answers for other steps")
	}
}

// TestReach_FollowsEachEdgeOnce: steps that depend on one large graph
// have their inputs checked without searching it again for each: 500
// steps after a graph of 10,000 depends_on entries follow each entry once.
func TestReach_FollowsEachEdgeOnce(t *testing.T) {
	const l, tops = 100, 500
	var steps []Step
	byName := map[string]int{}
	add := func(s Step) {
		byName[s.Name] = len(steps)
		steps = append(steps, s)
	}
	var bs, cs []string
	for i := range l {
		bs, cs = append(bs, fmt.Sprint("b", i)), append(cs, fmt.Sprint("c", i))
		add(Step{Name: bs[i]})
	}
	for i := range l {
		add(Step{Name: cs[i], DependsOn: append(bs, bs...)}) // each b twice
	}
	add(Step{Name: "root", DependsOn: cs})
	add(Step{Name: "z"})
	for i := range tops {
		add(Step{Name: fmt.Sprint("t", i), DependsOn: []string{"root"}})
	}
	r := newReach(steps, byName, false)
	for i := range tops {
		top := byName[fmt.Sprint("t", i)]
		if r.upstream(top, byName["z"]) || !r.upstream(top, byName["b7"]) || !r.upstream(top, byName["root"]) {
			t.Fatalf("wrong answers for t%d", i)
		}
	}
	if edges := l*l + l + tops; r.visits > edges {
		t.Fatalf("%d steps' inputs checked following %d depends_on entries, want each of the %d once at most", tops, r.visits, edges)
	}
}
