package api

import (
	"context"

	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/teammanager"
)

// TeamPlans is the plan and snapshot part of a team manager: what the
// embedded *teammanager.Manager and package client's Client both do, so
// that the CLI and hosts use either.
//
// The JSON shapes of plans (teammanager.Plan) and snapshots
// (teammanager.Snapshot) are their Go types' own, the same on the event
// stream; a restore's is SnapshotRestore.
type TeamPlans interface {
	DraftPlan(ctx context.Context, teamID, by string, np teammanager.NewPlan) (teammanager.Plan, error)
	SubmitPlan(ctx context.Context, teamID, by string) (teammanager.Plan, error)
	ReviewPlan(ctx context.Context, teamID, by string, rev int, approve bool, feedback string) (teammanager.Plan, error)
	GetPlan(ctx context.Context, teamID string, rev int) (teammanager.Plan, error)
	PlanRevisions(ctx context.Context, teamID string) ([]teammanager.Plan, error)
	SnapshotTeam(ctx context.Context, teamID, note string) (teammanager.Snapshot, error)
	Snapshots(ctx context.Context, teamID string) ([]teammanager.Snapshot, error)
	GetSnapshot(ctx context.Context, teamID, id string) (teammanager.Snapshot, error)
	RestoreSnapshot(ctx context.Context, teamID, id string, apply bool) (teammanager.SnapshotDiff, error)
	DeleteSnapshot(ctx context.Context, teamID, id string) error
}

var _ TeamPlans = (*teammanager.Manager)(nil)

// SnapshotRestore is the JSON shape of a restore (a dry run, or applied):
// what it changes per graph and side table, and every quad it adds and
// removes, terms in N-Triples form.
type SnapshotRestore struct {
	Snapshot teammanager.Snapshot `json:"snapshot"`
	Applied  bool                 `json:"applied"`
	Graphs   []GraphChange        `json:"graphs"`
	Tables   []TableChange        `json:"tables"`
	Add      []Quad               `json:"add"`
	Remove   []Quad               `json:"remove"`
}

// GraphChange counts the quads a restore adds to and removes from a graph.
type GraphChange struct {
	Graph  string `json:"graph"`
	Add    int    `json:"add"`
	Remove int    `json:"remove"`
}

// TableChange counts the side-table rows a restore puts and deletes.
type TableChange struct {
	Table  string `json:"table"`
	Put    int    `json:"put"`
	Delete int    `json:"delete"`
}

// Quad is a quad, terms in N-Triples form.
type Quad struct {
	Subject   string `json:"subject"`
	Predicate string `json:"predicate"`
	Object    string `json:"object"`
	Graph     string `json:"graph"`
}

// SnapshotDeleted is the result of a snapshot's deletion.
type SnapshotDeleted struct {
	Team     string `json:"team"`
	Snapshot string `json:"snapshot"`
	Deleted  bool   `json:"deleted"`
}

// SnapshotRestoreOf returns the JSON shape of d.
func SnapshotRestoreOf(d teammanager.SnapshotDiff) SnapshotRestore {
	out := SnapshotRestore{Snapshot: d.Snapshot, Applied: d.Applied, Graphs: []GraphChange{}, Tables: []TableChange{}, Add: []Quad{}, Remove: []Quad{}}
	for _, g := range d.Graphs {
		out.Graphs = append(out.Graphs, GraphChange{Graph: string(g.Graph), Add: g.Add, Remove: g.Remove})
	}
	for _, t := range d.Tables {
		out.Tables = append(out.Tables, TableChange{Table: t.Table, Put: t.Put, Delete: t.Delete})
	}
	for _, q := range d.Add {
		out.Add = append(out.Add, Quad{rdfio.FormatTerm(q.Subject), rdfio.FormatTerm(q.Predicate), rdfio.FormatTerm(q.Object), rdfio.FormatTerm(q.Label)})
	}
	for _, q := range d.Remove {
		out.Remove = append(out.Remove, Quad{rdfio.FormatTerm(q.Subject), rdfio.FormatTerm(q.Predicate), rdfio.FormatTerm(q.Object), rdfio.FormatTerm(q.Label)})
	}
	return out
}
