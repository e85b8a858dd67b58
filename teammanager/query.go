package teammanager

import (
	"context"
	"fmt"
	"maps"

	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/cortex/sparql/parser"
	"github.com/cortexgraph/cortex/internal/ctxcause"
	ns "github.com/cortexgraph/cortex/namespace"
)

// Prefixes returns the prefixes of a Cortex namespace x, as predeclared in
// queries (Manager.Query, `cortexctl query`) and accepted in prefixed names
// (`cortexctl findings add`, ImportFindings with FindingsJSON): rdf, rdfs,
// xsd, owl and prov (parser.DefaultPrefixes); cx and the namespace's own
// name for x.Prefix(), under which the Cortex vocabulary and every team IRI
// of x live (so cx:Finding is the class of findings and
// cx:finding:confidence their confidence); then extra (a config file's
// prefixes), which overrides all of them. A namespace named like a built-in
// prefix (rdf, cx, ...) does not shadow it. The result is a fresh map.
func Prefixes(x ns.NS, extra map[string]string) map[string]string {
	out := map[string]string{x.Name(): x.Prefix()}
	maps.Copy(out, parser.DefaultPrefixes())
	out["cx"] = x.Prefix()
	maps.Copy(out, extra)
	return out
}

// Prefixes returns Prefixes(m.Namespace(), the prefixes of
// Config.WithPrefixes).
func (m *Manager) Prefixes() map[string]string { return Prefixes(m.ns, m.cfg.prefixes) }

// Query runs a SPARQL 1.1 query over the manager's namespace (every team,
// every graph; see cortex.Namespace.Query for the default graph, snapshot
// and streaming contract: the result must be closed).
//
// The prefixes of m.Prefixes are predeclared; opts.Prefixes override them
// and PREFIX declarations in the text override both.
//
// Values go into a query through opts.Bindings (or opts.Bind), never by
// building the text: a bound variable has the given value everywhere in the
// query (see sparql.Options.Bindings), and no value, whatever characters it
// holds, is ever parsed as SPARQL. For example, the findings of one member:
//
//	opts := sparql.Options{}.Bind("by", m.Namespace().Member(team, "alice"))
//	res, err := m.Query(ctx, `SELECT ?s ?p ?o ?c WHERE {
//	    ?f cx:finding:assertedBy ?by ; rdf:subject ?s ; rdf:predicate ?p ; rdf:object ?o .
//	    OPTIONAL { ?f cx:finding:confidence ?c } }`, opts)
//
// Do not splice terms into the text with fmt: a quad.IRI prints with its
// own angle brackets (String() is "<iri>"), so fmt.Sprintf("<%s>", iri)
// gives "<<iri>>", which the parser rejects with a message saying so.
//
// Errors: syntax errors are *parser.SyntaxError values; a binding for a name
// that is not a variable of the query wraps sparql.ErrUnknownVariable, one
// for a variable the query assigns itself (BIND, VALUES, AS) wraps
// sparql.ErrBindingConflict, and an unusable value (nil, a blank node, an
// IRI the store cannot hold) wraps sparql.ErrInvalidBinding. Query is safe
// for concurrent use.
func (m *Manager) Query(ctx context.Context, text string, opts sparql.Options) (*sparql.Result, error) {
	p := m.Prefixes()
	maps.Copy(p, opts.Prefixes)
	opts.Prefixes = p
	res, err := m.n.Query(ctx, text, opts)
	if err != nil {
		return nil, fmt.Errorf("query: %w", ctxcause.With(ctx, err))
	}
	return res, nil
}
