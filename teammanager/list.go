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
	"github.com/cortexgraph/cortex/cortex/sparql/eval"
	"github.com/cortexgraph/cortex/internal/ctxcause"
	ns "github.com/cortexgraph/cortex/namespace"
)

func sortMembers(ms []Member) {
	slices.SortFunc(ms, func(a, b Member) int { return strings.Compare(a.AgentID, b.AgentID) })
}

// ListTeams returns every team matching f, without members, ordered by
// creation time and then id. There is no limit, and never a query per team.
// Timed-out teams are reported failed, as by GetTeam.
//
// It reads the team table (teamtable.go): one row per team, kept by every
// write of the Manager in the same atomic step, so a listing is one scan of
// one table. When the table is stale (quads were changed by other writers,
// e.g. an import, since a Manager last wrote) the teams are read from the
// quads instead: one index scan per listed field (name, status, ...) and one
// batched resolution of their terms. That slow listing then rebuilds the
// table if the namespace's write lock is free (holding it for the scan), so
// the next listing is fast again: a write, which a caller that may not
// write avoids with PeekTeams.
func (m *Manager) ListTeams(ctx context.Context, f TeamFilter) (_ []Team, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	return m.listFiltered(ctx, f, true)
}

// PeekTeams is ListTeams for a caller that may not write (a read-only
// token of the server, as PeekTeam is GetTeam's): the same teams, in the
// same order, and it never writes: a stale team table is not rebuilt, the
// teams are read from the quads (as on a read-only store) and the table
// stays stale until a listing that may write (ListTeams, Sweep, New)
// rebuilds it.
func (m *Manager) PeekTeams(ctx context.Context, f TeamFilter) (_ []Team, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	return m.listFiltered(ctx, f, false)
}

// listFiltered is ListTeams, which rebuilds a stale team table if
// rebuild, and PeekTeams.
func (m *Manager) listFiltered(ctx context.Context, f TeamFilter, rebuild bool) ([]Team, error) {
	if f.Status != "" && !f.Status.Valid() {
		return nil, fmt.Errorf("list teams: %w %q", ErrInvalidStatus, f.Status)
	}
	if f.Lifecycle != "" && !f.Lifecycle.Valid() {
		return nil, fmt.Errorf("list teams: %w: lifecycle %q", ErrInvalidStatus, f.Lifecycle)
	}
	if err := ctx.Err(); err != nil {
		// (the team table may answer without reading the store)
		return nil, fmt.Errorf("list teams: %w", err)
	}
	out, err := m.listTeams(ctx, f.Status, true, rebuild)
	if err != nil || f.Lifecycle == "" {
		return out, err
	}
	return slices.DeleteFunc(out, func(t Team) bool { return t.Lifecycle != f.Lifecycle }), nil
}

// teamRow collects the term ids of one team's listed fields.
type teamRow struct {
	s, g   eval.ID
	fields [nListFields]eval.ID
}

func compareRows(a, b teamRow) int {
	if c := cmp.Compare(a.s, b.s); c != 0 {
		return c
	}
	return cmp.Compare(a.g, b.g)
}

// buildBatch is the least number of rows a goroutine turns into teams.
const buildBatch = 2048

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
	fLastMerge
	fMergePending
	fMergeError
	fPausedAt
	fPausedFor
	fDisbandedAt
	fMergeErrorKind
	nListFields
)

// listPreds returns the predicates of the listed fields, by field.
func listPreds(x ns.NS) [nListFields]quad.Value {
	return [nListFields]quad.Value{
		fName: x.IRI(ns.TeamName), fStatus: x.IRI(ns.TeamStatus), fStrategy: x.IRI(ns.TeamStrategy),
		fCreated: x.IRI(ns.TeamCreatedAt), fUpdated: x.IRI(ns.TeamUpdatedAt), fCompleted: x.IRI(ns.TeamCompletedAt),
		fStarted: ns.ProvStartedAtTime, fTimeout: x.IRI(ns.TeamTimeout), fError: x.IRI(ns.TeamError),
		fDescription: x.IRI(ns.TeamDescription), fLastMerge: x.IRI(ns.TeamLastMerge),
		fMergePending: x.IRI(ns.TeamMergePending), fMergeError: x.IRI(ns.TeamMergeError),
		fPausedAt: x.IRI(ns.TeamPausedAt), fPausedFor: x.IRI(ns.TeamPausedFor), fDisbandedAt: x.IRI(ns.TeamDisbandedAt),
		fMergeErrorKind: x.IRI(ns.TeamMergeErrorKind),
	}
}

// sideRows returns the rows of the team table and whether it is current:
// a table written before the listed fields were what they are now (rows
// shorter than nListFields) reads as stale, so that it is rebuilt.
func (m *Manager) sideRows(ctx context.Context) ([]cortex.SideRow, bool, error) {
	rows, current, err := m.n.SideRows(ctx, teamTable)
	for _, r := range rows {
		if len(r.Vals) < nListFields {
			current = false
			break
		}
	}
	return rows, current, err
}

// pinTeam pins, in tx, the terms a listing resolves (see cortex.Delta.Pin):
// the team's node and state graph and the values of its listed fields among
// add, the quads tx adds. The listing then reads them from the store's small
// pin table instead of the quad log, where each sits among the ~35 entries
// its write made: about 4x less work for a cold listing. (The store deletes
// a pin with its term.)
func (m *Manager) pinTeam(tx *cortex.Tx, id string, add []quad.Quad) {
	node, g := m.ns.Team(id), m.ns.TeamGraph(id)
	tx.Pin(node, g)
	for _, q := range add {
		if q.Subject == node && q.Label == g && slices.Contains(m.listPreds[:], q.Predicate) {
			tx.Pin(q.Object)
		}
	}
}

// listing is what a listing read, before it becomes teams: for each row i,
// the team's id (empty: not a team, skipped) and its field values as
// indexes into vals (-1: absent).
type listing struct {
	ids   []string
	vals  []quad.Value
	slots [][nListFields]int32
}

// listTeams lists the teams matching status, from the team table if it is
// current, else from the quads, rebuilding the table if rebuild (see
// listRebuilding).
func (m *Manager) listTeams(ctx context.Context, status Status, applyTimeouts, rebuild bool) ([]Team, error) {
	rows, current, err := m.sideRows(ctx)
	if err != nil {
		return nil, fmt.Errorf("list teams: %w", err)
	}
	if current {
		out, _, err := m.buildTeams(ctx, tableListing(rows), status, applyTimeouts)
		return out, err
	}
	if rebuild {
		out, ran, err := m.listRebuilding(ctx, status, applyTimeouts)
		if ran || err != nil {
			return out, err
		}
	}
	l, err := m.scanListing(ctx, status, applyTimeouts)
	if err != nil {
		return nil, fmt.Errorf("list teams: %w", err)
	}
	out, _, err := m.buildTeams(ctx, l, status, applyTimeouts)
	return out, err
}

// listRebuilding lists the teams from the quads and rebuilds the team
// table, if nobody is writing: TryUpdate never waits, so a listing called
// inside an Update cannot deadlock. Under the write lock, what the scans
// read is the namespace as the rebuild's Update leaves it. ran reports
// whether it listed; a failed rebuild (a read-only store, a cancelled
// context) only leaves the table stale.
func (m *Manager) listRebuilding(ctx context.Context, status Status, applyTimeouts bool) (out []Team, ran bool, _ error) {
	locked, err := m.n.TryUpdate(ctx, func(tx *cortex.Tx) error {
		rows, current, err := m.sideRows(ctx)
		if err != nil {
			return err
		}
		if current { // rebuilt meanwhile
			out, _, err = m.buildTeams(ctx, tableListing(rows), status, applyTimeouts)
			ran = err == nil
			return err
		}
		l, err := m.scanListing(ctx, "", applyTimeouts)
		if err != nil {
			return err
		}
		var fellBack bool
		out, fellBack, err = m.buildTeams(ctx, l, status, applyTimeouts)
		if err != nil {
			return err
		}
		ran = true
		if !fellBack {
			m.rebuildTable(tx, l, rows)
		}
		return nil
	})
	if ran {
		return out, true, nil
	}
	if locked && err != nil {
		return nil, false, fmt.Errorf("list teams: %w", err)
	}
	return nil, false, nil
}

// scanListing reads the teams from the quads: every team node in its state
// graph and its listed fields. With status set, it resolves only the teams
// that can match it.
func (m *Manager) scanListing(ctx context.Context, status Status, applyTimeouts bool) (listing, error) {
	x := m.ns
	preds := m.listPreds
	terms := append([]quad.Value{ns.RDFType, x.IRI(ns.ClassTeam)}, preds[:]...)
	ids, err := m.ds.IDs(ctx, terms)
	if err != nil {
		return listing{}, err
	}
	if ids[0] == 0 || ids[1] == 0 {
		return listing{}, nil
	}
	rows, err := m.scanTeams(ctx, ids[0], ids[1], ids[2:])
	if err != nil {
		return listing{}, err
	}
	if len(rows) == 0 {
		return listing{}, nil
	}
	if status != "" {
		if rows, err = m.keepStatus(ctx, rows, status, applyTimeouts); err != nil {
			return listing{}, err
		}
	}
	// Resolve every id at once: team nodes and graphs (distinct per row)
	// and the distinct field values (statuses, strategies and often times
	// are shared by many teams). want[2i] and want[2i+1] are row i's node
	// and graph; slots[i][f] is the index in want of its field f, or -1.
	want := make([]eval.ID, 0, 3*len(rows)+64)
	for i := range rows {
		want = append(want, rows[i].s, rows[i].g)
	}
	slots := make([][nListFields]int32, len(rows))
	index := make(map[eval.ID]int32, len(rows)+64)
	for i := range rows {
		for f, id := range rows[i].fields {
			if id == 0 {
				slots[i][f] = -1
				continue
			}
			j, ok := index[id]
			if !ok {
				j = int32(len(want))
				index[id] = j
				want = append(want, id)
			}
			slots[i][f] = j
		}
	}
	vals, err := m.ds.PinnedTermsBatch(ctx, want)
	if err != nil {
		return listing{}, err
	}
	l := listing{ids: make([]string, len(rows)), vals: vals, slots: slots}
	for i := range rows {
		iri, ok := vals[2*i].(quad.IRI)
		if !ok {
			continue
		}
		ref, err := x.Parse(iri)
		if err != nil || ref.Kind != ns.KindTeam || vals[2*i+1] != quad.Value(x.TeamGraph(ref.Team)) {
			continue // a look-alike outside a team graph
		}
		l.ids[i] = ref.Team
	}
	return l, nil
}

// tableListing is the listing of the rows of the team table.
func tableListing(rows []cortex.SideRow) listing {
	l := listing{
		ids:   make([]string, len(rows)),
		vals:  make([]quad.Value, 0, nListFields*len(rows)),
		slots: make([][nListFields]int32, len(rows)),
	}
	for i, r := range rows {
		l.ids[i] = r.Key
		for f := range nListFields {
			l.slots[i][f] = -1
			if f < len(r.Vals) && r.Vals[f] != nil {
				l.slots[i][f] = int32(len(l.vals))
				l.vals = append(l.vals, r.Vals[f])
			}
		}
	}
	return l
}

// buildTeams turns l into the teams matching status, sorted. A row whose
// fields are incomplete or invalid is read again with GetTeam (and left out
// if the team is gone); fellBack reports whether that happened.
func (m *Manager) buildTeams(ctx context.Context, l listing, status Status, applyTimeouts bool) (_ []Team, fellBack bool, _ error) {
	// Build the teams, in chunks of rows built concurrently for large
	// listings. out[i] is row i's team if kept[i].
	var (
		now   = m.now()
		out   = make([]Team, len(l.ids))
		kept  = make([]bool, len(l.ids))
		fell  = make([]bool, len(l.ids))
		parts = 1
	)
	if len(l.ids) >= 2*buildBatch {
		parts = min(runtime.GOMAXPROCS(0), len(l.ids)/buildBatch, 4)
	}
	build := func(lo, hi int) error {
		p := valueParser{x: m.ns, vals: l.vals, times: map[int32]time.Time{}}
		for i := lo; i < hi; i++ {
			id := l.ids[i]
			if id == "" {
				continue
			}
			t, err := p.rowTeam(id, &l.slots[i])
			if err != nil {
				// The scans of a slow listing read separate snapshots, so
				// a team created or deleted while they ran can look
				// incomplete: read it again on its own, and leave it out
				// if it is gone.
				fell[i] = true
				t, err = m.getTeam(ctx, id) // no merge retry: this may run under the write lock
				if errors.Is(err, ErrUnknownTeam) {
					continue
				}
				if err != nil {
					return fmt.Errorf("list teams: team %s: %w", IDText(id), err)
				}
				t.Members = nil
			}
			if applyTimeouts {
				applyTimeout(&t, now)
			}
			if status != "" && t.Status != status {
				continue
			}
			out[i], kept[i] = t, true
		}
		return nil
	}
	if parts == 1 {
		if err := build(0, len(l.ids)); err != nil {
			return nil, false, err
		}
	} else {
		errs := make([]error, parts)
		var wg sync.WaitGroup
		for p := range parts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[p] = build(p*len(l.ids)/parts, (p+1)*len(l.ids)/parts)
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return nil, false, err
		}
	}
	// Sort small keys rather than the (large) Team values.
	type sortKey struct {
		sec  int64
		nsec int32
		i    int32
		id   string
	}
	keys := make([]sortKey, 0, len(out))
	for i := range out {
		if kept[i] {
			c := out[i].CreatedAt
			keys = append(keys, sortKey{c.Unix(), int32(c.Nanosecond()), int32(i), out[i].ID})
		}
	}
	slices.SortFunc(keys, func(a, b sortKey) int {
		if c := cmp.Compare(a.sec, b.sec); c != 0 {
			return c
		}
		if c := cmp.Compare(a.nsec, b.nsec); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	sorted := make([]Team, len(keys))
	for i, k := range keys {
		sorted[i] = out[k.i]
	}
	return sorted, slices.Contains(fell, true), nil
}

// scanTeams finds every team node and its graph (rdf:type cx:Team in a named
// graph) and the ids of their listed fields (predicates pids, 0 for
// predicates absent from the namespace). All scans read the POSG index and
// run concurrently; each field scan joins its quads into the rows once the
// team scan is done, writing its own field. The rows are sorted by node and
// graph.
func (m *Manager) scanTeams(ctx context.Context, typeID, classID eval.ID, pids []eval.ID) ([]teamRow, error) {
	var (
		rows  []teamRow
		first map[eval.ID]int32 // node → its first row
		ready = make(chan struct{})
		wg    sync.WaitGroup
		errs  [nListFields]error
		sem   = make(chan struct{}, min(runtime.GOMAXPROCS(0), 4))
	)
	find := func(s, g eval.ID) *teamRow {
		i, ok := first[s]
		if !ok {
			return nil
		}
		for ; int(i) < len(rows) && rows[i].s == s; i++ {
			if rows[i].g == g {
				return &rows[i]
			}
		}
		return nil
	}
	fieldScan := func(f int, pid eval.ID) {
		defer wg.Done()
		// The quads are kept in fixed-size chunks until the rows are
		// known: no copying as they grow.
		const chunk = 4096
		var got [][]eval.Quad
		sem <- struct{}{}
		errs[f] = scan(ctx, m.ds, eval.Pattern{P: pid, Scope: eval.NamedGraphs}, func(q eval.Quad) {
			if len(got) == 0 || len(got[len(got)-1]) == chunk {
				got = append(got, make([]eval.Quad, 0, chunk))
			}
			got[len(got)-1] = append(got[len(got)-1], q)
		})
		<-sem
		<-ready
		if errs[f] != nil {
			return
		}
		for _, qs := range got {
			for _, q := range qs {
				if r := find(q.S, q.G); r != nil {
					r.fields[f] = q.O
				}
			}
		}
	}
	// The team scan starts first and holds a slot of sem.
	sem <- struct{}{}
	for f, pid := range pids {
		if pid != 0 {
			wg.Add(1)
			go fieldScan(f, pid)
		}
	}
	err := scan(ctx, m.ds, eval.Pattern{P: typeID, O: classID, Scope: eval.NamedGraphs}, func(q eval.Quad) {
		rows = append(rows, teamRow{s: q.S, g: q.G})
	})
	<-sem
	if err == nil {
		slices.SortFunc(rows, compareRows)
		first = make(map[eval.ID]int32, len(rows))
		for i := len(rows) - 1; i >= 0; i-- {
			first[rows[i].s] = int32(i)
		}
	}
	close(ready)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// keepStatus keeps the rows that can match status: the few distinct
// statuses are resolved first, and a row is kept if its stored status is
// status, or is running when failed teams are asked for (it may have timed
// out), or is not a valid status (rowTeam reports it).
func (m *Manager) keepStatus(ctx context.Context, rows []teamRow, status Status, applyTimeouts bool) ([]teamRow, error) {
	var sids []eval.ID
	for i := range rows {
		if sid := rows[i].fields[fStatus]; !slices.Contains(sids, sid) {
			sids = append(sids, sid)
		}
	}
	svals, err := m.ds.TermsBatch(ctx, sids)
	if err != nil {
		return nil, err
	}
	keep := map[eval.ID]bool{}
	for i, v := range svals {
		s, err := ns.ParseString(v)
		if err != nil || !Status(s).Valid() {
			keep[sids[i]] = true // let rowTeam report it
			continue
		}
		keep[sids[i]] = Status(s) == status || applyTimeouts && status == Failed && Status(s) == Running
	}
	return slices.DeleteFunc(rows, func(r teamRow) bool { return !keep[r.fields[fStatus]] }), nil
}

// valueParser parses the field values of listed teams, given as indexes
// into vals (-1: absent), remembering the times many teams share.
type valueParser struct {
	x     ns.NS
	vals  []quad.Value
	times map[int32]time.Time
	err   error
}

func (p *valueParser) value(j int32) quad.Value {
	if j < 0 {
		return nil
	}
	return p.vals[j]
}

func (p *valueParser) str(j int32) string {
	v := p.value(j)
	if v == nil || p.err != nil {
		return ""
	}
	s, err := ns.ParseString(v)
	if err != nil {
		p.err = err
	}
	return s
}

func (p *valueParser) time(j int32) time.Time {
	v := p.value(j)
	if v == nil || p.err != nil {
		return time.Time{}
	}
	if t, ok := p.times[j]; ok {
		return t
	}
	t, err := ns.ParseDateTime(v)
	if err != nil {
		p.err = err
		return time.Time{}
	}
	if len(p.times) < 1<<12 {
		p.times[j] = t
	}
	return t
}

func (p *valueParser) rowTeam(id string, v *[nListFields]int32) (Team, error) {
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
	if d := p.value(v[fTimeout]); d != nil && p.err == nil {
		t.Timeout, p.err = ns.ParseDuration(d)
	}
	t.MergePending = p.str(v[fMergePending])
	t.MergeError = p.str(v[fMergeError])
	t.MergeErrorKind = mergeErrorKind(&t, p.str(v[fMergeErrorKind]))
	t.PausedAt = p.time(v[fPausedAt])
	t.DisbandedAt = p.time(v[fDisbandedAt])
	if d := p.value(v[fPausedFor]); d != nil && p.err == nil {
		t.PausedFor, p.err = ns.ParseDuration(d)
	}
	if lm := p.value(v[fLastMerge]); lm != nil && p.err == nil {
		iri, _ := lm.(quad.IRI)
		if ref, err := p.x.Parse(iri); err != nil || ref.Kind != ns.KindMerge {
			p.err = fmt.Errorf("bad merge node %v", lm)
		} else {
			t.LastMerge = ref.ID
		}
	}
	t.Merged = t.LastMerge != "" && t.MergePending == ""
	if p.err == nil && !t.Status.Valid() {
		p.err = fmt.Errorf("status %q", t.Status)
	}
	t.Lifecycle = lifecycleOf(&t)
	if p.err == nil && (p.value(v[fName]) == nil || p.value(v[fStrategy]) == nil || p.value(v[fCreated]) == nil) {
		p.err = errIncomplete // every team has these: seen mid-create or mid-delete
	}
	return t, p.err
}

var errIncomplete = errors.New("team fields missing")

// scan calls fn for every quad matching p.
func scan(ctx context.Context, ds cortex.Dataset, p eval.Pattern, fn func(eval.Quad)) error {
	it := ds.Match(ctx, p)
	defer it.Close()
	for it.Next(ctx) {
		fn(it.Quad())
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("scan: %w", err)
	}
	return nil
}
