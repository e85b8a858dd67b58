package workflow

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/cortexgraph/cortex/spec"
)

// Type is a workflow type of the multi-agent-spec team schema.
type Type string

// Workflow types. Chain, scatter and graph are deterministic: the
// definition orders the steps, and the engine runs them. Crew, swarm and
// council are self-directed: council runs in rounds; crew and swarm run on
// the team's task board, coordinated by the lead's turns (see the package
// documentation).
const (
	Chain   Type = "chain"   // steps one after the other, in definition order
	Scatter Type = "scatter" // fan-out, fan-in: ordered by depends_on
	Graph   Type = "graph"   // a DAG of depends_on; the default
	Crew    Type = "crew"
	Swarm   Type = "swarm"
	Council Type = "council"
)

// Deterministic reports whether t's definition orders its steps.
func (t Type) Deterministic() bool { return t == Chain || t == Scatter || t == Graph }

// Led reports whether t runs on the team's task board: crew and swarm.
func (t Type) Led() bool { return t == Crew || t == Swarm }

func (t Type) valid() bool {
	switch t {
	case Chain, Scatter, Graph, Crew, Swarm, Council:
		return true
	}
	return false
}

// PortType is the type of a port's value.
type PortType string

// Port types and the Go values (as encoding/json decodes them) they accept.
const (
	String  PortType = "string"  // string
	Number  PortType = "number"  // float64 (or any Go integer or float; stored as a JSON number)
	Boolean PortType = "boolean" // bool
	Object  PortType = "object"  // map[string]any
	Array   PortType = "array"   // []any (or any Go slice)
	File    PortType = "file"    // string: a path or URL
)

func (t PortType) valid() bool {
	switch t {
	case String, Number, Boolean, Object, Array, File:
		return true
	}
	return false
}

// Port is a step input or output.
type Port struct {
	Name string   `json:"name"`
	Type PortType `json:"type,omitempty"` // empty: any JSON value
	// From is "step.output" (inputs only): the output of an upstream step
	// (a direct or transitive dependency) this input receives.
	From string `json:"from,omitempty"`
	// Default is used when neither From nor a run input gives a value
	// (inputs only); nil (JSON null or absent) means none.
	Default any `json:"default,omitempty"`
	// Optional inputs may stay unresolved; a required input (the default)
	// that cannot be resolved skips the step.
	Optional bool `json:"optional,omitempty"`
}

// fromStep splits From at its first '.'.
func (p *Port) fromStep() (step, output string) {
	step, output, _ = strings.Cut(p.From, ".")
	return step, output
}

// Step is one step of a deterministic workflow.
type Step struct {
	Name      string   `json:"name"`
	Agent     string   `json:"agent"`
	DependsOn []string `json:"depends_on,omitempty"`
	Inputs    []Port   `json:"inputs,omitempty"`
	Outputs   []Port   `json:"outputs,omitempty"`
}

// clone returns a copy of s that shares nothing with it (a port's
// default is copied through JSON, as a step's inputs are given).
func (s Step) clone() Step {
	s.DependsOn = slices.Clone(s.DependsOn)
	s.Inputs, s.Outputs = clonePorts(s.Inputs), clonePorts(s.Outputs)
	return s
}

func clonePorts(ps []Port) []Port {
	ps = slices.Clone(ps)
	for i := range ps {
		if ps[i].Default == nil {
			continue
		}
		if b, err := json.Marshal(ps[i].Default); err == nil {
			var v any
			if json.Unmarshal(b, &v) == nil {
				ps[i].Default = v
			}
		}
	}
	return ps
}

// Consensus are a council's voting rules.
type Consensus struct {
	// RequiredAgreement is the fraction of the voters that must cast the
	// same ballot on a topic, in [0, 1]; 0 means 0.5 (as the spec's Go
	// SDK reads it).
	RequiredAgreement float64 `json:"required_agreement"`
	MaxRounds         int     `json:"max_rounds"` // at least 1
	// TieBreaker is an agent of the council, "lead" (Lead), or empty:
	// after the last round its ballot decides the topics still open.
	TieBreaker string `json:"tie_breaker,omitempty"`
}

// Def is the part of a team definition a run needs: package workflow's own
// input type, so that it does not depend on how team files are parsed.
type Def struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Context     string `json:"context,omitempty"` // shared background, given to every step
	Type        Type   `json:"type"`              // empty: graph
	// Agents lists the team's agents; empty means the steps' agents.
	Agents []string `json:"agents,omitempty"`
	Steps  []Step   `json:"steps,omitempty"`
	Lead   string   `json:"lead,omitempty"` // crew: collaboration.lead or orchestrator
	// Specialists (collaboration.specialists) are a crew's agents that
	// take tasks and never delegate; empty: every agent but the lead.
	Specialists []string `json:"specialists,omitempty"`
	// MaxTurns bounds the lead's turns of a crew or swarm run (at least
	// 1); 0: DefaultMaxTurns.
	MaxTurns int `json:"max_turns,omitempty"`
	// PlanApproval (plan_approval): a crew's or swarm's members claim no
	// task before the operator approves the lead's plan.
	PlanApproval bool `json:"plan_approval,omitempty"`
	// Consensus is a council's voting rules.
	Consensus *Consensus `json:"consensus,omitempty"`
	// AgentDefs holds each agent's definition as JSON (optional), handed to
	// the host with each step it runs.
	AgentDefs map[string]json.RawMessage `json:"agent_defs,omitempty"`
}

// EffectiveType returns Type, Graph when empty.
func (d *Def) EffectiveType() Type {
	if d.Type == "" {
		return Graph
	}
	return d.Type
}

// Validate checks d and returns every problem at once, joined in an error
// wrapping ErrInvalidDef: unknown type, missing or duplicate step names,
// steps without an agent or with an agent the team does not list, unknown
// depends_on, cycles (named), unknown port types, duplicate ports,
// inputs whose from does not name an output of an upstream step, and step
// names or agents with control characters; more than spec.MaxSteps steps
// (10,000) is refused before anything else is checked.
//
// A council is checked as it runs (see the package documentation): its
// consensus rules (present, required_agreement in 0..1, max_rounds in
// 1..MaxCouncilRounds and at most MaxCouncilSteps agents × rounds, a
// tie_breaker that is a council agent or "lead" with a lead) and its
// agents; its own steps are not used. A crew or swarm has at most
// MaxLeadTurns turns. The limits are checked before the steps are made.
func (d *Def) Validate() error {
	x := d.expand()
	_, err := x.plan()
	return err
}

// plan validates d and returns, for each step, its dependencies (indexes)
// including the implicit ones of a chain, in a topological order.
type plan struct {
	deps  [][]int // direct dependencies of each step
	order []int   // a topological order
	index map[string]int
}

func (d *Def) plan() (*plan, error) {
	var probs []string
	bad := func(format string, a ...any) { probs = append(probs, fmt.Sprintf(format, a...)) }
	if d.Name == "" {
		bad("name: missing")
	}
	if len(d.Steps) > spec.MaxSteps {
		// The checks below grow with steps × inputs, and so does a run.
		return nil, invalid(d.Name, []string{fmt.Sprintf("steps: at most %d, not %d", spec.MaxSteps, len(d.Steps))})
	}
	typ := d.EffectiveType()
	if !typ.valid() {
		bad("type: %q is not chain, scatter, graph, crew, swarm or council", d.Type)
	}
	if typ == Council {
		d.checkCouncil(bad)
	}
	if typ.Led() {
		d.checkLed(bad)
	}
	agents := map[string]bool{}
	for _, a := range d.Agents {
		if agents[a] {
			bad("agents: %q listed twice", a)
		}
		agents[a] = true
	}
	p := &plan{index: make(map[string]int, len(d.Steps)), deps: make([][]int, len(d.Steps))}
	for i, s := range d.Steps {
		switch _, dup := p.index[s.Name]; {
		case s.Name == "":
			bad("steps/%d/name: missing", i)
		case dup:
			bad("steps/%d/name: step %q defined twice", i, s.Name)
		default:
			p.index[s.Name] = i
		}
		switch {
		case s.Agent == "":
			bad("steps/%d/agent: missing", i)
		case len(d.Agents) > 0 && !agents[s.Agent]:
			bad("steps/%d/agent: %q is not one of the team's agents", i, s.Agent)
		}
		// Names go into a driver's environment and messages (as package
		// spec checks them in files; a Def may come from elsewhere).
		if strings.IndexFunc(s.Name, unicode.IsControl) >= 0 {
			bad("steps/%d/name: %q contains a control character", i, s.Name)
		}
		if strings.IndexFunc(s.Agent, unicode.IsControl) >= 0 {
			bad("steps/%d/agent: %q contains a control character", i, s.Agent)
		}
	}
	for i, s := range d.Steps {
		seen := map[int]bool{}
		for j, dep := range s.DependsOn {
			k, ok := p.index[dep]
			switch {
			case !ok:
				bad("steps/%d/depends_on/%d: unknown step %q", i, j, dep)
			case k == i:
				bad("steps/%d/depends_on/%d: step %q depends on itself", i, j, dep)
			case !seen[k]:
				seen[k] = true
				p.deps[i] = append(p.deps[i], k)
			}
		}
		if typ == Chain && i > 0 && !seen[i-1] {
			p.deps[i] = append(p.deps[i], i-1)
		}
		checkPorts := func(kind string, ports []Port) {
			names := map[string]bool{}
			for j, port := range ports {
				where := fmt.Sprintf("steps/%d/%s/%d", i, kind, j)
				if port.Name == "" {
					bad("%s/name: missing", where)
				} else if names[port.Name] {
					bad("%s/name: %q defined twice", where, port.Name)
				}
				names[port.Name] = true
				if port.Type != "" && !port.Type.valid() {
					bad("%s/type: %q is not string, number, boolean, object, array or file", where, port.Type)
				}
				if port.Default != nil {
					// A default is held to what a run input is (and an
					// output): what JSON can carry, nested at most
					// MaxValueDepth levels with the map that holds it.
					if err := CheckValues(map[string]any{port.Name: port.Default}); err != nil {
						bad("%s/default: %v", where, err)
					} else if port.Type != "" {
						if err := checkValue(port.Type, port.Default); err != nil {
							bad("%s/default: %v", where, err)
						}
					}
				}
			}
		}
		checkPorts("inputs", s.Inputs)
		checkPorts("outputs", s.Outputs)
	}
	order, cycle := topoOrder(p.deps)
	if cycle != nil {
		names := make([]string, len(cycle))
		for i, k := range cycle {
			names[i] = d.Steps[k].Name
		}
		bad("depends_on: cycle %s", strings.Join(names, " → "))
	}
	p.order = order
	for i, s := range d.Steps {
		for j, port := range s.Inputs {
			if port.From == "" {
				continue
			}
			where := fmt.Sprintf("steps/%d/inputs/%d/from", i, j)
			step, out := port.fromStep()
			k, ok := p.index[step]
			switch {
			case step == "" || out == "":
				bad("%s: %q is not step.output", where, port.From)
			case !ok:
				bad("%s: unknown step %q", where, step)
			case !p.upstream(i, k):
				bad("%s: step %q is not upstream of %q", where, step, s.Name)
			case !slices.ContainsFunc(d.Steps[k].Outputs, func(o Port) bool { return o.Name == out }):
				bad("%s: step %q has no output %q", where, step, out)
			}
		}
	}
	if len(probs) > 0 {
		return nil, invalid(d.Name, probs)
	}
	return p, nil
}

func invalid(name string, probs []string) error {
	errs := make([]error, len(probs))
	for i, p := range probs {
		errs[i] = errors.New(p)
	}
	return fmt.Errorf("team definition %q: %w:\n%w", name, ErrInvalidDef, errors.Join(errs...))
}

// topoOrder returns the steps in an order where each comes after its
// dependencies (Kahn, lowest index first), or a cycle.
func topoOrder(deps [][]int) (order, cycle []int) {
	n := len(deps)
	indeg := make([]int, n)
	users := make([][]int, n)
	for i, ds := range deps {
		indeg[i] = len(ds)
		for _, k := range ds {
			users[k] = append(users[k], i)
		}
	}
	var queue []int
	for i := range n {
		if indeg[i] == 0 {
			queue = append(queue, i)
		}
	}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		order = append(order, i)
		for _, u := range users[i] {
			if indeg[u]--; indeg[u] == 0 {
				queue = append(queue, u)
			}
		}
	}
	if len(order) == n {
		return order, nil
	}
	// Walk dependencies from a step left over until one repeats.
	left := map[int]bool{}
	for i := range n {
		if indeg[i] > 0 {
			left[i] = true
		}
	}
	start := -1
	for i := range n {
		if left[i] {
			start = i
			break
		}
	}
	pos := map[int]int{}
	var path []int
	for i := start; ; {
		if p, ok := pos[i]; ok {
			c := append([]int(nil), path[p:]...)
			slices.Reverse(c) // dependency order: a → b means b depends on a
			m := slices.Index(c, slices.Min(c))
			c = append(c[m:], c[:m]...)
			return nil, append(c, c[0])
		}
		pos[i] = len(path)
		path = append(path, i)
		for _, k := range deps[i] {
			if left[k] {
				i = k
				break
			}
		}
	}
}

// upstream reports whether step k is a direct or transitive dependency of
// step i.
func (p *plan) upstream(i, k int) bool {
	seen := map[int]bool{}
	stack := []int{i}
	for len(stack) > 0 {
		j := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, d := range p.deps[j] {
			if d == k {
				return true
			}
			if !seen[d] {
				seen[d] = true
				stack = append(stack, d)
			}
		}
	}
	return false
}

// stepAgents returns the distinct agents of the steps, in first-use order.
func (d *Def) stepAgents() []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range d.Steps {
		if !seen[s.Agent] {
			seen[s.Agent] = true
			out = append(out, s.Agent)
		}
	}
	return out
}
