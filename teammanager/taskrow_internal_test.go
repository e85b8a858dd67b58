package teammanager

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
)

// TestTaskRow_WithoutPausedFor: rows written before task rows kept the
// team's time paused (packed, or one value per field) still read, the
// time unknown (-1: SweepTasks then counts the task's whole idle time, as
// before); a row keeps a known time, zero included.
func TestTaskRow_WithoutPausedFor(t *testing.T) {
	task := &Task{ID: "T7", Status: TaskInReview, Subject: "s", Assignee: "a", Priority: 3, CreatedAt: time.Unix(1e9, 0).UTC(), history: 2}
	for _, paused := range []time.Duration{0, 90 * time.Second} {
		task.pausedFor = paused
		got, err := decodeTask("x", encodeTask(task))
		if err != nil || got.pausedFor != paused {
			t.Fatalf("a row with paused-for %v reads %v, %v", paused, got.pausedFor, err)
		}
	}
	want := *task
	want.Team, want.pausedFor = "x", -1
	packed := string(encodeTask(task)[0].(quad.String))
	old, ok := strings.CutSuffix(packed, "11:90000000000")
	if !ok {
		t.Fatalf("packed row %q does not end with its paused-for field", packed)
	}
	got, err := decodeTask("x", []quad.Value{quad.String(old)})
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("a packed row of before reads %+v, %v; want %+v", got, err, want)
	}
	fs, err := taskFields([]quad.Value{quad.String(packed)})
	if err != nil {
		t.Fatal(err)
	}
	vals := make([]quad.Value, nTaskFieldsBefore)
	for i := range vals {
		if fs[i] != "" {
			vals[i] = quad.String(fs[i])
		}
	}
	if got, err = decodeTask("x", vals); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("an unpacked row of before reads %+v, %v; want %+v", got, err, want)
	}
}
