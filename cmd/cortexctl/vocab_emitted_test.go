package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/namespace"
)

// checkEmittedVocabulary fails t if a namespace of the store in data holds
// a Cortex IRI (one under the namespace's prefix) that the published
// vocabulary does not account for: a predicate or a class (object of
// rdf:type) that is not a term of namespace.Terms (so not declared in
// fixtures/vocab.ttl), or any other IRI under the prefix that is neither
// a term nor one of the layouts namespace.Parse reads. The README tests
// that run many commands call it on their store.
func checkEmittedVocabulary(t *testing.T, data string) {
	t.Helper()
	var list []struct{ Name, Base string }
	if err := json.Unmarshal([]byte(mustCLI(t, data, "namespaces", "list", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	for _, n := range list {
		x, err := namespace.New(n.Name, namespace.WithBase(n.Base))
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "all.nq")
		mustCLI(t, data, "-n", n.Name, "export", "-o", out)
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		qs, err := rdfio.ReadAll(f, rdfio.NQuads, rdfio.DecodeOptions{})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		classes := map[quad.IRI]bool{}
		for _, e := range x.Vocab() {
			classes[e.IRI] = e.Kind == namespace.TermClass
		}
		bad := map[string]string{}
		for _, q := range qs {
			// In the graphs Cortex writes (but the member graphs, shared
			// graphs and fact sets, which hold the findings' own triples),
			// every predicate is one the vocabulary documents, external
			// ones included.
			if g, ok := q.Label.(quad.IRI); ok {
				if ref, err := x.Parse(g); err == nil && ref.Kind.IsGraph() && ref.Kind != namespace.KindMemberGraph && ref.Kind != namespace.KindSharedGraph && ref.Kind != namespace.KindFactSet {
					if _, ok := classes[q.Predicate.(quad.IRI)]; !ok {
						bad[quad.StringOf(q.Predicate)] = "a predicate of graph " + ref.Kind.String() + " that the vocabulary does not document"
					}
				}
			}
			for i, v := range []quad.Value{q.Subject, q.Predicate, q.Object, q.Label} {
				iri, ok := v.(quad.IRI)
				if !ok {
					continue
				}
				ref, err := x.Parse(iri)
				switch {
				case errors.Is(err, namespace.ErrForeignIRI):
					continue
				case err != nil:
					bad[string(iri)] = "no term nor layout: " + err.Error()
				case i == 1 && (ref.Kind != namespace.KindTerm || classes[iri]):
					bad[string(iri)] = "a predicate that is no property term"
				case i == 2 && q.Predicate == namespace.RDFType && !classes[iri]:
					bad[string(iri)] = "a class that is no term"
				case i == 3 && !ref.Kind.IsGraph():
					bad[string(iri)] = "a graph name of kind " + ref.Kind.String()
				}
			}
		}
		for iri, why := range bad {
			t.Errorf("namespace %s holds %s: %s", n.Name, iri, why)
		}
		t.Logf("namespace %s: %d quads checked", n.Name, len(qs))
	}
}
