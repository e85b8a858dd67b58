package namespace_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/namespace"
)

var update = flag.Bool("update", false, "rewrite fixtures/vocab.ttl from the Go vocabulary")

var vocabPath = filepath.Join("..", "fixtures", "vocab.ttl")

const (
	rdfTypeIRI   = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
	rdfProperty  = "http://www.w3.org/1999/02/22-rdf-syntax-ns#Property"
	rdfsClassIRI = "http://www.w3.org/2000/01/rdf-schema#Class"
)

// TestVocab_Fixture checks that fixtures/vocab.ttl is exactly what
// WriteVocab produces for the default namespace (run with -update to
// regenerate it).
func TestVocab_Fixture(t *testing.T) {
	ns := mustNew(t, namespace.Default)
	var buf bytes.Buffer
	if err := ns.WriteVocab(&buf); err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(vocabPath, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(vocabPath)
	if err != nil {
		t.Fatalf("%v (run go test ./namespace -run TestVocab_Fixture -update)", err)
	}
	if !bytes.Equal(got, buf.Bytes()) {
		t.Fatalf("%s is out of date with the Go vocabulary; run go test ./namespace -run TestVocab_Fixture -update", vocabPath)
	}
}

// TestVocab_MatchesTurtle parses fixtures/vocab.ttl independently and checks
// that the classes and properties it declares are exactly those of
// NS.Vocab, with the same kinds.
func TestVocab_MatchesTurtle(t *testing.T) {
	ns := mustNew(t, namespace.Default)
	src, err := os.ReadFile(vocabPath)
	if err != nil {
		t.Fatal(err)
	}
	triples, err := parseTurtleSubset(string(src))
	if err != nil {
		t.Fatalf("parse %s: %v", vocabPath, err)
	}
	declared := map[string]string{} // iri → class IRI
	for _, tr := range triples {
		if tr.p != rdfTypeIRI || tr.o != rdfProperty && tr.o != rdfsClassIRI {
			continue
		}
		if prev, dup := declared[tr.s]; dup {
			t.Errorf("%s declared twice (%s, %s)", tr.s, prev, tr.o)
		}
		declared[tr.s] = tr.o
	}
	want := map[string]string{}
	for _, e := range ns.Vocab() {
		kind := rdfProperty
		if e.Kind == namespace.TermClass {
			kind = rdfsClassIRI
		}
		want[string(e.IRI)] = kind
	}
	for iri, kind := range want {
		if got, ok := declared[iri]; !ok {
			t.Errorf("Go term %s missing from %s", iri, vocabPath)
		} else if got != kind {
			t.Errorf("%s declared as %s, Go says %s", iri, got, kind)
		}
	}
	for iri := range declared {
		if _, ok := want[iri]; !ok {
			t.Errorf("%s declares %s, unknown to the Go vocabulary", vocabPath, iri)
		}
	}
}

func TestVocab_Entries(t *testing.T) {
	ns := mustNew(t, "acme")
	entries := ns.Vocab()
	if len(entries) != len(namespace.Terms())+9 {
		t.Errorf("Vocab has %d entries, Terms %d", len(entries), len(namespace.Terms()))
	}
	seen := map[quad.IRI]bool{}
	for _, e := range entries {
		if seen[e.IRI] {
			t.Errorf("duplicate vocab IRI %s", e.IRI)
		}
		seen[e.IRI] = true
		if e.Label == "" || e.Comment == "" {
			t.Errorf("%s lacks a label or comment", e.IRI)
		}
		if e.Kind != namespace.TermClass && e.Kind != namespace.TermProperty {
			t.Errorf("%s has kind %v", e.IRI, e.Kind)
		}
		if e.External != (e.Term == "") {
			t.Errorf("%s: External=%v but Term=%q", e.IRI, e.External, e.Term)
		}
		if !e.External {
			if !namespace.IsTerm(e.Term) || e.IRI != ns.IRI(e.Term) {
				t.Errorf("%s: term %q not a known term", e.IRI, e.Term)
			}
			// Class terms are capitalised single words; predicates are
			// lower-case root:...:name paths.
			isClass := !strings.Contains(string(e.Term), ":")
			if isClass != (e.Kind == namespace.TermClass) {
				t.Errorf("%s: kind %v does not match its shape", e.Term, e.Kind)
			}
		}
		for _, ref := range []quad.IRI{e.Domain, e.Range} {
			if strings.HasPrefix(string(ref), ns.Prefix()) && !seen[ref] {
				if r, err := ns.Parse(ref); err != nil || r.Kind != namespace.KindTerm {
					t.Errorf("%s: domain/range %s is not a Cortex term", e.IRI, ref)
				}
			}
		}
	}
	for _, iri := range []quad.IRI{
		namespace.RDFType, namespace.RDFSubject, namespace.RDFPredicate, namespace.RDFObject,
		namespace.ProvWasAttributedTo, namespace.ProvWasGeneratedBy,
		namespace.ProvGeneratedAtTime, namespace.ProvStartedAtTime, namespace.ProvEndedAtTime,
	} {
		if !seen[iri] {
			t.Errorf("external predicate %s missing from Vocab", iri)
		}
	}
}

// TestVocab_ReservedWords checks that every word used in a vocabulary term
// is escaped when used as an identifier, so no identifier spells a term.
//
// The reserved list is frozen (see escape.go), so a class added later is
// exempt when its name is a single segment: a class IRI is {prefix}{Class},
// and every IRI built from an identifier has at least two segments
// (agent:{id}, team:{id}, ...), so no identifier can spell it.
func TestVocab_ReservedWords(t *testing.T) {
	// Added after the list was frozen: FactSet, the workflow classes (see
	// namespace/workflow.go and TestWorkflow_NoIdentifierSpellsAPredicate),
	// the definition classes, the task board's, the plan's and the council
	// tally classes.
	exempt := map[string]bool{"FactSet": true, "Run": true, "Step": true, "Transition": true, "Round": true, "TallyTopic": true, "Ballot": true, "AgentDef": true, "TeamDef": true, "StepDef": true}
	// The roots of terms that came after the freeze, under which no
	// identifier-built IRI starts (builders start with team: or agent:),
	// so no identifier can spell them: they need no reserved words.
	lateRoots := map[string]bool{"workflow": true, "def": true, "task": true, "comment": true, "message": true,
		"plan": true, "planstep": true}
	lateClasses := map[string]bool{"Task": true, "TaskComment": true, "Message": true, "Plan": true, "PlanStep": true}
	for _, term := range namespace.Terms() {
		words := splitColon(string(term))
		if len(words) == 3 && words[0] == "team" {
			// No IRI builder makes three segments under team: (team:{id},
			// team:{id}:{kind}:{id}, ...), so no identifier can spell such a
			// term (team:lifecycle:status and its kin came after the freeze).
			continue
		}
		if lateRoots[words[0]] && len(words) > 1 || lateClasses[string(term)] || term == namespace.FindingTask {
			if ref, err := mustNew(t, "acme").Parse(mustNew(t, "acme").IRI(term)); err != nil || ref.Kind != namespace.KindTerm {
				t.Errorf("late term %q does not parse as a term: %v %v", term, ref, err)
			}
			continue
		}
		for _, w := range words {
			if exempt[w] && w == string(term) {
				if namespace.Escape(w) != w {
					t.Errorf("exempt class %q is reserved after all; drop it from the exemptions", w)
				}
				continue
			}
			if namespace.Escape(w) == w {
				t.Errorf("vocabulary word %q (from %q) is not reserved by Escape", w, term)
			}
		}
	}
}

func TestVocab_WriteError(t *testing.T) {
	ns := mustNew(t, namespace.Default)
	want := errors.New("disk full")
	if err := ns.WriteVocab(failWriter{want}); !errors.Is(err, want) {
		t.Fatalf("WriteVocab = %v, want %v", err, want)
	}
}

type failWriter struct{ err error }

func (w failWriter) Write([]byte) (int, error) { return 0, w.err }
