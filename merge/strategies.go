package merge

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/cayleygraph/quad"
)

// Names of the built-in strategies.
const (
	NameAdditive           = "additive"
	NameReplace            = "replace"
	NameNewestWins         = "newest-wins"
	NameMajorityWins       = "majority-wins"
	NameConflictFlag       = "conflict-flag"
	NameConfidenceWeighted = "confidence-weighted"
	// NameConsensus ("consensus") is declared with Consensus.
)

// builtins is the table of built-in strategies registered in the default registry and by
// RegisterBuiltins.
func builtins() []struct {
	name string
	s    Strategy
} {
	return []struct {
		name string
		s    Strategy
	}{
		{NameAdditive, PerTopic(NameAdditive, DecideAdditive)},
		{NameReplace, PerTopic(NameReplace, DecideReplace)},
		{NameNewestWins, PerTopic(NameNewestWins, DecideNewestWins)},
		{NameMajorityWins, PerTopic(NameMajorityWins, DecideMajorityWins)},
		{NameConflictFlag, PerTopic(NameConflictFlag, DecideConflictFlag)},
		{NameConfidenceWeighted, ConfidenceWeighted{Margin: DefaultConfidenceMargin}},
		{NameConsensus, Consensus{}},
	}
}

// DecideAdditive keeps every distinct object of the topic. A member asserting several objects
// contributes all of them. It never reports a conflict.
func DecideAdditive(v TopicView, _ Options) Decision {
	return Decision{Keep: v.Objects()}
}

// DecideReplace is "last writer wins": it keeps every object asserted by the speaking member that
// completed last (so a member asserting several objects has all of them kept when it wins). When several
// speakers share the latest completion time, Options.TieBreaker wins if it is one of them; otherwise the
// objects of all of them are kept. It never reports a conflict.
func DecideReplace(v TopicView, o Options) Decision {
	var latest time.Time
	for i, c := range v.Claims {
		if i == 0 || c.CompletedAt.After(latest) {
			latest = c.CompletedAt
		}
	}
	winners := map[string]bool{}
	for _, c := range v.Claims {
		if c.CompletedAt.Equal(latest) {
			winners[c.Agent] = true
		}
	}
	if o.TieBreaker != "" && winners[o.TieBreaker] {
		winners = map[string]bool{o.TieBreaker: true}
	}
	var keep []quad.Value
	for _, c := range v.Claims {
		if winners[c.Agent] {
			keep = append(keep, c.Object)
		}
	}
	return Decision{Keep: keep}
}

// DecideNewestWins keeps the single object of the most recent finding on the topic (by
// Finding.AssertedAt, never by id). A member's several objects compete as separate findings. When
// different objects were asserted at the same latest instant, those asserted by Options.TieBreaker are
// preferred if it is among them, and the remaining tie goes to the object that sorts first under
// CompareTerms. It never reports a conflict.
func DecideNewestWins(v TopicView, o Options) Decision {
	var latest time.Time
	for i, c := range v.Claims {
		if i == 0 || c.AssertedAt.After(latest) {
			latest = c.AssertedAt
		}
	}
	var tied []Claim
	byTieBreaker := false
	for _, c := range v.Claims {
		if c.AssertedAt.Equal(latest) {
			tied = append(tied, c)
			byTieBreaker = byTieBreaker || (o.TieBreaker != "" && c.Agent == o.TieBreaker)
		}
	}
	var best quad.Value
	for _, c := range tied {
		if byTieBreaker && c.Agent != o.TieBreaker {
			continue
		}
		if best == nil || CompareTerms(c.Object, best) < 0 {
			best = c.Object
		}
	}
	return Decision{Keep: []quad.Value{best}}
}

// DecideMajorityWins keeps every object asserted by more than Options.Threshold of the members that
// spoke on the topic (by default more than half; a Threshold of 1 requires every speaker). Each member
// has at most one vote per object, however often it asserted it. A member asserting several objects
// votes for each of them (approval voting), so with several such members more than one object can pass.
// Votes are compared with Threshold × speakers with a tolerance of 1e-9 for floating-point error, so
// exactly that many votes never passes (29 of 50 speakers at a Threshold of 0.58); the votes of every
// speaker always pass.
//
// When no object passes and two or more objects share the highest vote count, Options.TieBreaker decides
// if it spoke on the topic and voted for exactly one of those leaders. Otherwise the topic becomes a
// conflict with reason ReasonNoMajority.
func DecideMajorityWins(v TopicView, o Options) Decision {
	n := len(v.Speakers())
	votes := map[quad.Value]int{}
	for _, c := range v.Claims {
		votes[c.Object]++
	}
	threshold := o.Threshold
	if !(threshold > 0) { // called directly with zero Options
		threshold = DefaultThreshold
	}
	pass := func(k int) bool {
		if threshold >= 1 || k == n {
			// Unanimity passes every threshold (votes > Threshold × speakers for any Threshold
			// below 1), also one within the tolerance of 1.
			return k == n
		}
		// The tolerance keeps "exactly Threshold × speakers" from passing when the product is
		// rounded down (0.58 × 50 is 28.999999999999996 in float64).
		return float64(k) > threshold*float64(n)+confidenceEpsilon
	}
	objs := v.Objects()
	var keep []quad.Value
	top := 0
	for _, obj := range objs {
		if pass(votes[obj]) {
			keep = append(keep, obj)
		}
		top = max(top, votes[obj])
	}
	if len(keep) > 0 {
		return Decision{Keep: keep}
	}
	var leaders []quad.Value
	for _, obj := range objs {
		if votes[obj] == top {
			leaders = append(leaders, obj)
		}
	}
	if len(leaders) > 1 && o.TieBreaker != "" {
		var chosen []quad.Value
		for _, c := range v.Claims {
			if c.Agent == o.TieBreaker && slices.Contains(leaders, c.Object) {
				chosen = append(chosen, c.Object)
			}
		}
		if len(chosen) == 1 {
			return Decision{Keep: chosen}
		}
	}
	return Decision{Conflict: ReasonNoMajority}
}

// DecideConflictFlag keeps the topic's objects when every speaking member asserted exactly the same set
// of objects (a single speaker always agrees with itself, and a member asserting several objects agrees
// only with members asserting the same several). Otherwise the topic becomes a conflict with reason
// ReasonDisagreement.
func DecideConflictFlag(v TopicView, _ Options) Decision {
	sets := map[string][]quad.Value{}
	for _, c := range v.Claims { // sorted by agent, then object
		sets[c.Agent] = append(sets[c.Agent], c.Object)
	}
	var first []quad.Value
	for _, a := range v.Speakers() {
		if first == nil {
			first = sets[a]
		} else if !slices.Equal(first, sets[a]) {
			return Decision{Conflict: ReasonDisagreement}
		}
	}
	return Decision{Keep: first}
}

// DefaultConfidenceMargin is the margin of the registered confidence-weighted strategy: the top object
// must merely score strictly more than the runner-up.
const DefaultConfidenceMargin = 0

// confidenceEpsilon absorbs floating-point error in sums of confidences: scores closer than this are
// treated as equal.
const confidenceEpsilon = 1e-9

// ConfidenceWeighted is a strategy that weighs each vote by the voter's confidence. On each topic an
// object's score is the sum, over the members that asserted it, of each member's highest confidence in
// it (one weighted vote per member and object; a member asserting several objects votes for each). The
// highest-scoring object is kept alone if its score exceeds the runner-up's (0 when there is none) by
// more than Margin; otherwise the topic becomes a conflict with reason ReasonNoClearWinner. Scores are
// summed in agent order and compared with a tolerance of 1e-9, so the outcome does not depend on input
// order or on floating-point rounding; an object alone on its topic is kept under a Margin of 0 whatever
// its score. Options.Threshold and Options.TieBreaker are not used.
//
// The kept fact's Confidence is the winner's share of the weighted vote: its score divided by the
// number of members that spoke on the topic (1 when every speaker asserted it with full confidence;
// 0.45 when one of two speakers asserted it with confidence 0.9).
//
// It is registered as "confidence-weighted" with Margin DefaultConfidenceMargin; hosts wanting a
// different margin register their own value under another name.
type ConfidenceWeighted struct {
	Margin float64 // >= 0, in units of confidence (1 = one fully confident vote)
}

// Merge implements Strategy.
func (cw ConfidenceWeighted) Merge(in Input) (Result, error) {
	return cw.MergeContext(context.Background(), in)
}

// MergeContext implements ContextStrategy.
func (cw ConfidenceWeighted) MergeContext(ctx context.Context, in Input) (Result, error) {
	if math.IsNaN(cw.Margin) || cw.Margin < 0 || math.IsInf(cw.Margin, 0) {
		return Result{}, fmt.Errorf("confidence margin %v: %w", cw.Margin, ErrInvalidOptions)
	}
	return run(ctx, NameConfidenceWeighted, in, cw.decide)
}

func (cw ConfidenceWeighted) decide(v TopicView, _ Options) Decision {
	score := map[quad.Value]float64{}
	for _, c := range v.Claims { // sorted by agent: a fixed summation order
		score[c.Object] += c.Confidence
	}
	objs := v.Objects()
	slices.SortStableFunc(objs, func(a, b quad.Value) int { return cmp.Compare(score[b], score[a]) })
	runnerUp := 0.0
	if len(objs) > 1 {
		runnerUp = score[objs[1]]
	}
	// An object alone on its topic beats the runner-up's 0 by its score,
	// a sum of positive confidences, which no rounding makes 0: under a
	// margin of 0 it is kept however small its score (the tolerance is
	// for comparing two sums).
	if score[objs[0]]-runnerUp > cw.Margin+confidenceEpsilon || len(objs) == 1 && cw.Margin == 0 {
		share := min(score[objs[0]]/float64(len(v.Speakers())), 1)
		return Decision{Keep: objs[:1], Confidence: []float64{share}}
	}
	return Decision{Conflict: ReasonNoClearWinner}
}
