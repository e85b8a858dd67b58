package merge_test

import (
	"slices"
	"testing"

	"github.com/cortexgraph/cortex/merge"
)

func TestConsensus_Rules(t *testing.T) {
	three := []merge.Member{done("alice", 1), done("bob", 2), done("carol", 3)}
	four := append(slices.Clone(three), done("dave", 4))
	for _, tc := range []struct {
		name      string
		members   []merge.Member
		findings  []merge.Finding
		threshold float64
		tie       string
		want      []string
	}{
		{"two of three meet 0.66", three, []merge.Finding{
			f("1", "alice", "s", "p", str("a")), f("2", "bob", "s", "p", str("a")), f("3", "carol", "s", "p", str("b"))},
			0.66, "", []string{`s p "a" by=alice,bob ids=1,2`}},
		{"two of three meet exactly two thirds", three, []merge.Finding{
			f("1", "alice", "s", "p", str("a")), f("2", "bob", "s", "p", str("a")), f("3", "carol", "s", "p", str("b"))},
			2.0 / 3, "", []string{`s p "a" by=alice,bob ids=1,2`}},
		{"two of three miss 0.67", three, []merge.Finding{
			f("1", "alice", "s", "p", str("a")), f("2", "bob", "s", "p", str("a")), f("3", "carol", "s", "p", str("b"))},
			0.67, "", []string{`conflict s p no-consensus: "a"<-alice,bob[1,2] "b"<-carol[3]`}},
		{"silence does not agree", three, []merge.Finding{f("1", "alice", "s", "p", str("a"))},
			0.5, "", []string{`conflict s p no-consensus: "a"<-alice[1]`}},
		{"failed members do not vote", append(slices.Clone(three[:2]), failed("carol")), []merge.Finding{
			f("1", "alice", "s", "p", str("a")), f("3", "carol", "s", "p", str("b"))},
			0.5, "", []string{`s p "a" by=alice ids=1`}},
		{"a tie at the threshold is no consensus", four, []merge.Finding{
			f("1", "alice", "s", "p", str("a")), f("2", "bob", "s", "p", str("a")),
			f("3", "carol", "s", "p", str("b")), f("4", "dave", "s", "p", str("b"))},
			0.5, "", []string{`conflict s p no-consensus: "a"<-alice,bob[1,2] "b"<-carol,dave[3,4]`}},
		{"the tie-breaker's ballot breaks a tie", four, []merge.Finding{
			f("1", "alice", "s", "p", str("a")), f("2", "bob", "s", "p", str("a")),
			f("3", "carol", "s", "p", str("b")), f("4", "dave", "s", "p", str("b"))},
			0.5, "carol", []string{`s p "b" by=carol,dave ids=3,4`}},
		{"a tie-breaker that did not vote on the topic breaks nothing", four, []merge.Finding{
			f("1", "alice", "s", "p", str("a")), f("3", "carol", "s", "p", str("b"))},
			0.5, "bob", []string{`conflict s p no-consensus: "a"<-alice[1] "b"<-carol[3]`}},
		{"a ballot is a set of objects", three, []merge.Finding{
			f("1", "alice", "s", "p", str("a")), f("2", "alice", "s", "p", str("b")),
			f("3", "bob", "s", "p", str("a")), f("4", "bob", "s", "p", str("b")), f("5", "carol", "s", "p", str("a"))},
			0.6, "", []string{`s p "a" by=alice,bob,carol ids=1,3,5`, `s p "b" by=alice,bob ids=2,4`}},
		{"threshold 1 is unanimity", three, []merge.Finding{
			f("1", "alice", "s", "p", str("a")), f("2", "bob", "s", "p", str("a"))},
			1, "", []string{`conflict s p no-consensus: "a"<-alice,bob[1,2]`}},
		{"topics are decided one by one", three, []merge.Finding{
			f("1", "alice", "s", "p", str("a")), f("2", "bob", "s", "p", str("a")),
			f("3", "alice", "s", "q", str("x")), f("4", "bob", "s", "q", str("y"))},
			0.5, "", []string{`s p "a" by=alice,bob ids=1,2`, `conflict s q no-consensus: "x"<-alice[3] "y"<-bob[4]`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := merge.Merge(merge.NameConsensus, merge.Input{Members: tc.members, Findings: tc.findings,
				Options: merge.Options{Threshold: tc.threshold, TieBreaker: tc.tie}})
			if err != nil {
				t.Fatal(err)
			}
			if got := lines(res); !slices.Equal(got, tc.want) {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

// TestConsensus_BallotsWithNULs: ballots are compared as sets of objects,
// whatever bytes the objects hold: alice's ballot {"p", "q"} is not bob's
// {"p\x003\x00\x00q"} (a literal may hold U+0000), so no ballot has two
// voters and there is no consensus.
func TestConsensus_BallotsWithNULs(t *testing.T) {
	three := []merge.Member{done("alice", 1), done("bob", 2), done("carol", 3)}
	res, err := merge.Merge(merge.NameConsensus, merge.Input{Members: three, Findings: []merge.Finding{
		f("1", "alice", "s", "p", str("p")), f("2", "alice", "s", "p", str("q")),
		f("3", "bob", "s", "p", str("p\x003\x00\x00q")), f("4", "carol", "s", "p", str("z")),
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`conflict s p no-consensus: "p"<-alice[1] "p\x003\x00\x00q"<-bob[3] "q"<-alice[2] "z"<-carol[4]`}
	if got := lines(res); !slices.Equal(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}
