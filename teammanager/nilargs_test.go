package teammanager_test

import (
	"errors"
	"testing"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/teammanager"
)

// TestManager_New_NilStore checks that New refuses a nil store with an
// error matching cortex.ErrInvalidArgument instead of panicking.
func TestManager_New_NilStore(t *testing.T) {
	x, err := namespace.New("acme")
	if err != nil {
		t.Fatal(err)
	}
	if m, err := teammanager.New(ctx, nil, x, teammanager.DefaultConfig()); m != nil || !errors.Is(err, cortex.ErrInvalidArgument) {
		t.Fatalf("New with a nil store: %v, %v; want an error matching ErrInvalidArgument", m, err)
	}
}

// TestManager_ImportFindings_NilReader checks that a nil reader is an
// error matching cortex.ErrInvalidArgument, in every format, not a panic,
// and writes nothing.
func TestManager_ImportFindings_NilReader(t *testing.T) {
	f := newFixture(t)
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Members: members("a")})
	for _, format := range []string{teammanager.FindingsJSON, "ntriples", "turtle"} {
		if n, err := f.m.ImportFindings(ctx, "t", "a", nil, format); n != 0 || !errors.Is(err, cortex.ErrInvalidArgument) {
			t.Errorf("%s: %d, %v; want an error matching ErrInvalidArgument", format, n, err)
		}
	}
	if fs, err := f.m.Findings(ctx, "t", teammanager.FindingFilter{}); err != nil || len(fs) != 0 {
		t.Fatalf("findings after refused imports: %+v, %v", fs, err)
	}
}
