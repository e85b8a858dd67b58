package namespace

import (
	"strconv"

	"github.com/cayleygraph/quad"
)

// IRI layout of team plans (see iri.go), relative to NS.Prefix():
//
//	team:{team}:plan:{revision}          a revision of the team's plan (KindPlan)
//	team:{team}:planstep:{revision}.{n}  step n (from 1) of that revision (KindPlanStep)
//	team:{team}:graph:plan               the team's plan graph
const (
	segPlan     = "plan"
	segPlanStep = "planstep"

	graphPlan = "plan"
)

// Plan returns the node of revision rev (from 1) of team teamID's plan:
// {prefix}team:{teamID}:plan:{rev}.
func (ns NS) Plan(teamID string, rev int) quad.IRI {
	return ns.build(segTeam, Escape(teamID), segPlan, strconv.Itoa(rev))
}

// PlanStep returns the node of step n (from 1) of revision rev of team
// teamID's plan: {prefix}team:{teamID}:planstep:{rev}.{n}.
func (ns NS) PlanStep(teamID string, rev, n int) quad.IRI {
	return ns.build(segTeam, Escape(teamID), segPlanStep, strconv.Itoa(rev)+"."+strconv.Itoa(n))
}

// PlanGraph names the graph holding team teamID's plan, every revision:
// {prefix}team:{teamID}:graph:plan.
func (ns NS) PlanGraph(teamID string) quad.IRI {
	return ns.build(segTeam, Escape(teamID), segGraph, graphPlan)
}

// Plan classes.
const (
	ClassPlan     Term = "Plan"     // a revision of a team lead's plan
	ClassPlanStep Term = "PlanStep" // one ordered step of a plan revision
)

// Plan predicates. Subject: a plan node (NS.Plan), in the team's plan graph
// (NS.PlanGraph).
const (
	PlanTeam        Term = "plan:team"        // → team node
	PlanRevision    Term = "plan:revision"    // xsd:integer, from 1
	PlanTitle       Term = "plan:title"       // xsd:string
	PlanState       Term = "plan:state"       // xsd:string, one of the plan state words
	PlanAuthor      Term = "plan:author"      // → member node of the lead
	PlanHasStep     Term = "plan:step"        // → plan step node, one per step
	PlanCreatedAt   Term = "plan:createdAt"   // xsd:dateTime
	PlanUpdatedAt   Term = "plan:updatedAt"   // xsd:dateTime
	PlanSubmittedAt Term = "plan:submittedAt" // xsd:dateTime
	PlanReviewedBy  Term = "plan:reviewedBy"  // xsd:string, the approver's agent id or "operator"
	PlanReviewedAt  Term = "plan:reviewedAt"  // xsd:dateTime
	PlanFeedback    Term = "plan:feedback"    // xsd:string, the reviewer's feedback
)

// Plan step predicates. Subject: a plan step node (NS.PlanStep).
const (
	PlanStepIndex       Term = "planstep:index"       // xsd:integer, from 1: the step's place in the plan
	PlanStepTitle       Term = "planstep:title"       // xsd:string
	PlanStepDescription Term = "planstep:description" // xsd:string
)

// Plan state words, the literal values of plan:state.
const (
	PlanStateDraft         = "draft"
	PlanStatePendingReview = "pending_review"
	PlanStateApproved      = "approved"
	PlanStateRejected      = "rejected"
)

var planTerms = []termInfo{
	{ClassPlan, TermClass, "Plan", "A revision of a team lead's plan: a title and ordered steps, with approval state draft, pending_review, approved or rejected; kept in the team's plan graph.", "", "", ""},
	{ClassPlanStep, TermClass, "PlanStep", "One step of a plan revision, ordered by planstep:index.", "", "", ""},

	{PlanTeam, TermProperty, "plan team", "The team whose plan this is.", "Plan", "Team", ""},
	{PlanRevision, TermProperty, "plan revision", "The revision number of the plan, from 1.", "Plan", xsd + "integer", ""},
	{PlanTitle, TermProperty, "plan title", "Title of the plan.", "Plan", xsd + "string", ""},
	{PlanState, TermProperty, "plan state", "Approval state of the revision: draft, pending_review, approved or rejected.", "Plan", xsd + "string", ""},
	{PlanAuthor, TermProperty, "plan author", "The member (the lead) that drafted the revision.", "Plan", "Member", ""},
	{PlanHasStep, TermProperty, "plan step", "A step of the revision.", "Plan", "PlanStep", ""},
	{PlanCreatedAt, TermProperty, "plan created at", "When the revision was drafted.", "Plan", xsd + "dateTime", ""},
	{PlanUpdatedAt, TermProperty, "plan updated at", "When the revision last changed.", "Plan", xsd + "dateTime", ""},
	{PlanSubmittedAt, TermProperty, "plan submitted at", "When the lead submitted the revision for review.", "Plan", xsd + "dateTime", ""},
	{PlanReviewedBy, TermProperty, "plan reviewed by", "Who approved or rejected the revision: the approver's agent id, or operator.", "Plan", xsd + "string", ""},
	{PlanReviewedAt, TermProperty, "plan reviewed at", "When the revision was approved or rejected.", "Plan", xsd + "dateTime", ""},
	{PlanFeedback, TermProperty, "plan feedback", "The reviewer's feedback on the revision.", "Plan", xsd + "string", ""},

	{PlanStepIndex, TermProperty, "step index", "The step's place in its plan, from 1.", "PlanStep", xsd + "integer", ""},
	{PlanStepTitle, TermProperty, "step title", "Title of the step.", "PlanStep", xsd + "string", ""},
	{PlanStepDescription, TermProperty, "step description", "What the step involves.", "PlanStep", xsd + "string", ""},
}
