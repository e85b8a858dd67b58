package client_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/client"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/server"
)

// serveTCP serves a fresh store with opts on 127.0.0.1 (through Serve, so
// that its body timeout applies) and returns a client of namespace acme
// and the server's URL.
func serveTCP(t *testing.T, opts server.Options) (*client.Client, string) {
	t.Helper()
	s := cortextest.NewStore(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- server.New(s, opts).Serve(sctx, l) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	u := "http://" + l.Addr().String()
	c, err := client.New(u, client.DefaultOptions().WithNamespace("acme"))
	if err != nil {
		t.Fatal(err)
	}
	return c, u
}

func export(t *testing.T, c *client.Client, opts client.ExportOptions) (string, int64) {
	t.Helper()
	var b bytes.Buffer
	n, err := c.Export(ctx, &b, opts)
	if err != nil {
		t.Fatalf("Export(%+v): %v", opts, err)
	}
	return b.String(), n
}

func sortedLines(s string) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	slices.Sort(ls)
	return strings.Join(ls, "\n")
}

const twoGraphs = `<http://ex/s> <http://ex/p> "d" .
<http://ex/s> <http://ex/p> "one" <http://ex/g1> .
_:b <http://ex/p> <http://ex/o> <http://ex/g2> .
`

// TestClient_ImportExport: an import through the server keeps the graphs
// of N-Quads (or puts everything into Graph), says its id before it
// writes, and an export gives back every graph, the default graph or one
// graph, with the count of quads, and Turtle without prefixes.
func TestClient_ImportExport(t *testing.T) {
	c, _ := serveTCP(t, server.DefaultOptions())
	var started []cortex.ImportStart
	res, err := c.Import(ctx, strings.NewReader(twoGraphs), client.ImportOptions{
		Format: "nq", File: "two.nq", OnStart: func(st cortex.ImportStart) { started = append(started, st) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Committed != 3 || len(started) != 1 || started[0].ID != res.ImportID || res.ImportID == "" {
		t.Fatalf("Import = %+v, started %+v", res, started)
	}
	all, n := export(t, c, client.ExportOptions{})
	want := strings.ReplaceAll(twoGraphs, "_:b ", "_:i"+res.ImportID+"_b ")
	if n != 3 || sortedLines(all) != sortedLines(want) {
		t.Fatalf("export of every graph (%d quads):\n%s\nwant\n%s", n, all, want)
	}
	if dflt, n := export(t, c, client.ExportOptions{Graph: "default", Format: "ntriples"}); n != 1 || dflt != "<http://ex/s> <http://ex/p> \"d\" .\n" {
		t.Fatalf("export of the default graph (%d): %q", n, dflt)
	}
	if g1, n := export(t, c, client.ExportOptions{Graph: "http://ex/g1", Format: "ntriples"}); n != 1 || g1 != "<http://ex/s> <http://ex/p> \"one\" .\n" {
		t.Fatalf("export of g1 (%d): %q", n, g1)
	}
	// A graph that holds nothing does not exist: not found, and nothing
	// written.
	var none bytes.Buffer
	if n, err := c.Export(ctx, &none, client.ExportOptions{Graph: "http://ex/none"}); !errors.Is(err, api.ErrNotFound) || n != 0 || none.Len() != 0 {
		t.Fatalf("export of a graph with nothing: %d, %v, %q; want not found", n, err, none.String())
	}
	ttl, _ := export(t, c, client.ExportOptions{Format: "turtle"})
	if strings.Contains(ttl, "@prefix") || !strings.Contains(ttl, "<http://ex/s>") {
		t.Fatalf("turtle export with prefixes, or without the data:\n%s", ttl)
	}

	// --graph: every quad into one graph.
	if _, err := c.Import(ctx, strings.NewReader(twoGraphs), client.ImportOptions{Format: "nquads", Graph: "http://ex/g3"}); err != nil {
		t.Fatal(err)
	}
	if _, n := export(t, c, client.ExportOptions{Graph: "http://ex/g3"}); n != 3 {
		t.Fatalf("graph g3 holds %d quads, want 3", n)
	}
	// DefaultGraph: every quad into the default graph (its "d" was there).
	if _, err := c.Import(ctx, strings.NewReader(twoGraphs), client.ImportOptions{Format: "nquads", DefaultGraph: true}); err != nil {
		t.Fatal(err)
	}
	if _, n := export(t, c, client.ExportOptions{Graph: "default"}); n != 3 {
		t.Fatalf("the default graph holds %d quads, want 3", n)
	}
	// Relative IRIs resolve against Base.
	if _, err := c.Import(ctx, strings.NewReader("<rel> <http://ex/p> <x> .\n"), client.ImportOptions{Format: "ttl", Base: "http://base.example/", Graph: "http://ex/g4"}); err != nil {
		t.Fatal(err)
	}
	if g4, _ := export(t, c, client.ExportOptions{Graph: "http://ex/g4", Format: "nt"}); g4 != "<http://base.example/rel> <http://ex/p> <http://base.example/x> .\n" {
		t.Fatalf("export of g4: %q", g4)
	}
}

// TestClient_ImportErrors: a syntax error in the first chunk writes
// nothing (not even the namespace it was to create) and is a syntax error (exit 5) with file:line:column; bad
// parameters are refused before anything is read; an export of a
// namespace that does not exist is not found.
func TestClient_ImportErrors(t *testing.T) {
	c, u := serveTCP(t, server.DefaultOptions())
	_, err := c.Import(ctx, strings.NewReader(twoGraphs+"<http://ex/s> <http://ex/p> \"unterminated .\n"), client.ImportOptions{Format: "nq", File: "bad.nq"})
	if !errors.Is(err, api.ErrSyntax) || api.ExitCode(err) != api.ExitSyntax || !strings.Contains(err.Error(), "bad.nq:4:") {
		t.Fatalf("syntax error: %v (exit %d)", err, api.ExitCode(err))
	}
	// It wrote nothing, and left no namespace behind.
	var all strings.Builder
	if n, err := c.Export(ctx, &all, client.ExportOptions{}); !errors.Is(err, api.ErrNotFound) || n != 0 || all.Len() != 0 {
		t.Fatalf("export after the failed import: %d quads, %v, %q; want no such namespace", n, err, all.String())
	}
	for _, tc := range []struct {
		name string
		opts client.ImportOptions
		kind error
	}{
		{"unknown format", client.ImportOptions{Format: "rdfxml"}, api.ErrUsage},
		{"relative graph", client.ImportOptions{Format: "nt", Graph: "g"}, api.ErrInvalid},
		{"a graph and the default graph", client.ImportOptions{Format: "nt", Graph: "http://ex/g", DefaultGraph: true}, api.ErrInvalid},
		{"relative base", client.ImportOptions{Format: "nt", Base: "b/"}, api.ErrInvalid},
		{"bad import id", client.ImportOptions{Format: "nt", ImportID: "a b"}, api.ErrInvalid},
		{"source without version", client.ImportOptions{Format: "nt", Resume: &cortex.ImportSource{Name: "x"}}, api.ErrUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Import(ctx, strings.NewReader(twoGraphs), tc.opts)
			if !errors.Is(err, tc.kind) {
				t.Fatalf("Import(%+v): %v, want %v", tc.opts, err, tc.kind)
			}
		})
	}
	other, err := client.New(u, client.DefaultOptions().WithNamespace("nothing"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Export(ctx, io.Discard, client.ExportOptions{}); !errors.Is(err, api.ErrNotFound) {
		t.Fatalf("export of a namespace that does not exist: %v", err)
	}
}

// TestClient_ImportStreams: an import's body is not bounded by the body
// size limit, and the body timeout bounds each wait for the client's
// next bytes, not the whole body: a body sent slowly, in pieces, each
// within the timeout, is imported in full.
func TestClient_ImportStreams(t *testing.T) {
	const timeout = time.Second
	c, _ := serveTCP(t, server.DefaultOptions().WithMaxBodyBytes(1024).WithBodyTimeout(timeout))
	var lines []string
	for i := range 100 {
		lines = append(lines, fmt.Sprintf("<http://ex/s%d> <http://ex/p> \"a value that takes some room %d\" .\n", i, i))
	}
	pr, pw := io.Pipe()
	go func() {
		// Four pieces, 0.4 timeouts apart: 1.2 timeouts in all.
		for i := 0; i < 4; i++ {
			if i > 0 {
				time.Sleep(timeout * 4 / 10)
			}
			if _, err := io.WriteString(pw, strings.Join(lines[i*25:(i+1)*25], "")); err != nil {
				return
			}
		}
		pw.Close()
	}()
	res, err := c.Import(ctx, pr, client.ImportOptions{Format: "nt"})
	if err != nil || res.Committed != 100 {
		t.Fatalf("Import = %+v, %v; want 100 quads", res, err)
	}
}

// failingFindings is an N-Triples body of 20,000 findings with blank
// nodes, then a syntax error: an import of it writes, then fails.
func failingFindings() *strings.Builder {
	var b strings.Builder
	for i := range 20_000 {
		fmt.Fprintf(&b, "_:f%d <http://ex/says> \"finding %d\" .\n", i, i)
	}
	b.WriteString("not N-Triples\n")
	return &b
}

// TestClient_ImportResumes: an import of a recorded source that fails
// after it wrote can be resumed: the same source again says it resumes
// the same import id, and does not duplicate blank nodes.
func TestClient_ImportResumes(t *testing.T) {
	c, _ := serveTCP(t, server.DefaultOptions())
	b := failingFindings()
	src := &cortex.ImportSource{Name: "/data/findings.nt", Version: "v1"}
	var first, second cortex.ImportStart
	_, err := c.Import(ctx, strings.NewReader(b.String()), client.ImportOptions{Format: "nt", File: "/data/findings.nt", Resume: src,
		OnStart: func(st cortex.ImportStart) { first = st }})
	if !errors.Is(err, api.ErrSyntax) || !strings.Contains(err.Error(), "resumes import "+first.ID) {
		t.Fatalf("half-way failure: %v", err)
	}
	_, n1 := export(t, c, client.ExportOptions{})
	if n1 == 0 {
		t.Fatal("the failed import committed nothing: the test tests nothing")
	}
	_, err = c.Import(ctx, strings.NewReader(b.String()), client.ImportOptions{Format: "nt", File: "/data/findings.nt", Resume: src,
		OnStart: func(st cortex.ImportStart) { second = st }})
	if !errors.Is(err, api.ErrSyntax) || !second.Resumed || second.ID != first.ID || second.Started.IsZero() {
		t.Fatalf("the same source again: %v, started %+v, want a resumption of %s", err, second, first.ID)
	}
	if _, n2 := export(t, c, client.ExportOptions{}); n2 != n1 {
		t.Fatalf("%d quads after the resumption, want %d", n2, n1)
	}
	var third cortex.ImportStart
	if _, err := c.Import(ctx, strings.NewReader("<http://ex/a> <http://ex/b> <http://ex/c> .\n"), client.ImportOptions{Format: "nt", File: "/data/findings.nt",
		Resume: &cortex.ImportSource{Name: src.Name, Version: "v2"}, OnStart: func(st cortex.ImportStart) { third = st }}); err != nil {
		t.Fatal(err)
	}
	if third.Resumed || third.Replaced == nil || third.Replaced.ID != first.ID {
		t.Fatalf("a changed source: started %+v, want it to replace %s", third, first.ID)
	}
}

// TestClient_ImportResumeOtherGraph: an import of a recorded source that
// failed after it wrote into one graph is not resumed into another (nor
// into the default graph, nor with no graph): the server refuses it before
// it starts (kind invalid, exit 7), naming both targets; the first graph
// resumes it.
func TestClient_ImportResumeOtherGraph(t *testing.T) {
	c, _ := serveTCP(t, server.DefaultOptions())
	b := failingFindings()
	src := &cortex.ImportSource{Name: "/data/findings.nt", Version: "v1"}
	var first cortex.ImportStart
	_, err := c.Import(ctx, strings.NewReader(b.String()), client.ImportOptions{Format: "nt", File: src.Name, Graph: "http://ex/g1", Resume: src,
		OnStart: func(st cortex.ImportStart) { first = st }})
	if !errors.Is(err, api.ErrSyntax) {
		t.Fatalf("half-way failure: %v", err)
	}
	_, n1 := export(t, c, client.ExportOptions{})
	if n1 == 0 {
		t.Fatal("the failed import committed nothing: the test tests nothing")
	}
	for _, o := range []client.ImportOptions{{DefaultGraph: true}, {}, {Graph: "http://ex/g2"}} {
		started := false
		o.Format, o.File, o.Resume, o.OnStart = "nt", src.Name, src, func(cortex.ImportStart) { started = true }
		_, err := c.Import(ctx, strings.NewReader(b.String()), o)
		if !errors.Is(err, api.ErrInvalid) || api.ExitCode(err) != api.ExitInvalid || started ||
			!strings.Contains(err.Error(), "import "+first.ID+" of /data/findings.nt was interrupted while it imported into graph <http://ex/g1>, not ") ||
			!strings.Contains(err.Error(), "import it again into graph <http://ex/g1> to resume it") {
			t.Fatalf("resume with graph %q (default %v): %v (exit %d, started %v); want a refusal before the start, exit %d",
				o.Graph, o.DefaultGraph, err, api.ExitCode(err), started, api.ExitInvalid)
		}
		if _, n := export(t, c, client.ExportOptions{}); n != n1 {
			t.Fatalf("%d quads after a refused import, want %d", n, n1)
		}
	}
	var again cortex.ImportStart
	_, err = c.Import(ctx, strings.NewReader(b.String()), client.ImportOptions{Format: "nt", File: src.Name, Graph: "http://ex/g1", Resume: src,
		OnStart: func(st cortex.ImportStart) { again = st }})
	if !errors.Is(err, api.ErrSyntax) || !again.Resumed || again.ID != first.ID {
		t.Fatalf("the first graph again: %v, started %+v; want a resumption of %s", err, again, first.ID)
	}
}

// TestClient_ImportErrorWhileSending: an import that fails early while
// the client still has much to send answers the error (the client stops
// sending), over TCP.
func TestClient_ImportErrorWhileSending(t *testing.T) {
	c, _ := serveTCP(t, server.DefaultOptions())
	body := io.MultiReader(strings.NewReader("oops\n"), &endless{line: []byte("<http://ex/s> <http://ex/p> <http://ex/o> .\n")})
	_, err := c.Import(ctx, body, client.ImportOptions{Format: "nt", File: "x.nt"})
	if !errors.Is(err, api.ErrSyntax) || !strings.Contains(err.Error(), "x.nt:1:") {
		t.Fatalf("Import: %v", err)
	}
}

// endless repeats line forever.
type endless struct{ line []byte }

func (e *endless) Read(p []byte) (int, error) {
	n := 0
	for n+len(e.line) <= len(p) {
		n += copy(p[n:], e.line)
	}
	if n == 0 {
		n = copy(p, e.line)
	}
	return n, nil
}
