package cortex_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/namespace"
)

func sideRows(t *testing.T, n *cortex.Namespace, table string) (map[string][]quad.Value, bool) {
	t.Helper()
	rows, current, err := n.SideRows(context.Background(), table)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]quad.Value{}
	for i, r := range rows {
		if i > 0 && rows[i-1].Key >= r.Key {
			t.Fatalf("rows out of key order: %q then %q", rows[i-1].Key, r.Key)
		}
		out[r.Key] = r.Vals
	}
	return out, current
}

func wantCurrent(t *testing.T, n *cortex.Namespace, table string, want bool, when string) {
	t.Helper()
	if _, current := sideRows(t, n, table); current != want {
		t.Fatalf("%s: table %s current = %v, want %v", when, table, current, want)
	}
}

func TestSide_RowsAndCurrency(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := cortextest.NewNamespace(t, "side")
	g := quad.IRI("urn:g")
	q := func(i int) quad.Quad {
		return quad.Quad{Subject: quad.IRI(fmt.Sprint("urn:s", i)), Predicate: quad.IRI("urn:p"), Object: quad.String(fmt.Sprint(i)), Label: g}
	}
	row := []quad.Value{
		quad.String("a name"), nil, quad.LangString{Value: "x", Lang: "en"},
		quad.TypedString{Value: "01", Type: "http://www.w3.org/2001/XMLSchema#integer"},
		quad.IRI("urn:x"), quad.String(""), quad.BNode("b1"),
	}
	key := "odd/key with spaces, \\ and \x00 bytes"

	if rows, current := sideRows(t, n, "teams"); len(rows) != 0 || current {
		t.Fatalf("new table: %v rows, current %v", rows, current)
	}
	// A stamped write: the table is current, with exactly the row written.
	update := func(fn func(tx *cortex.Tx)) {
		t.Helper()
		if err := n.Update(ctx, func(tx *cortex.Tx) error { fn(tx); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	update(func(tx *cortex.Tx) {
		tx.Add(q(1))
		tx.PutSide("teams", key, row)
		tx.PutSide("teams", "gone", row[:1])
		tx.DeleteSide("teams", "gone") // the later operation wins
		tx.StampSide("teams")
	})
	rows, current := sideRows(t, n, "teams")
	if !current || !reflect.DeepEqual(rows, map[string][]quad.Value{key: row}) {
		t.Fatalf("after a stamped write: current %v, rows %#v", current, rows)
	}
	// Kept through deltas that add, remove, or change no quad.
	update(func(tx *cortex.Tx) { tx.Add(q(2)); tx.KeepSide("teams") })
	wantCurrent(t, n, "teams", true, "kept through an addition")
	update(func(tx *cortex.Tx) { tx.Remove(q(2)); tx.KeepSide("teams") })
	wantCurrent(t, n, "teams", true, "kept through a removal")
	update(func(tx *cortex.Tx) { tx.Add(q(1)); tx.PutSide("teams", "b", row[:2]); tx.KeepSide("teams") })
	wantCurrent(t, n, "teams", true, "kept through a delta that changes no quad")
	if rows, _ := sideRows(t, n, "teams"); len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	// Another table is independent.
	wantCurrent(t, n, "other", false, "a table never stamped")

	// Every other kind of write that changes quads makes the table stale,
	// and a kept write does not make it current again.
	stale := []struct {
		name  string
		write func() error
	}{
		{"an Apply that adds", func() error { return n.Apply(ctx, cortex.Delta{Add: []quad.Quad{q(3)}}) }},
		{"an Apply that only removes", func() error { return n.Apply(ctx, cortex.Delta{Remove: []quad.Quad{q(1)}}) }},
		{"an Apply that removes and adds", func() error {
			return n.Apply(ctx, cortex.Delta{Remove: []quad.Quad{q(1)}, Add: []quad.Quad{q(4)}})
		}},
		{"an Update that does not keep it", func() error {
			return n.Update(ctx, func(tx *cortex.Tx) error { tx.Add(q(5)); return nil })
		}},
		{"an import", func() error {
			_, err := n.Import(ctx, &cortextest.SliceSource{Quads: []quad.Quad{q(6)}}, cortex.ImportOptions{})
			return err
		}},
		{"a dropped graph", func() error { _, err := n.DropGraph(ctx, g); return err }},
	}
	for _, c := range stale {
		update(func(tx *cortex.Tx) { tx.Add(q(1)); tx.StampSide("teams") })
		wantCurrent(t, n, "teams", true, "stamped before "+c.name)
		if err := c.write(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		wantCurrent(t, n, "teams", false, "after "+c.name)
		update(func(tx *cortex.Tx) { tx.Add(q(7)); tx.KeepSide("teams") })
		wantCurrent(t, n, "teams", false, "kept after "+c.name)
		update(func(tx *cortex.Tx) { tx.Remove(q(7)) })
	}
	// Writes that change no quad leave it current.
	update(func(tx *cortex.Tx) { tx.Add(q(1)); tx.StampSide("teams") })
	if err := n.Apply(ctx, cortex.Delta{Add: []quad.Quad{q(1)}, Remove: []quad.Quad{q(99)}}); err != nil {
		t.Fatal(err)
	}
	wantCurrent(t, n, "teams", true, "after an Apply that changes nothing")

	// Bad input is an error that writes nothing.
	for _, bad := range []func(tx *cortex.Tx){
		func(tx *cortex.Tx) { tx.Add(q(8)); tx.PutSide("Bad Table", "k", row) },
		func(tx *cortex.Tx) { tx.Add(q(8)); tx.KeepSide("") },
		func(tx *cortex.Tx) { tx.Add(q(8)); tx.PutSide("teams", "k", []quad.Value{quad.IRI("has space")}) },
	} {
		err := n.Update(ctx, func(tx *cortex.Tx) error { bad(tx); return nil })
		if err == nil {
			t.Fatal("a bad side-table write was accepted")
		}
		if has, _ := n.Quads(ctx, cortex.Pattern{Subject: q(8).Subject}); len(has) != 0 {
			t.Fatalf("a failed Update wrote %v", has)
		}
	}
	if _, _, err := n.SideRows(ctx, "no/such"); err == nil {
		t.Fatal("SideRows accepted a bad table name")
	}
}

// TestSide_TableNames checks that side-table names follow the rule of
// namespace names (namespace.ValidName), in every call that takes one, and
// that the error states the rule.
func TestSide_TableNames(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := cortextest.NewNamespace(t, "side")
	for _, name := range []string{
		"a", "teams", "a-", "a0-9", "a" + strings.Repeat("z", 62),
		"", "A", "0a", "-a", "a_b", "a.b", "a/b", "aé", "a\xff", "a" + strings.Repeat("z", 63),
	} {
		t.Run(name, func(t *testing.T) {
			valid := namespace.ValidName(name)
			checkErr := func(call string, err error) {
				t.Helper()
				if valid && err != nil {
					t.Errorf("%s(%q): %v", call, name, err)
				}
				if !valid && (err == nil || !strings.Contains(err.Error(), namespace.NameRule)) {
					t.Errorf("%s(%q) = %v, want an error stating %s", call, name, err, namespace.NameRule)
				}
			}
			_, _, err := n.SideRows(ctx, name)
			checkErr("SideRows", err)
			_, err = n.SideCurrent(ctx, name)
			checkErr("SideCurrent", err)
			checkErr("PutSide", n.Update(ctx, func(tx *cortex.Tx) error {
				tx.PutSide(name, "k", []quad.Value{quad.String("v")})
				return nil
			}))
			checkErr("KeepSide", n.Update(ctx, func(tx *cortex.Tx) error { tx.KeepSide(name); return nil }))
		})
	}
}

// TestSide_LongKeys: a row key of up to MaxSideKey bytes (even one
// escaping doubles: all '/') is written and read back; a longer one fails
// the Update with a short error, not Badger's key size error with a dump
// of the key, and the Update writes nothing.
func TestSide_LongKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := cortextest.NewNamespace(t, "side")
	for _, key := range []string{strings.Repeat("k", cortex.MaxSideKey), strings.Repeat("/", cortex.MaxSideKey)} {
		err := n.Update(ctx, func(tx *cortex.Tx) error {
			tx.PutSide("rows", key, []quad.Value{quad.String("v")})
			return nil
		})
		if err != nil {
			t.Fatalf("put a row key of %d bytes: %v", len(key), err)
		}
		if vals, found, err := n.SideRow(ctx, "rows", key); err != nil || !found || len(vals) != 1 {
			t.Fatalf("read the row back: %v, %v, %v", vals, found, err)
		}
	}
	long := strings.Repeat("k", 70_000)
	err := n.Update(ctx, func(tx *cortex.Tx) error {
		tx.Add(quad.Quad{Subject: quad.IRI("http://example.org/s"), Predicate: quad.IRI("http://example.org/p"), Object: quad.String("o")})
		tx.PutSide("rows", long, []quad.Value{quad.String("v")})
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "70000 bytes") || len(err.Error()) > 200 {
		t.Fatalf("put a row key of 70,000 bytes: %.300v; want a short error giving its length", err)
	}
	if qs := cortextest.AllQuads(t, n); len(qs) != 0 {
		t.Fatalf("the failed Update wrote %v", qs)
	}
}

// TestSide_Journaled writes side rows with a delta larger than one
// transaction (journaled), and rows alone beyond MaxDeltaQuads, and reads
// them back after reopening the store.
func TestSide_Journaled(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s := cortextest.OpenStore(t, dir, cortex.DefaultOptions().WithSyncWrites(false))
	n, err := s.Namespace(ctx, "side")
	if err != nil {
		t.Fatal(err)
	}
	var qs []quad.Quad
	for i := range cortex.MaxDeltaQuads + 10 {
		qs = append(qs, quad.Quad{Subject: quad.IRI(fmt.Sprint("urn:s", i)), Predicate: quad.IRI("urn:p"), Object: quad.Int(i), Label: quad.IRI("urn:g")})
	}
	want := map[string][]quad.Value{}
	err = n.Update(ctx, func(tx *cortex.Tx) error {
		tx.Add(qs...)
		for i := range 3 * cortex.MaxDeltaQuads {
			k := fmt.Sprint("row-", i)
			v := []quad.Value{quad.String(strings.Repeat("x", i%50)), quad.Int(i)}
			tx.PutSide("big", k, v)
			n1, err := cortex.NormalizeTerm(v[1]) // as the store keeps it
			if err != nil {
				return err
			}
			want[k] = []quad.Value{v[0], n1}
		}
		tx.StampSide("big")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		got, current := sideRows(t, n, "big")
		if !current || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: current %v, %d rows (want %d), equal %v", when, current, len(got), len(want), reflect.DeepEqual(got, want))
		}
	}
	check("after a journaled write")
	// Rows alone, more than MaxDeltaQuads of them, deleted and kept.
	err = n.Update(ctx, func(tx *cortex.Tx) error {
		for i := 0; i < 3*cortex.MaxDeltaQuads; i += 2 {
			k := fmt.Sprint("row-", i)
			tx.DeleteSide("big", k)
			delete(want, k)
		}
		tx.KeepSide("big")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	check("after deleting half the rows")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = cortextest.OpenStore(t, dir, cortex.DefaultOptions().WithSyncWrites(false))
	if n, err = s.Namespace(ctx, "side"); err != nil {
		t.Fatal(err)
	}
	check("after reopening")
}

// TestSide_FailedUpdateWritesNothing: an Update whose fn fails, or whose
// delta fails, leaves rows and stamp as they were.
func TestSide_FailedUpdateWritesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := cortextest.NewNamespace(t, "side")
	err := n.Update(ctx, func(tx *cortex.Tx) error {
		tx.PutSide("t", "a", []quad.Value{quad.String("1")})
		tx.StampSide("t")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err = n.Update(ctx, func(tx *cortex.Tx) error {
		tx.Add(quad.Quad{Subject: quad.IRI("urn:s"), Predicate: quad.IRI("urn:p"), Object: quad.IRI("urn:o")})
		tx.PutSide("t", "a", []quad.Value{quad.String("2")})
		tx.KeepSide("t")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update: %v", err)
	}
	rows, current := sideRows(t, n, "t")
	if !current || !reflect.DeepEqual(rows, map[string][]quad.Value{"a": {quad.String("1")}}) {
		t.Fatalf("after a failed Update: current %v, rows %v", current, rows)
	}
	ctx2, cancel := context.WithCancel(ctx)
	cancel()
	err = n.Update(ctx2, func(tx *cortex.Tx) error {
		tx.Add(quad.Quad{Subject: quad.IRI("urn:s"), Predicate: quad.IRI("urn:p"), Object: quad.IRI("urn:o")})
		tx.PutSide("t", "a", []quad.Value{quad.String("3")})
		tx.KeepSide("t")
		return nil
	})
	if err == nil {
		t.Fatal("Update with a cancelled context succeeded")
	}
	rows, current = sideRows(t, n, "t")
	if !current || !reflect.DeepEqual(rows, map[string][]quad.Value{"a": {quad.String("1")}}) {
		t.Fatalf("after a cancelled Update: current %v, rows %v", current, rows)
	}
}

// TestSide_Concurrent reads a table while Updates keep it (run with -race):
// every read sees a current table whose row counter matches its quads.
func TestSide_Concurrent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := cortextest.NewNamespace(t, "side")
	s := quad.IRI("urn:counter")
	p := quad.IRI("urn:value")
	err := n.Update(ctx, func(tx *cortex.Tx) error {
		tx.Add(quad.Quad{Subject: s, Predicate: p, Object: quad.String("0")})
		tx.PutSide("c", "counter", []quad.Value{quad.String("0")})
		tx.StampSide("c")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 4, 50
	var wg sync.WaitGroup
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				err := n.Update(ctx, func(tx *cortex.Tx) error {
					qs, err := n.Quads(ctx, cortex.Pattern{Subject: s, Predicate: p})
					if err != nil || len(qs) != 1 {
						return fmt.Errorf("counter quads %v: %v", qs, err)
					}
					v, err := strconv.Atoi(string(qs[0].Object.(quad.String)))
					if err != nil {
						return err
					}
					tx.Remove(qs[0])
					tx.Add(quad.Quad{Subject: s, Predicate: p, Object: quad.String(fmt.Sprint(v + 1))})
					tx.PutSide("c", "counter", []quad.Value{quad.String(fmt.Sprint(v + 1))})
					tx.KeepSide("c")
					return nil
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for reading := true; reading; {
		select {
		case <-done:
			reading = false
		default:
		}
		rows, current, err := n.SideRows(ctx, "c")
		if err != nil || !current || len(rows) != 1 {
			t.Fatalf("rows %v, current %v, err %v", rows, current, err)
		}
	}
	rows, _ := sideRows(t, n, "c")
	if got := rows["counter"]; len(got) != 1 || got[0] != quad.String(fmt.Sprint(writers*each)) {
		t.Fatalf("counter row %v, want %d", got, writers*each)
	}
}

func TestSide_RowsAfter(t *testing.T) {
	ctx := context.Background()
	n := cortextest.NewNamespace(t, "side")
	key := func(i int) string { return fmt.Sprintf("%05d", i) }
	err := n.Update(ctx, func(tx *cortex.Tx) error {
		for i := 1; i <= 10; i++ {
			tx.PutSide("log", key(i), []quad.Value{quad.String(fmt.Sprint("row ", i))})
		}
		// Neighbours that must not show: another table whose name extends
		// this one's, and a key with an escaped separator in this one.
		tx.PutSide("log2", key(5), []quad.Value{quad.String("other table")})
		tx.PutSide("log", "00005/x", []quad.Value{quad.String("slash")})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	keys := func(rows []cortex.SideRow) []string {
		out := []string{}
		for _, r := range rows {
			out = append(out, r.Key)
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		after string
		limit int
		want  []string
	}{
		{"from the start, limited", "", 3, []string{"00001", "00002", "00003"}},
		{"after a row, all", key(7), 0, []string{"00008", "00009", "00010"}},
		{"after a row, limit past the end", key(8), 100, []string{"00009", "00010"}},
		{"after a position that is no key", "00003z", 2, []string{"00004", "00005"}},
		{"after the row before an escaped key", key(5), 2, []string{"00005/x", "00006"}},
		{"after the last row", key(10), 5, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := n.SideRowsAfter(ctx, "log", tc.after, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if got := keys(rows); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("keys %q, want %q", got, tc.want)
			}
			for _, r := range rows {
				if r.Key == "00005/x" {
					continue
				}
				i, _ := strconv.Atoi(r.Key)
				if want := []quad.Value{quad.String(fmt.Sprint("row ", i))}; !reflect.DeepEqual(r.Vals, want) {
					t.Fatalf("row %s = %v, want %v", r.Key, r.Vals, want)
				}
			}
		})
	}
	if rows, err := n.SideRowsAfter(ctx, "never", "", 0); err != nil || len(rows) != 0 {
		t.Fatalf("unwritten table: %v, %v", rows, err)
	}
	if _, err := n.SideRowsAfter(ctx, "bad name", "", 0); err == nil || !strings.Contains(err.Error(), `side table name "bad name"`) {
		t.Fatalf("bad table name: %v", err)
	}
}

// SideRow reads one row by key: the latest of many rewrites, none for a key
// no row has (also a prefix of one, or another table's), and the escaped
// separator in a key.
func TestSide_Row(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := cortextest.NewNamespace(t, "side")
	for i := range 50 {
		err := n.Update(ctx, func(tx *cortex.Tx) error {
			tx.PutSide("seq", "last", []quad.Value{quad.String(fmt.Sprint(i))})
			if i == 0 {
				tx.PutSide("seq", "a/b", []quad.Value{quad.IRI("urn:x"), nil})
				tx.PutSide("seq2", "other", []quad.Value{quad.String("other table")})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		table, key string
		want       []quad.Value // nil: no row
	}{
		{"seq", "last", []quad.Value{quad.String("49")}},
		{"seq", "a/b", []quad.Value{quad.IRI("urn:x"), nil}},
		{"seq", "las", nil},
		{"seq", "a", nil},
		{"seq", "other", nil},
		{"seq2", "other", []quad.Value{quad.String("other table")}},
		{"never", "last", nil},
	} {
		got, found, err := n.SideRow(ctx, tc.table, tc.key)
		if err != nil || found != (tc.want != nil) || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SideRow(%s, %q) = %v, %v, %v; want %v", tc.table, tc.key, got, found, err, tc.want)
		}
	}
	if _, _, err := n.SideRow(ctx, "Bad Name", "k"); err == nil {
		t.Error("SideRow of an invalid table name: no error")
	}
}
