package teammanager

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
	"github.com/cortexgraph/cortex/internal/ctxcause"
	"github.com/cortexgraph/cortex/merge"
	ns "github.com/cortexgraph/cortex/namespace"
)

// MergeTeamResults merges the findings of the team's completed members with
// the team's strategy and writes the outcome:
//
//   - the shared graph holds exactly the fused triples, as plain triples;
//   - each fused triple is also in exactly one fact set (NS.FactSet), a
//     named graph per attribution: the facts with the same supporting
//     agents, resolver and fused confidence (the strategy's, rounded to the
//     nearest 0.01; see "Provenance cost" in the package documentation)
//     share one;
//   - the provenance graph holds the merge run (a prov:Activity with
//     strategy, start and end time) and describes each fact set (fact:team
//     the team, prov:wasAttributedTo each supporting agent,
//     fact:confidence, fact:agent for facts chosen by a manual resolution,
//     prov:wasGeneratedBy the run, prov:generatedAtTime); fact sets left
//     empty are removed with their description, merge run nodes are kept
//     as history. The findings behind a fact are those of its supporting
//     agents with the same triple (up to the case of a language tag);
//   - the conflict graph holds a record for every undecided topic
//     (conflict:team the team); resolved records are kept and their
//     resolutions re-applied;
//   - the team's link to the run, and, when the merge read the team
//     finished, the removal of its due-merge marker (see "Merges that
//     always happen" in the package documentation) and, if it read the
//     team as timed out, the record of that timeout (the team's failure).
//
// The strategy gets every member (agent, status, role, criticality), the
// team (id, name, context), every member's findings (those of members that
// did not complete are counted as ignored, not merged) and the recorded
// resolutions. The report's facts carry their stored confidence; a custom
// strategy's confidence outside [0, 1], a fact it lists twice, a conflict
// it lists twice or whose id is not its topic's (merge.Topic.ConflictID),
// or provenance that the input does not bear out (supporters, finding ids
// and resolvers other than merge.Fact defines them, an invented fact, a
// fact credited to a resolver that did not choose it,
// candidates other than merge.Candidate defines them) fail the
// merge (merge.ErrInvalidDecision), and so does its panic
// (ErrStrategyPanicked).
//
// The report's Kept and Conflicts, and each member's Kept, are counted
// from the result's facts and conflicts, whatever a custom strategy's
// report says. Merging is deterministic: the result is taken in the order
// of package merge whatever order a custom strategy lists its facts,
// conflicts and candidates in, and when it equals the last merge's (same
// facts, supporters, findings, confidences and conflicts), nothing of it is
// written (only a due-merge marker is cleared, and a timeout the merge
// read recorded) and the report says
// Unchanged. The whole change set (shared, provenance and
// conflict graphs, the team's link to the run) is one atomic step: readers
// see the previous merge or this one, never a mix, and a crash in the middle
// leaves the previous one. A change set of more than cortex.MaxDeltaQuads
// quads (a few hundred facts) is journaled by the store, which holds its
// other transactions back while the keys are written (see
// cortex.Namespace.Apply).
//
// The strategy runs under ctx: when ctx ends before a custom strategy
// returns (a plain merge.Strategy, or a ContextStrategy that does not
// stop), the merge returns ctx's error
// at once, writes nothing and releases the team's merge lock, and the
// strategy's result, when it comes, is discarded (see merge.MergeWith).
//
// Merges of one team are serialised within the Manager; a merge waiting
// for another of its team stops waiting, with ctx's error, when ctx ends. A merge whose
// team another Manager over the same namespace merged, deleted, restored
// a snapshot of or resolved a conflict of while it ran starts again (see
// ErrConcurrentMerge).
func (m *Manager) MergeTeamResults(ctx context.Context, teamID string) (_ MergeReport, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	mu := m.mergeLock(teamID)
	if err := mu.LockContext(ctx); err != nil {
		return MergeReport{}, fmt.Errorf("merge team %s: %w", IDText(teamID), err)
	}
	defer mu.Unlock()
	return m.mergeLocked(ctx, teamID, false)
}

// mergeLocked is MergeTeamResults for a caller that holds the team's merge
// lock; auto selects the bounds of an automatic merge (AutoMergeTimeout).
func (m *Manager) mergeLocked(ctx context.Context, teamID string, auto bool) (MergeReport, error) {
	for attempt := 1; ; attempt++ {
		rep, err := m.mergeOnce(ctx, teamID, auto)
		if !errors.Is(err, ErrConcurrentMerge) || attempt == maxMergeAttempts || ctx.Err() != nil {
			return rep, err
		}
	}
}

// mergeHook, when set by a test, runs in every merge between its reads and
// its write.
var mergeHook func()

// maxMergeAttempts bounds the attempts of a merge that keeps racing with
// other Managers (see ErrConcurrentMerge).
const maxMergeAttempts = 8

func (m *Manager) mergeOnce(ctx context.Context, teamID string, auto bool) (MergeReport, error) {
	// bound returns the context of a phase of the merge: ctx, bounded on
	// its own by autoMergeTimeout (ending with cause) if auto.
	bound := func(cause error) (context.Context, context.CancelFunc) {
		if !auto {
			return ctx, func() {}
		}
		return autoMergeBound(ctx, cause)
	}
	start := m.now()
	// Read before the team: a restore committed after it makes the
	// merge's write start again (checkUnchanged).
	restores, err := restoreCount(ctx, m.n, teamID)
	if err != nil {
		return MergeReport{}, err
	}
	t, err := m.readTeamNow(ctx, teamID)
	if err != nil {
		return MergeReport{}, err
	}
	if t.Lifecycle == LifecycleDisbanded {
		return MergeReport{}, fmt.Errorf("merge team %s: %w; its graphs are read-only", IDText(teamID), ErrTeamDisbanded)
	}
	strat, err := m.cfg.lookup(t.Strategy)
	if err != nil {
		return MergeReport{}, fmt.Errorf("merge team %s: %w", IDText(teamID), err)
	}
	in := merge.Input{
		Team:    merge.Team{ID: t.ID, Name: t.Name, Context: t.Context},
		Options: merge.Options{Threshold: t.Threshold, TieBreaker: t.TieBreaker, Now: start},
	}
	conf := map[string]float64{}
	var agents, missing []string
	for _, mb := range t.Members {
		in.Members = append(in.Members, merge.Member{
			Agent: mb.AgentID, Status: mb.Status, CompletedAt: mb.CompletedAt, Role: mb.Role, Critical: mb.Critical,
		})
		agents = append(agents, mb.AgentID)
		if mb.Status != Completed {
			missing = append(missing, mb.AgentID)
		}
	}
	// Every member's findings: the strategy merges the completed members'
	// and counts the others' as ignored.
	all, err := m.readFindingsOf(ctx, teamID, agents)
	if err != nil {
		return MergeReport{}, err
	}
	n := 0
	for _, fs := range all {
		n += len(fs)
	}
	in.Findings = make([]merge.Finding, 0, n)
	for _, fs := range all {
		for _, f := range fs {
			in.Findings = append(in.Findings, merge.Finding{
				ID: f.ID, Agent: f.Agent, Subject: f.Subject, Predicate: f.Predicate, Object: f.Object,
				Confidence: f.Confidence, AssertedAt: f.AssertedAt,
			})
			if f.Confidence != 0 {
				conf[f.ID] = f.Confidence
			}
		}
	}
	cg, err := m.readConflictGraph(ctx, teamID)
	if err != nil {
		return MergeReport{}, err
	}
	in.Resolutions = cg.resolutions(m.ns)
	sctx, cancel := bound(&autoMergeTimeoutError{autoMergeTimeout})
	res, err := runStrategy(sctx, strat, cloneInput(in))
	err = ctxcause.With(sctx, err)
	cancel()
	if err != nil {
		return MergeReport{}, fmt.Errorf("merge team %s with %s: %w", IDText(teamID), t.Strategy, err)
	}
	res.Strategy = t.Strategy
	if err := checkResult(in, res); err != nil {
		return MergeReport{}, fmt.Errorf("merge team %s with %s: %w", IDText(teamID), t.Strategy, err)
	}
	res = sortResult(res)
	countResult(&res)
	for i := range res.Facts {
		c, err := storedConfidence(res.Facts[i], conf)
		if err != nil {
			f := &res.Facts[i]
			return MergeReport{}, fmt.Errorf("merge team %s with %s: fact %s %s %s: %w", IDText(teamID), t.Strategy,
				rdfio.FormatTerm(f.Subject), rdfio.FormatTerm(f.Predicate), rdfio.FormatTerm(f.Object), err)
		}
		res.Facts[i].Confidence = c
	}
	rep := MergeReport{
		Team: teamID, Strategy: t.Strategy, Facts: res.Facts, OpenConflicts: res.Conflicts, Missing: missing, Report: res.Report,
	}
	rep.MergeID = mergeID(res)
	// A merge that read the team finished saw all it will ever have: it
	// settles a due merge (clears the team's marker, and records a timeout
	// that no write had recorded).
	settles := Finished(t.Status)
	wctx, cancel := bound(&autoMergeWaitError{autoMergeTimeout, "its write"})
	defer cancel()
	if rep.MergeID == t.LastMerge {
		rep.Unchanged = true
		if settles && t.MergePending != "" {
			if err := m.settle(wctx, &t, restores, cg, &rep); err != nil {
				return MergeReport{}, fmt.Errorf("merge team %s: %w", IDText(teamID), ctxcause.With(wctx, err))
			}
		}
		return rep, nil
	}
	if err := m.writeMerge(wctx, &t, restores, res, &rep, cg, start, settles); err != nil {
		return MergeReport{}, fmt.Errorf("merge team %s: %w", IDText(teamID), ctxcause.With(wctx, err))
	}
	return rep, nil
}

// checkResult refuses a strategy's result that the team's records cannot
// hold as it says (a custom strategy's bug), with an error wrapping
// merge.ErrInvalidDecision: a fact listed twice (it would be in two fact
// sets), a topic in conflict twice, or a conflict whose id is not its
// topic's (Topic.ConflictID): a resolution of it could never apply, and
// every later merge of the team would fail on it. It also refuses a result
// whose provenance would be false (see checkProvenance).
func checkResult(in merge.Input, res merge.Result) error {
	if err := checkUnique(res); err != nil {
		return err
	}
	return checkProvenance(in, res)
}

// checkProvenance refuses, with an error wrapping merge.ErrInvalidDecision,
// a result of a strategy that says of the team's findings what they do not
// say, since the records would say it too (prov:wasAttributedTo, the
// findings Facts reads back behind a fact, a conflict's candidate links):
// a fact whose Supporters are not exactly the completed members that
// asserted its object on its topic, or whose FindingIDs are not exactly
// their findings of it (merge.Fact); a fact that no completed member
// asserted and no resolution chose (an invented fact); a ResolvedBy that is
// not the resolver of the fact's topic, or on a fact whose object that
// resolution did not choose (fact:agent would credit the resolver with
// it); an object a resolution chose that is no fact of the result (the
// resolution replaces the strategy's output for its topic); a conflict on
// a topic the result holds facts on (nothing is written for a conflict's
// topic until it is resolved, merge.Conflict), on a resolved topic or
// on one no completed member spoke on (its record, once resolved, could
// fail every later merge); a candidate without findings, or whose findings
// are not completed members' findings of its object on the conflict's
// topic, or not all of them, or whose Agents are not their authors; a
// candidate listed twice, or an object asserted on the topic that is no
// candidate (merge.Conflict: one candidate per distinct object).
func checkProvenance(in merge.Input, res merge.Result) error {
	key := func(s, p, o quad.Value) string {
		ok, err := merge.ObjectKey(o)
		if err != nil {
			ok = "\x01" + rdfio.FormatTerm(o) // matches no finding
		}
		return merge.Topic{Subject: s, Predicate: p}.Key() + "\x00" + ok
	}
	completed := map[string]bool{}
	for _, mb := range in.Members {
		if mb.Status == merge.Completed {
			completed[mb.Agent] = true
		}
	}
	type claim struct {
		agents []string // sorted, distinct
		ids    []string // sorted, distinct
	}
	claims := map[string]*claim{}
	type origin struct{ key, agent string }
	findings := map[string][]origin{}
	spoken := map[string]map[string]bool{} // topic key → the keys (key) of its claims
	for _, f := range in.Findings {
		if !completed[f.Agent] {
			continue
		}
		k := key(f.Subject, f.Predicate, f.Object)
		c := claims[k]
		if c == nil {
			c = &claim{}
			claims[k] = c
		}
		c.agents = append(c.agents, f.Agent)
		c.ids = append(c.ids, f.ID)
		findings[f.ID] = append(findings[f.ID], origin{k, f.Agent})
		tk := merge.Topic{Subject: f.Subject, Predicate: f.Predicate}.Key()
		if spoken[tk] == nil {
			spoken[tk] = map[string]bool{}
		}
		spoken[tk][k] = true
	}
	for _, c := range claims {
		slices.Sort(c.agents)
		c.agents = slices.Compact(c.agents)
		slices.Sort(c.ids)
		c.ids = slices.Compact(c.ids)
	}
	resolver := map[string]string{}        // conflict id → resolver
	chosen := map[string]map[string]bool{} // conflict id → the object keys it chose
	at := map[string]time.Time{}           // conflict id → the time of its resolution
	for _, r := range in.Resolutions {
		id := r.ConflictID
		if r.Topic.Subject != nil || r.Topic.Predicate != nil {
			id = r.Topic.ConflictID()
		}
		if _, ok := resolver[id]; ok && !r.At.After(at[id]) {
			continue // the latest resolution of a topic applies (merge.Resolution)
		}
		resolver[id], at[id] = r.By, r.At
		chosen[id] = map[string]bool{}
		for _, o := range r.Objects {
			if k, err := merge.ObjectKey(o); err == nil {
				chosen[id][k] = true
			}
		}
	}
	made := map[string]map[string]bool{} // conflict id → the object keys of its resolved facts
	decided := map[string]bool{}         // the keys of the topics with facts
	equal := func(a, b []string) bool { return slices.Equal(a, b) || len(a) == 0 && len(b) == 0 }
	for _, f := range res.Facts {
		fail := func(format string, args ...any) error {
			return fmt.Errorf("%w: fact %s %s %s: %s", merge.ErrInvalidDecision, rdfio.FormatTerm(f.Subject),
				rdfio.FormatTerm(f.Predicate), rdfio.FormatTerm(f.Object), fmt.Sprintf(format, args...))
		}
		var want claim
		if c := claims[key(f.Subject, f.Predicate, f.Object)]; c != nil {
			want = *c
		}
		cid := merge.Topic{Subject: f.Subject, Predicate: f.Predicate}.ConflictID()
		by := resolver[cid]
		ok, okErr := merge.ObjectKey(f.Object)
		switch {
		case !equal(f.Supporters, want.agents):
			return fail("supporters %q, but the completed members that asserted it are %q", f.Supporters, want.agents)
		case !equal(f.FindingIDs, want.ids):
			return fail("findings %q, but its supporters' findings of it are %q", f.FindingIDs, want.ids)
		case f.ResolvedBy != by:
			return fail("resolver %q, but its topic's resolver is %q", f.ResolvedBy, by)
		case len(want.agents) == 0 && f.ResolvedBy == "":
			return fail("no completed member asserted it (no supporters) and no resolution chose it")
		case f.ResolvedBy != "" && (okErr != nil || !chosen[cid][ok]):
			return fail("credited to resolver %q, but not chosen by its topic's resolution", f.ResolvedBy)
		}
		decided[merge.Topic{Subject: f.Subject, Predicate: f.Predicate}.Key()] = true
		if f.ResolvedBy != "" {
			if made[cid] == nil {
				made[cid] = map[string]bool{}
			}
			made[cid][ok] = true
		}
	}
	for _, c := range res.Conflicts {
		if _, ok := resolver[c.ID]; ok {
			return fmt.Errorf("%w: conflict %s on %s %s: the topic is resolved", merge.ErrInvalidDecision,
				c.ID, rdfio.FormatTerm(c.Topic.Subject), rdfio.FormatTerm(c.Topic.Predicate))
		}
		if decided[c.Topic.Key()] {
			return fmt.Errorf("%w: conflict %s on %s %s: the result holds facts on the topic", merge.ErrInvalidDecision,
				c.ID, rdfio.FormatTerm(c.Topic.Subject), rdfio.FormatTerm(c.Topic.Predicate))
		}
		objs := spoken[c.Topic.Key()]
		if objs == nil {
			return fmt.Errorf("%w: conflict %s on %s %s: no completed member spoke on the topic", merge.ErrInvalidDecision,
				c.ID, rdfio.FormatTerm(c.Topic.Subject), rdfio.FormatTerm(c.Topic.Predicate))
		}
		listed := map[string]bool{}
		for _, cd := range c.Candidates {
			if len(cd.FindingIDs) == 0 {
				return fmt.Errorf("%w: conflict %s: candidate %s has no findings", merge.ErrInvalidDecision, c.ID, rdfio.FormatTerm(cd.Object))
			}
			k := key(c.Topic.Subject, c.Topic.Predicate, cd.Object)
			if listed[k] {
				return fmt.Errorf("%w: conflict %s: candidate %s listed twice", merge.ErrInvalidDecision, c.ID, rdfio.FormatTerm(cd.Object))
			}
			listed[k] = true
			var agents []string
			for _, id := range cd.FindingIDs {
				i := slices.IndexFunc(findings[id], func(o origin) bool { return o.key == k })
				if i < 0 {
					return fmt.Errorf("%w: conflict %s: candidate %s: finding %q is no completed member's finding of it",
						merge.ErrInvalidDecision, c.ID, rdfio.FormatTerm(cd.Object), id)
				}
				if a := findings[id][i].agent; !slices.Contains(agents, a) {
					agents = append(agents, a)
				}
			}
			slices.Sort(agents)
			if !equal(cd.Agents, agents) {
				return fmt.Errorf("%w: conflict %s: candidate %s: agents %q, but its findings are by %q",
					merge.ErrInvalidDecision, c.ID, rdfio.FormatTerm(cd.Object), cd.Agents, agents)
			}
			ids := slices.Clone(cd.FindingIDs)
			slices.Sort(ids)
			if want := claims[k].ids; !slices.Equal(slices.Compact(ids), want) {
				return fmt.Errorf("%w: conflict %s: candidate %s: findings %q, but the completed members' findings of it are %q",
					merge.ErrInvalidDecision, c.ID, rdfio.FormatTerm(cd.Object), cd.FindingIDs, want)
			}
		}
		if n := len(objs) - len(listed); n > 0 {
			return fmt.Errorf("%w: conflict %s on %s %s: %d of the objects asserted on the topic are no candidate", merge.ErrInvalidDecision,
				c.ID, rdfio.FormatTerm(c.Topic.Subject), rdfio.FormatTerm(c.Topic.Predicate), n)
		}
	}
	// A resolution replaces the strategy's output for its topic: every
	// object it chose is a fact (its record says it was chosen).
	var left []string // (sorted: the error does not depend on the input's order)
	for id, ks := range chosen {
		for k := range ks {
			if !made[id][k] {
				left = append(left, id)
				break
			}
		}
	}
	if len(left) > 0 {
		id := slices.Min(left)
		return fmt.Errorf("%w: conflict %s: its resolver %q chose an object that is no fact of the result", merge.ErrInvalidDecision, id, resolver[id])
	}
	return nil
}

// sortResult returns res with its facts, conflicts and candidates in the
// order of package merge (facts by subject, predicate and object, conflicts
// by topic, candidates by object, a candidate's findings sorted), whatever
// order a custom strategy gave them in, and with their terms as the store
// keeps them and empty lists not nil: the merge id, and so whether a merge
// is Unchanged, and the report then depend on the result only, as Facts
// reads it back. The slices of res are not modified.
func sortResult(res merge.Result) merge.Result {
	res.Facts = slices.Clone(res.Facts)
	if res.Facts == nil {
		res.Facts = []merge.Fact{}
	}
	for i := range res.Facts {
		f := &res.Facts[i]
		f.Subject, f.Predicate, f.Object = storedTerm(f.Subject), storedTerm(f.Predicate), storedTerm(f.Object)
		f.Supporters, f.FindingIDs = nonNil(f.Supporters), nonNil(f.FindingIDs)
	}
	slices.SortStableFunc(res.Facts, func(a, b merge.Fact) int {
		if c := (merge.Topic{Subject: a.Subject, Predicate: a.Predicate}).Compare(merge.Topic{Subject: b.Subject, Predicate: b.Predicate}); c != 0 {
			return c
		}
		return merge.CompareTerms(a.Object, b.Object)
	})
	res.Conflicts = slices.Clone(res.Conflicts)
	if res.Conflicts == nil {
		res.Conflicts = []merge.Conflict{}
	}
	slices.SortStableFunc(res.Conflicts, func(a, b merge.Conflict) int { return a.Topic.Compare(b.Topic) })
	for i := range res.Conflicts {
		c := &res.Conflicts[i]
		c.Candidates = slices.Clone(c.Candidates)
		if c.Candidates == nil {
			c.Candidates = []merge.Candidate{}
		}
		for j := range c.Candidates {
			cd := &c.Candidates[j]
			ids := nonNil(slices.Clone(cd.FindingIDs))
			slices.Sort(ids)
			cd.Object, cd.Agents, cd.FindingIDs = storedTerm(cd.Object), nonNil(cd.Agents), ids
		}
		slices.SortStableFunc(c.Candidates, func(a, b merge.Candidate) int { return merge.CompareTerms(a.Object, b.Object) })
	}
	return res
}

// storedTerm returns v as the store keeps it (cortex.NormalizeTerm:
// "a"^^xsd:string is "a"), or v if the store refuses it.
func storedTerm(v quad.Value) quad.Value {
	if nv, err := cortex.NormalizeTerm(v); err == nil {
		return nv
	}
	return v
}

// nonNil returns s, or an empty slice for nil.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// countResult sets the counts of res's report that its facts and conflicts
// define (merge.Report, merge.MemberReport): Kept and Conflicts, and each
// member's Kept, the facts it supports. A custom strategy that filters a
// result may leave them as they were before.
func countResult(res *merge.Result) {
	res.Report.Kept, res.Report.Conflicts = len(res.Facts), len(res.Conflicts)
	if len(res.Report.Members) == 0 {
		return
	}
	kept := map[string]int{}
	for _, f := range res.Facts {
		for _, a := range f.Supporters {
			kept[a]++
		}
	}
	res.Report.Members = slices.Clone(res.Report.Members)
	for i := range res.Report.Members {
		res.Report.Members[i].Kept = kept[res.Report.Members[i].Agent]
	}
}

// checkUnique is the part of checkResult about facts and conflicts listed
// twice and conflict ids. A fact's object is compared as a merge compares
// objects (merge.ObjectKey): the same fact with language tags differing only
// in case is listed twice.
func checkUnique(res merge.Result) error {
	type triple struct {
		s, p quad.Value
		o    string
	}
	norm := func(v quad.Value) quad.Value {
		if nv, err := cortex.NormalizeTerm(v); err == nil {
			return nv
		}
		return v // (refused by the store when written)
	}
	// Objects as a merge compares them: "a"@en is "a"@EN, and
	// "a"^^xsd:string is "a".
	object := func(v quad.Value) string {
		if k, err := merge.ObjectKey(v); err == nil {
			return k
		}
		return "\x01" + rdfio.FormatTerm(norm(v)) // (refused by checkProvenance)
	}
	facts := make(map[triple]bool, len(res.Facts))
	for _, f := range res.Facts {
		k := triple{norm(f.Subject), norm(f.Predicate), object(f.Object)}
		if facts[k] {
			return fmt.Errorf("%w: fact %s %s %s listed twice", merge.ErrInvalidDecision,
				rdfio.FormatTerm(f.Subject), rdfio.FormatTerm(f.Predicate), rdfio.FormatTerm(f.Object))
		}
		facts[k] = true
	}
	conflicts := make(map[string]bool, len(res.Conflicts))
	for _, c := range res.Conflicts {
		if want := c.Topic.ConflictID(); c.ID != want {
			return fmt.Errorf("%w: conflict %q on %s %s: its id is not its topic's (%s)", merge.ErrInvalidDecision,
				c.ID, rdfio.FormatTerm(c.Topic.Subject), rdfio.FormatTerm(c.Topic.Predicate), want)
		}
		if conflicts[c.ID] {
			return fmt.Errorf("%w: conflict %s listed twice", merge.ErrInvalidDecision, c.ID)
		}
		conflicts[c.ID] = true
	}
	return nil
}

// cloneInput returns a copy of in whose slices are its own: a strategy
// that modifies its input (a custom one's bug; merge.Strategy forbids it)
// changes the copy, not the input its result is checked against.
func cloneInput(in merge.Input) merge.Input {
	in.Members = slices.Clone(in.Members)
	in.Findings = slices.Clone(in.Findings)
	in.Resolutions = slices.Clone(in.Resolutions)
	for i := range in.Resolutions {
		in.Resolutions[i].Objects = slices.Clone(in.Resolutions[i].Objects)
	}
	return in
}

// runStrategy runs strat on in under ctx (merge.MergeWith): a
// merge.ContextStrategy with MergeContext, any other strategy with Merge,
// in a goroutine of its own, which the merge stops waiting for when ctx ends,
// returning ctx's error with nothing written (and so releasing the team's
// merge lock) while that goroutine runs to its end and its result is
// discarded. A panic of the strategy (a custom one's bug) is returned as
// its error, wrapping ErrStrategyPanicked: it fails the merge as an error
// would, instead of the caller's goroutine, and of every later read of the
// team that retries the due merge.
func runStrategy(ctx context.Context, strat merge.Strategy, in merge.Input) (res merge.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = merge.Result{}, fmt.Errorf("%w: %v", ErrStrategyPanicked, r)
		}
	}()
	return merge.MergeWith(ctx, strat, in)
}

// settle clears the due-merge marker of team t, whose last merge already
// holds the result a merge computed (nothing else is written but a timeout
// not recorded yet), if the team's last merge and resolved conflicts are
// still what the merge read. Its events are rep's merge.completed (rep is
// Unchanged) and the team.status of a timeout it records.
func (m *Manager) settle(ctx context.Context, t *Team, restores int, cg *conflictGraph, rep *MergeReport) error {
	return m.commit(ctx, func(tx *cortex.Tx) error {
		if _, err := m.checkUnchanged(ctx, tx, t, restores, cg); err != nil {
			return err
		}
		st, err := m.readTeam(ctx, tx.Namespace().Dataset(), t.ID, "-")
		if err != nil {
			return err
		}
		before := st.team.Status
		m.stageSettled(tx, st)
		now := m.now()
		var evs []Event
		if st.team.Status != before {
			evs = append(evs, statusEvent(&st.team))
		}
		return m.stageEvents(ctx, tx, now, append(evs, m.mergeEvents(rep, nil, cg, now)...))
	})
}

// stageSettled stages, in tx, the failure of st's team if it has timed out
// and no write has recorded it, the removal of its due-merge marker, and
// the team's row, as st now has it.
func (m *Manager) stageSettled(tx *cortex.Tx, st *teamState) {
	if applyTimeout(&st.team, m.now()) {
		m.writeTeamStatus(st)
	}
	st.set(st.node, m.ns.IRI(ns.TeamMergePending), nil)
	st.set(st.node, m.ns.IRI(ns.TeamMergeError), nil)
	st.set(st.node, m.ns.IRI(ns.TeamMergeErrorKind), nil)
	tx.Remove(st.rm...)
	tx.Add(st.add...)
	m.pinTeam(tx, st.team.ID, st.add)
	m.putTeamRow(tx, st.team.ID, st.props[st.node])
}

// confidenceStep is the precision of stored fused confidences: a fact
// set's confidence is one of the 100 values 0.01, 0.02, ..., 1, which
// bounds the number of fact sets of a team by 100 per distinct supporters
// and resolver, whatever confidences agents report.
const confidenceStep = 0.01

// storedConfidence returns f's fused confidence as it is stored: the
// strategy's (or, when a custom strategy left it 0, the default of package
// merge: the highest confidence among f's findings, 1 if it has none)
// rounded to the nearest 0.01 (roundCent), and never to 0 when positive.
// A confidence outside [0, 1] is an error wrapping
// merge.ErrInvalidDecision.
func storedConfidence(f merge.Fact, conf map[string]float64) (float64, error) {
	c := f.Confidence
	if !(c >= 0 && c <= 1) {
		return 0, fmt.Errorf("%w: confidence %v not in [0, 1]", merge.ErrInvalidDecision, c)
	}
	if c == 0 {
		c = factConfidence(f, conf)
	}
	return max(roundCent(c), confidenceStep), nil
}

// roundCent rounds c in [0, 1] to the nearest 0.01 as the decimal it is
// (its shortest form, as an xsd:decimal literal writes it), a half going
// up, and returns the float nearest that decimal (0.07, not
// 0.07000000000000001). c*100 in float64 would move some halves below
// them: 0.145*100 is 14.499999999999998, which rounded 0.145 to 0.14.
func roundCent(c float64) float64 {
	mant, exp, _ := strings.Cut(strconv.FormatFloat(c, 'e', -1, 64), "e") // d.ddd, ±XX
	e, _ := strconv.Atoi(exp)
	x, _ := strconv.ParseFloat(mant+"e"+strconv.Itoa(e+2), 64) // c×100 from the decimal: a half is exact
	return math.Round(x) / 100
}

// mergeID is "m" followed by 24 hex digits of a SHA-256 over the result.
func mergeID(res merge.Result) string {
	h := sha256.New()
	w := func(ss ...string) {
		for _, s := range ss {
			h.Write([]byte(s))
			h.Write([]byte{0})
		}
	}
	// Runs of earlier layouts (one cx:Fact node per fact; fact sets keyed by
	// exact confidences, without team links) differ.
	w("layout", "fact-sets-2")
	w("strategy", res.Strategy)
	for _, f := range res.Facts {
		w("fact", rdfio.FormatTerm(f.Subject), rdfio.FormatTerm(f.Predicate), rdfio.FormatTerm(f.Object), f.ResolvedBy,
			strconv.FormatFloat(f.Confidence, 'g', -1, 64))
		w(f.Supporters...)
		w("|")
		w(f.FindingIDs...)
	}
	for _, c := range res.Conflicts {
		w("conflict", c.ID, c.Reason)
		for _, cd := range c.Candidates {
			w(rdfio.FormatTerm(cd.Object))
			w(cd.Agents...)
			w("|")
			w(cd.FindingIDs...)
		}
	}
	return "m" + hex.EncodeToString(h.Sum(nil)[:12])
}

// conflictGraph is the content of a team's conflict graph by subject.
type conflictGraph struct {
	team  string
	nodes map[quad.Value]map[quad.Value][]quad.Value
	quads []quad.Quad
	ids   map[quad.Value]eval.ID // term ids of the objects
}

func (m *Manager) readConflictGraph(ctx context.Context, team string) (*conflictGraph, error) {
	cg := &conflictGraph{team: team, nodes: map[quad.Value]map[quad.Value][]quad.Value{}, ids: map[quad.Value]eval.ID{}}
	qs, qids, err := m.graphQuadsIDs(ctx, m.ns.ConflictGraph(team), nil)
	if err != nil {
		return nil, teamErr(team, "read conflicts", err)
	}
	for i, q := range qs {
		cg.ids[q.Object] = qids[i].O
		pm := cg.nodes[q.Subject]
		if pm == nil {
			pm = map[quad.Value][]quad.Value{}
			cg.nodes[q.Subject] = pm
		}
		pm[q.Predicate] = append(pm[q.Predicate], q.Object)
	}
	cg.quads = qs
	return cg, nil
}

// graphQuads returns the quads of graph g with one id-level scan (GSPO
// index) and one batched resolution of their terms.
func (m *Manager) graphQuads(ctx context.Context, g quad.Value) ([]quad.Quad, error) {
	return m.graphQuadsWhere(ctx, g, nil)
}

// graphQuadsWhere is graphQuads restricted to the subjects for which keep
// (if not nil) returns true; only the subjects' terms are resolved for the
// others.
func (m *Manager) graphQuadsWhere(ctx context.Context, g quad.Value, keep func(s quad.Value) bool) ([]quad.Quad, error) {
	qs, _, err := m.graphQuadsIDs(ctx, g, keep)
	return qs, err
}

// graphQuadsIDs is graphQuadsWhere that also returns the term ids of each
// quad (same index).
func (m *Manager) graphQuadsIDs(ctx context.Context, g quad.Value, keep func(s quad.Value) bool) ([]quad.Quad, []eval.Quad, error) {
	gids, err := m.ds.IDs(ctx, []quad.Value{g})
	if err != nil {
		return nil, nil, err
	}
	if gids[0] == 0 {
		return nil, nil, nil
	}
	var qs []eval.Quad
	if err := scan(ctx, m.ds, eval.Pattern{G: gids[0], Scope: eval.OneGraph}, func(q eval.Quad) {
		qs = append(qs, q)
	}); err != nil {
		return nil, nil, err
	}
	if keep != nil {
		var subjects []eval.ID
		for i, q := range qs {
			if i == 0 || q.S != qs[i-1].S {
				subjects = append(subjects, q.S)
			}
		}
		svals, err := m.ds.TermsBatch(ctx, subjects)
		if err != nil {
			return nil, nil, err
		}
		kept := make(map[eval.ID]bool, len(subjects))
		for i, s := range subjects {
			if keep(svals[i]) {
				kept[s] = true
			}
		}
		qs = slices.DeleteFunc(qs, func(q eval.Quad) bool { return !kept[q.S] })
	}
	want := make([]eval.ID, 0, 3*len(qs))
	for _, q := range qs {
		want = append(want, q.S, q.P, q.O)
	}
	vals, err := m.ds.TermsBatch(ctx, want)
	if err != nil {
		return nil, nil, err
	}
	out := make([]quad.Quad, 0, len(qs))
	ids := qs[:0]
	for i := range qs {
		s, p, o := vals[3*i], vals[3*i+1], vals[3*i+2]
		if s == nil || p == nil || o == nil {
			continue // removed since the scan
		}
		out = append(out, quad.Quad{Subject: s, Predicate: p, Object: o, Label: g})
		ids = append(ids, qs[i])
	}
	return out, ids, nil
}

func (cg *conflictGraph) resolved(x ns.NS, node quad.Value) bool {
	return len(cg.nodes[node][x.IRI(ns.ConflictResolvedAt)]) > 0
}

// resolutions returns the resolutions recorded in the graph.
func (cg *conflictGraph) resolutions(x ns.NS) []merge.Resolution {
	var out []merge.Resolution
	for node, pm := range cg.nodes {
		if !cg.resolved(x, node) {
			continue
		}
		iri, _ := node.(quad.IRI)
		ref, err := x.Parse(iri)
		if err != nil || ref.Kind != ns.KindConflict {
			continue
		}
		r := merge.Resolution{ConflictID: ref.ID, Objects: slices.Clone(pm[x.IRI(ns.ConflictResolvedObject)])}
		if r.Objects == nil {
			r.Objects = []quad.Value{}
		}
		if s := pm[x.IRI(ns.ConflictSubject)]; len(s) > 0 {
			r.Topic.Subject = s[0]
		}
		if p := pm[x.IRI(ns.ConflictPredicate)]; len(p) > 0 {
			r.Topic.Predicate = p[0]
		}
		if by := pm[x.IRI(ns.ConflictResolvedBy)]; len(by) > 0 {
			if a, ok := by[0].(quad.IRI); ok {
				if ar, err := x.Parse(a); err == nil {
					r.By = ar.Agent
				}
			}
		}
		if at, err := ns.ParseDateTime(pm[x.IRI(ns.ConflictResolvedAt)][0]); err == nil {
			r.At = at
		}
		out = append(out, r)
	}
	return out
}

// mergeWrites is the delta of a merge run: its record and, for the facts,
// their fact sets' descriptions and the conflict records, what to add and
// what to remove so that the store holds the run's result.
type mergeWrites struct {
	run                     []quad.Quad
	factAdd, factRm         []quad.Quad
	metaAdd, metaRm         []quad.Quad
	conflictAdd, conflictRm []quad.Quad
}

// writeMerge writes the result of the merge run of rep (see
// MergeTeamResults), and clears the team's due-merge marker if settles.
// The facts' confidences are as stored (storedConfidence).
func (m *Manager) writeMerge(ctx context.Context, t *Team, restores int, res merge.Result, rep *MergeReport, cg *conflictGraph, start time.Time, settles bool) error {
	id := rep.MergeID
	now := m.now()
	mnode := m.ns.Merge(t.ID, id)
	w := mergeWrites{run: m.runQuads(t.ID, mnode, res.Strategy, start, now)}
	facts, meta := m.factQuads(t.ID, mnode, res.Facts, now)
	var err error
	if w.factAdd, w.factRm, w.metaAdd, w.metaRm, err = m.factDiff(ctx, t.ID, facts, meta); err != nil {
		return err
	}
	w.conflictAdd, w.conflictRm = m.conflictDiff(t.ID, m.conflictRecords(t.ID, mnode, res, cg, now), cg)
	if mergeHook != nil {
		mergeHook()
	}
	return m.commitMerge(ctx, t, restores, cg, mnode, w, settles, func(time.Time) []Event {
		return m.mergeEvents(rep, &res, cg, now) // detected when the records say
	})
}

// runQuads describes merge run mnode of team, kept as history in the
// provenance graph.
func (m *Manager) runQuads(team string, mnode quad.IRI, strategy string, start, end time.Time) []quad.Quad {
	x := m.ns
	prov := x.ProvenanceGraph(team)
	return []quad.Quad{
		{Subject: mnode, Predicate: ns.RDFType, Object: x.IRI(ns.ClassMerge), Label: prov},
		{Subject: mnode, Predicate: x.IRI(ns.MergeStrategy), Object: ns.String(strategy), Label: prov},
		{Subject: mnode, Predicate: ns.ProvStartedAtTime, Object: ns.DateTime(start), Label: prov},
		{Subject: mnode, Predicate: ns.ProvEndedAtTime, Object: ns.DateTime(end), Label: prov},
	}
}

// factQuads returns the quads of the merged facts: each in the shared
// graph and in the fact set of its attribution (supporters, confidence,
// resolver), and the fact sets' descriptions in the provenance graph.
func (m *Manager) factQuads(team string, mnode quad.IRI, fs []merge.Fact, now time.Time) (facts, meta []quad.Quad) {
	x := m.ns
	prov, shared, tnode := x.ProvenanceGraph(team), x.SharedGraph(team), x.Team(team)
	facts = make([]quad.Quad, 0, 2*len(fs))
	sets := map[string]quad.IRI{}
	for _, f := range fs {
		c, _ := ns.Confidence(f.Confidence)
		key := factSetID(f, c)
		g, ok := sets[key]
		if !ok {
			g = x.FactSet(team, key)
			sets[key] = g
			describe := func(p, o quad.Value) {
				meta = append(meta, quad.Quad{Subject: g, Predicate: p, Object: o, Label: prov})
			}
			describe(ns.RDFType, x.IRI(ns.ClassFactSet))
			describe(x.IRI(ns.FactTeam), tnode)
			describe(ns.ProvWasGeneratedBy, mnode)
			describe(ns.ProvGeneratedAtTime, ns.DateTime(now))
			for _, a := range f.Supporters {
				describe(ns.ProvWasAttributedTo, x.Agent(a))
			}
			describe(x.IRI(ns.FactConfidence), c)
			if f.ResolvedBy != "" {
				describe(x.IRI(ns.FactResolvedBy), x.Agent(f.ResolvedBy))
			}
		}
		facts = append(facts,
			quad.Quad{Subject: f.Subject, Predicate: f.Predicate, Object: f.Object, Label: shared},
			quad.Quad{Subject: f.Subject, Predicate: f.Predicate, Object: f.Object, Label: g})
	}
	return facts, meta
}

// factDiff compares facts and meta (factQuads) with what the store holds
// now: the provenance graph but for the runs, the shared graph and every
// fact set, old or new. It returns what to add and remove.
func (m *Manager) factDiff(ctx context.Context, team string, facts, meta []quad.Quad) (factAdd, factRm, metaAdd, metaRm []quad.Quad, err error) {
	x := m.ns
	shared := x.SharedGraph(team)
	oldMeta, err := m.graphQuadsWhere(ctx, x.ProvenanceGraph(team), func(s quad.Value) bool {
		iri, _ := s.(quad.IRI)
		r, err := x.Parse(iri)
		return err != nil || r.Kind != ns.KindMerge
	})
	if err != nil {
		return nil, nil, nil, nil, err
	}
	graphs := []quad.Value{shared}
	seen := map[quad.Value]bool{shared: true}
	for _, q := range oldMeta {
		if !seen[q.Subject] && m.isFactSet(team, q.Subject) {
			seen[q.Subject] = true
			graphs = append(graphs, q.Subject)
		}
	}
	for _, q := range facts {
		if !seen[q.Label] {
			seen[q.Label] = true
			graphs = append(graphs, q.Label)
		}
	}
	var oldFacts []quad.Quad
	for _, g := range graphs {
		qs, err := m.graphQuads(ctx, g)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		oldFacts = append(oldFacts, qs...)
	}
	factAdd, factRm = diffQuads(oldFacts, facts)
	metaAdd, metaRm = diffQuads(oldMeta, meta)
	return factAdd, factRm, metaAdd, metaRm, nil
}

// conflictRecords returns the quads of the conflict records of res in the
// conflict graph; a record keeps the detection time it already has in cg.
func (m *Manager) conflictRecords(team string, mnode quad.IRI, res merge.Result, cg *conflictGraph, now time.Time) []quad.Quad {
	x := m.ns
	cgraph, tnode := x.ConflictGraph(team), x.Team(team)
	n := 0
	for _, c := range res.Conflicts {
		n += 8 // type, team, subject, predicate, strategy, reason, detected-at, generated-by
		for _, cd := range c.Candidates {
			n += len(cd.FindingIDs)
		}
	}
	records := make([]quad.Quad, 0, n)
	for _, c := range res.Conflicts {
		node := x.Conflict(team, c.ID)
		add := func(p, o quad.Value) {
			records = append(records, quad.Quad{Subject: node, Predicate: p, Object: o, Label: cgraph})
		}
		add(ns.RDFType, x.IRI(ns.ClassConflict))
		add(x.IRI(ns.ConflictTeam), tnode)
		add(x.IRI(ns.ConflictSubject), c.Topic.Subject)
		add(x.IRI(ns.ConflictPredicate), c.Topic.Predicate)
		for _, cd := range c.Candidates {
			for _, fid := range cd.FindingIDs {
				add(x.IRI(ns.ConflictCandidate), x.Finding(team, fid))
			}
		}
		add(x.IRI(ns.ConflictStrategy), ns.String(res.Strategy))
		add(x.IRI(ns.ConflictReason), ns.String(c.Reason))
		if d := cg.nodes[node][x.IRI(ns.ConflictDetectedAt)]; len(d) > 0 {
			add(x.IRI(ns.ConflictDetectedAt), d[0])
		} else {
			add(x.IRI(ns.ConflictDetectedAt), ns.DateTime(now))
		}
		add(ns.ProvWasGeneratedBy, mnode)
	}
	return records
}

// conflictDiff returns what to add and remove so that the open conflict
// records of cg follow records; resolved ones stay.
func (m *Manager) conflictDiff(team string, records []quad.Quad, cg *conflictGraph) (add, rm []quad.Quad) {
	x := m.ns
	var open []quad.Quad // the records the result may change
	for _, q := range cg.quads {
		if !cg.resolved(x, q.Subject) {
			open = append(open, q)
		}
	}
	add, rm = diffQuads(open, records)
	// A resolved record may repeat a quad of the result: it is kept, not
	// added again (Add of a present quad is a no-op anyway). One recorded
	// before records named their team gets the link.
	tnode, cgraph := x.Team(team), x.ConflictGraph(team)
	for node := range cg.nodes {
		if cg.resolved(x, node) && len(cg.nodes[node][x.IRI(ns.ConflictTeam)]) == 0 {
			add = append(add, quad.Quad{Subject: node, Predicate: x.IRI(ns.ConflictTeam), Object: tnode, Label: cgraph})
		}
	}
	return add, rm
}

// commitMerge writes w, with the team's link to run mnode, in one atomic
// step, whatever its size (cortex journals a delta larger than one
// transaction), if what the diff was computed against still holds (see
// checkUnchanged): another Manager may have written since. It clears the
// team's due-merge marker if settles. Its events are those of events, after
// the team.status of a timeout it records.
//
// The merges of a Manager write one at a time: one queues for the
// namespace's write lock, the others wait for it here. The lock is taken in
// the order writers come, and a host's teams finish together: merges
// queued there at once (30-60 ms each under load) would make every finding
// and member update that comes after them wait for all of them; this way
// such a write waits for one merge at most.
func (m *Manager) commitMerge(ctx context.Context, t *Team, restores int, cg *conflictGraph, mnode quad.IRI, w mergeWrites, settles bool, events func(now time.Time) []Event) error {
	m.mergeWriteWaiting.Add(1)
	select {
	case m.mergeWrite <- struct{}{}:
		m.mergeWriteWaiting.Add(-1)
		defer func() { <-m.mergeWrite }()
	case <-ctx.Done():
		m.mergeWriteWaiting.Add(-1)
		return ctx.Err()
	}
	return m.commit(ctx, func(tx *cortex.Tx) error {
		if _, err := m.checkUnchanged(ctx, tx, t, restores, cg); err != nil {
			return err
		}
		st, err := m.readTeam(ctx, tx.Namespace().Dataset(), t.ID, "-")
		if err != nil {
			return err
		}
		tx.Add(w.run...)
		tx.Add(w.factAdd...)
		tx.Add(w.metaAdd...)
		tx.Add(w.conflictAdd...)
		tx.Remove(w.factRm...)
		tx.Remove(w.metaRm...)
		tx.Remove(w.conflictRm...)
		// The team's link to the run (replacing every earlier link), the
		// marker of a due merge that this one settles, and the team's row.
		st.set(st.node, m.ns.IRI(ns.TeamLastMerge), mnode)
		before := st.team.Status
		if settles {
			m.stageSettled(tx, st)
		} else {
			tx.Remove(st.rm...)
			tx.Add(st.add...)
			m.pinTeam(tx, t.ID, st.add)
			m.putTeamRow(tx, t.ID, st.props[st.node])
		}
		now := m.now()
		var evs []Event
		if st.team.Status != before {
			evs = append(evs, statusEvent(&st.team))
		}
		if err := m.stageEvents(ctx, tx, now, append(evs, events(now)...)); err != nil {
			return err
		}
		if mergeWriteHook != nil {
			mergeWriteHook()
		}
		return nil
	})
}

// mergeWriteHook, when set by a test, runs in every merge inside the
// Update that writes it, after staging its writes and before they commit.
var mergeWriteHook func()

// checkUnchanged runs inside the Update of a merge of team t and returns
// ErrConcurrentMerge if the team's state that the merge read outside it
// has changed since: the team's last run (another Manager's merge), the
// set of resolved conflicts (another Manager's ResolveConflict) or the
// number of restores applied to it, restores when the merge read it
// (another Manager's RestoreSnapshot, which may leave the other two as
// they were while it changes the members and their findings). It returns
// ErrUnknownTeam if the team was deleted, and else the team's links to its
// last run (normally one; several only in a store written before this
// check, which the merge then repairs).
func (m *Manager) checkUnchanged(ctx context.Context, tx *cortex.Tx, t *Team, restores int, cg *conflictGraph) ([]quad.Quad, error) {
	x := m.ns
	n := tx.Namespace()
	node, tg := x.Team(t.ID), x.TeamGraph(t.ID)
	typed, err := n.Quads(ctx, cortex.Pattern{Subject: node, Predicate: ns.RDFType, Object: x.IRI(ns.ClassTeam), Graph: tg, Scope: cortex.OneGraph})
	if err != nil {
		return nil, err
	}
	if len(typed) == 0 {
		return nil, fmt.Errorf("team %s: %w (deleted during the merge)", t.ID, ErrUnknownTeam)
	}
	if r, err := restoreCount(ctx, n, t.ID); err != nil {
		return nil, err
	} else if r != restores {
		return nil, fmt.Errorf("team %s: %w: a snapshot of it was restored", t.ID, ErrConcurrentMerge)
	}
	links, err := n.Quads(ctx, cortex.Pattern{Subject: node, Predicate: x.IRI(ns.TeamLastMerge), Graph: tg, Scope: cortex.OneGraph})
	if err != nil {
		return nil, err
	}
	same := len(links) == 0 && t.LastMerge == ""
	for _, q := range links {
		same = same || t.LastMerge != "" && q.Object == x.Merge(t.ID, t.LastMerge)
	}
	if !same {
		return nil, fmt.Errorf("team %s: %w: its last merge changed", t.ID, ErrConcurrentMerge)
	}
	resolved, err := n.Quads(ctx, cortex.Pattern{Predicate: x.IRI(ns.ConflictResolvedAt), Graph: x.ConflictGraph(t.ID), Scope: cortex.OneGraph})
	if err != nil {
		return nil, err
	}
	was := 0
	for node := range cg.nodes {
		if cg.resolved(x, node) {
			was++
		}
	}
	if len(resolved) != was {
		return nil, fmt.Errorf("team %s: %w: a conflict was resolved", t.ID, ErrConcurrentMerge)
	}
	return links, nil
}

// isFactSet reports whether v names a fact set of team.
func (m *Manager) isFactSet(team string, v quad.Value) bool {
	iri, ok := v.(quad.IRI)
	if !ok {
		return false
	}
	r, err := m.ns.Parse(iri)
	return err == nil && r.Kind == ns.KindFactSet && r.Team == team
}

// factConfidence is the fused confidence of f: the highest confidence of
// its findings (1 for a finding without one, and for a fact without
// findings, such as an object chosen by a resolution).
func factConfidence(f merge.Fact, conf map[string]float64) float64 {
	if len(f.FindingIDs) == 0 {
		return 1
	}
	best := 0.0
	for _, fid := range f.FindingIDs {
		c := conf[fid]
		if c == 0 {
			c = 1
		}
		best = max(best, c)
	}
	return best
}

// factSetID names the fact set of a fact's attribution: "s" and 20 hex
// digits of a SHA-256 over its supporters, resolver and confidence literal.
// Facts with the same attribution share a set, in every merge of the team,
// so a re-merge rewrites only the facts whose attribution changed.
func factSetID(f merge.Fact, confidence quad.Value) string {
	h := sha256.New()
	for _, a := range f.Supporters {
		h.Write([]byte(a))
		h.Write([]byte{0})
	}
	h.Write([]byte{1})
	h.Write([]byte(f.ResolvedBy))
	h.Write([]byte{0})
	h.Write([]byte(rdfio.FormatTerm(confidence)))
	return "s" + hex.EncodeToString(h.Sum(nil)[:10])
}

// diffQuads returns the quads of want missing from have, in want's order,
// and the quads of have missing from want. (Duplicates in want may stay:
// the store drops them.)
func diffQuads(have, want []quad.Quad) (add, rm []quad.Quad) {
	if len(have) == 0 {
		return want, nil // a first merge: no maps of all the quads
	}
	in := make(map[quad.Quad]bool, len(want))
	for _, q := range want {
		in[q] = true
	}
	old := make(map[quad.Quad]bool, len(have))
	for _, q := range have {
		old[q] = true
		if !in[q] {
			rm = append(rm, q)
		}
	}
	for _, q := range want {
		if !old[q] {
			add = append(add, q)
			old[q] = true
		}
	}
	return add, rm
}

// Conflicts lists the team's conflict records, open and resolved, ordered by
// subject and predicate.
func (m *Manager) Conflicts(ctx context.Context, teamID string) (_ []Conflict, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	t, err := m.getTeam(ctx, teamID)
	if err != nil {
		return nil, err
	}
	cg, err := m.readConflictGraph(ctx, teamID)
	if err != nil {
		return nil, err
	}
	var agents []string
	for _, mb := range t.Members {
		agents = append(agents, mb.AgentID)
	}
	var cands []quad.Value
	for _, pm := range cg.nodes {
		cands = append(cands, pm[m.ns.IRI(ns.ConflictCandidate)]...)
	}
	candIDs := make([]eval.ID, len(cands))
	for i, c := range cands {
		candIDs[i] = cg.ids[c]
	}
	info, err := m.findingObjects(ctx, teamID, agents, cands, candIDs)
	if err != nil {
		return nil, err
	}
	out := []Conflict{}
	for node := range cg.nodes {
		if c := m.conflict(teamID, cg, node, info); c != nil {
			out = append(out, *c)
		}
	}
	slices.SortFunc(out, func(a, b Conflict) int {
		ta, tb := merge.Topic{Subject: a.Subject, Predicate: a.Predicate}, merge.Topic{Subject: b.Subject, Predicate: b.Predicate}
		if c := ta.Compare(tb); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// conflict builds the record of one conflict node (nil if node is not one),
// with the objects and authors of its candidate findings from info.
func (m *Manager) conflict(team string, cg *conflictGraph, node quad.Value, info map[quad.Value]findingInfo) *Conflict {
	x := m.ns
	iri, _ := node.(quad.IRI)
	ref, err := x.Parse(iri)
	if err != nil || ref.Kind != ns.KindConflict {
		return nil
	}
	pm := cg.nodes[node]
	first := func(p ns.Term) quad.Value {
		if vs := pm[x.IRI(p)]; len(vs) > 0 {
			return vs[0]
		}
		return nil
	}
	c := &Conflict{ID: ref.ID, Subject: first(ns.ConflictSubject), Predicate: first(ns.ConflictPredicate), Candidates: []Candidate{}}
	c.Strategy, _ = ns.ParseString(first(ns.ConflictStrategy))
	c.Reason, _ = ns.ParseString(first(ns.ConflictReason))
	if v := first(ns.ConflictDetectedAt); v != nil {
		c.DetectedAt, _ = ns.ParseDateTime(v)
	}
	if v := first(ns.ConflictResolvedAt); v != nil {
		c.Resolved = true
		c.ResolvedAt, _ = ns.ParseDateTime(v)
		if a, ok := first(ns.ConflictResolvedBy).(quad.IRI); ok {
			if ar, err := x.Parse(a); err == nil {
				c.ResolvedBy = ar.Agent
			}
		}
		c.Chosen = slices.Clone(pm[x.IRI(ns.ConflictResolvedObject)])
		slices.SortFunc(c.Chosen, merge.CompareTerms)
	}
	byObj := map[string]int{}
	for _, fv := range pm[x.IRI(ns.ConflictCandidate)] {
		obj, agent := info[fv].object, info[fv].agent
		if obj == nil {
			continue
		}
		fr, _ := x.Parse(fv.(quad.IRI))
		// One candidate per object as the merge compares them ("a"@en is
		// "a"@EN), spelled as the merge spells it: the spelling that sorts
		// first.
		k, err := merge.ObjectKey(obj)
		if err != nil {
			k = "\x01" + rdfio.FormatTerm(obj) // not an object a merge takes: as it is
		}
		i, ok := byObj[k]
		if !ok {
			i = len(c.Candidates)
			byObj[k] = i
			c.Candidates = append(c.Candidates, Candidate{Object: obj})
		}
		cd := &c.Candidates[i]
		if merge.CompareTerms(obj, cd.Object) < 0 {
			cd.Object = obj
		}
		if !slices.Contains(cd.Agents, agent) {
			cd.Agents = append(cd.Agents, agent)
		}
		cd.Findings = append(cd.Findings, fr.ID)
	}
	for i := range c.Candidates {
		slices.Sort(c.Candidates[i].Agents)
		slices.Sort(c.Candidates[i].Findings)
	}
	slices.SortFunc(c.Candidates, func(a, b Candidate) int { return merge.CompareTerms(a.Object, b.Object) })
	return c
}

// scanFindingGraphs reads the graphs gids (0: absent) at id level,
// recording in objs and bys the object and author of each node of nodeIDs
// it meets, until it has read budget keys in all. It returns the number of
// nodes whose object and author it found.
func (m *Manager) scanFindingGraphs(ctx context.Context, gids []eval.ID, pObj, pBy eval.ID, nodeIDs, objs, bys []eval.ID, budget int) (int, error) {
	at := make(map[eval.ID]int32, len(nodeIDs))
	for i, id := range nodeIDs {
		if id != 0 {
			at[id] = int32(i)
		}
	}
	read := 0
	for _, g := range gids {
		if g == 0 {
			continue
		}
		it := m.ds.Match(ctx, eval.Pattern{G: g, Scope: eval.OneGraph})
		for read < budget && it.Next(ctx) {
			read++
			q := it.Quad()
			if q.P != pObj && q.P != pBy {
				continue
			}
			i, ok := at[q.S]
			if !ok {
				continue
			}
			if q.P == pObj {
				objs[i] = q.O
			} else {
				bys[i] = q.O
			}
		}
		err := it.Err()
		it.Close()
		if err != nil {
			return 0, fmt.Errorf("scan: %w", err)
		}
		if read >= budget {
			break
		}
	}
	// A node listed twice: every occurrence gets what the scan found.
	found := 0
	for i, id := range nodeIDs {
		if j, ok := at[id]; ok && int(j) != i {
			objs[i], bys[i] = objs[j], bys[j]
		}
		if objs[i] != 0 && bys[i] != 0 {
			found++
		}
	}
	return found, nil
}

// findingInfo is the object and author of a finding node.
type findingInfo struct {
	object quad.Value
	agent  string
}

// findingScanMin is the least number of finding nodes for which
// findingObjects first reads the members' graphs, up to findingScanBudget
// keys per node; findingScanHook, if set by a test, gets the number of
// nodes that read found. (Variables for tests.)
var (
	findingScanMin    = 1024
	findingScanBudget = 60
	findingScanHook   func(found int)
)

// findingObjects returns the object and author of each finding node of
// nodes, whose term ids are nodeIDs (0 for a term that does not exist); a
// node without an object in the members' graphs is absent from the result;
// reading quads at id level and resolving the distinct objects and authors
// in one batch: a listing of thousands of conflicts does not resolve every
// term of every candidate quad. For many nodes it first reads the graphs
// of the team's members (agents) in one pass each, stopping after ~60 keys
// per node (beyond that, one lookup per node is cheaper: ~30 µs each,
// against ~0.5 µs per key scanned); what that pass did not find, it looks
// up node by node (one index scan each).
func (m *Manager) findingObjects(ctx context.Context, team string, agents []string, nodes []quad.Value, nodeIDs []eval.ID) (map[quad.Value]findingInfo, error) {
	x := m.ns
	terms := []quad.Value{ns.RDFObject, x.IRI(ns.FindingAssertedBy)}
	for _, a := range agents {
		terms = append(terms, x.MemberGraph(team, a))
	}
	pids, err := m.ds.IDs(ctx, terms)
	if err != nil {
		return nil, err
	}
	pObj, pBy, gids := pids[0], pids[1], pids[2:]
	objs := make([]eval.ID, len(nodes))
	bys := make([]eval.ID, len(nodes))
	if pObj == 0 {
		return map[quad.Value]findingInfo{}, nil
	}
	// Only the members' graphs say what a finding of the team is: a quad
	// about a finding node elsewhere (another team's member may assert
	// anything about it) is not read.
	member := map[eval.ID]bool{}
	for _, g := range gids {
		if g != 0 {
			member[g] = true
		}
	}
	if len(nodes) >= findingScanMin {
		found, err := m.scanFindingGraphs(ctx, gids, pObj, pBy, nodeIDs, objs, bys, findingScanBudget*len(nodes))
		if err != nil {
			return nil, err
		}
		if findingScanHook != nil {
			findingScanHook(found)
		}
	}
	index := map[eval.ID]int32{}
	var want []eval.ID
	keep := func(id eval.ID) {
		if _, ok := index[id]; !ok {
			index[id] = int32(len(want))
			want = append(want, id)
		}
	}
	for i, id := range nodeIDs {
		if id == 0 {
			continue
		}
		if objs[i] == 0 || bys[i] == 0 {
			objs[i], bys[i] = 0, 0
			err := scan(ctx, m.ds, eval.Pattern{S: id}, func(q eval.Quad) {
				if !member[q.G] {
					return
				}
				switch q.P {
				case pObj:
					objs[i] = q.O
				case pBy:
					bys[i] = q.O
				}
			})
			if err != nil {
				return nil, err
			}
		}
		if objs[i] != 0 {
			keep(objs[i])
		}
		if bys[i] != 0 {
			keep(bys[i])
		}
	}
	vals, err := m.ds.TermsBatch(ctx, want)
	if err != nil {
		return nil, err
	}
	out := make(map[quad.Value]findingInfo, len(nodes))
	for i, node := range nodes {
		if objs[i] == 0 {
			continue
		}
		fi := findingInfo{object: vals[index[objs[i]]]}
		if bys[i] != 0 {
			if iri, ok := vals[index[bys[i]]].(quad.IRI); ok {
				if r, err := x.Parse(iri); err == nil && r.Kind == ns.KindMember && r.Team == team {
					fi.agent = r.Agent
				}
			}
		}
		if fi.object != nil {
			out[node] = fi
		}
	}
	return out, nil
}

// findingObject returns the object and author of a finding node, as the
// graphs of the team's members record them.
func (m *Manager) findingObject(ctx context.Context, team string, f quad.Value) (quad.Value, string, error) {
	x := m.ns
	var obj quad.Value
	agent := ""
	err := m.n.EachQuad(ctx, cortex.Pattern{Subject: f}, func(q quad.Quad) error {
		if g, ok := q.Label.(quad.IRI); !ok {
			return nil
		} else if r, err := x.Parse(g); err != nil || r.Kind != ns.KindMemberGraph || r.Team != team {
			return nil // only the team's members' graphs describe its findings
		}
		switch q.Predicate {
		case ns.RDFObject:
			obj = q.Object
		case x.IRI(ns.FindingAssertedBy):
			if iri, ok := q.Object.(quad.IRI); ok {
				if r, err := x.Parse(iri); err == nil && r.Kind == ns.KindMember && r.Team == team {
					agent = r.Agent
				}
			}
		}
		return nil
	})
	return obj, agent, err
}

// CheckResolution returns ResolveConflict's error for a resolution that it
// refuses whatever the team, before it looks the team up: a resolver that
// is no valid agent id, then the first object that is no well-formed RDF
// term or that a merge refuses (both ErrInvalidResolution). A client of a
// server checks a resolution with it before it sends it, so that its
// error reads as the Manager's.
func CheckResolution(conflictID string, objects []quad.Value, by string) error {
	if !validID(by) {
		return fmt.Errorf("resolve conflict %s: %w: resolver %q must be 1..64 characters of [A-Za-z0-9._@+-]", IDText(conflictID), ErrInvalidResolution, by)
	}
	for _, o := range objects {
		no, err := cortex.NormalizeTerm(o)
		if err != nil {
			return fmt.Errorf("resolve conflict %s: %w: %v", IDText(conflictID), ErrInvalidResolution, err)
		}
		// An object the store takes but a merge refuses would fail every
		// later merge of the team: the resolution is written first.
		if _, err := merge.ObjectKey(no); err != nil {
			return fmt.Errorf("resolve conflict %s: %w: %v", IDText(conflictID), ErrInvalidResolution, err)
		}
	}
	return nil
}

// ResolveConflict resolves an open conflict of the team by choosing objects
// (one, several, or none to keep nothing), records who resolved it and when,
// and re-merges the team so that the chosen objects become facts with
// provenance fact:agent <by>. Later merges keep the resolution. It returns
// the report of that merge. The resolution is written before the merge: if
// the merge fails (e.g. ErrConcurrentMerge), the conflict stays resolved
// and MergeTeamResults applies it. With auto-merge on, the write of a
// finished team's resolution also marks its merge as due (see "Merges that
// always happen" in the package documentation), which the re-merge
// clears: if it fails, the team reads as not merged and the retry points
// merge it.
func (m *Manager) ResolveConflict(ctx context.Context, teamID, conflictID string, objects []quad.Value, by string) (_ MergeReport, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	if err := CheckResolution(conflictID, objects, by); err != nil {
		return MergeReport{}, err
	}
	// One object per object as a merge compares them ("a"@en is "a"@EN),
	// spelled as the merge keeps it (merge.Resolution): the spelling that
	// sorts first (merge.CompareTerms). The record then lists as chosen
	// exactly the facts the resolution makes.
	objs := make([]quad.Value, 0, len(objects))
	keys := map[string]int{} // merge.ObjectKey of objs (a merge's term equality) → index in objs
	for _, o := range objects {
		no, _ := cortex.NormalizeTerm(o) // checked
		k, _ := merge.ObjectKey(no)
		if i, ok := keys[k]; !ok {
			keys[k] = len(objs)
			objs = append(objs, no)
		} else if merge.CompareTerms(no, objs[i]) < 0 {
			objs[i] = no
		}
	}
	mu := m.mergeLock(teamID)
	if err := mu.LockContext(ctx); err != nil {
		return MergeReport{}, fmt.Errorf("resolve conflict %s: %w", IDText(conflictID), err)
	}
	defer mu.Unlock()
	if t, err := m.getTeam(ctx, teamID); err != nil {
		return MergeReport{}, err
	} else if t.Lifecycle == LifecycleDisbanded {
		return MergeReport{}, fmt.Errorf("resolve conflict %s: team %s: %w; its graphs are read-only", IDText(conflictID), IDText(teamID), ErrTeamDisbanded)
	}
	x := m.ns
	node := x.Conflict(teamID, conflictID)
	g := x.ConflictGraph(teamID)
	err = m.commit(ctx, func(tx *cortex.Tx) error {
		qs, err := tx.Namespace().Quads(ctx, cortex.Pattern{Subject: node, Graph: g, Scope: cortex.OneGraph})
		if err != nil {
			return err
		}
		if len(qs) == 0 {
			return fmt.Errorf("team %s: conflict %q: %w", IDText(teamID), conflictID, unknown(ErrUnknownConflict, conflictID))
		}
		// The record as resolved, for the conflict.resolved event.
		pm := map[quad.Value][]quad.Value{}
		for _, q := range qs {
			pm[q.Predicate] = append(pm[q.Predicate], q.Object)
		}
		info := map[quad.Value]findingInfo{}
		add := func(p, o quad.Value) {
			tx.Add(quad.Quad{Subject: node, Predicate: p, Object: o, Label: g})
			pm[p] = append(pm[p], o)
		}
		for _, q := range qs {
			switch q.Predicate {
			case x.IRI(ns.ConflictResolvedAt):
				return fmt.Errorf("team %s: conflict %s: %w", IDText(teamID), IDText(conflictID), ErrAlreadyResolved)
			case x.IRI(ns.ConflictCandidate):
				obj, agent, err := m.findingObject(ctx, teamID, q.Object)
				if err != nil {
					return err
				}
				info[q.Object] = findingInfo{object: obj, agent: agent}
				if obj == nil {
					break
				}
				// Chosen as the merge reads the choice: "a"@en is "a"@EN.
				if k, err := merge.ObjectKey(obj); err == nil {
					if _, ok := keys[k]; ok {
						add(x.IRI(ns.ConflictChosen), q.Object)
					}
				}
			}
		}
		now := m.now()
		add(x.IRI(ns.ConflictResolvedAt), ns.DateTime(now))
		add(x.IRI(ns.ConflictResolvedBy), x.Agent(by))
		for _, o := range objs {
			add(x.IRI(ns.ConflictResolvedObject), o)
		}
		// The re-merge below is due from now on: if it fails (or the
		// process stops before it), the team reads as not merged and the
		// retry points merge it, as they do a finished team's due merge,
		// instead of its facts staying those of before the resolution.
		st, err := m.readTeam(ctx, tx.Namespace().Dataset(), teamID, "-")
		if err != nil {
			return err
		}
		if Finished(st.team.Status) && st.team.MergePending == "" {
			m.markMergeDue(st)
		}
		if len(st.add) > 0 || len(st.rm) > 0 {
			tx.Remove(st.rm...)
			tx.Add(st.add...)
			m.pinTeam(tx, teamID, st.add)
			m.putTeamRow(tx, teamID, st.props[st.node])
		} else {
			tx.KeepSide(teamTable) // the conflict graph only
		}
		cg := &conflictGraph{team: teamID, nodes: map[quad.Value]map[quad.Value][]quad.Value{node: pm}}
		c := m.conflict(teamID, cg, node, info)
		if c == nil {
			return fmt.Errorf("team %s: conflict %q: %w: not a conflict node", IDText(teamID), conflictID, ErrCorrupt)
		}
		return m.stageEvents(ctx, tx, now, []Event{{Type: EventConflictResolved, Team: teamID, Conflicts: []Conflict{*c}}})
	})
	if err != nil {
		return MergeReport{}, err
	}
	rep, err := m.mergeLocked(ctx, teamID, false)
	if err != nil {
		return MergeReport{}, fmt.Errorf("resolve conflict %s: re-merge: %w", IDText(conflictID), err)
	}
	return rep, nil
}
