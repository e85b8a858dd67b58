package teammanager

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/internal/ctxcause"
)

// Snapshots.
//
// A snapshot of a team (SnapshotTeam) is a copy, taken in one read under
// the store's write lock, of everything the team is: the quads of its
// graphs (state — its definition and members —, findings of every member,
// shared facts, provenance, conflicts, fact sets, task board, mail and
// plan) and the rows of its task board, mailbox and plan side tables.
// Events are the namespace's, not the team's: they are not in a snapshot.
//
// Snapshots are kept in side tables of their own, keyed by the team id:
// snapshots (team, number → the Snapshot), snapquads (team, number, i → a
// quad) and snaprows (team, number, i → table, key, row). They survive the
// team's deletion — DeleteTeam leaves them — and are removed only by
// DeleteSnapshot; ids (S1, S2, ...) are never reused for a team id.
//
// RestoreSnapshot compares the team as it is with the snapshot and returns
// the difference; with apply, it writes it in one atomic Update: the team
// is exactly as it was when the snapshot was taken (a deleted team is
// recreated, a disbanded one is as it was before), with a
// snapshot.restored event. Writes of other teams are not touched. It also
// counts the restore (restoreTable, not part of the team), so that a merge
// of another Manager that read the team before it starts again.
const (
	snapTable     = "snapshots"
	snapQuadTable = "snapquads"
	snapRowTable  = "snaprows"
	snapSeqTable  = "snapseq"
	// restoreTable counts the restores applied to each team id (team →
	// count): a merge reads the count before the team and writes only if
	// it is unchanged (checkUnchanged), so that a merge of another Manager
	// never writes, over a restored team, facts it computed from what the
	// restore undid.
	restoreTable = "restores"
)

// teamSideTables are the side tables whose rows of a team are keyed by
// the team id and a space (boardTable is keyed by the id alone): what a
// snapshot copies and restores, and what DeleteTeam deletes. The queue
// heads (headTable) are among them, so that a restored queue's head is
// the one its rows had.
var teamSideTables = []string{taskTable, readyTable, heldTable, histTable, commentTable, mailTable, inboxTable, headTable, planTable}

// Snapshot describes a snapshot of a team.
type Snapshot struct {
	ID        string          `json:"id"` // S1, S2, ... per team id
	Team      string          `json:"team"`
	Note      string          `json:"note,omitempty"`
	CreatedAt time.Time       `json:"createdAt"`
	Status    Status          `json:"status"`    // the team's status when taken
	Lifecycle Lifecycle       `json:"lifecycle"` // the team's lifecycle state when taken
	Quads     int             `json:"quads"`     // quads of the team's graphs
	Rows      int             `json:"rows"`      // side-table rows (task board, mailbox, plan)
	Graphs    []SnapshotGraph `json:"graphs"`
}

// SnapshotGraph is a graph of a snapshot and its size.
type SnapshotGraph struct {
	Graph quad.IRI `json:"graph"`
	Quads int      `json:"quads"`
}

// SnapshotDiff is what restoring a snapshot changes (RestoreSnapshot).
type SnapshotDiff struct {
	Snapshot Snapshot
	Applied  bool        // the restore was written; false: a dry run
	Add      []quad.Quad // quads the restore adds, in graph order
	Remove   []quad.Quad // quads the restore removes
	Graphs   []GraphChange
	Tables   []TableChange
}

// GraphChange counts the quads a restore adds to and removes from a graph.
type GraphChange struct {
	Graph       quad.IRI
	Add, Remove int
}

// TableChange counts the side-table rows a restore puts (new or changed)
// and deletes in a table.
type TableChange struct {
	Table       string
	Put, Delete int
}

// Empty reports whether the restore changes nothing.
func (d SnapshotDiff) Empty() bool { return len(d.Graphs) == 0 && len(d.Tables) == 0 }

func snapNum(id string) (int, bool) {
	rest, ok := strings.CutPrefix(id, "S")
	if !ok || rest == "" || rest[0] == '0' || len(rest) > 10 || strings.Trim(rest, "0123456789") != "" {
		return 0, false // one spelling per id: "S+1" is not S1
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n > 0
}

func snapKey(team string, n int) string { return team + " " + pad(n) }

// teamContent is a team's quads and side-table rows.
type teamContent struct {
	quads []quad.Quad
	rows  map[sideKey][]quad.Value
}

// readTeamContent reads the quads of team's graphs (and of extra graphs)
// and its side-table rows, as committed.
func (m *Manager) readTeamContent(ctx context.Context, team string, ms []Member, extra []quad.Value) (*teamContent, error) {
	graphs, err := m.teamGraphs(ctx, team, ms)
	if err != nil {
		return nil, err
	}
	seen := map[quad.Value]bool{}
	c := &teamContent{rows: map[sideKey][]quad.Value{}}
	for _, g := range append(graphs, extra...) {
		if seen[g] {
			continue
		}
		seen[g] = true
		qs, err := m.n.Quads(ctx, cortex.Pattern{Graph: g, Scope: cortex.OneGraph})
		if err != nil {
			return nil, err
		}
		c.quads = append(c.quads, qs...)
	}
	if vals, found, err := m.n.SideRow(ctx, boardTable, team); err != nil {
		return nil, err
	} else if found {
		c.rows[sideKey{boardTable, team}] = vals
	}
	for _, table := range teamSideTables {
		if err := m.readBoardRows(ctx, table, teamKey(team), func(key string, vals []quad.Value) bool {
			c.rows[sideKey{table, key}] = vals
			return true
		}); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// SnapshotTeam takes a snapshot of team teamID, with an optional note, and
// returns it (see "Snapshots" in snapshots.go): in one atomic write, with a
// snapshot.created event. Any team may be snapshotted, whatever its
// lifecycle; an unknown one fails with ErrUnknownTeam. A note that is
// not valid UTF-8 (the snapshot could not keep it as given) is an error
// matching cortex.ErrInvalidArgument, and nothing is written.
func (m *Manager) SnapshotTeam(ctx context.Context, teamID, note string) (_ Snapshot, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	if err := checkText(cortex.ErrInvalidArgument, "note", note); err != nil {
		return Snapshot{}, teamErr(teamID, "snapshot", err)
	}
	var out Snapshot
	err = m.commit(ctx, func(tx *cortex.Tx) error {
		t, err := m.getTeam(ctx, teamID)
		if err != nil {
			return err
		}
		c, err := m.readTeamContent(ctx, teamID, t.Members, nil)
		if err != nil {
			return err
		}
		n, err := m.nextSnapshot(ctx, tx, teamID)
		if err != nil {
			return err
		}
		now := m.now()
		s := Snapshot{ID: "S" + strconv.Itoa(n), Team: teamID, Note: note, CreatedAt: now, Status: t.Status,
			Lifecycle: t.Lifecycle, Quads: len(c.quads), Rows: len(c.rows)}
		prefix := snapKey(teamID, n) + " "
		sizes := map[quad.Value]int{}
		for i, q := range c.quads {
			sizes[q.Label]++
			tx.PutSide(snapQuadTable, prefix+pad(i), []quad.Value{q.Subject, q.Predicate, q.Object, q.Label})
		}
		for g, k := range sizes {
			s.Graphs = append(s.Graphs, SnapshotGraph{Graph: g.(quad.IRI), Quads: k})
		}
		slices.SortFunc(s.Graphs, func(a, b SnapshotGraph) int { return strings.Compare(string(a.Graph), string(b.Graph)) })
		keys := slices.SortedFunc(func(yield func(sideKey) bool) {
			for k := range c.rows {
				if !yield(k) {
					return
				}
			}
		}, compareSideKeys)
		for i, k := range keys {
			tx.PutSide(snapRowTable, prefix+pad(i), append([]quad.Value{quad.String(k.table), quad.String(k.key)}, c.rows[k]...))
		}
		j, _ := json.Marshal(s) // plain data: cannot fail
		tx.PutSide(snapTable, snapKey(teamID, n), []quad.Value{quad.String(j)})
		cp := s
		out = s
		return m.stageEvents(ctx, tx, now, []Event{{Type: EventSnapshotCreated, Team: teamID, Snapshot: &cp}})
	})
	if err != nil {
		return Snapshot{}, teamErr(teamID, "snapshot", err)
	}
	return out, nil
}

func compareSideKeys(a, b sideKey) int {
	if c := strings.Compare(a.table, b.table); c != 0 {
		return c
	}
	return strings.Compare(a.key, b.key)
}

// nextSnapshot stages and returns the next snapshot number of team.
func (m *Manager) nextSnapshot(ctx context.Context, tx *cortex.Tx, team string) (int, error) {
	vals, found, err := m.n.SideRow(ctx, snapSeqTable, team)
	if err != nil {
		return 0, err
	}
	last := 0
	if found {
		s, _ := vals[0].(quad.String)
		if last, err = strconv.Atoi(string(s)); err != nil {
			return 0, fmt.Errorf("%w: snapshot counter of team %s", ErrCorrupt, IDText(team))
		}
	}
	tx.PutSide(snapSeqTable, team, []quad.Value{quad.String(strconv.Itoa(last + 1))})
	return last + 1, nil
}

// restoreCount returns the number of restores applied to team, as n has
// it (restoreTable).
func restoreCount(ctx context.Context, n *cortex.Namespace, team string) (int, error) {
	vals, found, err := n.SideRow(ctx, restoreTable, team)
	if err != nil || !found {
		return 0, err
	}
	s, _ := vals[0].(quad.String)
	c, err := strconv.Atoi(string(s))
	if err != nil || len(vals) != 1 {
		return 0, fmt.Errorf("%w: restore counter of team %s", ErrCorrupt, team)
	}
	return c, nil
}

// Snapshots returns the snapshots of team id teamID, oldest first. The
// team need not exist any more: a deleted team's snapshots are listed. A
// team of the namespace with no snapshots has an empty list; an id that
// is neither a team of the namespace nor a team with snapshots fails with
// ErrUnknownTeam, and an id no team can have is an *IDError
// (ErrInvalidID, ErrUnknownTeam). The list and the team's existence are
// read one after the other: a team created or deleted meanwhile may be
// seen either way.
func (m *Manager) Snapshots(ctx context.Context, teamID string) (_ []Snapshot, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	if !validID(teamID) {
		return nil, fmt.Errorf("team %q: %w", teamID, unknown(ErrUnknownTeam, teamID))
	}
	out := []Snapshot{}
	var derr error
	err = m.readBoardRows(ctx, snapTable, teamKey(teamID), func(_ string, vals []quad.Value) bool {
		s, err := decodeSnapshot(teamID, vals)
		if err != nil {
			derr = err
			return false
		}
		out = append(out, s)
		return true
	})
	if err == nil {
		err = derr
	}
	if err != nil {
		return nil, teamErr(teamID, "snapshots", err)
	}
	if len(out) == 0 {
		// No snapshots: a team of the namespace, or no team at all.
		if err := m.knownTeam(ctx, teamID); errors.Is(err, ErrUnknownTeam) {
			return nil, err // team "nope": unknown team, as the other listings say
		} else if err != nil {
			return nil, teamErr(teamID, "snapshots", err)
		}
	}
	return out, nil
}

// GetSnapshot returns snapshot id of team id teamID, or an error wrapping
// ErrUnknownSnapshot.
func (m *Manager) GetSnapshot(ctx context.Context, teamID, id string) (_ Snapshot, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	s, _, err := m.loadSnapshot(ctx, teamID, id)
	if err != nil {
		return Snapshot{}, teamErr(teamID, "snapshot "+IDText(id), err)
	}
	return s, nil
}

func (m *Manager) loadSnapshot(ctx context.Context, team, id string) (Snapshot, int, error) {
	if !validID(team) {
		return Snapshot{}, 0, fmt.Errorf("team %q: %w", team, unknown(ErrUnknownTeam, team))
	}
	n, ok := snapNum(id)
	if !ok {
		return Snapshot{}, 0, unknown(ErrUnknownSnapshot, id)
	}
	vals, found, err := m.n.SideRow(ctx, snapTable, snapKey(team, n))
	if err != nil {
		return Snapshot{}, 0, err
	}
	if !found {
		return Snapshot{}, 0, ErrUnknownSnapshot
	}
	s, err := decodeSnapshot(team, vals)
	return s, n, err
}

func decodeSnapshot(team string, vals []quad.Value) (Snapshot, error) {
	var s Snapshot
	str, _ := vals[0].(quad.String)
	if len(vals) != 1 || json.Unmarshal([]byte(str), &s) != nil {
		return Snapshot{}, fmt.Errorf("%w: snapshot row of team %s", ErrCorrupt, IDText(team))
	}
	return s, nil
}

// readSnapshot reads the content of snapshot number n of team.
func (m *Manager) readSnapshot(ctx context.Context, team string, n int) (*teamContent, error) {
	c := &teamContent{rows: map[sideKey][]quad.Value{}}
	prefix := snapKey(team, n) + " "
	var bad error
	err := m.readBoardRows(ctx, snapQuadTable, prefix, func(_ string, v []quad.Value) bool {
		if len(v) != 4 {
			bad = fmt.Errorf("%w: snapshot quad of %d values", ErrCorrupt, len(v))
			return false
		}
		c.quads = append(c.quads, quad.Quad{Subject: v[0], Predicate: v[1], Object: v[2], Label: v[3]})
		return true
	})
	if err == nil {
		err = bad
	}
	if err != nil {
		return nil, err
	}
	err = m.readBoardRows(ctx, snapRowTable, prefix, func(_ string, v []quad.Value) bool {
		if len(v) < 2 {
			bad = fmt.Errorf("%w: snapshot row of %d values", ErrCorrupt, len(v))
			return false
		}
		table, ok1 := v[0].(quad.String)
		key, ok2 := v[1].(quad.String)
		if !ok1 || !ok2 {
			bad = fmt.Errorf("%w: snapshot row", ErrCorrupt)
			return false
		}
		c.rows[sideKey{string(table), string(key)}] = v[2:]
		return true
	})
	if err == nil {
		err = bad
	}
	return c, err
}

// RestoreSnapshot compares team teamID as it is now with its snapshot id
// and returns what restoring it changes; with apply it also writes that,
// in one atomic Update with a snapshot.restored event, so that the team is
// as it was when the snapshot was taken (recreated if it was deleted),
// except that the next plan revision, task and message numbers are not
// rewound (a number is never used twice: see planSeqTable, idSeqTable). A
// dry run (apply false) writes nothing, and runs on a store opened
// read-only. Restoring holds the team's merge
// lock, so that no merge or conflict resolution of the team interleaves;
// a merge of another Manager over the namespace that read the team before
// the restore and writes after it starts again (ErrConcurrentMerge).
func (m *Manager) RestoreSnapshot(ctx context.Context, teamID, id string, apply bool) (_ SnapshotDiff, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	mu := m.mergeLock(teamID)
	mu.Lock()
	defer mu.Unlock()
	var out SnapshotDiff
	errDryRun := errors.New("dry run")
	err = m.commit(ctx, func(tx *cortex.Tx) error {
		s, n, err := m.loadSnapshot(ctx, teamID, id)
		if err != nil {
			return err
		}
		snap, err := m.readSnapshot(ctx, teamID, n)
		if err != nil {
			return err
		}
		var ms []Member
		if t, err := m.getTeam(ctx, teamID); err == nil {
			ms = t.Members
		} else if !errors.Is(err, ErrUnknownTeam) {
			return err
		}
		var extra []quad.Value
		for _, g := range s.Graphs {
			extra = append(extra, g.Graph)
		}
		cur, err := m.readTeamContent(ctx, teamID, ms, extra)
		if err != nil {
			return err
		}
		out = diffContent(s, cur, snap)
		if !apply {
			return errDryRun
		}
		if err := m.keepIDSeq(ctx, tx, teamID); err != nil {
			return err
		}
		tx.Remove(out.Remove...)
		tx.Add(out.Add...)
		for k := range cur.rows {
			if _, ok := snap.rows[k]; !ok {
				tx.DeleteSide(k.table, k.key)
			}
		}
		for k, v := range snap.rows {
			if old, ok := cur.rows[k]; !ok || !slices.Equal(old, v) {
				tx.PutSide(k.table, k.key, v)
			}
		}
		var stateQuads []quad.Quad
		for _, q := range snap.quads {
			if q.Label == m.ns.TeamGraph(teamID) {
				stateQuads = append(stateQuads, q)
			}
		}
		if len(stateQuads) > 0 {
			m.putTeamRow(tx, teamID, nodeProps(m.ns.Team(teamID), stateQuads))
		} else {
			tx.DeleteSide(teamTable, teamID)
			tx.KeepSide(teamTable)
		}
		restores, err := restoreCount(ctx, tx.Namespace(), teamID)
		if err != nil {
			return err
		}
		tx.PutSide(restoreTable, teamID, []quad.Value{quad.String(strconv.Itoa(restores + 1))})
		out.Applied = true
		cp := s
		return m.stageEvents(ctx, tx, m.now(), []Event{{Type: EventSnapshotRestored, Team: teamID, Snapshot: &cp}})
	})
	if errors.Is(err, errDryRun) {
		err = nil
	}
	if err != nil {
		return SnapshotDiff{}, teamErr(teamID, "restore snapshot "+IDText(id), err)
	}
	return out, nil
}

// diffContent returns the changes from cur to snap, snapshot s's content.
func diffContent(s Snapshot, cur, snap *teamContent) SnapshotDiff {
	d := SnapshotDiff{Snapshot: s}
	have := make(map[quad.Quad]bool, len(cur.quads))
	for _, q := range cur.quads {
		have[q] = true
	}
	want := make(map[quad.Quad]bool, len(snap.quads))
	graphs := map[quad.IRI]*GraphChange{}
	change := func(g quad.Value) *GraphChange {
		iri, _ := g.(quad.IRI)
		if graphs[iri] == nil {
			graphs[iri] = &GraphChange{Graph: iri}
		}
		return graphs[iri]
	}
	for _, q := range snap.quads {
		want[q] = true
		if !have[q] {
			d.Add = append(d.Add, q)
			change(q.Label).Add++
		}
	}
	for _, q := range cur.quads {
		if !want[q] {
			d.Remove = append(d.Remove, q)
			change(q.Label).Remove++
		}
	}
	for _, g := range graphs {
		d.Graphs = append(d.Graphs, *g)
	}
	slices.SortFunc(d.Graphs, func(a, b GraphChange) int { return strings.Compare(string(a.Graph), string(b.Graph)) })
	tables := map[string]*TableChange{}
	tchange := func(t string) *TableChange {
		if tables[t] == nil {
			tables[t] = &TableChange{Table: t}
		}
		return tables[t]
	}
	for k, v := range snap.rows {
		if old, ok := cur.rows[k]; !ok || !slices.Equal(old, v) {
			tchange(k.table).Put++
		}
	}
	for k := range cur.rows {
		if _, ok := snap.rows[k]; !ok {
			tchange(k.table).Delete++
		}
	}
	for _, t := range tables {
		d.Tables = append(d.Tables, *t)
	}
	slices.SortFunc(d.Tables, func(a, b TableChange) int { return strings.Compare(a.Table, b.Table) })
	return d
}

// DeleteSnapshot deletes snapshot id of team id teamID (ErrUnknownSnapshot
// if there is none), in one atomic write with a snapshot.deleted event.
// The team itself is not touched.
func (m *Manager) DeleteSnapshot(ctx context.Context, teamID, id string) (err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	err = m.commit(ctx, func(tx *cortex.Tx) error {
		s, n, err := m.loadSnapshot(ctx, teamID, id)
		if err != nil {
			return err
		}
		prefix := snapKey(teamID, n) + " "
		for _, table := range []string{snapQuadTable, snapRowTable} {
			if err := m.readBoardRows(ctx, table, prefix, func(key string, _ []quad.Value) bool {
				tx.DeleteSide(table, key)
				return true
			}); err != nil {
				return err
			}
		}
		tx.DeleteSide(snapTable, snapKey(teamID, n))
		return m.stageEvents(ctx, tx, m.now(), []Event{{Type: EventSnapshotDeleted, Team: teamID, Snapshot: &s}})
	})
	if err != nil {
		return teamErr(teamID, "delete snapshot "+IDText(id), err)
	}
	return nil
}
