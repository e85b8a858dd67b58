package client_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/client"
	"github.com/cortexgraph/cortex/config"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/server"
	"github.com/cortexgraph/cortex/teammanager"
)

var ctx = context.Background()

// backends are the two implementations of api.TeamManager that every
// behaviour runs against: the embedded manager over a store in
// t.TempDir(), and a client of a server of such a store on a Unix socket.
var backends = []struct {
	name string
	open func(t *testing.T) api.TeamManager
}{
	{"embedded", func(t *testing.T) api.TeamManager {
		x, err := namespace.New("acme", namespace.WithBase(config.Default().NamespaceBase("acme")))
		if err != nil {
			t.Fatal(err)
		}
		m, err := teammanager.New(ctx, cortextest.NewStore(t), x, teammanager.FromConfig(config.Default().Teams))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}},
	{"remote", func(t *testing.T) api.TeamManager {
		return newClient(t, startServer(t))
	}},
}

// startServer serves a store in t.TempDir() on a Unix socket in
// t.TempDir() until the test ends, and returns the socket's path.
func startServer(t *testing.T) string {
	t.Helper()
	s := cortextest.NewStore(t)
	sock := filepath.Join(t.TempDir(), "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- server.New(s, server.DefaultOptions()).Serve(sctx, l) }()
	t.Cleanup(func() { // before the store closes (cleanups run last first)
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return sock
}

func newClient(t *testing.T, sock string) *client.Client {
	t.Helper()
	c, err := client.New("unix://"+sock, client.DefaultOptions().WithNamespace("acme"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// behaviours are teammanager behaviour tests (after manager_test.go,
// findings_test.go, merge_test.go and facts_test.go of package
// teammanager) written against the interface.
var behaviours = []struct {
	name string
	run  func(t *testing.T, tm api.TeamManager)
}{
	{"CreateTeam_Validation", testCreateTeamValidation},
	{"CreateAndGetTeam", testCreateAndGetTeam},
	{"Lifecycle", testLifecycle},
	{"UpdateMemberStatus_Errors", testUpdateMemberStatusErrors},
	{"TeamFails", testTeamFails},
	{"ListTeams", testListTeams},
	{"DeleteTeam", testDeleteTeam},
	{"PauseResumeDisband", testPauseResumeDisband},
	{"AddFindings", testAddFindings},
	{"ImportFindings", testImportFindings},
	{"Merge_ConflictFlagAndResolve", testMergeConflictFlagAndResolve},
	{"EmptyIDsAndNilArguments", testEmptyIDsAndNilArguments},
	{"InvalidValuesSameSentinel", testInvalidValuesSameSentinel},
	{"MailboxRetention", testMailboxRetention},
	{"EndedContextWritesNothing", testEndedContextWritesNothing},
	{"EndedContextReads", testEndedContextReads},
	{"TermsKeptAsGiven", testTermsKeptAsGiven},
	{"TaskCommentKindRequired", testTaskCommentKindRequired},
	{"FreshNamespace", testFreshNamespace},
	{"MarkMessagesStatus", testMarkMessagesStatus},
	{"EmptyResultsAsEmbedded", testEmptyResultsAsEmbedded},
	{"DurationsKept", testDurationsKept},
	{"UnknownTeamFirst", testUnknownTeamFirst},
	{"TaskCommentKindAfterTeamAndTask", testTaskCommentKindAfterTeamAndTask},
	{"MessageTypeAfterTeamAndSender", testMessageTypeAfterTeamAndSender},
	{"BoardValuesAfterTeam", testBoardValuesAfterTeam},
	{"UnknownTaskBeforeEmptyAgent", testUnknownTaskBeforeEmptyAgent},
	{"UnknownAgentBeforeEmptyTask", testUnknownAgentBeforeEmptyTask},
	{"IDsNotUTF8", testIDsNotUTF8},
	{"ReplacementCharAsEmbedded", testReplacementCharAsEmbedded},
	{"InvalidStatusAsEmbedded", testInvalidStatusAsEmbedded},
	{"Events", testEvents},
	{"MalformedFilterTerm", testMalformedFilterTerm},
	{"ResolutionChecksAsEmbedded", testResolutionChecksAsEmbedded},
	{"MarkNoMessagesChecksAsEmbedded", testMarkNoMessagesChecksAsEmbedded},
	{"BlankNodeFilters", testBlankNodeFilters},
}

// TestTeamManager runs each behaviour against each backend.
func TestTeamManager(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			for _, bh := range behaviours {
				t.Run(bh.name, func(t *testing.T) { bh.run(t, b.open(t)) })
			}
		})
	}
}

func members(ids ...string) []teammanager.MemberConfig {
	out := make([]teammanager.MemberConfig, 0, len(ids))
	for _, id := range ids {
		out = append(out, teammanager.MemberConfig{AgentID: id, Role: "r"})
	}
	return out
}

func create(t *testing.T, tm api.TeamManager, tc teammanager.TeamConfig) teammanager.Team {
	t.Helper()
	team, err := tm.CreateTeam(ctx, tc)
	if err != nil {
		t.Fatal(err)
	}
	return team
}

func status(t *testing.T, tm api.TeamManager, team, agent string, st teammanager.Status, result string) teammanager.MemberUpdate {
	t.Helper()
	up, err := tm.UpdateMemberStatus(ctx, team, agent, st, result)
	if err != nil {
		t.Fatalf("%s %s → %s: %v", team, agent, st, err)
	}
	return up
}

func iri(s string) quad.IRI { return quad.IRI("http://example.org/" + s) }

func testCreateTeamValidation(t *testing.T, tm api.TeamManager) {
	nine := members("a", "b", "c", "d", "e", "f", "g", "h", "i")
	for _, tc := range []struct {
		name string
		tc   teammanager.TeamConfig
		also error
	}{
		{"empty name", teammanager.TeamConfig{Name: " ", Members: members("a")}, nil},
		{"no members", teammanager.TeamConfig{Name: "x"}, nil},
		{"too many", teammanager.TeamConfig{Name: "x", Members: nine}, nil},
		{"duplicate agent", teammanager.TeamConfig{Name: "x", Members: members("a", "a")}, nil},
		{"bad agent id", teammanager.TeamConfig{Name: "x", Members: members("a:b")}, nil},
		{"unknown strategy", teammanager.TeamConfig{Name: "x", Strategy: "coin-flip", Members: members("a")}, merge.ErrUnknownStrategy},
		{"bad id", teammanager.TeamConfig{ID: "a b", Name: "x", Members: members("a")}, nil},
		{"tie-breaker not member", teammanager.TeamConfig{Name: "x", Members: members("a"), TieBreaker: "z"}, nil},
		{"threshold", teammanager.TeamConfig{Name: "x", Members: members("a"), Threshold: 1.5}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tm.CreateTeam(ctx, tc.tc)
			if !errors.Is(err, teammanager.ErrInvalidTeam) || tc.also != nil && !errors.Is(err, tc.also) {
				t.Fatalf("err = %v", err)
			}
			if code := api.ExitCode(err); code != api.ExitInvalid {
				t.Fatalf("exit code %d, want %d", code, api.ExitInvalid)
			}
		})
	}
	// Through a server the refused calls did not even create the
	// namespace: listing it is then "no such namespace".
	if ts, err := tm.ListTeams(ctx, teammanager.TeamFilter{}); err != nil && !errors.Is(err, api.ErrNotFound) || len(ts) != 0 {
		t.Fatalf("invalid configs left teams: %v %v", ts, err)
	}
}

func testCreateAndGetTeam(t *testing.T, tm api.TeamManager) {
	before := time.Now().UTC().Add(-time.Second)
	team := create(t, tm, teammanager.TeamConfig{
		ID: "review-1", Name: "Code review", Context: "review PR 42", Strategy: merge.NameMajorityWins,
		Members: []teammanager.MemberConfig{
			{AgentID: "bob", Role: "reviewer", Task: "style"},
			{AgentID: "alice", Role: "lead", Task: "correctness", Critical: true},
		},
		Threshold: 0.6, TieBreaker: "alice", Timeout: 90 * time.Second,
	})
	got, err := tm.GetTeam(ctx, "review-1")
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "Code review" || got.Context != "review PR 42" || got.Strategy != "majority-wins" ||
		got.Status != teammanager.Pending || got.Timeout != 90*time.Second || got.Threshold != 0.6 ||
		got.TieBreaker != "alice" || got.CreatedAt.Before(before) || !got.CreatedAt.Equal(team.CreatedAt) {
		t.Fatalf("team %+v", got)
	}
	if len(got.Members) != 2 || got.Members[0].AgentID != "alice" || !got.Members[0].Critical ||
		got.Members[0].Role != "lead" || got.Members[1].Task != "style" || got.Members[1].Status != teammanager.Pending {
		t.Fatalf("members %+v", got.Members)
	}
	if team.ID != got.ID {
		t.Fatalf("create returned %q", team.ID)
	}
	if _, err := tm.CreateTeam(ctx, teammanager.TeamConfig{ID: "review-1", Name: "again", Members: members("a")}); !errors.Is(err, teammanager.ErrTeamExists) {
		t.Fatalf("duplicate id: %v", err)
	}
	if _, err := tm.GetTeam(ctx, "nope"); !errors.Is(err, teammanager.ErrUnknownTeam) || api.ExitCode(err) != api.ExitNotFound {
		t.Fatalf("unknown team: %v", err)
	}
	a := create(t, tm, teammanager.TeamConfig{Name: "a", Members: members("x"), Timeout: -1})
	b := create(t, tm, teammanager.TeamConfig{Name: "b", Members: members("x")})
	if a.ID == b.ID || !strings.HasPrefix(a.ID, "t") || a.Timeout != 0 {
		t.Fatalf("teams %+v %+v", a, b)
	}
}

func testLifecycle(t *testing.T, tm api.TeamManager) {
	team := create(t, tm, teammanager.TeamConfig{Name: "n", Members: members("a", "b", "c")})
	up := status(t, tm, team.ID, "a", teammanager.Running, "")
	if up.TeamStatus != teammanager.Running || up.Member.AgentID != "a" || up.Member.Status != teammanager.Running || up.Merge != nil {
		t.Fatalf("after first start: %+v", up)
	}
	status(t, tm, team.ID, "a", teammanager.Completed, "done")
	status(t, tm, team.ID, "b", teammanager.Failed, "crashed")
	if up := status(t, tm, team.ID, "c", teammanager.Running, ""); up.TeamStatus != teammanager.Running {
		t.Fatalf("team %s before the last member finished", up.TeamStatus)
	}
	if done, err := tm.IsTeamComplete(ctx, team.ID); done || err != nil {
		t.Fatalf("IsTeamComplete before the end = %v, %v", done, err)
	}
	up = status(t, tm, team.ID, "c", teammanager.Completed, "ok")
	if up.TeamStatus != teammanager.Completed || up.Merge == nil || up.Member.Result != "ok" || up.Merge.Missing[0] != "b" {
		t.Fatalf("final update %+v", up)
	}
	got, err := tm.GetTeam(ctx, team.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.StartedAt.IsZero() || got.CompletedAt.Before(got.StartedAt) || got.LastMerge != up.Merge.MergeID || !got.Merged {
		t.Fatalf("team %+v", got)
	}
	if mb, _ := got.Member("b"); mb.Status != teammanager.Failed || mb.Result != "crashed" || mb.CompletedAt.IsZero() {
		t.Fatalf("member b %+v", mb)
	}
	if done, err := tm.IsTeamComplete(ctx, team.ID); !done || err != nil {
		t.Fatalf("IsTeamComplete = %v, %v", done, err)
	}
	if _, err := tm.UpdateMemberStatus(ctx, team.ID, "a", teammanager.Running, ""); !errors.Is(err, teammanager.ErrTeamFinished) {
		t.Fatalf("update after completion: %v", err)
	}
	if _, err := tm.IsTeamComplete(ctx, "nope"); !errors.Is(err, teammanager.ErrUnknownTeam) {
		t.Fatalf("IsTeamComplete of an unknown team: %v", err)
	}
}

func testUpdateMemberStatusErrors(t *testing.T, tm api.TeamManager) {
	team := create(t, tm, teammanager.TeamConfig{Name: "n", Members: members("a", "b", "c")})
	status(t, tm, team.ID, "a", teammanager.Running, "")
	status(t, tm, team.ID, "a", teammanager.Completed, "")
	for _, tc := range []struct {
		name, team, agent string
		status            teammanager.Status
		want              error
		code              int
	}{
		{"unknown team", "nope", "a", teammanager.Running, teammanager.ErrUnknownTeam, api.ExitNotFound},
		{"unknown agent", team.ID, "zed", teammanager.Running, teammanager.ErrUnknownAgent, api.ExitNotFound},
		{"completed to running", team.ID, "a", teammanager.Running, teammanager.ErrInvalidTransition, api.ExitConflict},
		{"pending to completed", team.ID, "b", teammanager.Completed, teammanager.ErrInvalidTransition, api.ExitConflict},
		{"pending to pending", team.ID, "b", teammanager.Pending, teammanager.ErrInvalidTransition, api.ExitConflict},
		{"bad status", team.ID, "b", "paused", teammanager.ErrInvalidStatus, api.ExitInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tm.UpdateMemberStatus(ctx, tc.team, tc.agent, tc.status, "x")
			if !errors.Is(err, tc.want) || api.ExitCode(err) != tc.code {
				t.Fatalf("err = %v (exit code %d), want %v (%d)", err, api.ExitCode(err), tc.want, tc.code)
			}
		})
	}
	got, err := tm.GetTeam(ctx, team.ID)
	if err != nil {
		t.Fatal(err)
	}
	if mb, _ := got.Member("b"); mb.Status != teammanager.Pending || mb.Result != "" {
		t.Fatalf("refused update wrote %+v", mb)
	}
}

func testTeamFails(t *testing.T, tm api.TeamManager) {
	team := create(t, tm, teammanager.TeamConfig{Name: "n", Members: members("a", "b")})
	status(t, tm, team.ID, "a", teammanager.Failed, "")
	if up := status(t, tm, team.ID, "b", teammanager.Failed, ""); up.TeamStatus != teammanager.Failed || up.FailReason != teammanager.FailAllMembers {
		t.Fatalf("all failed: %+v", up)
	}
	team = create(t, tm, teammanager.TeamConfig{Name: "n", Members: []teammanager.MemberConfig{{AgentID: "lead", Critical: true}, {AgentID: "helper"}}})
	status(t, tm, team.ID, "helper", teammanager.Running, "")
	if up := status(t, tm, team.ID, "lead", teammanager.Failed, ""); up.TeamStatus != teammanager.Failed || up.FailReason != teammanager.FailCriticalMember {
		t.Fatalf("critical member: %+v", up)
	}
	if _, err := tm.UpdateMemberStatus(ctx, team.ID, "helper", teammanager.Completed, ""); !errors.Is(err, teammanager.ErrTeamFinished) {
		t.Fatalf("update of a failed team: %v", err)
	}
}

func testListTeams(t *testing.T, tm api.TeamManager) {
	a := create(t, tm, teammanager.TeamConfig{ID: "a", Name: "first", Members: members("x", "y")})
	create(t, tm, teammanager.TeamConfig{ID: "b", Name: "second", Members: members("x")})
	status(t, tm, a.ID, "x", teammanager.Running, "")
	all, err := tm.ListTeams(ctx, teammanager.TeamFilter{})
	if err != nil || len(all) != 2 || all[0].ID != "a" || all[1].Name != "second" || all[0].Status != teammanager.Running || all[0].Members != nil {
		t.Fatalf("ListTeams = %+v, %v", all, err)
	}
	pending, err := tm.ListTeams(ctx, teammanager.TeamFilter{Status: teammanager.Pending})
	if err != nil || len(pending) != 1 || pending[0].ID != "b" {
		t.Fatalf("pending teams %+v, %v", pending, err)
	}
	if _, err := tm.ListTeams(ctx, teammanager.TeamFilter{Status: "paused"}); !errors.Is(err, teammanager.ErrInvalidStatus) {
		t.Fatalf("bad status filter: %v", err)
	}
}

func testDeleteTeam(t *testing.T, tm api.TeamManager) {
	create(t, tm, teammanager.TeamConfig{ID: "gone", Name: "n", Members: members("a")})
	status(t, tm, "gone", "a", teammanager.Running, "")
	if _, err := tm.AddFinding(ctx, "gone", "a", teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("o")}); err != nil {
		t.Fatal(err)
	}
	if err := tm.DeleteTeam(ctx, "gone"); !errors.Is(err, teammanager.ErrTeamActive) {
		t.Fatalf("delete a running team: %v, want ErrTeamActive", err)
	}
	if tm, err := tm.DisbandTeam(ctx, "gone"); err != nil || tm.Lifecycle != teammanager.LifecycleDisbanded || tm.DisbandedAt.IsZero() {
		t.Fatalf("DisbandTeam = %+v, %v", tm, err)
	}
	if err := tm.DeleteTeam(ctx, "gone"); err != nil {
		t.Fatal(err)
	}
	if _, err := tm.GetTeam(ctx, "gone"); !errors.Is(err, teammanager.ErrUnknownTeam) {
		t.Fatalf("deleted team: %v", err)
	}
	if _, err := tm.Findings(ctx, "gone", teammanager.FindingFilter{}); !errors.Is(err, teammanager.ErrUnknownTeam) {
		t.Fatalf("findings of a deleted team: %v", err)
	}
	if err := tm.DeleteTeam(ctx, "gone"); !errors.Is(err, teammanager.ErrUnknownTeam) {
		t.Fatalf("second delete: %v", err)
	}
}

func testPauseResumeDisband(t *testing.T, tm api.TeamManager) {
	created := create(t, tm, teammanager.TeamConfig{ID: "p", Name: "n", Members: members("a", "b")})
	if created.Lifecycle != teammanager.LifecycleForming {
		t.Fatalf("created: lifecycle %q", created.Lifecycle)
	}
	if _, err := tm.PauseTeam(ctx, "p"); !errors.Is(err, teammanager.ErrInvalidTransition) {
		t.Fatalf("pause a forming team: %v, want ErrInvalidTransition", err)
	}
	status(t, tm, "p", "a", teammanager.Running, "")
	paused, err := tm.PauseTeam(ctx, "p")
	if err != nil || paused.Lifecycle != teammanager.LifecyclePaused || paused.PausedAt.IsZero() {
		t.Fatalf("PauseTeam = %+v, %v", paused, err)
	}
	if _, err := tm.UpdateMemberStatus(ctx, "p", "b", teammanager.Running, ""); !errors.Is(err, teammanager.ErrTeamPaused) {
		t.Fatalf("member update while paused: %v, want ErrTeamPaused", err)
	}
	if _, err := tm.AddFinding(ctx, "p", "a", teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("o")}); !errors.Is(err, teammanager.ErrTeamPaused) {
		t.Fatalf("finding while paused: %v, want ErrTeamPaused", err)
	}
	ts, err := tm.ListTeams(ctx, teammanager.TeamFilter{Lifecycle: teammanager.LifecyclePaused})
	if err != nil || len(ts) != 1 || ts[0].ID != "p" || !ts[0].PausedAt.Equal(paused.PausedAt) {
		t.Fatalf("ListTeams(paused) = %+v, %v", ts, err)
	}
	if _, err := tm.ListTeams(ctx, teammanager.TeamFilter{Lifecycle: "running"}); !errors.Is(err, teammanager.ErrInvalidStatus) {
		t.Fatalf("bad lifecycle filter: %v", err)
	}
	resumed, err := tm.ResumeTeam(ctx, "p")
	if err != nil || resumed.Lifecycle != teammanager.LifecycleActive || !resumed.PausedAt.IsZero() {
		t.Fatalf("ResumeTeam = %+v, %v", resumed, err)
	}
	status(t, tm, "p", "b", teammanager.Running, "")
	if _, err := tm.DisbandTeam(ctx, "p"); err != nil {
		t.Fatal(err)
	}
	if _, err := tm.UpdateMemberStatus(ctx, "p", "b", teammanager.Completed, ""); !errors.Is(err, teammanager.ErrTeamDisbanded) {
		t.Fatalf("member update of a disbanded team: %v, want ErrTeamDisbanded", err)
	}
	if got, err := tm.GetTeam(ctx, "p"); err != nil || got.Lifecycle != teammanager.LifecycleDisbanded || got.Status != teammanager.Running {
		t.Fatalf("disbanded team: %+v, %v", got, err)
	}
}

func testAddFindings(t *testing.T, tm api.TeamManager) {
	create(t, tm, teammanager.TeamConfig{ID: "t", Name: "n", Members: members("a", "b")})
	status(t, tm, "t", "a", teammanager.Running, "")
	at := time.Date(2025, 1, 2, 3, 4, 5, 250000000, time.UTC)
	id, err := tm.AddFinding(ctx, "t", "a", teammanager.Finding{Subject: iri("main.go"), Predicate: iri("severity"),
		Object: quad.LangString{Value: "high", Lang: "en"}, Confidence: 0.8, AssertedAt: at})
	if err != nil || id == "" {
		t.Fatalf("AddFinding = %q, %v", id, err)
	}
	ids, err := tm.AddFindings(ctx, "t", "b", []teammanager.Finding{
		{Subject: iri("main.go"), Predicate: iri("severity"), Object: quad.String("low")},
		{Subject: quad.BNode("x"), Predicate: iri("lines"), Object: quad.TypedString{Value: "3", Type: "http://www.w3.org/2001/XMLSchema#integer"}, Confidence: 0.5},
	})
	if err != nil || len(ids) != 2 || ids[0] == ids[1] {
		t.Fatalf("AddFindings = %v, %v", ids, err)
	}
	fs, err := tm.Findings(ctx, "t", teammanager.FindingFilter{})
	if err != nil || len(fs) != 3 {
		t.Fatalf("Findings = %+v, %v", fs, err)
	}
	var first teammanager.StoredFinding
	for _, f := range fs {
		if f.ID == id {
			first = f
		}
	}
	if first.Agent != "a" || first.Object != (quad.LangString{Value: "high", Lang: "en"}) || first.Confidence != 0.8 || !first.AssertedAt.Equal(at) {
		t.Fatalf("finding %s: %+v", id, first)
	}
	if bs, err := tm.Findings(ctx, "t", teammanager.FindingFilter{Agent: "b", Predicate: iri("lines")}); err != nil || len(bs) != 1 ||
		bs[0].ID != ids[1] || bs[0].Object != (quad.TypedString{Value: "3", Type: "http://www.w3.org/2001/XMLSchema#integer"}) {
		t.Fatalf("b's findings on lines: %+v, %v", bs, err)
	}
	if n, err := tm.AddFindings(ctx, "t", "a", nil); err != nil || len(n) != 0 {
		t.Fatalf("no findings: %v, %v", n, err)
	}
	for _, tc := range []struct {
		name  string
		agent string
		f     teammanager.Finding
		want  error
	}{
		{"unknown agent", "zed", teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("o")}, teammanager.ErrUnknownAgent},
		{"literal subject", "a", teammanager.Finding{Subject: quad.String("s"), Predicate: iri("p"), Object: quad.String("o")}, teammanager.ErrInvalidFinding},
		{"confidence", "a", teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("o"), Confidence: 3}, teammanager.ErrInvalidFinding},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tm.AddFinding(ctx, "t", tc.agent, tc.f); !errors.Is(err, tc.want) {
				t.Fatalf("AddFinding: %v, want %v", err, tc.want)
			}
		})
	}
	// A batch with one bad finding writes none.
	_, err = tm.AddFindings(ctx, "t", "a", []teammanager.Finding{
		{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("fine")},
		{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("bad"), Confidence: -1},
	})
	if !errors.Is(err, teammanager.ErrInvalidFinding) {
		t.Fatalf("bad batch: %v", err)
	}
	if fs, _ := tm.Findings(ctx, "t", teammanager.FindingFilter{Agent: "a"}); len(fs) != 1 {
		t.Fatalf("a bad batch wrote: %+v", fs)
	}
	status(t, tm, "t", "a", teammanager.Completed, "")
	if _, err := tm.AddFinding(ctx, "t", "a", teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("late")}); !errors.Is(err, teammanager.ErrMemberFinished) {
		t.Fatalf("finding of a finished member: %v", err)
	}
}

func testImportFindings(t *testing.T, tm api.TeamManager) {
	create(t, tm, teammanager.TeamConfig{ID: "t", Name: "n", Members: members("a", "b", "c")})
	lines := `{"subject": "<http://example.org/pool.go>", "predicate": "rdfs:comment", "object": "\"leaks on cancel\"", "confidence": 0.8, "assertedAt": "2026-01-02T15:04:05.5Z"}
{"subject": "<http://example.org/pool.go>", "predicate": "<http://example.org/severity>", "object": "\"high\"@en"}
`
	if n, err := tm.ImportFindings(ctx, "t", "a", strings.NewReader(lines), teammanager.FindingsJSON); err != nil || n != 2 {
		t.Fatalf("JSON Lines: %d, %v", n, err)
	}
	nt := "<http://example.org/a> <http://example.org/p> \"x\" .\n<http://example.org/b> <http://example.org/p> <http://example.org/c> .\n"
	if n, err := tm.ImportFindings(ctx, "t", "b", strings.NewReader(nt), "ntriples"); err != nil || n != 2 {
		t.Fatalf("N-Triples: %d, %v", n, err)
	}
	fs, err := tm.Findings(ctx, "t", teammanager.FindingFilter{Agent: "a", Subject: iri("pool.go"), Predicate: quad.IRI("http://www.w3.org/2000/01/rdf-schema#comment")})
	if err != nil || len(fs) != 1 || fs[0].Confidence != 0.8 || !fs[0].AssertedAt.Equal(time.Date(2026, 1, 2, 15, 4, 5, 500000000, time.UTC)) {
		t.Fatalf("imported finding: %+v, %v", fs, err)
	}
	bad := `{"subject": "<http://example.org/a>", "predicate": "<http://example.org/p>", "object": "leaks"}` + "\n"
	if _, err := tm.ImportFindings(ctx, "t", "c", strings.NewReader(bad), teammanager.FindingsJSON); !errors.Is(err, teammanager.ErrInvalidFinding) || !strings.Contains(err.Error(), "record 1 (line 1)") {
		t.Fatalf("bad record: %v", err)
	}
	if _, err := tm.ImportFindings(ctx, "t", "c", strings.NewReader("<a> <b"), "ntriples"); api.ExitCode(err) != api.ExitSyntax {
		t.Fatalf("bad N-Triples: %v (exit code %d)", err, api.ExitCode(err))
	}
	if fs, _ := tm.Findings(ctx, "t", teammanager.FindingFilter{Agent: "c"}); len(fs) != 0 {
		t.Fatalf("refused imports wrote %+v", fs)
	}
}

// codeReview runs a conflict-flag team of three whose members agree on the
// license and disagree on the severity.
func codeReview(t *testing.T, tm api.TeamManager) teammanager.MemberUpdate {
	create(t, tm, teammanager.TeamConfig{ID: "cr", Name: "review", Strategy: merge.NameConflictFlag, Members: members("ann", "bob", "cy")})
	for agent, sev := range map[string]string{"ann": "high", "bob": "low", "cy": "high"} {
		status(t, tm, "cr", agent, teammanager.Running, "")
		if _, err := tm.AddFindings(ctx, "cr", agent, []teammanager.Finding{
			{Subject: iri("main.go"), Predicate: iri("license"), Object: quad.String("MIT"), Confidence: 0.9},
			{Subject: iri("main.go"), Predicate: iri("severity"), Object: quad.String(sev)},
		}); err != nil {
			t.Fatal(err)
		}
	}
	status(t, tm, "cr", "ann", teammanager.Completed, "")
	status(t, tm, "cr", "bob", teammanager.Completed, "")
	return status(t, tm, "cr", "cy", teammanager.Completed, "")
}

func testMergeConflictFlagAndResolve(t *testing.T, tm api.TeamManager) {
	up := codeReview(t, tm)
	if up.Merge == nil || up.Merge.Kept != 1 || up.Merge.Report.Conflicts != 1 || len(up.Merge.OpenConflicts) != 1 ||
		len(up.Merge.Facts) != 1 || up.Merge.Facts[0].Object != quad.String("MIT") || up.Merge.MergedAt.IsZero() {
		t.Fatalf("automatic merge %+v", up.Merge)
	}
	if m := up.Merge.Members; len(m) != 3 || m[0].Agent != "ann" || m[0].Contributed != 2 || m[0].Kept != 1 {
		t.Fatalf("merge members %+v", m)
	}
	cs, err := tm.Conflicts(ctx, "cr")
	if err != nil || len(cs) != 1 {
		t.Fatalf("Conflicts = %v, %v", cs, err)
	}
	c := cs[0]
	if c.ID != up.Merge.OpenConflicts[0].ID || c.Subject != iri("main.go") || c.Predicate != iri("severity") || c.Resolved || len(c.Candidates) != 2 ||
		strings.Join(c.Candidates[0].Agents, ",") != "ann,cy" || c.Candidates[1].Object != quad.String("low") || c.DetectedAt.IsZero() {
		t.Fatalf("conflict %+v", c)
	}
	facts, err := tm.Facts(ctx, "cr", teammanager.FactFilter{})
	if err != nil || len(facts) != 1 || strings.Join(facts[0].Supporters, ",") != "ann,bob,cy" || facts[0].Confidence != 0.9 ||
		facts[0].MergeID != up.Merge.MergeID || len(facts[0].FindingIDs) != 3 {
		t.Fatalf("Facts = %+v, %v", facts, err)
	}
	rep, err := tm.MergeTeamResults(ctx, "cr")
	if err != nil || !rep.Unchanged || rep.MergeID != up.Merge.MergeID {
		t.Fatalf("re-merge %+v, %v", rep, err)
	}
	if _, err := tm.ResolveConflict(ctx, "cr", "nope", []quad.Value{quad.String("high")}, "lead"); !errors.Is(err, teammanager.ErrUnknownConflict) {
		t.Fatalf("unknown conflict: %v", err)
	}
	rep, err = tm.ResolveConflict(ctx, "cr", c.ID, []quad.Value{quad.String("high")}, "lead")
	if err != nil || rep.Kept != 2 || rep.Report.Conflicts != 0 || len(rep.OpenConflicts) != 0 {
		t.Fatalf("resolve: %+v, %v", rep, err)
	}
	if _, err := tm.ResolveConflict(ctx, "cr", c.ID, []quad.Value{quad.String("low")}, "lead"); !errors.Is(err, teammanager.ErrAlreadyResolved) {
		t.Fatalf("second resolve: %v", err)
	}
	facts, err = tm.Facts(ctx, "cr", teammanager.FactFilter{Predicate: iri("severity"), Agent: "cy"})
	if err != nil || len(facts) != 1 || facts[0].Object != quad.String("high") || facts[0].ResolvedBy != "lead" {
		t.Fatalf("resolved fact: %+v, %v", facts, err)
	}
	cs, _ = tm.Conflicts(ctx, "cr")
	if len(cs) != 1 || !cs[0].Resolved || cs[0].ResolvedBy != "lead" || !slices.Equal(cs[0].Chosen, []quad.Value{quad.String("high")}) || cs[0].ResolvedAt.IsZero() {
		t.Fatalf("resolved conflict %+v", cs)
	}
}

// TestClient_NotUTF8Refused: a string that is not UTF-8 cannot go in
// JSON; encoding/json sent U+FFFD in place of each bad byte, and the
// server stored a team name the host never gave. The call is refused
// (ErrNotUTF8, api.ErrInvalid) and sends nothing; U+FFFD itself, and a
// backslash before "ufffd", are sent as they are.
func TestClient_NotUTF8Refused(t *testing.T) {
	c := newClient(t, startServer(t))
	for _, tc := range []teammanager.TeamConfig{
		{ID: "t1", Name: "n\xffame", Members: []teammanager.MemberConfig{{AgentID: "alice", Role: "lead"}}},
		{ID: "t1", Name: "n", Members: []teammanager.MemberConfig{{AgentID: "alice", Role: "le\xc3\x28ad"}}},
	} {
		_, err := c.CreateTeam(ctx, tc)
		if !errors.Is(err, client.ErrNotUTF8) || !errors.Is(err, api.ErrInvalid) || !strings.Contains(err.Error(), "not valid UTF-8") {
			t.Fatalf("CreateTeam(%+v) = %v, want ErrNotUTF8", tc, err)
		}
	}
	if _, err := c.GetTeam(ctx, "t1"); !errors.Is(err, api.ErrNotFound) {
		t.Fatalf("GetTeam after refused creates: %v, want not found", err)
	}
	for i, name := range []string{"n\uFFFDame", `n\ufffdame`} {
		id := fmt.Sprintf("ok%d", i)
		if _, err := c.CreateTeam(ctx, teammanager.TeamConfig{ID: id, Name: name, Members: []teammanager.MemberConfig{{AgentID: "alice", Role: "lead"}}}); err != nil {
			t.Fatalf("CreateTeam(%q): %v", name, err)
		}
		if team, err := c.GetTeam(ctx, id); err != nil || team.Name != name {
			t.Fatalf("GetTeam(%s) = %q, %v, want %q", id, team.Name, err, name)
		}
	}
	if err := c.Call(ctx, "teams.get", map[string]string{"team\xff": "x"}, nil); !errors.Is(err, client.ErrNotUTF8) {
		t.Fatalf("Call with a key that is not UTF-8: %v, want ErrNotUTF8", err)
	}
}

// testEmptyIDsAndNilArguments checks that an empty id and a nil reader are
// the same mistake, matching the same sentinel, through a server as in
// process, and that the sentinels of snapshots and plans come back.
func testEmptyIDsAndNilArguments(t *testing.T, tm api.TeamManager) {
	create(t, tm, teammanager.TeamConfig{ID: "t", Name: "n", Members: members("a", "b")})
	for _, tc := range []struct {
		name string
		call func() error
		want error
	}{
		{"GetTeam", func() error { _, err := tm.GetTeam(ctx, ""); return err }, teammanager.ErrUnknownTeam},
		{"DeleteTeam", func() error { return tm.DeleteTeam(ctx, "") }, teammanager.ErrUnknownTeam},
		{"Facts", func() error { _, err := tm.Facts(ctx, "", teammanager.FactFilter{}); return err }, teammanager.ErrUnknownTeam},
		{"UpdateMemberStatus", func() error { _, err := tm.UpdateMemberStatus(ctx, "t", "", teammanager.Running, ""); return err }, teammanager.ErrUnknownAgent},
		{"Inbox", func() error { _, err := tm.Inbox(ctx, "t", "", teammanager.MailFilter{}); return err }, teammanager.ErrUnknownAgent},
		{"CreateTask", func() error { _, err := tm.CreateTask(ctx, "t", "", teammanager.NewTask{Subject: "s"}); return err }, teammanager.ErrUnknownAgent},
		{"GetTask", func() error { _, err := tm.GetTask(ctx, "t", ""); return err }, teammanager.ErrUnknownTask},
		{"Thread", func() error { _, err := tm.Thread(ctx, "t", ""); return err }, teammanager.ErrUnknownMessage},
		{"ResolveConflict", func() error { _, err := tm.ResolveConflict(ctx, "t", "", nil, "a"); return err }, teammanager.ErrUnknownConflict},
		{"ImportFindings nil reader", func() error {
			_, err := tm.ImportFindings(ctx, "t", "a", nil, teammanager.FindingsJSON)
			return err
		}, cortex.ErrInvalidArgument},
	} {
		// An empty id is an invalid one (exit 7), as in process (a server
		// answered a usage error, exit 2).
		if err := tc.call(); !errors.Is(err, tc.want) || api.ExitCode(err) != api.ExitInvalid ||
			(tc.want != cortex.ErrInvalidArgument && !errors.Is(err, teammanager.ErrInvalidID)) {
			t.Errorf("%s: %v (exit %d), want an error matching %v and ErrInvalidID (exit %d)", tc.name, err, api.ExitCode(err), tc.want, api.ExitInvalid)
		}
	}
	snaps, ok := tm.(interface {
		GetSnapshot(ctx context.Context, teamID, id string) (teammanager.Snapshot, error)
		RestoreSnapshot(ctx context.Context, teamID, id string, apply bool) (teammanager.SnapshotDiff, error)
		DeleteSnapshot(ctx context.Context, teamID, id string) error
		Snapshots(ctx context.Context, teamID string) ([]teammanager.Snapshot, error)
		GetPlan(ctx context.Context, teamID string, rev int) (teammanager.Plan, error)
	})
	if !ok {
		t.Fatalf("%T has no GetSnapshot, RestoreSnapshot, DeleteSnapshot, Snapshots and GetPlan", tm)
	}
	if list, err := snaps.Snapshots(ctx, "t"); err != nil || list == nil || len(list) != 0 {
		t.Errorf("Snapshots of a team without snapshots: %+v, %v, want an empty list", list, err)
	}
	if _, err := snaps.Snapshots(ctx, "nope"); !errors.Is(err, teammanager.ErrUnknownTeam) || api.ExitCode(err) != api.ExitNotFound {
		t.Errorf("Snapshots of no team: %v (exit %d), want an error matching ErrUnknownTeam (exit %d)", err, api.ExitCode(err), api.ExitNotFound)
	}
	if _, err := snaps.GetSnapshot(ctx, "t", "S9"); !errors.Is(err, teammanager.ErrUnknownSnapshot) {
		t.Errorf("GetSnapshot of no snapshot: %v, want an error matching ErrUnknownSnapshot", err)
	}
	// An empty snapshot id, of a team or of none: the Manager checks the
	// id's form before the team exists (a server answered the unknown
	// team first, exit 3).
	for _, team := range []string{"t", "nope"} {
		for name, call := range map[string]func() error{
			"GetSnapshot":     func() error { _, err := snaps.GetSnapshot(ctx, team, ""); return err },
			"RestoreSnapshot": func() error { _, err := snaps.RestoreSnapshot(ctx, team, "", false); return err },
			"DeleteSnapshot":  func() error { return snaps.DeleteSnapshot(ctx, team, "") },
		} {
			if err := call(); !errors.Is(err, teammanager.ErrUnknownSnapshot) || !errors.Is(err, teammanager.ErrInvalidID) || api.ExitCode(err) != api.ExitInvalid {
				t.Errorf("%s of team %s, empty id: %v (exit %d), want an error matching ErrUnknownSnapshot and ErrInvalidID (exit %d)", name, team, err, api.ExitCode(err), api.ExitInvalid)
			}
		}
	}
	// A malformed team id is refused before the snapshot's.
	if _, err := snaps.GetSnapshot(ctx, "a/b", ""); !errors.Is(err, teammanager.ErrUnknownTeam) || api.ExitCode(err) != api.ExitInvalid {
		t.Errorf("GetSnapshot of team a/b, empty id: %v (exit %d), want an error matching ErrUnknownTeam (exit %d)", err, api.ExitCode(err), api.ExitInvalid)
	}
}

// testInvalidValuesSameSentinel checks that a value the Manager refuses
// (a missing or empty term of a finding, an empty status or message type,
// a negative duration) is refused with the same sentinel through a server
// as in process, and writes nothing.
func testInvalidValuesSameSentinel(t *testing.T, tm api.TeamManager) {
	create(t, tm, teammanager.TeamConfig{ID: "t", Name: "n", Members: members("a", "b")})
	status(t, tm, "t", "a", teammanager.Running, "")
	p, o := iri("p"), quad.String("o")
	for _, tc := range []struct {
		name string
		call func() error
		want error
	}{
		{"AddFinding nil subject", func() error {
			_, err := tm.AddFinding(ctx, "t", "a", teammanager.Finding{Predicate: p, Object: o})
			return err
		}, teammanager.ErrInvalidFinding},
		{"AddFinding nil object", func() error {
			_, err := tm.AddFinding(ctx, "t", "a", teammanager.Finding{Subject: iri("s"), Predicate: p})
			return err
		}, teammanager.ErrInvalidFinding},
		{"AddFinding empty IRI", func() error {
			_, err := tm.AddFinding(ctx, "t", "a", teammanager.Finding{Subject: quad.IRI(""), Predicate: p, Object: o})
			return err
		}, teammanager.ErrInvalidFinding},
		{"AddFindings nil predicate", func() error {
			_, err := tm.AddFindings(ctx, "t", "a", []teammanager.Finding{{Subject: iri("s"), Predicate: p, Object: o}, {Subject: iri("s"), Object: o}})
			return err
		}, teammanager.ErrInvalidFinding},
		{"UpdateMemberStatus empty status", func() error {
			_, err := tm.UpdateMemberStatus(ctx, "t", "b", "", "")
			return err
		}, teammanager.ErrInvalidStatus},
		// The Manager checks the status first, whatever the ids (a server
		// refused the empty team first, as an invalid id).
		{"UpdateMemberStatus empty status, team and agent", func() error {
			_, err := tm.UpdateMemberStatus(ctx, "", "", "", "")
			return err
		}, teammanager.ErrInvalidStatus},
		{"MarkMessages empty status and team", func() error { return tm.MarkMessages(ctx, "", "a", "", "M1") }, teammanager.ErrInvalidMessage},
		{"SendMessage empty type", func() error {
			_, err := tm.SendMessage(ctx, "t", "a", teammanager.OutMessage{To: []string{"b"}, Body: "x"})
			return err
		}, teammanager.ErrInvalidMessage},
		{"ConfigureMailbox negative age", func() error { return tm.ConfigureMailbox(ctx, "t", -time.Second, 10) }, teammanager.ErrInvalidConfig},
		{"ResolveConflict nil object", func() error {
			_, err := tm.ResolveConflict(ctx, "t", "C1", []quad.Value{nil}, "a")
			return err
		}, teammanager.ErrInvalidResolution},
		{"ResolveConflict empty IRI", func() error {
			_, err := tm.ResolveConflict(ctx, "t", "C1", []quad.Value{quad.IRI("")}, "a")
			return err
		}, teammanager.ErrInvalidResolution},
		// No resolver: the Manager's error, which it checks first (a
		// server said a param was missing: kind usage, no sentinel).
		{"ResolveConflict empty by", func() error {
			_, err := tm.ResolveConflict(ctx, "t", "C1", nil, "")
			return err
		}, teammanager.ErrInvalidResolution},
		{"ResolveConflict empty by, team and conflict", func() error {
			_, err := tm.ResolveConflict(ctx, "", "", nil, "")
			return err
		}, teammanager.ErrInvalidResolution},
		{"ImportFindings of RDF/XML, which is written only", func() error {
			_, err := tm.ImportFindings(ctx, "t", "a", strings.NewReader(""), "rdfxml")
			return err
		}, rdfio.ErrUnknownFormat},
		{"ImportFindings of an unknown format", func() error {
			_, err := tm.ImportFindings(ctx, "t", "a", strings.NewReader(""), "csv")
			return err
		}, rdfio.ErrUnknownFormat},
		{"ImportFindings of no format", func() error {
			_, err := tm.ImportFindings(ctx, "t", "a", strings.NewReader(""), "")
			return err
		}, rdfio.ErrUnknownFormat},
		{"ImportFindings of an unknown format and a nil reader", func() error {
			_, err := tm.ImportFindings(ctx, "t", "a", nil, "csv")
			return err
		}, rdfio.ErrUnknownFormat},
		{"ConfigureBoard negative lease", func() error {
			_, err := tm.ConfigureBoard(ctx, "t", teammanager.BoardSettings{Lease: -time.Second, RequireReview: true})
			return err
		}, teammanager.ErrInvalidConfig},
	} {
		if err := tc.call(); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want an error matching %v", tc.name, err, tc.want)
		}
	}
	if fs, err := tm.Findings(ctx, "t", teammanager.FindingFilter{}); err != nil || len(fs) != 0 {
		t.Fatalf("findings after refused calls: %d, %v", len(fs), err)
	}
	// A format's extension names it, in both (the server took "nt", the
	// Manager did not).
	for _, format := range []string{"nt", "NTriples", "ttl", "nq", "JSON"} {
		data := "<http://example.org/s> <http://example.org/p> \"" + format + "\" .\n"
		if format == "JSON" {
			data = `{"subject": "<http://example.org/s>", "predicate": "<http://example.org/p>", "object": "\"json\""}`
		}
		if n, err := tm.ImportFindings(ctx, "t", "a", strings.NewReader(data), format); err != nil || n != 1 {
			t.Errorf("ImportFindings as %q: %d, %v", format, n, err)
		}
	}
}

// testMailboxRetention: a team's mailbox retention reads as the defaults
// until it is configured, then as configured; an unknown team is
// ErrUnknownTeam.
func testMailboxRetention(t *testing.T, tm api.TeamManager) {
	create(t, tm, teammanager.TeamConfig{ID: "t", Name: "n", Members: members("a", "b")})
	age, n, err := tm.MailboxRetention(ctx, "t")
	if err != nil || age != teammanager.DefaultMailMaxAge || n != teammanager.DefaultMailPerAgent {
		t.Fatalf("retention of a new team: %v, %d, %v", age, n, err)
	}
	if err := tm.ConfigureMailbox(ctx, "t", time.Hour, 7); err != nil {
		t.Fatal(err)
	}
	if age, n, err = tm.MailboxRetention(ctx, "t"); err != nil || age != time.Hour || n != 7 {
		t.Fatalf("retention after ConfigureMailbox(1h, 7): %v, %d, %v", age, n, err)
	}
	if _, _, err := tm.MailboxRetention(ctx, "nosuch"); !errors.Is(err, teammanager.ErrUnknownTeam) {
		t.Fatalf("retention of an unknown team: %v, want ErrUnknownTeam", err)
	}
	// UpdateMailbox changes what it gives and keeps the rest.
	seven, zero, minute, negative := 7, 0, time.Minute, -time.Second
	centuries, longest := 2000000*time.Hour, time.Duration(math.MaxInt64)
	for _, tc := range []struct {
		name string
		u    teammanager.MailboxUpdate
		age  time.Duration
		n    int
		err  error
	}{
		{"count", teammanager.MailboxUpdate{PerAgent: &seven}, time.Hour, 7, nil},
		{"age", teammanager.MailboxUpdate{MaxAge: &minute}, time.Minute, 7, nil},
		{"none", teammanager.MailboxUpdate{}, time.Minute, 7, nil},
		// Any age a time.Duration holds, in both (a server refused one
		// of more than 2^62 ns, about 146 years).
		{"age of 228 years", teammanager.MailboxUpdate{MaxAge: &centuries}, centuries, 7, nil},
		{"longest age", teammanager.MailboxUpdate{MaxAge: &longest}, longest, 7, nil},
		{"age", teammanager.MailboxUpdate{MaxAge: &minute}, time.Minute, 7, nil},
		{"count 0", teammanager.MailboxUpdate{PerAgent: &zero}, time.Minute, 7, teammanager.ErrInvalidConfig},
		{"negative age", teammanager.MailboxUpdate{MaxAge: &negative, PerAgent: &seven}, time.Minute, 7, teammanager.ErrInvalidConfig},
	} {
		age, n, err := tm.UpdateMailbox(ctx, "t", tc.u)
		if tc.err != nil {
			if !errors.Is(err, tc.err) || api.ExitCode(err) != api.ExitInvalid {
				t.Fatalf("UpdateMailbox %s: %v (exit %d), want an error matching %v (exit %d)", tc.name, err, api.ExitCode(err), tc.err, api.ExitInvalid)
			}
		} else if err != nil || age != tc.age || n != tc.n {
			t.Fatalf("UpdateMailbox %s = %v, %d, %v, want %v, %d", tc.name, age, n, err, tc.age, tc.n)
		}
		if age, n, err := tm.MailboxRetention(ctx, "t"); err != nil || age != tc.age || n != tc.n {
			t.Fatalf("retention after UpdateMailbox %s: %v, %d, %v, want %v, %d", tc.name, age, n, err, tc.age, tc.n)
		}
	}
	if _, _, err := tm.UpdateMailbox(ctx, "nosuch", teammanager.MailboxUpdate{PerAgent: &seven}); !errors.Is(err, teammanager.ErrUnknownTeam) {
		t.Fatalf("UpdateMailbox of an unknown team: %v, want ErrUnknownTeam", err)
	}
}

// TestClient_ErrorsReadAsEmbedded: values that JSON cannot carry (text
// that is not UTF-8, a confidence of NaN or ±Inf, a time after year 9999)
// are refused through a server with the embedded Manager's error, word
// for word and with its exit code, not with the client's encoding error
// or a param's name; nothing is written.
func TestClient_ErrorsReadAsEmbedded(t *testing.T) {
	const bad = "bad\xff"
	late := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	lateInUTC := time.Date(9999, 12, 31, 23, 0, 0, 0, time.FixedZone("", -5*3600)) // json.Marshal takes it
	lateInZone := time.Date(10000, 1, 1, 3, 0, 0, 0, time.FixedZone("", 5*3600))   // 9999 in UTC: kept
	fnd := func(c float64, at time.Time) teammanager.Finding {
		return teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("o"), Confidence: c, AssertedAt: at}
	}
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name string
		call func(tm api.TeamManager) error
		want error
	}{
		{"CreateTask subject", func(tm api.TeamManager) error {
			return errOf(tm.CreateTask(ctx, "crew", "ann", teammanager.NewTask{Subject: bad}))
		}, teammanager.ErrInvalidTask},
		{"CreateTask description", func(tm api.TeamManager) error {
			return errOf(tm.CreateTask(ctx, "crew", "ann", teammanager.NewTask{Subject: "s", Description: bad}))
		}, teammanager.ErrInvalidTask},
		{"UpdateTask subject", func(tm api.TeamManager) error {
			s := bad
			return errOf(tm.UpdateTask(ctx, "crew", "ann", "T2", teammanager.TaskUpdate{Subject: &s}))
		}, teammanager.ErrInvalidTask},
		{"UpdateTask description", func(tm api.TeamManager) error {
			s := bad
			return errOf(tm.UpdateTask(ctx, "crew", "ann", "T2", teammanager.TaskUpdate{Description: &s}))
		}, teammanager.ErrInvalidTask},
		{"ProgressTask note", func(tm api.TeamManager) error { return errOf(tm.ProgressTask(ctx, "crew", "bob", "T1", bad)) }, teammanager.ErrInvalidTask},
		{"CompleteTask result", func(tm api.TeamManager) error { return errOf(tm.CompleteTask(ctx, "crew", "bob", "T1", bad)) }, teammanager.ErrInvalidTask},
		{"FailTask reason", func(tm api.TeamManager) error { return errOf(tm.FailTask(ctx, "crew", "bob", "T1", bad)) }, teammanager.ErrInvalidTask},
		{"CancelTask reason", func(tm api.TeamManager) error { return errOf(tm.CancelTask(ctx, "crew", "ann", "T2", bad)) }, teammanager.ErrInvalidTask},
		{"SkipTask reason", func(tm api.TeamManager) error { return errOf(tm.SkipTask(ctx, "crew", "ann", "T2", bad)) }, teammanager.ErrInvalidTask},
		{"AddTaskComment", func(tm api.TeamManager) error {
			return errOf(tm.AddTaskComment(ctx, "crew", "bob", "T1", teammanager.CommentNote, bad))
		}, teammanager.ErrInvalidTask},
		{"SendMessage subject", func(tm api.TeamManager) error {
			return errOf(tm.SendMessage(ctx, "crew", "ann", teammanager.OutMessage{Type: teammanager.MsgStatus, To: []string{"bob"}, Subject: bad, Body: "b"}))
		}, teammanager.ErrInvalidMessage},
		{"SendMessage body", func(tm api.TeamManager) error {
			return errOf(tm.SendMessage(ctx, "crew", "ann", teammanager.OutMessage{Type: teammanager.MsgStatus, Body: bad}))
		}, teammanager.ErrInvalidMessage},
		{"UpdateMemberStatus result", func(tm api.TeamManager) error {
			return errOf(tm.UpdateMemberStatus(ctx, "crew", "cat", teammanager.Completed, bad))
		}, teammanager.ErrInvalidStatus},
		{"CreateTeam name", func(tm api.TeamManager) error {
			return errOf(tm.CreateTeam(ctx, teammanager.TeamConfig{Name: " " + bad, Members: members("a")}))
		}, teammanager.ErrInvalidTeam},
		{"CreateTeam context", func(tm api.TeamManager) error {
			return errOf(tm.CreateTeam(ctx, teammanager.TeamConfig{Name: "n", Context: bad, Members: members("a")}))
		}, teammanager.ErrInvalidTeam},
		{"CreateTeam role", func(tm api.TeamManager) error {
			return errOf(tm.CreateTeam(ctx, teammanager.TeamConfig{Name: "n", Members: []teammanager.MemberConfig{{AgentID: "a", Role: bad}}}))
		}, teammanager.ErrInvalidTeam},
		{"CreateTeam threshold NaN", func(tm api.TeamManager) error {
			return errOf(tm.CreateTeam(ctx, teammanager.TeamConfig{Name: " n ", Threshold: nan, Members: members("a")}))
		}, teammanager.ErrInvalidTeam},
		{"CreateTeam threshold -Inf", func(tm api.TeamManager) error {
			return errOf(tm.CreateTeam(ctx, teammanager.TeamConfig{Name: "n", Threshold: -inf, Members: members("a")}))
		}, teammanager.ErrInvalidTeam},
		{"AddFinding confidence NaN", func(tm api.TeamManager) error { return errOf(tm.AddFinding(ctx, "crew", "bob", fnd(nan, time.Time{}))) }, teammanager.ErrInvalidFinding},
		{"AddFinding confidence +Inf", func(tm api.TeamManager) error { return errOf(tm.AddFinding(ctx, "crew", "bob", fnd(inf, time.Time{}))) }, teammanager.ErrInvalidFinding},
		{"AddFinding confidence -Inf", func(tm api.TeamManager) error {
			return errOf(tm.AddFinding(ctx, "crew", "bob", fnd(-inf, time.Time{})))
		}, teammanager.ErrInvalidFinding},
		{"AddFinding year 10000", func(tm api.TeamManager) error { return errOf(tm.AddFinding(ctx, "crew", "bob", fnd(0.5, late))) }, teammanager.ErrInvalidFinding},
		{"AddFinding year 10000 in UTC", func(tm api.TeamManager) error { return errOf(tm.AddFinding(ctx, "crew", "bob", fnd(0.5, lateInUTC))) }, teammanager.ErrInvalidFinding},
		{"AddFindings confidence NaN", func(tm api.TeamManager) error {
			return errOf(tm.AddFindings(ctx, "crew", "bob", []teammanager.Finding{fnd(0.5, time.Time{}), fnd(nan, time.Time{})}))
		}, teammanager.ErrInvalidFinding},
		// The Manager refuses the revision before it looks at the
		// feedback (the client refused the call as not UTF-8).
		{"ReviewPlan revision 0, feedback", func(tm api.TeamManager) error {
			return errOf(tm.(api.TeamPlans).ReviewPlan(ctx, "crew", "ann", 0, false, bad))
		}, teammanager.ErrInvalidPlan},
		{"AddTaskFindings confidence +Inf", func(tm api.TeamManager) error {
			return errOf(tm.AddTaskFindings(ctx, "crew", "bob", "T1", []teammanager.Finding{fnd(inf, time.Time{})}))
		}, teammanager.ErrInvalidFinding},
	}
	got := map[string][]error{}
	for _, b := range backends {
		tm := b.open(t)
		crew(t, tm)
		must[teammanager.Task](t, "create T1")(tm.CreateTask(ctx, "crew", "ann", teammanager.NewTask{Subject: "one"}))
		must[teammanager.Task](t, "create T2")(tm.CreateTask(ctx, "crew", "ann", teammanager.NewTask{Subject: "two"}))
		must[teammanager.Task](t, "claim T1")(tm.ClaimTask(ctx, "crew", "bob", "T1"))
		for _, tc := range cases {
			err := tc.call(tm)
			if !errors.Is(err, tc.want) || api.ExitCode(err) != api.ExitInvalid {
				t.Errorf("%s: %s: %v (exit %d), want an error matching %v (exit %d)", b.name, tc.name, err, api.ExitCode(err), tc.want, api.ExitInvalid)
			}
			got[b.name] = append(got[b.name], err)
		}
		// Nothing was written: the tasks are as they were, and neither
		// findings, messages nor teams were added.
		ts := must[[]teammanager.Task](t, "tasks")(tm.ListTasks(ctx, "crew", teammanager.TaskFilter{}))
		if len(ts) != 2 || ts[0].Subject != "one" || ts[0].Status != teammanager.TaskInProgress || ts[1].Subject != "two" || ts[1].Status != teammanager.TaskPending || ts[1].Description != "" {
			t.Errorf("%s: tasks after the refused calls: %+v", b.name, ts)
		}
		if cs := must[[]teammanager.TaskComment](t, "comments")(tm.TaskComments(ctx, "crew", "T1")); len(cs) != 0 {
			t.Errorf("%s: comments after the refused calls: %+v", b.name, cs)
		}
		if fs := must[[]teammanager.StoredFinding](t, "findings")(tm.Findings(ctx, "crew", teammanager.FindingFilter{})); len(fs) != 0 {
			t.Errorf("%s: findings after the refused calls: %+v", b.name, fs)
		}
		if h := must[[]teammanager.Message](t, "history")(tm.History(ctx, "crew", 0)); len(h) != 0 {
			t.Errorf("%s: messages after the refused calls: %+v", b.name, h)
		}
		if teams := must[[]teammanager.Team](t, "teams")(tm.ListTeams(ctx, teammanager.TeamFilter{})); len(teams) != 1 {
			t.Errorf("%s: teams after the refused calls: %+v", b.name, teams)
		}
		// A time of year 10000 in its zone and 9999 in UTC is taken.
		if _, err := tm.AddFinding(ctx, "crew", "bob", fnd(0.5, lateInZone)); err != nil {
			t.Errorf("%s: a finding of %s: %v", b.name, lateInZone, err)
		} else if fs, err := tm.Findings(ctx, "crew", teammanager.FindingFilter{}); err != nil || len(fs) != 1 || !fs[0].AssertedAt.Equal(lateInZone) {
			t.Errorf("%s: findings: %+v, %v", b.name, fs, err)
		}
	}
	for i, tc := range cases {
		if e, r := got["embedded"][i], got["remote"][i]; e == nil || r == nil || e.Error() != r.Error() {
			t.Errorf("%s: remote %q, embedded %q", tc.name, r, e)
		}
	}
}
