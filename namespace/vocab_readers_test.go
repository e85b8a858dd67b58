package namespace_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/cortex/rdfio/rdftest"
	"github.com/cortexgraph/cortex/namespace"
)

// vocabBases are the bases TestVocab_TurtleReaders writes the vocabulary
// for: the default one, and bases whose prefix needs care in Turtle (a
// fragment, a slash, a non-ASCII host, a percent-encoding, a quote and
// parentheses).
var vocabBases = []string{
	"", // the default, urn:cortex:default
	"https://example.org/kg#",
	"https://example.org/kg/",
	"https://例え.jp/kg/",
	"http://ex.org/caf%C3%A9/",
	"urn:x:a'b(c)!$&*+,;=",
}

// TestVocab_TurtleReaders: the Turtle WriteVocab writes, for the default
// namespace and for namespaces of odd bases, is read by our Turtle reader
// (rdfio), by rdflib (python3-rdflib) and by the test's own subset reader
// as one graph, which declares exactly the classes and properties of
// NS.Vocab.
func TestVocab_TurtleReaders(t *testing.T) {
	python := rdflibPython(t)
	dir := t.TempDir()
	var files []string
	var ours [][]string
	var nss []namespace.NS
	for i, base := range vocabBases {
		var opts []namespace.Option
		if base != "" {
			opts = append(opts, namespace.WithBase(base))
		}
		ns := mustNew(t, namespace.Default, opts...)
		nss = append(nss, ns)
		var buf bytes.Buffer
		if err := ns.WriteVocab(&buf); err != nil {
			t.Fatal(err)
		}
		qs, err := rdfio.ReadAll(bytes.NewReader(buf.Bytes()), rdfio.Turtle, rdfio.DecodeOptions{})
		if err != nil {
			t.Fatalf("base %q: rdfio reads the vocabulary: %v\n%s", base, err, buf.Bytes())
		}
		got := ntLines(qs)
		subset, err := parseTurtleSubset(buf.String())
		if err != nil {
			t.Fatalf("base %q: the subset reader: %v", base, err)
		}
		if want := subsetLines(subset); !slices.Equal(got, want) {
			t.Errorf("base %q: rdfio and the subset reader disagree:\n%s", base, lineDiff(got, want))
		}
		checkDeclared(t, ns, qs)
		ours = append(ours, got)
		p := filepath.Join(dir, "vocab"+string(rune('a'+i))+".ttl")
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	if python == "" {
		return
	}
	for i, qs := range rdftest.RdflibRead(t, python, "turtle", files) {
		if got := ntLines(qs); !slices.Equal(got, ours[i]) {
			t.Errorf("base %q: rdflib and rdfio disagree:\n%s", nss[i].Base(), lineDiff(got, ours[i]))
		}
	}
}

// checkDeclared fails t unless qs declare (rdf:type rdfs:Class or
// rdf:Property) exactly the IRIs of ns.Vocab, each as its kind.
func checkDeclared(t *testing.T, ns namespace.NS, qs []quad.Quad) {
	t.Helper()
	declared := map[quad.IRI]quad.IRI{}
	for _, q := range qs {
		if q.Predicate == namespace.RDFType && (q.Object == quad.IRI(rdfProperty) || q.Object == quad.IRI(rdfsClassIRI)) {
			declared[q.Subject.(quad.IRI)] = q.Object.(quad.IRI)
		}
	}
	for _, e := range ns.Vocab() {
		want := quad.IRI(rdfProperty)
		if e.Kind == namespace.TermClass {
			want = rdfsClassIRI
		}
		if got := declared[e.IRI]; got != want {
			t.Errorf("base %q: %s declared as %q, want %s", ns.Base(), e.IRI, got, want)
		}
		delete(declared, e.IRI)
	}
	for iri := range declared {
		t.Errorf("base %q: the Turtle declares %s, which Vocab does not have", ns.Base(), iri)
	}
}

// ntLines returns qs as sorted N-Triples lines.
func ntLines(qs []quad.Quad) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = quad.Quad{Subject: q.Subject, Predicate: q.Predicate, Object: q.Object}.NQuad()
	}
	slices.Sort(out)
	return out
}

// subsetLines returns the subset reader's triples as ntLines does.
func subsetLines(ts []ttlTriple) []string {
	term := func(s string) quad.Value {
		if strings.HasPrefix(s, `"`) {
			return quad.String(s[1 : len(s)-1])
		}
		return quad.IRI(s)
	}
	qs := make([]quad.Quad, len(ts))
	for i, tr := range ts {
		qs[i] = quad.Quad{Subject: term(tr.s), Predicate: term(tr.p), Object: term(tr.o)}
	}
	return ntLines(qs)
}

// lineDiff lists the lines of one sorted list that the other lacks.
func lineDiff(got, want []string) string {
	var b strings.Builder
	for _, l := range got {
		if _, ok := slices.BinarySearch(want, l); !ok {
			b.WriteString("+ " + l + "\n")
		}
	}
	for _, l := range want {
		if _, ok := slices.BinarySearch(got, l); !ok {
			b.WriteString("- " + l + "\n")
		}
	}
	return b.String()
}

// rdflibPython returns a python3 that imports rdflib: the one on PATH, or
// Debian's (python3-rdflib installs it for /usr/bin/python3); "" if none,
// which fails t when CORTEX_REQUIRE_CLIENTS is 1 (as rdfio's rdflib tests
// do).
func rdflibPython(t *testing.T) string {
	if p := rdftest.RdflibPython(); p != "" {
		return p
	}
	if os.Getenv("CORTEX_REQUIRE_CLIENTS") == "1" {
		t.Fatal("no python3 imports rdflib (apt-get install python3-rdflib; CORTEX_REQUIRE_CLIENTS=1: rdflib is required)")
	}
	t.Log("no python3 imports rdflib (apt-get install python3-rdflib): the vocabulary is read by rdfio and the subset reader only")
	return ""
}
