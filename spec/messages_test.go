package spec_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/spec"
)

// TestLoad_ProblemMessagesBounded: a problem's message quotes at most a
// bounded part of each name and lists a bounded number of names, however
// long the names and however many problems name the same one. A message
// quoted its team's, agent's or step's name whole for each agent, delegate,
// dependency or input it was about, and a cycle's message named every step
// on the cycle: a 115 KB team (a 100 KB name, 2,000 undefined agents) gave
// 190 MB of messages, a 320 KB workflow of 5,000 steps on cycles 118 MB, and
// both grow with the square of the file.
func TestLoad_ProblemMessagesBounded(t *testing.T) {
	long := strings.Repeat("n", 10_000)
	list := func(n int, f func(i int) string) string {
		var out []string
		for i := range n {
			out = append(out, f(i))
		}
		return strings.Join(out, ",")
	}
	const n = 1000
	for _, tc := range []struct {
		name  string
		files []spec.File
		probs int // errors; a team's agent "a" is defined nowhere
	}{
		{"team name, undefined agents", []spec.File{{Path: "t.json", Data: `{"name": "` + long + `", "version": "1", "agents": [` + list(n, func(i int) string { return fmt.Sprintf(`"a%d"`, i) }) + `]}`}}, n},
		{"agent name, undefined delegates", []spec.File{{Path: "a.json", Data: `{"name": "` + long + `", "delegation": {"can_delegate_to": [` + list(n, func(i int) string { return fmt.Sprintf(`"a%d"`, i) }) + `], "can_receive_from": [` + list(n, func(i int) string { return fmt.Sprintf(`"b%d"`, i) }) + `]}}`}}, 2 * n},
		{"step name, unknown dependencies", []spec.File{{Path: "t.json", Data: `{"name": "t", "version": "1", "agents": ["a"], "workflow": {"steps": [{"name": "` + long + `", "agent": "a", "depends_on": [` + list(n, func(i int) string { return fmt.Sprintf(`"s%d"`, i) }) + `]}]}}`}}, n + 1},
		{"step name, inputs not upstream", []spec.File{{Path: "t.json", Data: `{"name": "t", "version": "1", "agents": ["a"], "workflow": {"steps": [{"name": "p", "agent": "a", "outputs": [{"name": "o"}]}, {"name": "` + long + `", "agent": "a", "inputs": [` + list(n, func(i int) string { return fmt.Sprintf(`{"name": "i%d", "from": "p.o"}`, i) }) + `]}]}}`}}, n + 1},
		{"cycles through many steps", []spec.File{{Path: "t.json", Data: `{"name": "t", "version": "1", "agents": ["a"], "workflow": {"steps": [` +
			list(n-1, func(i int) string { return fmt.Sprintf(`{"name": "s%d", "agent": "a", "depends_on": ["s%d"]}`, i, i+1) }) +
			fmt.Sprintf(`, {"name": "s%d", "agent": "a", "depends_on": [%s]}`, n-1, list(n-1, func(i int) string { return fmt.Sprintf(`"s%d"`, i) })) + `]}}`}}, n},
		{"a chain's steps depending on later ones", []spec.File{{Path: "t.json", Data: `{"name": "t", "version": "1", "agents": ["a"], "workflow": {"type": "chain", "steps": [` +
			list(n, func(i int) string {
				return fmt.Sprintf(`{"name": "%s%d", "agent": "a", "depends_on": ["%s%d"]}`, long[:1000], i, long[:1000], n-1)
			}) + `]}}`}}, n + 1}, // the last depends on itself
		{"ambiguous among many namespaces", append(manyAgents(n), spec.File{Path: "t.json", Data: `{"name": "t", "version": "1", "agents": ["x"]}`}), 1},
		{"defined twice, a long file name", []spec.File{{Path: long + ".json", Data: `{"name": "a"}`}, {Path: "b.json", Data: `{"name": "a"}`}, {Path: "c.json", Data: `{"name": "a"}`}}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, rep := spec.LoadFiles(tc.files, spec.Options{})
			longest := 0
			for _, p := range rep.Problems {
				longest = max(longest, len(p.Message))
			}
			if rep.Errors() != tc.probs || errorLines(rep) != listed(tc.probs) || longest > 2000 {
				t.Fatalf("%d errors in %d lines, the longest message %d bytes; want %d errors in %d, messages of at most 2000 bytes",
					rep.Errors(), errorLines(rep), longest, tc.probs, listed(tc.probs))
			}
		})
	}
}

// listed is the number of problems a report lists for a file of n
// problems: at most MaxProblems, and one more that counts the rest.
func listed(n int) int {
	if n > spec.MaxProblems {
		return spec.MaxProblems + 1
	}
	return n
}

// errorLines is the number of problems of rep that are errors (one that
// counts errors left out counts one).
func errorLines(rep spec.Report) int {
	n := 0
	for _, p := range rep.Problems {
		if p.Severity == spec.SeverityError {
			n++
		}
	}
	return n
}

// manyAgents returns n agent files, each an agent x in its own namespace.
func manyAgents(n int) []spec.File {
	var files []spec.File
	for i := range n {
		files = append(files, spec.File{Path: fmt.Sprintf("ns%d/x.json", i), Data: fmt.Sprintf(`{"name": "x", "namespace": "ns%d"}`, i)})
	}
	return files
}

// TestParseTeam_CyclesCost: reporting the cycles of a workflow costs in
// proportion to the file, not to the cycles' total length. Steps s0 → s1
// → … → s2999, and s2999 depending on every other step, close 2,999
// cycles of up to 3,000 steps: each was listed whole before its message
// elided it, 231 MB allocated for a 190 KB file (3 GB for 10,000 steps).
func TestParseTeam_CyclesCost(t *testing.T) {
	const n = 3000
	var steps, all []string
	for i := range n - 1 {
		steps = append(steps, fmt.Sprintf(`{"name": "s%d", "agent": "a", "depends_on": ["s%d"]}`, i, i+1))
		all = append(all, fmt.Sprintf(`"s%d"`, i))
	}
	steps = append(steps, fmt.Sprintf(`{"name": "s%d", "agent": "a", "depends_on": [%s]}`, n-1, strings.Join(all, ",")))
	data := []byte(`{"name": "t", "version": "1", "agents": ["a"], "workflow": {"steps": [` + strings.Join(steps, ",") + `]}}`)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, rep := spec.ParseTeam("t.json", data, spec.Options{})
	runtime.ReadMemStats(&after)
	if rep.Errors() != n-1 || errorLines(rep) != listed(n-1) {
		t.Fatalf("%d errors in %d lines, want %d in %d", rep.Errors(), errorLines(rep), n-1, listed(n-1))
	}
	if got, want := rep.Problems[0].Message, "depends_on cycle: s0 → s1 → s2 → s3 → s4 → … → s2998 → s2999 → s0"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("a file of %d bytes: %d bytes allocated", len(data), alloc)
	if alloc > uint64(200*len(data)) { // (85 times measured: the problems and the lines of every path)
		t.Errorf("a file of %d bytes allocated %d bytes, more than 200 times its size", len(data), alloc)
	}
}
