package client_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/teammanager"
)

// testEndedContextWritesNothing: a call whose context has already ended
// fails with the context's error and writes nothing, in process as
// through a server. (Through a server's stream the call was sent anyway
// about one time in two, run, and only then cancelled: the write stayed.)
func testEndedContextWritesNothing(t *testing.T, tm api.TeamManager) {
	create(t, tm, teammanager.TeamConfig{ID: "t", Name: "n", Members: members("a", "b")})
	status(t, tm, "t", "a", teammanager.Running, "")
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	for i := range 40 {
		_, err := tm.AddFinding(cctx, "t", "a", teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.Int(i)})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("AddFinding %d with an ended context: %v, want context.Canceled", i, err)
		}
	}
	if _, err := tm.UpdateMemberStatus(cctx, "t", "b", teammanager.Running, ""); !errors.Is(err, context.Canceled) {
		t.Fatalf("UpdateMemberStatus with an ended context: %v, want context.Canceled", err)
	}
	if fs, err := tm.Findings(ctx, "t", teammanager.FindingFilter{}); err != nil || len(fs) != 0 {
		t.Fatalf("findings after calls with an ended context: %d, %v", len(fs), err)
	}
	if team, err := tm.GetTeam(ctx, "t"); err != nil {
		t.Fatal(err)
	} else if b, _ := team.Member("b"); b.Status != teammanager.Pending {
		t.Fatalf("member b after an update with an ended context: %s", b.Status)
	}
}

// testEndedContextReads: a read whose context has already ended fails
// with the context's error and its cause, in process as through a server
// (the client's error matched the cause only, not context.Canceled; the
// Manager's ListTeams answered from its team table without looking at
// the context).
func testEndedContextReads(t *testing.T, tm api.TeamManager) {
	create(t, tm, teammanager.TeamConfig{ID: "t", Name: "n", Members: members("a", "b")})
	cctx, cancel := context.WithCancelCause(ctx)
	why := errors.New("host shutting down")
	cancel(why)
	for name, call := range map[string]func() error{
		"ListTeams": func() error { return errOf(tm.ListTeams(cctx, teammanager.TeamFilter{})) },
		"GetTeam":   func() error { return errOf(tm.GetTeam(cctx, "t")) },
		"ListTasks": func() error { return errOf(tm.ListTasks(cctx, "t", teammanager.TaskFilter{})) },
		"Findings":  func() error { return errOf(tm.Findings(cctx, "t", teammanager.FindingFilter{})) },
		// The events' too: the Manager's had the context's error without
		// its cause.
		"LastEventID": func() error { return errOf(tm.(subscriber).LastEventID(cctx)) },
		"Subscribe":   func() error { return errOf(tm.(subscriber).Subscribe(cctx, 0)) },
	} {
		if err := call(); !errors.Is(err, context.Canceled) || !errors.Is(err, why) || api.ExitCode(err) != api.ExitTimeout {
			t.Errorf("%s with an ended context: %v (exit %d), want context.Canceled and its cause (exit %d)", name, err, api.ExitCode(err), api.ExitTimeout)
		}
	}
}

// testTermsKeptAsGiven: a finding's terms are stored as the Manager
// stores them, whatever Go type holds them: a quad.Time keeps its
// nanoseconds and zone, a LangString without a language is a plain
// literal (the client wrote them as cayley formats them: the time to the
// second in UTC, and "x"@, which the server refused as a syntax error).
func testTermsKeptAsGiven(t *testing.T, tm api.TeamManager) {
	create(t, tm, teammanager.TeamConfig{ID: "t", Name: "n", Members: members("a")})
	status(t, tm, "t", "a", teammanager.Running, "")
	at := time.Date(2025, 1, 2, 3, 4, 5, 123456789, time.FixedZone("", 3600))
	const xsd = "http://www.w3.org/2001/XMLSchema#"
	for _, tc := range []struct {
		name string
		in   quad.Value
		want quad.Value
	}{
		{"quad.Time", quad.Time(at), quad.TypedString{Value: "2025-01-02T03:04:05.123456789+01:00", Type: xsd + "dateTime"}},
		{"LangString without a language", quad.LangString{Value: "x", Lang: ""}, quad.String("x")},
		{"TypedString xsd:string", quad.TypedString{Value: "y", Type: xsd + "string"}, quad.String("y")},
		{"quad.Int", quad.Int(7), quad.TypedString{Value: "7", Type: xsd + "integer"}},
		// Blank node labels that rdfio.FormatTerm hex-encodes ("x" + hex)
		// on the wire: the server stored _:x7831 for x1 and the client read
		// back x7831 (x7837383331 through both ways).
		{"blank node x1", quad.BNode("x1"), quad.BNode("x1")},
		{"blank node b 1", quad.BNode("b 1"), quad.BNode("b 1")},
		{"blank node b1", quad.BNode("b1"), quad.BNode("b1")},
	} {
		p := iri(strings.ReplaceAll(tc.name, " ", "-"))
		if _, err := tm.AddFinding(ctx, "t", "a", teammanager.Finding{Subject: iri("s"), Predicate: p, Object: tc.in}); err != nil {
			t.Errorf("%s: AddFinding: %v", tc.name, err)
			continue
		}
		fs, err := tm.Findings(ctx, "t", teammanager.FindingFilter{Predicate: p})
		if err != nil || len(fs) != 1 || fs[0].Object != tc.want {
			t.Errorf("%s: stored %+v, %v, want object %#v", tc.name, fs, err, tc.want)
		}
		if b, ok := tc.in.(quad.BNode); ok { // as a subject too, and found by it
			if _, err := tm.AddFinding(ctx, "t", "a", teammanager.Finding{Subject: b, Predicate: p, Object: quad.String("o")}); err != nil {
				t.Errorf("%s as a subject: AddFinding: %v", tc.name, err)
				continue
			}
			fs, err := tm.Findings(ctx, "t", teammanager.FindingFilter{Subject: b, Predicate: p})
			if err != nil || len(fs) != 1 || fs[0].Subject != b {
				t.Errorf("%s as a subject: found %+v, %v, want one finding about %#v", tc.name, fs, err, b)
			}
		}
	}
}

// testTaskCommentKindRequired: a comment of no kind is refused
// (ErrInvalidTask) and not written, through a server as in process (the
// server took an empty kind for a note and wrote it).
func testTaskCommentKindRequired(t *testing.T, tm api.TeamManager) {
	team := crew(t, tm)
	must[teammanager.Task](t, "create")(tm.CreateTask(ctx, team, "ann", teammanager.NewTask{Subject: "s"}))
	if _, err := tm.AddTaskComment(ctx, team, "bob", "T1", "", "hello"); !errors.Is(err, teammanager.ErrInvalidTask) || api.ExitCode(err) != api.ExitInvalid {
		t.Errorf("AddTaskComment of no kind: %v (exit %d), want an error matching ErrInvalidTask (exit %d)", err, api.ExitCode(err), api.ExitInvalid)
	}
	if cs, err := tm.TaskComments(ctx, team, "T1"); err != nil || len(cs) != 0 {
		t.Errorf("comments after a refused one: %+v, %v", cs, err)
	}
}

// testFreshNamespace: before the first team of a namespace, every team
// is unknown (ErrUnknownTeam), as in process: a server whose namespace did
// not exist yet answered "no such namespace", which matched
// cortex.ErrNoNamespace only.
func testFreshNamespace(t *testing.T, tm api.TeamManager) {
	pl := tm.(api.TeamPlans)
	for name, call := range map[string]func() error{
		"GetTeam":            func() error { return errOf(tm.GetTeam(ctx, "x")) },
		"DeleteTeam":         func() error { return tm.DeleteTeam(ctx, "x") },
		"IsTeamComplete":     func() error { return errOf(tm.IsTeamComplete(ctx, "x")) },
		"UpdateMemberStatus": func() error { return errOf(tm.UpdateMemberStatus(ctx, "x", "a", teammanager.Running, "")) },
		"AddFinding": func() error {
			return errOf(tm.AddFinding(ctx, "x", "a", teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("o")}))
		},
		"Findings":         func() error { return errOf(tm.Findings(ctx, "x", teammanager.FindingFilter{})) },
		"Facts":            func() error { return errOf(tm.Facts(ctx, "x", teammanager.FactFilter{})) },
		"Conflicts":        func() error { return errOf(tm.Conflicts(ctx, "x")) },
		"MergeTeamResults": func() error { return errOf(tm.MergeTeamResults(ctx, "x")) },
		"ListTasks":        func() error { return errOf(tm.ListTasks(ctx, "x", teammanager.TaskFilter{})) },
		"GetTask":          func() error { return errOf(tm.GetTask(ctx, "x", "T1")) },
		"CreateTask":       func() error { return errOf(tm.CreateTask(ctx, "x", "a", teammanager.NewTask{Subject: "s"})) },
		"Board":            func() error { return errOf(tm.Board(ctx, "x")) },
		"History":          func() error { return errOf(tm.History(ctx, "x", 0)) },
		"Inbox":            func() error { return errOf(tm.Inbox(ctx, "x", "a", teammanager.MailFilter{})) },
		"MailboxRetention": func() error { _, _, err := tm.MailboxRetention(ctx, "x"); return err },
		// The plans and snapshots of a team (api.TeamPlans) too: through a
		// server they matched cortex.ErrNoNamespace only.
		"DraftPlan": func() error {
			return errOf(pl.DraftPlan(ctx, "x", "a", teammanager.NewPlan{Title: "t", Steps: []teammanager.PlanStep{{Title: "s"}}}))
		},
		"SubmitPlan":    func() error { return errOf(pl.SubmitPlan(ctx, "x", "a")) },
		"ReviewPlan":    func() error { return errOf(pl.ReviewPlan(ctx, "x", "a", 1, true, "")) },
		"GetPlan":       func() error { return errOf(pl.GetPlan(ctx, "x", 0)) },
		"PlanRevisions": func() error { return errOf(pl.PlanRevisions(ctx, "x")) },
		"SnapshotTeam":  func() error { return errOf(pl.SnapshotTeam(ctx, "x", "")) },
		"Snapshots":     func() error { return errOf(pl.Snapshots(ctx, "x")) },
	} {
		if err := call(); !errors.Is(err, teammanager.ErrUnknownTeam) || api.ExitCode(err) != api.ExitNotFound {
			t.Errorf("%s in a fresh namespace: %v (exit %d), want an error matching ErrUnknownTeam (exit %d)", name, err, api.ExitCode(err), api.ExitNotFound)
		}
	}
	// A snapshot by its id is unknown (snapshots outlive their team).
	for name, call := range map[string]func() error{
		"GetSnapshot":     func() error { return errOf(pl.GetSnapshot(ctx, "x", "S1")) },
		"RestoreSnapshot": func() error { return errOf(pl.RestoreSnapshot(ctx, "x", "S1", false)) },
		"DeleteSnapshot":  func() error { return pl.DeleteSnapshot(ctx, "x", "S1") },
	} {
		if err := call(); !errors.Is(err, teammanager.ErrUnknownSnapshot) || api.ExitCode(err) != api.ExitNotFound {
			t.Errorf("%s in a fresh namespace: %v (exit %d), want an error matching ErrUnknownSnapshot (exit %d)", name, err, api.ExitCode(err), api.ExitNotFound)
		}
	}
}

// testMarkMessagesStatus: MarkMessages refuses a status other than read
// or archived with ErrInvalidMessage (exit 7), ids or none, and with no
// ids still fails on an ended context, as in process (through a server,
// no status was a usage error matching no sentinel, and with no ids any
// status and any context passed).
func testMarkMessagesStatus(t *testing.T, tm api.TeamManager) {
	team := crew(t, tm)
	m := must[teammanager.Message](t, "send")(tm.SendMessage(ctx, team, "ann", teammanager.OutMessage{Type: teammanager.MsgStatus, To: []string{"bob"}, Body: "hi"}))
	for _, tc := range []struct {
		status teammanager.MessageStatus
		ids    []string
	}{{"", []string{m.ID}}, {teammanager.MsgUnread, []string{m.ID}}, {"", nil}, {"bogus", nil}} {
		if err := tm.MarkMessages(ctx, team, "bob", tc.status, tc.ids...); !errors.Is(err, teammanager.ErrInvalidMessage) || api.ExitCode(err) != api.ExitInvalid {
			t.Errorf("MarkMessages as %q of %v: %v (exit %d), want an error matching ErrInvalidMessage (exit %d)", tc.status, tc.ids, err, api.ExitCode(err), api.ExitInvalid)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := tm.MarkMessages(cctx, team, "bob", teammanager.MsgRead); !errors.Is(err, context.Canceled) {
		t.Errorf("MarkMessages of no ids with an ended context: %v, want context.Canceled", err)
	}
	if err := tm.MarkMessages(ctx, team, "bob", teammanager.MsgRead); err != nil {
		t.Errorf("MarkMessages of no ids: %v", err)
	}
	if in, err := tm.Inbox(ctx, team, "bob", teammanager.MailFilter{}); err != nil || len(in) != 1 || in[0].Status != teammanager.MsgUnread {
		t.Errorf("bob's inbox after the refused marks: %+v, %v", in, err)
	}
}

// testEmptyResultsAsEmbedded: empty results are nil or empty as the
// Manager returns them, so that a host comparing them (reflect.DeepEqual,
// a nil check, JSON's null and []) sees the same: AddFindings of none
// returns an empty list, an empty inbox or history is nil (the client
// had them the other way round), and a merge of no findings has empty
// lists of facts and conflicts (the client's were nil); a task's comments
// and a restore's quads are nil for none.
func testEmptyResultsAsEmbedded(t *testing.T, tm api.TeamManager) {
	team := crew(t, tm)
	status(t, tm, team, "bob", teammanager.Running, "")
	if ids, err := tm.AddFindings(ctx, team, "bob", nil); err != nil || ids == nil || len(ids) != 0 {
		t.Errorf("AddFindings of none: %#v, %v, want an empty list", ids, err)
	}
	if in, err := tm.Inbox(ctx, team, "bob", teammanager.MailFilter{}); err != nil || in != nil {
		t.Errorf("an empty inbox: %#v, %v, want nil", in, err)
	}
	if h, err := tm.History(ctx, team, 0); err != nil || h != nil {
		t.Errorf("an empty history: %#v, %v, want nil", h, err)
	}
	// A task of no comments has none (nil), and the restore of a snapshot
	// of the team as it is adds and removes none (nil): the client had
	// empty lists.
	must[teammanager.Task](t, "create")(tm.CreateTask(ctx, team, "ann", teammanager.NewTask{Subject: "s"}))
	if cs, err := tm.TaskComments(ctx, team, "T1"); err != nil || cs != nil {
		t.Errorf("a task of no comments: %#v, %v, want nil", cs, err)
	}
	pl := tm.(api.TeamPlans)
	must[teammanager.Snapshot](t, "snapshot")(pl.SnapshotTeam(ctx, team, ""))
	if d, err := pl.RestoreSnapshot(ctx, team, "S1", false); err != nil || d.Add != nil || d.Remove != nil {
		t.Errorf("the restore of an unchanged team: add %#v, remove %#v, %v, want nil", d.Add, d.Remove, err)
	}
	// A merge of no findings: facts and conflicts as the Manager has them.
	rep, err := tm.MergeTeamResults(ctx, team)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Facts == nil || len(rep.Facts) != 0 || rep.OpenConflicts == nil || len(rep.OpenConflicts) != 0 {
		t.Errorf("a merge of no findings: facts %#v, conflicts %#v, want empty lists", rep.Facts, rep.OpenConflicts)
	}
}

// testDurationsKept: the board's lease and staleAfter and the mailbox's
// maxAge come back as they were set, to the nanosecond, through a server
// as in process. They travel in seconds (a float64), and the server and
// the client turned the seconds back by truncating: 1.001 s, which no
// float64 holds exactly, came back 1.000999999 s (as do about one
// duration of whole milliseconds in sixty).
func testDurationsKept(t *testing.T, tm api.TeamManager) {
	team := crew(t, tm)
	for _, d := range []time.Duration{1001 * time.Millisecond, 1003 * time.Millisecond, 90*time.Minute + 7*time.Millisecond, time.Hour + 1} {
		lease, stale := d, d+2*time.Millisecond
		got, err := tm.UpdateBoard(ctx, team, teammanager.BoardUpdate{Lease: &lease, StaleAfter: &stale})
		if err != nil {
			t.Fatal(err)
		}
		if got.Lease != lease || got.StaleAfter != stale {
			t.Errorf("UpdateBoard(lease %v, staleAfter %v) = lease %v, staleAfter %v", lease, stale, got.Lease, got.StaleAfter)
		}
		if b, err := tm.Board(ctx, team); err != nil || b.Lease != lease || b.StaleAfter != stale {
			t.Errorf("Board after UpdateBoard(lease %v, staleAfter %v) = lease %v, staleAfter %v, %v", lease, stale, b.Lease, b.StaleAfter, err)
		}
		if err := tm.ConfigureMailbox(ctx, team, d, 3); err != nil {
			t.Fatal(err)
		}
		if age, _, err := tm.MailboxRetention(ctx, team); err != nil || age != d {
			t.Errorf("MailboxRetention after ConfigureMailbox(%v) = %v, %v", d, age, err)
		}
	}
}

// testUnknownTeamFirst: a call about a team that does not exist fails as
// about an unknown team (ErrUnknownTeam, exit 3) whatever else it lacks,
// through a server as in process: the Manager looks the team up first.
// A server refused an empty agent, task, message or conflict id first,
// as a missing param matching ErrUnknownAgent ..., not ErrUnknownTeam.
func testUnknownTeamFirst(t *testing.T, tm api.TeamManager) {
	crew(t, tm) // the namespace exists
	f := teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("o")}
	for name, call := range map[string]func() error{
		"UpdateMemberStatus": func() error { return errOf(tm.UpdateMemberStatus(ctx, "nope", "", teammanager.Running, "")) },
		"AddFinding":         func() error { return errOf(tm.AddFinding(ctx, "nope", "", f)) },
		"AddFindings":        func() error { return errOf(tm.AddFindings(ctx, "nope", "", []teammanager.Finding{f})) },
		"ImportFindings": func() error {
			return errOf(tm.ImportFindings(ctx, "nope", "", strings.NewReader(""), teammanager.FindingsJSON))
		},
		"ResolveConflict": func() error { return errOf(tm.ResolveConflict(ctx, "nope", "", nil, "ann")) },
		"CreateTask":      func() error { return errOf(tm.CreateTask(ctx, "nope", "", teammanager.NewTask{Subject: "s"})) },
		"ClaimNext":       func() error { return errOf(tm.ClaimNext(ctx, "nope", "")) },
		"TaskComments":    func() error { return errOf(tm.TaskComments(ctx, "nope", "")) },
		"TaskHistory":     func() error { return errOf(tm.TaskHistory(ctx, "nope", "")) },
		"AddTaskFindings": func() error { return errOf(tm.AddTaskFindings(ctx, "nope", "ann", "", []teammanager.Finding{f})) },
		"SendMessage": func() error {
			return errOf(tm.SendMessage(ctx, "nope", "", teammanager.OutMessage{Type: teammanager.MsgStatus, Body: "x"}))
		},
		"Inbox":        func() error { return errOf(tm.Inbox(ctx, "nope", "", teammanager.MailFilter{})) },
		"MarkMessages": func() error { return tm.MarkMessages(ctx, "nope", "", teammanager.MsgRead, "M1") },
		"Thread":       func() error { return errOf(tm.Thread(ctx, "nope", "")) },
	} {
		if err := call(); !errors.Is(err, teammanager.ErrUnknownTeam) || api.ExitCode(err) != api.ExitNotFound {
			t.Errorf("%s of an unknown team and an empty id: %v (exit %d), want an error matching ErrUnknownTeam (exit %d)", name, err, api.ExitCode(err), api.ExitNotFound)
		}
	}
}

// testTaskCommentKindAfterTeamAndTask: a comment of no kind on a team or
// a task that does not exist fails as about that team or task, through a
// server as in process (the Manager looks them up before the kind; the
// client refused the kind first, ErrInvalidTask, exit 7).
func testTaskCommentKindAfterTeamAndTask(t *testing.T, tm api.TeamManager) {
	team := crew(t, tm)
	for _, tc := range []struct {
		team, task string
		want       error
		code       int
	}{
		{"nope", "T1", teammanager.ErrUnknownTeam, api.ExitNotFound},
		{team, "T9", teammanager.ErrUnknownTask, api.ExitNotFound},
	} {
		if _, err := tm.AddTaskComment(ctx, tc.team, "bob", tc.task, "", "hello"); !errors.Is(err, tc.want) || api.ExitCode(err) != tc.code {
			t.Errorf("AddTaskComment of no kind on team %s, task %s: %v (exit %d), want an error matching %v (exit %d)", tc.team, tc.task, err, api.ExitCode(err), tc.want, tc.code)
		}
	}
}

// testMessageTypeAfterTeamAndSender: a message of no type from a team or
// a sender that does not exist fails as about that team or sender,
// through a server as in process (the Manager looks them up before the
// type; the client refused the type first, ErrInvalidMessage, exit 7).
func testMessageTypeAfterTeamAndSender(t *testing.T, tm api.TeamManager) {
	team := crew(t, tm)
	for _, tc := range []struct {
		team, from string
		want       error
		code       int
	}{
		{"nope", "bob", teammanager.ErrUnknownTeam, api.ExitNotFound},
		{team, "zed", teammanager.ErrUnknownAgent, api.ExitNotFound},
		{team, "bob", teammanager.ErrInvalidMessage, api.ExitInvalid},
	} {
		if _, err := tm.SendMessage(ctx, tc.team, tc.from, teammanager.OutMessage{To: []string{"ann"}, Body: "hello"}); !errors.Is(err, tc.want) || api.ExitCode(err) != tc.code {
			t.Errorf("SendMessage of no type from team %s, member %s: %v (exit %d), want an error matching %v (exit %d)", tc.team, tc.from, err, api.ExitCode(err), tc.want, tc.code)
		}
	}
}

// testBoardValuesAfterTeam: a board update with a negative lease or
// staleAfter fails as the Manager fails it: about a team that does not
// exist first (ErrUnknownTeam, exit 3), else ErrInvalidConfig (exit 7),
// through a server as in process (the client refused the value first,
// and a server answered api.ErrInvalid of its own).
func testBoardValuesAfterTeam(t *testing.T, tm api.TeamManager) {
	team := crew(t, tm)
	neg := -time.Second
	for _, tc := range []struct {
		team string
		u    teammanager.BoardUpdate
		want error
		code int
	}{
		{"nope", teammanager.BoardUpdate{Lease: &neg}, teammanager.ErrUnknownTeam, api.ExitNotFound},
		{"nope", teammanager.BoardUpdate{StaleAfter: &neg}, teammanager.ErrUnknownTeam, api.ExitNotFound},
		{team, teammanager.BoardUpdate{Lease: &neg}, teammanager.ErrInvalidConfig, api.ExitInvalid},
		{team, teammanager.BoardUpdate{StaleAfter: &neg}, teammanager.ErrInvalidConfig, api.ExitInvalid},
	} {
		if _, err := tm.UpdateBoard(ctx, tc.team, tc.u); !errors.Is(err, tc.want) || api.ExitCode(err) != tc.code {
			t.Errorf("UpdateBoard of team %s with a negative duration: %v (exit %d), want an error matching %v (exit %d)", tc.team, err, api.ExitCode(err), tc.want, tc.code)
		}
	}
	if _, err := tm.ConfigureBoard(ctx, "nope", teammanager.BoardSettings{Lease: neg}); !errors.Is(err, teammanager.ErrUnknownTeam) {
		t.Errorf("ConfigureBoard of no team with a negative lease: %v, want an error matching ErrUnknownTeam", err)
	}
}

// testUnknownTaskBeforeEmptyAgent: a call about a task that does not exist
// by a member of no id fails as about an unknown task (ErrUnknownTask,
// exit 3), through a server as in process: the Manager looks the task up
// before the member. A server refused the empty agent first.
func testUnknownTaskBeforeEmptyAgent(t *testing.T, tm api.TeamManager) {
	team := crew(t, tm)
	for name, call := range map[string]func() error{
		"UpdateTask":     func() error { return errOf(tm.UpdateTask(ctx, team, "", "T9", teammanager.TaskUpdate{})) },
		"ClaimTask":      func() error { return errOf(tm.ClaimTask(ctx, team, "", "T9")) },
		"ProgressTask":   func() error { return errOf(tm.ProgressTask(ctx, team, "", "T9", "n")) },
		"CompleteTask":   func() error { return errOf(tm.CompleteTask(ctx, team, "", "T9", "r")) },
		"ReviewTask":     func() error { return errOf(tm.ReviewTask(ctx, team, "", "T9", true, "")) },
		"FailTask":       func() error { return errOf(tm.FailTask(ctx, team, "", "T9", "x")) },
		"CancelTask":     func() error { return errOf(tm.CancelTask(ctx, team, "", "T9", "x")) },
		"PauseTask":      func() error { return errOf(tm.PauseTask(ctx, team, "", "T9")) },
		"ResumeTask":     func() error { return errOf(tm.ResumeTask(ctx, team, "", "T9")) },
		"RetryTask":      func() error { return errOf(tm.RetryTask(ctx, team, "", "T9")) },
		"SkipTask":       func() error { return errOf(tm.SkipTask(ctx, team, "", "T9", "x")) },
		"AddTaskComment": func() error { return errOf(tm.AddTaskComment(ctx, team, "", "T9", teammanager.CommentNote, "x")) },
	} {
		if err := call(); !errors.Is(err, teammanager.ErrUnknownTask) || api.ExitCode(err) != api.ExitNotFound {
			t.Errorf("%s of an unknown task by no agent: %v (exit %d), want an error matching ErrUnknownTask (exit %d)", name, err, api.ExitCode(err), api.ExitNotFound)
		}
	}
	// AddTaskFindings looks the member up first, in both.
	f := teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("o")}
	if _, err := tm.AddTaskFindings(ctx, team, "", "T9", []teammanager.Finding{f}); !errors.Is(err, teammanager.ErrUnknownAgent) {
		t.Errorf("AddTaskFindings of an unknown task by no agent: %v, want an error matching ErrUnknownAgent", err)
	}
}

// testUnknownAgentBeforeEmptyTask: findings for a task of no id by an
// agent that is not a member fail as about an unknown agent
// (ErrUnknownAgent, exit 3), through a server as in process: the Manager
// looks the member up before the task. A server refused the empty task
// first (ErrUnknownTask, exit 2).
func testUnknownAgentBeforeEmptyTask(t *testing.T, tm api.TeamManager) {
	team := crew(t, tm)
	f := teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("o")}
	for _, agent := range []string{"zed", "a/b"} {
		_, err := tm.AddTaskFindings(ctx, team, agent, "", []teammanager.Finding{f})
		if !errors.Is(err, teammanager.ErrUnknownAgent) || errors.Is(err, teammanager.ErrUnknownTask) {
			t.Errorf("AddTaskFindings by agent %q of no task: %v (exit %d), want an error matching ErrUnknownAgent, not ErrUnknownTask", agent, err, api.ExitCode(err))
		}
	}
}

// testIDsNotUTF8: an id that is not valid UTF-8 is a malformed id
// (ErrInvalidID and the lookup error of its kind, exit 7) whose message
// names it as given, through a server as in process; of a team that does
// not exist, it is an unknown team (exit 3), as the Manager looks the
// team up first. Through a server it was the client's ErrNotUTF8 naming a
// param, exit 7 in every case.
func testIDsNotUTF8(t *testing.T, tm api.TeamManager) {
	team := crew(t, tm)
	f := teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("o")}
	for _, tc := range []struct {
		name, id string
		call     func() error
		want     error
		code     int
	}{
		{"GetTeam", "cr\xffew", func() error { return errOf(tm.GetTeam(ctx, "cr\xffew")) }, teammanager.ErrUnknownTeam, api.ExitInvalid},
		{"GetTask", "T\xff", func() error { return errOf(tm.GetTask(ctx, team, "T\xff")) }, teammanager.ErrUnknownTask, api.ExitInvalid},
		{"AddFinding", "\xff", func() error { return errOf(tm.AddFinding(ctx, team, "\xff", f)) }, teammanager.ErrUnknownAgent, api.ExitInvalid},
		{"AddFinding of an unknown team", "nope", func() error { return errOf(tm.AddFinding(ctx, "nope", "\xff", f)) }, teammanager.ErrUnknownTeam, api.ExitNotFound},
		{"Thread", "M\xff", func() error { return errOf(tm.Thread(ctx, team, "M\xff")) }, teammanager.ErrUnknownMessage, api.ExitInvalid},
	} {
		err := tc.call()
		if !errors.Is(err, tc.want) || api.ExitCode(err) != tc.code || !strings.Contains(fmt.Sprint(err), strconv.Quote(tc.id)) {
			t.Errorf("%s: %v (exit %d), want an error matching %v (exit %d) naming %q", tc.name, err, api.ExitCode(err), tc.want, tc.code, tc.id)
		}
	}
}

// testInvalidStatusAsEmbedded: a status or lifecycle word that is none
// fails with the Manager's message through a server as in process (the
// server parsed the word itself and answered its parser's message).
func testInvalidStatusAsEmbedded(t *testing.T, tm api.TeamManager) {
	team := crew(t, tm)
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"UpdateMemberStatus", errOf(tm.UpdateMemberStatus(ctx, team, "ann", "zz", "")), `team crew: member ann: invalid status "zz"`},
		{"ListTasks", errOf(tm.ListTasks(ctx, team, teammanager.TaskFilter{Status: "zz"})), `invalid status: task status "zz"`},
		{"ListTeams", errOf(tm.ListTeams(ctx, teammanager.TeamFilter{Status: "zz"})), `list teams: invalid status "zz"`},
		{"ListTeams lifecycle", errOf(tm.ListTeams(ctx, teammanager.TeamFilter{Lifecycle: "zz"})), `list teams: invalid status: lifecycle "zz"`},
	} {
		if !errors.Is(tc.err, teammanager.ErrInvalidStatus) || api.ExitCode(tc.err) != api.ExitInvalid || fmt.Sprint(tc.err) != tc.want {
			t.Errorf("%s with status zz: %v (exit %d), want %q (exit %d)", tc.name, tc.err, api.ExitCode(tc.err), tc.want, api.ExitInvalid)
		}
	}
}

// replacementStrategy registers, once, a strategy named U+FFFD, as a host
// may register one: what a client sends for a byte that is not UTF-8.
var replacementStrategy = sync.OnceValue(func() string {
	s, err := merge.Lookup(merge.NameAdditive)
	if err != nil {
		panic(err)
	}
	merge.Register("\ufffd", s)
	return "\ufffd"
})

// testReplacementCharAsEmbedded: a strategy named U+FFFD is selected by
// that name, and a strategy name or an id that is not UTF-8 (which a
// client sends with U+FFFD for each bad byte) selects nothing and is
// named as given, through a server as in process. Through a server,
// strategy "\xff" selected the U+FFFD strategy (the team was created),
// and a name or strategy with U+FFFD was named "\xff" in the message
// when an id was not UTF-8.
func testReplacementCharAsEmbedded(t *testing.T, tm api.TeamManager) {
	fffd := replacementStrategy()
	team, err := tm.CreateTeam(ctx, teammanager.TeamConfig{Name: "x", Strategy: fffd, Members: members("a")})
	if err != nil || team.Strategy != fffd {
		t.Fatalf("strategy %q: %q, %v", fffd, team.Strategy, err)
	}
	known := strings.Join(merge.Names(), ", ")
	for _, tc := range []struct {
		name string
		tc   teammanager.TeamConfig
		want string
	}{
		{"strategy not UTF-8", teammanager.TeamConfig{Name: "x", Strategy: "\xff", Members: members("a")},
			`create team "x": invalid team config: merge strategy "\xff": unknown merge strategy (known: ` + known + ")"},
		{"strategy not UTF-8, id too", teammanager.TeamConfig{ID: "\xff", Name: "x", Strategy: "\xff", Members: members("a")},
			`create team "x": invalid team config: id "\xff" must be 1..64 characters of [A-Za-z0-9._@+-]`},
		{"name U+FFFD, agent not UTF-8", teammanager.TeamConfig{Name: "\ufffd", Members: members("\xff")},
			`create team "` + "\ufffd" + `": invalid team config: agent id "\xff" must be 1..64 characters of [A-Za-z0-9._@+-]`},
		{"strategy U+FFFD unknown, agent not UTF-8", teammanager.TeamConfig{Name: "x", Strategy: "a\ufffd", Members: members("\xff")},
			`create team "x": invalid team config: merge strategy "a` + "\ufffd" + `": unknown merge strategy (known: ` + known + ")"},
		{"strategy U+FFFD, tie-breaker not UTF-8", teammanager.TeamConfig{Name: "x", Strategy: fffd, Members: members("a"), TieBreaker: "\xff"},
			`create team "x": invalid team config: tie-breaker "\xff" is not a member`},
	} {
		_, err := tm.CreateTeam(ctx, tc.tc)
		if !errors.Is(err, teammanager.ErrInvalidTeam) || fmt.Sprint(err) != tc.want {
			t.Errorf("%s: %v\nwant %s", tc.name, err, tc.want)
		}
	}
}

// testMalformedFilterTerm: a filter term of Findings or Facts that is no
// well-formed RDF term (an IRI with a space or no scheme, text that is
// not UTF-8, a bad language tag or datatype, a blank node of no label)
// is invalid input (cortex.ErrInvalidArgument, exit 7) with the Manager's
// message, after the team and the agent of the filter are looked up,
// through a server as in process. Embedded, Findings matched nothing;
// through a server both calls were a syntax error (exit 5) before the
// team was looked up, or sent the term with U+FFFD and matched nothing.
func testMalformedFilterTerm(t *testing.T, tm api.TeamManager) {
	team := crew(t, tm)
	rdf := "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	for _, v := range []quad.Value{
		quad.IRI("a b"), quad.IRI("rel"), quad.IRI("http://x/\xff"), quad.String("\xff"),
		quad.LangString{Value: "x", Lang: "1 2"}, quad.TypedString{Value: "x", Type: "bad type"},
		quad.TypedString{Value: "x", Type: quad.IRI(rdf + "langString")}, quad.BNode(""),
	} {
		_, nerr := cortex.NormalizeTerm(v)
		if nerr == nil {
			t.Fatalf("%#v is well-formed", v)
		}
		for _, op := range []string{"findings", "facts"} {
			call := func(team, agent string, s, p quad.Value) error {
				if op == "findings" {
					return errOf(tm.Findings(ctx, team, teammanager.FindingFilter{Agent: agent, Subject: s, Predicate: p}))
				}
				return errOf(tm.Facts(ctx, team, teammanager.FactFilter{Agent: agent, Subject: s, Predicate: p}))
			}
			want := fmt.Sprintf("team %s: %s: invalid argument: %v", team, op, nerr)
			for _, tc := range []struct {
				name string
				err  error
			}{
				{"subject", call(team, "", v, nil)},
				{"predicate", call(team, "bob", nil, v)},
				{"subject and a predicate", call(team, "", v, iri("p"))},
				{"a subject and predicate", call(team, "", iri("s"), v)},
			} {
				if !errors.Is(tc.err, cortex.ErrInvalidArgument) || api.ExitCode(tc.err) != api.ExitInvalid || fmt.Sprint(tc.err) != want {
					t.Errorf("%s with %s %#v: %v (exit %d), want %q (exit %d)", op, tc.name, v, tc.err, api.ExitCode(tc.err), want, api.ExitInvalid)
				}
			}
			// The team first, then the filter's agent, as in process.
			if err := call("nope", "", v, nil); !errors.Is(err, teammanager.ErrUnknownTeam) || api.ExitCode(err) != api.ExitNotFound {
				t.Errorf("%s of an unknown team with subject %#v: %v (exit %d), want an error matching ErrUnknownTeam (exit %d)", op, v, err, api.ExitCode(err), api.ExitNotFound)
			}
			if err := call(team, "zed", nil, v); !errors.Is(err, teammanager.ErrUnknownAgent) || api.ExitCode(err) != api.ExitNotFound {
				t.Errorf("%s of an unknown agent with predicate %#v: %v (exit %d), want an error matching ErrUnknownAgent (exit %d)", op, v, err, api.ExitCode(err), api.ExitNotFound)
			}
		}
	}
}

// testResolutionChecksAsEmbedded: a resolution the Manager refuses
// whatever the team fails with its error, in its order of checks (the
// resolver, then each object), through a server as in process: with a
// malformed resolver and a malformed object, the client named the object.
func testResolutionChecksAsEmbedded(t *testing.T, tm api.TeamManager) {
	team := crew(t, tm)
	const c = "c0123456789abcdef0123456789abcdef"
	for _, tc := range []struct {
		team, by string
		objects  []quad.Value
		want     string
	}{
		{team, "a b", []quad.Value{quad.IRI("rel")}, `resolve conflict ` + c + `: invalid resolution: resolver "a b" must be 1..64 characters of [A-Za-z0-9._@+-]`},
		{"nope", "a b", []quad.Value{quad.IRI("rel")}, `resolve conflict ` + c + `: invalid resolution: resolver "a b" must be 1..64 characters of [A-Za-z0-9._@+-]`},
		{team, "ann", []quad.Value{quad.String("o"), quad.IRI("rel")}, `resolve conflict ` + c + `: invalid resolution: IRI "rel" is not absolute (no scheme)`},
		{"nope", "ann", []quad.Value{nil}, `resolve conflict ` + c + `: invalid resolution: missing term`},
	} {
		_, err := tm.ResolveConflict(ctx, tc.team, c, tc.objects, tc.by)
		if !errors.Is(err, teammanager.ErrInvalidResolution) || api.ExitCode(err) != api.ExitInvalid || fmt.Sprint(err) != tc.want {
			t.Errorf("ResolveConflict of team %s by %q to %v: %v (exit %d), want %q (exit %d)", tc.team, tc.by, tc.objects, err, api.ExitCode(err), tc.want, api.ExitInvalid)
		}
	}
}

// testMarkNoMessagesChecksAsEmbedded: MarkMessages of no ids marks
// nothing, but looks the team and the member up, through a server as in
// process (the client sent nothing and answered nil).
func testMarkNoMessagesChecksAsEmbedded(t *testing.T, tm api.TeamManager) {
	team := crew(t, tm)
	for _, tc := range []struct {
		team, agent string
		want        error
		code        int
	}{
		{"nope", "bob", teammanager.ErrUnknownTeam, api.ExitNotFound},
		{team, "zed", teammanager.ErrUnknownAgent, api.ExitNotFound},
		{team, "a b", teammanager.ErrInvalidID, api.ExitInvalid},
	} {
		if err := tm.MarkMessages(ctx, tc.team, tc.agent, teammanager.MsgRead); !errors.Is(err, tc.want) || api.ExitCode(err) != tc.code {
			t.Errorf("MarkMessages of no ids of team %s, agent %q: %v (exit %d), want an error matching %v (exit %d)", tc.team, tc.agent, err, api.ExitCode(err), tc.want, tc.code)
		}
	}
	if err := tm.MarkMessages(ctx, team, "bob", teammanager.MsgArchived); err != nil {
		t.Errorf("MarkMessages of no ids: %v", err)
	}
}

// testBlankNodeFilters: a blank node as the subject or the predicate of
// a Findings or Facts filter matches what has it (no finding's predicate
// is one: nothing), through a server as in process. Facts of a blank
// predicate failed as an internal error (exit 1): its query bound the
// blank node, which a query takes for a variable.
func testBlankNodeFilters(t *testing.T, tm api.TeamManager) {
	team := crew(t, tm)
	status(t, tm, team, "bob", teammanager.Running, "")
	b := quad.BNode("b1")
	must[string](t, "finding")(tm.AddFinding(ctx, team, "bob", teammanager.Finding{Subject: b, Predicate: iri("p"), Object: quad.String("o")}))
	status(t, tm, team, "bob", teammanager.Completed, "")
	must[teammanager.MergeReport](t, "merge")(tm.MergeTeamResults(ctx, team))
	for _, tc := range []struct {
		name string
		s, p quad.Value
		want int
	}{
		{"subject", b, nil, 1},
		{"predicate", nil, b, 0},
		{"both", b, b, 0},
	} {
		if fs, err := tm.Findings(ctx, team, teammanager.FindingFilter{Subject: tc.s, Predicate: tc.p}); err != nil || len(fs) != tc.want {
			t.Errorf("Findings of a blank %s: %d, %v (exit %d), want %d", tc.name, len(fs), err, api.ExitCode(err), tc.want)
		}
		if fs, err := tm.Facts(ctx, team, teammanager.FactFilter{Subject: tc.s, Predicate: tc.p}); err != nil || len(fs) != tc.want {
			t.Errorf("Facts of a blank %s: %d, %v (exit %d), want %d", tc.name, len(fs), err, api.ExitCode(err), tc.want)
		}
	}
}
