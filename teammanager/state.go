package teammanager

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
	ns "github.com/cortexgraph/cortex/namespace"
)

// Reasons a team failed, the values of Team.FailReason (team:error).
const (
	FailTimeout        = "timeout"                // ran longer than its timeout
	FailCriticalMember = "critical-member-failed" // a member marked critical failed
	FailAllMembers     = "all-members-failed"     // every member failed
)

// Why a finished team's due merge is not done, the values of
// Team.MergePending (team:merge:status).
const (
	// MergeInterrupted: no attempt at the due merge has ended since the
	// team finished (the process stopped or was killed during it, or it is
	// running right now).
	MergeInterrupted = "interrupted"
	// MergeFailed: the last attempt failed (Team.MergeError says why).
	MergeFailed = "failed"
	// MergeTimeout: the team ran past its timeout with a completed member,
	// and no write has recorded the timeout yet, so its merge has not
	// started. Reads report it (it is never stored): GetTeam records the
	// timeout and merges, unless the store is read-only; Sweep and the next
	// write to the team do too.
	MergeTimeout = "timeout"
)

// The kinds of a failed merge attempt, the values of Team.MergeErrorKind
// (team:merge:errorKind).
const (
	// MergeErrorKindTimeout: an automatic merge stopped at
	// AutoMergeTimeout (a strategy that did not return): no retry point
	// runs it again; MergeTeamResults does.
	MergeErrorKindTimeout = "timeout"
	// MergeErrorKindError: any other failure (the strategy's error, a
	// write that failed); retried as "Merges that always happen" says.
	MergeErrorKindError = "error"
)

// mergeErrorKind returns the kind of t's failed merge as read: the
// recorded kind or, for a failure recorded before kinds were (none
// recorded), the one its text tells (mergeTimedOutText begins the text of
// a timeout); empty when no failure is recorded.
func mergeErrorKind(t *Team, recorded string) string {
	switch {
	case recorded != "":
		return recorded
	case t.MergeError == "":
		return ""
	case strings.HasPrefix(t.MergeError, mergeTimedOutText):
		return MergeErrorKindTimeout
	default:
		return MergeErrorKindError
	}
}

// teamState is a team read from its state graph, with what is needed to
// change it: the graph's triples by subject and predicate.
type teamState struct {
	team    Team
	graph   quad.IRI
	node    quad.IRI
	members map[string]quad.IRI // agent id → member node
	props   map[quad.Value]map[quad.Value][]quad.Value
	// staged changes
	rm, add []quad.Quad
	events  []Event // staged by a write's fn (see Manager.write)
}

func (st *teamState) get(s, p quad.Value) quad.Value {
	if vs := st.props[s][p]; len(vs) > 0 {
		return vs[0]
	}
	return nil
}

// set replaces every value of (s, p) in the team graph by v (nil: none).
func (st *teamState) set(s, p, v quad.Value) {
	m := st.props[s]
	if m == nil {
		m = map[quad.Value][]quad.Value{}
		st.props[s] = m
	}
	has := false
	for _, o := range m[p] {
		if v != nil && o == v {
			has = true
			continue
		}
		st.rm = append(st.rm, quad.Quad{Subject: s, Predicate: p, Object: o, Label: st.graph})
	}
	if v == nil {
		delete(m, p)
		return
	}
	if !has {
		st.add = append(st.add, quad.Quad{Subject: s, Predicate: p, Object: v, Label: st.graph})
	}
	m[p] = []quad.Value{v}
}

func (st *teamState) setTime(s quad.Value, p ns.Term, t time.Time, x ns.NS) {
	if t.IsZero() {
		st.set(s, x.IRI(p), nil)
		return
	}
	st.set(s, x.IRI(p), ns.DateTime(t))
}

// readTeam reads team id from n. It fails with ErrUnknownTeam if there is
// no such team. With focus set, only that member is read in full; of the
// others only status and criticality (what the team status derives from),
// which keeps member updates cheap in large teams. The scans are narrow on
// purpose (the team node; each member by subject, or subject and
// predicate): one scan of the whole state graph would step over the deletion
// markers of every value the members replaced since the last compaction
// (tried in session 15: TestManager_ConcurrentUpdates went from 9 s to 42 s).
func (m *Manager) readTeam(ctx context.Context, ds cortex.Dataset, id, focus string) (*teamState, error) {
	x := m.ns
	st := &teamState{
		graph: x.TeamGraph(id), node: x.Team(id),
		members: map[string]quad.IRI{}, props: map[quad.Value]map[quad.Value][]quad.Value{},
	}
	fail := func(err error) (*teamState, error) { return nil, teamErr(id, "read", err) }
	ids, err := ds.IDs(ctx, []quad.Value{st.graph, st.node, x.IRI(ns.TeamMember), x.IRI(ns.MemberStatus), x.IRI(ns.MemberCritical)})
	if err != nil {
		return fail(err)
	}
	gid, tid, pMember, pStatus, pCritical := ids[0], ids[1], ids[2], ids[3], ids[4]
	if gid == 0 || tid == 0 {
		return nil, fmt.Errorf("team %q: %w", id, unknown(ErrUnknownTeam, id))
	}
	var quads []eval.Quad
	collect := func(q eval.Quad) { quads = append(quads, q) }
	if err := scan(ctx, ds, eval.Pattern{S: tid, G: gid, Scope: eval.OneGraph}, collect); err != nil {
		return fail(err)
	}
	var memberIDs []eval.ID
	for _, q := range quads {
		if q.P == pMember {
			memberIDs = append(memberIDs, q.O)
		}
	}
	mterms, err := m.terms(ctx, ds, memberIDs)
	if err != nil {
		return fail(err)
	}
	focusNode := quad.Value(nil)
	if focus != "" {
		focusNode = x.Member(id, focus)
	}
	for i, mid := range memberIDs {
		if focus == "" || mterms[i] == focusNode {
			if err := scan(ctx, ds, eval.Pattern{S: mid, G: gid, Scope: eval.OneGraph}, collect); err != nil {
				return fail(err)
			}
			continue
		}
		for _, p := range []eval.ID{pStatus, pCritical} {
			if p == 0 {
				continue
			}
			if err := scan(ctx, ds, eval.Pattern{S: mid, P: p, G: gid, Scope: eval.OneGraph}, collect); err != nil {
				return fail(err)
			}
		}
	}
	want := make([]eval.ID, 0, 3*len(quads))
	for _, q := range quads {
		want = append(want, q.S, q.P, q.O)
	}
	vals, err := m.terms(ctx, ds, want)
	if err != nil {
		return fail(err)
	}
	for i := range quads {
		s, p, o := vals[3*i], vals[3*i+1], vals[3*i+2]
		pm := st.props[s]
		if pm == nil {
			pm = map[quad.Value][]quad.Value{}
			st.props[s] = pm
		}
		pm[p] = append(pm[p], o)
	}
	if !slices.Contains(st.props[st.node][ns.RDFType], quad.Value(x.IRI(ns.ClassTeam))) {
		return nil, fmt.Errorf("team %q: %w", id, unknown(ErrUnknownTeam, id))
	}
	if err := m.parseTeam(st, id); err != nil {
		return nil, fmt.Errorf("team %s: %w: %v", IDText(id), ErrCorrupt, err)
	}
	return st, nil
}

// terms resolves term ids through the manager's cache. Term ids are never
// reused by the store, so a cached mapping never goes stale.
func (m *Manager) terms(ctx context.Context, ds cortex.Dataset, ids []eval.ID) ([]quad.Value, error) {
	out := make([]quad.Value, len(ids))
	var miss []eval.ID
	var at []int
	m.cacheMu.RLock()
	for i, id := range ids {
		if v, ok := m.cache[id]; ok {
			out[i] = v
		} else if id != 0 {
			miss = append(miss, id)
			at = append(at, i)
		}
	}
	m.cacheMu.RUnlock()
	if len(miss) == 0 {
		return out, nil
	}
	vals, err := ds.TermsBatch(ctx, miss)
	if err != nil {
		return nil, err
	}
	m.cacheMu.Lock()
	defer m.cacheMu.Unlock()
	if len(m.cache)+len(miss) > termCacheSize {
		clear(m.cache)
	}
	for j, v := range vals {
		out[at[j]] = v
		if v != nil {
			m.cache[miss[j]] = v
		}
	}
	return out, nil
}

const termCacheSize = 1 << 14

func (m *Manager) parseTeam(st *teamState, id string) error {
	x := m.ns
	t := &st.team
	t.ID = id
	var err error
	str := func(s quad.Value, p ns.Term) string {
		v := st.get(s, x.IRI(p))
		if v == nil || err != nil {
			return ""
		}
		var out string
		out, err = ns.ParseString(v)
		return out
	}
	tm := func(s quad.Value, p quad.IRI) time.Time {
		v := st.get(s, p)
		if v == nil || err != nil {
			return time.Time{}
		}
		var out time.Time
		out, err = ns.ParseDateTime(v)
		return out
	}
	agentOf := func(v quad.Value) string {
		iri, ok := v.(quad.IRI)
		if !ok || err != nil {
			if err == nil && v != nil {
				err = fmt.Errorf("agent %v is not an IRI", v)
			}
			return ""
		}
		ref, perr := x.Parse(iri)
		if perr != nil || ref.Kind != ns.KindAgent {
			err = fmt.Errorf("bad agent node %s", iri)
			return ""
		}
		return ref.Agent
	}
	t.Name = str(st.node, ns.TeamName)
	t.Context = str(st.node, ns.TeamDescription)
	t.Strategy = str(st.node, ns.TeamStrategy)
	t.Status = Status(str(st.node, ns.TeamStatus))
	t.FailReason = str(st.node, ns.TeamError)
	t.MergePending = str(st.node, ns.TeamMergePending)
	t.MergeError = str(st.node, ns.TeamMergeError)
	t.MergeErrorKind = mergeErrorKind(t, str(st.node, ns.TeamMergeErrorKind))
	t.CreatedAt = tm(st.node, x.IRI(ns.TeamCreatedAt))
	t.UpdatedAt = tm(st.node, x.IRI(ns.TeamUpdatedAt))
	t.CompletedAt = tm(st.node, x.IRI(ns.TeamCompletedAt))
	t.StartedAt = tm(st.node, ns.ProvStartedAtTime)
	if v := st.get(st.node, x.IRI(ns.TeamTimeout)); v != nil && err == nil {
		t.Timeout, err = ns.ParseDuration(v)
	}
	t.PausedAt = tm(st.node, x.IRI(ns.TeamPausedAt))
	t.DisbandedAt = tm(st.node, x.IRI(ns.TeamDisbandedAt))
	if v := st.get(st.node, x.IRI(ns.TeamPausedFor)); v != nil && err == nil {
		t.PausedFor, err = ns.ParseDuration(v)
	}
	if v := st.get(st.node, x.IRI(ns.TeamThreshold)); v != nil && err == nil {
		t.Threshold, err = ns.ParseConfidence(v)
	}
	if v := st.get(st.node, x.IRI(ns.TeamTieBreaker)); v != nil {
		t.TieBreaker = agentOf(v)
	}
	if v, ok := st.get(st.node, x.IRI(ns.TeamLastMerge)).(quad.IRI); ok {
		ref, perr := x.Parse(v)
		if perr != nil || ref.Kind != ns.KindMerge {
			return fmt.Errorf("bad merge node %s", v)
		}
		t.LastMerge = ref.ID
	}
	t.Merged = t.LastMerge != "" && t.MergePending == ""
	for _, mv := range st.props[st.node][x.IRI(ns.TeamMember)] {
		node, ok := mv.(quad.IRI)
		if !ok {
			return fmt.Errorf("member %v is not an IRI", mv)
		}
		agent := ""
		if ref, perr := x.Parse(node); perr == nil && ref.Kind == ns.KindMember && ref.Team == id {
			agent = ref.Agent
		}
		mb := Member{
			AgentID:     agent,
			Role:        str(node, ns.MemberRole),
			Task:        str(node, ns.MemberTask),
			Status:      Status(str(node, ns.MemberStatus)),
			Result:      str(node, ns.MemberResult),
			JoinedAt:    tm(node, x.IRI(ns.MemberJoinedAt)),
			CompletedAt: tm(node, x.IRI(ns.MemberCompletedAt)),
		}
		if v := st.get(node, x.IRI(ns.MemberCritical)); v != nil && err == nil {
			mb.Critical, err = ns.ParseBool(v)
		}
		if err != nil {
			return err
		}
		if mb.AgentID == "" || !mb.Status.Valid() {
			return fmt.Errorf("member %s lacks an agent or a valid status", node)
		}
		st.members[mb.AgentID] = node
		t.Members = append(t.Members, mb)
	}
	if err != nil {
		return err
	}
	if !t.Status.Valid() {
		return fmt.Errorf("status %q", t.Status)
	}
	t.Lifecycle = lifecycleOf(t)
	slices.SortFunc(t.Members, func(a, b Member) int { return strings.Compare(a.AgentID, b.AgentID) })
	return nil
}

// derive returns the status the team's members imply, and the failure
// reason, ignoring timeouts. A finished team keeps its status.
func derive(t *Team) (Status, string) {
	if Finished(t.Status) {
		return t.Status, t.FailReason
	}
	done, completed, started := 0, 0, 0
	for _, mb := range t.Members {
		switch mb.Status {
		case Failed:
			if mb.Critical {
				return Failed, FailCriticalMember
			}
			done++
			started++
		case Completed:
			done++
			completed++
			started++
		case Running:
			started++
		}
	}
	switch {
	case len(t.Members) > 0 && done == len(t.Members) && completed > 0:
		return Completed, ""
	case len(t.Members) > 0 && done == len(t.Members):
		return Failed, FailAllMembers
	case started > 0:
		return Running, ""
	}
	return Pending, ""
}

// expiry returns when a running team times out (zero: never): its timeout
// after it started, plus the time it was paused. A paused or disbanded
// team does not time out.
func expiry(t *Team) time.Time {
	if t.Status != Running || t.Timeout <= 0 || t.StartedAt.IsZero() || !t.PausedAt.IsZero() || !t.DisbandedAt.IsZero() {
		return time.Time{}
	}
	return t.StartedAt.Add(t.Timeout + t.PausedFor)
}

// applyTimeout marks t failed in memory if it is running past its timeout
// at now, with CompletedAt the exact expiry time. It reports whether it did.
func applyTimeout(t *Team, now time.Time) bool {
	exp := expiry(t)
	if exp.IsZero() || now.Before(exp) {
		return false
	}
	t.Status, t.FailReason, t.CompletedAt, t.UpdatedAt = Failed, FailTimeout, exp, exp
	t.Lifecycle = lifecycleOf(t)
	return true
}

// writeTeamStatus stages the team node's status fields from st.team.
func (m *Manager) writeTeamStatus(st *teamState) {
	x := m.ns
	t := &st.team
	st.set(st.node, x.IRI(ns.TeamStatus), ns.String(string(t.Status)))
	st.setTime(st.node, ns.TeamUpdatedAt, t.UpdatedAt, x)
	st.setTime(st.node, ns.TeamCompletedAt, t.CompletedAt, x)
	if t.StartedAt.IsZero() {
		st.set(st.node, ns.ProvStartedAtTime, nil)
	} else {
		st.set(st.node, ns.ProvStartedAtTime, ns.DateTime(t.StartedAt))
	}
	if t.FailReason == "" {
		st.set(st.node, x.IRI(ns.TeamError), nil)
	} else {
		st.set(st.node, x.IRI(ns.TeamError), ns.String(t.FailReason))
	}
	m.writeLifecycle(st)
}

// persistTimeout stages the failure of a timed-out team (and, if a merge
// is due, its marker); it reports whether the team timed out.
func (m *Manager) persistTimeout(st *teamState, now time.Time) bool {
	if !applyTimeout(&st.team, now) {
		return false
	}
	m.writeTeamStatus(st)
	m.markMergeDue(st)
	return true
}

// markMergeDue stages, for a team that has just finished, the marker of its
// due merge (team:merge:status "interrupted"), in the write that finishes
// it: with auto-merge on, a team that finishes with completed members is
// merged, and until a merge succeeds it reads as not merged. Nothing is
// staged with auto-merge off or without a completed member.
func (m *Manager) markMergeDue(st *teamState) {
	t := &st.team
	if !m.cfg.autoMerge || !hasCompleted(t) {
		return
	}
	t.Merged, t.MergePending, t.MergeError, t.MergeErrorKind = false, MergeInterrupted, "", ""
	st.set(st.node, m.ns.IRI(ns.TeamMergePending), ns.String(MergeInterrupted))
	st.set(st.node, m.ns.IRI(ns.TeamMergeError), nil)
	st.set(st.node, m.ns.IRI(ns.TeamMergeErrorKind), nil)
}

// hasCompleted reports whether a member of t has completed: then a merge
// has something to merge.
func hasCompleted(t *Team) bool {
	return slices.ContainsFunc(t.Members, func(mb Member) bool { return mb.Status == Completed })
}

// teamQuads returns the quads of a new team.
func (m *Manager) teamQuads(t *Team) []quad.Quad {
	x := m.ns
	g := x.TeamGraph(t.ID)
	node := x.Team(t.ID)
	var out []quad.Quad
	add := func(s, p, o quad.Value) {
		out = append(out, quad.Quad{Subject: s, Predicate: p, Object: o, Label: g})
	}
	add(node, ns.RDFType, x.IRI(ns.ClassTeam))
	add(node, x.IRI(ns.TeamName), ns.String(t.Name))
	if t.Context != "" {
		add(node, x.IRI(ns.TeamDescription), ns.String(t.Context))
	}
	add(node, x.IRI(ns.TeamStatus), ns.String(string(t.Status)))
	add(node, x.IRI(ns.TeamLifecycle), ns.String(string(lifecycleOf(t))))
	add(node, x.IRI(ns.TeamStrategy), ns.String(t.Strategy))
	add(node, x.IRI(ns.TeamCreatedAt), ns.DateTime(t.CreatedAt))
	add(node, x.IRI(ns.TeamUpdatedAt), ns.DateTime(t.UpdatedAt))
	if t.Timeout > 0 {
		add(node, x.IRI(ns.TeamTimeout), ns.Duration(t.Timeout))
	}
	if t.Threshold > 0 {
		d, _ := ns.Confidence(t.Threshold) // validated
		add(node, x.IRI(ns.TeamThreshold), d)
	}
	if t.TieBreaker != "" {
		add(node, x.IRI(ns.TeamTieBreaker), x.Agent(t.TieBreaker))
	}
	for _, mb := range t.Members {
		mn := x.Member(t.ID, mb.AgentID)
		an := x.Agent(mb.AgentID)
		add(node, x.IRI(ns.TeamMember), mn)
		add(mn, ns.RDFType, x.IRI(ns.ClassMember))
		add(mn, x.IRI(ns.MemberAgent), an)
		add(an, ns.RDFType, x.IRI(ns.ClassAgent))
		if mb.Role != "" {
			add(mn, x.IRI(ns.MemberRole), ns.String(mb.Role))
		}
		if mb.Task != "" {
			add(mn, x.IRI(ns.MemberTask), ns.String(mb.Task))
		}
		add(mn, x.IRI(ns.MemberStatus), ns.String(string(mb.Status)))
		add(mn, x.IRI(ns.MemberJoinedAt), ns.DateTime(mb.JoinedAt))
		if mb.Critical {
			add(mn, x.IRI(ns.MemberCritical), ns.Bool(true))
		}
	}
	return out
}

// clone returns a deep copy of st's team and triples, without staged
// changes.
func (st *teamState) clone() *teamState {
	cp := &teamState{team: st.team, graph: st.graph, node: st.node, members: maps.Clone(st.members),
		props: make(map[quad.Value]map[quad.Value][]quad.Value, len(st.props))}
	cp.team.Members = slices.Clone(st.team.Members)
	for s, pm := range st.props {
		m := make(map[quad.Value][]quad.Value, len(pm))
		for p, vs := range pm {
			m[p] = slices.Clone(vs)
		}
		cp.props[s] = m
	}
	return cp
}
