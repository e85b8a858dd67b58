package api

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/workflow"
)

// ReadyStep is the JSON shape of a workflow.ReadyStep (workflows.ready):
// workflow.ReadyStep's own fields, with the upstream facts and conflicts
// in the shapes of facts list and conflicts list (terms in N-Triples), so
// that ReadyStepFrom restores them.
type ReadyStep struct {
	Run       string          `json:"run"`
	Step      workflow.Step   `json:"step"`
	Agent     json.RawMessage `json:"agent,omitempty"`
	Context   string          `json:"context,omitempty"`
	Inputs    map[string]any  `json:"inputs"`
	Upstream  []Fact          `json:"upstream,omitempty"`
	Conflicts []Conflict      `json:"conflicts,omitempty"`
	Round     int             `json:"round,omitempty"`
	Tally     *workflow.Tally `json:"tally,omitempty"`
	// Turn, MaxTurns and Members: a crew's or swarm's lead turn.
	Turn     int                  `json:"turn,omitempty"`
	MaxTurns int                  `json:"max_turns,omitempty"`
	Members  []workflow.RunMember `json:"members,omitempty"`
}

// ReadyStepOf returns the JSON shape of rs.
func ReadyStepOf(rs workflow.ReadyStep) ReadyStep {
	out := ReadyStep{Run: rs.Run, Step: rs.Step, Agent: rs.Agent, Context: rs.Context, Inputs: rs.Inputs, Round: rs.Round, Tally: rs.Tally,
		Turn: rs.Turn, MaxTurns: rs.MaxTurns, Members: rs.Members}
	for _, f := range rs.Upstream {
		out.Upstream = append(out.Upstream, FactOf(f, ""))
	}
	for _, cf := range rs.Conflicts {
		cj := Conflict{ID: cf.ID, Subject: rdfio.FormatTerm(cf.Topic.Subject), Predicate: rdfio.FormatTerm(cf.Topic.Predicate),
			Reason: cf.Reason, Candidates: []Candidate{}}
		for _, cd := range cf.Candidates {
			cj.Candidates = append(cj.Candidates, Candidate{Object: rdfio.FormatTerm(cd.Object), Agents: cd.Agents, Findings: cd.FindingIDs})
		}
		out.Conflicts = append(out.Conflicts, cj)
	}
	return out
}

// ReadyStepFrom returns the workflow.ReadyStep that r is the shape of
// (ReadyStepOf's inverse); an error for a term that does not parse.
func ReadyStepFrom(r ReadyStep) (workflow.ReadyStep, error) {
	out := workflow.ReadyStep{Run: r.Run, Step: r.Step, Agent: r.Agent, Context: r.Context, Inputs: r.Inputs, Round: r.Round, Tally: r.Tally,
		Turn: r.Turn, MaxTurns: r.MaxTurns, Members: r.Members}
	parse := func(ts ...string) ([]quad.Value, error) {
		vs := make([]quad.Value, len(ts))
		for i, t := range ts {
			v, err := rdfio.ParseFormattedTerm(t)
			if err != nil {
				return nil, fmt.Errorf("ready step %s: %w", r.Step.Name, err)
			}
			vs[i] = v
		}
		return vs, nil
	}
	for _, f := range r.Upstream {
		vs, err := parse(f.Subject, f.Predicate, f.Object)
		if err != nil {
			return workflow.ReadyStep{}, err
		}
		mf := merge.Fact{Supporters: f.Supporters, FindingIDs: f.Findings, Confidence: f.Confidence, ResolvedBy: f.ResolvedBy}
		mf.Subject, mf.Predicate, mf.Object = vs[0], vs[1], vs[2]
		out.Upstream = append(out.Upstream, mf)
	}
	for _, c := range r.Conflicts {
		vs, err := parse(c.Subject, c.Predicate)
		if err != nil {
			return workflow.ReadyStep{}, err
		}
		mc := merge.Conflict{ID: c.ID, Reason: c.Reason, Topic: merge.Topic{Subject: vs[0], Predicate: vs[1]}}
		for _, cd := range c.Candidates {
			o, err := parse(cd.Object)
			if err != nil {
				return workflow.ReadyStep{}, err
			}
			mc.Candidates = append(mc.Candidates, merge.Candidate{Object: o[0], Agents: cd.Agents, FindingIDs: cd.Findings})
		}
		out.Conflicts = append(out.Conflicts, mc)
	}
	return out, nil
}

// Run is the JSON shape of a workflow run (workflow.Run): what cortexctl
// workflows run, drive, status, list (an array) and cancel print with
// --json, and the result of the server's workflows.start, get, list,
// cancel and claim_driver, which Client.Workflows reads back (RunFrom).
// Field names are this package's camelCase and stepTimeout is in seconds,
// as teams' timeout is; workflow.Run's own JSON (snake_case, nanoseconds)
// is how the store keeps a run, not a public shape.
type Run struct {
	ID       string             `json:"id"`
	Name     string             `json:"name"` // the definition's name
	Type     workflow.Type      `json:"type"`
	Status   workflow.RunStatus `json:"status"`
	Strategy string             `json:"strategy"`
	// Team is the id of the run's team (the run id).
	Team        string         `json:"team"`
	Inputs      map[string]any `json:"inputs,omitempty"`
	NonCritical []string       `json:"nonCritical,omitempty"`
	// StepTimeout is how long a started step may run, in seconds; 0:
	// no limit.
	StepTimeout float64          `json:"stepTimeout"`
	CreatedAt   time.Time        `json:"createdAt"`
	StartedAt   time.Time        `json:"startedAt,omitzero"`
	CompletedAt time.Time        `json:"completedAt,omitzero"`
	Error       string           `json:"error,omitempty"`
	Steps       []RunStep        `json:"steps"` // in definition order
	Rounds      []Tally          `json:"rounds,omitempty"`
	Driver      *workflow.Driver `json:"driver,omitempty"`
}

// RunStep is the JSON shape of a step of a run (workflow.StepState).
type RunStep struct {
	Name        string              `json:"name"`
	Agent       string              `json:"agent"`
	Status      workflow.StepStatus `json:"status"`
	Reason      string              `json:"reason,omitempty"`
	Actor       string              `json:"actor,omitempty"`
	StartedAt   time.Time           `json:"startedAt,omitzero"`
	CompletedAt time.Time           `json:"completedAt,omitzero"`
	Outputs     map[string]any      `json:"outputs,omitempty"`
	Findings    []string            `json:"findings,omitempty"`
	Votes       []workflow.Vote     `json:"votes,omitempty"`
	Attempt     int                 `json:"attempt,omitempty"`
}

// Tally is the JSON shape of a council round's tally (workflow.Tally) in
// a Run.
type Tally struct {
	Round  int          `json:"round"`
	Voters []string     `json:"voters"`
	Final  bool         `json:"final,omitempty"`
	Topics []TopicTally `json:"topics"`
}

// TopicTally is the JSON shape of a topic's count in a Tally
// (workflow.TopicTally).
type TopicTally struct {
	Subject   string                 `json:"subject"`
	Predicate string                 `json:"predicate"`
	Status    string                 `json:"status"`
	DecidedIn int                    `json:"decidedIn,omitempty"`
	Winner    []string               `json:"winner,omitempty"`
	Ballots   []workflow.BallotCount `json:"ballots"`
}

// RunOf returns the JSON shape of r.
func RunOf(r workflow.Run) Run {
	out := Run{ID: r.ID, Name: r.Name, Type: r.Type, Status: r.Status, Strategy: r.Strategy, Team: r.Team, Inputs: r.Inputs,
		NonCritical: r.NonCritical, StepTimeout: r.StepTimeout.Seconds(), CreatedAt: r.CreatedAt, StartedAt: r.StartedAt,
		CompletedAt: r.CompletedAt, Error: r.Error, Steps: make([]RunStep, 0, len(r.Steps)), Driver: r.Driver}
	for _, s := range r.Steps {
		out.Steps = append(out.Steps, RunStep{Name: s.Name, Agent: s.Agent, Status: s.Status, Reason: s.Reason, Actor: s.Actor,
			StartedAt: s.StartedAt, CompletedAt: s.CompletedAt, Outputs: s.Outputs, Findings: s.Findings, Votes: s.Votes, Attempt: s.Attempt})
	}
	for _, t := range r.Rounds {
		tj := Tally{Round: t.Round, Voters: t.Voters, Final: t.Final}
		if t.Topics != nil {
			tj.Topics = make([]TopicTally, 0, len(t.Topics))
		}
		for _, tt := range t.Topics {
			tj.Topics = append(tj.Topics, TopicTally{Subject: tt.Subject, Predicate: tt.Predicate, Status: tt.Status,
				DecidedIn: tt.DecidedIn, Winner: tt.Winner, Ballots: tt.Ballots})
		}
		out.Rounds = append(out.Rounds, tj)
	}
	return out
}

// RunsOf returns the JSON shapes of rs: an empty array, not null, for none.
func RunsOf(rs []workflow.Run) []Run {
	out := make([]Run, 0, len(rs))
	for _, r := range rs {
		out = append(out, RunOf(r))
	}
	return out
}

// RunFrom returns the workflow.Run that r is the shape of (RunOf's
// inverse: RunOf(RunFrom(r)) is r, and a step timeout of whole seconds
// or milliseconds comes back as it was).
func RunFrom(r Run) workflow.Run {
	out := workflow.Run{ID: r.ID, Name: r.Name, Type: r.Type, Status: r.Status, Strategy: r.Strategy, Team: r.Team, Inputs: r.Inputs,
		NonCritical: r.NonCritical, StepTimeout: SecondsDuration(r.StepTimeout), CreatedAt: r.CreatedAt, StartedAt: r.StartedAt,
		CompletedAt: r.CompletedAt, Error: r.Error, Steps: make([]workflow.StepState, 0, len(r.Steps)), Driver: r.Driver}
	for _, s := range r.Steps {
		out.Steps = append(out.Steps, workflow.StepState{Name: s.Name, Agent: s.Agent, Status: s.Status, Reason: s.Reason, Actor: s.Actor,
			StartedAt: s.StartedAt, CompletedAt: s.CompletedAt, Outputs: s.Outputs, Findings: s.Findings, Votes: s.Votes, Attempt: s.Attempt})
	}
	for _, t := range r.Rounds {
		tw := workflow.Tally{Round: t.Round, Voters: t.Voters, Final: t.Final}
		if t.Topics != nil {
			tw.Topics = make([]workflow.TopicTally, 0, len(t.Topics))
		}
		for _, tt := range t.Topics {
			tw.Topics = append(tw.Topics, workflow.TopicTally{Subject: tt.Subject, Predicate: tt.Predicate, Status: tt.Status,
				DecidedIn: tt.DecidedIn, Winner: tt.Winner, Ballots: tt.Ballots})
		}
		out.Rounds = append(out.Rounds, tw)
	}
	return out
}

// SecondsDuration returns s seconds (a duration's Seconds, as the JSON
// shapes carry durations) as a duration, the whole seconds exactly and
// the rest rounded to the nanosecond, so that time.Duration.Seconds
// round-trips through it (truncating s*1e9 would not: 1.001 s is
// 1.000999999... s in a float64) as far as a float64 holds the duration:
// every one up to 2^53 ns (about 104 days), a longer one to a few
// nanoseconds (200 days and 1 ns comes back as 200 days), up to a
// microsecond for the longest; clamped to what a time.Duration holds,
// NaN is 0.
func SecondsDuration(s float64) time.Duration {
	// (Not the whole seconds of the range: 9,223,372,036 s and the
	// fractions past it are durations too.)
	const most = float64(math.MaxInt64) / float64(time.Second)
	switch {
	case math.IsNaN(s):
		return 0
	case s >= most:
		return math.MaxInt64
	case s <= -most:
		return math.MinInt64
	}
	whole := math.Trunc(s)
	d, frac := time.Duration(whole)*time.Second, time.Duration(math.Round((s-whole)*float64(time.Second)))
	switch {
	case d > 0 && frac > math.MaxInt64-d:
		return math.MaxInt64
	case d < 0 && frac < math.MinInt64-d:
		return math.MinInt64
	}
	return d + frac
}
