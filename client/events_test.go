package client_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/client"
	"github.com/cortexgraph/cortex/config"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/server"
	"github.com/cortexgraph/cortex/teammanager"
)

// subscriber is the events API of the Manager, which the Client must have
// too (the same stream in Go, embedded and through a server).
type subscriber interface {
	LastEventID(ctx context.Context) (uint64, error)
	Subscribe(ctx context.Context, afterID uint64) (iter.Seq2[teammanager.Event, error], error)
}

// eventSummary is what the two backends must agree on of an event: its
// id, type and team and the main fields of its payload.
func eventSummary(ev teammanager.Event) string {
	s := fmt.Sprintf("%d %s %s", ev.ID, ev.Type, ev.Team)
	switch {
	case ev.TeamState != nil:
		s += fmt.Sprintf(" team=%s members=%d", ev.TeamState.Status, len(ev.TeamState.Members))
	case ev.Member != nil:
		s += fmt.Sprintf(" member=%s:%s team=%s merge=%v", ev.Member.Member.AgentID, ev.Member.Member.Status, ev.Member.TeamStatus, ev.Member.Merge != nil)
	case ev.Merge != nil:
		s += fmt.Sprintf(" merge kept=%d conflicts=%d id=%v facts=%d", ev.Merge.Kept, ev.Merge.Report.Conflicts, ev.MergeID == ev.Merge.MergeID && ev.MergeID != "", len(ev.Merge.Facts))
	case ev.Lost != nil:
		s += fmt.Sprintf(" lost=%+v", *ev.Lost)
	}
	for _, f := range ev.Findings {
		s += fmt.Sprintf(" finding=%s:%s:%v", f.Agent, f.Object, !f.AssertedAt.IsZero())
	}
	for _, c := range ev.Conflicts {
		s += fmt.Sprintf(" conflict=%s:%s:%d:%v:%v", c.Subject, c.Predicate, len(c.Candidates), c.Resolved, c.Chosen)
	}
	if ev.Time.IsZero() != (ev.Type == teammanager.EventsLost) {
		s += " time?"
	}
	return s
}

// testEvents: the events of a team's life, read with Subscribe from
// LastEventID, come in order with their payloads; a subscription from a
// later id resumes after it; one past the last event is refused; one whose
// context ends yields the context's error and stops.
func testEvents(t *testing.T, tm api.TeamManager) {
	s, ok := tm.(subscriber)
	if !ok {
		t.Fatalf("%T has no Subscribe", tm)
	}
	create(t, tm, teammanager.TeamConfig{ID: "t", Name: "n", Strategy: merge.NameConflictFlag, Members: members("a", "b")})
	last, err := s.LastEventID(ctx)
	if err != nil || last != 1 {
		t.Fatalf("LastEventID after a team: %d, %v", last, err)
	}
	if _, err := s.Subscribe(ctx, last+1); !errors.Is(err, teammanager.ErrInvalidEventID) {
		t.Fatalf("Subscribe past the last event: %v, want ErrInvalidEventID", err)
	}
	c, cancel := context.WithCancel(ctx)
	defer cancel()
	seq, err := s.Subscribe(c, 0)
	if err != nil {
		t.Fatal(err)
	}
	status(t, tm, "t", "a", teammanager.Running, "")
	status(t, tm, "t", "b", teammanager.Running, "")
	if _, err := tm.AddFindings(ctx, "t", "a", []teammanager.Finding{
		{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("x\ny\r\nid: 99\r")},
		{Subject: iri("s2"), Predicate: iri("p"), Object: quad.String("one")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := tm.AddFinding(ctx, "t", "b", teammanager.Finding{Subject: iri("s2"), Predicate: iri("p"), Object: quad.String("two")}); err != nil {
		t.Fatal(err)
	}
	status(t, tm, "t", "a", teammanager.Completed, "")
	status(t, tm, "t", "b", teammanager.Completed, "")
	cs, err := tm.Conflicts(ctx, "t")
	if err != nil || len(cs) != 1 {
		t.Fatalf("conflicts: %v, %v", cs, err)
	}
	if _, err := tm.ResolveConflict(ctx, "t", cs[0].ID, []quad.Value{quad.String("two")}, "lead"); err != nil {
		t.Fatal(err)
	}
	if err := tm.DeleteTeam(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	var got []string
	for ev, err := range seq {
		if err != nil {
			t.Fatalf("after %v: %v", got, err)
		}
		got = append(got, eventSummary(ev))
		if ev.Type == teammanager.EventTeamDeleted {
			break
		}
	}
	want := []string{
		"1 team.created t team=pending members=2",
		"2 member.status t member=a:running team=running merge=false",
		"3 team.status t team=running members=0",
		"4 member.status t member=b:running team=running merge=false",
		`5 findings.added t finding=a:"x\ny\r\nid: 99\r":true finding=a:"one":true`,
		`6 findings.added t finding=b:"two":true`,
		"7 member.status t member=a:completed team=running merge=false",
		"8 member.status t member=b:completed team=completed merge=false",
		"9 team.status t team=completed members=0",
		`10 conflict.detected t conflict=<http://example.org/s2>:<http://example.org/p>:2:false:[]`,
		"11 merge.completed t merge kept=1 conflicts=1 id=true facts=0",
		`12 conflict.resolved t conflict=<http://example.org/s2>:<http://example.org/p>:2:true:["two"]`,
		"13 merge.completed t merge kept=2 conflicts=0 id=true facts=0",
		"14 team.deleted t",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Resuming after event 10, twice over the same sequence.
	seq, err = s.Subscribe(c, 10)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		for ev, err := range seq {
			if err != nil || ev.ID != 11 {
				t.Fatalf("first event after 10: %d, %v", ev.ID, err)
			}
			break
		}
	}
	// Waiting for events to come: the context's end ends the sequence.
	seq, err = s.Subscribe(c, 14)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	n := 0
	for _, err := range seq {
		if n++; !errors.Is(err, context.Canceled) {
			t.Fatalf("after the context ended: %v, want context.Canceled", err)
		}
	}
	if n != 1 {
		t.Fatalf("%d values after the context ended, want its error only", n)
	}
}

// TestClient_Subscribe_NamespaceDeleted: a subscription through a server
// ends when the namespace is deleted with an error matching
// cortex.ErrNoNamespace, as the Manager's does.
func TestClient_Subscribe_NamespaceDeleted(t *testing.T) {
	c := newClient(t, startServer(t))
	create(t, c, teammanager.TeamConfig{ID: "t", Name: "n", Members: members("a")})
	seq, err := c.Subscribe(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []uint64
	for ev, err := range seq {
		if err != nil {
			if !errors.Is(err, cortex.ErrNoNamespace) || !errors.Is(err, cortex.ErrNotFound) || len(got) != 1 {
				t.Fatalf("after events %v: %v, want cortex.ErrNoNamespace", got, err)
			}
			break
		}
		got = append(got, ev.ID)
		if _, err := c.DeleteNamespace(ctx, "acme"); err != nil {
			t.Fatal(err)
		}
	}
}

// TestClient_Subscribe_FromEmptyLogReportsLoss: a subscription made while
// the namespace has no event yet (afterID 0 = LastEventID()) whose events
// retention removes before it reads them gets events.lost first, through
// a server as embedded (teammanager's TestManager_Subscribe_FromEmptyLogReportsLoss).
func TestClient_Subscribe_FromEmptyLogReportsLoss(t *testing.T) {
	cfg := config.Default()
	cfg.Teams.EventMax = 2
	s := cortextest.NewStore(t)
	sock := filepath.Join(t.TempDir(), "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- server.New(s, server.DefaultOptions().WithConfig(cfg)).Serve(sctx, l) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	c := newClient(t, sock)
	// The namespace, without events.
	if _, err := c.Import(ctx, strings.NewReader("<http://example.org/s> <http://example.org/p> <http://example.org/o> .\n"), client.ImportOptions{Format: "nt"}); err != nil {
		t.Fatal(err)
	}
	seq, err := c.Subscribe(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		create(t, c, teammanager.TeamConfig{ID: fmt.Sprint("t", i), Name: "n", Members: members("a")})
	}
	var got []teammanager.Event
	for ev, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		if got = append(got, ev); ev.ID >= 4 {
			break
		}
	}
	if ev := got[0]; ev.Type != teammanager.EventsLost || ev.ID != 3 || *ev.Lost != (teammanager.LostEvents{After: 0, First: 4}) {
		t.Fatalf("first event of a subscription from an empty log, events 1 to 3 removed: %d %s %+v", ev.ID, ev.Type, ev.Lost)
	}
}

// TestClient_Subscribe_TokenRevoked: a subscription whose token is revoked
// while it reads ends with the error a request with that token gets
// (api.ErrDenied, exit code 10, HTTP 401), not as a server gone away
// (api.ErrUnavailable, which says to subscribe again); a subscription of
// another token goes on.
func TestClient_Subscribe_TokenRevoked(t *testing.T) {
	s := cortextest.NewStore(t)
	f := server.OpenTokens(filepath.Join(t.TempDir(), "tokens.json"))
	writeTok, _, err := f.Create(ctx, "acme", server.RoleWrite, 0)
	if err != nil {
		t.Fatal(err)
	}
	doomedTok, doomed, err := f.Create(ctx, "acme", server.RoleRead, 0)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- server.New(s, server.DefaultOptions().WithTokens(f)).Serve(sctx, l) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	with := func(tok string) *client.Client {
		c, err := client.New("http://"+l.Addr().String(), client.DefaultOptions().WithNamespace("acme").WithToken(tok))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	w, r := with(writeTok), with(doomedTok)
	create(t, w, teammanager.TeamConfig{ID: "t", Name: "n", Members: members("a")})
	seq, err := r.Subscribe(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []uint64
	for ev, err := range seq {
		if err != nil {
			var ce *client.Error
			if !errors.Is(err, api.ErrDenied) || errors.Is(err, api.ErrUnavailable) || api.ExitCode(err) != api.ExitDenied ||
				!errors.As(err, &ce) || ce.Code != 401 || !strings.Contains(err.Error(), "revoked") || len(got) != 1 {
				t.Fatalf("after events %v: %v (exit %d), want the error of a revoked token (api.ErrDenied, exit %d, 401)", got, err, api.ExitCode(err), api.ExitDenied)
			}
			break
		}
		got = append(got, ev.ID)
		if _, err := server.OpenTokens(f.Path()).Revoke(ctx, "acme", doomed.ID); err != nil {
			t.Fatal(err)
		}
	}
	// A request with it gets the same.
	if _, err := r.ListTeams(ctx, teammanager.TeamFilter{}); !errors.Is(err, api.ErrDenied) || api.ExitCode(err) != api.ExitDenied {
		t.Fatalf("a request with the revoked token: %v", err)
	}
}

// TestSubscribe_NoNamespace: the events of a namespace that does not
// exist are read nowhere and create nothing, in process as through a
// server: the embedded Manager of a read-only store (which cannot create
// the namespace New creates otherwise) and the client's LastEventID and
// Subscribe fail at once with an error matching cortex.ErrNoNamespace
// (exit 3), as the client's ListTeams does. (Through a server LastEventID
// and Subscribe failed with an error that matched api.ErrNotFound only,
// and the client's doc said that LastEventID answered 0.)
func TestSubscribe_NoNamespace(t *testing.T) {
	noNamespace := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, cortex.ErrNoNamespace) || !errors.Is(err, cortex.ErrNotFound) || api.ExitCode(err) != api.ExitNotFound {
			t.Errorf("%s: %v (exit %d), want an error matching cortex.ErrNoNamespace (exit %d)", what, err, api.ExitCode(err), api.ExitNotFound)
		}
	}
	t.Run("embedded", func(t *testing.T) {
		dir := t.TempDir()
		cortextest.OpenStore(t, dir).Close()
		s := cortextest.OpenStore(t, dir, cortex.DefaultOptions().WithReadOnly(true))
		x, err := namespace.New("acme", namespace.WithBase(config.Default().NamespaceBase("acme")))
		if err != nil {
			t.Fatal(err)
		}
		_, err = teammanager.New(ctx, s, x, teammanager.FromConfig(config.Default().Teams))
		noNamespace("teammanager.New", err)
		if nss, err := s.Namespaces(ctx); err != nil || len(nss) != 0 {
			t.Errorf("namespaces after: %v, %v", nss, err)
		}
	})
	t.Run("remote", func(t *testing.T) {
		c := newClient(t, startServer(t))
		id, err := c.LastEventID(ctx)
		noNamespace("LastEventID", err)
		if id != 0 {
			t.Errorf("LastEventID = %d", id)
		}
		seq, err := c.Subscribe(ctx, 0)
		noNamespace("Subscribe", err)
		if seq != nil {
			t.Errorf("Subscribe returned a sequence beside its error")
		}
		_, err = c.ListTeams(ctx, teammanager.TeamFilter{})
		noNamespace("ListTeams", err)
		if nss, err := c.Namespaces(ctx); err != nil || len(nss) != 0 {
			t.Errorf("namespaces after: %+v, %v", nss, err)
		}
	})
}
