package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestRun_Digest(t *testing.T) {
	for _, tc := range digestCases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, append([]string{"--digest"}, paramArgs(tc.p)...)...)
			if code != exitOK || out != tc.want+"\n" {
				t.Errorf("exit %d, stdout %q, stderr %q; want %s", code, out, errOut, tc.want)
			}
		})
	}
}

// TestRun_Files runs the command on a store in a given directory and
// checks the files it writes: the results, and a summary in the shape
// summary.py reads (and, when python3 is here, summary.py itself beside a
// SQLite run: same workload, same results).
func TestRun_Files(t *testing.T) {
	dir := t.TempDir()
	data, out, js := filepath.Join(dir, "store"), filepath.Join(dir, "results-cortex.tsv"), filepath.Join(dir, "summary-cortex.json")
	p := params{Teams: 2, Agents: 2, Subjects: 3, Findings: 5, Seed: 1, IntervalMS: 100}
	args := append([]string{"--data", data, "--out", out, "--json", js, "--op-count", "findings"}, paramArgs(p)...)
	code, stdout, stderr := runCLI(t, args...)
	if code != exitOK || !strings.HasPrefix(stdout, "cortex: 20 findings in ") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if ents, err := os.ReadDir(data); err != nil || len(ents) == 0 {
		t.Errorf("store directory %s not kept: %v", data, err)
	}
	results, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		System         string             `json:"system"`
		Params         map[string]int     `json:"params"`
		WorkloadDigest string             `json:"workload_digest"`
		ResultsDigest  string             `json:"results_digest"`
		ResultsFile    string             `json:"results_file"`
		Findings       int                `json:"findings"`
		FindingsPerS   float64            `json:"findings_per_s"`
		AddMS          map[string]float64 `json:"add_ms"`
		StatusMS       map[string]float64 `json:"status_ms"`
		MergeMS        map[string]float64 `json:"merge_ms"`
		OpCountMS      map[string]float64 `json:"op_count_ms"`
		OpCountMethod  string             `json:"op_count_method"`
		RSSPeakMB      float64            `json:"rss_peak_mb"`
		Writes         map[string]float64 `json:"writes"`
		Workdir        string             `json:"workdir"`
		Teams          []map[string]any   `json:"teams"`
		Errors         []string           `json:"errors"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(results)
	_, digest := genWorkload(p)
	switch {
	case s.System != "cortex" || s.Params["Teams"] != 2 || s.Params["Findings"] != 5 || s.Params["IntervalMS"] != 100:
		t.Errorf("system %q, params %v", s.System, s.Params)
	case s.WorkloadDigest != digest || s.ResultsDigest != hex.EncodeToString(sum[:]) || s.ResultsFile != out:
		t.Errorf("workload digest %s (want %s), results digest %s of %s (file %s)", s.WorkloadDigest, digest,
			s.ResultsDigest, s.ResultsFile, hex.EncodeToString(sum[:]))
	case s.Findings != 20 || s.FindingsPerS <= 0 || s.AddMS["n"] != 20 || s.StatusMS["n"] != 8 || s.MergeMS["n"] != 2:
		t.Errorf("findings %d (%v/s), add %v, status %v, merge %v", s.Findings, s.FindingsPerS, s.AddMS, s.StatusMS, s.MergeMS)
	case s.OpCountMethod != "findings" || s.Workdir != data || len(s.Teams) != 2 || s.Errors == nil || len(s.Errors) > 0:
		t.Errorf("op_count_method %q, workdir %q, teams %v, errors %v", s.OpCountMethod, s.Workdir, s.Teams, s.Errors)
	case s.RSSPeakMB <= 0 && s.RSSPeakMB != -1:
		t.Errorf("rss_peak_mb %v", s.RSSPeakMB)
	// Every write was in a delta of 5 keys a quad: the 2 teams' creations
	// and their 2 merges one each; the 20 findings and 8 status updates
	// share deltas when they come together (findings batches), so they
	// were fewer than 28 deltas in a run where two coincided (19 in all).
	case s.Writes["deltas"] < 4 || s.Writes["quads"] < 20*8 || s.Writes["entries"] < 5*s.Writes["quads"] ||
		s.Writes["entries_per_finding"] != s.Writes["entries"]/20 || s.Writes["lock_held_s"] <= 0:
		t.Errorf("writes %v", s.Writes)
	}

	t.Run("summary.py", func(t *testing.T) {
		py, script := sqlbench(t)
		cmd := exec.Command(py, append([]string{script, "--engine", "sqlite", "--dir", filepath.Join(dir, "sqlite"),
			"--out", "results-sqlite.tsv", "--json", "summary-sqlite.json"}, paramArgs(p)...)...)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("sqlbench.py: %v\n%s", err, b)
		}
		cmd = exec.Command(py, filepath.Join(filepath.Dir(script), "summary.py"), dir)
		b, _ := cmd.CombinedOutput() // exit 1: there is no PostgreSQL run
		var problems []string
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "PROBLEM:") && l != "PROBLEM: no summary from postgres" {
				problems = append(problems, l)
			}
		}
		if len(problems) > 0 || !strings.Contains(string(b), "cortex operator count: Manager.Findings, counted in Go") {
			t.Errorf("summary.py:\n%s", b)
		}
	})
}

func TestRun_BadFlags(t *testing.T) {
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(full, "x")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--teams", "0"}, "--teams 0: want at least 1"},
		{[]string{"--agents", "0"}, "--agents 0: want 1..1000"},
		{[]string{"--agents", "1001"}, "--agents 1001: want 1..1000"},
		{[]string{"--subjects", "0"}, "--subjects 0: want at least 1"},
		{[]string{"--findings", "-1"}, "--findings -1: want at least 0"},
		{[]string{"--interval-ms", "0"}, "--interval-ms 0: want at least 1"},
		{[]string{"--op-count", "sql"}, `--op-count "sql": want sparql or findings`},
		{[]string{"--out", ""}, "--out and --json must name files"},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"--nope"}, "flag provided but not defined: -nope"},
		{[]string{"--teams", "x"}, `invalid value "x" for flag -teams`},
		{[]string{"--data", full}, "--data " + full + ": not empty (the benchmark needs a new store)"},
		{[]string{"--data", file}, "--data " + file + ": "},
		{[]string{"--server", "http://10.1.2.3:7474"}, `--server "http://10.1.2.3:7474": not a loopback address`},
		{[]string{"--server", "ftp://127.0.0.1"}, `--server "ftp://127.0.0.1": want unix, tcp, unix:///path/to/socket or http://127.0.0.1:PORT`},
		{[]string{"--server", "udp"}, `--server "udp": want unix, tcp`},
		{[]string{"--server", "http://127.0.0.1:7474", "--data", full}, "--data and --server http://127.0.0.1:7474: the store is the server's"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			dir := t.TempDir()
			out, js := filepath.Join(dir, "r.tsv"), filepath.Join(dir, "s.json")
			args := append([]string{"--out", out, "--json", js, "--findings", "1", "--teams", "1", "--agents", "1"}, tc.args...)
			code, stdout, stderr := runCLI(t, args...)
			if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, stdout, stderr, exitUsage, tc.want)
			}
			for _, f := range []string{out, js} {
				if _, err := os.Stat(f); err == nil {
					t.Errorf("%s written", f)
				}
			}
		})
	}
	if ents, err := os.ReadDir(full); err != nil || len(ents) != 1 {
		t.Errorf("%s changed: %v %v", full, ents, err)
	}
}

func TestRun_Help(t *testing.T) {
	code, stdout, stderr := runCLI(t, "--help")
	if code != exitOK || stdout != "" || !strings.Contains(stderr, "-interval-ms") || !strings.Contains(stderr, "-op-count") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
