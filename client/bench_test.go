package client_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/client"
	"github.com/cortexgraph/cortex/config"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/cortex/sparql/results"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/server"
	"github.com/cortexgraph/cortex/teammanager"
)

// The cost of going through a server: the same call in-process and
// through a server of the same store on a Unix socket and on TCP
// (127.0.0.1). docs/PERFORMANCE.md ("Session 13: the server under load",
// "Session 15: the server's cost per call") has figures.

// serveBench serves s on network ("unix" or "tcp") until b ends and
// returns the client target.
func serveBench(b *testing.B, s *cortex.Store, network string) string {
	b.Helper()
	addr, target := "127.0.0.1:0", ""
	if network == "unix" {
		addr = filepath.Join(b.TempDir(), "s.sock")
	}
	l, err := net.Listen(network, addr)
	if err != nil {
		b.Fatal(err)
	}
	if network == "unix" {
		target = "unix://" + addr
	} else {
		target = "http://" + l.Addr().String()
	}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- server.New(s, server.DefaultOptions()).Serve(sctx, l) }()
	b.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			b.Errorf("serve: %v", err)
		}
	})
	return target
}

// BenchmarkAddFinding adds one finding per operation to a running team's
// member, one call at a time, in-process (*teammanager.Manager) and
// through a server (*client.Client). The store does not wait for fsync,
// so the difference is the cost of the JSON-RPC call: encoding, HTTP, the
// transport, decoding.
func BenchmarkAddFinding(b *testing.B) {
	for _, mode := range []string{"in-process", "unix", "tcp"} {
		b.Run(mode, func(b *testing.B) {
			s := cortextest.NewStore(b, cortex.DefaultOptions().WithSyncWrites(false))
			var tm api.TeamManager
			if mode == "in-process" {
				x, err := namespace.New("acme", namespace.WithBase(config.Default().NamespaceBase("acme")))
				if err != nil {
					b.Fatal(err)
				}
				if tm, err = teammanager.New(ctx, s, x, teammanager.FromConfig(config.Default().Teams)); err != nil {
					b.Fatal(err)
				}
			} else {
				c, err := client.New(serveBench(b, s, mode), client.DefaultOptions().WithNamespace("acme"))
				if err != nil {
					b.Fatal(err)
				}
				tm = c
			}
			tc := teammanager.TeamConfig{ID: "t1", Name: "bench", Strategy: "additive", Timeout: -1,
				Members: []teammanager.MemberConfig{{AgentID: "a1", Role: "reviewer"}}}
			if _, err := tm.CreateTeam(ctx, tc); err != nil {
				b.Fatal(err)
			}
			if _, err := tm.UpdateMemberStatus(ctx, "t1", "a1", teammanager.Running, ""); err != nil {
				b.Fatal(err)
			}
			loopMedian(b, func(i int) {
				_, err := tm.AddFinding(ctx, "t1", "a1", teammanager.Finding{
					Subject: quad.IRI(fmt.Sprintf("http://ex.org/file%d", i%100)), Predicate: quad.IRI("http://ex.org/p/severity"),
					Object: quad.String("high"), Confidence: 0.9,
				})
				if err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkCall is the fixed cost of a JSON-RPC call through a server:
// strategies.list, which reads nothing of the store, one call at a time
// over a Unix socket and over TCP (client and server in one process, so
// cpu-ms/op, B/op and allocs/op count both sides).
func BenchmarkCall(b *testing.B) {
	for _, network := range []string{"unix", "tcp"} {
		b.Run(network, func(b *testing.B) {
			s := cortextest.NewStore(b, cortex.DefaultOptions().WithSyncWrites(false))
			c, err := client.New(serveBench(b, s, network), client.DefaultOptions().WithNamespace("acme"))
			if err != nil {
				b.Fatal(err)
			}
			want, err := c.Strategies(ctx)
			if err != nil || len(want) == 0 {
				b.Fatalf("strategies.list: %v, %v", want, err)
			}
			loopMedian(b, func(int) {
				got, err := c.Strategies(ctx)
				if err != nil || len(got) != len(want) {
					b.Fatalf("strategies.list: %v, %v", got, err)
				}
			})
		})
	}
}

// loopMedian runs op(i) for i in [0, b.N) with allocations reported, and
// reports the median time of one op ("p50-us") beside the mean (ns/op):
// the targets are differences of medians. It also reports the
// process's CPU time per op ("cpu-ms/op", every goroutine: the client's,
// the server's, the store's), steadier than wall time on a shared
// machine.
func loopMedian(b *testing.B, op func(i int)) {
	took := make([]time.Duration, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cortextest.CPUTime()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		op(i)
		took[i] = time.Since(t0)
	}
	cpu := cortextest.CPUTime() - cpu0
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Nanoseconds())/1000, "p50-us")
	b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
}

// Benchmark data of BenchmarkSPARQL: CORTEX_BENCH_DATA names the N-Quads
// file (default bench-data/teams-100k.nq at the repository root, made by
// shared/bench/gen_teams.py), CORTEX_BENCH_QUERIES the query folder
// (default shared/bench/queries beside the worktree).
func sparqlBenchPaths() (data, queries string) {
	data, queries = os.Getenv("CORTEX_BENCH_DATA"), os.Getenv("CORTEX_BENCH_QUERIES")
	if data == "" {
		data = "../bench-data/teams-100k.nq"
	}
	if queries == "" {
		queries = "../../shared/bench/queries"
	}
	return data, queries
}

var sparqlBench struct {
	once sync.Once
	ns   *cortex.Namespace
	url  string // the namespace's SPARQL endpoint, on TCP
	err  error
}

// sparqlBenchSetup loads the data once per test binary into a store in a
// temporary directory (namespace "bench", the base a server gives it) and
// serves it on 127.0.0.1 for the rest of the process.
func sparqlBenchSetup(b *testing.B) (*cortex.Namespace, string) {
	data, _ := sparqlBenchPaths()
	if _, err := os.Stat(data); err != nil {
		b.Skipf("benchmark data %s not found: %v", data, err)
	}
	sb := &sparqlBench
	sb.once.Do(func() {
		dir, err := os.MkdirTemp("", "cortex-client-bench-")
		if err != nil {
			sb.err = err
			return
		}
		s, err := cortex.Open(ctx, dir, cortex.DefaultOptions().WithSyncWrites(false))
		if err != nil {
			sb.err = err
			return
		}
		if sb.ns, err = s.Namespace(ctx, "bench", cortex.WithBase(config.Default().NamespaceBase("bench"))); err != nil {
			sb.err = err
			return
		}
		f, err := os.Open(data)
		if err != nil {
			sb.err = err
			return
		}
		defer f.Close()
		if _, err := sb.ns.ImportRDF(ctx, f, cortex.RDFImportOptions{Format: "nquads", File: data}); err != nil {
			sb.err = err
			return
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			sb.err = err
			return
		}
		go server.New(s, server.DefaultOptions()).Serve(context.Background(), l) // until the process ends
		sb.url = "http://" + l.Addr().String() + "/ns/bench/sparql"
	})
	if sb.err != nil {
		b.Fatal(sb.err)
	}
	return sb.ns, sb.url
}

// BenchmarkLoopbackFloor measures what any HTTP answer costs on this
// machine, with no store and no Cortex code: a form POST to a net/http
// server on 127.0.0.1 answered with a fixed body (Content-Length, written
// in 64 KB chunks, as the SPARQL endpoint sends its spool), the whole body
// read as BenchmarkSPARQL reads it. Each op first keeps one core busy for
// 20 ms, as a query's evaluation does, then times the exchange alone
// (p50-us): after the busy phase the other goroutines' threads have gone
// idle, and waking them is part of every real request's cost. "small" is
// a 100-byte answer, "q4" one of q4's size at 100k (278 KB). Run it with a
// fixed count (-benchtime 200x): the busy phase is not timed, so the
// default benchtime would run it for minutes.
func BenchmarkLoopbackFloor(b *testing.B) {
	row := `{"team":{"type":"uri","value":"urn:cortex:acme:team:T0001"},"issue":{"type":"uri","value":"urn:ex:issue/104"}},` + "\n"
	for _, c := range []struct {
		name string
		size int
	}{{"small", 100}, {"q4", 2463 * len(row)}} {
		b.Run(c.name, func(b *testing.B) {
			body := bytes.Repeat([]byte(row), c.size/len(row)+1)[:c.size]
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_ = r.ParseForm()
				w.Header().Set("Content-Length", fmt.Sprint(len(body)))
				for rest := body; len(rest) > 0; {
					n := min(len(rest), 64<<10)
					if _, err := w.Write(rest[:n]); err != nil {
						return
					}
					rest = rest[n:]
				}
			})}
			go hs.Serve(l) //nolint:errcheck // ends with Close
			defer hs.Close()
			hc := &http.Client{}
			u := "http://" + l.Addr().String() + "/"
			form := url.Values{"query": {strings.Repeat("x", 400)}}.Encode()
			took := make([]time.Duration, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				b.StopTimer()
				for t := time.Now(); time.Since(t) < 20*time.Millisecond; {
				}
				b.StartTimer()
				t0 := time.Now()
				resp, err := hc.Post(u, "application/x-www-form-urlencoded", strings.NewReader(form))
				if err != nil {
					b.Fatal(err)
				}
				buf := bytes.NewBuffer(make([]byte, 0, max(resp.ContentLength, 0)+bytes.MinRead))
				_, err = buf.ReadFrom(resp.Body)
				resp.Body.Close()
				if err != nil || buf.Len() != len(body) {
					b.Fatalf("read %d of %d bytes: %v", buf.Len(), len(body), err)
				}
				took[i] = time.Since(t0)
			}
			b.StopTimer()
			slices.Sort(took)
			b.ReportMetric(float64(took[b.N/2].Nanoseconds())/1000, "p50-us")
		})
	}
}

// BenchmarkSPARQL runs each benchmark query over the union of the
// namespace's graphs in-process (Namespace.Query, every row read, as
// sparql's BenchmarkQuery does) and through the server's SPARQL endpoint
// over TCP (a form POST asking for application/sparql-results+json, the
// whole response read), one way after the other, then both in turn
// (paired). Each query runs once both ways first (the planner's
// statistics are gathered then), and both must give the same number of
// rows.
func BenchmarkSPARQL(b *testing.B) {
	ns, endpoint := sparqlBenchSetup(b)
	_, dir := sparqlBenchPaths()
	files, _ := filepath.Glob(filepath.Join(dir, "*.rq"))
	if len(files) == 0 {
		b.Skipf("no benchmark queries in %s", dir)
	}
	sort.Strings(files)
	hc := &http.Client{}
	for _, file := range files {
		text, err := os.ReadFile(file)
		if err != nil {
			b.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(file), ".rq")
		inProcess := func() int {
			res, err := ns.Query(ctx, string(text), sparql.Options{})
			if err != nil {
				b.Fatal(err)
			}
			rows := 0
			for res.Next(ctx) {
				rows++
			}
			if err := res.Err(); err != nil {
				b.Fatal(err)
			}
			res.Close()
			return rows
		}
		form := url.Values{"query": {string(text)}}.Encode()
		overHTTP := func() []byte {
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form))
			if err != nil {
				b.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Accept", "application/sparql-results+json")
			resp, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			// As package client reads a body: into one buffer of the
			// length the server gave.
			buf := bytes.NewBuffer(make([]byte, 0, max(resp.ContentLength, 0)+bytes.MinRead))
			_, err = buf.ReadFrom(resp.Body)
			body := buf.Bytes()
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				b.Fatalf("%s: %s %v: %.200s", name, resp.Status, err, body)
			}
			return body
		}
		rows := inProcess()
		r, err := results.ReadJSON(bytes.NewReader(overHTTP()))
		if err != nil {
			b.Fatalf("%s: the server's results: %v", name, err)
		}
		if len(r.Rows) != rows && r.Boolean == nil {
			b.Fatalf("%s: %d rows over HTTP, %d in-process", name, len(r.Rows), rows)
		}
		b.Run(name+"/in-process", func(b *testing.B) {
			loopMedian(b, func(int) { inProcess() })
			b.ReportMetric(float64(rows), "rows")
		})
		b.Run(name+"/http", func(b *testing.B) {
			loopMedian(b, func(int) { overHTTP() })
		})
		// Both ways in turn, each op one of each (in-process first in even
		// ops, HTTP first in odd ones): on a shared machine whose load
		// drifts over seconds, the two medians then see the same load,
		// and so does their difference ("http-over-us"; "pair-over-us" is
		// the median of each pair's difference). The
		// process's CPU time of each way ("...-cpu-us", the mean) does
		// not count the time spent waiting for a core.
		b.Run(name+"/paired", func(b *testing.B) {
			in, over := make([]time.Duration, b.N), make([]time.Duration, b.N)
			var cpuIn, cpuOver time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				// The order alternates: what one way leaves behind (the
				// garbage it allocated, a cold connection) falls on the
				// other way as often as the other way round.
				first, second := func() { inProcess() }, func() { overHTTP() }
				if i%2 == 1 {
					first, second = second, first
				}
				c0, t0 := cortextest.CPUTime(), time.Now()
				first()
				c1, t1 := cortextest.CPUTime(), time.Now()
				second()
				c2, t2 := cortextest.CPUTime(), time.Now()
				a, ca, bb, cb := t1.Sub(t0), c1-c0, t2.Sub(t1), c2-c1
				if i%2 == 1 {
					a, ca, bb, cb = bb, cb, a, ca
				}
				in[i], over[i] = a, bb
				cpuIn, cpuOver = cpuIn+ca, cpuOver+cb
			}
			b.StopTimer()
			// The median of the pairs' differences: each pair's two ways
			// ran back to back, so a drift of the machine's load over
			// the run moves both; less noisy than the difference of the
			// two medians when the query itself varies by more than the
			// overhead measured.
			diff := make([]time.Duration, b.N)
			for i := range diff {
				diff[i] = over[i] - in[i]
			}
			slices.Sort(diff)
			slices.Sort(in)
			slices.Sort(over)
			p50in, p50over := in[b.N/2], over[b.N/2]
			b.ReportMetric(float64(p50in.Nanoseconds())/1000, "in-process-p50-us")
			b.ReportMetric(float64(p50over.Nanoseconds())/1000, "http-p50-us")
			b.ReportMetric(float64((p50over-p50in).Nanoseconds())/1000, "http-over-us")
			b.ReportMetric(float64(diff[b.N/2].Nanoseconds())/1000, "pair-over-us")
			b.ReportMetric(float64(cpuIn.Nanoseconds())/1000/float64(b.N), "in-process-cpu-us")
			b.ReportMetric(float64(cpuOver.Nanoseconds())/1000/float64(b.N), "http-cpu-us")
		})
	}
}
