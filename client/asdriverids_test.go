package client_test

import (
	"errors"
	"testing"

	"github.com/cortexgraph/cortex/client"
	"github.com/cortexgraph/cortex/teammanager"
	"github.com/cortexgraph/cortex/workflow"
)

// TestCall_DriverIDsNotUTF8AsEmbedded: a call for a driver of a run
// (workflow.WithDriver: sent as workflows.as_driver) with an id that is
// not UTF-8 is refused as the Manager refuses the id, as the same call
// alone is (client/doc.go), its message naming the id as given. It failed
// as not UTF-8 (params.Params["task"]), sending nothing.
func TestCall_DriverIDsNotUTF8AsEmbedded(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			tm := b.open(t)
			team := crew(t, tm)
			_, err := tm.GetTask(workflow.WithDriver(ctx, "r1", "d"), team, "T\xff")
			want := `team crew: task "T\xff": invalid id (unknown task; want T1, T2, ...)`
			if !errors.Is(err, teammanager.ErrUnknownTask) || errors.Is(err, client.ErrNotUTF8) || err.Error() != want {
				t.Fatalf("GetTask of task \"T\\xff\" for a driver: %v, want %s", err, want)
			}
		})
	}
}
