package teammanager_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/teammanager"
)

// The swarm crash test: a swarm of 8 members works through a board in a
// child process that is killed (SIGKILL) at a random point, twice, each
// time by a new process; then the run finishes in this one.
const (
	swarmTeam    = "swarm"
	swarmMembers = 8
)

func swarmTasks() int {
	if testing.Short() {
		return 120
	}
	return 300
}

// openSwarm opens the store in dir and a Manager whose clock runs shift
// ahead of the wall clock (so that, after a crash, the dead process's
// claims are past their lease).
func openSwarm(dir string, shift time.Duration) (*cortex.Store, *teammanager.Manager, error) {
	c := context.Background()
	s, err := cortex.Open(c, dir, cortex.DefaultOptions())
	if err != nil {
		return nil, nil, err
	}
	x, err := namespace.New("acme")
	if err != nil {
		return nil, nil, err
	}
	cfg := teammanager.DefaultConfig().WithAutoMerge(false).WithMaxTeamSize(16).
		WithClock(func() time.Time { return time.Now().Add(shift) })
	m, err := teammanager.New(c, s, x, cfg)
	if err != nil {
		_ = s.Close()
		return nil, nil, err
	}
	return s, m, nil
}

// runSwarm has the members of swarmTeam requeue the claims whose lease
// ran out, then claim and complete tasks until every one of the n tasks
// is completed, calling ack after each acknowledged claim and completion.
func runSwarm(m *teammanager.Manager, n int, ack func(event, agent, task string)) error {
	c := context.Background()
	if _, err := m.SweepTasks(c, swarmTeam); err != nil {
		return err
	}
	var wg sync.WaitGroup
	errs := make(chan error, swarmMembers)
	for i := range swarmMembers {
		agent := fmt.Sprint("m", i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				task, err := m.ClaimNext(c, swarmTeam, agent)
				if errors.Is(err, teammanager.ErrNoReadyTask) {
					done, err := m.ListTasks(c, swarmTeam, teammanager.TaskFilter{Status: teammanager.TaskCompleted})
					if err != nil {
						errs <- err
						return
					}
					if len(done) == n {
						return
					}
					time.Sleep(time.Millisecond) // a blocker is being completed
					continue
				}
				if err != nil {
					errs <- err
					return
				}
				ack("claim", agent, task.ID)
				if _, err := m.CompleteTask(c, swarmTeam, agent, task.ID, "ok"); err != nil {
					errs <- err
					return
				}
				ack("done", agent, task.ID)
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// childSwarm runs the swarm on the store in dir, printing "claim AGENT
// TASK" and "done AGENT TASK" once each call has returned, until the
// parent kills it (or the n tasks are completed).
func childSwarm(dir string, shift time.Duration, n int) error {
	s, m, err := openSwarm(dir, shift)
	if err != nil {
		return err
	}
	var mu sync.Mutex
	err = runSwarm(m, n, func(event, agent, task string) {
		mu.Lock()
		fmt.Println(event, agent, task)
		mu.Unlock()
	})
	_ = s.Close()
	if err == nil {
		fmt.Println("finished")
	}
	return err
}

// TestTask_Swarm_KillAndRestart: a swarm run on a durable store is killed
// at random points by SIGKILL, in two processes one after the other; after
// each crash the reopened board is consistent (CheckBoard: every task's
// row, ready and held rows and quads agree, no task held twice, the
// counter exact), every acknowledged completion is there, and then the
// run finishes in a third process (this one): every task completed once.
func TestTask_Swarm_KillAndRestart(t *testing.T) {
	n := swarmTasks()
	dir := t.TempDir()
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))

	s, m, err := openSwarm(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	ms := []teammanager.MemberConfig{{AgentID: "lead", Role: "lead"}}
	for i := range swarmMembers {
		ms = append(ms, teammanager.MemberConfig{AgentID: fmt.Sprint("m", i)})
	}
	if _, err := m.CreateTeam(ctx, teammanager.TeamConfig{ID: swarmTeam, Name: swarmTeam, Members: ms, Timeout: -1}); err != nil {
		t.Fatal(err)
	}
	// No review, and a breaker that the crashes cannot trip.
	if _, err := m.ConfigureBoard(ctx, swarmTeam, teammanager.BoardSettings{MaxDispatches: 100}); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		nt := teammanager.NewTask{Subject: fmt.Sprint("t", i), Priority: i % 5}
		if i%7 == 6 {
			nt.BlockedBy = []string{fmt.Sprint("T", i)} // the task before it
		}
		if _, err := m.CreateTask(ctx, swarmTeam, "lead", nt); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	acked := map[string]bool{} // completions acknowledged by a killed process
	for round := range 2 {
		cmd, out := startChild(t, "swarm-under-load", dir, fmt.Sprintf("CORTEX_TEAMMANAGER_SHIFT=%dh", round), fmt.Sprint("CORTEX_TEAMMANAGER_TASKS=", n))
		killAt := 5 + rng.IntN(n/3)
		events, killed := 0, false
		lines := bufio.NewScanner(out)
		for lines.Scan() {
			f := strings.Fields(lines.Text())
			if len(f) != 3 || f[0] != "claim" && f[0] != "done" {
				t.Fatalf("round %d: child: %q", round, lines.Text())
			}
			if f[0] == "done" {
				acked[f[2]] = true
			}
			if events++; events == killAt && !killed {
				if err := cmd.Process.Kill(); err != nil {
					t.Fatal(err)
				}
				killed = true
			}
		}
		_ = cmd.Wait()
		if !killed {
			t.Fatalf("round %d: the child ended after %d events", round, events)
		}
		s, m, err := openSwarm(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := teammanager.CheckBoard(m, ctx, swarmTeam); err != nil {
			t.Fatalf("round %d (killed after %d events): %v", round, killAt, err)
		}
		all, err := m.ListTasks(ctx, swarmTeam, teammanager.TaskFilter{})
		if err != nil || len(all) != n {
			t.Fatalf("round %d: %d tasks (%v), want %d", round, len(all), err, n)
		}
		for _, task := range all {
			if acked[task.ID] && task.Status != teammanager.TaskCompleted {
				t.Fatalf("round %d: acknowledged completion of %s lost: %s", round, task.ID, task.Status)
			}
		}
		if err := s.Check(ctx); err != nil {
			t.Fatalf("round %d: store check: %v", round, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}

	s, m, err = openSwarm(dir, 3*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var mu sync.Mutex
	completions := map[string]int{}
	if err := runSwarm(m, n, func(event, _, task string) {
		if event == "done" {
			mu.Lock()
			completions[task]++
			mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	all, err := m.ListTasks(ctx, swarmTeam, teammanager.TaskFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range all {
		if task.Status != teammanager.TaskCompleted {
			t.Fatalf("task %s is %s after the run", task.ID, task.Status)
		}
		if acked[task.ID] && completions[task.ID] > 0 {
			t.Fatalf("task %s completed again after a crash", task.ID)
		}
		for _, b := range task.BlockedBy {
			bt, _ := m.GetTask(ctx, swarmTeam, b)
			if bt.UpdatedAt.After(task.ClaimedAt) {
				t.Fatalf("task %s claimed at %v, before its blocker %s completed (%v)", task.ID, task.ClaimedAt, b, bt.UpdatedAt)
			}
		}
	}
	if err := teammanager.CheckBoard(m, ctx, swarmTeam); err != nil {
		t.Fatal(err)
	}
}
