package spec_test

import (
	"fmt"
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

// TestLoadFiles_RefusesLargeFiles: LoadFiles refuses a file's content of
// more than MaxFileSize bytes, as Load refuses such a file, as a problem
// of that file: a client of a server (defs.import) sent one that the
// server read, where cortexctl defs import of the same file exits 7.
func TestLoadFiles_RefusesLargeFiles(t *testing.T) {
	big := `{"name": "a", "description": "` + strings.Repeat("x", spec.MaxFileSize) + `"}`
	set, rep := spec.LoadFiles([]spec.File{{Path: "big.json", Data: big}, {Path: "b.json", Data: `{"name": "b"}`}}, spec.Options{})
	want := fmt.Sprintf("file of %d bytes is larger than %d", len(big), spec.MaxFileSize)
	if rep.Errors() != 1 || rep.Problems[0].File != "big.json" || rep.Problems[0].Message != want || len(set.Defs) != 1 {
		t.Fatalf("%d definitions, problems %v; want b and one error: %s", len(set.Defs), rep.Problems, want)
	}
	at := `{"name": "a", "description": "` + strings.Repeat("x", spec.MaxFileSize-32) + `"}`
	if set, rep := spec.LoadFiles([]spec.File{{Path: "at.json", Data: at}}, spec.Options{}); rep.Err() != nil || len(set.Defs) != 1 {
		t.Fatalf("a file of %d bytes: %v", len(at), rep.Err())
	}
}
