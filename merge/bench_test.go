package merge_test

import (
	"fmt"
	"testing"

	"github.com/cayleygraph/quad"
	"github.com/cortexgraph/cortex/merge"
)

// benchInput has 8 completed members with 10,000 findings each, over 2,000 subjects × 5 predicates:
// every member speaks on every topic, choosing among 3 objects, so topics agree, split and tie.
func benchInput() merge.Input {
	const members, subjects, preds = 8, 2000, 5
	var in merge.Input
	for m := range members {
		in.Members = append(in.Members, done(fmt.Sprintf("agent%d", m), m%3))
	}
	objects := []quad.Value{str("red"), lang("rouge", "fr"), quad.TypedString{Value: "7", Type: xsd + "integer"}}
	for m := range members {
		for s := range subjects {
			for p := range preds {
				h := (m*7 + s*13 + p*31) % 11
				in.Findings = append(in.Findings, merge.Finding{
					ID:         fmt.Sprintf("a%d-s%d-p%d", m, s, p),
					Agent:      fmt.Sprintf("agent%d", m),
					Subject:    quad.IRI(fmt.Sprintf("http://ex/s%d", s)),
					Predicate:  quad.IRI(fmt.Sprintf("http://ex/p%d", p)),
					Object:     objects[h%3],
					Confidence: float64(h%10+1) / 10,
					AssertedAt: at(h),
				})
			}
		}
	}
	return in
}

func BenchmarkMerge(b *testing.B) {
	in := benchInput()
	for _, name := range merge.Names() {
		s, err := merge.Lookup(name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Merge(in); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(in.Findings)), "findings/op")
		})
	}
}
