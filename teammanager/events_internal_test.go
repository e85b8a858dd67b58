package teammanager

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/namespace"
)

// TestEventRows_SplitCostIsLinear: splitting a large findings.added event
// encodes each finding about twice, not once per halving: the bytes
// allocated stay within a small multiple of the event's size (the
// recursive halving that came first allocated ~44 times it), and every
// part is within MaxEventRow, with the findings in order.
func TestEventRows_SplitCostIsLinear(t *testing.T) {
	ev := Event{Type: EventFindingsAdded, Team: "t", Agent: "a", Time: time.Unix(1, 0)}
	const n, size = 100, 100 << 10
	for i := range n {
		ev.Findings = append(ev.Findings, StoredFinding{ID: fmt.Sprint("f", i), Agent: "a",
			Finding: Finding{Subject: quad.IRI(fmt.Sprint("urn:x:s", i)), Predicate: quad.IRI("urn:x:p"), Object: quad.String(strings.Repeat("x", size))}})
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rows, err := eventRows(ev)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	next := 0
	for _, r := range rows {
		if s := rowSize(r); s > MaxEventRow {
			t.Fatalf("a part of %d bytes", s)
		}
		total += rowSize(r)
		got, err := decodeEvent(cortex.SideRow{Key: eventKey(1), Vals: r})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range got.Findings {
			if f.ID != fmt.Sprint("f", next) {
				t.Fatalf("finding %s, want f%d", f.ID, next)
			}
			next++
		}
	}
	if next != n || len(rows) < n*size/MaxEventRow {
		t.Fatalf("%d parts with %d findings", len(rows), next)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("splitting %d bytes into %d parts allocated %.1f times that", total, len(rows), float64(alloc)/float64(total))
	if alloc > uint64(20*total) { // (9.6x measured, 12.6x under -race; halving: 36x)
		t.Fatalf("splitting %d bytes allocated %d", total, alloc)
	}
}

// TestTrimEvents_OldestKept: a write that removes events past retention
// records the id of the oldest event left, where the next removals and a
// subscription from 0 start reading instead of stepping over the
// tombstones of every event removed before (see eventFirstKey). A store
// without that row, or with one naming an older id (an older Cortex
// trimmed since), is read from there, with the same events.
func TestTrimEvents_OldestKept(t *testing.T) {
	ctx := context.Background()
	s := cortextest.NewStore(t)
	x, err := namespace.New("acme")
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(ctx, s, x, DefaultConfig().WithEventRetention(0, 3))
	if err != nil {
		t.Fatal(err)
	}
	teams := 0
	create := func() {
		t.Helper()
		teams++
		if _, err := m.CreateTeam(ctx, TeamConfig{ID: fmt.Sprint("t", teams), Name: "n", Members: []MemberConfig{{AgentID: "a"}}}); err != nil {
			t.Fatal(err)
		}
	}
	oldest := func() string {
		t.Helper()
		vals, found, err := m.n.SideRow(ctx, eventSeqTable, "first")
		if err != nil || !found || len(vals) != 1 {
			t.Fatalf("oldest event row: %v, %v, %v", vals, found, err)
		}
		return string(vals[0].(quad.String))
	}
	// from reads the events after id after up to the last one.
	from := func(after uint64) []string {
		t.Helper()
		c, cancel := context.WithCancel(ctx)
		defer cancel()
		last, _ := m.LastEventID(ctx)
		seq, err := m.Subscribe(c, after)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for ev, err := range seq {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprint(ev.ID, ev.Type))
			if ev.ID == last {
				break
			}
		}
		return out
	}
	for range 10 {
		create()
	}
	if got := oldest(); got != "8" {
		t.Fatalf("oldest event kept recorded as %s, want 8", got)
	}
	check := func(first int) {
		t.Helper()
		var want []string
		for id := first; id <= teams; id++ {
			want = append(want, fmt.Sprint(id, EventTeamCreated))
		}
		if got := from(0); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("after 0: %v, want %v", got, want)
		}
		lost := append([]string{fmt.Sprint(first-1, EventsLost)}, want...)
		if got := from(2); fmt.Sprint(got) != fmt.Sprint(lost) {
			t.Fatalf("after 2: %v, want %v", got, lost)
		}
	}
	check(8)
	for _, tc := range []struct {
		name string
		set  func(tx *cortex.Tx)
	}{
		{"without the row", func(tx *cortex.Tx) { tx.DeleteSide(eventSeqTable, "first") }},
		{"with an older id", func(tx *cortex.Tx) { tx.PutSide(eventSeqTable, "first", []quad.Value{quad.String("2")}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := m.n.Update(ctx, func(tx *cortex.Tx) error { tc.set(tx); return nil }); err != nil {
				t.Fatal(err)
			}
			check(teams - 2)
			create()
			if got, want := oldest(), fmt.Sprint(teams-2); got != want {
				t.Fatalf("oldest event kept recorded as %s, want %s", got, want)
			}
			check(teams - 2)
		})
	}
}
