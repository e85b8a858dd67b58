package teammanager

import (
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/merge"
)

// Status is the lifecycle state of a team or member: pending, running,
// completed or failed.
type Status = merge.Status

// Statuses.
const (
	Pending   = merge.Pending
	Running   = merge.Running
	Completed = merge.Completed
	Failed    = merge.Failed
)

// ParseStatus returns the Status named s (lower case), or an error wrapping
// ErrInvalidStatus.
func ParseStatus(s string) (Status, error) {
	st := Status(s)
	if !st.Valid() {
		return "", errorf(ErrInvalidStatus, "%q (want pending, running, completed or failed)", s)
	}
	return st, nil
}

// Finished reports whether s is completed or failed.
func Finished(s Status) bool { return s == Completed || s == Failed }

// MemberConfig describes one member of a new team.
type MemberConfig struct {
	AgentID  string // required; unique within the team
	Role     string
	Task     string
	Critical bool // if the member fails, the team fails
}

// TeamConfig describes a new team.
type TeamConfig struct {
	// ID is the team id. Empty: a fresh random id, checked for collisions.
	// Given: 1..64 characters of [A-Za-z0-9._-]; taken ids fail with
	// ErrTeamExists.
	ID       string
	Name     string // required
	Strategy string // merge strategy; empty: the manager's default
	Members  []MemberConfig
	// Timeout is how long the team may run; 0 means the manager's workflow
	// timeout, a negative value no timeout.
	Timeout time.Duration
	Context string // free-form goal or instructions, stored as team:description
	// Threshold is the required agreement of majority-wins (0: more than
	// half); TieBreaker an agent id of the team whose choice breaks ties.
	Threshold  float64
	TieBreaker string
}

// Team is the state of a team.
type Team struct {
	ID          string
	Name        string
	Context     string
	Strategy    string
	Status      Status
	CreatedAt   time.Time
	StartedAt   time.Time     // zero until the first member starts
	UpdatedAt   time.Time     // last change to the team or one of its members
	CompletedAt time.Time     // zero until completed or failed
	Timeout     time.Duration // 0: none
	Threshold   float64
	TieBreaker  string
	// FailReason says why a failed team failed: FailTimeout,
	// FailCriticalMember or FailAllMembers; empty otherwise.
	FailReason string
	// LastMerge is the id of the merge run the shared graph holds, if any.
	LastMerge string
	// Merged reports whether the shared graph holds a merge of the team
	// (LastMerge) and no merge is due. It is false until a team is merged,
	// and from the moment a team finishes with completed members (with
	// auto-merge on) until its automatic merge has been written.
	Merged bool
	// MergePending says why the merge due since the team finished is not
	// done: MergeInterrupted (no attempt has ended: the process stopped
	// during it, or it is running right now), MergeFailed (the last
	// attempt failed; MergeError says why) or, from GetTeam only,
	// MergeTimeout (the team timed out and no write has recorded it yet).
	// Empty when no merge is due. The Manager retries it (see the package
	// documentation and ReadRetriesMerge).
	MergePending string
	// MergeError is the error of the last failed attempt at the due merge.
	MergeError string
	// MergeErrorKind is the kind of that failure (team:merge:errorKind):
	// MergeErrorKindTimeout (an automatic merge stopped at
	// AutoMergeTimeout: no retry point runs it again, MergeTeamResults
	// does) or MergeErrorKindError; empty when MergeError is. A failure
	// an older version recorded, without a kind, reads as a timeout when
	// its MergeError begins "automatic merge timed out", else as an error.
	MergeErrorKind string
	// Lifecycle is the team's led lifecycle state, derived from Status and
	// the pause and disband times (see Lifecycle).
	Lifecycle Lifecycle
	// PausedAt is when the team was paused; zero unless it is paused.
	PausedAt time.Time
	// PausedFor is how long the team was paused before its current pause
	// (if any): its timeout runs that much later.
	PausedFor time.Duration
	// DisbandedAt is when the team was disbanded; zero if it was not.
	DisbandedAt time.Time
	// Members, sorted by agent id. ListTeams leaves it nil.
	Members []Member
}

// Member is the state of one member.
type Member struct {
	AgentID     string
	Role        string
	Task        string
	Critical    bool
	Status      Status
	JoinedAt    time.Time
	CompletedAt time.Time // zero until completed or failed
	Result      string
}

// Member returns the member with the given agent id.
func (t *Team) Member(agentID string) (*Member, bool) {
	for i := range t.Members {
		if t.Members[i].AgentID == agentID {
			return &t.Members[i], true
		}
	}
	return nil, false
}

// TeamFilter selects teams in ListTeams. The zero value selects all.
type TeamFilter struct {
	Status    Status    // empty: any
	Lifecycle Lifecycle // empty: any
}

// Finding is one triple asserted by a member.
type Finding struct {
	Subject    quad.Value // IRI or blank node
	Predicate  quad.Value // IRI
	Object     quad.Value // any term
	Confidence float64    // in [0, 1]; 0 means unspecified (counts as 1 in merges)
	AssertedAt time.Time  // zero: now
}

// StoredFinding is a finding as stored, with its id and author.
type StoredFinding struct {
	ID    string
	Agent string
	Finding
}

// FindingFilter selects findings. The zero value selects all of the team.
type FindingFilter struct {
	Agent     string     // empty: every member
	Subject   quad.Value // nil: any
	Predicate quad.Value // nil: any
}

// MergeReport is the outcome of MergeTeamResults.
type MergeReport struct {
	Team      string
	MergeID   string // id of the merge run the shared graph now holds
	Strategy  string
	Unchanged bool // the result equals the last merge's; nothing of it was written
	// Facts are the fused facts, each with its confidence as stored:
	// rounded to the nearest 0.01 (see the package documentation).
	Facts []merge.Fact
	// OpenConflicts are the conflicts the strategy left undecided (their
	// number is Report.Conflicts); Conflicts lists the team's records.
	OpenConflicts []merge.Conflict
	// Missing lists, sorted, the members whose findings were not merged
	// because they had not completed: failed ones, and pending or running
	// ones (of a team that timed out, or merged before it finished). Their
	// findings are counted in Report.Ignored and MemberReport.Ignored.
	Missing []string
	merge.Report
}

// Fact is a fused fact as the team's last merge stored it (see Facts).
type Fact struct {
	merge.Fact
	MergeID string // the merge run that wrote it
}

// FactFilter selects facts in Facts. The zero value selects all.
type FactFilter struct {
	Subject   quad.Value // nil: any
	Predicate quad.Value // nil: any
	Agent     string     // empty: any; else the facts this member supports
}

// Conflict is a conflict record of a team.
type Conflict struct {
	ID         string
	Subject    quad.Value
	Predicate  quad.Value
	Strategy   string
	Reason     string
	DetectedAt time.Time
	Candidates []Candidate // sorted by object
	// Resolution, set once resolved.
	Resolved   bool
	ResolvedBy string
	ResolvedAt time.Time
	Chosen     []quad.Value // sorted; empty when resolved to nothing
}

// Candidate is one object proposed in a conflict. Objects are told apart as
// a merge tells them apart (merge.ObjectKey): findings of "a"@en and "a"@EN
// are one candidate, whose Object is the spelling that sorts first
// (merge.CompareTerms), as in the merge's own conflict.
type Candidate struct {
	Object   quad.Value
	Agents   []string // sorted
	Findings []string // finding ids, sorted
}
