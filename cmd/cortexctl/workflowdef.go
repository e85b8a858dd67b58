package main

import (
	"fmt"
	"io/fs"
	"os"
	"path"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/fixtures"
	"github.com/cortexgraph/cortex/spec"
	"github.com/cortexgraph/cortex/workflow"
)

// builtinWorkflows are the team files in fixtures/workflows, with the merge
// strategy each is meant to run with.
var builtinWorkflows = []struct{ name, strategy string }{
	{"code-review", "additive"},
	{"feature-dev", "conflict-flag"},
	{"security-review", "additive"},
}

// loadTeamDef reads TEAMDEF with package spec: a team file, a directory of
// definitions holding one team (its agents' definitions go to the steps),
// else the name of a built-in workflow. It returns the definition, the
// strategy a built-in workflow runs with ("" otherwise) and the problems
// found (legacy forms, unknown keys; on error, every error too, as defs
// validate lists them); invalid definitions fail with spec.ErrInvalid
// (exit 7).
func loadTeamDef(arg string) (workflow.Def, string, spec.Report, error) {
	team, agents, strategy, rep, err := readTeamDef(arg)
	if err == nil {
		err = rep.Err()
	}
	if err != nil {
		return workflow.Def{}, "", rep, err
	}
	d, err := workflow.FromSpec(team, agents)
	return d, strategy, rep, err
}

func readTeamDef(arg string) (*spec.Team, []*spec.Agent, string, spec.Report, error) {
	fi, err := os.Stat(arg)
	switch {
	case err == nil && fi.IsDir():
		set, rep, err := spec.Load([]string{arg}, spec.Options{})
		if err != nil || rep.Errors() > 0 {
			return nil, nil, "", rep, err
		}
		if teams := set.Teams(); len(teams) != 1 {
			return nil, nil, "", rep, fmt.Errorf("%w: %s holds %d team definitions, want one", api.ErrInvalid, arg, len(teams))
		}
		return set.Teams()[0], set.Agents(), "", rep, nil
	case err == nil:
		files, err := spec.ReadFiles([]string{arg})
		if err != nil {
			return nil, nil, "", spec.Report{}, err
		}
		t, rep := spec.ParseTeam(arg, []byte(files[0].Data), spec.Options{})
		return t, nil, "", rep, nil
	case !os.IsNotExist(err):
		return nil, nil, "", spec.Report{}, err
	}
	for _, b := range builtinWorkflows {
		if b.name == arg {
			file := path.Join("workflows", b.name+".json")
			data, err := fs.ReadFile(fixtures.FS, file)
			if err != nil {
				return nil, nil, "", spec.Report{}, err
			}
			t, rep := spec.ParseTeam("fixtures/"+file, data, spec.Options{})
			return t, nil, b.strategy, rep, nil
		}
	}
	return nil, nil, "", spec.Report{}, fmt.Errorf("%w: team definition %s: no such file or directory, nor a built-in workflow (cortexctl workflows list --builtin)", api.ErrNotFound, arg)
}
