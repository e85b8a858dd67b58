package teammanager

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/internal/ctxcause"
	ns "github.com/cortexgraph/cortex/namespace"
)

// Lifecycle is a team's led lifecycle, beside the status its members drive
// (see "Lifecycle" in the package documentation):
//
//	forming → active ⇄ paused
//	forming | active → completed
//	forming | active | paused → disbanded
//
// Forming, active and completed follow the team's status (pending, running,
// completed or failed); paused and disbanded are set by PauseTeam,
// ResumeTeam and DisbandTeam. CanTransition is the one table of the moves.
type Lifecycle string

// Lifecycle states.
const (
	LifecycleForming   Lifecycle = "forming"   // status pending: no member has started
	LifecycleActive    Lifecycle = "active"    // status running
	LifecyclePaused    Lifecycle = "paused"    // status running, paused by PauseTeam
	LifecycleCompleted Lifecycle = "completed" // status completed or failed
	LifecycleDisbanded Lifecycle = "disbanded" // disbanded by DisbandTeam: read-only until deleted
)

// lifecycleMoves is the table of CanTransition.
var lifecycleMoves = map[Lifecycle][]Lifecycle{
	LifecycleForming: {LifecycleActive, LifecycleCompleted, LifecycleDisbanded},
	LifecycleActive:  {LifecyclePaused, LifecycleCompleted, LifecycleDisbanded},
	LifecyclePaused:  {LifecycleActive, LifecycleDisbanded},
}

// CanTransition reports whether a team may move from lifecycle state from to
// to. Completed and disbanded are final.
func CanTransition(from, to Lifecycle) bool {
	return slices.Contains(lifecycleMoves[from], to)
}

// Valid reports whether l is one of the five lifecycle states.
func (l Lifecycle) Valid() bool {
	switch l {
	case LifecycleForming, LifecycleActive, LifecyclePaused, LifecycleCompleted, LifecycleDisbanded:
		return true
	}
	return false
}

// ParseLifecycle returns the Lifecycle named s (lower case), or an error
// wrapping ErrInvalidStatus.
func ParseLifecycle(s string) (Lifecycle, error) {
	l := Lifecycle(s)
	if !l.Valid() {
		return "", errorf(ErrInvalidStatus, "lifecycle %q (want forming, active, paused, completed or disbanded)", s)
	}
	return l, nil
}

// lifecycleOf returns the lifecycle state of t from its status and its
// pause and disband times.
func lifecycleOf(t *Team) Lifecycle {
	switch {
	case !t.DisbandedAt.IsZero():
		return LifecycleDisbanded
	case Finished(t.Status):
		return LifecycleCompleted
	case !t.PausedAt.IsZero():
		return LifecyclePaused
	case t.Status == Running:
		return LifecycleActive
	}
	return LifecycleForming
}

// LifecycleError reports a refused lifecycle move. It matches
// ErrInvalidTransition.
type LifecycleError struct {
	Team     string
	From, To Lifecycle
}

func (e *LifecycleError) Error() string {
	return fmt.Sprintf("team %s: %v: %s → %s", IDText(e.Team), ErrInvalidTransition, e.From, e.To)
}

// Unwrap returns ErrInvalidTransition.
func (e *LifecycleError) Unwrap() error { return ErrInvalidTransition }

// checkWorking returns nil if t's lifecycle lets its members work (update
// their status, add findings): not while it is paused or disbanded.
func checkWorking(t *Team) error {
	switch t.Lifecycle {
	case LifecyclePaused:
		return fmt.Errorf("team %s is paused since %s (ResumeTeam): %w", t.ID, t.PausedAt.Format(time.RFC3339), ErrTeamPaused)
	case LifecycleDisbanded:
		return fmt.Errorf("team %s: %w at %s; its graphs are read-only", t.ID, ErrTeamDisbanded, t.DisbandedAt.Format(time.RFC3339))
	}
	return nil
}

// PauseTeam pauses an active team: until ResumeTeam, its members' status
// updates and findings are refused with ErrTeamPaused, and its timeout
// clock stops (the time paused is added to its deadline). Reads, queries
// and merges go on. A team that is not active fails with a *LifecycleError
// (ErrInvalidTransition); one that has timed out records it and fails with
// ErrTeamFinished. The change is one atomic write with its team.status
// event.
func (m *Manager) PauseTeam(ctx context.Context, id string) (Team, error) {
	return m.moveLifecycle(ctx, id, LifecyclePaused, func(t *Team, now time.Time) { t.PausedAt = now })
}

// ResumeTeam makes a paused team active again; see PauseTeam. A team that
// is not paused fails with a *LifecycleError: forming → active is its
// members' move (the first of them running), not ResumeTeam's.
func (m *Manager) ResumeTeam(ctx context.Context, id string) (Team, error) {
	return m.moveLifecycle(ctx, id, LifecycleActive, func(t *Team, now time.Time) {
		t.PausedFor += now.Sub(t.PausedAt)
		t.PausedAt = time.Time{}
	})
}

// DisbandTeam disbands a team that is forming, active or paused: it keeps
// its graphs, read-only — member updates, findings, merges and conflict
// resolutions are refused with ErrTeamDisbanded — until DeleteTeam removes
// it. No merge runs. A completed team is not disbanded (it may be deleted
// as it is).
func (m *Manager) DisbandTeam(ctx context.Context, id string) (Team, error) {
	return m.moveLifecycle(ctx, id, LifecycleDisbanded, func(t *Team, now time.Time) {
		if !t.PausedAt.IsZero() {
			t.PausedFor += now.Sub(t.PausedAt)
			t.PausedAt = time.Time{}
		}
		t.DisbandedAt = now
	})
}

// moveLifecycle moves team id to lifecycle state to, applying set to the
// team, in one atomic write with its team.status event.
//
// It holds the team's merge lock for the write, so that a merge or a
// conflict resolution of the team is entirely before or after it (a
// disbanded team is neither merged nor resolved); a merge that the write
// makes due (it recorded a timeout) runs after the lock is released.
func (m *Manager) moveLifecycle(ctx context.Context, id string, to Lifecycle, set func(t *Team, now time.Time)) (_ Team, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	mu := m.mergeLock(id)
	mu.Lock()
	// Every member is read in full (focus ""), not only the status and
	// criticality the write needs: the team returned is the whole team.
	st, timedOut, err := m.write(ctx, id, "", func(st *teamState, _ *cortex.Tx, now time.Time) error {
		t := &st.team
		// ResumeTeam (to active) moves a paused team only: a forming team
		// has no pause to end (and no PausedAt to count from).
		if !CanTransition(t.Lifecycle, to) || to == LifecycleActive && t.Lifecycle != LifecyclePaused {
			if t.Lifecycle == LifecycleCompleted {
				return fmt.Errorf("team %s is %s: %w", IDText(id), t.Status, ErrTeamFinished)
			}
			return &LifecycleError{Team: id, From: t.Lifecycle, To: to}
		}
		set(t, now)
		t.UpdatedAt = now
		m.writeTeamStatus(st)
		st.events = append(st.events, statusEvent(t))
		return nil
	})
	mu.Unlock()
	st, _, err = m.afterWrite(ctx, id, st, timedOut, err)
	if err != nil {
		return Team{}, err
	}
	return st.team, nil
}

// writeLifecycle stages the team node's lifecycle fields from st.team,
// deriving its Lifecycle first.
func (m *Manager) writeLifecycle(st *teamState) {
	x := m.ns
	t := &st.team
	t.Lifecycle = lifecycleOf(t)
	st.set(st.node, x.IRI(ns.TeamLifecycle), ns.String(string(t.Lifecycle)))
	st.setTime(st.node, ns.TeamPausedAt, t.PausedAt, x)
	st.setTime(st.node, ns.TeamDisbandedAt, t.DisbandedAt, x)
	if t.PausedFor > 0 {
		st.set(st.node, x.IRI(ns.TeamPausedFor), ns.Duration(t.PausedFor))
	} else {
		st.set(st.node, x.IRI(ns.TeamPausedFor), nil)
	}
}
