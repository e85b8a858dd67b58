package cortex_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
)

// TestTuning_Defaults: DefaultTuning gives every field a value, the
// documented API constants among them.
func TestTuning_Defaults(t *testing.T) {
	t.Parallel()
	d := cortex.DefaultTuning()
	if d.MaxDeltaQuads != cortex.MaxDeltaQuads || d.CloseWait != 30*time.Second || d.ResultsCloseWait != 2*time.Second ||
		d.JournalGateWait != 10*time.Second || d.DropGateWait != 10*time.Second || d.StreamGateWait != 2*time.Second || d.StreamMinEntries != 200_000 {
		t.Fatalf("defaults %+v", d)
	}
}

// TestTuning_Invalid: a negative field, a MaxDeltaQuads above its range or
// gate windows out of order make Open fail with an error naming the field,
// creating nothing.
func TestTuning_Invalid(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		tuning cortex.Tuning
		want   string
	}{
		{cortex.Tuning{CloseWait: -time.Second}, "tuning: CloseWait -1s is negative"},
		{cortex.Tuning{StreamMinEntries: -1}, "tuning: StreamMinEntries -1 is negative"},
		{cortex.Tuning{RollbackProgressEvery: -5}, "tuning: RollbackProgressEvery -5 is negative"},
		{cortex.Tuning{MaxDeltaQuads: cortex.MaxDeltaQuads + 1}, "tuning: MaxDeltaQuads 4097 out of range 1..4096"},
		{cortex.Tuning{GateFirstClosed: 4 * time.Second}, "tuning: GateFirstClosed 4s exceeds GateMaxClosed 3s"},
		{cortex.Tuning{GateMaxClosed: 100 * time.Millisecond}, "tuning: GateFirstClosed 200ms exceeds GateMaxClosed 100ms"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "store")
			s, err := cortex.Open(context.Background(), dir, cortex.DefaultOptions().WithTuning(tc.tuning))
			if err == nil {
				s.Close()
				t.Fatal("Open accepted the tuning")
			}
			if err.Error() != "open store: invalid argument: "+tc.want || !errors.Is(err, cortex.ErrInvalidArgument) {
				t.Fatalf("got %q, want %q", err, "open store: invalid argument: "+tc.want)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the refused Open created %s: %v", dir, err)
			}
		})
	}
}

// TestTuning_MaxDeltaQuads: each store journals the deltas above its own
// MaxDeltaQuads (0: the default, also the largest), whatever other stores
// of the process use; a delta within it is one transaction when it fits in
// one (a 64 × 64 grid of quads over 128 new terms: ~21,000 Badger entries)
// and is journaled when it does not (every term new: ~70,000 entries, more
// than a transaction of the default 16 MiB memtables holds).
func TestTuning_MaxDeltaQuads(t *testing.T) {
	t.Parallel()
	for _, max := range []int{10, 0, 1000} {
		t.Run("max="+strconv.Itoa(max), func(t *testing.T) {
			t.Parallel()
			var journaled atomic.Int32
			opts := cortex.WithJournalHook(cortex.DefaultOptions().WithSyncWrites(false).WithTuning(cortex.Tuning{MaxDeltaQuads: max}),
				func(stage string) {
					if stage == "written" {
						journaled.Add(1)
					}
				})
			s := cortextest.NewStore(t, opts)
			ns, err := s.Namespace(context.Background(), "default")
			if err != nil {
				t.Fatal(err)
			}
			limit := max
			if limit == 0 {
				limit = cortex.MaxDeltaQuads
			}
			apply := func(n int, tag string, allNew bool, wantJournaled int32) {
				t.Helper()
				var add []quad.Quad
				for i := range n {
					q := quad.Quad{ // terms shared along the grid's rows and columns
						Subject:   quad.IRI("http://e/s" + tag + strconv.Itoa(i/64)),
						Predicate: quad.IRI("http://e/p"),
						Object:    quad.String("o" + tag + strconv.Itoa(i%64)),
					}
					if allNew { // the most Badger entries per quad
						q = quad.Quad{
							Subject:   quad.IRI("http://e/" + tag + strconv.Itoa(i)),
							Predicate: quad.IRI("http://e/p" + tag + strconv.Itoa(i)),
							Object:    quad.String(strings.Repeat("v", 200) + tag + strconv.Itoa(i)),
							Label:     quad.IRI("http://e/g" + tag + strconv.Itoa(i)),
						}
					}
					add = append(add, q)
				}
				before := journaled.Load()
				if err := ns.Apply(context.Background(), cortex.Delta{Add: add}); err != nil {
					t.Fatalf("a delta of %d quads: %v", n, err)
				}
				if got := journaled.Load() - before; got != wantJournaled {
					t.Fatalf("a delta of %d quads (all terms new: %v): %d journaled, want %d", n, allNew, got, wantJournaled)
				}
			}
			apply(limit, "a", false, 0)
			apply(limit+1, "b", false, 1)
			if max == 0 {
				apply(limit, "c", true, 1)
			}
			want := int64(2*limit + 1)
			if max == 0 {
				want += int64(limit)
			}
			if size, err := ns.Size(context.Background()); err != nil || size != want {
				t.Fatalf("size %d, %v; want %d", size, err, want)
			}
		})
	}
}
