package api

import (
	"encoding/json"

	"github.com/cortexgraph/cortex/spec"
)

// DefSummary is an agent or team definition as cortexctl defs list and
// get print it. Name is an agent's qualified name (namespace/name).
type DefSummary struct {
	Kind        string   `json:"kind"` // agent or team
	Name        string   `json:"name"`
	Namespace   string   `json:"namespace,omitempty"`   // agents
	Description string   `json:"description,omitempty"` //
	Model       string   `json:"model,omitempty"`       // agents: as written ("" means sonnet)
	Version     string   `json:"version,omitempty"`     // teams
	Workflow    string   `json:"workflow,omitempty"`    // teams: the workflow type, graph when unset
	Agents      []string `json:"agents,omitempty"`      // teams
}

// DefDetail is cortexctl defs get --json: the summary and the definition
// itself, as defs export writes it in JSON.
type DefDetail struct {
	DefSummary
	Definition json.RawMessage `json:"definition"`
}

// DefsReport is cortexctl defs validate --json and defs import's outcome:
// the definitions read and every problem found.
type DefsReport struct {
	Agents   []string       `json:"agents"` // qualified names, in load order
	Teams    []string       `json:"teams"`
	Errors   int            `json:"errors"`
	Warnings int            `json:"warnings"`
	Problems []spec.Problem `json:"problems"` // file, line (omitted when unknown), path, severity, message; leftOutErrors, leftOutWarnings (spec.MaxProblems)
}

// DefExport is the result of the JSON-RPC method defs.export: the
// definition as cortexctl defs export prints it.
type DefExport struct {
	DefSummary
	Format string `json:"format"` // json or md
	Data   string `json:"data"`
}

// NewDefSummary returns the summary of def.
func NewDefSummary(def spec.Def) DefSummary {
	s := DefSummary{Kind: string(def.Kind), Name: def.Name()}
	if a := def.Agent; a != nil {
		s.Namespace, s.Description, s.Model = a.Namespace, a.Description, string(a.Model)
	}
	if t := def.Team; t != nil {
		s.Description, s.Version, s.Workflow, s.Agents = t.Description, t.Version, string(t.WorkflowType()), t.Agents
	}
	return s
}

// NewDefsReport returns the report of set (nil: nothing loaded) and rep.
func NewDefsReport(set *spec.Set, rep spec.Report) DefsReport {
	r := DefsReport{Agents: []string{}, Teams: []string{}, Errors: rep.Errors(), Warnings: rep.Warnings(), Problems: rep.Problems}
	if r.Problems == nil {
		r.Problems = []spec.Problem{}
	}
	if set != nil {
		for _, d := range set.Defs {
			if d.Kind == spec.KindAgent {
				r.Agents = append(r.Agents, d.Name())
			} else {
				r.Teams = append(r.Teams, d.Name())
			}
		}
	}
	return r
}
