package main

import "testing"

// TestPlansDraft_MalformedStep: a --step that is not "TITLE" or "TITLE |
// DESCRIPTION" (no title before "|", nothing after it, white space only)
// is a usage error (exit 2) quoting it and saying what is missing,
// checked before the store is opened (another process holds it here)
// and writing nothing; `--step ' | d'` exited 7, after opening the store,
// with "invalid plan: step 1 has no title", and `--step 'a |'` drafted a
// step without the description it announced.
func TestPlansDraft_MalformedStep(t *testing.T) {
	const want = `want "TITLE" or "TITLE | DESCRIPTION"` + "\n"
	draft := func(steps ...string) []string {
		args := []string{"plans", "draft", "crew", "--by", "ann", "--title", "t"}
		for _, s := range steps {
			args = append(args, "--step", s)
		}
		return args
	}
	checkedBeforeOpening(t, []argsCase{
		{draft(" | d"), exitUsage, `cortexctl: usage: plans draft: --step " | d": no TITLE before "|": ` + want},
		{draft("|"), exitUsage, `cortexctl: usage: plans draft: --step "|": no TITLE before "|": ` + want},
		{draft("|d|e"), exitUsage, `cortexctl: usage: plans draft: --step "|d|e": no TITLE before "|": ` + want},
		{draft("design", "a | "), exitUsage, `cortexctl: usage: plans draft: --step "a | ": no DESCRIPTION after "|": ` + want},
		{draft("a |\t"), exitUsage, `cortexctl: usage: plans draft: --step "a |\t": no DESCRIPTION after "|": ` + want},
		{draft(" "), exitUsage, `cortexctl: usage: plans draft: --step " " is blank: ` + want},
		{draft("design", "\n"), exitUsage, `cortexctl: usage: plans draft: --step "\n" is blank: ` + want},
	})
}
