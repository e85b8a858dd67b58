package teammanager_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/cortexgraph/cortex/teammanager"
)

var errLookup = errors.New("definitions unreadable")

// delegationFixture is a crew (lead, a, b, c; members may create tasks)
// whose Manager has rules: the lead delegates to a (named by its
// definition "crew/a") and b; a may not delegate; b takes work from the
// lead only; c and d have no definition, and d's lookup fails while
// *failD.
func delegationFixture(t *testing.T, failD *bool) (*fixture, string) {
	t.Helper()
	rules := map[string]teammanager.Delegation{
		"lead": {AllowDelegation: true, CanDelegateTo: []string{"crew/a", "b", "d"}},
		"a":    {},
		"b":    {AllowDelegation: true, CanReceiveFrom: []string{teammanager.LeadAgent}},
	}
	lookup := func(_ context.Context, team, agent string) (teammanager.Delegation, bool, error) {
		if team != "crew" {
			return teammanager.Delegation{}, false, fmt.Errorf("team %q", team)
		}
		if agent == "d" && *failD {
			return teammanager.Delegation{}, false, errLookup
		}
		r, ok := rules[agent]
		return r, ok, nil
	}
	f := newFixture(t, teammanager.DefaultConfig().WithAutoMerge(false).WithDelegation(lookup))
	ms := append([]teammanager.MemberConfig{{AgentID: "lead", Role: "lead"}}, members("a", "b", "c", "d")...)
	team := f.create(t, teammanager.TeamConfig{ID: "crew", Name: "crew", Members: ms, Timeout: -1}).ID
	if _, err := f.m.ConfigureBoard(ctx, team, teammanager.BoardSettings{AllowRequests: true, RequireReview: true}); err != nil {
		t.Fatal(err)
	}
	return f, team
}

// TestDelegation_Rules: the rules of agent definitions are enforced, one
// by one, on delegate_work messages and on task assignment; a refusal is a
// *DelegationError matching ErrNotAllowed and writes nothing.
func TestDelegation_Rules(t *testing.T) {
	failD := false
	f, team := delegationFixture(t, &failD)
	pre := mustTask(t, f, team, "lead", teammanager.NewTask{Subject: "unassigned"})
	send := func(from string, typ teammanager.MessageType, to ...string) error {
		_, err := f.m.SendMessage(ctx, team, from, teammanager.OutMessage{Type: typ, To: to, Body: "do it"})
		return err
	}
	create := func(by, assignee string) error {
		_, err := f.m.CreateTask(ctx, team, by, teammanager.NewTask{Subject: "work", Assignee: assignee})
		return err
	}
	reassign := func(by, assignee string) error {
		_, err := f.m.UpdateTask(ctx, team, by, pre.ID, teammanager.TaskUpdate{Assignee: &assignee})
		return err
	}
	const (
		ok = iota
		refused
		lookupFails
	)
	cases := []struct {
		name string
		call func() error
		want int
	}{
		{"mail: lead to a, named by its definition's path", func() error { return send("lead", teammanager.MsgDelegateWork, "a") }, ok},
		{"mail: lead to b, who takes work from the lead", func() error { return send("lead", teammanager.MsgDelegateWork, "b") }, ok},
		{"mail: lead to c, not in can_delegate_to", func() error { return send("lead", teammanager.MsgDelegateWork, "c") }, refused},
		{"mail: a, without allow_delegation", func() error { return send("a", teammanager.MsgDelegateWork, "c") }, refused},
		{"mail: c (no definition) to b, who takes work from the lead only", func() error { return send("c", teammanager.MsgDelegateWork, "b") }, refused},
		{"mail: c (no definition) to a", func() error { return send("c", teammanager.MsgDelegateWork, "a") }, ok},
		{"mail: a broadcast by the lead reaches c too", func() error { return send("lead", teammanager.MsgDelegateWork) }, refused},
		{"mail: a question is no delegation", func() error { return send("a", teammanager.MsgAskQuestion, "b") }, ok},
		{"mail: the lookup fails", func() error {
			failD = true
			defer func() { failD = false }()
			return send("lead", teammanager.MsgDelegateWork, "d")
		}, lookupFails},
		{"task: the lead assigns b", func() error { return create("lead", "b") }, ok},
		{"task: the lead assigns c", func() error { return create("lead", "c") }, refused},
		{"task: a assigns b", func() error { return create("a", "b") }, refused},
		{"task: a assigns itself", func() error { return create("a", "a") }, ok},
		{"task: c assigns b", func() error { return create("c", "b") }, refused},
		{"task: unassigned", func() error { return create("a", "") }, ok},
		{"task: the lead reassigns to c", func() error { return reassign("lead", "c") }, refused},
		{"task: the lead reassigns to a", func() error { return reassign("lead", "a") }, ok},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			msgs, _ := f.m.History(ctx, team, 0)
			tasks, _ := f.m.ListTasks(ctx, team, teammanager.TaskFilter{})
			before, _ := f.m.GetTask(ctx, team, pre.ID)
			err := c.call()
			var de *teammanager.DelegationError
			switch c.want {
			case ok:
				if err != nil {
					t.Fatal(err)
				}
				return
			case refused:
				if !errors.Is(err, teammanager.ErrNotAllowed) || !errors.As(err, &de) || de.Reason == "" {
					t.Fatalf("err = %v, want a *DelegationError", err)
				}
			case lookupFails:
				if !errors.Is(err, errLookup) {
					t.Fatalf("err = %v, want the lookup's", err)
				}
			}
			msgs2, _ := f.m.History(ctx, team, 0)
			tasks2, _ := f.m.ListTasks(ctx, team, teammanager.TaskFilter{})
			after, _ := f.m.GetTask(ctx, team, pre.ID)
			if len(msgs2) != len(msgs) || len(tasks2) != len(tasks) || after.Assignee != before.Assignee {
				t.Fatalf("a refused call wrote: %d→%d messages, %d→%d tasks, assignee %q→%q",
					len(msgs), len(msgs2), len(tasks), len(tasks2), before.Assignee, after.Assignee)
			}
		})
	}
}

// TestDelegation_NoRules: without WithDelegation nothing is checked.
func TestDelegation_NoRules(t *testing.T) {
	f, team := boardFixture(t, teammanager.BoardSettings{AllowRequests: true})
	if _, err := f.m.SendMessage(ctx, team, "a", teammanager.OutMessage{Type: teammanager.MsgDelegateWork, Body: "all of you"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.CreateTask(ctx, team, "a", teammanager.NewTask{Subject: "for b", Assignee: "b"}); err != nil {
		t.Fatal(err)
	}
}
