package teammanager

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	ns "github.com/cortexgraph/cortex/namespace"
)

// Manager runs agent teams stored as RDF in one namespace of a Cortex store.
// It is safe for concurrent use by multiple goroutines; see the package
// documentation for what is atomic.
type Manager struct {
	n   *cortex.Namespace
	ns  ns.NS
	cfg Config

	listPreds [nListFields]quad.Value // predicates of the listed fields (listPreds)

	mergeLocks [64]sync.Mutex // per-team (hashed) serialisation of merges

	cacheMu sync.RWMutex
	cache   map[cortex.ID]quad.Value // term ids → terms (ids of committed writes are never reused)
}

// New returns a Manager over namespace x of store s (the namespace is
// created if needed). cfg is validated once, here. If the namespace's team
// table (teamtable.go) is stale or missing, New rebuilds it, as a listing
// would, when the namespace's write lock is free: a scan of the teams'
// listed fields (a new namespace has none).
func New(ctx context.Context, s *cortex.Store, x ns.NS, cfg Config) (_ *Manager, err error) {
	defer func() { err = withCause(ctx, err) }()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	n, err := s.Namespace(ctx, x.Name())
	if err != nil {
		return nil, err
	}
	m := &Manager{n: n, ns: x, cfg: cfg, listPreds: listPreds(x), cache: map[cortex.ID]quad.Value{}}
	current, err := n.SideCurrent(ctx, teamTable)
	if err != nil {
		return nil, err
	}
	if !current {
		if _, _, err := m.listRebuilding(ctx, "", false); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Namespace returns the IRI layout the manager writes with.
func (m *Manager) Namespace() ns.NS { return m.ns }

// Strategies lists the merge strategies teams may use, sorted.
func (m *Manager) Strategies() []string { return m.cfg.Strategies() }

func (m *Manager) now() time.Time { return m.cfg.now().UTC() }

func (m *Manager) mergeLock(team string) *sync.Mutex {
	h := fnv.New32a()
	h.Write([]byte(team))
	return &m.mergeLocks[h.Sum32()%uint32(len(m.mergeLocks))]
}

func errorf(sentinel error, format string, a ...any) error {
	return fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, a...))
}

// validID reports whether s is a usable team or agent id: 1..64 characters
// of [A-Za-z0-9._@+-].
func validID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("._@+-", c) >= 0) {
			return false
		}
	}
	return true
}

var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// newTeamID returns "t" followed by 16 random base-32 characters (80 bits).
func newTeamID() string {
	var b [10]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return "t" + idEncoding.EncodeToString(b[:])
}

func (m *Manager) validate(tc TeamConfig) (TeamConfig, error) {
	bad := func(format string, a ...any) (TeamConfig, error) {
		return tc, fmt.Errorf("create team %q: %w", tc.Name, errorf(ErrInvalidTeam, format, a...))
	}
	tc.Name = strings.TrimSpace(tc.Name)
	switch {
	case tc.Name == "":
		return bad("empty name")
	case tc.ID != "" && !validID(tc.ID):
		return bad("id %q must be 1..64 characters of [A-Za-z0-9._@+-]", tc.ID)
	case len(tc.Members) == 0:
		return bad("no members")
	case len(tc.Members) > m.cfg.maxTeamSize:
		return bad("%d members, at most %d allowed", len(tc.Members), m.cfg.maxTeamSize)
	case math.IsNaN(tc.Threshold) || tc.Threshold < 0 || tc.Threshold > 1:
		return bad("threshold %v not in [0, 1]", tc.Threshold)
	}
	if tc.Strategy == "" {
		tc.Strategy = m.cfg.defaultStrategy
	}
	if _, err := m.cfg.lookup(tc.Strategy); err != nil {
		return tc, fmt.Errorf("create team %q: %w: %w", tc.Name, ErrInvalidTeam, err)
	}
	seen := map[string]bool{}
	for _, mc := range tc.Members {
		if !validID(mc.AgentID) {
			return bad("agent id %q must be 1..64 characters of [A-Za-z0-9._@+-]", mc.AgentID)
		}
		if seen[mc.AgentID] {
			return bad("agent %q listed twice", mc.AgentID)
		}
		seen[mc.AgentID] = true
	}
	if tc.TieBreaker != "" && !seen[tc.TieBreaker] {
		return bad("tie-breaker %q is not a member", tc.TieBreaker)
	}
	switch {
	case tc.Timeout == 0:
		tc.Timeout = m.cfg.workflowTimeout
	case tc.Timeout < 0:
		tc.Timeout = 0
	}
	return tc, nil
}

// CreateTeam validates tc and writes the team and its members, all pending,
// in one atomic write. It returns the new team.
func (m *Manager) CreateTeam(ctx context.Context, tc TeamConfig) (_ Team, err error) {
	defer func() { err = withCause(ctx, err) }()
	tc, err = m.validate(tc)
	if err != nil {
		return Team{}, err
	}
	var team Team
	err = m.n.Update(ctx, func(tx *cortex.Tx) error {
		id := tc.ID
		for attempt := 0; ; attempt++ {
			if tc.ID == "" {
				id = newTeamID()
			}
			exists, err := m.exists(ctx, id)
			if err != nil {
				return err
			}
			if !exists {
				break
			}
			if tc.ID != "" {
				return fmt.Errorf("create team %q: %w", id, ErrTeamExists)
			}
			if attempt == 8 {
				return fmt.Errorf("create team: no free id after %d attempts", attempt+1)
			}
		}
		now := m.now()
		team = Team{
			ID: id, Name: tc.Name, Context: tc.Context, Strategy: tc.Strategy, Status: Pending,
			CreatedAt: now, UpdatedAt: now, Timeout: tc.Timeout, Threshold: tc.Threshold, TieBreaker: tc.TieBreaker,
		}
		for _, mc := range tc.Members {
			team.Members = append(team.Members, Member{
				AgentID: mc.AgentID, Role: mc.Role, Task: mc.Task, Critical: mc.Critical, Status: Pending, JoinedAt: now,
			})
		}
		sortMembers(team.Members)
		qs := m.teamQuads(&team)
		tx.Add(qs...)
		m.pinTeam(tx, id, qs)
		m.putTeamRow(tx, id, nodeProps(m.ns.Team(id), qs))
		return nil
	})
	if err != nil {
		return Team{}, err
	}
	return team, nil
}

func (m *Manager) exists(ctx context.Context, id string) (bool, error) {
	qs, err := m.n.Quads(ctx, cortex.Pattern{
		Subject: m.ns.Team(id), Predicate: ns.RDFType, Object: m.ns.IRI(ns.ClassTeam),
		Graph: m.ns.TeamGraph(id), Scope: cortex.OneGraph,
	})
	return len(qs) > 0, err
}

// GetTeam returns team id with its members. A team running past its timeout
// is reported failed (FailTimeout) even if no write has recorded it yet.
func (m *Manager) GetTeam(ctx context.Context, id string) (_ Team, err error) {
	defer func() { err = withCause(ctx, err) }()
	st, err := m.readTeam(ctx, m.n, id, "")
	if err != nil {
		return Team{}, err
	}
	applyTimeout(&st.team, m.now())
	return st.team, nil
}

// IsTeamComplete reports whether the team is finished: completed or failed
// (including by timeout).
func (m *Manager) IsTeamComplete(ctx context.Context, id string) (bool, error) {
	t, err := m.GetTeam(ctx, id)
	if err != nil {
		return false, err
	}
	return Finished(t.Status), nil
}

// update runs fn on the team's state inside an atomic read-modify-write and
// writes what fn staged. If the team has timed out, the failure is written
// and ErrTeamFinished returned without calling fn.
func (m *Manager) update(ctx context.Context, id, focus string, fn func(st *teamState, tx *cortex.Tx, now time.Time) error) (*teamState, error) {
	var (
		st       *teamState
		timedOut bool
	)
	err := m.n.Update(ctx, func(tx *cortex.Tx) error {
		var err error
		st, err = m.readTeam(ctx, tx.Namespace(), id, focus)
		if err != nil {
			return err
		}
		now := m.now()
		if m.persistTimeout(st, now) {
			timedOut = true
		} else if err := fn(st, tx, now); err != nil {
			return err
		}
		tx.Remove(st.rm...)
		tx.Add(st.add...)
		m.pinTeam(tx, id, st.add)
		m.putTeamRow(tx, id, st.props[st.node])
		return nil
	})
	if err != nil {
		return nil, err
	}
	if timedOut {
		return st, fmt.Errorf("team %s: %w: timed out at %s", id, ErrTeamFinished, st.team.CompletedAt.Format(time.RFC3339))
	}
	return st, nil
}

// transitions lists the member status changes UpdateMemberStatus accepts.
// running → running records progress (a new result) without a status change.
var transitions = map[Status][]Status{
	Pending: {Running, Failed},
	Running: {Running, Completed, Failed},
}

func allowed(from, to Status) bool {
	for _, s := range transitions[from] {
		if s == to {
			return true
		}
	}
	return false
}

// MemberUpdate is the outcome of UpdateMemberStatus.
type MemberUpdate struct {
	Team       string
	TeamStatus Status // the team's status after the update
	FailReason string // why the team failed, if it did
	Member     Member // the member after the update
	// Merge is the report of the automatic merge, when the update completed
	// the team and auto-merge is on.
	Merge *MergeReport
}

// UpdateMemberStatus moves member agentID of team teamID to status and, if
// result is not empty, records it as the member's result. The team's status
// follows in the same atomic write: running when the first member starts,
// completed when every member is completed or failed and at least one
// completed, failed when all failed or a critical member failed.
//
// Accepted changes are pending → running | failed and running → running |
// completed | failed; running → running records progress (a new result).
// Refused changes are typed errors: ErrUnknownTeam, ErrUnknownAgent, a
// *TransitionError (e.g. completed → running), ErrTeamFinished (also when
// the team has just timed out: the failure is then recorded). When the
// update completes the team and auto-merge is on, the team is merged after
// the update commits; a failed merge is reported as an *AutoMergeError with
// the update in place.
func (m *Manager) UpdateMemberStatus(ctx context.Context, teamID, agentID string, status Status, result string) (_ MemberUpdate, err error) {
	defer func() { err = withCause(ctx, err) }()
	if !status.Valid() {
		return MemberUpdate{}, fmt.Errorf("team %s: member %s: %w %q", teamID, agentID, ErrInvalidStatus, status)
	}
	var completedNow bool
	st, err := m.update(ctx, teamID, agentID, func(st *teamState, _ *cortex.Tx, now time.Time) error {
		t := &st.team
		if Finished(t.Status) {
			return fmt.Errorf("team %s is %s: %w", teamID, t.Status, ErrTeamFinished)
		}
		mb, ok := t.Member(agentID)
		if !ok {
			return fmt.Errorf("team %s: agent %q: %w", teamID, agentID, ErrUnknownAgent)
		}
		if !allowed(mb.Status, status) {
			return &TransitionError{Team: teamID, Agent: agentID, From: mb.Status, To: status}
		}
		x := m.ns
		node := st.members[agentID]
		mb.Status = status
		st.set(node, x.IRI(ns.MemberStatus), ns.String(string(status)))
		if result != "" {
			mb.Result = result
			st.set(node, x.IRI(ns.MemberResult), ns.String(result))
		}
		if Finished(status) {
			mb.CompletedAt = now
			st.setTime(node, ns.MemberCompletedAt, now, x)
		}
		before := t.Status
		t.Status, t.FailReason = derive(t)
		if t.Status != Pending && t.StartedAt.IsZero() {
			t.StartedAt = now
		}
		if Finished(t.Status) {
			t.CompletedAt = now
		}
		t.UpdatedAt = now
		completedNow = before != Completed && t.Status == Completed
		m.writeTeamStatus(st)
		return nil
	})
	var up MemberUpdate
	if st != nil {
		up = MemberUpdate{Team: teamID, TeamStatus: st.team.Status, FailReason: st.team.FailReason}
		if mb, ok := st.team.Member(agentID); ok {
			up.Member = *mb
		}
	}
	if err != nil {
		return up, err
	}
	if completedNow && m.cfg.autoMerge {
		rep, err := m.MergeTeamResults(ctx, teamID)
		if err != nil {
			return up, &AutoMergeError{Team: teamID, Err: err}
		}
		up.Merge = &rep
	}
	return up, nil
}

// Sweep records the failure of every running team that has passed its
// timeout and returns their ids. Reads already report such teams as failed;
// Sweep makes it durable (a host may call it periodically).
func (m *Manager) Sweep(ctx context.Context) (_ []string, err error) {
	defer func() { err = withCause(ctx, err) }()
	teams, err := m.listTeams(ctx, Running, false)
	if err != nil {
		return nil, err
	}
	now := m.now()
	var out []string
	for _, t := range teams {
		if exp := expiry(&t); exp.IsZero() || now.Before(exp) {
			continue
		}
		_, err := m.update(ctx, t.ID, "-", func(*teamState, *cortex.Tx, time.Time) error { return nil })
		switch {
		case errors.Is(err, ErrTeamFinished):
			out = append(out, t.ID)
		case errors.Is(err, ErrUnknownTeam):
		case err != nil:
			return out, err
		}
	}
	return out, nil
}

// DeleteTeam removes the team: its state, its members' findings, its shared,
// provenance and conflict graphs and its fact sets, in one atomic step (journaled by the store
// when large, see cortex.Namespace.Apply): readers see the whole team or
// nothing of it, and a crash in the middle leaves the team as it was.
func (m *Manager) DeleteTeam(ctx context.Context, id string) (err error) {
	defer func() { err = withCause(ctx, err) }()
	mu := m.mergeLock(id)
	mu.Lock()
	defer mu.Unlock()
	err = m.n.Update(ctx, func(tx *cortex.Tx) error {
		t, err := m.GetTeam(ctx, id)
		if err != nil {
			return err
		}
		prov := m.ns.ProvenanceGraph(id)
		graphs := []quad.Value{m.ns.SharedGraph(id), prov, m.ns.ConflictGraph(id)}
		pq, err := m.n.Quads(ctx, cortex.Pattern{Graph: prov, Scope: cortex.OneGraph})
		if err != nil {
			return err
		}
		seen := map[quad.Value]bool{}
		for _, q := range pq {
			if !seen[q.Subject] && m.isFactSet(id, q.Subject) {
				seen[q.Subject] = true
				graphs = append(graphs, q.Subject) // a fact set
			}
		}
		for _, mb := range t.Members {
			graphs = append(graphs, m.ns.MemberGraph(id, mb.AgentID))
		}
		graphs = append(graphs, m.ns.TeamGraph(id))
		for _, g := range graphs {
			qs, err := m.n.Quads(ctx, cortex.Pattern{Graph: g, Scope: cortex.OneGraph})
			if err != nil {
				return err
			}
			tx.Remove(qs...)
		}
		tx.DeleteSide(teamTable, id)
		tx.KeepSide(teamTable)
		return nil
	})
	if err != nil && !errors.Is(err, ErrUnknownTeam) {
		return fmt.Errorf("delete team %s: %w", id, err)
	}
	return err
}
