package teammanager

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/namespace"
)

// TestTaskFields_Corrupt: a task row that is neither one packed value
// nor one value per field, or whose packing is broken, is ErrCorrupt.
func TestTaskFields_Corrupt(t *testing.T) {
	good := encodeTask(&Task{ID: "T1", Status: TaskPending, Subject: "s"})[0].(quad.String)
	for _, c := range []struct {
		name string
		vals []quad.Value
	}{
		{"no values", nil},
		{"two values", []quad.Value{good, good}},
		{"an IRI", []quad.Value{quad.IRI("urn:x")}},
		{"empty", []quad.Value{quad.String("")}},
		{"no length", []quad.Value{quad.String(":T1")}},
		{"a length past the end", []quad.Value{quad.String("9:T1")}},
		{"a negative length", []quad.Value{quad.String("-1:" + string(good))}},
		{"a leading zero", []quad.Value{quad.String("02:T1" + string(good)[4:])}},
		{"bytes past the fields", []quad.Value{good + "0:"}},
		{"a field short", []quad.Value{good[:len(good)-2]}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := decodeTask("x", c.vals); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("decodeTask(%v): %v, want ErrCorrupt", c.vals, err)
			}
		})
	}
	if _, err := decodeTask("x", []quad.Value{good}); err != nil {
		t.Fatalf("the good row: %v", err)
	}
}

// TestBoardBatch_StoreReadsShared: the calls of a batch share their
// reads of the store (the team row, the board row, a task row, the ready
// queue's head and first page): a batch of 32 calls reads the store as
// often as a batch of two. Each call still sees the board as the calls
// before it left it, and a change of a call that failed is not seen.
func TestBoardBatch_StoreReadsShared(t *testing.T) {
	ctx := context.Background()
	x, err := namespace.New("acme")
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(ctx, cortextest.NewStore(t), x, DefaultConfig().WithMaxTeamSize(40))
	if err != nil {
		t.Fatal(err)
	}
	members := []MemberConfig{{AgentID: "lead", Role: "lead"}}
	for i := range 32 {
		members = append(members, MemberConfig{AgentID: fmt.Sprintf("m%02d", i)})
	}
	if _, err := m.CreateTeam(ctx, TeamConfig{ID: "b", Name: "b", Members: members}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := m.CreateTask(ctx, "b", "lead", NewTask{Subject: "s"}); err != nil {
			t.Fatal(err)
		}
	}
	misses := func(calls int) int {
		var reads *storeReads
		batch := make([]*boardOp, calls)
		for i := range batch {
			batch[i] = &boardOp{ctx: ctx, done: make(chan struct{}), fn: func(b *boardTx) error {
				reads = b.reads
				if _, err := b.loadBoard("b", false); err != nil {
					return err
				}
				if _, err := b.loadTask("b", "T2"); err != nil {
					return err
				}
				return b.scan(readyTable, teamKey("b"), func(string, []quad.Value) bool { return false })
			}}
		}
		m.writeBoardBatch(batch)
		for i, op := range batch {
			if op.err != nil {
				t.Fatalf("call %d of %d: %v", i+1, calls, op.err)
			}
		}
		return reads.misses
	}
	// (A first batch moves the queue's head to its first row; after it,
	// every batch reads the same rows.)
	misses(1)
	two, many := misses(2), misses(32)
	if two == 0 || many != two {
		t.Fatalf("store reads: %d for a batch of two calls, %d for 32", two, many)
	}

	// Board changes: a call sees those of the calls before it, not those
	// of a failed call, and a call's changes to the board it read are its
	// own until it saves them.
	var next []int
	fail := errors.New("refused")
	op := func(fn func(b *boardTx, st *boardState) error) *boardOp {
		return &boardOp{ctx: ctx, done: make(chan struct{}), fn: func(b *boardTx) error {
			st, err := b.loadBoard("b", false)
			if err != nil {
				return err
			}
			next = append(next, st.Next)
			return fn(b, st)
		}}
	}
	var start int
	batch := []*boardOp{
		op(func(b *boardTx, st *boardState) error {
			start = st.Next
			st.Next += 5
			b.saveBoard("b", st)
			return nil
		}),
		op(func(b *boardTx, st *boardState) error { st.Next += 100; b.saveBoard("b", st); return fail }),
		op(func(b *boardTx, st *boardState) error { st.Next += 1000; st.Members[0] = "x"; return nil }),
		op(func(b *boardTx, st *boardState) error {
			if st.Members[0] != "lead" {
				return fmt.Errorf("members %v", st.Members)
			}
			return nil
		}),
	}
	m.writeBoardBatch(batch)
	if !errors.Is(batch[1].err, fail) || batch[0].err != nil || batch[2].err != nil || batch[3].err != nil {
		t.Fatalf("errors %v %v %v %v", batch[0].err, batch[1].err, batch[2].err, batch[3].err)
	}
	if want := []int{start, start + 5, start + 5, start + 5}; fmt.Sprint(next) != fmt.Sprint(want) {
		t.Fatalf("the calls read Next %v, want %v", next, want)
	}
	if err := m.boardRead(ctx, func(b *boardTx) error {
		st, err := b.loadBoard("b", false)
		if err == nil && st.Next != start+5 {
			err = fmt.Errorf("committed Next %d, want %d", st.Next, start+5)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
}
