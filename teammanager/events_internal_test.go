package teammanager

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
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
