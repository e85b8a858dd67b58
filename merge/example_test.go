package merge_test

import (
	"fmt"

	"github.com/cayleygraph/quad"
	"github.com/cortexgraph/cortex/merge"
)

// A host registers its own strategy: keep an object only when every member that spoke on the topic
// asserted it, and drop the rest silently.
func ExampleRegistry_Register() {
	reg := merge.NewRegistry()
	merge.RegisterBuiltins(reg)
	reg.Register("unanimous", merge.PerTopic("unanimous", func(v merge.TopicView, _ merge.Options) merge.Decision {
		speakers := len(v.Speakers())
		votes := map[quad.Value]int{}
		for _, c := range v.Claims {
			votes[c.Object]++
		}
		var keep []quad.Value
		for _, o := range v.Objects() {
			if votes[o] == speakers {
				keep = append(keep, o)
			}
		}
		return merge.Decision{Keep: keep}
	}))
	fmt.Println(reg.Names())

	res, err := reg.Merge("unanimous", merge.Input{
		Members: []merge.Member{
			{Agent: "alice", Status: merge.Completed},
			{Agent: "bob", Status: merge.Completed},
		},
		Findings: []merge.Finding{
			{ID: "f1", Agent: "alice", Subject: quad.IRI("http://ex/sky"), Predicate: quad.IRI("http://ex/color"), Object: quad.String("blue")},
			{ID: "f2", Agent: "bob", Subject: quad.IRI("http://ex/sky"), Predicate: quad.IRI("http://ex/color"), Object: quad.String("blue")},
			{ID: "f3", Agent: "bob", Subject: quad.IRI("http://ex/sky"), Predicate: quad.IRI("http://ex/color"), Object: quad.String("grey")},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range res.Facts {
		fmt.Println(res.Strategy, f.Subject, f.Predicate, f.Object, f.Supporters)
	}
	// Output:
	// [additive confidence-weighted conflict-flag consensus majority-wins newest-wins replace unanimous]
	// unanimous <http://ex/sky> <http://ex/color> "blue" [alice bob]
}

func ExampleMerge() {
	sky, color := quad.IRI("http://ex/sky"), quad.IRI("http://ex/color")
	in := merge.Input{
		Members: []merge.Member{
			{Agent: "alice", Status: merge.Completed},
			{Agent: "bob", Status: merge.Completed},
			{Agent: "carol", Status: merge.Failed},
		},
		Findings: []merge.Finding{
			{ID: "f1", Agent: "alice", Subject: sky, Predicate: color, Object: quad.String("blue")},
			{ID: "f2", Agent: "bob", Subject: sky, Predicate: color, Object: quad.String("grey")},
			{ID: "f3", Agent: "carol", Subject: sky, Predicate: color, Object: quad.String("blue")},
		},
	}
	res, _ := merge.Merge("majority-wins", in)
	c := res.Conflicts[0]
	fmt.Println(c.Reason, c.Candidates[0].Object, c.Candidates[0].Agents, c.Candidates[1].Object, c.Candidates[1].Agents)

	in.Resolutions = []merge.Resolution{{ConflictID: c.ID, Objects: []quad.Value{quad.String("blue")}, By: "lead"}}
	res, _ = merge.Merge("majority-wins", in)
	fmt.Println(res.Facts[0].Object, res.Facts[0].Supporters, res.Facts[0].ResolvedBy, len(res.Conflicts))
	// Output:
	// no-majority "blue" [alice] "grey" [bob]
	// "blue" [alice] lead 0
}
