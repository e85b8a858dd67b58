package merge_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/cayleygraph/quad"
	"github.com/cortexgraph/cortex/merge"
)

// disputed has alice and bob disagreeing on (s1, p) and agreeing on (s2, p).
func disputed() []merge.Finding {
	return []merge.Finding{
		f("f1", "alice", "s1", "p", str("red")),
		f("f2", "bob", "s1", "p", str("blue")),
		f("f3", "alice", "s2", "p", str("x")),
		f("f4", "bob", "s2", "p", str("x")),
	}
}

var s1p = merge.Topic{Subject: ex("s1"), Predicate: ex("p")}

func TestResolutions(t *testing.T) {
	cases := []struct {
		name        string
		strategy    string
		resolutions []merge.Resolution
		want        []string
	}{
		{
			name:     "unresolved",
			strategy: "conflict-flag",
			want: []string{
				`s2 p "x" by=alice,bob ids=f3,f4`,
				`conflict s1 p disagreement: "blue"<-bob[f2] "red"<-alice[f1]`,
			},
		},
		{
			name:        "by topic",
			strategy:    "conflict-flag",
			resolutions: []merge.Resolution{{Topic: s1p, Objects: []quad.Value{str("blue")}, By: "lead", At: at(40)}},
			want: []string{
				`s1 p "blue" by=bob ids=f2 resolved=lead`,
				`s2 p "x" by=alice,bob ids=f3,f4`,
			},
		},
		{
			name:        "by conflict id only",
			strategy:    "conflict-flag",
			resolutions: []merge.Resolution{{ConflictID: s1p.ConflictID(), Objects: []quad.Value{str("red")}, By: "lead"}},
			want: []string{
				`s1 p "red" by=alice ids=f1 resolved=lead`,
				`s2 p "x" by=alice,bob ids=f3,f4`,
			},
		},
		{
			name:     "several objects, one nobody asserted",
			strategy: "conflict-flag",
			resolutions: []merge.Resolution{{Topic: s1p, By: "lead",
				Objects: []quad.Value{str("purple"), str("red"), quad.TypedString{Value: "red", Type: xsd + "string"}}}},
			want: []string{
				`s1 p "purple" by= ids= resolved=lead`,
				`s1 p "red" by=alice ids=f1 resolved=lead`,
				`s2 p "x" by=alice,bob ids=f3,f4`,
			},
		},
		{
			name:        "no objects: the topic is resolved to nothing",
			strategy:    "conflict-flag",
			resolutions: []merge.Resolution{{Topic: s1p, By: "lead"}},
			want:        []string{`s2 p "x" by=alice,bob ids=f3,f4`},
		},
		{
			name:     "the latest resolution wins",
			strategy: "conflict-flag",
			resolutions: []merge.Resolution{
				{Topic: s1p, Objects: []quad.Value{str("blue")}, By: "late", At: at(50)},
				{Topic: s1p, Objects: []quad.Value{str("red")}, By: "early", At: at(40)},
			},
			want: []string{
				`s1 p "blue" by=bob ids=f2 resolved=late`,
				`s2 p "x" by=alice,bob ids=f3,f4`,
			},
		},
		{
			name:     "same time, same choice: resolver sorting first is credited",
			strategy: "conflict-flag",
			resolutions: []merge.Resolution{
				{Topic: s1p, Objects: []quad.Value{str("blue")}, By: "zoe", At: at(40)},
				{Topic: s1p, Objects: []quad.Value{str("blue")}, By: "amy", At: at(40)},
			},
			want: []string{
				`s1 p "blue" by=bob ids=f2 resolved=amy`,
				`s2 p "x" by=alice,bob ids=f3,f4`,
			},
		},
		{
			name:        "a resolution overrides an undisputed topic too",
			strategy:    "additive",
			resolutions: []merge.Resolution{{Topic: merge.Topic{Subject: ex("s2"), Predicate: ex("p")}, Objects: []quad.Value{str("y")}, By: "lead"}},
			want: []string{
				`s1 p "blue" by=bob ids=f2`,
				`s1 p "red" by=alice ids=f1`,
				`s2 p "y" by= ids= resolved=lead`,
			},
		},
		{
			name:     "a resolution of a topic nobody spoke on",
			strategy: "additive",
			resolutions: []merge.Resolution{{Topic: merge.Topic{Subject: quad.BNode("n"), Predicate: ex("q")},
				Objects: []quad.Value{lang("v", "fr")}, By: "lead"}},
			want: []string{
				`s1 p "blue" by=bob ids=f2`,
				`s1 p "red" by=alice ids=f1`,
				`s2 p "x" by=alice,bob ids=f3,f4`,
				`_:n q "v"@fr by= ids= resolved=lead`, // IRIs sort before blank nodes
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := merge.Merge(tc.strategy, merge.Input{Members: team(), Findings: disputed(), Resolutions: tc.resolutions})
			if err != nil {
				t.Fatal(err)
			}
			if got := lines(res); !slices.Equal(got, tc.want) {
				t.Errorf("got\n\t%s\nwant\n\t%s", join(got), join(tc.want))
			}
		})
	}
}

func TestResolutions_KeptAcrossRemerges(t *testing.T) {
	in := merge.Input{Members: team(), Findings: disputed()}
	first, err := merge.Merge("majority-wins", in)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Conflicts) != 1 {
		t.Fatalf("want one conflict, got %v", lines(first))
	}
	// The host resolves the conflict by its id and keeps the resolution.
	in.Resolutions = []merge.Resolution{{ConflictID: first.Conflicts[0].ID, Objects: []quad.Value{str("red")}, By: "lead", At: at(60)}}
	want := []string{
		`s1 p "red" by=alice ids=f1 resolved=lead`,
		`s2 p "x" by=alice,bob ids=f3,f4`,
	}
	second, err := merge.Merge("majority-wins", in)
	if err != nil {
		t.Fatal(err)
	}
	if got := lines(second); !slices.Equal(got, want) {
		t.Fatalf("after resolving got\n\t%s\nwant\n\t%s", join(got), join(want))
	}
	// More findings arrive on the disputed topic — now a blue majority — but the resolution stands.
	in.Findings = append(slices.Clone(in.Findings), f("f9", "carol", "s1", "p", str("blue")))
	third, err := merge.Merge("majority-wins", in)
	if err != nil {
		t.Fatal(err)
	}
	if got := lines(third); !slices.Equal(got, want) {
		t.Fatalf("after new findings got\n\t%s\nwant\n\t%s", join(got), join(want))
	}
	// The conflict id did not change between merges.
	in.Resolutions = nil
	in.Options.Threshold = 0.9
	fourth, err := merge.Merge("majority-wins", in)
	if err != nil {
		t.Fatal(err)
	}
	if len(fourth.Conflicts) != 1 || fourth.Conflicts[0].ID != first.Conflicts[0].ID {
		t.Fatalf("conflict ids %v, want [%s]", lines(fourth), first.Conflicts[0].ID)
	}
}

func TestResolutions_ConflictIDOfResolvedOnlyTopic(t *testing.T) {
	// A conflict id is looked up among topics spoken on, whatever other resolutions introduce, so
	// this is an error in both orders.
	fresh := merge.Topic{Subject: ex("s9"), Predicate: ex("p")}
	rs := []merge.Resolution{
		{Topic: fresh, Objects: []quad.Value{str("a")}, By: "x", At: at(1)},
		{ConflictID: fresh.ConflictID(), Objects: []quad.Value{str("b")}, By: "y", At: at(2)},
	}
	for _, order := range [][]merge.Resolution{rs, {rs[1], rs[0]}} {
		_, err := merge.Merge("additive", merge.Input{Members: team(), Findings: disputed(), Resolutions: order})
		if !errors.Is(err, merge.ErrUnknownConflict) {
			t.Fatalf("err = %v, want ErrUnknownConflict", err)
		}
	}
}

// TestResolutions_SupersededClashInAnyOrder: two resolutions of one topic at the same time choosing
// different objects are an error only when no later resolution of the topic supersedes them; the
// outcome must not depend on the order of the resolutions.
func TestResolutions_SupersededClashInAnyOrder(t *testing.T) {
	later := merge.Resolution{Topic: s1p, Objects: []quad.Value{str("green")}, By: "lead", At: at(2)}
	red := merge.Resolution{Topic: s1p, Objects: []quad.Value{str("red")}, By: "x", At: at(1)}
	blue := merge.Resolution{Topic: s1p, Objects: []quad.Value{str("blue")}, By: "y", At: at(1)}
	orders := map[string][]merge.Resolution{
		"later first":  {later, red, blue},
		"later middle": {red, later, blue},
		"later last":   {red, blue, later},
		"later last 2": {blue, red, later},
	}
	for name, rs := range orders {
		t.Run(name, func(t *testing.T) {
			res, err := merge.Merge("additive", merge.Input{Members: team(), Findings: disputed(), Resolutions: rs})
			if err != nil {
				t.Fatalf("Merge: %v", err)
			}
			want := []string{`s1 p "green" by= ids= resolved=lead`, `s2 p "x" by=alice,bob ids=f3,f4`}
			if got := lines(res); !slices.Equal(got, want) {
				t.Fatalf("got %q, want %q", got, want)
			}
		})
	}
	// The clash among the latest resolutions is an error in every order, even with an earlier one.
	earlier := merge.Resolution{Topic: s1p, Objects: []quad.Value{str("green")}, By: "lead", At: at(0)}
	for _, rs := range [][]merge.Resolution{{earlier, red, blue}, {red, earlier, blue}, {red, blue, earlier}} {
		_, err := merge.Merge("additive", merge.Input{Members: team(), Findings: disputed(), Resolutions: rs})
		if !errors.Is(err, merge.ErrConflictingResolutions) {
			t.Fatalf("err = %v, want ErrConflictingResolutions", err)
		}
	}
}

func TestResolutions_Errors(t *testing.T) {
	cases := []struct {
		name string
		r    []merge.Resolution
		want error
	}{
		{"no resolver", []merge.Resolution{{Topic: s1p}}, merge.ErrInvalidResolution},
		{"no topic nor id", []merge.Resolution{{By: "x"}}, merge.ErrInvalidResolution},
		{"unknown conflict id", []merge.Resolution{{ConflictID: "c0000", By: "x"}}, merge.ErrUnknownConflict},
		{"id does not match topic", []merge.Resolution{{ConflictID: "c0000", Topic: s1p, By: "x"}}, merge.ErrInvalidResolution},
		{"literal subject", []merge.Resolution{{Topic: merge.Topic{Subject: str("s"), Predicate: ex("p")}, By: "x"}}, merge.ErrInvalidTerm},
		{"bad object", []merge.Resolution{{Topic: s1p, Objects: []quad.Value{quad.Int(1)}, By: "x"}}, merge.ErrInvalidTerm},
		{"same time, different choices", []merge.Resolution{
			{Topic: s1p, Objects: []quad.Value{str("red")}, By: "x", At: at(1)},
			{Topic: s1p, Objects: []quad.Value{str("blue")}, By: "y", At: at(1)},
		}, merge.ErrConflictingResolutions},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := merge.Merge("additive", merge.Input{Members: team(), Findings: disputed(), Resolutions: tc.r})
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestConflictID(t *testing.T) {
	// The documented formula, computed independently: "c" + first 16 bytes of SHA-256 of the key, in hex.
	key := "<http://ex/s1> <http://ex/p>"
	if got := s1p.Key(); got != key {
		t.Fatalf("Key() = %q, want %q", got, key)
	}
	sum := sha256.Sum256([]byte(key))
	if want := "c" + hex.EncodeToString(sum[:16]); s1p.ConflictID() != want {
		t.Fatalf("ConflictID() = %q, want %q", s1p.ConflictID(), want)
	}
	for _, tp := range []merge.Topic{s1p, {Subject: quad.BNode("x y"), Predicate: quad.IRI("http://e/a b")}, {}} {
		id := tp.ConflictID()
		if len(id) != 33 {
			t.Errorf("%q: len %d", id, len(id))
		}
		for _, r := range id {
			if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r == 'c') {
				t.Errorf("%q: unsafe character %q", id, r)
			}
		}
	}
}

func TestTopicKey_Escapes(t *testing.T) {
	tp := merge.Topic{Subject: quad.IRI("http://e/a b<\"{}|^`\\>"), Predicate: quad.IRI("http://e/p\n")}
	want := `<http://e/a\u0020b\u003C\u0022\u007B\u007D\u007C\u005E\u0060\u005C\u003E> <http://e/p\u000A>`
	if got := tp.Key(); got != want {
		t.Fatalf("Key() = %s, want %s", got, want)
	}
	bn := merge.Topic{Subject: quad.BNode("b1"), Predicate: ex("p")}
	if got, want := bn.Key(), "_:b1 <http://ex/p>"; got != want {
		t.Fatalf("Key() = %s, want %s", got, want)
	}
}

func TestResult_Full(t *testing.T) {
	// One complete, hand-written Result, to pin every field.
	in := merge.Input{
		Members: []merge.Member{done("bob", 10), failed("dave"), done("alice", 30)},
		Findings: []merge.Finding{
			f("f2", "bob", "s1", "p", str("blue")),
			f("f1", "alice", "s1", "p", str("red")),
			f("f5", "alice", "s1", "p", str("red")),
			f("f3", "alice", "s2", "p", str("x")),
			f("f4", "bob", "s2", "p", str("x")),
			f("f6", "dave", "s2", "p", str("y")),
			f("f7", "nobody", "s2", "p", str("z")),
		},
		Options: merge.Options{Now: at(100)},
	}
	got, err := merge.Merge("conflict-flag", in)
	if err != nil {
		t.Fatal(err)
	}
	want := merge.Result{
		Strategy: "conflict-flag",
		Facts: []merge.Fact{{
			Subject: ex("s2"), Predicate: ex("p"), Object: str("x"),
			Supporters: []string{"alice", "bob"}, FindingIDs: []string{"f3", "f4"}, Confidence: 1,
		}},
		Conflicts: []merge.Conflict{{
			ID:    s1p.ConflictID(),
			Topic: s1p,
			Candidates: []merge.Candidate{
				{Object: str("blue"), Agents: []string{"bob"}, FindingIDs: []string{"f2"}},
				{Object: str("red"), Agents: []string{"alice"}, FindingIDs: []string{"f1", "f5"}},
			},
			Reason: merge.ReasonDisagreement,
		}},
		Report: merge.Report{
			Members: []merge.MemberReport{
				{Agent: "alice", Status: merge.Completed, Contributed: 2, Kept: 1},
				{Agent: "bob", Status: merge.Completed, Contributed: 2, Kept: 1},
				{Agent: "dave", Status: merge.Failed, Ignored: 1},
			},
			Topics:    2,
			Kept:      1,
			Conflicts: 1,
			Ignored:   2,
			MergedAt:  at(100),
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %#v\nwant %#v", got, want)
	}
}

func TestResult_EmptyInput(t *testing.T) {
	for _, name := range merge.Names() {
		t.Run(name, func(t *testing.T) {
			got, err := merge.Merge(name, merge.Input{})
			if err != nil {
				t.Fatal(err)
			}
			want := merge.Result{Strategy: name, Facts: []merge.Fact{}, Conflicts: []merge.Conflict{},
				Report: merge.Report{Members: []merge.MemberReport{}}}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got %#v, want %#v", got, want)
			}
		})
	}
}
