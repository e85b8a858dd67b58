package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/teammanager"
)

func TestCell(t *testing.T) {
	long := strings.Repeat("é", 100_000)
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{"two\nlines", `two\nlines`},
		{"tab\there\r", `tab\there\r`},
		{"nul\x00 esc\x1b del\x7f", `nul\x00 esc\x1b del\x7f`},
		{"c1\u0085 ls\u2028", `c1\u0085 ls\u2028`},
		{"bad\xffutf8", `bad\xffutf8`},
		{strings.Repeat("a", 60), strings.Repeat("a", 60)},
		{strings.Repeat("a", 61), strings.Repeat("a", 59) + "…"},
		{long, strings.Repeat("é", 59) + "…"},
		// An escape is never cut in the middle.
		{strings.Repeat("a", 58) + "\n" + "bc", strings.Repeat("a", 58) + "…"},
		{strings.Repeat("a", 57) + "\nb", strings.Repeat("a", 57) + `\nb`},
	} {
		got := cell(tc.in)
		if got != tc.want {
			t.Errorf("cell(%.20q…) = %q, want %q", tc.in, got, tc.want)
		}
		if n := utf8.RuneCountInString(got); n > maxCell {
			t.Errorf("cell(%.20q…) is %d characters", tc.in, n)
		}
	}
}

// TestCLI_TablesEscapeAndCut: a 100 kB team name with a newline neither
// widens nor breaks the table rows; JSON keeps it whole.
func TestCLI_TablesEscapeAndCut(t *testing.T) {
	dir := t.TempDir()
	name := "first line\nsecond line " + strings.Repeat("x", 100_000)
	mustCLI(t, dir, "teams", "create", "--id", "t1", "--name", name, "--member", "ann:lead:"+strings.Repeat("task ", 50))
	mustCLI(t, dir, "teams", "create", "--id", "t2", "--name", "short", "--member", "bob")
	for _, args := range [][]string{{"teams", "list"}, {"teams", "get", "t1"}, {"teams", "create", "--name", "\x1b[31mred", "--member", "c", "--format", "table"}} {
		out := mustCLI(t, dir, args...)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		for _, l := range lines {
			if len(l) > 300 || strings.ContainsAny(l, "\x1b\r") {
				t.Errorf("%v: line of %d bytes: %.100q", args, len(l), l)
			}
		}
		if args[1] == "list" && len(lines) != 3 {
			t.Errorf("teams list: %d lines:\n%s", len(lines), out)
		}
		if args[1] == "get" && (len(lines) != 3 || !strings.Contains(lines[0], `first line\nsecond line xxx`)) {
			t.Errorf("teams get:\n%s", out)
		}
	}
	var team struct{ Name string }
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "teams", "get", "t1", "--json")), &team); err != nil || team.Name != name {
		t.Fatalf("JSON name of %d bytes (%v)", len(team.Name), err)
	}
}

// TestCLI_JSONWithoutHTMLEscaping: IRIs in JSON output are written as they
// are, not as \u003c...\u003e.
func TestCLI_JSONWithoutHTMLEscaping(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--id", "t1", "--name", "a<b>&c", "--member", "ann")
	mustCLI(t, dir, "findings", "add", "t1", "ann", "<http://s>", "<http://p>", `"x & <y>"`)
	for _, args := range [][]string{{"findings", "list", "t1", "--json"}, {"teams", "list", "--json"}} {
		out := mustCLI(t, dir, args...)
		if strings.Contains(out, `\u003c`) || strings.Contains(out, `\u0026`) {
			t.Fatalf("%v escapes HTML:\n%s", args, out)
		}
	}
	if out := mustCLI(t, dir, "findings", "list", "t1", "--json"); !strings.Contains(out, `"subject": "<http://s>"`) {
		t.Fatalf("findings list --json:\n%s", out)
	}
}

// TestCLI_EveryPrintingCommandHasJSON walks the command tree: every command
// that prints a result has --json, and --format table|json unless its
// --format names an RDF format.
func TestCLI_EveryPrintingCommandHasJSON(t *testing.T) {
	app := newApp(&env{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}})
	rdfFormat := map[string]bool{"import": true, "export": true, "findings import": true, "defs export": true} // a file format
	noResult := map[string]bool{"completion": true, "demo": true, "serve": true}
	for name, c := range leafCommands(app.Commands, nil) {
		if noResult[name] {
			continue
		}
		var hasJSON bool
		var format cli.Flag
		for _, f := range c.Flags {
			switch f.Names()[0] {
			case "json":
				hasJSON = true
			case "format":
				format = f
			}
		}
		if !hasJSON {
			t.Errorf("%s has no --json", name)
		}
		_, generic := format.(*cli.GenericFlag)
		switch {
		case name == "query": // table|json|xml|csv|tsv|ntriples|turtle
		case rdfFormat[name] && generic, !rdfFormat[name] && !generic:
			t.Errorf("%s: --format is %T", name, format)
		}
	}
}

// TestCLI_OutputFormats runs every printing command with --json and with
// --format json (valid JSON, the same document) and checks the
// conflicting and unknown format values.
func TestCLI_OutputFormats(t *testing.T) {
	dir := t.TempDir()
	nt := writeFile(t, "f.nt", "<http://ex/a> <http://ex/p> \"1\" .\n")
	steps := [][]string{
		{"import", nt},
		{"export", "-o", filepath.Join(t.TempDir(), "out.nt")},
		{"graphs"}, {"stats"}, {"strategies"}, {"namespaces", "list"},
		{"teams", "create", "--id", "t1", "--name", "n", "--member", "ann", "--member", "bob"},
		{"teams", "list"}, {"teams", "get", "t1"},
		{"teams", "member-status", "t1", "ann", "running"},
		{"findings", "add", "t1", "ann", "<http://ex/a>", "<http://ex/p>", "one"},
		{"findings", "import", "t1", "ann", nt},
		{"findings", "list", "t1"},
		{"teams", "member-status", "t1", "ann", "completed"},
		{"teams", "merge", "t1"},
		{"conflicts", "list", "t1"},
		{"teams", "pause", "t1"}, {"teams", "resume", "t1"}, {"teams", "disband", "t1"},
		{"teams", "delete", "t1"},
		{"-n", "x", "import", nt},
		{"namespaces", "delete", "x", "--yes"},
	}
	readOnly := map[string]bool{"graphs": true, "stats": true, "strategies": true, "namespaces list": true, "teams list": true,
		"teams get": true, "findings list": true, "conflicts list": true}
	for _, args := range steps {
		key := strings.Join(args[:min(2, len(args))], " ")
		if !readOnly[key] && !readOnly[args[0]] {
			out := mustCLI(t, dir, append(args, "--json")...)
			if !json.Valid([]byte(out)) {
				t.Errorf("%v --json: not JSON:\n%s", args, out)
			}
			continue
		}
		a := mustCLI(t, dir, append(args, "--json")...)
		b := mustCLI(t, dir, append(args, "--format", "json")...)
		c := mustCLI(t, dir, append(args, "-f", "table")...)
		if !json.Valid([]byte(a)) || a != b || json.Valid([]byte(c)) && c != "" {
			t.Errorf("%v: --json %q, --format json %q, -f table %q", args, a, b, c)
		}
		for _, bad := range [][]string{{"--format", "yaml"}, {"--json", "--format", "table"}} {
			if r := runCLI(t, dir, "", append(args, bad...)...); r.code != exitUsage {
				t.Errorf("%v %v: exit %d (%s)", args, bad, r.code, r.stderr)
			}
		}
	}
	// export --json needs -o (the data goes to standard output otherwise).
	if r := runCLI(t, dir, "", "export", "--json"); r.code != exitUsage {
		t.Fatalf("export --json without -o: exit %d", r.code)
	}
}

// TestPrintMerge_Plurals: counts of one are singular.
func TestPrintMerge_Plurals(t *testing.T) {
	r := teammanager.MergeReport{Strategy: "additive", MergeID: "m1", Report: merge.Report{Topics: 1, Kept: 1, Conflicts: 1,
		Members: []merge.MemberReport{{Agent: "ann", Status: merge.Completed, Contributed: 1, Kept: 1}}}}
	var b bytes.Buffer
	printMerge(&b, r)
	want := "merged with additive: 1 topic, 1 fact kept, 1 conflict (run m1)\n  ann          completed contributed 1 claim, kept 1\n"
	if b.String() != want {
		t.Fatalf("got %q\nwant %q", b.String(), want)
	}
	r.Topics, r.Kept, r.Report.Conflicts, r.Members[0].Contributed = 2, 0, 3, 2
	b.Reset()
	printMerge(&b, r)
	if !strings.Contains(b.String(), "2 topics, 0 facts kept, 3 conflicts") || !strings.Contains(b.String(), "contributed 2 claims") {
		t.Fatalf("got %q", b.String())
	}
}

// TestCLI_HelpShowsEachDefaultOnce: no flag's help line states its default
// twice (urfave prints "(default: X)" itself).
func TestCLI_HelpShowsEachDefaultOnce(t *testing.T) {
	dir := t.TempDir()
	app := newApp(&env{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}})
	paths := [][]string{nil}
	for name := range leafCommands(app.Commands, nil) {
		paths = append(paths, strings.Fields(name))
	}
	for _, p := range paths {
		out := mustCLI(t, dir, append(p, "--help")...)
		for _, l := range strings.Split(out, "\n") {
			if !strings.HasPrefix(strings.TrimSpace(l), "-") {
				continue // not a flag
			}
			if strings.Count(strings.ToLower(l), "default:") > 1 || strings.Count(l, "(default") > 1 {
				t.Errorf("%v --help: %q", p, l)
			}
		}
	}
}

// TestCLI_UpdateHelpSaysUnchanged: tasks update keeps the priority a
// task has when --priority is left out; its help said "(default: 0)".
func TestCLI_UpdateHelpSaysUnchanged(t *testing.T) {
	out := mustCLI(t, t.TempDir(), "tasks", "update", "--help")
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "--priority") && !strings.Contains(l, "(default: unchanged)") {
			t.Errorf("tasks update --help: %q, want (default: unchanged)", l)
		}
	}
}

func TestCutQuoted(t *testing.T) {
	long := strings.Repeat("\xff\"é", 100) // quoted: 100 times 3 characters, escapes included
	q := strconv.Quote(long)
	tests := []struct{ name, msg, want string }{
		{"Short", `team "a": unknown team`, `team "a": unknown team`},
		{"LongMessageShortValues", strings.Repeat(`x "a" `, 100), strings.Repeat(`x "a" `, 100)},
		{"Escapes", "id " + q + ": bad", `id "` + strings.Repeat(`\xff\"é`, quotedKeep/3) + `…" (` + strconv.Itoa(len(long)) + ` bytes): bad`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cutQuoted(tt.msg); got != tt.want {
				t.Errorf("cutQuoted =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// TestCLI_OutputWriteError: a command whose output cannot be written (a
// full disk) exits 1 saying why, as most commands did; plans get and the
// other plans commands, findings add, teams member-status, import, facts
// list of no facts and defs validate printed without checking and exited
// 0, their output lost.
func TestCLI_OutputWriteError(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	mustCLI(t, dir, "teams", "member-status", "crew", "ann", "running")
	mustCLI(t, dir, "plans", "draft", "crew", "--by", "ann", "--title", "t", "--step", "s")
	nt := writeFile(t, "a.nt", "<http://ex/s> <http://ex/p> \"o\" .\n")
	for _, args := range [][]string{
		{"plans", "get", "crew"},
		{"plans", "submit", "crew", "--by", "ann"},
		{"findings", "add", "crew", "ann", "<http://ex/s>", "rdfs:comment", "x"},
		{"teams", "member-status", "crew", "bob", "running"},
		{"facts", "list", "crew"},
		{"import", nt},
		{"defs", "validate", defsLegacy},
		{"teams", "list"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			cortextest.CheckDir(t, dir)
			var stop func(code int)
			if throughServer {
				stop = serveForCLI(t, dir, args)
			}
			var errb bytes.Buffer
			full := append([]string{"cortexctl", "--data", dir}, args...)
			code := run(context.Background(), full, strings.NewReader(""), fullDisk{}, &errb)
			if stop != nil {
				stop(code)
			}
			if code != exitInternal || !strings.Contains(errb.String(), "no space left on device") {
				t.Fatalf("exit %d (want %d), stderr %q", code, exitInternal, errb.String())
			}
		})
	}
}

// fullDisk is a standard output on a full disk.
type fullDisk struct{}

func (fullDisk) Write([]byte) (int, error) {
	return 0, &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.ENOSPC}
}
