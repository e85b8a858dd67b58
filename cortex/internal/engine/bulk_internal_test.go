package engine

import (
	"github.com/cortexgraph/cortex/cortex/internal/sorted"

	"bytes"
	"context"
	"encoding/json"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cortexgraph/cortex/cortex/internal/layout"

	ckv "github.com/cayleygraph/cayley/graph/kv"
	"github.com/cayleygraph/quad"
	"github.com/dgraph-io/badger/v4"
	hkv "github.com/hidal-go/hidalgo/kv"
)

// bulkCheckFormat fails the test unless namespace n passes Check (see
// check.go: every index holds exactly the live quads, reference counts are
// exact, no orphan terms...).
func bulkCheckFormat(t *testing.T, n *Namespace) {
	t.Helper()
	if err := n.Check(context.Background()); err != nil {
		t.Error(err)
	}
}

// bulkTestNS opens a namespace of a fresh store with chunk quads per import
// chunk and options adjusted by each of with.
func bulkTestNS(t *testing.T, chunk int, with ...func(*Options)) *Namespace {
	t.Helper()
	return bulkTestNSSync(t, chunk, false, with...)
}

// bulkTestNSSync is bulkTestNS; with sync, commits wait for fsync, which
// makes them slow enough for a speculative fill to overlap.
func bulkTestNSSync(t *testing.T, chunk int, sync bool, with ...func(*Options)) *Namespace {
	t.Helper()
	o := DefaultOptions().WithSyncWrites(sync).WithChunkQuads(chunk)
	for _, w := range with {
		w(&o)
	}
	s := testStore(t, t.TempDir(), o)
	n, err := s.Namespace(context.Background(), "default")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

type sliceSource struct {
	qs []quad.Quad
	i  int
	at func(i int) // called before quad i is returned
}

func (s *sliceSource) Next() (quad.Quad, error) {
	if s.at != nil {
		s.at(s.i)
	}
	if s.i >= len(s.qs) {
		return quad.Quad{}, io.EOF
	}
	s.i++
	return s.qs[s.i-1], nil
}

func bulkTQ(s, p int, o quad.Value, g quad.Value) quad.Quad {
	return quad.Quad{Subject: quad.IRI("http://e/s" + strconv.Itoa(s)), Predicate: quad.IRI("http://e/p" + strconv.Itoa(p)), Object: o, Label: g}
}

// mixed returns n quads over shared subjects, predicates and objects of all
// term kinds, in two graphs and the default graph, with repeats.
func bulkMixed(n, seed int) []quad.Quad {
	var out []quad.Quad
	objs := []func(i int) quad.Value{
		func(i int) quad.Value { return quad.IRI("http://e/o" + strconv.Itoa(i%7)) },
		func(i int) quad.Value { return quad.BNode("b" + strconv.Itoa(i%5)) },
		func(i int) quad.Value { return quad.String("v/\\" + strconv.Itoa(i%11)) },
		func(i int) quad.Value {
			return quad.LangString{Value: quad.String("t" + strconv.Itoa(i%3)), Lang: "en-GB"}
		},
		func(i int) quad.Value {
			return quad.TypedString{Value: quad.String("0" + strconv.Itoa(i%13)), Type: "http://www.w3.org/2001/XMLSchema#integer"}
		},
	}
	graphs := []quad.Value{nil, quad.IRI("http://e/g1"), quad.BNode("g2")}
	for i := 0; i < n; i++ {
		j := i*7 + seed
		out = append(out, bulkTQ(j%17, j%3, objs[j%len(objs)](j), graphs[j%len(graphs)]))
	}
	return out
}

// speculate makes imports fill each chunk while the previous one commits
// (the import loop no longer reports a finished commit while it waits for the
// next chunk, so a commit is always pending when the next chunk arrives).
func speculate(o *Options) {
	o.hooks.noReportEarly = true
	o.hooks.noSegments = true // these tests are about the chunked, pipelined writer
}

// tuned returns an option adjustment that applies fn to the tuning.
func tuned(fn func(*Tuning)) func(*Options) {
	return func(o *Options) { fn(&o.tuning) }
}

func TestBulk_FormatAfterImports(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var spec atomic.Int64
	defer func() {
		if spec.Load() == 0 {
			t.Error("no chunk was written from a speculative fill")
		}
	}()
	for _, chunk := range []int{1, 3, 64, 1000} {
		t.Run("chunk"+strconv.Itoa(chunk), func(t *testing.T) {
			n := bulkTestNSSync(t, chunk, chunk == 3, speculate)
			defer func() { spec.Add(n.s.counters.spec.Load()) }()
			if _, err := n.Import(ctx, &sliceSource{qs: bulkMixed(300, 0)}, ImportOptions{}); err != nil {
				t.Fatal(err)
			}
			bulkCheckFormat(t, n)
			// Overlapping second import into the non-empty namespace.
			if _, err := n.Import(ctx, &sliceSource{qs: bulkMixed(400, 5)}, ImportOptions{}); err != nil {
				t.Fatal(err)
			}
			bulkCheckFormat(t, n)
		})
	}
}

func TestBulk_MapCapsFallBackToReads(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := bulkTestNS(t, 7, speculate, tuned(func(t *Tuning) { t.ImportMaxNodes, t.ImportMaxKeys, t.ImportMaxQuads = 5, 5, 5 }))
	qs := append(bulkMixed(200, 0), bulkMixed(200, 0)...) // repeats across chunks after the maps were cleared
	if _, err := n.Import(ctx, &sliceSource{qs: qs}, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	bulkCheckFormat(t, n)
	want := map[quad.Quad]bool{}
	for _, q := range qs {
		want[q] = true
	}
	if sz, _ := n.Size(ctx); sz != int64(len(want)) {
		t.Fatalf("size %d, want %d", sz, len(want))
	}
}

func TestBulk_CayleyDeltasAfterImport(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := bulkTestNS(t, 10, speculate)
	qs := bulkMixed(150, 1)
	if _, err := n.Import(ctx, &sliceSource{qs: qs}, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	// Remove half through cayley, re-add a few, check the format each time.
	var half []quad.Quad
	seen := map[quad.Quad]bool{}
	for _, q := range qs {
		if !seen[q] {
			seen[q] = true
			half = append(half, q)
		}
	}
	all := half
	half = half[:len(half)/2]
	if err := n.Apply(ctx, Delta{Remove: half}); err != nil {
		t.Fatal(err)
	}
	bulkCheckFormat(t, n)
	if err := n.Apply(ctx, Delta{Add: half[:5]}); err != nil {
		t.Fatal(err)
	}
	bulkCheckFormat(t, n)
	if err := n.Apply(ctx, Delta{Remove: all}); err != nil {
		t.Fatal(err)
	}
	bulkCheckFormat(t, n)
	if sz, _ := n.Size(ctx); sz != 0 {
		t.Fatalf("size %d after removing everything", sz)
	}
	// And import again on top of the emptied (non-fresh) namespace.
	if _, err := n.Import(ctx, &sliceSource{qs: qs}, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	bulkCheckFormat(t, n)
	if sz, _ := n.Size(ctx); sz != int64(len(all)) {
		t.Fatalf("size %d, want %d", sz, len(all))
	}
}

func TestEscapeKeyMatchesHidalgo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	noStoreCheck.Store(t, true) // it writes keys that are no part of the format
	n := bulkTestNS(t, 10)
	keys := []hkv.Key{
		{[]byte("log"), {0, '/', '\\', 1, 2, 3, 4, 5}},
		{[]byte{'v', '/', '\\'}, bytes.Repeat([]byte{'/'}, 20)},
		{[]byte("zz"), []byte("horizon")},
	}
	for _, k := range keys {
		err := hkv.Update(ctx, n.kv, func(tx hkv.Tx) error { return tx.Put(k, []byte("x")) })
		if err != nil {
			t.Fatal(err)
		}
		want := append([]byte(dataPrefix+n.name+"/"), layout.Escape(nil, k)...)
		err = n.s.db.View(func(txn *badger.Txn) error {
			_, err := txn.Get(want)
			return err
		})
		if err != nil {
			t.Errorf("key %q: raw key %q: %v", k, want, err)
		}
	}
}

// TestPutBufAddIndex checks that addIndex writes the bytes of add with the
// index key, ids with escaped bytes included.
func TestPutBufAddIndex(t *testing.T) {
	t.Parallel()
	st := &bulkState{inds: layout.Indexes}
	for _, ind := range layout.Indexes {
		st.buckets = append(st.buckets, ind.Key(nil)[0])
	}
	idss := [][4]uint64{
		{1, 2, 3, 4},
		{'/', '\\', 0x2f5c2f5c2f5c2f5c, 0},
		{1<<64 - 1, 0x2f, 0x5c00, 0x2f000000000000},
	}
	for ii, ind := range layout.Indexes {
		for _, ids := range idss {
			k := groupKey{ind: ii, ids: ids}
			want := &sorted.PutBuf{Prefix: []byte("p/")}
			want.Add(st.indexKey(k), []byte{1, 2})
			got := &sorted.PutBuf{Prefix: []byte("p/")}
			got.AddIndex(st.buckets[ii], ids[:len(ind.Dirs)], []byte{1, 2})
			if !bytes.Equal(got.Data, want.Data) || !slices.Equal(got.Entries, want.Entries) || got.Size != want.Size {
				t.Errorf("index %d, ids %x: addIndex wrote %q %v, add %q %v", ii, ids, got.Data, got.Entries, want.Data, want.Entries)
			}
		}
	}
}

// TestBulk_InterleavedWriters pauses an import between chunks (its source
// blocks until the chunks so far are committed) and lets another writer run:
// the store must stay consistent, with exact reference counts. The chunk
// after the pause was filled speculatively and must be redone.
func TestBulk_InterleavedWriters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var redo atomic.Int64
	defer func() {
		if redo.Load() == 0 {
			t.Error("no speculative fill was redone")
		}
	}()
	base := bulkMixed(120, 0)
	other := bulkMixed(90, 3)
	cases := map[string]func(t *testing.T, n *Namespace){
		"apply-add": func(t *testing.T, n *Namespace) {
			var add []quad.Quad
			for _, q := range other {
				add = append(add, quad.Quad{Subject: q.Subject, Predicate: quad.IRI("http://e/other"), Object: q.Object, Label: q.Label})
			}
			if err := n.Apply(ctx, Delta{Add: add}); err != nil {
				t.Fatal(err)
			}
		},
		"apply-remove": func(t *testing.T, n *Namespace) {
			if err := n.Apply(ctx, Delta{Remove: base[:60]}); err != nil {
				t.Fatal(err)
			}
		},
		"import": func(t *testing.T, n *Namespace) {
			if _, err := n.Import(ctx, &sliceSource{qs: other}, ImportOptions{}); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, between := range cases {
		t.Run(name, func(t *testing.T) {
			n := bulkTestNS(t, 10, speculate)
			defer func() { redo.Add(n.s.counters.redo.Load()) }()
			in := append(append([]quad.Quad(nil), base...), base...) // second half repeats the first
			first := map[quad.Quad]bool{}
			for _, q := range in[:60] {
				first[q] = true
			}
			at := func(i int) {
				if i != 60 {
					return
				}
				// Chunks 1-6 were sent; wait until they are committed.
				for {
					if sz, err := n.Size(ctx); err != nil || sz >= int64(len(first)) {
						break
					}
					runtime.Gosched()
				}
				between(t, n)
			}
			_, err := n.Import(ctx, &sliceSource{qs: in, at: at}, ImportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			bulkCheckFormat(t, n)
		})
	}
}

// TestBulk_SplitsTooBigChunks writes chunks larger than one Badger
// transaction, with speculative fills: they are split, nothing is lost.
func TestBulk_SplitsTooBigChunks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := bulkTestNS(t, 6000, speculate)
	big := string(bytes.Repeat([]byte("x"), 2000))
	var qs []quad.Quad
	for i := 0; i < 12_000; i++ {
		qs = append(qs, bulkTQ(i, i%3, quad.String(big+strconv.Itoa(i)), nil))
	}
	res, err := n.Import(ctx, &sliceSource{qs: qs}, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Chunks < 4 || res.Committed != int64(len(qs)) {
		t.Fatalf("result %+v", res)
	}
	bulkCheckFormat(t, n)
	if sz, _ := n.Size(ctx); sz != int64(len(qs)) {
		t.Fatalf("size %d", sz)
	}
}

// checkPartialFormat checks namespace n with partial indexes: its one
// problem is its index list (reads and deltas use Cortex's indexes).
func checkPartialFormat(t *testing.T, n *Namespace) {
	t.Helper()
	problems := checkProblemsOf(t, n.Check(context.Background()))
	if len(problems) != 1 || !strings.Contains(problems[0], "indexes [sp ops pos csp], want Cortex's") {
		t.Errorf("check: %q, want only the index list reported", problems)
	}
}

// TestBulk_PartialIndexes imports into a namespace whose indexes do not all
// cover the four positions (cayley's and Cortex's earlier layouts): index
// keys are then shared by several quads and appended to across chunks.
func TestBulk_PartialIndexes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, chunk := range []int{2, 7, 100} {
		t.Run("chunk"+strconv.Itoa(chunk), func(t *testing.T) {
			// Check reports the index list: reads and deltas use Cortex's.
			noStoreCheck.Store(t, true)
			n := bulkTestNS(t, chunk, speculate)
			meta, err := json.Marshal([]ckv.QuadIndex{
				{Dirs: []quad.Direction{quad.Subject, quad.Predicate}},
				{Dirs: []quad.Direction{quad.Object, quad.Predicate, quad.Subject}},
				{Dirs: []quad.Direction{quad.Predicate, quad.Object, quad.Subject}},
				{Dirs: []quad.Direction{quad.Label, quad.Subject, quad.Predicate}},
			})
			if err != nil {
				t.Fatal(err)
			}
			err = hkv.Update(ctx, n.kv, func(tx hkv.Tx) error { return tx.Put(layout.IndexList, meta) })
			if err != nil {
				t.Fatal(err)
			}
			if inds, _ := readIndexes(ctx, n.kv); len(inds) != 4 || len(inds[0].Dirs) != 2 {
				t.Fatalf("indexes %v", inds)
			}
			if _, err := n.Import(ctx, &sliceSource{qs: bulkMixed(300, 0)}, ImportOptions{}); err != nil {
				t.Fatal(err)
			}
			checkPartialFormat(t, n)
			if _, err := n.Import(ctx, &sliceSource{qs: bulkMixed(400, 5)}, ImportOptions{}); err != nil {
				t.Fatal(err)
			}
			checkPartialFormat(t, n)
		})
	}
}
