package spec_test

import (
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/spec"
)

// TestParseYAML_AliasBound: YAML aliases expand to at most 100,000 values
// (a "billion laughs" file is refused, naming the line), but a file
// without aliases is not bounded so: it has as many values as its JSON
// form, which is read whatever their number. A YAML agent with 150,000
// tools was refused ("yaml aliases expand too far") while its JSON was
// read.
func TestParseYAML_AliasBound(t *testing.T) {
	bomb := "name: a\nx0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
	for i := 1; i < 10; i++ {
		bomb += strings.Replace("xN: &aN [*aP, *aP, *aP, *aP, *aP, *aP, *aP, *aP, *aP, *aP]\n", "N", string(rune('0'+i)), 2)
		bomb = strings.ReplaceAll(bomb, "aP", "a"+string(rune('0'+i-1)))
	}
	_, rep := spec.ParseAgent("bomb.yaml", []byte(bomb), spec.Options{})
	if rep.Errors() != 1 || !strings.Contains(rep.Problems[0].Message, "aliases expand too far") || rep.Problems[0].Line == 0 {
		t.Fatalf("alias bomb: %v", rep.Problems)
	}

	many := "name: a\ntools:\n" + strings.Repeat("- x\n", 150000)
	a, rep := spec.ParseAgent("many.yaml", []byte(many), spec.Options{})
	if rep.Err() != nil || len(a.Tools) != 150000 {
		t.Fatalf("150,000 tools in YAML: %v", rep.Err())
	}
	asJSON := `{"name": "a", "tools": [` + strings.TrimSuffix(strings.Repeat(`"x",`, 150000), ",") + `]}`
	if a, rep := spec.ParseAgent("many.json", []byte(asJSON), spec.Options{}); rep.Err() != nil || len(a.Tools) != 150000 {
		t.Fatalf("150,000 tools in JSON: %v", rep.Err())
	}

	reuse := "name: t\nversion: '1'\nagents: &ag [a, b]\ncollaboration:\n  specialists: *ag\n"
	if tm, rep := spec.ParseTeam("reuse.yaml", []byte(reuse), spec.Options{}); rep.Err() != nil || len(tm.Collaboration.Specialists) != 2 {
		t.Fatalf("an alias: %v", rep.Err())
	}
}

// TestParseYAML_AliasTextBound: what YAML aliases expand to is bounded in
// text as well as in values: an anchored long string (or mapping key)
// named by a few hundred aliases is refused, naming the line. Each alias
// counted as one value whatever its length, so a 200 KB file of a 200 KB
// string and 2,000 aliases to it, as a team's agents, took 3 GB and gave
// 760 MB of problems (each duplicate agent quoting it); with a 1 MB
// string and 100,000 aliases, a hundred times more than memory holds.
func TestParseYAML_AliasTextBound(t *testing.T) {
	long := strings.Repeat("a", 100_000)
	for name, doc := range map[string]string{
		"value": "name: t\nversion: '1'\nx: &s " + long + "\nagents: [" + strings.Repeat("*s, ", 200) + "*s]\n",
		"key":   "name: t\nversion: '1'\nagents: [a]\nx: &k " + long + "\nworkflow:\n  steps:\n" + strings.Repeat("  - {name: s, agent: a, *k : 1}\n", 200),
	} {
		t.Run(name, func(t *testing.T) {
			_, rep := spec.ParseTeam("t.yaml", []byte(doc), spec.Options{})
			if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Message, "aliases expand") || rep.Problems[0].Line == 0 {
				msgs := 0
				for _, p := range rep.Problems {
					msgs += len(p.Message) + len(p.Path)
				}
				t.Fatalf("%d problems of %d bytes, want one: yaml aliases expand too far", len(rep.Problems), msgs)
			}
		})
	}
	// Anchors that expand to less are read.
	ok := "name: t\nversion: '1'\nx: &s " + long + "\nagents: [" + strings.Repeat("*s, ", 100) + "b]\n"
	if _, rep := spec.ParseTeam("t.yaml", []byte(ok), spec.Options{}); rep.Errors() != 99 {
		t.Fatalf("100 aliases of 100 KB: %d errors (duplicate agents), want 99", rep.Errors())
	}
}

// TestParse_YAMLControlCharacterNamesLine: a control character in a
// YAML definition or a Markdown one's front matter (pasted from a
// terminal: an escape, a NUL, a byte order mark past the start) is a
// syntax error naming its line; it named none ("syntax error: control
// characters are not allowed").
func TestParse_YAMLControlCharacterNamesLine(t *testing.T) {
	for _, tc := range []struct {
		file, data string
		line       int
	}{
		{"a.yaml", "name: a\ndescription: d\x1b[0m\n", 2},
		{"a.yaml", "name: a\r\ndescription: d\r\n\x00model: x\r\n", 3},
		{"a.yaml", "name: a\rdescription: d\r\u0085\u0090x: 1\r", 3},
		{"a.md", "\n---\nname: a\ndescription: d\x07\n---\nbody\n", 4},
	} {
		_, rep := spec.Parse(tc.file, []byte(tc.data), spec.Options{})
		if rep.Errors() != 1 || rep.Problems[0].Line != tc.line || !strings.Contains(rep.Problems[0].Message, "control characters are not allowed") {
			t.Errorf("%q: problems %v, want a syntax error at line %d", tc.data, rep.Problems, tc.line)
		}
	}
}

// TestParse_YAMLUnknownAnchorNamesLine: an alias of an anchor the file
// does not define (yet: a use before the anchor) is a syntax error naming
// the alias's line; it named none ("unknown anchor 'y' referenced").
func TestParse_YAMLUnknownAnchorNamesLine(t *testing.T) {
	for _, tc := range []struct {
		file, data string
		line       int
	}{
		{"a.yaml", "name: a # *y in a comment\ndescription: '*y'\nmodel: *y\n", 3},
		{"a.yaml", "name: a\ndescription: d\ntools: [Read,\n  *tool]\nx: &tool Write\n", 4},
		{"a.md", "---\nname: a\r\ndescription: d\r\nmodel:\r\n - *m\r\n---\nbody\n", 5},
	} {
		_, rep := spec.Parse(tc.file, []byte(tc.data), spec.Options{})
		if rep.Errors() != 1 || rep.Problems[0].Line != tc.line || !strings.Contains(rep.Problems[0].Message, "unknown anchor") {
			t.Errorf("%q: problems %v, want a syntax error at line %d", tc.data, rep.Problems, tc.line)
		}
	}
}
