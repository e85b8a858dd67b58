package cortex_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
)

// crashedImport returns a store directory left by a process killed at point
// at of a streamed import segment (stream: "1" for small streamed segments,
// "spill" for spilled ones; see childImport), after earlier segments were
// committed, and the number of quads committed.
func crashedImport(t *testing.T, at string) (dir string, committed int64) {
	return crashedImportOf(t, "1", at)
}

func crashedImportOf(t *testing.T, stream, at string) (dir string, committed int64) {
	t.Helper()
	src := t.TempDir()
	cmd, lines := startChild(t, "import", src, "CORTEX_TEST_STREAM="+stream, "CORTEX_TEST_CRASH_AT="+at)
	for lines.Scan() {
		f := strings.Fields(lines.Text())
		if len(f) == 2 && f[0] == "committed" {
			committed, _ = strconv.ParseInt(f[1], 10, 64)
			continue
		}
		t.Fatalf("child: %s", lines.Text())
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child did not crash: %v", err)
	}
	if committed == 0 {
		t.Fatal("no segment was committed before the crash")
	}
	if _, err := os.Stat(filepath.Join(src, "cortex-stream.undo")); err != nil {
		t.Fatalf("no undo file left by the crash: %v", err)
	}
	return src, committed
}

// copyDir copies a store directory. A crashed store's value log and
// memtable files are large and sparse: cp keeps them sparse.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "store")
	if out, err := exec.Command("cp", "-a", "--sparse=always", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	return dst
}

// checkRolledBack opens dir and checks that it holds exactly the first
// committed quads of genSource, in a consistent format, with no undo file.
func checkRolledBack(t *testing.T, dir string, committed int64) {
	t.Helper()
	checkRolledBackWith(t, dir, cortex.DefaultOptions(), committed)
}

// checkRolledBackWith is checkRolledBack opening the store with opts; it
// returns the store, closed.
func checkRolledBackWith(t *testing.T, dir string, opts cortex.Options, committed int64) *cortex.Store {
	t.Helper()
	s, ns := openNS(t, dir, opts)
	defer s.Close()
	if _, err := os.Stat(filepath.Join(dir, "cortex-stream.undo")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("undo file still there after recovery: %v", err)
	}
	var want []quad.Quad
	for i := 0; i < int(committed); i++ {
		want = append(want, genQuad(i))
	}
	equalSets(t, cortextest.AllQuads(t, ns), want)
	cortex.CheckFormat(t, ns)
	if sz, err := ns.Size(context.Background()); err != nil || sz != committed {
		t.Fatalf("size %d, %v; want %d", sz, err, committed)
	}
	return s
}

// TestRecovery_RollbackPaths rolls back the same interrupted segment through
// a write batch and through the stream writer: both leave exactly the
// committed quads.
func TestRecovery_RollbackPaths(t *testing.T) {
	t.Parallel()
	crashed, committed := crashedImport(t, "flushed")
	for _, tc := range []struct {
		name     string
		streamed bool
	}{{"batched", false}, {"streamed", true}} {
		t.Run(tc.name, func(t *testing.T) {
			min := 1 << 30
			if tc.streamed {
				min = 1
			}
			opts := cortex.DefaultOptions().WithTuning(cortex.Tuning{RollbackStreamMin: min})
			s := checkRolledBackWith(t, copyDir(t, crashed), opts, committed)
			if got := s.StreamedRollbacks(); (got == 1) != tc.streamed {
				t.Fatalf("%d streamed roll-backs, want streamed=%v", got, tc.streamed)
			}
		})
	}
}

// TestRecovery_ReportsProgress checks what Open reports while it rolls
// back: a start, the count of keys, progress, and the end.
func TestRecovery_ReportsProgress(t *testing.T) {
	t.Parallel()
	crashed, committed := crashedImport(t, "flushed")
	for _, streamed := range []bool{false, true} {
		t.Run("streamed="+strconv.FormatBool(streamed), func(t *testing.T) {
			min := 1 << 30
			if streamed {
				min = 1
			}
			dir := copyDir(t, crashed)
			var got []cortex.RecoveryProgress
			tuning := cortex.Tuning{RollbackStreamMin: min, RollbackProgressEvery: 100}
			s, err := cortex.Open(context.Background(), dir, cortex.DefaultOptions().WithTuning(tuning).WithRecoveryProgress(func(p cortex.RecoveryProgress) {
				got = append(got, p)
			}))
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			if len(got) < 4 {
				t.Fatalf("%d reports, want a start, a count, progress and an end: %+v", len(got), got)
			}
			first, second, last := got[0], got[1], got[len(got)-1]
			for _, p := range got {
				if p.What != "import segment" || p.Namespace != "default" {
					t.Fatalf("report %+v: want what %q, namespace %q", p, "import segment", "default")
				}
			}
			if first.Total != 0 || first.Done || second.Total == 0 || second.Keys != 0 {
				t.Fatalf("first reports %+v, %+v: want a start, then the count", first, second)
			}
			if !last.Done || last.Keys != last.Total || last.Total != second.Total {
				t.Fatalf("last report %+v, want done with all %d keys", last, second.Total)
			}
			for i := 2; i < len(got)-1; i++ {
				if p := got[i]; p.Done || p.Keys <= got[i-1].Keys || p.Keys > p.Total {
					t.Fatalf("report %d: %+v after %+v", i, p, got[i-1])
				}
			}
			checkRolledBack(t, dir, committed)
		})
	}
}

// TestRecovery_Cancel cancels Open's context while it rolls back, at the
// count and in the middle of writing: Open fails with the context's error,
// the undo file stays, and the next Open completes the roll-back.
func TestRecovery_Cancel(t *testing.T) {
	t.Parallel()
	crashed, committed := crashedImport(t, "flushed")
	for _, streamed := range []bool{false, true} {
		for _, when := range []string{"count", "write"} {
			t.Run("streamed="+strconv.FormatBool(streamed)+"/"+when, func(t *testing.T) {
				min := 1 << 30
				if streamed {
					min = 1
				}
				dir := copyDir(t, crashed)
				ctx, cancel := context.WithCancelCause(context.Background())
				defer cancel(nil)
				stop := errors.New("interrupted by the test")
				tuning := cortex.Tuning{RollbackStreamMin: min, RollbackProgressEvery: 64}
				s, err := cortex.Open(ctx, dir, cortex.DefaultOptions().WithTuning(tuning).WithRecoveryProgress(func(p cortex.RecoveryProgress) {
					if (when == "count" && p.Total > 0) || (when == "write" && p.Keys > 0) {
						cancel(stop)
					}
				}))
				if err == nil {
					s.Close()
					t.Fatal("Open succeeded after its context was cancelled")
				}
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("Open: %v, want context.Canceled", err)
				}
				if _, err := os.Stat(filepath.Join(dir, "cortex-stream.undo")); err != nil {
					t.Fatalf("undo file gone after a cancelled roll-back: %v", err)
				}
				checkRolledBackWith(t, dir, cortex.DefaultOptions().WithTuning(tuning), committed)
			})
		}
	}
}

// TestRecovery_ReadOnlyOpenAfterCrash: a read-only Open of a store that a
// killed process left behind fails with ErrRecoveryNeeded (Badger's log must
// be truncated, an interrupted segment rolled back), never a raw Badger
// error; a read-write Open recovers it and read-only Opens work again.
func TestRecovery_ReadOnlyOpenAfterCrash(t *testing.T) {
	t.Parallel()
	crashed, committed := crashedImport(t, "flushed")
	for _, keepUndo := range []bool{true, false} {
		t.Run("undo="+strconv.FormatBool(keepUndo), func(t *testing.T) {
			dir := copyDir(t, crashed)
			if !keepUndo {
				// Only Badger's own state from the crash is left.
				if err := os.Remove(filepath.Join(dir, "cortex-stream.undo")); err != nil {
					t.Fatal(err)
				}
			}
			ro := cortex.DefaultOptions().WithReadOnly(true)
			if s, err := cortex.Open(context.Background(), dir, ro); err == nil {
				s.Close()
				if !keepUndo {
					t.Skip("Badger opened the crashed store read-only: nothing to recover here")
				}
				t.Fatal("a read-only Open succeeded on a store with an interrupted segment")
			} else if !errors.Is(err, cortex.ErrRecoveryNeeded) {
				t.Fatalf("read-only Open: %v, want ErrRecoveryNeeded", err)
			}
			if keepUndo {
				checkRolledBack(t, dir, committed)
			} else {
				s, _ := openNS(t, dir, cortex.DefaultOptions())
				s.Close()
			}
			s, err := cortex.Open(context.Background(), dir, ro)
			if err != nil {
				t.Fatalf("read-only Open after recovery: %v", err)
			}
			s.Close()
		})
	}
}

// TestRecovery_EmptyMemtableLog: a process killed right after Badger created
// a memtable's log (or a value log), before it sized the file, leaves an
// empty *.mem (*.vlog) file, on
// which Badger's own Open fails ("while opening fid: N err: Create a new
// file"; TestImport_SurvivesKill9 once hit it). A read-only Open reports
// ErrRecoveryNeeded and writes nothing; a read-write Open removes the file
// and opens the store with all its data.
func TestRecovery_EmptyMemtableLog(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"00099.mem", "000099.vlog"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testEmptyLog(t, name)
		})
	}
}

// testEmptyLog: a store with the empty file name beside its data (see
// TestRecovery_EmptyMemtableLog).
func testEmptyLog(t *testing.T, name string) {
	ctx := context.Background()
	dir := t.TempDir()
	s, ns := openNS(t, dir, cortex.DefaultOptions())
	q := quad.Quad{Subject: quad.IRI("http://ex.org/s"), Predicate: quad.IRI("http://ex.org/p"), Object: quad.String("o")}
	if err := ns.Apply(ctx, cortex.Delta{Add: []quad.Quad{q}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, name)
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := cortex.Open(ctx, dir, cortex.DefaultOptions().WithReadOnly(true)); err == nil {
		s.Close()
		t.Fatal("a read-only Open succeeded with an empty memtable log")
	} else if !errors.Is(err, cortex.ErrRecoveryNeeded) || !strings.Contains(err.Error(), name) {
		t.Fatalf("read-only Open: %v, want ErrRecoveryNeeded naming the file", err)
	}
	if fi, err := os.Stat(empty); err != nil || fi.Size() != 0 {
		t.Fatalf("the read-only Open changed the file: %v %v", fi, err)
	}
	s, ns = openNS(t, dir, cortex.DefaultOptions())
	if n, err := ns.Size(ctx); err != nil || n != 1 {
		t.Fatalf("after the read-write Open: %d quads, %v", n, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(empty); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the empty memtable log is still there: %v", err)
	}
	s, err := cortex.Open(ctx, dir, cortex.DefaultOptions().WithReadOnly(true))
	if err != nil {
		t.Fatalf("read-only Open after the read-write one: %v", err)
	}
	s.Close()
}

// childRecover opens a crashed store and kills itself in the middle of the
// roll-back: CORTEX_TEST_CRASH_AT is "write" (after some keys were written)
// or "done" (once the roll-back is durable, before the undo file is
// removed); CORTEX_TEST_STREAM=1 rolls back through the stream writer.
func childRecover(dir string) {
	at := os.Getenv("CORTEX_TEST_CRASH_AT")
	tuning := cortex.Tuning{RollbackStreamMin: 1 << 30, RollbackProgressEvery: 16}
	if os.Getenv("CORTEX_TEST_STREAM") == "1" {
		tuning.RollbackStreamMin = 1
	}
	opts := cortex.DefaultOptions().WithTuning(tuning).WithRecoveryProgress(func(p cortex.RecoveryProgress) {
		if (at == "write" && p.Keys > 0 && !p.Done) || (at == "done" && p.Done) {
			killSelf()
			select {}
		}
	})
	s, err := cortex.Open(context.Background(), dir, opts)
	if err == nil {
		s.Close()
	}
	fmt.Println("error: open returned", err)
}

// TestRecovery_KilledDuringRollback kills the process that rolls back an
// interrupted segment, in the middle of writing the roll-back and once it
// is durable: the next Open rolls back again and converges to the committed
// quads.
func TestRecovery_KilledDuringRollback(t *testing.T) {
	t.Parallel()
	crashed, committed := crashedImport(t, "flushed")
	for _, stream := range []string{"0", "1"} {
		for _, at := range []string{"write", "done"} {
			t.Run("stream="+stream+"/"+at, func(t *testing.T) {
				dir := copyDir(t, crashed)
				cmd, lines := startChild(t, "recover", dir, "CORTEX_TEST_STREAM="+stream, "CORTEX_TEST_CRASH_AT="+at)
				for lines.Scan() {
					t.Fatalf("child: %s", lines.Text())
				}
				err := cmd.Wait()
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
					t.Fatalf("child did not crash: %v", err)
				}
				if _, err := os.Stat(filepath.Join(dir, "cortex-stream.undo")); err != nil {
					t.Fatalf("undo file gone after a roll-back killed before its end: %v", err)
				}
				checkRolledBack(t, dir, committed)
			})
		}
	}
}
