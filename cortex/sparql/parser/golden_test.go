package parser_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
	"github.com/cortexgraph/cortex/cortex/sparql/parser"
)

var update = flag.Bool("update", false, "rewrite testdata/*.sse golden files")

// TestParse_Golden parses testdata/*.rq and compares the algebra with testdata/*.sse; run with -update to
// rewrite the golden files. Each golden text must also round-trip through ParseSSE.
func TestParse_Golden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.rq")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/*.rq files")
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".rq")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			q, err := parser.Parse(string(src), parser.DefaultOptions().WithBase("http://example.org/q/"))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			got := q.String() + "\n"
			golden := strings.TrimSuffix(f, ".rq") + ".sse"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if got != string(want) {
				t.Errorf("algebra differs from %s:\ngot:\n%s\nwant:\n%s", golden, got, want)
			}
			q2, err := algebra.ParseSSE(got)
			if err != nil {
				t.Fatalf("ParseSSE: %v", err)
			}
			if again := q2.String() + "\n"; again != got {
				t.Errorf("SSE round trip differs:\n%s\n----\n%s", got, again)
			}
		})
	}
}
