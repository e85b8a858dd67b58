package teammanager

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/cortex/sparql"
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
// strategy (and retries no due merge: see GetTeam). The facts are ordered
// by subject, predicate and object (merge.CompareTerms), as in a merge
// report, and equal the Facts of the report of the merge that wrote them.
// A team never merged has none (an empty slice). An unknown team is
// ErrUnknownTeam, an agent of f that is not a member ErrUnknownAgent, a
// term of f that is not a well-formed RDF term (an IRI with a space, a
// literal that is not UTF-8) an error matching cortex.ErrInvalidArgument.
//
// Facts reads committed data only and is safe for concurrent use. The
// fact sets, their descriptions and their facts are read from one
// snapshot of the store (one query, see cortex.Namespace.Query), so a
// merge committed meanwhile is seen whole or not at all: no fact shows
// twice or goes missing. The findings behind the facts are read after it;
// they change only while a member is running (a merge by hand of a running
// team), and then may include a finding added after the snapshot.
func (m *Manager) Facts(ctx context.Context, teamID string, f FactFilter) (_ []Fact, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	t, err := m.getTeam(ctx, teamID)
	if err != nil {
		return nil, err
	}
	if f.Agent != "" {
		if _, ok := t.Member(f.Agent); !ok {
			return nil, fmt.Errorf("team %s: agent %q: %w", IDText(teamID), f.Agent, unknown(ErrUnknownAgent, f.Agent))
		}
	}
	subject, predicate, err := FilterTerms(teamID, "facts", f.Subject, f.Predicate)
	if err != nil {
		return nil, err
	}
	sets, facts, err := m.readFacts(ctx, teamID, subject, predicate)
	if err != nil {
		return nil, teamErr(teamID, "facts", err)
	}
	out := []Fact{}
	var agents []string
	for _, q := range facts {
		info := sets[q.Label]
		if info == nil || f.Agent != "" && !slices.Contains(info.supporters, f.Agent) {
			continue
		}
		out = append(out, Fact{MergeID: info.mergeID, Fact: merge.Fact{
			Subject: q.Subject, Predicate: q.Predicate, Object: q.Object,
			Supporters: slices.Clone(info.supporters), FindingIDs: []string{},
			Confidence: info.confidence, ResolvedBy: info.resolvedBy,
		}})
		agents = append(agents, info.supporters...)
	}
	slices.Sort(agents)
	agents = slices.Compact(agents)
	if err := m.attachFindings(ctx, teamID, agents, out); err != nil {
		return nil, teamErr(teamID, "facts", err)
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

// factsQuery reads a team's fact sets (the subjects typed ?class in its
// provenance graph ?prov), each set's description (?dp ?do) and its facts
// (?s ?p ?o, from the set's graph), in one query: one snapshot.
const factsQuery = `SELECT ?set ?dp ?do ?s ?p ?o WHERE {
	GRAPH ?prov { ?set a ?class }
	{ GRAPH ?prov { ?set ?dp ?do } } UNION { GRAPH ?set { ?s ?p ?o } }
}`

// factsHook, when set by a test, runs in Facts once it has begun to read
// the fact sets (after their first row).
var factsHook func()

// readFacts reads, from one snapshot, the descriptions of the team's fact
// sets, by set, and their facts with subject and predicate (nil: any),
// each with its set as Label. Values are bound as query parameters, but
// for a blank node (not a parameter value) as subject or predicate, which
// is matched here.
func (m *Manager) readFacts(ctx context.Context, team string, subject, predicate quad.Value) (map[quad.Value]*factSetInfo, []quad.Quad, error) {
	x := m.ns
	opts := sparql.Options{}.Bind("prov", x.ProvenanceGraph(team)).Bind("class", x.IRI(ns.ClassFactSet))
	if _, blank := subject.(quad.BNode); subject != nil && !blank {
		opts = opts.Bind("s", subject)
	}
	_, blankP := predicate.(quad.BNode) // no fact's predicate: matched here
	if predicate != nil && !blankP {
		opts = opts.Bind("p", predicate)
	}
	res, err := m.n.Query(ctx, factsQuery, opts)
	if err != nil {
		return nil, nil, err
	}
	defer res.Close()
	sets := map[quad.Value]*factSetInfo{}
	var facts []quad.Quad
	for first := true; res.Next(ctx); first = false {
		if first && factsHook != nil {
			factsHook()
		}
		row := res.Row()
		set := row[0]
		if !m.isFactSet(team, set) {
			continue
		}
		if row[1] == nil { // a fact
			if (subject == nil || row[3] == subject) && (!blankP || row[4] == predicate) {
				facts = append(facts, quad.Quad{Subject: row[3], Predicate: row[4], Object: row[5], Label: set})
			}
			continue
		}
		info := sets[set]
		if info == nil {
			info = &factSetInfo{confidence: 1}
			sets[set] = info
		}
		if err := m.describeFactSet(info, row[1], row[2]); err != nil {
			return nil, nil, fmt.Errorf("fact set %s: %w", set, err)
		}
	}
	if err := res.Err(); err != nil {
		return nil, nil, err
	}
	for _, info := range sets {
		if info.supporters == nil {
			info.supporters = []string{}
		}
		slices.Sort(info.supporters)
	}
	return sets, facts, nil
}

// describeFactSet records in info one property (p, o) of a fact set's
// description.
func (m *Manager) describeFactSet(info *factSetInfo, p, o quad.Value) error {
	x := m.ns
	agentOf := func(v quad.Value) (string, error) {
		iri, _ := v.(quad.IRI)
		r, err := x.Parse(iri)
		if err != nil || r.Kind != ns.KindAgent {
			return "", fmt.Errorf("%w: %v is not an agent node", ErrCorrupt, v)
		}
		return r.Agent, nil
	}
	var err error
	switch p {
	case ns.ProvWasAttributedTo:
		var a string
		if a, err = agentOf(o); err == nil {
			info.supporters = append(info.supporters, a)
		}
	case x.IRI(ns.FactConfidence):
		info.confidence, err = ns.ParseConfidence(o)
	case x.IRI(ns.FactResolvedBy):
		info.resolvedBy, err = agentOf(o)
	case ns.ProvWasGeneratedBy:
		iri, _ := o.(quad.IRI)
		r, perr := x.Parse(iri)
		if perr != nil || r.Kind != ns.KindMerge {
			return fmt.Errorf("%w: %v is not a merge run", ErrCorrupt, o)
		}
		info.mergeID = r.ID
	}
	return err
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
