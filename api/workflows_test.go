package api_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/workflow"
)

// TestRun_Shape: the JSON shape of a run (api.Run) names every field of
// workflow.Run in camelCase, with stepTimeout in seconds; RunFrom reads
// it back to the run it was made of (Client.Workflows does so), so that
// cortexctl prints the same through a server as embedded. The golden text
// pins the names and the unit.
func TestRun_Shape(t *testing.T) {
	at := time.Date(2026, 5, 4, 3, 2, 1, 123456789, time.UTC)
	run := workflow.Run{ID: "r1", Name: "board", Type: workflow.Council, Status: workflow.RunRunning, Strategy: "consensus", Team: "r1",
		Inputs: map[string]any{"x": 1.5, "snake_key": "kept as given"}, NonCritical: []string{"b"}, StepTimeout: 90 * time.Second,
		CreatedAt: at, StartedAt: at.Add(time.Second), Error: "e",
		Steps: []workflow.StepState{{Name: "round-1/a", Agent: "a", Status: workflow.StepCompleted, Reason: "r", Actor: "me",
			StartedAt: at, CompletedAt: at.Add(time.Minute), Outputs: map[string]any{"out_put": "v"}, Findings: []string{"f1"},
			Votes: []workflow.Vote{{Subject: "<s>", Predicate: "<p>", Object: `"o"`, Confidence: 0.5, At: at}}, Attempt: 2}},
		Rounds: []workflow.Tally{{Round: 1, Voters: []string{"a"}, Final: true, Topics: []workflow.TopicTally{{Subject: "<s>", Predicate: "<p>",
			Status: workflow.TopicAgreed, DecidedIn: 1, Winner: []string{`"o"`}, Ballots: []workflow.BallotCount{{Objects: []string{`"o"`}, Agents: []string{"a"}}}}}}},
		Driver: &workflow.Driver{ID: "d1", Actor: "me", Host: "h", PID: 42, Until: at.Add(15 * time.Second)}}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as cortexctl and the server write it
	if err := enc.Encode(api.RunOf(run)); err != nil {
		t.Fatal(err)
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	const golden = `{"id":"r1","name":"board","type":"council","status":"running","strategy":"consensus","team":"r1",` +
		`"inputs":{"snake_key":"kept as given","x":1.5},"nonCritical":["b"],"stepTimeout":90,` +
		`"createdAt":"2026-05-04T03:02:01.123456789Z","startedAt":"2026-05-04T03:02:02.123456789Z","error":"e",` +
		`"steps":[{"name":"round-1/a","agent":"a","status":"completed","reason":"r","actor":"me",` +
		`"startedAt":"2026-05-04T03:02:01.123456789Z","completedAt":"2026-05-04T03:03:01.123456789Z","outputs":{"out_put":"v"},` +
		`"findings":["f1"],"votes":[{"subject":"<s>","predicate":"<p>","object":"\"o\"","confidence":0.5,"at":"2026-05-04T03:02:01.123456789Z"}],"attempt":2}],` +
		`"rounds":[{"round":1,"voters":["a"],"final":true,"topics":[{"subject":"<s>","predicate":"<p>","status":"agreed","decidedIn":1,` +
		`"winner":["\"o\""],"ballots":[{"objects":["\"o\""],"agents":["a"]}]}]}],` +
		`"driver":{"id":"d1","actor":"me","host":"h","pid":42,"until":"2026-05-04T03:02:16.123456789Z"}}`
	if string(b) != golden {
		t.Fatalf("RunOf:\n%s\nwant\n%s", b, golden)
	}
	var back api.Run
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if got := api.RunFrom(back); !reflect.DeepEqual(got, run) {
		t.Fatalf("RunFrom(RunOf(run)) through JSON:\n%+v\nwant\n%+v", got, run)
	}
	for _, d := range []time.Duration{0, time.Second, 600 * time.Second, 1500 * time.Millisecond, time.Millisecond, 1<<62 - 1<<62%time.Second} {
		if got := api.RunFrom(api.RunOf(workflow.Run{StepTimeout: d})).StepTimeout; got != d {
			t.Errorf("step timeout %v (%v s) reads back as %v", d, d.Seconds(), got)
		}
	}
}
