package cortex_test

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/cortex/rdfio"
)

// storeGoroutines counts the goroutines running code of the store (the
// engine, its parsers, Badger).
func storeGoroutines() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	c := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "cortexgraph/cortex/cortex/internal/") || strings.Contains(g, "cortexgraph/cortex/cortex/rdfio") ||
			strings.Contains(g, "dgraph-io/badger") {
			c++
		}
	}
	return c
}

// TestWrites_ContextDone: every write called with a context that has ended
// (cancelled, or past its deadline) returns an error matching the
// context's, writes nothing (quads, side rows, namespaces, import records),
// does not run the caller's function, and leaves no goroutine of the store
// behind. Not parallel: it counts the store's goroutines.
func TestWrites_ContextDone(t *testing.T) {
	bg := context.Background()
	s := cortextest.NewStore(t)
	ns, err := s.Namespace(bg, "team")
	if err != nil {
		t.Fatal(err)
	}
	base := q("s", "p", quad.String("o"), nil)
	if err := ns.Update(bg, func(tx *cortex.Tx) error {
		tx.Add(base)
		tx.PutSide("rows", "k", []quad.Value{quad.String("v")})
		tx.StampSide("rows")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	add := q("s2", "p", quad.String("o2"), iri("g"))
	nt := "<http://example.org/s3> <http://example.org/p> \"o3\" .\n"
	cancelled, cancel := context.WithCancel(bg)
	cancel()
	expired, cancel2 := context.WithDeadline(bg, time.Now().Add(-time.Second))
	defer cancel2()
	for _, c := range []struct {
		name string
		ctx  context.Context
		want error
	}{
		{"cancelled", cancelled, context.Canceled},
		{"deadline", expired, context.DeadlineExceeded},
	} {
		ctx := c.ctx
		ran := func(t *testing.T) { t.Errorf("the function ran with an ended context") }
		for _, tc := range []struct {
			name string
			call func(t *testing.T) error
		}{
			{"Apply", func(*testing.T) error { return ns.Apply(ctx, cortex.Delta{Add: []quad.Quad{add}}) }},
			{"Apply remove", func(*testing.T) error { return ns.Apply(ctx, cortex.Delta{Remove: []quad.Quad{base}}) }},
			{"Update", func(t *testing.T) error {
				return ns.Update(ctx, func(tx *cortex.Tx) error { ran(t); tx.Add(add); return nil })
			}},
			{"TryUpdate", func(t *testing.T) error {
				_, err := ns.TryUpdate(ctx, func(tx *cortex.Tx) error { ran(t); tx.Add(add); return nil })
				return err
			}},
			{"Import", func(*testing.T) error {
				_, err := ns.Import(ctx, &oneQuad{&add}, cortex.ImportOptions{})
				return err
			}},
			{"ImportRDF", func(*testing.T) error {
				_, err := ns.ImportRDF(ctx, strings.NewReader(nt), cortex.RDFImportOptions{Format: rdfio.NTriples})
				return err
			}},
			{"ImportRDF resumable", func(*testing.T) error {
				_, err := ns.ImportRDF(ctx, strings.NewReader(nt), cortex.RDFImportOptions{Format: rdfio.NTriples,
					Resume: &cortex.ImportSource{Name: "src", Version: "1"}})
				return err
			}},
			{"Export", func(t *testing.T) error {
				var buf bytes.Buffer
				_, err := ns.Export(ctx, &buf, rdfio.NQuads, cortex.ExportOptions{})
				if buf.Len() != 0 {
					t.Errorf("Export wrote %q", buf.String())
				}
				return err
			}},
			{"DropGraph", func(*testing.T) error { _, err := ns.DropGraph(ctx, nil); return err }},
			{"DeleteNamespace", func(*testing.T) error { return s.DeleteNamespace(ctx, "team") }},
		} {
			t.Run(c.name+"/"+tc.name, func(t *testing.T) {
				before := storeGoroutines()
				err := tc.call(t)
				if !errors.Is(err, c.want) {
					t.Errorf("%v, want an error matching %v", err, c.want)
				}
				checkContent(t, ns, []quad.Quad{base})
				rows, current, err := ns.SideRows(bg, "rows")
				if err != nil || len(rows) != 1 || !current {
					t.Errorf("side rows %v, current %v, %v; want the one row, current", rows, current, err)
				}
				if names, err := s.Namespaces(bg); err != nil || !slices.Equal(names, []string{"team"}) {
					t.Errorf("namespaces %v, %v", names, err)
				}
				if u, err := ns.UnfinishedImports(bg); err != nil || len(u) != 0 {
					t.Errorf("unfinished imports %v, %v; want none", u, err)
				}
				// Goroutines that end on their own may take a moment: wait
				// for them (a guard against a leak, not a timing).
				deadline := time.Now().Add(10 * time.Second)
				for storeGoroutines() > before && time.Now().Before(deadline) {
					time.Sleep(10 * time.Millisecond)
				}
				if n := storeGoroutines(); n > before {
					t.Errorf("%d goroutines of the store left behind", n-before)
				}
			})
		}
	}
}
