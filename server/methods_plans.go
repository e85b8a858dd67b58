package server

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/teammanager"
)

// The plan methods (teams.plan.*) and the snapshot methods
// (teams.snapshot.*). Results: plans and snapshots in their own JSON
// (teammanager.Plan, teammanager.Snapshot), restores as
// api.SnapshotRestore.

// planParams are the params of the plan methods: each decodes its own
// struct (planDraftParams, ...), so that a key it does not read is refused
// as unknown rather than ignored.
type planParams struct {
	Team string `json:"team"`
}

// by is required (absent: a usage error) but may be empty: an empty by is
// no one, not the lead nor the approver, the Manager's ErrNotAllowed, as
// in process (package client sends it as given).
type planDraftParams struct {
	Team  string                 `json:"team"`
	By    *string                `json:"by"`
	Title string                 `json:"title"`
	Steps []teammanager.PlanStep `json:"steps"`
	// Submit submits the revision in the same write
	// (teammanager.NewPlan.Submit).
	Submit bool `json:"submit"`
}

type planSubmitParams struct {
	Team string  `json:"team"`
	By   *string `json:"by"`
}

// planReviewParams: revision is required, the revision the reviewer read
// (it must be the latest: teammanager.Manager.ReviewPlan); approve is
// required, as teams.task.review's (true approves, false rejects).
type planReviewParams struct {
	Team     string  `json:"team"`
	By       *string `json:"by"`
	Revision *int    `json:"revision"`
	Approve  *bool   `json:"approve"`
	Feedback string  `json:"feedback"`
}

type planGetParams struct {
	Team     string `json:"team"`
	Revision int    `json:"revision"` // 0 or none: the latest
}

func plansDraft(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p planDraftParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requiredBy(params, p.Team, p.By); err != nil {
		return nil, err
	}
	return c.m.DraftPlan(ctx, p.Team, *p.By, teammanager.NewPlan{Title: p.Title, Steps: p.Steps, Submit: p.Submit})
}

func plansSubmit(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p planSubmitParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requiredBy(params, p.Team, p.By); err != nil {
		return nil, err
	}
	return c.m.SubmitPlan(ctx, p.Team, *p.By)
}

func plansReview(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p planReviewParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requiredBy(params, p.Team, p.By); err != nil {
		return nil, err
	}
	switch {
	case p.Revision == nil:
		return nil, fmt.Errorf(`%w: params: "revision" is required: the revision reviewed`, api.ErrUsage)
	case p.Approve == nil:
		return nil, fmt.Errorf(`%w: params: "approve" is required (true approves, false rejects)`, api.ErrUsage)
	}
	return c.m.ReviewPlan(ctx, p.Team, *p.By, *p.Revision, *p.Approve, p.Feedback)
}

// requiredBy checks the team and by params of a plan write: both given,
// by possibly empty (see planDraftParams).
func requiredBy(params json.RawMessage, team string, by *string) error {
	if err := requiredGiven(params, "team", team); err != nil {
		return err
	}
	if by == nil {
		return fmt.Errorf(`%w: params: "by" is required: who acts (the lead, or the plan's approver)`, api.ErrUsage)
	}
	return nil
}

func plansGet(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p planGetParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requiredGiven(params, "team", p.Team); err != nil {
		return nil, err
	}
	return c.m.GetPlan(ctx, p.Team, p.Revision)
}

func plansList(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p planParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := requiredGiven(params, "team", p.Team); err != nil {
		return nil, err
	}
	ps, err := c.m.PlanRevisions(ctx, p.Team)
	if err != nil {
		return nil, err
	}
	if err := c.checkCount(len(ps), "plan revisions"); err != nil {
		return nil, err
	}
	if ps == nil {
		ps = []teammanager.Plan{}
	}
	return ps, nil
}

type snapshotParams struct {
	Team     string `json:"team"`
	Snapshot string `json:"snapshot"`
	Note     string `json:"note"`
	Apply    bool   `json:"apply"`
}

func (p *snapshotParams) decode(params json.RawMessage, needID bool) error {
	if err := decodeParams(params, p); err != nil {
		return err
	}
	if needID {
		return requiredGiven(params, "team", p.Team, "snapshot", p.Snapshot)
	}
	return requiredGiven(params, "team", p.Team)
}

func snapshotsCreate(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p snapshotParams
	if err := p.decode(params, false); err != nil {
		return nil, err
	}
	return c.m.SnapshotTeam(ctx, p.Team, p.Note)
}

func snapshotsList(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p snapshotParams
	if err := p.decode(params, false); err != nil {
		return nil, err
	}
	ss, err := c.m.Snapshots(ctx, p.Team)
	if err != nil {
		return nil, err
	}
	if err := c.checkCount(len(ss), "snapshots"); err != nil {
		return nil, err
	}
	if ss == nil {
		ss = []teammanager.Snapshot{}
	}
	return ss, nil
}

func snapshotsGet(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p snapshotParams
	if err := p.decode(params, true); err != nil {
		return nil, err
	}
	return c.m.GetSnapshot(ctx, p.Team, p.Snapshot)
}

func snapshotsRestore(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p snapshotParams
	if err := p.decode(params, true); err != nil {
		return nil, err
	}
	d, err := c.m.RestoreSnapshot(ctx, p.Team, p.Snapshot, p.Apply)
	if err != nil {
		return nil, err
	}
	return api.SnapshotRestoreOf(d), nil
}

func snapshotsDelete(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p snapshotParams
	if err := p.decode(params, true); err != nil {
		return nil, err
	}
	if err := c.m.DeleteSnapshot(ctx, p.Team, p.Snapshot); err != nil {
		return nil, err
	}
	return api.SnapshotDeleted{Team: p.Team, Snapshot: p.Snapshot, Deleted: true}, nil
}
