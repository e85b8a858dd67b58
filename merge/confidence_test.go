package merge_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/cayleygraph/quad"
	"github.com/cortexgraph/cortex/merge"
)

// confidences renders each fact of r as "subject object=confidence".
func confidences(r merge.Result) []string {
	var out []string
	for _, fa := range r.Facts {
		out = append(out, fmt.Sprintf("%s %s=%v", termString(fa.Subject), termString(fa.Object), fa.Confidence))
	}
	return out
}

// TestFactConfidence pins the fused confidence of each built-in strategy:
// the highest confidence among the supporters' findings (0 read as 1), 1
// for an object only a resolution chose, and for confidence-weighted the
// winner's score over the number of speakers.
func TestFactConfidence(t *testing.T) {
	findings := []merge.Finding{
		fnd("f1", "alice", "s1", "p", str("x"), 0, 0.9),
		fnd("f2", "alice", "s1", "p", str("x"), 1, 0.4), // the same claim: its highest confidence counts
		fnd("f3", "bob", "s1", "p", str("x"), 2, 0.6),
		fnd("f4", "carol", "s2", "p", str("y"), 0, 0), // unspecified: 1
		fnd("f5", "bob", "s3", "p", str("z"), 0, 0.3),
		fnd("f6", "carol", "s3", "p", str("w"), 0, 0.8),
		fnd("f7", "dave", "s1", "p", str("x"), 0, 1), // dave failed: ignored
	}
	cases := []struct {
		strategy string
		want     []string
	}{
		{merge.NameAdditive, []string{`s1 "x"=0.9`, `s2 "y"=1`, `s3 "w"=0.8`, `s3 "z"=0.3`}},
		{merge.NameMajorityWins, []string{`s1 "x"=0.9`, `s2 "y"=1`}},
		// s1: 0.9+0.6 of 2 speakers; s2: 1 of 1; s3: 0.8 against 0.3, of 2 speakers.
		{merge.NameConfidenceWeighted, []string{`s1 "x"=0.75`, `s2 "y"=1`, `s3 "w"=0.4`}},
	}
	for _, tc := range cases {
		t.Run(tc.strategy, func(t *testing.T) {
			res, err := merge.Merge(tc.strategy, merge.Input{Members: team(), Findings: findings})
			if err != nil {
				t.Fatal(err)
			}
			if got := confidences(res); !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
	t.Run("resolution", func(t *testing.T) {
		res, err := merge.Merge(merge.NameConflictFlag, merge.Input{Members: team(), Findings: findings, Resolutions: []merge.Resolution{
			{Topic: merge.Topic{Subject: ex("s3"), Predicate: ex("p")}, Objects: []quad.Value{str("z"), str("new")}, By: "lead", At: at(9)},
		}})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{`s1 "x"=0.9`, `s2 "y"=1`, `s3 "new"=1`, `s3 "z"=0.3`}
		if got := confidences(res); !slices.Equal(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
	})
}

// TestDecision_Confidence checks that a Decider's confidences reach the
// facts (0 keeps the default), and that malformed ones are refused.
func TestDecision_Confidence(t *testing.T) {
	findings := []merge.Finding{
		fnd("f1", "alice", "s1", "p", str("x"), 0, 0.9),
		fnd("f2", "bob", "s1", "p", str("y"), 0, 0.5),
	}
	decide := func(conf []float64) merge.Strategy {
		return merge.PerTopic("custom", func(v merge.TopicView, _ merge.Options) merge.Decision {
			// Keep order y, x: confidences follow Keep, not the sorted facts.
			return merge.Decision{Keep: []quad.Value{str("y"), str("x")}, Confidence: conf}
		})
	}
	res, err := decide([]float64{0.25, 0}).Merge(merge.Input{Members: team(), Findings: findings})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := confidences(res), []string{`s1 "x"=0.9`, `s1 "y"=0.25`}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for _, bad := range [][]float64{{0.5}, {0.5, 1.5}, {-0.1, 0.5}} {
		_, err := decide(bad).Merge(merge.Input{Members: team(), Findings: findings})
		if !errors.Is(err, merge.ErrInvalidDecision) {
			t.Errorf("confidences %v: err = %v, want ErrInvalidDecision", bad, err)
		}
	}
}

// TestTeamContext checks that a Decider sees the team and each claiming
// member's role and criticality: here the critical lead's object wins.
func TestTeamContext(t *testing.T) {
	members := []merge.Member{
		{Agent: "alice", Status: merge.Completed, Role: "lead", Critical: true},
		{Agent: "bob", Status: merge.Completed, Role: "reviewer"},
		{Agent: "carol", Status: merge.Completed, Role: "reviewer"},
	}
	var seen []string
	leadWins := merge.PerTopic("lead-wins", func(v merge.TopicView, _ merge.Options) merge.Decision {
		seen = append(seen, v.Team.ID+"/"+v.Team.Name+"/"+v.Team.Context)
		for _, c := range v.Claims {
			if c.Critical && c.Role == "lead" {
				return merge.Decision{Keep: []quad.Value{c.Object}}
			}
		}
		return merge.Decision{Conflict: "no lead"}
	})
	res, err := leadWins.Merge(merge.Input{
		Team:    merge.Team{ID: "t1", Name: "review", Context: "find leaks"},
		Members: members,
		Findings: []merge.Finding{
			f("f1", "alice", "s1", "p", str("x")), f("f2", "bob", "s1", "p", str("y")), f("f3", "carol", "s1", "p", str("y")),
			f("f4", "bob", "s2", "p", str("z")),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`s1 p "x" by=alice ids=f1`, `conflict s2 p no lead: "z"<-bob[f4]`}
	if got := lines(res); !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if !slices.Equal(seen, []string{"t1/review/find leaks", "t1/review/find leaks"}) {
		t.Fatalf("team seen by the decider: %v", seen)
	}
}

func TestObjectKey(t *testing.T) {
	same := [][2]quad.Value{
		{str("a"), quad.TypedString{Value: "a", Type: xsd + "string"}},
		{lang("chat", "en-GB"), lang("chat", "EN-gb")},
		{ex("o"), ex("o")},
	}
	for _, p := range same {
		a, err1 := merge.ObjectKey(p[0])
		b, err2 := merge.ObjectKey(p[1])
		if err1 != nil || err2 != nil || a != b {
			t.Errorf("ObjectKey(%v) = %q, ObjectKey(%v) = %q (%v, %v): want equal", p[0], a, p[1], b, err1, err2)
		}
	}
	differ := [][2]quad.Value{
		{str("a"), lang("a", "en")},
		{str("a"), quad.TypedString{Value: "a", Type: xsd + "token"}},
		{ex("o"), quad.BNode("o")},
		{str("a\x00b"), quad.TypedString{Value: "a", Type: "b"}},
		// A datatype IRI may hold U+0000 here (the store refuses it).
		{quad.TypedString{Value: "x", Type: "http://t\x00y"}, quad.TypedString{Value: "y\x00x", Type: "http://t"}},
	}
	for _, p := range differ {
		a, _ := merge.ObjectKey(p[0])
		b, _ := merge.ObjectKey(p[1])
		if a == b {
			t.Errorf("ObjectKey(%v) == ObjectKey(%v) = %q", p[0], p[1], a)
		}
	}
	if _, err := merge.ObjectKey(nil); !errors.Is(err, merge.ErrInvalidTerm) {
		t.Errorf("ObjectKey(nil): %v", err)
	}
}
