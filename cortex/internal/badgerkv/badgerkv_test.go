package badgerkv_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cayleygraph/cayley/graph"
	cayleykvtest "github.com/cayleygraph/cayley/graph/kv/kvtest"
	"github.com/dgraph-io/badger/v4"
	hkv "github.com/hidal-go/hidalgo/kv"
	"github.com/hidal-go/hidalgo/kv/flat"
	"github.com/hidal-go/hidalgo/kv/kvtest"

	"github.com/cortexgraph/cortex/cortex/internal/badgerkv"
)

func openBadger(t testing.TB) *badger.DB {
	t.Helper()
	db, err := badger.Open(badger.DefaultOptions(t.TempDir()).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// views returns flat stores to test: one owning the whole database and one
// confined to a prefix of a database that also holds foreign keys.
func views() map[string]func(t testing.TB) (flat.KV, func()) {
	return map[string]func(t testing.TB) (flat.KV, func()){
		"owned": func(t testing.TB) (flat.KV, func()) {
			db, err := badgerkv.Open(badger.DefaultOptions(t.TempDir()).WithLogger(nil))
			if err != nil {
				t.Fatal(err)
			}
			return db, func() { db.Close() }
		},
		"prefixed": func(t testing.TB) (flat.KV, func()) {
			bdb := openBadger(t)
			// Foreign keys around the prefix must stay invisible.
			err := bdb.Update(func(txn *badger.Txn) error {
				for _, k := range []string{"n:a", "n:a-", "n:b/x", "n:a-/x"} {
					if err := txn.Set([]byte(k), []byte("foreign")); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			return badgerkv.New(bdb, []byte("n:a/")), func() { bdb.Close() }
		},
	}
}

func TestHidalgoKVSuite(t *testing.T) {
	for name, open := range views() {
		t.Run(name, func(t *testing.T) {
			kvtest.RunTest(t, func(t testing.TB) (hkv.KV, func()) {
				db, closer := open(t)
				return flat.Upgrade(db), func() {
					db.Close()
					db.Close() // double close is allowed
					closer()
				}
			})
		})
	}
}

func TestCayleyKVSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("cayley's kvtest suite is long; run without -short")
	}
	// cayley's path tests read "../../../../data/testdata.nq" relative to the
	// working directory (its own repository layout); recreate that layout.
	root := t.TempDir()
	data, err := os.ReadFile(filepath.Join("testdata", "testdata.nq"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "data", "testdata.nq"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	cwd := filepath.Join(root, "a", "b", "c", "d")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(cwd)
	for name, open := range views() {
		t.Run(name, func(t *testing.T) {
			cayleykvtest.TestAll(t, func(t testing.TB) (hkv.KV, graph.Options, func()) {
				db, closer := open(t)
				return flat.Upgrade(db), nil, func() { db.Close(); closer() }
			}, nil)
		})
	}
}

func TestPrefixIsolation(t *testing.T) {
	bdb := openBadger(t)
	defer bdb.Close()
	ctx := context.Background()
	a, ab := badgerkv.New(bdb, []byte("n:a/")), badgerkv.New(bdb, []byte("n:a-b/"))
	put := func(db flat.KV, k, v string) {
		tx, err := db.Tx(true)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Close()
		if err := tx.Put(flat.Key(k), flat.Value(v)); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	put(a, "k1", "a1")
	put(ab, "k1", "ab1")
	put(ab, "k2", "ab2")
	scan := func(db flat.KV) map[string]string {
		tx, err := db.Tx(false)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Close()
		got := map[string]string{}
		it := tx.Scan(nil)
		for it.Next(ctx) {
			got[string(it.Key())] = string(it.Val())
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := scan(a); len(got) != 1 || got["k1"] != "a1" {
		t.Errorf("view a sees %v, want only k1=a1", got)
	}
	if got := scan(ab); len(got) != 2 || got["k1"] != "ab1" || got["k2"] != "ab2" {
		t.Errorf("view a-b sees %v", got)
	}
}

func TestReadOnlyTxRejectsWrites(t *testing.T) {
	bdb := openBadger(t)
	defer bdb.Close()
	tx, err := badgerkv.New(bdb, nil).Tx(false)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	if err := tx.Put(flat.Key("k"), flat.Value("v")); !errors.Is(err, flat.ErrReadOnly) {
		t.Errorf("Put on read-only tx: got %v, want ErrReadOnly", err)
	}
	if err := tx.Del(flat.Key("k")); !errors.Is(err, flat.ErrReadOnly) {
		t.Errorf("Del on read-only tx: got %v, want ErrReadOnly", err)
	}
}

func TestTxnTooBigIsReported(t *testing.T) {
	bdb := openBadger(t)
	defer bdb.Close()
	tx, err := badgerkv.New(bdb, nil).Tx(true)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	val := make([]byte, 1024)
	for i := 0; ; i++ {
		err := tx.Put(flat.Key([]byte{byte(i >> 24), byte(i >> 16), byte(i >> 8), byte(i)}), val)
		if err != nil {
			if !errors.Is(err, badgerkv.ErrTxnTooBig) {
				t.Fatalf("got %v, want ErrTxnTooBig", err)
			}
			return
		}
		if i > 10_000_000 {
			t.Fatal("no size limit reached")
		}
	}
}
