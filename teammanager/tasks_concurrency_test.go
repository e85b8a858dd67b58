package teammanager_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/cortexgraph/cortex/teammanager"
)

// TestTask_Claim_ExactlyOneWins: two members claim the same task at once,
// 200 times over: each time exactly one wins and the other gets
// ErrTaskState.
func TestTask_Claim_ExactlyOneWins(t *testing.T) {
	f, team := boardFixture(t, teammanager.BoardSettings{})
	for i := range 200 {
		task := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: fmt.Sprint("race ", i)})
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for j, agent := range []string{"a", "b"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[j] = f.m.ClaimTask(ctx, team, agent, task.ID)
			}()
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, teammanager.ErrTaskState):
				t.Fatalf("round %d: %v", i, err)
			}
		}
		got, _ := f.m.GetTask(ctx, team, task.ID)
		if won != 1 || got.Dispatches != 1 || got.Status != teammanager.TaskInProgress {
			t.Fatalf("round %d: %d winners, task %+v", i, won, got)
		}
	}
}

// TestTask_Swarm_32Members: 32 members self-claim (ClaimNext) and complete
// tasks from one queue of 10,000 (2,000 with -short) until none is left,
// some tasks blocked by others: every task is claimed exactly once, and no
// dependent is claimed before its blocker completed.
func TestTask_Swarm_32Members(t *testing.T) {
	n := 10_000
	if testing.Short() {
		n = 2_000
	}
	f := newFixture(t, teammanager.DefaultConfig().WithAutoMerge(false).WithMaxTeamSize(40))
	ms := []teammanager.MemberConfig{{AgentID: "lead", Role: "lead"}}
	for i := range 32 {
		ms = append(ms, teammanager.MemberConfig{AgentID: fmt.Sprintf("m%02d", i)})
	}
	team := f.create(t, teammanager.TeamConfig{ID: "swarm", Name: "swarm", Members: ms, Timeout: -1}).ID
	if _, err := f.m.ConfigureBoard(ctx, team, teammanager.BoardSettings{}); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		nt := teammanager.NewTask{Subject: fmt.Sprint("t", i), Priority: i % 7}
		if i%10 == 9 {
			nt.BlockedBy = []string{fmt.Sprintf("T%d", i)} // blocked by the task before it
		}
		mustTask(t, f, team, "lead", nt)
	}
	var mu sync.Mutex
	claims := map[string]int{}
	completed := map[string]bool{}
	var violations []string
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for i := range 32 {
		agent := fmt.Sprintf("m%02d", i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				task, err := f.m.ClaimNext(ctx, team, agent)
				if errors.Is(err, teammanager.ErrNoReadyTask) {
					mu.Lock()
					done := len(completed)
					mu.Unlock()
					if done == n {
						return
					}
					continue // a blocker is being completed by another member
				}
				if err != nil {
					errs <- err
					return
				}
				// Blockers never go back from completed here, so a blocker
				// read after the claim returned must read completed.
				for _, b := range task.BlockedBy {
					bt, err := f.m.GetTask(ctx, team, b)
					if err != nil {
						errs <- err
						return
					}
					if bt.Status != teammanager.TaskCompleted {
						mu.Lock()
						violations = append(violations, fmt.Sprintf("%s before %s (%s)", task.ID, b, bt.Status))
						mu.Unlock()
					}
				}
				mu.Lock()
				claims[task.ID]++
				mu.Unlock()
				if _, err := f.m.CompleteTask(ctx, team, agent, task.ID, "ok"); err != nil {
					errs <- err
					return
				}
				mu.Lock()
				completed[task.ID] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(violations) > 0 {
		t.Fatalf("dependents claimed before their blockers completed: %v", violations[:min(5, len(violations))])
	}
	if len(claims) != n {
		t.Fatalf("%d tasks claimed, want %d", len(claims), n)
	}
	for id, c := range claims {
		if c != 1 {
			t.Fatalf("task %s claimed %d times", id, c)
		}
	}
	done, err := f.m.ListTasks(ctx, team, teammanager.TaskFilter{Status: teammanager.TaskCompleted})
	if err != nil || len(done) != n {
		t.Fatalf("%d completed tasks on the board (%v), want %d", len(done), err, n)
	}
	if err := teammanager.CheckBoard(f.m, ctx, team); err != nil {
		t.Fatal(err)
	}
}
