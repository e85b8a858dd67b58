package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/teammanager"
)

// plansCommand is cortexctl plans: the lead's plan of a team and its
// approval.
func plansCommand(e *env) *cli.Command {
	byFlag := func(usage string) cli.Flag { return &cli.StringFlag{Name: "by", Usage: usage} }
	return &cli.Command{
		Name:  "plans",
		Usage: "draft, submit, approve or reject and show a team's plan",
		Description: `The lead drafts the team's plan (a title and ordered steps) and submits it;
the approver (the board's planApprover, else the operator) approves or
rejects it with feedback; every revision is kept. With the board's
planApproval on, no task is claimed or dispatched before a plan is approved,
and every task handed out carries the plan in force.

Example:
   cortexctl plans draft TEAM --by lead --title "ship v2" --step "design | the API" --step implement
   cortexctl plans submit TEAM --by lead
   cortexctl plans approve TEAM
   cortexctl plans reject TEAM --feedback "split the second step"
   cortexctl plans get TEAM --json`,
		Subcommands: []*cli.Command{
			{
				Name: "draft", Usage: "draft a revision of the plan (the lead)", ArgsUsage: "TEAM",
				Flags: withOutput(byFlag("the lead drafting it (required)"),
					&cli.StringFlag{Name: "title", Usage: "the plan's title (required)"},
					&cli.StringSliceFlag{Name: "step", Usage: `a step, in order: "TITLE" or "TITLE | DESCRIPTION", repeatable (at least one)`}),
				Action: func(c *cli.Context) error {
					return planAction(c, e, "draft", needBy, func(m api.TeamPlans, team string) (teammanager.Plan, error) {
						np := teammanager.NewPlan{Title: c.String("title")}
						for _, s := range c.StringSlice("step") {
							title, desc, _ := strings.Cut(s, "|")
							np.Steps = append(np.Steps, teammanager.PlanStep{Title: strings.TrimSpace(title), Description: strings.TrimSpace(desc)})
						}
						return m.DraftPlan(c.Context, team, c.String("by"), np)
					})
				},
			},
			{
				Name: "submit", Usage: "submit the draft for review (the lead)", ArgsUsage: "TEAM",
				Flags: withOutput(byFlag("the lead (required)")),
				Action: func(c *cli.Context) error {
					return planAction(c, e, "submit", needBy, func(m api.TeamPlans, team string) (teammanager.Plan, error) {
						return m.SubmitPlan(c.Context, team, c.String("by"))
					})
				},
			},
			{
				Name: "approve", Usage: "approve the plan pending review (the approver)", ArgsUsage: "TEAM",
				Flags: withOutput(byFlag("the approver (default: the operator)"), &cli.StringFlag{Name: "feedback", Usage: "a note"}),
				Action: func(c *cli.Context) error {
					return planAction(c, e, "approve", nil, func(m api.TeamPlans, team string) (teammanager.Plan, error) {
						return m.ReviewPlan(c.Context, team, approver(c), true, c.String("feedback"))
					})
				},
			},
			{
				Name: "reject", Usage: "reject the plan pending review, with feedback (the approver)", ArgsUsage: "TEAM",
				Flags: withOutput(byFlag("the approver (default: the operator)"), &cli.StringFlag{Name: "feedback", Usage: "why (required)"}),
				Action: func(c *cli.Context) error {
					return planAction(c, e, "reject", needFeedback, func(m api.TeamPlans, team string) (teammanager.Plan, error) {
						return m.ReviewPlan(c.Context, team, approver(c), false, c.String("feedback"))
					})
				},
			},
			{
				Name: "get", Usage: "show a revision of the plan (default: the latest)", ArgsUsage: "TEAM",
				Flags: withOutput(&cli.IntFlag{Name: "revision", Usage: "the revision (from 1)"}),
				Action: func(c *cli.Context) error {
					return planAction(c, e, "get", func(c *cli.Context, _ string) error {
						if c.IsSet("revision") && c.Int("revision") < 1 {
							return fmt.Errorf("%w: --revision %d: want 1 or more", errInvalid, c.Int("revision"))
						}
						return nil
					}, func(m api.TeamPlans, team string) (teammanager.Plan, error) {
						return m.GetPlan(c.Context, team, c.Int("revision"))
					})
				},
			},
			{
				Name: "list", Usage: "list every revision of the plan, oldest first", ArgsUsage: "TEAM",
				Flags: withOutput(),
				Action: func(c *cli.Context) error {
					team, err := planArgs(c, "list")
					if err != nil {
						return err
					}
					m, err := e.plans(c, accessRead)
					if err != nil {
						return err
					}
					ps, err := m.PlanRevisions(c.Context, team)
					if err != nil {
						return err
					}
					if ps == nil {
						ps = []teammanager.Plan{}
					}
					return printResult(c, e.stdout, ps, func() error {
						t := newTable(e.stdout, false, "REVISION", "STATE", "TITLE", "STEPS", "REVIEWED BY", "UPDATED")
						for _, p := range ps {
							t.row(fmt.Sprint(p.Revision), string(p.State), p.Title, fmt.Sprint(len(p.Steps)), p.ReviewedBy, p.UpdatedAt.Format(time.RFC3339))
						}
						return t.flush()
					})
				},
			},
		},
	}
}

func approver(c *cli.Context) string {
	if by := c.String("by"); by != "" {
		return by
	}
	return teammanager.Operator
}

func planArgs(c *cli.Context, verb string) (string, error) {
	if _, err := outputFormat(c); err != nil {
		return "", err
	}
	args, err := wantArgs(c, fmt.Sprintf("plans %s: want TEAM", verb), 1, 1)
	if err != nil {
		return "", err
	}
	return args[0], nil
}

// needBy is the check of plans draft and submit: the lead acting, --by.
func needBy(c *cli.Context, verb string) error {
	if c.String("by") == "" {
		return usagef("plans %s: --by LEAD is required", verb)
	}
	return nil
}

// needFeedback is the check of plans reject: a rejection says why.
func needFeedback(c *cli.Context, verb string) error {
	if strings.TrimSpace(c.String("feedback")) == "" {
		return fmt.Errorf("%w: plans %s: a rejection needs --feedback", errInvalid, verb)
	}
	return nil
}

// planAction runs a plans subcommand that answers one revision and prints
// it. check (nil: none) reads the command's flags before the store is
// opened.
func planAction(c *cli.Context, e *env, verb string, check func(c *cli.Context, verb string) error, fn func(m api.TeamPlans, team string) (teammanager.Plan, error)) error {
	team, err := planArgs(c, verb)
	if err != nil {
		return err
	}
	if check != nil {
		if err := check(c, verb); err != nil {
			return err
		}
	}
	a := accessWrite
	if verb == "get" {
		a = accessRead
	}
	m, err := e.plans(c, a)
	if err != nil {
		return err
	}
	p, err := fn(m, team)
	if err != nil {
		return err
	}
	return printResult(c, e.stdout, p, func() error {
		fmt.Fprintf(e.stdout, "plan of team %s, revision %d: %s (%s)\n", p.Team, p.Revision, cell(p.Title), p.State)
		if p.Feedback != "" {
			fmt.Fprintf(e.stdout, "feedback from %s: %s\n", p.ReviewedBy, cell(p.Feedback))
		}
		for i, s := range p.Steps {
			fmt.Fprintf(e.stdout, "%d. %s%s\n", i+1, cell(s.Title), cell(prefixed(" — ", s.Description)))
		}
		return nil
	})
}
