package spec_test

import (
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/spec"
)

// TestLoad_ByteOrderMark: a file that starts with a UTF-8 byte order mark
// (as editors on Windows save them) is read as without it, in every
// format. A Markdown agent with one was skipped in a directory ("no front
// matter") and refused by name; a JSON file was a syntax error naming the
// character 'ï'; YAML alone read it.
func TestLoad_ByteOrderMark(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agents/x.md":   "\ufeff---\nname: x\n---\nDo things.\n",
		"agents/y.json": "\ufeff{\"name\": \"y\"}",
		"agents/z.yaml": "\ufeffname: z\n",
		"w.json5":       "\ufeff{name: 'w'}",
		"t.json":        "\ufeff{\"name\": \"t\", \"version\": \"1\", \"agents\": [\"x\", \"y\", \"z\", \"w\"]}",
	})
	t.Chdir(dir)
	set, rep, err := spec.Load([]string{"agents", "w.json5", "t.json"}, spec.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) > 0 {
		t.Fatalf("problems: %v", rep.Problems)
	}
	if got := len(set.Defs); got != 5 {
		t.Fatalf("%d definitions, want 5", got)
	}
	if a := set.Agents()[0]; a.Name != "x" || a.Instructions != "Do things." {
		t.Fatalf("agent %+v", a)
	}
	if _, rep := spec.ParseAgent("x.md", []byte("\ufeff---\nname: x\n---\n"), spec.Options{}); rep.Err() != nil {
		t.Fatalf("ParseAgent: %v", rep.Err())
	}
}

// TestParseAgent_FenceTrailingSpace: the closing "---" of a Markdown
// agent's front matter may have trailing white space, as its opening line
// may. It was "front matter has no closing \"---\" line".
func TestParseAgent_FenceTrailingSpace(t *testing.T) {
	for _, data := range []string{"--- \nname: a\n--- \nDo it.\n", "---\t\r\nname: a\r\n---\t \r\nDo it.\r\n"} {
		a, rep := spec.ParseAgent("a.md", []byte(data), spec.Options{})
		if rep.Err() != nil || a.Name != "a" || a.Instructions != "Do it." {
			t.Errorf("%q: %+v, %v", data, a, rep.Err())
		}
	}
}

// TestParseAgent_CROnlyLines: a Markdown agent whose lines end in CR alone
// (classic Mac editors) is read as one with LF or CRLF, as a YAML or JSON
// definition with such lines is; it was refused for lack of front matter.
// An error in its front matter names the right line.
func TestParseAgent_CROnlyLines(t *testing.T) {
	a, rep := spec.ParseAgent("a.md", []byte("---\rname: a\rdescription: d\r---\rDo it.\rThen stop.\r"), spec.Options{})
	if rep.Err() != nil || a.Name != "a" || a.Description != "d" || a.Instructions != "Do it.\nThen stop." {
		t.Errorf("%+v, %v", a, rep.Err())
	}
	_, rep = spec.ParseAgent("a.md", []byte("\r---\rname: a\rdescription: [\r---\rDo it.\r"), spec.Options{})
	if err := rep.Err(); err == nil || !strings.Contains(err.Error(), "a.md:4") {
		t.Errorf("an error on line 4: %v", err)
	}
}

// TestLoad_FileGivenTwice: a file given twice, or given and found in a
// directory given too, is read once; it was an error of itself ("team "t"
// is also defined in t.json").
func TestLoad_FileGivenTwice(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"agents/x.md": "---\nname: x\n---\nDo things.\n",
		"t.json":      `{"name": "t", "version": "1", "agents": ["x"]}`,
	})
	t.Chdir(dir)
	for _, paths := range [][]string{{"t.json", "t.json", "agents"}, {"agents", "agents/x.md", "./t.json", "t.json"}} {
		set, rep, err := spec.Load(paths, spec.Options{Strict: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Problems) > 0 || len(set.Defs) != 2 {
			t.Errorf("%q: %d definitions, problems %v; want 2, none", paths, len(set.Defs), rep.Problems)
		}
	}
}
