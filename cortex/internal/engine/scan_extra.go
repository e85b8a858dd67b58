package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/cortexgraph/cortex/cortex/internal/layout"

	"github.com/cayleygraph/cayley/graph/refs"
	"github.com/cayleygraph/quad"
	"github.com/dgraph-io/badger/v4"
	hkv "github.com/hidal-go/hidalgo/kv"
)

// Snapshot reads.
//
// A snapshot is one Badger read transaction over a namespace, used by one
// query for all its reads: index scans, key counts, term and id lookups. It
// gives the query one consistent state and makes a scan cheap: instead of a
// new transaction and a new Badger iterator per scan (tens of microseconds on
// a large store, where an iterator spans many tables), a scan takes an idle
// iterator of its index from the snapshot's pool and seeks it. Nested scans
// (an index nested-loop join) each hold their own iterator; the pool grows to
// the nesting depth.
//
// Keys are read directly from Badger with the layout scan.go documents: the
// namespace's key prefix, then the index bucket and '/' escaped, then the
// escaped ids.

// snapshot is a read-only view of a namespace. It is safe for concurrent use;
// each snapIter is used by one goroutine at a time.
type snapshot struct {
	n      *Namespace
	gen    uint64 // the namespace's write generation when the snapshot opened
	nsPref []byte // the namespace's key prefix

	mu     sync.Mutex
	txn    *badger.Txn
	end    func()               // discards txn and leaves the store's gate
	idle   [][]*badger.Iterator // per index: iterators not in use
	inUse  int
	closed bool
	buf    []byte
}

// openSnapshot starts a read transaction over n.
func (n *Namespace) openSnapshot(ctx context.Context) (*snapshot, error) {
	if err := n.s.checkOpen(); err != nil {
		return nil, err
	}
	gen, _ := n.currentGen()
	txn, end, err := n.view.NewTxn(ctx, false)
	if err != nil {
		return nil, err
	}
	return &snapshot{
		n:      n,
		gen:    gen,
		nsPref: n.view.Prefix(),
		txn:    txn,
		end:    end,
		idle:   make([][]*badger.Iterator, len(layout.Indexes)),
	}, nil
}

// close releases the transaction. Iterators still in use are an error of the
// caller (a scan not closed); the transaction is then left to the garbage
// collector instead of panicking in Badger.
func (s *snapshot) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	for i, its := range s.idle {
		for _, it := range its {
			it.Close()
		}
		s.idle[i] = nil
	}
	if s.inUse > 0 {
		return fmt.Errorf("namespace %s: snapshot closed with %d scans open", s.n.name, s.inUse)
	}
	s.end()
	return nil
}

// indexPrefix returns the key prefix of index ind: namespace prefix, escaped
// bucket name and separator.
func (s *snapshot) indexPrefix(ind int) []byte {
	p := scanPlan{ind: ind}
	return append(append([]byte(nil), s.nsPref...), p.keyPrefix()...)
}

func (s *snapshot) acquire(ind int) (*badger.Iterator, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if err := s.n.s.checkOpen(); err != nil {
		return nil, err
	}
	s.inUse++
	if k := len(s.idle[ind]); k > 0 {
		it := s.idle[ind][k-1]
		s.idle[ind] = s.idle[ind][:k-1]
		return it, nil
	}
	opts := badger.DefaultIteratorOptions
	opts.PrefetchValues = false
	opts.PrefetchSize = 1
	opts.Prefix = s.indexPrefix(ind)
	it, err := newIterator(s.n.s, s.txn, opts)
	if err != nil {
		s.inUse--
	}
	return it, err
}

func (s *snapshot) release(ind int, it *badger.Iterator) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inUse--
	if s.closed {
		it.Close()
		if s.inUse == 0 {
			s.end()
		}
		return
	}
	s.idle[ind] = append(s.idle[ind], it)
}

// match returns an iterator over the quads matching p, like
// Namespace.matchIDs. With merge and Scope AllGraphs it reports each triple
// once (with one of its graphs): the indexes a pattern without a graph scans
// end with the graph, so the copies of a triple are adjacent.
func (s *snapshot) match(p idPattern, merge bool) *snapIter {
	bound, ok := boundOf(p)
	if !ok {
		return &snapIter{done: true}
	}
	plan := planScan(bound)
	it := &snapIter{s: s, p: p, ind: plan.ind, dirs: plan.dirs}
	it.merge = merge && p.Scope == AllGraphs && plan.dirs[3] == quad.Label
	it.skip = len(s.nsPref) + len(scanPlan{ind: plan.ind}.keyPrefix())
	it.plen = len(plan.prefix)
	it.pref = append(append(it.pref, s.nsPref...), plan.keyPrefix()...)
	return it
}

// snapIter iterates over the index keys of one prefix. It is not safe for
// concurrent use; it must be closed.
type snapIter struct {
	s     *snapshot
	it    *badger.Iterator
	p     idPattern
	ind   int
	dirs  [4]quad.Direction
	pref  []byte
	skip  int
	merge bool

	plen int // number of leading index positions the prefix binds

	started, done bool
	cur           idQuad
	n             int
	err           error

	// skipping: quads whose index position plen holds skipVal are passed over (see SkipGroup)
	skipping bool
	skipVal  termID
}

// skipAhead is how many keys SkipGroup reads before it seeks past the rest of a group: short groups
// are cheaper to read than to seek over.
const skipAhead = 16

// SkipGroup makes Next pass over the following quads that hold the current quad's value in position
// pos (quad.Subject, quad.Predicate or quad.Object), when the scan reads them together: pos is the
// first index position the pattern leaves free. Otherwise it does nothing.
func (i *snapIter) SkipGroup(pos quad.Direction) {
	if i.done || i.plen >= len(i.dirs) || i.dirs[i.plen] != pos {
		return
	}
	i.skipping = true
	switch pos {
	case quad.Subject:
		i.skipVal = i.cur.S
	case quad.Predicate:
		i.skipVal = i.cur.P
	case quad.Object:
		i.skipVal = i.cur.O
	default:
		i.skipping = false
	}
}

func quadAt(q idQuad, d quad.Direction) termID {
	switch d {
	case quad.Subject:
		return q.S
	case quad.Predicate:
		return q.P
	case quad.Object:
		return q.O
	}
	return q.G
}

// Next advances to the next matching quad.
func (i *snapIter) Next(ctx context.Context) bool {
	if i.done {
		return false
	}
	if !i.started {
		i.started = true
		it, err := i.s.acquire(i.ind)
		if err != nil {
			i.err, i.done = err, true
			return false
		}
		i.it = it
		it.Seek(i.pref)
	} else {
		i.it.Next()
	}
	skipped := 0
	for ; i.it.ValidForPrefix(i.pref); i.it.Next() {
		if i.n++; i.n&1023 == 0 {
			if err := ctx.Err(); err != nil {
				i.err = err
				i.finish()
				return false
			}
		}
		q, err := decodeIndexKey(i.it.Item().Key()[i.skip:], &i.dirs)
		if err != nil {
			i.err = err
			i.finish()
			return false
		}
		if i.skipping {
			if quadAt(q, i.dirs[i.plen]) == i.skipVal {
				if skipped++; skipped == skipAhead {
					// A long group: seek past it.
					var v [8]byte
					binary.BigEndian.PutUint64(v[:], uint64(i.skipVal))
					next := prefixSuccessor(layout.AppendEscaped(bytes.Clone(i.pref), v[:]))
					if next == nil {
						break
					}
					i.it.Seek(next)
					if !i.it.ValidForPrefix(i.pref) {
						break
					}
					q, err = decodeIndexKey(i.it.Item().Key()[i.skip:], &i.dirs)
					if err != nil {
						i.err = err
						i.finish()
						return false
					}
					i.skipping = false
				} else {
					continue
				}
			} else {
				i.skipping = false
			}
		}
		if !patternMatches(i.p, q) {
			continue
		}
		// cur is the zero quad before the first match; ids are never 0.
		if i.merge && q.S == i.cur.S && q.P == i.cur.P && q.O == i.cur.O {
			continue
		}
		i.cur = q
		return true
	}
	i.finish()
	return false
}

func (i *snapIter) finish() {
	i.done = true
	if i.it != nil {
		i.s.release(i.ind, i.it)
		i.it = nil
	}
}

// Quad returns the current quad.
func (i *snapIter) Quad() idQuad { return i.cur }

// Err returns the error that stopped the iteration, if any.
func (i *snapIter) Err() error { return i.err }

// Close releases the iterator; it is safe to call more than once.
func (i *snapIter) Close() error {
	i.finish()
	return nil
}

// patternMatches reports whether q (read from an index prefix of p) matches p.
func patternMatches(p idPattern, q idQuad) bool {
	if (p.S != 0 && q.S != p.S) || (p.P != 0 && q.P != p.P) || (p.O != 0 && q.O != p.O) {
		return false
	}
	switch p.Scope {
	case DefaultGraph:
		return q.G == 0
	case OneGraph:
		return q.G == p.G
	case NamedGraphs:
		return q.G != 0
	}
	return true
}

// decodeIndexKey decodes the escaped ids of an index key (after its bucket
// and separator) in the index's direction order.
func decodeIndexKey(k []byte, dirs *[4]quad.Direction) (idQuad, error) {
	var ids [32]byte
	n := 0
	for i := 0; i < len(k) && n < len(ids); i++ {
		if k[i] == layout.Esc && i+1 < len(k) {
			i++
		}
		ids[n] = k[i]
		n++
	}
	if n != len(ids) {
		return idQuad{}, fmt.Errorf("%w: index key of %d bytes", ErrCorrupt, n)
	}
	var q idQuad
	for i, d := range dirs {
		id := termID(binary.BigEndian.Uint64(ids[8*i:]))
		switch d {
		case quad.Subject:
			q.S = id
		case quad.Predicate:
			q.P = id
		case quad.Object:
			q.O = id
		case quad.Label:
			q.G = id
		}
	}
	return q, nil
}

// count returns the number of quads matching p, counting at most limit
// (a key-only scan; with merge and Scope AllGraphs triples are counted).
func (s *snapshot) count(ctx context.Context, p idPattern, merge bool, limit int64) (int64, error) {
	it := s.match(p, merge)
	defer it.Close()
	var c int64
	for c < limit && it.Next(ctx) {
		c++
	}
	return c, it.Err()
}

// graphs returns the ids of the graphs holding at least one quad, in key
// order, default graph (0) included. It seeks once per graph over the
// graph-first index instead of reading every quad.
func (s *snapshot) graphs(ctx context.Context) ([]termID, error) {
	gind := -1
	for i, ind := range layout.Indexes {
		if ind.Dirs[0] == quad.Label {
			gind = i
			break
		}
	}
	if gind < 0 {
		return nil, errors.New("no graph index")
	}
	it, err := s.acquire(gind)
	if err != nil {
		return nil, err
	}
	defer s.release(gind, it)
	plan := scanPlan{ind: gind}
	copy(plan.dirs[:], layout.Indexes[gind].Dirs)
	pref := append(append([]byte(nil), s.nsPref...), plan.keyPrefix()...)
	skip := len(pref)
	var out []termID
	seek := pref
	for it.Seek(seek); it.ValidForPrefix(pref); it.Seek(seek) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		q, err := decodeIndexKey(it.Item().Key()[skip:], &plan.dirs)
		if err != nil {
			return nil, err
		}
		out = append(out, q.G)
		// Next: the first key after every key of this graph.
		var g [8]byte
		binary.BigEndian.PutUint64(g[:], uint64(q.G))
		seek = prefixSuccessor(layout.AppendEscaped(append([]byte(nil), pref...), g[:]))
		if seek == nil {
			break
		}
	}
	return out, nil
}

// prefixSuccessor returns the smallest key greater than every key starting
// with p, or nil when there is none.
func prefixSuccessor(p []byte) []byte {
	out := bytes.Clone(p)
	for i := len(out) - 1; i >= 0; i-- {
		if out[i] != 0xff {
			out[i]++
			return out[:i+1]
		}
	}
	return nil
}

// get reads the value of the hierarchical key k into fn.
func (s *snapshot) get(k hkv.Key, fn func(v []byte) error) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false, ErrClosed
	}
	s.buf = append(s.buf[:0], s.nsPref...)
	for i, part := range k {
		if i > 0 {
			s.buf = append(s.buf, layout.Sep)
		}
		s.buf = layout.AppendEscaped(s.buf, part)
	}
	item, err := getItem(s.n.s, s.txn, s.buf)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	return true, item.Value(fn)
}

// ids returns the ids of normalised terms (0 for nil or absent terms).
func (s *snapshot) ids(ctx context.Context, vals []quad.Value) ([]termID, error) {
	out := make([]termID, len(vals))
	for i, v := range vals {
		if v == nil {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		_, err := s.get(layout.Node('v', refs.HashOf(v)), func(b []byte) error {
			id, k := binary.Uvarint(b)
			if k <= 0 {
				return fmt.Errorf("%w: node id of %s", ErrCorrupt, v)
			}
			out[i] = termID(id)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// terms fills the nil entries of out with the terms of ids, through the
// namespace's term cache; unknown ids stay nil.
func (s *snapshot) terms(ctx context.Context, ids []termID, out []quad.Value) error {
	for i, id := range ids {
		if id == 0 || out[i] != nil {
			continue
		}
		if v, ok := s.n.cache.get(id); ok {
			out[i] = v
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		_, err := s.get(layout.Log(uint64(id)), func(b []byte) error {
			// (layout.DecodeTerm: cayley's pquads.UnmarshalValue panics on
			// a term of no known type.)
			v, err := layout.DecodeTerm(b)
			if err != nil {
				return fmt.Errorf("%w: log entry %d: %v", ErrCorrupt, id, err)
			}
			out[i] = v // nil for a quad
			return nil
		})
		if err != nil {
			return err
		}
		if out[i] != nil {
			s.n.cache.put(id, out[i])
		}
	}
	return nil
}
