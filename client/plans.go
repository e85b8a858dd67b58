package client

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/teammanager"
)

var _ api.TeamPlans = (*Client)(nil)

// DraftPlan drafts a revision of a team's plan (teams.plan.draft); with
// np.Submit it is submitted for review in the same write (param submit).
func (c *Client) DraftPlan(ctx context.Context, teamID, by string, np teammanager.NewPlan) (teammanager.Plan, error) {
	if planNotUTF8(np) {
		// JSON cannot carry it: the Manager's error, which it checks first.
		return teammanager.Plan{}, &textError{fmt.Errorf("team %s: draft plan: %w", teammanager.IDText(teamID), np.Validate())}
	}
	params := map[string]any{"team": teamID, "by": by, "title": np.Title, "steps": np.Steps}
	if np.Submit {
		// Sent only when set: a server without it refuses the param
		// rather than leave a draft.
		params["submit"] = true
	}
	return c.plan(ctx, "teams.plan.draft", params)
}

// SubmitPlan submits a team's draft plan for review (teams.plan.submit).
func (c *Client) SubmitPlan(ctx context.Context, teamID, by string) (teammanager.Plan, error) {
	return c.plan(ctx, "teams.plan.submit", map[string]any{"team": teamID, "by": by})
}

// ReviewPlan approves or rejects revision rev of a team's plan, which must
// be the latest (teams.plan.review), as teammanager.Manager.ReviewPlan
// does.
func (c *Client) ReviewPlan(ctx context.Context, teamID, by string, rev int, approve bool, feedback string) (teammanager.Plan, error) {
	if rev >= 1 && (approve || strings.TrimSpace(feedback) != "") {
		// The Manager checks it after the revision and a rejection's
		// blank feedback, before anything else.
		if err := textNotUTF8("team "+teammanager.IDText(teamID)+": review plan", teammanager.ErrInvalidPlan, "feedback", feedback); err != nil {
			return teammanager.Plan{}, err
		}
	} else if rev < 1 && !utf8.ValidString(feedback) {
		// The Manager refuses the revision first, whatever the feedback:
		// sent with U+FFFD in place of its bad bytes (JSON cannot carry them), so
		// that the server answers its error.
		feedback = strings.ToValidUTF8(feedback, "\uFFFD")
	}
	return c.plan(ctx, "teams.plan.review", map[string]any{"team": teamID, "by": by, "revision": rev, "approve": approve, "feedback": feedback})
}

// GetPlan returns a revision of a team's plan, 0 the latest (teams.plan.get).
func (c *Client) GetPlan(ctx context.Context, teamID string, rev int) (teammanager.Plan, error) {
	return c.plan(ctx, "teams.plan.get", map[string]any{"team": teamID, "revision": rev})
}

// PlanRevisions returns every revision of a team's plan (teams.plan.list).
func (c *Client) PlanRevisions(ctx context.Context, teamID string) ([]teammanager.Plan, error) {
	var out []teammanager.Plan
	if err := c.teamsCall(ctx, "teams.plan.list", map[string]any{"team": teamID}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// planNotUTF8 reports whether np holds text that is not valid UTF-8.
func planNotUTF8(np teammanager.NewPlan) bool {
	if !utf8.ValidString(np.Title) {
		return true
	}
	for _, s := range np.Steps {
		if !utf8.ValidString(s.Title) || !utf8.ValidString(s.Description) {
			return true
		}
	}
	return false
}

func (c *Client) plan(ctx context.Context, method string, params map[string]any) (teammanager.Plan, error) {
	var p teammanager.Plan
	if err := c.teamsCall(ctx, method, params, &p); err != nil {
		return teammanager.Plan{}, err
	}
	return p, nil
}

// SnapshotTeam takes a snapshot of a team (teams.snapshot.create).
func (c *Client) SnapshotTeam(ctx context.Context, teamID, note string) (teammanager.Snapshot, error) {
	// The Manager checks the note first.
	if err := textNotUTF8("team "+teammanager.IDText(teamID)+": snapshot", cortex.ErrInvalidArgument, "note", note); err != nil {
		return teammanager.Snapshot{}, err
	}
	var s teammanager.Snapshot
	if err := c.teamsCall(ctx, "teams.snapshot.create", map[string]any{"team": teamID, "note": note}, &s); err != nil {
		return teammanager.Snapshot{}, err
	}
	return s, nil
}

// Snapshots lists a team's snapshots (teams.snapshot.list), as
// teammanager.Manager.Snapshots does: a deleted team's too; an id that is
// neither a team of the namespace nor a team with snapshots matches
// teammanager.ErrUnknownTeam (kind not_found).
func (c *Client) Snapshots(ctx context.Context, teamID string) ([]teammanager.Snapshot, error) {
	var out []teammanager.Snapshot
	if err := c.teamsCall(ctx, "teams.snapshot.list", map[string]any{"team": teamID}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// GetSnapshot returns a snapshot of a team (teams.snapshot.get).
func (c *Client) GetSnapshot(ctx context.Context, teamID, id string) (teammanager.Snapshot, error) {
	return c.snapshot(ctx, "teams.snapshot.get", map[string]any{"team": teamID, "snapshot": id})
}

// RestoreSnapshot shows, or with apply writes, the restore of a team's
// snapshot (teams.snapshot.restore).
func (c *Client) RestoreSnapshot(ctx context.Context, teamID, id string, apply bool) (teammanager.SnapshotDiff, error) {
	var r api.SnapshotRestore
	if err := c.freshCall(ctx, teammanager.ErrUnknownSnapshot, "teams.snapshot.restore", map[string]any{"team": teamID, "snapshot": id, "apply": apply}, &r); err != nil {
		return teammanager.SnapshotDiff{}, err
	}
	d := teammanager.SnapshotDiff{Snapshot: r.Snapshot, Applied: r.Applied}
	for _, g := range r.Graphs {
		d.Graphs = append(d.Graphs, teammanager.GraphChange{Graph: quad.IRI(g.Graph), Add: g.Add, Remove: g.Remove})
	}
	for _, t := range r.Tables {
		d.Tables = append(d.Tables, teammanager.TableChange{Table: t.Table, Put: t.Put, Delete: t.Delete})
	}
	var err error
	if d.Add, err = quadsOf(r.Add); err != nil {
		return teammanager.SnapshotDiff{}, err
	}
	if d.Remove, err = quadsOf(r.Remove); err != nil {
		return teammanager.SnapshotDiff{}, err
	}
	return d, nil
}

// DeleteSnapshot deletes a snapshot of a team (teams.snapshot.delete).
func (c *Client) DeleteSnapshot(ctx context.Context, teamID, id string) error {
	return c.freshCall(ctx, teammanager.ErrUnknownSnapshot, "teams.snapshot.delete", map[string]any{"team": teamID, "snapshot": id}, nil)
}

func (c *Client) snapshot(ctx context.Context, method string, params map[string]any) (teammanager.Snapshot, error) {
	var s teammanager.Snapshot
	if err := c.freshCall(ctx, teammanager.ErrUnknownSnapshot, method, params, &s); err != nil {
		return teammanager.Snapshot{}, err
	}
	return s, nil
}

// quadsOf parses the quads of a restore.
func quadsOf(qs []api.Quad) ([]quad.Quad, error) {
	var out []quad.Quad // nil for none, as the Manager's
	for _, q := range qs {
		var vs [4]quad.Value
		for i, t := range []string{q.Subject, q.Predicate, q.Object, q.Graph} {
			if i == 3 && t == "" {
				break // the default graph
			}
			v, err := rdfio.ParseFormattedTerm(t)
			if err != nil {
				return nil, fmt.Errorf("restore: quad %v: %w", q, err)
			}
			vs[i] = v
		}
		out = append(out, quad.Quad{Subject: vs[0], Predicate: vs[1], Object: vs[2], Label: vs[3]})
	}
	return out, nil
}
