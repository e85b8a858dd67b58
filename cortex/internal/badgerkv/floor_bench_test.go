//go:build linux

package badgerkv

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// The floors under a durable call (docs/PERFORMANCE.md, "Session 16:
// claim + complete"): what the disk, and Badger alone, take for the two
// durable commits of a task board's claim + complete, with the shape of
// teammanager's BenchmarkTask_CommitFloor_32Members: 32 members, each
// waiting 100–300 ms (seeded) between its two commits. Each reports the
// p50/p99 of a pair (the two commits' time, not the wait).

// BenchmarkFloor_Fdatasync_32Members: each commit is a 128-byte append to
// one file and its fdatasync, the members serialised on the file.
func BenchmarkFloor_Fdatasync_32Members(b *testing.B) {
	f, err := os.OpenFile(filepath.Join(b.TempDir(), "log"), os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var mu sync.Mutex
	rec := make([]byte, 128)
	floorPairs(b, func(int, int) error {
		mu.Lock()
		defer mu.Unlock()
		if _, err := f.Write(rec); err != nil {
			return err
		}
		return syscall.Fdatasync(int(f.Fd()))
	})
}

// BenchmarkFloor_FdatasyncPrealloc_32Members: as Floor_Fdatasync_32Members,
// but the records overwrite a file allocated and written beforehand, so
// that a sync has only data to write (no size or extent to journal), as a
// log that is preallocated (Badger's) does.
func BenchmarkFloor_FdatasyncPrealloc_32Members(b *testing.B) {
	const size = 64 << 20
	f, err := os.OpenFile(filepath.Join(b.TempDir(), "log"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	zero := make([]byte, 1<<20)
	for off := int64(0); off < size; off += int64(len(zero)) {
		if _, err := f.WriteAt(zero, off); err != nil {
			b.Fatal(err)
		}
	}
	if err := f.Sync(); err != nil {
		b.Fatal(err)
	}
	var mu sync.Mutex
	rec := make([]byte, 128)
	var off int64
	floorPairs(b, func(int, int) error {
		mu.Lock()
		defer mu.Unlock()
		if _, err := f.WriteAt(rec, off%size); err != nil {
			return err
		}
		off += int64(len(rec))
		return syscall.Fdatasync(int(f.Fd()))
	})
}

// BenchmarkFloor_Badger_32Members: each commit is one Badger Update of
// one 100-byte key with SyncWrites (its WAL msync'd), Badger's defaults
// otherwise.
func BenchmarkFloor_Badger_32Members(b *testing.B) {
	db, err := badger.Open(badger.DefaultOptions(b.TempDir()).WithSyncWrites(true).WithLogger(nil).WithDetectConflicts(false))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	val := make([]byte, 100)
	floorPairs(b, func(member, n int) error {
		return db.Update(func(txn *badger.Txn) error {
			return txn.Set(fmt.Appendf(nil, "m%02d-%d", member, n), val)
		})
	})
}

// floorPairs runs b.N pairs of commit calls by 32 members, each waiting
// 100–300 ms between the two calls of a pair, and reports the pairs'
// p50/p99.
func floorPairs(b *testing.B, commit func(member, n int) error) {
	const members = 32
	var mu sync.Mutex
	var lat []time.Duration
	per := max(1, b.N/members)
	b.ReportAllocs()
	b.ResetTimer()
	var wg sync.WaitGroup
	for m := range members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(20, uint64(m)))
			for i := range per {
				start := time.Now()
				if err := commit(m, 2*i); err != nil {
					b.Error(err)
					return
				}
				d := time.Since(start)
				time.Sleep(100*time.Millisecond + time.Duration(r.Int64N(int64(200*time.Millisecond))))
				start = time.Now()
				if err := commit(m, 2*i+1); err != nil {
					b.Error(err)
					return
				}
				d += time.Since(start)
				mu.Lock()
				lat = append(lat, d)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	slices.Sort(lat)
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	}
}
