// Package workflow runs the workflows of team definitions (multi-agent-spec
// chain, scatter, graph, council, crew and swarm) on a team manager: Cortex
// decides which step may start, what it receives and what becomes of its
// results; the host runs each step.
//
// A run (Start) is a Cortex team of package teammanager, with the run's id,
// whose members are the steps' agents (MemberID). Its steps move through
// pending → ready → running → completed | failed, or pending → skipped
// with a reason; the run through pending → running → merging → completed |
// failed, or cancelled. A step is ready when every step it depends on
// (depends_on; in a chain, also the step before it) has completed, or
// failed with a non-critical agent (RunOptions.NonCritical). A failed step
// of a critical agent (the default) skips its dependents; a required input
// that cannot be resolved skips its step (a required input that only a run
// input can give is checked by Start, which refuses a run without it:
// Def.CheckInputs). When no step can still run the run is merging: the
// team's members finish (an agent with a completed step completes, others
// fail), the team manager merges the team into its shared graph, and the
// run completes, or fails when a step of a critical agent failed or when
// no step completed (every step skipped, or failed with a non-critical
// agent: the run did nothing, and its team, none of whose members
// completed, fails too). A run that completed had a step complete, so its
// team completed; a run that failed because a critical agent's step failed
// still merges what its other steps found, and its team, whose members
// are not critical in the team's sense, may be completed.
//
// A host drives a run with the pull API — Ready (ready steps, with their
// resolved inputs and the fused findings of their dependencies), StartStep,
// AddFindings, CompleteStep (typed outputs) or FailStep, ReleaseStep — or
// with the driver Run, which calls a Runner for each ready step. The
// driver works over the Pull interface (Drive), which *Engine and a client
// of a server's workflows.* methods (package client: Client.Workflows)
// both implement, so that drivers in several processes can drive one run
// through one server; a driver through a server polls it
// (Pull.PollInterval) where one through an Engine also wakes on that
// Engine's writes. Each start of a step is an attempt (StepState.Attempt,
// which StartStep returns): the calls that follow it name their attempt,
// and a runner that returns after its step was given back and started
// again is refused (*AttemptError, ErrStaleAttempt) and writes nothing.
//
// # Council
//
// A council runs in rounds: Start gives it a step per agent (Def.Agents)
// and round, named round-N/AGENT, each round's steps depending on every
// step of the round before (a failed one does not block them). Every
// member answers the same question: Ready gives a council step the run's
// inputs, its Round and the Tally of the round before. Its findings
// (AddFindings) are its votes, kept on the step (StepState.Votes), in one
// write, not in the team. A member's ballot on a topic (subject,
// predicate) is the set of objects it voted there; it stands until the
// member votes on the topic again in a later completed step. When every
// step of a round has finished, the round is tallied (Run.Rounds): the
// voters are the agents that completed round 1 (the others are out: their
// later steps are skipped), and the run's strategy, consensus
// (merge.Consensus), decides each topic with the council's
// required_agreement: a ballot wins when at least that fraction of the
// voters cast it and more voters than any other ballot. A decided topic
// stays decided (later votes on it do not count). When no topic is open,
// or after max_rounds (at most MaxCouncilRounds, and agents × rounds at
// most MaxCouncilSteps, checked by Def.Validate), the tally is final: in the last round the
// tie_breaker's ballot (an agent, or the lead) decides what is still open;
// the steps of later rounds are skipped. Then each voter's counted ballots
// are written as its findings in its member graph, the members complete,
// and the team merges with consensus, the council's threshold and
// tie-breaker: the shared graph holds the decisions and each topic still
// open is a conflict. A council fails when a critical agent fails round 1.
//
// # Crew and swarm
//
// A crew or swarm run is a team run whose coordination is the team's task
// board (package teammanager): its team's members are the Def's agents,
// and its steps are the lead's turns, turn-1/LEAD … turn-N/LEAD (N:
// Def.MaxTurns, default DefaultMaxTurns, at most MaxLeadTurns), each depending on the one
// before, with the outputs done (boolean) and summary (string). The lead
// is Def.Lead (collaboration.lead or orchestrator); a swarm without one is
// coordinated by its first agent, which also takes tasks. Start
// configures the board: the lead is the board's lead; a crew's board
// requires review (a member's result goes to in_review, the lead approves
// or rejects it) and lets no one but the lead create tasks, so its
// specialists cannot delegate; a swarm's board completes results without
// review and lets members add tasks to the shared queue.
//
// DriveLed drives such a run over the Pull API and a Board (the
// teammanager.Manager, or a client through a server): members claim and
// run tasks (LedRunner.Task) and, when nothing runs and nothing can be
// claimed, the lead takes a turn (LedRunner.Lead): it sees the board and
// returns operations (LeadOp: create, approve, reject, retry, skip,
// cancel, plan, done), checked together before any is applied as the
// lead, all in one atomic write of the board (Board.ApplyBoardOps): one
// the board refuses fails the turn and writes nothing of it. A
// Ready turn step carries the run's Members (RunMember) and its Turn. A
// turn that says done skips the later turns: the run merges (each worker
// completes if one of its tasks completed, else fails; the lead completes
// with its turns) and completes. A failed turn fails the run, and so does
// a last turn that does not say done. The agents' delegation rules
// (allow_delegation, can_delegate_to, can_receive_from in the definitions
// of Def.AgentDefs) are checked on the lead's assignments. A lead turn
// and a member's task end at the run's step timeout (RunOptions.StepTimeout):
// the runner's context ends, the task fails as timed out, and what a lead
// answers after its turn's timeout is not applied.
//
// # Data
//
// A run's state is written, in one atomic cortex.Namespace.Update per
// change, three ways: as RDF in the run graph (NS.RunGraph: the run node
// and a node per step with status, reason, actor, times, outputs as JSON,
// finding links; vocabulary cx:workflow:…), as transitions in the history
// graph (NS.HistoryGraph: one node per status change with time, actor and
// reason), and as side-table rows, which the engine reads: the run's
// record without its steps in table "workflows" and a row per step in
// table "workflow-steps" (keyed RUN:NNNNN, the step's index), all JSON. A
// change writes the run's row, the rows and run-graph quads of the steps
// it changed and its transitions, not the whole run, so what a step's
// calls write does not grow with the run's size; and an Engine reuses the
// record it last read or wrote of an open run while the stored one is the
// same (each write stamps the run's row with a new revision), so they do
// not decode the whole run either. (A run stored by an older version, its
// steps in its own row, reads as it was; its next write moves its steps
// to step rows. The move is one way: an older version reads a run written
// since as a run without steps.) A council's tallies are also in a graph per round
// (NS.RoundGraph: the round, its voters, per topic the status, winner and
// ballots; vocabulary cx:workflow:round:…, cx:workflow:tally:…,
// cx:workflow:ballot:…), written with the record that adds them and never
// changed. Definitions are kept once per distinct definition in the side
// table "workflow-defs" and cached, with their plan, by the Engine. Each
// write also keeps the team manager's team table current
// (teammanager.Manager.KeepTables). Findings live where the team manager
// keeps them (the agent's member graph); a step records their ids.
//
// # Fan-in
//
// Ready gives a step the findings of its completed dependencies fused by
// the run's merge strategy (Config.WithRegistry's registry), with the
// dependency steps as the merge's voters: a fact's Supporters are the
// steps that reported it, so the collect step of a scatter sees one
// merged view, with its open conflicts. The run's final merge is the
// team's, whose voters are agents: steps of one agent count once there.
//
// # Concurrency
//
// An Engine is safe for concurrent use, and several Engines (in one
// process or several) may drive one run: every change is a
// read-modify-write under the namespace's write lock, so StartStep starts a
// step for one caller only (the others get a *TransitionError), and no
// change is lost. The team's members are moved after the run's write
// (settle); every part of that is idempotent and retried by the next call
// (Ready, StartStep, AddFindings, CompleteStep, FailStep, Cancel), so a
// process killed at any point leaves a run the next call completes, and
// one killed between two calls leaves it exactly as the calls left it.
//
// # Caveats
//
//   - A step started by a driver that died stays running until its timeout
//     (RunOptions.StepTimeout, default Config's) fails it, or a host calls
//     ReleaseStep, CompleteStep or FailStep for it, naming its current
//     attempt (Get shows it). (A crew's or swarm's turn is given back by
//     the next DriveLed that takes the run from its driver.)
//   - A step started before attempts were counted (a run stored by an
//     older version: no attempt on the step) is attempt 0; its next start
//     is attempt 1.
//   - Findings a step reported before it failed or was released stay in
//     its agent's member graph: they are merged if the agent completes
//     another step.
//   - Get and List only read: a step past its timeout reads as running
//     until Ready or a write records its failure. Run records it even when
//     the step holds every driver slot, and ends that step's runner's
//     context.
//   - Get, List and History never take the namespace's write lock, so a
//     caller that may not write (the server's read role, cortexctl's
//     read-only commands) never waits for writers nor holds them up. A
//     read whose run is written between its reads of the run's row and of
//     its step rows reads again: at once three times, then after a pause
//     (1 ms, doubling up to 64 ms), until it reads the run between two
//     writes or its context ends (the context's error). The calls that
//     write (Ready, AddFindings, ...) read under the lock after three
//     such tries.
//   - Agents map to team members: a run has at most the team manager's
//     maximum team size of distinct agents (ErrInvalidRun beyond).
//   - A crew's or swarm's tasks are on its team's board, not in the run's
//     steps: workflows status shows the turns; the board (ListTasks) the
//     tasks. Cancel finishes the run and its team, and leaves the board's
//     open tasks open: as they are, but a task in progress, whose member
//     the cancel fails, goes back to pending unassigned (the board
//     requeues a failed member's tasks: "member M is failed").
//   - One DriveLed per crew or swarm run at a time (see DriveLed): a
//     driver writes only while it holds the run, each write checking
//     that in itself (WithDriver).
//   - A run whose team was disbanded (its graphs read-only) or deleted
//     fails, with reason "team TEAM was disbanded" or "team TEAM was
//     deleted", at its next write or, for a crew or swarm, its next Ready
//     (a DriveLed that finds the team gone or read-only makes that call
//     itself); until then Get shows it as it was. Cancel of such a run
//     cancels it without touching the team.
//   - A council's votes are not in its team until the final tally: the
//     team's findings and member graphs hold each member's last ballots
//     only. A council cancelled before its final tally writes none.
//   - A council member's AddFindings returns no ids (votes get finding
//     ids when they are written to the team).
package workflow
