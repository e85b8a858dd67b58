package namespace_test

import (
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/namespace"
)

// TestWorkflow_NoIdentifierSpellsAPredicate checks the property that lets
// the workflow predicates use unreserved words: every IRI built from a run
// id or step name starts with run:, and no vocabulary term does.
func TestWorkflow_NoIdentifierSpellsAPredicate(t *testing.T) {
	ns := mustNew(t, "acme")
	runRoot := ns.Prefix() + "run:"
	for _, term := range namespace.Terms() {
		if strings.HasPrefix(string(ns.IRI(term)), runRoot) {
			t.Errorf("term %q is under the run: root, where identifiers are", term)
		}
	}
	for _, id := range []string{"workflow", "status", "name", "step", "graph", "a:b"} {
		for _, iri := range []string{
			string(ns.Run(id)), string(ns.Step(id, id)), string(ns.Transition(id, 1)),
			string(ns.RunGraph(id)), string(ns.HistoryGraph(id)), string(ns.Round(id, 1)),
			string(ns.TallyTopic(id, 1, id)), string(ns.Ballot(id, 1, id, 1)), string(ns.RoundGraph(id, 1)),
		} {
			if !strings.HasPrefix(iri, runRoot) {
				t.Errorf("%s is not under %s", iri, runRoot)
			}
		}
	}
	if ns.Step("r", "graph") == ns.RunGraph("r") {
		t.Errorf("step %q spells the run graph", "graph")
	}
	if got, want := string(ns.Step("r 1", "a/b")), ns.Prefix()+"run:r%201:step:a%2Fb"; got != want {
		t.Errorf("Step = %s, want %s", got, want)
	}
}
