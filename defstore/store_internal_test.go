package defstore

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/spec"
)

// TestQuads_LinearInReferences: the quads of a team of n agents and n
// steps, among n known agents, cost allocations in proportion to n. Each
// agent reference (a team's agent, a step's agent) indexed every known
// agent and every team agent again, so n² allocations: an import of 4,000
// agents and a team using them held the namespace's write lock for most of
// a minute.
func TestQuads_LinearInReferences(t *testing.T) {
	const n = 2000
	x, err := namespace.New("acme")
	if err != nil {
		t.Fatal(err)
	}
	s := &Store{ns: x}
	var agents, refs, steps []string
	for i := range n {
		agents = append(agents, fmt.Sprintf("ns%d/a%d", i%7, i))
		refs = append(refs, fmt.Sprintf("%q", agents[i]))
		steps = append(steps, fmt.Sprintf(`{"name": "s%d", "agent": "a%d"}`, i, i)) // bare: resolved twice
	}
	data := `{"name": "t", "version": "1", "agents": [` + strings.Join(refs, ",") + `], "workflow": {"steps": [` + strings.Join(steps, ",") + `]}}`
	team, rep := spec.ParseTeam("t.json", []byte(data), spec.Options{})
	if rep.Err() != nil {
		t.Fatal(rep.Err())
	}
	def := spec.Def{Kind: spec.KindTeam, Team: team}
	var qs int
	allocs := testing.AllocsPerRun(1, func() {
		_, quads, err := s.quads(def, spec.NewResolver(agents))
		if err != nil {
			t.Fatal(err)
		}
		qs = len(quads)
	})
	t.Logf("%d quads, %v allocations", qs, allocs)
	if allocs > 50*n {
		t.Errorf("the quads of a team of %d agents and steps: %v allocations, want at most %d", n, allocs, 50*n)
	}
	_, quads, _ := s.quads(def, spec.NewResolver(agents))
	for _, q := range quads {
		if q.Predicate == x.IRI(namespace.DefAgent) && q.Subject == x.StepDef("t", "s7") && q.Object != x.AgentDef("ns0/a7") {
			t.Fatalf("step s7 runs %v, want agent ns0/a7", q.Object)
		}
	}
}
