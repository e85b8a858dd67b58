package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/teammanager"
)

// The methods below are those of api.TeamManager: each calls the JSON-RPC
// method of the same operation and has the contract of the
// teammanager.Manager method of the same name.

// CreateTeam creates a team (teams.create). tc.Timeout must be a whole
// number of seconds (or negative: none, 0: the server's default); another
// is an error matching teammanager.ErrInvalidTeam, and nothing is sent; so
// is a threshold of NaN or ±Inf, with the Manager's error.
func (c *Client) CreateTeam(ctx context.Context, tc teammanager.TeamConfig) (teammanager.Team, error) {
	p := api.TeamConfig{ID: tc.ID, Name: tc.Name, Strategy: tc.Strategy, Context: tc.Context,
		Threshold: tc.Threshold, TieBreaker: tc.TieBreaker, Members: []api.MemberConfig{}}
	if err := teamTextNotUTF8(tc); err != nil {
		return teammanager.Team{}, err
	}
	if math.IsNaN(tc.Threshold) || math.IsInf(tc.Threshold, 0) {
		// The Manager's error (JSON has no NaN: json.Marshal would fail).
		return teammanager.Team{}, fmt.Errorf("create team %q: %w: threshold %v not in [0, 1]", strings.TrimSpace(tc.Name), teammanager.ErrInvalidTeam, tc.Threshold)
	}
	switch {
	case tc.Timeout < 0:
		p.Timeout = -1
	case tc.Timeout%time.Second != 0:
		return teammanager.Team{}, fmt.Errorf("create team %q: %w: timeout %s is not a whole number of seconds", tc.Name, teammanager.ErrInvalidTeam, tc.Timeout)
	default:
		p.Timeout = int64(tc.Timeout / time.Second)
	}
	// Ids and a strategy that are not UTF-8 cannot be sent as they are
	// (JSON would carry U+FFFD for each bad byte). Each is sent as a value
	// the server refuses where and as the Manager refuses it: U+FFFD for
	// each bad byte (no id holds it), and more U+FFFD until no other text
	// of the call holds it, nor the name of a strategy (which may hold
	// U+FFFD: strategy "\xff" sent as "\ufffd" selected a strategy so
	// named). Its message is then made to name it as given, and nothing
	// else: a name "\ufffd" stays so.
	others := []string{tc.Name, tc.Context, tc.ID, tc.Strategy, tc.TieBreaker}
	for _, m := range tc.Members {
		others = append(others, m.AgentID, m.Role, m.Task)
	}
	if !utf8.ValidString(tc.Strategy) {
		names, err := c.Strategies(ctx)
		if err != nil {
			return teammanager.Team{}, err
		}
		others = append(others, names...)
	}
	var bad []sentAs
	sent := func(s string) string {
		if utf8.ValidString(s) {
			return s
		}
		for _, v := range bad {
			if v.given == s {
				return v.sent
			}
		}
		v := asSent(s)
		for slices.ContainsFunc(others, func(o string) bool { return strings.Contains(o, v) }) {
			v += "\ufffd"
		}
		bad = append(bad, sentAs{given: s, sent: v})
		return v
	}
	p.ID, p.Strategy, p.TieBreaker = sent(p.ID), sent(p.Strategy), sent(p.TieBreaker)
	for _, m := range tc.Members {
		p.Members = append(p.Members, api.MemberConfig{Agent: sent(m.AgentID), Role: m.Role, Task: m.Task, Critical: m.Critical})
	}
	var t api.Team
	if err := c.teamsCall(ctx, "teams.create", p, &t); err != nil {
		return teammanager.Team{}, valuesAsGiven(err, bad)
	}
	return teamOf(t), nil
}

// teamsCall is Call for the methods of api.TeamManager, which name a
// team: a server answers a call in a namespace that does not exist yet
// (no team was ever created in it) "no such namespace", where the
// Manager, whose namespace is then empty, says the team is unknown. Such
// an error matches teammanager.ErrUnknownTeam too.
func (c *Client) teamsCall(ctx context.Context, method string, params, result any) error {
	return c.freshCall(ctx, teammanager.ErrUnknownTeam, method, params, result)
}

// freshCall is Call for a method whose embedded Manager answers a call in
// a namespace that has nothing yet with sentinel (ErrUnknownTeam; for a
// snapshot by its id, which outlives its team, ErrUnknownSnapshot): a
// server's "no such namespace" matches it too.
func (c *Client) freshCall(ctx context.Context, sentinel error, method string, params, result any) error {
	err := c.Call(ctx, method, params, result)
	var e *Error
	if errors.As(err, &e) && errors.Is(err, cortex.ErrNoNamespace) && !errors.Is(err, sentinel) {
		cp := *e
		cp.Names = append(slices.Clip(e.Names), api.ErrorNames(sentinel)[0])
		return &cp
	}
	return err
}

// teamTextNotUTF8 returns the Manager's error for text of tc that is not
// valid UTF-8 (see textNotUTF8), which JSON cannot carry.
func teamTextNotUTF8(tc teammanager.TeamConfig) error {
	name := strings.TrimSpace(tc.Name)
	op := fmt.Sprintf("create team %q", name)
	if err := textNotUTF8(op, teammanager.ErrInvalidTeam, "name", name, "context", tc.Context); err != nil {
		return err
	}
	for _, m := range tc.Members {
		if !utf8.ValidString(m.Role) || !utf8.ValidString(m.Task) {
			return &textError{fmt.Errorf("%s: %w: agent %q: role or task is not valid UTF-8", op, teammanager.ErrInvalidTeam, m.AgentID)}
		}
	}
	return nil
}

// GetTeam returns a team (teams.get).
func (c *Client) GetTeam(ctx context.Context, id string) (teammanager.Team, error) {
	return c.teamCall(ctx, "teams.get", id)
}

// ListTeams lists teams, oldest first, without their members (teams.list).
func (c *Client) ListTeams(ctx context.Context, f teammanager.TeamFilter) ([]teammanager.Team, error) {
	var ts []api.Team
	if err := c.Call(ctx, "teams.list", map[string]string{"status": string(f.Status), "lifecycle": string(f.Lifecycle)}, &ts); err != nil {
		return nil, err
	}
	out := make([]teammanager.Team, 0, len(ts))
	for _, t := range ts {
		out = append(out, teamOf(t))
	}
	return out, nil
}

// DeleteTeam deletes a team with its findings and graphs (teams.delete).
func (c *Client) DeleteTeam(ctx context.Context, id string) error {
	return c.teamsCall(ctx, "teams.delete", map[string]string{"team": id}, nil)
}

// PauseTeam pauses an active team (teams.pause).
func (c *Client) PauseTeam(ctx context.Context, id string) (teammanager.Team, error) {
	return c.teamCall(ctx, "teams.pause", id)
}

// ResumeTeam resumes a paused team (teams.resume).
func (c *Client) ResumeTeam(ctx context.Context, id string) (teammanager.Team, error) {
	return c.teamCall(ctx, "teams.resume", id)
}

// DisbandTeam disbands a team (teams.disband).
func (c *Client) DisbandTeam(ctx context.Context, id string) (teammanager.Team, error) {
	return c.teamCall(ctx, "teams.disband", id)
}

// teamCall calls method with the team id and returns the team it answers.
func (c *Client) teamCall(ctx context.Context, method, id string) (teammanager.Team, error) {
	var t api.Team
	if err := c.teamsCall(ctx, method, map[string]string{"team": id}, &t); err != nil {
		return teammanager.Team{}, err
	}
	return teamOf(t), nil
}

// UpdateMemberStatus moves a member to status (teams.member_status).
// Unlike the embedded Manager, an update that finished the team but whose
// automatic merge failed returns only the error (the update itself is
// committed, as embedded; GetTeam shows it).
func (c *Client) UpdateMemberStatus(ctx context.Context, teamID, agentID string, status teammanager.Status, result string) (teammanager.MemberUpdate, error) {
	if status == "" && teamID != "" && agentID != "" {
		// The Manager's error (a server answers it too), without a call.
		return teammanager.MemberUpdate{}, fmt.Errorf("team %s: member %s: %w %q", teammanager.IDText(teamID), teammanager.IDText(agentID), teammanager.ErrInvalidStatus, status)
	}
	if status.Valid() && !utf8.ValidString(result) {
		// The Manager's error, which it checks before the team.
		return teammanager.MemberUpdate{}, &textError{fmt.Errorf("team %s: member %s: %w: result is not valid UTF-8", teammanager.IDText(teamID), teammanager.IDText(agentID), teammanager.ErrInvalidStatus)}
	}
	var up api.MemberStatus
	err := c.teamsCall(ctx, "teams.member_status", map[string]string{"team": teamID, "agent": agentID, "status": string(status), "result": result}, &up)
	if err != nil {
		return teammanager.MemberUpdate{}, err
	}
	out := teammanager.MemberUpdate{Team: up.Team, TeamStatus: teammanager.Status(up.TeamStatus), FailReason: up.FailReason, Member: memberOf(up.Member)}
	if up.Merge != nil {
		r, err := mergeReportOf(*up.Merge)
		if err != nil {
			return teammanager.MemberUpdate{}, err
		}
		out.Merge = &r
	}
	return out, nil
}

// MergeTeamResults merges the findings of a team's completed members
// (teams.merge).
func (c *Client) MergeTeamResults(ctx context.Context, teamID string) (teammanager.MergeReport, error) {
	var m api.Merge
	if err := c.teamsCall(ctx, "teams.merge", map[string]string{"team": teamID}, &m); err != nil {
		return teammanager.MergeReport{}, err
	}
	return mergeReportOf(m)
}

// IsTeamComplete reports whether a team is completed or failed
// (teams.is_complete).
func (c *Client) IsTeamComplete(ctx context.Context, id string) (bool, error) {
	var r api.TeamComplete
	if err := c.teamsCall(ctx, "teams.is_complete", map[string]string{"team": id}, &r); err != nil {
		return false, err
	}
	return r.Complete, nil
}

// findingParams is a finding as the JSON-RPC methods take it.
type findingParams struct {
	Subject    string     `json:"subject"`
	Predicate  string     `json:"predicate"`
	Object     string     `json:"object"`
	Confidence float64    `json:"confidence,omitempty"`
	AssertedAt *time.Time `json:"assertedAt,omitempty"`
}

// term writes v as the JSON-RPC methods read it ("" for nil, which the
// server refuses as missing), as the Manager stores it
// (cortex.NormalizeTerm: a quad.Time with its nanoseconds and zone, a
// LangString without a language as a plain literal), not as cayley
// formats it (a quad.Time to the second in UTC, "x"@). A term the store
// refuses is written as it is, for the server to refuse.
func term(v quad.Value) string {
	if v == nil {
		return ""
	}
	if n, err := cortex.NormalizeTerm(v); err == nil {
		v = n
	}
	return rdfio.FormatTerm(v)
}

// checkFinding refuses, as the embedded Manager does and before anything
// is sent, a finding it would refuse whatever the team
// (teammanager.CheckFinding): a triple that is not one (a missing term,
// an empty IRI), which through a server would be a missing or unreadable
// param, and a confidence or time that JSON cannot carry (NaN, ±Inf, a
// year after 9999), which json.Marshal would refuse.
func checkFinding(f teammanager.Finding) error {
	return teammanager.CheckFinding(f)
}

// encodable reports whether JSON can carry f's confidence and time: a
// finite confidence, and a year of UTC in 0000-9999 (json.Marshal
// refuses the others; findingParamsOf sends the time in UTC).
func encodable(f teammanager.Finding) bool {
	y := f.AssertedAt.UTC().Year()
	return !math.IsNaN(f.Confidence) && !math.IsInf(f.Confidence, 0) && y >= 0 && y <= 9999
}

// findingParamsOf returns f as params; its time in UTC, as the Manager
// keeps it (a time of year 9999 in UTC may be of year 10000 in its zone,
// which json.Marshal refuses).
func findingParamsOf(f teammanager.Finding) findingParams {
	p := findingParams{Subject: term(f.Subject), Predicate: term(f.Predicate), Object: term(f.Object), Confidence: f.Confidence}
	if !f.AssertedAt.IsZero() {
		at := f.AssertedAt.UTC()
		p.AssertedAt = &at
	}
	return p
}

// AddFinding records one finding of a member (findings.add) and returns
// its id.
func (c *Client) AddFinding(ctx context.Context, teamID, agentID string, f teammanager.Finding) (string, error) {
	if err := checkFinding(f); err != nil {
		return "", fmt.Errorf("team %s: agent %s: %w", teammanager.IDText(teamID), teammanager.IDText(agentID), err)
	}
	p := struct {
		Team  string `json:"team"`
		Agent string `json:"agent"`
		findingParams
	}{teamID, agentID, findingParamsOf(f)}
	var r api.FindingAdded
	if err := c.teamsCall(ctx, "findings.add", p, &r); err != nil {
		return "", err
	}
	return r.ID, nil
}

// AddFindings records findings of a member in one atomic write
// (findings.add_batch) and returns their ids, in order.
func (c *Client) AddFindings(ctx context.Context, teamID, agentID string, fs []teammanager.Finding) ([]string, error) {
	p := struct {
		Team     string          `json:"team"`
		Agent    string          `json:"agent"`
		Findings []findingParams `json:"findings"`
	}{teamID, agentID, make([]findingParams, 0, len(fs))}
	for i, f := range fs {
		if err := checkFinding(f); err != nil {
			return nil, fmt.Errorf("team %s: agent %s: finding %d of %d: %w", teammanager.IDText(teamID), teammanager.IDText(agentID), i+1, len(fs), err)
		}
		p.Findings = append(p.Findings, findingParamsOf(f))
	}
	var r struct {
		IDs []string `json:"ids"`
	}
	if err := c.teamsCall(ctx, "findings.add_batch", p, &r); err != nil {
		return nil, err
	}
	if r.IDs == nil {
		return []string{}, nil // the Manager's, for no findings
	}
	return r.IDs, nil
}

// Findings lists a team's findings, oldest first (findings.list). A term
// of f that is no well-formed RDF term is the Manager's error (matching
// cortex.ErrInvalidArgument), after the server has looked up the team and
// f's agent, as the Manager does.
func (c *Client) Findings(ctx context.Context, teamID string, f teammanager.FindingFilter) ([]teammanager.StoredFinding, error) {
	var fs []api.Finding
	p, termErr := filterParams(teamID, "findings", f.Agent, f.Subject, f.Predicate)
	if err := c.teamsCall(ctx, "findings.list", p, &fs); err != nil {
		return nil, err
	}
	if termErr != nil {
		return nil, termErr
	}
	out := make([]teammanager.StoredFinding, 0, len(fs))
	for _, fj := range fs {
		sf, err := storedFindingOf(fj)
		if err != nil {
			return nil, fmt.Errorf("findings.list: %w", err)
		}
		out = append(out, sf)
	}
	return out, nil
}

// filterStandIn is sent for a filter term of Findings or Facts that is no
// well-formed RDF term, which cannot be sent as it is: a well-formed IRI,
// so that the server looks up the team and the filter's agent, as the
// Manager does before it checks the terms; the answer is then dropped for
// the Manager's error for the term.
const filterStandIn = "<urn:cortex:client:malformed-filter-term>"

// filterParams returns the params of a listing of op ("findings" or
// "facts") with a filter of agent, subject and predicate (nil: any), and
// the Manager's error for a term of them that is malformed
// (teammanager.FilterTerms), which the call returns once the server has
// found the team and the agent; such a term is sent as filterStandIn.
func filterParams(teamID, op, agent string, subject, predicate quad.Value) (map[string]string, error) {
	_, _, termErr := teammanager.FilterTerms(teamID, op, subject, predicate)
	p := map[string]string{"team": teamID, "agent": agent}
	for name, v := range map[string]quad.Value{"subject": subject, "predicate": predicate} {
		switch {
		case v == nil:
		case termErr != nil:
			p[name] = filterStandIn
		default:
			p[name] = term(v)
		}
	}
	return p, termErr
}

// storedFindingOf returns the finding of fj.
func storedFindingOf(fj api.Finding) (teammanager.StoredFinding, error) {
	sf := teammanager.StoredFinding{ID: fj.ID, Agent: fj.Agent}
	var err error
	if sf.Subject, sf.Predicate, sf.Object, err = triple(fj.Subject, fj.Predicate, fj.Object); err != nil {
		return teammanager.StoredFinding{}, fmt.Errorf("finding %s: %w", fj.ID, err)
	}
	sf.Confidence, sf.AssertedAt = fj.Confidence, fj.AssertedAt
	return sf, nil
}

// ImportFindings records the findings of r, in format (teammanager.FindingsJSON,
// or an RDF format name), as a member's, in one atomic write
// (findings.import). r is read whole first; a format that names none
// (teammanager.FindingsFormat) and then a nil r are the Manager's errors
// (rdfio.ErrUnknownFormat, cortex.ErrInvalidArgument), and nothing is
// sent.
func (c *Client) ImportFindings(ctx context.Context, teamID, agentID string, r io.Reader, format string) (int, error) {
	if _, err := teammanager.FindingsFormat(format); err != nil {
		// (a server would say an empty format is missing)
		return 0, fmt.Errorf("import findings: team %s: agent %s: %w", teammanager.IDText(teamID), teammanager.IDText(agentID), err)
	}
	if r == nil {
		return 0, fmt.Errorf("import findings: team %s: agent %s: %w: nil reader", teammanager.IDText(teamID), teammanager.IDText(agentID), cortex.ErrInvalidArgument)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return 0, fmt.Errorf("import findings: %w", err)
	}
	var out api.FindingsImported
	p := map[string]string{"team": teamID, "agent": agentID, "format": format, "data": string(data)}
	if err := c.teamsCall(ctx, "findings.import", p, &out); err != nil {
		return 0, err
	}
	return out.Findings, nil
}

// Facts lists the fused facts of a team's last merge (facts.list). A
// term of f that is no well-formed RDF term is the Manager's error
// (matching cortex.ErrInvalidArgument), after the server has looked up
// the team and f's agent, as the Manager does.
func (c *Client) Facts(ctx context.Context, teamID string, f teammanager.FactFilter) ([]teammanager.Fact, error) {
	var fs []api.Fact
	p, termErr := filterParams(teamID, "facts", f.Agent, f.Subject, f.Predicate)
	if err := c.teamsCall(ctx, "facts.list", p, &fs); err != nil {
		return nil, err
	}
	if termErr != nil {
		return nil, termErr
	}
	out := make([]teammanager.Fact, 0, len(fs))
	for _, fj := range fs {
		mf, err := factOf(fj)
		if err != nil {
			return nil, fmt.Errorf("facts.list: %w", err)
		}
		out = append(out, teammanager.Fact{Fact: mf, MergeID: fj.MergeID})
	}
	return out, nil
}

// Conflicts lists a team's conflict records, open and resolved
// (conflicts.list).
func (c *Client) Conflicts(ctx context.Context, teamID string) ([]teammanager.Conflict, error) {
	var cs []api.Conflict
	if err := c.teamsCall(ctx, "conflicts.list", map[string]string{"team": teamID}, &cs); err != nil {
		return nil, err
	}
	out := make([]teammanager.Conflict, 0, len(cs))
	for _, cj := range cs {
		cf, err := conflictOf(cj)
		if err != nil {
			return nil, fmt.Errorf("conflicts.list: %w", err)
		}
		out = append(out, cf)
	}
	return out, nil
}

// conflictOf returns the conflict of cj.
func conflictOf(cj api.Conflict) (teammanager.Conflict, error) {
	cf := teammanager.Conflict{ID: cj.ID, Strategy: cj.Strategy, Reason: cj.Reason, DetectedAt: tv(cj.DetectedAt),
		Resolved: cj.Resolved, ResolvedBy: cj.ResolvedBy, ResolvedAt: tv(cj.ResolvedAt)}
	var err error
	if cf.Subject, cf.Predicate, err = topic(cj); err != nil {
		return teammanager.Conflict{}, err
	}
	for _, cd := range cj.Candidates {
		o, err := rdfio.ParseFormattedTerm(cd.Object)
		if err != nil {
			return teammanager.Conflict{}, fmt.Errorf("conflict %s: %w", cj.ID, err)
		}
		cf.Candidates = append(cf.Candidates, teammanager.Candidate{Object: o, Agents: cd.Agents, Findings: cd.Findings})
	}
	for _, s := range cj.Chosen {
		o, err := rdfio.ParseFormattedTerm(s)
		if err != nil {
			return teammanager.Conflict{}, fmt.Errorf("conflict %s: %w", cj.ID, err)
		}
		cf.Chosen = append(cf.Chosen, o)
	}
	return cf, nil
}

// ResolveConflict resolves a conflict to objects and re-merges the team
// (conflicts.resolve).
func (c *Client) ResolveConflict(ctx context.Context, teamID, conflictID string, objects []quad.Value, by string) (teammanager.MergeReport, error) {
	// The Manager's errors that it checks first, whatever the team (the
	// resolver, then the objects: a term JSON cannot carry, such as nil
	// or an empty IRI), before anything is sent.
	if err := teammanager.CheckResolution(conflictID, objects, by); err != nil {
		return teammanager.MergeReport{}, err
	}
	objs := make([]string, 0, len(objects))
	for _, o := range objects {
		objs = append(objs, term(o))
	}
	p := struct {
		Team     string   `json:"team"`
		Conflict string   `json:"conflict"`
		Objects  []string `json:"objects"`
		By       string   `json:"by"`
	}{teamID, conflictID, objs, by}
	var m api.Merge
	if err := c.teamsCall(ctx, "conflicts.resolve", p, &m); err != nil {
		return teammanager.MergeReport{}, err
	}
	return mergeReportOf(m)
}

// tv returns *t, or the zero time for nil.
func tv(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

func memberOf(m api.Member) teammanager.Member {
	return teammanager.Member{AgentID: m.Agent, Role: m.Role, Task: m.Task, Critical: m.Critical, Status: teammanager.Status(m.Status),
		JoinedAt: tv(m.JoinedAt), CompletedAt: tv(m.CompletedAt), Result: m.Result}
}

func teamOf(t api.Team) teammanager.Team {
	out := teammanager.Team{ID: t.ID, Name: t.Name, Context: t.Context, Strategy: t.Strategy, Status: teammanager.Status(t.Status),
		CreatedAt: tv(t.CreatedAt), StartedAt: tv(t.StartedAt), UpdatedAt: tv(t.UpdatedAt), CompletedAt: tv(t.CompletedAt),
		Timeout: api.SecondsDuration(t.Timeout), Threshold: t.Threshold, TieBreaker: t.TieBreaker,
		FailReason: t.FailReason, LastMerge: t.LastMerge, Merged: t.Merged, MergePending: t.MergePending, MergeError: t.MergeError,
		MergeErrorKind: t.MergeErrorKind, Lifecycle: teammanager.Lifecycle(t.Lifecycle), PausedAt: tv(t.PausedAt), PausedFor: api.SecondsDuration(t.PausedFor),
		DisbandedAt: tv(t.DisbandedAt)}
	for _, m := range t.Members {
		out.Members = append(out.Members, memberOf(m))
	}
	return out
}

// triple parses the N-Triples terms of a finding or fact.
func triple(s, p, o string) (quad.Value, quad.Value, quad.Value, error) {
	var vs [3]quad.Value
	for i, t := range []string{s, p, o} {
		v, err := rdfio.ParseFormattedTerm(t)
		if err != nil {
			return nil, nil, nil, err
		}
		vs[i] = v
	}
	return vs[0], vs[1], vs[2], nil
}

func topic(cj api.Conflict) (quad.Value, quad.Value, error) {
	s, err := rdfio.ParseFormattedTerm(cj.Subject)
	if err != nil {
		return nil, nil, fmt.Errorf("conflict %s: %w", cj.ID, err)
	}
	p, err := rdfio.ParseFormattedTerm(cj.Predicate)
	if err != nil {
		return nil, nil, fmt.Errorf("conflict %s: %w", cj.ID, err)
	}
	return s, p, nil
}

func factOf(fj api.Fact) (merge.Fact, error) {
	f := merge.Fact{Supporters: fj.Supporters, FindingIDs: fj.Findings, Confidence: fj.Confidence, ResolvedBy: fj.ResolvedBy}
	var err error
	if f.Subject, f.Predicate, f.Object, err = triple(fj.Subject, fj.Predicate, fj.Object); err != nil {
		return merge.Fact{}, fmt.Errorf("fact: %w", err)
	}
	return f, nil
}

func mergeReportOf(m api.Merge) (teammanager.MergeReport, error) {
	r := teammanager.MergeReport{Team: m.Team, MergeID: m.MergeID, Strategy: m.Strategy, Unchanged: m.Unchanged, Missing: m.Missing,
		Report: merge.Report{Topics: m.Topics, Kept: m.Kept, Conflicts: m.Conflicts, Ignored: m.Ignored, MergedAt: tv(m.MergedAt)}}
	for _, mm := range m.Members {
		r.Members = append(r.Members, merge.MemberReport{Agent: mm.Agent, Status: teammanager.Status(mm.Status),
			Contributed: mm.Contributed, Kept: mm.Kept, Ignored: mm.Ignored})
	}
	if m.Facts != nil { // [] as the Manager's, not nil
		r.Facts = make([]merge.Fact, 0, len(m.Facts))
	}
	// The JSON leaves out an empty list of open conflicts: the Manager's
	// strategies give an empty one, not nil.
	r.OpenConflicts = make([]merge.Conflict, 0, len(m.OpenConflicts))
	for _, fj := range m.Facts {
		f, err := factOf(fj)
		if err != nil {
			return teammanager.MergeReport{}, fmt.Errorf("merge report: %w", err)
		}
		r.Facts = append(r.Facts, f)
	}
	for _, cj := range m.OpenConflicts {
		cf := merge.Conflict{ID: cj.ID, Reason: cj.Reason}
		var err error
		if cf.Topic.Subject, cf.Topic.Predicate, err = topic(cj); err != nil {
			return teammanager.MergeReport{}, fmt.Errorf("merge report: %w", err)
		}
		for _, cd := range cj.Candidates {
			o, err := rdfio.ParseFormattedTerm(cd.Object)
			if err != nil {
				return teammanager.MergeReport{}, fmt.Errorf("merge report: conflict %s: %w", cj.ID, err)
			}
			cf.Candidates = append(cf.Candidates, merge.Candidate{Object: o, Agents: cd.Agents, FindingIDs: cd.Findings})
		}
		r.OpenConflicts = append(r.OpenConflicts, cf)
	}
	return r, nil
}
