package spec_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/spec"
)

// writeAgentDir writes n Markdown agents in 10 namespaces (subdirectories)
// and a graph team of 100 steps over the first 100 of them.
func writeAgentDir(tb testing.TB, dir string, n int) {
	files := map[string]string{}
	var refs []string
	for i := 0; i < n; i++ {
		ns := fmt.Sprintf("ns%d", i%10)
		name := fmt.Sprintf("agent-%d", i)
		files[fmt.Sprintf("agents/%s/%s.md", ns, name)] = fmt.Sprintf(`---
name: %s
description: Generated agent %d
model: sonnet
tools: [Read, Grep, Glob]
role: Reviewer %d
goal: Review what it is given
delegation:
  allow_delegation: true
  can_delegate_to: [%s/agent-%d]
tasks:
  - id: check
    type: command
    command: go vet ./...
    expected_output: nothing
---

# Instructions for %s

Review the change and report findings.
`, name, i, i, fmt.Sprintf("ns%d", (i+1)%n%10), (i+1)%n, name)
		if i < 100 {
			refs = append(refs, ns+"/"+name)
		}
	}
	var steps []string
	for i, r := range refs {
		dep := ""
		if i > 0 {
			dep = fmt.Sprintf(`, "depends_on": ["s%d"], "inputs": [{"name": "in", "from": "s%d.out"}]`, i-1, i-1)
		}
		steps = append(steps, fmt.Sprintf(`{"name": "s%d", "agent": %q, "outputs": [{"name": "out"}]%s}`, i, r, dep))
	}
	files["teams/big.json"] = fmt.Sprintf(`{"name": "big", "version": "1.0.0", "agents": ["%s"], "workflow": {"type": "graph", "steps": [%s]}}`,
		strings.Join(refs, `", "`), strings.Join(steps, ",\n"))
	writeFiles(tb, dir, files)
}

// BenchmarkValidateDir1000 loads and validates a directory of 1,000
// agents and one team (target: well under 1 s per op).
func BenchmarkValidateDir1000(b *testing.B) {
	dir := b.TempDir()
	writeAgentDir(b, dir, 1000)
	b.ReportAllocs()
	for b.Loop() {
		set, rep, err := spec.Load([]string{filepath.Join(dir)}, spec.Options{Strict: true})
		if err != nil || rep.Errors() > 0 || len(set.Agents()) != 1000 {
			b.Fatalf("err %v, %d agents, problems %v", err, len(set.Agents()), rep.Problems[:min(3, len(rep.Problems))])
		}
	}
}
