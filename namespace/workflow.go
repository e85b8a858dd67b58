package namespace

import (
	"strconv"

	"github.com/cayleygraph/quad"
)

// Workflow runs (package workflow) have their own IRIs, relative to
// NS.Prefix() (ids are escaped with Escape):
//
//	run:{run}                       run node (the run's team is team:{run})
//	run:{run}:step:{step}           step node
//	run:{run}:transition:{seq}      one recorded transition of the run or a step
//	run:{run}:graph:state           graph of the run and step nodes
//	run:{run}:graph:history         graph of the transitions
//	run:{run}:round:{n}             tally of council round n
//	run:{run}:round:{n}:topic:{id}  one topic of that tally (id: the topic's conflict id)
//	run:{run}:round:{n}:topic:{id}:ballot:{k}  one ballot cast on the topic
//	run:{run}:graph:round:{n}       graph of the tally of round n
//
// Their predicates all live under the root "workflow:", under which no IRI
// is ever built from an identifier; so, unlike the team predicates, their
// words need not be reserved by Escape (see TestVocab_ReservedWords): no
// run id or step name can spell one.
const (
	segRun        = "run"
	segRunStep    = "step"
	segTransition = "transition"
	graphHistory  = "history"
	segRound      = "round"
	segTopic      = "topic"
	segBallot     = "ballot"
)

// parseRun parses the run layouts above (segs: the IRI after the prefix,
// split at ':', segs[0] == "run"). It fails with ErrUnknownIRI, or
// ErrInvalidEscape for an id that is not in Escape's canonical form; a
// number must be in strconv.Itoa's.
func parseRun(segs []string) (Ref, error) {
	var ref Ref
	num := func(s string, dst *int) bool {
		n, err := strconv.Atoi(s)
		*dst = n
		return err == nil && strconv.Itoa(n) == s
	}
	var ids []*string // fields to fill from the escaped id segments, in order
	var esc []string
	n := len(segs)
	switch {
	case n == 2:
		ref.Kind = KindRun
	case n == 4 && segs[2] == segRunStep:
		ref.Kind = KindRunStep
		ids, esc = []*string{&ref.ID}, []string{segs[3]}
	case n == 4 && segs[2] == segTransition && num(segs[3], &ref.Seq):
		ref.Kind = KindTransition
	case n == 4 && segs[2] == segGraph && segs[3] == graphState:
		ref.Kind = KindRunGraph
	case n == 4 && segs[2] == segGraph && segs[3] == graphHistory:
		ref.Kind = KindHistoryGraph
	case n == 4 && segs[2] == segRound && num(segs[3], &ref.Round):
		ref.Kind = KindRound
	case n == 5 && segs[2] == segGraph && segs[3] == segRound && num(segs[4], &ref.Round):
		ref.Kind = KindRoundGraph
	case n == 6 && segs[2] == segRound && num(segs[3], &ref.Round) && segs[4] == segTopic:
		ref.Kind = KindTallyTopic
		ids, esc = []*string{&ref.ID}, []string{segs[5]}
	case n == 8 && segs[2] == segRound && num(segs[3], &ref.Round) && segs[4] == segTopic &&
		segs[6] == segBallot && num(segs[7], &ref.Seq):
		ref.Kind = KindBallot
		ids, esc = []*string{&ref.ID}, []string{segs[5]}
	default:
		return Ref{}, ErrUnknownIRI
	}
	ids, esc = append(ids, &ref.Run), append(esc, segs[1])
	for i, e := range esc {
		v, err := Unescape(e)
		if err != nil {
			return Ref{}, err
		}
		*ids[i] = v
	}
	return ref, nil
}

// Round returns the tally node of round n of council run runID:
// {prefix}run:{runID}:round:{n}.
func (ns NS) Round(runID string, n int) quad.IRI {
	return ns.build(segRun, Escape(runID), segRound, strconv.Itoa(n))
}

// TallyTopic returns the node of topic topicID in the tally of round n of
// council run runID: {prefix}run:{runID}:round:{n}:topic:{topicID}.
func (ns NS) TallyTopic(runID string, n int, topicID string) quad.IRI {
	return ns.build(segRun, Escape(runID), segRound, strconv.Itoa(n), segTopic, Escape(topicID))
}

// Ballot returns the node of the k-th ballot on topic topicID in the tally
// of round n of council run runID:
// {prefix}run:{runID}:round:{n}:topic:{topicID}:ballot:{k}.
func (ns NS) Ballot(runID string, n int, topicID string, k int) quad.IRI {
	return ns.build(segRun, Escape(runID), segRound, strconv.Itoa(n), segTopic, Escape(topicID), segBallot, strconv.Itoa(k))
}

// RoundGraph names the graph holding the tally of round n of council run
// runID: {prefix}run:{runID}:graph:round:{n}.
func (ns NS) RoundGraph(runID string, n int) quad.IRI {
	return ns.build(segRun, Escape(runID), segGraph, segRound, strconv.Itoa(n))
}

// Run returns the node of workflow run runID: {prefix}run:{runID}.
func (ns NS) Run(runID string) quad.IRI {
	return ns.build(segRun, Escape(runID))
}

// Step returns the node of step stepName of run runID:
// {prefix}run:{runID}:step:{stepName}.
func (ns NS) Step(runID, stepName string) quad.IRI {
	return ns.build(segRun, Escape(runID), segRunStep, Escape(stepName))
}

// Transition returns the node of the seq-th recorded transition of run
// runID: {prefix}run:{runID}:transition:{seq}.
func (ns NS) Transition(runID string, seq int) quad.IRI {
	return ns.build(segRun, Escape(runID), segTransition, strconv.Itoa(seq))
}

// RunGraph names the graph holding run runID's state (the run node and its
// step nodes): {prefix}run:{runID}:graph:state.
func (ns NS) RunGraph(runID string) quad.IRI {
	return ns.build(segRun, Escape(runID), segGraph, graphState)
}

// HistoryGraph names the graph holding run runID's transitions:
// {prefix}run:{runID}:graph:history.
func (ns NS) HistoryGraph(runID string) quad.IRI {
	return ns.build(segRun, Escape(runID), segGraph, graphHistory)
}

// Workflow classes.
const (
	ClassRun        Term = "Run"        // one run of a team definition's workflow
	ClassStep       Term = "Step"       // one step of a run
	ClassTransition Term = "Transition" // one recorded status change of a run or a step
	ClassRound      Term = "Round"      // the tally of one council round
	ClassTallyTopic Term = "TallyTopic" // one topic of a round's tally
	ClassBallot     Term = "Ballot"     // one distinct ballot cast on a topic
)

// Tally predicates, in a round graph (NS.RoundGraph). Subjects: a round
// node (NS.Round), a topic node (NS.TallyTopic), a ballot node (NS.Ballot).
const (
	RoundRun       Term = "workflow:round:run"       // round → run node
	RoundNumber    Term = "workflow:round:number"    // round → xsd:integer, from 1
	RoundVoter     Term = "workflow:round:voter"     // round → agent node of each voter
	RoundFinal     Term = "workflow:round:final"     // round → xsd:boolean, the council's last tally
	RoundTopic     Term = "workflow:round:topic"     // round → topic node
	TallySubject   Term = "workflow:tally:subject"   // topic → the topic's subject
	TallyPredicate Term = "workflow:tally:predicate" // topic → the topic's predicate
	TallyStatus    Term = "workflow:tally:status"    // topic → xsd:string, agreed, tie-broken or open
	TallyDecidedIn Term = "workflow:tally:decidedIn" // topic → xsd:integer, the round that decided it
	TallyWinner    Term = "workflow:tally:winner"    // topic → each object of the winning ballot
	TallyBallot    Term = "workflow:tally:ballot"    // topic → ballot node
	BallotObject   Term = "workflow:ballot:object"   // ballot → each of its objects
	BallotAgent    Term = "workflow:ballot:agent"    // ballot → agent node of each voter that cast it
	BallotVotes    Term = "workflow:ballot:votes"    // ballot → xsd:integer, how many cast it
)

// Run predicates. Subject: a run node (NS.Run), in the run graph.
const (
	RunName        Term = "workflow:name"        // xsd:string, the team definition's name
	RunType        Term = "workflow:type"        // xsd:string, chain, scatter or graph
	RunStatus      Term = "workflow:status"      // xsd:string, pending running merging completed failed cancelled
	RunStrategy    Term = "workflow:strategy"    // xsd:string, merge strategy
	RunTeam        Term = "workflow:team"        // → the run's team node (NS.Team)
	RunStep        Term = "workflow:step"        // → step node
	RunInput       Term = "workflow:input"       // xsd:string, the run inputs as a JSON object
	RunCreatedAt   Term = "workflow:createdAt"   // xsd:dateTime
	RunStartedAt   Term = "workflow:startedAt"   // xsd:dateTime, first step started
	RunCompletedAt Term = "workflow:completedAt" // xsd:dateTime, reached completed, failed or cancelled
	RunError       Term = "workflow:error"       // xsd:string, why the run failed or was cancelled
)

// Step predicates. Subject: a step node (NS.Step), in the run graph.
const (
	StepName        Term = "workflow:step:name"        // xsd:string
	StepIndex       Term = "workflow:step:index"       // xsd:integer, position in the definition
	StepAgent       Term = "workflow:step:agent"       // → agent node (NS.Agent)
	StepDependsOn   Term = "workflow:step:dependsOn"   // → step node
	StepStatus      Term = "workflow:step:status"      // xsd:string, pending ready running completed failed skipped
	StepReason      Term = "workflow:step:reason"      // xsd:string, why failed or skipped
	StepActor       Term = "workflow:step:actor"       // xsd:string, who started it
	StepStartedAt   Term = "workflow:step:startedAt"   // xsd:dateTime
	StepCompletedAt Term = "workflow:step:completedAt" // xsd:dateTime
	StepOutput      Term = "workflow:step:output"      // xsd:string, the outputs as a JSON object
	StepFinding     Term = "workflow:step:finding"     // → finding node (NS.Finding) reported by the step
)

// Transition predicates. Subject: a transition node (NS.Transition), in
// the history graph.
const (
	TransitionRun    Term = "workflow:transition:run"    // → run node
	TransitionStep   Term = "workflow:transition:step"   // → step node; absent for a run transition
	TransitionSeq    Term = "workflow:transition:seq"    // xsd:integer, 1, 2, ... in commit order
	TransitionFrom   Term = "workflow:transition:from"   // xsd:string, status before
	TransitionTo     Term = "workflow:transition:to"     // xsd:string, status after
	TransitionAt     Term = "workflow:transition:at"     // xsd:dateTime
	TransitionActor  Term = "workflow:transition:actor"  // xsd:string, who caused it
	TransitionReason Term = "workflow:transition:reason" // xsd:string, optional
)

var workflowTerms = []termInfo{
	{ClassRun, TermClass, "Run", "One run of a team definition's deterministic workflow (chain, scatter or graph). Its team (workflow:team) holds the members and findings; the run graph holds the run and its steps, the history graph every transition.", "", "", "http://www.w3.org/ns/prov#Activity"},
	{ClassStep, TermClass, "Step", "One step of a run: the agent that runs it, its dependencies, status and outputs.", "", "", ""},
	{ClassTransition, TermClass, "Transition", "One status change of a run or of a step, with its time and actor; kept in the run's history graph.", "", "", ""},

	{RunName, TermProperty, "run name", "Name of the team definition the run runs.", "Run", xsd + "string", ""},
	{RunType, TermProperty, "workflow type", "Workflow type of the run: chain, scatter or graph.", "Run", xsd + "string", ""},
	{RunStatus, TermProperty, "run status", "Status of the run: pending, running, merging, completed, failed or cancelled.", "Run", xsd + "string", ""},
	{RunStrategy, TermProperty, "run strategy", "Merge strategy of the run: fuses the findings a fan-in step receives and the run's final merge.", "Run", xsd + "string", ""},
	{RunTeam, TermProperty, "run team", "The Cortex team whose members are the run's agents and whose merge ends the run.", "Run", "Team", ""},
	{RunStep, TermProperty, "run step", "Links a run to each of its step nodes.", "Run", "Step", ""},
	{RunInput, TermProperty, "run inputs", "The run inputs, as a JSON object.", "Run", xsd + "string", ""},
	{RunCreatedAt, TermProperty, "run created at", "When the run was started.", "Run", xsd + "dateTime", ""},
	{RunStartedAt, TermProperty, "run started at", "When the run's first step started.", "Run", xsd + "dateTime", ""},
	{RunCompletedAt, TermProperty, "run completed at", "When the run reached completed, failed or cancelled.", "Run", xsd + "dateTime", ""},
	{RunError, TermProperty, "run error", "Why the run failed or was cancelled.", "Run", xsd + "string", ""},

	{StepName, TermProperty, "step name", "Name of the step in its team definition.", "Step", xsd + "string", ""},
	{StepIndex, TermProperty, "step index", "Position of the step in its team definition, from 0.", "Step", xsd + "integer", ""},
	{StepAgent, TermProperty, "step agent", "The agent that runs the step.", "Step", "Agent", ""},
	{StepDependsOn, TermProperty, "step depends on", "A step that must complete before this one is ready.", "Step", "Step", ""},
	{StepStatus, TermProperty, "step status", "Status of the step: pending, ready, running, completed, failed or skipped.", "Step", xsd + "string", ""},
	{StepReason, TermProperty, "step reason", "Why the step failed or was skipped.", "Step", xsd + "string", ""},
	{StepActor, TermProperty, "step actor", "Who started the step (a driver or host name).", "Step", xsd + "string", ""},
	{StepStartedAt, TermProperty, "step started at", "When the step started running.", "Step", xsd + "dateTime", ""},
	{StepCompletedAt, TermProperty, "step completed at", "When the step reached completed, failed or skipped.", "Step", xsd + "dateTime", ""},
	{StepOutput, TermProperty, "step outputs", "The outputs the step completed with, as a JSON object.", "Step", xsd + "string", ""},
	{StepFinding, TermProperty, "step finding", "A finding the step reported; the finding node is in its agent's member graph.", "Step", "Finding", ""},

	{ClassRound, TermClass, "Round", "The tally of one council round, in the run's round graph: the voters and, per topic, the ballots cast and the decision.", "", "", ""},
	{ClassTallyTopic, TermClass, "Tally topic", "One topic (subject, predicate) of a council round's tally.", "", "", ""},
	{ClassBallot, TermClass, "Ballot", "One distinct ballot cast on a topic of a council round: a set of objects and the voters that cast it.", "", "", ""},
	{RoundRun, TermProperty, "round run", "The council run the round belongs to.", "Round", "Run", ""},
	{RoundNumber, TermProperty, "round number", "Number of the round, from 1.", "Round", xsd + "integer", ""},
	{RoundVoter, TermProperty, "round voter", "An agent whose ballots count in the round: one that completed the first round.", "Round", "Agent", ""},
	{RoundFinal, TermProperty, "final round", "True on the council's last tally, where the tie-breaker decides what is still open.", "Round", xsd + "boolean", ""},
	{RoundTopic, TermProperty, "round topic", "A topic of the round's tally.", "Round", "TallyTopic", ""},
	{TallySubject, TermProperty, "topic subject", "Subject of the tallied topic.", "TallyTopic", "", ""},
	{TallyPredicate, TermProperty, "topic predicate", "Predicate of the tallied topic.", "TallyTopic", "", ""},
	{TallyStatus, TermProperty, "topic status", "Decision on the topic: agreed (a ballot has the required agreement), tie-broken (the tie-breaker's ballot, in the final round) or open (a conflict if still open after the final round).", "TallyTopic", xsd + "string", ""},
	{TallyDecidedIn, TermProperty, "decided in", "The round in which the topic was decided.", "TallyTopic", xsd + "integer", ""},
	{TallyWinner, TermProperty, "winner", "An object of the winning ballot.", "TallyTopic", "", ""},
	{TallyBallot, TermProperty, "topic ballot", "A ballot cast on the topic.", "TallyTopic", "Ballot", ""},
	{BallotObject, TermProperty, "ballot object", "An object of the ballot.", "Ballot", "", ""},
	{BallotAgent, TermProperty, "ballot agent", "A voter that cast the ballot (its last vote on the topic).", "Ballot", "Agent", ""},
	{BallotVotes, TermProperty, "ballot votes", "How many voters cast the ballot.", "Ballot", xsd + "integer", ""},

	{TransitionRun, TermProperty, "transition run", "The run the transition belongs to.", "Transition", "Run", ""},
	{TransitionStep, TermProperty, "transition step", "The step whose status changed; absent when the run's status changed.", "Transition", "Step", ""},
	{TransitionSeq, TermProperty, "transition number", "Number of the transition in its run, from 1, in commit order.", "Transition", xsd + "integer", ""},
	{TransitionFrom, TermProperty, "transition from", "Status before the transition.", "Transition", xsd + "string", ""},
	{TransitionTo, TermProperty, "transition to", "Status after the transition.", "Transition", xsd + "string", ""},
	{TransitionAt, TermProperty, "transition at", "When the transition was recorded.", "Transition", xsd + "dateTime", ""},
	{TransitionActor, TermProperty, "transition actor", "Who caused the transition: the actor that started, completed or failed a step, or cortex for transitions the engine derives.", "Transition", xsd + "string", ""},
	{TransitionReason, TermProperty, "transition reason", "Why the transition happened, when there is more to say than the statuses.", "Transition", xsd + "string", ""},
}
