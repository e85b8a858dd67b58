// Package merge fuses the findings of a team's agents into facts and conflict records.
//
// It is pure: it never touches storage, never reads the clock (the merge time comes in through
// Options.Now) and never modifies its input. The team manager reads members, findings and resolutions
// from the graph, calls a Strategy, and writes the Result back.
//
// # Model
//
// A Finding is one statement (subject, predicate, object) asserted by one agent. A Topic is a
// (subject, predicate) pair; strategies decide topic by topic which objects to keep. Only findings of
// members whose Status is Completed are merged; the others are counted in Report.Ignored.
//
// One member has at most one vote per object on a topic: repeated findings of the same object by the
// same member collapse into one Claim (its ids are all kept for provenance, its confidence is the highest
// and its time the latest). A member asserting several different objects on one topic makes several
// claims; what that means is documented on each strategy (DecideAdditive, DecideReplace,
// DecideNewestWins, DecideMajorityWins, DecideConflictFlag, ConfidenceWeighted, and Consensus, whose
// ballot is the set of objects a member asserted).
//
// Objects are compared as RDF terms: a literal typed xsd:string is the plain string, and language tags
// compare case-insensitively (the spelling that sorts first by bytes is kept in the output).
//
// A Fact carries the fused Confidence its strategy computed: for the built-ins but confidence-weighted,
// the highest confidence among its supporters' findings (1 for an object only a resolution chose);
// confidence-weighted gives the winner's share of the weighted vote.
//
// # Determinism
//
// A Result depends only on the set of members, findings and resolutions, never on their order: every
// slice in it is sorted (facts by subject, predicate and object under CompareTerms) and every tie is
// broken by a documented rule. Finding ids are provenance only; "newest" is decided by
// Finding.AssertedAt and "last writer" by Member.CompletedAt. Merging the same input twice gives the
// same Result, and resolutions passed back in keep applying on every re-merge.
//
// # Conflicts and resolutions
//
// Some strategies turn undecidable topics into Conflict records whose ID (Topic.ConflictID) depends only
// on the topic. A host resolves one by passing a Resolution for that topic in the next Input; a
// resolution replaces the strategy's output for its topic with the chosen objects (Fact.ResolvedBy set).
//
// # Extending
//
// Strategies are looked up by name in a Registry. The package-level Register, Lookup, Names and Merge
// use a default registry holding the built-ins. PerTopic turns a per-topic Decider into a full Strategy
// with all of the above (validation, claims, resolutions, report, sorting) done for it.
//
// A strategy sees the team it merges: Input.Team (id, name, goal) and, per member, its Role and whether
// it is Critical (Input.Members; a Decider finds them on each Claim and in TopicView.Team), so a custom
// strategy can, say, let the lead's findings win.
//
// A strategy that may take long should implement ContextStrategy (PerTopic strategies and the built-ins
// do): a host with a context (MergeWith, the team manager) calls its MergeContext and expects it to stop
// when the context ends. A plain Strategy cannot be stopped. MergeWith runs either in a goroutine of its
// own and, when the context ends first, returns the context's error and leaves that goroutine to finish,
// its result discarded: a ContextStrategy that does not watch its context does not hold the caller.
//
// # Concurrency
//
// Registry methods and the package-level functions are safe for concurrent use. The built-in strategies
// hold no state and may be called from many goroutines at once; custom strategies must be as well (a
// plain Strategy that MergeWith stopped waiting for may still run beside the next merge).
//
// # Caveats
//
// Confidence 0 means "unspecified" and counts as full confidence (1). Invalid input (malformed terms,
// confidences outside [0, 1], unknown statuses, duplicate members) is reported as an error, never a
// panic; findings of members that did not complete are not validated, since they are ignored.
// majority-wins uses a strict "more than Threshold" test, so "at least two thirds" is a threshold just
// below 2/3 (e.g. 0.66), not 2/3 itself; consensus (a council's rule) uses "at least".
package merge
