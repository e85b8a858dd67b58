package spec_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/spec"
)

// roundTripAgent marshals a in format, parses it back and fails unless the
// result equals a and parses without errors.
func roundTripAgent(t testing.TB, a *spec.Agent, format string) {
	t.Helper()
	data, err := spec.MarshalAgent(a, format)
	if err != nil {
		t.Fatalf("marshal %s: %v", format, err)
	}
	got, rep := spec.ParseAgent("export."+format, data, spec.Options{Strict: true})
	if rep.Errors() > 0 || legacyWarnings(rep) {
		t.Fatalf("re-parse %s: %v\n%s", format, rep.Problems, data)
	}
	if !reflect.DeepEqual(got, a) {
		t.Fatalf("%s round trip changed the agent:\n got %#v\nwant %#v\n%s", format, got, a, data)
	}
}

func roundTripTeam(t testing.TB, tm *spec.Team) {
	t.Helper()
	data, err := spec.MarshalTeam(tm, spec.FormatJSON)
	if err != nil {
		t.Fatal(err)
	}
	got, rep := spec.ParseTeam("export.json", data, spec.Options{Strict: true})
	if rep.Errors() > 0 || legacyWarnings(rep) {
		t.Fatalf("re-parse: %v\n%s", rep.Problems, data)
	}
	if !reflect.DeepEqual(got, tm) {
		t.Fatalf("round trip changed the team:\n got %#v\nwant %#v\n%s", got, tm, data)
	}
}

// legacyWarnings reports whether rep warns of a legacy form: what Marshal
// writes is always the modern form.
func legacyWarnings(rep spec.Report) bool {
	for _, p := range rep.Problems {
		if strings.HasPrefix(p.Message, "legacy") {
			return true
		}
	}
	return false
}

// TestRoundTrip_Examples: every example definition marshals (agents as
// JSON and Markdown, teams as JSON) and parses back to the same value.
func TestRoundTrip_Examples(t *testing.T) {
	set, _, err := spec.Load([]string{filepath.Join("testdata", "examples")}, spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Agents()) < 10 || len(set.Teams()) < 9 {
		t.Fatalf("%d agents, %d teams", len(set.Agents()), len(set.Teams()))
	}
	for _, a := range set.Agents() {
		roundTripAgent(t, a, spec.FormatJSON)
		roundTripAgent(t, a, spec.FormatMarkdown)
	}
	for _, tm := range set.Teams() {
		roundTripTeam(t, tm)
	}
}

// TestRoundTrip_Values: values that need care in each format (defaults
// written explicitly, false and zero pointers, free-form port values,
// instructions with surrounding white space, hostile strings).
func TestRoundTrip_Values(t *testing.T) {
	f, tr, zero, one := false, true, 0.0, 1
	a := &spec.Agent{
		Name: "x", Namespace: "a/b", Model: spec.ModelOpus, Tools: []string{"Read", "review_pr"},
		Instructions: "  starts with spaces\n---\nends with a newline\n",
		Tasks:        []spec.Task{{ID: "t", Required: &f, ExpectedOutput: "ok: yes", HumanInLoop: "- a\n- b"}, {ID: "u", Required: &tr, Type: spec.TaskPattern, Pattern: `"\s+'`}},
		Role:         "null", Goal: "123", Backstory: "---",
		Delegation: &spec.Delegation{},
	}
	roundTripAgent(t, a, spec.FormatJSON)
	roundTripAgent(t, a, spec.FormatMarkdown)
	a.Instructions = "# Body\n\ntext"
	roundTripAgent(t, a, spec.FormatMarkdown)

	tm := &spec.Team{
		Name: "t", Version: "1.0", Agents: []string{"x"},
		Workflow: &spec.Workflow{Type: spec.WorkflowGraph, Steps: []spec.Step{
			{Name: "p", Agent: "x", Outputs: []spec.Port{{Name: "o", Type: spec.PortObject, Schema: map[string]interface{}{"type": "object"}}}},
			{Name: "s", Agent: "x", DependsOn: []string{"p"}, Inputs: []spec.Port{{Name: "i", From: "p.o", Required: &f, Default: false}, {Name: "j", Default: []interface{}{1.5, "x", nil}}}},
		}},
		Collaboration: &spec.Collaboration{Consensus: &spec.Consensus{RequiredAgreement: &zero, MaxRounds: &one, TieBreaker: "x"}},
	}
	roundTripTeam(t, tm)
}

// TestMarshal_Markdown shows the Markdown form: front matter, then the
// instructions as the body.
func TestMarshal_Markdown(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "examples", "spec", "agents", "frontend.md"))
	if err != nil {
		t.Fatal(err)
	}
	a, rep := spec.ParseAgent("frontend.md", data, spec.Options{})
	if rep.Err() != nil {
		t.Fatal(rep.Err())
	}
	out, err := spec.MarshalAgent(a, spec.FormatMarkdown)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "frontend.md.golden", out)
	if _, err := spec.MarshalAgent(a, "xml"); err == nil || !strings.Contains(err.Error(), "unknown definition format") {
		t.Errorf("MarshalAgent(xml) = %v", err)
	}
	if _, err := spec.MarshalTeam(&spec.Team{Name: "t"}, spec.FormatMarkdown); err == nil {
		t.Error("MarshalTeam(md) succeeded")
	}
}

// TestParse_UnknownFormatNamesFileOnce: a file whose extension is no
// definition format is one problem of that file, whose message names the
// extension (the problem names the file: "x.txt: error: x.txt: ..." said
// it twice).
func TestParse_UnknownFormatNamesFileOnce(t *testing.T) {
	_, rep := spec.Parse("defs/x.txt", []byte("{}"), spec.Options{})
	if len(rep.Problems) != 1 {
		t.Fatalf("problems: %+v", rep.Problems)
	}
	p := rep.Problems[0]
	if p.File != "defs/x.txt" || p.Message != `unknown definition format ".txt" (want .md, .json, .json5, .yaml or .yml)` {
		t.Fatalf("problem %+v", p)
	}
}

// TestRoundTrip_MarkdownMultiLineStrings: a multi-line string that starts
// with white space (a newline, a tab, U+2028) survives the Markdown form.
// yaml.v3 wrote such strings as literal blocks that lost the leading
// newline ("\n0\n" came back "0\n") or that its own parser refused (a tab
// where indentation is expected), so `defs export --format md` wrote files
// that did not import, or imported changed.
func TestRoundTrip_MarkdownMultiLineStrings(t *testing.T) {
	for _, s := range []string{"\n0\n", "\nx", "\n\nx", "\tx\ny", "\t\n\n", "\u2028x\n", "\u2028\nyes", " x\n\ty", "\u00a0\nx", "\ufeff\nx"} {
		t.Run(fmt.Sprintf("%q", s), func(t *testing.T) {
			a := &spec.Agent{Name: "a", Description: s, Instructions: s, Backstory: s,
				Tasks: []spec.Task{{ID: "t", Command: s, ExpectedOutput: s}}}
			roundTripAgent(t, a, spec.FormatMarkdown)
		})
	}
}

// TestRoundTrip_EmptyToolLists: an empty list of tools (tools: [], as real
// agent files give for an agent that may use none) is kept apart from an
// absent one (the runner's default tools, all of them for Claude Code):
// parsed, it is an empty list, and export writes it back. It was read as
// absent, so defs export of an agent allowed no tools wrote one allowed
// every tool.
func TestRoundTrip_EmptyToolLists(t *testing.T) {
	a, rep := spec.ParseAgent("pm.md", []byte("---\nname: pm\ntools: []\nallowedTools: []\nskills: []\ndependencies: []\nrequires: []\n---\nPlan.\n"), spec.Options{Strict: true})
	if rep.Err() != nil {
		t.Fatal(rep.Err())
	}
	for name, l := range map[string][]string{"tools": a.Tools, "allowedTools": a.AllowedTools, "skills": a.Skills, "dependencies": a.Dependencies, "requires": a.Requires} {
		if l == nil || len(l) != 0 {
			t.Errorf("%s: [] read as %#v, want an empty list", name, l)
		}
	}
	for _, format := range []string{spec.FormatJSON, spec.FormatMarkdown} {
		data, err := spec.MarshalAgent(a, format)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "tools") || !strings.Contains(string(data), "allowedTools") {
			t.Errorf("%s export drops the empty lists:\n%s", format, data)
		}
		roundTripAgent(t, a, format)
	}
	// An absent list stays absent.
	b, _ := spec.ParseAgent("b.md", []byte("---\nname: b\n---\n"), spec.Options{})
	if data, _ := spec.MarshalAgent(b, spec.FormatJSON); b.Tools != nil || strings.Contains(string(data), "tools") {
		t.Errorf("no tools: %#v\n%s", b.Tools, data)
	}
}

// TestRoundTrip_DeepSchemasFitAFile: a team read from a file of at most
// MaxFileSize exports to one that reads back, however deep its ports'
// schemas: indentation grows with the depth of each line, so a 417 KB
// team of schemas 150 levels deep exported 22.5 MB, which defs import
// refuses (larger than 16 MiB). Such an export is compact JSON.
func TestRoundTrip_DeepSchemasFitAFile(t *testing.T) {
	schema := strings.Repeat(`{"a":`, 150) + "1" + strings.Repeat("}", 150)
	var outs []string
	for i := range 450 {
		outs = append(outs, fmt.Sprintf(`{"name":"o%d","schema":%s}`, i, schema))
	}
	doc := `{"name":"t","version":"1","agents":["a"],"workflow":{"steps":[{"name":"s","agent":"a","outputs":[` + strings.Join(outs, ",") + `]}]}}`
	team, rep := spec.ParseTeam("t.json", []byte(doc), spec.Options{})
	if rep.Err() != nil {
		t.Fatal(rep.Err())
	}
	out, err := spec.MarshalTeam(team, spec.FormatJSON)
	if err != nil {
		t.Fatal(err)
	}
	set, rep := spec.LoadFiles([]spec.File{{Path: "export.json", Data: string(out)}, {Path: "a.json", Data: `{"name": "a"}`}}, spec.Options{Strict: true})
	if rep.Err() != nil || len(set.Teams()) != 1 || !reflect.DeepEqual(set.Teams()[0], team) {
		t.Fatalf("an export of %d bytes (from a file of %d) does not read back: %.300v", len(out), len(doc), rep.Problems)
	}
	// A small definition is still indented.
	if out, _ := spec.MarshalTeam(&spec.Team{Name: "t", Version: "1"}, spec.FormatJSON); !strings.Contains(string(out), "\n  \"name\"") {
		t.Errorf("a small team is not indented:\n%s", out)
	}
}
