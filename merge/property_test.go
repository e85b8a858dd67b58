package merge_test

import (
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/cayleygraph/quad"
	"github.com/cortexgraph/cortex/merge"
)

// randomInput builds a small messy team: ties in completion and assertion times, repeated findings,
// several objects per member and topic, language-case and xsd:string variants, failed and unknown agents.
func randomInput(rng *rand.Rand) merge.Input {
	statuses := []merge.Status{merge.Completed, merge.Completed, merge.Completed, merge.Failed, merge.Running, merge.Pending}
	var in merge.Input
	nm := 1 + rng.Intn(6)
	for i := range nm {
		in.Members = append(in.Members, merge.Member{
			Agent:       fmt.Sprintf("agent%d", i),
			Status:      statuses[rng.Intn(len(statuses))],
			CompletedAt: at(rng.Intn(4)),
		})
	}
	objects := []quad.Value{
		str("a"), str("b"), lang("a", "en"), lang("a", "EN"), lang("a", "en-gb"),
		quad.TypedString{Value: "a", Type: xsd + "string"},
		quad.TypedString{Value: "1", Type: xsd + "integer"}, quad.TypedString{Value: "01", Type: xsd + "integer"},
		ex("o1"), quad.BNode("b1"), str("a\x00b"),
	}
	subjects := []quad.Value{ex("s1"), ex("s2"), quad.BNode("s3")}
	preds := []quad.IRI{ex("p"), ex("q")}
	confs := []float64{0, 0.1, 0.2, 0.3, 0.5, 0.7, 1}
	nf := rng.Intn(40)
	for i := range nf {
		agent := fmt.Sprintf("agent%d", rng.Intn(nm+1)) // sometimes not a member
		in.Findings = append(in.Findings, merge.Finding{
			ID:         fmt.Sprintf("f%d", i%(nf/2+1)), // some ids repeat
			Agent:      agent,
			Subject:    subjects[rng.Intn(len(subjects))],
			Predicate:  preds[rng.Intn(len(preds))],
			Object:     objects[rng.Intn(len(objects))],
			Confidence: confs[rng.Intn(len(confs))],
			AssertedAt: at(rng.Intn(5)),
		})
	}
	if rng.Intn(2) == 0 {
		in.Options.TieBreaker = fmt.Sprintf("agent%d", rng.Intn(nm))
	}
	in.Options.Threshold = []float64{0, 0.3, 0.5, 0.66, 1}[rng.Intn(5)]
	in.Options.Now = at(1000)
	// Resolutions with distinct times, some on the same topic.
	for i := range rng.Intn(3) {
		r := merge.Resolution{
			Topic:   merge.Topic{Subject: subjects[rng.Intn(len(subjects))], Predicate: preds[rng.Intn(len(preds))]},
			By:      fmt.Sprintf("lead%d", rng.Intn(2)),
			At:      at(100 + i),
			Objects: []quad.Value{objects[rng.Intn(len(objects))], objects[rng.Intn(len(objects))]},
		}
		in.Resolutions = append(in.Resolutions, r)
	}
	return in
}

func shuffled(rng *rand.Rand, in merge.Input) merge.Input {
	out := cloneInput(in)
	rng.Shuffle(len(out.Members), func(i, j int) { out.Members[i], out.Members[j] = out.Members[j], out.Members[i] })
	rng.Shuffle(len(out.Findings), func(i, j int) { out.Findings[i], out.Findings[j] = out.Findings[j], out.Findings[i] })
	rng.Shuffle(len(out.Resolutions), func(i, j int) {
		out.Resolutions[i], out.Resolutions[j] = out.Resolutions[j], out.Resolutions[i]
	})
	for _, r := range out.Resolutions {
		rng.Shuffle(len(r.Objects), func(i, j int) { r.Objects[i], r.Objects[j] = r.Objects[j], r.Objects[i] })
	}
	// The same instants in another location must not matter either.
	loc := time.FixedZone("X", 3600*(1+rng.Intn(5)))
	for i := range out.Findings {
		out.Findings[i].AssertedAt = out.Findings[i].AssertedAt.In(loc)
	}
	for i := range out.Members {
		out.Members[i].CompletedAt = out.Members[i].CompletedAt.In(loc)
	}
	return out
}

func cloneInput(in merge.Input) merge.Input {
	out := in
	out.Members = slices.Clone(in.Members)
	out.Findings = slices.Clone(in.Findings)
	out.Resolutions = slices.Clone(in.Resolutions)
	for i := range out.Resolutions {
		out.Resolutions[i].Objects = slices.Clone(in.Resolutions[i].Objects)
	}
	return out
}

// propertyStrategies is every built-in plus custom ones.
func propertyStrategies() map[string]merge.Strategy {
	out := map[string]merge.Strategy{}
	for _, n := range merge.Names() {
		s, _ := merge.Lookup(n)
		out[n] = s
	}
	out["custom/oldest-wins"] = merge.PerTopic("oldest-wins", func(v merge.TopicView, _ merge.Options) merge.Decision {
		best := v.Claims[0]
		for _, c := range v.Claims[1:] {
			if c.AssertedAt.Before(best.AssertedAt) ||
				c.AssertedAt.Equal(best.AssertedAt) && merge.CompareTerms(c.Object, best.Object) < 0 {
				best = c
			}
		}
		return merge.Decision{Keep: []quad.Value{best.Object}}
	})
	out["custom/func"] = merge.StrategyFunc(func(in merge.Input) (merge.Result, error) {
		// Additive, then keep only facts with two or more supporters.
		res, err := merge.Merge("additive", in)
		if err != nil {
			return res, err
		}
		res.Facts = slices.DeleteFunc(res.Facts, func(f merge.Fact) bool { return len(f.Supporters) < 2 })
		res.Report.Kept = len(res.Facts)
		return res, nil
	})
	out["custom/margin"] = merge.ConfidenceWeighted{Margin: 0.3}
	return out
}

func TestProperty_OrderIndependentAndIdempotent(t *testing.T) {
	for name, s := range propertyStrategies() {
		t.Run(name, func(t *testing.T) {
			for seed := int64(1); seed <= seeds(); seed++ {
				rng := rand.New(rand.NewSource(seed))
				in := randomInput(rng)
				keep := cloneInput(in)
				want, err := s.Merge(in)
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if !reflect.DeepEqual(in, keep) {
					t.Fatalf("seed %d: Merge modified its input", seed)
				}
				again, err := s.Merge(in)
				if err != nil || !reflect.DeepEqual(again, want) {
					t.Fatalf("seed %d: merging twice differs: %v", seed, err)
				}
				for k := range 10 {
					got, err := s.Merge(shuffled(rng, in))
					if err != nil {
						t.Fatalf("seed %d shuffle %d: %v", seed, k, err)
					}
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("seed %d shuffle %d: result depends on order\ngot\n\t%s\nwant\n\t%s",
							seed, k, join(lines(got)), join(lines(want)))
					}
				}
			}
		})
	}
}

// TestProperty_FeedbackIsStable feeds a merge's facts back as findings of a pseudo-member that completed
// (and asserted) after everyone else, with full confidence, and checks that the statements kept and the
// conflicts reported are unchanged. This holds for every built-in except majority-wins with a
// tie-breaker: the pseudo-member's extra vote can turn a broken tie into a unique leader that still has
// no majority, which is a conflict. It is run without a tie-breaker for majority-wins, and is not
// meaningful for arbitrary custom strategies.
func TestProperty_FeedbackIsStable(t *testing.T) {
	for _, name := range merge.Names() {
		t.Run(name, func(t *testing.T) {
			for seed := int64(1); seed <= seeds(); seed++ {
				rng := rand.New(rand.NewSource(seed))
				in := randomInput(rng)
				if name == merge.NameMajorityWins {
					in.Options.TieBreaker = ""
				}
				first, err := merge.Merge(name, in)
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				fed := cloneInput(in)
				fed.Members = append(fed.Members, done("merger", 999))
				for i, fa := range first.Facts {
					fed.Findings = append(fed.Findings, merge.Finding{ID: fmt.Sprintf("fed%d", i), Agent: "merger",
						Subject: fa.Subject, Predicate: fa.Predicate, Object: fa.Object, AssertedAt: at(999)})
				}
				second, err := merge.Merge(name, fed)
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if a, b := statements(first), statements(second); !slices.Equal(a, b) {
					t.Fatalf("seed %d: feedback changed the outcome\nbefore\n\t%s\nafter\n\t%s", seed, join(a), join(b))
				}
			}
		})
	}
}

// seeds is the number of random inputs each property is checked on.
func seeds() int64 {
	if testing.Short() {
		return 50
	}
	return 300
}

func statements(r merge.Result) []string {
	var out []string
	for _, f := range r.Facts {
		out = append(out, termString(f.Subject)+" "+termString(f.Predicate)+" "+termString(f.Object))
	}
	for _, c := range r.Conflicts {
		out = append(out, "conflict "+c.ID)
	}
	return out
}

// TestProperty_TiedResolutionsOrderIndependent shuffles inputs whose resolutions share few times, name
// topics by conflict id or by topic, and choose the same object in different spellings or different
// objects: whether the merge fails (ErrConflictingResolutions) and what it gives must not depend on
// the order.
func TestProperty_TiedResolutionsOrderIndependent(t *testing.T) {
	objects := []quad.Value{str("a"), lang("a", "en"), lang("a", "EN"), quad.TypedString{Value: "a", Type: xsd + "string"}}
	subjects := []quad.Value{ex("s1"), ex("s2"), quad.BNode("s3")}
	preds := []quad.IRI{ex("p"), ex("q")}
	for name, s := range propertyStrategies() {
		t.Run(name, func(t *testing.T) {
			for seed := int64(1); seed <= seeds(); seed++ {
				rng := rand.New(rand.NewSource(seed))
				in := randomInput(rng)
				in.Resolutions = nil
				for range rng.Intn(5) {
					tp := merge.Topic{Subject: subjects[rng.Intn(len(subjects))], Predicate: preds[rng.Intn(len(preds))]}
					r := merge.Resolution{Topic: tp, By: fmt.Sprintf("lead%d", rng.Intn(2)), At: at(100 + rng.Intn(2))}
					if rng.Intn(2) == 0 {
						r.Topic, r.ConflictID = merge.Topic{}, tp.ConflictID()
					}
					for range rng.Intn(3) {
						r.Objects = append(r.Objects, objects[rng.Intn(len(objects))])
					}
					in.Resolutions = append(in.Resolutions, r)
				}
				want, wantErr := s.Merge(in)
				for k := range 10 {
					got, err := s.Merge(shuffled(rng, in))
					if (err == nil) != (wantErr == nil) {
						t.Fatalf("seed %d shuffle %d: error %v, in input order %v", seed, k, err, wantErr)
					}
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("seed %d shuffle %d: result depends on order\ngot\n\t%s\nwant\n\t%s",
							seed, k, join(lines(got)), join(lines(want)))
					}
				}
			}
		})
	}
}

// TestProperty_ReportConsistent checks a built-in merge's report against its facts and input: Kept and
// Conflicts are the lengths, each member's Kept is the number of facts it supports (never more than it
// contributed), and Ignored is the members' ignored findings plus those of agents that are no member.
func TestProperty_ReportConsistent(t *testing.T) {
	for _, name := range merge.Names() {
		t.Run(name, func(t *testing.T) {
			for seed := int64(1); seed <= seeds(); seed++ {
				in := randomInput(rand.New(rand.NewSource(seed)))
				res, err := merge.Merge(name, in)
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				r := res.Report
				if r.Kept != len(res.Facts) || r.Conflicts != len(res.Conflicts) || !r.MergedAt.Equal(in.Options.Now) {
					t.Fatalf("seed %d: report %+v for %d facts, %d conflicts", seed, r, len(res.Facts), len(res.Conflicts))
				}
				supports := map[string]int{}
				for _, fa := range res.Facts {
					for _, a := range fa.Supporters {
						supports[a]++
					}
				}
				members := map[string]bool{}
				ignored := 0
				for _, m := range r.Members {
					members[m.Agent] = true
					ignored += m.Ignored
					if m.Kept != supports[m.Agent] || m.Kept > m.Contributed ||
						m.Status != merge.Completed && (m.Contributed != 0 || m.Kept != 0) ||
						m.Status == merge.Completed && m.Ignored != 0 {
						t.Fatalf("seed %d: member report %+v, supports %d facts", seed, m, supports[m.Agent])
					}
				}
				for _, fi := range in.Findings {
					if !members[fi.Agent] {
						ignored++
					}
				}
				if ignored != r.Ignored || len(r.Members) != len(in.Members) {
					t.Fatalf("seed %d: ignored %d, want %d; %d member reports for %d members", seed, r.Ignored, ignored, len(r.Members), len(in.Members))
				}
			}
		})
	}
}
