package eval

import (
	"context"

	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
)

// cfilter is a compiled FILTER condition: it reports whether a solution passes (its effective boolean
// value is true; an error fails it).
type cfilter func(ctx context.Context, g gctx, r row) bool

// maxFilterMemo bounds the per-filter memo of filterOf; it is emptied when full.
const maxFilterMemo = 1 << 16

// filterOf compiles e as a filter. A deterministic condition over one variable depends on that
// variable's term only, so its result is remembered per term id: rows sharing a value (an index scan
// groups them: the object of a predicate scan, for instance) evaluate it once.
func (c *compiler) filterOf(e algebra.Expr) cfilter {
	ce := c.expr(e)
	plain := func(ctx context.Context, g gctx, r row) bool {
		v, err := ce(ctx, g, r)
		return ebvTrue(v, err)
	}
	vars := c.exprVars(e)
	if vars.len() != 1 || !deterministic(e) {
		return plain
	}
	slot := vars.sorted()[0]
	var (
		seen   = map[ID]bool{}
		lastID ID
		last   bool
		valid  bool
	)
	return func(ctx context.Context, g gctx, r row) bool {
		id := r[slot]
		if valid && id == lastID {
			return last
		}
		res, ok := seen[id]
		if !ok {
			res = plain(ctx, g, r)
			if len(seen) >= maxFilterMemo {
				clear(seen)
			}
			seen[id] = res
		}
		lastID, last, valid = id, res, true
		return res
	}
}

// makesFresh reports whether e calls a function that makes a new value each time it is evaluated
// (RAND, BNODE, UUID, STRUUID; BNODE(str) is new for each solution).
func makesFresh(e algebra.Expr) bool {
	if e, ok := e.(*algebra.Call); ok {
		switch e.Op {
		case algebra.OpRand, algebra.OpBNode, algebra.OpUUID, algebra.OpStrUUID:
			return true
		}
		for _, a := range e.Args {
			if makesFresh(a) {
				return true
			}
		}
	}
	return false
}

// deterministic reports whether e gives the same value whenever its variables have the same terms:
// no EXISTS (it depends on the active graph), aggregates, or functions that make fresh values.
func deterministic(e algebra.Expr) bool {
	switch e := e.(type) {
	case *algebra.Exists, *algebra.Aggregate:
		return false
	case *algebra.Call:
		switch e.Op {
		case algebra.OpRand, algebra.OpBNode, algebra.OpUUID, algebra.OpStrUUID:
			return false
		}
		for _, a := range e.Args {
			if !deterministic(a) {
				return false
			}
		}
	}
	return true
}
