package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/server"
)

// TestBenchmark_ThroughServer runs the workload through a server of the
// store started in this process, on a Unix socket and on TCP: the same
// results as in-process (SQLite's file), no errors, every acknowledged
// finding in the store.
func TestBenchmark_ThroughServer(t *testing.T) {
	want, err := os.ReadFile(sqliteResults)
	if err != nil {
		t.Fatal(err)
	}
	for _, via := range []string{viaUnix, viaTCP} {
		t.Run(via, func(t *testing.T) {
			ctx := context.Background()
			s := cortextest.NewStore(t, cortex.DefaultOptions())
			c := config{params: small, opCount: opCountSPARQL, server: via}
			work, _ := genWorkload(c.params)
			h, stop, err := serveHost(ctx, s, c, via)
			if err != nil {
				t.Fatal(err)
			}
			sum, lines, err := benchmark(ctx, h, c, work)
			if serr := stop(); serr != nil {
				t.Errorf("stop the server: %v", serr)
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(sum.Errors) > 0 {
				t.Fatalf("errors: %q", sum.Errors)
			}
			if got := strings.Join(lines, "\n") + "\n"; got != string(want) {
				t.Errorf("results differ from %s:\n%s", sqliteResults, lineDiff(string(want), got))
			}
			total := small.Teams * small.Agents * small.Findings
			if sum.Via != via || sum.Acknowledged != total || sum.LostWrites != 0 || sum.AddMS.N != total ||
				len(sum.Merges) != small.Teams || sum.OpCounted == 0 && sum.OpTicks > 0 {
				t.Errorf("via %q, acknowledged %d, lost %d, add n %d, merges %d, op %d/%d",
					sum.Via, sum.Acknowledged, sum.LostWrites, sum.AddMS.N, len(sum.Merges), sum.OpCounted, sum.OpTicks)
			}
			// Each call's time in the server (its Server-Timing) and beyond.
			if sum.AddServerMS == nil || sum.AddOverheadMS == nil || sum.AddServerMS.N != total || sum.AddOverheadMS.N != total ||
				sum.AddServerMS.P50 <= 0 || sum.AddServerMS.P50 > sum.AddMS.Max {
				t.Errorf("server time %+v, beyond it %+v (add %+v)", sum.AddServerMS, sum.AddOverheadMS, sum.AddMS)
			}
		})
	}
}

// TestServerTiming reads the call's duration from a Server-Timing header.
func TestServerTiming(t *testing.T) {
	for h, want := range map[string]time.Duration{
		"call;dur=1.500":                 1500 * time.Microsecond,
		"db;dur=3, call;desc=x;dur=0.25": 250 * time.Microsecond,
		"call":                           0,
		"other;dur=2":                    0,
		"call;dur=-1":                    0,
		"call;dur=x":                     0,
		"":                               0,
	} {
		if got := serverTiming(h); got != want {
			t.Errorf("%q: %v, want %v", h, got, want)
		}
	}
}

// TestBench_CheckAcknowledged_LostWrite: an acknowledged finding that is
// not in the store is a lost write, counted and reported as an error.
func TestBench_CheckAcknowledged_LostWrite(t *testing.T) {
	ctx := context.Background()
	s := cortextest.NewStore(t, cortex.DefaultOptions())
	c := config{params: params{Teams: 1, Agents: 2, Subjects: 2, Findings: 3, Seed: 1, IntervalMS: 100}, opCount: opCountFindings}
	work, _ := genWorkload(c.params)
	h, err := embeddedHost(ctx, s, c)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := setup(ctx, h, c, work)
	if err != nil {
		t.Fatal(err)
	}
	b.run(ctx)
	if lost := b.checkAcknowledged(ctx); lost != 0 || len(b.errors) > 0 || b.acknowledged() != 6 {
		t.Fatalf("after the run: %d lost, %d acknowledged, errors %q", lost, b.acknowledged(), b.errors)
	}
	b.acked[0] = append(b.acked[0], "f-never-written")
	if lost := b.checkAcknowledged(ctx); lost != 1 || len(b.errors) != 1 ||
		!strings.Contains(b.errors[0], "lost write: team0: finding f-never-written was acknowledged but is not in the store") {
		t.Errorf("%d lost, errors %q; want 1 lost write", lost, b.errors)
	}
}

// TestRun_ServerURL runs the command against a running server (a Unix
// socket URL): exit 0, and the same results file as an in-process run.
func TestRun_ServerURL(t *testing.T) {
	s := cortextest.NewStore(t, cortex.DefaultOptions())
	sock := filepath.Join(t.TempDir(), "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- server.New(s, server.DefaultOptions()).Serve(sctx, l) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})

	dir := t.TempDir()
	p := params{Teams: 2, Agents: 2, Subjects: 3, Findings: 5, Seed: 1, IntervalMS: 5}
	results := map[string]string{}
	for _, via := range []string{"", "unix://" + sock} {
		out, js := filepath.Join(dir, "r"+filepath.Base(via)+".tsv"), filepath.Join(dir, "s"+filepath.Base(via)+".json")
		args := append([]string{"--server", via, "--out", out, "--json", js}, paramArgs(p)...)
		code, stdout, stderr := runCLI(t, args...)
		if code != exitOK || !strings.Contains(stdout, "errors 0; lost writes 0; via ") {
			t.Fatalf("--server %q: exit %d, stdout %q, stderr %q", via, code, stdout, stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		results[via] = string(b)
	}
	if results[""] != results["unix://"+sock] || strings.Count(results[""], "\n") < 2 {
		t.Errorf("results in-process:\n%s\nthrough the server:\n%s", results[""], results["unix://"+sock])
	}
}
