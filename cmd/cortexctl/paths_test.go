package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/cortexgraph/cortex/merge"
)

// hostileNames are file names that would garble or forge a message line,
// or reach the terminal, if a message printed them raw: a newline, an
// escape sequence, a byte that is not UTF-8, a quote, a right-to-left
// override.
var hostileNames = []string{"a\nb", "a\x1b[31mb", "a\xffb", `a"b`, "a\u202eb"}

// safeLines reports why s, what cortexctl wrote on stderr, is not lines
// (want of them) of printable UTF-8 each ("" if it is).
func safeLines(s string, want int) string {
	text, ok := strings.CutSuffix(s, "\n")
	lines := strings.Split(text, "\n")
	switch {
	case !ok || len(lines) != want:
		return fmt.Sprintf("not %d lines", want)
	case !utf8.ValidString(text):
		return "not UTF-8"
	}
	for _, line := range lines {
		for _, r := range line {
			if !unicode.IsPrint(r) {
				return "holds " + strconv.QuoteRune(r)
			}
		}
	}
	return ""
}

// TestCLI_HostilePathsQuoted: a file path or TEAMDEF that is not plain
// text is named quoted (%q) in the messages cortexctl writes, as an id is
// (teammanager.IDText), embedded and through a server; a plain one as it
// is. Each message stays one line of printable text.
func TestCLI_HostilePathsQuoted(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	for _, name := range hostileNames {
		parent := t.TempDir()
		missing := filepath.Join(parent, name)
		emptyDir := filepath.Join(parent, name+"-dir")
		if err := os.Mkdir(emptyDir, 0o755); err != nil {
			t.Fatal(err)
		}
		badStrategy := filepath.Join(parent, name+"-cortex.json5")
		if err := os.WriteFile(badStrategy, []byte(`{teams: {defaultStrategy: "majority"}}`), 0o644); err != nil {
			t.Fatal(err)
		}
		badTeam := filepath.Join(parent, name+"-team.json")
		if err := os.WriteFile(badTeam, []byte(`{"name": 5}`), 0o644); err != nil {
			t.Fatal(err)
		}
		q, qd := strconv.Quote(missing), strconv.Quote(emptyDir)
		qt, qj := strconv.Quote(missing+".ttl"), strconv.Quote(missing+".json")
		for _, tc := range []struct {
			args   []string
			code   int
			stderr string
		}{
			{[]string{"workflows", "run", missing}, exitNotFound,
				"not found: team definition " + q + ": no such file or directory, nor a built-in workflow (cortexctl workflows list --builtin)"},
			{[]string{"workflows", "run", name}, exitNotFound,
				"not found: team definition " + strconv.Quote(name) + ": no such file or directory, nor a built-in workflow (cortexctl workflows list --builtin)"},
			{[]string{"workflows", "run", emptyDir}, exitInvalid,
				"invalid value: " + qd + " holds 0 team definitions, want one"},
			{[]string{"import", missing + ".ttl"}, exitNotFound,
				"import: open " + qt + ": no such file or directory"},
			{[]string{"import", missing}, exitUsage,
				"import " + q + ": unknown rdf format for file " + q + " (known extensions: .nq, .nt, .ttl) (use --format)"},
			{[]string{"import", "--format", "turtle", emptyDir}, exitInvalid,
				"invalid value: import: " + qd + " is a directory"},
			{[]string{"query", "--file", missing}, exitNotFound,
				"query: open " + q + ": no such file or directory"},
			{[]string{"query", "--file", emptyDir}, exitInvalid,
				"invalid value: query: " + qd + " is a directory"},
			{[]string{"teams", "create", "--from", missing}, exitNotFound,
				"teams create: open " + q + ": no such file or directory"},
			{[]string{"findings", "import", "crew", "ann", missing + ".json"}, exitNotFound,
				"findings import: open " + qj + ": no such file or directory"},
			{[]string{"findings", "import", "crew", "ann", missing}, exitUsage,
				"findings import " + q + ": unknown rdf format for file " + q + " (known extensions: .nq, .nt, .ttl), or .json, .jsonl, .ndjson (use --format)"},
			{[]string{"--config", missing, "graphs"}, exitNotFound,
				"--config: open " + q + ": no such file or directory"},
			{[]string{"--config", emptyDir, "graphs"}, exitInvalid,
				"invalid value: --config: " + qd + " is a directory"},
			{[]string{"--config", badStrategy, "strategies"}, exitInvalid,
				"config " + strconv.Quote(badStrategy) + `: invalid config: teams.defaultStrategy: merge strategy "majority": unknown merge strategy (known: ` + strings.Join(merge.Names(), ", ") + ")"},
			{[]string{"export", "-o", filepath.Join(missing, "x.nq")}, exitNotFound,
				"export: create " + strconv.Quote(filepath.Join(missing, "x.nq")) + ": no such file or directory"},
			{[]string{"export", "-o", emptyDir}, exitInvalid,
				"invalid value: export: -o " + qd + " is a directory"},
			{[]string{"export", "-o", missing + ".zz"}, exitUsage,
				"export -o " + strconv.Quote(missing+".zz") + ": unknown rdf format for file " + strconv.Quote(missing+".zz") + " (known extensions: .nq, .nt, .ttl) (give --format)"},
			{[]string{"teams", "create", "--from", badTeam}, exitInvalid,
				"teams create: " + strconv.Quote(badTeam) + ": invalid value: name: want a string, got a number"},
		} {
			t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
				r := runCLI(t, dir, "", tc.args...)
				want := "cortexctl: " + tc.stderr + "\n"
				if r.code != tc.code || r.stderr != want || r.stdout != "" {
					t.Fatalf("exit %d, stdout %q, stderr\n%q\nwant exit %d, stderr\n%q", r.code, r.stdout, r.stderr, tc.code, want)
				}
			})
		}
		// Messages that other packages write (the definitions' loader,
		// the store, the RDF parser) name the path their way, but on one
		// line of printable text too.
		badTTL := filepath.Join(parent, name+"-bad.ttl")
		if err := os.WriteFile(badTTL, []byte("<http://s> <http://p> ."), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"defs", "validate", missing},
			{"defs", "import", missing},
			{"--data", missing, "graphs"},
			{"--data", filepath.Join(missing, "x"), "graphs"},
			{"import", badTTL},
		} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				var r result
				if args[0] == "--data" { // no store there, so no server either
					var out, errb bytes.Buffer
					r.code = run(context.Background(), append([]string{"cortexctl"}, args...), strings.NewReader(""), &out, &errb)
					r.stdout, r.stderr = out.String(), errb.String()
				} else {
					r = runCLI(t, dir, "", args...)
				}
				code, lines := exitNotFound, 1
				if args[0] == "import" {
					code, lines = exitSyntax, 2 // "importing FILE as import ID", then the error
				}
				if why := safeLines(r.stderr, lines); why != "" || r.code != code {
					t.Fatalf("exit %d, stderr %s:\n%q", r.code, why, r.stderr)
				}
			})
		}
	}
}
