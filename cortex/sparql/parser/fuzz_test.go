package parser_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
	"github.com/cortexgraph/cortex/cortex/sparql/parser"
)

const benchDir = "/work/shared/bench/queries"

// seedQueries returns the texts of testdata/*.rq, the W3C queries and the bench queries that exist.
func seedQueries(tb testing.TB) []string {
	var paths []string
	local, _ := filepath.Glob("testdata/*.rq")
	paths = append(paths, local...)
	bench, _ := filepath.Glob(filepath.Join(benchDir, "*.rq"))
	paths = append(paths, bench...)
	if _, err := os.Stat(w3cDir); err == nil {
		_ = filepath.WalkDir(w3cDir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && filepath.Ext(p) == ".rq" {
				paths = append(paths, p)
			}
			return nil
		})
	}
	var out []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

// FuzzParseQuery checks that Parse never panics and that every query it accepts round-trips through the
// SSE text form: Parse → String → ParseSSE → String is the identity.
func FuzzParseQuery(f *testing.F) {
	for _, s := range seedQueries(f) {
		f.Add(s)
	}
	f.Add("SELECT * { ?s <p>+/^<q>|!(^<a>|<b>) ?o }")
	f.Add("CONSTRUCT WHERE { [] ?p ( 1 [ ?q 'x'@en ] ) }")
	f.Add("PREFIX \uFFFD: <http://e/> SELECT ?\uFFFD { ?\uFFFD \uFFFD:\uFFFD _:\uFFFD FILTER(?\uFFFD != '\uFFFD') }")
	f.Fuzz(func(t *testing.T, src string) {
		q, err := parser.Parse(src, parser.DefaultOptions().WithBase("http://example.org/base/"))
		if err != nil {
			return
		}
		text := q.String()
		q2, err := algebra.ParseSSE(text)
		if err != nil {
			t.Fatalf("ParseSSE of printed algebra failed: %v\nquery: %q\nalgebra:\n%s", err, src, text)
		}
		if got := q2.String(); got != text {
			t.Fatalf("round trip differs for %q:\n%s\n----\n%s", src, text, got)
		}
	})
}

func BenchmarkParse_BenchQueries(b *testing.B) {
	paths, _ := filepath.Glob(filepath.Join(benchDir, "*.rq"))
	if len(paths) == 0 {
		b.Skip("no bench queries")
	}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(p), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if _, err := parser.Parse(string(src), parser.DefaultOptions()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkParse_W3CAll(b *testing.B) {
	srcs := seedQueries(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range srcs {
			_, _ = parser.Parse(s, parser.Options{})
		}
	}
}

func BenchmarkString_BenchQueries(b *testing.B) {
	paths, _ := filepath.Glob(filepath.Join(benchDir, "*.rq"))
	if len(paths) == 0 {
		b.Skip("no bench queries")
	}
	var qs []*algebra.Query
	for _, p := range paths {
		src, _ := os.ReadFile(p)
		q, err := parser.Parse(string(src), parser.DefaultOptions())
		if err != nil {
			b.Fatal(err)
		}
		qs = append(qs, q)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, q := range qs {
			_ = q.String()
		}
	}
}
