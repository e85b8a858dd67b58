package merge_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/cayleygraph/quad"
	"github.com/cortexgraph/cortex/merge"
)

const xsd = "http://www.w3.org/2001/XMLSchema#"

type strategyCase struct {
	name     string
	strategy string // registered name in the default registry
	members  []merge.Member
	findings []merge.Finding
	opts     merge.Options
	want     []string // hand-written, in the format of lines()
}

func runCases(t *testing.T, cases []strategyCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			members := tc.members
			if members == nil {
				members = team()
			}
			res, err := merge.Merge(tc.strategy, merge.Input{Members: members, Findings: tc.findings, Options: tc.opts})
			if err != nil {
				t.Fatalf("Merge: %v", err)
			}
			if res.Strategy != tc.strategy {
				t.Errorf("Strategy = %q, want %q", res.Strategy, tc.strategy)
			}
			if got := lines(res); !slices.Equal(got, tc.want) {
				t.Errorf("got\n\t%s\nwant\n\t%s", join(got), join(tc.want))
			}
			if res.Report.Kept != len(res.Facts) || res.Report.Conflicts != len(res.Conflicts) {
				t.Errorf("report counts %d/%d, result has %d facts, %d conflicts",
					res.Report.Kept, res.Report.Conflicts, len(res.Facts), len(res.Conflicts))
			}
		})
	}
}

func join(ls []string) string {
	out := ""
	for i, l := range ls {
		if i > 0 {
			out += "\n\t"
		}
		out += l
	}
	return out
}

func TestAdditive(t *testing.T) {
	runCases(t, []strategyCase{
		{
			name:     "every distinct object, completed members only",
			strategy: "additive",
			findings: []merge.Finding{
				f("f1", "alice", "s1", "p", str("red")),
				f("f2", "bob", "s1", "p", str("red")),
				f("f3", "carol", "s1", "p", str("blue")),
				f("f4", "dave", "s1", "p", str("green")),  // failed
				f("f5", "erin", "s1", "p", str("yellow")), // running
				f("f6", "zed", "s1", "p", str("black")),   // not a member
				f("f7", "finn", "s1", "p", str("white")),  // pending
			},
			want: []string{
				`s1 p "blue" by=carol ids=f3`,
				`s1 p "red" by=alice,bob ids=f1,f2`,
			},
		},
		{
			name:     "RDF term equality: language case and xsd:string",
			strategy: "additive",
			findings: []merge.Finding{
				f("f1", "alice", "s1", "p", lang("chat", "en")),
				f("f2", "bob", "s1", "p", lang("chat", "EN")),
				f("f3", "alice", "s1", "p", lang("chat", "En")),
				f("f4", "carol", "s1", "p", quad.TypedString{Value: "chat", Type: xsd + "string"}),
				f("f5", "carol", "s1", "p", str("chat")),
				f("f6", "carol", "s1", "p", quad.TypedString{Value: "01", Type: xsd + "integer"}),
			},
			want: []string{
				// kinds order: plain, language-tagged, typed
				`s1 p "chat" by=carol ids=f4,f5`,
				`s1 p "chat"@EN by=alice,bob ids=f1,f2,f3`,
				`s1 p "01"^^<http://www.w3.org/2001/XMLSchema#integer> by=carol ids=f6`,
			},
		},
		{
			name:     "several objects from one member are all kept",
			strategy: "additive",
			findings: []merge.Finding{
				f("f1", "alice", "s1", "p", str("a")),
				f("f2", "alice", "s1", "p", str("b")),
				f("f3", "alice", "s2", "p", ex("o")),
				f("f4", "bob", "s2", "q", quad.BNode("b1")),
			},
			want: []string{
				`s1 p "a" by=alice ids=f1`,
				`s1 p "b" by=alice ids=f2`,
				`s2 p o by=alice ids=f3`,
				`s2 q _:b1 by=bob ids=f4`,
			},
		},
	})
}

func TestReplace(t *testing.T) {
	tied := []merge.Member{done("alice", 10), done("bob", 10), done("carol", 5)}
	tiedFindings := []merge.Finding{
		f("f1", "alice", "s1", "p", str("a")),
		f("f2", "bob", "s1", "p", str("b")),
		f("f3", "carol", "s1", "p", str("c")),
	}
	runCases(t, []strategyCase{
		{
			name:     "member that completed last among speakers wins",
			strategy: "replace",
			findings: []merge.Finding{
				// s1: alice completed last (30).
				f("f1", "bob", "s1", "p", str("blue")),
				f("f2", "alice", "s1", "p", str("red")),
				f("f3", "carol", "s1", "p", str("green")),
				// s2: alice did not speak; carol (20) beats bob (10) and all her objects are kept.
				f("f4", "bob", "s2", "p", str("x")),
				f("f5", "carol", "s2", "p", str("y")),
				f("f6", "carol", "s2", "p", str("z")),
				// s3: dave failed, so bob is the only speaker.
				f("f7", "dave", "s3", "p", str("q")),
				f("f8", "bob", "s3", "p", str("w")),
				// s4: bob agrees with the winner and is a supporter.
				f("f9", "alice", "s4", "p", str("v")),
				f("f10", "bob", "s4", "p", str("v")),
				f("f11", "carol", "s4", "p", str("u")),
			},
			want: []string{
				`s1 p "red" by=alice ids=f2`,
				`s2 p "y" by=carol ids=f5`,
				`s2 p "z" by=carol ids=f6`,
				`s3 p "w" by=bob ids=f8`,
				`s4 p "v" by=alice,bob ids=f10,f9`,
			},
		},
		{
			name:     "tied last writers are all kept",
			strategy: "replace",
			members:  tied,
			findings: tiedFindings,
			want: []string{
				`s1 p "a" by=alice ids=f1`,
				`s1 p "b" by=bob ids=f2`,
			},
		},
		{
			name:     "tie-breaker among tied last writers wins",
			strategy: "replace",
			members:  tied,
			findings: tiedFindings,
			opts:     merge.Options{TieBreaker: "bob"},
			want:     []string{`s1 p "b" by=bob ids=f2`},
		},
		{
			name:     "tie-breaker not among tied is ignored",
			strategy: "replace",
			members:  tied,
			findings: tiedFindings,
			opts:     merge.Options{TieBreaker: "carol"},
			want: []string{
				`s1 p "a" by=alice ids=f1`,
				`s1 p "b" by=bob ids=f2`,
			},
		},
	})
}

func TestNewestWins(t *testing.T) {
	runCases(t, []strategyCase{
		{
			name:     "latest AssertedAt wins, not the id",
			strategy: "newest-wins",
			findings: []merge.Finding{
				fnd("z-999", "alice", "s1", "p", str("old"), 5, 0),
				fnd("a-001", "bob", "s1", "p", str("new"), 9, 0),
				fnd("m-500", "carol", "s1", "p", str("mid"), 7, 0),
				fnd("b-002", "carol", "s1", "p", str("new"), 1, 0), // also supports "new"
				fnd("late", "dave", "s1", "p", str("failed"), 99, 0),
			},
			want: []string{`s1 p "new" by=bob,carol ids=a-001,b-002`},
		},
		{
			name:     "a repeated assertion counts at its latest time",
			strategy: "newest-wins",
			findings: []merge.Finding{
				fnd("f1", "alice", "s1", "p", str("old"), 5, 0),
				fnd("f2", "bob", "s1", "p", str("new"), 9, 0),
				fnd("f3", "alice", "s1", "p", str("old"), 10, 0),
			},
			want: []string{`s1 p "old" by=alice ids=f1,f3`},
		},
		{
			name:     "several objects from one member compete by time",
			strategy: "newest-wins",
			findings: []merge.Finding{
				fnd("f1", "alice", "s1", "p", str("first"), 1, 0),
				fnd("f2", "alice", "s1", "p", str("second"), 2, 0),
			},
			want: []string{`s1 p "second" by=alice ids=f2`},
		},
		{
			name:     "tie goes to the object that sorts first",
			strategy: "newest-wins",
			findings: []merge.Finding{
				fnd("f1", "alice", "s1", "p", str("b"), 9, 0),
				fnd("f2", "bob", "s1", "p", str("a"), 9, 0),
				fnd("f3", "carol", "s1", "p", str("0"), 3, 0),
			},
			want: []string{`s1 p "a" by=bob ids=f2`},
		},
		{
			name:     "tie goes to the tie-breaker",
			strategy: "newest-wins",
			findings: []merge.Finding{
				fnd("f1", "alice", "s1", "p", str("b"), 9, 0),
				fnd("f2", "bob", "s1", "p", str("a"), 9, 0),
			},
			opts: merge.Options{TieBreaker: "alice"},
			want: []string{`s1 p "b" by=alice ids=f1`},
		},
	})
}

func TestMajorityWins(t *testing.T) {
	runCases(t, []strategyCase{
		{
			name:     "more than half of the speakers",
			strategy: "majority-wins",
			findings: []merge.Finding{
				f("f1", "alice", "s1", "p", str("red")),
				f("f2", "bob", "s1", "p", str("red")),
				f("f3", "carol", "s1", "p", str("blue")),
				// failed and running members neither vote nor count as speakers
				f("f4", "dave", "s1", "p", str("blue")),
				f("f5", "erin", "s1", "p", str("blue")),
				// only alice speaks on s2
				f("f6", "alice", "s2", "p", str("x")),
			},
			want: []string{
				`s1 p "red" by=alice,bob ids=f1,f2`,
				`s2 p "x" by=alice ids=f6`,
			},
		},
		{
			name:     "half is not a majority",
			strategy: "majority-wins",
			findings: []merge.Finding{
				f("f1", "alice", "s1", "p", str("red")),
				f("f2", "bob", "s1", "p", str("blue")),
			},
			want: []string{`conflict s1 p no-majority: "blue"<-bob[f2] "red"<-alice[f1]`},
		},
		{
			name:     "tie-breaker decides a tie between leaders",
			strategy: "majority-wins",
			findings: []merge.Finding{
				f("f1", "alice", "s1", "p", str("red")),
				f("f2", "bob", "s1", "p", str("blue")),
			},
			opts: merge.Options{TieBreaker: "alice"},
			want: []string{`s1 p "red" by=alice ids=f1`},
		},
		{
			name:     "a failed tie-breaker cannot break the tie",
			strategy: "majority-wins",
			findings: []merge.Finding{
				f("f1", "alice", "s1", "p", str("red")),
				f("f2", "bob", "s1", "p", str("blue")),
				f("f3", "dave", "s1", "p", str("red")),
			},
			opts: merge.Options{TieBreaker: "dave"},
			want: []string{`conflict s1 p no-majority: "blue"<-bob[f2] "red"<-alice[f1]`},
		},
		{
			name:     "repeating an object is one vote",
			strategy: "majority-wins",
			findings: []merge.Finding{
				f("f1", "alice", "s1", "p", str("red")),
				f("f2", "alice", "s1", "p", str("red")),
				f("f3", "alice", "s1", "p", lang("red", "en")), // a different term: another vote
				f("f4", "bob", "s1", "p", str("blue")),
				f("f5", "carol", "s1", "p", str("green")),
			},
			want: []string{`conflict s1 p no-majority: "blue"<-bob[f4] "green"<-carol[f5] "red"<-alice[f1,f2] "red"@en<-alice[f3]`},
		},
		{
			name:     "several objects from one member: approval voting",
			strategy: "majority-wins",
			findings: []merge.Finding{
				f("f1", "alice", "s1", "p", str("red")),
				f("f2", "alice", "s1", "p", str("blue")),
				f("f3", "bob", "s1", "p", str("red")),
				f("f4", "carol", "s1", "p", str("blue")),
				f("f5", "carol", "s1", "p", str("green")),
			},
			want: []string{
				`s1 p "blue" by=alice,carol ids=f2,f4`,
				`s1 p "red" by=alice,bob ids=f1,f3`,
			},
		},
		{
			name:     "threshold 0.66: two of three pass",
			strategy: "majority-wins",
			findings: []merge.Finding{
				f("f1", "alice", "s1", "p", str("red")),
				f("f2", "bob", "s1", "p", str("red")),
				f("f3", "carol", "s1", "p", str("blue")),
			},
			opts: merge.Options{Threshold: 0.66},
			want: []string{`s1 p "red" by=alice,bob ids=f1,f2`},
		},
		{
			name:     "threshold 0.7: two of three fail and a unique leader is not a tie",
			strategy: "majority-wins",
			findings: []merge.Finding{
				f("f1", "alice", "s1", "p", str("red")),
				f("f2", "bob", "s1", "p", str("red")),
				f("f3", "carol", "s1", "p", str("blue")),
			},
			opts: merge.Options{Threshold: 0.7, TieBreaker: "alice"},
			want: []string{`conflict s1 p no-majority: "blue"<-carol[f3] "red"<-alice,bob[f1,f2]`},
		},
		{
			name:     "threshold 1 is unanimity",
			strategy: "majority-wins",
			findings: []merge.Finding{
				f("f1", "alice", "s1", "p", str("red")),
				f("f2", "bob", "s1", "p", str("red")),
				f("f3", "alice", "s2", "p", str("red")),
				f("f4", "bob", "s2", "p", str("red")),
				f("f5", "carol", "s2", "p", str("blue")),
			},
			opts: merge.Options{Threshold: 1},
			want: []string{
				`s1 p "red" by=alice,bob ids=f1,f2`,
				`conflict s2 p no-majority: "blue"<-carol[f5] "red"<-alice,bob[f3,f4]`,
			},
		},
	})
}

func TestConflictFlag(t *testing.T) {
	runCases(t, []strategyCase{
		{
			name:     "agreement kept, disagreement flagged",
			strategy: "conflict-flag",
			findings: []merge.Finding{
				f("f1", "alice", "s1", "p", str("red")),
				f("f2", "bob", "s1", "p", str("red")),
				f("f3", "alice", "s2", "p", str("red")),
				f("f4", "bob", "s2", "p", str("blue")),
				f("f5", "carol", "s2", "p", str("blue")),
				f("f6", "dave", "s1", "p", str("green")), // failed: not a dissent
				f("f7", "carol", "s3", "p", str("alone")),
			},
			want: []string{
				`s1 p "red" by=alice,bob ids=f1,f2`,
				`s3 p "alone" by=carol ids=f7`,
				`conflict s2 p disagreement: "blue"<-bob,carol[f4,f5] "red"<-alice[f3]`,
			},
		},
		{
			name:     "same sets of several objects agree, different sets do not",
			strategy: "conflict-flag",
			findings: []merge.Finding{
				f("f1", "alice", "s1", "p", str("red")),
				f("f2", "alice", "s1", "p", str("blue")),
				f("f3", "bob", "s1", "p", str("blue")),
				f("f4", "bob", "s1", "p", str("red")),
				f("f5", "alice", "s2", "p", str("red")),
				f("f6", "alice", "s2", "p", str("blue")),
				f("f7", "bob", "s2", "p", str("red")),
			},
			want: []string{
				`s1 p "blue" by=alice,bob ids=f2,f3`,
				`s1 p "red" by=alice,bob ids=f1,f4`,
				`conflict s2 p disagreement: "blue"<-alice[f6] "red"<-alice,bob[f5,f7]`,
			},
		},
		{
			name:     "language tags agree case-insensitively",
			strategy: "conflict-flag",
			findings: []merge.Finding{
				f("f1", "alice", "s1", "p", lang("x", "en-GB")),
				f("f2", "bob", "s1", "p", lang("x", "en-gb")),
			},
			want: []string{`s1 p "x"@en-GB by=alice,bob ids=f1,f2`},
		},
	})
}

func TestConfidenceWeighted(t *testing.T) {
	runCases(t, []strategyCase{
		{
			name:     "sum of confidences",
			strategy: "confidence-weighted",
			findings: []merge.Finding{
				fnd("f1", "alice", "s1", "p", str("red"), 0, 0.9),
				fnd("f2", "bob", "s1", "p", str("blue"), 0, 0.4),
				fnd("f3", "carol", "s1", "p", str("blue"), 0, 0.4),
			},
			want: []string{`s1 p "red" by=alice ids=f1`},
		},
		{
			name:     "unspecified confidence counts as 1",
			strategy: "confidence-weighted",
			findings: []merge.Finding{
				fnd("f1", "alice", "s1", "p", str("red"), 0, 0),
				fnd("f2", "bob", "s1", "p", str("blue"), 0, 0.5),
				fnd("f3", "carol", "s1", "p", str("blue"), 0, 0.4),
			},
			want: []string{`s1 p "red" by=alice ids=f1`},
		},
		{
			name:     "0.1+0.2 ties 0.3 despite rounding",
			strategy: "confidence-weighted",
			findings: []merge.Finding{
				fnd("f1", "alice", "s1", "p", str("red"), 0, 0.3),
				fnd("f2", "bob", "s1", "p", str("blue"), 0, 0.1),
				fnd("f3", "carol", "s1", "p", str("blue"), 0, 0.2),
			},
			want: []string{`conflict s1 p no-clear-winner: "blue"<-bob,carol[f2,f3] "red"<-alice[f1]`},
		},
		{
			name:     "a repeated object weighs its highest confidence once",
			strategy: "confidence-weighted",
			findings: []merge.Finding{
				fnd("f1", "alice", "s1", "p", str("red"), 0, 0.6),
				fnd("f2", "alice", "s1", "p", str("red"), 0, 0.5),
				fnd("f3", "bob", "s1", "p", str("blue"), 0, 0.9),
			},
			want: []string{`s1 p "blue" by=bob ids=f3`},
		},
	})
}

func TestConfidenceWeighted_Margin(t *testing.T) {
	s := merge.ConfidenceWeighted{Margin: 0.5}
	cases := []struct {
		name     string
		findings []merge.Finding
		want     []string
	}{
		{
			name: "lead 0.4 is below the margin",
			findings: []merge.Finding{
				fnd("f1", "alice", "s1", "p", str("red"), 0, 1),
				fnd("f2", "bob", "s1", "p", str("blue"), 0, 0.6),
			},
			want: []string{`conflict s1 p no-clear-winner: "blue"<-bob[f2] "red"<-alice[f1]`},
		},
		{
			name:     "lone confident claim beats the margin",
			findings: []merge.Finding{fnd("f1", "alice", "s1", "p", str("red"), 0, 1)},
			want:     []string{`s1 p "red" by=alice ids=f1`},
		},
		{
			name:     "lone claim at 0.5 does not",
			findings: []merge.Finding{fnd("f1", "alice", "s1", "p", str("red"), 0, 0.5)},
			want:     []string{`conflict s1 p no-clear-winner: "red"<-alice[f1]`},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := s.Merge(merge.Input{Members: team(), Findings: tc.findings})
			if err != nil {
				t.Fatal(err)
			}
			if got := lines(res); !slices.Equal(got, tc.want) {
				t.Errorf("got\n\t%s\nwant\n\t%s", join(got), join(tc.want))
			}
		})
	}
}

// TestMajorityWins_ThresholdBoundary: an object with exactly Threshold × speakers votes does not pass
// ("more than"), even when that product is not exact in floating point (0.58 × 50 is computed as
// 28.999999999999996).
func TestMajorityWins_ThresholdBoundary(t *testing.T) {
	cases := []struct {
		speakers, votes int
		threshold       float64
		pass            bool
	}{
		{2, 1, 0.5, false},
		{4, 3, 0.75, false},
		{4, 4, 0.75, true},
		{10, 3, 0.3, false},
		{10, 4, 0.3, true},
		{50, 29, 0.58, false},
		{50, 30, 0.58, true},
		{100, 29, 0.29, false},
		{100, 30, 0.29, true},
		// Every speaker's vote passes every threshold, as it passes 1: the
		// tolerance must not make a threshold just below 1 stricter than 1.
		{1, 1, 0.9999999999, true},
		{3, 3, 0.9999999999, true},
		{50, 50, 0.99999999999, true},
		{50, 49, 0.99999999999, false},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%d of %d at %v", tc.votes, tc.speakers, tc.threshold), func(t *testing.T) {
			in := merge.Input{Options: merge.Options{Threshold: tc.threshold}}
			for i := range tc.speakers {
				agent := fmt.Sprintf("a%03d", i)
				obj := str("no")
				if i < tc.votes {
					obj = str("yes")
				}
				in.Members = append(in.Members, done(agent, 1))
				in.Findings = append(in.Findings, f(fmt.Sprintf("f%d", i), agent, "s", "p", obj))
			}
			res, err := merge.Merge(merge.NameMajorityWins, in)
			if err != nil {
				t.Fatal(err)
			}
			passed := slices.ContainsFunc(res.Facts, func(fa merge.Fact) bool { return fa.Object == str("yes") })
			if passed != tc.pass {
				t.Fatalf("passed = %v, want %v (%s)", passed, tc.pass, join(lines(res)))
			}
		})
	}
}
