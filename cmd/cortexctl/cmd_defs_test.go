package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/spec"
)

var (
	defsExamples = filepath.Join("..", "..", "spec", "testdata", "examples")
	defsLegacy   = filepath.Join(defsExamples, "legacy")
)

// TestDefs_Validate: problems on stdout, every one, and exit 7 on errors;
// warnings alone exit 0; --strict turns unknown keys into errors; --json
// prints the report shape; no store is created.
func TestDefs_Validate(t *testing.T) {
	dir := t.TempDir()
	r := runCLI(t, dir, "", "defs", "validate", defsLegacy)
	if r.code != 0 || !strings.Contains(r.stdout, `warning: /workflow/type: legacy workflow type "sequential": use "chain"`) ||
		!strings.Contains(r.stdout, "3 agents, 2 teams: 0 errors, 5 warnings\n") {
		t.Fatalf("validate legacy: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	bad := writeFile(t, "team.json", `{"name": "t", "version": "1", "agents": ["a"], "colour": "red",
  "workflow": {"type": "council", "steps": [{"name": "s", "agent": "b"}]}}`)
	r = runCLI(t, dir, "", "defs", "validate", bad, "--strict")
	if r.code != exitInvalid {
		t.Fatalf("exit %d, want %d\n%s", r.code, exitInvalid, r.stdout)
	}
	for _, want := range []string{
		`team.json:1: error: /colour: unknown key "colour" in team`,
		`team.json:2: error: /workflow/type: a council needs collaboration.consensus`,
		`team.json:2: error: /workflow/steps/0/agent: step "s": agent "b" is not one of the team's agents`,
		`team.json:1: error: /agents/0: team "t" uses agent "a", which is defined nowhere`,
		"0 agents, 1 team: 4 errors, 0 warnings",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	r = runCLI(t, dir, "", "defs", "validate", bad, "--json")
	var rep api.DefsReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if r.code != exitInvalid || rep.Errors != 3 || rep.Warnings != 1 || len(rep.Teams) != 1 || rep.Problems[0].Line != 1 {
		t.Errorf("--json: exit %d, %+v", r.code, rep)
	}
	if _, err := os.Stat(filepath.Join(dir, "MANIFEST")); err == nil {
		t.Error("validate created a store")
	}
	if r := runCLI(t, dir, "", "defs", "validate", filepath.Join(dir, "missing")); r.code != exitNotFound {
		t.Errorf("missing path: exit %d, want %d", r.code, exitNotFound)
	}
	if r := runCLI(t, dir, "", "defs", "validate"); r.code != exitUsage {
		t.Errorf("no path: exit %d, want %d", r.code, exitUsage)
	}
}

// TestDefs_ImportListGetExportDelete: the store commands, and export →
// import giving the same definition.
func TestDefs_ImportListGetExportDelete(t *testing.T) {
	dir := t.TempDir()
	cortextest.CheckDir(t, dir)
	out := mustCLI(t, dir, "defs", "import", defsLegacy)
	if out != "imported 3 agents and 2 teams into namespace default\n" {
		t.Fatalf("import: %q", out)
	}
	var list []api.DefSummary
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "defs", "list", "--kind", "team", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Name != "release" || list[0].Workflow != "chain" || list[1].Workflow != "crew" {
		t.Errorf("list teams: %+v", list)
	}
	var got api.DefDetail
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "defs", "get", "unit", "--json")), &got); err != nil {
		t.Fatal(err)
	}
	if got.Kind != "agent" || got.Name != "qa/unit" || got.Namespace != "qa" || !strings.Contains(string(got.Definition), `"command": "go test ./..."`) {
		t.Errorf("get unit: %+v", got)
	}
	table := mustCLI(t, dir, "defs", "get", "release")
	if !strings.Contains(table, "step test") || !strings.Contains(table, "unit after plan") {
		t.Errorf("get release:\n%s", table)
	}

	// export → import into another store → export gives the same bytes.
	for _, c := range []struct{ name, format, file string }{{"pm", "md", "pm.md"}, {"qa/unit", "json", "unit.json"}, {"release", "json", "release.json"}} {
		exported := mustCLI(t, dir, "defs", "export", c.name, "--format", c.format)
		other := t.TempDir()
		tmp := t.TempDir()
		files := map[string]string{c.file: exported}
		if c.name == "release" { // its agents, from the first store
			files["pm.md"] = mustCLI(t, dir, "defs", "export", "pm", "--format", "md")
			files["docs.md"] = mustCLI(t, dir, "defs", "export", "docs", "--format", "md")
			files["unit.md"] = mustCLI(t, dir, "defs", "export", "qa/unit", "--format", "md")
		}
		for f, content := range files {
			if err := os.WriteFile(filepath.Join(tmp, f), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		args := []string{"defs", "import"}
		for f := range files {
			args = append(args, filepath.Join(tmp, f))
		}
		mustCLI(t, other, args...)
		if again := mustCLI(t, other, "defs", "export", c.name, "--format", c.format); again != exported {
			t.Errorf("export of %s after export → import differs:\n%s\n---\n%s", c.name, exported, again)
		}
	}

	if r := runCLI(t, dir, "", "defs", "delete", "pm"); r.code != exitConflict || !strings.Contains(r.stderr, `agent "pm" is used by team [release review]`) {
		t.Errorf("delete pm: exit %d %s", r.code, r.stderr)
	}
	if out := mustCLI(t, dir, "defs", "delete", "review"); out != "deleted team review\n" {
		t.Errorf("delete review: %q", out)
	}
	if r := runCLI(t, dir, "", "defs", "get", "review"); r.code != exitNotFound {
		t.Errorf("get deleted: exit %d", r.code)
	}
	if r := runCLI(t, dir, "", "defs", "export", "release", "--format", "md"); r.code != exitUsage {
		t.Errorf("export team as md: exit %d", r.code)
	}
	if r := runCLI(t, dir, "", "defs", "list", "--kind", "robot"); r.code != exitUsage {
		t.Errorf("--kind robot: exit %d", r.code)
	}
}

// TestDefs_ImportInvalidWritesNothing: an invalid directory exits 7, lists
// its problems on stderr and leaves the store without definitions.
func TestDefs_ImportInvalidWritesNothing(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "defs", "import", defsLegacy)
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "x.md"), []byte("---\nname: x\nmodel: gpt\n---\n"), 0o644)
	os.WriteFile(filepath.Join(bad, "y.md"), []byte("---\nname: y\n---\n"), 0o644)
	r := runCLI(t, dir, "", "defs", "import", bad)
	if r.code != exitInvalid || !strings.Contains(r.stderr, `x.md:3: error: /model: "gpt" is not one of haiku, sonnet, opus`) {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if out := mustCLI(t, dir, "defs", "list", "--kind", "agent", "--json"); strings.Contains(out, `"y"`) {
		t.Errorf("y was imported though x was invalid:\n%s", out)
	}
	r = runCLI(t, dir, "", "defs", "import", bad, "--json")
	var rep api.DefsReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != exitInvalid || rep.Errors != 1 || rep.Problems[0].Path != "/model" {
		t.Errorf("import --json: exit %d, %+v, %v\n%s", r.code, rep, err, r.stdout)
	}
}

// TestDefs_JSONFlags: import and delete print their outcome as JSON;
// export --json is --format json, and conflicts with --format md.
func TestDefs_JSONFlags(t *testing.T) {
	dir := t.TempDir()
	var rep api.DefsReport
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "defs", "import", defsLegacy, "--json")), &rep); err != nil || len(rep.Agents) != 3 || rep.Warnings != 5 {
		t.Fatalf("import --json: %+v, %v", rep, err)
	}
	if a, b := mustCLI(t, dir, "defs", "export", "pm", "--json"), mustCLI(t, dir, "defs", "export", "pm", "--format", "json"); a != b || !strings.HasPrefix(a, "{") {
		t.Errorf("export --json:\n%s\n--format json:\n%s", a, b)
	}
	if r := runCLI(t, dir, "", "defs", "export", "pm", "--json", "--format", "md"); r.code != exitUsage {
		t.Errorf("--json --format md: exit %d", r.code)
	}
	var del api.DefSummary
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "defs", "delete", "review", "--json")), &del); err != nil || del.Kind != "team" || del.Name != "review" {
		t.Errorf("delete --json: %+v, %v", del, err)
	}
}

// TestREADME_Definitions runs the README's "Definitions" commands, as
// written, with bash in a fresh directory, and checks what they print.
func TestREADME_Definitions(t *testing.T) {
	data := t.TempDir()
	cortextest.CheckDir(t, data)
	out := runReadmeSection(t, "Definitions", t.TempDir(), data)
	checkEmittedVocabulary(t, data)
	for _, want := range []string{
		"2 agents, 1 team: 0 errors, 0 warnings\n",
		"imported 2 agents and 1 team into namespace default\n",
		"agent  security/scanner",
		"---\nname: scanner\nnamespace: security\n",
		`{"team":{"type":"literal","value":"review"}}`,
		`{"who":{"type":"literal","value":"lead"}}`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the examples' output lacks %q:\n%s", want, out)
		}
	}
}

// TestDefs_ImportIntoAStore: an import into a store that exists (through
// its server in TestCLI_ThroughServer) prints what a first import prints,
// the warnings of a directory's files included (a Markdown file without
// front matter is skipped), and stores nothing when a file is invalid.
func TestDefs_ImportIntoAStore(t *testing.T) {
	dir := t.TempDir()
	first := mustCLI(t, dir, "defs", "import", defsLegacy, "--json")
	if again := mustCLI(t, dir, "defs", "import", defsLegacy, "--json"); again != first {
		t.Fatalf("import again:\n%s\nfirst:\n%s", again, first)
	}
	extra := t.TempDir()
	os.WriteFile(filepath.Join(extra, "notes.md"), []byte("# just notes\n"), 0o644)
	os.WriteFile(filepath.Join(extra, "z.md"), []byte("---\nname: z\n---\n"), 0o644)
	r := runCLI(t, dir, "", "defs", "import", extra)
	if r.code != 0 || !strings.Contains(r.stderr, "notes.md: warning: skipped: no front matter") || r.stdout != "imported 1 agent and 0 teams into namespace default\n" {
		t.Fatalf("import a directory: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	os.WriteFile(filepath.Join(extra, "w.md"), []byte("---\nname: w\nmodel: gpt\n---\n"), 0o644)
	os.WriteFile(filepath.Join(extra, "z.md"), []byte("---\nname: z\ndescription: changed\n---\n"), 0o644)
	if r := runCLI(t, dir, "", "defs", "import", extra); r.code != exitInvalid || !strings.Contains(r.stderr, `w.md:3: error: /model`) {
		t.Fatalf("import an invalid directory: exit %d, stderr %q", r.code, r.stderr)
	}
	r = runCLI(t, dir, "", "defs", "import", extra, "--json")
	var rep api.DefsReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != exitInvalid || rep.Errors != 1 || rep.Warnings != 1 || len(rep.Problems) != 2 {
		t.Fatalf("import an invalid directory --json: exit %d, %+v, %v\n%s", r.code, rep, err, r.stdout)
	}
	if out := mustCLI(t, dir, "defs", "get", "z", "--json"); strings.Contains(out, "changed") {
		t.Fatalf("z changed though w was invalid:\n%s", out)
	}
}

// TestDefs_MalformedNames: a definition NAME that no definition has is not
// found (exit 3); one that none can have (blank, with a control character;
// with --kind agent, an empty, "." or ".." namespace part) is an invalid
// value (exit 7), for get, export and delete alike, and deletes nothing.
func TestDefs_MalformedNames(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "defs", "import", defsLegacy)
	before := mustCLI(t, dir, "defs", "list", "--json")
	const invalid = `: invalid id (no such definition; want `
	for _, verb := range []string{"get", "export", "delete"} {
		for _, tc := range []struct {
			name string
			args []string
			code int
			msg  string
		}{
			{"unknown", []string{"nope"}, exitNotFound, `no such definition "nope"`},
			{"a team name of nothing", []string{"qa//unit"}, exitNotFound, `no such definition "qa//unit"`},
			{"unknown agent", []string{"qa/nope", "--kind", "agent"}, exitNotFound, `no such definition "qa/nope"`},
			{"blank", []string{" "}, exitInvalid, `" "` + invalid + "a name"},
			{"control character", []string{"pm\n"}, exitInvalid, `"pm\n"` + invalid + "a name"},
			{"control character of a team", []string{"rel\x00ease", "--kind", "team"}, exitInvalid, `"rel\x00ease"` + invalid},
			{"empty namespace part", []string{"qa//unit", "--kind", "agent"}, exitInvalid, `"qa//unit"` + invalid + "an agent's name"},
			{"dot namespace", []string{"./unit", "--kind", "agent"}, exitInvalid, `"./unit"` + invalid},
			{"dot-dot namespace part", []string{"qa/../unit", "--kind", "agent"}, exitInvalid, `"qa/../unit"` + invalid},
			{"empty agent name", []string{"qa/", "--kind", "agent"}, exitInvalid, `"qa/"` + invalid},
			// Definitions are read from UTF-8 text: no name is not UTF-8
			// (and JSON cannot carry one to a server).
			{"not UTF-8", []string{"p\xffm"}, exitInvalid, `"p\xffm"` + invalid + "a name"},
			{"not UTF-8 agent namespace", []string{"q\xffa/unit", "--kind", "agent"}, exitInvalid, `"q\xffa/unit"` + invalid + "an agent's name"},
			{"not UTF-8 team", []string{"rel\xffease", "--kind", "team"}, exitInvalid, `"rel\xffease"` + invalid},
		} {
			t.Run(verb+" "+tc.name, func(t *testing.T) {
				r := runCLI(t, dir, "", append([]string{"defs", verb}, tc.args...)...)
				if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
					t.Fatalf("exit %d (want %d), stderr %q (want %q)", r.code, tc.code, r.stderr, tc.msg)
				}
			})
		}
	}
	if after := mustCLI(t, dir, "defs", "list", "--json"); after != before {
		t.Fatalf("refused commands changed the definitions:\n%s\nwas\n%s", after, before)
	}
}

// TestDefs_WorkflowAgentNoDefinitionCanHave: a team file's agent whose
// name no stored agent definition can have ("a//b") runs without one, as
// one that has none does, also through a server (where looking its
// definition up is an invalid id, not a not found).
func TestDefs_WorkflowAgentNoDefinitionCanHave(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "defs", "import", defsLegacy) // the namespace exists
	team := writeFile(t, "tw.json", `{"name": "tw", "version": "1.0.0", "agents": ["a//b"],
 "workflow": {"type": "graph", "steps": [{"name": "s", "agent": "a//b"}]}}`)
	if out := mustCLI(t, dir, "workflows", "run", team); !strings.Contains(out, "(tw, graph, strategy additive): pending") {
		t.Fatalf("workflows run: %q", out)
	}
}

// TestDefs_ImportCheckedFirst: defs import of a path that cannot be read,
// or of an invalid definition, into a store or namespace that does not
// exist yet creates neither (it created them, then failed); paths that
// hold no definition file import nothing, exit 0, through a server too
// (which refused an import of no files: exit 2).
func TestDefs_ImportCheckedFirst(t *testing.T) {
	bad := writeFile(t, "x.md", "---\nname: x\nmodel: gpt\n---\n")
	empty := t.TempDir()
	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--name", "n", "--member", "ann")
	for _, tc := range []struct {
		name string
		path string
		code int
		msg  string
	}{
		{"missing", filepath.Join(empty, "nope.md"), exitNotFound, "no such file or directory"},
		{"invalid", bad, exitInvalid, `/model: "gpt" is not one of haiku, sonnet, opus`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, dir, "", "-n", "fresh", "defs", "import", tc.path)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
				t.Fatalf("exit %d (want %d), stderr %q (want %q)", r.code, tc.code, r.stderr, tc.msg)
			}
			if out := mustCLI(t, dir, "namespaces", "list", "--json"); strings.Contains(out, "fresh") {
				t.Fatalf("the refused import created its namespace: %s", out)
			}
			missing := filepath.Join(t.TempDir(), "missing")
			if r := runCLI(t, missing, "", "defs", "import", tc.path); r.code != tc.code {
				t.Fatalf("without a store: exit %d (want %d): %s", r.code, tc.code, r.stderr)
			}
			if _, err := os.Stat(missing); !os.IsNotExist(err) {
				t.Fatalf("the refused import created %s (%v)", missing, err)
			}
		})
	}
	r := runCLI(t, dir, "", "defs", "import", empty)
	if r.code != 0 || r.stdout != "imported 0 agents and 0 teams into namespace default\n" {
		t.Fatalf("import of a directory without definitions: exit %d, %q, %q", r.code, r.stdout, r.stderr)
	}
	// A valid import creates the namespace.
	mustCLI(t, dir, "-n", "fresh", "defs", "import", defsLegacy)
	if out := mustCLI(t, dir, "namespaces", "list", "--json"); !strings.Contains(out, "fresh") {
		t.Fatalf("a valid import did not create its namespace: %s", out)
	}
}

// TestDefs_UnreadableFileReport: a file that is no definition file to read
// (larger than 16 MiB; a FIFO would block) is an error of that file, which
// defs validate and defs import report as any other problem: exit 7 and,
// with --json, the report with that error. validate --json printed
// nothing, and import --json printed a report of 0 errors.
func TestDefs_UnreadableFileReport(t *testing.T) {
	big := writeFile(t, "big.json", strings.Repeat(" ", spec.MaxFileSize+1))
	dir := t.TempDir()
	for _, cmd := range []string{"validate", "import"} {
		r := runCLI(t, dir, "", "defs", cmd, big, "--json")
		var rep api.DefsReport
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != exitInvalid || rep.Errors != 1 ||
			len(rep.Problems) != 1 || rep.Problems[0].File != big || !strings.Contains(rep.Problems[0].Message, "larger than") {
			t.Errorf("defs %s --json: exit %d, %+v, %v\n%s%s", cmd, r.code, rep, err, r.stdout, r.stderr)
		}
	}
	r := runCLI(t, dir, "", "defs", "validate", big)
	if r.code != exitInvalid || !strings.Contains(r.stdout, "big.json: error: file of") || !strings.Contains(r.stdout, "0 agents, 0 teams: 1 error, 0 warnings") {
		t.Errorf("defs validate: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "MANIFEST")); err == nil {
		t.Error("a refused import created a store")
	}
}

// TestDefs_ImportNotUTF8: a definition file that is not UTF-8 is a syntax
// error at its line, reported with every other problem, as defs validate
// reports it; nothing is imported and no namespace is created, through a
// server too (JSON cannot carry the file: the client checks the import
// itself, with the agents the namespace holds known, and sends nothing).
func TestDefs_ImportNotUTF8(t *testing.T) {
	dir := t.TempDir()
	crew := filepath.Join("..", "..", "fixtures", "led", "crew")
	mustCLI(t, dir, "defs", "import", filepath.Join(crew, "agents"))
	team, err := os.ReadFile(filepath.Join(crew, "team.json"))
	if err != nil {
		t.Fatal(err)
	}
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "team.json"), team, 0o644) // names the stored agents
	os.WriteFile(filepath.Join(bad, "z.md"), []byte("---\nname: z\ndescription: d\n---\nbody \xff\n"), 0o644)
	r := runCLI(t, dir, "", "defs", "import", bad)
	if r.code != exitInvalid || !strings.Contains(r.stderr, "z.md:5: error: syntax error: not valid utf-8\n") ||
		!strings.Contains(r.stderr, "cortexctl: import definitions: invalid definition: ") || strings.Contains(r.stderr, "team.json") {
		t.Errorf("defs import: exit %d\n%s", r.code, r.stderr)
	}
	r = runCLI(t, dir, "", "defs", "import", bad, "--json")
	var rep api.DefsReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != exitInvalid || rep.Errors != 1 || len(rep.Problems) != 1 ||
		rep.Problems[0].Line != 5 || rep.Problems[0].Message != "syntax error: not valid utf-8" {
		t.Errorf("defs import --json: exit %d, %+v, %v\n%s%s", r.code, rep, err, r.stdout, r.stderr)
	}
	if out := mustCLI(t, dir, "defs", "list"); strings.Contains(out, "api-crew") {
		t.Errorf("the team was imported with a file that is not UTF-8:\n%s", out)
	}
	// A namespace that does not exist: the team's agents are unknown there.
	r = runCLI(t, dir, "", "-n", "fresh", "defs", "import", bad, "--json")
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != exitInvalid || rep.Errors < 2 ||
		!strings.Contains(r.stdout, "syntax error: not valid utf-8") {
		t.Errorf("-n fresh defs import --json: exit %d, %+v, %v\n%s%s", r.code, rep, err, r.stdout, r.stderr)
	}
	if out := mustCLI(t, dir, "namespaces", "list"); strings.Contains(out, "fresh") {
		t.Errorf("a refused import created namespace fresh:\n%s", out)
	}
}

// TestCLI_DefsDeleteNameEscaped: defs delete names the definition deleted
// on one line of printable text: a name may hold a bidirectional
// formatting character (it has no control character), which was written
// raw and reordered the rest of the line.
func TestCLI_DefsDeleteNameEscaped(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "defs", "import", writeFile(t, "a.md", "---\nname: \"a\\u202eb\"\ndescription: d\n---\nbody\n"))
	r := runCLI(t, dir, "", "defs", "delete", "a\u202eb")
	if why := safeLines(r.stdout, 1); why != "" || r.code != 0 || r.stdout != "deleted agent a\\u202eb\n" {
		t.Fatalf("exit %d, stdout %s:\n%q\n%s", r.code, why, r.stdout, r.stderr)
	}
}

// TestDefs_ManyProblemsCounted: a file with more problems than a report
// lists (spec.MaxProblems) is counted whole, in the message, the summary
// and the JSON report, in both modes. The count said "1000 errors" for
// 1,007, and through a server it was recounted from the problems listed.
func TestDefs_ManyProblemsCounted(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "defs", "import", defsLegacy)                                       // the namespace exists: import checks against it
	file := writeFile(t, "a.json", `{"name": "x"`+strings.Repeat(`, "k": 1`, 1008)+`}`) // 1 unknown key, 1,007 duplicates
	r := runCLI(t, dir, "", "defs", "import", file)
	if r.code != exitInvalid || !strings.Contains(r.stderr, "1007 errors, the first: ") {
		t.Fatalf("import: exit %d\n%s", r.code, r.stderr)
	}
	r = runCLI(t, dir, "", "defs", "import", file, "--json")
	var rep api.DefsReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != exitInvalid || rep.Errors != 1007 || rep.Warnings != 1 {
		t.Fatalf("import --json: exit %d, %d errors, %d warnings, %v\n%.300s", r.code, rep.Errors, rep.Warnings, err, r.stderr)
	}
	if last := rep.Problems[len(rep.Problems)-1]; last.LeftOutErrors != 8 {
		t.Errorf("the last problem %+v, want it to count 8 errors left out", last)
	}
}
