package teammanager

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/internal/ctxcause"
	ns "github.com/cortexgraph/cortex/namespace"
)

// DispatchReport is the outcome of DispatchUnblocked.
type DispatchReport struct {
	Requeued   []Task // in_progress tasks whose lease ran out, back to pending
	Dispatched []Task // ready tasks handed to a free member, in_progress now
	Failed     []Task // ready tasks past the circuit breaker, failed instead
}

// DispatchUnblocked runs one dispatch round on team teamID's board, in one
// atomic write: first the in_progress tasks whose lease ran out go back to
// pending (their assignee cleared: any member may take them), then the
// ready tasks are handed out by priority (highest first, then lowest id),
// one per free member: a member that may work (not the lead, unless the
// board lets it; not a finished member) and holds no in_progress task. A task assigned to a member goes to that member only, if it is
// free; an unassigned one to the first free member by agent id. A task
// already dispatched MaxDispatches times fails instead (circuit breaker)
// and the lead is sent an escalation; it takes no member's turn. With
// BoardSettings.PlanApproval on and no plan approved, a round that has a
// task to hand out fails with ErrPlanNotApproved and changes nothing; the
// tasks handed out carry the plan in force (Task.Plan).
func (m *Manager) DispatchUnblocked(ctx context.Context, teamID string) (_ DispatchReport, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	var rep DispatchReport
	err = m.boardWrite(ctx, func(b *boardTx) error {
		rep = DispatchReport{}
		st, err := b.loadBoard(teamID, false)
		if err != nil {
			return err
		}
		held, err := b.requeueExpired(st, teamID, &rep.Requeued)
		if err != nil {
			return err
		}
		var free []string
		for _, a := range st.Members {
			if st.mayWork(a) && !held[a] {
				free = append(free, a)
			}
		}
		slices.Sort(free)
		if len(free) == 0 {
			return nil
		}
		type pick struct {
			n     int
			agent string
		}
		// given holds the members that got a task this round. A pass
		// picks a ready task for each member still free; a task that
		// trips the circuit breaker leaves the ready queue and takes no
		// turn, so its member is offered the next one in another pass.
		given := map[string]bool{}
		for {
			var picks []pick
			taken := maps.Clone(given)
			if err := b.scan(readyTable, teamKey(teamID), func(key string, vals []quad.Value) bool {
				a, _ := vals[0].(quad.String)
				agent := string(a)
				if agent == "" {
					for _, f := range free {
						if !taken[f] {
							agent = f
							break
						}
					}
				}
				if agent != "" && !taken[agent] && slices.Contains(free, agent) {
					taken[agent] = true
					picks = append(picks, pick{numOfReadyKey(key), agent})
				}
				return len(taken) < len(free)
			}); err != nil {
				return err
			}
			again := false
			for _, p := range picks {
				t, err := b.loadTask(teamID, taskID(p.n))
				if err != nil {
					return err
				}
				tripped, err := b.dispatch(st, t, p.agent, ActionDispatched)
				if err != nil {
					return err
				}
				if tripped {
					rep.Failed = append(rep.Failed, *t)
					again = true
				} else {
					given[p.agent] = true
					rep.Dispatched = append(rep.Dispatched, *t)
				}
			}
			if !again {
				return nil
			}
		}
	})
	if err != nil {
		return DispatchReport{}, teamErr(teamID, "dispatch", err)
	}
	return rep, nil
}

// requeueExpired returns to pending the in_progress tasks of team whose
// lease ran out (not paused), appending them to out, and returns the
// members that still hold an in_progress task. A lease runs from the
// task's last progress (its held row: leaseRow), which a lead's update of
// its fields does not renew. The time the team was
// paused since a task's last progress does not count: its members could
// not report progress meanwhile.
func (b *boardTx) requeueExpired(st *boardState, team string, out *[]Task) (map[string]bool, error) {
	held := map[string]bool{}
	type heldRow struct {
		n      int
		paused time.Duration // the team's PausedFor at the last progress; -1: unknown
		since  time.Time     // the last progress; zero: unknown (the task's UpdatedAt)
	}
	var rows []heldRow
	if err := b.scan(heldTable, teamKey(team), func(key string, vals []quad.Value) bool {
		r := heldRow{n: numOfReadyKey(key), paused: -1}
		if len(vals) >= 1 {
			if s, ok := vals[0].(quad.String); ok {
				if v, err := strconv.ParseInt(string(s), 10, 64); err == nil && v >= 0 {
					r.paused = time.Duration(v)
				}
			}
		}
		if len(vals) == 2 {
			if s, ok := vals[1].(quad.String); ok {
				r.since, _ = parseTime(string(s))
			}
		}
		rows = append(rows, r)
		return true
	}); err != nil {
		return nil, err
	}
	pausedNow, err := b.teamPausedFor(team)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		t, err := b.loadTask(team, taskID(r.n))
		if err != nil {
			return nil, err
		}
		since := r.since
		if since.IsZero() {
			since = t.UpdatedAt
		}
		idle := b.now.Sub(since)
		if r.paused >= 0 && pausedNow > r.paused {
			idle -= pausedNow - r.paused
		}
		if t.Paused || idle <= st.Settings.Lease {
			held[t.Assignee] = true
			continue
		}
		old := *t
		reason := fmt.Sprintf("no progress from %s for %v (lease %v)", t.Assignee, idle, st.Settings.Lease)
		t.Status, t.Assignee, t.UpdatedAt = TaskPending, "", b.now
		if err := b.save(&old, t, TaskChange{Action: ActionRequeued, Reason: reason}); err != nil {
			return nil, err
		}
		*out = append(*out, *t)
	}
	return held, nil
}

// TaskSweep is the outcome of SweepTasks.
type TaskSweep struct {
	Requeued []Task // in_progress tasks whose lease ran out, back to pending
	// Stale are the tasks in_progress (paused ones included) or in_review
	// that have not changed for the board's StaleAfter, not counting the
	// time the team was paused since (as leases do not).
	Stale []Task
}

// SweepTasks returns to pending the in_progress tasks of team teamID whose
// lease ran out (as DispatchUnblocked does first) and reports the stale
// tasks. A host calls it periodically.
func (m *Manager) SweepTasks(ctx context.Context, teamID string) (_ TaskSweep, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	var sw TaskSweep
	var stale = DefaultStaleAfter
	var pausedNow time.Duration // the team's time paused so far
	err = m.boardWrite(ctx, func(b *boardTx) error {
		sw = TaskSweep{}
		st, err := b.loadBoard(teamID, false)
		if err != nil {
			return err
		}
		stale = st.Settings.StaleAfter
		if pausedNow, err = b.teamPausedFor(teamID); err != nil {
			return err
		}
		_, err = b.requeueExpired(st, teamID, &sw.Requeued)
		return err
	})
	if err != nil {
		return TaskSweep{}, teamErr(teamID, "sweep tasks", err)
	}
	now := m.now()
	for _, s := range []TaskStatus{TaskInProgress, TaskInReview} {
		ts, err := m.ListTasks(ctx, teamID, TaskFilter{Status: s})
		if err != nil {
			return sw, err
		}
		for _, t := range ts {
			idle := now.Sub(t.UpdatedAt)
			if t.pausedFor >= 0 && pausedNow > t.pausedFor {
				idle -= pausedNow - t.pausedFor
			}
			if idle > stale {
				sw.Stale = append(sw.Stale, t)
			}
		}
	}
	slices.SortFunc(sw.Stale, func(a, b Task) int {
		an, _ := taskNum(a.ID)
		bn, _ := taskNum(b.ID)
		return an - bn
	})
	return sw, nil
}

// AddTaskFindings records fs as findings of member agentID made for task
// taskID, through the same checks as AddFindings (the findings are merged
// with the team's when it finishes), with the task in their provenance:
// each finding node gets finding:task → the task node. The agent must be
// the task's assignee and the task in_progress or in_review
// (ErrNotAllowed): that check and the write are one atomic step, so a
// task cancelled, failed or reassigned before the write gets none.
func (m *Manager) AddTaskFindings(ctx context.Context, teamID, agentID, taskID string, fs []Finding) (_ []string, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	now := m.now()
	norm := make([]Finding, len(fs))
	for i, f := range fs {
		nf, err := m.normFinding(teamID, f, now)
		if err != nil {
			return nil, fmt.Errorf("team %s: agent %s: finding %d of %d: %w", IDText(teamID), IDText(agentID), i+1, len(fs), err)
		}
		norm[i] = nf
	}
	if taskFindingsHook != nil {
		taskFindingsHook()
	}
	return m.writeFindingsLinked(ctx, teamID, agentID, norm, m.ns.Task(teamID, taskID), func(tx *cortex.Tx, _ []string) error {
		b := &boardTx{m: m, ctx: ctx, n: tx.Namespace(), now: now}
		b.init()
		t, err := b.loadTask(teamID, taskID)
		if err != nil {
			return err
		}
		if t.Assignee != agentID || t.Status != TaskInProgress && t.Status != TaskInReview {
			return fmt.Errorf("team %s: task %s findings: %w", IDText(teamID), IDText(taskID), notReporter(t))
		}
		return nil
	})
}

// FinishTask records what member agent's work on its in_progress task
// taskID gave, o, in one atomic write: o.Findings as AddTaskFindings
// records them (with the task in their provenance), then o.Tasks created
// by agent as CreateTask creates them, in order (a blocked_by may name a
// task created before it in o.Tasks, or taskID itself), then o.Result
// submitted as CompleteTask submits it (to review, or completed). Every
// part is checked before anything is written: if one is refused, the
// call writes nothing and returns that part's error, which matches what
// the single call would return (ErrInvalidFinding, ErrNotAllowed,
// ErrInvalidTask, a *TaskStateError, a *DelegationError ...). A team
// past its deadline is refused too (ErrTeamFinished, as CompleteTask
// refuses it), but, as AddTaskFindings does, the write records the
// team's timeout (CompleteTask leaves that to the next member update or
// Sweep). The check of ctx (WithWriteCheck) runs once, in the write. A host that records a
// task's outcome in several calls leaves the findings and tasks of the
// earlier calls in place when a later one is refused.
func (m *Manager) FinishTask(ctx context.Context, teamID, agent, taskID string, o TaskOutcome) (_ TaskFinish, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	fail := func(err error) (TaskFinish, error) {
		return TaskFinish{}, taskErr(teamID, taskID, "finish task "+IDText(taskID), err)
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	now := m.now()
	norm := make([]Finding, len(o.Findings))
	for i, f := range o.Findings {
		nf, err := m.normFinding(teamID, f, now)
		if err != nil {
			return fail(fmt.Errorf("agent %s: finding %d of %d: %w", IDText(agent), i+1, len(o.Findings), err))
		}
		norm[i] = nf
	}
	assignees := []string{agent}
	for _, nt := range o.Tasks {
		assignees = append(assignees, nt.Assignee)
	}
	rules, err := m.delegationRules(ctx, teamID, assignees...)
	if err != nil {
		return fail(err)
	}
	ids := make([]string, len(norm))
	qs := make([]quad.Quad, 0, 9*len(norm))
	pins := make([]quad.Value, 0, len(norm))
	found := make([]StoredFinding, len(norm))
	task := m.ns.Task(teamID, taskID)
	for i, f := range norm {
		ids[i] = findingID(agent, f)
		qs = append(qs, m.findingQuads(teamID, agent, ids[i], f)...)
		qs = append(qs, quad.Quad{Subject: m.ns.Finding(teamID, ids[i]), Predicate: m.ns.IRI(ns.FindingTask), Object: task, Label: m.ns.MemberGraph(teamID, agent)})
		pins = append(pins, m.ns.Finding(teamID, ids[i]))
		found[i] = StoredFinding{ID: ids[i], Agent: agent, Finding: f}
	}
	var out TaskFinish
	st, timedOut, err := m.write(ctx, teamID, "-", func(st *teamState, tx *cortex.Tx, now time.Time) error {
		out = TaskFinish{}
		if wc := writeCheckOf(ctx); wc != nil {
			if err := wc(ctx, tx); err != nil {
				return err
			}
		}
		b := &boardTx{m: m, ctx: ctx, n: tx.Namespace(), now: now}
		b.init()
		if len(norm) > 0 {
			if err := checkCanAssert(st, teamID, agent); err != nil {
				return err
			}
			t, err := b.loadTask(teamID, taskID)
			if err != nil {
				return err
			}
			if t.Assignee != agent || t.Status != TaskInProgress && t.Status != TaskInReview {
				return fmt.Errorf("task %s findings: %w", IDText(taskID), notReporter(t))
			}
		}
		for i, nt := range o.Tasks {
			t, err := b.createTask(teamID, agent, nt, rules)
			if err != nil {
				return fmt.Errorf("new task %d (%s): %w", i+1, nt.Subject, err)
			}
			out.Created = append(out.Created, *t)
		}
		t, err := b.completeTask(teamID, agent, taskID, o.Result)
		if err != nil {
			return err
		}
		out.Task = *t
		for i, c := range out.Created {
			// As written: a later new task blocked by it is a dependent.
			t, err := b.loadTask(teamID, c.ID)
			if err != nil {
				return err
			}
			out.Created[i] = *t
		}
		if err := b.stageWrites(tx); err != nil {
			return err
		}
		tx.Add(qs...)
		tx.Pin(pins...)
		st.events = append(st.events, findingsEvents(teamID, agent, found)...)
		st.events = append(st.events, b.events...)
		return nil
	})
	if _, _, err := m.afterWrite(ctx, teamID, st, timedOut, err); err != nil {
		return fail(err)
	}
	out.Findings = ids
	if len(ids) == 0 {
		out.Findings = nil
	}
	return out, nil
}

// taskFindingsHook, when set by a test, runs in AddTaskFindings once the
// findings are checked, before the write that checks the task and records
// them.
var taskFindingsHook func()

// memberFinished applies, in tx (the write of UpdateMemberStatus that
// finishes member agent of team ts with status completed or failed), what
// that means for the team's board, in the same atomic write:
//
//   - the board records the member as finished: it is assigned,
//     dispatched and claims no more tasks (ErrMemberFinished);
//   - its in_progress tasks go back to pending, unassigned (action
//     requeued, as when a lease runs out; their dispatch count is kept),
//     and its pending tasks are unassigned: any member may take them;
//   - its tasks in_review stay for the lead's review (a rejection then
//     sends the task back to pending, unassigned).
//
// A team without a board row yet has nothing to change: its board reads
// its members' statuses when it is made. The board's events join the
// update's (events).
func (m *Manager) memberFinished(ctx context.Context, tx *cortex.Tx, ts *teamState, agent string, status Status, now time.Time, events *[]Event) error {
	team := ts.team.ID
	b := &boardTx{m: m, ctx: ctx, n: tx.Namespace(), now: now}
	b.init()
	st, found, err := b.board(team)
	if err != nil || !found {
		return err
	}
	st.setFinished(&ts.team) // (ts has the update: agent is finished)
	if st.Finished[agent] == "" {
		st.Finished = map[string]Status{agent: status}
	}
	b.saveBoard(team, st)
	if err := b.releaseTasks(team, agent, fmt.Sprintf("member %s is %s", agent, status)); err != nil {
		return err
	}
	if err := b.stageWrites(tx); err != nil {
		return err
	}
	*events = append(*events, b.events...)
	return nil
}

// releaseTasks lets go of the tasks of member agent of team, which may no
// longer work (it finished, or it is the lead of a board that does not
// let the lead work), for reason: its in_progress tasks go back to
// pending, unassigned (action requeued, as when a lease runs out; their
// dispatch count is kept), and its pending tasks are unassigned (action
// updated): any member may take them.
func (b *boardTx) releaseTasks(team, agent, reason string) error {
	var held, assigned []int
	if err := b.scan(heldTable, team+" "+agent+" ", func(key string, _ []quad.Value) bool {
		held = append(held, numOfReadyKey(key))
		return true
	}); err != nil {
		return err
	}
	var derr error
	if err := b.scan(taskTable, teamKey(team), func(key string, vals []quad.Value) bool {
		fs, err := taskFields(vals)
		if err != nil {
			derr = err
			return false
		}
		if fs[tfAssignee] == agent && TaskStatus(fs[tfStatus]) == TaskPending {
			assigned = append(assigned, numOfReadyKey(key))
		}
		return true
	}); err != nil {
		return err
	}
	if derr != nil {
		return derr
	}
	for _, nums := range [][]int{held, assigned} {
		for _, n := range nums {
			t, err := b.loadTask(team, taskID(n))
			if err != nil {
				return err
			}
			old := *t
			action := ActionUpdated
			if t.Status == TaskInProgress {
				action = ActionRequeued
			}
			t.Status, t.Assignee, t.UpdatedAt = TaskPending, "", b.now
			if err := b.save(&old, t, TaskChange{Action: action, Reason: reason}); err != nil {
				return err
			}
		}
	}
	return nil
}

// notReporter is the refusal of findings for task t by an agent that may
// not report them: only its assignee does, while it is in_progress or
// in_review. It names the assignee, or says there is none (it said
// assigned to "").
func notReporter(t *Task) error {
	who := "no one"
	if t.Assignee != "" {
		who = IDText(t.Assignee)
	}
	return fmt.Errorf("%w: the task is %s, assigned to %s (its assignee reports findings while it is in_progress or in_review)", ErrNotAllowed, t.Status, who)
}
