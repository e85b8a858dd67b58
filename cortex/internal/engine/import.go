package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sort"

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
	// DefaultGraph puts every imported quad into the default graph (N-Quads
	// input loses its graphs), as Graph puts them into a named one. Graph
	// must then be nil: both is an error matching ErrInvalidArgument.
	DefaultGraph bool
	// Progress, if set, is called after each committed chunk with the total
	// number of quads committed so far. It runs on the importing goroutine.
	Progress func(committed int64)
}

// ImportResult reports a finished import.
type ImportResult struct {
	Read      int64  // quads read from the source
	Committed int64  // quads written (duplicates included; quads are a set)
	Chunks    int    // transactions committed
	ImportID  string // the import id (ImportRDF only)
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

// Import writes every quad of src into the namespace. Parsing, preparing (term
// hashing and encoding) and writing run concurrently.
//
// On a persistent store the quads are written in segments (segments.go): a
// segment of up to ~2M quads is computed in chunks of the store's chunk
// size and then written at once, through Badger's stream writer when large
// (all or nothing, even across a crash) or one transaction per chunk when
// small (per piece of a chunk: a chunk that does not fit in one Badger
// transaction is cut into pieces that do, see inPieces). While it is
// computed, its writes beyond the store's import budget
// (Options.WithImportSegmentBytes) are sorted and spilled to temporary run
// files in the store directory (package sorted), so an import's memory does not
// grow with the file. In-memory stores write chunk by chunk (bulk.go). The
// unit of atomicity is thus a segment, or a chunk or its piece that fits in
// one Badger transaction; an import as
// a whole is atomic only if it fits in one streamed segment. If src fails inside the
// first chunk, nothing is written. If it fails later, what was read before the
// failing chunk is written and the returned *ImportError says how many quads
// were committed. Quads are a set, so re-running the same import (with the
// same blank node prefix, see NewImportID) converges to the same graph.
// Badger's ErrTxnTooBig never reaches the caller unless a single quad exceeds
// a transaction (~2.5 MB of new terms under Badger's 1 MB value threshold
// with the default 16 MiB memtables; Apply journals such a quad).
// ImportResult.Chunks counts the atomic writes (chunks and segments).
//
// Import writes cayley's storage format directly, without cayley's per-quad
// reads (see bulk.go); other writers of the namespace (Apply, Update, other
// imports) run between its segments or chunks. Import is safe for concurrent
// use; see the package documentation for what a streamed segment waits for.
func (n *Namespace) Import(ctx context.Context, src QuadSource, opts ImportOptions) (ImportResult, error) {
	return n.importFrom(ctx, src, opts, nil)
}

// importFrom is Import that calls srcDone (if not nil) once it no longer
// reads src: at once if it fails before it starts reading, else when its
// decoding goroutine ends, which may be after importFrom returns (a Read
// of the source that blocks past the end of the import is not waited for;
// the goroutine stops at the first check of ctx after it). ImportRDF closes
// its decoder so.
func (n *Namespace) importFrom(ctx context.Context, src QuadSource, opts ImportOptions, srcDone func()) (ImportResult, error) {
	var res ImportResult
	started := false
	defer func() {
		if !started && srcDone != nil {
			srcDone()
		}
	}()
	if err := n.s.checkOpen(); err != nil {
		return res, err
	}
	if err := opts.checkGraph(); err != nil {
		return res, err
	}
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("namespace %s: import: %w", n.name, err)
	}
	st, err := newBulkState(ctx, n)
	if err != nil {
		return res, fmt.Errorf("namespace %s: import: %w", n.name, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	raw := make(chan rawChunk, 1)
	prepped := make(chan *prepChunk, 1)
	size := n.s.opts.chunkQuads
	started = true
	go func() {
		decodeStage(ctx, src, opts.Graph, opts.DefaultGraph, size, n.s.maxTerm(), raw)
		if srcDone != nil {
			srcDone()
		}
	}()
	go prepareStage(ctx, raw, prepped)
	st.progress = opts.Progress
	if st.segmentable() {
		if err := st.importSegments(ctx, prepped, &res); err != nil {
			return res, &ImportError{Committed: res.Committed, Err: err}
		}
		return res, st.cutShort(ctx, &res)
	}
	defer st.discardNext()
	fail := func(err error) (ImportResult, error) {
		if ferr := st.flush(&res); ferr != nil {
			err = errors.Join(err, fmt.Errorf("namespace %s: write: %w", n.name, ferr))
		}
		return res, &ImportError{Committed: res.Committed, Err: err}
	}
	for {
		var c *prepChunk
		if p := st.pending; p != nil && !n.s.opts.hooks.noReportEarly {
			// Report a completed commit while waiting for the next chunk.
			select {
			case c = <-prepped:
			case <-p.done:
				if err := st.flush(&res); err != nil {
					return res, &ImportError{Committed: res.Committed, Err: fmt.Errorf("namespace %s: write: %w", n.name, err)}
				}
				// No commit is in flight: the transaction kept for a
				// speculative fill serves no more (submit uses it only
				// while a commit is pending). End it, so that no
				// transaction is open while the import waits for its
				// source: a stalled source must not hold back the
				// writers that need the store without transactions (a
				// streamed delta or segment, DeleteNamespace, Close),
				// nor keep old versions alive.
				st.discardNext()
				continue
			}
		} else {
			// (No commit pending, so no speculative transaction either;
			// noReportEarly, a test hook, keeps both while it waits.)
			c = <-prepped
		}
		if c == nil {
			break // prepped was closed
		}
		res.Read += int64(c.read)
		if c.err != nil {
			// Quads of a chunk that failed to parse are not written: the
			// chunk is the unit of atomicity.
			return fail(c.err)
		}
		if err := st.write(ctx, c, c.quads, c.read, true, &res); err != nil {
			return fail(fmt.Errorf("namespace %s: write: %w", n.name, err))
		}
	}
	if err := st.flush(&res); err != nil {
		return res, &ImportError{Committed: res.Committed, Err: fmt.Errorf("namespace %s: write: %w", n.name, err)}
	}
	return res, st.cutShort(ctx, &res)
}

// cutShort returns, once an import has written what it read, an
// *ImportError if ctx ended (the source was then cut short), else nil.
func (st *bulkState) cutShort(ctx context.Context, res *ImportResult) error {
	if err := ctx.Err(); err != nil {
		return &ImportError{Committed: res.Committed, Err: err}
	}
	return nil
}

// checkGraph checks the target graph of o and normalises o.Graph: an error
// matching ErrInvalidArgument if it is not a graph name (and ErrInvalidQuad,
// as a malformed term anywhere), or if o gives both a graph and the default
// graph.
func (o *ImportOptions) checkGraph() error {
	if o.DefaultGraph && o.Graph != nil {
		return fmt.Errorf("%w: import: a graph and the default graph: give one", ErrInvalidArgument)
	}
	if o.Graph != nil {
		g, err := normalizeNode(o.Graph, "graph", false)
		if err != nil {
			return fmt.Errorf("%w: import: %w", ErrInvalidArgument, err)
		}
		o.Graph = g
	}
	return nil
}

// decodeStage reads src into chunks of size normalised quads and sends them
// to out, each in graph if it is not nil, or in the default graph if
// toDefault; a source error, or a term larger than maxTerm (if not 0),
// ends the last chunk. It closes out when done.
func decodeStage(ctx context.Context, src QuadSource, graph quad.Value, toDefault bool, size, maxTerm int, out chan<- rawChunk) {
	defer close(out)
	send := func(c rawChunk) bool {
		select {
		case out <- c:
			return true
		case <-ctx.Done():
			return false
		}
	}
	cur := make([]quad.Quad, 0, size)
	var z quadNormalizer
	for i := 0; ; i++ {
		if i%256 == 0 && ctx.Err() != nil {
			return // the import has ended: read no further
		}
		q, err := src.Next()
		if err == io.EOF {
			send(rawChunk{quads: cur})
			return
		}
		if err == nil {
			if graph != nil || toDefault {
				q.Label = graph
			}
			q, err = z.normalize(q)
		}
		if err == nil && maxTerm > 0 {
			err = checkQuadSize(q, maxTerm)
		}
		if err != nil {
			send(rawChunk{quads: cur, err: err})
			return
		}
		cur = append(cur, q)
		if len(cur) == size {
			if !send(rawChunk{quads: cur}) {
				return
			}
			cur = make([]quad.Quad, 0, size)
		}
	}
}

// write writes the quads qs of chunk c (count source quads), halving them if
// they do not fit in one Badger transaction. Commits complete asynchronously;
// res counts them as they complete (see submit and flush).
func (st *bulkState) write(ctx context.Context, c *prepChunk, qs []prepQuad, count int, last bool, res *ImportResult) error {
	return st.inPieces(qs, count, last, func(qs []prepQuad, count int, last bool) error {
		return st.submit(ctx, c, qs, count, last, res)
	})
}

// inPieces calls do with the quads qs of a chunk (count source quads, last
// if the chunk ends the source) in pieces that fit in one Badger
// transaction: a piece that do refuses with badger.ErrTxnTooBig is halved,
// and from then on the number of quads that fit is estimated from each
// piece written (st.fitQuads, see noteFit), so that later chunks are cut
// before do prepares them rather than after. The number of
// Badger entries a transaction holds follows the memtable's size (about
// 26,000 for 16 MiB), while chunks are of Options.WithChunkQuads quads.
func (st *bulkState) inPieces(qs []prepQuad, count int, last bool, do func(qs []prepQuad, count int, last bool) error) error {
	if len(qs) == 0 {
		return nil
	}
	for fit := st.fitQuads; fit > 0 && len(qs) > fit; fit = st.fitQuads {
		if err := st.inPieces(qs[:fit], fit, false, do); err != nil {
			return err
		}
		qs, count = qs[fit:], count-fit
	}
	err := do(qs, count, last)
	if errors.Is(err, badger.ErrTxnTooBig) && len(qs) > 1 {
		st.n.s.counters.tooBig.Add(1)
		half := len(qs) / 2
		if st.fitQuads == 0 || half < st.fitQuads {
			st.fitQuads = half
		}
		if err := st.inPieces(qs[:half], half, false, do); err != nil {
			return err
		}
		return st.inPieces(qs[half:], count-half, last, do)
	}
	return err
}

// dropGraphBatch is the quads DropGraph removes per delta: a removal
// writes five entries and up to three more per term it frees, so a batch of
// quads of distinct literals (~8 entries each) stays one Badger transaction
// of the default 16 MiB memtables (~26,000 entries) instead of being
// journaled, which would hold the store back.
const dropGraphBatch = MaxDeltaQuads / 2

// DropGraph removes every quad of graph g (nil: the default graph) in chunks
// of bounded size (dropGraphBatch); each chunk is atomic and re-running
// converges. It returns the number of quads removed. Each chunk is read and
// removed holding the namespace's write lock (an Update), so a quad that
// another writer removed meanwhile is not counted.
func (n *Namespace) DropGraph(ctx context.Context, g quad.Value) (int64, error) {
	scope := OneGraph
	if g == nil {
		scope = DefaultGraph
	}
	var removed int64
	for {
		var batch []quad.Quad
		var readErr error
		errFull := errors.New("full")
		err := n.Update(ctx, func(tx *Tx) error {
			batch = batch[:0]
			err := n.EachQuad(ctx, Pattern{Graph: g, Scope: scope}, func(q quad.Quad) error {
				batch = append(batch, q)
				if len(batch) == dropGraphBatch {
					return errFull
				}
				return nil
			})
			if err != nil && !errors.Is(err, errFull) {
				readErr = err
				return err
			}
			tx.Remove(batch...)
			return nil
		})
		switch {
		case readErr != nil:
			return removed, readErr
		case err != nil:
			return removed, fmt.Errorf("drop graph: %w", err)
		case len(batch) == 0:
			return removed, nil
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
