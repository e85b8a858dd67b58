package teammanager_test

import (
	"testing"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/teammanager"
)

// TestManager_OpenWrites: a Manager opened WithOpenWrites(false) (the
// server's, opened on a read token's first request) left a merge that a
// previous process left interrupted to the next write to its team, Sweep
// or GetTeam of it, so on a server whose first client reads, it stayed
// interrupted (not merged) while writers worked on other teams.
// OpenWrites, which the server calls for a caller that may write, does
// what New left undone: the merge runs, once.
func TestManager_OpenWrites(t *testing.T) {
	dir := t.TempDir()
	cfg, s := stuckConfig(t, false)
	s.on.Store(false)
	st, m := openManager(t, dir, false, cfg)
	f := &fixture{s: st, m: m, ns: m.Namespace()}
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Strategy: "stuck", Members: members("a")})
	f.status(t, "t", "a", teammanager.Running, "")
	crashInMerge(t, func() { m.UpdateMemberStatus(ctx, "t", "a", teammanager.Completed, "") })
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	st, err := cortex.Open(ctx, dir, cortex.DefaultOptions().WithSyncWrites(false))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	before := s.calls.Load()
	if m, err = teammanager.New(ctx, st, m.Namespace(), cfg.WithOpenWrites(false)); err != nil {
		t.Fatal(err)
	}
	if got, err := m.PeekTeam(ctx, "t"); err != nil || got.Merged || got.MergePending != teammanager.MergeInterrupted {
		t.Fatalf("opened without writes: merged %v, pending %q, %v; want interrupted", got.Merged, got.MergePending, err)
	}
	for range 2 {
		if err := m.OpenWrites(ctx); err != nil {
			t.Fatal(err)
		}
		if got, err := m.PeekTeam(ctx, "t"); err != nil || !got.Merged || got.MergePending != "" {
			t.Fatalf("after OpenWrites: merged %v, pending %q, %v", got.Merged, got.MergePending, err)
		}
	}
	if calls := s.calls.Load() - before; calls != 1 {
		t.Fatalf("the strategy ran %d times, want 1", calls)
	}
}
