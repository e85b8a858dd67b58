package server

import (
	"context"
	"encoding/json"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/teammanager"
)

// The plan methods (teams.plan.*) and the snapshot methods
// (teams.snapshot.*). Results: plans and snapshots in their own JSON
// (teammanager.Plan, teammanager.Snapshot), restores as
// api.SnapshotRestore.

type planParams struct {
	Team     string                 `json:"team"`
	By       string                 `json:"by"`
	Title    string                 `json:"title"`
	Steps    []teammanager.PlanStep `json:"steps"`
	Approve  bool                   `json:"approve"`
	Feedback string                 `json:"feedback"`
	Revision int                    `json:"revision"`
}

func (p *planParams) decode(params json.RawMessage, need ...string) error {
	if err := decodeParams(params, p); err != nil {
		return err
	}
	args := []string{"team", p.Team}
	for _, n := range need {
		if n == "by" {
			args = append(args, "by", p.By)
		}
	}
	return required(args...)
}

func plansDraft(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p planParams
	if err := p.decode(params, "by"); err != nil {
		return nil, err
	}
	return c.m.DraftPlan(ctx, p.Team, p.By, teammanager.NewPlan{Title: p.Title, Steps: p.Steps})
}

func plansSubmit(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p planParams
	if err := p.decode(params, "by"); err != nil {
		return nil, err
	}
	return c.m.SubmitPlan(ctx, p.Team, p.By)
}

func plansReview(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p planParams
	if err := p.decode(params, "by"); err != nil {
		return nil, err
	}
	return c.m.ReviewPlan(ctx, p.Team, p.By, p.Approve, p.Feedback)
}

func plansGet(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p planParams
	if err := p.decode(params); err != nil {
		return nil, err
	}
	return c.m.GetPlan(ctx, p.Team, p.Revision)
}

func plansList(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p planParams
	if err := p.decode(params); err != nil {
		return nil, err
	}
	ps, err := c.m.PlanRevisions(ctx, p.Team)
	if ps == nil {
		ps = []teammanager.Plan{}
	}
	return ps, err
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
		return required("team", p.Team, "snapshot", p.Snapshot)
	}
	return required("team", p.Team)
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
	if ss == nil {
		ss = []teammanager.Snapshot{}
	}
	return ss, err
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
