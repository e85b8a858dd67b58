package spec_test

import (
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/spec"
)

// TestLoad_DirectorySkipsDeploymentFiles: a multi-agent-spec directory
// holds deployment files (deployment.schema.json: team and targets) beside
// its agents and teams. In a directory they are skipped with a warning; they
// were read as agents, and their errors made the whole directory fail. Given
// by name, such a file is still an error.
func TestLoad_DirectorySkipsDeploymentFiles(t *testing.T) {
	dir := t.TempDir()
	deploy := `{"$schema": "https://example.org/schema/deployment.schema.json", "team": "t", "targets": [{"name": "local", "platform": "claude-code"}]}`
	writeFiles(t, dir, map[string]string{
		"agents/x.md":            "---\nname: x\n---\nDo things.\n",
		"teams/t.json":           `{"name": "t", "version": "1", "agents": ["x"]}`,
		"deployments/local.json": deploy,
		"deployments/prod.yaml":  "team: t\ntargets:\n  - name: prod\n    platform: kubernetes\n",
	})
	t.Chdir(dir)
	set, rep, err := spec.Load([]string{"."}, spec.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Err() != nil || len(set.Defs) != 2 {
		t.Fatalf("%d definitions, problems %v; want 2 and no error", len(set.Defs), rep.Problems)
	}
	skipped := 0
	for _, p := range rep.Problems {
		if p.Severity == spec.SeverityWarning && strings.Contains(p.Message, "skipped: a deployment") {
			skipped++
		}
	}
	if skipped != 2 {
		t.Fatalf("problems %v; want a warning for each deployment file", rep.Problems)
	}
	if _, rep, err := spec.Load([]string{"deployments/local.json"}, spec.Options{}); err != nil || rep.Err() == nil {
		t.Fatalf("a deployment file given by name: %v, %v; want an error in the report", rep.Problems, err)
	}
}
