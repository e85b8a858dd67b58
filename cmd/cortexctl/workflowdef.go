package main

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

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
		files, err := spec.ReadFiles([]string{arg})
		if err != nil {
			return nil, nil, "", spec.Report{}, err
		}
		set, rep := spec.LoadFiles(files, spec.Options{})
		if teams := set.Teams(); len(teams) == 1 {
			// The team's agents that the directory does not define are
			// no error, as they are none in a team file: the steps get
			// their stored definitions or their names (storedAgentDefs).
			if known := undefinedAgents(teams[0], set.Agents()); len(known) > 0 {
				set, rep = spec.LoadFiles(files, spec.Options{KnownAgents: known})
			}
		}
		if rep.Errors() > 0 {
			return nil, nil, "", rep, nil
		}
		if teams := set.Teams(); len(teams) != 1 {
			return nil, nil, "", rep, fmt.Errorf("%w: %s holds %d team definitions, want one", api.ErrInvalid, pathText(arg), len(teams))
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
		return nil, nil, "", spec.Report{}, quotePath(err)
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
	return nil, nil, "", spec.Report{}, fmt.Errorf("%w: team definition %s: no such file or directory, nor a built-in workflow (cortexctl workflows list --builtin)", api.ErrNotFound, pathText(arg))
}

// undefinedAgents returns the agents team t lists that none of agents
// defines: neither by that qualified name nor, for an unqualified one, by
// that name in any namespace (a name several namespaces have is left to
// the check, which reports it ambiguous).
func undefinedAgents(t *spec.Team, agents []*spec.Agent) []string {
	var names []string
	bare := map[string]int{}
	for _, a := range agents {
		names = append(names, a.QualifiedName())
		bare[a.Name]++
	}
	known := spec.NewResolver(names) // indexed once, not per reference
	var out []string
	for _, ref := range t.Agents {
		if known.Resolve(ref) != "" || (!strings.Contains(ref, "/") && bare[ref] > 1) {
			continue
		}
		out = append(out, ref)
	}
	return out
}
