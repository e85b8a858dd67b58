package cortextest_test

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"
	"github.com/dgraph-io/badger/v4"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
)

// corruptStore makes a store in dir whose namespace "ns" says it holds 99
// quads (it holds 2), written to Badger behind the store's back.
func corruptStore(t *testing.T, dir string) {
	t.Helper()
	ctx := context.Background()
	s, err := cortex.Open(ctx, dir, cortex.DefaultOptions().WithSyncWrites(false))
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.Namespace(ctx, "ns")
	if err != nil {
		t.Fatal(err)
	}
	err = n.Apply(ctx, cortex.Delta{Add: []quad.Quad{
		{Subject: quad.IRI("urn:a"), Predicate: quad.IRI("urn:p"), Object: quad.String("x")},
		{Subject: quad.IRI("urn:b"), Predicate: quad.IRI("urn:p"), Object: quad.String("y")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	var size [8]byte
	binary.LittleEndian.PutUint64(size[:], 99)
	err = db.Update(func(txn *badger.Txn) error { return txn.Set([]byte("n:ns/meta/size"), size[:]) })
	if err := errors.Join(err, db.Close()); err != nil {
		t.Fatal(err)
	}
}

// cleanupCases are run in a child process by TestCleanupChecks: whether
// they fail is up to the cleanups they register.
var cleanupCases = map[string]func(t *testing.T){
	"open-store-of-corrupt-store": func(t *testing.T) {
		dir := t.TempDir()
		corruptStore(t, dir)
		cortextest.OpenStore(t, dir)
	},
	"closed-and-reopened-corrupt-store": func(t *testing.T) {
		dir := t.TempDir()
		corruptStore(t, dir)
		// Closed by the test: checked all the same, once.
		for range 3 {
			if err := cortextest.OpenStore(t, dir).Close(); err != nil {
				t.Fatal(err)
			}
		}
	},
	"check-dir-then-open-store": func(t *testing.T) {
		dir := t.TempDir()
		cortextest.CheckDir(t, dir)
		corruptStore(t, dir)
		// Its cleanup runs first and checks it; CheckDir's does not again.
		cortextest.OpenStore(t, dir)
		cortextest.NewStore(t, cortex.DefaultOptions().WithInMemory(true))
	},
	"open-store-then-check-dir": func(t *testing.T) {
		dir := t.TempDir()
		corruptStore(t, dir)
		cortextest.OpenStore(t, dir)
		// Its cleanup runs first and finds the store held: it leaves the
		// check to OpenStore's.
		cortextest.CheckDir(t, dir)
	},
	"check-dir-of-corrupt-store": func(t *testing.T) {
		dir := t.TempDir()
		cortextest.CheckDir(t, dir)
		cortextest.CheckDir(t, dir) // registered once
		corruptStore(t, dir)
	},
	"no-check": func(t *testing.T) {
		dir := t.TempDir()
		corruptStore(t, dir)
		cortextest.NoCheck(t)
		cortextest.OpenStore(t, dir)
		cortextest.CheckDir(t, dir)
	},
	"consistent-store": func(t *testing.T) {
		s := cortextest.NewStore(t)
		n, err := s.Namespace(context.Background(), "ns")
		if err != nil {
			t.Fatal(err)
		}
		q := quad.Quad{Subject: quad.IRI("urn:a"), Predicate: quad.IRI("urn:p"), Object: quad.IRI("urn:a")}
		if err := n.Apply(context.Background(), cortex.Delta{Add: []quad.Quad{q}}); err != nil {
			t.Fatal(err)
		}
		cortextest.CheckDir(t, t.TempDir()) // no store there: nothing to check
	},
}

// TestCleanupChecks runs each of cleanupCases in a child process (this
// test binary, re-executed) and checks that the cleanups of OpenStore and
// CheckDir fail a test whose store is inconsistent, naming the problem
// once, and that NoCheck silences them.
func TestCleanupChecks(t *testing.T) {
	if name := os.Getenv("CORTEXTEST_CHILD"); name != "" {
		cleanupCases[name](t)
		return
	}
	for name, fail := range map[string]bool{
		"open-store-of-corrupt-store":       true,
		"closed-and-reopened-corrupt-store": true,
		"check-dir-then-open-store":         true,
		"open-store-then-check-dir":         true,
		"check-dir-of-corrupt-store":        true,
		"no-check":                          false,
		"consistent-store":                  false,
	} {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestCleanupChecks$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), "CORTEXTEST_CHILD="+name)
			out, err := cmd.CombinedOutput()
			if failed := err != nil; failed != fail {
				t.Fatalf("child failed = %v, want %v:\n%s", failed, fail, out)
			}
			n := strings.Count(string(out), "after the test: store check: 1 problem:")
			m := strings.Count(string(out), "namespace ns: meta size 99, but 2 live quads")
			if want := map[bool]int{true: 1, false: 0}[fail]; n != want || m != want {
				t.Errorf("child output names the problem %d/%d times, want %d:\n%s", n, m, want, out)
			}
			if !strings.Contains(string(out), "--- ") {
				t.Errorf("child ran no test:\n%s", out)
			}
		})
	}
}
