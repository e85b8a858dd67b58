package spec_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/spec"
)

// TestParseJSON5_TooDeep: a JSON5 file nested deeper than the parser's
// stack allows is a syntax error; it used to crash the process (fatal
// stack overflow) at a few million levels, within the file size limit.
func TestParseJSON5_TooDeep(t *testing.T) {
	const n = 4 << 20
	data := "{x: " + strings.Repeat("[", n) + strings.Repeat("]", n) + "}"
	_, rep := spec.ParseTeam("t.json5", []byte(data), spec.Options{})
	if rep.Errors() != 1 || !strings.Contains(rep.Problems[0].Message, "nested more than 200 levels deep") {
		t.Fatalf("problems %v", rep.Problems)
	}
}

// TestParseJSON5_NoFalseDuplicates: what looks like a key inside strings
// and comments, and the same key in sibling objects, are no duplicates.
func TestParseJSON5_NoFalseDuplicates(t *testing.T) {
	data := `// name: 'x'
{
  name: 'rev', /* version: '2', name: "y" */
  version: "1.0.0",
  description: 'it\'s {name: "z"}, see https://ex.org/a//b',
  context: "a \"quoted\" \
continued line, name: 'w'",
  agents: ['a', 'b'],
  workflow: {type: 'graph', steps: [
    {name: 's1', agent: 'a', outputs: [{name: 'o', type: 'string'}]},
    {name: 's2', agent: 'b', depends_on: ['s1'], inputs: [{name: 'i', from: 's1.o'}]},
  ]},
}
`
	tm, rep := spec.ParseTeam("t.json5", []byte(data), spec.Options{})
	for _, p := range rep.Problems {
		if strings.Contains(p.Message, "duplicate") || strings.Contains(p.Message, "syntax") {
			t.Fatalf("problem %s", p)
		}
	}
	if tm == nil || tm.Name != "rev" || len(tm.Steps()) != 2 {
		t.Fatalf("team %+v, problems %v", tm, rep.Problems)
	}
}

// TestCheckJSON5: a key given twice, as the JSON5 parser reads keys
// (quotes and escapes read), and nesting past 200 levels are refused with
// their line; strings, comments and sibling objects hold no duplicates.
func TestCheckJSON5(t *testing.T) {
	for data, want := range map[string]string{
		`{a: 1, b: {a: 2}, c: [{a: 3}, {a: 4}], d: 'a: 5', /* a: 6 */ e: "{a: 7}"}`: "",
		`{"a\"b": 1, 'a\'b': 2}`:                            "",
		"{a: 1,\n a: 2}":                                    `line 2: duplicate key "a"`,
		"{a: 1,\n 'a': 2}":                                  `line 2: duplicate key "a"`,
		"{\"a\": 1,\n\n '\\u0061': 2}":                      `line 3: duplicate key "a"`,
		`{"a\"b": 1, 'a"b': 2}`:                             `line 1: duplicate key "a\"b"`,
		"[{x: {y: 1, y: 2}}]":                               `line 1: duplicate key "y"`,
		strings.Repeat("[", 201) + strings.Repeat("]", 201): "line 1: nested more than 200 levels deep",
		// Lines end at LF, CR LF or CR (they were counted at LF only), and
		// a line comment ends at either (the parser's rule; the rest of a
		// CR-only file was taken for the comment).
		"{\r\rteams: {},\r\rteams: {}}":  `line 5: duplicate key "teams"`,
		"{\r\n'a\\\r': 1,\r a: 2, a: 3}": `line 4: duplicate key "a"`,
		"{/*\r*/ a: 1,\r\n a: 2}":        `line 3: duplicate key "a"`,
		"{a: 1, // c\rb: 2, b: 3}":       `line 2: duplicate key "b"`,
		// What the parser reads as no key (U+2028 and U+00A0, which JSON5
		// counts as white space and the parser does not) is left to it
		// ("invalid character '\u2028' looking for beginning of object
		// key"): it was a duplicate key "\u2028" of line 1.
		"{\u2028 a: 1,\u2028 b: 2}": "",
		"{\u00a0a: 1,\n\u00a0a: 2}": "",
		"{a-b: 1, a-b: 2}":          "",
	} {
		err := spec.CheckJSON5([]byte(data))
		if want == "" && err != nil || want != "" && (err == nil || err.Error() != want) {
			t.Errorf("CheckJSON5(%.60s) = %v, want %q", data, err, want)
		}
	}
}

// TestParse_DepthAlikeInEveryFormat: "nested at most 200 levels" counts
// objects and arrays alike in JSON, JSON5 and YAML: a file of 200 levels
// is read (with an unknown key warning), one of 201 is refused, whether its
// innermost array is empty or not. YAML counted its document node as a
// level (refusing 200) and JSON let an empty array at level 201 through.
func TestParse_DepthAlikeInEveryFormat(t *testing.T) {
	nest := func(levels int, inner string) string { // levels of arrays
		return strings.Repeat("[", levels) + inner + strings.Repeat("]", levels)
	}
	for _, levels := range []int{200, 201} {
		for _, inner := range []string{"1", ""} {
			arrays := nest(levels-1, inner) // under the top object
			for file, data := range map[string]string{
				"a.json":  `{"name": "x", "instructions": "do", "extra": ` + arrays + `}`,
				"a.json5": `{name: "x", instructions: "do", extra: ` + arrays + `}`,
				"a.yaml":  "name: x\ninstructions: do\nextra: " + arrays + "\n",
			} {
				_, rep := spec.Parse(file, []byte(data), spec.Options{})
				deep := false
				for _, p := range rep.Problems {
					deep = deep || strings.Contains(p.Message, "nested more than 200 levels deep")
				}
				if want := levels > 200; deep != want || (rep.Err() != nil) != want {
					t.Errorf("%s of %d levels (innermost %q): too deep = %v, err = %v; want too deep %v", file, levels, inner, deep, rep.Err(), want)
				}
			}
		}
	}
}

// TestParse_JSON5SyntaxErrorNamesLine: a JSON5 definition's syntax error
// names its line, in files with LF, CR LF and CR line ends, and a
// character that is not ASCII whole; it named neither ("syntax error:
// invalid character ','"), as config's errors now do.
func TestParse_JSON5SyntaxErrorNamesLine(t *testing.T) {
	for _, eol := range []string{"\n", "\r\n", "\r"} {
		data := strings.ReplaceAll("{\n  name: 'rev',\n  version: '1',,\n}\n", "\n", eol)
		_, rep := spec.ParseTeam("t.json5", []byte(data), spec.Options{})
		if rep.Errors() != 1 || rep.Problems[0].Line != 3 || !strings.Contains(rep.Problems[0].Message, "invalid character ','") {
			t.Errorf("%q: problems %v, want one syntax error at line 3", eol, rep.Problems)
		}
	}
	_, rep := spec.ParseTeam("t.json5", []byte("{\n  name: 'rev',\n  \u00e9: 1\n}"), spec.Options{})
	if rep.Errors() != 1 || rep.Problems[0].Line != 3 || !strings.Contains(rep.Problems[0].Message, "'é'") {
		t.Errorf("problems %v, want one syntax error at line 3 naming 'é'", rep.Problems)
	}
}

// TestParseJSON5_NumberOutOfRangeNamesLine: a number no float64 holds
// (1e400) in a JSON5 file is a syntax error naming its line, as in JSON;
// it was "json: cannot unmarshal number 1e400 into Go value of type
// float64", without a line (a config file's too: config.Parse).
func TestParseJSON5_NumberOutOfRangeNamesLine(t *testing.T) {
	data := "{\n name: 'a',\n description: 'd',\n x: -1e400,\n}"
	_, rep := spec.Parse("a.json5", []byte(data), spec.Options{})
	if rep.Errors() != 1 || rep.Problems[0].Line != 4 || rep.Problems[0].Message != "syntax error: number -1e400 out of range" {
		t.Errorf("problems %v, want a.json5:4: syntax error: number -1e400 out of range", rep.Problems)
	}
}

// TestParseJSON5_ProblemsNameLines: the problems of a JSON5 definition
// name their lines, as those of the same text read as JSON do; they named
// none ("t.json5: error: /description: must be a string"), the JSON5
// parser giving no positions.
func TestParseJSON5_ProblemsNameLines(t *testing.T) {
	data := `{
  "name": "rev",
  "version": "1.0.0",
  "description": 7,
  "agents": ["a",
    3],
  "colour": "red",
  "workflow": {"type": "graph", "steps": [
    {"name": "s1", "agent": "a", "oops": 1},
    {"name": "s2",
     "agent": "b", "depends_on": "s1"}
  ]}
}
`
	lines := func(rep spec.Report) []string {
		var out []string
		for _, p := range rep.Problems {
			out = append(out, fmt.Sprintf("%d %s %s", p.Line, p.Path, p.Message))
		}
		slices.Sort(out) // (JSON5's keys come sorted)
		return out
	}
	_, rj := spec.ParseTeam("t.json", []byte(data), spec.Options{})
	_, r5 := spec.ParseTeam("t.json5", []byte(data), spec.Options{})
	if len(rj.Problems) < 4 || !slices.Equal(lines(rj), lines(r5)) {
		t.Errorf("JSON5 problems\n%s\nwant those of JSON\n%s", strings.Join(lines(r5), "\n"), strings.Join(lines(rj), "\n"))
	}
	// JSON5's own syntax: comments, unquoted and single-quoted keys,
	// trailing commas, a key with an escape, strings holding brackets.
	data5 := `// a team
{
  name: 'rev', /* version: [ */
  version: "1.0.0",
  'descr\u0069ption': 7,
  agents: ['a{', "b]",
    3,],
  workflow: {type: 'graph', steps: [
    {name: 's1', agent: 'a{', oops: 1,},
  ],},
}
`
	_, r := spec.ParseTeam("t.json5", []byte(data5), spec.Options{})
	got := map[string]int{}
	for _, p := range r.Problems {
		got[p.Path] = p.Line
	}
	for path, line := range map[string]int{"/description": 5, "/agents/2": 7, "/workflow/steps/0/oops": 9} {
		if got[path] != line {
			t.Errorf("%s: line %d, want %d (problems %v)", path, got[path], line, r.Problems)
		}
	}
}

// TestJSON5Error_Nil: JSON5Error of no error is no error, as a caller
// that passes json5.Unmarshal's error without looking expects; it
// panicked (a nil pointer dereference).
func TestJSON5Error_Nil(t *testing.T) {
	if err := spec.JSON5Error([]byte("{}"), nil); err != nil {
		t.Errorf("JSON5Error(nil) = %v", err)
	}
}
