package merge

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/cayleygraph/quad"
)

// Strategy fuses the findings of a team's members. Merge must be a pure function of its input: it must
// not modify in (including the slices it holds) and must return the same Result for the same input,
// whatever the order of members, findings and resolutions.
type Strategy interface {
	Merge(in Input) (Result, error)
}

// ContextStrategy is a Strategy that can be stopped. MergeContext is Merge under ctx: when ctx ends
// before the merge does, it returns soon after with an error matching ctx.Err() (errors.Is) and no
// result. A host that has a context (the team manager, MergeWith) prefers MergeContext to Merge. The
// built-in strategies and those of PerTopic are ContextStrategies; they check ctx between topics.
type ContextStrategy interface {
	Strategy
	MergeContext(ctx context.Context, in Input) (Result, error)
}

// MergeWith runs s on in under ctx: a ContextStrategy with MergeContext (so that it stops when ctx
// ends), any other Strategy, which cannot be told to stop, with Merge. Either runs in a goroutine of
// its own that MergeWith stops waiting for when ctx ends: it then returns at once with ctx's error
// (errors.Is matches context.Canceled or context.DeadlineExceeded), and the strategy's goroutine is
// left to run to its end, its result (or panic) discarded; a strategy that never returns (a
// ContextStrategy that does not watch its ctx, too) keeps that goroutine forever, but not the caller.
// A panic of s while MergeWith waits is raised again in the caller's goroutine, and a runtime.Goexit
// of s ends the caller's goroutine, as they would if s ran in it.
// When ctx has ended once the strategy returns, its result is discarded too: MergeWith returns a
// result only for a merge that finished while ctx was live.
func MergeWith(ctx context.Context, s Strategy, in Input) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	run := s.Merge
	if cs, ok := s.(ContextStrategy); ok {
		run = func(in Input) (Result, error) { return cs.MergeContext(ctx, in) }
	}
	type outcome struct {
		res      Result
		err      error
		panicked bool
		p        any
		goexit   bool // s called runtime.Goexit
	}
	done := make(chan outcome, 1) // buffered: a goroutine nobody waits for any more does not block
	go func() {
		var o outcome
		returned := false
		defer func() {
			if r := recover(); r != nil {
				o = outcome{panicked: true, p: r}
			} else if !returned {
				o = outcome{goexit: true}
			}
			done <- o
		}()
		o.res, o.err = run(in)
		returned = true
	}()
	select {
	case <-ctx.Done():
		return Result{}, ctx.Err()
	case o := <-done:
		if o.panicked {
			panic(o.p)
		}
		if o.goexit {
			runtime.Goexit() // as if s had run in this goroutine
		}
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		return o.res, o.err
	}
}

// StrategyFunc adapts a function to Strategy.
type StrategyFunc func(in Input) (Result, error)

// Merge calls f(in).
func (f StrategyFunc) Merge(in Input) (Result, error) { return f(in) }

// Claim is what one completed member asserted about one object on a topic, after de-duplication: a
// member makes at most one claim per (topic, object) however many findings repeat it.
type Claim struct {
	Agent       string
	Role        string     // the member's Role
	Critical    bool       // the member's Critical
	Object      quad.Value // normal form; equal RDF terms are identical Go values within a TopicView
	FindingIDs  []string   // sorted, de-duplicated
	Confidence  float64    // the highest confidence among the findings, with 0 read as 1
	AssertedAt  time.Time  // the latest AssertedAt among the findings, in UTC
	CompletedAt time.Time  // the member's CompletedAt, in UTC
}

// TopicView is the evidence on one topic handed to a Decider: every claim of every completed member
// that spoke on it, sorted by agent and then by object (CompareTerms). It has at least one claim.
//
// Objects that are the same RDF term (language tags differing only in case, xsd:string versus plain
// literals) have been unified to one Go value, so objects may be compared with == and used as map keys.
// Among language-tag spellings, the one sorting first by bytes is used.
type TopicView struct {
	Topic  Topic
	Claims []Claim
	Team   Team // Input.Team
}

// Speakers returns the sorted ids of the members with at least one claim on the topic.
func (v TopicView) Speakers() []string {
	var out []string
	for _, c := range v.Claims {
		if len(out) == 0 || out[len(out)-1] != c.Agent {
			out = append(out, c.Agent)
		}
	}
	return out
}

// Objects returns the distinct objects claimed on the topic, sorted by CompareTerms.
func (v TopicView) Objects() []quad.Value {
	seen := make(map[quad.Value]bool, len(v.Claims))
	var out []quad.Value
	for _, c := range v.Claims {
		if !seen[c.Object] {
			seen[c.Object] = true
			out = append(out, c.Object)
		}
	}
	slices.SortFunc(out, CompareTerms)
	return out
}

// Decision is a Decider's verdict on one topic: either the objects to keep (possibly none), or a
// non-empty Conflict reason, in which case Keep must be empty and a conflict record listing every
// candidate is produced.
//
// Confidence, if not nil, gives the fused confidence of each kept object (Confidence[i] for Keep[i],
// each in [0, 1]; 0 means the default). When nil, or for a 0 entry, a fact's confidence is the highest
// confidence among its supporters' claims (see Fact.Confidence).
type Decision struct {
	Keep       []quad.Value
	Conflict   string
	Confidence []float64
}

// A Decider decides one topic. It receives Options with defaults applied (Threshold is never 0). It must
// be deterministic and depend only on its arguments; it must not retain or modify v.
type Decider func(v TopicView, opts Options) Decision

// PerTopic returns a Strategy that does everything common to the built-in strategies — validating and
// normalising the input, ignoring findings of members that did not complete, collapsing repeated
// assertions into one Claim per member and object, applying resolutions, building the report and
// sorting — and asks d to decide each unresolved topic. The Result's Strategy field is set to name.
// Every built-in strategy is a PerTopic strategy; custom strategies are easiest written as one.
func PerTopic(name string, d Decider) Strategy {
	return perTopic{name: name, decide: d}
}

type perTopic struct {
	name   string
	decide Decider
}

func (p perTopic) Merge(in Input) (Result, error) {
	return run(context.Background(), p.name, in, p.decide)
}

// The strategies of PerTopic and the built-ins can be stopped.
var (
	_ ContextStrategy = perTopic{}
	_ ContextStrategy = ConfidenceWeighted{}
	_ ContextStrategy = Consensus{}
)

// MergeContext implements ContextStrategy.
func (p perTopic) MergeContext(ctx context.Context, in Input) (Result, error) {
	return run(ctx, p.name, in, p.decide)
}

// member is the merge-time state of one input member.
type member struct {
	m           Member
	completedAt time.Time
	contributed int
	kept        int
	ignored     int
}

type claimKey struct {
	agent string
	obj   objKey
}

type claimAcc struct {
	agent string
	obj   quad.Value
	key   objKey
	ids   []string
	conf  float64
	at    time.Time
}

type topicAcc struct {
	topic  Topic
	claims map[claimKey]*claimAcc
	// canon is the normal-form value used for each distinct object on the topic.
	canon map[objKey]quad.Value
	res   *resolutionAcc
}

type resolutionAcc struct {
	by   string
	at   time.Time
	objs []quad.Value // normal form, distinct, sorted
	keys []objKey     // parallel to objs
	// clash is set when another resolution of the topic at the same time chose different objects; it
	// is an error only if no later resolution supersedes both.
	clash error
}

func normOptions(o Options) (Options, error) {
	if math.IsNaN(o.Threshold) || o.Threshold < 0 || o.Threshold > 1 {
		return o, fmt.Errorf("threshold %v not in [0, 1]: %w", o.Threshold, ErrInvalidOptions)
	}
	if o.Threshold == 0 {
		o.Threshold = DefaultThreshold
	}
	return o, nil
}

func normTime(t time.Time) time.Time { return t.UTC().Round(0) }

// canonLess reports whether the spelling a should replace b as the canonical value for one object key.
// Only language tags can differ in spelling.
func canonLess(a, b quad.Value) bool { return CompareTerms(a, b) < 0 }

// run merges in with the PerTopic strategy named name and decider decide. Its phases: normalise the
// options, index the members, gather the findings of completed members into topics, apply the
// resolutions, decide each topic in topic order, and build the report. It returns the first error met,
// in that order, and then no result; it does not modify in. When ctx ends, it stops before the next
// topic and returns ctx.Err().
func run(ctx context.Context, name string, in Input, decide Decider) (Result, error) {
	opts, err := normOptions(in.Options)
	if err != nil {
		return Result{}, err
	}
	members, err := indexMembers(in.Members)
	if err != nil {
		return Result{}, err
	}
	topics, ignored, err := gatherFindings(members, in.Findings)
	if err != nil {
		return Result{}, err
	}
	if err := addResolutions(topics, in.Resolutions); err != nil {
		return Result{}, err
	}
	order := sortedTopics(topics)
	res := Result{Strategy: name, Facts: []Fact{}, Conflicts: []Conflict{}}
	for _, t := range order {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		claims := t.sortedClaims()
		for _, c := range claims {
			members[c.agent].contributed++
		}
		if err := t.addOutcome(&res, claims, in.Team, members, opts, decide); err != nil {
			return Result{}, err
		}
	}
	res.Report = Report{
		Members:   memberReports(members, res.Facts),
		Topics:    len(order),
		Kept:      len(res.Facts),
		Conflicts: len(res.Conflicts),
		Ignored:   ignored,
		MergedAt:  opts.Now,
	}
	return res, nil
}

// indexMembers returns the merge-time state of each member, by agent id, with CompletedAt normalised.
// A member with an empty agent id or an invalid status, or listed twice, is an ErrInvalidMember.
func indexMembers(ms []Member) (map[string]*member, error) {
	members := make(map[string]*member, len(ms))
	for _, m := range ms {
		if m.Agent == "" {
			return nil, fmt.Errorf("member with empty agent id: %w", ErrInvalidMember)
		}
		if !m.Status.Valid() {
			return nil, fmt.Errorf("member %q: status %q: %w", m.Agent, m.Status, ErrInvalidMember)
		}
		if _, dup := members[m.Agent]; dup {
			return nil, fmt.Errorf("member %q listed twice: %w", m.Agent, ErrInvalidMember)
		}
		members[m.Agent] = &member{m: m, completedAt: normTime(m.CompletedAt)}
	}
	return members, nil
}

// gatherFindings collects the findings of completed members into claims per topic. It returns the
// topics and the number of findings ignored because their agent is not a completed member (counted
// also on the member when it is one). A finding that does not validate is reported as a
// *FindingError, for the first such finding in input order.
func gatherFindings(members map[string]*member, findings []Finding) (map[Topic]*topicAcc, int, error) {
	topics := make(map[Topic]*topicAcc)
	ignored := 0
	for i := range findings {
		f := &findings[i]
		mem := members[f.Agent]
		if mem == nil || mem.m.Status != Completed {
			ignored++
			if mem != nil {
				mem.ignored++
			}
			continue
		}
		if err := addFinding(topics, f); err != nil {
			return nil, 0, &FindingError{ID: f.ID, Agent: f.Agent, Err: err}
		}
	}
	return topics, ignored, nil
}

// sortedTopics returns the topics sorted by Topic.Compare.
func sortedTopics(topics map[Topic]*topicAcc) []*topicAcc {
	order := make([]*topicAcc, 0, len(topics))
	for _, t := range topics {
		order = append(order, t)
	}
	slices.SortFunc(order, func(a, b *topicAcc) int { return a.topic.Compare(b.topic) })
	return order
}

// addOutcome appends the outcome of topic t, with its sorted claims, to res: the facts of its
// resolution when it has one (the decider is not asked), nothing when no completed member spoke on it,
// else what decide says (a conflict, or the kept objects' facts in CompareTerms order). A decision that
// breaks the Decision contract is an ErrInvalidDecision, and then res is left unchanged.
func (t *topicAcc) addOutcome(res *Result, claims []*claimAcc, team Team, members map[string]*member, opts Options, decide Decider) error {
	if t.res != nil {
		for i, o := range t.res.objs {
			f := t.fact(claims, t.res.keys[i], o)
			f.ResolvedBy = t.res.by
			res.Facts = append(res.Facts, f)
		}
		return nil
	}
	if len(claims) == 0 {
		return nil
	}
	d := decide(t.view(team, claims, members), opts)
	if d.Conflict != "" {
		if len(d.Keep) != 0 {
			return fmt.Errorf("topic %s: %w: conflict %q reported with objects kept", t.topic.Key(), ErrInvalidDecision, d.Conflict)
		}
		res.Conflicts = append(res.Conflicts, t.conflict(claims, d.Conflict))
		return nil
	}
	keep, conf, err := t.kept(d)
	if err != nil {
		return err
	}
	for _, k := range keep {
		f := t.fact(claims, k, t.canon[k])
		if c, ok := conf[k]; ok {
			f.Confidence = c
		}
		res.Facts = append(res.Facts, f)
	}
	return nil
}

// kept checks the objects a decision without conflict keeps on t and returns their distinct keys,
// sorted by CompareTerms of their canonical values, with the confidences the decision gives them (nil
// when it gives none; a 0 entry gives none). It is an ErrInvalidDecision when the confidences do not
// match the kept objects one for one, when a kept object is not a valid object or was not asserted on
// t, or when a confidence is not in [0, 1]; the first such fault in Keep order is reported.
func (t *topicAcc) kept(d Decision) ([]objKey, map[objKey]float64, error) {
	if d.Confidence != nil && len(d.Confidence) != len(d.Keep) {
		return nil, nil, fmt.Errorf("topic %s: %w: %d confidences for %d kept objects", t.topic.Key(), ErrInvalidDecision, len(d.Confidence), len(d.Keep))
	}
	keep := make([]objKey, 0, len(d.Keep))
	var conf map[objKey]float64
	for i, o := range d.Keep {
		_, k, err := normObject(o)
		if err != nil {
			return nil, nil, fmt.Errorf("topic %s: %w: kept object: %w", t.topic.Key(), ErrInvalidDecision, err)
		}
		if _, ok := t.canon[k]; !ok {
			return nil, nil, fmt.Errorf("topic %s: %w: kept object %s was not asserted", t.topic.Key(), ErrInvalidDecision, quad.StringOf(o))
		}
		if !slices.Contains(keep, k) {
			keep = append(keep, k)
		}
		if d.Confidence != nil && d.Confidence[i] != 0 {
			c := d.Confidence[i]
			if !(c >= 0 && c <= 1) {
				return nil, nil, fmt.Errorf("topic %s: %w: confidence %v of %s not in [0, 1]", t.topic.Key(), ErrInvalidDecision, c, quad.StringOf(o))
			}
			if conf == nil {
				conf = map[objKey]float64{}
			}
			conf[k] = c
		}
	}
	slices.SortFunc(keep, func(a, b objKey) int { return CompareTerms(t.canon[a], t.canon[b]) })
	return keep, conf, nil
}

// memberReports counts, for each member, the facts it supports, and returns the members' reports
// sorted by agent.
func memberReports(members map[string]*member, facts []Fact) []MemberReport {
	for _, f := range facts {
		for _, a := range f.Supporters {
			members[a].kept++
		}
	}
	out := make([]MemberReport, 0, len(members))
	for _, m := range members {
		out = append(out, MemberReport{
			Agent:       m.m.Agent,
			Status:      m.m.Status,
			Contributed: m.contributed,
			Kept:        m.kept,
			Ignored:     m.ignored,
		})
	}
	slices.SortFunc(out, func(a, b MemberReport) int { return strings.Compare(a.Agent, b.Agent) })
	return out
}

func addFinding(topics map[Topic]*topicAcc, f *Finding) error {
	if f.ID == "" {
		return fmt.Errorf("empty finding id: %w", ErrInvalidFinding)
	}
	s, err := normNode(f.Subject)
	if err != nil {
		return fmt.Errorf("subject: %w", err)
	}
	p, err := normPredicate(f.Predicate)
	if err != nil {
		return fmt.Errorf("predicate: %w", err)
	}
	o, k, err := normObject(f.Object)
	if err != nil {
		return fmt.Errorf("object: %w", err)
	}
	conf := f.Confidence
	if math.IsNaN(conf) || conf < 0 || conf > 1 {
		return fmt.Errorf("%v: %w", conf, ErrInvalidConfidence)
	}
	if conf == 0 {
		conf = 1
	}
	t := getTopic(topics, Topic{Subject: s, Predicate: p})
	t.addCanon(k, o)
	ck := claimKey{agent: f.Agent, obj: k}
	at := normTime(f.AssertedAt)
	c := t.claims[ck]
	if c == nil {
		t.claims[ck] = &claimAcc{agent: f.Agent, key: k, ids: []string{f.ID}, conf: conf, at: at}
		return nil
	}
	c.ids = append(c.ids, f.ID)
	c.conf = max(c.conf, conf)
	if at.After(c.at) {
		c.at = at
	}
	return nil
}

func getTopic(topics map[Topic]*topicAcc, tp Topic) *topicAcc {
	t := topics[tp]
	if t == nil {
		t = &topicAcc{topic: tp, claims: make(map[claimKey]*claimAcc), canon: make(map[objKey]quad.Value)}
		topics[tp] = t
	}
	return t
}

func (t *topicAcc) addCanon(k objKey, o quad.Value) {
	old, ok := t.canon[k]
	// Only language tags can be spelled differently for one key.
	if !ok || k.kind == kindLang && canonLess(o, old) {
		t.canon[k] = o
	}
}

func addResolutions(topics map[Topic]*topicAcc, rs []Resolution) error {
	// Conflict ids are looked up among the topics spoken on, never among topics that only earlier
	// resolutions introduced, so that the outcome does not depend on the order of resolutions.
	var byID map[string]Topic
	for _, r := range rs {
		if r.Topic.Subject == nil && r.Topic.Predicate == nil && byID == nil {
			byID = make(map[string]Topic, len(topics))
			for tp := range topics {
				byID[tp.ConflictID()] = tp
			}
		}
	}
	for i, r := range rs {
		fail := func(err error) error {
			return fmt.Errorf("resolution %d (conflict %q): %w", i, r.ConflictID, err)
		}
		if r.By == "" {
			return fail(fmt.Errorf("no resolver: %w", ErrInvalidResolution))
		}
		var tp Topic
		if r.Topic.Subject == nil && r.Topic.Predicate == nil {
			if r.ConflictID == "" {
				return fail(fmt.Errorf("neither topic nor conflict id: %w", ErrInvalidResolution))
			}
			var ok bool
			if tp, ok = byID[r.ConflictID]; !ok {
				return fail(ErrUnknownConflict)
			}
		} else {
			s, err := normNode(r.Topic.Subject)
			if err != nil {
				return fail(fmt.Errorf("%w: subject: %w", ErrInvalidResolution, err))
			}
			p, err := normPredicate(r.Topic.Predicate)
			if err != nil {
				return fail(fmt.Errorf("%w: predicate: %w", ErrInvalidResolution, err))
			}
			tp = Topic{Subject: s, Predicate: p}
			if r.ConflictID != "" && r.ConflictID != tp.ConflictID() {
				return fail(fmt.Errorf("%w: conflict id does not match topic %s", ErrInvalidResolution, tp.Key()))
			}
		}
		ra := &resolutionAcc{by: r.By, at: normTime(r.At)}
		canon := make(map[objKey]quad.Value, len(r.Objects))
		for _, o := range r.Objects {
			n, k, err := normObject(o)
			if err != nil {
				return fail(fmt.Errorf("%w: object: %w", ErrInvalidResolution, err))
			}
			if old, ok := canon[k]; !ok || canonLess(n, old) {
				canon[k] = n
			}
		}
		for k := range canon {
			ra.keys = append(ra.keys, k)
		}
		slices.SortFunc(ra.keys, func(a, b objKey) int { return CompareTerms(canon[a], canon[b]) })
		for _, k := range ra.keys {
			ra.objs = append(ra.objs, canon[k])
		}

		t := getTopic(topics, tp)
		switch old := t.res; {
		case old == nil || ra.at.After(old.at):
			t.res = ra
		case ra.at.Equal(old.at):
			clash := old.clash
			if clash == nil && !slices.Equal(ra.keys, old.keys) {
				clash = fmt.Errorf("%w: topic %s resolved twice at %s", ErrConflictingResolutions, tp.Key(), ra.at.Format(time.RFC3339Nano))
			}
			if ra.by < old.by || ra.by == old.by && slices.CompareFunc(ra.objs, old.objs, CompareTerms) < 0 {
				t.res = ra
			}
			t.res.clash = clash
		}
	}
	// Only a clash among the latest resolutions of a topic is an error: an earlier one is superseded
	// whatever the order in which the resolutions came. The topics are checked in order, so that the
	// error reported does not depend on the input order either.
	for _, t := range sortedTopics(topics) {
		if t.res != nil && t.res.clash != nil {
			return t.res.clash
		}
	}
	return nil
}

// sortedClaims returns the topic's claims sorted by agent, then object.
func (t *topicAcc) sortedClaims() []*claimAcc {
	out := make([]*claimAcc, 0, len(t.claims))
	for _, c := range t.claims {
		c.obj = t.canon[c.key]
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b *claimAcc) int {
		if c := strings.Compare(a.agent, b.agent); c != 0 {
			return c
		}
		return CompareTerms(a.obj, b.obj)
	})
	return out
}

func (t *topicAcc) view(team Team, claims []*claimAcc, members map[string]*member) TopicView {
	v := TopicView{Topic: t.topic, Claims: make([]Claim, len(claims)), Team: team}
	for i, c := range claims {
		m := members[c.agent]
		v.Claims[i] = Claim{
			Agent:       c.agent,
			Role:        m.m.Role,
			Critical:    m.m.Critical,
			Object:      c.obj,
			FindingIDs:  sortedIDs(c.ids),
			Confidence:  c.conf,
			AssertedAt:  c.at,
			CompletedAt: members[c.agent].completedAt,
		}
	}
	return v
}

// fact builds the fact for object o (key k) on t, with the members that claimed it as supporters and
// the default confidence: the highest of their claims' (1 when there is none).
func (t *topicAcc) fact(claims []*claimAcc, k objKey, o quad.Value) Fact {
	f := Fact{Subject: t.topic.Subject, Predicate: t.topic.Predicate, Object: o, Supporters: []string{}}
	var ids []string
	for _, c := range claims {
		if c.key == k {
			f.Supporters = append(f.Supporters, c.agent)
			ids = append(ids, c.ids...)
			f.Confidence = max(f.Confidence, c.conf)
		}
	}
	if len(f.Supporters) == 0 {
		f.Confidence = 1
	}
	f.FindingIDs = sortedIDs(ids)
	return f
}

func (t *topicAcc) conflict(claims []*claimAcc, reason string) Conflict {
	c := Conflict{ID: t.topic.ConflictID(), Topic: t.topic, Reason: reason}
	byKey := make(map[objKey]int)
	ids := make([][]string, 0)
	for _, cl := range claims {
		i, ok := byKey[cl.key]
		if !ok {
			i = len(c.Candidates)
			byKey[cl.key] = i
			c.Candidates = append(c.Candidates, Candidate{Object: cl.obj})
			ids = append(ids, nil)
		}
		c.Candidates[i].Agents = append(c.Candidates[i].Agents, cl.agent)
		ids[i] = append(ids[i], cl.ids...)
	}
	for i := range c.Candidates {
		c.Candidates[i].FindingIDs = sortedIDs(ids[i])
	}
	slices.SortFunc(c.Candidates, func(a, b Candidate) int { return CompareTerms(a.Object, b.Object) })
	return c
}

func sortedIDs(ids []string) []string {
	out := slices.Clone(ids)
	if out == nil {
		out = []string{}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
