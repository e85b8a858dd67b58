package merge_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/cayleygraph/quad"
	"github.com/cortexgraph/cortex/merge"
)

// inputFromBytes decodes arbitrary bytes into a small input, including malformed terms, statuses and
// confidences, so that fuzzing reaches the validation paths as well as the strategies.
func inputFromBytes(data []byte) merge.Input {
	next := func() int {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return int(b)
	}
	terms := []quad.Value{
		ex("a"), ex("b"), quad.BNode("n"), str("x"), str(""), lang("x", "en"), lang("x", "EN"), lang("x", "bad tag"),
		quad.TypedString{Value: "x", Type: xsd + "string"}, quad.TypedString{Value: "1", Type: xsd + "integer"},
		quad.IRI(""), quad.IRI("<x>"), quad.Int(1), nil, str("\xff"),
	}
	statuses := []merge.Status{merge.Completed, merge.Completed, merge.Failed, merge.Running, merge.Pending, "bogus"}
	agents := []string{"a", "b", "c", "d", ""}
	confs := []float64{0, 0.25, 0.5, 1, 2, -1}
	var in merge.Input
	for range next() % 5 {
		in.Members = append(in.Members, merge.Member{Agent: agents[next()%len(agents)],
			Status: statuses[next()%len(statuses)], CompletedAt: at(next() % 4)})
	}
	for i := range next() % 24 {
		in.Findings = append(in.Findings, merge.Finding{
			ID: []string{"f1", "f2", "f3", ""}[next()%4] + string(rune('a'+i%3)), Agent: agents[next()%len(agents)],
			Subject: terms[next()%len(terms)], Predicate: terms[next()%len(terms)], Object: terms[next()%len(terms)],
			Confidence: confs[next()%len(confs)], AssertedAt: at(next() % 4),
		})
	}
	for range next() % 3 {
		in.Resolutions = append(in.Resolutions, merge.Resolution{
			Topic:   merge.Topic{Subject: terms[next()%len(terms)], Predicate: terms[next()%len(terms)]},
			Objects: []quad.Value{terms[next()%len(terms)]}, By: agents[next()%len(agents)], At: at(next() % 3),
		})
	}
	in.Options.Threshold = []float64{0, 0.5, 0.66, 1, 1.5}[next()%5]
	in.Options.TieBreaker = agents[next()%len(agents)]
	return in
}

func reversed(in merge.Input) merge.Input {
	out := cloneInput(in)
	slices.Reverse(out.Members)
	slices.Reverse(out.Findings)
	slices.Reverse(out.Resolutions)
	return out
}

func FuzzMerge(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{3, 0, 0, 1, 1, 0, 2, 2, 1, 3, 6, 0, 0, 0, 0, 3, 0, 0, 1, 1, 0, 1, 3, 1, 1, 0, 0, 4, 1})
	f.Add([]byte{4, 0, 0, 0, 1, 0, 1, 2, 0, 2, 3, 1, 3, 12, 0, 0, 0, 0, 5, 0, 0, 1, 1, 0, 5, 0, 2, 0, 0, 6, 1, 1, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := inputFromBytes(data)
		for _, name := range merge.Names() {
			res, err := merge.Merge(name, in)
			if err != nil {
				// Bad input must be an error, never a panic, whatever the order.
				if _, err2 := merge.Merge(name, reversed(in)); err2 == nil {
					t.Fatalf("%s: error %v only in one order", name, err)
				}
				continue
			}
			if !slices.IsSortedFunc(res.Facts, func(a, b merge.Fact) int {
				if c := (merge.Topic{Subject: a.Subject, Predicate: a.Predicate}).Compare(merge.Topic{Subject: b.Subject, Predicate: b.Predicate}); c != 0 {
					return c
				}
				return merge.CompareTerms(a.Object, b.Object)
			}) {
				t.Fatalf("%s: facts not sorted: %v", name, lines(res))
			}
			for _, fa := range res.Facts {
				switch fa.Object.(type) {
				case quad.IRI, quad.BNode, quad.String, quad.LangString:
				case quad.TypedString:
					if fa.Object.(quad.TypedString).Type == xsd+"string" {
						t.Fatalf("%s: xsd:string typed literal in output", name)
					}
				default:
					t.Fatalf("%s: object of type %T in output", name, fa.Object)
				}
			}
			again, err := merge.Merge(name, reversed(in))
			if err != nil {
				t.Fatalf("%s: reversed input fails: %v", name, err)
			}
			if !reflect.DeepEqual(res, again) {
				t.Fatalf("%s: result depends on order\n\t%s\nvs\n\t%s", name, join(lines(res)), join(lines(again)))
			}
		}
	})
}
