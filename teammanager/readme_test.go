package teammanager_test

import (
	"os"
	"strings"
	"testing"
)

// TestREADME_UseItFromGo: the README's "Use it from Go" code is the body of
// Example_embedding (compiled and run with its output checked), so the
// README's embedding cannot go stale.
func TestREADME_UseItFromGo(t *testing.T) {
	src, err := os.ReadFile("example_embed_test.go")
	if err != nil {
		t.Fatal(err)
	}
	body := between(t, string(src), "\t// --- README: Use it from Go ---\n", "\t// --- end ---\n")
	var want strings.Builder
	for _, line := range strings.SplitAfter(body, "\n") {
		want.WriteString(strings.TrimPrefix(line, "\t"))
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	section := between(t, string(readme), "## Use it from Go\n", "\n### Details\n")
	got := between(t, section, "```go\n", "```\n")
	if got != want.String() {
		t.Fatalf("README.md's \"Use it from Go\" code differs from Example_embedding's body (teammanager/example_embed_test.go); it should read:\n%s", want.String())
	}
}

// between returns the text of s after the first start and before the next
// end.
func between(t *testing.T, s, start, end string) string {
	t.Helper()
	i := strings.Index(s, start)
	if i < 0 {
		t.Fatalf("%q not found", start)
	}
	s = s[i+len(start):]
	j := strings.Index(s, end)
	if j < 0 {
		t.Fatalf("%q not found after %q", end, start)
	}
	return s[:j]
}
