package namespace

import (
	"strings"

	"github.com/cayleygraph/quad"
)

// IRI layout, relative to NS.Prefix() (ids are escaped with Escape):
//
//	Team, Member, ...                         classes
//	team:name, team:member:role, finding:...  predicates (see vocab.go)
//	agent:{agent}                             agent node
//	team:{team}                               team node
//	team:{team}:member:{agent}                member node
//	team:{team}:finding:{finding}             finding node
//	team:{team}:conflict:{conflict}           conflict node
//	team:{team}:merge:{merge}                 merge run node
//	team:{team}:fact:{set}                    fact set (graph of fused facts)
//	team:{team}:graph:state                   team state graph
//	team:{team}:graph:shared                  shared (fused facts) graph
//	team:{team}:graph:provenance              provenance graph
//	team:{team}:graph:conflicts               conflicts graph
//	team:{team}:member:{agent}:graph:findings member's private findings graph

const (
	segTeam     = "team"
	segMember   = "member"
	segAgent    = "agent"
	segFinding  = "finding"
	segConflict = "conflict"
	segMerge    = "merge"
	segFactSet  = "fact"
	segGraph    = "graph"

	graphState      = "state"
	graphShared     = "shared"
	graphProvenance = "provenance"
	graphConflicts  = "conflicts"
	graphFindings   = "findings"
)

// build joins the prefix and segments with ':'. Callers escape ids.
func (ns NS) build(segs ...string) quad.IRI {
	n := len(ns.prefix)
	for _, s := range segs {
		n += len(s) + 1
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(ns.prefix)
	for i, s := range segs {
		if i > 0 {
			b.WriteByte(':')
		}
		b.WriteString(s)
	}
	return quad.IRI(b.String())
}

// Team returns the node of team teamID: {prefix}team:{teamID}.
func (ns NS) Team(teamID string) quad.IRI {
	return ns.build(segTeam, Escape(teamID))
}

// Member returns the node of agent agentID's membership in team teamID:
// {prefix}team:{teamID}:member:{agentID}.
func (ns NS) Member(teamID, agentID string) quad.IRI {
	return ns.build(segTeam, Escape(teamID), segMember, Escape(agentID))
}

// Agent returns the node of agent agentID, shared by all its memberships:
// {prefix}agent:{agentID}.
func (ns NS) Agent(agentID string) quad.IRI {
	return ns.build(segAgent, Escape(agentID))
}

// Finding returns the node of finding findingID of team teamID:
// {prefix}team:{teamID}:finding:{findingID}.
func (ns NS) Finding(teamID, findingID string) quad.IRI {
	return ns.build(segTeam, Escape(teamID), segFinding, Escape(findingID))
}

// Conflict returns the node of conflict conflictID of team teamID:
// {prefix}team:{teamID}:conflict:{conflictID}.
func (ns NS) Conflict(teamID, conflictID string) quad.IRI {
	return ns.build(segTeam, Escape(teamID), segConflict, Escape(conflictID))
}

// Merge returns the node of merge run mergeID of team teamID:
// {prefix}team:{teamID}:merge:{mergeID}.
func (ns NS) Merge(teamID, mergeID string) quad.IRI {
	return ns.build(segTeam, Escape(teamID), segMerge, Escape(mergeID))
}

// FactSet names fact set setID of team teamID, a named graph holding a copy
// of the fused facts that share one attribution (supporting agents,
// resolver, fused confidence rounded to 0.01), described in the team's
// provenance graph:
// {prefix}team:{teamID}:fact:{setID}.
func (ns NS) FactSet(teamID, setID string) quad.IRI {
	return ns.build(segTeam, Escape(teamID), segFactSet, Escape(setID))
}

// TeamGraph names the graph holding team teamID's state (team and member
// nodes): {prefix}team:{teamID}:graph:state.
func (ns NS) TeamGraph(teamID string) quad.IRI {
	return ns.build(segTeam, Escape(teamID), segGraph, graphState)
}

// MemberGraph names the graph holding the private findings of agent agentID
// in team teamID: {prefix}team:{teamID}:member:{agentID}:graph:findings.
func (ns NS) MemberGraph(teamID, agentID string) quad.IRI {
	return ns.build(segTeam, Escape(teamID), segMember, Escape(agentID), segGraph, graphFindings)
}

// SharedGraph names the graph holding team teamID's fused facts, and only
// those: {prefix}team:{teamID}:graph:shared.
func (ns NS) SharedGraph(teamID string) quad.IRI {
	return ns.build(segTeam, Escape(teamID), segGraph, graphShared)
}

// ProvenanceGraph names the graph holding team teamID's merge runs and fact
// provenance: {prefix}team:{teamID}:graph:provenance.
func (ns NS) ProvenanceGraph(teamID string) quad.IRI {
	return ns.build(segTeam, Escape(teamID), segGraph, graphProvenance)
}

// ConflictGraph names the graph holding team teamID's conflict records:
// {prefix}team:{teamID}:graph:conflicts.
func (ns NS) ConflictGraph(teamID string) quad.IRI {
	return ns.build(segTeam, Escape(teamID), segGraph, graphConflicts)
}

// TeamPrefix returns the string that every IRI scoped to team teamID starts
// with, except the team node itself: {prefix}team:{teamID}: (note the
// trailing ':', which keeps team "a" from matching team "ab").
func (ns NS) TeamPrefix(teamID string) string {
	return string(ns.build(segTeam, Escape(teamID), ""))
}
