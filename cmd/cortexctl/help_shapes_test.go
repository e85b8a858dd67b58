package main

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// helpShapeRE finds the "JSON: {...}." or "JSON: [{...}]." line of a
// command's --help.
var helpShapeRE = regexp.MustCompile(`JSON: (\[?\{.*\}\]?)`)

// helpShapeKeys returns the top-level field names of a shape such as
// "{store, quads, unfinishedImports: [{id, source}]}" (or the same in
// brackets), each with whether it is optional ("name?").
func helpShapeKeys(t *testing.T, shape string) map[string]bool {
	t.Helper()
	s := strings.TrimSuffix(strings.TrimPrefix(shape, "["), "]")
	s = strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")
	keys := map[string]bool{}
	depth, start := 0, 0
	field := func(f string) {
		name, _, _ := strings.Cut(strings.TrimSpace(f), ":")
		name, _, _ = strings.Cut(strings.TrimSpace(name), " ") // "timeout (s)"
		if name == "" {
			t.Fatalf("shape %q: empty field", shape)
		}
		opt := strings.HasSuffix(name, "?")
		keys[strings.TrimSuffix(name, "?")] = opt
	}
	for i, r := range s {
		switch r {
		case '{', '[', '(':
			depth++
		case '}', ']', ')':
			depth--
		case ',':
			if depth == 0 {
				field(s[start:i])
				start = i + 1
			}
		}
	}
	field(s[start:])
	return keys
}

// TestHelp_JSONShapes checks the JSON shapes that commands' --help states
// against what the commands print: every field printed is named, and every
// field named without "?" is printed.
func TestHelp_JSONShapes(t *testing.T) {
	dir := t.TempDir()
	if r := runCLI(t, dir, "<http://ex.org/s> <http://ex.org/p> \"o\" .\n", "import", "-", "--format", "nt"); r.code != 0 {
		t.Fatalf("import: exit %d: %s", r.code, r.stderr)
	}
	cases := []struct {
		help []string // the command whose --help states the shape
		run  []string // a run of it with --json
	}{
		{[]string{"stats"}, []string{"stats", "--json"}},
		{[]string{"graphs"}, []string{"graphs", "--json"}},
		{[]string{"namespaces", "list"}, []string{"namespaces", "list", "--json"}},
		{[]string{"tokens", "create"}, []string{"tokens", "create", "--role", "read", "--json"}},
		{[]string{"tokens", "list"}, []string{"tokens", "list", "--json"}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.help, " "), func(t *testing.T) {
			help := runCLI(t, dir, "", append(c.help, "--help")...)
			m := helpShapeRE.FindStringSubmatch(help.stdout)
			if m == nil {
				t.Fatalf("no JSON shape in the help:\n%s", help.stdout)
			}
			documented := helpShapeKeys(t, strings.TrimSuffix(m[1], "."))
			checkShape(t, c.run, mustCLI(t, dir, c.run...), documented, "its help's shape "+m[1])
		})
	}
	if got := slices.Sorted(func(yield func(string) bool) {
		for k := range helpShapeKeys(t, "{a, b?: [{c, d}], e (s)}") {
			if !yield(k) {
				return
			}
		}
	}); !slices.Equal(got, []string{"a", "b", "e"}) {
		t.Errorf("helpShapeKeys: %v", got)
	}
}

// checkShape fails t unless out, the --json output of run (an object, or a
// list of them: its first), has every key of documented that is not
// optional and no other; shape names the documented shape in messages.
func checkShape(t *testing.T, run []string, out string, documented map[string]bool, shape string) {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%v: %s: %v", run, out, err)
	}
	if a, ok := v.([]any); ok {
		if len(a) == 0 {
			t.Fatalf("%v printed an empty list: the test checks nothing", run)
		}
		v = a[0]
	}
	obj, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%v printed %s, not an object or a list of objects", run, out)
	}
	for k := range obj {
		if _, ok := documented[k]; !ok {
			t.Errorf("%v prints %q, which %s does not name", run, k, shape)
		}
	}
	for k, opt := range documented {
		if _, ok := obj[k]; !ok && !opt {
			t.Errorf("%v does not print %q, which %s names as always there", run, k, shape)
		}
	}
}
