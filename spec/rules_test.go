package spec_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/spec"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name (rewritten with -update).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./spec -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run go test ./spec -update and review the diff); got:\n%s", path, got)
	}
}

// writeFiles writes files (relative path → content) under dir.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// agentsABC defines the agents a, b and c that most rule cases' teams use.
var agentsABC = map[string]string{
	"agents/a.md": "---\nname: a\n---\n",
	"agents/b.md": "---\nname: b\n---\n",
	"agents/c.md": "---\nname: c\n---\n",
}

// team returns a valid team file with body spliced in after the agents.
func team(body string) string {
	s := `{"name": "t", "version": "1.0.0", "agents": ["a", "b", "c"]`
	if body != "" {
		s += ", " + body
	}
	return s + "}\n"
}

type ruleCase struct {
	name   string
	files  map[string]string // besides agentsABC
	strict bool
	// want is a substring of the String() of a problem of severity sev
	// that the case must produce.
	want string
	sev  spec.Severity
}

var ruleCases = []ruleCase{
	// wrong types
	{name: "type/team-name-number", files: map[string]string{"t.json": `{"name": 5, "version": "1", "agents": []}`}, want: `t.json:1: error: /name: must be a string, not number 5`},
	{name: "type/agents-not-array", files: map[string]string{"t.json": `{"name": "t", "version": "1", "agents": "a"}`}, want: `/agents: must be an array of strings, not string "a"`},
	{name: "type/agents-element", files: map[string]string{"t.json": `{"name": "t", "version": "1", "agents": ["a", 2]}`}, want: `/agents/1: must be a string, not number 2`},
	{name: "type/self-claim", files: map[string]string{"t.json": team(`"self_claim": "yes"`)}, want: `/self_claim: must be a boolean, not string "yes"`},
	{name: "type/workflow-not-object", files: map[string]string{"t.json": team(`"workflow": []`)}, want: `/workflow: workflow must be an object, not an array`},
	{name: "type/steps-element", files: map[string]string{"t.json": team(`"workflow": {"steps": [1]}`)}, want: `/workflow/steps/0: step must be an object, not number 1`},
	{name: "type/yaml-line", files: map[string]string{"t.yaml": "name: t\nversion: \"1\"\nagents: [a]\nplan_approval:\n  - x\n"}, want: `t.yaml:5: error: /plan_approval: must be a boolean, not an array`},
	{name: "type/yaml-version-number", files: map[string]string{"t.yaml": "name: t\nversion: 1.0\nagents: [a]\n"}, want: `t.yaml:2: error: /version: must be a string, not number 1.0 (quote it: "1.0")`},
	{name: "type/agent-tools", files: map[string]string{"x.md": "---\nname: x\ntools: Read\n---\n"}, want: `x.md:3: error: /tools: must be an array of strings, not string "Read"`},
	{name: "type/max-rounds-fraction", files: map[string]string{"t.json": team(`"workflow": {"type": "council"}, "collaboration": {"consensus": {"max_rounds": 2.5}}`)}, want: `/collaboration/consensus/max_rounds: must be an integer, not number 2.5`},

	// enums
	{name: "enum/workflow-type", files: map[string]string{"t.json": team(`"workflow": {"type": "pipeline"}`)}, want: `/workflow/type: "pipeline" is not one of chain, scatter, graph, crew, swarm, council`},
	{name: "enum/port-type", files: map[string]string{"t.json": team(`"workflow": {"steps": [{"name": "s", "agent": "a", "outputs": [{"name": "o", "type": "int"}]}]}`)}, want: `/workflow/steps/0/outputs/0/type: "int" is not one of string, number, boolean, object, array, file`},
	{name: "enum/channel-type", files: map[string]string{"t.json": team(`"collaboration": {"channels": [{"name": "c", "type": "multicast"}]}`)}, want: `/collaboration/channels/0/type: "multicast" is not one of direct, broadcast, pub-sub`},
	{name: "enum/model", files: map[string]string{"x.md": "---\nname: x\nmodel: gpt\n---\n"}, want: `x.md:3: error: /model: "gpt" is not one of haiku, sonnet, opus`},
	{name: "enum/task-type", files: map[string]string{"x.json": `{"name": "x", "tasks": [{"id": "t", "type": "script"}]}`}, want: `/tasks/0/type: "script" is not one of command, pattern, file, manual`},

	// required fields
	{name: "required/team", files: map[string]string{"t.json": `{"name": "t", "agents": []}`}, want: `t.json:1: error: team is missing required field "version"`},
	{name: "required/team-agents", files: map[string]string{"t.json": `{"name": "t", "version": "1"}`}, want: `team is missing required field "agents"`},
	{name: "required/agent-name", files: map[string]string{"x.md": "---\ndescription: nameless\n---\n"}, want: `x.md:2: error: agent is missing required field "name"`},
	{name: "required/empty-name", files: map[string]string{"x.md": "---\nname: \"\"\n---\n"}, want: `x.md:2: error: /name: must not be empty`},
	{name: "required/step-agent", files: map[string]string{"t.json": team(`"workflow": {"steps": [{"name": "s"}]}`)}, want: `/workflow/steps/0: step is missing required field "agent"`},
	{name: "required/step-name", files: map[string]string{"t.json": team(`"workflow": {"steps": [{"agent": "a"}]}`)}, want: `/workflow/steps/0: step is missing required field "name"`},
	{name: "required/port-name", files: map[string]string{"t.json": team(`"workflow": {"steps": [{"name": "s", "agent": "a", "outputs": [{"type": "string"}]}]}`)}, want: `/workflow/steps/0/outputs/0: port is missing required field "name"`},
	{name: "required/channel-type", files: map[string]string{"t.json": team(`"collaboration": {"channels": [{"name": "c"}]}`)}, want: `/collaboration/channels/0: channel is missing required field "type"`},
	{name: "required/task-id", files: map[string]string{"x.json": `{"name": "x", "tasks": [{"description": "d"}]}`}, want: `/tasks/0: task is missing required field "id"`},

	// duplicates
	{name: "duplicate/team-agents", files: map[string]string{"t.json": `{"name": "t", "version": "1", "agents": ["a", "b", "a"]}`}, want: `/agents/2: duplicate agent "a" (also at /agents/0)`},
	{name: "duplicate/steps", files: map[string]string{"t.json": team(`"workflow": {"steps": [{"name": "s", "agent": "a"}, {"name": "s", "agent": "b"}]}`)}, want: `/workflow/steps/1/name: duplicate step "s" (also at /workflow/steps/0)`},
	{name: "duplicate/ports", files: map[string]string{"t.json": team(`"workflow": {"steps": [{"name": "s", "agent": "a", "outputs": [{"name": "o"}, {"name": "o"}]}]}`)}, want: `/workflow/steps/0/outputs/1/name: duplicate port "o" (also at /workflow/steps/0/outputs/0)`},
	{name: "duplicate/channels", files: map[string]string{"t.json": team(`"collaboration": {"channels": [{"name": "c", "type": "direct"}, {"name": "c", "type": "broadcast"}]}`)}, want: `/collaboration/channels/1/name: duplicate channel "c" (also at /collaboration/channels/0)`},
	{name: "duplicate/tasks", files: map[string]string{"x.json": `{"name": "x", "tasks": [{"id": "t"}, {"id": "t"}]}`}, want: `/tasks/1/id: duplicate task "t" (also at /tasks/0)`},
	{name: "duplicate/json-key", files: map[string]string{"t.json": "{\"name\": \"t\",\n \"name\": \"u\", \"version\": \"1\", \"agents\": []}"}, want: `t.json:2: error: /name: duplicate key "name"`},
	{name: "duplicate/yaml-key", files: map[string]string{"x.md": "---\nname: x\nname: y\n---\n"}, want: `x.md:3: error: /name: duplicate key "name"`},
	{name: "duplicate/agent-files", files: map[string]string{"more/a.json": `{"name": "a"}`}, want: `more/a.json:1: error: /name: agent "a" is also defined in agents/a.md`},
	{name: "duplicate/team-files", files: map[string]string{"t.json": team(""), "u.json": team("")}, want: `u.json:1: error: /name: team "t" is also defined in t.json`},

	// references
	{name: "ref/step-agent", files: map[string]string{"t.json": team(`"workflow": {"steps": [{"name": "s", "agent": "z"}]}`)}, want: `/workflow/steps/0/agent: step "s": agent "z" is not one of the team's agents`},
	{name: "ref/depends-on-unknown", files: map[string]string{"t.json": team(`"workflow": {"steps": [{"name": "s", "agent": "a", "depends_on": ["nope"]}]}`)}, want: `/workflow/steps/0/depends_on/0: step "s" depends on unknown step "nope"`},
	{name: "ref/depends-on-self", files: map[string]string{"t.json": team(`"workflow": {"steps": [{"name": "s", "agent": "a", "depends_on": ["s"]}]}`)}, want: `step "s" depends on itself`},
	{name: "ref/cycle", files: map[string]string{"t.json": team(`"workflow": {"steps": [
		{"name": "x", "agent": "a", "depends_on": ["z"]},
		{"name": "y", "agent": "a", "depends_on": ["x"]},
		{"name": "z", "agent": "a", "depends_on": ["y"]}]}`)}, want: `/workflow/steps/1/depends_on/0: depends_on cycle: x → z → y → x`},
	{name: "ref/chain-cycle", files: map[string]string{"t.json": team(`"workflow": {"type": "chain", "steps": [
		{"name": "x", "agent": "a", "depends_on": ["z"]},
		{"name": "y", "agent": "a"},
		{"name": "z", "agent": "a"}]}`)}, want: `/workflow/steps/0/depends_on/0: step "x" depends on "z", which comes after it in the chain: depends_on cycle: x → z → y → x`},
	{name: "limit/steps", files: map[string]string{"t.json": team(`"workflow": {"steps": [` + strings.TrimSuffix(strings.Repeat(`{"name": "s", "agent": "a"},`, spec.MaxSteps+1), ",") + `]}`)},
		want: `/workflow/steps: a workflow has at most 10000 steps, not 10001`},
	{name: "ref/from-unknown-step", files: map[string]string{"t.json": team(`"workflow": {"steps": [{"name": "s", "agent": "a", "inputs": [{"name": "i", "from": "nope.o"}]}]}`)}, want: `/workflow/steps/0/inputs/0/from: from "nope.o" names unknown step "nope"`},
	{name: "ref/from-unknown-output", files: map[string]string{"t.json": team(`"workflow": {"steps": [{"name": "p", "agent": "a", "outputs": [{"name": "o"}]}, {"name": "s", "agent": "b", "depends_on": ["p"], "inputs": [{"name": "i", "from": "p.x"}]}]}`)}, want: `from "p.x" names unknown output "x" of step "p"`},
	{name: "ref/from-shape", files: map[string]string{"t.json": team(`"workflow": {"steps": [{"name": "s", "agent": "a", "inputs": [{"name": "i", "from": "nodot"}]}]}`)}, want: `from "nodot" must be "step.output"`},
	{name: "ref/from-not-upstream", files: map[string]string{"t.json": team(`"workflow": {"steps": [{"name": "p", "agent": "a", "outputs": [{"name": "o"}]}, {"name": "s", "agent": "b", "inputs": [{"name": "i", "from": "p.o"}]}]}`)}, want: `from "p.o" names step "p", which is not upstream of "s" (add it to depends_on)`},
	{name: "ref/team-agent-undefined", files: map[string]string{"t.json": `{"name": "t", "version": "1", "agents": ["a", "ghost"]}`}, want: `t.json:1: error: /agents/1: team "t" uses agent "ghost", which is defined nowhere`},
	{name: "ref/team-agent-ambiguous", files: map[string]string{"agents/x/d.md": "---\nname: d\n---\n", "agents/y/d.md": "---\nname: d\n---\n", "t.json": `{"name": "t", "version": "1", "agents": ["d"]}`}, want: `team "t" uses agent "d", which is ambiguous: x/d, y/d (qualify it)`},
	{name: "ref/delegate-to-unknown", files: map[string]string{"x.md": "---\nname: x\ndelegation:\n  allow_delegation: true\n  can_delegate_to: [a, ghost]\n---\n"}, want: `x.md:5: error: /delegation/can_delegate_to/1: agent "x" delegates to "ghost", which is defined nowhere`},
	{name: "ref/receive-from-unknown", files: map[string]string{"x.md": "---\nname: x\ndelegation:\n  can_receive_from:\n    - lead\n    - ghost\n---\n"}, want: `/delegation/can_receive_from/1: agent "x" receives from "ghost", which is defined nowhere`},

	{name: "lines/json-nested", files: map[string]string{"t.json": "{\n  \"name\": \"t\",\n  \"version\": \"1\",\n  \"agents\": [\"a\"],\n  \"workflow\": {\n    \"steps\": [\n      {\"name\": \"s\",\n       \"agent\": \"z\"}\n    ]\n  }\n}\n"}, want: `t.json:8: error: /workflow/steps/0/agent: step "s": agent "z" is not one of the team's agents`},

	// consensus values
	{name: "consensus/agreement-high", files: map[string]string{"t.json": team(`"workflow": {"type": "council"}, "collaboration": {"consensus": {"required_agreement": 1.5}}`)}, want: `/collaboration/consensus/required_agreement: required_agreement 1.5 is outside 0..1`},
	{name: "consensus/agreement-negative", files: map[string]string{"t.json": team(`"workflow": {"type": "council"}, "collaboration": {"consensus": {"required_agreement": -0.1}}`)}, want: `required_agreement -0.1 is outside 0..1`},
	{name: "consensus/max-rounds-zero", files: map[string]string{"t.json": team(`"workflow": {"type": "council"}, "collaboration": {"consensus": {"max_rounds": 0}}`)}, want: `/collaboration/consensus/max_rounds: max_rounds 0 is less than 1`},
	{name: "consensus/max-rounds-over-bound", files: map[string]string{"t.json": team(`"workflow": {"type": "council"}, "collaboration": {"consensus": {"max_rounds": 1001}}`)}, want: `/collaboration/consensus/max_rounds: max_rounds 1001 is more than 1000`},

	// roles that must be team agents
	{name: "member/tie-breaker", files: map[string]string{"t.json": team(`"workflow": {"type": "council"}, "collaboration": {"consensus": {"tie_breaker": "z"}}`)}, want: `/collaboration/consensus/tie_breaker: tie_breaker "z" is not one of the team's agents`},
	{name: "member/tie-breaker-lead-without-lead", files: map[string]string{"t.json": team(`"workflow": {"type": "council"}, "collaboration": {"consensus": {"tie_breaker": "lead"}}`)}, want: `tie_breaker "lead" needs a lead (collaboration.lead or orchestrator)`},
	{name: "member/lead", files: map[string]string{"t.json": team(`"workflow": {"type": "crew"}, "collaboration": {"lead": "z"}`)}, want: `/collaboration/lead: lead "z" is not one of the team's agents`},
	{name: "member/specialists", files: map[string]string{"t.json": team(`"collaboration": {"lead": "a", "specialists": ["b", "z"]}`)}, want: `/collaboration/specialists/1: specialist "z" is not one of the team's agents`},
	{name: "member/orchestrator", files: map[string]string{"t.json": team(`"orchestrator": "z"`)}, want: `/orchestrator: orchestrator "z" is not one of the team's agents`},
	{name: "member/participants", files: map[string]string{"t.json": team(`"collaboration": {"channels": [{"name": "c", "type": "direct", "participants": ["*", "a", "z"]}]}`)}, want: `/collaboration/channels/0/participants/2: participant "z" is not one of the team's agents`},

	// workflow types
	{name: "workflow/crew-without-lead", files: map[string]string{"t.json": team(`"workflow": {"type": "crew"}`)}, want: `/workflow/type: a crew needs a lead: set collaboration.lead or orchestrator`},
	{name: "workflow/swarm-without-queue", files: map[string]string{"t.json": team(`"workflow": {"type": "swarm"}, "collaboration": {"task_queue": false}`)}, want: `/workflow/type: a swarm needs a task queue: set collaboration.task_queue or self_claim`},
	{name: "workflow/council-without-consensus", files: map[string]string{"t.json": team(`"workflow": {"type": "council"}`)}, want: `/workflow/type: a council needs collaboration.consensus`},
	{name: "workflow/agent-and-loop", files: map[string]string{"t.json": team(`"workflow": {"steps": [{"name": "s", "agent": "a", "loop": "l"}]}`)}, want: `/workflow/steps/0/loop: a step has an agent or a loop, not both`},
	{name: "workflow/step-name-dot", files: map[string]string{"t.json": team(`"workflow": {"steps": [{"name": "s.1", "agent": "a"}]}`)}, want: `step name "s.1" must not contain '.'`},
	{name: "agent/name-slash", files: map[string]string{"x.json": `{"name": "ns/x"}`}, want: `/name: agent name "ns/x" must not contain '/' (use namespace)`},
	{name: "name/control-nul", files: map[string]string{"t.json": team(`"workflow": {"steps": [{"name": "s\u0000x", "agent": "a"}]}`)}, want: `/workflow/steps/0/name: "s\x00x" must not contain control characters`},
	{name: "name/control-newline", files: map[string]string{"x.json": `{"name": "x\ny"}`}, want: `/name: "x\ny" must not contain control characters`},
	{name: "name/control-namespace", files: map[string]string{"x.json": `{"name": "x", "namespace": "q\u0001a"}`}, want: `/namespace: namespace "q\x01a" must be names separated by single '/', without control characters`},
	{name: "name/control-directory", files: map[string]string{"agents/q\tx/y.md": "---\nname: y\n---\n"}, want: `"agents/q\tx/y.md": error: namespace "q\tx" (of the file's directory) must be names separated by single '/', without control characters`},
	{name: "name/blank-directory", files: map[string]string{"agents/ /y.md": "---\nname: y\n---\n"}, want: `y.md: error: namespace " " (of the file's directory) must be names`},
	{name: "name/control-port", files: map[string]string{"t.json": team(`"workflow": {"steps": [{"name": "s", "agent": "a", "outputs": [{"name": "o\t"}]}]}`)}, want: `/workflow/steps/0/outputs/0/name: "o\t" must not contain control characters`},
	{name: "name/control-team-agent", files: map[string]string{"t.json": `{"name": "t", "version": "1", "agents": ["a", "b\u0007"]}`}, want: `/agents/1: agent reference "b\a" must not contain control characters`},
	{name: "name/control-legacy-output", files: map[string]string{"t.json": team(`"workflow": {"steps": [{"name": "s", "agent": "a", "outputs": ["o\n"]}]}`)}, want: `/workflow/steps/0/outputs/0: port name "o\n" must not contain control characters`},
	{name: "name/control-legacy-input", files: map[string]string{"t.json": team(`"workflow": {"steps": [{"name": "s", "agent": "a", "outputs": ["o"]}, {"name": "u", "agent": "a", "depends_on": ["s"], "inputs": {"i\u0001": "s.o"}}]}`)}, want: `port name "i\x01" must not contain control characters`},
	{name: "crew/lead-as-specialist", files: map[string]string{"t.json": team(`"workflow": {"type": "crew"}, "collaboration": {"lead": "a", "specialists": ["b", "a"]}`)}, want: `/collaboration/specialists/1: specialist "a" is the crew's lead`, sev: spec.SeverityWarning},
	{name: "crew/orchestrator-as-specialist", files: map[string]string{"t.json": team(`"orchestrator": "c", "workflow": {"type": "crew"}, "collaboration": {"specialists": ["c"]}`)}, want: `/collaboration/specialists/0: specialist "c" is the crew's lead`, sev: spec.SeverityWarning},
	{name: "port/default-null", files: map[string]string{"t.json": team(`"workflow": {"steps": [{"name": "s", "agent": "a", "inputs": [{"name": "i", "default": null}]}]}`)}, want: `/workflow/steps/0/inputs/0/default: default null is read as no default`, sev: spec.SeverityWarning},
	{name: "consensus/agreement-zero", files: map[string]string{"t.json": team(`"workflow": {"type": "council"}, "collaboration": {"consensus": {"required_agreement": 0}}`)}, want: `/collaboration/consensus/required_agreement: required_agreement 0 is read as the default, 0.5`, sev: spec.SeverityWarning},

	// legacy forms and unknown keys
	{name: "legacy/sequential", files: map[string]string{"t.json": team(`"workflow": {"type": "sequential"}`)}, want: `t.json:1: warning: /workflow/type: legacy workflow type "sequential": use "chain"`, sev: spec.SeverityWarning},
	{name: "legacy/parallel", files: map[string]string{"t.json": team(`"workflow": {"type": "parallel"}`)}, want: `legacy workflow type "parallel": use "scatter"`, sev: spec.SeverityWarning},
	{name: "legacy/dag", files: map[string]string{"t.json": team(`"workflow": {"type": "dag"}`)}, want: `legacy workflow type "dag": use "graph"`, sev: spec.SeverityWarning},
	{name: "legacy/orchestrated-crew", files: map[string]string{"t.json": team(`"orchestrator": "a", "workflow": {"type": "orchestrated"}`)}, want: `legacy workflow type "orchestrated": use "crew" (the team has a lead)`, sev: spec.SeverityWarning},
	{name: "legacy/orchestrated-graph", files: map[string]string{"t.json": team(`"workflow": {"type": "orchestrated"}`)}, want: `legacy workflow type "orchestrated": use "graph", or "crew" with collaboration.lead`, sev: spec.SeverityWarning},
	{name: "legacy/output-names", files: map[string]string{"t.json": team(`"workflow": {"steps": [{"name": "s", "agent": "a", "outputs": ["o"]}]}`)}, want: `/workflow/steps/0/outputs/0: legacy port name: use {"name": "o"}`, sev: spec.SeverityWarning},
	{name: "legacy/input-map", files: map[string]string{"t.json": team(`"workflow": {"steps": [{"name": "p", "agent": "a", "outputs": [{"name": "o"}]}, {"name": "s", "agent": "b", "depends_on": ["p"], "inputs": {"i": "p.o"}}]}`)}, want: `/workflow/steps/1/inputs: legacy input map: use [{"name": "i", "from": "p.o"}]`, sev: spec.SeverityWarning},
	{name: "legacy/task-keys", files: map[string]string{"x.md": "---\nname: x\ntasks:\n  - id: t\n    expectedoutput: ok\n---\n"}, want: `x.md:5: warning: /tasks/0/expectedoutput: legacy key "expectedoutput": use "expected_output"`, sev: spec.SeverityWarning},
	{name: "unknown/key-warning", files: map[string]string{"t.json": team(`"owner": "me"`)}, want: `t.json:1: warning: /owner: unknown key "owner" in team`, sev: spec.SeverityWarning},
	{name: "unknown/key-strict", strict: true, files: map[string]string{"x.md": "---\nname: x\ncolour: red\n---\n"}, want: `x.md:3: error: /colour: unknown key "colour" in agent`},

	// syntax
	{name: "syntax/json", files: map[string]string{"t.json": "{\"name\": \"t\",\n\"version\": }"}, want: `t.json:2: error: syntax error: invalid character '}' looking for beginning of value`},
	{name: "syntax/front-matter-open", files: map[string]string{"x.md": "---\nname: x\n"}, want: `x.md:1: error: syntax error: front matter has no closing "---" line`},
	{name: "syntax/yaml", files: map[string]string{"x.md": "---\nname: x\ntools: [a\n---\n"}, want: `x.md:2: error: syntax error: did not find expected ',' or ']'`},
	{name: "json5/duplicate-key", files: map[string]string{"t.json5": "{name: 't', version: '1', agents: ['a'],\n  'name': 'u'}"}, want: `t.json5:2: error: syntax error: duplicate key "name"`},
	{name: "json5/duplicate-escaped-key", files: map[string]string{"t.json5": "{name: 't', version: '1', agents: ['a'],\n  \"n\\u0061me\": 'u'}"}, want: `t.json5:2: error: syntax error: duplicate key "name"`},
	{name: "json5/duplicate-nested-key", files: map[string]string{"t.json5": "{name: 't', version: '1', agents: ['a'],\n workflow: {type: 'chain',\n /* c */ type: 'graph'}}"}, want: `t.json5:3: error: syntax error: duplicate key "type"`},
	{name: "json/duplicate-key-in-schema", files: map[string]string{"t.json": "{\"name\": \"t\", \"version\": \"1\", \"agents\": [\"a\"], \"workflow\": {\"steps\": [{\"name\": \"s\", \"agent\": \"a\",\n \"outputs\": [{\"name\": \"o\", \"schema\": {\"type\": \"string\",\n \"type\": \"number\"}}]}]}}"}, want: `t.json:3: error: /workflow/steps/0/outputs/0/schema/type: duplicate key "type"`},
	{name: "yaml/duplicate-key-in-default", files: map[string]string{"t.yaml": "name: t\nversion: '1'\nagents: [a]\nworkflow:\n  steps:\n  - name: s\n    agent: a\n    inputs:\n    - name: i\n      default: {x: [{k: 1, k: 2}]}\n"}, want: `t.yaml:10: error: /workflow/steps/0/inputs/0/default/x/0/k: duplicate key "k"`},
	{name: "json/duplicate-unknown-key", files: map[string]string{"x.json": "{\"name\": \"x\", \"colour\": 1,\n \"colour\": 2}"}, want: `x.json:2: error: /colour: duplicate key "colour"`},
	{name: "json/duplicate-schema-key", files: map[string]string{"x.json": "{\"$schema\": \"a\", \"name\": \"x\",\n \"$schema\": \"b\"}"}, want: `x.json:2: error: /$schema: duplicate key "$schema"`},
	{name: "json5/lines", files: map[string]string{"t.json5": "{name: 't', version: '1', agents: ['a'],\n workflow: {type: 'pipeline'},}"}, want: `t.json5:2: error: /workflow/type: "pipeline" is not one of`},
}

// TestRules runs every validation rule's case: each must report its
// problem (want); testdata/rules.golden holds every problem of every case.
func TestRules(t *testing.T) {
	var all bytes.Buffer
	for _, c := range ruleCases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, agentsABC)
			writeFiles(t, dir, c.files)
			t.Chdir(dir)
			var paths []string
			for name := range c.files {
				if !strings.HasPrefix(name, "agents/") {
					paths = append(paths, name)
				}
			}
			paths = append(paths, "agents")
			set, rep, err := spec.Load(sortedCopy(paths), spec.Options{Strict: c.strict})
			if err != nil {
				t.Fatal(err)
			}
			if set == nil {
				t.Fatal("nil set")
			}
			sev := c.sev
			if sev == "" {
				sev = spec.SeverityError
			}
			found := false
			fmtAll := ""
			for _, p := range rep.Problems {
				s := p.String()
				fmtAll += s + "\n"
				if p.Severity == sev && strings.Contains(s, c.want) {
					found = true
				}
			}
			if !found {
				t.Errorf("no %s matching %q; problems:\n%s", sev, c.want, fmtAll)
			}
			err = rep.Err()
			if sev == spec.SeverityError && !errors.Is(err, spec.ErrInvalid) {
				t.Errorf("Err() = %v, want ErrInvalid", err)
			}
			if sev == spec.SeverityWarning && rep.Errors() > 0 {
				t.Errorf("a warning case has errors:\n%s", fmtAll)
			}
			all.WriteString("== " + c.name + "\n" + fmtAll)
		})
	}
	if !t.Failed() {
		golden(t, "rules.golden", all.Bytes())
	}
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// TestValidName: the names a stored definition can have, by kind; those
// it cannot are malformed (defstore.Get: an invalid id, not a not found).
func TestValidName(t *testing.T) {
	for _, c := range []struct {
		name             string
		any, team, agent bool
	}{
		{"release", true, true, true},
		{"qa/unit", true, true, true},
		{"a/b/unit", true, true, true},
		{" x", true, true, true},
		{"a//b", true, true, false},
		{"/x", true, true, false},
		{"x/", true, true, false},
		{"./x", true, true, false},
		{"a/../x", true, true, false},
		{"a/ /x", true, true, false},
		{"", false, false, false},
		{" \t", false, false, false},
		{"x\n", false, false, false},
		{"q\x01/x", false, false, false},
		{"x\x7f", false, false, false},
	} {
		for _, k := range []struct {
			kind spec.Kind
			want bool
		}{{"", c.any}, {spec.KindTeam, c.team}, {spec.KindAgent, c.agent}} {
			if got := spec.ValidName(k.kind, c.name); got != k.want {
				t.Errorf("ValidName(%q, %q) = %v, want %v", k.kind, c.name, got, k.want)
			}
		}
	}
}
