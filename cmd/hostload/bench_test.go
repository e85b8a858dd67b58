package main

import (
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
)

// small is a setting whose merges keep facts and leave conflicts under both
// strategies, with a failed member in team0, in well under a second.
var small = params{Teams: 3, Agents: 3, Subjects: 4, Findings: 30, Seed: 1, IntervalMS: 5}

// sqliteResults is the results file of `sqlbench.py --engine sqlite` at the
// setting small (testdata/README.md says how it was made).
const sqliteResults = "testdata/sqlite-t3-a3-s4-f30.tsv"

// TestBenchmark_SameResultsAsSQL runs the workload on a durable store and
// compares its merged results (read back with Manager.Facts and
// Conflicts) with SQLite's on the same findings: the results file that
// sqlbench.py wrote, and, when python3 is here, a fresh SQLite run.
func TestBenchmark_SameResultsAsSQL(t *testing.T) {
	ctx := context.Background()
	s := cortextest.NewStore(t, cortex.DefaultOptions())
	c := config{params: small, opCount: opCountSPARQL}
	work, _ := genWorkload(c.params)
	h, err := embeddedHost(ctx, s, c)
	if err != nil {
		t.Fatal(err)
	}
	sum, lines, err := benchmark(ctx, h, c, work)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Errors) > 0 {
		t.Fatalf("errors: %q", sum.Errors)
	}
	got := strings.Join(lines, "\n") + "\n"

	want, err := os.ReadFile(sqliteResults)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("results differ from %s:\n%s", sqliteResults, lineDiff(string(want), got))
	}

	// The setting exercises what it should: both strategies keep facts and
	// leave conflicts, every team merged once, team0's last member failed.
	kinds := map[string]int{}
	for _, l := range lines {
		f := strings.Split(l, "\t")
		team, err := strconv.Atoi(strings.TrimPrefix(f[0], "team"))
		if err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		kinds[f[1]+" "+strategy(team)]++
	}
	for _, k := range []string{"F majority-wins", "C majority-wins", "F conflict-flag", "C conflict-flag"} {
		if kinds[k] == 0 {
			t.Errorf("no %q line: the setting does not exercise it (%v)", k, kinds)
		}
	}
	if len(sum.Merges) != small.Teams || sum.MergeMS.N != small.Teams || sum.AddMS.N != small.Teams*small.Agents*small.Findings ||
		sum.StatusMS.N != 2*small.Teams*small.Agents {
		t.Errorf("%d merges, stats n: merge %d, add %d, status %d", len(sum.Merges), sum.MergeMS.N, sum.AddMS.N, sum.StatusMS.N)
	}
	for _, ct := range sum.Teams {
		if ct.Status != "completed" {
			t.Errorf("%s is %s", ct.Team, ct.Status)
		}
	}

	// The operator's SPARQL count agrees with Manager.Findings.
	b := &bench{c: c, h: h}
	for team := range small.Teams {
		bySPARQL, err := b.countFindings(ctx, teamID(team))
		if err != nil {
			t.Fatal(err)
		}
		b.c.opCount = opCountFindings
		byFindings, err := b.countFindings(ctx, teamID(team))
		b.c.opCount = opCountSPARQL
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(bySPARQL, byFindings) || len(byFindings) != small.Agents {
			t.Errorf("%s: SPARQL counts %v, Manager.Findings %v", teamID(team), bySPARQL, byFindings)
		}
	}

	t.Run("fresh SQLite run", func(t *testing.T) {
		py, script := sqlbench(t)
		dir := t.TempDir()
		out := filepath.Join(dir, "results-sqlite.tsv")
		args := append([]string{script, "--engine", "sqlite", "--dir", filepath.Join(dir, "db"), "--out", out,
			"--json", filepath.Join(dir, "summary-sqlite.json")}, paramArgs(small)...)
		if b, err := exec.Command(py, args...).CombinedOutput(); err != nil {
			t.Fatalf("sqlbench.py: %v\n%s", err, b)
		}
		sql, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(sql) {
			t.Errorf("results differ from SQLite's:\n%s", lineDiff(string(sql), got))
		}
	})
}

// lineDiff lists the lines of want missing from got (-) and those of got
// not in want (+).
func lineDiff(want, got string) string {
	w, g := map[string]bool{}, map[string]bool{}
	for _, l := range strings.Split(want, "\n") {
		w[l] = true
	}
	for _, l := range strings.Split(got, "\n") {
		g[l] = true
	}
	var b strings.Builder
	for _, l := range strings.Split(want, "\n") {
		if !g[l] {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if !w[l] {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}
