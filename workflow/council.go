package workflow

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/merge"
	ns "github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/spec"
	"github.com/cortexgraph/cortex/teammanager"
)

// Topic statuses of a council tally.
const (
	TopicAgreed    = "agreed"     // a ballot has the required agreement
	TopicTieBroken = "tie-broken" // the final round: the tie-breaker's ballot
	TopicOpen      = "open"       // no decision (after the final round: a conflict)
)

// Vote is one finding a council member reported in a round: its vote on
// the topic (subject, predicate). Terms are in N-Triples form.
type Vote struct {
	Subject    string    `json:"subject"`
	Predicate  string    `json:"predicate"`
	Object     string    `json:"object"`
	Confidence float64   `json:"confidence,omitempty"`
	At         time.Time `json:"at"`
}

// Tally is the count of one council round.
type Tally struct {
	Round int `json:"round"`
	// Voters are the agents whose ballots count: those that completed the
	// first round, sorted.
	Voters []string `json:"voters"`
	// Final marks the council's last tally: every topic is decided, or
	// the last round has been counted (the tie-breaker applied).
	Final  bool         `json:"final,omitempty"`
	Topics []TopicTally `json:"topics"`
}

// TopicTally is the count of one topic in a round.
type TopicTally struct {
	Subject   string `json:"subject"`   // N-Triples
	Predicate string `json:"predicate"` // N-Triples
	Status    string `json:"status"`    // TopicAgreed, TopicTieBroken or TopicOpen
	// DecidedIn is the round that decided the topic (0: open).
	DecidedIn int      `json:"decided_in,omitempty"`
	Winner    []string `json:"winner,omitempty"` // the winning ballot's objects, as in its BallotCount (sorted)
	// Ballots are the distinct ballots cast, most voters first: each
	// voter's last vote on the topic (the set of objects it asserted).
	Ballots []BallotCount `json:"ballots"`
}

// BallotCount is one distinct ballot on a topic and the voters that cast it.
// Objects equal as RDF terms (language tags differing only in case) are one
// object, spelled as the merge spells it, and so as in the topic's Winner:
// of the spellings voters cast on the topic, the one sorting first by
// bytes ("a"@EN before "a"@en).
type BallotCount struct {
	Objects []string `json:"objects"` // N-Triples, sorted
	Agents  []string `json:"agents"`  // sorted
}

// clone returns a copy of t that shares nothing with it.
func (t *Tally) clone() *Tally {
	c := *t
	c.Voters = slices.Clone(t.Voters)
	c.Topics = slices.Clone(t.Topics)
	for i := range c.Topics {
		tt := &c.Topics[i]
		tt.Winner = slices.Clone(tt.Winner)
		tt.Ballots = slices.Clone(tt.Ballots)
		for j := range tt.Ballots {
			b := &tt.Ballots[j]
			b.Objects, b.Agents = slices.Clone(b.Objects), slices.Clone(b.Agents)
		}
	}
	return &c
}

// Open returns the topics of t that are still open.
func (t *Tally) Open() []TopicTally {
	var out []TopicTally
	for _, tt := range t.Topics {
		if tt.Status == TopicOpen {
			out = append(out, tt)
		}
	}
	return out
}

// roundStep is the name of agent's step in council round n.
func roundStep(n int, agent string) string { return fmt.Sprintf("round-%d/%s", n, agent) }

// councilVoters returns the members of a council: the team's agents, or
// the agents of its steps when it lists none.
func (d *Def) councilVoters() []string {
	if len(d.Agents) > 0 {
		return d.Agents
	}
	return d.stepAgents()
}

// tieBreaker returns the agent that breaks ties ("lead" is the Lead), or "".
func (d *Def) tieBreaker() string {
	if d.Consensus == nil {
		return ""
	}
	if d.Consensus.TieBreaker == "lead" {
		return d.Lead
	}
	return d.Consensus.TieBreaker
}

// Limits of a council run, whose steps (a step per agent and round) are
// made at Start.
const (
	MaxCouncilRounds = spec.MaxMaxRounds // consensus max_rounds at most (as a definition may give)
	MaxCouncilSteps  = 10000             // agents × max_rounds at most
)

// expand returns the form of d a run runs: for a council, a step per
// member and round (named round-N/AGENT), each round's steps depending on
// all steps of the round before; for a crew or swarm, the lead's turns
// (expandLed); their own steps are not used. Other types are returned as
// they are.
func (d Def) expand() Def {
	if d.EffectiveType().Led() {
		return d.expandLed()
	}
	if d.EffectiveType() != Council || d.Consensus == nil {
		return d
	}
	voters := d.councilVoters()
	d.Steps = nil
	if d.Consensus.MaxRounds > MaxCouncilRounds || len(voters)*d.Consensus.MaxRounds > MaxCouncilSteps {
		return d // checkCouncil says why
	}
	for n := 1; n <= d.Consensus.MaxRounds; n++ {
		var deps []string
		if n > 1 {
			for _, a := range voters {
				deps = append(deps, roundStep(n-1, a))
			}
		}
		for _, a := range voters {
			d.Steps = append(d.Steps, Step{Name: roundStep(n, a), Agent: a, DependsOn: deps})
		}
	}
	return d
}

// checkCouncil adds the problems of a council's rules to bad.
func (d *Def) checkCouncil(bad func(string, ...any)) {
	c := d.Consensus
	if c == nil {
		bad("consensus: a council needs consensus rules")
		return
	}
	if math.IsNaN(c.RequiredAgreement) || c.RequiredAgreement < 0 || c.RequiredAgreement > 1 {
		bad("consensus/required_agreement: %v is not in 0..1", c.RequiredAgreement)
	}
	voters := d.councilVoters()
	switch {
	case c.MaxRounds < 1:
		bad("consensus/max_rounds: %d is less than 1", c.MaxRounds)
	case c.MaxRounds > MaxCouncilRounds:
		bad("consensus/max_rounds: %d is more than %d", c.MaxRounds, MaxCouncilRounds)
	case len(voters)*c.MaxRounds > MaxCouncilSteps:
		bad("consensus/max_rounds: %d agents × %d rounds is more than %d steps", len(voters), c.MaxRounds, MaxCouncilSteps)
	}
	if len(voters) == 0 {
		bad("agents: a council needs agents")
	}
	switch tb := c.TieBreaker; {
	case tb == "":
	case tb == "lead" && d.Lead == "":
		bad("consensus/tie_breaker: \"lead\" but the team has no lead")
	case !slices.Contains(voters, d.tieBreaker()):
		bad("consensus/tie_breaker: %q is not one of the council's agents", d.tieBreaker())
	}
}

// checkVotes validates findings as votes of team's members: normalised
// terms (a subject that is no finding node of the team), confidence in
// [0, 1]. Errors wrap teammanager.ErrInvalidFinding.
func (e *Engine) checkVotes(team string, fs []teammanager.Finding, now time.Time) ([]Vote, error) {
	out := make([]Vote, 0, len(fs))
	prefix := string(e.x.Finding(team, ""))
	for i, f := range fs {
		q, err := cortex.NormalizeQuad(quad.Quad{Subject: f.Subject, Predicate: f.Predicate, Object: f.Object})
		if err != nil {
			return nil, fmt.Errorf("finding %d: %w: %w", i, teammanager.ErrInvalidFinding, err)
		}
		if iri, ok := q.Subject.(quad.IRI); ok && strings.HasPrefix(string(iri), prefix) {
			return nil, fmt.Errorf("finding %d: %w: subject %s is a finding node of team %s", i, teammanager.ErrInvalidFinding, iri, team)
		}
		if math.IsNaN(f.Confidence) || f.Confidence < 0 || f.Confidence > 1 {
			return nil, fmt.Errorf("finding %d: %w: confidence %v not in [0, 1]", i, teammanager.ErrInvalidFinding, f.Confidence)
		}
		at := f.AssertedAt
		if at.IsZero() {
			at = now
		}
		out = append(out, Vote{Subject: rdfio.FormatTerm(q.Subject), Predicate: rdfio.FormatTerm(q.Predicate),
			Object: rdfio.FormatTerm(q.Object), Confidence: f.Confidence, At: at.UTC()})
	}
	return out, nil
}

func (v Vote) finding() (teammanager.Finding, error) {
	var terms [3]quad.Value
	for i, s := range []string{v.Subject, v.Predicate, v.Object} {
		t, err := rdfio.ParseFormattedTerm(s)
		if err != nil {
			return teammanager.Finding{}, fmt.Errorf("vote %s %s %s: %w", v.Subject, v.Predicate, v.Object, err)
		}
		terms[i] = t
	}
	return teammanager.Finding{Subject: terms[0], Predicate: terms[1], Object: terms[2], Confidence: v.Confidence, AssertedAt: v.At}, nil
}

func (v Vote) topic() string { return v.Subject + " " + v.Predicate }

// round returns the council round of step i (from its name), or 0.
func (r *record) round(i int) int {
	var n int
	if _, err := fmt.Sscanf(r.Steps[i].Name, "round-%d/", &n); err != nil {
		return 0
	}
	return n
}

// ballots returns each voter's votes that count after round n: per agent
// and topic, the votes of its last completed step of a round up to n that
// voted on the topic, and for a topic decided in an earlier round, up to
// that round.
func (r *record) ballots(voters []string, n int) map[string]map[string][]Vote {
	decided := map[string]int{}
	for _, t := range r.Rounds {
		if t.Round >= n {
			break
		}
		for _, tt := range t.Topics {
			if tt.DecidedIn > 0 && decided[tt.Subject+" "+tt.Predicate] == 0 {
				decided[tt.Subject+" "+tt.Predicate] = tt.DecidedIn
			}
		}
	}
	out := map[string]map[string][]Vote{}
	for _, a := range voters {
		out[a] = map[string][]Vote{}
	}
	for round := 1; round <= n; round++ {
		for i := range r.Steps {
			s := &r.Steps[i]
			if r.round(i) != round || s.Status != StepCompleted || out[s.Agent] == nil {
				continue
			}
			byTopic := map[string][]Vote{}
			for _, v := range s.Votes {
				if d := decided[v.topic()]; d == 0 || round <= d {
					byTopic[v.topic()] = append(byTopic[v.topic()], v)
				}
			}
			for k, vs := range byTopic {
				out[s.Agent][k] = vs
			}
		}
	}
	return out
}

// tallyRound counts round n of a council: every voter's ballots (see
// ballots) merged by the run's strategy (consensus) with the council's
// threshold, and, when final, its tie-breaker.
func (c *change) tallyRound(d *Def, voters []string, n int, final bool) (Tally, error) {
	r := c.rec
	bs := r.ballots(voters, n)
	in := merge.Input{Team: merge.Team{ID: r.Team, Name: r.Name}, Options: merge.Options{Threshold: d.Consensus.RequiredAgreement, Now: c.now}}
	for _, a := range voters {
		in.Members = append(in.Members, merge.Member{Agent: a, Status: merge.Completed})
	}
	// Objects are compared as the merge compares them (merge.ObjectKey:
	// language tags case-insensitively), and each is spelled as the
	// merge spells it, and so its winner: of the spellings cast on the
	// topic, the one sorting first by bytes ("a"@EN before "a"@en).
	type objRef struct{ topic, key string }
	spelling := map[objRef]string{}
	keyOf := map[string]string{} // N-Triples object → its merge.ObjectKey
	for _, a := range voters {
		for k, vs := range bs[a] {
			for _, v := range vs {
				f, err := v.finding()
				if err != nil {
					return Tally{}, err
				}
				ok, err := merge.ObjectKey(f.Object)
				if err != nil {
					return Tally{}, fmt.Errorf("run %s: tally of round %d: vote %s %s %s: %w", r.ID, n, v.Subject, v.Predicate, v.Object, err)
				}
				keyOf[v.Object] = ok
				if old, seen := spelling[objRef{k, ok}]; !seen || v.Object < old {
					spelling[objRef{k, ok}] = v.Object
				}
			}
		}
	}
	type ballotKey struct{ topic, objects string }
	ballot := map[ballotKey][]string{} // agents
	var topics []string
	objects := map[ballotKey][]string{}
	for _, a := range voters {
		for _, k := range slices.Sorted(maps.Keys(bs[a])) {
			var objs []string
			for j, v := range bs[a][k] {
				f, err := v.finding()
				if err != nil {
					return Tally{}, err
				}
				in.Findings = append(in.Findings, merge.Finding{ID: fmt.Sprintf("%s#%d", a, j), Agent: a, Subject: f.Subject,
					Predicate: f.Predicate, Object: f.Object, Confidence: f.Confidence, AssertedAt: f.AssertedAt})
				if o := spelling[objRef{k, keyOf[v.Object]}]; !slices.Contains(objs, o) {
					objs = append(objs, o)
				}
			}
			slices.Sort(objs)
			bk := ballotKey{k, strings.Join(objs, "\x00")}
			if ballot[bk] == nil && !slices.Contains(topics, k) {
				topics = append(topics, k)
			}
			ballot[bk] = append(ballot[bk], a)
			objects[bk] = objs
		}
	}
	decide := func(tb string) (map[string][]string, error) {
		in.Options.TieBreaker = tb
		res, err := c.merge(r.Strategy, in)
		if err != nil {
			return nil, fmt.Errorf("run %s: tally of round %d: %w", r.ID, n, err)
		}
		won := map[string][]string{}
		for _, f := range res.Facts {
			k := rdfio.FormatTerm(f.Subject) + " " + rdfio.FormatTerm(f.Predicate)
			won[k] = append(won[k], rdfio.FormatTerm(f.Object))
		}
		for _, objs := range won {
			slices.Sort(objs) // as a ballot's objects: the winner is its ballot's
		}
		return won, nil
	}
	agreed, err := decide("")
	if err != nil {
		return Tally{}, err
	}
	broken := agreed
	if tb := d.tieBreaker(); final && tb != "" {
		if broken, err = decide(tb); err != nil {
			return Tally{}, err
		}
	}
	prev := map[string]int{}
	if len(r.Rounds) > 0 {
		for _, tt := range r.Rounds[len(r.Rounds)-1].Topics {
			prev[tt.Subject+" "+tt.Predicate] = tt.DecidedIn
		}
	}
	t := Tally{Round: n, Voters: slices.Sorted(slices.Values(voters)), Final: final, Topics: []TopicTally{}}
	slices.Sort(topics)
	for _, k := range topics {
		s, p, _ := strings.Cut(k, " ")
		tt := TopicTally{Subject: s, Predicate: p, Status: TopicOpen}
		switch {
		case agreed[k] != nil:
			tt.Status, tt.Winner, tt.DecidedIn = TopicAgreed, agreed[k], n
			if prev[k] > 0 {
				tt.DecidedIn = prev[k]
			}
		case broken[k] != nil:
			tt.Status, tt.Winner, tt.DecidedIn = TopicTieBroken, broken[k], n
		}
		for bk, agents := range ballot {
			if bk.topic == k {
				tt.Ballots = append(tt.Ballots, BallotCount{Objects: objects[bk], Agents: agents})
			}
		}
		slices.SortFunc(tt.Ballots, func(a, b BallotCount) int {
			if c := len(b.Agents) - len(a.Agents); c != 0 {
				return c
			}
			return slices.Compare(a.Objects, b.Objects)
		})
		t.Topics = append(t.Topics, tt)
	}
	return t, nil
}

// councilRounds counts the rounds of a council whose steps have all
// finished: after the first, the members that did not complete it are out
// (their later steps are skipped); after a round that leaves no topic
// open, or the last one, the steps of later rounds are skipped and the
// tally is final.
func (c *change) councilRounds(d *Def) error {
	r := c.rec
	voters := d.councilVoters()
	for {
		n := len(r.Rounds) + 1
		if n > d.Consensus.MaxRounds {
			return nil
		}
		var in []int
		for i := range r.Steps {
			if r.round(i) == n {
				in = append(in, i)
			}
		}
		for _, i := range in {
			if !r.Steps[i].Status.Final() {
				return nil
			}
		}
		if n == 1 {
			var vs []string
			for _, a := range voters {
				if slices.ContainsFunc(in, func(i int) bool { return r.Steps[i].Agent == a && r.Steps[i].Status == StepCompleted }) {
					vs = append(vs, a)
				}
			}
			voters = vs
		} else {
			voters = r.Rounds[0].Voters
		}
		t, err := c.tallyRound(d, voters, n, n == d.Consensus.MaxRounds)
		if err != nil {
			return err
		}
		if !t.Final && len(t.Open()) == 0 {
			t.Final = true
		}
		r.Rounds = append(r.Rounds, t)
		for i := range r.Steps {
			s := &r.Steps[i]
			if s.Status != StepPending || r.round(i) <= n {
				continue
			}
			switch {
			case t.Final:
				c.step(i, StepSkipped, SystemActor, fmt.Sprintf("council decided after round %d", n))
			case !slices.Contains(voters, s.Agent):
				c.step(i, StepSkipped, SystemActor, "not a voter: did not complete round 1")
			}
		}
		if t.Final {
			return nil
		}
	}
}

// finalBallots returns, per voter, the findings of its votes that count in
// the council's final tally: what the team's final merge reads.
func (r *record) finalBallots() (map[string][]teammanager.Finding, error) {
	if len(r.Rounds) == 0 {
		return nil, nil
	}
	last := r.Rounds[len(r.Rounds)-1]
	out := map[string][]teammanager.Finding{}
	for a, topics := range r.ballots(last.Voters, last.Round) {
		for _, k := range slices.Sorted(maps.Keys(topics)) {
			for _, v := range topics[k] {
				f, err := v.finding()
				if err != nil {
					return nil, err
				}
				out[a] = append(out[a], f)
			}
		}
	}
	return out, nil
}

// tallyQuads returns the quads of tally t of run, in its round graph.
func (e *Engine) tallyQuads(run string, t *Tally) ([]quad.Quad, error) {
	x := e.x
	g, node := x.RoundGraph(run, t.Round), x.Round(run, t.Round)
	var out []quad.Quad
	add := func(s quad.Value, p ns.Term, o quad.Value) { out = append(out, quad.Make(s, x.IRI(p), o, g)) }
	out = append(out, quad.Make(node, ns.RDFType, x.IRI(ns.ClassRound), g))
	add(node, ns.RoundRun, x.Run(run))
	add(node, ns.RoundNumber, integer(t.Round))
	add(node, ns.RoundFinal, ns.Bool(t.Final))
	for _, a := range t.Voters {
		add(node, ns.RoundVoter, x.Agent(MemberID(a)))
	}
	term := func(s string) (quad.Value, error) {
		v, err := rdfio.ParseFormattedTerm(s)
		if err != nil {
			return nil, fmt.Errorf("run %s: tally of round %d: %w", run, t.Round, err)
		}
		return v, nil
	}
	for _, tt := range t.Topics {
		s, err := term(tt.Subject)
		if err != nil {
			return nil, err
		}
		p, err := term(tt.Predicate)
		if err != nil {
			return nil, err
		}
		id := merge.Topic{Subject: s, Predicate: p}.ConflictID()
		tn := x.TallyTopic(run, t.Round, id)
		add(node, ns.RoundTopic, tn)
		out = append(out, quad.Make(tn, ns.RDFType, x.IRI(ns.ClassTallyTopic), g))
		add(tn, ns.TallySubject, s)
		add(tn, ns.TallyPredicate, p)
		add(tn, ns.TallyStatus, ns.String(tt.Status))
		if tt.DecidedIn > 0 {
			add(tn, ns.TallyDecidedIn, integer(tt.DecidedIn))
		}
		for _, o := range tt.Winner {
			v, err := term(o)
			if err != nil {
				return nil, err
			}
			add(tn, ns.TallyWinner, v)
		}
		for k, b := range tt.Ballots {
			bn := x.Ballot(run, t.Round, id, k+1)
			out = append(out, quad.Make(bn, ns.RDFType, x.IRI(ns.ClassBallot), g))
			add(tn, ns.TallyBallot, bn)
			add(bn, ns.BallotVotes, integer(len(b.Agents)))
			for _, o := range b.Objects {
				v, err := term(o)
				if err != nil {
					return nil, err
				}
				add(bn, ns.BallotObject, v)
			}
			for _, a := range b.Agents {
				add(bn, ns.BallotAgent, x.Agent(MemberID(a)))
			}
		}
	}
	return out, nil
}

// addVotes records findings fs as the votes of running council step step
// of run id, in one write; votes it already has are not repeated.
func (e *Engine) addVotes(ctx context.Context, rec *record, id, step string, attempt int, fs []teammanager.Finding, now time.Time) error {
	votes, err := e.checkVotes(rec.Team, fs, now)
	if err != nil {
		return fmt.Errorf("run %s: step %s: %w", id, step, err)
	}
	_, err = e.update(ctx, id, func(c *change, _ *Def, _ *plan) error {
		i, err := running(c, step, attempt, StepRunning)
		if err != nil {
			return err
		}
		s := &c.rec.Steps[i]
		for _, v := range votes {
			if !slices.ContainsFunc(s.Votes, func(o Vote) bool {
				return o.Subject == v.Subject && o.Predicate == v.Predicate && o.Object == v.Object && o.Confidence == v.Confidence
			}) {
				s.Votes = append(s.Votes, v)
			}
		}
		return nil
	})
	return err
}

// writeBallots writes, once a council's tally is final, each voter's
// counted votes (finalBallots) to its member graph of the run's team,
// before settle completes the members: so the team's merge (consensus,
// with the council's threshold and tie-breaker) reads each member's last
// vote only. The findings keep the votes' times, so a retry writes the
// same findings; members already finished (a retry after a crash) have
// theirs.
func (e *Engine) writeBallots(ctx context.Context, rec *record) error {
	if rec.Type != Council || len(rec.Rounds) == 0 || !rec.Rounds[len(rec.Rounds)-1].Final {
		return nil
	}
	ballots, err := rec.finalBallots()
	if err != nil {
		return fmt.Errorf("run %s: %w", rec.ID, err)
	}
	for _, a := range slices.Sorted(maps.Keys(ballots)) {
		if st := rec.Members[a]; st == teammanager.Completed || st == teammanager.Failed || len(ballots[a]) == 0 {
			continue
		}
		if _, err := e.tm.AddFindings(ctx, rec.Team, MemberID(a), ballots[a]); err != nil && !errors.Is(err, teammanager.ErrMemberFinished) {
			return fmt.Errorf("run %s: ballots of %s: %w", rec.ID, a, err)
		}
	}
	return nil
}
