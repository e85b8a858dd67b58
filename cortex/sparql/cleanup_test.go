package sparql_test

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
)

// slowDataset is a memory dataset whose scans wait on their first step, so
// that a caller is inside Result.Next for a while.
type slowDataset struct {
	*eval.MemDataset
	closed atomic.Bool
}

type slowIter struct {
	eval.QuadIterator
	ds *slowDataset
	n  int
}

func (d *slowDataset) Match(ctx context.Context, p eval.Pattern) eval.QuadIterator {
	return &slowIter{QuadIterator: d.MemDataset.Match(ctx, p), ds: d}
}

func (it *slowIter) Next(ctx context.Context) bool {
	if it.n++; it.n == 1 {
		time.Sleep(300 * time.Millisecond) // the collector runs meanwhile
	}
	return it.QuadIterator.Next(ctx)
}

func (it *slowIter) Close() error { it.ds.closed.Store(true); return it.QuadIterator.Close() }

// TestResult_NotCollectedDuringNext: a Result whose last use is a call to
// Next stays open for that call, although garbage collections run while it
// waits: the clean-up that closes dropped results must not close it under
// the caller (which saw no row and no error).
func TestResult_NotCollectedDuringNext(t *testing.T) {
	var qs []quad.Quad
	for i := 0; i < 10; i++ {
		qs = append(qs, quad.Quad{Subject: quad.IRI("http://s"), Predicate: quad.IRI("http://p"), Object: quad.Int(i)})
	}
	ds := &slowDataset{MemDataset: eval.NewMemDataset(qs...)}
	res, err := sparql.Query(context.Background(), ds, "SELECT ?o WHERE { ?s ?p ?o }", sparql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			runtime.GC()
			time.Sleep(5 * time.Millisecond)
		}
	}()
	if !res.Next(context.Background()) { // the last use of res
		t.Fatal("Next saw no row: the result was closed under it")
	}
}
