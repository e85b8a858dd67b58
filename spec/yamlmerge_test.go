package spec_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/spec"
)

// TestParseTeam_YAMLMergeKeys: YAML's merge key (<<: *anchor, or a list of
// anchors) brings in the anchored mapping's keys that the mapping does not
// give itself, as YAML 1.1 and yaml.v3 define it. It was an unknown key
// "<<" (an error with --strict) and what it merged was lost.
func TestParseTeam_YAMLMergeKeys(t *testing.T) {
	const doc = `name: t
version: "1"
agents: [a, b, c]
workflow:
  type: graph
  steps:
    - &base {name: s1, agent: a}
    - <<: *base
      name: s2
      depends_on: [s1]
    - <<: [{agent: c}, *base]
      name: s3
      depends_on: [s2]
`
	team, rep := spec.ParseTeam("t.yaml", []byte(doc), spec.Options{Strict: true})
	if rep.Err() != nil || len(rep.Problems) != 0 {
		t.Fatalf("problems: %v", rep.Problems)
	}
	steps := team.Steps()
	if len(steps) != 3 {
		t.Fatalf("steps %+v", steps)
	}
	for i, want := range []struct{ name, agent string }{{"s1", "a"}, {"s2", "a"}, {"s3", "c"}} {
		if steps[i].Name != want.name || steps[i].Agent != want.agent {
			t.Errorf("step %d: %s by %s, want %s by %s", i, steps[i].Name, steps[i].Agent, want.name, want.agent)
		}
	}
	// A merge key whose value is no mapping is an error naming the line.
	_, rep = spec.ParseTeam("t.yaml", []byte("name: t\nversion: \"1\"\nagents: [a]\n<<: 5\n"), spec.Options{})
	if rep.Err() == nil || !strings.Contains(rep.Err().Error(), "t.yaml:4") || !strings.Contains(rep.Err().Error(), "merge") {
		t.Fatalf("<<: 5: %v, want an error at line 4 about the merge key", rep.Err())
	}
}

// TestParseTeam_YAMLMergeKeys_Large: a merge key that brings in a mapping
// of many keys costs time in proportion to them. Each merged key was
// looked up in the list of the keys already there, so a file of 200,000
// merged keys (2 MB, well under MaxFileSize) took minutes, a 16 MiB one
// hours; it takes a fraction of a second.
func TestParseTeam_YAMLMergeKeys_Large(t *testing.T) {
	const n = 200000
	var b strings.Builder
	b.WriteString("name: t\nversion: \"1\"\nagents: [a]\nworkflow:\n  steps:\n    - name: s\n      agent: a\n      outputs:\n        - name: o\n          schema:\n            <<: {")
	for i := range n {
		fmt.Fprintf(&b, "k%d: %d, ", i, i)
	}
	b.WriteString("}\n            k1: own\n")
	team, rep := spec.ParseTeam("t.yaml", []byte(b.String()), spec.Options{Strict: true})
	if rep.Err() != nil {
		t.Fatal(rep.Err())
	}
	schema, _ := team.Steps()[0].Outputs[0].Schema.(map[string]interface{})
	if len(schema) != n || schema["k0"] != 0.0 || schema["k1"] != "own" || schema[fmt.Sprint("k", n-1)] != float64(n-1) {
		t.Fatalf("schema of %d keys: k0 %v, k1 %v", len(schema), schema["k0"], schema["k1"])
	}
}

// TestParseTeam_YAMLMergeKeys_DuplicateKeys: a mapping that a merge key
// brings in is an object of the file too, and names no key twice: its
// duplicate was dropped silently (the first kept), where the same mapping
// anywhere else is an error.
func TestParseTeam_YAMLMergeKeys_DuplicateKeys(t *testing.T) {
	for name, doc := range map[string]string{
		"inline":  "name: t\nversion: \"1\"\nagents: [a, b]\nworkflow:\n  steps:\n    - <<: {agent: a,\n        agent: b}\n      name: s\n",
		"anchor":  "name: t\nversion: \"1\"\nagents: [a, b]\nx: &base {agent: a,\n  agent: b}\nworkflow:\n  steps:\n    - <<: *base\n      name: s\n",
		"in list": "name: t\nversion: \"1\"\nagents: [a, b]\nworkflow:\n  steps:\n    - <<: [{name: s}, {agent: a,\n        agent: b}]\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, rep := spec.ParseTeam("t.yaml", []byte(doc), spec.Options{})
			var dup []spec.Problem
			for _, p := range rep.Problems {
				if p.Severity == spec.SeverityError && strings.Contains(p.Message, `duplicate key "agent"`) {
					dup = append(dup, p)
				}
			}
			if len(dup) == 0 || dup[0].Line == 0 {
				t.Fatalf("problems %v, want an error: duplicate key \"agent\" (with its line)", rep.Problems)
			}
		})
	}
}
