//go:build linux

package engine

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
)

// mappedTableRSS returns the resident bytes of this process's mappings of
// table files in dir (from /proc/self/smaps).
func mappedTableRSS(t *testing.T, dir string) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	var total int64
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if strings.Contains(fields[0], "-") && len(fields) >= 5 {
			path := fields[len(fields)-1]
			in = len(fields) >= 6 && strings.HasPrefix(path, dir+"/") && strings.HasSuffix(path, ".sst")
			continue
		}
		if in && fields[0] == "Rss:" {
			kb, _ := strconv.ParseInt(fields[1], 10, 64)
			total += kb << 10
		}
	}
	return total
}

// governedStore opens a store in a fresh directory with a budget, imports
// enough quads to make tables, reads them all back (so their pages are
// resident) and returns the store, its namespace and its real directory.
// The governor looks every `every` (0: the default).
func governedStore(t *testing.T, every time.Duration) (*Store, *Namespace, string) {
	t.Helper()
	ctx := context.Background()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := testStore(t, dir, DefaultOptions().WithSyncWrites(false).WithMemoryBudget(256<<20).WithTuning(Tuning{GovernorEvery: every}))
	s.govLimit.Store(1 << 62) // the governor waits until a test lowers it
	n, err := s.Namespace(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	var qs []quad.Quad
	for i := 0; i < 60_000; i++ {
		qs = append(qs, quad.Quad{Subject: quad.IRI("http://e/s" + strconv.Itoa(i)), Predicate: quad.IRI("http://e/p"), Object: quad.String(strings.Repeat("v", 40) + strconv.Itoa(i))})
	}
	if _, err := n.Import(ctx, &sliceSource{qs: qs}, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := s.flushMemtables(); err != nil { // the last chunks, into tables too
		t.Fatal(err)
	}
	readAll := func() {
		if err := n.EachQuad(ctx, Pattern{}, func(quad.Quad) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	readAll()
	if rss := mappedTableRSS(t, dir); rss < 1<<20 {
		t.Fatalf("only %d bytes of the tables are resident: the test does not test anything", rss)
	}
	return s, n, dir
}

// TestPageOutMappings: paging out the store's table mappings drops their
// resident pages, and the data reads back the same.
func TestPageOutMappings(t *testing.T) {
	_, n, dir := governedStore(t, 0)
	before := mappedTableRSS(t, dir)
	advised, err := pageOutMappings(dir)
	if err != nil {
		t.Skipf("madvise(MADV_PAGEOUT) not supported: %v", err)
	}
	after := mappedTableRSS(t, dir)
	if advised == 0 || after > before/4 {
		t.Fatalf("resident table pages %d -> %d (advised %d bytes): want them paged out", before, after, advised)
	}
	if size, err := n.Size(context.Background()); err != nil || size != 60_000 {
		t.Fatalf("size %d, %v after paging out", size, err)
	}
	bulkCheckFormat(t, n)
}

// TestGovernor_PagesOutAboveBudget: the governor pages the tables out when
// the process's RSS passes the budget (lowered below this process's RSS for
// the test), and stops on Close.
func TestGovernor_PagesOutAboveBudget(t *testing.T) {
	s, n, dir := governedStore(t, 10*time.Millisecond)
	before := mappedTableRSS(t, dir)
	if _, _, ok := residentBytes(); !ok {
		t.Skip("no /proc/self/statm")
	}
	s.govLimit.Store(1)                     // below any RSS
	deadline := time.Now().Add(time.Minute) // a hang guard, not a timing assertion
	for mappedTableRSS(t, dir) > before/4 {
		if time.Now().After(deadline) {
			t.Fatalf("the governor did not page the tables out (resident %d of %d)", mappedTableRSS(t, dir), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if size, err := n.Size(context.Background()); err != nil || size != 60_000 {
		t.Fatalf("size %d, %v after paging out", size, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s.govStop != nil {
		t.Fatal("the governor still runs after Close")
	}
}
