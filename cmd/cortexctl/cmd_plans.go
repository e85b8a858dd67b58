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
		Description: `The lead drafts the team's plan (a title and ordered steps; each draft is a new
revision, a revision's content never changes) and submits it;
the approver (the board's planApprover, else the operator) approves or
rejects it with feedback; every revision is kept. With the board's
planApproval on, no task is claimed or dispatched before a plan is approved,
and every task handed out carries the plan in force.

A review names the revision it reviews (--revision N, as plans get shows
it): approving or rejecting a revision that is no longer the latest (the
lead drafted another since) is refused, exit 4, and nothing is written.

Example:
   cortexctl plans draft TEAM --by lead --title "ship v2" --step "design | the API" --step implement
   cortexctl plans submit TEAM --by lead
   cortexctl plans get TEAM
   cortexctl plans approve TEAM --revision 1
   cortexctl plans reject TEAM --revision 1 --feedback "split the second step"
   cortexctl plans get TEAM --json`,
		Subcommands: []*cli.Command{
			{
				Name: "draft", Usage: "draft a new revision of the plan (the lead)", ArgsUsage: "TEAM",
				Flags: withOutput(byFlag("the lead drafting it (required)"),
					&cli.StringFlag{Name: "title", Usage: "the plan's title (required)"},
					// KeepSpace: a step of white space only is named as given.
					&cli.StringSliceFlag{Name: "step", Usage: `a step, in order: "TITLE" or "TITLE | DESCRIPTION", repeatable (at least one)`, KeepSpace: true}),
				Action: func(c *cli.Context) error {
					return planAction(c, e, "draft", func(c *cli.Context, verb string) error {
						if err := needBy(c, verb); err != nil {
							return err
						}
						switch {
						case !c.IsSet("title"):
							return usagef("plans draft: --title is required: the plan's title")
						case !c.IsSet("step"):
							return usagef("plans draft: --step is required: the plan's steps, in order (at least one)")
						}
						if err := refuseBlank("plans draft", "--title", c.String("title"), "give the plan's title"); err != nil {
							return err
						}
						_, err := planSteps(c)
						return err
					}, func(m api.TeamPlans, team string) (teammanager.Plan, error) {
						steps, _ := planSteps(c) // checked
						return m.DraftPlan(c.Context, team, c.String("by"), teammanager.NewPlan{Title: c.String("title"), Steps: steps})
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
				Name: "approve", Usage: "approve the revision pending review (the approver)", ArgsUsage: "TEAM",
				Flags: withOutput(byFlag("the approver (default: the operator)"), reviewedFlag(), &cli.StringFlag{Name: "feedback", Usage: "a note"}),
				Action: func(c *cli.Context) error {
					return planAction(c, e, "approve", needRevision, func(m api.TeamPlans, team string) (teammanager.Plan, error) {
						return m.ReviewPlan(c.Context, team, approver(c), c.Int("revision"), true, c.String("feedback"))
					})
				},
			},
			{
				Name: "reject", Usage: "reject the revision pending review, with feedback (the approver)", ArgsUsage: "TEAM",
				Flags: withOutput(byFlag("the approver (default: the operator)"), reviewedFlag(), &cli.StringFlag{Name: "feedback", Usage: "why (required)"}),
				Action: func(c *cli.Context) error {
					return planAction(c, e, "reject", func(c *cli.Context, verb string) error {
						if err := needRevision(c, verb); err != nil {
							return err
						}
						return needFeedback(c, "plans "+verb)
					}, func(m api.TeamPlans, team string) (teammanager.Plan, error) {
						return m.ReviewPlan(c.Context, team, approver(c), c.Int("revision"), false, c.String("feedback"))
					})
				},
			},
			{
				Name: "get", Usage: "show a revision of the plan (default: the latest)", ArgsUsage: "TEAM",
				Flags: withOutput(&cli.IntFlag{Name: "revision", Usage: "the revision `N` (from 1)", DefaultText: "the latest"}),
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

// planSteps returns the steps of plans draft's --step values, "TITLE" or
// "TITLE | DESCRIPTION" (each part trimmed), or a usage error (exit 2)
// naming the first value that is none: white space only, no TITLE before
// "|", or no DESCRIPTION after it.
func planSteps(c *cli.Context) ([]teammanager.PlanStep, error) {
	const want = `want "TITLE" or "TITLE | DESCRIPTION"`
	var steps []teammanager.PlanStep
	for _, s := range c.StringSlice("step") {
		title, desc, hasDesc := strings.Cut(s, "|")
		title, desc = strings.TrimSpace(title), strings.TrimSpace(desc)
		switch {
		case strings.TrimSpace(s) == "":
			return nil, usagef("plans draft: --step %q is blank: %s", s, want)
		case title == "":
			return nil, usagef(`plans draft: --step %q: no TITLE before "|": %s`, s, want)
		case hasDesc && desc == "":
			return nil, usagef(`plans draft: --step %q: no DESCRIPTION after "|": %s`, s, want)
		}
		steps = append(steps, teammanager.PlanStep{Title: title, Description: desc})
	}
	return steps, nil
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

// reviewedFlag is the --revision of plans approve and reject: the
// revision the approver read.
func reviewedFlag() cli.Flag {
	return &cli.IntFlag{Name: "revision", Usage: "the revision `N` reviewed, as plans get showed it (required); refused unless it is the latest", DefaultText: "none"}
}

// needRevision is the check of plans approve and reject: the review names
// the revision it reviews, so that a revision submitted since the approver
// read the plan is not approved unseen.
func needRevision(c *cli.Context, verb string) error {
	switch {
	case !c.IsSet("revision"):
		return usagef("plans %s: --revision N is required: the revision reviewed (plans get TEAM shows the latest)", verb)
	case c.Int("revision") < 1:
		return fmt.Errorf("%w: --revision %d: want 1 or more", errInvalid, c.Int("revision"))
	}
	return nil
}

// needFeedback is the check of plans reject and tasks review (cmd, with
// --reject): a rejection says why, in --feedback, required (exit 2 left
// out, as its white space only).
func needFeedback(c *cli.Context, cmd string) error {
	if cmd == "tasks review" && !c.Bool("reject") {
		// An approval's note is optional: blank, it is left out.
		return refuseBlank(cmd, "--feedback", c.String("feedback"), "give a value or leave the option out")
	}
	if !c.IsSet("feedback") {
		return usagef("%s: a rejection needs --feedback (why)", cmd)
	}
	return refuseBlank(cmd, "--feedback", c.String("feedback"), "a rejection says why")
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
