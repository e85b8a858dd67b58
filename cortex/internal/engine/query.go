package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql"
)

// Query runs a SPARQL 1.1 query over the namespace (see package sparql). The query sees this namespace
// only: its default graph and named graphs as chosen by opts.DefaultGraph (union of all graphs by
// default), FROM and FROM NAMED. It reads one consistent state of the namespace (a read transaction
// opened by Query and held until the result is closed): writes made meanwhile are not seen. The result
// streams from the store and must be closed: a result the program drops without closing it is closed
// by the garbage collector (which a large write that waits for it runs), and Store.Close reports the
// results still open, with where they were opened (ErrResultsOpen).
//
// Parameters: opts.Bindings (or opts.Bind) give variables values without writing them into the text,
// so that no value can change the query, whatever characters it holds (see sparql.Options.Bindings).
// Values are normalised as stored terms are (NormalizeTerm: quad.Int, quad.Float, quad.Bool and
// quad.Time become the typed literals the store writes for them); a value the store cannot hold, such as
// an IRI with a space or '>', fails with an error wrapping sparql.ErrInvalidBinding, and so do blank
// nodes. Prefer bindings to fmt: a quad.IRI prints with its own angle brackets, so
// fmt.Sprintf("<%s>", iri) yields "<<...>>", which the parser rejects, saying so.
func (n *Namespace) Query(ctx context.Context, text string, opts sparql.Options) (*sparql.Result, error) {
	opts, err := normalizeBindings(opts)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("namespace %s: query: %w", n.name, err)
	}
	snap, err := n.openSnapshot(ctx)
	if err != nil {
		return nil, err
	}
	res, err := sparql.Query(ctx, &nsDataset{n: n, snap: snap}, text, opts)
	if err != nil {
		snap.close()
		return nil, err
	}
	if res.Kind == sparql.Boolean {
		// Evaluated already.
		if err := snap.close(); err != nil {
			res.Close()
			return nil, err
		}
		return res, nil
	}
	id := n.s.results.add(n.name, text)
	res.Leaked(func() {
		what := n.s.results.leak(id)
		if l := n.s.opts.logger; l != nil {
			l.Printf("a query result was not closed; the garbage collector closed it: %s", what)
		}
	})
	res.AfterClose(func() error {
		n.s.results.remove(id)
		return snap.close()
	})
	return res, nil
}

// Explain returns the evaluation plan of a SPARQL query over the namespace without running it, with
// opts.Bindings applied as Query applies them.
func (n *Namespace) Explain(ctx context.Context, text string, opts sparql.Options) (string, error) {
	opts, err := normalizeBindings(opts)
	if err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("namespace %s: explain: %w", n.name, err)
	}
	snap, err := n.openSnapshot(ctx)
	if err != nil {
		return "", err
	}
	defer snap.close()
	return sparql.Explain(ctx, &nsDataset{n: n, snap: snap}, text, opts)
}

// normalizeBindings returns opts with its binding values in the store's canonical form.
func normalizeBindings(opts sparql.Options) (sparql.Options, error) {
	if len(opts.Bindings) == 0 {
		return opts, nil
	}
	names := make([]string, 0, len(opts.Bindings))
	for name := range opts.Bindings {
		names = append(names, name)
	}
	slices.Sort(names)
	b := make(map[string]quad.Value, len(opts.Bindings))
	for _, name := range names {
		v, err := NormalizeTerm(opts.Bindings[name])
		if err != nil {
			return opts, fmt.Errorf("bind: %w: %s: %v", sparql.ErrInvalidBinding, name, err)
		}
		b[name] = v
	}
	opts.Bindings = b
	return opts, nil
}
