package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/cortex/rdfio/rdftest"
	"github.com/cortexgraph/cortex/cortex/sparql/results"
)

// requireClientsEnv, set to 1 (as .ci/run does), makes the third-party
// client tests fail instead of skipping when a client is not installed.
const requireClientsEnv = "CORTEX_REQUIRE_CLIENTS"

// thirdPartyDir holds the third-party clients' scripts and Comunica's
// package.json (npm ci installs it there).
var thirdPartyDir = filepath.Join("testdata", "thirdparty")

// benchDir is ../shared/bench beside the repository.
var benchDir = filepath.Join("..", "..", "..", "shared", "bench")

// missingClient skips the test, saying what is missing, or fails it when
// requireClientsEnv is set.
func missingClient(t *testing.T, format string, a ...any) {
	t.Helper()
	if os.Getenv(requireClientsEnv) == "1" {
		t.Fatalf(format+" (%s=1: the client is required)", append(a, requireClientsEnv)...)
	}
	t.Skipf(format+" (set %s=1 to make this a failure)", append(a, requireClientsEnv)...)
}

// rdflibPython returns a python3 that imports rdflib: the one on PATH, or
// Debian's (python3-rdflib installs it for /usr/bin/python3).
func rdflibPython() string {
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import rdflib.plugins.stores.sparqlstore").Run() == nil {
			return p
		}
	}
	return ""
}

// TestThirdParty_SPARQLClients runs real third-party SPARQL clients
// against `cortexctl serve`: Python's rdflib SPARQLStore (python3-rdflib)
// and Comunica (@comunica/query-sparql, installed by npm ci in
// testdata/thirdparty). Each answers the team queries of
// ../shared/bench/queries over gen_teams.py data with the same results as
// cortexctl query.
func TestThirdParty_SPARQLClients(t *testing.T) {
	python := rdflibPython()
	clients := []struct {
		name    string
		missing string // why it cannot run, or ""
		cmd     func(endpoint, query string) *exec.Cmd
	}{
		{"rdflib", "", func(endpoint, query string) *exec.Cmd {
			return exec.Command(python, filepath.Join(thirdPartyDir, "rdflib_query.py"), endpoint, query)
		}},
		{"comunica", "", func(endpoint, query string) *exec.Cmd {
			return exec.Command("node", filepath.Join(thirdPartyDir, "comunica_query.mjs"), endpoint, query)
		}},
	}
	if python == "" {
		clients[0].missing = "no python3 imports rdflib (apt-get install python3-rdflib)"
	}
	if _, err := exec.LookPath("node"); err != nil {
		clients[1].missing = "no node on PATH (apt-get install nodejs npm)"
	} else if _, err := os.Stat(filepath.Join(thirdPartyDir, "node_modules", "@comunica", "query-sparql")); err != nil {
		clients[1].missing = "Comunica is not installed (cd cmd/cortexctl/testdata/thirdparty && npm ci)"
	}

	queries, err := filepath.Glob(filepath.Join(benchDir, "queries", "*.rq"))
	if err != nil || len(queries) == 0 {
		t.Fatalf("no team queries in %s: ../shared must be beside the repository (%v)", benchDir, err)
	}
	dir := t.TempDir()
	data := filepath.Join(t.TempDir(), "teams.nq")
	gen := exec.Command("python3", filepath.Join(benchDir, "gen_teams.py"), "--teams", "3", "--findings", "40", "--seed", "1", "--format", "nq", "--out", data)
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("gen_teams.py: %v\n%s", err, out)
	}
	mustCLI(t, dir, "-n", "bench", "import", data)
	want := map[string]*results.Result{}
	for _, q := range queries {
		r, err := results.ReadJSON(strings.NewReader(mustCLI(t, dir, "-n", "bench", "query", "--format", "json", "--file", q)))
		if err != nil {
			t.Fatalf("%s: cortexctl query: %v", q, err)
		}
		if len(r.Rows) == 0 {
			t.Fatalf("%s: no solutions: the data does not exercise it", q)
		}
		want[q] = r
	}

	s := startServe(t, dir, "--listen", "127.0.0.1:0", "--socket", "")
	endpoint := "http://" + s.disc.Address + "/ns/bench/sparql"
	for _, c := range clients {
		t.Run(c.name, func(t *testing.T) {
			if c.missing != "" {
				missingClient(t, "%s: %s", c.name, c.missing)
			}
			for _, q := range queries {
				t.Run(filepath.Base(q), func(t *testing.T) {
					var stdout, stderr bytes.Buffer
					cmd := c.cmd(endpoint, q)
					cmd.Stdout, cmd.Stderr = &stdout, &stderr
					if err := cmd.Run(); err != nil {
						t.Fatalf("%s: %v\n%s", c.name, err, stderr.String())
					}
					got, err := results.ReadJSON(&stdout)
					if err != nil {
						t.Fatalf("%s printed no SPARQL JSON results: %v\n%s", c.name, err, stderr.String())
					}
					// rdflib writes numbers in their canonical form
					// ("0.90"^^xsd:decimal as "0.9").
					eq := results.EquivalenceOptions{NumbersByValue: true}
					text, err := os.ReadFile(q)
					if err != nil {
						t.Fatal(err)
					}
					if !eq.Equivalent(got, want[q], strings.Contains(string(text), "ORDER BY")) {
						t.Errorf("%s: %d rows, cortexctl query: %d\n%s: %v\ncortexctl: %v", c.name, len(got.Rows), len(want[q].Rows),
							c.name, got.Rows[:min(3, len(got.Rows))], want[q].Rows[:min(3, len(want[q].Rows))])
					}
				})
			}
		})
	}
}

// TestThirdParty_RdflibConstruct runs CONSTRUCT and DESCRIBE queries with
// rdflib's SPARQLStore (python3-rdflib) against `cortexctl serve`: it asks
// for application/rdf+xml, which the server writes, and must read the same
// graph as cortexctl query prints (as N-Triples).
func TestThirdParty_RdflibConstruct(t *testing.T) {
	python := rdflibPython()
	if python == "" {
		missingClient(t, "rdflib: no python3 imports rdflib (apt-get install python3-rdflib)")
	}
	dir := t.TempDir()
	mustCLI(t, dir, "-n", "rx", "import", writeFile(t, "d.ttl", `@prefix ex: <http://example.org/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
ex:alice a ex:Person ; ex:name "Alice & <Bob>" , "Alicia"@es ; ex:age "030"^^xsd:integer ;
	ex:knows [ ex:name "anon" ; ex:note "tab\there\r\nand a new line" ] ;
	<http://example.org/vocab#rank-1.0> "0.90"^^xsd:decimal ; ex:home <http://example.org/a?b=1&c=2> .
ex:bob ex:name "Bob" ; ex:age 25 .
`))
	queries := map[string]string{
		"construct": `CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }`,
		"template":  `PREFIX ex: <http://example.org/> CONSTRUCT { ?s ex:label ?n ; ex:self _:me . _:me ex:of ?s } WHERE { ?s ex:name ?n }`,
		"describe":  `DESCRIBE <http://example.org/alice>`,
	}
	want := map[string][]quad.Quad{}
	for name, q := range queries {
		out := mustCLI(t, dir, "-n", "rx", "query", q)
		qs, err := rdfio.ReadAll(strings.NewReader(out), rdfio.NTriples, rdfio.DecodeOptions{})
		if err != nil || len(qs) == 0 {
			t.Fatalf("%s: cortexctl query printed %d triples (%v):\n%s", name, len(qs), err, out)
		}
		want[name] = qs
	}
	s := startServe(t, dir, "--listen", "127.0.0.1:0", "--socket", "")
	endpoint := "http://" + s.disc.Address + "/ns/rx/sparql"
	for name, q := range queries {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(python, filepath.Join(thirdPartyDir, "rdflib_construct.py"), endpoint, writeFile(t, name+".rq", q))
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("rdflib: %v\n%s", err, stderr.String())
			}
			got, err := rdfio.ReadAll(&stdout, rdfio.NTriples, rdfio.DecodeOptions{})
			if err != nil {
				t.Fatalf("rdflib printed no N-Triples: %v\n%s", err, stdout.String())
			}
			if !rdftest.Isomorphic(got, want[name]) {
				a, b := rdftest.Diff(got, want[name])
				t.Errorf("rdflib read another graph than cortexctl query prints:\nonly rdflib: %v\nonly cortexctl: %v", a, b)
			}
		})
	}
}
