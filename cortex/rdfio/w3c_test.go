package rdfio_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/cortex/rdfio/rdftest"
)

// w3cSkip lists conformance tests we do not run, each with the reason.
var w3cSkip = map[string]string{}

const (
	rdfType = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
	mfNS    = "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#"
	rdftNS  = "http://www.w3.org/ns/rdftest#"
)

// w3cDir finds ../shared/w3c/rdf/rdf11 relative to the repository root.
func w3cDir(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			suite := filepath.Join(dir, "..", "shared", "w3c", "rdf", "rdf11")
			if _, err := os.Stat(suite); err != nil {
				t.Skipf("W3C RDF test suites not found at %s (test data of github.com/w3c/rdf-tests, see README, Layout): skipped", suite)
			}
			return suite
		}
		if filepath.Dir(dir) == dir {
			t.Skip("repository root (go.mod) not found: W3C RDF test suites (github.com/w3c/rdf-tests, see README, Layout) skipped")
		}
	}
}

type w3cTest struct {
	name, typ, action, result string
}

func readManifest(t *testing.T, dir string) (tests []w3cTest, assumedBase string) {
	t.Helper()
	path := filepath.Join(dir, "manifest.ttl")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	qs, err := rdfio.ReadAll(f, rdfio.Turtle, rdfio.DecodeOptions{File: path})
	if err != nil {
		t.Fatalf("manifest: %v", err)
	}
	props := map[quad.Value]map[string]quad.Value{}
	for _, q := range qs {
		p := string(q.Predicate.(quad.IRI))
		if p == mfNS+"assumedTestBase" {
			assumedBase = string(q.Object.(quad.IRI))
		}
		if props[q.Subject] == nil {
			props[q.Subject] = map[string]quad.Value{}
		}
		props[q.Subject][p] = q.Object
	}
	for _, m := range props {
		typ, ok := m[rdfType].(quad.IRI)
		if !ok || !strings.HasPrefix(string(typ), rdftNS+"Test") {
			continue
		}
		tt := w3cTest{typ: strings.TrimPrefix(string(typ), rdftNS)}
		if n, ok := m[mfNS+"name"].(quad.String); ok {
			tt.name = string(n)
		}
		if a, ok := m[mfNS+"action"].(quad.IRI); ok {
			tt.action = string(a)
		}
		if r, ok := m[mfNS+"result"].(quad.IRI); ok {
			tt.result = string(r)
		}
		tests = append(tests, tt)
	}
	sort.Slice(tests, func(i, j int) bool { return tests[i].name < tests[j].name })
	return tests, assumedBase
}

func localPath(dir, iri string) string {
	return filepath.Join(dir, filepath.Base(iri))
}

func readFile(path, format, base string) ([]quad.Quad, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return rdfio.ReadAll(f, format, rdfio.DecodeOptions{File: path, Base: base})
}

func runW3C(t *testing.T, suite string) {
	dir := filepath.Join(w3cDir(t), suite)
	tests, assumedBase := readManifest(t, dir)
	if len(tests) == 0 {
		t.Fatalf("no tests in %s", dir)
	}
	passed, failed, skipped := 0, 0, 0
	for _, tc := range tests {
		ok := t.Run(tc.name, func(t *testing.T) {
			if reason, skip := w3cSkip[tc.name]; skip {
				skipped++
				t.Skip(reason)
			}
			action := localPath(dir, tc.action)
			format := rdfio.Turtle
			switch filepath.Ext(action) {
			case ".nt":
				format = rdfio.NTriples
			case ".nq":
				format = rdfio.NQuads
			}
			base := ""
			if assumedBase != "" {
				base = assumedBase + filepath.Base(action)
			}
			got, err := readFile(action, format, base)
			switch {
			case strings.HasSuffix(tc.typ, "NegativeSyntax") || strings.HasSuffix(tc.typ, "NegativeEval"):
				if err == nil {
					t.Fatalf("%s: accepted malformed input (%d quads)", action, len(got))
				}
				t.Logf("rejected: %v", err)
			case strings.HasSuffix(tc.typ, "PositiveSyntax"):
				if err != nil {
					t.Fatalf("rejected valid input: %v", err)
				}
			case strings.HasSuffix(tc.typ, "Eval"):
				if err != nil {
					t.Fatalf("rejected valid input: %v", err)
				}
				want, err := readFile(localPath(dir, tc.result), rdfio.NQuads, "")
				if err != nil {
					t.Fatalf("expected result: %v", err)
				}
				if !rdftest.Isomorphic(got, want) {
					onlyGot, onlyWant := rdftest.Diff(got, want)
					t.Fatalf("graphs differ\nonly in result:\n%s\nonly in expected:\n%s",
						strings.Join(onlyGot, "\n"), strings.Join(onlyWant, "\n"))
				}
			default:
				skipped++
				t.Skipf("unknown test type %s", tc.typ)
			}
		})
		if ok {
			passed++
		} else {
			failed++
		}
	}
	passed -= skipped
	t.Logf("W3C %s: %d passed, %d failed, %d skipped of %d", suite, passed, failed, skipped, len(tests))
}

func TestW3C_NTriples(t *testing.T) { runW3C(t, "rdf-n-triples") }
func TestW3C_NQuads(t *testing.T)   { runW3C(t, "rdf-n-quads") }
func TestW3C_Turtle(t *testing.T)   { runW3C(t, "rdf-turtle") }
