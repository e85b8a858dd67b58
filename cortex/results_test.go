package cortex_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/sparql"
)

// logLines is a cortex.Logger that keeps what it is given.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) Printf(format string, v ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, v...))
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

func resultsStore(t *testing.T, opts cortex.Options) (*cortex.Store, *cortex.Namespace) {
	t.Helper()
	s, ns := openNS(t, t.TempDir(), opts)
	var qs []quad.Quad
	for i := 0; i < 100; i++ {
		qs = append(qs, quad.Quad{Subject: iri("s" + strconv.Itoa(i)), Predicate: iri("p"), Object: quad.String(strconv.Itoa(i))})
	}
	if err := ns.Apply(context.Background(), cortex.Delta{Add: qs}); err != nil {
		t.Fatal(err)
	}
	return s, ns
}

// dropResult opens a query result, reads a row and drops it without closing
// it.
func dropResult(t *testing.T, ns *cortex.Namespace) {
	t.Helper()
	res, err := ns.Query(context.Background(), "SELECT * WHERE { ?s ?p ?o }", sparql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Next(context.Background()) {
		t.Fatal("no row")
	}
}

// TestQuery_DroppedResultDoesNotStallLargeWrites: a result dropped without
// Close used to hold its read transaction until a streamed delta (which
// needs the store to itself) gave up with ErrBusy; the delta now runs the
// garbage collector, which closes the result, and goes ahead. The logger
// is told where the result was opened. (A journaled delta written
// transaction by transaction does not wait for open reads at all.)
func TestQuery_DroppedResultDoesNotStallLargeWrites(t *testing.T) {
	t.Parallel()
	log := &logLines{}
	s, ns := resultsStore(t, cortex.WithStreamTuning(cortex.DefaultOptions().WithLogger(log), 1<<20, 100))
	defer s.Close()
	dropResult(t, ns)
	var large []quad.Quad
	for i := 0; i < cortex.MaxDeltaQuads+100; i++ {
		large = append(large, quad.Quad{Subject: iri("big" + strconv.Itoa(i)), Predicate: iri("p"), Object: quad.String("o")})
	}
	if err := ns.Apply(context.Background(), cortex.Delta{Add: large}); err != nil {
		t.Fatalf("a journaled delta with a dropped result: %v", err)
	}
	if got := log.String(); !strings.Contains(got, "query result was not closed") || !strings.Contains(got, "results_test.go") {
		t.Fatalf("log %q: want the dropped result reported with where it was opened", got)
	}
}

// TestStore_CloseReportsOpenResults: Close does not wait 30 s for a result
// that is still referenced and never closed: it reports it, with the query
// and where it was opened, and closes the store anyway. A dropped result is
// collected and reported by nobody.
func TestStore_CloseReportsOpenResults(t *testing.T) {
	t.Parallel()
	s, ns := resultsStore(t, cortex.DefaultOptions())
	res, err := ns.Query(context.Background(), "SELECT ?s WHERE { ?s ?p ?o }", sparql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Close()
	if !errors.Is(err, cortex.ErrResultsOpen) || !strings.Contains(err.Error(), "results_test.go") || !strings.Contains(err.Error(), "SELECT ?s WHERE") {
		t.Fatalf("Close: %v; want ErrResultsOpen naming the query and where it was opened", err)
	}
	runtime.KeepAlive(res)

	s, ns = resultsStore(t, cortex.DefaultOptions())
	dropResult(t, ns)
	if err := s.Close(); err != nil {
		t.Fatalf("Close with a dropped result: %v", err)
	}
}
