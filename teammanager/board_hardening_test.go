package teammanager_test

import (
	"errors"
	"testing"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/teammanager"
)

// TestSnapshot_Note_ValidUTF8: a snapshot's note that is not valid UTF-8
// is refused and writes nothing (its JSON row would keep another note
// than the one returned); any valid note reads back as given.
func TestSnapshot_Note_ValidUTF8(t *testing.T) {
	f, team := boardFixture(t)
	before, err := f.m.LastEventID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.SnapshotTeam(ctx, team, "a\xffb"); !errors.Is(err, cortex.ErrInvalidArgument) {
		t.Fatalf("SnapshotTeam(invalid UTF-8 note) = %v, want cortex.ErrInvalidArgument", err)
	}
	if after, _ := f.m.LastEventID(ctx); after != before {
		t.Errorf("a refused snapshot recorded events %d..%d", before+1, after)
	}
	if ss, err := f.m.Snapshots(ctx, team); err != nil || len(ss) != 0 {
		t.Fatalf("Snapshots after a refused one = %v, %v; want none", ss, err)
	}
	note := "tab\t nul\x00 ü \u202e /../%2F#"
	s, err := f.m.SnapshotTeam(ctx, team, note)
	if err != nil {
		t.Fatal(err)
	}
	if s.ID != "S1" {
		t.Errorf("first snapshot after a refused one is %s, want S1", s.ID)
	}
	got, err := f.m.GetSnapshot(ctx, team, s.ID)
	if err != nil || got.Note != note {
		t.Fatalf("GetSnapshot note = %q, %v; want %q", got.Note, err, note)
	}
}

var _ = teammanager.ErrInvalidTask
