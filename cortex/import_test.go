package cortex_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/cortex/rdfio"
)

// genSource yields quads ex:s<i> ex:p "i" for i in [0, n); n < 0 is endless.
type genSource struct {
	i, n int
	err  error // returned after n quads instead of io.EOF
}

func genQuad(i int) quad.Quad {
	return quad.Quad{Subject: iri("s" + strconv.Itoa(i)), Predicate: iri("p"), Object: quad.String(strconv.Itoa(i))}
}

func (g *genSource) Next() (quad.Quad, error) {
	if g.n >= 0 && g.i >= g.n {
		if g.err != nil {
			return quad.Quad{}, g.err
		}
		return quad.Quad{}, io.EOF
	}
	g.i++
	return genQuad(g.i - 1), nil
}

// openNS opens the store in dir (checked and closed when the test ends:
// cortextest.OpenStore) and its namespace "default".
func openNS(t *testing.T, dir string, opts cortex.Options) (*cortex.Store, *cortex.Namespace) {
	t.Helper()
	s := cortextest.OpenStore(t, dir, opts)
	ns, err := s.Namespace(context.Background(), "default")
	if err != nil {
		t.Fatal(err)
	}
	return s, ns
}

func TestImport_ChunkedLargeImport(t *testing.T) {
	t.Parallel()
	opts := cortex.DefaultOptions().WithSyncWrites(false).WithChunkQuads(1000)
	t.Run("streamed", func(t *testing.T) { testLargeImport(t, opts, 1) })
	t.Run("chunks", func(t *testing.T) {
		// Segments too small to stream are committed chunk by chunk.
		testLargeImport(t, cortex.WithStreamTuning(opts, 1<<30, 1<<30), 26)
	})
}

func testLargeImport(t *testing.T, opts cortex.Options, chunks int) {
	s := cortextest.NewStore(t, opts)
	ns, err := s.Namespace(context.Background(), "default")
	if err != nil {
		t.Fatal(err)
	}
	var progress []int64
	res, err := ns.Import(context.Background(), &genSource{n: 25_500}, cortex.ImportOptions{
		Progress: func(n int64) { progress = append(progress, n) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Read != 25_500 || res.Committed != 25_500 || res.Chunks != chunks {
		t.Fatalf("result %+v, want %d chunks", res, chunks)
	}
	if len(progress) != chunks || progress[chunks-1] != 25_500 {
		t.Fatalf("progress %v", progress)
	}
	if n, _ := ns.Size(context.Background()); n != 25_500 {
		t.Fatalf("size %d", n)
	}
	cortex.CheckFormat(t, ns)
	// Re-running converges: quads are a set.
	if _, err := ns.Import(context.Background(), &genSource{n: 25_500}, cortex.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if n, _ := ns.Size(context.Background()); n != 25_500 {
		t.Fatalf("size after re-import %d", n)
	}
}

// TestImport_NeverSurfacesTxnTooBig writes chunks far larger than one Badger
// transaction can hold; the store must split them itself.
func TestImport_NeverSurfacesTxnTooBig(t *testing.T) {
	t.Parallel()
	s := cortextest.NewStore(t, cortex.DefaultOptions().WithSyncWrites(false).WithChunkQuads(65536))
	ns, err := s.Namespace(context.Background(), "default")
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 2000)
	var qs []quad.Quad
	for i := 0; i < 12_000; i++ {
		qs = append(qs, quad.Quad{Subject: iri("s" + strconv.Itoa(i)), Predicate: iri("p"), Object: quad.String(big + strconv.Itoa(i))})
	}
	res, err := ns.Import(context.Background(), &cortextest.SliceSource{Quads: qs}, cortex.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Chunks < 2 {
		t.Fatalf("expected the chunk to be split, got %+v", res)
	}
	if n, _ := ns.Size(context.Background()); n != int64(len(qs)) {
		t.Fatalf("size %d, want %d", n, len(qs))
	}
}

// TestImport_QuadOfLargeLiteral imports quads whose one literal is larger
// than Badger's transaction size limit (about 15% of a 16 MiB memtable)
// but goes to Badger's value log, as Apply writes it: Import writes them
// too, through Import and ImportRDF, instead of failing with ErrTxnTooBig.
func TestImport_QuadOfLargeLiteral(t *testing.T) {
	t.Parallel()
	s := cortextest.NewStore(t)
	big := strings.Repeat("x", 12<<20)
	qs := []quad.Quad{
		{Subject: iri("s1"), Predicate: iri("p"), Object: quad.String(big + "1")},
		{Subject: iri("s2"), Predicate: iri("p"), Object: quad.String(big + "2")},
		{Subject: iri("s2"), Predicate: iri("p"), Object: quad.String("small")},
	}
	ns, err := s.Namespace(context.Background(), "quads")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ns.Import(context.Background(), &cortextest.SliceSource{Quads: qs}, cortex.ImportOptions{}); err != nil {
		t.Fatalf("import: %v", err)
	}
	checkContent(t, ns, qs)
	ns, err = s.Namespace(context.Background(), "rdf")
	if err != nil {
		t.Fatal(err)
	}
	var nt strings.Builder
	for _, q := range qs {
		nt.WriteString(q.NQuad() + "\n")
	}
	if _, err := ns.ImportRDF(context.Background(), strings.NewReader(nt.String()), cortex.RDFImportOptions{Format: "nquads"}); err != nil {
		t.Fatalf("import rdf: %v", err)
	}
	checkContent(t, ns, qs)
}

func TestImport_FailureInFirstChunkWritesNothing(t *testing.T) {
	t.Parallel()
	s := cortextest.NewStore(t, cortex.DefaultOptions().WithSyncWrites(false).WithChunkQuads(100))
	ns, _ := s.Namespace(context.Background(), "default")
	bad := errors.New("data.nt:51:3: bad term")
	_, err := ns.Import(context.Background(), &genSource{n: 50, err: bad}, cortex.ImportOptions{})
	var ie *cortex.ImportError
	if !errors.As(err, &ie) || !errors.Is(err, bad) || ie.Committed != 0 {
		t.Fatalf("got %v", err)
	}
	if !strings.Contains(err.Error(), "nothing was imported") {
		t.Fatalf("message %q", err)
	}
	if n, _ := ns.Size(context.Background()); n != 0 {
		t.Fatalf("size %d after failed import", n)
	}
}

func TestImport_FailureInLaterChunkReportsCommitted(t *testing.T) {
	t.Parallel()
	s := cortextest.NewStore(t, cortex.DefaultOptions().WithSyncWrites(false).WithChunkQuads(100))
	ns, _ := s.Namespace(context.Background(), "default")
	bad := errors.New("data.nt:251:1: bad term")
	_, err := ns.Import(context.Background(), &genSource{n: 250, err: bad}, cortex.ImportOptions{})
	var ie *cortex.ImportError
	if !errors.As(err, &ie) || ie.Committed != 200 {
		t.Fatalf("got %v (committed %+v)", err, ie)
	}
	if n, _ := ns.Size(context.Background()); n != 200 {
		t.Fatalf("size %d, want the 200 quads of the two committed chunks", n)
	}
	if !strings.Contains(err.Error(), "200 quads") {
		t.Fatalf("message %q does not say what was committed", err)
	}
	// Import has no import id: the message names none.
	if strings.Contains(err.Error(), "import id") || !strings.Contains(err.Error(), "importing the same quads again converges") {
		t.Fatalf("message %q", err)
	}
}

// cancelSource yields ex:s<i> ex:p "o" for i in [0, n) and cancels the
// import's context once it has yielded at quads.
type cancelSource struct {
	i, n, at int
	cancel   func()
}

func (c *cancelSource) Next() (quad.Quad, error) {
	if c.i == c.at {
		c.cancel()
	}
	if c.i >= c.n {
		return quad.Quad{}, io.EOF
	}
	c.i++
	return genQuad(c.i), nil
}

// TestImport_CancelledIsImportError cancels imports at points of their
// source: on every store kind, whatever the point, the error is an
// *ImportError matching context.Canceled whose Committed is what the
// namespace holds.
func TestImport_CancelledIsImportError(t *testing.T) {
	t.Parallel()
	for _, mem := range []bool{false, true} {
		for _, at := range []int{0, 10, 1000, 2500} {
			t.Run(fmt.Sprintf("in memory %v, at %d", mem, at), func(t *testing.T) {
				var s *cortex.Store
				o := cortex.DefaultOptions().WithSyncWrites(false).WithChunkQuads(1000)
				if mem {
					s = cortextest.OpenStore(t, "", o.WithInMemory(true))
				} else {
					s = cortextest.NewStore(t, o)
				}
				ns, err := s.Namespace(context.Background(), "default")
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				res, err := ns.Import(ctx, &cancelSource{n: 5000, at: at, cancel: cancel}, cortex.ImportOptions{})
				var ie *cortex.ImportError
				if !errors.As(err, &ie) || !errors.Is(err, context.Canceled) {
					t.Fatalf("import cancelled at quad %d: %v (%T), want an *ImportError matching context.Canceled", at, err, err)
				}
				if n, _ := ns.Size(context.Background()); n != ie.Committed || res.Committed != ie.Committed {
					t.Fatalf("the error says %d quads were committed, the result %d, the namespace holds %d", ie.Committed, res.Committed, n)
				}
			})
		}
	}
}

func TestImport_GraphOverride(t *testing.T) {
	t.Parallel()
	ns := cortextest.NewNamespace(t, "default")
	g := quad.IRI("http://example.org/target")
	src := &cortextest.SliceSource{Quads: []quad.Quad{q("s", "p", quad.String("a"), nil), q("s", "p", quad.String("b"), quad.IRI("http://example.org/own"))}}
	if _, err := ns.Import(context.Background(), src, cortex.ImportOptions{Graph: g}); err != nil {
		t.Fatal(err)
	}
	equalSets(t, cortextest.AllQuads(t, ns), []quad.Quad{q("s", "p", quad.String("a"), g), q("s", "p", quad.String("b"), g)})
}

// TestImport_DefaultGraph: ImportOptions.DefaultGraph puts every quad,
// those of named graphs too, into the default graph, through Import and
// ImportRDF; with a graph as well it is refused before anything is written
// (not even the record of a resumable import).
func TestImport_DefaultGraph(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ns := cortextest.NewNamespace(t, "default")
	own := quad.IRI("http://example.org/own")
	src := &cortextest.SliceSource{Quads: []quad.Quad{q("s", "p", quad.String("a"), nil), q("s", "p", quad.String("b"), own)}}
	if _, err := ns.Import(ctx, src, cortex.ImportOptions{DefaultGraph: true}); err != nil {
		t.Fatal(err)
	}
	nq := "<http://example.org/s> <http://example.org/p> \"c\" <http://example.org/own> .\n"
	if _, err := ns.ImportRDF(ctx, strings.NewReader(nq), cortex.RDFImportOptions{Format: "nquads", File: "x.nq", DefaultGraph: true}); err != nil {
		t.Fatal(err)
	}
	want := []quad.Quad{q("s", "p", quad.String("a"), nil), q("s", "p", quad.String("b"), nil), q("s", "p", quad.String("c"), nil)}
	equalSets(t, cortextest.AllQuads(t, ns), want)

	both := cortex.ImportOptions{Graph: own, DefaultGraph: true}
	if _, err := ns.Import(ctx, &cortextest.SliceSource{Quads: []quad.Quad{q("s", "p", quad.String("d"), nil)}}, both); !errors.Is(err, cortex.ErrInvalidArgument) {
		t.Fatalf("Import with a graph and the default graph: %v, want ErrInvalidArgument", err)
	}
	_, err := ns.ImportRDF(ctx, strings.NewReader(nq), cortex.RDFImportOptions{
		Format: "nquads", File: "y.nq", Graph: own, DefaultGraph: true, Resume: &cortex.ImportSource{Name: "y.nq", Version: "1"},
	})
	if !errors.Is(err, cortex.ErrInvalidArgument) {
		t.Fatalf("ImportRDF with a graph and the default graph: %v, want ErrInvalidArgument", err)
	}
	if un, err := ns.UnfinishedImports(ctx); err != nil || len(un) != 0 {
		t.Fatalf("refused import left records %v (%v)", un, err)
	}
	equalSets(t, cortextest.AllQuads(t, ns), want)
}

// The tests below run a second process: this test binary re-executed with
// CORTEX_TEST_CHILD set.
func TestMain(m *testing.M) {
	switch os.Getenv("CORTEX_TEST_CHILD") {
	case "":
		os.Exit(m.Run())
	case "import":
		childImport(os.Getenv("CORTEX_TEST_DIR"))
	case "hold":
		childHold(os.Getenv("CORTEX_TEST_DIR"))
	case "delta":
		childDelta(os.Getenv("CORTEX_TEST_DIR"))
	case "importrdf":
		childImportRDF(os.Getenv("CORTEX_TEST_DIR"), os.Getenv("CORTEX_TEST_FILE"))
	case "recover":
		childRecover(os.Getenv("CORTEX_TEST_DIR"))
	}
	os.Exit(3)
}

// childImport imports an endless stream, printing each commit. With
// CORTEX_TEST_STREAM=1 segments are small and streamed; =spill, they spill
// to run files before they are streamed; otherwise they are small and
// committed chunk by chunk. CORTEX_TEST_CRASH_AT names a point of a streamed
// write (see cortex.WithStreamHook) at which the process kills itself once a
// first segment has been committed.
func childImport(dir string) {
	ctx := context.Background()
	opts := cortex.DefaultOptions().WithChunkQuads(500)
	switch os.Getenv("CORTEX_TEST_STREAM") {
	case "1":
		opts = cortex.WithStreamTuning(opts, 1<<20, 100)
	case "spill":
		// Segments of 20k quads, spilled to runs of ~300 KB.
		opts = cortex.WithSpillTuning(cortex.WithStreamTuning(opts, 1<<62, 100), 300<<10, 20_000)
	default:
		opts = cortex.WithStreamTuning(opts, 1<<20, 1<<30)
	}
	var s *cortex.Store // set before the import starts
	if at := os.Getenv("CORTEX_TEST_CRASH_AT"); at != "" {
		opts = cortex.WithStreamHook(opts, func(stage string) {
			if stage == at && s.StreamedSegments() >= 1 {
				// Let the tables of closed streams reach the manifest, so
				// that the crash leaves part of the segment behind.
				time.Sleep(300 * time.Millisecond)
				killSelf()
				select {}
			}
		})
	}
	s, err := cortex.Open(ctx, dir, opts)
	if err != nil {
		fmt.Println("error", err)
		return
	}
	ns, err := s.Namespace(ctx, "default")
	if err != nil {
		fmt.Println("error", err)
		return
	}
	_, err = ns.Import(ctx, &genSource{n: -1}, cortex.ImportOptions{Progress: func(n int64) {
		fmt.Println("committed", n) // stdout is a pipe: unbuffered writes
	}})
	fmt.Println("error", err)
}

func childHold(dir string) {
	s, err := cortex.Open(context.Background(), dir, cortex.DefaultOptions())
	if err != nil {
		fmt.Println("error", err)
		return
	}
	defer s.Close()
	fmt.Println("ready")
	time.Sleep(time.Minute)
}

func startChild(t *testing.T, mode, dir string, env ...string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), "CORTEX_TEST_CHILD="+mode, "CORTEX_TEST_DIR="+dir), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, bufio.NewScanner(out)
}

// TestImport_SurvivesKill9 kills a writer in the middle of a bulk import and
// checks that every quad of every chunk it reported committed is present,
// with segments committed chunk by chunk and with streamed segments.
func TestImport_SurvivesKill9(t *testing.T) {
	t.Parallel()
	for _, stream := range []string{"0", "1"} {
		t.Run("stream="+stream, func(t *testing.T) { testSurvivesKill9(t, "CORTEX_TEST_STREAM="+stream) })
	}
}

func testSurvivesKill9(t *testing.T, env string) {
	dir := t.TempDir()
	cmd, lines := startChild(t, "import", dir, env)
	var committed int64
	for lines.Scan() {
		f := strings.Fields(lines.Text())
		if len(f) == 2 && f[0] == "committed" {
			committed, _ = strconv.ParseInt(f[1], 10, 64)
			if committed >= 5_000 {
				break
			}
			continue
		}
		t.Fatalf("child: %s", lines.Text())
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if committed < 5_000 {
		t.Fatalf("child stopped after %d quads", committed)
	}
	s, ns := openNS(t, dir, cortex.DefaultOptions())
	defer s.Close()
	have := map[string]bool{}
	for _, q := range cortextest.AllQuads(t, ns) {
		have[q.String()] = true
	}
	for i := 0; i < int(committed); i++ {
		if !have[genQuad(i).String()] {
			t.Fatalf("quad %d of a committed chunk is missing after kill -9 (committed %d, present %d)", i, committed, len(have))
		}
	}
	cortex.CheckFormat(t, ns)
	// The store is writable again and the import can be resumed.
	if _, err := ns.Import(context.Background(), &genSource{n: int(committed) + 10}, cortex.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestImport_RollsBackInterruptedStream crashes a process at several points
// of a streamed segment (after earlier segments were committed): reopening
// rolls the segment back, leaving exactly the committed quads, with every
// index, node count and size consistent.
func TestImport_RollsBackInterruptedStream(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ stream, at string }{
		{"1", "prepared"}, {"1", "group-done"}, {"1", "flushed"},
		{"spill", "prepared"}, {"spill", "group-done"}, {"spill", "flushed"},
	} {
		name := tc.at
		if tc.stream == "spill" {
			name = "spilled-" + tc.at
		}
		t.Run(name, func(t *testing.T) {
			if tc.stream == "spill" {
				skipShort(t)
			}
			dir, committed := crashedImportOf(t, tc.stream, tc.at)
			checkRolledBack(t, dir, committed)
			s, ns := openNS(t, dir, cortex.DefaultOptions())
			defer s.Close()
			// Writable, and the import resumes.
			if _, err := ns.Import(context.Background(), &genSource{n: int(committed) + 10}, cortex.ImportOptions{}); err != nil {
				t.Fatal(err)
			}
			cortex.CheckFormat(t, ns)
		})
	}
}

func TestStore_LockedByAnotherProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, lines := startChild(t, "hold", dir)
	if !lines.Scan() || lines.Text() != "ready" {
		t.Fatalf("child: %q", lines.Text())
	}
	done := make(chan error, 1)
	go func() {
		s, err := cortex.Open(context.Background(), dir, cortex.DefaultOptions())
		if err == nil {
			s.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, cortex.ErrLocked) || !strings.Contains(err.Error(), dir) {
			t.Fatalf("got %v, want a LockedError naming %s", err, dir)
		}
	case <-time.After(30 * time.Second): // a hang is the failure, not a timing assertion
		t.Fatal("Open blocked on a store held by another process")
	}
}

// TestNamespace_ImportRDF_RefusesLangStringWithoutTag: RDF 1.1 Concepts
// 3.3 makes a literal language-tagged if and only if its datatype is
// rdf:langString, so "1"^^rdf:langString is no RDF literal. Every reader
// refuses it with a syntax error at the datatype, and nothing is written.
func TestNamespace_ImportRDF_RefusesLangStringWithoutTag(t *testing.T) {
	t.Parallel()
	const ls = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
	good := "<http://example.org/s> <http://example.org/p> \"ok\" .\n"
	cases := []struct {
		format, doc string
		line        int
	}{
		{"ntriples", good + "<http://example.org/s> <http://example.org/p> \"1\"^^<" + ls + "> .\n", 2},
		{"nquads", good + "<http://example.org/s> <http://example.org/p> \"1\"^^<" + ls + "> <http://example.org/g> .\n", 2},
		{"turtle", good + "@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .\n<http://example.org/s> <http://example.org/p> \"1\"^^rdf:langString .\n", 3},
	}
	ctx := context.Background()
	s := cortextest.NewStore(t)
	for _, c := range cases {
		t.Run(c.format, func(t *testing.T) {
			ns, err := s.Namespace(ctx, c.format)
			if err != nil {
				t.Fatal(err)
			}
			_, err = ns.ImportRDF(ctx, strings.NewReader(c.doc), cortex.RDFImportOptions{Format: c.format, File: "in"})
			var se *rdfio.SyntaxError
			if !errors.As(err, &se) || se.Line != c.line || !strings.Contains(se.Msg, "rdf:langString literal without a language tag") {
				t.Fatalf("ImportRDF = %v, want a *rdfio.SyntaxError on line %d about rdf:langString", err, c.line)
			}
			if got := cortextest.AllQuads(t, ns); len(got) != 0 {
				t.Fatalf("a refused import left %v behind", got)
			}
		})
	}
}

// endlessNTriples is an N-Triples source that never ends; it calls cancel
// once it has given at quads.
type endlessNTriples struct {
	i, at  int
	cancel func()
}

func (r *endlessNTriples) Read(p []byte) (int, error) {
	if r.i >= r.at {
		r.cancel()
	}
	n := 0
	for n+64 <= len(p) {
		r.i++
		n += copy(p[n:], fmt.Sprintf("<http://ex/s%d> <http://ex/p> \"%d\" .\n", r.i, r.i))
	}
	return n, nil
}

// TestImportRDF_CancelledWhileReading: an import cancelled while it reads
// its source (at several points) returns the cancellation, and its decoder is closed only once
// the import's reading goroutine is done with it (-race: it was closed
// under that goroutine's feet when ImportRDF returned).
func TestImportRDF_CancelledWhileReading(t *testing.T) {
	t.Parallel()
	s := cortextest.NewStore(t, cortex.DefaultOptions().WithSyncWrites(false).WithChunkQuads(500))
	ns, err := s.Namespace(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int{0, 100, 1000, 3000} {
		ctx, cancel := context.WithCancel(context.Background())
		_, err := ns.ImportRDF(ctx, &endlessNTriples{at: at, cancel: cancel}, cortex.RDFImportOptions{Format: rdfio.NTriples})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("import cancelled after its first chunk: %v, want context.Canceled", err)
		}
	}
}

// TestImportRDF_InMemoryTermTooLarge: an in-memory store holds no term
// larger than Badger's value threshold (1 MB); ImportRDF refuses one as a
// syntax error at the term (file, line and column; it was an error that
// said neither), whatever the format and the kind of term, and writes
// nothing of the import.
func TestImportRDF_InMemoryTermTooLarge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	big := strings.Repeat("x", 2<<20)
	good := "<http://example.org/s> <http://example.org/p> \"ok\" .\n"
	cases := []struct {
		name, format, doc string
		line, col         int
	}{
		{"ntriples literal", "ntriples", good + "<http://example.org/s> <http://example.org/p> \"" + big + "\"@en .\n", 2, 47},
		{"ntriples subject", "ntriples", good + "<http://example.org/" + big + "> <http://example.org/p> \"x\" .\n", 2, 1},
		{"nquads graph", "nquads", good + "<http://example.org/s> <http://example.org/p> \"x\" <http://example.org/" + big + "> .\n", 2, 51},
		{"turtle long string", "turtle", good + "<http://example.org/s>\n  <http://example.org/p> \"\"\"a\n" + big + "\"\"\" .\n", 3, 26},
		{"turtle blank node", "turtle", good + "_:" + big + " <http://example.org/p> 1 .\n", 2, 1},
		{"turtle integer", "turtle", good + "<http://example.org/s> <http://example.org/p> " + strings.Repeat("7", 2<<20) + " .\n", 2, 47},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := cortextest.NewStore(t, cortex.DefaultOptions().WithInMemory(true))
			ns, err := s.Namespace(ctx, "ns")
			if err != nil {
				t.Fatal(err)
			}
			_, err = ns.ImportRDF(ctx, strings.NewReader(c.doc), cortex.RDFImportOptions{Format: c.format, File: "in"})
			var se *rdfio.SyntaxError
			if !errors.As(err, &se) || se.File != "in" || se.Line != c.line || se.Col != c.col || !strings.Contains(se.Msg, "larger than the largest the store holds") {
				t.Fatalf("ImportRDF = %.300v; want a *rdfio.SyntaxError at in:%d:%d about the term's size", err, c.line, c.col)
			}
			if got := cortextest.AllQuads(t, ns); len(got) != 0 {
				t.Fatalf("a refused import left %v behind", got)
			}
		})
	}
}

// failAfter returns data, then err.
type failAfter struct {
	data string
	err  error
}

func (r *failAfter) Read(p []byte) (int, error) {
	if r.data == "" {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestImportRDF_ReadErrorSaysWhere: a source that fails mid-file (a disk or
// a network error) fails the import with an error that names the file and
// where the input was cut, and wraps the source's error; nothing is
// written. The error named neither the file nor the place.
func TestImportRDF_ReadErrorSaysWhere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	boom := errors.New("input/output error")
	data := "<http://example.org/s> <http://example.org/p> \"ok\" .\n<http://example.org/s> <http://example.org/p> \"cut"
	for _, format := range []string{rdfio.NTriples, rdfio.Turtle} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			s := cortextest.NewStore(t, cortex.DefaultOptions())
			ns, err := s.Namespace(ctx, "ns")
			if err != nil {
				t.Fatal(err)
			}
			_, err = ns.ImportRDF(ctx, &failAfter{data: data, err: boom}, cortex.RDFImportOptions{Format: format, File: "big.nt"})
			var re *rdfio.ReadError
			if !errors.As(err, &re) || !errors.Is(err, boom) || !strings.Contains(err.Error(), fmt.Sprintf("big.nt:2:51: read error at byte %d: input/output error", len(data))) {
				t.Fatalf("ImportRDF = %v; want a *rdfio.ReadError at big.nt:2:51 wrapping the source's error", err)
			}
			if got := cortextest.AllQuads(t, ns); len(got) != 0 {
				t.Fatalf("a failed import left %v behind", got)
			}
		})
	}
}

// genDoc yields head, then n copies of fill, then tail, made as they are
// read.
type genDoc struct {
	head, tail string
	fill       byte
	n          int
}

func (r *genDoc) Read(p []byte) (int, error) {
	k := 0
	for k < len(p) {
		switch {
		case r.head != "":
			c := copy(p[k:], r.head)
			r.head, k = r.head[c:], k+c
		case r.n > 0:
			c := min(r.n, len(p)-k)
			p[k] = r.fill
			for i := 1; i < c; i *= 2 {
				copy(p[k+i:k+c], p[k:k+i])
			}
			r.n, k = r.n-c, k+c
		case r.tail != "":
			c := copy(p[k:], r.tail)
			r.tail, k = r.tail[c:], k+c
		case k == 0:
			return 0, io.EOF
		default:
			return k, nil
		}
	}
	return k, nil
}

// TestImportRDF_HugeCommentOrTerm: into a store on disk, an import reads a
// comment of 96 MB (it was held whole: a 300 MB one took 870 MB), and
// refuses a term larger than rdfio.DefaultMaxTermBytes (it was read whole,
// however large) as a syntax error at its start, writing nothing.
func TestImportRDF_HugeCommentOrTerm(t *testing.T) {
	ctx := context.Background()
	good := "<http://example.org/s> <http://example.org/p> \"ok\" .\n"
	s := cortextest.NewStore(t, cortex.DefaultOptions())
	ns, err := s.Namespace(ctx, "ns")
	if err != nil {
		t.Fatal(err)
	}
	_, err = ns.ImportRDF(ctx, &genDoc{head: good + "<http://example.org/s> <http://example.org/p> \"", fill: 'x', n: rdfio.DefaultMaxTermBytes + 1, tail: "\" .\n"}, cortex.RDFImportOptions{Format: rdfio.NTriples, File: "big.nt"})
	var se *rdfio.SyntaxError
	if !errors.As(err, &se) || se.File != "big.nt" || se.Line != 2 || se.Col != 47 || !strings.Contains(se.Msg, "larger than the largest term read") {
		t.Fatalf("ImportRDF = %.300v; want a *rdfio.SyntaxError at big.nt:2:47 about the term's size", err)
	}
	if got := cortextest.AllQuads(t, ns); len(got) != 0 {
		t.Fatalf("a refused import left %v behind", got)
	}
	res, err := ns.ImportRDF(ctx, &genDoc{head: good + "# ", fill: 'c', n: 96 << 20, tail: "\n" + good}, cortex.RDFImportOptions{Format: rdfio.Turtle, File: "big.ttl"})
	if err != nil || res.Read != 2 {
		t.Fatalf("ImportRDF = %+v, %v; want 2 quads read", res, err)
	}
}
