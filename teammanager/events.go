package teammanager

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"
	"weak"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/internal/ctxcause"
	"github.com/cortexgraph/cortex/merge"
)

// EventType names the kind of an Event.
type EventType string

// Event types (see "Events" in the package documentation).
const (
	EventTeamCreated      EventType = "team.created"
	EventTeamStatus       EventType = "team.status"
	EventMemberStatus     EventType = "member.status"
	EventFindingsAdded    EventType = "findings.added"
	EventMergeCompleted   EventType = "merge.completed"
	EventConflictDetected EventType = "conflict.detected"
	EventConflictResolved EventType = "conflict.resolved"
	EventTeamDeleted      EventType = "team.deleted"
	EventTaskCreated      EventType = "task.created"      // Task: the new task
	EventTaskStatus       EventType = "task.status"       // Task: a change of the task's status
	EventTaskUpdated      EventType = "task.updated"      // Task: any other change (fields, pause, comment)
	EventMessageSent      EventType = "message.sent"      // Message: a mailbox message
	EventPlanDrafted      EventType = "plan.drafted"      // Plan: a revision drafted (always a new one)
	EventPlanSubmitted    EventType = "plan.submitted"    // Plan: a revision submitted for review
	EventPlanApproved     EventType = "plan.approved"     // Plan: a revision approved, now in force
	EventPlanRejected     EventType = "plan.rejected"     // Plan: a revision rejected, with feedback
	EventSnapshotCreated  EventType = "snapshot.created"  // Snapshot: a snapshot of the team taken
	EventSnapshotRestored EventType = "snapshot.restored" // Snapshot: the team restored to it
	EventSnapshotDeleted  EventType = "snapshot.deleted"  // Snapshot: the snapshot deleted
	// EventsLost is not stored: Subscribe delivers it in place of events
	// that retention removed before the subscriber read them.
	EventsLost EventType = "events.lost"
)

// Event is a change to the namespace's teams, recorded in the same atomic
// write as the change (see "Events" in the package documentation). Which
// payload field is set depends on Type:
//
//   - team.created: TeamState, the team as created, with its members.
//   - team.status: TeamState, the team after its status changed, without
//     its members (Members nil).
//   - member.status: Member, the member update (MemberUpdate.Merge nil: a
//     merge it runs is a merge.completed event of its own).
//   - findings.added: Agent and Findings, the findings of one member that
//     one write added (at most MaxEventFindings, and at most MaxEventRow
//     bytes stored unless it holds one finding: a larger write is split
//     into several events).
//   - merge.completed: Merge and MergeID, the report of a merge that wrote
//     its result (or, Unchanged, settled a due merge with the result
//     already stored), without its Facts and OpenConflicts (read them with
//     Facts and Conflicts).
//   - conflict.detected: Conflicts and MergeID, the open conflicts that a
//     merge recorded for the first time (several events, each with part
//     of them, when they are more than MaxEventRow bytes stored).
//   - conflict.resolved: Conflicts, the one conflict resolved.
//   - team.deleted: Team only.
//   - events.lost: Lost.
type Event struct {
	ID   uint64 // from 1, strictly increasing in commit order, without gaps
	Type EventType
	Team string
	Time time.Time // the time of the write (Config.WithClock)

	TeamState *Team
	Member    *MemberUpdate
	Agent     string
	Findings  []StoredFinding
	Merge     *MergeReport
	MergeID   string
	Conflicts []Conflict
	Lost      *LostEvents
	Task      *TaskChange // task.created, task.status, task.updated
	Message   *Message    // message.sent
	Plan      *Plan       // plan.drafted, plan.submitted, plan.approved, plan.rejected
	Snapshot  *Snapshot   // snapshot.created, snapshot.restored, snapshot.deleted
}

// LostEvents says which events a subscriber missed: those after After,
// up to and including First-1, which retention removed before they were
// read. The events.lost event carries ID First-1, so that a subscriber
// that resumes from it continues with First.
type LostEvents struct {
	After uint64 // the last event the subscriber had
	First uint64 // the oldest event still stored
}

// MaxEventFindings bounds the findings of one findings.added event.
const MaxEventFindings = 1000

// Default retention of events (Config.WithEventRetention).
const (
	DefaultEventMaxAge = 7 * 24 * time.Hour
	DefaultEventMax    = 100_000
)

// The event log is two side tables of the store (cortex side.go): events,
// a row per event keyed by its id as 20 decimal digits (so key order is
// id order) holding type, team, time and payload; and eventseq, one row
// holding the last id given and one the id of the oldest event that
// retention left (written by the writes that remove events). Both are
// written only inside the Updates whose changes the events report.
//
// The reads of the oldest events (retention's, a subscription from 0)
// seek to that id rather than scanning from the table's start: Badger
// keeps a removed row's tombstone until a compaction drops it, and a scan
// steps over every one, so that a write past the retention limits would
// cost more with every event removed before it. A store without the row
// (none removed yet, or written by an older Cortex) is read from its
// start; the row only ever names an id at or below the oldest event.
const (
	eventTable    = "events"
	eventSeqTable = "eventseq"
	eventSeqKey   = "last"
	eventFirstKey = "first"
)

// eventTrimMin bounds the rows one write removes for retention: at least
// this many, or twice the events it adds, so that trimming keeps up.
const eventTrimMin = 64

// eventPage is how many events Subscribe reads at a time.
const eventPage = 256

func eventKey(id uint64) string { return fmt.Sprintf("%020d", id) }

// stageEvents gives evs their ids and times and stages them, in tx, after
// the last event, with the retention trimming they pay for; an event
// stored as several (MaxEventRow) gets the id of its first part. It must
// be called at most once per Update: the ids it gives are read from the
// store.
func (m *Manager) stageEvents(ctx context.Context, tx *cortex.Tx, now time.Time, evs []Event) error {
	if len(evs) == 0 {
		return nil
	}
	n := tx.Namespace()
	last, err := lastEventID(ctx, n)
	if err != nil {
		return err
	}
	added := 0
	for i := range evs {
		evs[i].Time = now
		rows, err := eventRows(evs[i])
		if err != nil {
			return fmt.Errorf("event %s: %w", evs[i].Type, err)
		}
		evs[i].ID = last + 1
		for _, row := range rows {
			last++
			tx.PutSide(eventTable, eventKey(last), row)
		}
		added += len(rows)
	}
	tx.PutSide(eventSeqTable, eventSeqKey, []quad.Value{quad.String(strconv.FormatUint(last, 10))})
	return m.trimEvents(ctx, tx, now, last, added)
}

// MaxEventRow bounds the stored form of an event that carries a list
// (findings.added, conflict.detected): one that would be larger is
// stored as several events of its type, in order, each with part of the
// list, each about MaxEventRow bytes at most. An event of one finding or
// conflict larger than that is stored as it is: an in-memory store, which
// holds rows of at most ~1 MB, refuses a write whose one finding makes a
// larger row (cortex.ErrInvalidArgument; the calls batched with it are
// written without it). So many large findings in one write, or the
// conflicts of a large merge, do not make a row that size, and a
// subscriber never reads a write's whole list in one event.
const MaxEventRow = 256 << 10

// eventRows returns the stored rows of ev: one, or, for an event over
// MaxEventRow whose list can be split, those of its parts, packed in
// order. Each item of a large event is encoded once to be measured and
// once in its part.
func eventRows(ev Event) ([][]quad.Value, error) {
	n := max(len(ev.Findings), len(ev.Conflicts))
	if n < 2 || listBytes(ev) <= MaxEventRow {
		// Most likely one row (escaping may still make it larger).
		row, err := encodeEvent(ev)
		if err != nil {
			return nil, err
		}
		if n < 2 || rowSize(row) <= MaxEventRow {
			return [][]quad.Value{row}, nil
		}
	}
	// part returns ev with the items [i, j) of its list.
	part := func(i, j int) Event {
		p := ev
		if len(ev.Findings) > 0 {
			p.Findings = ev.Findings[i:j]
		} else {
			p.Conflicts = ev.Conflicts[i:j]
		}
		return p
	}
	empty, err := encodeEvent(part(0, 0))
	if err != nil {
		return nil, err
	}
	base := rowSize(empty)
	var rows [][]quad.Value
	start, size := 0, base
	flush := func(end int) error {
		r, err := encodeEvent(part(start, end))
		rows = append(rows, r)
		start, size = end, base
		return err
	}
	for i := range n {
		one, err := encodeEvent(part(i, i+1))
		if err != nil {
			return nil, err
		}
		item := rowSize(one) - base + 1 // (and a comma)
		if i > start && size+item > MaxEventRow {
			if err := flush(i); err != nil {
				return nil, err
			}
		}
		size += item
	}
	if err := flush(n); err != nil {
		return nil, err
	}
	return rows, nil
}

// listBytes is a lower bound of the bytes of ev's findings or conflicts in
// its row: their terms' lexical forms, which escaping only lengthens.
func listBytes(ev Event) int {
	n := 0
	term := func(v quad.Value) {
		if v != nil {
			n += len(v.String())
		}
	}
	for _, f := range ev.Findings {
		term(f.Subject)
		term(f.Predicate)
		term(f.Object)
	}
	for _, c := range ev.Conflicts {
		term(c.Subject)
		term(c.Predicate)
		for _, cd := range c.Candidates {
			term(cd.Object)
		}
	}
	return n
}

// rowSize is the bytes of row's values (its encoding adds a few a value).
func rowSize(row []quad.Value) int {
	n := 0
	for _, v := range row {
		if s, ok := v.(quad.String); ok {
			n += len(s)
		} else if v != nil {
			n += len(v.String())
		}
	}
	return n
}

// trimEvents stages the removal of the oldest events beyond the retention
// limits, once the events up to last are written: at most
// max(eventTrimMin, 2*added) of them. Events of this write are never
// removed.
func (m *Manager) trimEvents(ctx context.Context, tx *cortex.Tx, now time.Time, last uint64, added int) error {
	n := tx.Namespace()
	start, err := oldestEventKey(ctx, n, 0)
	if err != nil {
		return err
	}
	oldest, err := n.SideRowsAfter(ctx, eventTable, start, 1)
	if err != nil || len(oldest) == 0 {
		return err
	}
	cutoff := now.Add(-m.cfg.eventMaxAge)
	expired := func(r cortex.SideRow, count uint64) (uint64, bool, error) {
		ev, err := decodeEventHead(r)
		if err != nil {
			return 0, false, err
		}
		return ev.ID, count > uint64(m.cfg.eventMax) || m.cfg.eventMaxAge > 0 && ev.Time.Before(cutoff), nil
	}
	head, err := decodeEventHead(oldest[0])
	if err != nil {
		return err
	}
	count := last - head.ID + 1
	if _, x, err := expired(oldest[0], count); err != nil || !x {
		return err
	}
	rows, err := n.SideRowsAfter(ctx, eventTable, start, max(eventTrimMin, 2*added))
	if err != nil {
		return err
	}
	var first uint64 // the oldest event left, once the removals commit
	for _, r := range rows {
		id, x, err := expired(r, count)
		if err != nil {
			return err
		}
		if !x {
			break
		}
		tx.DeleteSide(eventTable, r.Key)
		count--
		first = id + 1
	}
	if first > 0 {
		tx.PutSide(eventSeqTable, eventFirstKey, []quad.Value{quad.String(strconv.FormatUint(first, 10))})
	}
	return nil
}

// oldestEventKey returns the key after which the events of n after id
// after are read: after's, or, if retention removed the events up to a
// later one, the key before the oldest event it left ("" for the
// table's start), so that the read does not step over the tombstones of
// the events removed.
func oldestEventKey(ctx context.Context, n *cortex.Namespace, after uint64) (string, error) {
	vals, found, err := n.SideRow(ctx, eventSeqTable, eventFirstKey)
	if err != nil {
		return "", err
	}
	if found {
		if len(vals) != 1 {
			return "", fmt.Errorf("%w: oldest event id row of %d values", ErrCorrupt, len(vals))
		}
		s, _ := vals[0].(quad.String)
		first, err := strconv.ParseUint(string(s), 10, 64)
		if err != nil || first == 0 {
			return "", fmt.Errorf("%w: oldest event id row %v", ErrCorrupt, vals)
		}
		after = max(after, first-1)
	}
	if after == 0 {
		return "", nil
	}
	return eventKey(after), nil
}

// lastEventID reads the id of the last event of n (0: none yet).
func lastEventID(ctx context.Context, n *cortex.Namespace) (uint64, error) {
	// A point read: the row is rewritten by every write that records
	// events, and a scan would step over all its versions.
	vals, found, err := n.SideRow(ctx, eventSeqTable, eventSeqKey)
	if err != nil || !found {
		return 0, err
	}
	if len(vals) != 1 {
		return 0, fmt.Errorf("%w: last event id row of %d values", ErrCorrupt, len(vals))
	}
	s, _ := vals[0].(quad.String)
	id, err := strconv.ParseUint(string(s), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: last event id %v", ErrCorrupt, vals[0])
	}
	return id, nil
}

// LastEventID returns the id of the namespace's last event, 0 if there is
// none yet. Subscribe(ctx, LastEventID()) delivers only events to come.
func (m *Manager) LastEventID(ctx context.Context) (uint64, error) {
	id, err := lastEventID(ctx, m.n)
	if err != nil {
		return 0, ctxcause.With(ctx, fmt.Errorf("events: %w", err))
	}
	return id, nil
}

// Subscribe returns the namespace's events after afterID, in id order:
// first those stored, then each new one as its write commits, until ctx
// ends (the sequence then yields ctx's error, with its cause, and stops)
// or a read fails (it yields the error and stops). afterID 0 starts with
// the oldest event retained (or, made while the namespace has no event
// yet, with event 1: see below); LastEventID gives the id to pass to
// receive only new events. An afterID past the last event is an error matching
// ErrInvalidEventID. When the namespace ends (cortex.Store.DeleteNamespace
// deletes it, or the store is closed: cortex.Namespace.Done), the
// sequence yields an error matching cortex.ErrNoNamespace (and
// cortex.ErrNotFound), or cortex.ErrClosed, and stops, even with events
// left to deliver. A namespace created again under the name is another
// one, whose events are numbered from 1 again: subscribe to it with a new
// Manager.
//
// If retention removed events after afterID before they were read (the
// subscriber was away, or read more slowly than the namespace was
// written past the retention limits), the sequence yields, in their
// place, one EventsLost event (see LostEvents) and goes on with the
// oldest event retained: no event is skipped silently.
//
// Delivery never holds writers back: the sequence reads the store in
// pages of a few hundred events, in the consumer's goroutine, and waits
// for a commit notification (in-process, from every Manager of the store's
// namespace in this process) when it has read everything. Writes by other
// processes are not noticed until the next write of this one. Each range
// over the sequence starts again after afterID. It is safe to use from
// several goroutines, each ranging over its own sequence.
func (m *Manager) Subscribe(ctx context.Context, afterID uint64) (iter.Seq2[Event, error], error) {
	last, err := m.LastEventID(ctx)
	if err != nil {
		return nil, err
	}
	if afterID > last {
		return nil, fmt.Errorf("subscribe after event %d: %w: the last event is %d", afterID, ErrInvalidEventID, last)
	}
	hub := eventHubOf(m.n)
	// A subscription made while the log is empty wants every event from
	// the first: one that retention removes before it is read is lost, as
	// for a subscription after id 1 or later.
	fromFirst := afterID == 0 && last == 0
	return func(yield func(Event, error) bool) {
		after := afterID
		// ended yields the error of ctx's end, or of the namespace's
		// (deleted, or its store closed), if it has ended: the sequence
		// stops then, even with events left to deliver.
		ended := func() bool {
			err := ctxcause.Err(ctx)
			if err == nil {
				err = m.n.Err()
			}
			if err != nil {
				yield(Event{}, fmt.Errorf("events: %w", err))
			}
			return err != nil
		}
		for {
			wake := hub.wait() // before reading: a commit after the read wakes us
			if ended() {
				return
			}
			evs, err := m.eventsAfter(ctx, after, fromFirst, eventPage)
			if err != nil {
				if m.n.Err() != nil { // the read failed as the namespace ended
					ended()
					return
				}
				yield(Event{}, ctxcause.With(ctx, err))
				return
			}
			for _, ev := range evs {
				if ended() || !yield(ev, nil) {
					return
				}
				after = ev.ID
			}
			if len(evs) > 0 {
				continue
			}
			select {
			case <-wake:
			case <-m.n.Done():
				ended()
				return
			case <-ctx.Done():
				ended()
				return
			}
		}
	}, nil
}

// eventsAfter reads up to limit events after id after, with an EventsLost
// event first if retention removed events right after it (after 0 too if
// fromFirst: the reader wants every event from id 1).
func (m *Manager) eventsAfter(ctx context.Context, after uint64, fromFirst bool, limit int) ([]Event, error) {
	key, err := oldestEventKey(ctx, m.n, after)
	if err != nil {
		return nil, fmt.Errorf("events: %w", err)
	}
	rows, err := m.n.SideRowsAfter(ctx, eventTable, key, limit)
	if err != nil {
		return nil, fmt.Errorf("events: %w", err)
	}
	out := make([]Event, 0, len(rows)+1)
	for i, r := range rows {
		ev, err := decodeEvent(r)
		if err != nil {
			return nil, fmt.Errorf("events: %w", err)
		}
		if i == 0 && (after > 0 || fromFirst) && ev.ID > after+1 {
			out = append(out, Event{ID: ev.ID - 1, Type: EventsLost, Lost: &LostEvents{After: after, First: ev.ID}})
		}
		out = append(out, ev)
	}
	return out, nil
}

// Notification of commits. Every Manager of a namespace in this process
// shares one hub (keyed by the store's *cortex.Namespace, which the store
// keeps while the namespace is open), so a subscriber of one Manager sees
// the writes of another.

type eventHub struct {
	mu sync.Mutex
	ch chan struct{} // closed by the next notify
}

func (h *eventHub) wait() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ch
}

func (h *eventHub) notify() {
	h.mu.Lock()
	defer h.mu.Unlock()
	close(h.ch)
	h.ch = make(chan struct{})
}

var (
	hubsMu sync.Mutex
	hubs   = map[weak.Pointer[cortex.Namespace]]*eventHub{}
)

// eventHubOf returns the hub of n, created on first use and dropped when n
// is garbage.
func eventHubOf(n *cortex.Namespace) *eventHub {
	k := weak.Make(n)
	hubsMu.Lock()
	defer hubsMu.Unlock()
	h := hubs[k]
	if h == nil {
		h = &eventHub{ch: make(chan struct{})}
		hubs[k] = h
		runtime.AddCleanup(n, func(k weak.Pointer[cortex.Namespace]) {
			hubsMu.Lock()
			defer hubsMu.Unlock()
			delete(hubs, k)
		}, k)
	}
	return h
}

// commit is m.n.Update for writes that may stage events: subscribers are
// woken once it returns (a failed write wakes them for nothing).
func (m *Manager) commit(ctx context.Context, fn func(tx *cortex.Tx) error) error {
	err := m.n.Update(ctx, fn)
	eventHubOf(m.n).notify()
	return err
}

// Building events in the write paths.

// statusEvent returns the team.status event of t (without its members).
func statusEvent(t *Team) Event {
	cp := *t
	cp.Members = nil
	return Event{Type: EventTeamStatus, Team: t.ID, TeamState: &cp}
}

// findingsEvents returns the findings.added events of fs, added by agent
// to team, at most MaxEventFindings each. A finding asserted more than
// once in the write (its id is its content's) is stored once and listed
// once, where it first comes.
func findingsEvents(team, agent string, fs []StoredFinding) []Event {
	seen := make(map[string]bool, len(fs))
	fs = slices.DeleteFunc(slices.Clone(fs), func(f StoredFinding) bool {
		dup := seen[f.ID]
		seen[f.ID] = true
		return dup
	})
	var out []Event
	for c := range slices.Chunk(fs, MaxEventFindings) {
		out = append(out, Event{Type: EventFindingsAdded, Team: team, Agent: agent, Findings: c})
	}
	return out
}

// mergeEvents returns the events of the merge of rep, which recorded for
// the first time the open conflicts of res that cg (the conflict graph
// before it) does not hold.
func (m *Manager) mergeEvents(rep *MergeReport, res *merge.Result, cg *conflictGraph, now time.Time) []Event {
	var out []Event
	if res != nil {
		var found []Conflict
		for _, c := range res.Conflicts {
			if _, had := cg.nodes[m.ns.Conflict(rep.Team, c.ID)]; had {
				continue
			}
			cf := Conflict{ID: c.ID, Subject: c.Topic.Subject, Predicate: c.Topic.Predicate, Strategy: res.Strategy,
				Reason: c.Reason, DetectedAt: now, Candidates: make([]Candidate, 0, len(c.Candidates))}
			for _, cd := range c.Candidates {
				cf.Candidates = append(cf.Candidates, Candidate{Object: cd.Object, Agents: cd.Agents, Findings: cd.FindingIDs})
			}
			found = append(found, cf)
		}
		if len(found) > 0 {
			out = append(out, Event{Type: EventConflictDetected, Team: rep.Team, MergeID: rep.MergeID, Conflicts: found})
		}
	}
	r := *rep
	r.Facts, r.OpenConflicts = nil, nil
	return append(out, Event{Type: EventMergeCompleted, Team: rep.Team, MergeID: rep.MergeID, Merge: &r})
}

// Stored form. A row is [type, team, time (RFC 3339, ns), payload (JSON of
// eventWire)], all plain literals. Terms are written as N-Triples terms.

type eventWire struct {
	Team      *Team          `json:"team,omitempty"`
	Member    *MemberUpdate  `json:"member,omitempty"`
	Agent     string         `json:"agent,omitempty"`
	Findings  []findingWire  `json:"findings,omitempty"`
	Merge     *MergeReport   `json:"merge,omitempty"`
	MergeID   string         `json:"mergeId,omitempty"`
	Conflicts []conflictWire `json:"conflicts,omitempty"`
	Task      *TaskChange    `json:"task,omitempty"`
	Message   *Message       `json:"message,omitempty"`
	Plan      *Plan          `json:"plan,omitempty"`
	Snapshot  *Snapshot      `json:"snapshot,omitempty"`
}

type findingWire struct {
	ID         string    `json:"id"`
	Agent      string    `json:"agent"`
	S          string    `json:"s"`
	P          string    `json:"p"`
	O          string    `json:"o"`
	Confidence float64   `json:"c"`
	AssertedAt time.Time `json:"at"`
}

type candidateWire struct {
	O        string   `json:"o"`
	Agents   []string `json:"agents"`
	Findings []string `json:"findings"`
}

type conflictWire struct {
	ID         string          `json:"id"`
	S          string          `json:"s"`
	P          string          `json:"p"`
	Strategy   string          `json:"strategy"`
	Reason     string          `json:"reason"`
	DetectedAt time.Time       `json:"detectedAt"`
	Candidates []candidateWire `json:"candidates"`
	Resolved   bool            `json:"resolved,omitempty"`
	ResolvedBy string          `json:"resolvedBy,omitempty"`
	ResolvedAt time.Time       `json:"resolvedAt"`
	Chosen     []string        `json:"chosen,omitempty"`
}

func encodeEvent(ev Event) ([]quad.Value, error) {
	w := eventWire{Team: ev.TeamState, Member: ev.Member, Agent: ev.Agent, Merge: ev.Merge, MergeID: ev.MergeID,
		Task: ev.Task, Message: ev.Message, Plan: ev.Plan, Snapshot: ev.Snapshot}
	if w.Member != nil && w.Member.Merge != nil {
		mu := *w.Member
		mu.Merge = nil
		w.Member = &mu
	}
	if w.Merge != nil && (w.Merge.Facts != nil || w.Merge.OpenConflicts != nil) {
		r := *w.Merge
		r.Facts, r.OpenConflicts = nil, nil
		w.Merge = &r
	}
	for _, f := range ev.Findings {
		w.Findings = append(w.Findings, findingWire{ID: f.ID, Agent: f.Agent, S: rdfio.FormatTerm(f.Subject),
			P: rdfio.FormatTerm(f.Predicate), O: rdfio.FormatTerm(f.Object), Confidence: f.Confidence, AssertedAt: f.AssertedAt})
	}
	for _, c := range ev.Conflicts {
		cw := conflictWire{ID: c.ID, S: rdfio.FormatTerm(c.Subject), P: rdfio.FormatTerm(c.Predicate), Strategy: c.Strategy,
			Reason: c.Reason, DetectedAt: c.DetectedAt, Candidates: []candidateWire{}, Resolved: c.Resolved,
			ResolvedBy: c.ResolvedBy, ResolvedAt: c.ResolvedAt}
		for _, cd := range c.Candidates {
			cw.Candidates = append(cw.Candidates, candidateWire{O: rdfio.FormatTerm(cd.Object), Agents: cd.Agents, Findings: cd.Findings})
		}
		for _, o := range c.Chosen {
			cw.Chosen = append(cw.Chosen, rdfio.FormatTerm(o))
		}
		w.Conflicts = append(w.Conflicts, cw)
	}
	b, err := json.Marshal(w)
	if err != nil {
		return nil, err
	}
	return []quad.Value{quad.String(ev.Type), quad.String(ev.Team), quad.String(ev.Time.Format(time.RFC3339Nano)), quad.String(b)}, nil
}

// decodeEventHead decodes the id, type, team and time of a stored event.
func decodeEventHead(r cortex.SideRow) (Event, error) {
	bad := func(what string) (Event, error) {
		return Event{}, fmt.Errorf("%w: event %q: %s", ErrCorrupt, r.Key, what)
	}
	id, err := strconv.ParseUint(r.Key, 10, 64)
	if err != nil || len(r.Key) != 20 {
		return bad("bad key")
	}
	if len(r.Vals) != 4 {
		return bad(fmt.Sprintf("%d values, want 4", len(r.Vals)))
	}
	var s [4]string
	for i, v := range r.Vals {
		str, ok := v.(quad.String)
		if !ok {
			return bad(fmt.Sprintf("value %d is not a plain literal", i+1))
		}
		s[i] = string(str)
	}
	at, err := time.Parse(time.RFC3339Nano, s[2])
	if err != nil {
		return bad("bad time")
	}
	return Event{ID: id, Type: EventType(s[0]), Team: s[1], Time: at}, nil
}

// decodeEvent decodes a stored event.
func decodeEvent(r cortex.SideRow) (Event, error) {
	ev, err := decodeEventHead(r)
	if err != nil {
		return Event{}, err
	}
	bad := func(err error) (Event, error) {
		return Event{}, fmt.Errorf("%w: event %d: %v", ErrCorrupt, ev.ID, err)
	}
	var w eventWire
	if err := json.Unmarshal([]byte(r.Vals[3].(quad.String)), &w); err != nil {
		return bad(err)
	}
	ev.TeamState, ev.Member, ev.Agent, ev.Merge, ev.MergeID = w.Team, w.Member, w.Agent, w.Merge, w.MergeID
	ev.Task, ev.Message, ev.Plan, ev.Snapshot = w.Task, w.Message, w.Plan, w.Snapshot
	term := func(s string) (quad.Value, error) { return rdfio.ParseFormattedTerm(s) }
	for _, f := range w.Findings {
		sf := StoredFinding{ID: f.ID, Agent: f.Agent, Finding: Finding{Confidence: f.Confidence, AssertedAt: f.AssertedAt}}
		for _, p := range []struct {
			dst *quad.Value
			src string
		}{{&sf.Subject, f.S}, {&sf.Predicate, f.P}, {&sf.Object, f.O}} {
			if *p.dst, err = term(p.src); err != nil {
				return bad(err)
			}
		}
		ev.Findings = append(ev.Findings, sf)
	}
	for _, cw := range w.Conflicts {
		c := Conflict{ID: cw.ID, Strategy: cw.Strategy, Reason: cw.Reason, DetectedAt: cw.DetectedAt,
			Candidates: []Candidate{}, Resolved: cw.Resolved, ResolvedBy: cw.ResolvedBy, ResolvedAt: cw.ResolvedAt}
		if c.Subject, err = term(cw.S); err != nil {
			return bad(err)
		}
		if c.Predicate, err = term(cw.P); err != nil {
			return bad(err)
		}
		for _, cd := range cw.Candidates {
			o, err := term(cd.O)
			if err != nil {
				return bad(err)
			}
			c.Candidates = append(c.Candidates, Candidate{Object: o, Agents: cd.Agents, Findings: cd.Findings})
		}
		for _, s := range cw.Chosen {
			o, err := term(s)
			if err != nil {
				return bad(err)
			}
			c.Chosen = append(c.Chosen, o)
		}
		ev.Conflicts = append(ev.Conflicts, c)
	}
	return ev, nil
}
