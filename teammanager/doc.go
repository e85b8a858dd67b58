// Package teammanager runs teams of AI agents whose state, findings and
// merged knowledge are RDF in a Cortex namespace.
//
// A Manager creates teams (CreateTeam), moves their members through the
// lifecycle pending → running → completed | failed (UpdateMemberStatus),
// records findings (AddFinding, AddFindings, ImportFindings), merges the
// findings of the completed members with a strategy of package merge
// (MergeTeamResults, automatically when a team completes), manages the
// conflicts a strategy leaves open (Conflicts, ResolveConflict) and runs
// SPARQL over all of it with the namespace's prefixes and bound parameters
// (Query).
//
// # Data
//
// Everything is stored as plain triples in the layout of package namespace,
// so SPARQL can ask about it: the team graph holds the team node (name,
// status, strategy, createdAt, updatedAt, prov:startedAtTime, completedAt,
// timeout, team:error ...) and one member node per agent (agent, role, task,
// status, joinedAt, completedAt, result, critical). A member's graph holds
// each finding as the plain triple and as a finding node (rdf:subject,
// rdf:predicate, rdf:object, finding:assertedBy, finding:assertedAt,
// finding:confidence). The shared graph holds exactly the fused facts. Each
// fused fact is also in exactly one fact set, a named graph per attribution
// (supporting agents, confidence, resolver), which the provenance graph
// describes in PROV-O terms beside the merge runs; the findings behind a
// fact are its supporters' findings of the same triple (up to the case of a
// language tag, which merges compare case-insensitively). The conflict graph
// holds the conflict records and their resolutions.
//
// Beside the triples, the store keeps a team table (a cortex side table):
// a row per team with the fields ListTeams returns, written by every
// Manager write in the same atomic step. ListTeams reads it while it is
// current, i.e. while no other writer (an import, a host's own delta) has
// changed the namespace's quads since; otherwise it lists from the triples
// and rebuilds the table when the namespace's write lock is free (New does
// the same). The triples stay the truth: the table only mirrors them.
//
// # Team status
//
// The team's status follows its members in the same atomic write as the
// member update: running when the first member starts, completed when every
// member is completed or failed and at least one completed, failed when all
// failed or when a member marked critical fails. A team running longer than
// its timeout is failed: reads (GetTeam, ListTeams, IsTeamComplete) report
// it as failed at once, the next write to the team records it (and is
// refused with ErrTeamFinished), and Sweep records it for every such team.
// The recorded completion time is the exact expiry time, whatever the time
// of the write. Time comes from Config.WithClock.
//
// # Concurrency
//
// A Manager is safe for concurrent use. Every change to a team (creation,
// member update, finding, resolution) is an atomic read-modify-write under
// the namespace's writer lock (cortex.Namespace.Update): concurrent updates
// are serialised and none is lost. Merges of one team are serialised within
// a Manager. Two Managers over the same namespace do not share that lock: a
// merge computes its writes from what it read and writes them only if, at
// that moment, the team still exists, still links the run it read and has
// the same resolved conflicts (else it starts again, up to 8 times, then
// fails with ErrConcurrentMerge), so a merge never writes a result computed
// against a state that another Manager has changed.
//
// # Caveats
//
//   - MergeTeamResults, AddFindings and ImportFindings are atomic at any
//     size; past a few hundred facts or findings the store journals the
//     write and holds its other transactions back while it commits (see
//     cortex.Namespace.Apply).
//   - Finding ids are derived from their content (author, triple, time,
//     confidence): asserting the same finding twice stores it once.
//   - Findings of members that did not complete are kept but never merged.
//   - An error caused by the end of the caller's context keeps its cause
//     (context.Cause: errors.Is matches context.Canceled and the cause) for
//     New, the team and finding methods and Query; MergeTeamResults,
//     Conflicts and ResolveConflict add it when they stop while reading the
//     team or its findings.
package teammanager
