package cortex

import (
	"context"

	"github.com/cortexgraph/cortex/cortex/sparql"
)

// Query runs a SPARQL 1.1 query over the namespace (see package sparql). The query sees this namespace
// only: its default graph and named graphs as chosen by opts.DefaultGraph (union of all graphs by
// default), FROM and FROM NAMED. It reads one consistent state of the namespace (a read transaction
// opened by Query and held until the result is closed): writes made meanwhile are not seen. The result
// streams from the store and must be closed.
func (n *Namespace) Query(ctx context.Context, text string, opts sparql.Options) (*sparql.Result, error) {
	snap, err := n.openSnapshot()
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
	res.AfterClose(snap.close)
	return res, nil
}

// Explain returns the evaluation plan of a SPARQL query over the namespace without running it.
func (n *Namespace) Explain(ctx context.Context, text string, opts sparql.Options) (string, error) {
	snap, err := n.openSnapshot()
	if err != nil {
		return "", err
	}
	defer snap.close()
	return sparql.Explain(ctx, &nsDataset{n: n, snap: snap}, text, opts)
}
