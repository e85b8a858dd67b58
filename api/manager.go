package api

import (
	"context"
	"io"
	"time"

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
	TaskBoard
}

// TaskBoard is what an agent host does with the task boards and
// mailboxes of a namespace's teams; each method has the contract of the
// teammanager.Manager method of the same name.
type TaskBoard interface {
	CreateTask(ctx context.Context, teamID, by string, nt teammanager.NewTask) (teammanager.Task, error)
	GetTask(ctx context.Context, teamID, taskID string) (teammanager.Task, error)
	ListTasks(ctx context.Context, teamID string, f teammanager.TaskFilter) ([]teammanager.Task, error)
	UpdateTask(ctx context.Context, teamID, by, taskID string, u teammanager.TaskUpdate) (teammanager.Task, error)
	ClaimTask(ctx context.Context, teamID, agent, taskID string) (teammanager.Task, error)
	ClaimNext(ctx context.Context, teamID, agent string) (teammanager.Task, error)
	ProgressTask(ctx context.Context, teamID, agent, taskID, note string) (teammanager.Task, error)
	CompleteTask(ctx context.Context, teamID, agent, taskID, result string) (teammanager.Task, error)
	ReviewTask(ctx context.Context, teamID, lead, taskID string, approve bool, feedback string) (teammanager.Task, error)
	FailTask(ctx context.Context, teamID, agent, taskID, reason string) (teammanager.Task, error)
	CancelTask(ctx context.Context, teamID, lead, taskID, reason string) (teammanager.Task, error)
	PauseTask(ctx context.Context, teamID, lead, taskID string) (teammanager.Task, error)
	ResumeTask(ctx context.Context, teamID, lead, taskID string) (teammanager.Task, error)
	RetryTask(ctx context.Context, teamID, lead, taskID string) (teammanager.Task, error)
	SkipTask(ctx context.Context, teamID, lead, taskID, reason string) (teammanager.Task, error)
	AddTaskComment(ctx context.Context, teamID, agent, taskID string, kind teammanager.CommentKind, text string) (teammanager.TaskComment, error)
	TaskComments(ctx context.Context, teamID, taskID string) ([]teammanager.TaskComment, error)
	TaskHistory(ctx context.Context, teamID, taskID string) ([]teammanager.TaskChange, error)
	DispatchUnblocked(ctx context.Context, teamID string) (teammanager.DispatchReport, error)
	SweepTasks(ctx context.Context, teamID string) (teammanager.TaskSweep, error)
	AddTaskFindings(ctx context.Context, teamID, agentID, taskID string, fs []teammanager.Finding) ([]string, error)
	FinishTask(ctx context.Context, teamID, agent, taskID string, o teammanager.TaskOutcome) (teammanager.TaskFinish, error)
	ApplyBoardOps(ctx context.Context, teamID, lead string, ops []teammanager.BoardOp) ([]teammanager.BoardOpResult, error)
	Board(ctx context.Context, teamID string) (teammanager.BoardSettings, error)
	ConfigureBoard(ctx context.Context, teamID string, s teammanager.BoardSettings) (teammanager.BoardSettings, error)
	UpdateBoard(ctx context.Context, teamID string, u teammanager.BoardUpdate) (teammanager.BoardSettings, error)
	SendMessage(ctx context.Context, teamID, from string, msg teammanager.OutMessage) (teammanager.Message, error)
	Inbox(ctx context.Context, teamID, agent string, f teammanager.MailFilter) ([]teammanager.Message, error)
	MarkMessages(ctx context.Context, teamID, agent string, status teammanager.MessageStatus, ids ...string) error
	Thread(ctx context.Context, teamID, id string) ([]teammanager.Message, error)
	History(ctx context.Context, teamID string, limit int) ([]teammanager.Message, error)
	ConfigureMailbox(ctx context.Context, teamID string, maxAge time.Duration, perAgent int) error
	UpdateMailbox(ctx context.Context, teamID string, u teammanager.MailboxUpdate) (maxAge time.Duration, perAgent int, err error)
	MailboxRetention(ctx context.Context, teamID string) (maxAge time.Duration, perAgent int, err error)
}

var _ TeamManager = (*teammanager.Manager)(nil)
