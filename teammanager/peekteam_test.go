package teammanager_test

import (
	"errors"
	"testing"

	"github.com/cortexgraph/cortex/teammanager"
)

// TestManager_PeekTeam_WritesNothing: GetTeam runs a team's due merge (it
// records a timeout not recorded yet, and merges), a write that a caller
// that may not write (a read token of the server) must not make. PeekTeam
// reads the team as GetTeam would before its retry — failed by timeout,
// not merged, MergeTimeout; interrupted — and writes nothing and runs no
// strategy; GetTeam then still merges.
func TestManager_PeekTeam_WritesNothing(t *testing.T) {
	f, st := flakyFixture(t, teammanager.DefaultConfig())
	timedOutTeam(t, f, "flaky")
	startTeam(t, f, "crashed")
	f.status(t, "crashed", "a", teammanager.Completed, "")
	crashInMerge(t, func() { f.m.UpdateMemberStatus(ctx, "crashed", "b", teammanager.Completed, "") })
	calls, before := st.calls.Load(), f.n.WriteStats()
	for range 3 {
		got, err := f.m.PeekTeam(ctx, "t")
		if err != nil || got.Merged || got.MergePending != teammanager.MergeTimeout || got.Status != teammanager.Failed || got.FailReason != teammanager.FailTimeout {
			t.Fatalf("PeekTeam of a timed-out team: %+v, %v; want failed (timeout), not merged, MergeTimeout", got, err)
		}
		got, err = f.m.PeekTeam(ctx, "crashed")
		if err != nil || got.Merged || got.MergePending != teammanager.MergeInterrupted {
			t.Fatalf("PeekTeam of an interrupted merge: %+v, %v", got, err)
		}
	}
	if _, err := f.m.PeekTeam(ctx, "nope"); !errors.Is(err, teammanager.ErrUnknownTeam) {
		t.Fatalf("PeekTeam of an unknown team: %v", err)
	}
	if after := f.n.WriteStats(); after.Deltas != before.Deltas || after.LockAcquired != before.LockAcquired || st.calls.Load() != calls {
		t.Fatalf("PeekTeam wrote %d deltas, took the write lock %d times, ran the strategy %d times",
			after.Deltas-before.Deltas, after.LockAcquired-before.LockAcquired, st.calls.Load()-calls)
	}
	for _, id := range []string{"t", "crashed"} {
		if got := f.get(t, id); !got.Merged {
			t.Fatalf("GetTeam(%s) after PeekTeam: %+v; want merged", id, got)
		}
	}
}
