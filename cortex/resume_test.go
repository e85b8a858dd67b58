package cortex_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/cortex/rdfio"
)

// bnodeFile writes n findings as N-Triples, each a blank node with three
// triples, and returns its path.
func bnodeFile(t *testing.T, n int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "findings.nt")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := 0; i < n; i++ {
		fmt.Fprintf(w, "_:f%d <http://ex/about> <http://ex/file%d> .\n_:f%d <http://ex/says> \"finding %d\" .\n_:f%d <http://ex/by> <http://ex/agent%d> .\n", i, i%97, i, i, i, i%5)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// importFile imports path into ns with a resume source, reporting the start.
func importFile(ctx context.Context, ns *cortex.Namespace, path string, onStart func(cortex.ImportStart), progress func(int64)) (cortex.ImportResult, error) {
	src, err := cortex.FileSource(path)
	if err != nil {
		return cortex.ImportResult{}, err
	}
	f, err := os.Open(path)
	if err != nil {
		return cortex.ImportResult{}, err
	}
	defer f.Close()
	return ns.ImportRDF(ctx, f, cortex.RDFImportOptions{Format: rdfio.NTriples, File: path, Resume: &src, OnStart: onStart, Progress: progress})
}

// childImportRDF imports file with a resume source in small streamed
// segments, printing the import id and each commit.
func childImportRDF(dir, file string) {
	ctx := context.Background()
	s, err := cortex.Open(ctx, dir, cortex.WithStreamTuning(cortex.DefaultOptions().WithChunkQuads(500), 1<<20, 100))
	if err != nil {
		fmt.Println("error", err)
		return
	}
	ns, err := s.Namespace(ctx, "default")
	if err != nil {
		fmt.Println("error", err)
		return
	}
	_, err = importFile(ctx, ns, file, func(st cortex.ImportStart) { fmt.Println("id", st.ID) },
		func(n int64) { fmt.Println("committed", n) })
	fmt.Println("error", err)
}

// TestImportRDF_ResumesAfterCrash kills an import of a file with blank
// nodes after its first segment and runs the same import again without an
// id: it resumes the recorded import (same id), so the graph is exactly the
// file's, blank nodes not duplicated, and no unfinished import is left.
func TestImportRDF_ResumesAfterCrash(t *testing.T) {
	t.Parallel()
	file := bnodeFile(t, 20_000)
	dir := t.TempDir()
	cmd, lines := startChild(t, "importrdf", dir, "CORTEX_TEST_FILE="+file)
	var id string
	for lines.Scan() {
		f := strings.Fields(lines.Text())
		if len(f) == 2 && f[0] == "id" {
			id = f[1]
			continue
		}
		if len(f) == 2 && f[0] == "committed" {
			if n, _ := strconv.ParseInt(f[1], 10, 64); n > 0 {
				break // the first segment is in; kill the import in the next
			}
			continue
		}
		t.Fatalf("child: %s", lines.Text())
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if id == "" {
		t.Fatal("the child printed no import id")
	}

	ctx := context.Background()
	s, ns := openNS(t, dir, cortex.DefaultOptions())
	defer s.Close()
	unfinished, err := ns.UnfinishedImports(ctx)
	if err != nil || len(unfinished) != 1 || unfinished[0].ID != id {
		t.Fatalf("unfinished imports %+v, %v; want the killed one (%s)", unfinished, err, id)
	}
	if n, _ := ns.Size(ctx); n == 0 || n >= 60_000 {
		t.Fatalf("%d quads after the kill: want part of the file", n)
	}
	var start cortex.ImportStart
	if _, err := importFile(ctx, ns, file, func(st cortex.ImportStart) { start = st }, nil); err != nil {
		t.Fatal(err)
	}
	if !start.Resumed || start.ID != id || start.Started.IsZero() {
		t.Fatalf("re-run started %+v, want a resumption of %s", start, id)
	}
	if n, _ := ns.Size(ctx); n != 60_000 {
		t.Fatalf("%d quads after the resumed import, want the file's 60,000 (blank nodes duplicated?)", n)
	}
	bnodes := map[quad.Value]bool{}
	for _, q := range cortextest.AllQuads(t, ns) {
		bnodes[q.Subject] = true
	}
	if len(bnodes) != 20_000 {
		t.Fatalf("%d blank nodes, want 20,000", len(bnodes))
	}
	cortex.CheckFormat(t, ns)
	if unfinished, err := ns.UnfinishedImports(ctx); err != nil || len(unfinished) != 0 {
		t.Fatalf("unfinished imports %+v, %v after it completed", unfinished, err)
	}
	// A new import of the same file is a new import (its own blank nodes).
	if _, err := importFile(ctx, ns, file, func(st cortex.ImportStart) { start = st }, nil); err != nil {
		t.Fatal(err)
	}
	if start.Resumed || start.ID == id {
		t.Fatalf("a completed import was resumed: %+v", start)
	}
}

// TestImportRDF_ResumeAfterError: an import that fails half-way (a syntax
// error in a later chunk) stays recorded; once the file is fixed it is
// another version, so the next import starts anew and reports the replaced
// record; the same version resumes.
func TestImportRDF_ResumeAfterError(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := chunkedNamespace(t)
	path := filepath.Join(t.TempDir(), "a.nt")
	var b strings.Builder
	for i := 0; i < 500; i++ {
		fmt.Fprintf(&b, "_:b%d <http://ex/p> \"%d\" .\n", i, i)
	}
	good := b.String()
	if err := os.WriteFile(path, []byte(good+"this is not N-Triples\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var first, second, third cortex.ImportStart
	_, err := importFile(ctx, ns, path, func(st cortex.ImportStart) { first = st }, nil)
	var ie *cortex.ImportError
	if !errors.As(err, &ie) || ie.Committed == 0 || ie.ImportID != first.ID {
		t.Fatalf("got %v, want an *ImportError with committed chunks and id %s", err, first.ID)
	}
	if _, err := importFile(ctx, ns, path, func(st cortex.ImportStart) { second = st }, nil); err == nil || !second.Resumed || second.ID != first.ID {
		t.Fatalf("the same file again: %+v, %v; want a resumption of %s (and the same error)", second, err, first.ID)
	}
	if err := os.WriteFile(path, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := importFile(ctx, ns, path, func(st cortex.ImportStart) { third = st }, nil); err != nil {
		t.Fatal(err)
	}
	if third.Resumed || third.ID == first.ID || third.Replaced == nil || third.Replaced.ID != first.ID {
		t.Fatalf("the fixed file: %+v; want a new import replacing the record of %s", third, first.ID)
	}
	if unfinished, err := ns.UnfinishedImports(ctx); err != nil || len(unfinished) != 0 {
		t.Fatalf("unfinished imports %+v, %v", unfinished, err)
	}
}

func TestImportRDF_InvalidImportID(t *testing.T) {
	t.Parallel()
	ns := cortextest.NewNamespace(t, "default")
	for _, id := range []string{"a b", "x/y", "é", strings.Repeat("a", 65), "a>b"} {
		_, err := ns.ImportRDF(context.Background(), strings.NewReader("_:b <http://ex/p> \"o\" .\n"), cortex.RDFImportOptions{Format: rdfio.NTriples, ImportID: id})
		if !errors.Is(err, cortex.ErrInvalidArgument) {
			t.Errorf("import id %q: %v, want ErrInvalidArgument", id, err)
		}
	}
	if n, _ := ns.Size(context.Background()); n != 0 {
		t.Fatalf("%d quads written by refused imports", n)
	}
}

// TestImportRDF_NothingWrittenNoRecord: an import that fails before it
// writes anything (a syntax error in its first chunk) leaves no record to
// resume; a resumed import that fails so keeps the record of its earlier,
// partial run.
func TestImportRDF_NothingWrittenNoRecord(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	open := func(chunk int) (*cortex.Store, *cortex.Namespace) {
		s := cortextest.OpenStore(t, dir, cortex.DefaultOptions().WithChunkQuads(chunk))
		ns, err := s.Namespace(ctx, "default")
		if err != nil {
			t.Fatal(err)
		}
		return s, ns
	}
	s, ns := open(100)
	path := filepath.Join(t.TempDir(), "bad.nt")
	if err := os.WriteFile(path, []byte("this is not N-Triples\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := importFile(ctx, ns, path, nil, nil); err == nil {
		t.Fatal("a malformed file imported")
	}
	if u, err := ns.UnfinishedImports(ctx); err != nil || len(u) != 0 {
		t.Fatalf("unfinished imports %+v, %v after an import that wrote nothing", u, err)
	}

	// A partial import (chunks of 100 quads: 300 committed), then the same
	// file resumed in chunks of 1,000, which fails in its first chunk.
	var b strings.Builder
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&b, "_:b%d <http://ex/p> \"%d\" .\n", i, i)
	}
	if err := os.WriteFile(path, []byte(b.String()+"not N-Triples\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var first, second cortex.ImportStart
	if _, err := importFile(ctx, ns, path, func(st cortex.ImportStart) { first = st }, nil); err == nil {
		t.Fatal("a malformed file imported")
	}
	s.Close()
	s, ns = open(1000)
	defer s.Close()
	_, err := importFile(ctx, ns, path, func(st cortex.ImportStart) { second = st }, nil)
	var ie *cortex.ImportError
	if !errors.As(err, &ie) || ie.Committed != 0 || !second.Resumed {
		t.Fatalf("resumed run: %+v, %v; want a resumption that fails before writing", second, err)
	}
	if u, err := ns.UnfinishedImports(ctx); err != nil || len(u) != 1 || u[0].ID != first.ID {
		t.Fatalf("unfinished imports %+v, %v: want the partial one (%s) kept", u, err, first.ID)
	}
}

// TestFileVersion checks the version of a file that resumable imports
// compare: stable while the file is unchanged, different when its content
// changes even with the same size and modification time, and the one
// FileSource gives with the file's absolute path.
func TestFileVersion(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "data.nt")
	if err := os.WriteFile(p, []byte("<http://ex/a> <http://ex/p> \"1\" .\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v1, err := cortex.FileVersion(p)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := cortex.FileVersion(p); err != nil || again != v1 {
		t.Fatalf("second FileVersion = %q, %v; want %q", again, err, v1)
	}
	src, err := cortex.FileSource(p)
	if err != nil {
		t.Fatal(err)
	}
	if abs, _ := filepath.Abs(p); src.Name != abs || src.Version != v1 {
		t.Errorf("FileSource = %+v; want name %s, version %q", src, abs, v1)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("<http://ex/a> <http://ex/p> \"2\" .\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	if v2, err := cortex.FileVersion(p); err != nil || v2 == v1 {
		t.Errorf("FileVersion after a same-size edit = %q, %v; want a version other than %q", v2, err, v1)
	}
	if _, err := cortex.FileVersion(filepath.Join(t.TempDir(), "missing.nt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("FileVersion of a missing file: %v; want fs.ErrNotExist", err)
	}
}

// TestImportRDF_ResumeRefusesAnotherTarget: an interrupted import into one
// target (a named graph, the default graph, or none given) is not resumed
// into another: the import is refused before anything is written, with
// an error matching ErrInvalidArgument that names both targets and the
// ways on; the same target resumes it, and a new import id imports the
// file anew into the other target.
func TestImportRDF_ResumeRefusesAnotherTarget(t *testing.T) {
	t.Parallel()
	const g1, g2 = quad.IRI("http://ex/g1"), quad.IRI("http://ex/g2")
	type target struct {
		graph     quad.Value
		toDefault bool
		words     string // how the error names it
		again     string // and how it says to give it again
	}
	targets := map[string]target{
		"graph":   {graph: g1, words: "graph <http://ex/g1>", again: "into graph <http://ex/g1>"},
		"other":   {graph: g2, words: "graph <http://ex/g2>", again: "into graph <http://ex/g2>"},
		"default": {toDefault: true, words: "the default graph", again: "into the default graph"},
		"none":    {words: "the input's own graphs (no graph given)", again: "with no graph given"},
	}
	var b strings.Builder
	for i := 0; i < 500; i++ {
		fmt.Fprintf(&b, "_:b%d <http://ex/p> \"%d\" .\n", i, i)
	}
	half := b.String() + "this is not N-Triples\n"
	for _, first := range []string{"graph", "default", "none"} {
		t.Run(first, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			ns := chunkedNamespace(t)
			path := filepath.Join(t.TempDir(), "a.nt")
			if err := os.WriteFile(path, []byte(half), 0o644); err != nil {
				t.Fatal(err)
			}
			run := func(to target, id string) (cortex.ImportStart, bool, error) {
				src, err := cortex.FileSource(path)
				if err != nil {
					t.Fatal(err)
				}
				var st cortex.ImportStart
				started := false
				_, err = ns.ImportRDF(ctx, strings.NewReader(half), cortex.RDFImportOptions{
					Format: rdfio.NTriples, File: path, Graph: to.graph, DefaultGraph: to.toDefault, ImportID: id, Resume: &src,
					OnStart: func(s cortex.ImportStart) { st, started = s, true },
				})
				return st, started, err
			}
			first0, _, err := run(targets[first], "")
			var ie *cortex.ImportError
			if !errors.As(err, &ie) || ie.Committed == 0 {
				t.Fatalf("first run: %v; want an *ImportError after committed chunks", err)
			}
			u, err := ns.UnfinishedImports(ctx)
			if err != nil || len(u) != 1 || u[0].ID != first0.ID {
				t.Fatalf("unfinished imports %+v, %v; want %s", u, err, first0.ID)
			}
			if want := map[string]string{"graph": "<http://ex/g1>", "default": "default", "none": "none"}[first]; u[0].Target != want {
				t.Fatalf("recorded target %q, want %q", u[0].Target, want)
			}
			size, _ := ns.Size(ctx)
			for name, other := range targets {
				if name == first {
					continue
				}
				for _, id := range []string{"", first0.ID} { // no id, or the recorded one given
					_, started, err := run(other, id)
					if !errors.Is(err, cortex.ErrInvalidArgument) || errors.As(err, &ie) {
						t.Fatalf("resume into %s (id %q): %v; want an error matching ErrInvalidArgument, not an import's", name, id, err)
					}
					msg := err.Error()
					for _, want := range []string{"import " + first0.ID + " of " + path, "into " + targets[first].words + ", not " + other.words,
						"import it again " + targets[first].again + " to resume it", "under a new import id"} {
						if !strings.Contains(msg, want) {
							t.Errorf("resume into %s: error %q lacks %q", name, msg, want)
						}
					}
					if started {
						t.Errorf("resume into %s: OnStart was called", name)
					}
					if n, _ := ns.Size(ctx); n != size {
						t.Fatalf("resume into %s: %d quads, want %d: the refused import wrote", name, n, size)
					}
				}
			}
			if u2, err := ns.UnfinishedImports(ctx); err != nil || len(u2) != 1 || u2[0] != u[0] {
				t.Fatalf("unfinished imports %+v, %v after the refusals; want %+v kept", u2, err, u[0])
			}
			// The same target resumes; a new id imports anew elsewhere.
			if st, _, err := run(targets[first], ""); !errors.As(err, &ie) || !st.Resumed || st.ID != first0.ID {
				t.Fatalf("the same target again: %+v, %v; want a resumption of %s (failing the same way)", st, err, first0.ID)
			}
			if n, _ := ns.Size(ctx); n != size {
				t.Fatalf("%d quads after the resumption, want %d", n, size)
			}
			other := targets["other"]
			if first == "graph" {
				other = targets["default"]
			}
			if st, _, err := run(other, "fresh"); !errors.As(err, &ie) || st.Resumed || st.ID != "fresh" || ie.Committed == 0 {
				t.Fatalf("a new import id into another target: %+v, %v; want a new import that commits", st, err)
			}
		})
	}
}

// TestImportRDF_ReadOnlyResume: a resumable import into a read-only store
// fails with ErrReadOnly before it calls OnStart, as every write of a
// read-only store does. It failed with Badger's "No sets or deletes are
// allowed in a read-only transaction", matching no sentinel, when it
// tried to record the import.
func TestImportRDF_ReadOnlyResume(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s := cortextest.OpenStore(t, dir)
	if _, err := s.Namespace(ctx, "default"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r := cortextest.OpenStore(t, dir, cortex.DefaultOptions().WithReadOnly(true))
	ns, err := r.OpenNamespace(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	for _, resume := range []*cortex.ImportSource{nil, {Name: "/data/a.nt", Version: "1"}} {
		started := false
		_, err := ns.ImportRDF(ctx, strings.NewReader("<http://ex/s> <http://ex/p> \"o\" .\n"), cortex.RDFImportOptions{
			Format: rdfio.NTriples, Resume: resume, OnStart: func(cortex.ImportStart) { started = true },
		})
		if !errors.Is(err, cortex.ErrReadOnly) {
			t.Errorf("resume %v: %v, want ErrReadOnly", resume, err)
		}
		if started {
			t.Errorf("resume %v: OnStart called for an import that cannot write", resume)
		}
	}
	if n, err := ns.Size(ctx); err != nil || n != 0 {
		t.Fatalf("size %d, %v", n, err)
	}
}

// TestImportRDF_ResumeSourceNameNotUTF8: a file's path need not be valid
// UTF-8 (FileSource gives it as it is). The record of an unfinished
// import of such a file is listed with its name as given, and the store
// checks clean. The record's JSON turned the name's invalid bytes into
// U+FFFD, so UnfinishedImports named a file that does not exist and
// Store.Check reported the record as corrupt (its key is that of the
// name as given).
func TestImportRDF_ResumeSourceNameNotUTF8(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := cortextest.OpenStore(t, t.TempDir(), cortex.DefaultOptions().WithChunkQuads(100))
	ns, err := s.Namespace(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&b, "_:b%d <http://ex/p> \"%d\" .\n", i, i)
	}
	src := cortex.ImportSource{Name: "/data/caf\xe9.nt", Version: "v1"}
	imp := func() (cortex.ImportStart, error) {
		var st cortex.ImportStart
		_, err := ns.ImportRDF(ctx, strings.NewReader(b.String()+"not N-Triples\n"), cortex.RDFImportOptions{
			Format: rdfio.NTriples, Resume: &src, OnStart: func(s cortex.ImportStart) { st = s },
		})
		return st, err
	}
	first, err := imp()
	var ie *cortex.ImportError
	if !errors.As(err, &ie) || ie.Committed == 0 {
		t.Fatalf("got %v, want an *ImportError with committed chunks", err)
	}
	u, err := ns.UnfinishedImports(ctx)
	if err != nil || len(u) != 1 || u[0].Name != src.Name || u[0].ID != first.ID {
		t.Fatalf("unfinished imports %+v, %v; want the one of %q", u, err, src.Name)
	}
	if err := s.Check(ctx); err != nil {
		t.Fatalf("check: %v", err)
	}
	if second, _ := imp(); !second.Resumed || second.ID != first.ID {
		t.Fatalf("the same source again: %+v; want a resumption of %s", second, first.ID)
	}
}

// TestImportRDF_ChangedFileRecordedIDRefusesAnotherTarget: an interrupted
// import's file changed since (its syntax error fixed) and imported again
// under the recorded id, as cortexctl tells, converges with what that
// import wrote only into the same target: into another one, the quads of
// the first run would stay in the first target and the rest go elsewhere.
// It is refused before anything is written, as a resumption of the same
// version into another target is; into the same target it converges.
func TestImportRDF_ChangedFileRecordedIDRefusesAnotherTarget(t *testing.T) {
	t.Parallel()
	const g1, g2 = quad.IRI("http://ex/g1"), quad.IRI("http://ex/g2")
	var b strings.Builder
	for i := 0; i < 500; i++ {
		fmt.Fprintf(&b, "_:b%d <http://ex/p> \"%d\" .\n", i, i)
	}
	whole := b.String()
	ctx := context.Background()
	ns := chunkedNamespace(t)
	path := filepath.Join(t.TempDir(), "a.nt")
	run := func(content string, g quad.Value, id string) (cortex.ImportStart, error) {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return importResumable(t, ns, path, content, g, id)
	}
	first, err := run(whole+"this is not N-Triples\n", g1, "")
	var ie *cortex.ImportError
	if !errors.As(err, &ie) || ie.Committed == 0 {
		t.Fatalf("first run: %v; want an *ImportError after committed chunks", err)
	}
	size, _ := ns.Size(ctx)
	if _, err := run(whole, g2, first.ID); !errors.Is(err, cortex.ErrInvalidArgument) || errors.As(err, &ie) {
		t.Fatalf("the fixed file under id %s into another graph: %v; want an error matching ErrInvalidArgument", first.ID, err)
	}
	if n, _ := ns.Size(ctx); n != size {
		t.Fatalf("%d quads after the refused import, want %d", n, size)
	}
	if _, err := run(whole, g1, first.ID); err != nil {
		t.Fatalf("the fixed file under id %s into the same graph: %v", first.ID, err)
	}
	if n, _ := ns.Size(ctx); n != 500 {
		t.Fatalf("%d quads, want the file's 500 once", n)
	}
}

// TestImportRDF_ResumeRefusesAnotherBase: an interrupted import of a file
// with relative IRIs is not resumed with another base: its blank nodes
// would be shared by the IRIs of both bases and the graph would be the
// file's under neither. It is refused before anything is written, naming
// both bases; the same base (the file's, when none was given) resumes.
func TestImportRDF_ResumeRefusesAnotherBase(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 0; i < 500; i++ {
		fmt.Fprintf(&b, "<r%d> <http://ex/p> _:b%d .\n", i, i)
	}
	half := b.String() + "this is not Turtle\n"
	ctx := context.Background()
	ns := chunkedNamespace(t)
	path := filepath.Join(t.TempDir(), "a.ttl")
	if err := os.WriteFile(path, []byte(half), 0o644); err != nil {
		t.Fatal(err)
	}
	fileBase, err := rdfio.FileBase(path)
	if err != nil {
		t.Fatal(err)
	}
	run := func(base string) (cortex.ImportStart, bool, error) {
		src, err := cortex.FileSource(path)
		if err != nil {
			t.Fatal(err)
		}
		var st cortex.ImportStart
		started := false
		_, err = ns.ImportRDF(ctx, strings.NewReader(half), cortex.RDFImportOptions{
			Format: rdfio.Turtle, File: path, Base: base, Resume: &src,
			OnStart: func(s cortex.ImportStart) { st, started = s, true },
		})
		return st, started, err
	}
	first, _, err := run("")
	var ie *cortex.ImportError
	if !errors.As(err, &ie) || ie.Committed == 0 {
		t.Fatalf("first run: %v; want an *ImportError after committed chunks", err)
	}
	size, _ := ns.Size(ctx)
	for _, base := range []string{"http://other.example/", "file:///elsewhere/a.ttl"} {
		_, started, err := run(base)
		if !errors.Is(err, cortex.ErrInvalidArgument) || errors.As(err, &ie) {
			t.Fatalf("resume with base %s: %v; want an error matching ErrInvalidArgument, not an import's", base, err)
		}
		if msg := err.Error(); !strings.Contains(msg, "<"+fileBase+">, not <"+base+">") {
			t.Errorf("resume with base %s: error %q names not both bases", base, msg)
		}
		if started {
			t.Errorf("resume with base %s: OnStart was called", base)
		}
		if n, _ := ns.Size(ctx); n != size {
			t.Fatalf("resume with base %s: %d quads, want %d: the refused import wrote", base, n, size)
		}
	}
	for _, base := range []string{"", fileBase} { // none given, or the file's given
		if st, _, err := run(base); !errors.As(err, &ie) || !st.Resumed || st.ID != first.ID {
			t.Fatalf("resume with base %q: %+v, %v; want a resumption of %s (failing the same way)", base, st, err, first.ID)
		}
		if n, _ := ns.Size(ctx); n != size {
			t.Fatalf("resume with base %q: %d quads, want %d", base, n, size)
		}
	}
}

// chunkedNamespace returns namespace "default" of a fresh store that
// imports in chunks of 100 quads (so a file of a few hundred has several).
func chunkedNamespace(t *testing.T) *cortex.Namespace {
	t.Helper()
	s := cortextest.OpenStore(t, t.TempDir(), cortex.DefaultOptions().WithChunkQuads(100))
	ns, err := s.Namespace(context.Background(), "default")
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

// TestImportRDF_NewIDKeepsUnfinishedImport: an import of a source under a
// new import id (as the refusal of another target says to give) while an
// import of the same version of the source is unfinished leaves that
// import's record as it is: the first import still resumes (the same
// options and no id), whether the new one completes or not. The new one
// was recorded over it, so the first import no longer resumed (refused as
// one into another target, or imported anew, its blank nodes twice).
func TestImportRDF_NewIDKeepsUnfinishedImport(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var b strings.Builder
	for i := 0; i < 500; i++ {
		fmt.Fprintf(&b, "_:b%d <http://ex/p> \"%d\" .\n", i, i)
	}
	half := b.String() + "this is not N-Triples\n"
	for _, tc := range []struct {
		name  string
		graph quad.Value // the new import's
	}{{"another target", quad.IRI("http://ex/g2")}, {"the same target", nil}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ns := chunkedNamespace(t)
			path := filepath.Join(t.TempDir(), "a.nt")
			if err := os.WriteFile(path, []byte(half), 0o644); err != nil {
				t.Fatal(err)
			}
			run := func(g quad.Value, id string) (cortex.ImportStart, error) {
				return importResumable(t, ns, path, half, g, id)
			}
			first, err := run(nil, "")
			var ie *cortex.ImportError
			if !errors.As(err, &ie) || ie.Committed == 0 {
				t.Fatalf("first run: %v; want an *ImportError after committed chunks", err)
			}
			u, err := ns.UnfinishedImports(ctx)
			if err != nil || len(u) != 1 || u[0].ID != first.ID {
				t.Fatalf("unfinished imports %+v, %v; want %s", u, err, first.ID)
			}
			st, err := run(tc.graph, "fresh")
			if !errors.As(err, &ie) || st.ID != "fresh" || st.Resumed {
				t.Fatalf("new id: %+v, %v; want a new import failing the same way", st, err)
			}
			if st.Kept == nil || st.Kept.ID != first.ID {
				t.Fatalf("new id: Kept %+v, want the unfinished import %s", st.Kept, first.ID)
			}
			if u2, err := ns.UnfinishedImports(ctx); err != nil || len(u2) != 1 || u2[0] != u[0] {
				t.Fatalf("unfinished imports %+v, %v after an import under a new id; want %+v kept", u2, err, u[0])
			}
			size, _ := ns.Size(ctx)
			again, err := run(nil, "")
			if !errors.As(err, &ie) || !again.Resumed || again.ID != first.ID {
				t.Fatalf("the first import again: %+v, %v; want a resumption of %s", again, err, first.ID)
			}
			if n, _ := ns.Size(ctx); n != size {
				t.Fatalf("%d quads after the resumption, want %d (blank nodes twice)", n, size)
			}
		})
	}
}

// importResumable imports content, the N-Triples of the file at path, into
// graph g of ns under import id (empty: the one the store gives), resumable
// by the file's source, and returns what the import reported at its start.
func importResumable(t *testing.T, ns *cortex.Namespace, path, content string, g quad.Value, id string) (cortex.ImportStart, error) {
	t.Helper()
	src, err := cortex.FileSource(path)
	if err != nil {
		t.Fatal(err)
	}
	var st cortex.ImportStart
	_, err = ns.ImportRDF(context.Background(), strings.NewReader(content), cortex.RDFImportOptions{
		Format: rdfio.NTriples, File: path, Graph: g, ImportID: id, Resume: &src,
		OnStart: func(s cortex.ImportStart) { st = s },
	})
	return st, err
}
