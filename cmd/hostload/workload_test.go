package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Digests printed by `python3 sqlbench.py --digest [flags]` (shared/bench/hostload).
var digestCases = []struct {
	name string
	p    params
	want string
}{
	{"defaults", params{Teams: 16, Agents: 4, Subjects: 100, Findings: 250, Seed: 1, IntervalMS: 100},
		"0db2a8c6485a9152db88cb79696c4e45dbdb0bf0488797c867a15a7d819442f2"},
	{"small", params{Teams: 3, Agents: 2, Subjects: 100, Findings: 20, Seed: 1, IntervalMS: 100},
		"87232212337a14cb7b849fe7d3eb3875577d86829ab405d86f16cb56cd068662"},
	{"negative seed, 7 subjects", params{Teams: 3, Agents: 2, Subjects: 7, Findings: 20, Seed: -5, IntervalMS: 100},
		"5155a070997bce8b19c4e362e9c964c17a43cf74aa47091a4e9223c3213af5b7"},
}

func TestGenWorkload_Digest(t *testing.T) {
	for _, tc := range digestCases {
		t.Run(tc.name, func(t *testing.T) {
			work, got := genWorkload(tc.p)
			if got != tc.want {
				t.Errorf("digest %s, want %s (sqlbench.py --digest)", got, tc.want)
			}
			n := 0
			for _, team := range work {
				for _, fs := range team {
					n += len(fs)
				}
			}
			if want := tc.p.Teams * tc.p.Agents * tc.p.Findings; n != want {
				t.Errorf("%d findings, want %d", n, want)
			}
		})
	}
}

// TestGenWorkload_DigestOfSQLBench runs the SQL side's generator, when
// python3 and sqlbench.py are on this machine, and compares its digests.
func TestGenWorkload_DigestOfSQLBench(t *testing.T) {
	py, script := sqlbench(t)
	for _, tc := range digestCases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := exec.Command(py, append([]string{script, "--digest"}, paramArgs(tc.p)...)...).Output()
			if err != nil {
				t.Fatalf("sqlbench.py --digest: %v", err)
			}
			_, got := genWorkload(tc.p)
			if want := strings.TrimSpace(string(out)); got != want {
				t.Errorf("digest %s, sqlbench.py says %s", got, want)
			}
		})
	}
}

// paramArgs returns the flags of p, as both commands take them.
func paramArgs(p params) []string {
	return []string{
		"--teams", strconv.Itoa(p.Teams), "--agents", strconv.Itoa(p.Agents), "--subjects", strconv.Itoa(p.Subjects),
		"--findings", strconv.Itoa(p.Findings), "--seed", strconv.FormatInt(p.Seed, 10),
		"--interval-ms", strconv.Itoa(p.IntervalMS),
	}
}

// sqlbench returns python3 and the path of ../shared/bench/hostload/sqlbench.py
// (beside the repository root), or skips the test when either is missing.
func sqlbench(t *testing.T) (python, script string) {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := wd
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		if filepath.Dir(dir) == dir {
			t.Skip("repository root (go.mod) not found: the comparison with sqlbench.py is skipped")
		}
		dir = filepath.Dir(dir)
	}
	script = filepath.Join(dir, "..", "shared", "bench", "hostload", "sqlbench.py")
	if _, err := os.Stat(script); err != nil {
		t.Skipf("%s not found: the comparison with the SQL side is skipped", script)
	}
	python, err = exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found: the comparison with sqlbench.py is skipped")
	}
	return python, script
}
