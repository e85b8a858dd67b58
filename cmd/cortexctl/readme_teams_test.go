package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/config"
	"github.com/cortexgraph/cortex/cortex/cortextest"
)

// readmeSectionBlocks returns every fenced block of language lang in the
// README's section "## heading" (its ### subsections included), in order.
func readmeSectionBlocks(t *testing.T, heading, lang string) []string {
	t.Helper()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no %q section", heading)
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	var blocks []string
	for {
		_, rest, ok := strings.Cut(section, "\n```"+lang+"\n")
		if !ok {
			break
		}
		block, after, _ := strings.Cut(rest, "\n```\n")
		blocks = append(blocks, block+"\n")
		section = "\n" + after
	}
	if len(blocks) == 0 {
		t.Fatalf("no %s block in the README's %q section", lang, heading)
	}
	return blocks
}

// runReadmeBlock runs block with bash (set -e: a failing command fails t)
// in directory work, with the cortexctl binary on PATH and the store in
// data, and returns what it printed.
func runReadmeBlock(t *testing.T, what, block, work, data string) string {
	t.Helper()
	cmd := exec.Command("bash", "-c", "set -e\n"+block)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "CORTEX_DATA="+data,
		"PATH="+filepath.Dir(buildCLI(t))+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the README's %s failed: %v\n%s", what, err, out)
	}
	return string(out)
}

func wantOutput(t *testing.T, what, out string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("the output of the README's %s lacks %q:\n%s", what, want, out)
		}
	}
}

// TestREADME_Tour runs the commands of the README's "A short tour of
// cortexctl", as written, in a directory holding the files they name
// (data.ttl, other.nq, a.nt, q.rq) and on a store that has the namespaces
// they name (acme, scratch), and checks what they print.
func TestREADME_Tour(t *testing.T) {
	work, data := t.TempDir(), t.TempDir()
	for name, content := range map[string]string{
		"data.ttl": "@prefix ex: <http://example.org/> .\nex:a ex:p ex:b ; ex:q \"x\" .\n",
		"other.nq": "<http://example.org/c> <http://example.org/p> \"y\" <http://example.org/g2> .\n",
		"a.nt":     "<http://example.org/d> <http://example.org/p> \"z\" .\n",
		"q.rq":     "SELECT * WHERE { ?s ?p ?o } LIMIT 2\n",
	} {
		if err := os.WriteFile(filepath.Join(work, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, ns := range []string{"acme", "scratch"} {
		mustCLI(t, data, "-n", ns, "import", filepath.Join(work, "a.nt"))
	}
	blocks := readmeSectionBlocks(t, "A short tour of cortexctl", "sh")
	out := runReadmeBlock(t, "tour", blocks[0], work, data)
	wantOutput(t, "tour", out,
		"imported 2 quads from data.ttl", "imported 1 quad from other.nq", "imported 1 quad from a.nt",
		"      1  <http://example.org/g1>\n", `"graph": null,`,
		"exported 2 quads to default.ttl (turtle)",
		"namespace:   acme\nquads:       1\n",
		"acme     urn:cortex:acme     1\n", "deleted namespace scratch\n",
		`{"head":{"vars":["s","n"]},`, `{"head":{"vars":["s","p","o"]},`,
		"cortexctl import - load RDF files")
	if got, err := os.ReadFile(filepath.Join(work, "default.ttl")); err != nil || !strings.Contains(string(got), `<http://example.org/q> "x" .`) {
		t.Errorf("default.ttl: %q, %v", got, err)
	}
	if out := mustCLI(t, data, "namespaces", "list"); strings.Contains(out, "scratch") {
		t.Errorf("namespaces list after the tour:\n%s", out)
	}
}

// TestREADME_Teams runs the sh blocks of the README's "Teams" section, as
// written but for CONFLICT, which stands for the id that conflicts list
// printed: the commands "by hand" in a directory holding findings.ttl and
// findings.jsonl of the formats the section gives, then the snapshot
// commands on a team TEAM of a store of their own. It checks what they
// print.
func TestREADME_Teams(t *testing.T) {
	blocks := readmeSectionBlocks(t, "Teams", "sh")
	if len(blocks) != 2 {
		t.Fatalf("the README's Teams section has %d sh blocks, want 2 (by hand, snapshots)", len(blocks))
	}
	work := t.TempDir()
	fixtures, err := filepath.Abs("../../fixtures")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(fixtures, filepath.Join(work, "fixtures")); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		"findings.ttl": "<https://ex.org/pool.go> <http://www.w3.org/2000/01/rdf-schema#label> \"pool\" .\n",
		"findings.jsonl": `{"subject": "<https://ex.org/pool.go>", "predicate": "rdfs:comment", "object": "\"leaks\"",` +
			` "confidence": 0.8, "assertedAt": "2026-01-02T15:04:05Z"}` + "\n",
	} {
		if err := os.WriteFile(filepath.Join(work, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const conflict = `"$(cortexctl conflicts list TEAM --json | sed -n 's/^    "id": "\(c[0-9a-f]*\)",$/\1/p')"`
	byHand := strings.ReplaceAll(blocks[0], " CONFLICT ", " "+conflict+" ")
	if byHand == blocks[0] {
		t.Fatal("the README's Teams commands resolve no CONFLICT")
	}
	data := t.TempDir()
	cortextest.CheckDir(t, data)
	out := runReadmeBlock(t, "Teams commands", byHand, work, data)
	checkEmittedVocabulary(t, data)
	wantOutput(t, "Teams commands", out,
		`"id": "TEAM",`, `created team release-vote`,
		"team TEAM is paused\nteam TEAM is active\n",
		"imported 1 finding from findings.ttl\n", "imported 1 finding from findings.jsonl\n",
		"member alice: completed; team TEAM: completed\nmerged with majority-wins: 2 topics, 1 fact kept, 1 conflict",
		`"unchanged": true,`, `"object": "\"pool\"",`, `"reason": "no-majority",`,
		"; merged with majority-wins: 2 topics, 2 facts kept, 0 conflicts",
		"team release-vote is disbanded\n", "deleted team TEAM\n",
		"additive\nconfidence-weighted\nconflict-flag\nconsensus\nmajority-wins\nnewest-wins\nreplace\n")

	snaps := t.TempDir()
	cortextest.CheckDir(t, snaps)
	mustCLI(t, snaps, "teams", "create", "--id", "TEAM", "--name", "t", "--member", "a")
	out = runReadmeBlock(t, "snapshot commands", blocks[1], work, snaps)
	wantOutput(t, "snapshot commands", out,
		"snapshot S1 of team TEAM: ", "before the run\n",
		"team TEAM is as snapshot S1: nothing to restore\n", "snapshot S1 of team TEAM deleted\n")
}

// TestREADME_TeamsSPARQL runs the SPARQL queries of the README's "Teams"
// section after the demo, as the section says (cortexctl -n demo query),
// and checks their answers.
func TestREADME_TeamsSPARQL(t *testing.T) {
	blocks := readmeSectionBlocks(t, "Teams", "sparql")
	if len(blocks) != 2 {
		t.Fatalf("the README's Teams section has %d sparql blocks, want 2", len(blocks))
	}
	dir := t.TempDir()
	mustCLI(t, dir, "demo")
	for i, want := range []string{
		"label,agent\r\n" +
			"connections leak when Acquire is cancelled,urn:cortex:demo:agent:alice\r\n" +
			"connections leak when Acquire is cancelled,urn:cortex:demo:agent:bob\r\n",
		"team,open\r\nurn:cortex:demo:team:code-review,3\r\n",
	} {
		if got := mustCLI(t, dir, "-n", "demo", "query", "--format", "csv", blocks[i]); got != want {
			t.Errorf("the README's query\n%s\nanswered\n%s\nwant\n%s", blocks[i], got, want)
		}
	}
	// A resolved conflict is no longer open.
	var open []struct{ ID string }
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "-n", "demo", "conflicts", "list", "code-review", "--open", "--json")), &open); err != nil || len(open) != 3 {
		t.Fatalf("conflicts list --open: %v, %v", open, err)
	}
	mustCLI(t, dir, "-n", "demo", "conflicts", "resolve", "code-review", open[0].ID, "--object", `"x"`, "--by", "you")
	if got := mustCLI(t, dir, "-n", "demo", "query", "--format", "csv", blocks[1]); got != "team,open\r\nurn:cortex:demo:team:code-review,2\r\n" {
		t.Errorf("the README's open conflicts after a resolution:\n%s", got)
	}
	checkEmittedVocabulary(t, dir)
}

// TestREADME_Configuration reads the README's config example as the
// config file: it parses, its teams values are the defaults its comments
// say, and a namespace it names records its base and queries with its
// prefixes.
func TestREADME_Configuration(t *testing.T) {
	blocks := readmeSectionBlocks(t, "Configuration", "json5")
	c, err := config.Parse([]byte(blocks[0]))
	if err != nil {
		t.Fatalf("the README's config example: %v\n%s", err, blocks[0])
	}
	if c.Teams != config.Default().Teams {
		t.Errorf("the README's config example says it gives the defaults: %+v, want %+v", c.Teams, config.Default().Teams)
	}
	file := writeFile(t, "cortex.json5", blocks[0])
	nt := writeFile(t, "a.nt", "<http://example.org/a> <http://example.org/p> \"1\" .\n")
	dir := t.TempDir()
	mustCLI(t, dir, "--config", file, "-n", "acme", "import", nt)
	if out := mustCLI(t, dir, "--config", file, "namespaces", "list"); !strings.Contains(out, "acme  https://acme.example/kg  1\n") {
		t.Errorf("namespaces list:\n%s", out)
	}
	if out := mustCLI(t, dir, "--config", file, "-n", "acme", "query", "--format", "csv", "SELECT ?s WHERE { ?s ex:p ?o }"); out != "s\r\nhttp://example.org/a\r\n" {
		t.Errorf("query with the ex: prefix: %q", out)
	}
}
