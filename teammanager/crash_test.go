package teammanager_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/teammanager"
)

// The crash tests run a second process: this test binary re-executed with
// CORTEX_TEAMMANAGER_CHILD set, which runs the child instead of the tests.
func TestMain(m *testing.M) {
	switch os.Getenv("CORTEX_TEAMMANAGER_CHILD") {
	case "":
		os.Exit(m.Run())
	case "crash-in-merge":
		topics, _ := strconv.Atoi(os.Getenv("CORTEX_TEAMMANAGER_TOPICS"))
		if err := childCrashInMerge(os.Getenv("CORTEX_TEAMMANAGER_DIR"), topics); err != nil {
			fmt.Println("error", err)
		}
	case "events-under-load":
		if err := childEventsUnderLoad(os.Getenv("CORTEX_TEAMMANAGER_DIR")); err != nil {
			fmt.Println("error", err)
		}
	case "swarm-under-load":
		shift, _ := time.ParseDuration(os.Getenv("CORTEX_TEAMMANAGER_SHIFT"))
		tasks, _ := strconv.Atoi(os.Getenv("CORTEX_TEAMMANAGER_TASKS"))
		if err := childSwarm(os.Getenv("CORTEX_TEAMMANAGER_DIR"), shift, tasks); err != nil {
			fmt.Println("error", err)
		}
	case "findings-under-load":
		if err := childFindingsUnderLoad(os.Getenv("CORTEX_TEAMMANAGER_DIR")); err != nil {
			fmt.Println("error", err)
		}
	}
	os.Exit(3)
}

// startChild starts this test binary as child process child (see
// TestMain) on the store in dir, with env added to its environment, and
// returns it with its standard output. The child is killed, if still
// running, when the test ends.
func startChild(t *testing.T, child, dir string, env ...string) (*exec.Cmd, io.Reader) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), "CORTEX_TEAMMANAGER_CHILD="+child, "CORTEX_TEAMMANAGER_DIR="+dir), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, out
}

// crashTeam is the team of the crash tests: three reviewers with
// confidences, agreeing on most topics and disagreeing on one in ten
// (conflict-flag).
const crashTeam = "t"

// crashTopics is the number of topics of crashTeam: with 1,500 the merge is
// larger than one transaction (journaled by the store); -short (as under
// -race, where the child process is slow too) uses fewer.
func crashTopics() int {
	if testing.Short() {
		return 300
	}
	return 1500
}

// crashScenario creates crashTeam in m, records the findings on topics
// topics and completes every member but the last, "c" (whose completion
// finishes the team). Times come from clock, so every run gives the same
// finding ids.
func crashScenario(m *teammanager.Manager, clock *fakeClock, topics int) error {
	c := context.Background()
	_, err := m.CreateTeam(c, teammanager.TeamConfig{ID: crashTeam, Name: "review", Strategy: merge.NameConflictFlag, Members: members("a", "b", "c")})
	if err != nil {
		return err
	}
	for i, a := range []string{"a", "b", "c"} {
		if _, err := m.UpdateMemberStatus(c, crashTeam, a, teammanager.Running, ""); err != nil {
			return err
		}
		var fs []teammanager.Finding
		for k := range topics {
			o := "agreed"
			if k%10 == 0 {
				o = a // a disagreement
			}
			fs = append(fs, teammanager.Finding{
				Subject: iri(fmt.Sprint("s", k)), Predicate: iri("p"), Object: quad.String(o),
				Confidence: float64((k*7+i*13)%100+1) / 101, AssertedAt: clock.Now(),
			})
		}
		if _, err := m.AddFindings(c, crashTeam, a, fs); err != nil {
			return err
		}
		clock.Advance(time.Second)
	}
	for _, a := range []string{"a", "b"} {
		if _, err := m.UpdateMemberStatus(c, crashTeam, a, teammanager.Completed, ""); err != nil {
			return err
		}
		clock.Advance(time.Second)
	}
	return nil
}

// childCrashInMerge runs crashScenario on the store in dir, then completes
// the team; its automatic merge stops inside the write that records it,
// after printing "merging", until the parent kills the process.
func childCrashInMerge(dir string, topics int) error {
	c := context.Background()
	// Without fsync: a killed process loses nothing committed.
	s, err := cortex.Open(c, dir, cortex.DefaultOptions().WithSyncWrites(false))
	if err != nil {
		return err
	}
	x, err := namespace.New("acme")
	if err != nil {
		return err
	}
	clock := newClock()
	m, err := teammanager.New(c, s, x, teammanager.DefaultConfig().WithClock(clock.Now))
	if err != nil {
		return err
	}
	if err := crashScenario(m, clock, topics); err != nil {
		return err
	}
	teammanager.SetMergeWriteHook(func() {
		fmt.Println("merging") // stdout is a pipe: an unbuffered write
		select {}
	})
	_, err = m.UpdateMemberStatus(c, crashTeam, "c", teammanager.Completed, "")
	return fmt.Errorf("the completing update returned (%v) instead of stopping in its merge", err)
}

// crashedStore runs childCrashInMerge in a fresh directory, kills the child
// with SIGKILL in the middle of its automatic merge and returns the
// directory.
func crashedStore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cmd, out := startChild(t, "crash-in-merge", dir, "CORTEX_TEAMMANAGER_TOPICS="+strconv.Itoa(crashTopics()))
	lines := bufio.NewScanner(out)
	if !lines.Scan() || lines.Text() != "merging" {
		t.Fatalf("child: %q (%v)", lines.Text(), lines.Err())
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	_ = cmd.Wait()
	return dir
}

// referenceFacts runs crashScenario and completes the team without a crash,
// and returns the merged facts and conflicts.
func referenceFacts(t *testing.T) ([]teammanager.Fact, []teammanager.Conflict) {
	t.Helper()
	f := newFixture(t)
	if err := crashScenario(f.m, f.clock, crashTopics()); err != nil {
		t.Fatal(err)
	}
	if up := f.status(t, crashTeam, "c", teammanager.Completed, ""); up.Merge == nil {
		t.Fatal("no automatic merge")
	}
	facts, err := f.m.Facts(ctx, crashTeam, teammanager.FactFilter{})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := f.m.Conflicts(ctx, crashTeam)
	if err != nil {
		t.Fatal(err)
	}
	return facts, cs
}

// TestManager_CrashInAutoMerge kills a process (SIGKILL) in the middle of
// the automatic merge that follows the member update completing its team.
// After it, the team is completed and reads as not merged, with the reason;
// a member update names the command that merges it. Then each retry point
// — the next open (New), Sweep, GetTeam, the next write to the team —
// merges it, and the merged facts and conflicts equal those of a run
// without the crash.
func TestManager_CrashInAutoMerge(t *testing.T) {
	wantFacts, wantConflicts := referenceFacts(t)
	if len(wantFacts) < crashTopics()*8/10 || len(wantConflicts) < crashTopics()/20 {
		t.Fatalf("reference run: %d facts, %d conflicts", len(wantFacts), len(wantConflicts))
	}
	x, err := namespace.New("acme")
	if err != nil {
		t.Fatal(err)
	}
	cfg := teammanager.DefaultConfig().WithClock(newClock().Now)
	for _, point := range []string{"open", "Sweep", "GetTeam", "write"} {
		t.Run(point, func(t *testing.T) {
			dir := crashedStore(t)

			// A Manager that does not merge on its own sees the state as
			// the crash left it, and its refused member update says how to
			// merge.
			s, err := cortex.Open(ctx, dir, cortex.DefaultOptions().WithSyncWrites(false))
			if err != nil {
				t.Fatal(err)
			}
			off, err := teammanager.New(ctx, s, x, cfg.WithAutoMerge(false))
			if err != nil {
				t.Fatal(err)
			}
			got, err := off.GetTeam(ctx, crashTeam)
			if err != nil || got.Status != teammanager.Completed || got.Merged || got.MergePending != teammanager.MergeInterrupted || got.LastMerge != "" {
				t.Fatalf("after the crash: %+v, %v", got, err)
			}
			_, err = off.UpdateMemberStatus(ctx, crashTeam, "c", teammanager.Completed, "")
			if !errors.Is(err, teammanager.ErrTeamFinished) || !strings.Contains(err.Error(), "`cortexctl teams merge t`") || !strings.Contains(err.Error(), "interrupted") {
				t.Fatalf("member update after the crash: %v", err)
			}
			listed, err := off.ListTeams(ctx, teammanager.TeamFilter{})
			if err != nil || len(listed) != 1 || listed[0].Merged || listed[0].MergePending != teammanager.MergeInterrupted {
				t.Fatalf("listed after the crash: %+v, %v", listed, err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}

			// Read-only, the retries of New and GetTeam cannot write: the
			// team still reads as not merged, interrupted.
			s, err = cortex.Open(ctx, dir, cortex.DefaultOptions().WithReadOnly(true))
			if err != nil {
				t.Fatal(err)
			}
			ro, err := teammanager.New(ctx, s, x, cfg)
			if err != nil {
				t.Fatal(err)
			}
			got, err = ro.GetTeam(ctx, crashTeam)
			if err != nil || got.Merged || got.MergePending != teammanager.MergeInterrupted {
				t.Fatalf("read-only: %+v, %v", got, err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}

			s, err = cortex.Open(ctx, dir, cortex.DefaultOptions().WithSyncWrites(false))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			off, err = teammanager.New(ctx, s, x, cfg.WithAutoMerge(false))
			if err != nil {
				t.Fatal(err)
			}
			merged := func() bool {
				t.Helper()
				got, err := off.GetTeam(ctx, crashTeam) // no retry: auto-merge is off
				if err != nil {
					t.Fatal(err)
				}
				return got.Merged
			}

			if point != "open" {
				defer teammanager.SetRetryOnOpen(false)()
			}
			m, err := teammanager.New(ctx, s, x, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if merged() != (point == "open") {
				t.Fatalf("after New: merged %v", merged())
			}
			switch point {
			case "Sweep":
				if ids, err := m.Sweep(ctx); err != nil || len(ids) != 0 {
					t.Fatalf("Sweep = %v, %v", ids, err)
				}
			case "GetTeam":
				if got, err := m.GetTeam(ctx, crashTeam); err != nil || !got.Merged {
					t.Fatalf("GetTeam = %+v, %v", got, err)
				}
			case "write":
				up, err := m.UpdateMemberStatus(ctx, crashTeam, "c", teammanager.Completed, "")
				if !errors.Is(err, teammanager.ErrTeamFinished) || up.Merge == nil {
					t.Fatalf("member update = %+v, %v", up, err)
				}
			}
			if !merged() {
				t.Fatalf("not merged after the retry at %s", point)
			}
			facts, err := m.Facts(ctx, crashTeam, teammanager.FactFilter{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(facts, wantFacts) {
				t.Fatalf("facts after the crash and the retry differ from an uncrashed run's (%d facts, want %d)", len(facts), len(wantFacts))
			}
			cs, err := m.Conflicts(ctx, crashTeam)
			if err != nil {
				t.Fatal(err)
			}
			if len(cs) != len(wantConflicts) {
				t.Fatalf("%d conflicts after the crash and the retry, want %d", len(cs), len(wantConflicts))
			}
			for i := range cs { // detection times differ between the runs
				cs[i].DetectedAt = time.Time{}
				wantConflicts[i].DetectedAt = time.Time{}
			}
			if !reflect.DeepEqual(cs, wantConflicts) {
				t.Fatalf("conflicts after the crash and the retry differ from an uncrashed run's (%d, want %d)", len(cs), len(wantConflicts))
			}
		})
	}
}
