package cortex

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"
	"github.com/dgraph-io/badger/v4"
)

// QuadSource is a stream of quads: Next returns io.EOF after the last one.
// rdfio decoders implement it.
type QuadSource interface {
	Next() (quad.Quad, error)
}

// ImportOptions control a bulk import.
type ImportOptions struct {
	// Graph, if not nil, puts every imported quad into this graph (overriding
	// the graph of N-Quads input). If nil, triples go to the default graph and
	// quads keep their own graph.
	Graph quad.Value
	// Progress, if set, is called after each committed chunk with the total
	// number of quads committed so far. It runs on the importing goroutine.
	Progress func(committed int64)
}

// ImportResult reports a finished import.
type ImportResult struct {
	Read      int64 // quads read from the source
	Committed int64 // quads written (duplicates included; quads are a set)
	Chunks    int   // transactions committed
}

// NewImportID returns a fresh random import id: a prefix for the blank node
// labels of one import, so that blank nodes of different imports never merge.
func NewImportID() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return hex.EncodeToString(b[:])
}

// Import writes every quad of src into the namespace in chunks of the store's
// chunk size; each chunk is one atomic transaction. Reading (parsing) runs
// concurrently with writing.
//
// Atomicity: a chunk is all-or-nothing, an import as a whole is not. If src
// fails inside the first chunk, nothing is written. If it fails later, the
// returned *ImportError says how many quads were committed. Quads are a set, so
// re-running the same import (with the same blank node prefix, see
// NewImportID) converges to the same graph.
func (n *Namespace) Import(ctx context.Context, src QuadSource, opts ImportOptions) (ImportResult, error) {
	var res ImportResult
	if err := n.s.checkOpen(); err != nil {
		return res, err
	}
	if opts.Graph != nil {
		g, err := normalizeNode(opts.Graph, "graph", false)
		if err != nil {
			return res, err
		}
		opts.Graph = g
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	type chunk struct {
		deltas []graph.Delta
		err    error // source error after deltas
	}
	chunks := make(chan chunk, 2)
	size := n.s.opts.chunkQuads
	go func() {
		defer close(chunks)
		cur := make([]graph.Delta, 0, size)
		for {
			q, err := src.Next()
			if err == io.EOF {
				chunks <- chunk{deltas: cur}
				return
			}
			if err == nil {
				if opts.Graph != nil {
					q.Label = opts.Graph
				}
				q, err = NormalizeQuad(q)
			}
			if err != nil {
				select {
				case chunks <- chunk{deltas: cur, err: err}:
				case <-ctx.Done():
				}
				return
			}
			cur = append(cur, graph.Delta{Quad: q, Action: graph.Add})
			if len(cur) == size {
				select {
				case chunks <- chunk{deltas: cur}:
				case <-ctx.Done():
					return
				}
				cur = make([]graph.Delta, 0, size)
			}
		}
	}()
	for c := range chunks {
		res.Read += int64(len(c.deltas))
		if c.err != nil {
			// Deltas of a chunk that failed to parse are not written: the
			// chunk is the unit of atomicity.
			res.Read--
			return res, &ImportError{Committed: res.Committed, Err: c.err}
		}
		if err := n.writeChunk(ctx, c.deltas, &res); err != nil {
			return res, &ImportError{Committed: res.Committed, Err: err}
		}
		if opts.Progress != nil && len(c.deltas) > 0 {
			opts.Progress(res.Committed)
		}
	}
	return res, ctx.Err()
}

// writeChunk commits deltas in one transaction, halving it if Badger reports
// it too large.
func (n *Namespace) writeChunk(ctx context.Context, deltas []graph.Delta, res *ImportResult) error {
	if len(deltas) == 0 {
		return nil
	}
	n.wmu.Lock()
	err := n.applyLocked(ctx, deltas)
	n.wmu.Unlock()
	if errors.Is(err, badger.ErrTxnTooBig) && len(deltas) > 1 {
		half := len(deltas) / 2
		if err := n.writeChunk(ctx, deltas[:half], res); err != nil {
			return err
		}
		return n.writeChunk(ctx, deltas[half:], res)
	}
	if err != nil {
		return err
	}
	res.Committed += int64(len(deltas))
	res.Chunks++
	return nil
}

// DropGraph removes every quad of graph g (nil: the default graph) in chunks
// of bounded size; each chunk is atomic and re-running converges. It returns
// the number of quads removed.
func (n *Namespace) DropGraph(ctx context.Context, g quad.Value) (int64, error) {
	scope := OneGraph
	if g == nil {
		scope = DefaultGraph
	}
	var removed int64
	for {
		var batch []quad.Quad
		errFull := errors.New("full")
		err := n.EachQuad(ctx, Pattern{Graph: g, Scope: scope}, func(q quad.Quad) error {
			batch = append(batch, q)
			if len(batch) == MaxDeltaQuads {
				return errFull
			}
			return nil
		})
		if err != nil && !errors.Is(err, errFull) {
			return removed, err
		}
		if len(batch) == 0 {
			return removed, nil
		}
		if err := n.Apply(ctx, Delta{Remove: batch}); err != nil {
			return removed, fmt.Errorf("drop graph: %w", err)
		}
		removed += int64(len(batch))
	}
}

func sortGraphs(gs []GraphInfo) {
	sort.SliceStable(gs, func(i, j int) bool {
		a, b := gs[i].Name, gs[j].Name
		if a == nil || b == nil {
			return a == nil && b != nil
		}
		return a.String() < b.String()
	})
}
