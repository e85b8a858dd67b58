package teammanager_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/teammanager"
)

// benchBoard is a team of a lead and 32 members with n pending tasks.
func benchBoard(b *testing.B, n int) (*fixture, string) {
	b.Helper()
	f := newFixture(b, teammanager.DefaultConfig().WithAutoMerge(false).WithMaxTeamSize(40))
	ms := []teammanager.MemberConfig{{AgentID: "lead", Role: "lead"}}
	for i := range 32 {
		ms = append(ms, teammanager.MemberConfig{AgentID: fmt.Sprintf("m%02d", i)})
	}
	team := f.create(b, teammanager.TeamConfig{ID: "bench", Name: "bench", Members: ms, Timeout: -1}).ID
	var wg sync.WaitGroup
	for w := range 8 { // created concurrently: group-committed
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 8 {
				if _, err := f.m.CreateTask(ctx, team, "lead", teammanager.NewTask{Subject: fmt.Sprint("t", i), Priority: i % 5}); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	return f, team
}

// BenchmarkTask_ClaimComplete_32Members: 32 members ClaimNext + CompleteTask
// from a 10,000-task queue; reports the p50/p99 latency of one claim +
// complete.
func BenchmarkTask_ClaimComplete_32Members(b *testing.B) {
	f, team := benchBoard(b, 10_000)
	claimComplete(b, f, team, 32)
}

// BenchmarkTask_ClaimComplete_1Member: one member's ClaimNext +
// CompleteTask from a 10,000-task queue, alone: the cost of the pair
// without waiting for other members' writes.
func BenchmarkTask_ClaimComplete_1Member(b *testing.B) {
	f, team := benchBoard(b, 10_000)
	claimComplete(b, f, team, 1)
}

// claimComplete runs b.N claim + complete pairs by members m00.. of team,
// members at a time, and reports the p50/p99 latency of a pair and the
// CPU time per pair.
func claimComplete(b *testing.B, f *fixture, team string, members int) {
	var mu sync.Mutex
	var lat []time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	var wg sync.WaitGroup
	per := max(1, b.N/members)
	for i := range members {
		agent := fmt.Sprintf("m%02d", i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range per {
				start := time.Now()
				task, err := f.m.ClaimNext(ctx, team, agent)
				if err != nil {
					b.Error(err)
					return
				}
				if _, err := f.m.CompleteTask(ctx, team, agent, task.ID, "ok"); err != nil {
					b.Error(err)
					return
				}
				d := time.Since(start)
				mu.Lock()
				lat = append(lat, d)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	reportCPU(b, cpu)
	slices.Sort(lat)
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	}
}

func BenchmarkTask_List_10k(b *testing.B) {
	f, team := benchBoard(b, 10_000)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	defer reportCPU(b, cpu)
	for b.Loop() {
		ts, err := f.m.ListTasks(ctx, team, teammanager.TaskFilter{})
		if err != nil || len(ts) != 10_000 {
			b.Fatal(len(ts), err)
		}
	}
}

// BenchmarkTask_DispatchUnblocked_10k: one dispatch round over 10,000
// ready tasks with 32 free members, then the 32 tasks are put back
// (outside the timer) so every round has the same work.
func BenchmarkTask_DispatchUnblocked_10k(b *testing.B) {
	f, team := benchBoard(b, 10_000)
	b.ReportAllocs()
	b.ResetTimer()
	var cpu time.Duration
	for b.Loop() {
		start := cpuTime()
		rep, err := f.m.DispatchUnblocked(ctx, team)
		if err != nil || len(rep.Dispatched) != 32 {
			b.Fatal(rep, err)
		}
		cpu += cpuTime() - start
		b.StopTimer()
		for _, t := range rep.Dispatched {
			if _, err := f.m.CompleteTask(ctx, team, t.Assignee, t.ID, "ok"); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
}
