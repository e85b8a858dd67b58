package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/fixtures"
	"github.com/cortexgraph/cortex/workflow"
)

// A minimal reader of multi-agent-spec team files (JSON) for the workflows
// commands, until the spec package (parse, validate, marshal definitions)
// lands and replaces it. It reads what a run needs, ignores $schema and
// unknown keys, maps the legacy workflow type names and reads the legacy
// port shapes (outputs: ["name"], inputs: {"name": "step.output"}).

type teamFile struct {
	Name          string         `json:"name"`
	Description   string         `json:"description"`
	Agents        []string       `json:"agents"`
	Orchestrator  string         `json:"orchestrator"`
	Context       string         `json:"context"`
	Workflow      *workflowFile  `json:"workflow"`
	Collaboration *collaboration `json:"collaboration"`
}

type collaboration struct {
	Lead      string `json:"lead"`
	Consensus *struct {
		RequiredAgreement *float64 `json:"required_agreement"`
		MaxRounds         *int     `json:"max_rounds"`
		TieBreaker        string   `json:"tie_breaker"`
	} `json:"consensus"`
}

type workflowFile struct {
	Type  string     `json:"type"`
	Steps []stepFile `json:"steps"`
}

type stepFile struct {
	Name      string          `json:"name"`
	Agent     string          `json:"agent"`
	DependsOn []string        `json:"depends_on"`
	Inputs    json.RawMessage `json:"inputs"`
	Outputs   json.RawMessage `json:"outputs"`
}

type portFile struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	From     string `json:"from"`
	Default  any    `json:"default"`
	Required *bool  `json:"required"`
}

// legacyTypes maps the workflow type names of spec versions before 0.6.
var legacyTypes = map[string]workflow.Type{
	"sequential": workflow.Chain, "parallel": workflow.Scatter, "dag": workflow.Graph, "orchestrated": workflow.Graph,
}

// parseTeamDef reads a team file's JSON as a workflow.Def, with warnings
// for the legacy forms it accepted.
func parseTeamDef(name string, data []byte) (workflow.Def, []string, error) {
	var tf teamFile
	if err := json.Unmarshal(data, &tf); err != nil {
		return workflow.Def{}, nil, fmt.Errorf("%s: %w: %v", name, errSyntax, err)
	}
	var warns []string
	d := workflow.Def{Name: tf.Name, Description: tf.Description, Context: tf.Context, Agents: tf.Agents, Lead: tf.Orchestrator}
	if c := tf.Collaboration; c != nil {
		if c.Lead != "" {
			d.Lead = c.Lead
		}
		if cs := c.Consensus; cs != nil {
			d.Consensus = &workflow.Consensus{RequiredAgreement: 0.5, MaxRounds: 3, TieBreaker: cs.TieBreaker}
			if cs.RequiredAgreement != nil {
				d.Consensus.RequiredAgreement = *cs.RequiredAgreement
			}
			if cs.MaxRounds != nil {
				d.Consensus.MaxRounds = *cs.MaxRounds
			}
		}
	}
	if w := tf.Workflow; w != nil {
		d.Type = workflow.Type(w.Type)
		if t, ok := legacyTypes[w.Type]; ok {
			if w.Type == "orchestrated" && d.Lead != "" {
				t = workflow.Crew
			}
			d.Type = t
			warns = append(warns, fmt.Sprintf("%s: workflow type %q is a legacy name; write %q", name, w.Type, t))
		}
		for i, s := range w.Steps {
			st := workflow.Step{Name: s.Name, Agent: s.Agent, DependsOn: s.DependsOn}
			var err error
			if st.Inputs, err = readPorts(s.Inputs, true); err != nil {
				return workflow.Def{}, warns, fmt.Errorf("%s: steps/%d/inputs: %w: %v", name, i, errSyntax, err)
			}
			if st.Outputs, err = readPorts(s.Outputs, false); err != nil {
				return workflow.Def{}, warns, fmt.Errorf("%s: steps/%d/outputs: %w: %v", name, i, errSyntax, err)
			}
			if legacyPorts(s.Inputs) || legacyPorts(s.Outputs) {
				warns = append(warns, fmt.Sprintf("%s: steps/%d: legacy port shape; write ports as [{\"name\": ..., \"type\": ..., \"from\": \"step.output\"}]", name, i))
			}
			d.Steps = append(d.Steps, st)
		}
	}
	if d.Type == workflow.Crew && d.Lead == "" {
		return d, warns, fmt.Errorf("%s: %w: crew without a lead or orchestrator", name, workflow.ErrInvalidDef)
	}
	return d, warns, nil
}

// legacyPorts reports whether raw is a legacy port list: strings, or an
// object of name → from.
func legacyPorts(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return strings.HasPrefix(s, "{") || strings.HasPrefix(s, `["`)
}

func readPorts(raw json.RawMessage, input bool) ([]workflow.Port, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var byName map[string]string
	if json.Unmarshal(raw, &byName) == nil {
		var out []workflow.Port
		for _, n := range slices.Sorted(func(yield func(string) bool) {
			for k := range byName {
				if !yield(k) {
					return
				}
			}
		}) {
			out = append(out, workflow.Port{Name: n, From: byName[n]})
		}
		return out, nil
	}
	var names []string
	if json.Unmarshal(raw, &names) == nil {
		out := make([]workflow.Port, len(names))
		for i, n := range names {
			out[i] = workflow.Port{Name: n}
		}
		return out, nil
	}
	var ports []portFile
	if err := json.Unmarshal(raw, &ports); err != nil {
		return nil, err
	}
	out := make([]workflow.Port, len(ports))
	for i, p := range ports {
		out[i] = workflow.Port{Name: p.Name, Type: workflow.PortType(p.Type), From: p.From, Default: p.Default}
		if input && p.Required != nil && !*p.Required {
			out[i].Optional = true
		}
	}
	return out, nil
}

// builtinWorkflows are the team files in fixtures/workflows, with the merge
// strategy each is meant to run with.
var builtinWorkflows = []struct{ name, strategy string }{
	{"code-review", "additive"},
	{"feature-dev", "conflict-flag"},
	{"security-review", "additive"},
}

// loadTeamDef reads TEAMDEF: a team file, else the name of a built-in
// workflow. It returns the definition, the strategy a built-in workflow
// runs with ("" for a file) and warnings.
func loadTeamDef(arg string) (workflow.Def, string, []string, error) {
	data, err := os.ReadFile(arg)
	if err == nil {
		d, warns, err := parseTeamDef(arg, data)
		return d, "", warns, err
	}
	if !os.IsNotExist(err) {
		return workflow.Def{}, "", nil, err
	}
	for _, b := range builtinWorkflows {
		if b.name == arg {
			data, err := fs.ReadFile(fixtures.FS, path.Join("workflows", b.name+".json"))
			if err != nil {
				return workflow.Def{}, "", nil, err
			}
			d, warns, err := parseTeamDef(b.name, data)
			return d, b.strategy, warns, err
		}
	}
	return workflow.Def{}, "", nil, fmt.Errorf("%w: team definition %s: no such file, nor a built-in workflow (cortexctl workflows list --builtin)", api.ErrNotFound, arg)
}
