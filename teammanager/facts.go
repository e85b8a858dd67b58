package teammanager

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/internal/ctxcause"
	"github.com/cortexgraph/cortex/merge"
	ns "github.com/cortexgraph/cortex/namespace"
)

// factSetInfo is the description of one fact set in the provenance graph.
type factSetInfo struct {
	supporters []string // sorted
	confidence float64
	resolvedBy string
	mergeID    string
}

// Facts returns the fused facts of the team's last merge that match f, as
// stored: each with its supporters, the ids of their findings behind it,
// its fused confidence (rounded to 0.01, see MergeTeamResults), its
// resolver and the id of the merge run that wrote it. It reads the fact
// sets, their descriptions and the supporters' findings; it never runs a
// strategy. The facts are ordered by subject, predicate and object
// (merge.CompareTerms), as in a merge report, and equal the Facts of the
// report of the merge that wrote them. A team never merged has none (an
// empty slice). An unknown team is ErrUnknownTeam, an agent of f that is
// not a member ErrUnknownAgent.
//
// Facts reads committed data only and is safe for concurrent use; it reads
// the sets one after the other, so a merge committed while it runs may
// show in part (each fact is that of one merge or the other).
func (m *Manager) Facts(ctx context.Context, teamID string, f FactFilter) (_ []Fact, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	t, err := m.getTeam(ctx, teamID)
	if err != nil {
		return nil, err
	}
	if f.Agent != "" {
		if _, ok := t.Member(f.Agent); !ok {
			return nil, fmt.Errorf("team %s: agent %q: %w", teamID, f.Agent, ErrUnknownAgent)
		}
	}
	pat := cortex.Pattern{Scope: cortex.OneGraph}
	for _, v := range []struct {
		in  quad.Value
		out *quad.Value
	}{{f.Subject, &pat.Subject}, {f.Predicate, &pat.Predicate}} {
		if v.in == nil {
			continue
		}
		nv, err := cortex.NormalizeTerm(v.in)
		if err != nil {
			return nil, fmt.Errorf("team %s: facts: %w", teamID, err)
		}
		*v.out = nv
	}
	sets, err := m.factSets(ctx, teamID)
	if err != nil {
		return nil, fmt.Errorf("team %s: facts: %w", teamID, err)
	}
	names := make([]quad.Value, 0, len(sets))
	for g, info := range sets {
		if f.Agent == "" || slices.Contains(info.supporters, f.Agent) {
			names = append(names, g)
		}
	}
	slices.SortFunc(names, merge.CompareTerms)
	out := []Fact{}
	var agents []string
	for _, g := range names {
		info := sets[g]
		pat.Graph = g
		qs, err := m.n.Quads(ctx, pat)
		if err != nil {
			return nil, fmt.Errorf("team %s: facts: %w", teamID, err)
		}
		for _, q := range qs {
			out = append(out, Fact{MergeID: info.mergeID, Fact: merge.Fact{
				Subject: q.Subject, Predicate: q.Predicate, Object: q.Object,
				Supporters: slices.Clone(info.supporters), FindingIDs: []string{},
				Confidence: info.confidence, ResolvedBy: info.resolvedBy,
			}})
		}
		if len(qs) > 0 {
			agents = append(agents, info.supporters...)
		}
	}
	slices.Sort(agents)
	agents = slices.Compact(agents)
	if err := m.attachFindings(ctx, teamID, agents, out); err != nil {
		return nil, fmt.Errorf("team %s: facts: %w", teamID, err)
	}
	slices.SortFunc(out, func(a, b Fact) int {
		ta, tb := merge.Topic{Subject: a.Subject, Predicate: a.Predicate}, merge.Topic{Subject: b.Subject, Predicate: b.Predicate}
		if c := ta.Compare(tb); c != 0 {
			return c
		}
		return merge.CompareTerms(a.Object, b.Object)
	})
	return out, nil
}

// factSets reads the descriptions of the team's fact sets from its
// provenance graph, by fact set.
func (m *Manager) factSets(ctx context.Context, team string) (map[quad.Value]*factSetInfo, error) {
	x := m.ns
	qs, err := m.graphQuadsWhere(ctx, x.ProvenanceGraph(team), func(s quad.Value) bool { return m.isFactSet(team, s) })
	if err != nil {
		return nil, err
	}
	sets := map[quad.Value]*factSetInfo{}
	agentOf := func(v quad.Value) (string, error) {
		iri, _ := v.(quad.IRI)
		r, err := x.Parse(iri)
		if err != nil || r.Kind != ns.KindAgent {
			return "", fmt.Errorf("%w: %v is not an agent node", ErrCorrupt, v)
		}
		return r.Agent, nil
	}
	for _, q := range qs {
		info := sets[q.Subject]
		if info == nil {
			info = &factSetInfo{confidence: 1}
			sets[q.Subject] = info
		}
		var err error
		switch q.Predicate {
		case ns.ProvWasAttributedTo:
			var a string
			if a, err = agentOf(q.Object); err == nil {
				info.supporters = append(info.supporters, a)
			}
		case x.IRI(ns.FactConfidence):
			info.confidence, err = ns.ParseConfidence(q.Object)
		case x.IRI(ns.FactResolvedBy):
			info.resolvedBy, err = agentOf(q.Object)
		case ns.ProvWasGeneratedBy:
			iri, _ := q.Object.(quad.IRI)
			r, perr := x.Parse(iri)
			if perr != nil || r.Kind != ns.KindMerge {
				err = fmt.Errorf("%w: %v is not a merge run", ErrCorrupt, q.Object)
			}
			info.mergeID = r.ID
		}
		if err != nil {
			return nil, fmt.Errorf("fact set %s: %w", q.Subject, err)
		}
	}
	for _, info := range sets {
		if info.supporters == nil {
			info.supporters = []string{}
		}
		slices.Sort(info.supporters)
	}
	return sets, nil
}

// attachFindings sets the FindingIDs of each fact: the findings of its
// supporters (agents, sorted, lists them all) with the fact's subject and
// predicate and an object the merge treats as the fact's (merge.ObjectKey).
// That is what a merge records as the findings behind a fact.
func (m *Manager) attachFindings(ctx context.Context, team string, agents []string, facts []Fact) error {
	if len(agents) == 0 || len(facts) == 0 {
		return nil
	}
	all, err := m.readFindingsOf(ctx, team, agents)
	if err != nil {
		return err
	}
	key := func(agent string, s, p, o quad.Value) (string, bool) {
		ok, err := merge.ObjectKey(o)
		if err != nil {
			return "", false
		}
		return strings.Join([]string{agent, rdfio.FormatTerm(s), rdfio.FormatTerm(p), ok}, "\x00"), true
	}
	ids := map[string][]string{}
	for _, fs := range all {
		for _, sf := range fs {
			if k, ok := key(sf.Agent, sf.Subject, sf.Predicate, sf.Object); ok {
				ids[k] = append(ids[k], sf.ID)
			}
		}
	}
	for i := range facts {
		f := &facts[i]
		for _, a := range f.Supporters {
			if k, ok := key(a, f.Subject, f.Predicate, f.Object); ok {
				f.FindingIDs = append(f.FindingIDs, ids[k]...)
			}
		}
		slices.Sort(f.FindingIDs)
		f.FindingIDs = slices.Compact(f.FindingIDs)
	}
	return nil
}
