package namespace

import (
	"fmt"
	"strings"

	"github.com/cayleygraph/quad"
)

// Kind is the kind of Cortex IRI a Ref describes.
type Kind int

// Kinds of Cortex IRIs. The zero Kind is invalid.
const (
	KindTerm            Kind = iota + 1 // a vocabulary class or predicate (Ref.Term)
	KindAgent                           // NS.Agent (Ref.Agent)
	KindTeam                            // NS.Team (Ref.Team)
	KindMember                          // NS.Member (Ref.Team, Ref.Agent)
	KindFinding                         // NS.Finding (Ref.Team, Ref.ID)
	KindConflict                        // NS.Conflict (Ref.Team, Ref.ID)
	KindMerge                           // NS.Merge (Ref.Team, Ref.ID)
	KindFactSet                         // NS.FactSet (Ref.Team, Ref.ID), a named graph
	KindTeamGraph                       // NS.TeamGraph (Ref.Team)
	KindMemberGraph                     // NS.MemberGraph (Ref.Team, Ref.Agent)
	KindSharedGraph                     // NS.SharedGraph (Ref.Team)
	KindProvenanceGraph                 // NS.ProvenanceGraph (Ref.Team)
	KindConflictGraph                   // NS.ConflictGraph (Ref.Team)
	KindAgentDef                        // NS.AgentDef (Ref.Agent: the qualified name)
	KindTeamDef                         // NS.TeamDef (Ref.Team)
	KindStepDef                         // NS.StepDef (Ref.Team, Ref.ID: the step)
	KindAgentDefGraph                   // NS.AgentDefGraph (Ref.Agent)
	KindTeamDefGraph                    // NS.TeamDefGraph (Ref.Team)
	KindTask                            // NS.Task (Ref.Team, Ref.ID)
	KindTaskComment                     // NS.TaskComment (Ref.Team, Ref.ID)
	KindMessage                         // NS.Message (Ref.Team, Ref.ID)
	KindTaskGraph                       // NS.TaskGraph (Ref.Team)
	KindMailGraph                       // NS.MailGraph (Ref.Team)
	KindPlan                            // NS.Plan (Ref.Team, Ref.ID: the revision)
	KindPlanStep                        // NS.PlanStep (Ref.Team, Ref.ID: "{revision}.{n}")
	KindPlanGraph                       // NS.PlanGraph (Ref.Team)
	KindRun                             // NS.Run (Ref.Run)
	KindRunStep                         // NS.Step (Ref.Run, Ref.ID: the step name)
	KindTransition                      // NS.Transition (Ref.Run, Ref.Seq)
	KindRunGraph                        // NS.RunGraph (Ref.Run)
	KindHistoryGraph                    // NS.HistoryGraph (Ref.Run)
	KindRound                           // NS.Round (Ref.Run, Ref.Round)
	KindTallyTopic                      // NS.TallyTopic (Ref.Run, Ref.Round, Ref.ID: the topic)
	KindBallot                          // NS.Ballot (Ref.Run, Ref.Round, Ref.ID: the topic, Ref.Seq: the ballot)
	KindRoundGraph                      // NS.RoundGraph (Ref.Run, Ref.Round)
)

var kindNames = [...]string{
	KindTerm: "term", KindAgent: "agent", KindTeam: "team", KindMember: "member",
	KindFinding: "finding", KindConflict: "conflict", KindMerge: "merge", KindFactSet: "fact-set",
	KindTeamGraph: "team-graph", KindMemberGraph: "member-graph", KindSharedGraph: "shared-graph",
	KindProvenanceGraph: "provenance-graph", KindConflictGraph: "conflict-graph",
	KindAgentDef: "agent-def", KindTeamDef: "team-def", KindStepDef: "step-def",
	KindAgentDefGraph: "agent-def-graph", KindTeamDefGraph: "team-def-graph",
	KindTask: "task", KindTaskComment: "task-comment", KindMessage: "message",
	KindTaskGraph: "task-graph", KindMailGraph: "mail-graph",
	KindPlan: "plan", KindPlanStep: "plan-step", KindPlanGraph: "plan-graph",
	KindRun: "run", KindRunStep: "run-step", KindTransition: "transition", KindRunGraph: "run-graph",
	KindHistoryGraph: "history-graph", KindRound: "round", KindTallyTopic: "tally-topic", KindBallot: "ballot",
	KindRoundGraph: "round-graph",
}

// String returns a lower-case name such as "member" or "shared-graph".
func (k Kind) String() string {
	if k > 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// IsGraph reports whether k names a graph.
func (k Kind) IsGraph() bool {
	return k == KindFactSet || k >= KindTeamGraph && k <= KindConflictGraph ||
		k == KindAgentDefGraph || k == KindTeamDefGraph || k == KindTaskGraph || k == KindMailGraph || k == KindPlanGraph ||
		k == KindRunGraph || k == KindHistoryGraph || k == KindRoundGraph
}

// Ref is a parsed Cortex IRI: its kind and its unescaped parts. Fields that
// the kind does not use are empty.
type Ref struct {
	Kind  Kind
	Term  Term   // KindTerm
	Team  string // team id
	Agent string // agent id
	ID    string // finding, conflict, merge, fact set, task, comment or message id; plan revision or step; run step name; tally topic id
	Run   string // workflow run id (the run kinds)
	Round int    // council round (KindRound, KindTallyTopic, KindBallot, KindRoundGraph)
	Seq   int    // transition number (KindTransition) or ballot number (KindBallot)
}

// Parse reverses the IRI builders of ns: it returns the kind and unescaped
// parts of a Cortex IRI of this namespace, such that ns.Build(ref) == iri.
//
// An IRI that does not start with ns.Prefix() fails with a *ParseError
// wrapping ErrForeignIRI (so an IRI of namespace "a-b" is foreign to "a").
// An IRI under the prefix that is not a Cortex layout fails with a
// *ParseError wrapping ErrUnknownIRI, or ErrInvalidEscape when an id part
// is not in the canonical form Escape produces.
func (ns NS) Parse(iri quad.IRI) (Ref, error) {
	fail := func(err error, msg string) (Ref, error) {
		return Ref{}, &ParseError{IRI: iri, Namespace: ns.name, Msg: msg, Err: err}
	}
	if ns.prefix == "" {
		return fail(ErrForeignIRI, "zero namespace")
	}
	rest, ok := strings.CutPrefix(string(iri), ns.prefix)
	if !ok {
		return fail(ErrForeignIRI, "")
	}
	if IsTerm(Term(rest)) {
		return Ref{Kind: KindTerm, Term: Term(rest)}, nil
	}
	segs := strings.Split(rest, ":")
	if segs[0] == segRun {
		ref, err := parseRun(segs)
		if err != nil {
			return fail(err, "")
		}
		return ref, nil
	}
	var ref Ref
	var ids []*string // fields to fill from the escaped id segments, in order
	var esc []string
	if kind, parts := parseDef(segs); kind != 0 {
		ref.Kind, esc = kind, parts
		switch kind {
		case KindAgentDef, KindAgentDefGraph:
			ids = []*string{&ref.Agent}
		case KindStepDef:
			ids = []*string{&ref.Team, &ref.ID}
		default:
			ids = []*string{&ref.Team}
		}
		segs = nil // handled
	}
	switch {
	case segs == nil:
	case len(segs) == 2 && segs[0] == segAgent:
		ref.Kind = KindAgent
		ids, esc = []*string{&ref.Agent}, []string{segs[1]}
	case len(segs) == 2 && segs[0] == segTeam:
		ref.Kind = KindTeam
		ids, esc = []*string{&ref.Team}, []string{segs[1]}
	case len(segs) == 4 && segs[0] == segTeam:
		ref.Kind = teamScoped(segs[2], segs[3])
		switch {
		case ref.Kind == 0:
			return fail(ErrUnknownIRI, "")
		case segs[2] == segGraph:
			ids, esc = []*string{&ref.Team}, []string{segs[1]}
		case ref.Kind == KindMember:
			ids, esc = []*string{&ref.Team, &ref.Agent}, []string{segs[1], segs[3]}
		default:
			ids, esc = []*string{&ref.Team, &ref.ID}, []string{segs[1], segs[3]}
		}
	case len(segs) == 6 && segs[0] == segTeam && segs[2] == segMember &&
		segs[4] == segGraph && segs[5] == graphFindings:
		ref.Kind = KindMemberGraph
		ids, esc = []*string{&ref.Team, &ref.Agent}, []string{segs[1], segs[3]}
	default:
		return fail(ErrUnknownIRI, "")
	}
	for i, e := range esc {
		v, err := Unescape(e)
		if err != nil {
			return fail(err, "")
		}
		*ids[i] = v
	}
	return ref, nil
}

// teamScoped returns the kind of {prefix}team:{team}:{a}:{b}, or 0.
func teamScoped(a, b string) Kind {
	switch a {
	case segMember:
		return KindMember
	case segFinding:
		return KindFinding
	case segConflict:
		return KindConflict
	case segMerge:
		return KindMerge
	case segFactSet:
		return KindFactSet
	case segTask:
		return KindTask
	case segComment:
		return KindTaskComment
	case segMessage:
		return KindMessage
	case segPlan:
		return KindPlan
	case segPlanStep:
		return KindPlanStep
	case segGraph:
		switch b {
		case graphState:
			return KindTeamGraph
		case graphShared:
			return KindSharedGraph
		case graphProvenance:
			return KindProvenanceGraph
		case graphConflicts:
			return KindConflictGraph
		case graphTasks:
			return KindTaskGraph
		case graphMail:
			return KindMailGraph
		case graphPlan:
			return KindPlanGraph
		}
	}
	return 0
}

// Build returns the IRI that ref describes in ns; it is the inverse of
// Parse. It fails with an error wrapping ErrUnknownIRI for an invalid Kind
// or an unknown Term.
func (ns NS) Build(ref Ref) (quad.IRI, error) {
	switch ref.Kind {
	case KindTerm:
		if !IsTerm(ref.Term) {
			return "", fmt.Errorf("build %s %q: %w: unknown term", ref.Kind, ref.Term, ErrUnknownIRI)
		}
		return ns.IRI(ref.Term), nil
	case KindAgent:
		return ns.Agent(ref.Agent), nil
	case KindTeam:
		return ns.Team(ref.Team), nil
	case KindMember:
		return ns.Member(ref.Team, ref.Agent), nil
	case KindFinding:
		return ns.Finding(ref.Team, ref.ID), nil
	case KindConflict:
		return ns.Conflict(ref.Team, ref.ID), nil
	case KindMerge:
		return ns.Merge(ref.Team, ref.ID), nil
	case KindFactSet:
		return ns.FactSet(ref.Team, ref.ID), nil
	case KindTeamGraph:
		return ns.TeamGraph(ref.Team), nil
	case KindMemberGraph:
		return ns.MemberGraph(ref.Team, ref.Agent), nil
	case KindSharedGraph:
		return ns.SharedGraph(ref.Team), nil
	case KindProvenanceGraph:
		return ns.ProvenanceGraph(ref.Team), nil
	case KindConflictGraph:
		return ns.ConflictGraph(ref.Team), nil
	case KindAgentDef:
		return ns.AgentDef(ref.Agent), nil
	case KindTeamDef:
		return ns.TeamDef(ref.Team), nil
	case KindStepDef:
		return ns.StepDef(ref.Team, ref.ID), nil
	case KindAgentDefGraph:
		return ns.AgentDefGraph(ref.Agent), nil
	case KindTeamDefGraph:
		return ns.TeamDefGraph(ref.Team), nil
	case KindTask:
		return ns.Task(ref.Team, ref.ID), nil
	case KindTaskComment:
		return ns.TaskComment(ref.Team, ref.ID), nil
	case KindMessage:
		return ns.Message(ref.Team, ref.ID), nil
	case KindTaskGraph:
		return ns.TaskGraph(ref.Team), nil
	case KindMailGraph:
		return ns.MailGraph(ref.Team), nil
	case KindPlan, KindPlanStep:
		seg := segPlan
		if ref.Kind == KindPlanStep {
			seg = segPlanStep
		}
		return ns.build(segTeam, Escape(ref.Team), seg, Escape(ref.ID)), nil
	case KindPlanGraph:
		return ns.PlanGraph(ref.Team), nil
	case KindRun:
		return ns.Run(ref.Run), nil
	case KindRunStep:
		return ns.Step(ref.Run, ref.ID), nil
	case KindTransition:
		return ns.Transition(ref.Run, ref.Seq), nil
	case KindRunGraph:
		return ns.RunGraph(ref.Run), nil
	case KindHistoryGraph:
		return ns.HistoryGraph(ref.Run), nil
	case KindRound:
		return ns.Round(ref.Run, ref.Round), nil
	case KindTallyTopic:
		return ns.TallyTopic(ref.Run, ref.Round, ref.ID), nil
	case KindBallot:
		return ns.Ballot(ref.Run, ref.Round, ref.ID, ref.Seq), nil
	case KindRoundGraph:
		return ns.RoundGraph(ref.Run, ref.Round), nil
	}
	return "", fmt.Errorf("build %s: %w: invalid kind", ref.Kind, ErrUnknownIRI)
}
