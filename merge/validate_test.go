package merge_test

import (
	"errors"
	"math"
	"testing"

	"github.com/cayleygraph/quad"
	"github.com/cortexgraph/cortex/merge"
)

func TestMerge_InvalidMembers(t *testing.T) {
	cases := []struct {
		name    string
		members []merge.Member
	}{
		{"empty agent", []merge.Member{{Status: merge.Completed}}},
		{"unknown status", []merge.Member{{Agent: "a", Status: "done"}}},
		{"empty status", []merge.Member{{Agent: "a"}}},
		{"listed twice", []merge.Member{done("a", 1), done("a", 1)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := merge.Merge("additive", merge.Input{Members: tc.members})
			if !errors.Is(err, merge.ErrInvalidMember) {
				t.Fatalf("err = %v, want ErrInvalidMember", err)
			}
		})
	}
}

func TestMerge_InvalidFindings(t *testing.T) {
	good := f("f1", "alice", "s", "p", str("o"))
	with := func(mod func(*merge.Finding)) merge.Finding { x := good; mod(&x); return x }
	cases := []struct {
		name  string
		f     merge.Finding
		cause error
	}{
		{"empty id", with(func(x *merge.Finding) { x.ID = "" }), merge.ErrInvalidFinding},
		{"nil subject", with(func(x *merge.Finding) { x.Subject = nil }), merge.ErrInvalidTerm},
		{"literal subject", with(func(x *merge.Finding) { x.Subject = str("s") }), merge.ErrInvalidTerm},
		{"empty IRI subject", with(func(x *merge.Finding) { x.Subject = quad.IRI("") }), merge.ErrInvalidTerm},
		{"bracketed IRI", with(func(x *merge.Finding) { x.Subject = quad.IRI("<http://ex/s>") }), merge.ErrInvalidTerm},
		{"empty blank node", with(func(x *merge.Finding) { x.Subject = quad.BNode("") }), merge.ErrInvalidTerm},
		{"blank-node predicate", with(func(x *merge.Finding) { x.Predicate = quad.BNode("p") }), merge.ErrInvalidTerm},
		{"nil object", with(func(x *merge.Finding) { x.Object = nil }), merge.ErrInvalidTerm},
		{"quad.Int object", with(func(x *merge.Finding) { x.Object = quad.Int(3) }), merge.ErrInvalidTerm},
		{"quad.Bool object", with(func(x *merge.Finding) { x.Object = quad.Bool(true) }), merge.ErrInvalidTerm},
		{"quad.Time object", with(func(x *merge.Finding) { x.Object = quad.Time(t0) }), merge.ErrInvalidTerm},
		{"bad language tag", with(func(x *merge.Finding) { x.Object = lang("x", "en_GB") }), merge.ErrInvalidTerm},
		{"empty language tag", with(func(x *merge.Finding) { x.Object = lang("x", "") }), merge.ErrInvalidTerm},
		{"langString without tag", with(func(x *merge.Finding) {
			x.Object = quad.TypedString{Value: "x", Type: "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"}
		}), merge.ErrInvalidTerm},
		{"empty datatype", with(func(x *merge.Finding) { x.Object = quad.TypedString{Value: "x"} }), merge.ErrInvalidTerm},
		{"invalid UTF-8", with(func(x *merge.Finding) { x.Object = str("\xff") }), merge.ErrInvalidTerm},
		{"confidence above 1", with(func(x *merge.Finding) { x.Confidence = 1.5 }), merge.ErrInvalidConfidence},
		{"negative confidence", with(func(x *merge.Finding) { x.Confidence = -0.1 }), merge.ErrInvalidConfidence},
		{"NaN confidence", with(func(x *merge.Finding) { x.Confidence = math.NaN() }), merge.ErrInvalidConfidence},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := merge.Merge("additive", merge.Input{Members: team(), Findings: []merge.Finding{good, tc.f}})
			if !errors.Is(err, merge.ErrInvalidFinding) || !errors.Is(err, tc.cause) {
				t.Fatalf("err = %v, want ErrInvalidFinding caused by %v", err, tc.cause)
			}
			var fe *merge.FindingError
			if !errors.As(err, &fe) || fe.ID != tc.f.ID || fe.Agent != "alice" {
				t.Fatalf("err = %#v, want *FindingError for %q of alice", err, tc.f.ID)
			}
		})
	}
}

func TestMerge_IgnoredFindingsAreNotValidated(t *testing.T) {
	bad := merge.Finding{ID: "", Agent: "dave", Object: quad.Int(1), Confidence: 7}
	res, err := merge.Merge("additive", merge.Input{Members: team(), Findings: []merge.Finding{bad,
		{Agent: "erin"}, {Agent: "stranger"}}})
	if err != nil {
		t.Fatalf("Merge: %v", err)
	}
	if res.Report.Ignored != 3 {
		t.Fatalf("Ignored = %d, want 3", res.Report.Ignored)
	}
}

func TestMerge_InvalidOptions(t *testing.T) {
	for _, th := range []float64{-0.1, 1.01, math.NaN(), math.Inf(1)} {
		for _, name := range merge.Names() {
			_, err := merge.Merge(name, merge.Input{Options: merge.Options{Threshold: th}})
			if !errors.Is(err, merge.ErrInvalidOptions) {
				t.Errorf("%s threshold %v: err = %v, want ErrInvalidOptions", name, th, err)
			}
		}
	}
	for _, m := range []float64{-1, math.NaN(), math.Inf(1)} {
		_, err := merge.ConfidenceWeighted{Margin: m}.Merge(merge.Input{})
		if !errors.Is(err, merge.ErrInvalidOptions) {
			t.Errorf("margin %v: err = %v, want ErrInvalidOptions", m, err)
		}
	}
}

func TestPerTopic_InvalidDecision(t *testing.T) {
	in := merge.Input{Members: team(), Findings: []merge.Finding{f("f1", "alice", "s", "p", str("o"))}}
	cases := map[string]merge.Decider{
		"keeps an object nobody asserted": func(merge.TopicView, merge.Options) merge.Decision {
			return merge.Decision{Keep: []quad.Value{str("other")}}
		},
		"keeps a malformed object": func(merge.TopicView, merge.Options) merge.Decision {
			return merge.Decision{Keep: []quad.Value{quad.Int(1)}}
		},
		"keeps and conflicts": func(v merge.TopicView, _ merge.Options) merge.Decision {
			return merge.Decision{Keep: v.Objects(), Conflict: "both"}
		},
	}
	for name, d := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := merge.PerTopic("bad", d).Merge(in)
			if !errors.Is(err, merge.ErrInvalidDecision) {
				t.Fatalf("err = %v, want ErrInvalidDecision", err)
			}
		})
	}
}

func TestPerTopic_View(t *testing.T) {
	// What a Decider sees: one claim per member and object, sorted, with unified spellings.
	in := merge.Input{
		Members: []merge.Member{done("bob", 10), done("alice", 20)},
		Findings: []merge.Finding{
			fnd("f3", "bob", "s", "p", lang("x", "en"), 4, 0.25),
			fnd("f1", "alice", "s", "p", lang("x", "EN"), 2, 0.5),
			fnd("f2", "alice", "s", "p", lang("x", "en"), 3, 0),
			fnd("f4", "bob", "s", "p", str("y"), 1, 0.75),
		},
		Options: merge.Options{TieBreaker: "bob"},
	}
	var got []merge.TopicView
	var gotOpts merge.Options
	_, err := merge.PerTopic("spy", func(v merge.TopicView, o merge.Options) merge.Decision {
		got = append(got, v)
		gotOpts = o
		return merge.Decision{}
	}).Merge(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("decider called %d times, want 1", len(got))
	}
	v := got[0]
	want := []merge.Claim{
		{Agent: "alice", Object: lang("x", "EN"), FindingIDs: []string{"f1", "f2"}, Confidence: 1, AssertedAt: at(3), CompletedAt: at(20)},
		{Agent: "bob", Object: str("y"), FindingIDs: []string{"f4"}, Confidence: 0.75, AssertedAt: at(1), CompletedAt: at(10)},
		{Agent: "bob", Object: lang("x", "EN"), FindingIDs: []string{"f3"}, Confidence: 0.25, AssertedAt: at(4), CompletedAt: at(10)},
	}
	if len(v.Claims) != len(want) {
		t.Fatalf("claims %+v, want %+v", v.Claims, want)
	}
	for i := range want {
		c, w := v.Claims[i], want[i]
		if c.Agent != w.Agent || c.Object != w.Object || c.Confidence != w.Confidence ||
			!c.AssertedAt.Equal(w.AssertedAt) || !c.CompletedAt.Equal(w.CompletedAt) ||
			len(c.FindingIDs) != len(w.FindingIDs) {
			t.Errorf("claim %d = %+v, want %+v", i, c, w)
		}
	}
	if sp := v.Speakers(); len(sp) != 2 || sp[0] != "alice" || sp[1] != "bob" {
		t.Errorf("Speakers() = %v", sp)
	}
	if gotOpts.Threshold != merge.DefaultThreshold || gotOpts.TieBreaker != "bob" {
		t.Errorf("options %+v, want defaults applied", gotOpts)
	}
}

func TestMerge_LanguageTags(t *testing.T) {
	cases := []struct {
		tag string
		ok  bool
	}{
		{"en", true}, {"EN", true}, {"en-GB", true}, {"zh-Hant-TW", true}, {"de-1996", true}, {"x-a1b2", true},
		{"", false}, {"en-", false}, {"-en", false}, {"en--gb", false}, {"1en", false}, {"en_GB", false},
		{"en gb", false}, {"é", false},
	}
	for _, tc := range cases {
		t.Run(tc.tag, func(t *testing.T) {
			_, err := merge.Merge("additive", merge.Input{Members: team(),
				Findings: []merge.Finding{f("f1", "alice", "s", "p", lang("x", tc.tag))}})
			if tc.ok && err != nil || !tc.ok && !errors.Is(err, merge.ErrInvalidTerm) {
				t.Fatalf("tag %q: err = %v, want ok=%v", tc.tag, err, tc.ok)
			}
		})
	}
}
