// Package teammanager runs teams of AI agents whose state, findings and
// merged knowledge are RDF in a Cortex namespace.
//
// A Manager creates teams (CreateTeam), moves their members through the
// lifecycle pending → running → completed | failed (UpdateMemberStatus),
// records findings (AddFinding, AddFindings, ImportFindings), merges the
// findings of the completed members with a strategy of package merge
// (MergeTeamResults, automatically when a team finishes), reads the merged
// knowledge back without merging again (Facts), manages the conflicts a
// strategy leaves open (Conflicts, ResolveConflict) and runs SPARQL over
// all of it with the namespace's prefixes and bound parameters (Query).
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
// (supporting agents, resolver, fused confidence), which the provenance
// graph describes in PROV-O terms beside the merge runs; the findings behind
// a fact are its supporters' findings of the same triple (up to the case of
// a language tag, which merges compare case-insensitively). The conflict
// graph holds the conflict records and their resolutions. Every fact set
// description (fact:team) and conflict record (conflict:team) names its
// team node, so "per team" is one SPARQL pattern.
//
// Beside the triples, the store keeps a team table (a cortex side table):
// a row per team with the fields ListTeams returns, written by every
// Manager write in the same atomic step. ListTeams reads it while it is
// current, i.e. while no other writer (an import, a host's own delta) has
// changed the namespace's quads since; otherwise it lists from the triples
// and rebuilds the table when the namespace's write lock is free (New does
// the same). The triples stay the truth: the table only mirrors them.
//
// # Provenance cost
//
// A fused fact costs one quad of provenance: its copy in its fact set. The
// sets' descriptions (type, team, run, time, confidence, an attribution per
// supporter, the resolver) are shared by all the facts of a set. To keep
// their number bounded whatever confidences agents report (LLM agents give
// arbitrary floats), the fused confidence is stored rounded to the nearest
// 0.01 (a positive value never to 0): a team has at most 100 fact sets per
// distinct supporters and resolver. Merging 20,000 facts asserted by random
// subsets of 4 agents with random confidences writes about 1.5 provenance
// quads per fact (TestManager_Provenance_Bounded), against about 8 when
// sets were keyed by exact confidences. MergeReport.Facts and Facts carry
// the rounded value. The bound is per team, so small teams pay more per
// fact: 200 facts with random confidences from 4 agents still take about
// 7.5 quads each (most get a set of their own), 1.5 when agents report few
// distinct confidences.
//
// # Team status
//
// The team's status follows its members in the same atomic write as the
// member update: running when the first member starts, completed when every
// member is completed or failed and at least one completed, failed when all
// failed or when a member marked critical fails. A team running longer than
// its timeout is failed: reads (GetTeam, ListTeams, IsTeamComplete) report
// it as failed at once, the next write to the team records it (and is
// refused with ErrTeamFinished), Sweep records it for every such team, and
// GetTeam records it when that makes a merge due (see below). The
// recorded completion time is the exact expiry time, whatever the time
// of the write. Time comes from Config.WithClock.
//
// # Lifecycle
//
// Beside its status, a team has a led lifecycle (Team.Lifecycle, stored as
// team:lifecycle:status so SPARQL sees it): forming → active ⇄ paused →
// completed | disbanded, every move checked by CanTransition. Three states
// follow the status — forming while it is pending, active while running,
// completed once completed or failed — and two are an operator's:
//
//   - PauseTeam (active → paused) and ResumeTeam (paused → active): while
//     paused, member updates and findings are refused with ErrTeamPaused
//     and the timeout clock stops (the time paused is added to the
//     deadline: team:lifecycle:pausedFor), as do the leases of its claimed
//     tasks; reads, queries and merges go on. ResumeTeam refuses a team
//     that is not paused.
//   - DisbandTeam (forming, active or paused → disbanded): the team keeps
//     its graphs, read-only (every write is refused with ErrTeamDisbanded),
//     until it is deleted. No merge runs.
//
// DeleteTeam deletes only a completed or disbanded team (ErrTeamActive
// otherwise). Each move is one atomic write with its team.status event.
//
// # Merges that always happen
//
// With auto-merge on (the default), a team that finishes with at least one
// completed member — it completes, fails because a critical member failed,
// or times out — is merged, and reads as not merged until it is: the write
// that finishes it records in the same atomic step that a merge is due
// (team:merge:status "interrupted"; Team.Merged false, Team.MergePending
// MergeInterrupted), and a successful merge clears that in the step that
// writes it. A team all of whose members failed has nothing to merge.
// ResolveConflict on a finished team records the marker too, in the write
// of the resolution, and its re-merge clears it: a re-merge that fails
// leaves the team due, not reading as merged with the facts of before.
//
// Where it runs: in the call that made the write (UpdateMemberStatus, a
// write or Sweep that records a timeout), after the write commits and
// before the call returns, detached from the caller's context
// (context.WithoutCancel, bounded as below): a caller that gives up (a
// cancelled agent context) cannot stop it. A merge that fails is recorded
// (MergePending MergeFailed, MergeError, MergeErrorKind) and reported as
// an *AutoMergeError; one stopped by a crash stays interrupted. The
// strategy of every automatic merge (this one, and the retries of the
// retry points below but MergeTeamResults by hand) is bounded by
// AutoMergeTimeout, from when it starts: the time the merge waited for
// another merge of the team before, or for its write after, does not
// count (each wait has a bound of its own, see AutoMergeTimeout). A merge
// whose strategy reaches it (a custom strategy that does not return) is
// recorded as failed, with MergeErrorKind
// MergeErrorKindTimeout (team:merge:errorKind "timeout", beside a
// MergeError that begins "automatic merge timed out"; a failure recorded
// by an older version, without a kind, is told by that text), and no
// retry point runs it again,
// so that reads, writes and Sweep do not each wait for a stuck strategy
// in turn; MergeTeamResults runs it again. A team that
// has timed out with a completed member but whose timeout no write has
// recorded yet reads as not merged too (GetTeam: MergePending
// MergeTimeout; ListTeams, which does not read members, only as failed).
//
// The retry points, and what each retries:
//
//   - New: interrupted merges (a crash leftover), best effort: a failure
//     there does not make New fail; it is recorded and left to the other
//     retry points (so an open does not retry the same failing merge
//     again and again). Not on a read-only store, nor with
//     WithOpenWrites(false): then Manager.OpenWrites does it, once, when
//     the host calls it (the server: at the first request of a token that
//     may write).
//   - GetTeam and IsTeamComplete: an interrupted merge, and a timeout not
//     recorded yet (MergeTimeout: the timeout and the due merge are
//     recorded in one write, as a write to the team would, then the team
//     is merged); under the caller's context, before returning the team
//     as it then reads. Never a failed merge (a read does not run a
//     failing merge on every call), never on a read-only store (known at
//     New: no strategy runs there), and never by waiting: if a merge of
//     the team runs in another goroutine of the Manager, the read returns
//     the team as stored. PeekTeam (GetTeam for callers that may not
//     write: the server's read-only tokens), Findings, Facts and
//     Conflicts only read, and so does PeekTeams (ListTeams for those
//     callers; ListTeams writes no team but rebuilds a stale team table).
//   - Sweep: the timeouts it records, then every other due merge
//     (interrupted or failed, but not timed out), each at most once per
//     call.
//   - The next write to the team, any due merge but a timed-out one: the
//     team is finished, so the write itself is refused with
//     ErrTeamFinished, which names `cortexctl teams merge TEAM` while the
//     team stays unmerged.
//   - MergeTeamResults, by hand.
//
// With auto-merge off nothing is recorded or retried: finished teams are
// merged by MergeTeamResults only.
//
// # Events
//
// Every write of the Manager records events of what it changed, in the
// same atomic step (cortex.Namespace.Update) as the change: an event is
// never recorded for a change that did not commit, and a committed change
// always has its events, also after a crash. The types (EventType) and
// their payloads are listed at Event: team.created (CreateTeam),
// member.status and, when the team's status changes, team.status
// (UpdateMemberStatus; a timeout that a write, Sweep or GetTeam records is
// a team.status too), findings.added (AddFinding, AddFindings,
// ImportFindings: one event per write and member, even when the group
// commit writes several calls together, split every MaxEventFindings
// findings and MaxEventRow bytes), merge.completed (a merge that writes
// its result, or an unchanged one that settles a due merge; an unchanged
// merge that writes nothing records nothing) with, before it,
// conflict.detected (the open conflicts that merge records for the first
// time, split every MaxEventRow bytes), conflict.resolved
// (ResolveConflict, whose re-merge then records its merge.completed) and
// team.deleted (DeleteTeam). A failed merge, recorded on its team, is
// not an event.
//
// Events live in two side tables of the store (cortex side.go): a row per
// event keyed by its id written as 20 decimal digits, so that key order is
// id order, one row holding the last id given, and one the id of the
// oldest event that retention left, where the reads of the oldest events
// start (a scan from the table's start would step over the tombstones of
// every event removed, which Badger keeps until it compacts them, and
// make each write past the retention limits slower than the one
// before). The id is allocated inside the Update, under the namespace's
// write lock, from the row of the last id: ids start at 1 and increase by
// one per event in commit order, so a reader never sees an id before the
// ids below it have committed (there are no gaps). A side table rather than quads in an events graph: events are a
// log, read by range (Namespace.SideRowsAfter), not a graph to query, and
// keeping them out of the quads keeps them out of SPARQL results, exports,
// the team table's currency and the quad counts.
//
// Retention (Config.WithEventRetention, default 7 days and 100,000 events)
// is enforced by the writes: each write that records events removes, in
// the same step, the oldest events past the limits, at most
// max(64, 2 × the events it adds), so the work per write is bounded and
// trimming keeps up. Events of the write itself are never removed.
//
// Subscribe(ctx, afterID) delivers the events after afterID in id order,
// then each new one once its write commits: every Manager of the namespace
// in the process wakes the subscribers after its writes (no polling).
// Subscribers read the store in pages, in their own goroutine, so a slow
// one never holds a writer back and never has an event dropped: if
// retention removed events it had not read, it gets one EventsLost event
// in their place. A subscription ends with an error matching
// cortex.ErrNoNamespace when cortex.Store.DeleteNamespace deletes the
// namespace (cortex.Namespace.Done), or cortex.ErrClosed when the store is
// closed. The server's /ns/{ns}/events route streams the same sequence as
// Server-Sent Events.
//
// # Task board and mailbox
//
// Each team has a task board (CreateTask, ClaimTask, ClaimNext,
// DispatchUnblocked, CompleteTask, ReviewTask, FailTask, AddTaskComment,
// Pause/Resume/Retry/Skip/CancelTask, SweepTasks, AddTaskFindings, and
// FinishTask: a member's findings, new tasks and result in one write) and a
// mailbox (SendMessage, Inbox, MarkMessages, Thread, History); see
// taskboard.go for the data layout. The lead is BoardSettings.Lead (by
// default the member with role "lead"). A failed or cancelled blocker
// keeps its dependents blocked (GoClaw unblocks them) and the lead is sent
// an escalation; the lead then retries it or skips it (a skipped task
// lets its dependents go ahead). A finished team's board, mailbox and
// plan take no writes — a team past its timeout is finished at once, as
// reads report it, before any write records it. Every change is one atomic write with
// its events (task.created, task.status, task.updated, message.sent);
// writes are group-committed (boardtx.go), so a claim is atomic: of
// concurrent claims of a task exactly one wins. A store is opened by one
// process at a time, so "across processes" means after a crash: an
// acknowledged claim is durable, and a claim whose member died returns
// to pending when its lease runs out.
//
// Delegation rules of agent definitions (allow_delegation, can_delegate_to,
// can_receive_from) are enforced on delegate_work messages and on task
// assignment when the host gives the Manager a DelegationFunc
// (Config.WithDelegation, delegation.go): teammanager does not read
// definitions itself. The ready queue and the inboxes are read from their
// heads (queuehead.go), so claims and sends do not slow down as the
// board's done rows pile up.
//
// # Concurrency
//
// A Manager is safe for concurrent use. Every change to a team (creation,
// member update, finding, resolution) is an atomic read-modify-write under
// the namespace's writer lock (cortex.Namespace.Update): concurrent updates
// are serialised and none is lost. Findings and member updates are
// group-committed: the AddFinding, AddFindings and UpdateMemberStatus calls
// that arrive while a write commits are written together in the next
// Update, one commit (one fsync) for all of them, in the order they
// arrived, each still checked against its team and member (as the calls
// before it in the batch left them) on its own and failing or succeeding
// on its own (a call whose quads the store refuses too: the others are
// written without it); a batch takes at most one member update per team. A
// call returns once its write is committed, so a crash never loses an
// acknowledged finding or update; the automatic merge an update makes due
// runs after that commit, in the caller's call. A batch
// reuses the team states the previous batch read when nothing else has
// written the namespace since (cortex.Tx.Generation tells); any other
// write, by this Manager or another one, makes it read them again. Merges of one
// team are serialised within a Manager, and a Manager's merges write one at
// a time: a burst of them (a host's teams finish together) holds the
// namespace's other writes back for one merge's write at most, not for all
// of them in turn. Two Managers over the same namespace do not share that lock: a
// merge computes its writes from what it read and writes them only if, at
// that moment, the team still exists, still links the run it read, has
// the same resolved conflicts and had no snapshot restored (else it starts
// again, up to 8 times, then
// fails with ErrConcurrentMerge), so a merge never writes a result computed
// against a state that another Manager has changed.
//
// # Caveats
//
//   - A merge strategy's result is checked before it is written: a
//     confidence outside [0, 1], a fact or conflict listed twice, a
//     conflict id that is not its topic's, or provenance the findings do
//     not bear out (a fact's supporters or finding ids other than the
//     completed members that asserted it and their findings of it, a fact
//     no one asserted and no resolution chose, a resolver other than its
//     topic's, an object a resolution chose that is no fact of the
//     result, a conflict on a topic with facts, on a resolved topic or
//     on one no completed member spoke on, a candidate without findings or with findings or
//     agents other than those of its object, a candidate listed twice or
//     an object of the topic left out) fails the merge
//     (merge.ErrInvalidDecision), and a strategy that panics fails it with
//     ErrStrategyPanicked; nothing is written.
//   - A merge runs its strategy under its context (merge.MergeWith): a
//     merge.ContextStrategy (the built-ins are) with MergeContext; a plain
//     custom merge.Strategy, which takes no context, with Merge; either in
//     a goroutine of its own that the merge stops waiting for when the
//     context ends (also if a ContextStrategy does not watch it). The merge
//     then fails with the context's error, writes nothing and releases the
//     team's merge lock; the strategy's goroutine is left to finish and its
//     result is discarded (a strategy that never returns keeps it forever).
//     MergeTeamResults, ResolveConflict and an automatic merge waiting for
//     the team's merge lock stop waiting, with the context's error, when
//     their context ends.
//   - Text (task subjects and descriptions, comments, messages, plans, a
//     team config, a member's result, a snapshot's note) must be valid
//     UTF-8.
//   - MergeTeamResults, AddFindings and ImportFindings are atomic at any
//     size; past a few hundred facts or findings the store journals the
//     write and holds its other transactions back while it commits (see
//     cortex.Namespace.Apply).
//   - Finding ids are derived from their content (author, triple, time,
//     confidence): asserting the same finding twice stores it once.
//   - Findings of members that did not complete are kept but never merged;
//     a merge counts them as ignored and lists those members as missing.
//   - The automatic merge makes the completing UpdateMemberStatus as slow
//     as a merge, and it does not return early when its context is
//     cancelled (up to AutoMergeTimeout for the strategy, and as much for
//     each of its waits).
//   - A merge of a team that had not finished when the merge read it (a
//     merge by hand of a running team) does not settle a due merge.
//   - An error caused by the end of the caller's context keeps its cause
//     (context.Cause: errors.Is matches context.Canceled and the cause) for
//     New, the team and finding methods and Query; MergeTeamResults,
//     Conflicts and ResolveConflict add it when they stop while reading the
//     team or its findings.
package teammanager
