package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
)

// teamCommandArgs returns the arguments of command path (a leaf of the
// app whose first argument is TEAM) for team: well-formed values for the
// others its usage names, and the options it needs to reach the team.
func teamCommandArgs(t *testing.T, path, usage, team string) []string {
	t.Helper()
	args := strings.Fields(path)
	names, _ := argNames(usage)
	for _, name := range names {
		v, ok := map[string]string{
			"TEAM": team, "TASK": "T1", "AGENT": "bob", "MESSAGE": "M1", "SNAPSHOT": "S1",
			"CONFLICT": "c" + strings.Repeat("0", 32), "SUBJECT": "<http://ex/s>", "PREDICATE": "<http://ex/p>",
			"OBJECT": `"o"`, "STATUS": "running", "BODY": "hi", "TEXT": "hi", "REASON": "why", "RESULT": "done",
			"NOTE": "half", "FILE": writeFile(t, "f.nt", "<http://ex/s> <http://ex/p> \"o\" .\n"),
		}[name]
		if !ok {
			t.Fatalf("%s: no value for %s", path, name)
		}
		args = append(args, v)
	}
	flags := map[string][]string{
		"conflicts resolve": {"--none", "--by", "ann"},
		"plans draft":       {"--by", "ann", "--title", "t", "--step", "s"},
		"plans submit":      {"--by", "ann"},
		"plans approve":     {"--revision", "1"},
		"plans reject":      {"--revision", "1", "--feedback", "no"},
		"tasks review":      {"--approve"},
		"tasks update":      {"--priority", "2"},
	}[path]
	args = append(args, flags...)
	if strings.HasPrefix(path, "tasks ") || strings.HasPrefix(path, "mail ") {
		if path != "tasks list" && path != "tasks get" && path != "tasks board" && path != "tasks history" && path != "tasks comments" && path != "mail history" && path != "mail thread" && path != "mail retention" && path != "tasks sweep" && path != "tasks dispatch" {
			args = append(args, "--as", "bob")
		}
	}
	return args
}

// TestCLI_ErrorsNameTheTeamOnce: every command on a team (TEAM its first
// argument) names the team once in its error, for an unknown team (exit
// 3), a disbanded one and a finished one, and an unknown task, message,
// snapshot or agent once: the errors of plans, mail,
// snapshot and most tasks commands named it twice ("team nope: draft
// plan: team "nope": unknown team", "team yak: claim task T1: team yak is
// "completed": team is finished").
func TestCLI_ErrorsNameTheTeamOnce(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	mustCLI(t, dir, "teams", "create", "--id", "zed", "--name", "z", "--member", "ann:lead", "--member", "bob:dev")
	mustCLI(t, dir, "teams", "disband", "zed")
	mustCLI(t, dir, "teams", "create", "--id", "yak", "--name", "y", "--member", "bob")
	mustCLI(t, dir, "teams", "member-status", "yak", "bob", "running")
	mustCLI(t, dir, "teams", "member-status", "yak", "bob", "completed")
	cmds := leafCommands(newApp(&env{}).Commands, nil)
	var paths []string
	for path, c := range cmds {
		if names, _ := argNames(c.ArgsUsage); len(names) > 0 && names[0] == "TEAM" {
			paths = append(paths, path)
		}
	}
	sort.Strings(paths)
	if len(paths) < 40 {
		t.Fatalf("%d commands on a team: the walk missed some", len(paths))
	}
	// An agent that is not a member (or no agent can be), named once.
	for _, as := range []string{"zz", "a b"} {
		for _, args := range [][]string{{"mail", "inbox", "crew"}, {"tasks", "next", "crew"}, {"mail", "read", "crew", "M1"}, {"mail", "send", "crew", "hi"}} {
			args := append(args, "--as", as)
			r := runCLI(t, dir, "", args...)
			if n := strings.Count(r.stderr, as); r.code == exitOK || n != 1 {
				t.Errorf("%q: exit %d, the error names %s %d times: %q", args, r.code, as, n, r.stderr)
			}
		}
	}
	for _, path := range paths {
		for _, tc := range []struct {
			team  string
			codes []int // nil: any
		}{{"nope", []int{exitNotFound}}, {"zed", nil}, {"yak", nil}, {"crew", nil}} {
			args := teamCommandArgs(t, path, cmds[path].ArgsUsage, tc.team)
			t.Run(fmt.Sprintf("%s %s", path, tc.team), func(t *testing.T) {
				r := runCLI(t, dir, "", args...)
				if tc.codes != nil && !slices.Contains(tc.codes, r.code) {
					t.Fatalf("%q: exit %d (want one of %v), stderr %q", args, r.code, tc.codes, r.stderr)
				}
				if n := strings.Count(r.stderr, tc.team); r.code != exitOK && n != 1 {
					t.Fatalf("%q: the error names %s %d times: %q", args, tc.team, n, r.stderr)
				}
				// crew has no task, message or snapshot: each is named once.
				for _, name := range []string{"T1", "M1", "S1", "bob"} {
					if n := strings.Count(r.stderr, name); tc.team == "crew" && n > 1 {
						t.Fatalf("%q: the error names %s %d times: %q", args, name, n, r.stderr)
					}
				}
			})
		}
	}
}
