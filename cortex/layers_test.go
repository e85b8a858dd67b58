package cortex_test

import (
	"go/build"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// layers is the module's import graph between its own packages, as
// cortex/doc.go ("Layers") describes it: for each package, the packages of
// the module it may import (non-test code). A package missing here, or an
// import not listed, fails TestLayers: a new edge is a decision, made here
// and in doc.go, not an accident.
var layers = map[string][]string{
	"internal/ctxcause":        nil,
	"internal/proc":            nil,
	"internal/jsonexact":       nil,
	"internal/pathtext":        nil,
	"namespace":                nil,
	"merge":                    nil,
	"config":                   {"internal/pathtext", "namespace", "spec"},
	"fixtures":                 nil,
	"cortex/internal/layout":   nil,
	"cortex/internal/badgerkv": nil,
	"cortex/internal/iri":      nil,
	"cortex/internal/lex":      nil,
	"cortex/internal/ntriples": {"cortex/internal/lex"},
	"cortex/rdfio":             {"cortex/internal/iri", "cortex/internal/lex", "cortex/internal/ntriples", "internal/pathtext"},
	"cortex/rdfio/rdftest":     nil,
	"cortex/sparql/algebra":    {"cortex/internal/iri", "cortex/internal/ntriples"},
	"cortex/sparql/builtin":    {"cortex/internal/iri"},
	"cortex/sparql/parser":     {"cortex/internal/iri", "cortex/internal/lex", "cortex/sparql/algebra"},
	"cortex/sparql/results":    {"cortex/internal/lex", "cortex/internal/ntriples"},
	"cortex/sparql/eval":       {"cortex/sparql/algebra", "cortex/sparql/builtin", "internal/ctxcause"},
	"cortex/sparql":            {"cortex/sparql/algebra", "cortex/sparql/eval", "cortex/sparql/parser", "cortex/sparql/results", "internal/ctxcause"},
	"cortex/internal/sorted":   {"cortex/internal/layout"},
	"cortex/internal/engine": {"cortex/internal/badgerkv", "cortex/internal/iri", "cortex/internal/layout", "cortex/internal/lex",
		"cortex/internal/sorted", "cortex/rdfio", "cortex/sparql", "cortex/sparql/eval", "internal/pathtext", "internal/proc", "namespace"},
	"cortex":            {"cortex/internal/engine", "cortex/sparql", "cortex/sparql/eval"},
	"cortex/cortextest": {"cortex"},
	"teammanager": {"config", "cortex", "cortex/rdfio", "cortex/sparql", "cortex/sparql/eval", "cortex/sparql/parser",
		"internal/ctxcause", "internal/jsonexact", "merge", "namespace"},
	"spec":     {"internal/pathtext"},
	"defstore": {"cortex", "namespace", "spec"},
	"api": {"config", "cortex", "cortex/rdfio", "cortex/sparql/algebra", "cortex/sparql/parser", "defstore", "merge", "namespace",
		"spec", "teammanager", "workflow"},
	"server": {"api", "config", "cortex", "internal/jsonexact", "internal/pathtext", "internal/proc", "cortex/rdfio", "cortex/sparql", "cortex/sparql/algebra", "cortex/sparql/eval",
		"cortex/sparql/results", "defstore", "merge", "namespace", "spec", "teammanager", "workflow"},
	"client":   {"api", "cortex", "cortex/rdfio", "defstore", "cortex/sparql/results", "internal/ctxcause", "merge", "namespace", "server", "spec", "teammanager", "workflow"},
	"workflow": {"config", "cortex", "cortex/rdfio", "internal/ctxcause", "internal/proc", "merge", "namespace", "spec", "teammanager"},
}

// TestLayers checks the import graph of the module's library packages
// against layers (commands under cmd/ may import anything).
func TestLayers(t *testing.T) {
	const module = "github.com/cortexgraph/cortex/"
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata" || rel == "cmd" || strings.HasPrefix(rel, "cmd/")) {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			return nil
		}
		pkg, err := build.ImportDir(path, 0)
		if err != nil {
			return nil // no Go files
		}
		seen[rel] = true
		allowed, ok := layers[rel]
		if !ok {
			t.Errorf("package %s is not in the layers table (cortex/layers_test.go, cortex/doc.go)", rel)
			return nil
		}
		for _, imp := range pkg.Imports {
			if own, ok := strings.CutPrefix(imp, module); ok && !slices.Contains(allowed, own) {
				t.Errorf("%s imports %s: not an edge of the layers", rel, own)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for p := range layers {
		if !seen[p] {
			t.Errorf("layers lists %s, which is not a package of the module", p)
		}
	}
}

// TestLayers_Doc checks that cortex/doc.go's "Layers" section, which
// TestLayers stands for, names every package of the layers table by its
// path: a package that the list leaves out has its place in the import
// graph nowhere but in this test.
func TestLayers_Doc(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "// # Layers\n")
	if !ok {
		t.Fatal("doc.go has no Layers section")
	}
	section, _, _ = strings.Cut(section, "\n// # ")
	text := strings.Join(strings.Fields(strings.ReplaceAll(section, "//", " ")), " ")
	for p := range layers {
		if !regexp.MustCompile(`(^|[^\w/])` + regexp.QuoteMeta(p) + `([^\w/]|$)`).MatchString(text) {
			t.Errorf("cortex/doc.go's Layers section does not name package %s", p)
		}
	}
}

// TestLayers_README checks that the README's "Layout" section names every
// package of the layers table: by its path (`p/` or `p`), or, for a
// package under a row's directory, by its last element in that row.
func TestLayers_README(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, layout, ok := strings.Cut(string(readme), "\n## Layout\n")
	if !ok {
		t.Fatal("README.md has no Layout section")
	}
	layout, _, _ = strings.Cut(layout, "\n## ")
	rows := map[string]string{} // a row's directory → the row
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z/]+)/`([^\\n]*)$").FindAllStringSubmatch(layout, -1) {
		rows[m[1]] = m[2]
	}
	for p := range layers {
		if strings.Contains(layout, "`"+p+"/`") || strings.Contains(layout, "`"+p+"`") {
			continue
		}
		parent, base := p[:max(strings.LastIndex(p, "/"), 0)], p[strings.LastIndex(p, "/")+1:]
		if row, ok := rows[parent]; ok && strings.Contains(row, "`"+base+"`") {
			continue
		}
		t.Errorf("the README's Layout does not name package %s", p)
	}
}
