package namespace

import "github.com/cayleygraph/quad"

// Definitions (agent and team definitions of package spec) live apart from
// the teams' IRIs, under their own roots:
//
//	agentdef:{agent}                  agent definition node ({agent} is namespace/name, escaped whole)
//	agentdef:{agent}:graph:def        the graph holding that definition
//	teamdef:{team}                    team definition node
//	teamdef:{team}:step:{step}        a step of its workflow
//	teamdef:{team}:graph:def          the graph holding that definition
//	def:name, def:agent, ...          definition predicates (see the Def* terms)
//
// No identifier-built IRI starts with "def:" (each starts with agent:,
// team:, agentdef: or teamdef:), so the def: predicates need no reserved
// words: an agent called "name" is agentdef:name, never def:name.
const (
	segAgentDef = "agentdef"
	segTeamDef  = "teamdef"
	segStep     = "step"
	graphDef    = "def"
)

// Definition classes and predicates. Subjects: definition nodes (NS.AgentDef,
// NS.TeamDef, NS.StepDef), each stored in its definition's graph.
const (
	ClassAgentDef Term = "AgentDef" // an agent definition
	ClassTeamDef  Term = "TeamDef"  // a team definition
	ClassStepDef  Term = "StepDef"  // a step of a team definition's workflow

	DefName         Term = "def:name"         // xsd:string: agent name (unqualified), team name, step name
	DefNamespace    Term = "def:namespace"    // xsd:string: an agent's namespace; absent for none
	DefDescription  Term = "def:description"  // xsd:string
	DefVersion      Term = "def:version"      // xsd:string: a team's version
	DefModel        Term = "def:model"        // xsd:string: an agent's model (haiku, sonnet, opus), as written
	DefRole         Term = "def:role"         // xsd:string: an agent's role
	DefDelegates    Term = "def:delegates"    // xsd:boolean: allow_delegation
	DefDelegatesTo  Term = "def:delegatesTo"  // → AgentDef named in can_delegate_to
	DefReceivesFrom Term = "def:receivesFrom" // → AgentDef named in can_receive_from
	DefAgent        Term = "def:agent"        // → AgentDef: a team's agent, or the agent running a step
	DefWorkflow     Term = "def:workflow"     // xsd:string: a team's workflow type (graph when unset)
	DefLead         Term = "def:lead"         // → AgentDef: a team's lead (collaboration.lead, else orchestrator)
	DefStep         Term = "def:step"         // → StepDef of a team
	DefDependsOn    Term = "def:dependsOn"    // → StepDef a step depends on
	DefSource       Term = "def:source"       // xsd:string: the definition as JSON (spec.Marshal*), the authoritative copy
)

// AgentDef returns the node of the definition of agent agent (its
// qualified name, namespace/name): {prefix}agentdef:{agent}.
func (ns NS) AgentDef(agent string) quad.IRI { return ns.build(segAgentDef, Escape(agent)) }

// AgentDefGraph names the graph holding agent agent's definition:
// {prefix}agentdef:{agent}:graph:def.
func (ns NS) AgentDefGraph(agent string) quad.IRI {
	return ns.build(segAgentDef, Escape(agent), segGraph, graphDef)
}

// TeamDef returns the node of the definition of team team:
// {prefix}teamdef:{team}.
func (ns NS) TeamDef(team string) quad.IRI { return ns.build(segTeamDef, Escape(team)) }

// TeamDefGraph names the graph holding team team's definition:
// {prefix}teamdef:{team}:graph:def.
func (ns NS) TeamDefGraph(team string) quad.IRI {
	return ns.build(segTeamDef, Escape(team), segGraph, graphDef)
}

// StepDef returns the node of step step of team team's workflow:
// {prefix}teamdef:{team}:step:{step}.
func (ns NS) StepDef(team, step string) quad.IRI {
	return ns.build(segTeamDef, Escape(team), segStep, Escape(step))
}

// parseDef parses the definition layouts (segs split at ':'), or returns
// kind 0.
func parseDef(segs []string) (kind Kind, ids []string) {
	switch {
	case len(segs) == 2 && segs[0] == segAgentDef:
		return KindAgentDef, segs[1:]
	case len(segs) == 2 && segs[0] == segTeamDef:
		return KindTeamDef, segs[1:]
	case len(segs) == 4 && segs[0] == segAgentDef && segs[2] == segGraph && segs[3] == graphDef:
		return KindAgentDefGraph, segs[1:2]
	case len(segs) == 4 && segs[0] == segTeamDef && segs[2] == segGraph && segs[3] == graphDef:
		return KindTeamDefGraph, segs[1:2]
	case len(segs) == 4 && segs[0] == segTeamDef && segs[2] == segStep:
		return KindStepDef, []string{segs[1], segs[3]}
	}
	return 0, nil
}
