package server

import (
	"context"
	"encoding/json"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/teammanager"
)

// The lifecycle moves of a team (teams.pause, teams.resume, teams.disband):
// params {"team": ID}, result the team as moved.

func teamsPause(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	return lifecycleMove(ctx, params, c.m.PauseTeam)
}

func teamsResume(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	return lifecycleMove(ctx, params, c.m.ResumeTeam)
}

func teamsDisband(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	return lifecycleMove(ctx, params, c.m.DisbandTeam)
}

func lifecycleMove(ctx context.Context, params json.RawMessage, move func(context.Context, string) (teammanager.Team, error)) (any, error) {
	var p teamParams
	if err := p.decode(params); err != nil {
		return nil, err
	}
	t, err := move(ctx, p.Team)
	if err != nil {
		return nil, err
	}
	return api.TeamOf(t), nil
}
