package api

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/rdfio"
)

// Graph is a graph of a namespace with its quad count: what cortexctl
// graphs --json prints and JSON-RPC graphs.list returns.
type Graph struct {
	Graph *string `json:"graph"` // nil: the default graph; an IRI without brackets, or _:label
	Quads int64   `json:"quads"`
}

// Name returns the graph's name as cortexctl's table shows it: "(default)",
// <IRI> or _:label.
func (g Graph) Name() string {
	switch {
	case g.Graph == nil:
		return "(default)"
	case len(*g.Graph) > 1 && (*g.Graph)[:2] == "_:":
		return *g.Graph
	}
	return rdfio.FormatTerm(quad.IRI(*g.Graph))
}

// GraphsOf returns the JSON shape of gs.
func GraphsOf(gs []cortex.GraphInfo) []Graph {
	out := make([]Graph, 0, len(gs))
	for _, g := range gs {
		r := Graph{Quads: g.Quads}
		if g.Name != nil {
			s := rdfio.FormatTerm(g.Name)
			if iri, ok := g.Name.(quad.IRI); ok {
				s = string(iri)
			}
			r.Graph = &s
		}
		out = append(out, r)
	}
	return out
}

// Stats are the statistics of a store and one of its namespaces: what
// cortexctl stats --json prints and JSON-RPC stats.get returns.
type Stats struct {
	Store             string             `json:"store"` // the store's directory
	DiskBytes         int64              `json:"diskBytes"`
	Namespaces        []string           `json:"namespaces"`
	Namespace         string             `json:"namespace"`
	Quads             int64              `json:"quads"`
	Graphs            int                `json:"graphs"`
	UnfinishedImports []UnfinishedImport `json:"unfinishedImports"`
}

// UnfinishedImport is an import that was interrupted (running the same
// import again resumes it).
type UnfinishedImport struct {
	ID      string    `json:"id"`
	Source  string    `json:"source"`
	Started time.Time `json:"started"`
}

// NamespacesOf returns the Namespace entries of names in s, in order,
// leaving out a namespace deleted since names was listed.
func NamespacesOf(ctx context.Context, s *cortex.Store, names []string) ([]Namespace, error) {
	out := make([]Namespace, 0, len(names))
	for _, name := range names {
		n, err := s.OpenNamespace(ctx, name)
		var size int64
		if err == nil {
			size, err = n.Size(ctx)
		}
		if errors.Is(err, cortex.ErrNoNamespace) {
			continue // deleted since it was listed
		}
		if err != nil {
			return nil, err
		}
		out = append(out, Namespace{Name: name, Base: n.Base(), Quads: size})
	}
	return out, nil
}

// ReadStats reads the statistics of store s (in directory dir, as the
// caller names it) and of its namespace n.
func ReadStats(ctx context.Context, s *cortex.Store, dir string, n *cortex.Namespace) (Stats, error) {
	size, err := n.Size(ctx)
	if err != nil {
		return Stats{}, err
	}
	gs, err := n.Graphs(ctx)
	if err != nil {
		return Stats{}, err
	}
	names, err := s.Namespaces(ctx)
	if err != nil {
		return Stats{}, err
	}
	unfinished, err := n.UnfinishedImports(ctx)
	if err != nil {
		return Stats{}, err
	}
	st := Stats{Store: dir, DiskBytes: s.DiskSize(), Namespaces: names, Namespace: n.Name(), Quads: size, Graphs: len(gs),
		UnfinishedImports: []UnfinishedImport{}}
	for _, u := range unfinished {
		st.UnfinishedImports = append(st.UnfinishedImports, UnfinishedImport{u.ID, u.Name, u.Started})
	}
	return st, nil
}

// NamespaceDeleted is the result of deleting a namespace (cortexctl
// namespaces delete --json, JSON-RPC namespaces.delete).
type NamespaceDeleted struct {
	Namespace string `json:"namespace"`
	Deleted   bool   `json:"deleted"`
}

// errStopGraph ends CheckGraph's look at a graph's first quad.
var errStopGraph = errors.New("stop")

// CheckGraph checks that graph g of namespace n (of namespace name ns, for
// the message) exists: that it holds a quad. A nil g (the default graph,
// or every graph) always exists. A named graph that holds nothing is an
// error wrapping ErrNotFound (exit 3: `export --graph IRI`, and the Graph
// Store Protocol's 404). It reads at most one quad.
func CheckGraph(ctx context.Context, n *cortex.Namespace, ns string, g quad.Value) error {
	if g == nil {
		return nil
	}
	err := n.EachQuad(ctx, cortex.Pattern{Graph: g, Scope: cortex.OneGraph}, func(quad.Quad) error { return errStopGraph })
	switch {
	case errors.Is(err, errStopGraph):
		return nil
	case err != nil:
		return err
	}
	return fmt.Errorf("%w: graph %s in namespace %s", ErrNotFound, rdfio.FormatTerm(g), ns)
}
