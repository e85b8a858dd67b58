package cortex_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/dgraph-io/badger/v4"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/cortex/rdfio"
)

// teamsData generates n triples shaped like ../shared/bench/gen_teams.py
// output (teams, members, findings about files and issues, a catalogue), with
// the same vocabulary and term kinds, deterministically.
func teamsData(n int) []quad.Quad {
	const (
		cx  = "urn:cortex:vocab:"
		exn = "urn:ex:"
		xsd = "http://www.w3.org/2001/XMLSchema#"
	)
	rdfType := quad.IRI("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]quad.Quad, 0, n)
	emit := func(s quad.IRI, p string, o quad.Value) {
		if len(out) < n {
			out = append(out, quad.Quad{Subject: s, Predicate: quad.IRI(p), Object: o})
		}
	}
	sev := []string{"low", "medium", "high", "critical"}
	universe := n / 5
	for t := 1; len(out) < n; t++ {
		team := quad.IRI(fmt.Sprintf("urn:cortex:acme:team:T%04d", t))
		out = append(out, quad.Quad{Subject: team, Predicate: rdfType, Object: quad.IRI(cx + "Team")})
		emit(team, cx+"name", quad.String(fmt.Sprintf("team-%04d-otter", t)))
		emit(team, cx+"status", quad.String("active"))
		emit(team, cx+"createdAt", quad.TypedString{Value: quad.String(fmt.Sprintf("2025-01-%02dT09:10:37Z", 1+t%28)), Type: xsd + "dateTime"})
		for m := 1; m <= 3+r.IntN(6) && len(out) < n; m++ {
			member := quad.IRI(fmt.Sprintf("%s:member:M%02d", string(team), m))
			emit(team, cx+"hasMember", member)
			emit(member, "http://www.w3.org/1999/02/22-rdf-syntax-ns#type", quad.IRI(cx+"Member"))
			emit(member, cx+"name", quad.String(fmt.Sprintf("agent-%04d-%02d", t, m)))
			emit(member, cx+"role", quad.String("reviewer"))
			emit(member, cx+"memberOf", team)
			for j := 1; j <= 100 && len(out) < n; j++ {
				k := r.IntN(universe + 1)
				f := quad.IRI(fmt.Sprintf("%s:finding:M%02d-%04d", string(team), m, j))
				file := quad.IRI(fmt.Sprintf("%sfile/%d", exn, k/3))
				issue := quad.IRI(fmt.Sprintf("%sissue/%d", exn, k))
				emit(file, exn+"hasIssue", issue)
				emit(f, "http://www.w3.org/1999/02/22-rdf-syntax-ns#type", quad.IRI(cx+"Finding"))
				emit(f, cx+"assertedBy", member)
				emit(f, cx+"file", file)
				emit(f, cx+"issue", issue)
				emit(f, cx+"severity", quad.String(sev[r.IntN(4)]))
				emit(f, cx+"confidence", quad.TypedString{Value: quad.String(fmt.Sprintf("0.%d", 30+r.IntN(70))), Type: xsd + "decimal"})
				emit(f, cx+"observedAt", quad.TypedString{Value: quad.String(fmt.Sprintf("2025-03-%02dT%02d:%02d:00Z", 1+r.IntN(28), r.IntN(24), r.IntN(60))), Type: xsd + "dateTime"})
				emit(f, cx+"line", quad.TypedString{Value: quad.String(fmt.Sprint(1 + r.IntN(900))), Type: xsd + "integer"})
				if r.IntN(2) == 0 {
					emit(f, cx+"note", quad.String("File handle not closed on the error path"))
				}
			}
		}
	}
	return out
}

// benchQuads returns the benchmark input: the N-Triples file named by
// $CORTEX_BENCH_NT (parsed up front with rdfio) or 200,000 generated triples.
func benchQuads(b *testing.B) []quad.Quad {
	if path := os.Getenv("CORTEX_BENCH_NT"); path != "" {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		qs, err := rdfio.ReadAll(f, rdfio.NTriples, rdfio.DecodeOptions{})
		if err != nil {
			b.Fatal(err)
		}
		return qs
	}
	return teamsData(200_000)
}

// BenchmarkImport measures Namespace.Import of pre-parsed triples into a fresh
// persistent store (default options: synchronous commits). One op is one
// import of the whole input; quads/s is the figure to compare.
//
//	go test ./cortex -run '^$' -bench 'Import$' -benchtime 3x
//	CORTEX_BENCH_NT=$PWD/bench-data/teams-1m.nt go test ./cortex -run '^$' -bench 'Import$' -benchtime 1x
//
// $CORTEX_BENCH_NOSYNC=1 turns synchronous commits off, $CORTEX_BENCH_CHUNK
// sets the chunk size.
func BenchmarkImport(b *testing.B) {
	qs := benchQuads(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	var cpu time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		opts := cortex.DefaultOptions()
		if os.Getenv("CORTEX_BENCH_NOSYNC") != "" {
			opts = opts.WithSyncWrites(false)
		}
		if v := os.Getenv("CORTEX_BENCH_CHUNK"); v != "" {
			var c int
			fmt.Sscan(v, &c)
			opts = opts.WithChunkQuads(c)
		}
		s := cortextest.NewStore(b, opts)
		ns, err := s.Namespace(ctx, "bench")
		if err != nil {
			b.Fatal(err)
		}
		c0 := cortextest.CPUTime()
		b.StartTimer()
		res, err := ns.Import(ctx, &cortextest.SliceSource{Quads: qs}, cortex.ImportOptions{})
		b.StopTimer()
		cpu += cortextest.CPUTime() - c0
		if err != nil {
			b.Fatal(err)
		}
		if res.Committed != int64(len(qs)) {
			b.Fatalf("committed %d of %d", res.Committed, len(qs))
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(len(qs))*float64(b.N)/b.Elapsed().Seconds(), "quads/s")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(len(qs)*b.N), "cpu-ns/quad")
}

// BenchmarkImportNTriples measures parsing and importing an N-Triples file
// end to end (ImportRDF); it needs $CORTEX_BENCH_NT.
func BenchmarkImportNTriples(b *testing.B) {
	path := os.Getenv("CORTEX_BENCH_NT")
	if path == "" {
		b.Skip("set CORTEX_BENCH_NT to an N-Triples file")
	}
	ctx := context.Background()
	b.ReportAllocs()
	var total int64
	var cpu time.Duration
	opts := cortex.DefaultOptions()
	if v := os.Getenv("CORTEX_BENCH_SEGMENT_MB"); v != "" {
		mb, err := strconv.Atoi(v)
		if err != nil {
			b.Fatal(err)
		}
		opts = opts.WithImportSegmentBytes(int64(mb) << 20)
	}
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s := cortextest.NewStore(b, opts)
		ns, err := s.Namespace(ctx, "bench")
		if err != nil {
			b.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		c0 := cortextest.CPUTime()
		b.StartTimer()
		res, err := ns.ImportRDF(ctx, f, cortex.RDFImportOptions{Format: rdfio.NTriples, File: path})
		b.StopTimer()
		cpu += cortextest.CPUTime() - c0
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		total += res.Committed
		b.StartTimer()
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "quads/s")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(total), "cpu-ns/quad")
}

// BenchmarkBadgerWriteBatchCeiling writes, with a raw Badger WriteBatch and
// the store's Badger options, the number and sizes of keys the bulk importer
// writes per quad of the bench data (measured: 6.03 entries per quad — one
// log primitive, four index keys of four ids each, and on average one node
// entry — of about 47 bytes of key and value). quads/s is the ceiling for BenchmarkImport.
// $CORTEX_BENCH_QUADS sets the number of quads (default 200,000),
// $CORTEX_BENCH_MEMTABLE_MB Badger's memtable size.
func BenchmarkBadgerWriteBatchCeiling(b *testing.B) {
	quads := 200_000
	if v := os.Getenv("CORTEX_BENCH_QUADS"); v != "" {
		fmt.Sscan(v, &quads)
	}
	prefix := []byte("n:bench/")
	b.ReportAllocs()
	var cpu time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		opts := badger.DefaultOptions(b.TempDir()).WithLogger(nil).WithSyncWrites(true).
			WithNumVersionsToKeep(1).WithDetectConflicts(false)
		if v := os.Getenv("CORTEX_BENCH_MEMTABLE_MB"); v != "" {
			var mb int64
			fmt.Sscan(v, &mb)
			opts = opts.WithMemTableSize(mb << 20)
		}
		db, err := badger.Open(opts)
		if err != nil {
			b.Fatal(err)
		}
		c0 := cortextest.CPUTime()
		b.StartTimer()
		wb := db.NewWriteBatch()
		var id uint64
		key := func(bucket string, n int) []byte {
			k := make([]byte, 0, len(prefix)+len(bucket)+1+n)
			k = append(append(append(k, prefix...), bucket...), '/')
			for j := 0; j < n/8; j++ {
				id++
				k = binary.BigEndian.AppendUint64(k, id*2654435761) // scattered, like hashes and ids

			}
			return k
		}
		logVal := make([]byte, 30)
		idxVal := []byte{0x81, 0x80, 0x01}
		for q := 0; q < quads; q++ {
			set := func(k, v []byte) {
				if err := wb.Set(k, v); err != nil {
					b.Fatal(err)
				}
			}
			set(key("log", 8), logVal)
			set(key("spoc", 32), idxVal)
			set(key("posc", 32), idxVal)
			set(key("ospc", 32), idxVal)
			set(key("cspo", 32), idxVal)
			set(key("v\x12\x34", 24), idxVal) // a node entry: ~20-byte hash
		}
		if err := wb.Flush(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		cpu += cortextest.CPUTime() - c0
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(quads)*float64(b.N)/b.Elapsed().Seconds(), "quads/s")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(quads*b.N), "cpu-ns/quad")
}

// BenchmarkApplyBaseline writes the same generated triples through Apply in
// MaxDeltaQuads batches: cayley's own write path (ApplyDeltas), which the bulk
// importer replaces. It uses a quarter of BenchmarkImport's input, as it is slow.
func BenchmarkApplyBaseline(b *testing.B) {
	qs := teamsData(50_000)
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s := cortextest.NewStore(b, cortex.DefaultOptions())
		ns, err := s.Namespace(ctx, "bench")
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		for j := 0; j < len(qs); j += cortex.MaxDeltaQuads {
			if err := ns.Apply(ctx, cortex.Delta{Add: qs[j:min(j+cortex.MaxDeltaQuads, len(qs))]}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(qs))*float64(b.N)/b.Elapsed().Seconds(), "quads/s")
}
