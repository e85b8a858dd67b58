package teammanager

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Delegation rules.
//
// An agent definition (package spec, stored by package defstore) may say
// whom its agent delegates work to: allow_delegation, can_delegate_to,
// can_receive_from. The board enforces them on the two ways one member
// hands work to another: a delegate_work message (SendMessage) and the
// assignment of a task by a member other than the assignee (CreateTask,
// UpdateTask). Self-claims (ClaimTask, ClaimNext) and the board's own
// dispatch (DispatchUnblocked) are no one's delegation and are not
// checked.
//
// The team manager does not read definitions itself: it knows teams by
// their members' agent ids, and definitions live in another package that
// hosts may or may not use. The host gives the Manager a DelegationFunc
// (Config.WithDelegation) that maps a member to its rules, typically read
// from a defstore.Store; with none, nothing is checked. The func is called
// before the write it guards, outside the board's batch, so it may read
// the store (or the Manager) freely; it must be safe for concurrent use.

// Delegation is a member's delegation rules, as its agent definition gives
// them (spec.Delegation). Names in CanDelegateTo and CanReceiveFrom match a
// member whose agent id is the name, or its last path segment (a definition
// "security/scanner" names the member "scanner"); in CanReceiveFrom, "lead"
// (spec.LeadAgent) also names the board's lead.
type Delegation struct {
	// AllowDelegation lets the member delegate work at all.
	AllowDelegation bool
	// CanDelegateTo lists the members it may delegate to; empty: any.
	CanDelegateTo []string
	// CanReceiveFrom lists the members it accepts work from; empty: any.
	CanReceiveFrom []string
}

// DelegationFunc returns the delegation rules of member agent of team
// team, and whether it has any: found false (no definition, or one
// without a delegation section) puts no restriction on the member, either
// as delegator or as receiver. An error fails the guarded call.
type DelegationFunc func(ctx context.Context, team, agent string) (_ Delegation, found bool, _ error)

// WithDelegation makes the Manager enforce the delegation rules that fn
// returns (see Delegation). Default: none, nothing is checked.
func (c Config) WithDelegation(fn DelegationFunc) Config { c.delegation = fn; return c }

// LeadAgent names the board's lead in Delegation.CanReceiveFrom.
const LeadAgent = "lead"

// DelegationError is a refused delegation: From may not hand work to To.
// It matches ErrNotAllowed.
type DelegationError struct {
	Team, From, To string
	Reason         string // which rule refused it
}

func (e *DelegationError) Error() string {
	return fmt.Sprintf("%s: %s may not delegate work to %s: %s", ErrNotAllowed, e.From, e.To, e.Reason)
}

func (e *DelegationError) Unwrap() error { return ErrNotAllowed }

// delegationRules are the rules of the members a call may check, looked
// up before its write: agent → rules (nil: none).
type delegationRules map[string]*Delegation

// delegationRules looks up the rules of agents in team, if the Manager
// has a DelegationFunc (else it returns nil: nothing to check).
func (m *Manager) delegationRules(ctx context.Context, team string, agents ...string) (delegationRules, error) {
	if m.cfg.delegation == nil {
		return nil, nil
	}
	out := delegationRules{}
	for _, a := range agents {
		if _, done := out[a]; done || a == "" {
			continue
		}
		d, found, err := m.cfg.delegation(ctx, team, a)
		if err != nil {
			return nil, teamErr(team, "delegation rules of "+IDText(a), err)
		}
		if found {
			out[a] = &d
		} else {
			out[a] = nil
		}
	}
	return out, nil
}

// check returns a *DelegationError if from may not hand work to to on
// st's board. A nil set checks nothing; handing work to oneself is not
// delegation.
func (r delegationRules) check(st *boardState, team, from, to string) error {
	if r == nil || from == to {
		return nil
	}
	refuse := func(format string, a ...any) error {
		return &DelegationError{Team: team, From: from, To: to, Reason: fmt.Sprintf(format, a...)}
	}
	dr, ok1 := r[from]
	tr, ok2 := r[to]
	if !ok1 || !ok2 {
		// Looked up for other members: the team changed since.
		return refuse("the team's members changed while the call ran; try again")
	}
	if dr != nil {
		if !dr.AllowDelegation {
			return refuse("%s's definition does not allow delegation (allow_delegation: false)", from)
		}
		if len(dr.CanDelegateTo) > 0 && !namesMember(dr.CanDelegateTo, to) {
			return refuse("%s's can_delegate_to lists only %s", from, strings.Join(dr.CanDelegateTo, ", "))
		}
	}
	if tr != nil && len(tr.CanReceiveFrom) > 0 && !namesMember(tr.CanReceiveFrom, from) &&
		!(from == st.Settings.Lead && slices.Contains(tr.CanReceiveFrom, LeadAgent)) {
		return refuse("%s's can_receive_from lists only %s", to, strings.Join(tr.CanReceiveFrom, ", "))
	}
	return nil
}

// namesMember reports whether one of names names member agent.
func namesMember(names []string, agent string) bool {
	for _, n := range names {
		if n == agent || strings.HasSuffix(n, "/"+agent) {
			return true
		}
	}
	return false
}
