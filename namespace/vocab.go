package namespace

import (
	"slices"

	"github.com/cayleygraph/quad"
)

// Term is a Cortex vocabulary term: the local name of a class or predicate
// relative to the namespace prefix, e.g. "team:status". Turn it into an IRI
// with NS.IRI. The set of terms is fixed; see Terms and fixtures/vocab.ttl.
type Term string

// Classes (used as objects of rdf:type).
const (
	ClassTeam     Term = "Team"     // a team of agents
	ClassMember   Term = "Member"   // an agent's membership in one team
	ClassAgent    Term = "Agent"    // an agent, across teams (a prov:Agent)
	ClassFinding  Term = "Finding"  // one triple asserted by one member (an rdf:Statement)
	ClassConflict Term = "Conflict" // findings that disagree on one subject and predicate
	ClassMerge    Term = "Merge"    // one run of a merge strategy (a prov:Activity)
	ClassFactSet  Term = "FactSet"  // a named graph of fused facts sharing one attribution (a prov:Entity)
)

// Team predicates. Subject: a team node (NS.Team).
const (
	TeamName        Term = "team:name"        // xsd:string, display name
	TeamDescription Term = "team:description" // xsd:string, optional goal text
	TeamStatus      Term = "team:status"      // xsd:string, one of the Status words
	TeamStrategy    Term = "team:strategy"    // xsd:string, merge strategy name
	TeamCreatedAt   Term = "team:createdAt"   // xsd:dateTime
	TeamUpdatedAt   Term = "team:updatedAt"   // xsd:dateTime, last status change
	TeamCompletedAt Term = "team:completedAt" // xsd:dateTime, set on completed/failed
	TeamTimeout     Term = "team:timeout"     // xsd:duration
	TeamMember      Term = "team:member"      // → member node (NS.Member)
	// TeamThreshold is the required agreement of majority-wins: the fraction
	// of speaking members an object must exceed (xsd:decimal in [0, 1]).
	TeamThreshold  Term = "team:confidence"
	TeamTieBreaker Term = "team:agent" // → agent node whose vote breaks ties
	TeamLastMerge  Term = "team:merge" // → the merge run that produced the shared graph
	TeamError      Term = "team:error" // xsd:string, why the team failed (a FailReason word)
	// TeamMergePending marks a finished team whose merge is due and not
	// done: xsd:string "interrupted" (no attempt has ended since the team
	// finished) or "failed" (the last attempt failed, see TeamMergeError).
	// Absent once merged.
	TeamMergePending Term = "team:merge:status"
	TeamMergeError   Term = "team:merge:error" // xsd:string, why the last merge attempt failed
	// TeamMergeErrorKind is the kind of the last failed merge attempt,
	// beside its text (TeamMergeError): xsd:string "timeout" (an
	// automatic merge stopped at its time bound) or "error" (any other
	// failure). Absent on teams whose failure an older version recorded.
	TeamMergeErrorKind Term = "team:merge:errorKind"
	// The led lifecycle (teammanager.Lifecycle) beside the member-driven
	// status: forming, active, paused, completed or disbanded.
	TeamLifecycle   Term = "team:lifecycle:status"      // xsd:string
	TeamPausedAt    Term = "team:lifecycle:pausedAt"    // xsd:dateTime, present while paused
	TeamPausedFor   Term = "team:lifecycle:pausedFor"   // xsd:duration, paused time before the current pause
	TeamDisbandedAt Term = "team:lifecycle:disbandedAt" // xsd:dateTime
)

// Member predicates. Subject: a member node (NS.Member).
const (
	MemberAgent       Term = "team:member:agent"       // → agent node (NS.Agent)
	MemberRole        Term = "team:member:role"        // xsd:string
	MemberTask        Term = "team:member:task"        // xsd:string
	MemberStatus      Term = "team:member:status"      // xsd:string, one of the Status words
	MemberJoinedAt    Term = "team:member:joinedAt"    // xsd:dateTime
	MemberCompletedAt Term = "team:member:completedAt" // xsd:dateTime
	MemberResult      Term = "team:member:result"      // xsd:string, free-form summary
	MemberCritical    Term = "team:member:critical"    // xsd:boolean, failure fails the team
	MemberError       Term = "team:member:error"       // xsd:string, why the member failed
)

// Finding predicates. Subject: a finding node (NS.Finding), stored in the
// member's graph (NS.MemberGraph). The asserted triple itself is described
// RDF-reification style with rdf:subject, rdf:predicate and rdf:object.
const (
	FindingAssertedBy Term = "finding:assertedBy" // → member node
	FindingAssertedAt Term = "finding:assertedAt" // xsd:dateTime
	FindingConfidence Term = "finding:confidence" // xsd:decimal in [0, 1]
)

// Conflict predicates. Subject: a conflict node (NS.Conflict), stored in the
// team's conflict graph (NS.ConflictGraph).
const (
	ConflictSubject    Term = "conflict:subject"    // the subject the findings disagree on
	ConflictPredicate  Term = "conflict:predicate"  // the predicate the findings disagree on
	ConflictCandidate  Term = "conflict:candidate"  // → finding node, one per competing finding
	ConflictChosen     Term = "conflict:chosen"     // → finding node kept by the strategy; absent if unresolved
	ConflictStrategy   Term = "conflict:strategy"   // xsd:string, strategy that handled it
	ConflictReason     Term = "conflict:reason"     // xsd:string, human-readable explanation
	ConflictDetectedAt Term = "conflict:detectedAt" // xsd:dateTime
	// ConflictResolvedObject is an object chosen by a manual resolution (any
	// term; one triple per chosen object, none if resolved to nothing).
	ConflictResolvedObject Term = "conflict:result"
	ConflictResolvedAt     Term = "conflict:completedAt" // xsd:dateTime; present iff resolved
	ConflictResolvedBy     Term = "conflict:agent"       // → agent node of who resolved it
	ConflictTeam           Term = "conflict:team"        // → team node (NS.Team) whose merge recorded it
)

// Merge predicates. Subject: a merge node (NS.Merge), stored in the team's
// provenance graph (NS.ProvenanceGraph).
const (
	MergeStrategy Term = "merge:strategy" // xsd:string, strategy name
)

// Fact set predicates. Subject: a fact set (NS.FactSet), described in the
// team's provenance graph. A fact set is a named graph holding a copy of
// every fused triple of the shared graph that has this attribution; each
// fused triple is in exactly one fact set.
const (
	FactConfidence Term = "fact:confidence" // xsd:decimal in [0, 1], fused confidence of the set's facts, rounded to 0.01
	FactResolvedBy Term = "fact:agent"      // → agent node of who resolved the facts' topic by hand
	FactTeam       Term = "fact:team"       // → team node (NS.Team) whose merged facts the set holds
)

// Status words, the literal values of TeamStatus and MemberStatus.
const (
	StatusPending   = "pending"
	StatusRunning   = "running"
	StatusCompleted = "completed"
	StatusFailed    = "failed"
)

// External IRIs Cortex writes. They do not depend on the namespace.
const (
	RDFType      quad.IRI = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
	RDFSubject   quad.IRI = "http://www.w3.org/1999/02/22-rdf-syntax-ns#subject"
	RDFPredicate quad.IRI = "http://www.w3.org/1999/02/22-rdf-syntax-ns#predicate"
	RDFObject    quad.IRI = "http://www.w3.org/1999/02/22-rdf-syntax-ns#object"

	// ProvWasAttributedTo links a fact set to each agent node whose findings support its facts.
	ProvWasAttributedTo quad.IRI = "http://www.w3.org/ns/prov#wasAttributedTo"
	// ProvWasGeneratedBy links a fact set or a conflict to the merge run that produced it.
	ProvWasGeneratedBy quad.IRI = "http://www.w3.org/ns/prov#wasGeneratedBy"
	// ProvGeneratedAtTime is the xsd:dateTime a fact set was produced.
	ProvGeneratedAtTime quad.IRI = "http://www.w3.org/ns/prov#generatedAtTime"
	// ProvStartedAtTime is the xsd:dateTime a merge run started.
	ProvStartedAtTime quad.IRI = "http://www.w3.org/ns/prov#startedAtTime"
	// ProvEndedAtTime is the xsd:dateTime a merge run ended.
	ProvEndedAtTime quad.IRI = "http://www.w3.org/ns/prov#endedAtTime"
)

// XML Schema datatypes used for Cortex literals.
const (
	XSDString   quad.IRI = "http://www.w3.org/2001/XMLSchema#string"
	XSDBoolean  quad.IRI = "http://www.w3.org/2001/XMLSchema#boolean"
	XSDDecimal  quad.IRI = "http://www.w3.org/2001/XMLSchema#decimal"
	XSDInteger  quad.IRI = "http://www.w3.org/2001/XMLSchema#integer"
	XSDDateTime quad.IRI = "http://www.w3.org/2001/XMLSchema#dateTime"
	XSDDuration quad.IRI = "http://www.w3.org/2001/XMLSchema#duration"
)

// TermKind tells classes from properties.
type TermKind int

// Term kinds.
const (
	TermClass    TermKind = iota + 1 // an rdfs:Class
	TermProperty                     // an rdf:Property
)

// String returns "class" or "property".
func (k TermKind) String() string {
	switch k {
	case TermClass:
		return "class"
	case TermProperty:
		return "property"
	}
	return "unknown"
}

// VocabEntry documents one IRI Cortex writes as a class or predicate.
type VocabEntry struct {
	IRI     quad.IRI
	Term    Term // local name; empty for external IRIs
	Kind    TermKind
	Label   string   // short rdfs:label
	Comment string   // rdfs:comment: meaning and expected values
	Domain  quad.IRI // rdfs:domain; empty if none
	Range   quad.IRI // rdfs:range; empty if none
	// SubClassOf is the rdfs:subClassOf of a class; empty if none.
	SubClassOf quad.IRI
	External   bool // true for rdf: and prov: terms that Cortex reuses
}

// termInfo is the documentation of a Cortex term. Domain and Range name a
// class term (no ':' → resolved against the namespace) or an absolute IRI.
type termInfo struct {
	term    Term
	kind    TermKind
	label   string
	comment string
	domain  string
	rng     string
	super   quad.IRI // rdfs:subClassOf for classes
}

const (
	xsd = "http://www.w3.org/2001/XMLSchema#"
	rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
)

// terms are the Cortex terms in documentation order: the team terms
// (with the definitions'), then the workflow terms (workflow.go) and the
// task board and mailbox terms (tasks.go), then the plan terms (plans.go).
var terms = append(append(append(slices.Clip(coreTerms), workflowTerms...), taskTerms...), planTerms...)

var coreTerms = []termInfo{
	{ClassTeam, TermClass, "Team", "A team of agents working on one goal. Its state lives in the team graph.", "", "", ""},
	{ClassMember, TermClass, "Member", "The membership of one agent in one team: role, task, status and result.", "", "", ""},
	{ClassAgent, TermClass, "Agent", "An agent, identified across teams.", "", "", "http://www.w3.org/ns/prov#Agent"},
	{ClassFinding, TermClass, "Finding", "One triple asserted by one member, described with rdf:subject, rdf:predicate and rdf:object; kept in the member's private graph.", "", "", rdf + "Statement"},
	{ClassConflict, TermClass, "Conflict", "Findings of one team that disagree on the object of one subject and predicate; kept in the team's conflict graph.", "", "", ""},
	{ClassMerge, TermClass, "Merge", "One run of a merge strategy over a team's findings; kept in the team's provenance graph.", "", "", "http://www.w3.org/ns/prov#Activity"},
	{ClassFactSet, TermClass, "FactSet", "A named graph holding a copy of the fused triples of a team's shared graph that share one attribution (supporting agents, resolver, fused confidence rounded to 0.01); described in the team's provenance graph. Every fused triple is in exactly one fact set; a team has at most 100 fact sets per distinct supporters and resolver, whatever the confidences.", "", "", "http://www.w3.org/ns/prov#Entity"},
	{ClassAgentDef, TermClass, "AgentDef", "An agent definition (multi-agent-spec agent file), kept in its own graph (agentdef:{agent}:graph:def) with def:source its JSON.", "", "", ""},
	{ClassTeamDef, TermClass, "TeamDef", "A team definition (multi-agent-spec team file), kept in its own graph (teamdef:{team}:graph:def) with def:source its JSON.", "", "", ""},
	{ClassStepDef, TermClass, "StepDef", "A step of a team definition's workflow.", "", "", ""},

	{TeamName, TermProperty, "team name", "Display name of the team.", "Team", xsd + "string", ""},
	{TeamDescription, TermProperty, "team description", "Optional description of the team's goal.", "Team", xsd + "string", ""},
	{TeamStatus, TermProperty, "team status", "Lifecycle status of the team: pending, running, completed or failed.", "Team", xsd + "string", ""},
	{TeamStrategy, TermProperty, "team merge strategy", "Name of the merge strategy used to fuse the team's findings.", "Team", xsd + "string", ""},
	{TeamCreatedAt, TermProperty, "team created at", "When the team was created.", "Team", xsd + "dateTime", ""},
	{TeamUpdatedAt, TermProperty, "team updated at", "When the team's status last changed.", "Team", xsd + "dateTime", ""},
	{TeamCompletedAt, TermProperty, "team completed at", "When the team reached completed or failed.", "Team", xsd + "dateTime", ""},
	{TeamTimeout, TermProperty, "team timeout", "How long the team may run before it is failed.", "Team", xsd + "duration", ""},
	{TeamMember, TermProperty, "team member", "Links a team to each of its member nodes.", "Team", "Member", ""},

	{TeamThreshold, TermProperty, "required agreement", "Majority-wins threshold: an object is kept when more than this fraction of the members that spoke on the topic asserted it; absent means more than half.", "Team", xsd + "decimal", ""},
	{TeamTieBreaker, TermProperty, "tie-breaker", "The agent whose choice breaks ties in the team's merge strategy.", "Team", "Agent", ""},
	{TeamLastMerge, TermProperty, "last merge", "The merge run whose result the team's shared graph holds.", "Team", "Merge", ""},
	{TeamError, TermProperty, "team error", "Why the team failed: timeout, critical-member-failed or all-members-failed.", "Team", xsd + "string", ""},
	{TeamMergePending, TermProperty, "merge pending", "Present while a finished team's merge is due and not done: interrupted (no merge attempt has ended since the team finished, e.g. the process was killed during it) or failed (the last attempt failed; see team:merge:error). Removed by the merge that succeeds.", "Team", xsd + "string", ""},
	{TeamMergeError, TermProperty, "merge error", "Why the last attempt at a due merge failed; present only with team:merge:status failed.", "Team", xsd + "string", ""},
	{TeamMergeErrorKind, TermProperty, "merge error kind", "The kind of the last failed attempt at a due merge, beside its text (team:merge:error): timeout (an automatic merge stopped at its time bound; not retried automatically, only by a merge by hand) or error (any other failure). Present with team:merge:status failed, but on teams whose failure an older version recorded, whose timeouts are told by the text, which begins \"automatic merge timed out\".", "Team", xsd + "string", ""},
	{TeamLifecycle, TermProperty, "team lifecycle", "The led lifecycle of the team: forming (no member started), active, paused, completed (the team's status is completed or failed) or disbanded.", "Team", xsd + "string", ""},
	{TeamPausedAt, TermProperty, "team paused at", "When the team was paused; present only while it is paused.", "Team", xsd + "dateTime", ""},
	{TeamPausedFor, TermProperty, "team paused for", "How long the team was paused before its current pause, if any: its timeout is extended by it.", "Team", xsd + "duration", ""},
	{TeamDisbandedAt, TermProperty, "team disbanded at", "When the team was disbanded: from then on its graphs are read-only until it is deleted.", "Team", xsd + "dateTime", ""},

	{MemberAgent, TermProperty, "member agent", "The agent holding this membership.", "Member", "Agent", ""},
	{MemberRole, TermProperty, "member role", "The member's role in the team.", "Member", xsd + "string", ""},
	{MemberTask, TermProperty, "member task", "The task assigned to the member.", "Member", xsd + "string", ""},
	{MemberStatus, TermProperty, "member status", "Lifecycle status of the member: pending, running, completed or failed.", "Member", xsd + "string", ""},
	{MemberJoinedAt, TermProperty, "member joined at", "When the member joined the team.", "Member", xsd + "dateTime", ""},
	{MemberCompletedAt, TermProperty, "member completed at", "When the member reached completed or failed.", "Member", xsd + "dateTime", ""},
	{MemberResult, TermProperty, "member result", "Free-form result summary reported by the member.", "Member", xsd + "string", ""},
	{MemberCritical, TermProperty, "member critical", "True if the member's failure fails the whole team.", "Member", xsd + "boolean", ""},
	{MemberError, TermProperty, "member error", "Why the member failed.", "Member", xsd + "string", ""},

	{FindingAssertedBy, TermProperty, "asserted by", "The member that asserted the finding.", "Finding", "Member", ""},
	{FindingAssertedAt, TermProperty, "asserted at", "When the finding was asserted.", "Finding", xsd + "dateTime", ""},
	{FindingConfidence, TermProperty, "confidence", "The member's confidence in the finding, from 0 to 1.", "Finding", xsd + "decimal", ""},

	{ConflictSubject, TermProperty, "conflict subject", "The subject on which the candidate findings disagree.", "Conflict", "", ""},
	{ConflictPredicate, TermProperty, "conflict predicate", "The predicate on which the candidate findings disagree.", "Conflict", rdf + "Property", ""},
	{ConflictCandidate, TermProperty, "conflict candidate", "A finding taking part in the conflict; one triple per finding.", "Conflict", "Finding", ""},
	{ConflictChosen, TermProperty, "conflict chosen", "The finding kept by the merge strategy; absent while the conflict is unresolved.", "Conflict", "Finding", ""},
	{ConflictStrategy, TermProperty, "conflict strategy", "Name of the merge strategy that handled the conflict.", "Conflict", xsd + "string", ""},
	{ConflictReason, TermProperty, "conflict reason", "Human-readable explanation of the conflict or its resolution.", "Conflict", xsd + "string", ""},
	{ConflictDetectedAt, TermProperty, "conflict detected at", "When the conflict was detected.", "Conflict", xsd + "dateTime", ""},

	{ConflictResolvedObject, TermProperty, "resolved object", "An object chosen by the manual resolution of the conflict; one triple per object, none when resolved to nothing.", "Conflict", "", ""},
	{ConflictResolvedAt, TermProperty, "resolved at", "When the conflict was resolved; absent while it is open.", "Conflict", xsd + "dateTime", ""},
	{ConflictResolvedBy, TermProperty, "resolved by", "Who resolved the conflict.", "Conflict", "Agent", ""},
	{ConflictTeam, TermProperty, "conflict team", "The team whose merge recorded the conflict; kept when it is resolved. Conflicts per team: SELECT ?team (COUNT(?c) AS ?n) WHERE { GRAPH ?g { ?c cx:conflict:team ?team } } GROUP BY ?team.", "Conflict", "Team", ""},

	{MergeStrategy, TermProperty, "merge strategy", "Name of the merge strategy that ran.", "Merge", xsd + "string", ""},

	{FactConfidence, TermProperty, "fact confidence", "Fused confidence of the set's facts, from 0 to 1, rounded to the nearest 0.01 (a positive confidence never to 0): what the team's merge strategy computed for each of them (for most strategies the highest confidence among the findings that support the fact; see package merge).", "FactSet", xsd + "decimal", ""},
	{FactResolvedBy, TermProperty, "resolved by", "Who chose the set's facts by resolving a conflict by hand; absent for facts the strategy kept.", "FactSet", "Agent", ""},
	{DefName, TermProperty, "definition name", "Name of an agent (unqualified), team or step definition.", "", xsd + "string", ""},
	{DefNamespace, TermProperty, "agent namespace", "Namespace of an agent definition (its subdirectory); absent for none. Teams name the agent namespace/name.", "AgentDef", xsd + "string", ""},
	{DefDescription, TermProperty, "definition description", "Description of an agent or team definition.", "", xsd + "string", ""},
	{DefVersion, TermProperty, "team version", "Version of a team definition.", "TeamDef", xsd + "string", ""},
	{DefModel, TermProperty, "agent model", "Model tier of an agent definition (haiku, sonnet or opus) as written; absent means sonnet.", "AgentDef", xsd + "string", ""},
	{DefRole, TermProperty, "agent role", "Role title of an agent definition, for self-directed workflows.", "AgentDef", xsd + "string", ""},
	{DefDelegates, TermProperty, "allow delegation", "Whether the agent may delegate work (delegation.allow_delegation).", "AgentDef", xsd + "boolean", ""},
	{DefDelegatesTo, TermProperty, "can delegate to", "An agent named in the agent's delegation.can_delegate_to. Agents that can delegate to qa: SELECT ?a WHERE { GRAPH ?g { ?a cx:def:delegatesTo ?q } GRAPH ?h { ?q cx:def:name \"qa\" } }.", "AgentDef", "AgentDef", ""},
	{DefReceivesFrom, TermProperty, "can receive from", "An agent named in the agent's delegation.can_receive_from (\"lead\" is not linked).", "AgentDef", "AgentDef", ""},
	{DefAgent, TermProperty, "definition agent", "An agent of a team definition, or the agent running a step. Teams using security-reviewer: SELECT ?t WHERE { GRAPH ?g { ?t a cx:TeamDef ; cx:def:agent ?a } GRAPH ?h { ?a cx:def:name \"security-reviewer\" } }.", "", "AgentDef", ""},
	{DefWorkflow, TermProperty, "workflow type", "Workflow type of a team definition: chain, scatter, graph (the default), crew, swarm or council.", "TeamDef", xsd + "string", ""},
	{DefLead, TermProperty, "team lead", "The lead of a team definition: collaboration.lead, else the orchestrator.", "TeamDef", "AgentDef", ""},
	{DefStep, TermProperty, "workflow step", "A step of a team definition's workflow.", "TeamDef", "StepDef", ""},
	{DefDependsOn, TermProperty, "depends on", "A step this step depends on (depends_on).", "StepDef", "StepDef", ""},
	{DefSource, TermProperty, "definition source", "The definition as JSON in its modern form: what cortexctl defs get and export print.", "", xsd + "string", ""},

	{FactTeam, TermProperty, "fact set team", "The team whose merged facts the set holds. Fact sets per team: SELECT ?team (COUNT(?set) AS ?n) WHERE { GRAPH ?g { ?set cx:fact:team ?team } } GROUP BY ?team.", "FactSet", "Team", ""},
}

type externalInfo struct {
	iri     quad.IRI
	kind    TermKind
	label   string
	comment string
}

var externals = []externalInfo{
	{RDFType, TermProperty, "type", "Class of the nodes Cortex describes: teams, members, agents, findings, conflicts, merges, fact sets, definitions and their steps, workflow runs, steps, transitions and council tallies, tasks, comments, messages, plans and plan steps (the classes of this vocabulary)."},
	{RDFSubject, TermProperty, "subject", "Subject of the triple a finding describes."},
	{RDFPredicate, TermProperty, "predicate", "Predicate of the triple a finding describes."},
	{RDFObject, TermProperty, "object", "Object of the triple a finding describes."},
	{ProvWasAttributedTo, TermProperty, "was attributed to", "Links a fact set to each agent node whose findings support its facts."},
	{ProvWasGeneratedBy, TermProperty, "was generated by", "Links a fact set or a conflict to the merge run that produced it."},
	{ProvGeneratedAtTime, TermProperty, "generated at time", "When a fact set was described: the end of the last merge run that wrote the team's merge results (xsd:dateTime)."},
	{ProvStartedAtTime, TermProperty, "started at time", "When a merge run started, or when a team started running (its first member started) (xsd:dateTime)."},
	{ProvEndedAtTime, TermProperty, "ended at time", "When a merge run ended (xsd:dateTime)."},
}

// termSet is the set of all Cortex terms, for Parse.
var termSet = func() map[Term]TermKind {
	m := make(map[Term]TermKind, len(terms))
	for _, t := range terms {
		m[t.term] = t.kind
	}
	return m
}()

// Terms returns every Cortex vocabulary term, classes first, in a fixed
// documentation order. The slice is a fresh copy.
func Terms() []Term {
	out := make([]Term, len(terms))
	for i, t := range terms {
		out[i] = t.term
	}
	return out
}

// IsTerm reports whether t is a Cortex vocabulary term.
func IsTerm(t Term) bool {
	_, ok := termSet[t]
	return ok
}

// IRI returns the IRI of vocabulary term t in this namespace: Prefix()+t.
// It does not check that t is a known term (see IsTerm).
func (ns NS) IRI(t Term) quad.IRI { return quad.IRI(ns.prefix + string(t)) }

// Vocab documents every class and predicate IRI Cortex writes in this
// namespace: the Cortex terms (resolved against the namespace) followed by
// the external rdf: and prov: terms. fixtures/vocab.ttl is its Turtle form
// for the default namespace. The slice is a fresh copy.
func (ns NS) Vocab() []VocabEntry {
	resolve := func(s string) quad.IRI {
		switch {
		case s == "":
			return ""
		case IsTerm(Term(s)):
			return ns.IRI(Term(s))
		}
		return quad.IRI(s)
	}
	out := make([]VocabEntry, 0, len(terms)+len(externals))
	for _, t := range terms {
		e := VocabEntry{
			IRI: ns.IRI(t.term), Term: t.term, Kind: t.kind, Label: t.label, Comment: t.comment,
			Domain: resolve(t.domain), Range: resolve(t.rng), SubClassOf: t.super,
		}
		out = append(out, e)
	}
	for _, x := range externals {
		out = append(out, VocabEntry{IRI: x.iri, Kind: x.kind, Label: x.label, Comment: x.comment, External: true})
	}
	return out
}
