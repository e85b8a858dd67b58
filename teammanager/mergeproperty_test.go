package teammanager_test

import (
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/teammanager"
)

// factLines renders facts one per line, with their attribution.
func factLines(fs []merge.Fact) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s %s %s by=%s ids=%s resolved=%s conf=%v", rdfio.FormatTerm(f.Subject),
			rdfio.FormatTerm(f.Predicate), rdfio.FormatTerm(f.Object), strings.Join(f.Supporters, ","),
			strings.Join(f.FindingIDs, ","), f.ResolvedBy, f.Confidence))
	}
	return out
}

func conflictLines(cs []merge.Conflict) []string {
	out := []string{}
	for _, c := range cs {
		l := fmt.Sprintf("%s %s %s %s:", c.ID, rdfio.FormatTerm(c.Topic.Subject), rdfio.FormatTerm(c.Topic.Predicate), c.Reason)
		for _, cd := range c.Candidates {
			l += fmt.Sprintf(" %s<-%s[%s]", rdfio.FormatTerm(cd.Object), strings.Join(cd.Agents, ","), strings.Join(cd.FindingIDs, ","))
		}
		out = append(out, l)
	}
	return out
}

// TestManager_MergeProperty: two teams whose members assert the same random
// findings (language tags in several cases, xsd:string and plain literals,
// "1" and "01" as xsd:integer) in different orders merge to the same facts
// and conflicts with every built-in strategy; the facts Facts reads back
// are the report's, the shared graph holds exactly them, and merging again
// changes nothing, also for a merge by hand before every member completed,
// which the later merges replace. Then every open conflict is resolved (to a candidate,
// to an object no one asserted, or to nothing) and the same holds again,
// with no open conflict left.
func TestManager_MergeProperty(t *testing.T) {
	objects := []quad.Value{
		quad.String("a"), quad.TypedString{Value: "a", Type: "http://www.w3.org/2001/XMLSchema#string"},
		quad.LangString{Value: "a", Lang: "en"}, quad.LangString{Value: "a", Lang: "EN"}, quad.LangString{Value: "a", Lang: "en-GB"},
		quad.TypedString{Value: "1", Type: "http://www.w3.org/2001/XMLSchema#integer"},
		quad.TypedString{Value: "01", Type: "http://www.w3.org/2001/XMLSchema#integer"},
		iri("o"), quad.BNode("o"),
	}
	subjects := []quad.Value{iri("s1"), iri("s2"), quad.BNode("s3")}
	confs := []float64{0, 0.1, 0.35, 0.5, 0.9, 1}
	agents := []string{"a", "b", "c"}
	seeds := 3
	if testing.Short() {
		seeds = 1
	}
	for _, strategy := range merge.Names() {
		t.Run(strategy, func(t *testing.T) {
			for seed := 1; seed <= seeds; seed++ {
				rng := rand.New(rand.NewSource(int64(seed)))
				f := newFixture(t, teammanager.DefaultConfig().WithAutoMerge(false))
				findings := map[string][]teammanager.Finding{}
				for range 4 + rng.Intn(10) {
					a := agents[rng.Intn(len(agents))]
					findings[a] = append(findings[a], teammanager.Finding{
						Subject: subjects[rng.Intn(len(subjects))], Predicate: iri("p"), Object: objects[rng.Intn(len(objects))],
						Confidence: confs[rng.Intn(len(confs))], AssertedAt: time.Date(2025, 1, 1, 0, rng.Intn(3), 0, 0, time.UTC),
					})
				}
				teams := []string{"t1", "t2"}
				for _, id := range teams {
					f.create(t, teammanager.TeamConfig{ID: id, Name: id, Strategy: strategy, Members: members(agents...), TieBreaker: "b"})
				}
				order := slices.Clone(agents)
				rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
				add := func(a string, fs []teammanager.Finding) {
					for i, id := range teams {
						fs := slices.Clone(fs)
						if i == 1 {
							rng.Shuffle(len(fs), func(i, j int) { fs[i], fs[j] = fs[j], fs[i] })
						}
						for _, fi := range fs {
							if _, err := f.m.AddFinding(ctx, id, a, fi); err != nil {
								t.Fatal(err)
							}
						}
					}
				}
				// The first to complete asserts everything first; the others
				// assert half, then, after a merge by hand, the rest.
				later := map[string][]teammanager.Finding{}
				for i, a := range order {
					for _, id := range teams {
						f.status(t, id, a, teammanager.Running, "")
					}
					fs := findings[a]
					if i > 0 {
						fs, later[a] = fs[:len(fs)/2], fs[len(fs)/2:]
					}
					add(a, fs)
				}
				check := func(stage string) {
					t.Helper()
					var first teammanager.MergeReport
					for i, id := range teams {
						rep, err := f.m.MergeTeamResults(ctx, id)
						if err != nil {
							t.Fatalf("seed %d %s: merge %s: %v", seed, stage, id, err)
						}
						if i == 0 {
							first = rep
						} else if a, b := factLines(rep.Facts), factLines(first.Facts); !slices.Equal(a, b) {
							t.Fatalf("seed %d %s: the teams' facts differ\n%s\n\t%s\n%s\n\t%s", seed, stage, id, strings.Join(a, "\n\t"), teams[0], strings.Join(b, "\n\t"))
						} else if a, b := conflictLines(rep.OpenConflicts), conflictLines(first.OpenConflicts); !slices.Equal(a, b) {
							t.Fatalf("seed %d %s: the teams' conflicts differ\n\t%s\n\t%s", seed, stage, strings.Join(a, "\n\t"), strings.Join(b, "\n\t"))
						}
						got, err := f.m.Facts(ctx, id, teammanager.FactFilter{})
						if err != nil {
							t.Fatal(err)
						}
						var stored []merge.Fact
						for _, fa := range got {
							stored = append(stored, fa.Fact)
							if fa.MergeID != rep.MergeID {
								t.Fatalf("seed %d %s: fact of merge %s, the last is %s", seed, stage, fa.MergeID, rep.MergeID)
							}
						}
						if a, b := factLines(stored), factLines(rep.Facts); !slices.Equal(a, b) {
							t.Fatalf("seed %d %s: Facts reads\n\t%s\nthe merge reported\n\t%s", seed, stage, strings.Join(a, "\n\t"), strings.Join(b, "\n\t"))
						}
						var shared []string
						for _, q := range f.graph(t, f.ns.SharedGraph(id)) {
							shared = append(shared, rdfio.FormatTerm(q.Subject)+" "+rdfio.FormatTerm(q.Predicate)+" "+rdfio.FormatTerm(q.Object))
						}
						var want []string
						for _, fa := range rep.Facts {
							want = append(want, rdfio.FormatTerm(fa.Subject)+" "+rdfio.FormatTerm(fa.Predicate)+" "+rdfio.FormatTerm(fa.Object))
						}
						slices.Sort(shared)
						slices.Sort(want)
						if !slices.Equal(shared, want) {
							t.Fatalf("seed %d %s: shared graph\n\t%s\nfacts\n\t%s", seed, stage, strings.Join(shared, "\n\t"), strings.Join(want, "\n\t"))
						}
						again, err := f.m.MergeTeamResults(ctx, id)
						if err != nil || !again.Unchanged || again.MergeID != rep.MergeID || !reflect.DeepEqual(factLines(again.Facts), factLines(rep.Facts)) {
							t.Fatalf("seed %d %s: merging again: unchanged %v, %v", seed, stage, again.Unchanged, err)
						}
					}
				}
				for i, a := range order {
					for _, id := range teams {
						f.status(t, id, a, teammanager.Completed, "")
					}
					if i == 0 {
						check("merged by hand before the others completed") // a later merge replaces it whole
						for _, b := range order[1:] {
							add(b, later[b])
						}
					}
					if rng.Intn(2) == 0 {
						f.clock.Advance(time.Minute)
					}
				}
				check("first merge")
				rep, err := f.m.MergeTeamResults(ctx, "t1")
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range rep.OpenConflicts {
					var objs []quad.Value
					switch rng.Intn(3) {
					case 0:
						objs = []quad.Value{c.Candidates[rng.Intn(len(c.Candidates))].Object}
					case 1:
						objs = []quad.Value{quad.String("nobody's")}
					}
					for _, id := range teams {
						if _, err := f.m.ResolveConflict(ctx, id, c.ID, objs, "lead"); err != nil {
							t.Fatalf("seed %d: resolve %s of %s: %v", seed, c.ID, id, err)
						}
					}
				}
				check("resolved")
				if rep, _ := f.m.MergeTeamResults(ctx, "t1"); len(rep.OpenConflicts) != 0 {
					t.Fatalf("seed %d: open conflicts after resolving them all: %v", seed, conflictLines(rep.OpenConflicts))
				}
			}
		})
	}
}

// TestManager_Merge_CustomResultOrder: a custom strategy that lists its
// facts and conflicts in another order on each run (as one ranging over a
// map does) merges the same input to the same result: the second merge is
// Unchanged with the same merge id, and the report's facts are in the
// order Facts reads them back (subject, predicate, object), conflicts by
// topic and their candidates by object.
func TestManager_Merge_CustomResultOrder(t *testing.T) {
	var calls int
	reg := merge.NewRegistry()
	merge.RegisterBuiltins(reg)
	reg.Register("unordered", merge.StrategyFunc(func(in merge.Input) (merge.Result, error) {
		res, err := merge.Merge(merge.NameConflictFlag, in)
		calls++
		if err == nil && calls%2 == 1 {
			slices.Reverse(res.Facts)
			slices.Reverse(res.Conflicts)
			for _, c := range res.Conflicts {
				slices.Reverse(c.Candidates)
			}
		}
		return res, err
	}))
	f := newFixture(t, teammanager.DefaultConfig().WithRegistry(reg).WithAutoMerge(false))
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Strategy: "unordered", Members: members("a", "b")})
	for _, a := range []string{"a", "b"} {
		f.status(t, "t", a, teammanager.Running, "")
		for _, s := range []string{"s1", "s2", "s3", "s4"} {
			obj := quad.Value(quad.String("v"))
			if s >= "s3" {
				obj = quad.String("v" + a) // a conflict
			}
			if _, err := f.m.AddFinding(ctx, "t", a, teammanager.Finding{Subject: iri(s), Predicate: iri("p"), Object: obj}); err != nil {
				t.Fatal(err)
			}
		}
		f.status(t, "t", a, teammanager.Completed, "")
	}
	first, err := f.m.MergeTeamResults(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	second, err := f.m.MergeTeamResults(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	if !second.Unchanged || second.MergeID != first.MergeID {
		t.Errorf("second merge of the same input: unchanged %v, merge id %s, first %s", second.Unchanged, second.MergeID, first.MergeID)
	}
	got, err := f.m.Facts(ctx, "t", teammanager.FactFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var stored []merge.Fact
	for _, fa := range got {
		stored = append(stored, fa.Fact)
	}
	for _, rep := range []teammanager.MergeReport{first, second} {
		if a, b := factLines(rep.Facts), factLines(stored); !slices.Equal(a, b) {
			t.Errorf("report facts\n\t%s\nFacts\n\t%s", strings.Join(a, "\n\t"), strings.Join(b, "\n\t"))
		}
		if !slices.IsSortedFunc(rep.OpenConflicts, func(a, b merge.Conflict) int { return a.Topic.Compare(b.Topic) }) {
			t.Errorf("report conflicts not sorted by topic: %s", conflictLines(rep.OpenConflicts))
		}
		for _, c := range rep.OpenConflicts {
			if !slices.IsSortedFunc(c.Candidates, func(a, b merge.Candidate) int { return merge.CompareTerms(a.Object, b.Object) }) {
				t.Errorf("candidates not sorted by object: %s", conflictLines(rep.OpenConflicts))
			}
		}
	}
}

// TestManager_Merge_CustomReportCounts: the report's Kept and Conflicts are
// the numbers of facts and open conflicts (merge.Report, MergeReport), also
// for a custom strategy that filters a built-in's result without counting
// again.
func TestManager_Merge_CustomReportCounts(t *testing.T) {
	f := customTeam(t, merge.StrategyFunc(func(in merge.Input) (merge.Result, error) {
		res, err := merge.Merge(merge.NameConflictFlag, in)
		if err == nil {
			res.Facts = res.Facts[:1] // its report still counts two facts
			res.Conflicts = nil       // and one conflict
		}
		return res, err
	}), disputedOn("s3"), "s1", "s2", "s3")
	rep, err := f.m.MergeTeamResults(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Kept != len(rep.Facts) || rep.Report.Conflicts != len(rep.OpenConflicts) {
		t.Errorf("report: kept %d, conflicts %d; the merge has %d facts, %d open conflicts", rep.Kept, rep.Report.Conflicts, len(rep.Facts), len(rep.OpenConflicts))
	}
}

// TestManager_Merge_CustomReportAsStored: the report's facts are the facts
// as stored, as Facts reads them back (MergeReport, Facts), also when a
// custom strategy spells an object "v"^^xsd:string (stored as "v") or
// leaves a fact's empty lists nil.
func TestManager_Merge_CustomReportAsStored(t *testing.T) {
	f := customTeam(t, merge.StrategyFunc(func(in merge.Input) (merge.Result, error) {
		res, err := merge.Merge(merge.NameConflictFlag, in)
		for i := range res.Facts {
			fa := &res.Facts[i]
			if s, ok := fa.Object.(quad.String); ok {
				fa.Object = quad.TypedString{Value: s, Type: "http://www.w3.org/2001/XMLSchema#string"}
			}
			if len(fa.Supporters) == 0 {
				fa.Supporters, fa.FindingIDs = nil, nil
			}
		}
		return res, err
	}), disputedOn("s2"), "s1", "s2")
	rep, err := f.m.MergeTeamResults(ctx, "t")
	if err != nil || len(rep.OpenConflicts) != 1 {
		t.Fatalf("merge: %v, conflicts %v", err, rep.OpenConflicts)
	}
	rep, err = f.m.ResolveConflict(ctx, "t", rep.OpenConflicts[0].ID, []quad.Value{quad.String("nobody's")}, "lead")
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.m.Facts(ctx, "t", teammanager.FactFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var stored []merge.Fact
	for _, fa := range got {
		stored = append(stored, fa.Fact)
	}
	if !reflect.DeepEqual(rep.Facts, stored) {
		t.Errorf("report facts\n\t%#v\nFacts\n\t%#v", rep.Facts, stored)
	}
}

// customTeam registers strat as a custom strategy and makes team t of it,
// members a and b, each asserting s p object(agent, s) for every subject s
// and completing (auto-merge off: the caller merges).
func customTeam(t *testing.T, strat merge.Strategy, object func(agent, subject string) quad.Value, subjects ...string) *fixture {
	t.Helper()
	reg := merge.NewRegistry()
	merge.RegisterBuiltins(reg)
	reg.Register("custom", strat)
	f := newFixture(t, teammanager.DefaultConfig().WithRegistry(reg).WithAutoMerge(false))
	f.create(t, teammanager.TeamConfig{ID: "t", Name: "n", Strategy: "custom", Members: members("a", "b")})
	for _, a := range []string{"a", "b"} {
		f.status(t, "t", a, teammanager.Running, "")
		for _, s := range subjects {
			if _, err := f.m.AddFinding(ctx, "t", a, teammanager.Finding{Subject: iri(s), Predicate: iri("p"), Object: object(a, s)}); err != nil {
				t.Fatal(err)
			}
		}
		f.status(t, "t", a, teammanager.Completed, "")
	}
	return f
}

// disputedOn returns the objects of customTeam where a and b agree on
// every subject ("v") but disputed, on which each asserts "v"+agent.
func disputedOn(disputed string) func(agent, subject string) quad.Value {
	return func(a, s string) quad.Value {
		if s == disputed {
			return quad.String("v" + a)
		}
		return quad.String("v")
	}
}
