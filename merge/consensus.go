package merge

import (
	"context"
	"strconv"
	"strings"

	"github.com/cayleygraph/quad"
)

// NameConsensus is the name of the Consensus strategy in the built-in registry.
const NameConsensus = "consensus"

// ReasonNoConsensus is the conflict reason of Consensus: no ballot gathered the required agreement
// and the tie-breaker cast none on the topic.
const ReasonNoConsensus = "no-consensus"

// Consensus is the strategy of a council: the completed members are the voters, and each voter's
// ballot on a topic is the set of objects it asserted there (usually one). Voters agree on a topic
// when they cast the same ballot. On each topic the ballot cast by the most voters wins when it is
// cast by at least Options.Threshold of all the voters (the completed members, not only those that
// spoke on the topic: silence does not agree) and by more voters than any other ballot. Otherwise,
// when Options.TieBreaker is a voter that cast a ballot on the topic, that ballot wins; else the topic
// becomes a conflict with reason ReasonNoConsensus.
//
// Unlike majority-wins, the test is "at least" (a Threshold of 0.66 is met by 2 of 3 voters, and so
// is 2/3), with a tolerance of 1e-9 for floating-point error, and a ballot of several objects keeps
// all of them. Two ballots each cast by half of the voters meet a Threshold of 0.5 but neither has
// more voters than the other: a tie, which only the tie-breaker decides.
type Consensus struct{}

// Merge implements Strategy.
func (c Consensus) Merge(in Input) (Result, error) { return c.MergeContext(context.Background(), in) }

// MergeContext implements ContextStrategy.
func (Consensus) MergeContext(ctx context.Context, in Input) (Result, error) {
	voters := 0
	for _, m := range in.Members {
		if m.Status == Completed {
			voters++
		}
	}
	return run(ctx, NameConsensus, in, func(v TopicView, o Options) Decision { return decideConsensus(v, o, voters) })
}

// ballot is one distinct ballot on a topic: a set of objects and the agents that cast it.
type ballot struct {
	Objects []quad.Value // sorted by CompareTerms
	Agents  []string     // sorted
}

// ballots returns the distinct ballots cast on v's topic, most voters first, then by their objects.
func ballots(v TopicView) []ballot {
	var out []ballot
	index := map[string]int{}
	var cur []quad.Value
	flush := func(agent string) {
		// Each object's key with its length before it: a key may hold any byte, so that a
		// separator alone would let {"p", "q"} and one object holding both keys collide.
		var sb strings.Builder
		for _, o := range cur {
			k, _ := ObjectKey(o) // valid: the objects of a TopicView are normalised
			sb.WriteString(strconv.Itoa(len(k)))
			sb.WriteByte(':')
			sb.WriteString(k)
		}
		k := sb.String()
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, ballot{Objects: cur})
		}
		out[i].Agents = append(out[i].Agents, agent)
		cur = nil
	}
	for i, c := range v.Claims { // sorted by agent, then object
		cur = append(cur, c.Object)
		if i+1 == len(v.Claims) || v.Claims[i+1].Agent != c.Agent {
			flush(c.Agent)
		}
	}
	sortBallots(out)
	return out
}

func sortBallots(bs []ballot) {
	cmpObjs := func(a, b []quad.Value) int {
		for i := 0; i < len(a) && i < len(b); i++ {
			if c := CompareTerms(a[i], b[i]); c != 0 {
				return c
			}
		}
		return len(a) - len(b)
	}
	for i := 1; i < len(bs); i++ { // insertion sort: few ballots
		for j := i; j > 0; j-- {
			a, b := &bs[j-1], &bs[j]
			c := len(b.Agents) - len(a.Agents)
			if c == 0 {
				c = cmpObjs(a.Objects, b.Objects)
			}
			if c <= 0 {
				break
			}
			bs[j-1], bs[j] = bs[j], bs[j-1]
		}
	}
}

// agreed reports whether votes of voters meet threshold (at least threshold × voters, with a 1e-9
// tolerance; a threshold of 0 is DefaultThreshold).
func agreed(votes, voters int, threshold float64) bool {
	if !(threshold > 0) {
		threshold = DefaultThreshold
	}
	return voters > 0 && float64(votes) >= threshold*float64(voters)-confidenceEpsilon
}

// decideConsensus decides one topic for Consensus among voters voters (see Consensus).
func decideConsensus(v TopicView, o Options, voters int) Decision {
	bs := ballots(v)
	top := bs[0]
	if agreed(len(top.Agents), voters, o.Threshold) && (len(bs) == 1 || len(bs[1].Agents) < len(top.Agents)) {
		return Decision{Keep: top.Objects}
	}
	if o.TieBreaker != "" {
		for _, b := range bs {
			for _, a := range b.Agents {
				if a == o.TieBreaker {
					return Decision{Keep: b.Objects}
				}
			}
		}
	}
	return Decision{Conflict: ReasonNoConsensus}
}
