package workflow_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/teammanager"
	"github.com/cortexgraph/cortex/workflow"
)

// fail, as an agent's votes in a council script, fails its step.
const fail = "FAIL"

// vote is "topic=object" (subject ex:topic, predicate ex:is), or fail;
// "topic=object@tag" votes a language-tagged string, "topic=<iri>" an IRI.
func vote(v string) teammanager.Finding {
	topic, obj, _ := strings.Cut(v, "=")
	if strings.HasPrefix(obj, "<") {
		return finding(topic, "is", quad.IRI(strings.Trim(obj, "<>")))
	}
	if obj, tag, ok := strings.Cut(obj, "@"); ok {
		return finding(topic, "is", quad.LangString{Value: quad.String(obj), Lang: tag})
	}
	return finding(topic, "is", quad.String(obj))
}

// councilDef is a council of agents with the given rules.
func councilDef(agents []string, agreement float64, rounds int, tie, lead string) workflow.Def {
	return workflow.Def{Name: "council", Type: workflow.Council, Agents: agents, Lead: lead,
		Consensus: &workflow.Consensus{RequiredAgreement: agreement, MaxRounds: rounds, TieBreaker: tie}}
}

// driveCouncil drives council run id through the pull API: script[round]
// gives each agent's votes in that round (none: it votes nothing new; fail:
// its step fails). It checks that each step's ReadyStep carries its round
// and the previous round's tally.
func driveCouncil(t *testing.T, f *fixture, id string, script map[int]map[string][]string) workflow.Run {
	t.Helper()
	for range 100 {
		rs, err := f.e.Ready(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) == 0 {
			r := f.get(t, id)
			if !r.Status.Finished() {
				t.Fatalf("run %s is %s with no ready step", id, r.Status)
			}
			return r
		}
		for _, s := range rs {
			if s.Round < 1 || (s.Round == 1) != (s.Tally == nil) || s.Tally != nil && s.Tally.Round != s.Round-1 {
				t.Fatalf("step %s: round %d, tally %+v", s.Step.Name, s.Round, s.Tally)
			}
			if _, err := f.e.StartStep(ctx, id, s.Step.Name, "host"); err != nil {
				t.Fatal(err)
			}
			votes := script[s.Round][s.Step.Agent]
			if slices.Contains(votes, fail) {
				if err := f.e.FailStep(ctx, id, s.Step.Name, 1, "agent crashed"); err != nil {
					t.Fatal(err)
				}
				continue
			}
			var fs []teammanager.Finding
			for _, v := range votes {
				fs = append(fs, vote(v))
			}
			if len(fs) > 0 {
				if _, err := f.e.AddFindings(ctx, id, s.Step.Name, 1, fs); err != nil {
					t.Fatal(err)
				}
			}
			if err := f.e.CompleteStep(ctx, id, s.Step.Name, 1, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Fatal("council did not end")
	return workflow.Run{}
}

// tallyLines renders each round's tally as "round N: topic:status[winner]
// ...", with "final" on the last.
func tallyLines(r workflow.Run) []string {
	var out []string
	for _, tl := range r.Rounds {
		l := fmt.Sprintf("round %d:", tl.Round)
		for _, tt := range tl.Topics {
			topic := strings.TrimSuffix(strings.TrimPrefix(tt.Subject, "<http://ex.org/"), ">")
			l += fmt.Sprintf(" %s:%s", topic, tt.Status)
			if len(tt.Winner) > 0 {
				l += fmt.Sprintf("%s@%d", tt.Winner, tt.DecidedIn)
			}
		}
		if tl.Final {
			l += " final"
		}
		out = append(out, l)
	}
	return out
}

// outcome renders the team's merged facts ("topic=object by agents") and
// open conflicts ("conflict topic").
func outcome(t *testing.T, f *fixture, team string) []string {
	t.Helper()
	facts, err := f.tm.Facts(ctx, team, teammanager.FactFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, fa := range facts {
		out = append(out, fmt.Sprintf("%s=%s by %s", strings.TrimPrefix(string(fa.Subject.(quad.IRI)), "http://ex.org/"),
			quad.StringOf(fa.Object), strings.Join(fa.Supporters, ",")))
	}
	cs, err := f.tm.Conflicts(ctx, team)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.ResolvedAt.IsZero() {
			out = append(out, "conflict "+strings.TrimPrefix(string(c.Subject.(quad.IRI)), "http://ex.org/"))
		}
	}
	return out
}

func TestCouncil_Rules(t *testing.T) {
	abc := []string{"a", "b", "c"}
	abcd := []string{"a", "b", "c", "d"}
	type script = map[int]map[string][]string
	for _, tc := range []struct {
		name        string
		def         workflow.Def
		nonCritical []string
		script      script
		tallies     []string
		outcome     []string
		status      workflow.RunStatus
		skipped     []string // steps skipped
	}{
		{"agreement exactly at the threshold", councilDef(abc, 0.66, 3, "", ""),
			nil, script{1: {"a": {"t=x"}, "b": {"t=x"}, "c": {"t=y"}}},
			[]string{`round 1: t:agreed["x"]@1 final`}, []string{`t="x" by a,b`}, workflow.RunCompleted,
			[]string{"round-2/a", "round-2/b", "round-2/c", "round-3/a", "round-3/b", "round-3/c"}},
		{"agreement exactly two thirds", councilDef(abc, 2.0/3, 1, "", ""),
			nil, script{1: {"a": {"t=x"}, "b": {"t=x"}, "c": {"t=y"}}},
			[]string{`round 1: t:agreed["x"]@1 final`}, []string{`t="x" by a,b`}, workflow.RunCompleted, nil},
		{"just below the threshold is a conflict", councilDef(abc, 0.67, 1, "", ""),
			nil, script{1: {"a": {"t=x"}, "b": {"t=x"}, "c": {"t=y"}}},
			[]string{`round 1: t:open final`}, []string{"conflict t"}, workflow.RunCompleted, nil},
		{"members change votes in a later round", councilDef(abc, 0.66, 3, "", ""),
			nil, script{1: {"a": {"t=x"}, "b": {"t=y"}, "c": {"t=z"}}, 2: {"b": {"t=x"}}},
			[]string{`round 1: t:open`, `round 2: t:agreed["x"]@2 final`}, []string{`t="x" by a,b`}, workflow.RunCompleted,
			[]string{"round-3/a", "round-3/b", "round-3/c"}},
		{"a tie goes to the tie-breaker agent", councilDef(abcd, 0.5, 1, "c", ""),
			nil, script{1: {"a": {"t=x"}, "b": {"t=x"}, "c": {"t=y"}, "d": {"t=y"}}},
			[]string{`round 1: t:tie-broken["y"]@1 final`}, []string{`t="y" by c,d`}, workflow.RunCompleted, nil},
		{"a tie goes to the lead", councilDef(abcd, 0.5, 2, "lead", "a"),
			nil, script{1: {"a": {"t=x"}, "b": {"t=x"}, "c": {"t=y"}, "d": {"t=y"}}},
			[]string{`round 1: t:open`, `round 2: t:tie-broken["x"]@2 final`}, []string{`t="x" by a,b`}, workflow.RunCompleted, nil},
		{"max_rounds 1 without a tie-breaker leaves a conflict", councilDef(abcd, 0.5, 1, "", ""),
			nil, script{1: {"a": {"t=x"}, "b": {"t=x"}, "c": {"t=y"}, "d": {"t=y"}}},
			[]string{`round 1: t:open final`}, []string{"conflict t"}, workflow.RunCompleted, nil},
		{"topics are decided one by one and stay decided", councilDef(abc, 0.66, 2, "", ""),
			nil, script{1: {"a": {"t=x", "u=1"}, "b": {"t=x", "u=2"}, "c": {"t=x", "u=3"}}, 2: {"a": {"t=y", "u=2"}}},
			[]string{`round 1: t:agreed["x"]@1 u:open`, `round 2: t:agreed["x"]@1 u:agreed["2"]@2 final`},
			[]string{`t="x" by a,b,c`, `u="2" by a,b`}, workflow.RunCompleted, nil},
		{"a member failing round 1 is out", councilDef(abc, 0.5, 2, "", ""),
			[]string{"c"}, script{1: {"a": {"t=x"}, "b": {"t=y"}, "c": {fail}}, 2: {"b": {"t=x"}}},
			[]string{`round 1: t:open`, `round 2: t:agreed["x"]@2 final`}, []string{`t="x" by a,b`}, workflow.RunCompleted,
			[]string{"round-2/c"}},
		{"a critical member failing round 1 fails the run", councilDef(abc, 0.5, 1, "", ""),
			nil, script{1: {"a": {"t=x"}, "b": {"t=x"}, "c": {fail}}},
			[]string{`round 1: t:agreed["x"]@1 final`}, []string{`t="x" by a,b`}, workflow.RunFailed, nil},
		{"a member failing a later round keeps its vote", councilDef(abc, 1, 2, "", ""),
			nil, script{1: {"a": {"t=x"}, "b": {"t=y"}, "c": {"t=y"}}, 2: {"a": {fail}, "b": {"t=x"}, "c": {"t=x"}}},
			[]string{`round 1: t:open`, `round 2: t:agreed["x"]@2 final`}, []string{`t="x" by a,b,c`}, workflow.RunCompleted, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			r := f.start(t, tc.def, workflow.RunOptions{ID: "c1", NonCritical: tc.nonCritical})
			if r.Strategy != "consensus" {
				t.Errorf("strategy %q, want consensus", r.Strategy)
			}
			r = driveCouncil(t, f, "c1", tc.script)
			if got := tallyLines(r); !slices.Equal(got, tc.tallies) {
				t.Errorf("tallies\n%q\nwant\n%q", got, tc.tallies)
			}
			if got := outcome(t, f, "c1"); !slices.Equal(got, tc.outcome) {
				t.Errorf("outcome %q, want %q", got, tc.outcome)
			}
			if r.Status != tc.status {
				t.Errorf("run %s (%s), want %s", r.Status, r.Error, tc.status)
			}
			var skipped []string
			for _, s := range r.Steps {
				if s.Status == workflow.StepSkipped {
					skipped = append(skipped, s.Name)
				}
			}
			if !slices.Equal(skipped, tc.skipped) {
				t.Errorf("skipped %q, want %q", skipped, tc.skipped)
			}
		})
	}
}

// TestCouncil_LastVoteOnly checks that a member's changed vote replaces
// its old one in the team: its member graph holds its last vote only.
func TestCouncil_LastVoteOnly(t *testing.T) {
	f := newFixture(t)
	f.start(t, councilDef([]string{"a", "b", "c"}, 0.66, 2, "", ""), workflow.RunOptions{ID: "c1"})
	driveCouncil(t, f, "c1", map[int]map[string][]string{1: {"a": {"t=x"}, "b": {"t=y"}, "c": {"t=z"}}, 2: {"b": {"t=x"}}})
	fs, err := f.tm.Findings(ctx, "c1", teammanager.FindingFilter{Agent: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || fs[0].Object != quad.String("x") {
		t.Fatalf("b's findings %+v, want its last vote x only", fs)
	}
}

// TestCouncil_TallyIsQueryable reads each round's tally with SPARQL.
func TestCouncil_TallyIsQueryable(t *testing.T) {
	f := newFixture(t)
	f.start(t, councilDef([]string{"a", "b", "c"}, 0.66, 2, "", ""), workflow.RunOptions{ID: "c1"})
	driveCouncil(t, f, "c1", map[int]map[string][]string{1: {"a": {"t=x"}, "b": {"t=y"}, "c": {"t=x"}}})
	res, err := f.tm.Query(ctx, `SELECT ?n ?status ?winner ?votes WHERE { GRAPH ?g {
		?r cx:workflow:round:number ?n ; cx:workflow:round:topic ?t .
		?t cx:workflow:tally:status ?status ; cx:workflow:tally:winner ?winner ; cx:workflow:tally:ballot ?b .
		?b cx:workflow:ballot:object ?winner ; cx:workflow:ballot:votes ?votes } }`, sparql.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	var got []string
	for res.Next(ctx) {
		row := res.Row()
		got = append(got, fmt.Sprintf("%s %s %s %s", quad.StringOf(row[0]), quadString(row[1]), quadString(row[2]), quad.StringOf(row[3])))
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{`"1"^^<http://www.w3.org/2001/XMLSchema#integer> agreed x "2"^^<http://www.w3.org/2001/XMLSchema#integer>`}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestCouncil_StartErrors(t *testing.T) {
	f := newFixture(t)
	_, err := f.e.Start(ctx, councilDef([]string{"a"}, 0.5, 1, "", ""), workflow.RunOptions{Strategy: "additive"})
	if !errors.Is(err, workflow.ErrInvalidRun) || !strings.Contains(err.Error(), "a council merges with consensus") {
		t.Fatalf("Start with additive = %v", err)
	}
}

// TestCouncil_ReadyTallyIsACopy: the tally Ready hands a council step is
// the caller's own: a runner that changes it changes neither the run's
// stored rounds nor what the next Ready and the final tally read.
func TestCouncil_ReadyTallyIsACopy(t *testing.T) {
	f := newFixture(t)
	f.start(t, councilDef([]string{"a", "b", "c"}, 0.66, 2, "", ""), workflow.RunOptions{ID: "c1"})
	for _, agent := range []string{"a", "b", "c"} {
		step := "round-1/" + agent
		n, err := f.e.StartStep(ctx, "c1", step, "host")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.e.AddFindings(ctx, "c1", step, n, []teammanager.Finding{vote("t=" + agent)}); err != nil {
			t.Fatal(err)
		}
		if err := f.e.CompleteStep(ctx, "c1", step, n, nil); err != nil {
			t.Fatal(err)
		}
	}
	before := tallyLines(f.get(t, "c1"))
	voters := fmt.Sprint(f.get(t, "c1").Rounds[0].Voters)
	rs, err := f.e.Ready(ctx, "c1")
	if err != nil || len(rs) != 3 || rs[0].Tally == nil || len(rs[0].Tally.Topics) != 1 {
		t.Fatalf("ready %+v, %v", rs, err)
	}
	// A runner that scribbles on what it was given.
	for _, s := range rs {
		tl := s.Tally
		tl.Voters[0] = "mallory"
		tl.Topics[0].Status, tl.Topics[0].Winner, tl.Topics[0].DecidedIn = "agreed", []string{`"x"`}, 1
		tl.Topics[0].Ballots[0].Agents[0] = "mallory"
	}
	r := f.get(t, "c1")
	if got := tallyLines(r); !slices.Equal(got, before) || fmt.Sprint(r.Rounds[0].Voters) != voters {
		t.Fatalf("the run's tally after a runner changed its copy: %q, voters %v; want %q, voters %s", got, r.Rounds[0].Voters, before, voters)
	}
	rs, err = f.e.Ready(ctx, "c1")
	if err != nil || len(rs) != 3 {
		t.Fatalf("ready %+v, %v", rs, err)
	}
	if tt := rs[0].Tally.Topics[0]; tt.Status != workflow.TopicOpen || len(tt.Winner) != 0 || rs[0].Tally.Voters[0] != "a" {
		t.Fatalf("the next Ready's tally: %+v, voters %v", tt, rs[0].Tally.Voters)
	}
}

// TestCouncil_TallyLanguageTagCase: ballots whose language tags differ
// only in case are one ballot in the tally, as they are one in its
// decision (RDF 1.1 compares language tags case-insensitively), spelled
// as the winner is.
func TestCouncil_TallyLanguageTagCase(t *testing.T) {
	f := newFixture(t)
	f.start(t, councilDef([]string{"a", "b", "c"}, 0.66, 1, "", ""), workflow.RunOptions{ID: "c1"})
	r := driveCouncil(t, f, "c1", map[int]map[string][]string{1: {"a": {"t=x@en"}, "b": {"t=x@EN"}, "c": {"t=y@en"}}})
	if got, want := tallyLines(r), []string{`round 1: t:agreed["x"@EN]@1 final`}; !slices.Equal(got, want) {
		t.Fatalf("tallies %q, want %q", got, want)
	}
	var got []string
	for _, b := range r.Rounds[0].Topics[0].Ballots {
		got = append(got, fmt.Sprintf("%s by %s", strings.Join(b.Objects, " "), strings.Join(b.Agents, ",")))
	}
	if want := []string{`"x"@EN by a,b`, `"y"@en by c`}; !slices.Equal(got, want) {
		t.Fatalf("ballots %q, want %q", got, want)
	}
}

// TestCouncil_WinnerIsItsBallot: a winning ballot of several objects is
// the topic's Winner in the order of its BallotCount's Objects (sorted
// N-Triples), not in the merge's order of terms (IRIs before literals).
func TestCouncil_WinnerIsItsBallot(t *testing.T) {
	f := newFixture(t)
	f.start(t, councilDef([]string{"a", "b"}, 1, 1, "", ""), workflow.RunOptions{ID: "c1"})
	both := []string{"t=<http://ex.org/x>", "t=a"}
	r := driveCouncil(t, f, "c1", map[int]map[string][]string{1: {"a": both, "b": both}})
	tt := r.Rounds[0].Topics[0]
	if tt.Status != workflow.TopicAgreed || len(tt.Ballots) != 1 || !slices.Equal(tt.Winner, tt.Ballots[0].Objects) {
		t.Fatalf("%s: winner %q, ballots %+v; want the one ballot's objects", tt.Status, tt.Winner, tt.Ballots)
	}
}
