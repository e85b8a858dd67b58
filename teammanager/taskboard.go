package teammanager

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	ns "github.com/cortexgraph/cortex/namespace"
)

// Storage of the task board.
//
// A task is RDF in its team's task graph (namespace.NS.TaskGraph): the task
// node with every field (task:status, task:assignee, task:blockedBy ...),
// so SPARQL sees the board. Beside the quads, in the same atomic Update,
// the board keeps side tables (cortex side.go) that make claims and
// listings cheap, keyed by the team id, a space (ids never hold one) and
// fixed-width numbers, so a team's rows are one key range in order:
//
//   - taskboard: team → the board's settings, members and task counter (JSON).
//   - tasks: team, task number → the task's fields, packed in one value
//     (tasktypes.go).
//   - taskready: team, 1e9 − priority, task number → [assignee]: the tasks
//     that are pending, not paused and whose blockers are all completed or
//     skipped, highest priority first. ClaimNext and DispatchUnblocked read
//     its first rows.
//   - taskheld: team, agent, task number → [the team's PausedFor when the
//     task's lease started (its last progress), in ns; that time]: the
//     in_progress tasks of each member (who is free, whose lease to check).
//   - taskhist: team, task number, entry → a TaskChange (TaskHistory).
//   - taskcomment: team, task number, comment → a TaskComment.
//   - taskhead: team, queue → where the queue's first row is at the
//     earliest (queuehead.go): the ready tasks and each inbox.
//
// Unlike the team table, these tables are the board's record, not a cache
// of the quads: the quads are written from them (never the other way), in
// the same Update. A write of quads into a task graph by other means
// (an import) is not seen by the board.
const (
	boardTable   = "taskboard"
	taskTable    = "tasks"
	readyTable   = "taskready"
	heldTable    = "taskheld"
	histTable    = "taskhist"
	commentTable = "taskcomment"
)

// BoardSettings are a team board's rules (ConfigureBoard).
type BoardSettings struct {
	// Lead is the agent id of the team's lead, a member. Default: the
	// member whose role is "lead" (any case), if exactly one has it. A
	// new lead takes over the board (UpdateBoard): the tasks in review
	// wait for it, and unless LeadMayWork, its own tasks go to others.
	Lead string
	// AllowRequests lets every member create tasks, not only the lead.
	AllowRequests bool
	// LeadMayWork lets the lead be assigned, claim and be dispatched tasks.
	LeadMayWork bool
	// RequireReview sends a submitted task to in_review for the lead to
	// approve or reject; without it a submission completes the task.
	// Default true.
	RequireReview bool
	// MaxDispatches is the circuit breaker: a task claimed or dispatched
	// this many times without completing fails at its next claim or
	// dispatch. Default 3; 1..100.
	MaxDispatches int
	// Lease is how long an in_progress task may go without progress
	// (its claim or dispatch, ProgressTask, a comment by its assignee,
	// a rejection that sends it back, ResumeTask) before SweepTasks or
	// DispatchUnblocked returns it to pending; the time the team is
	// paused (PauseTeam) does not count, nor does a lead's UpdateTask
	// renew it. Default 10 minutes. A lease that ran out takes effect
	// only when SweepTasks or DispatchUnblocked requeues the task: until
	// then the task stays its assignee's — its ProgressTask renews the
	// lease, its CompleteTask or FailTask is taken — and no other member
	// can claim it; once requeued, the former assignee's writes fail with
	// a *TaskStateError. A host that wants expiry on time sweeps often.
	Lease time.Duration
	// StaleAfter is how long a task in_progress or in_review may go
	// unchanged before SweepTasks reports it stale; the time the team is
	// paused (PauseTeam) does not count. Default 30 minutes.
	StaleAfter time.Duration
	// PlanApproval (plan_approval) holds every claim and dispatch until
	// a revision of the lead's plan is approved (see "Plans" in
	// plans.go): ErrPlanNotApproved. Default off.
	PlanApproval bool
	// PlanApprover is the member that approves or rejects the lead's
	// plan, never the lead. Default (empty): the operator (Operator).
	PlanApprover string
}

// Defaults of BoardSettings.
const (
	DefaultMaxDispatches = 3
	DefaultTaskLease     = 10 * time.Minute
	DefaultStaleAfter    = 30 * time.Minute
)

// LeadRole is the member role that makes a member the default lead of its
// team's board.
const LeadRole = "lead"

// boardState is a team's row of the taskboard table.
type boardState struct {
	Settings boardWire `json:"settings"`
	Members  []string  `json:"members"`
	Next     int       `json:"next"`     // the number of the next task
	Messages int       `json:"messages"` // messages sent so far
	// Mailbox retention (ConfigureMailbox); MailPerAgent 0: the defaults.
	MailMaxAge   time.Duration `json:"mailMaxAge,omitempty"`
	MailPerAgent int           `json:"mailPerAgent,omitempty"`
	// The plan (plans.go): the latest revision, and the one in force
	// (the latest approved; 0: none).
	PlanRevs int `json:"planRevs,omitempty"`
	Plan     int `json:"plan,omitempty"`
	// Finished are the members whose status is completed or failed, with
	// it (UpdateMemberStatus records it in its write): they are assigned,
	// dispatched and claim no task. FinishedKnown says the row records
	// them: a row written before it did is filled from the team's members
	// at its next write (loadBoard).
	Finished      map[string]Status `json:"finished,omitempty"`
	FinishedKnown bool              `json:"finishedKnown,omitempty"`
}

type boardWire struct {
	Lead          string        `json:"lead,omitempty"`
	AllowRequests bool          `json:"allowRequests,omitempty"`
	LeadMayWork   bool          `json:"leadMayWork,omitempty"`
	RequireReview bool          `json:"requireReview"`
	MaxDispatches int           `json:"maxDispatches"`
	Lease         time.Duration `json:"lease"`
	StaleAfter    time.Duration `json:"staleAfter"`
	PlanApproval  bool          `json:"planApproval,omitempty"`
	PlanApprover  string        `json:"planApprover,omitempty"`
}

func (w boardWire) settings() BoardSettings { return BoardSettings(w) }

func (s BoardSettings) validate(members []string) error {
	switch {
	case s.Lead != "" && !slices.Contains(members, s.Lead):
		return fmt.Errorf("lead %q: %w", s.Lead, unknown(ErrUnknownAgent, s.Lead))
	case s.MaxDispatches < 1 || s.MaxDispatches > 100:
		return boardSettingErr("max dispatches %d: want 1..100", s.MaxDispatches)
	case s.Lease <= 0:
		return boardSettingErr("lease %v: want > 0", s.Lease)
	case s.StaleAfter <= 0:
		return boardSettingErr("stale after %v: want > 0", s.StaleAfter)
	case s.PlanApprover != "" && !slices.Contains(members, s.PlanApprover):
		return fmt.Errorf("plan approver %q: %w", s.PlanApprover, unknown(ErrUnknownAgent, s.PlanApprover))
	case s.PlanApprover != "" && s.PlanApprover == s.Lead:
		return boardSettingErr("plan approver %q is the lead, who does not approve its own plan", s.PlanApprover)
	}
	return nil
}

func (st *boardState) isMember(agent string) bool { return slices.Contains(st.Members, agent) }

// notMember is the error of agent, not a member of the team, acting on
// its board.
func notMember(agent string) error {
	return fmt.Errorf("agent %q: %w", agent, unknown(ErrUnknownAgent, agent))
}

// isLead reports whether agent is the board's lead (a board without a
// lead has none: the empty agent id is no one).
func (st *boardState) isLead(agent string) bool { return agent != "" && agent == st.Settings.Lead }

// notLead is the error of agent doing what only the lead does: an agent
// that is not a member is unknown (ErrUnknownAgent), as elsewhere.
func notLead(st *boardState, agent, what string) error {
	if !st.isMember(agent) {
		return notMember(agent)
	}
	if st.Settings.Lead == "" {
		return fmt.Errorf("%w: %s: the board has no lead (ConfigureBoard, or a member with role %q)", ErrNotAllowed, what, LeadRole)
	}
	return fmt.Errorf("%w: only the lead may %s, not %q", ErrNotAllowed, what, agent)
}

// mayWork reports whether agent may hold tasks: a member that is not
// finished, and not the lead unless the board lets the lead work.
func (st *boardState) mayWork(agent string) bool {
	return st.isMember(agent) && st.Finished[agent] == "" && !st.leadIdle(agent)
}

// leadIdle reports whether agent is the lead of a board that does not let
// the lead work.
func (st *boardState) leadIdle(agent string) bool {
	return agent == st.Settings.Lead && !st.Settings.LeadMayWork
}

// setFinished records the members of t that are finished.
func (st *boardState) setFinished(t *Team) {
	st.Finished = nil
	for _, mb := range t.Members {
		if Finished(mb.Status) {
			if st.Finished == nil {
				st.Finished = map[string]Status{}
			}
			st.Finished[mb.AgentID] = mb.Status
		}
	}
	st.FinishedKnown = true
}

// taskNum returns the number of task id "T<n>", n written in decimal
// digits without a sign or leading zeros: each task has one id ("T+1" is
// not T1).
func taskNum(id string) (int, bool) {
	rest, ok := strings.CutPrefix(id, "T")
	if !ok || rest == "" || rest[0] == '0' || len(rest) > 10 || strings.Trim(rest, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n > 0
}

func taskID(n int) string { return "T" + strconv.Itoa(n) }

func pad(n int) string { return fmt.Sprintf("%010d", n) }

func teamKey(team string) string               { return team + " " }
func taskKey(team string, n int) string        { return team + " " + pad(n) }
func heldKey(team, agent string, n int) string { return team + " " + agent + " " + pad(n) }
func subKey(team string, n, k int) string      { return team + " " + pad(n) + " " + pad(k) }
func readyKey(team string, prio, n int) string {
	return team + " " + pad(MaxTaskPriority-prio) + " " + pad(n)
}

// loadBoard reads team's board row, creating it (staged) from the team's
// members on first use. It fails with ErrUnknownTeam and ErrTeamFinished
// (also for a team past its deadline whose timeout no write recorded yet),
// with ErrTeamDisbanded for a disbanded team, and with ErrTeamPaused for a
// paused one unless pausedOK (the mailbox works while a team is paused;
// the board waits).
func (b *boardTx) loadBoard(team string, pausedOK bool) (*boardState, error) {
	if row, found, err := b.sideRow(teamTable, team); err != nil {
		return nil, err
	} else if found && len(row) > fStatus {
		s, _ := row[fStatus].(quad.String)
		// (A row written before the lifecycle fields is of a team neither
		// paused nor disbanded.)
		full := len(row) == nListFields
		if err := boardClosed(team, Status(s), full && row[fDisbandedAt] != nil, full && row[fPausedAt] != nil && !pausedOK); err != nil {
			return nil, err
		}
		if len(row) == nListFields {
			if err := b.checkDeadline(team, rowTimes(row)); err != nil {
				return nil, err
			}
		}
	}
	st, found, err := b.board(team)
	if err != nil {
		return nil, err
	}
	if found && !st.FinishedKnown {
		// A row written before boards recorded their finished members:
		// read them once.
		ts, err := b.m.readTeam(b.ctx, b.n.Dataset(), team, "")
		if err != nil {
			return nil, err
		}
		st.setFinished(&ts.team)
		b.saveBoard(team, st)
	}
	if found {
		return st, nil
	}
	ts, err := b.m.readTeam(b.ctx, b.n.Dataset(), team, "")
	if err != nil {
		return nil, err
	}
	t := &ts.team
	if Finished(t.Status) {
		return nil, fmt.Errorf("team %s is %s: %w", IDText(team), t.Status, ErrTeamFinished)
	}
	if err := b.checkDeadline(team, t); err != nil {
		return nil, err
	}
	if err := checkWorking(t); err != nil && (t.Lifecycle != LifecyclePaused || !pausedOK) {
		return nil, err
	}
	st = newBoard(t)
	b.saveBoard(team, st)
	return st, nil
}

// boardClosed returns the error of a write to the board of team, whose
// status is status, disbanded or paused: ErrTeamFinished, ErrTeamDisbanded
// or ErrTeamPaused, in this order; nil if none.
func boardClosed(team string, status Status, disbanded, paused bool) error {
	switch {
	case Finished(status):
		return fmt.Errorf("team %s is %s: %w", IDText(team), status, ErrTeamFinished)
	case disbanded:
		return fmt.Errorf("team %s: %w; its graphs are read-only", IDText(team), ErrTeamDisbanded)
	case paused:
		return fmt.Errorf("team %s is paused (ResumeTeam): %w", IDText(team), ErrTeamPaused)
	}
	return nil
}

// BoardClosed returns the error that a write to the task board of team t
// (as GetTeam returns it: a team past its timeout reads as failed) fails
// with for the team's state, as the Manager's board methods report it
// before anything about who acts: ErrTeamFinished for a completed or
// failed team, ErrTeamDisbanded for a disbanded one, ErrTeamPaused for a
// paused one; nil if its board takes writes. (The mailbox and the plan
// take writes while a team is paused.) A caller that checks who acts
// before it writes, as cortexctl's lead's commands do on a board without a
// lead, reports this first.
func BoardClosed(t Team) error {
	return boardClosed(t.ID, t.Status, t.Lifecycle == LifecycleDisbanded, t.Lifecycle == LifecyclePaused)
}

// checkDeadline fails with ErrTeamFinished if team t (its status and
// timing fields) is running past its timeout: the team reads as failed
// (GetTeam), so its board, mailbox and plan take no more writes, although
// no write has recorded the timeout yet (Sweep, or the team's next member
// update, does).
func (b *boardTx) checkDeadline(team string, t *Team) error {
	if exp := expiry(t); !exp.IsZero() && !b.now.Before(exp) {
		return fmt.Errorf("team %s timed out at %s: %w", IDText(team), exp.UTC().Format(time.RFC3339), ErrTeamFinished)
	}
	return nil
}

// rowTimes returns the fields of a team-table row that expiry reads; a
// row whose fields do not parse gives a team without a deadline (none is
// made up).
func rowTimes(row []quad.Value) *Team {
	var t Team
	if s, ok := row[fStatus].(quad.String); ok {
		t.Status = Status(s)
	}
	var errs [5]error
	if v := row[fTimeout]; v != nil {
		t.Timeout, errs[0] = ns.ParseDuration(v)
	}
	if v := row[fStarted]; v != nil {
		t.StartedAt, errs[1] = ns.ParseDateTime(v)
	}
	if v := row[fPausedFor]; v != nil {
		t.PausedFor, errs[2] = ns.ParseDuration(v)
	}
	if v := row[fPausedAt]; v != nil {
		t.PausedAt, errs[3] = ns.ParseDateTime(v)
	}
	if v := row[fDisbandedAt]; v != nil {
		t.DisbandedAt, errs[4] = ns.ParseDateTime(v)
	}
	for _, err := range errs {
		if err != nil {
			return &Team{}
		}
	}
	return &t
}

// newBoard returns the board of team t before its first write: the
// default settings, t's members, and as lead the member whose role is
// "lead", if exactly one has it.
func newBoard(t *Team) *boardState {
	st := &boardState{Next: 1, Settings: boardWire{RequireReview: true, MaxDispatches: DefaultMaxDispatches,
		Lease: DefaultTaskLease, StaleAfter: DefaultStaleAfter}}
	var leads []string
	for _, mb := range t.Members {
		st.Members = append(st.Members, mb.AgentID)
		if strings.EqualFold(mb.Role, LeadRole) {
			leads = append(leads, mb.AgentID)
		}
	}
	if len(leads) == 1 {
		st.Settings.Lead = leads[0]
	}
	st.setFinished(t)
	return st
}

// readBoard returns team's board for a read, whatever the team's
// lifecycle (a paused, disbanded or finished team's board is read as any
// other): its row, or the board loadBoard would create for a team that
// never wrote one (not staged). An unknown team fails with ErrUnknownTeam.
func (b *boardTx) readBoard(team string) (*boardState, error) {
	st, found, err := b.board(team)
	if err != nil || found {
		return st, err
	}
	ts, err := b.m.readTeam(b.ctx, b.n.Dataset(), team, "")
	if err != nil {
		return nil, err
	}
	return newBoard(&ts.team), nil
}

func (b *boardTx) saveBoard(team string, st *boardState) {
	j, _ := json.Marshal(st) // plain data: cannot fail
	b.put(boardTable, team, []quad.Value{quad.String(j)})
	b.keepBoard(team, st)
}

// keepBoard records st as the decoded board row of team this call staged.
func (b *boardTx) keepBoard(team string, st *boardState) {
	if b.boards == nil {
		b.boards = map[string]*boardState{}
	}
	b.boards[team] = st.clone()
}

func (st *boardState) clone() *boardState {
	c := *st
	c.Members = slices.Clone(st.Members)
	c.Finished = maps.Clone(st.Finished)
	return &c
}

// board returns team's board row as this call sees it, decoded (a copy
// of its own), and whether there is one. A board row is decoded once
// per batch: the batch's saved ones are kept as structs (keepBoard), the
// store's in the batch's reads.
func (b *boardTx) board(team string) (*boardState, bool, error) {
	k := sideKey{boardTable, team}
	for x := b; x != nil; x = x.parent {
		if st, ok := x.boards[team]; ok {
			return st.clone(), true, nil
		}
		if v, ok := x.rows[k]; ok {
			if v == nil {
				return nil, false, nil
			}
			st, err := decodeBoard(team, v)
			return st, err == nil, err
		}
	}
	if r := b.reads; r != nil {
		if st, ok := r.boards[team]; ok {
			return st.clone(), true, nil
		}
	}
	vals, found, err := b.sideRow(boardTable, team)
	if err != nil || !found {
		return nil, false, err
	}
	st, err := decodeBoard(team, vals)
	if err != nil {
		return nil, false, err
	}
	if r := b.reads; r != nil {
		if r.boards == nil {
			r.boards = map[string]*boardState{}
		}
		r.boards[team] = st.clone()
	}
	return st, true, nil
}

func decodeBoard(team string, vals []quad.Value) (*boardState, error) {
	var st boardState
	if len(vals) != 1 {
		return nil, fmt.Errorf("%w: board row of team %s", ErrCorrupt, IDText(team))
	}
	s, _ := vals[0].(quad.String)
	if err := json.Unmarshal([]byte(s), &st); err != nil {
		return nil, fmt.Errorf("%w: board of team %s: %v", ErrCorrupt, IDText(team), err)
	}
	return &st, nil
}

// loadTask reads task id of team.
func (b *boardTx) loadTask(team, id string) (*Task, error) {
	n, ok := taskNum(id)
	if !ok {
		return nil, &taskLookupError{team, id, unknown(ErrUnknownTask, id)}
	}
	vals, found, err := b.row(taskTable, taskKey(team, n))
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, &taskLookupError{team, id, ErrUnknownTask}
	}
	t, err := decodeTask(team, vals)
	if err != nil {
		return nil, err
	}
	t.IRI = b.m.ns.Task(team, t.ID)
	return &t, nil
}

// blockersDone reports whether every blocker of t completed or was skipped.
func (b *boardTx) blockersDone(t *Task) (bool, error) {
	for _, id := range t.BlockedBy {
		bt, err := b.loadTask(t.Team, id)
		if err != nil {
			return false, err
		}
		if !satisfies(bt) {
			return false, nil
		}
	}
	return true, nil
}

// satisfies reports whether t no longer holds its dependents back.
func satisfies(t *Task) bool {
	return t.Status == TaskCompleted || t.Status == TaskCancelled && t.Skipped
}

// checkText refuses text that is not valid UTF-8, as an error wrapping
// kind: the store cannot export such a literal (N-Quads, Turtle and JSON
// carry UTF-8 only).
func checkText(kind error, field, s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%w: %s is not valid UTF-8", kind, field)
	}
	return nil
}

// checkTaskText checks the text fields of t that differ from old's (all,
// for a new task), so that a row written before the check still saves.
func checkTaskText(old, t *Task) error {
	var was Task
	if old != nil {
		was = *old
	}
	for _, f := range [...]struct{ name, v, was string }{
		{"subject", t.Subject, was.Subject}, {"description", t.Description, was.Description},
		{"result", t.Result, was.Result}, {"reason", t.Error, was.Error}, {"feedback", t.Feedback, was.Feedback},
	} {
		if old == nil || f.v != f.was {
			if err := checkText(ErrInvalidTask, f.name, f.v); err != nil {
				return err
			}
		}
	}
	return nil
}

// save writes t (old: as it was, nil for a new task) with change: its row,
// its quads, its ready and held rows, a history entry and an event. Text
// that is not valid UTF-8 fails it with ErrInvalidTask.
func (b *boardTx) save(old, t *Task, change TaskChange) error {
	if err := checkTaskText(old, t); err != nil {
		return err
	}
	team := t.Team
	n, _ := taskNum(t.ID)
	change.Time = b.now
	if old != nil {
		change.From = old.Status
	}
	change.To = t.Status
	if old == nil || !t.UpdatedAt.Equal(old.UpdatedAt) {
		// The staleness of a task (SweepTasks) does not count the time
		// the team is paused after this change.
		paused, err := b.teamPausedFor(team)
		if err != nil {
			return err
		}
		t.pausedFor = paused
	}
	if change.Action != ActionProgress {
		t.history++
		hist := change
		hist.Task = nil
		j, _ := json.Marshal(hist)
		b.put(histTable, subKey(team, n, t.history), []quad.Value{quad.String(j)})
	}
	var held []quad.Value // (read before the old row is deleted)
	if t.Status == TaskInProgress && t.Assignee != "" {
		var err error
		if held, err = b.leaseRow(old, t, change); err != nil {
			return err
		}
	}
	b.put(taskTable, taskKey(team, n), encodeTask(t))
	var oldQuads []quad.Quad
	if old != nil {
		oldQuads = b.m.taskQuads(old)
		b.del(readyTable, readyKey(team, old.Priority, n))
		if old.Status == TaskInProgress && old.Assignee != "" {
			b.del(heldTable, heldKey(team, old.Assignee, n))
		}
	}
	b.replaceQuads(oldQuads, b.m.taskQuads(t))
	if t.Status == TaskPending && !t.Paused {
		ok, err := b.blockersDone(t)
		if err != nil {
			return err
		}
		if ok {
			b.put(readyTable, readyKey(team, t.Priority, n), []quad.Value{quad.String(t.Assignee)})
		}
	}
	if held != nil {
		b.put(heldTable, heldKey(team, t.Assignee, n), held)
	}
	cp := *t
	cp.BlockedBy, cp.Dependents = slices.Clone(t.BlockedBy), slices.Clone(t.Dependents)
	change.Task = &cp
	typ := EventTaskStatus
	switch {
	case old == nil:
		typ = EventTaskCreated
	case old.Status == t.Status:
		typ = EventTaskUpdated
	}
	b.event(Event{Type: typ, Team: team, Task: &change})
	return nil
}

// leaseRow returns the held row of t, in_progress (old: as it was), saved
// for change: [the team's PausedFor when its lease started (ns), the time
// its lease started]. The lease starts at t.UpdatedAt, except on an update
// of its fields (ActionUpdated: by the lead, or a blocker's link) or
// another member's comment, which are not its assignee's progress: the lease runs on from the held row's start
// (a row of one value, written before rows kept the start, started at
// old.UpdatedAt). requeueExpired reads it.
func (b *boardTx) leaseRow(old, t *Task, change TaskChange) ([]quad.Value, error) {
	n, _ := taskNum(t.ID)
	// Another member's comment is no progress either, even when UpdatedAt
	// is past the lease's start (a lead's update before).
	if old != nil && old.Status == TaskInProgress && old.Assignee == t.Assignee &&
		(change.Action == ActionUpdated || change.Action == ActionCommented && change.By != t.Assignee) {
		vals, found, err := b.row(heldTable, heldKey(t.Team, t.Assignee, n))
		if err != nil {
			return nil, err
		}
		if found && len(vals) == 2 {
			return vals, nil
		}
		if found && len(vals) == 1 {
			return []quad.Value{vals[0], quad.String(fmtTime(old.UpdatedAt))}, nil
		}
	}
	// The team's time paused when UpdatedAt was set, not now: a change
	// that leaves UpdatedAt as it was (another member's comment) must not
	// make the lease count a pause since.
	paused := t.pausedFor
	if paused < 0 { // (a task row written before tasks recorded it)
		var err error
		if paused, err = b.teamPausedFor(t.Team); err != nil {
			return nil, err
		}
	}
	return []quad.Value{quad.String(strconv.FormatInt(int64(paused), 10)), quad.String(fmtTime(t.UpdatedAt))}, nil
}

// teamPausedFor returns the time team was paused so far (Team.PausedFor),
// from its row of the team table; 0 if the row does not say.
func (b *boardTx) teamPausedFor(team string) (time.Duration, error) {
	row, found, err := b.sideRow(teamTable, team)
	if err != nil || !found || len(row) != nListFields || row[fPausedFor] == nil {
		return 0, err
	}
	d, err := ns.ParseDuration(row[fPausedFor])
	if err != nil {
		return 0, fmt.Errorf("%w: team %s: paused for: %v", ErrCorrupt, IDText(team), err)
	}
	return d, nil
}

// refreshDependents puts or deletes the ready rows of t's dependents after
// t changed status.
func (b *boardTx) refreshDependents(t *Task) error {
	for _, id := range t.Dependents {
		d, err := b.loadTask(t.Team, id)
		if err != nil {
			return err
		}
		n, _ := taskNum(d.ID)
		ok := false
		if d.Status == TaskPending && !d.Paused {
			if ok, err = b.blockersDone(d); err != nil {
				return err
			}
		}
		if ok {
			b.put(readyTable, readyKey(t.Team, d.Priority, n), []quad.Value{quad.String(d.Assignee)})
		} else {
			b.del(readyTable, readyKey(t.Team, d.Priority, n))
		}
	}
	return nil
}

// taskQuads returns the quads of t in its team's task graph.
func (m *Manager) taskQuads(t *Task) []quad.Quad {
	x := m.ns
	g := x.TaskGraph(t.Team)
	node := x.Task(t.Team, t.ID)
	out := make([]quad.Quad, 0, 16+len(t.BlockedBy))
	add := func(p ns.Term, o quad.Value) {
		out = append(out, quad.Quad{Subject: node, Predicate: x.IRI(p), Object: o, Label: g})
	}
	str := func(p ns.Term, s string) {
		if s != "" {
			add(p, ns.String(s))
		}
	}
	tm := func(p ns.Term, v time.Time) {
		if !v.IsZero() {
			add(p, ns.DateTime(v))
		}
	}
	member := func(p ns.Term, a string) {
		if a != "" {
			add(p, x.Member(t.Team, a))
		}
	}
	out = append(out, quad.Quad{Subject: node, Predicate: ns.RDFType, Object: x.IRI(ns.ClassTask), Label: g})
	add(ns.TaskTeam, x.Team(t.Team))
	add(ns.TaskID, ns.String(t.ID))
	str(ns.TaskSubject, t.Subject)
	str(ns.TaskDescription, t.Description)
	add(ns.TaskPriority, ns.Integer(int64(t.Priority)))
	add(ns.TaskStatus, ns.String(string(t.Status)))
	member(ns.TaskAssignee, t.Assignee)
	member(ns.TaskCreatedBy, t.CreatedBy)
	for _, id := range t.BlockedBy {
		add(ns.TaskBlockedBy, x.Task(t.Team, id))
	}
	str(ns.TaskResult, t.Result)
	str(ns.TaskError, t.Error)
	str(ns.TaskFeedback, t.Feedback)
	add(ns.TaskDispatchCount, ns.Integer(int64(t.Dispatches)))
	tm(ns.TaskCreatedAt, t.CreatedAt)
	tm(ns.TaskUpdatedAt, t.UpdatedAt)
	tm(ns.TaskClaimedAt, t.ClaimedAt)
	if t.Paused {
		add(ns.TaskPaused, ns.Bool(true))
	}
	if t.Skipped {
		add(ns.TaskSkipped, ns.Bool(true))
	}
	member(ns.TaskReviewedBy, t.ReviewedBy)
	tm(ns.TaskReviewedAt, t.ReviewedAt)
	return out
}

// readBoardRows reads the rows of table whose keys start with prefix,
// outside any write (committed data).
func (m *Manager) readBoardRows(ctx context.Context, table, prefix string, fn func(key string, vals []quad.Value) bool) error {
	after, page := prefix, 1024
	for {
		rows, err := m.n.SideRowsAfter(ctx, table, after, page)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if !strings.HasPrefix(r.Key, prefix) || !fn(r.Key, r.Vals) {
				return nil
			}
		}
		if len(rows) < page {
			return nil
		}
		after = rows[len(rows)-1].Key
		page = min(page*4, 16384)
	}
}

// deleteBoard stages, in tx, the deletion of team's board and mailbox
// rows (DeleteTeam removes their graphs).
func (m *Manager) deleteBoard(ctx context.Context, tx *cortex.Tx, team string) error {
	if err := m.keepIDSeq(ctx, tx, team); err != nil {
		return err
	}
	tx.DeleteSide(boardTable, team)
	for _, table := range teamSideTables {
		if err := m.readBoardRows(ctx, table, teamKey(team), func(key string, _ []quad.Value) bool {
			tx.DeleteSide(table, key)
			return true
		}); err != nil {
			return err
		}
	}
	return nil
}
