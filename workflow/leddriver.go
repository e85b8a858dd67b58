package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cortexgraph/cortex/internal/ctxcause"
	"github.com/cortexgraph/cortex/teammanager"
)

// Board is the part of a team's task board that a crew or swarm driver
// works through: *teammanager.Manager in process, or a client of a
// server's teams.* task methods (package client); api.TaskBoard includes
// it. Its methods have the contracts of the Manager's.
type Board interface {
	CreateTask(ctx context.Context, teamID, by string, nt teammanager.NewTask) (teammanager.Task, error)
	ListTasks(ctx context.Context, teamID string, f teammanager.TaskFilter) ([]teammanager.Task, error)
	ClaimNext(ctx context.Context, teamID, agent string) (teammanager.Task, error)
	CompleteTask(ctx context.Context, teamID, agent, taskID, result string) (teammanager.Task, error)
	FailTask(ctx context.Context, teamID, agent, taskID, reason string) (teammanager.Task, error)
	ReviewTask(ctx context.Context, teamID, lead, taskID string, approve bool, feedback string) (teammanager.Task, error)
	CancelTask(ctx context.Context, teamID, lead, taskID, reason string) (teammanager.Task, error)
	RetryTask(ctx context.Context, teamID, lead, taskID string) (teammanager.Task, error)
	SkipTask(ctx context.Context, teamID, lead, taskID, reason string) (teammanager.Task, error)
	AddTaskFindings(ctx context.Context, teamID, agentID, taskID string, fs []teammanager.Finding) ([]string, error)
	FinishTask(ctx context.Context, teamID, agent, taskID string, o teammanager.TaskOutcome) (teammanager.TaskFinish, error)
	// DraftPlan is called with NewPlan.Submit: it drafts and submits in
	// one write.
	DraftPlan(ctx context.Context, teamID, by string, np teammanager.NewPlan) (teammanager.Plan, error)
	GetPlan(ctx context.Context, teamID string, rev int) (teammanager.Plan, error)
	// ApplyBoardOps applies a lead's turn: every operation in one atomic
	// write, or none.
	ApplyBoardOps(ctx context.Context, teamID, lead string, ops []teammanager.BoardOp) ([]teammanager.BoardOpResult, error)
}

var _ Board = (*teammanager.Manager)(nil)

// LeadTurn is what the lead sees in one of its turns: the turn step (its
// Turn, MaxTurns, Inputs, Context, Members and the lead's definition in
// Agent) and every task of the board, by number.
type LeadTurn struct {
	ReadyStep
	Type  Type // crew or swarm
	Team  string
	Tasks []teammanager.Task
	// Plan is the latest revision of the lead's plan (its state, and the
	// operator's feedback if rejected); nil before the first.
	Plan *teammanager.Plan
}

// Lead operations (LeadOp.Op).
const (
	OpCreate  = "create"  // create a task: subject (required), description, assignee, priority, blocked_by, ref
	OpApprove = "approve" // approve a task in review: task, feedback
	OpReject  = "reject"  // send a task in review back to its member: task, feedback (required)
	OpRetry   = "retry"   // a failed or cancelled task goes back to pending: task
	OpSkip    = "skip"    // cancel a task and let its dependents go ahead: task, reason
	OpCancel  = "cancel"  // cancel a task (its dependents stay blocked): task, reason
	OpDone    = "done"    // the run is done: summary
	OpPlan    = "plan"    // draft and submit the lead's plan for the operator's review, in one write: title, steps
)

// LeadOp is one thing a lead's turn does (one JSON line of a lead
// command's output).
type LeadOp struct {
	Op string `json:"op"`
	// Ref names a created task for the blocked_by of the tasks created
	// after it in the same turn (whose ids are not known yet), and as the
	// task of the operations after it.
	Ref         string `json:"ref,omitempty"`
	Subject     string `json:"subject,omitempty"`
	Description string `json:"description,omitempty"`
	// Assignee is an agent of the run (its name or member id); empty: any
	// member may claim it. A swarm's tasks have none.
	Assignee string `json:"assignee,omitempty"`
	Priority int    `json:"priority,omitempty"`
	// BlockedBy lists task ids (T1, ...) and refs of this turn.
	BlockedBy []string `json:"blocked_by,omitempty"`
	Task      string   `json:"task,omitempty"` // approve, reject, retry, skip, cancel: a task id, or a ref of this turn
	Feedback  string   `json:"feedback,omitempty"`
	Reason    string   `json:"reason,omitempty"`
	Summary   string   `json:"summary,omitempty"`
	// Title and Steps are a plan's (OpPlan).
	Title string                 `json:"title,omitempty"`
	Steps []teammanager.PlanStep `json:"steps,omitempty"`
}

// TaskWork is a task that a member runs: the task as claimed (with the plan
// in force, if any), the member, the run's context and inputs, and the
// tasks it was blocked by, with their results.
type TaskWork struct {
	Run      string
	Team     string
	Member   RunMember
	Task     teammanager.Task
	Context  string
	Inputs   map[string]any
	Upstream []teammanager.Task
}

// TaskResult is what a member's work on a task gives: the task's result,
// findings (recorded with the task in their provenance), and new tasks
// for the shared queue (a swarm's members may add them; in a crew only the
// lead creates tasks, and a specialist that asks for one fails its task).
type TaskResult struct {
	Result   string
	Findings []teammanager.Finding
	Tasks    []teammanager.NewTask
}

// LedRunner is the host's side of DriveLed: it runs the lead's turns and
// the members' tasks.
type LedRunner interface {
	// Lead runs a turn of the lead and returns what it does. An error
	// fails the turn, and so the run. ctx ends at the run's step timeout
	// (what Lead returns then is not applied) and when the driver stops.
	Lead(ctx context.Context, turn LeadTurn) ([]LeadOp, error)
	// Task runs a task for its member. An error fails the task, with
	// the error's text as the reason; the lead is told (an escalation
	// message, and the failed task in its next turn). ctx ends at the
	// run's step timeout (the task then fails as timed out) and when the
	// driver stops.
	Task(ctx context.Context, w TaskWork) (TaskResult, error)
}

type taskDone struct {
	member RunMember
	task   teammanager.Task
	res    TaskResult
	err    error
}

// DriveLed drives crew or swarm run id through p and b with runner until
// the run has finished, and returns it. The coordination is the run
// team's task board:
//
//   - Each member that has no task running takes up a task it holds that
//     no one runs (one the lead's review sent back, with its feedback, or
//     one a stopped driver left), else claims the next ready task it may
//     take (ClaimNext: in a crew, the tasks the lead assigned to it or
//     left unassigned; in a swarm, the shared queue), at most concurrency
//     (at least 1) tasks at a time, one per member, each run by
//     runner.Task in its own goroutine. Its result completes the task (in
//     a crew it goes to review), its findings are recorded with the task,
//     its new tasks are created by the member (a crew refuses them: only
//     the lead creates tasks), all in one atomic write (FinishTask); an
//     error, or a refusal of any part, fails the task, writing nothing of
//     the result, and the board tells the lead.
//   - When no task runs and none can be claimed, the lead takes its next
//     turn (the run's next ready step, turn-N/LEAD, started as actor):
//     runner.Lead sees the board and returns operations, which are all
//     checked first (an invalid one fails the turn and writes nothing)
//     and then applied in order as the lead, all in one atomic write
//     (Board.ApplyBoardOps): the board's rules apply, each operation
//     seeing what the ones before it did (a ref of a task created earlier
//     in the turn names it); a refused one fails the turn and writes
//     nothing, not even the operations before it; any other error, the
//     store's or a server's not reached, writes nothing either, gives the
//     turn back and stops the driver with it. The turn completes with
//     outputs done and summary. Done cancels the tasks still open (in the
//     turn's write) and ends the run: it merges and completes. A run
//     whose lead never says done within its turns fails.
//   - With plan approval (Def.PlanApproval), members claim nothing before
//     the operator approves the lead's plan (OpPlan drafts and submits
//     it, in one write: NewPlan.Submit; teammanager.Manager.ReviewPlan
//     reviews it): while the plan is in review the lead takes no turn
//     and the driver polls; a rejected
//     plan is in the lead's next turn (LeadTurn.Plan), to plan again.
//
// When ctx ends, DriveLed waits for its runners (whose context ends too),
// gives a running turn back (ReleaseStep) — unless its lead had answered:
// then the answer is applied whole and the turn finished first, not given
// back half applied — leaves the tasks its members had claimed in
// progress and returns the run with ctx's error: another driver may
// resume it, and its members take their tasks up again.
//
// One driver per run at a time, since a driver takes every in_progress
// task as its own to run: DriveLed holds the run (Pull.ClaimDriver, a
// lease of DefaultDriverLease renewed every third of it) before it claims
// anything, and lets go when it returns. A second driver is refused with
// an error matching ErrDriverBusy, unless the holder's process is found
// gone (it ran on this host and its pid is not alive: a driver killed with
// SIGKILL) or its lease has ended; DriveLedWith's Takeover takes the run
// from a live one. A driver that takes the run from another (which never
// let go) gives back the turn that one left running, and runs it. A driver that loses its hold (taken over, or not
// renewed within its lease) stops as if ctx had ended, with that error.
// It acts only while it holds the run: every write it makes, of the run
// or of the board, checks that in the write itself (WithDriver; on a
// board in this process through teammanager.WithWriteCheck with
// p.DriverCheck, through a server when p and b are its clients), so that
// between the end of its hold and its next renewal it writes nothing: a
// lead's answer (one write, fenced whole) or a member's result that comes
// then is not applied, the turn is given back, and DriveLed returns an
// error matching ErrDriverBusy. A driver sees that its run was cancelled when it next
// reads the run: while tasks run, when one of them ends (that task runs
// to its end; its result is not recorded); the context of the others
// then ends, and DriveLed returns the cancelled run.
//
// A run whose team is deleted or disbanded while DriveLed drives it (a
// board call finds it gone or read-only) is ended by DriveLed itself: the
// run fails, "team T was deleted" or "team T was disbanded", its running
// turn failing and the others skipped (see Engine.Ready), and DriveLed
// returns it with a nil error, as it returns any run that failed.
//
// Members that keep adding tasks to a swarm's queue keep the run going
// until they stop, or the run is cancelled: the lead's turns bound the
// lead, not the members.
func DriveLed(ctx context.Context, p Pull, b Board, id, actor string, runner LedRunner, concurrency int) (Run, error) {
	return DriveLedWith(ctx, p, b, id, actor, runner, LedOptions{Concurrency: concurrency})
}

// LedOptions configure DriveLedWith.
type LedOptions struct {
	// Concurrency is how many tasks run at once (at least 1).
	Concurrency int
	// Lease is how long the driver's hold of the run lasts unrenewed
	// (0: DefaultDriverLease).
	Lease time.Duration
	// Takeover takes the run from the driver that holds it even if that
	// one is alive (the operator's call: a task both run may run twice).
	Takeover bool
}

// DriveLedWith is DriveLed with options.
func DriveLedWith(ctx context.Context, p Pull, b Board, id, actor string, runner LedRunner, opts LedOptions) (Run, error) {
	concurrency := max(opts.Concurrency, 1)
	lease := opts.Lease
	if lease <= 0 {
		lease = DefaultDriverLease
	}
	r, err := p.Get(ctx, id)
	if err != nil {
		return Run{}, err
	}
	if !r.Type.Led() {
		return r, fmt.Errorf("run %s: %w: a %s run is driven by Drive, not DriveLed", id, ErrInvalidRun, r.Type)
	}
	if r.Status.Finished() {
		return r, nil
	}
	me := NewDriver(actor)
	check := p.DriverCheck(id, me.ID)
	if check == nil {
		return r, fmt.Errorf("run %s: %w: its Pull gives no check for the board's writes (DriverCheck returned nil): they would not be fenced", id, ErrInvalidRun)
	}
	prev, err := claimRun(ctx, p, id, me, lease, opts.Takeover)
	if errors.Is(err, ErrRunFinished) {
		return p.Get(ctx, id)
	} else if err != nil {
		return r, err
	}
	if prev != nil {
		// The driver held the run before and never let go (killed, its
		// lease ended, or taken over): a turn it left running can no
		// longer be finished by it (its writes are fenced from now on).
		// Give it back, to run it here, rather than wait for its step
		// timeout, which would fail it and the run.
		cur, err := p.Get(ctx, id)
		if err != nil {
			_ = p.ReleaseDriver(context.WithoutCancel(ctx), id, me.ID)
			return r, err
		}
		for _, s := range cur.Steps {
			if s.Status == StepRunning && s.Actor == prev.Actor {
				if err := releaseTurn(ctx, p, id, s.Name, s.Attempt, prev.Actor); err != nil {
					_ = p.ReleaseDriver(context.WithoutCancel(ctx), id, me.ID)
					return r, err
				}
			}
		}
	}
	// Every write the drive makes is fenced: made only while me holds
	// the run (WithDriver; a board's in this process through p's check,
	// whatever p is; through a client the server's).
	ctx = teammanager.WithWriteCheck(WithDriver(ctx, id, me.ID), check)
	ctx, stopHold := context.WithCancelCause(ctx)
	// The hold is renewed until the drive returns, not until ctx ends: an
	// answer still being applied once ctx has ended (applied whole, see
	// DriveLed) needs the run held to its end.
	holdCtx, endHold := context.WithCancel(context.WithoutCancel(ctx))
	held := holdRun(holdCtx, p, id, me, lease, stopHold)
	defer func() {
		endHold()
		stopHold(nil)
		<-held
		// Let go at once for the next driver (a failure leaves the lease
		// to end by itself).
		_ = p.ReleaseDriver(context.WithoutCancel(ctx), id, me.ID)
	}()
	team := r.Team
	taskCtx, stopTasks := context.WithCancel(ctx)
	defer stopTasks()
	detached := context.WithoutCancel(ctx)
	done := make(chan taskDone)
	busy := map[string]bool{} // member id → running a task
	var (
		last    *ReadyStep // the last turn Ready gave: members, context, inputs
		failure error
		turn    *ReadyStep
	)
	drain := func() {
		stopTasks()
		for len(busy) > 0 {
			td := <-done
			delete(busy, td.member.ID)
		}
	}
	for ctx.Err() == nil && failure == nil {
		ready, err := p.Ready(ctx, id)
		if err != nil && !errors.Is(err, ErrRunFinished) {
			failure = err
			break
		}
		turn = nil
		if len(ready) > 0 {
			turn, last = &ready[0], &ready[0]
		}
		if r, err = p.Get(ctx, id); err != nil {
			failure = err
			break
		}
		if r.Status.Finished() {
			drain()
			return r, nil
		}
		// Members take up the tasks they hold and no one runs (sent back
		// by the lead's review, or claimed by a driver that stopped), or
		// claim what they may.
		held, err := b.ListTasks(ctx, team, teammanager.TaskFilter{Status: teammanager.TaskInProgress})
		if err != nil {
			failure = fmt.Errorf("run %s: tasks: %w", id, err)
			break
		}
		gated := false // a claim waits for the plan's approval
		var members []RunMember
		if last != nil {
			members = last.Members
		}
		for _, m := range members {
			if len(busy) >= concurrency || ctx.Err() != nil {
				break
			}
			if m.Role == RoleLead || busy[m.ID] {
				continue
			}
			var t teammanager.Task
			if k := slices.IndexFunc(held, func(t teammanager.Task) bool { return t.Assignee == m.ID && !t.Paused }); k >= 0 {
				t = held[k]
			} else if t, err = b.ClaimNext(ctx, team, m.ID); errors.Is(err, teammanager.ErrNoReadyTask) {
				continue
			} else if errors.Is(err, teammanager.ErrPlanNotApproved) {
				gated = true
				continue
			} else if err != nil {
				failure = fmt.Errorf("run %s: %s claims a task: %w", id, m.ID, err)
				break
			}
			w := TaskWork{Run: id, Team: team, Member: m, Task: t, Context: last.Context, Inputs: last.Inputs}
			if w.Upstream, err = blockers(ctx, b, team, t); err != nil {
				failure = err
				break
			}
			busy[m.ID] = true
			go func(w TaskWork, timeout time.Duration) {
				// A task, like a turn, may run for the run's step
				// timeout; then it fails as timed out (and the lead is
				// told).
				tctx, cancel := taskCtx, context.CancelFunc(func() {})
				if timeout > 0 {
					tctx, cancel = context.WithTimeout(taskCtx, timeout)
				}
				res, err := runner.Task(tctx, w)
				if taskCtx.Err() == nil && tctx.Err() != nil {
					res, err = TaskResult{}, fmt.Errorf("timed out after %s", timeout)
				}
				cancel()
				done <- taskDone{member: w.Member, task: w.Task, res: res, err: err}
			}(w, r.StepTimeout)
		}
		if failure != nil {
			break
		}
		if len(busy) > 0 {
			select {
			case td := <-done:
				delete(busy, td.member.ID)
				if ctx.Err() == nil {
					failure = finishTask(ctx, b, r, team, td)
					if errors.Is(failure, teammanager.ErrTeamFinished) {
						// The run ended meanwhile (cancelled): its team
						// takes no more results; the next Get ends the
						// drive as any finished run.
						failure = nil
					}
				}
			case <-ctx.Done():
			}
			continue
		}
		waiting := false
		if gated && turn != nil {
			// The lead's plan waits for the operator: no turn until it is
			// reviewed.
			pl, err := b.GetPlan(ctx, team, 0)
			if err != nil && !errors.Is(err, teammanager.ErrNoPlan) {
				failure = err
				break
			}
			waiting = err == nil && pl.State == teammanager.PlanPendingReview
		}
		if turn == nil || waiting {
			// A turn runs elsewhere (a driver that died: its timeout
			// fails it), the run is merging, or the plan is in review.
			wait := p.PollInterval()
			if d := nextDeadline(r, time.Now()); d > 0 && d < wait {
				wait = d
			}
			select {
			case <-time.After(wait):
			case <-ctx.Done():
			}
			continue
		}
		failure = leadTurn(ctx, p, b, r, team, actor, *turn, runner)
	}
	drain()
	if errors.Is(failure, teammanager.ErrUnknownTeam) || errors.Is(failure, teammanager.ErrTeamDisbanded) {
		// The run's team was deleted or disbanded under the driver: Ready
		// records it (the run fails, "team T was deleted"), as the next
		// drive's would, and the driver ends with the failed run.
		if r, err := teamGone(detached, p, id); err == nil && r.Status.Finished() {
			return r, nil
		}
	}
	r, gerr := p.Get(detached, id)
	if failure == nil {
		failure = ctxcause.With(ctx, ctx.Err())
	}
	return r, errors.Join(failure, gerr)
}

// teamGone has the run's deletion recorded, if its team was deleted
// (Engine.Ready fails a crew or swarm run whose team is gone), and returns
// the run.
func teamGone(ctx context.Context, p Pull, id string) (Run, error) {
	if _, err := p.Ready(ctx, id); err != nil && !errors.Is(err, ErrRunFinished) {
		return Run{}, err
	}
	return p.Get(ctx, id)
}

// claimRun makes me the driver of run id (Pull.ClaimDriver): when another
// driver holds it, the run is taken from that one if takeover is set or
// its process is gone. It returns the driver whose hold me's claim ended
// (one that never let go: taken over, gone, or its lease ended), if any.
func claimRun(ctx context.Context, p Pull, id string, me Driver, lease time.Duration, takeover bool) (*Driver, error) {
	before, err := p.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	prev := func(r Run) *Driver {
		if h := before.Driver; h != nil && h.ID != me.ID && r.Driver != nil && r.Driver.ID == me.ID {
			return h
		}
		return nil
	}
	r, err := p.ClaimDriver(ctx, id, me, lease, "")
	if !errors.Is(err, ErrDriverBusy) {
		if err != nil {
			return nil, err
		}
		return prev(r), nil
	}
	// Through a server the error does not carry the holder: read it.
	var gerr error
	if before, gerr = p.Get(ctx, id); gerr != nil {
		return nil, errors.Join(err, gerr)
	}
	h := before.Driver
	if h == nil || !takeover && !h.gone() {
		return nil, err
	}
	// Only the holder judged here is replaced.
	if r, err = p.ClaimDriver(ctx, id, me, lease, h.ID); err != nil {
		return nil, err
	}
	return prev(r), nil
}

// holdRun renews me's hold of run id every third of lease until ctx ends
// (DriveLedWith's own, which ends when it returns);
// when the hold is lost (another driver took the run, or no renewal
// succeeded within lease) it stops ctx through stop, with the reason. The
// channel it returns is closed when it has returned.
func holdRun(ctx context.Context, p Pull, id string, me Driver, lease time.Duration, stop context.CancelCauseFunc) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		// A lease under 3 ns is renewed every nanosecond (a ticker
		// needs an interval).
		t := time.NewTicker(max(lease/3, time.Nanosecond))
		defer t.Stop()
		renewed := time.Now()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			_, err := p.ClaimDriver(ctx, id, me, lease, "")
			switch {
			case err == nil:
				renewed = time.Now()
			case ctx.Err() != nil, errors.Is(err, ErrRunFinished):
				return
			case errors.Is(err, ErrDriverBusy):
				stop(fmt.Errorf("run %s: the driver lost the run (another driver took it over): %w", id, err))
				return
			case time.Since(renewed) >= lease:
				stop(fmt.Errorf("run %s: %w: the driver's hold of the run was not renewed within its lease (%s): %w", id, ErrDriverBusy, lease, err))
				return
			}
		}
	}()
	return done
}

// blockers returns the tasks t was blocked by.
func blockers(ctx context.Context, b Board, team string, t teammanager.Task) ([]teammanager.Task, error) {
	if len(t.BlockedBy) == 0 {
		return nil, nil
	}
	all, err := b.ListTasks(ctx, team, teammanager.TaskFilter{})
	if err != nil {
		return nil, fmt.Errorf("team %s: tasks: %w", team, err)
	}
	var out []teammanager.Task
	for _, bt := range all {
		if slices.Contains(t.BlockedBy, bt.ID) {
			out = append(out, bt)
		}
	}
	return out, nil
}

// finishTask records what a member's work on a task gave, all or
// nothing (Board.FinishTask): its findings, its new tasks and its result
// in one write. A part refused (a finding, a new task) fails the task,
// and nothing of the result is written.
func finishTask(ctx context.Context, b Board, r Run, team string, td taskDone) error {
	agent, t := td.member.ID, td.task
	fail := func(reason string) error {
		_, err := b.FailTask(ctx, team, agent, t.ID, reason)
		if errors.Is(err, teammanager.ErrTaskState) || errors.Is(err, teammanager.ErrNotAllowed) {
			return nil // requeued (lease), cancelled or paused meanwhile
		}
		return err
	}
	if td.err != nil {
		return fail(td.err.Error())
	}
	if r.Type == Crew && len(td.res.Tasks) > 0 {
		// (Only the lead creates a crew's tasks, and the lead runs none.)
		return fail(fmt.Sprintf("%s is a specialist of a crew, and specialists cannot delegate: it asked for %d new task(s), %q first", agent, len(td.res.Tasks), td.res.Tasks[0].Subject))
	}
	for i, nt := range td.res.Tasks {
		if r.Type == Swarm && nt.Assignee != "" {
			return fail(fmt.Sprintf("new task %d (%s): a swarm's tasks go to the shared queue: no assignee (%s)", i+1, nt.Subject, nt.Assignee))
		}
	}
	_, err := b.FinishTask(ctx, team, agent, t.ID, teammanager.TaskOutcome{Result: td.res.Result, Findings: td.res.Findings, Tasks: td.res.Tasks})
	switch {
	case err == nil, errors.Is(err, teammanager.ErrTaskState):
		return nil // recorded; or requeued (lease), cancelled or paused meanwhile: nothing of it was
	case errors.Is(err, teammanager.ErrInvalidFinding), errors.Is(err, teammanager.ErrInvalidTask),
		errors.Is(err, teammanager.ErrUnknownTask), errors.Is(err, teammanager.ErrTaskCycle),
		errors.Is(err, teammanager.ErrNotAllowed), errors.Is(err, teammanager.ErrMemberFinished),
		errors.Is(err, teammanager.ErrUnknownAgent):
		// A part of the result refused, or the task no longer the
		// member's (then FailTask is refused too, and nothing happens):
		// nothing of the result was written.
		return fail(err.Error())
	}
	return err
}

// leadTurn runs turn, applies the lead's operations and finishes the turn.
// It returns only errors that stop the driver; the lead's own fail the
// turn. Once the lead has answered, its answer is applied and the turn
// finished even if ctx ends meanwhile (as releaseTurn gives a turn back
// then): a turn is not given back half applied, for the next driver's
// lead to answer again.
func leadTurn(ctx context.Context, p Pull, b Board, r Run, team, actor string, turn ReadyStep, runner LedRunner) error {
	name := turn.Step.Name
	attempt, err := p.StartStep(ctx, r.ID, name, actor)
	if err != nil {
		if errors.Is(err, ErrInvalidTransition) || errors.Is(err, ErrRunFinished) {
			return nil // another driver started it, or the run finished
		}
		return err
	}
	// The board as the lead sees it; a failure to read it is the
	// driver's, not the lead's: the turn is given back.
	lt := LeadTurn{ReadyStep: turn, Type: r.Type, Team: team}
	if lt.Tasks, err = b.ListTasks(ctx, team, teammanager.TaskFilter{}); err != nil {
		return errors.Join(fmt.Errorf("run %s: tasks: %w", r.ID, err), releaseTurn(ctx, p, r.ID, name, attempt, actor))
	}
	switch pl, err := b.GetPlan(ctx, team, 0); {
	case err == nil:
		lt.Plan = &pl
	case !errors.Is(err, teammanager.ErrNoPlan):
		return errors.Join(fmt.Errorf("run %s: plan: %w", r.ID, err), releaseTurn(ctx, p, r.ID, name, attempt, actor))
	}
	// The lead's work ends at the turn's timeout: what a turn that timed
	// out would do is not applied.
	leadCtx := ctx
	if r.StepTimeout > 0 {
		var cancel context.CancelFunc
		leadCtx, cancel = context.WithTimeout(ctx, r.StepTimeout)
		defer cancel()
	}
	ops, err := runner.Lead(leadCtx, lt)
	if ctx.Err() != nil {
		return releaseTurn(ctx, p, r.ID, name, attempt, actor)
	}
	if leadCtx.Err() != nil {
		err = fmt.Errorf("timed out after %s", r.StepTimeout)
	}
	// The answer is applied whole, and the turn finished, even if ctx
	// ends from here on (the write stays fenced: WithoutCancel keeps the
	// driver). The answer is one write: a refusal, a lost hold or a crash
	// leaves none of it written.
	actx := context.WithoutCancel(ctx)
	if err == nil {
		var out map[string]any
		out, err = applyLeadOps(actx, b, r, team, turn, lt.Tasks, ops)
		if errors.Is(err, teammanager.ErrUnknownTeam) || errors.Is(err, teammanager.ErrTeamDisbanded) {
			// The team was deleted or disbanded: not the lead's failure,
			// the run's (see DriveLedWith).
			return err
		}
		if err == nil {
			err = p.CompleteStep(actx, r.ID, name, attempt, out)
			if err == nil || errors.Is(err, ErrInvalidTransition) || errors.Is(err, ErrRunFinished) {
				return nil // done; or timed out, started again elsewhere or cancelled meanwhile
			}
			// Not the lead's doing: the turn goes back (if it was
			// completed all the same, giving back its attempt does
			// nothing).
			return errors.Join(err, releaseTurn(ctx, p, r.ID, name, attempt, actor))
		}
		if !refusedOp(err) {
			// The driver lost the run (its lease ended, or it was taken
			// over) while the lead worked, or the board could not be
			// written (the store's error, a server not reached): not the
			// lead's failure. Nothing of the turn was written; it goes
			// back for the run's driver.
			return errors.Join(err, releaseTurn(ctx, p, r.ID, name, attempt, actor))
		}
	}
	ferr := p.FailStep(actx, r.ID, name, attempt, err.Error())
	if errors.Is(ferr, ErrInvalidTransition) || errors.Is(ferr, ErrRunFinished) {
		return nil
	}
	return ferr
}

// refusedOp reports whether err, met applying a lead's operations, is the
// lead's: its output refused (ErrInvalidOutput), or an operation the
// board refuses under its rules. Those fail the turn; any other error
// (ErrDriverBusy, the store's, a server's that could not be reached) is
// the driver's, and the turn goes back.
func refusedOp(err error) bool {
	for _, e := range []error{ErrInvalidOutput,
		teammanager.ErrNotAllowed, teammanager.ErrTaskState, teammanager.ErrInvalidTask, teammanager.ErrUnknownTask,
		teammanager.ErrTaskCycle, teammanager.ErrBlocked, teammanager.ErrCircuitOpen, teammanager.ErrUnknownAgent,
		teammanager.ErrMemberFinished, teammanager.ErrNoPlan, teammanager.ErrInvalidPlan, teammanager.ErrPlanState,
		teammanager.ErrPlanNotApproved, teammanager.ErrTeamFinished, teammanager.ErrTeamPaused, teammanager.ErrInvalidTransition} {
		if errors.Is(err, e) {
			return !errors.Is(err, ErrDriverBusy)
		}
	}
	return false
}

// releaseTurn gives a turn back, even when the driver no longer holds the
// run (ReleaseStep is not fenced: it names the attempt).
func releaseTurn(ctx context.Context, p Pull, id, step string, attempt int, actor string) error {
	err := p.ReleaseStep(withoutDriver(context.WithoutCancel(ctx)), id, step, attempt, "driver "+actor+" stopped")
	if errors.Is(err, ErrInvalidTransition) || errors.Is(err, ErrRunFinished) {
		return nil
	}
	return err
}

// leadRules are what checkLeadOps needs to know of the run.
type leadRules struct {
	typ     Type
	lead    *RunMember // nil: a swarm without a lead
	members []RunMember
}

func (lr *leadRules) member(name string) (RunMember, bool) {
	for _, m := range lr.members {
		if m.Name == name || m.ID == name {
			return m, true
		}
	}
	return RunMember{}, false
}

// delegation reads the delegation section of an agent definition.
func delegation(def json.RawMessage) (teammanager.Delegation, bool) {
	var a struct {
		Delegation *struct {
			AllowDelegation bool     `json:"allow_delegation"`
			CanDelegateTo   []string `json:"can_delegate_to"`
			CanReceiveFrom  []string `json:"can_receive_from"`
		} `json:"delegation"`
	}
	if len(def) == 0 || json.Unmarshal(def, &a) != nil || a.Delegation == nil {
		return teammanager.Delegation{}, false
	}
	return teammanager.Delegation(*a.Delegation), true
}

// names reports whether one of names names member m (its name, id or last
// path segment).
func names(list []string, m RunMember) bool {
	for _, n := range list {
		if n == m.Name || n == m.ID || strings.HasSuffix(n, "/"+m.Name) {
			return true
		}
	}
	return false
}

// checkDelegation checks that the lead may hand work to m under their
// agent definitions' delegation rules.
func (lr *leadRules) checkDelegation(m RunMember) error {
	if dl, ok := delegation(lr.lead.Agent); ok {
		if !dl.AllowDelegation {
			return fmt.Errorf("%w: %s may not delegate work to %s: its definition does not allow delegation (allow_delegation: false)", teammanager.ErrNotAllowed, lr.lead.Name, m.Name)
		}
		if len(dl.CanDelegateTo) > 0 && !names(dl.CanDelegateTo, m) {
			return fmt.Errorf("%w: %s may not delegate work to %s: its can_delegate_to lists only %s", teammanager.ErrNotAllowed, lr.lead.Name, m.Name, strings.Join(dl.CanDelegateTo, ", "))
		}
	}
	if dl, ok := delegation(m.Agent); ok && len(dl.CanReceiveFrom) > 0 && !names(dl.CanReceiveFrom, *lr.lead) && !slices.Contains(dl.CanReceiveFrom, teammanager.LeadAgent) {
		return fmt.Errorf("%w: %s may not delegate work to %s: %s's can_receive_from lists only %s", teammanager.ErrNotAllowed, lr.lead.Name, m.Name, m.Name, strings.Join(dl.CanReceiveFrom, ", "))
	}
	return nil
}

// checkLeadOps checks every operation of a turn and returns every problem
// at once, wrapping ErrInvalidOutput (and teammanager.ErrNotAllowed for a
// refused delegation).
func (lr *leadRules) checkLeadOps(ops []LeadOp, tasks []teammanager.Task) error {
	var errs []error
	bad := func(i int, format string, a ...any) {
		errs = append(errs, fmt.Errorf("operation %d: %s", i+1, fmt.Sprintf(format, a...)))
	}
	refs := map[string]bool{}
	known := func(id string) bool {
		return refs[id] || slices.ContainsFunc(tasks, func(t teammanager.Task) bool { return t.ID == id })
	}
	dones, plans := 0, 0
	for i, op := range ops {
		switch op.Op {
		case OpCreate:
			if strings.TrimSpace(op.Subject) == "" {
				bad(i, "create: subject is required")
			}
			for _, bid := range op.BlockedBy {
				if !known(bid) {
					bad(i, "create: blocked_by %q is neither a task of the board nor the ref of a task created before it in this turn", bid)
				}
			}
			if op.Ref != "" {
				if known(op.Ref) {
					bad(i, "create: ref %q is already a task or ref", op.Ref)
				}
				refs[op.Ref] = true
			}
			if op.Assignee == "" {
				break
			}
			m, ok := lr.member(op.Assignee)
			switch {
			case !ok:
				bad(i, "create: assignee %q is not an agent of the run", op.Assignee)
			case lr.typ == Swarm:
				bad(i, "create: assignee %q: a swarm's tasks go to the shared queue, where members claim them: no assignee", op.Assignee)
			case m.Role == RoleLead:
				bad(i, "create: assignee %q is the lead: the lead plans, assigns and reviews, it takes no task (%v)", op.Assignee, teammanager.ErrNotAllowed)
			default:
				if err := lr.checkDelegation(m); err != nil {
					errs = append(errs, fmt.Errorf("operation %d: create: %w", i+1, err))
				}
			}
		case OpApprove, OpRetry, OpSkip, OpCancel, OpReject:
			if op.Task == "" {
				bad(i, "%s: task is required", op.Op)
			}
			if op.Op == OpReject && strings.TrimSpace(op.Feedback) == "" {
				bad(i, "reject: feedback is required")
			}
			if lr.lead == nil {
				bad(i, "%s: this swarm has no lead to %s tasks", op.Op, op.Op)
			}
		case OpDone:
			if dones++; dones > 1 {
				bad(i, "done: given twice")
			}
		case OpPlan:
			if plans++; plans > 1 {
				bad(i, "plan: given twice")
			}
			if strings.TrimSpace(op.Title) == "" {
				bad(i, "plan: title is required")
			}
			if len(op.Steps) == 0 {
				bad(i, "plan: steps are required")
			}
			for j, s := range op.Steps {
				if strings.TrimSpace(s.Title) == "" {
					bad(i, "plan: steps/%d: title is required", j)
				}
			}
			if lr.lead == nil {
				bad(i, "plan: this swarm has no lead to plan")
			}
		default:
			bad(i, "unknown op %q (want %s, %s, %s, %s, %s, %s, %s or %s)", op.Op, OpCreate, OpApprove, OpReject, OpRetry, OpSkip, OpCancel, OpPlan, OpDone)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: lead output:\n%w", ErrInvalidOutput, errors.Join(errs...))
	}
	return nil
}

// applyLeadOps checks a turn's operations and applies them as the lead, in
// one write of the board (Board.ApplyBoardOps), and returns the turn's
// outputs.
func applyLeadOps(ctx context.Context, b Board, r Run, team string, turn ReadyStep, tasks []teammanager.Task, ops []LeadOp) (map[string]any, error) {
	lr := &leadRules{typ: r.Type, members: turn.Members}
	for i := range turn.Members {
		if turn.Members[i].Role == RoleLead {
			lr.lead = &turn.Members[i]
		}
	}
	if err := lr.checkLeadOps(ops, tasks); err != nil {
		return nil, err
	}
	by := MemberID(turn.Step.Agent)
	out := map[string]any{TurnDone: false}
	// The board's operations, all applied in one write (ApplyBoardOps);
	// at[i] is the lead's operation of bops[i].
	var (
		bops []teammanager.BoardOp
		at   []int
	)
	for i, op := range ops {
		bop := teammanager.BoardOp{Op: op.Op, Task: op.Task, Feedback: op.Feedback, Reason: op.Reason}
		switch op.Op {
		case OpCreate:
			bop.Op, bop.Ref = teammanager.BoardOpCreate, op.Ref
			bop.New = teammanager.NewTask{Subject: op.Subject, Description: op.Description, Priority: op.Priority, BlockedBy: op.BlockedBy}
			if op.Assignee != "" {
				m, _ := lr.member(op.Assignee)
				bop.New.Assignee = m.ID
			}
		case OpApprove:
			bop.Op = teammanager.BoardOpApprove
		case OpReject:
			bop.Op = teammanager.BoardOpReject
		case OpRetry:
			bop.Op = teammanager.BoardOpRetry
		case OpSkip:
			bop.Op = teammanager.BoardOpSkip
		case OpCancel:
			bop.Op = teammanager.BoardOpCancel
		case OpPlan:
			// Drafted and submitted in the turn's write.
			bop.Op = teammanager.BoardOpPlan
			bop.Plan = teammanager.NewPlan{Title: op.Title, Steps: op.Steps, Submit: true}
		case OpDone:
			out[TurnDone], out[TurnSummary] = true, op.Summary
			continue
		}
		bops, at = append(bops, bop), append(at, i)
	}
	if out[TurnDone] == true && lr.lead != nil {
		// Done cancels the tasks still open, those of this turn too.
		bops = append(bops, teammanager.BoardOp{Op: teammanager.BoardOpCancelOpen, Reason: "the lead ended the run"})
		at = append(at, -1)
	}
	if len(bops) == 0 {
		return out, nil
	}
	if _, err := b.ApplyBoardOps(ctx, team, by, bops); err != nil {
		var oe *teammanager.BoardOpError
		switch {
		case !errors.As(err, &oe) || oe.Index < 0 || oe.Index >= len(at):
			return nil, fmt.Errorf("lead operations: %w", err)
		case at[oe.Index] < 0:
			return nil, fmt.Errorf("done: cancel the open tasks: %w", oe.Err)
		}
		return nil, fmt.Errorf("lead operation %d (%s): %w", at[oe.Index]+1, ops[at[oe.Index]].Op, oe.Err)
	}
	return out, nil
}
