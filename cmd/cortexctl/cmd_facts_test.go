package main

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/teammanager"
)

type storedFact struct {
	Subject, Predicate, Object string
	Supporters, Findings       []string
	Confidence                 float64
	ResolvedBy                 string
	MergeID                    string
}

// TestCLI_Facts reads a merged team's facts with facts list, as JSON and as
// a table, filtered, and checks them against teams get and findings list.
func TestCLI_Facts(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--id", "t1", "--name", "n", "--strategy", "conflict-flag", "--member", "ann", "--member", "bob")
	for _, a := range []string{"ann", "bob"} {
		mustCLI(t, dir, "teams", "member-status", "t1", a, "running")
	}
	mustCLI(t, dir, "findings", "add", "t1", "ann", "<http://ex/a>", "rdfs:label", `"pool"@en`, "--confidence", "0.904")
	mustCLI(t, dir, "findings", "add", "t1", "bob", "<http://ex/a>", "rdfs:label", `"pool"@en`, "--confidence", "0.5")
	mustCLI(t, dir, "findings", "add", "t1", "ann", "<http://ex/a>", "<http://ex/severity>", "high")
	mustCLI(t, dir, "findings", "add", "t1", "bob", "<http://ex/a>", "<http://ex/severity>", "low")
	mustCLI(t, dir, "findings", "add", "t1", "bob", "<http://ex/b>", "<http://ex/owner>", "<http://ex/bob>")
	if out := mustCLI(t, dir, "facts", "list", "t1"); strings.TrimSpace(out) != "no facts" {
		t.Fatalf("facts before the merge: %q", out)
	}
	for _, a := range []string{"ann", "bob"} {
		mustCLI(t, dir, "teams", "member-status", "t1", a, "completed")
	}
	var team struct {
		LastMerge    string
		Merged       bool
		MergePending string
	}
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "teams", "get", "t1", "--json")), &team); err != nil || !team.Merged || team.MergePending != "" || team.LastMerge == "" {
		t.Fatalf("get --json: %+v (%v)", team, err)
	}
	var findings []struct{ ID, Agent, Predicate string }
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "findings", "list", "t1", "--json")), &findings); err != nil {
		t.Fatal(err)
	}
	var labelIDs []string
	for _, f := range findings {
		if f.Predicate == "<http://www.w3.org/2000/01/rdf-schema#label>" {
			labelIDs = append(labelIDs, f.ID)
		}
	}
	var facts []storedFact
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "facts", "list", "t1", "--json")), &facts); err != nil || len(facts) != 2 {
		t.Fatalf("facts list --json: %+v (%v)", facts, err)
	}
	label, owner := facts[0], facts[1]
	if label.Subject != "<http://ex/a>" || label.Object != `"pool"@en` || strings.Join(label.Supporters, ",") != "ann,bob" ||
		len(label.Findings) != 2 || !strings.Contains(strings.Join(labelIDs, " "), label.Findings[0]) || !strings.Contains(strings.Join(labelIDs, " "), label.Findings[1]) ||
		label.Confidence != 0.9 || label.MergeID != team.LastMerge || label.ResolvedBy != "" {
		t.Fatalf("label fact %+v (label findings %v)", label, labelIDs)
	}
	if owner.Object != "<http://ex/bob>" || strings.Join(owner.Supporters, ",") != "bob" || owner.Confidence != 1 {
		t.Fatalf("owner fact %+v", owner)
	}
	// The raw JSON: confidence and mergeId are present, resolvedBy omitted.
	raw := mustCLI(t, dir, "facts", "list", "t1", "--json")
	if !strings.Contains(raw, `"confidence": 0.9`) || !strings.Contains(raw, `"mergeId": "`+team.LastMerge+`"`) || strings.Contains(raw, "resolvedBy") {
		t.Fatalf("JSON shape:\n%s", raw)
	}
	// The merge report carries the same facts, with their confidence.
	var rep struct {
		Ignored int
		Facts   []storedFact
	}
	repJSON := mustCLI(t, dir, "teams", "merge", "t1", "--json")
	if err := json.Unmarshal([]byte(repJSON), &rep); err != nil || len(rep.Facts) != 2 ||
		rep.Facts[0].Confidence != label.Confidence || rep.Facts[1].Confidence != owner.Confidence || rep.Ignored != 0 {
		t.Fatalf("teams merge --json: %+v (%v)", rep, err)
	}
	// Field for field: a fact of the report is the fact facts list shows,
	// less the merge run (the report's own mergeId).
	var repRaw struct {
		MergeID string
		Facts   []map[string]any
	}
	var listed []map[string]any
	if err := json.Unmarshal([]byte(repJSON), &repRaw); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(raw), &listed); err != nil {
		t.Fatal(err)
	}
	for _, f := range listed {
		if f["mergeId"] != repRaw.MergeID {
			t.Fatalf("listed fact of run %v, report of run %s", f["mergeId"], repRaw.MergeID)
		}
		delete(f, "mergeId")
	}
	if !reflect.DeepEqual(repRaw.Facts, listed) {
		t.Fatalf("the report's facts\n%v\ndiffer from facts list's\n%v", repRaw.Facts, listed)
	}
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "facts", "list", "t1", "--predicate", "<http://ex/owner>", "--json")), &facts); err != nil || len(facts) != 1 || facts[0].Object != "<http://ex/bob>" {
		t.Fatalf("--predicate: %+v (%v)", facts, err)
	}
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "facts", "list", "t1", "--agent", "ann", "--subject", "<http://ex/a>", "--json")), &facts); err != nil || len(facts) != 1 || facts[0].Object != `"pool"@en` {
		t.Fatalf("--agent --subject: %+v (%v)", facts, err)
	}
	table := mustCLI(t, dir, "facts", "list", "t1")
	if !strings.Contains(table, "SUBJECT") || !strings.Contains(table, `"pool"@en`) || !strings.Contains(table, "0.90") || !strings.Contains(table, "ann,bob") {
		t.Fatalf("table:\n%s", table)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"unknown team", []string{"facts", "list", "nope"}, exitNotFound, "unknown team"},
		{"unknown agent", []string{"facts", "list", "t1", "--agent", "zed"}, exitNotFound, "unknown agent"},
		{"bad subject", []string{"facts", "list", "t1", "--subject", "<http://ex/a"}, exitSyntax, "--subject"},
		{"missing team", []string{"facts", "list"}, exitUsage, "want TEAM"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, dir, "", tc.args...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
				t.Fatalf("exit %d (want %d), stderr %q (want %q)", r.code, tc.code, r.stderr, tc.msg)
			}
		})
	}
	if out := mustCLI(t, dir, "facts", "list", "--help"); !strings.Contains(out, "Example") {
		t.Error("facts list --help has no example")
	}
}

// TestCLI_TeamNotMerged: a team whose automatic merge failed (its strategy
// is registered only in the library host that completed it) reads as not
// merged in teams get and list, with the host's error (teams get does not
// run a failed merge again), and a member update exits 4 naming the
// command that merges it.
func TestCLI_TeamNotMerged(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, err := cortex.Open(ctx, dir, cortex.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	reg := merge.NewRegistry()
	merge.RegisterBuiltins(reg)
	reg.Register("host-only", merge.StrategyFunc(func(merge.Input) (merge.Result, error) {
		return merge.Result{}, errors.New("host strategy failed")
	}))
	x, err := namespace.New(namespace.Default)
	if err != nil {
		t.Fatal(err)
	}
	m, err := teammanager.New(ctx, s, x, teammanager.DefaultConfig().WithRegistry(reg))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.CreateTeam(ctx, teammanager.TeamConfig{ID: "t1", Name: "n", Strategy: "host-only", Members: []teammanager.MemberConfig{{AgentID: "ann"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.UpdateMemberStatus(ctx, "t1", "ann", teammanager.Running, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := m.AddFinding(ctx, "t1", "ann", teammanager.Finding{Subject: quad.IRI("http://ex/a"), Predicate: quad.IRI("http://ex/p"), Object: quad.String("v")}); err != nil {
		t.Fatal(err)
	}
	var ame *teammanager.AutoMergeError
	if _, err := m.UpdateMemberStatus(ctx, "t1", "ann", teammanager.Completed, ""); !errors.As(err, &ame) {
		t.Fatalf("completing update: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	var team struct {
		Status, MergePending, MergeError string
		Merged                           bool
	}
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "teams", "get", "t1", "--json")), &team); err != nil ||
		team.Status != "completed" || team.Merged || team.MergePending != "failed" || !strings.Contains(team.MergeError, "host strategy failed") {
		t.Fatalf("get --json: %+v (%v)", team, err)
	}
	var list []struct {
		Merged       bool
		MergePending string
	}
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "teams", "list", "--json")), &list); err != nil || len(list) != 1 || list[0].Merged || list[0].MergePending != "failed" {
		t.Fatalf("list --json: %+v (%v)", list, err)
	}
	if out := mustCLI(t, dir, "teams", "get", "t1"); !strings.Contains(out, "not merged yet (failed: ") || !strings.Contains(out, "`cortexctl teams merge t1`") {
		t.Fatalf("get:\n%s", out)
	}
	r := runCLI(t, dir, "", "teams", "member-status", "t1", "ann", "running")
	if r.code != exitConflict || !strings.Contains(r.stderr, "`cortexctl teams merge t1`") {
		t.Fatalf("member-status on the unmerged team: exit %d, stderr %q", r.code, r.stderr)
	}
	if facts := mustCLI(t, dir, "facts", "list", "t1", "--json"); strings.TrimSpace(facts) != "[]" {
		t.Fatalf("facts of the unmerged team: %s", facts)
	}
}

// hostTeam creates, in a store in dir, through a library host whose
// registry has only strategy, as "additive" (nil: the built-ins), and whose
// clock is now, team t1 (strategy additive) with members ann and bob and
// a timeout of a minute; ann and bob start, each asserts a finding, then
// ann completes. Then finish runs (if not nil) with the host's manager, on
// a goroutine of its own; the store is closed when it ends. A
// runtime.Goexit in finish (in the host's strategy, say) stands for a crash
// of the host: the goroutine ends where it is, and the store is closed.
func hostTeam(t *testing.T, dir string, strategy merge.Strategy, now func() time.Time, finish func(m *teammanager.Manager)) {
	t.Helper()
	ctx := context.Background()
	s, err := cortex.Open(ctx, dir, cortex.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	}()
	reg := merge.NewRegistry()
	if strategy == nil {
		merge.RegisterBuiltins(reg)
	} else {
		reg.Register(merge.NameAdditive, strategy)
	}
	x, err := namespace.New(namespace.Default)
	if err != nil {
		t.Fatal(err)
	}
	m, err := teammanager.New(ctx, s, x, teammanager.DefaultConfig().WithRegistry(reg).WithClock(now))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.CreateTeam(ctx, teammanager.TeamConfig{ID: "t1", Name: "n", Strategy: merge.NameAdditive, Timeout: time.Minute,
		Members: []teammanager.MemberConfig{{AgentID: "ann"}, {AgentID: "bob"}}}); err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"ann", "bob"} {
		if _, err := m.UpdateMemberStatus(ctx, "t1", a, teammanager.Running, ""); err != nil {
			t.Fatal(err)
		}
		if _, err := m.AddFinding(ctx, "t1", a, teammanager.Finding{Subject: quad.IRI("http://ex/a"), Predicate: quad.IRI("http://ex/" + a), Object: quad.String("v")}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.UpdateMemberStatus(ctx, "t1", "ann", teammanager.Completed, ""); err != nil {
		t.Fatal(err)
	}
	if finish != nil {
		done := make(chan struct{})
		go func() {
			defer close(done)
			finish(m)
		}()
		<-done
	}
}

type teamGot struct {
	Status, FailReason, MergePending, MergeError, LastMerge string
	Merged                                                  bool
}

func getTeamJSON(t *testing.T, dir string) teamGot {
	t.Helper()
	var team teamGot
	if err := json.Unmarshal([]byte(mustCLI(t, dir, "teams", "get", "t1", "--json")), &team); err != nil {
		t.Fatal(err)
	}
	return team
}

// TestCLI_TeamsGetMerges: teams get retries a team's interrupted merge (a
// library host crashed in it), opening the store read-write for it, and
// shows the team merged. A failed merge (the host's strategy refused) is
// not retried by teams get, which shows why; the next write or teams
// merge runs it.
func TestCLI_TeamsGetMerges(t *testing.T) {
	ctx := context.Background()
	// (A strategy's panic is the merge's error: a crash is the host's
	// goroutine ending in the strategy.)
	crash := merge.StrategyFunc(func(merge.Input) (merge.Result, error) { runtime.Goexit(); return merge.Result{}, nil })
	refuse := merge.StrategyFunc(func(merge.Input) (merge.Result, error) { return merge.Result{}, errors.New("out of memory") })
	bobCompletes := func(m *teammanager.Manager) {
		m.UpdateMemberStatus(ctx, "t1", "bob", teammanager.Completed, "") //nolint:errcheck // the merge fails or crashes
	}
	t.Run("interrupted", func(t *testing.T) {
		dir := t.TempDir()
		hostTeam(t, dir, crash, time.Now, bobCompletes)
		var list []teamGot
		// Through a server, the server's team manager has retried the
		// interrupted merge when it opened the namespace (teammanager.New),
		// before any command reads the team.
		wantMerged, wantPending := throughServer, "interrupted"
		if throughServer {
			wantPending = ""
		}
		if err := json.Unmarshal([]byte(mustCLI(t, dir, "teams", "list", "--json")), &list); err != nil || len(list) != 1 ||
			list[0].Merged != wantMerged || list[0].MergePending != wantPending {
			t.Fatalf("list --json before teams get: %+v (%v)", list, err)
		}
		team := getTeamJSON(t, dir)
		if !team.Merged || team.MergePending != "" || team.LastMerge == "" || team.Status != "completed" {
			t.Fatalf("get --json: %+v", team)
		}
		var facts []storedFact
		if err := json.Unmarshal([]byte(mustCLI(t, dir, "facts", "list", "t1", "--json")), &facts); err != nil || len(facts) != 2 || facts[0].MergeID != team.LastMerge {
			t.Fatalf("facts after teams get: %+v (%v)", facts, err)
		}
	})
	t.Run("failed", func(t *testing.T) {
		dir := t.TempDir()
		hostTeam(t, dir, refuse, time.Now, bobCompletes)
		for range 2 {
			if team := getTeamJSON(t, dir); team.Merged || team.MergePending != "failed" || !strings.Contains(team.MergeError, "out of memory") {
				t.Fatalf("get --json: %+v", team)
			}
		}
		mustCLI(t, dir, "teams", "merge", "t1")
		if team := getTeamJSON(t, dir); !team.Merged || team.MergePending != "" {
			t.Fatalf("get --json after teams merge: %+v", team)
		}
	})
}

// TestCLI_TimedOutTeam: a team that timed out (a library host started it an
// hour ago with a timeout of a minute) after ann completed, bob still
// running, and that nothing recorded: read-only (another process holds
// the store, so it cannot be reopened read-write) teams get shows it
// failed (timeout) and not merged, with the reason, and facts list says
// so; then teams get, or facts list, records the timeout and merges ann's
// findings only.
func TestCLI_TimedOutTeam(t *testing.T) {
	hourAgo := func() time.Time { return time.Now().Add(-time.Hour) }
	check := func(t *testing.T, dir string) {
		t.Helper()
		team := getTeamJSON(t, dir)
		if team.Status != "failed" || team.FailReason != "timeout" || !team.Merged || team.MergePending != "" || team.LastMerge == "" {
			t.Fatalf("get --json after the merge: %+v", team)
		}
		var facts []storedFact
		if err := json.Unmarshal([]byte(mustCLI(t, dir, "facts", "list", "t1", "--json")), &facts); err != nil ||
			len(facts) != 1 || facts[0].Predicate != "<http://ex/ann>" || facts[0].MergeID != team.LastMerge {
			t.Fatalf("facts: %+v (%v)", facts, err)
		}
		var list []teamGot
		if err := json.Unmarshal([]byte(mustCLI(t, dir, "teams", "list", "--json")), &list); err != nil || len(list) != 1 || list[0].Status != "failed" || !list[0].Merged {
			t.Fatalf("list --json: %+v (%v)", list, err)
		}
	}
	t.Run("read-only", func(t *testing.T) {
		dir := t.TempDir()
		hostTeam(t, dir, nil, hourAgo, nil)
		reader, err := cortex.Open(context.Background(), dir, cortex.DefaultOptions().WithReadOnly(true))
		if err != nil {
			t.Fatal(err)
		}
		defer reader.Close()
		team := getTeamJSON(t, dir)
		if team.Status != "failed" || team.FailReason != "timeout" || team.Merged || team.MergePending != "timeout" {
			t.Fatalf("read-only get --json: %+v", team)
		}
		if out := mustCLI(t, dir, "teams", "get", "t1"); !strings.Contains(out, "failed: timeout") || !strings.Contains(out, "not merged yet (timeout): run `cortexctl teams merge t1`") {
			t.Fatalf("read-only get:\n%s", out)
		}
		r := runCLI(t, dir, "", "facts", "list", "t1")
		if r.code != 0 || strings.TrimSpace(r.stdout) != "no facts" || !strings.Contains(r.stderr, "team t1 is not merged yet (timeout)") {
			t.Fatalf("read-only facts list: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
		if err := reader.Close(); err != nil {
			t.Fatal(err)
		}
		check(t, dir) // teams get merges
	})
	t.Run("facts list", func(t *testing.T) {
		dir := t.TempDir()
		hostTeam(t, dir, nil, hourAgo, nil)
		r := runCLI(t, dir, "", "facts", "list", "t1", "--json")
		var facts []storedFact
		if err := json.Unmarshal([]byte(r.stdout), &facts); err != nil || r.code != 0 || len(facts) != 1 || r.stderr != "" {
			t.Fatalf("facts list: exit %d, %+v (%v), stderr %q", r.code, facts, err, r.stderr)
		}
		check(t, dir)
	})
}
