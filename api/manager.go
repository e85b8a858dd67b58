package api

import (
	"context"
	"io"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/teammanager"
)

// TeamManager is what an agent host does with the teams of one namespace.
// The embedded team manager (*teammanager.Manager) and the remote one
// (*client.Client, which calls a server's JSON-RPC methods) both satisfy
// it, so a host switches between them by changing the constructor:
//
//	var tm api.TeamManager
//	tm, err = teammanager.New(ctx, store, ns, teammanager.DefaultConfig()) // in this process
//	tm, err = client.New("unix:///data/cortex.sock", client.DefaultOptions()) // through a server
//
// Each method has the contract of the Manager method of the same name
// (errors match the same sentinels, e.g. teammanager.ErrUnknownTeam);
// see package client for what differs through a server.
type TeamManager interface {
	CreateTeam(ctx context.Context, tc teammanager.TeamConfig) (teammanager.Team, error)
	GetTeam(ctx context.Context, id string) (teammanager.Team, error)
	ListTeams(ctx context.Context, f teammanager.TeamFilter) ([]teammanager.Team, error)
	DeleteTeam(ctx context.Context, id string) error
	PauseTeam(ctx context.Context, id string) (teammanager.Team, error)
	ResumeTeam(ctx context.Context, id string) (teammanager.Team, error)
	DisbandTeam(ctx context.Context, id string) (teammanager.Team, error)
	UpdateMemberStatus(ctx context.Context, teamID, agentID string, status teammanager.Status, result string) (teammanager.MemberUpdate, error)
	MergeTeamResults(ctx context.Context, teamID string) (teammanager.MergeReport, error)
	IsTeamComplete(ctx context.Context, id string) (bool, error)
	AddFinding(ctx context.Context, teamID, agentID string, f teammanager.Finding) (string, error)
	AddFindings(ctx context.Context, teamID, agentID string, fs []teammanager.Finding) ([]string, error)
	Findings(ctx context.Context, teamID string, f teammanager.FindingFilter) ([]teammanager.StoredFinding, error)
	ImportFindings(ctx context.Context, teamID, agentID string, r io.Reader, format string) (int, error)
	Facts(ctx context.Context, teamID string, f teammanager.FactFilter) ([]teammanager.Fact, error)
	Conflicts(ctx context.Context, teamID string) ([]teammanager.Conflict, error)
	ResolveConflict(ctx context.Context, teamID, conflictID string, objects []quad.Value, by string) (teammanager.MergeReport, error)
}

var _ TeamManager = (*teammanager.Manager)(nil)
