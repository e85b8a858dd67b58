package engine

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cortexgraph/cortex/cortex/internal/layout"

	"github.com/cayleygraph/cayley/graph/proto"
	"github.com/cayleygraph/cayley/graph/refs"
	"github.com/cayleygraph/quad"
	"github.com/cayleygraph/quad/pquads"
	"github.com/dgraph-io/badger/v4"
	hkv "github.com/hidal-go/hidalgo/kv"
)

// checkFixture is a store whose namespace "ns" uses every kind of key:
// quads in the default and a named graph, removed quads, pins, a side table
// with rows and a stamp, an import record; and a second namespace.
type checkFixture struct {
	s    *Store
	n    *Namespace
	dir  string
	kept []quad.Quad // the live quads of ns
}

var (
	checkA = quad.IRI("http://e/a")
	checkP = quad.IRI("http://e/p")
	checkG = quad.IRI("http://e/g")
)

func newCheckFixture(t *testing.T, with ...func(*Options)) *checkFixture {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	o := DefaultOptions().WithSyncWrites(false)
	for _, w := range with {
		w(&o)
	}
	s, err := Open(ctx, dir, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	n, err := s.Namespace(ctx, "ns")
	if err != nil {
		t.Fatal(err)
	}
	var all []quad.Quad
	for i := range 6 {
		all = append(all, quad.Quad{Subject: checkA, Predicate: checkP, Object: quad.String(fmt.Sprint("v", i))})
		all = append(all, quad.Quad{Subject: quad.BNode(fmt.Sprint("b", i)), Predicate: checkP, Object: checkA, Label: checkG})
	}
	if err := n.Apply(ctx, Delta{Add: all, Pin: []quad.Value{checkA, quad.String("v0"), quad.String("v5")}}); err != nil {
		t.Fatal(err)
	}
	// Remove some: their log entries stay, marked removed; v5 is freed
	// with its pin.
	if err := n.Apply(ctx, Delta{Remove: all[8:]}); err != nil {
		t.Fatal(err)
	}
	err = n.Update(ctx, func(tx *Tx) error {
		tx.PutSide("teams", "a/b\\c", []quad.Value{checkA, nil, quad.LangString{Value: "x", Lang: "en"}})
		tx.PutSide("teams", "d", []quad.Value{quad.TypedString{Value: "1", Type: "http://www.w3.org/2001/XMLSchema#integer"}})
		tx.StampSide("teams")
		tx.Add(quad.Quad{Subject: checkA, Predicate: checkP, Object: checkA})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.beginImport(ctx, ImportSource{Name: "/data/x.nt", Version: "1"}, "", targetNone, "file:///data/x.nt"); err != nil {
		t.Fatal(err)
	}
	other, err := s.Namespace(ctx, "other", WithBase("http://other.example/"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Import(ctx, &sliceSource{qs: bulkMixed(50, 1)}, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	kept := append(all[:8:8], quad.Quad{Subject: checkA, Predicate: checkP, Object: checkA})
	return &checkFixture{s: s, n: n, dir: dir, kept: kept}
}

// raw runs fn on the namespace's keys, written to Badger directly.
func (f *checkFixture) raw(t *testing.T, fn func(set func(k hkv.Key, v []byte), del func(k hkv.Key))) {
	t.Helper()
	prefix := []byte(dataPrefix + f.n.name + "/")
	err := f.s.db.Update(func(txn *badger.Txn) error {
		var err error
		fn(func(k hkv.Key, v []byte) {
			err = errors.Join(err, txn.Set(layout.Escape(append([]byte(nil), prefix...), k), v))
		}, func(k hkv.Key) {
			err = errors.Join(err, txn.Delete(layout.Escape(append([]byte(nil), prefix...), k)))
		})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// get reads a key of the namespace.
func (f *checkFixture) get(t *testing.T, k hkv.Key) []byte {
	t.Helper()
	var v []byte
	err := hkv.View(f.n.kv, func(tx hkv.Tx) error {
		var err error
		v, err = tx.Get(context.Background(), k)
		return err
	})
	if err != nil {
		t.Fatalf("get %q: %v", k, err)
	}
	return v
}

// ids returns the node ids of q's terms.
func (f *checkFixture) ids(t *testing.T, q quad.Quad) [4]uint64 {
	t.Helper()
	got, err := f.n.termIDsOf(context.Background(), []quad.Value{q.Subject, q.Predicate, q.Object, q.Label})
	if err != nil {
		t.Fatal(err)
	}
	return [4]uint64{uint64(got[0]), uint64(got[1]), uint64(got[2]), uint64(got[3])}
}

// quadID returns the log id of live quad q.
func (f *checkFixture) quadID(t *testing.T, q quad.Quad) uint64 {
	t.Helper()
	l, err := decodeIDList(f.get(t, layout.Index(0, f.ids(t, q))))
	if err != nil || len(l) != 1 {
		t.Fatalf("index list of %v: %v %v", q, l, err)
	}
	return l[0]
}

func checkProblemsOf(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var ce *CheckError
	if !errors.As(err, &ce) || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("check: %v, want a *CheckError matching ErrCorrupt", err)
	}
	if len(ce.Problems) > ce.Total || len(ce.Problems) > maxCheckProblems {
		t.Fatalf("%d problems listed of %d", len(ce.Problems), ce.Total)
	}
	return ce.Problems
}

func TestCheck_ConsistentStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newCheckFixture(t)
	if err := f.s.Check(ctx); err != nil {
		t.Fatalf("consistent store: %v", err)
	}
	if err := f.n.Check(ctx); err != nil {
		t.Fatalf("consistent namespace: %v", err)
	}
	// The fixture has what Check looks at.
	if pins := Pins(t, f.n); len(pins) != 2 {
		t.Errorf("pins %v, want a and v0", pins)
	}
	if recs, err := f.n.UnfinishedImports(ctx); err != nil || len(recs) != 1 {
		t.Errorf("import records %v (%v)", recs, err)
	}
	if rows, current, err := f.n.SideRows(ctx, "teams"); err != nil || len(rows) != 2 || !current {
		t.Errorf("side rows %v, current %v (%v)", rows, current, err)
	}
	if got := quadSet(allQuads(t, f.n)); fmt.Sprint(got) != fmt.Sprint(quadSet(f.kept)) {
		t.Errorf("quads %v, want %v", got, quadSet(f.kept))
	}
}

func allQuads(t *testing.T, n *Namespace) []quad.Quad {
	t.Helper()
	qs, err := n.Quads(context.Background(), Pattern{})
	if err != nil {
		t.Fatal(err)
	}
	return qs
}

// TestCheck_ValidMarkersAndTargets: the bucket markers cayley's kv.Init
// can write (meta, log, the buckets of its default, legacy or configured
// indexes, and, created upfront, the term buckets) and import records of
// every kind of target are not problems.
func TestCheck_ValidMarkersAndTargets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newCheckFixture(t)
	f.raw(t, func(set func(hkv.Key, []byte), _ func(hkv.Key)) {
		for _, b := range []string{"meta", "log", "spoc", "posc", "ospc", "cspo", "sp", "ops", "s", "o", "c", "pcso", "v\x00\x01", "n\xff/", "v//"} {
			set(hkv.Key{[]byte(b), nil}, nil)
		}
		for i, target := range []string{"", targetNone, targetDefault, "<http://e/g>", "_:b1", "<urn:x:y>"} {
			name := fmt.Sprint("/data/ok", i, ".nt")
			b, err := encodeImportRecord(UnfinishedImport{ID: "ok" + fmt.Sprint(i), Name: name, Version: "1", Target: target})
			if err != nil {
				t.Fatal(err)
			}
			set(importKey(name), b)
		}
	})
	if err := f.s.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestCheck_FindsCorruption corrupts a consistent store one way at a time
// and expects Check (of the store, and of the namespace) to say what.
func TestCheck_FindsCorruption(t *testing.T) {
	t.Parallel()
	live := quad.Quad{Subject: checkA, Predicate: checkP, Object: quad.String("v1")}
	orphan := quad.String("orphan")
	cases := []struct {
		name    string
		corrupt func(t *testing.T, f *checkFixture)
		want    []string // substrings of problems
	}{{
		name: "index key deleted",
		corrupt: func(t *testing.T, f *checkFixture) {
			f.raw(t, func(_ func(hkv.Key, []byte), del func(hkv.Key)) { del(layout.Index(2, f.ids(t, live))) })
		},
		want: []string{"is missing from index osp"},
	}, {
		name: "reference count changed",
		corrupt: func(t *testing.T, f *checkFixture) {
			f.raw(t, func(set func(hkv.Key, []byte), _ func(hkv.Key)) {
				set(layout.Node('n', refs.HashOf(checkP)), binary.AppendUvarint(nil, 99))
			})
		},
		want: []string{`<http://e/p>: reference count 99, used 9 times`},
	}, {
		name: "orphan node",
		corrupt: func(t *testing.T, f *checkFixture) {
			b, err := pquads.MarshalValue(orphan)
			if err != nil {
				t.Fatal(err)
			}
			p, err := (&proto.Primitive{ID: 1000, Value: b}).Marshal()
			if err != nil {
				t.Fatal(err)
			}
			f.raw(t, func(set func(hkv.Key, []byte), _ func(hkv.Key)) {
				set(layout.Log(1000), p)
				set(layout.Node('v', refs.HashOf(orphan)), binary.AppendUvarint(nil, 1000))
				set(layout.Node('n', refs.HashOf(orphan)), binary.AppendUvarint(nil, 1))
				var h [8]byte
				binary.LittleEndian.PutUint64(h[:], 1000)
				set(layout.Horizon, h[:])
			})
		},
		want: []string{`node 1000 "orphan" is used by no quad (orphan term`},
	}, {
		name: "orphan term entries",
		corrupt: func(t *testing.T, f *checkFixture) {
			f.raw(t, func(set func(hkv.Key, []byte), _ func(hkv.Key)) {
				set(layout.Node('v', refs.HashOf(orphan)), binary.AppendUvarint(nil, 7))
				set(layout.Node('n', refs.HashOf(orphan)), binary.AppendUvarint(nil, 1))
			})
		},
		want: []string{
			fmt.Sprintf("v entry %x maps to id 7, but no node holds its term (orphan)", hashBytes(orphan)),
			fmt.Sprintf("n entry %x counts 1 references, but no node holds its term (orphan)", hashBytes(orphan)),
		},
	}, {
		name: "node without its term entry",
		corrupt: func(t *testing.T, f *checkFixture) {
			f.raw(t, func(_ func(hkv.Key, []byte), del func(hkv.Key)) { del(layout.Node('v', refs.HashOf(checkG))) })
		},
		want: []string{"<http://e/g> has no v entry"},
	}, {
		name: "side-table row broken",
		corrupt: func(t *testing.T, f *checkFixture) {
			f.raw(t, func(set func(hkv.Key, []byte), _ func(hkv.Key)) { set(sideRowKey("teams", "d"), []byte{2, 1, 5}) })
		},
		want: []string{`side table teams: row "d" does not decode`},
	}, {
		name: "side-table stamp from the future",
		corrupt: func(t *testing.T, f *checkFixture) {
			f.raw(t, func(set func(hkv.Key, []byte), _ func(hkv.Key)) { set(sideStampKey("teams"), sideStamp(1<<40, 3)) })
		},
		want: []string{"side table teams: stamp horizon 1099511627776 is past the namespace's"},
	}, {
		name: "meta size wrong",
		corrupt: func(t *testing.T, f *checkFixture) {
			var b [8]byte
			binary.LittleEndian.PutUint64(b[:], 3)
			f.raw(t, func(set func(hkv.Key, []byte), _ func(hkv.Key)) { set(layout.Size, b[:]) })
		},
		want: []string{"meta size 3, but 9 live quads"},
	}, {
		name: "meta horizon negative",
		corrupt: func(t *testing.T, f *checkFixture) {
			f.raw(t, func(set func(hkv.Key, []byte), del func(hkv.Key)) {
				set(layout.Horizon, layout.PutMetaInt(-1))
				del(sideStampKey("teams")) // which would report it indirectly
			})
		},
		want: []string{"meta horizon -1 is below id"},
	}, {
		// Reads and deltas use Cortex's four indexes whatever the list says:
		// a list without one, with its keys gone, hides quads from every
		// scan that would use it (graph patterns here).
		name: "index list without one of Cortex's indexes",
		corrupt: func(t *testing.T, f *checkFixture) {
			meta, err := json.Marshal(layout.Indexes[:3])
			if err != nil {
				t.Fatal(err)
			}
			var keys []hkv.Key
			for _, q := range f.kept {
				keys = append(keys, layout.Index(3, f.ids(t, q)))
			}
			f.raw(t, func(set func(hkv.Key, []byte), del func(hkv.Key)) {
				set(layout.IndexList, meta)
				for _, k := range keys {
					del(k)
				}
			})
			if qs, err := f.n.Quads(context.Background(), Pattern{Graph: checkG, Scope: OneGraph}); err != nil || len(qs) != 0 {
				t.Fatalf("quads of graph g: %v (%v), want none read (the corruption)", qs, err)
			}
		},
		want: []string{"indexes [spoc posc ospc], want Cortex's [spoc posc ospc cspo]"},
	}, {
		// A term of no type cayley knows (an unknown field): cayley's
		// decoder panics on it.
		name: "term of no known type",
		corrupt: func(t *testing.T, f *checkFixture) {
			f.raw(t, func(set func(hkv.Key, []byte), _ func(hkv.Key)) {
				set(layout.Log(f.ids(t, live)[2]), untypedTerm(t, f.ids(t, live)[2]))
			})
		},
		want: []string{"term does not decode"},
	}, {
		name: "index lists a removed quad",
		corrupt: func(t *testing.T, f *checkFixture) {
			var id uint64
			for i := uint64(1); i < 200 && id == 0; i++ {
				var p proto.Primitive
				if b, err := f.getMaybe(layout.Log(i)); err == nil && p.Unmarshal(b) == nil && p.Deleted {
					id = i
				}
			}
			if id == 0 {
				t.Fatal("no removed quad in the log")
			}
			f.raw(t, func(set func(hkv.Key, []byte), _ func(hkv.Key)) {
				set(layout.Index(0, f.ids(t, live)), binary.AppendUvarint(binary.AppendUvarint(nil, id), f.quadID(t, live)))
			})
		},
		want: []string{"which was removed"},
	}, {
		name: "duplicate quad",
		corrupt: func(t *testing.T, f *checkFixture) {
			// A second live log entry for a quad, listed beside the first.
			ids, id := f.ids(t, live), f.quadID(t, live)
			p, err := (&proto.Primitive{ID: 2000, Subject: ids[0], Predicate: ids[1], Object: ids[2], Label: ids[3]}).Marshal()
			if err != nil {
				t.Fatal(err)
			}
			l := binary.AppendUvarint(binary.AppendUvarint(nil, id), 2000)
			f.raw(t, func(set func(hkv.Key, []byte), _ func(hkv.Key)) {
				set(layout.Log(2000), p)
				for i := range layout.Indexes {
					set(layout.Index(i, ids), l)
				}
			})
		},
		want: []string{"quads 9 and 2000 are the same quad (index spoc)"},
	}, {
		name: "removed quad resurrected in the log",
		corrupt: func(t *testing.T, f *checkFixture) {
			ids := f.ids(t, live)
			// A live log entry that no index lists, using a node id that
			// does not exist, past the horizon.
			p, err := (&proto.Primitive{ID: 3000, Subject: ids[0], Predicate: ids[1], Object: 2999}).Marshal()
			if err != nil {
				t.Fatal(err)
			}
			f.raw(t, func(set func(hkv.Key, []byte), _ func(hkv.Key)) { set(layout.Log(3000), p) })
		},
		want: []string{"quad 3000 uses node 2999, which does not exist", "quad 3000 [", "is missing from index spoc", "meta horizon"},
	}, {
		name: "pin of a missing node",
		corrupt: func(t *testing.T, f *checkFixture) {
			b, err := layout.PinValue(4000, quad.String("gone"))
			if err != nil {
				t.Fatal(err)
			}
			f.raw(t, func(set func(hkv.Key, []byte), _ func(hkv.Key)) { set(layout.Pin(4000), b) })
		},
		want: []string{"pin 4000: no such node"},
	}, {
		name: "import record broken",
		corrupt: func(t *testing.T, f *checkFixture) {
			f.raw(t, func(set func(hkv.Key, []byte), _ func(hkv.Key)) {
				set(importKey("/data/y.nt"), []byte("{not json"))
				set(hkv.Key{importsBucket, []byte("abc")}, []byte(`{"id":"x1","name":"/data/z.nt"}`))
			})
		},
		want: []string{"import record " + string(importKey("/data/y.nt")[1]) + `: "{not json"`, `import record abc of source "/data/z.nt": its key should be`},
	}, {
		// cayley's kv.CreateBucket writes a marker (the bucket and an empty
		// part) for its meta, log, index and term buckets; none of another.
		name: "markers of unknown buckets",
		corrupt: func(t *testing.T, f *checkFixture) {
			f.raw(t, func(set func(hkv.Key, []byte), _ func(hkv.Key)) {
				for _, b := range []string{"zzz", "pin", "imports", "side", "v", "n\x01", "ss", "spocs", "x/y"} {
					set(hkv.Key{[]byte(b), nil}, nil)
				}
			})
		},
		want: []string{`marker "zzz/" of an unknown bucket`, `marker "pin/" of an unknown bucket`, `marker "imports/" of an unknown bucket`,
			`marker "side/" of an unknown bucket`, `marker "v/" of an unknown bucket`, `marker "n\x01/" of an unknown bucket`,
			`marker "ss/" of an unknown bucket`, `marker "spocs/" of an unknown bucket`, `marker "x\\/y/" of an unknown bucket`},
	}, {
		// A record's target is "none", "default" or a graph's N-Quads term
		// (importTarget): beginImport compares it with the target of an
		// import that would resume it.
		name: "import records of bad targets",
		corrupt: func(t *testing.T, f *checkFixture) {
			f.raw(t, func(set func(hkv.Key, []byte), _ func(hkv.Key)) {
				for i, target := range []string{"http://e/g", "<e/g>", "<http://e/g", "<http://e/a b>", `"lit"`, "_:", "Default", "<http://e/g> "} {
					name := fmt.Sprint("/data/t", i, ".nt")
					b, err := encodeImportRecord(UnfinishedImport{ID: "t" + fmt.Sprint(i), Name: name, Version: "1", Target: target})
					if err != nil {
						t.Fatal(err)
					}
					set(importKey(name), b)
				}
			})
		},
		want: []string{`target "http://e/g"`, `target "<e/g>"`, `target "<http://e/g"`, `target "<http://e/a b>"`,
			`target "\"lit\""`, `target "_:"`, `target "Default"`, `target "<http://e/g> "`},
	}, {
		// A record's base is the base IRI its import resolved relative
		// IRIs against (an absolute IRI, the one given or the file's
		// file:// URL) or "": beginImport compares it with the base of an
		// import that would resume it.
		name: "import records of bad bases",
		corrupt: func(t *testing.T, f *checkFixture) {
			f.raw(t, func(set func(hkv.Key, []byte), _ func(hkv.Key)) {
				for i, base := range []string{"e/g", "/data/x.nt", ":no-scheme", "1http://e/", "<http://e/>", " http://e/"} {
					name := fmt.Sprint("/data/b", i, ".nt")
					b, err := encodeImportRecord(UnfinishedImport{ID: "b" + fmt.Sprint(i), Name: name, Version: "1", Target: targetNone, Base: base})
					if err != nil {
						t.Fatal(err)
					}
					set(importKey(name), b)
				}
			})
		},
		want: []string{`base "e/g"`, `base "/data/x.nt"`, `base ":no-scheme"`, `base "1http://e/"`, `base "<http://e/>"`, `base " http://e/"`},
	}, {
		name: "unknown keys",
		corrupt: func(t *testing.T, f *checkFixture) {
			f.raw(t, func(set func(hkv.Key, []byte), _ func(hkv.Key)) {
				set(hkv.Key{[]byte("zzz"), []byte("x")}, []byte("1"))
				set(hkv.Key{[]byte("meta"), []byte("colour")}, []byte("1"))
			})
		},
		want: []string{`unknown key "zzz/x"`, `unknown key "meta/colour"`},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			f := newCheckFixture(t)
			tc.corrupt(t, f)
			for _, check := range []struct {
				what string
				fn   func(context.Context) error
			}{{"store", f.s.Check}, {"namespace", f.n.Check}} {
				problems := checkProblemsOf(t, check.fn(ctx))
				all := strings.Join(problems, "\n")
				for _, want := range tc.want {
					if !strings.Contains(all, "namespace ns: "+want) && !strings.Contains(all, want) {
						t.Errorf("%s check: problems\n%s\nwant one with %q", check.what, all, want)
					}
				}
			}
		})
	}
}

// untypedTerm returns the log entry of node id with a term of no type
// (only an unknown field, which cayley's decoder skips).
func untypedTerm(t *testing.T, id uint64) []byte {
	t.Helper()
	b, err := (&proto.Primitive{ID: id, Value: []byte{0xa0, 0x01, 0x01}}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRead_TermOfNoKnownTypeIsCorrupt: reading a term of no known type
// (a damaged log entry) is an error matching ErrCorrupt, not a panic, on
// every path that resolves terms.
func TestRead_TermOfNoKnownTypeIsCorrupt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newCheckFixture(t)
	noStoreCheck.Store(t, true) // corrupt on purpose
	q := f.kept[1]
	obj := f.ids(t, q)[2]
	f.raw(t, func(set func(hkv.Key, []byte), _ func(hkv.Key)) { set(layout.Log(obj), untypedTerm(t, obj)) })
	f.n.cache.mu.Lock()
	clear(f.n.cache.m) // terms the fixture read
	f.n.cache.mu.Unlock()
	for _, tc := range []struct {
		name string
		read func() error
	}{
		{"scan", func() error { _, err := f.n.Quads(ctx, Pattern{Subject: q.Subject}); return err }},
		{"lookup", func() error { return f.n.lookupTerms(ctx, []termID{termID(obj)}, make([]quad.Value, 1)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						err = fmt.Errorf("panic: %v", r)
					}
				}()
				err = tc.read()
			}()
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("read: %v, want an error matching ErrCorrupt", err)
			}
		})
	}
}

func hashBytes(v quad.Value) []byte {
	h := refs.HashOf(v)
	return h[:]
}

func (f *checkFixture) getMaybe(k hkv.Key) ([]byte, error) {
	var v []byte
	err := hkv.View(f.n.kv, func(tx hkv.Tx) error {
		var err error
		v, err = tx.Get(context.Background(), k)
		return err
	})
	return v, err
}

// TestCheck_StoreLevelKeys checks the registry entries and the keys outside
// any namespace.
func TestCheck_StoreLevelKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newCheckFixture(t)
	err := f.s.db.Update(func(txn *badger.Txn) error {
		return errors.Join(
			txn.Set([]byte(registryPrefix+"other"), []byte("{bad")),
			txn.Set([]byte(registryPrefix+"Bad_Name"), nil),
			txn.Set([]byte(registryPrefix+"empty"), nil), // registered, never initialised
			txn.Set([]byte("x:stray"), []byte("1")),
		)
	})
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(checkProblemsOf(t, f.s.Check(ctx)), "\n")
	for _, want := range []string{
		`namespace other: registry entry "{bad"`,
		`registry entry "c:ns/Bad_Name"`,
		"namespace empty: no data version",
		`key "x:stray": neither a namespace registry entry nor a key of a namespace`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("problems\n%s\nwant one with %q", all, want)
		}
	}
	// The namespace's own check sees only its keys.
	if err := f.n.Check(ctx); err != nil {
		t.Errorf("namespace ns: %v", err)
	}
}

// TestCheck_LeftoverKeysOfDeletedNamespace: a deletion cut short leaves
// keys without a registry entry; they are not a problem, and the store's
// logger is told.
func TestCheck_LeftoverKeysOfDeletedNamespace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	log := &testLogger{}
	opts := DefaultOptions().WithSyncWrites(false).WithLogger(log)
	opts.hooks.deleteNamespace = func() error { return errors.New("cut short") }
	s, err := Open(ctx, t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n, err := s.Namespace(ctx, "gone")
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Apply(ctx, Delta{Add: bulkMixed(20, 0)}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteNamespace(ctx, "gone"); err == nil {
		t.Fatal("the deletion was not cut short")
	}
	if err := s.Check(ctx); err != nil {
		t.Fatalf("leftover keys: %v", err)
	}
	if got := log.String(); !strings.Contains(got, "keys of deleted namespaces gone are left") {
		t.Errorf("logged %q", got)
	}
	if err := n.Check(ctx); !errors.Is(err, ErrNoNamespace) {
		t.Errorf("check of the deleted namespace: %v, want ErrNoNamespace", err)
	}
}

type testLogger struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *testLogger) Printf(format string, v ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(&l.b, format+"\n", v...)
}

func (l *testLogger) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestCheck_ReadOnlyAndBounded: Check runs on a store opened read-only and
// writes nothing; its error lists at most 20 problems and counts them all.
func TestCheck_ReadOnlyAndBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newCheckFixture(t)
	// 30 quads' keys in index posc deleted: 30 problems.
	var qs []quad.Quad
	for i := range 30 {
		qs = append(qs, quad.Quad{Subject: checkA, Predicate: quad.IRI("http://e/many"), Object: quad.String(fmt.Sprint(i))})
	}
	if err := f.n.Apply(ctx, Delta{Add: qs}); err != nil {
		t.Fatal(err)
	}
	f.raw(t, func(_ func(hkv.Key, []byte), del func(hkv.Key)) {
		for _, q := range qs {
			del(layout.Index(1, f.ids(t, q)))
		}
	})
	if err := f.s.Close(); err != nil {
		t.Fatal(err)
	}
	before := dirState(t, f.dir)
	ro, err := Open(ctx, f.dir, DefaultOptions().WithReadOnly(true))
	if err != nil {
		t.Fatal(err)
	}
	err = ro.Check(ctx)
	if cerr := ro.Close(); cerr != nil {
		t.Fatal(cerr)
	}
	var ce *CheckError
	if !errors.As(err, &ce) || ce.Total != 30 || len(ce.Problems) != maxCheckProblems {
		t.Fatalf("check: %v, want 30 problems, 20 listed", err)
	}
	if !strings.Contains(err.Error(), "store check: 30 problems (the first 20):\n\tnamespace ns: quad ") {
		t.Errorf("message %q", err)
	}
	if after := dirState(t, f.dir); after != before {
		t.Errorf("a read-only check changed the store's files:\n%s\nthen\n%s", before, after)
	}
}

// TestCheck_Closed: a closed store reports ErrClosed, not a problem.
func TestCheck_Closed(t *testing.T) {
	t.Parallel()
	f := newCheckFixture(t)
	if err := f.s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.s.Check(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("check of a closed store: %v", err)
	}
}

// TestCheck_Canceled: Check stops with the context.
func TestCheck_Canceled(t *testing.T) {
	t.Parallel()
	f := newCheckFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := f.s.Check(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("check with a canceled context: %v", err)
	}
}

// dirState describes the files under dir (names, sizes, modification
// times), to see that something left them as they were.
func dirState(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %d %s\n", path, info.Size(), info.ModTime())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// noStoreCheck holds the tests whose testStore stores are not checked:
// they write keys outside the format on purpose.
var noStoreCheck sync.Map

// testStore opens the store in dir for a white-box test (which cannot use
// cortextest: it imports this package). When the test ends, the store is
// checked (Check; a problem fails the test) unless the test closed it, and
// closed. See noStoreCheck.
func testStore(t testing.TB, dir string, o Options) *Store {
	t.Helper()
	s, err := Open(context.Background(), dir, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, off := noStoreCheck.Load(t)
		if err := s.Check(context.Background()); !off && err != nil && !errors.Is(err, ErrClosed) {
			t.Errorf("check store after the test: %v", err)
		}
		if err := s.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	return s
}

// testNamespace returns namespace "ns" of a store opened with o in a
// temporary directory (testStore: checked and closed when the test ends).
func testNamespace(t testing.TB, o Options) *Namespace {
	t.Helper()
	n, err := testStore(t, t.TempDir(), o).Namespace(context.Background(), "ns")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestCheck_WhileWriting: Check reads each namespace from one snapshot, so
// it finds nothing wrong while deltas (some journaled), imports and side
// table updates are committed beside it.
func TestCheck_WhileWriting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// Deltas of more than 30 quads are journaled.
	f := newCheckFixture(t, tuned(func(t *Tuning) { t.MaxDeltaQuads = 30 }))
	done := make(chan error, 1)
	go func() {
		var err error
		for i := 0; i < 60 && err == nil; i++ {
			qs := bulkMixed(50+i, i) // 40 distinct quads or more: journaled
			switch i % 3 {
			case 0:
				err = f.n.Apply(ctx, Delta{Add: qs, Pin: []quad.Value{qs[0].Subject}})
			case 1:
				_, err = f.n.Import(ctx, &sliceSource{qs: qs}, ImportOptions{})
			case 2:
				err = f.n.Update(ctx, func(tx *Tx) error {
					tx.Remove(bulkMixed(60, i-1)...)
					tx.PutSide("teams", fmt.Sprint("k", i), []quad.Value{quad.String(fmt.Sprint(i))})
					tx.KeepSide("teams")
					return nil
				})
			}
		}
		done <- err
	}()
	checks := 0
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			if checks == 0 {
				t.Fatal("no check ran while writing")
			}
			t.Logf("%d checks while writing", checks)
			if err := f.s.Check(ctx); err != nil {
				t.Fatalf("after the writes: %v", err)
			}
			return
		default:
		}
		if err := f.s.Check(ctx); err != nil {
			t.Fatalf("check %d, while writing: %v", checks, err)
		}
		checks++
	}
}

// TestStore_FlushKeyLeftByACrash: a process killed between flushMemtables'
// write and its drop leaves flushKey; Check accepts it (a read-only store
// keeps it) and the next read-write Open drops it.
func TestStore_FlushKeyLeftByACrash(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir, DefaultOptions().WithSyncWrites(false))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.db.Update(func(txn *badger.Txn) error { return txn.Set(flushKey, nil) }); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(ctx); err != nil {
		t.Errorf("Check with the flush key left: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(ctx, dir, DefaultOptions().WithSyncWrites(false))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.db.View(func(txn *badger.Txn) error {
		_, err := txn.Get(flushKey)
		return err
	})
	if !errors.Is(err, badger.ErrKeyNotFound) {
		t.Errorf("flush key after a read-write Open: %v, want it dropped", err)
	}
}
