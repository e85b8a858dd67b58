package teammanager

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

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
// never a query per team. Timed-out teams are reported failed, as by GetTeam.
func (m *Manager) ListTeams(ctx context.Context, f TeamFilter) ([]Team, error) {
	if f.Status != "" && !f.Status.Valid() {
		return nil, fmt.Errorf("list teams: %w %q", ErrInvalidStatus, f.Status)
	}
	return m.listTeams(ctx, f.Status, true)
}

// teamRow collects the term ids of one team's listed fields.
type teamRow struct {
	g      cortex.ID
	fields [nListFields]cortex.ID
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
	rows := map[cortex.ID]*teamRow{}
	if err := scan(ctx, m.n, cortex.IDPattern{P: ids[0], O: ids[1], Scope: cortex.NamedGraphs}, func(q cortex.QuadIDs) {
		rows[q.S] = &teamRow{g: q.G}
	}); err != nil {
		return nil, err
	}
	for i := range preds {
		pid := ids[2+i]
		if pid == 0 {
			continue
		}
		if err := scan(ctx, m.n, cortex.IDPattern{P: pid, Scope: cortex.NamedGraphs}, func(q cortex.QuadIDs) {
			if r := rows[q.S]; r != nil && r.g == q.G {
				r.fields[i] = q.O
			}
		}); err != nil {
			return nil, err
		}
	}
	// Resolve every id at once: team nodes, graphs and field values.
	order := make([]cortex.ID, 0, len(rows))
	for s := range rows {
		order = append(order, s)
	}
	want := make([]cortex.ID, 0, len(rows)*(2+nListFields))
	for _, s := range order {
		r := rows[s]
		want = append(want, s, r.g)
		want = append(want, r.fields[:]...)
	}
	vals, err := m.n.Terms(ctx, want)
	if err != nil {
		return nil, fmt.Errorf("list teams: %w", err)
	}
	now := m.now()
	out := make([]Team, 0, len(rows))
	const stride = 2 + nListFields
	for i := range order {
		v := vals[i*stride : (i+1)*stride]
		iri, ok := v[0].(quad.IRI)
		if !ok {
			continue
		}
		ref, err := x.Parse(iri)
		if err != nil || ref.Kind != ns.KindTeam || v[1] != quad.Value(x.TeamGraph(ref.Team)) {
			continue // a look-alike outside a team graph
		}
		t, err := rowTeam(ref.Team, v[2:])
		if err != nil {
			return nil, fmt.Errorf("list teams: team %s: %w: %v", ref.Team, ErrCorrupt, err)
		}
		if applyTimeouts {
			applyTimeout(&t, now)
		}
		if status != "" && t.Status != status {
			continue
		}
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b Team) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out, nil
}

func rowTeam(id string, v []quad.Value) (Team, error) {
	t := Team{ID: id}
	var err error
	str := func(v quad.Value) string {
		if v == nil || err != nil {
			return ""
		}
		var s string
		s, err = ns.ParseString(v)
		return s
	}
	tm := func(dst *Team, v quad.Value, set func(*Team, quad.Value) error) {
		if v != nil && err == nil {
			err = set(dst, v)
		}
	}
	t.Name = str(v[fName])
	t.Status = Status(str(v[fStatus]))
	t.Strategy = str(v[fStrategy])
	t.FailReason = str(v[fError])
	t.Context = str(v[fDescription])
	tm(&t, v[fCreated], func(t *Team, v quad.Value) (e error) { t.CreatedAt, e = ns.ParseDateTime(v); return })
	tm(&t, v[fUpdated], func(t *Team, v quad.Value) (e error) { t.UpdatedAt, e = ns.ParseDateTime(v); return })
	tm(&t, v[fCompleted], func(t *Team, v quad.Value) (e error) { t.CompletedAt, e = ns.ParseDateTime(v); return })
	tm(&t, v[fStarted], func(t *Team, v quad.Value) (e error) { t.StartedAt, e = ns.ParseDateTime(v); return })
	tm(&t, v[fTimeout], func(t *Team, v quad.Value) (e error) { t.Timeout, e = ns.ParseDuration(v); return })
	if err == nil && !t.Status.Valid() {
		err = fmt.Errorf("status %q", t.Status)
	}
	return t, err
}

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
