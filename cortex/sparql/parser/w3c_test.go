package parser_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
	"github.com/cortexgraph/cortex/cortex/sparql/parser"
)

const w3cDir = "/work/shared/w3c/sparql"

// w3cExceptions lists evaluation-test queries that are expected not to parse, with the reason.
var w3cExceptions = map[string]string{}

// manifestKinds maps query files (relative to w3cDir) to the type of the manifest entry using them:
// "negative" for mf:NegativeSyntaxTest(11), "positive" for everything else. Files absent from every
// manifest are not in the map.
func manifestKinds(t testing.TB) map[string]string {
	t.Helper()
	kinds := map[string]string{}
	manifests, _ := filepath.Glob(filepath.Join(w3cDir, "*", "*", "manifest.ttl"))
	for _, m := range manifests {
		b, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Dir(m)
		// Entries start at a line beginning with a subject (":name" or "<#name>").
		var blocks []string
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, ":") || strings.HasPrefix(line, "<#") {
				blocks = append(blocks, "")
			}
			if len(blocks) > 0 {
				blocks[len(blocks)-1] += line + "\n"
			}
		}
		for _, blk := range blocks {
			kind := "positive"
			if strings.Contains(blk, "NegativeSyntaxTest") {
				kind = "negative"
			}
			for _, f := range strings.Fields(strings.NewReplacer("<", " <", ">", "> ").Replace(blk)) {
				if strings.HasPrefix(f, "<") && strings.HasSuffix(f, ".rq>") {
					rel, _ := filepath.Rel(w3cDir, filepath.Join(dir, f[1:len(f)-1]))
					kinds[rel] = kind
				}
			}
		}
	}
	return kinds
}

func w3cQueries(t testing.TB) []string {
	t.Helper()
	if _, err := os.Stat(w3cDir); err != nil {
		t.Skipf("W3C test data not available: %v", err)
	}
	var files []string
	err := filepath.WalkDir(w3cDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".rq") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// baseFor returns the base IRI the W3C manifests give a query: its file location.
func baseFor(path string) string {
	rel, _ := filepath.Rel(w3cDir, path)
	return "http://www.w3.org/2009/sparql/docs/tests/data-sparql11/" + filepath.ToSlash(rel)
}

func TestParse_W3CQueries(t *testing.T) {
	files := w3cQueries(t)
	kinds := manifestKinds(t)
	parsed, failed, negatives, unreferenced := 0, 0, 0, 0
	for _, path := range files {
		rel, _ := filepath.Rel(w3cDir, path)
		name := filepath.Base(path)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		q, err := parser.Parse(string(src), parser.Options{Base: baseFor(path)})
		negative := strings.HasPrefix(name, "syn-bad") || kinds[rel] == "negative"
		if negative {
			negatives++
		}
		if _, ok := kinds[rel]; !ok && !negative {
			// Not used by any manifest (drafts of the path syntax such as :p{2}): informational only.
			unreferenced++
			t.Logf("%s: not in any manifest; parse error: %v", rel, err)
			continue
		}
		switch {
		case negative && err == nil:
			failed++
			t.Errorf("%s: negative syntax test parsed", rel)
		case negative:
			parsed++
		case err != nil:
			if reason, ok := w3cExceptions[rel]; ok {
				t.Logf("%s: expected failure (%s): %v", rel, reason, err)
				continue
			}
			failed++
			t.Errorf("%s: %v", rel, err)
		default:
			parsed++
			text := q.String()
			q2, err := algebra.ParseSSE(text)
			if err != nil {
				t.Errorf("%s: ParseSSE: %v\n%s", rel, err, text)
				continue
			}
			if got := q2.String(); got != text {
				t.Errorf("%s: round trip differs:\n%s\n----\n%s", rel, text, got)
			}
		}
	}
	t.Logf("W3C queries: %d files, %d handled as expected (%d negative syntax tests rejected), %d failures, %d not in any manifest",
		len(files), parsed, negatives, failed, unreferenced)
}
