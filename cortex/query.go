package cortex

import (
	"context"

	"github.com/cortexgraph/cortex/cortex/sparql"
)

// Query runs a SPARQL 1.1 query over the namespace (see package sparql). The query sees this namespace
// only: its default graph and named graphs as chosen by opts.DefaultGraph (union of all graphs by
// default), FROM and FROM NAMED. The result streams from the store and must be closed.
func (n *Namespace) Query(ctx context.Context, text string, opts sparql.Options) (*sparql.Result, error) {
	if err := n.s.checkOpen(); err != nil {
		return nil, err
	}
	return sparql.Query(ctx, n.Dataset(), text, opts)
}

// Explain returns the evaluation plan of a SPARQL query over the namespace without running it.
func (n *Namespace) Explain(ctx context.Context, text string, opts sparql.Options) (string, error) {
	if err := n.s.checkOpen(); err != nil {
		return "", err
	}
	return sparql.Explain(ctx, n.Dataset(), text, opts)
}
