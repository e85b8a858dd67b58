package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/teammanager"
)

// The canonical results file, the same as the SQL side's (dump_results in
// sqlbench.py), sorted:
//
//	team<TAB>F<TAB>s<TAB>p<TAB>o<TAB>supporters<TAB>confidence      per kept fact
//	team<TAB>C<TAB>s<TAB>p<TAB>object=agents|object=agents         per conflict
//
// Terms are written as their lexical form (IRI text, literal value);
// supporters are sorted and joined with ",", the confidence has two
// decimals; a conflict's candidates are "object=agent+agent", sorted and
// joined with "|".

// dumpResults reads the merged results of teams team0..team{teams-1} from
// the store (Facts and Conflicts) and returns the sorted
// lines and the per-team counts.
func dumpResults(ctx context.Context, m api.TeamManager, teams int) ([]string, []count, error) {
	var lines []string
	var counts []count
	for t := range teams {
		tid := teamID(t)
		team, err := m.GetTeam(ctx, tid)
		if err != nil {
			return nil, nil, fmt.Errorf("results: %w", err)
		}
		facts, err := m.Facts(ctx, tid, teammanager.FactFilter{})
		if err != nil {
			return nil, nil, fmt.Errorf("results: %w", err)
		}
		for _, f := range facts {
			sup := slices.Sorted(slices.Values(f.Supporters))
			lines = append(lines, fmt.Sprintf("%s\tF\t%s\t%s\t%s\t%s\t%.2f", tid, lexical(f.Subject), lexical(f.Predicate),
				lexical(f.Object), strings.Join(sup, ","), f.Confidence))
		}
		conflicts, err := m.Conflicts(ctx, tid)
		if err != nil {
			return nil, nil, fmt.Errorf("results: %w", err)
		}
		for _, c := range conflicts {
			var cs []string
			for _, cd := range c.Candidates {
				cs = append(cs, lexical(cd.Object)+"="+strings.Join(slices.Sorted(slices.Values(cd.Agents)), "+"))
			}
			slices.Sort(cs)
			lines = append(lines, fmt.Sprintf("%s\tC\t%s\t%s\t%s", tid, lexical(c.Subject), lexical(c.Predicate), strings.Join(cs, "|")))
		}
		counts = append(counts, count{
			Team: tid, Strategy: team.Strategy, Status: string(team.Status), Facts: len(facts), Conflicts: len(conflicts),
		})
	}
	slices.Sort(lines)
	return lines, counts, nil
}

// lexical returns the lexical form of a term: an IRI's text, a literal's
// value.
func lexical(v quad.Value) string {
	switch v := v.(type) {
	case quad.IRI:
		return string(v)
	case quad.String:
		return string(v)
	case quad.TypedString:
		return string(v.Value)
	case quad.LangString:
		return string(v.Value)
	case nil:
		return ""
	}
	return v.String()
}

// writeResults writes the lines to path, each ended by a newline (an empty
// dump is one empty line, as on the SQL side).
func writeResults(path string, lines []string) error {
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	return nil
}

// sortMerges sorts merges by team id (as strings, as the SQL side does).
func sortMerges(ms []merged) {
	slices.SortFunc(ms, func(a, b merged) int { return strings.Compare(a.Team, b.Team) })
}
