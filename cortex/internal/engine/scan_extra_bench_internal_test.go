package engine

import (
	"context"
	"math/rand"
	"os"
	"slices"
	"testing"

	"github.com/cayleygraph/quad"
)

// BenchmarkSnapshotSeek measures index lookups in a kept benchmark store (CORTEX_BENCH_STORE, namespace
// "bench", see cortex/sparql/bench_test.go): one-quad lookups by subject and predicate in random and in
// subject order, and a full predicate scan.
func BenchmarkSnapshotSeek(b *testing.B) {
	dir := os.Getenv("CORTEX_BENCH_STORE")
	if dir == "" {
		b.Skip("CORTEX_BENCH_STORE not set")
	}
	ctx := context.Background()
	s, err := Open(ctx, dir, DefaultOptions().WithSyncWrites(false))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	n, err := s.Namespace(ctx, "bench")
	if err != nil {
		b.Fatal(err)
	}
	ids, err := n.termIDsOf(ctx, []quad.Value{quad.IRI("urn:cortex:vocab:confidence")})
	if err != nil || ids[0] == 0 {
		b.Skip("no benchmark data")
	}
	conf := ids[0]
	snap, err := n.openSnapshot(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	defer snap.close()
	var subjects []termID
	it := snap.match(idPattern{P: conf}, true)
	for it.Next(ctx) {
		subjects = append(subjects, it.Quad().S)
	}
	it.Close()
	b.Logf("%d subjects", len(subjects))
	sorted := append([]termID(nil), subjects...)
	sortIDs(sorted)
	shuffled := append([]termID(nil), subjects...)
	rand.New(rand.NewSource(1)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	lookups := func(b *testing.B, order []termID) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			it := snap.match(idPattern{S: order[i%len(order)], P: conf}, true)
			for it.Next(ctx) {
			}
			it.Close()
		}
	}
	b.Run("random", func(b *testing.B) { lookups(b, shuffled) })
	b.Run("sorted", func(b *testing.B) { lookups(b, sorted) })
	b.Run("scan-per-quad", func(b *testing.B) {
		b.ReportAllocs()
		c := 0
		for c < b.N {
			it := snap.match(idPattern{P: conf}, true)
			for c < b.N && it.Next(ctx) {
				c++
			}
			it.Close()
		}
	})
}

func sortIDs(a []termID) { slices.Sort(a) }
