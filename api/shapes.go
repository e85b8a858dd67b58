package api

import (
	"fmt"
	"math"
	"time"

	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/teammanager"
)

// The JSON shapes below are what cortexctl prints with --json and what the
// server's JSON-RPC methods return; field names are a public contract.
// Terms are N-Triples terms (rdfio.FormatTerm); times RFC 3339.

// TeamConfig is a team to create: the JSON5 file of cortexctl teams create
// --from and the params of JSON-RPC teams.create. Timeout is in seconds, -1
// for none, 0 for the configured default.
type TeamConfig struct {
	ID         string         `json:"id"`
	Name       string         `json:"name"`
	Strategy   string         `json:"strategy"`
	Context    string         `json:"context"`
	Timeout    int64          `json:"timeout"`
	Threshold  float64        `json:"threshold"`
	TieBreaker string         `json:"tieBreaker"`
	Members    []MemberConfig `json:"members"`
}

// MemberConfig is a member of a TeamConfig.
type MemberConfig struct {
	Agent    string `json:"agent"`
	Role     string `json:"role"`
	Task     string `json:"task"`
	Critical bool   `json:"critical"`
}

// TeamConfig returns c as the team manager takes it. A timeout below -1
// or too large for a time.Duration is an error matching ErrInvalid.
func (c TeamConfig) TeamConfig() (teammanager.TeamConfig, error) {
	timeout, err := Seconds(c.Timeout)
	if err != nil {
		return teammanager.TeamConfig{}, err
	}
	tc := teammanager.TeamConfig{
		ID: c.ID, Name: c.Name, Strategy: c.Strategy, Context: c.Context,
		Timeout: timeout, Threshold: c.Threshold, TieBreaker: c.TieBreaker,
	}
	for _, m := range c.Members {
		tc.Members = append(tc.Members, teammanager.MemberConfig{AgentID: m.Agent, Role: m.Role, Task: m.Task, Critical: m.Critical})
	}
	return tc, nil
}

// Seconds converts a timeout in seconds (-1: none) to a duration, refusing
// other negative values and values a time.Duration cannot hold (errors
// matching ErrInvalid).
func Seconds(n int64) (time.Duration, error) {
	if n == -1 {
		return -1, nil
	}
	if n < 0 {
		return 0, fmt.Errorf("%w: timeout %d s: want seconds ≥ 0, or -1 for none", ErrInvalid, n)
	}
	if n > int64(math.MaxInt64/time.Second) {
		return 0, fmt.Errorf("%w: timeout %d s is too large", ErrInvalid, n)
	}
	return time.Duration(n) * time.Second, nil
}

// Member is a team member.
type Member struct {
	Agent       string     `json:"agent"`
	Role        string     `json:"role"`
	Task        string     `json:"task,omitempty"`
	Status      string     `json:"status"`
	Critical    bool       `json:"critical,omitempty"`
	JoinedAt    *time.Time `json:"joinedAt,omitempty"`
	CompletedAt *time.Time `json:"completedAt,omitempty"`
	Result      string     `json:"result,omitempty"`
}

// Team is a team with its members (teams create, get, list).
type Team struct {
	ID          string     `json:"id"`
	Name        string     `json:"name"`
	Status      string     `json:"status"`
	Strategy    string     `json:"strategy"`
	Context     string     `json:"context,omitempty"`
	FailReason  string     `json:"failReason,omitempty"`
	CreatedAt   *time.Time `json:"createdAt,omitempty"`
	StartedAt   *time.Time `json:"startedAt,omitempty"`
	CompletedAt *time.Time `json:"completedAt,omitempty"`
	UpdatedAt   *time.Time `json:"updatedAt,omitempty"`
	Timeout     float64    `json:"timeout"` // seconds; 0 = none
	Threshold   float64    `json:"threshold,omitempty"`
	TieBreaker  string     `json:"tieBreaker,omitempty"`
	LastMerge   string     `json:"lastMerge,omitempty"`
	Members     []Member   `json:"members,omitempty"`

	// The led lifecycle: forming, active, paused, completed or disbanded;
	// when the team was paused (while it is) or disbanded, and how long it
	// was paused before (seconds).
	Lifecycle   string     `json:"lifecycle"`
	PausedAt    *time.Time `json:"pausedAt,omitempty"`
	PausedFor   float64    `json:"pausedFor,omitempty"`
	DisbandedAt *time.Time `json:"disbandedAt,omitempty"`

	// Merged, and why a finished team's due merge is not done:
	// "interrupted" or "failed" (then mergeError says why, and
	// mergeErrorKind is "timeout" for an automatic merge stopped at its
	// time bound, "error" otherwise).
	Merged         bool   `json:"merged"`
	MergePending   string `json:"mergePending,omitempty"`
	MergeError     string `json:"mergeError,omitempty"`
	MergeErrorKind string `json:"mergeErrorKind,omitempty"`
}

// TeamDeleted is the result of teams delete.
type TeamDeleted struct {
	Team    string `json:"team"`
	Deleted bool   `json:"deleted"`
}

// TeamComplete is the result of JSON-RPC teams.is_complete.
type TeamComplete struct {
	Team     string `json:"team"`
	Complete bool   `json:"complete"`
}

// MemberStatus is the result of teams member-status: the member as
// updated, the team's status, and the merge the update ran, if any.
type MemberStatus struct {
	Team       string `json:"team"`
	TeamStatus string `json:"teamStatus"`
	FailReason string `json:"failReason,omitempty"`
	Member     Member `json:"member"`
	Merge      *Merge `json:"merge,omitempty"`
}

// MergeMember is a member's part in a merge.
type MergeMember struct {
	Agent       string `json:"agent"`
	Status      string `json:"status"`
	Contributed int    `json:"contributed"`
	Kept        int    `json:"kept"`
	Ignored     int    `json:"ignored"`
}

// Merge is a merge report (teams merge, conflicts resolve).
type Merge struct {
	Team      string        `json:"team"`
	MergeID   string        `json:"mergeId"`
	Strategy  string        `json:"strategy"`
	Unchanged bool          `json:"unchanged"`
	Topics    int           `json:"topics"`
	Kept      int           `json:"kept"`
	Conflicts int           `json:"conflicts"`
	Ignored   int           `json:"ignored"`
	Missing   []string      `json:"missing,omitempty"`
	MergedAt  *time.Time    `json:"mergedAt,omitempty"`
	Members   []MergeMember `json:"members"`
	Facts     []Fact        `json:"facts"`
	// OpenConflicts are the conflicts the strategy left undecided (their
	// number is Conflicts): id, subject, predicate, reason, strategy and
	// candidates.
	OpenConflicts []Conflict `json:"openConflicts,omitempty"`
}

// Fact is a fused fact: in a merge report, whose mergeId is the report's,
// and in facts list, with the merge run that wrote it.
type Fact struct {
	Subject    string   `json:"subject"`
	Predicate  string   `json:"predicate"`
	Object     string   `json:"object"`
	Supporters []string `json:"supporters"`
	Findings   []string `json:"findings"`
	Confidence float64  `json:"confidence"`
	ResolvedBy string   `json:"resolvedBy,omitempty"`
	MergeID    string   `json:"mergeId,omitempty"` // facts list only
}

// Finding is a stored finding (findings list); findings import reads the
// same shape back (id and agent ignored).
type Finding struct {
	ID         string    `json:"id"`
	Agent      string    `json:"agent"`
	Subject    string    `json:"subject"`
	Predicate  string    `json:"predicate"`
	Object     string    `json:"object"`
	Confidence float64   `json:"confidence"`
	AssertedAt time.Time `json:"assertedAt"`
}

// FindingAdded is the result of findings add.
type FindingAdded struct {
	ID string `json:"id"`
}

// FindingsImported is the result of findings import (File is cortexctl's
// only: the server reads the findings from the request).
type FindingsImported struct {
	Team     string `json:"team"`
	Agent    string `json:"agent"`
	File     string `json:"file,omitempty"`
	Findings int    `json:"findings"`
}

// Candidate is an object a conflict's agents proposed.
type Candidate struct {
	Object   string   `json:"object"`
	Agents   []string `json:"agents"`
	Findings []string `json:"findings"`
}

// Conflict is a conflict a merge left, open or resolved (conflicts list).
type Conflict struct {
	ID         string      `json:"id"`
	Subject    string      `json:"subject"`
	Predicate  string      `json:"predicate"`
	Reason     string      `json:"reason"`
	Strategy   string      `json:"strategy"`
	DetectedAt *time.Time  `json:"detectedAt,omitempty"`
	Candidates []Candidate `json:"candidates"`
	Resolved   bool        `json:"resolved"`
	ResolvedBy string      `json:"resolvedBy,omitempty"`
	ResolvedAt *time.Time  `json:"resolvedAt,omitempty"`
	Chosen     []string    `json:"chosen,omitempty"`
}

// Namespace is a namespace of the store (namespaces list).
type Namespace struct {
	Name  string `json:"name"`
	Base  string `json:"base"`
	Quads int64  `json:"quads"`
}

// tp returns &t, or nil for the zero time (omitted from JSON).
func tp(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// MemberOf returns the JSON shape of mb.
func MemberOf(mb teammanager.Member) Member {
	return Member{Agent: mb.AgentID, Role: mb.Role, Task: mb.Task, Status: string(mb.Status), Critical: mb.Critical,
		JoinedAt: tp(mb.JoinedAt), CompletedAt: tp(mb.CompletedAt), Result: mb.Result}
}

// TeamOf returns the JSON shape of t.
func TeamOf(t teammanager.Team) Team {
	out := Team{ID: t.ID, Name: t.Name, Status: string(t.Status), Strategy: t.Strategy, Context: t.Context,
		FailReason: t.FailReason, CreatedAt: tp(t.CreatedAt), StartedAt: tp(t.StartedAt), CompletedAt: tp(t.CompletedAt),
		UpdatedAt: tp(t.UpdatedAt), Timeout: t.Timeout.Seconds(), Threshold: t.Threshold, TieBreaker: t.TieBreaker, LastMerge: t.LastMerge,
		Merged: t.Merged, MergePending: t.MergePending, MergeError: t.MergeError, MergeErrorKind: t.MergeErrorKind,
		Lifecycle: string(t.Lifecycle), PausedAt: tp(t.PausedAt), PausedFor: t.PausedFor.Seconds(), DisbandedAt: tp(t.DisbandedAt)}
	for _, mb := range t.Members {
		out.Members = append(out.Members, MemberOf(mb))
	}
	return out
}

// MemberStatusOf returns the JSON shape of up.
func MemberStatusOf(up teammanager.MemberUpdate) MemberStatus {
	out := MemberStatus{Team: up.Team, TeamStatus: string(up.TeamStatus), FailReason: up.FailReason, Member: MemberOf(up.Member)}
	if up.Merge != nil {
		m := MergeOf(*up.Merge)
		out.Merge = &m
	}
	return out
}

// MergeOf returns the JSON shape of r.
func MergeOf(r teammanager.MergeReport) Merge {
	out := Merge{Team: r.Team, MergeID: r.MergeID, Strategy: r.Strategy, Unchanged: r.Unchanged, Topics: r.Topics,
		Kept: r.Kept, Conflicts: r.Report.Conflicts, Ignored: r.Ignored, Missing: r.Missing, MergedAt: tp(r.MergedAt),
		Members: []MergeMember{}, Facts: []Fact{}}
	for _, m := range r.Members {
		out.Members = append(out.Members, MergeMember{Agent: m.Agent, Status: string(m.Status), Contributed: m.Contributed, Kept: m.Kept, Ignored: m.Ignored})
	}
	for _, f := range r.Facts {
		out.Facts = append(out.Facts, FactOf(f, ""))
	}
	for _, cf := range r.OpenConflicts {
		cj := Conflict{ID: cf.ID, Subject: rdfio.FormatTerm(cf.Topic.Subject), Predicate: rdfio.FormatTerm(cf.Topic.Predicate),
			Reason: cf.Reason, Strategy: r.Strategy, Candidates: []Candidate{}}
		for _, cd := range cf.Candidates {
			cj.Candidates = append(cj.Candidates, Candidate{Object: rdfio.FormatTerm(cd.Object), Agents: cd.Agents, Findings: cd.FindingIDs})
		}
		out.OpenConflicts = append(out.OpenConflicts, cj)
	}
	return out
}

// FactOf returns the JSON shape of f, written by merge run mergeID ("" in
// a merge report).
func FactOf(f merge.Fact, mergeID string) Fact {
	return Fact{Subject: rdfio.FormatTerm(f.Subject), Predicate: rdfio.FormatTerm(f.Predicate), Object: rdfio.FormatTerm(f.Object),
		Supporters: f.Supporters, Findings: f.FindingIDs, Confidence: f.Confidence, ResolvedBy: f.ResolvedBy, MergeID: mergeID}
}

// FactsOf returns the JSON shapes of fs (never nil).
func FactsOf(fs []teammanager.Fact) []Fact {
	out := make([]Fact, 0, len(fs))
	for _, f := range fs {
		out = append(out, FactOf(f.Fact, f.MergeID))
	}
	return out
}

// FindingsOf returns the JSON shapes of fs (never nil).
func FindingsOf(fs []teammanager.StoredFinding) []Finding {
	out := make([]Finding, 0, len(fs))
	for _, f := range fs {
		out = append(out, Finding{ID: f.ID, Agent: f.Agent, Subject: rdfio.FormatTerm(f.Subject),
			Predicate: rdfio.FormatTerm(f.Predicate), Object: rdfio.FormatTerm(f.Object), Confidence: f.Confidence, AssertedAt: f.AssertedAt})
	}
	return out
}

// ConflictsOf returns the JSON shapes of cs (never nil), only the open
// ones if openOnly.
func ConflictsOf(cs []teammanager.Conflict, openOnly bool) []Conflict {
	out := make([]Conflict, 0, len(cs))
	for _, cf := range cs {
		if openOnly && cf.Resolved {
			continue
		}
		cj := Conflict{ID: cf.ID, Subject: rdfio.FormatTerm(cf.Subject), Predicate: rdfio.FormatTerm(cf.Predicate),
			Reason: cf.Reason, Strategy: cf.Strategy, DetectedAt: tp(cf.DetectedAt), Candidates: []Candidate{},
			Resolved: cf.Resolved, ResolvedBy: cf.ResolvedBy, ResolvedAt: tp(cf.ResolvedAt)}
		for _, cd := range cf.Candidates {
			cj.Candidates = append(cj.Candidates, Candidate{Object: rdfio.FormatTerm(cd.Object), Agents: cd.Agents, Findings: cd.Findings})
		}
		for _, o := range cf.Chosen {
			cj.Chosen = append(cj.Chosen, rdfio.FormatTerm(o))
		}
		out = append(out, cj)
	}
	return out
}
