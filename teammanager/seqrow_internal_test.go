package teammanager

import (
	"context"
	"errors"
	"testing"

	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/namespace"
)

// TestSeqRow_ReadErrorKept: a counter row that cannot be read (here: the
// read's context has ended) fails with the read's error, not as a corrupt
// row (ErrCorrupt, which a reader of the board takes for damaged data).
func TestSeqRow_ReadErrorKept(t *testing.T) {
	ctx := context.Background()
	x, err := namespace.New("acme")
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(ctx, cortextest.NewStore(t), x, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	ended, cancel := context.WithCancel(ctx)
	cancel()
	b := &boardTx{m: m, ctx: ended, n: m.n, now: m.now()}
	b.init()
	if _, err := b.planSeq("t"); !errors.Is(err, context.Canceled) || errors.Is(err, ErrCorrupt) {
		t.Errorf("planSeq with an ended context: %v, want context.Canceled", err)
	}
	if _, _, err := b.idSeq("t"); !errors.Is(err, context.Canceled) || errors.Is(err, ErrCorrupt) {
		t.Errorf("idSeq with an ended context: %v, want context.Canceled", err)
	}
}
