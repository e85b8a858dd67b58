package teammanager

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	ns "github.com/cortexgraph/cortex/namespace"
)

func sortMembers(ms []Member) {
	slices.SortFunc(ms, func(a, b Member) int { return strings.Compare(a.AgentID, b.AgentID) })
}

// ListTeams returns every team matching f, without members, ordered by
// creation time and then id. There is no limit. The work is proportional to
// the number of teams: one index scan per listed field (name, status, ...),
// never a query per team, and one batched resolution of the terms of the
// listed teams (with a status filter, only of the teams that can match).
// Timed-out teams are reported failed, as by GetTeam.
func (m *Manager) ListTeams(ctx context.Context, f TeamFilter) ([]Team, error) {
	if f.Status != "" && !f.Status.Valid() {
		return nil, fmt.Errorf("list teams: %w %q", ErrInvalidStatus, f.Status)
	}
	return m.listTeams(ctx, f.Status, true)
}

// teamRow collects the term ids of one team's listed fields.
type teamRow struct {
	s, g   cortex.ID
	fields [nListFields]cortex.ID
}

// rowKey is a team node and its graph.
type rowKey struct{ s, g cortex.ID }

func compareKeys(a, b rowKey) int {
	if c := cmp.Compare(a.s, b.s); c != 0 {
		return c
	}
	return cmp.Compare(a.g, b.g)
}

const (
	fName = iota
	fStatus
	fStrategy
	fCreated
	fUpdated
	fCompleted
	fStarted
	fTimeout
	fError
	fDescription
	nListFields
)

func (m *Manager) listTeams(ctx context.Context, status Status, applyTimeouts bool) ([]Team, error) {
	x := m.ns
	preds := [nListFields]quad.Value{
		fName: x.IRI(ns.TeamName), fStatus: x.IRI(ns.TeamStatus), fStrategy: x.IRI(ns.TeamStrategy),
		fCreated: x.IRI(ns.TeamCreatedAt), fUpdated: x.IRI(ns.TeamUpdatedAt), fCompleted: x.IRI(ns.TeamCompletedAt),
		fStarted: ns.ProvStartedAtTime, fTimeout: x.IRI(ns.TeamTimeout), fError: x.IRI(ns.TeamError),
		fDescription: x.IRI(ns.TeamDescription),
	}
	terms := append([]quad.Value{ns.RDFType, x.IRI(ns.ClassTeam)}, preds[:]...)
	ids, err := m.n.IDs(ctx, terms)
	if err != nil {
		return nil, fmt.Errorf("list teams: %w", err)
	}
	if ids[0] == 0 || ids[1] == 0 {
		return []Team{}, nil
	}
	// One scan of the POSG index finds every team node and its graph.
	var rows []teamRow
	if err := scan(ctx, m.n, cortex.IDPattern{P: ids[0], O: ids[1], Scope: cortex.NamedGraphs}, func(q cortex.QuadIDs) {
		rows = append(rows, teamRow{s: q.S, g: q.G})
	}); err != nil {
		return nil, fmt.Errorf("list teams: %w", err)
	}
	if len(rows) == 0 {
		return []Team{}, nil
	}
	// Look rows up by binary search over their (S, G) keys rather than
	// through a map. (The scan is nearly in (S, G) order, but key escaping
	// does not preserve id order.) The keys are a separate slice because
	// the field scans below write the rows concurrently.
	slices.SortFunc(rows, func(a, b teamRow) int { return compareKeys(rowKey{a.s, a.g}, rowKey{b.s, b.g}) })
	keys := make([]rowKey, len(rows))
	for i := range rows {
		keys[i] = rowKey{rows[i].s, rows[i].g}
	}
	find := func(s, g cortex.ID) *teamRow {
		i, ok := slices.BinarySearchFunc(keys, rowKey{s, g}, compareKeys)
		if !ok {
			return nil
		}
		return &rows[i]
	}
	// One scan per field over the POSG index, run concurrently: each writes
	// its own field of the rows.
	var (
		wg       sync.WaitGroup
		errs     [nListFields]error
		sem      = make(chan struct{}, min(runtime.GOMAXPROCS(0), 4))
		scanning = func(i int, pid cortex.ID) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			errs[i] = scan(ctx, m.n, cortex.IDPattern{P: pid, Scope: cortex.NamedGraphs}, func(q cortex.QuadIDs) {
				if r := find(q.S, q.G); r != nil {
					r.fields[i] = q.O
				}
			})
		}
	)
	for i := range preds {
		if pid := ids[2+i]; pid != 0 {
			wg.Add(1)
			go scanning(i, pid)
		}
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("list teams: %w", err)
		}
	}
	if status != "" {
		// Resolve the few distinct statuses first and keep only the teams
		// that can match: the stored status, or a running team that has
		// timed out when failed teams are asked for.
		var sids []cortex.ID
		for i := range rows {
			if sid := rows[i].fields[fStatus]; !slices.Contains(sids, sid) {
				sids = append(sids, sid)
			}
		}
		svals, err := m.n.TermsBatch(ctx, sids)
		if err != nil {
			return nil, fmt.Errorf("list teams: %w", err)
		}
		keep := map[cortex.ID]bool{}
		for i, v := range svals {
			s, err := ns.ParseString(v)
			if err != nil || !Status(s).Valid() {
				keep[sids[i]] = true // let rowTeam report it
				continue
			}
			keep[sids[i]] = Status(s) == status || applyTimeouts && status == Failed && Status(s) == Running
		}
		rows = slices.DeleteFunc(rows, func(r teamRow) bool { return !keep[r.fields[fStatus]] })
	}
	// Resolve every id at once: team nodes, graphs and field values.
	const stride = 2 + nListFields
	want := make([]cortex.ID, 0, len(rows)*stride)
	for i := range rows {
		r := &rows[i]
		want = append(want, r.s, r.g)
		want = append(want, r.fields[:]...)
	}
	vals, err := m.n.TermsBatch(ctx, want)
	if err != nil {
		return nil, fmt.Errorf("list teams: %w", err)
	}
	now := m.now()
	out := make([]Team, 0, len(rows))
	cache := valueParser{times: map[quad.Value]time.Time{}, strs: map[quad.Value]string{}}
	for i := range rows {
		v := vals[i*stride : (i+1)*stride]
		iri, ok := v[0].(quad.IRI)
		if !ok {
			continue
		}
		ref, err := x.Parse(iri)
		if err != nil || ref.Kind != ns.KindTeam || v[1] != quad.Value(x.TeamGraph(ref.Team)) {
			continue // a look-alike outside a team graph
		}
		t, err := cache.rowTeam(ref.Team, v[2:])
		if err != nil {
			// The scans above read separate snapshots, so a team created or
			// deleted while they ran can look incomplete: read it again on
			// its own, and leave it out if it is gone.
			t, err = m.GetTeam(ctx, ref.Team)
			if errors.Is(err, ErrUnknownTeam) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("list teams: team %s: %w", ref.Team, err)
			}
			t.Members = nil
		}
		if applyTimeouts {
			applyTimeout(&t, now)
		}
		if status != "" && t.Status != status {
			continue
		}
		out = append(out, t)
	}
	// Sort an index rather than the (large) Team values.
	order := make([]int, len(out))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := out[a].CreatedAt.Compare(out[b].CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(out[a].ID, out[b].ID)
	})
	sorted := make([]Team, len(out))
	for i, j := range order {
		sorted[i] = out[j]
	}
	return sorted, nil
}

// valueParser parses field values of listed teams, remembering the values
// many teams share (statuses, strategies, times).
type valueParser struct {
	times map[quad.Value]time.Time
	strs  map[quad.Value]string
	err   error
}

func (p *valueParser) str(v quad.Value) string {
	if v == nil || p.err != nil {
		return ""
	}
	if s, ok := p.strs[v]; ok {
		return s
	}
	s, err := ns.ParseString(v)
	if err != nil {
		p.err = err
		return ""
	}
	if len(p.strs) < 1<<12 {
		p.strs[v] = s
	}
	return s
}

func (p *valueParser) time(v quad.Value) time.Time {
	if v == nil || p.err != nil {
		return time.Time{}
	}
	if t, ok := p.times[v]; ok {
		return t
	}
	t, err := ns.ParseDateTime(v)
	if err != nil {
		p.err = err
		return time.Time{}
	}
	if len(p.times) < 1<<12 {
		p.times[v] = t
	}
	return t
}

func (p *valueParser) rowTeam(id string, v []quad.Value) (Team, error) {
	p.err = nil
	t := Team{ID: id}
	t.Name = p.str(v[fName])
	t.Status = Status(p.str(v[fStatus]))
	t.Strategy = p.str(v[fStrategy])
	t.FailReason = p.str(v[fError])
	t.Context = p.str(v[fDescription])
	t.CreatedAt = p.time(v[fCreated])
	t.UpdatedAt = p.time(v[fUpdated])
	t.CompletedAt = p.time(v[fCompleted])
	t.StartedAt = p.time(v[fStarted])
	if v[fTimeout] != nil && p.err == nil {
		t.Timeout, p.err = ns.ParseDuration(v[fTimeout])
	}
	if p.err == nil && !t.Status.Valid() {
		p.err = fmt.Errorf("status %q", t.Status)
	}
	if p.err == nil && (v[fName] == nil || v[fStrategy] == nil || v[fCreated] == nil) {
		p.err = errIncomplete // every team has these: seen mid-create or mid-delete
	}
	return t, p.err
}

var errIncomplete = errors.New("team fields missing")

// scan calls fn for every quad matching p.
func scan(ctx context.Context, n *cortex.Namespace, p cortex.IDPattern, fn func(cortex.QuadIDs)) error {
	it := n.MatchIDs(ctx, p)
	defer it.Close()
	for it.Next(ctx) {
		fn(it.Quad())
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("scan: %w", err)
	}
	return nil
}
