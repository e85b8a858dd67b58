package engine

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/cortex/internal/layout"
	"github.com/dgraph-io/badger/v4"
)

// TestJournaled_NoReaderSeesHalf: journaled deltas of many Badger
// transactions each (holdNew) while readers start transaction after
// transaction and another namespace commits all along: every reader's
// snapshot has a Size meta key equal to the quads it counts, i.e. it saw
// all or none of each delta.
func TestJournaled_NoReaderSeesHalf(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testStore(t, t.TempDir(), DefaultOptions().WithSyncWrites(false).WithTuning(Tuning{MaxDeltaQuads: 50, JournalTxnEntries: 64}))
	a, err := s.Namespace(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Namespace(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	sizeKey := layout.Escape(a.view.Prefix(), layout.Size)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var reads, bad atomic.Int64
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				sn, err := a.openSnapshot(context.Background())
				if err != nil {
					t.Error(err)
					return
				}
				var size int64
				item, err := sn.txn.Get(sizeKey)
				if err == nil {
					v, _ := item.ValueCopy(nil)
					size, err = layout.MetaInt(v)
				} else if errors.Is(err, badger.ErrKeyNotFound) {
					err = nil
				}
				c, cerr := sn.count(ctx, idPattern{Scope: AllGraphs}, false, 1<<30)
				sn.close()
				if err != nil || cerr != nil {
					t.Error(err, cerr)
					return
				}
				reads.Add(1)
				if c != size {
					bad.Add(1)
					t.Errorf("a snapshot counted %d quads with Size %d: half a delta", c, size)
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if err := b.Apply(ctx, Delta{Add: uniqueQuads(1, "b"+strconv.Itoa(i))}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	deadline := time.Now().Add(3 * time.Second)
	for i := 0; time.Now().Before(deadline) && bad.Load() == 0; i++ {
		qs := uniqueQuads(200, "a")
		d := Delta{Add: qs}
		if i%2 == 1 {
			d = Delta{Remove: qs}
		}
		if err := a.Apply(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if a.WriteStats().Journaled == 0 || reads.Load() == 0 {
		t.Fatalf("%d journaled deltas, %d reads", a.WriteStats().Journaled, reads.Load())
	}
	t.Logf("%d journaled deltas, %d reads", a.WriteStats().Journaled, reads.Load())
}
