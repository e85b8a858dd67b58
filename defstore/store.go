// Package defstore keeps agent and team definitions (package spec) as RDF
// in a Cortex namespace, so that SPARQL can ask about them ("which agents can
// delegate to qa", "which teams use security-reviewer").
//
// Each definition is one named graph (namespace.AgentDefGraph,
// namespace.TeamDefGraph) holding its node, the queryable facts (name,
// namespace, model, role, delegation links, a team's agents, lead, workflow
// type, steps and their depends_on) and def:source, the definition as JSON,
// which Get and List read back: the graph's other triples are a projection
// for queries.
//
// # Concurrency and atomicity
//
// A Store is safe for concurrent use. Import writes all its definitions in
// one Namespace.Update: every definition or none. Re-importing a definition
// replaces its graph (importing the same file twice changes nothing). Delete
// is one Update too.
//
// # Caveats
//
//   - Delete refuses an agent that a stored team lists (ErrInUse); a
//     delegation list naming a deleted agent keeps its link to the agent's
//     node, which then has no definition.
//   - A definition whose def:source does not read (not JSON, invalid by the
//     rules of this version, or several sources in its graph: written by an
//     older Cortex or by an import of quads into its graph) fails List and
//     Get of it with an error naming it; names, Import and Delete do not read
//     sources, so the others still read and importing it again or deleting
//     it repairs the namespace.
package defstore

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/spec"
)

// Errors of package defstore. Compare with errors.Is.
var (
	// ErrNotFound means no stored definition has the name.
	ErrNotFound = errors.New("no such definition")
	// ErrInUse means a definition others depend on cannot be deleted.
	ErrInUse = errors.New("definition in use")
	// ErrAmbiguous means a name that denotes several stored definitions
	// (an agent and a team, or agents of several namespaces).
	ErrAmbiguous = errors.New("ambiguous definition name")
)

// Store reads and writes the definitions of one namespace.
type Store struct {
	n  *cortex.Namespace
	ns namespace.NS
}

// New returns the definitions of namespace n, whose IRIs ns builds.
func New(n *cortex.Namespace, ns namespace.NS) *Store { return &Store{n: n, ns: ns} }

// ImportResult is what Import wrote.
type ImportResult struct {
	Agents []string    // qualified names, in load order
	Teams  []string    // in load order
	Report spec.Report // warnings (and, on failure, errors)
}

// Import loads paths (spec.Load) and stores every definition, atomically:
// teams and delegation lists may name the agents being imported and those
// already stored. If any definition has an error nothing is written and
// the error is a *spec.ValidationError (matching spec.ErrInvalid); the
// result's report holds every problem either way (up to
// spec.MaxProblems of a file). Files are read while the
// namespace's write lock is held, so that the stored agents the check
// relies on cannot change before the write.
func (s *Store) Import(ctx context.Context, paths []string, opts spec.Options) (ImportResult, error) {
	return s.importWith(ctx, opts, func(o spec.Options) (*spec.Set, spec.Report, error) { return spec.Load(paths, o) })
}

// ImportFiles is Import of files already read (spec.ReadFiles), e.g. sent
// by a client: the same checks, atomicity and result.
func (s *Store) ImportFiles(ctx context.Context, files []spec.File, opts spec.Options) (ImportResult, error) {
	return s.importWith(ctx, opts, func(o spec.Options) (*spec.Set, spec.Report, error) {
		set, rep := spec.LoadFiles(files, o)
		return set, rep, nil
	})
}

// CheckFiles checks files as ImportFiles checks them in a namespace with
// no definitions stored, writing nothing: on an invalid definition, the
// result and error ImportFiles would return. A host checks the first
// import of a namespace that does not exist yet so, before it creates it.
func CheckFiles(files []spec.File, opts spec.Options) (ImportResult, error) {
	_, rep := spec.LoadFiles(files, opts)
	if err := rep.Err(); err != nil {
		return ImportResult{Report: rep}, fmt.Errorf("import definitions: %w", err)
	}
	return ImportResult{Report: rep}, nil
}

// importWith stores the definitions load gives, given the options with
// the stored agents known, under the namespace's write lock.
func (s *Store) importWith(ctx context.Context, opts spec.Options, load func(spec.Options) (*spec.Set, spec.Report, error)) (ImportResult, error) {
	var res ImportResult
	err := s.n.Update(ctx, func(tx *cortex.Tx) error {
		// The stored agents by name: one whose source does not read
		// may be named, and replaced.
		storedAgents, err := s.stored(ctx, spec.KindAgent)
		if err != nil {
			return err
		}
		o := opts
		o.KnownAgents = append([]string(nil), opts.KnownAgents...)
		for _, a := range storedAgents {
			o.KnownAgents = append(o.KnownAgents, a.name)
		}
		set, rep, err := load(o)
		if err != nil {
			return err
		}
		res.Report = rep
		if err := rep.Err(); err != nil {
			return err
		}
		all := o.KnownAgents
		for _, a := range set.Agents() {
			all = append(all, a.QualifiedName())
		}
		agents := spec.NewResolver(all) // indexed once, not per reference
		for _, def := range set.Defs {
			g, quads, err := s.quads(def, agents)
			if err != nil {
				return err
			}
			old, err := s.n.Quads(ctx, cortex.Pattern{Graph: g, Scope: cortex.OneGraph})
			if err != nil {
				return err
			}
			tx.Remove(old...)
			tx.Add(quads...)
			if def.Kind == spec.KindAgent {
				res.Agents = append(res.Agents, def.Name())
			} else {
				res.Teams = append(res.Teams, def.Name())
			}
		}
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("import definitions: %w", err)
	}
	return res, nil
}

// quads returns the graph of def and the quads describing it; agents
// resolves references against the qualified names of the agents known.
func (s *Store) quads(def spec.Def, agents *spec.Resolver) (quad.IRI, []quad.Quad, error) {
	ns := s.ns
	var g, node quad.IRI
	var src []byte
	var err error
	var qs []quad.Quad
	add := func(sub quad.Value, t namespace.Term, o quad.Value) {
		qs = append(qs, quad.Quad{Subject: sub, Predicate: ns.IRI(t), Object: o, Label: g})
	}
	typ := func(sub quad.Value, class namespace.Term) {
		qs = append(qs, quad.Quad{Subject: sub, Predicate: namespace.RDFType, Object: ns.IRI(class), Label: g})
	}
	str := func(sub quad.Value, t namespace.Term, v string) {
		if v != "" {
			add(sub, t, namespace.String(v))
		}
	}
	agentRef := func(ref string) quad.IRI {
		if q := agents.Resolve(ref); q != "" {
			ref = q
		}
		return ns.AgentDef(ref)
	}
	switch def.Kind {
	case spec.KindAgent:
		a := def.Agent
		g, node = ns.AgentDefGraph(a.QualifiedName()), ns.AgentDef(a.QualifiedName())
		if src, err = spec.MarshalAgent(a, spec.FormatJSON); err != nil {
			return "", nil, err
		}
		typ(node, namespace.ClassAgentDef)
		str(node, namespace.DefName, a.Name)
		str(node, namespace.DefNamespace, a.Namespace)
		str(node, namespace.DefDescription, a.Description)
		str(node, namespace.DefModel, string(a.Model))
		str(node, namespace.DefRole, a.Role)
		if dl := a.Delegation; dl != nil {
			add(node, namespace.DefDelegates, namespace.Bool(dl.AllowDelegation))
			for _, r := range dl.CanDelegateTo {
				add(node, namespace.DefDelegatesTo, agentRef(r))
			}
			for _, r := range dl.CanReceiveFrom {
				if r != spec.LeadAgent {
					add(node, namespace.DefReceivesFrom, agentRef(r))
				}
			}
		}
	case spec.KindTeam:
		t := def.Team
		members := spec.NewResolver(t.Agents)
		g, node = ns.TeamDefGraph(t.Name), ns.TeamDef(t.Name)
		if src, err = spec.MarshalTeam(t, spec.FormatJSON); err != nil {
			return "", nil, err
		}
		typ(node, namespace.ClassTeamDef)
		str(node, namespace.DefName, t.Name)
		str(node, namespace.DefVersion, t.Version)
		str(node, namespace.DefDescription, t.Description)
		str(node, namespace.DefWorkflow, string(t.WorkflowType()))
		for _, a := range t.Agents {
			add(node, namespace.DefAgent, agentRef(a))
		}
		if l := t.Lead(); l != "" {
			add(node, namespace.DefLead, agentRef(teamMember(members, l)))
		}
		for _, st := range t.Steps() {
			sn := ns.StepDef(t.Name, st.Name)
			add(node, namespace.DefStep, sn)
			typ(sn, namespace.ClassStepDef)
			str(sn, namespace.DefName, st.Name)
			if st.Agent != "" {
				add(sn, namespace.DefAgent, agentRef(teamMember(members, st.Agent)))
			}
			for _, d := range st.DependsOn {
				add(sn, namespace.DefDependsOn, ns.StepDef(t.Name, d))
			}
		}
	default:
		return "", nil, fmt.Errorf("definition of kind %q", def.Kind)
	}
	str(node, namespace.DefSource, string(src))
	return g, qs, nil
}

// teamMember returns the team's agents entry that ref names (a step or lead
// may use the unqualified name of a qualified entry); members resolves
// against the team's agents.
func teamMember(members *spec.Resolver, ref string) string {
	if q := members.Resolve(ref); q != "" {
		return q
	}
	return ref
}

// stored is a stored definition as its graph names it, its source not
// read yet.
type stored struct {
	kind  spec.Kind
	name  string   // an agent's qualified name, a team's name
	graph quad.IRI // its graph (AgentDefGraph, TeamDefGraph)
	src   quad.Value
	srcs  int // def:source values in the graph: 1 but for one written by other means
}

// stored returns the stored definitions of kind ("" for both), agents then
// teams, each sorted by name, without reading their sources: what names
// and kinds suffice for (the agents an import may use, the definition a
// name denotes) does not depend on every source being readable.
func (s *Store) stored(ctx context.Context, kind spec.Kind) ([]stored, error) {
	qs, err := s.n.Quads(ctx, cortex.Pattern{Predicate: s.ns.IRI(namespace.DefSource), Scope: cortex.NamedGraphs})
	if err != nil {
		return nil, fmt.Errorf("list definitions: %w", err)
	}
	var out []stored
	at := map[quad.IRI]int{} // graph → its entry in out
	for _, q := range qs {
		g, ok := q.Label.(quad.IRI)
		if !ok {
			continue
		}
		if i, dup := at[g]; dup {
			out[i].srcs++
			continue
		}
		ref, err := s.ns.Parse(g)
		if err != nil {
			continue // a def:source someone else wrote
		}
		st := stored{graph: g, src: q.Object, srcs: 1}
		switch ref.Kind {
		case namespace.KindAgentDefGraph:
			st.kind, st.name = spec.KindAgent, ref.Agent
		case namespace.KindTeamDefGraph:
			st.kind, st.name = spec.KindTeam, ref.Team
		default:
			continue
		}
		if kind != "" && st.kind != kind {
			continue
		}
		at[g] = len(out)
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].kind != out[j].kind {
			return out[i].kind == spec.KindAgent
		}
		return out[i].name < out[j].name
	})
	return out, nil
}

// read parses the source of st. A source that does not read (not JSON,
// invalid by today's rules, or the definition of another name: written by
// an older Cortex or by an import of quads into its graph) is an error
// naming the definition and the way out: import it again, or delete it.
func (s *Store) read(st stored) (spec.Def, error) {
	fail := func(err error) (spec.Def, error) {
		return spec.Def{}, fmt.Errorf("stored %s definition %q cannot be read (import it again, or delete it): %w", st.kind, st.name, err)
	}
	if st.srcs > 1 {
		return fail(fmt.Errorf("%w: its graph holds %d sources", spec.ErrInvalid, st.srcs))
	}
	src, err := namespace.ParseString(st.src)
	if err != nil {
		return fail(err)
	}
	def := spec.Def{File: string(st.graph), Kind: st.kind}
	var rep spec.Report
	if st.kind == spec.KindAgent {
		def.Agent, rep = spec.ParseAgent(string(st.graph)+".json", []byte(src), spec.Options{})
	} else {
		def.Team, rep = spec.ParseTeam(string(st.graph)+".json", []byte(src), spec.Options{})
	}
	if err := rep.Err(); err != nil {
		return fail(err)
	}
	if def.Name() != st.name {
		return fail(fmt.Errorf("%w: its source defines %q", spec.ErrInvalid, def.Name()))
	}
	return def, nil
}

// list returns the stored definitions of kind ("" for both), agents then
// teams, each sorted by name; the first that cannot be read fails it.
func (s *Store) list(ctx context.Context, kind spec.Kind) ([]spec.Def, error) {
	sts, err := s.stored(ctx, kind)
	if err != nil {
		return nil, err
	}
	out := make([]spec.Def, 0, len(sts))
	for _, st := range sts {
		def, err := s.read(st)
		if err != nil {
			return nil, err
		}
		out = append(out, def)
	}
	return out, nil
}

// List returns the stored definitions of kind (spec.KindAgent,
// spec.KindTeam, or "" for both): agents, then teams, each sorted by name.
// A Def's File is the IRI of its graph. A stored definition that cannot be
// read (see Get) fails it, naming the definition.
func (s *Store) List(ctx context.Context, kind spec.Kind) ([]spec.Def, error) {
	return s.list(ctx, kind)
}

// Get returns the stored definition called name: a team, or an agent by
// its qualified name or, if exactly one namespace has it, its unqualified
// name. kind ("" for either) narrows the search. It fails with ErrNotFound,
// or ErrAmbiguous when the name denotes several definitions; a name no
// definition of kind can have (spec.ValidName: blank, a control character,
// not UTF-8, an agent's "a//b") is a *namespace.IDError, which matches
// namespace.ErrInvalidID and ErrNotFound. Only the definition found is
// read: one whose stored source does not read (not JSON, or invalid by the
// rules of this version) fails with an error that names it and says to
// import it again or delete it; the others are unaffected.
func (s *Store) Get(ctx context.Context, name string, kind spec.Kind) (spec.Def, error) {
	if err := checkName(name, kind); err != nil {
		return spec.Def{}, fmt.Errorf("definition %q: %w", name, err)
	}
	sts, err := s.stored(ctx, kind)
	if err != nil {
		return spec.Def{}, err
	}
	st, err := find(sts, name)
	if err != nil {
		return spec.Def{}, err
	}
	return s.read(st)
}

// CheckName returns nil if a definition of kind can be called name, else
// the *namespace.IDError (namespace.ErrInvalidID, ErrNotFound) that Get,
// Delete and a server's defs methods refuse name with, after "definition
// NAME: " (Delete: "delete definition NAME: "). A client checks a name JSON
// cannot carry (not UTF-8) so.
func CheckName(name string, kind spec.Kind) error { return checkName(name, kind) }

// checkName is CheckName.
func checkName(name string, kind spec.Kind) error {
	if spec.ValidName(kind, name) {
		return nil
	}
	want := "a name, not blank, without control characters"
	if kind == spec.KindAgent {
		want = "an agent's name or namespace/name: names not blank, \".\" or \"..\", without control characters, between single '/'"
	}
	return &namespace.IDError{Unknown: ErrNotFound, Want: want}
}

func find(defs []stored, name string) (stored, error) {
	var agents []string
	byAgent := map[string]stored{}
	var hits []stored
	for _, d := range defs {
		if d.kind == spec.KindTeam && d.name == name {
			hits = append(hits, d)
		}
		if d.kind == spec.KindAgent {
			agents = append(agents, d.name)
			byAgent[d.name] = d
		}
	}
	if q := spec.Resolve(agents, name); q != "" {
		hits = append(hits, byAgent[q])
	} else if _, n := spec.SplitQualified(name); n == name {
		var c []string
		for _, a := range agents {
			if _, an := spec.SplitQualified(a); an == name {
				c = append(c, a)
			}
		}
		if len(c) > 1 {
			return stored{}, fmt.Errorf("%w %q: agents %v (qualify it)", ErrAmbiguous, name, c)
		}
	}
	switch len(hits) {
	case 0:
		return stored{}, fmt.Errorf("%w %q", ErrNotFound, name)
	case 1:
		return hits[0], nil
	}
	return stored{}, fmt.Errorf("%w %q: an agent and a team (give --kind)", ErrAmbiguous, name)
}

// Delete removes the stored definition called name (see Get) and returns
// it. An agent that a stored team lists is not deleted: the error matches
// ErrInUse and names the teams. A malformed name is refused as Get refuses
// it, before the write.
func (s *Store) Delete(ctx context.Context, name string, kind spec.Kind) (spec.Def, error) {
	if err := checkName(name, kind); err != nil {
		return spec.Def{}, fmt.Errorf("delete definition %q: %w", name, err)
	}
	var st stored
	err := s.n.Update(ctx, func(tx *cortex.Tx) error {
		sts, err := s.stored(ctx, kind)
		if err != nil {
			return err
		}
		if st, err = find(sts, name); err != nil {
			return err
		}
		if st.kind == spec.KindAgent {
			users, err := s.teamsUsing(ctx, st.name)
			if err != nil {
				return err
			}
			if len(users) > 0 {
				return fmt.Errorf("%w: agent %q is used by team %v (delete those teams or import them without it first)", ErrInUse, st.name, users)
			}
		}
		old, err := s.n.Quads(ctx, cortex.Pattern{Graph: st.graph, Scope: cortex.OneGraph})
		if err != nil {
			return err
		}
		tx.Remove(old...)
		return nil
	})
	if err != nil {
		return spec.Def{}, fmt.Errorf("delete definition %q: %w", name, err)
	}
	if def, err := s.read(st); err == nil {
		return def, nil
	}
	// One that could not be read is deleted all the same: its kind and
	// name are its graph's.
	def := spec.Def{File: string(st.graph), Kind: st.kind}
	if st.kind == spec.KindAgent {
		ns, n := spec.SplitQualified(st.name)
		def.Agent = &spec.Agent{Namespace: ns, Name: n}
	} else {
		def.Team = &spec.Team{Name: st.name}
	}
	return def, nil
}

// teamsUsing returns the stored teams that list agent (a qualified name).
func (s *Store) teamsUsing(ctx context.Context, agent string) ([]string, error) {
	qs, err := s.n.Quads(ctx, cortex.Pattern{Predicate: s.ns.IRI(namespace.DefAgent), Object: s.ns.AgentDef(agent), Scope: cortex.NamedGraphs})
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	for _, q := range qs {
		g, _ := q.Label.(quad.IRI)
		ref, err := s.ns.Parse(g)
		if err != nil || ref.Kind != namespace.KindTeamDefGraph || seen[ref.Team] {
			continue
		}
		seen[ref.Team] = true
		out = append(out, ref.Team)
	}
	sort.Strings(out)
	return out, nil
}
