package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readmeShapes returns the README's "`--json` shapes" table: each command
// of a row's first column mapped to the row's shape (its first code span).
func readmeShapes(t *testing.T) map[string]string {
	t.Helper()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "### `--json` shapes")
	if !ok {
		t.Fatal("README.md has no \"`--json` shapes\" section")
	}
	section, _, _ = strings.Cut(section, "\n\n"+"Statuses are")
	row := regexp.MustCompile("(?m)^\\| (.*?) \\| `([^`]*)`")
	code := regexp.MustCompile("`([^`]*)`")
	shapes := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		for _, c := range code.FindAllStringSubmatch(m[1], -1) {
			shapes[c[1]] = strings.ReplaceAll(m[2], `\|`, "|")
		}
	}
	return shapes
}

// TestREADME_JSONShapes runs the commands of the README's "`--json` shapes"
// table and checks their output against it: every top-level field printed
// is named, and every field named without "?" is printed.
func TestREADME_JSONShapes(t *testing.T) {
	shapes := readmeShapes(t)
	dir := t.TempDir()
	tmp := t.TempDir()
	nt := filepath.Join(tmp, "f.nt")
	if err := os.WriteFile(nt, []byte("<https://ex.org/s> <https://ex.org/q> \"z\" .\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(tmp, "defs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "defs", "lead.md"), []byte("---\nname: lead\n---\nLead.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		shape string   // the table's command; "" only sets the scene
		args  []string // run with --json appended when shape is set
	}{
		{"import", []string{"import", nt}},
		{"export -o FILE", []string{"export", "-o", filepath.Join(tmp, "out.nq")}},
		{"graphs", []string{"graphs"}},
		{"stats", []string{"stats"}},
		{"namespaces list", []string{"namespaces", "list"}},
		{"teams create", []string{"teams", "create", "--id", "t", "--name", "t", "--strategy", "conflict-flag", "--member", "a:lead", "--member", "b"}},
		{"teams member-status", []string{"teams", "member-status", "t", "a", "running"}},
		{"", []string{"teams", "member-status", "t", "b", "running"}},
		{"findings add", []string{"findings", "add", "t", "a", "<https://ex.org/s>", "<https://ex.org/p>", `"x"`}},
		{"", []string{"findings", "add", "t", "b", "<https://ex.org/s>", "<https://ex.org/p>", `"y"`}},
		{"findings import", []string{"findings", "import", "t", "a", nt}},
		{"findings list", []string{"findings", "list", "t"}},
		{"plans draft", []string{"plans", "draft", "t", "--by", "a", "--title", "p", "--step", "s | what"}},
		{"plans submit", []string{"plans", "submit", "t", "--by", "a"}},
		{"plans approve", []string{"plans", "approve", "t", "--revision", "1", "--feedback", "ok"}},
		{"plans get", []string{"plans", "get", "t"}},
		{"plans list", []string{"plans", "list", "t"}},
		{"", []string{"plans", "draft", "t", "--by", "a", "--title", "p2", "--step", "s"}},
		{"", []string{"plans", "submit", "t", "--by", "a"}},
		{"plans reject", []string{"plans", "reject", "t", "--revision", "2", "--feedback", "no"}},
		{"teams snapshot create", []string{"teams", "snapshot", "create", "t", "--note", "n"}},
		{"teams snapshot get", []string{"teams", "snapshot", "get", "t", "S1"}},
		{"teams snapshot list", []string{"teams", "snapshot", "list", "t"}},
		{"teams snapshot restore", []string{"teams", "snapshot", "restore", "t", "S1"}},
		{"teams snapshot delete", []string{"teams", "snapshot", "delete", "t", "S1"}},
		{"", []string{"teams", "member-status", "t", "a", "completed"}},
		{"teams member-status", []string{"teams", "member-status", "t", "b", "completed"}},
		{"teams merge", []string{"teams", "merge", "t"}},
		{"facts list", []string{"facts", "list", "t"}},
		{"conflicts list", []string{"conflicts", "list", "t"}},
		{"teams get", []string{"teams", "get", "t"}},
		{"", []string{"teams", "create", "--id", "p", "--name", "p", "--member", "a"}},
		{"", []string{"teams", "member-status", "p", "a", "running"}},
		{"teams pause", []string{"teams", "pause", "p"}},
		{"teams resume", []string{"teams", "resume", "p"}},
		{"teams disband", []string{"teams", "disband", "p"}},
		{"workflows run", []string{"workflows", "run", "code-review", "--id", "w1", "--input", "change=HEAD", "--exec", "true"}},
		{"workflows status", []string{"workflows", "status", "w1"}},
		{"workflows history", []string{"workflows", "history", "w1"}},
		{"", []string{"workflows", "run", "code-review", "--id", "w2", "--input", "change=HEAD"}},
		{"workflows cancel", []string{"workflows", "cancel", "w2"}},
		{"defs validate", []string{"defs", "validate", filepath.Join(tmp, "defs")}},
		{"defs import", []string{"defs", "import", filepath.Join(tmp, "defs")}},
		{"defs list", []string{"defs", "list"}},
		{"defs delete", []string{"defs", "delete", "lead"}},
		{"teams delete", []string{"teams", "delete", "t"}},
		{"", []string{"-n", "scratch", "import", nt}},
		{"namespaces delete", []string{"namespaces", "delete", "scratch", "--yes"}},
	}
	for _, s := range steps {
		if s.shape == "" {
			mustCLI(t, dir, s.args...)
			continue
		}
		shape, ok := shapes[s.shape]
		if !ok {
			t.Fatalf("the README's --json shapes table has no row for %q", s.shape)
		}
		// A listing's row may refer to another's shape: "[{…as plans get}]".
		if ref, ok := strings.CutPrefix(shape, "[{…as "); ok {
			if shape, ok = shapes[strings.TrimSuffix(ref, "}]")]; !ok {
				t.Fatalf("the README's shape of %q refers to %q, which has no row", s.shape, ref)
			}
		}
		documented := helpShapeKeys(t, shape)
		run := append(slices.Clone(s.args), "--json")
		out := mustCLI(t, dir, run...)
		checkShape(t, run, out, documented, "the README's shape of "+s.shape+", "+shape+",")
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatal(err)
		}
		checkNestedShape(t, run, "", v, shape)
	}

	// conflicts resolve, of the conflict of a team of its own.
	mustCLI(t, dir, "teams", "create", "--id", "c", "--name", "c", "--strategy", "conflict-flag", "--member", "a", "--member", "b")
	for _, agent := range []string{"a", "b"} {
		mustCLI(t, dir, "teams", "member-status", "c", agent, "running")
		mustCLI(t, dir, "findings", "add", "c", agent, "<https://ex.org/s>", "<https://ex.org/p>", `"`+agent+`"`)
	}
	mustCLI(t, dir, "teams", "member-status", "c", "a", "completed")
	mustCLI(t, dir, "teams", "member-status", "c", "b", "completed")
	var conflicts []struct{ ID string }
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "conflicts", "list", "c", "--json")), &conflicts); err != nil || len(conflicts) != 1 {
		t.Fatalf("conflicts list: %v, %v", conflicts, err)
	}
	run := []string{"conflicts", "resolve", "c", conflicts[0].ID, "--object", `"a"`, "--by", "a", "--json"}
	out := mustCLI(t, dir, run...)
	checkShape(t, run, out, helpShapeKeys(t, shapes["conflicts resolve"]), "the README's shape of conflicts resolve,")
	var v any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	checkNestedShape(t, run, "", v, shapes["conflicts resolve"])

	// The parts of a run's shape that only a council (rounds) and a crew
	// (driver, and tasks: "a crew's or swarm's also tasks") have, and the
	// problems of an invalid definition.
	fixtures, err := filepath.Abs("../../fixtures")
	if err != nil {
		t.Fatal(err)
	}
	council := filepath.Join(tmp, "council.json")
	vote := filepath.Join(tmp, "vote.sh")
	if err := os.WriteFile(council, []byte(`{"name": "board", "version": "1", "agents": ["alice", "bob"], "workflow": {"type": "council"},
 "collaboration": {"consensus": {"required_agreement": 0.66, "max_rounds": 2, "tie_breaker": "alice"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(vote, []byte(`printf '{"findings": [{"subject": "<https://ex.org/plan>", "predicate": "<https://ex.org/owner>", "object": "<https://ex.org/%s>"}]}\n' "$CORTEX_AGENT"`+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	invalid := filepath.Join(tmp, "bad")
	if err := os.MkdirAll(invalid, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(invalid, "x.md"), []byte("---\nname: x\nmodel: 7\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runShape := shapes["workflows run"]
	for _, c := range []struct {
		run   []string
		shape string
		code  int
	}{
		{[]string{"workflows", "run", council, "--id", "c1", "--exec", "sh " + vote, "--json"}, runShape, 0},
		{[]string{"workflows", "run", filepath.Join(fixtures, "led", "crew"), "--id", "api1", "--exec", "sh " + filepath.Join(fixtures, "led", "agent.sh"), "--json"},
			strings.TrimSuffix(runShape, "}") + ", tasks?: []}", 0},
		{[]string{"defs", "validate", invalid, "--json"}, shapes["defs validate"], exitInvalid},
	} {
		r := runCLI(t, dir, "", c.run...)
		if r.code != c.code {
			t.Fatalf("%v: exit %d, want %d: %s", c.run, r.code, c.code, r.stderr)
		}
		var v any
		if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
			t.Fatalf("%v: %s: %v", c.run, r.stdout, err)
		}
		for _, part := range []string{"rounds", "driver", "tasks", "problems"} {
			if m, ok := v.(map[string]any); ok && m[part] != nil && !strings.Contains(c.shape, part) {
				t.Errorf("%v prints %s, which the README's shape does not name", c.run, part)
			}
		}
		checkNestedShape(t, c.run, "", v, c.shape)
	}
	checkEmittedVocabulary(t, dir)
}

// shapeField is a field of a documented JSON shape: whether it is
// optional ("?") and, for an object or a list of objects, its own shape.
type shapeField struct {
	optional bool
	sub      string // "{...}" or "[{...}]", else ""
}

// shapeFields parses a documented shape, "{a, b?: [{c, d?}], e (s)}" or a
// list of one, into its top-level fields.
func shapeFields(t *testing.T, shape string) map[string]shapeField {
	t.Helper()
	fields := map[string]shapeField{}
	for name, opt := range helpShapeKeys(t, shape) {
		fields[name] = shapeField{optional: opt}
	}
	s := strings.TrimSuffix(strings.TrimPrefix(shape, "["), "]")
	s = strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")
	depth, start := 0, 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) {
			switch s[i] {
			case '{', '[', '(':
				depth++
				continue
			case '}', ']', ')':
				depth--
				continue
			case ',':
				if depth != 0 {
					continue
				}
			default:
				continue
			}
		}
		name, sub, ok := strings.Cut(strings.TrimSpace(s[start:i]), ":")
		start = i + 1
		sub = strings.TrimSpace(sub)
		name = strings.TrimSuffix(strings.TrimSpace(name), "?")
		if f, known := fields[name]; ok && known && (strings.HasPrefix(sub, "{") || strings.HasPrefix(sub, "[{")) &&
			!strings.HasPrefix(sub, "{…") && !strings.HasPrefix(sub, "[{…") {
			f.sub = sub
			fields[name] = f
		}
	}
	return fields
}

// checkNestedShape checks v, a value printed by run, against a documented
// shape at every depth the shape spells out: every key printed is named,
// and every key named without "?" is printed, in v and in each object of
// a field whose shape is given (each element of a list of objects).
func checkNestedShape(t *testing.T, run []string, path string, v any, shape string) {
	t.Helper()
	if a, ok := v.([]any); ok {
		for i, e := range a {
			checkNestedShape(t, run, fmt.Sprintf("%s[%d]", path, i), e, shape)
		}
		return
	}
	obj, ok := v.(map[string]any)
	if !ok {
		t.Errorf("%v: %s is %v, not an object as %s", run, path, v, shape)
		return
	}
	fields := shapeFields(t, shape)
	for k, val := range obj {
		f, ok := fields[k]
		if !ok {
			t.Errorf("%v prints %s.%s, which the README's shape %s does not name", run, path, k, shape)
			continue
		}
		if f.sub != "" && val != nil {
			checkNestedShape(t, run, path+"."+k, val, f.sub)
		}
	}
	for k, f := range fields {
		if _, ok := obj[k]; !ok && !f.optional {
			t.Errorf("%v does not print %s.%s, which the README's shape %s names as always there", run, path, k, shape)
		}
	}
}

// TestREADME_LedTeamsShapes runs the task board's and mailbox's commands
// with --json and checks what they print against the shapes of the
// README's "Led teams" section, at every depth the shapes spell out.
func TestREADME_LedTeamsShapes(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, bullet, ok := strings.Cut(string(readme), "\n- `--json` shapes: ")
	if !ok {
		t.Fatal(`the README's "Led teams" section has no --json shapes`)
	}
	bullet, _, _ = strings.Cut(bullet, "\n\n")
	bullet = strings.Join(strings.Fields(bullet), " ")
	shape := func(intro string) string {
		t.Helper()
		m := regexp.MustCompile(regexp.QuoteMeta(intro) + " `([^`]*)`").FindStringSubmatch(bullet)
		if m == nil {
			t.Fatalf("the README's Led teams shapes have no %q", intro)
		}
		return m[1]
	}
	task, comment, message := shape("a task"), shape("a comment"), shape("a message")
	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--id", "crew", "--name", "crew", "--member", "ann:lead", "--member", "bob:dev", "--member", "cat:dev")
	for _, c := range []struct {
		shape string
		args  []string // run with --json appended
	}{
		{task, []string{"tasks", "create", "crew", "write the parser", "--priority", "5"}},
		{task, []string{"tasks", "create", "crew", "test the parser", "--blocked-by", "T1", "--assignee", "cat"}},
		{task, []string{"tasks", "list", "crew"}},
		{task, []string{"tasks", "next", "crew", "--as", "bob"}},
		{task, []string{"tasks", "progress", "crew", "T1", "grammar done", "--as", "bob"}},
		{shape("`tasks add-finding`:"), []string{"tasks", "add-finding", "crew", "T1", "<https://ex.org/parser.go>", "rdfs:comment", `"handles unicode"`, "--as", "bob"}},
		{comment, []string{"tasks", "comment", "crew", "T1", "which grammar?", "--as", "bob"}},
		{comment, []string{"tasks", "comments", "crew", "T1"}},
		{task, []string{"tasks", "complete", "crew", "T1", "PR 12", "--as", "bob"}},
		{task, []string{"tasks", "review", "crew", "T1", "--approve"}},
		{task, []string{"tasks", "get", "crew", "T1"}},
		{shape("`tasks history`:"), []string{"tasks", "history", "crew", "T1"}},
		{shape("`tasks dispatch`:"), []string{"tasks", "dispatch", "crew"}},
		{shape("`tasks sweep`:"), []string{"tasks", "sweep", "crew"}},
		{shape("`tasks board`:"), []string{"tasks", "board", "crew"}},
		{message, []string{"mail", "send", "crew", "which fixtures?", "--as", "cat", "--to", "ann", "--type", "ask_question"}},
		{message, []string{"mail", "inbox", "crew", "--as", "ann"}},
		{message, []string{"mail", "thread", "crew", "M1"}},
		{shape("`mail read`, `mail archive`:"), []string{"mail", "read", "crew", "M1", "--as", "ann"}},
		{message, []string{"mail", "inbox", "crew", "--as", "ann"}}, // read: with readAt
		{shape("`mail read`, `mail archive`:"), []string{"mail", "archive", "crew", "M1", "--as", "ann"}},
		{shape("`mail retention`:"), []string{"mail", "retention", "crew"}},
	} {
		run := append(slices.Clone(c.args), "--json")
		out := mustCLI(t, dir, run...)
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("%v: %s: %v", run, out, err)
		}
		checkNestedShape(t, run, "", v, c.shape)
	}
}
