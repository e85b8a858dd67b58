package teammanager_test

import (
	"fmt"
	"testing"

	"github.com/cortexgraph/cortex/teammanager"
)

// TestTask_ClaimNext_RowBeforeHead: once claims have moved the ready
// queue's head past the front, a task that becomes ready before it (a new
// task of higher priority, a dependent whose blocker completed, a retried
// task) is still the next one claimed.
func TestTask_ClaimNext_RowBeforeHead(t *testing.T) {
	f, team := boardFixture(t, teammanager.BoardSettings{})
	claim := func(agent, want string) {
		t.Helper()
		got, err := f.m.ClaimNext(ctx, team, agent)
		if err != nil || got.ID != want {
			t.Fatalf("ClaimNext(%s) = %s, %v; want %s", agent, got.ID, err, want)
		}
	}
	complete := func(agent, id string) {
		t.Helper()
		if _, err := f.m.CompleteTask(ctx, team, agent, id, "ok"); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 6 {
		mustTask(t, f, team, "lead", teammanager.NewTask{Subject: fmt.Sprint("low ", i)}) // T1..T6, priority 0
	}
	dep := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "dependent", Priority: 9, BlockedBy: []string{"T1"}}) // T7
	claim("a", "T1")
	claim("b", "T2")
	mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "urgent", Priority: 5}) // T8
	claim("c", "T8")
	complete("a", "T1") // T7 is ready now, before every other ready task
	claim("a", dep.ID)
	complete("b", "T2")
	claim("b", "T3")
	if _, err := f.m.FailTask(ctx, team, "b", "T3", "broken"); err != nil {
		t.Fatal(err)
	}
	claim("b", "T4")
	if _, err := f.m.RetryTask(ctx, team, "lead", "T3"); err != nil {
		t.Fatal(err)
	}
	complete("b", "T4")
	claim("b", "T3") // back before T5, T6, and still b's (RetryTask keeps the assignee)
	complete("a", dep.ID)
	claim("a", "T5")
}
