package merge

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/cayleygraph/quad"
)

// Status is the lifecycle state of a team member. Only findings of Completed members are merged.
type Status string

// Member states.
const (
	Pending   Status = "pending"
	Running   Status = "running"
	Completed Status = "completed"
	Failed    Status = "failed"
)

// Valid reports whether s is one of the four known states.
func (s Status) Valid() bool {
	switch s {
	case Pending, Running, Completed, Failed:
		return true
	}
	return false
}

// Member is an agent of a team and its state at merge time.
type Member struct {
	Agent       string
	Status      Status
	CompletedAt time.Time // when the member completed; the zero time sorts before every other time
	// Role and Critical describe the member as the team was configured (a critical member's
	// failure fails the team). The built-in strategies do not use them; custom strategies may,
	// e.g. to weigh a lead's findings.
	Role     string
	Critical bool
}

// Team is the context of the team whose findings are merged. The built-in strategies do not use it;
// custom strategies may. A host merging findings that belong to no team leaves it zero.
type Team struct {
	ID      string // the team's id
	Name    string
	Context string // free-form goal or instructions the team was given
}

// Finding is one statement asserted by an agent.
//
// Subject must be a quad.IRI or quad.BNode, Predicate a quad.IRI, and Object one of quad.IRI,
// quad.BNode, quad.String, quad.LangString or quad.TypedString (a TypedString with datatype xsd:string
// is read as the plain quad.String). Confidence is in [0, 1]; 0 means "unspecified" and counts as 1
// (full confidence), so an agent cannot express "zero confidence" other than by not asserting.
type Finding struct {
	ID         string // non-empty; carried into Fact.FindingIDs for provenance, never used for ordering
	Agent      string
	Subject    quad.Value
	Predicate  quad.Value
	Object     quad.Value
	Confidence float64
	AssertedAt time.Time // used by newest-wins; the zero time sorts before every other time
}

// Topic is a (subject, predicate) pair: the unit on which strategies decide.
type Topic struct {
	Subject   quad.Value
	Predicate quad.Value
}

// Key returns a canonical text form of the topic: the N-Triples forms of subject and predicate separated
// by a space, e.g. `<http://ex/a> <http://ex/p>`. Equal topics have equal keys.
func (t Topic) Key() string {
	var sb strings.Builder
	writeNodeNT(&sb, t.Subject)
	sb.WriteByte(' ')
	writeNodeNT(&sb, t.Predicate)
	return sb.String()
}

// Compare orders topics by subject, then predicate, with CompareTerms.
func (t Topic) Compare(u Topic) int {
	if c := CompareTerms(t.Subject, u.Subject); c != 0 {
		return c
	}
	return CompareTerms(t.Predicate, u.Predicate)
}

// ConflictID returns the id of the conflict record for this topic: "c" followed by 32 lower-case hex
// digits of the SHA-256 of Key. It depends only on the topic, so it is stable across re-merges, and it
// uses only characters that are safe in an IRI path segment or a prefixed-name local part.
func (t Topic) ConflictID() string {
	sum := sha256.Sum256([]byte(t.Key()))
	return "c" + hex.EncodeToString(sum[:16])
}

// Options tune a merge. The zero value is valid.
type Options struct {
	// Threshold is the fraction of the members that spoke on a topic which an object must exceed to win
	// under majority-wins: an object is kept when votes > Threshold × speakers. 0 means DefaultThreshold
	// (0.5, "more than half"); 1 means unanimity (every speaker). Consensus uses it too, as "at least
	// Threshold of all the voters" (see Consensus). Must be in [0, 1].
	Threshold float64
	// TieBreaker is the agent id whose choice breaks ties (see each strategy). Empty means none.
	TieBreaker string
	// Now is the merge time, injected by the caller; it is copied into Report.MergedAt. Merge never reads
	// the clock.
	Now time.Time
}

// DefaultThreshold is the majority threshold used when Options.Threshold is 0.
const DefaultThreshold = 0.5

// Input is everything a merge reads. Strategies never modify it.
type Input struct {
	Team        Team // the team being merged; its members, with role and criticality, are Members
	Members     []Member
	Findings    []Finding
	Resolutions []Resolution
	Options     Options
}

// Result is the outcome of a merge. Every slice in it is sorted and non-nil.
type Result struct {
	Strategy  string     // the name the strategy was run under
	Facts     []Fact     // sorted by subject, predicate, object (CompareTerms)
	Conflicts []Conflict // sorted by topic
	Report    Report
}

// Fact is a statement the merge keeps.
type Fact struct {
	Subject    quad.Value
	Predicate  quad.Value
	Object     quad.Value
	Supporters []string // sorted agent ids of the completed members that asserted this object on this topic
	FindingIDs []string // sorted, de-duplicated ids of their findings
	ResolvedBy string   // Resolution.By when the fact comes from a resolution, else empty
	// Confidence is the fused confidence of the fact, in [0, 1], as the strategy computed it. For
	// every built-in strategy but confidence-weighted it is the highest confidence among the
	// supporters' findings of the fact (a finding's unspecified 0 counting as 1), and 1 for a fact no
	// completed member asserted (an object chosen by a resolution only); confidence-weighted gives the
	// winner's share of the weighted vote (see ConfidenceWeighted). A Decider may set its own
	// (Decision.Confidence). 0 from a custom Strategy means "unspecified": a host computes the default.
	Confidence float64
}

// Conflict is a topic the strategy could not decide. Nothing is written for it until it is resolved.
type Conflict struct {
	ID         string // Topic.ConflictID()
	Topic      Topic
	Candidates []Candidate // one per distinct object, sorted by object
	Reason     string      // one of the Reason constants, or a custom strategy's reason
}

// Reasons given in Conflict.Reason by the built-in strategies.
const (
	ReasonDisagreement  = "disagreement"    // conflict-flag: the speaking members asserted different objects
	ReasonNoMajority    = "no-majority"     // majority-wins: no object passed the threshold
	ReasonNoClearWinner = "no-clear-winner" // confidence-weighted: the top object did not beat the runner-up by the margin
)

// Candidate is one object proposed on a conflicting topic and who proposed it.
type Candidate struct {
	Object     quad.Value
	Agents     []string // sorted
	FindingIDs []string // sorted
}

// Resolution is a manual decision on a topic. It replaces the strategy's output for that topic
// whatever the strategy would have decided: its Objects (spelled as given, duplicates removed) become
// facts with ResolvedBy set — their Supporters are the completed members that asserted that object, if
// any — and no conflict is reported. An empty Objects resolves the topic to "nothing".
//
// Topic identifies the topic; when Topic is the zero value, ConflictID is used to find it among the
// topics completed members spoke on. When both are given they must agree. When several resolutions
// name one topic, the one with the latest At wins.
type Resolution struct {
	ConflictID string
	Topic      Topic
	Objects    []quad.Value
	By         string // who resolved it; required
	At         time.Time
}

// Report summarises a merge.
type Report struct {
	Members   []MemberReport // one per input member, sorted by agent
	Topics    int            // distinct topics spoken on by completed members or resolved
	Kept      int            // len(Result.Facts)
	Conflicts int            // len(Result.Conflicts)
	Ignored   int            // findings ignored because their agent is not a completed member
	MergedAt  time.Time      // Options.Now
}

// MemberReport says what one member contributed. A member's claims are its distinct (topic, object)
// pairs: asserting the same object twice counts once.
type MemberReport struct {
	Agent       string
	Status      Status
	Contributed int // distinct claims taken into the merge (0 unless the member completed)
	Kept        int // of those, the claims that became facts (the member is among the fact's Supporters)
	Ignored     int // findings ignored because the member did not complete
}
