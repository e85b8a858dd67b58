package engine

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cortexgraph/cortex/cortex/internal/iri"
	"github.com/cortexgraph/cortex/cortex/internal/layout"
	hkv "github.com/hidal-go/hidalgo/kv"

	ckv "github.com/cayleygraph/cayley/graph/kv"
	"github.com/cayleygraph/cayley/graph/proto"
	"github.com/cayleygraph/cayley/graph/refs"
	"github.com/cayleygraph/quad"
	"github.com/dgraph-io/badger/v4"

	"github.com/cortexgraph/cortex/namespace"
)

// Consistency check
//
// Check reads every key of the store and verifies the invariants the
// readers and writers rely on. What it checks, per namespace (see bulk.go
// for the key layout):
//
//   - meta: cayley's data version is present and current; size and horizon
//     are 8-byte integers; the index list decodes;
//   - log: every entry decodes and holds its own id; a node's term decodes;
//     a live quad has a subject, predicate and object;
//   - terms: every node has exactly one 'v' entry (hash of its term → its
//     id, in the bucket of the hash) and one 'n' entry; no 'v' or 'n' entry
//     without its node; no two nodes hold the same term; a node's reference
//     count is exactly the number of quad positions of live quads that use
//     it, and no node is unused (an orphan: deltas delete the terms they
//     free); every term a live quad uses exists;
//   - indexes: every live quad is listed once under its key in every index
//     of the namespace, every listed id is a quad whose terms match the key,
//     lists ascend; with Cortex's indexes (each covering all four positions:
//     the layout of every namespace Cortex creates) a key lists exactly one
//     live quad and never a removed one (index-only scans rely on it, see
//     scan.go). The index list must be Cortex's (layout.Indexes): reads
//     and deltas use those whatever the list says, so the quads of any
//     other index are invisible to them. The other checks still follow the
//     list (partial indexes, as cayley's layout and Cortex's earlier ones
//     have them, may list removed quads, as cayley's own delete path leaves
//     them);
//   - size is the number of live quads; the horizon is at least every id;
//   - pins: each decodes and holds the term of its node, which exists;
//   - import records (resume.go): each decodes, has a valid import id,
//     target (none, default or a graph's term) and base (none or an
//     absolute IRI) and is stored under the hash of its source's name;
//   - side tables (side.go): the store cannot know what a host's rows mean,
//     so it checks what it defines: table names are valid, rows decode, a
//     stamp is a (horizon, size) pair that the namespace can have had (size
//     at most the horizon; not past the current horizon; at the current
//     horizon, not below the current size, as only removals lower it);
//   - every key belongs to one of these buckets (or is an empty bucket
//     marker of a bucket cayley's kv.Init writes one for: meta, log, an
//     index's, a term bucket).
//
// And for the store: every namespace registry entry has a valid name and
// decodes, with a valid base, and has a namespace (meta version) behind it;
// every key is a registry entry or belongs to a namespace. Keys of a
// namespace without a registry entry are not a problem: they are left by a
// DeleteNamespace that was cut short (or a creation cut short before its
// registry entry), are invisible, and are dropped by the next read-write
// Open or when a namespace of that name is created again; Check reports
// them to the store's Logger, if any.
//
// Reference counts are exact because Cortex writes the format itself
// (write.go, bulk.go, journal.go). Cayley's own write path (its
// QuadWriter, ApplyDeltas) over-counts a node when a quad is added again
// and leaves removed quads in the index lists; Cortex never uses it, and a
// namespace written by it can fail the check (over-counted references; with
// full indexes, removed quads listed).

// maxCheckProblems bounds the problems a *CheckError lists.
const maxCheckProblems = 20

// Check verifies the store's on-disk invariants (see "Consistency check"
// in check.go): every index holds exactly the live quads, sizes and
// reference counts are exact, no term is orphaned, pins, import records
// and side tables decode and are consistent, and every key belongs
// somewhere. It returns nil when the store is consistent, a *CheckError
// (matching ErrCorrupt) listing the first problems and their count when it
// is not, and another error when it cannot read the store (ErrClosed, the
// context's error, I/O).
//
// Check never writes: it works on a store opened read-only. It is safe for
// concurrent use. Each namespace is checked in one read transaction, a
// consistent snapshot, while writes go on: like a query, that transaction
// holds back a journaled delta or streamed import segment of another
// goroutine (see "Concurrency" in doc.go) until it ends.
//
// Cost: Check reads every key and value of the store once, decodes every
// term, and holds a record of every term (with its text) and every live
// quad of the namespace being checked in memory. BenchmarkCheck (100,000
// quads of team data in one namespace, on a shared 2-core machine): 0.36 to
// 0.48 s per check, 63 MB and 0.4 million allocations.
func (s *Store) Check(ctx context.Context) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("check: %w", err)
	}
	var p checkProblems
	names, err := s.checkRegistry(ctx, &p)
	if err != nil {
		return fmt.Errorf("check: %w", s.closedErr(err))
	}
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("check: %w", err)
		}
		if err := s.checkNamespace(ctx, name, &p); err != nil && !errors.Is(err, ErrNoNamespace) {
			return fmt.Errorf("check: namespace %s: %w", name, s.closedErr(err))
		}
	}
	return p.err()
}

// Check verifies the invariants of namespace n as Store.Check does (see
// there), in one read transaction: nil if it is consistent, a *CheckError
// (matching ErrCorrupt) if not, an error matching ErrNoNamespace if it was
// deleted. It never writes and is safe for concurrent use.
func (n *Namespace) Check(ctx context.Context) error {
	if err := n.s.checkOpen(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("check: namespace %s: %w", n.name, err)
	}
	if err := n.Err(); err != nil {
		// Deleted: not the namespace created again under its name.
		return fmt.Errorf("check: %w", err)
	}
	var p checkProblems
	if err := n.s.checkNamespace(ctx, n.name, &p); err != nil {
		return fmt.Errorf("check: namespace %s: %w", n.name, n.s.closedErr(err))
	}
	return p.err()
}

// checkProblems collects problems: the first maxCheckProblems, and a count.
type checkProblems struct {
	list  []string
	total int
}

func (p *checkProblems) add(format string, args ...any) {
	p.total++
	if len(p.list) < maxCheckProblems {
		p.list = append(p.list, fmt.Sprintf(format, args...))
	}
}

func (p *checkProblems) err() error {
	if p.total == 0 {
		return nil
	}
	return &CheckError{Problems: p.list, Total: p.total}
}

// checkRegistry checks the store-level keys (registry entries, and that
// every other key belongs to a namespace) and returns the names of the
// registered namespaces, sorted.
func (s *Store) checkRegistry(ctx context.Context, p *checkProblems) ([]string, error) {
	var names []string
	data := map[string]bool{}
	err := s.view(ctx, func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.PrefetchValues = false
		it, err := newIterator(s, txn, opts)
		if err != nil {
			return err
		}
		defer it.Close()
		i := 0
		for it.Rewind(); it.Valid(); {
			if i++; i%4096 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			item := it.Item()
			k := item.Key()
			switch {
			case bytes.HasPrefix(k, []byte(registryPrefix)):
				name := string(k[len(registryPrefix):])
				if err := namespace.ValidateName(name); err != nil {
					p.add("registry entry %q: %v", k, err)
					break
				}
				names = append(names, name)
				err := item.Value(func(v []byte) error {
					checkRegistryValue(name, v, p)
					return nil
				})
				if err != nil {
					return err
				}
			case bytes.HasPrefix(k, []byte(dataPrefix)):
				rest := k[len(dataPrefix):]
				slash := bytes.IndexByte(rest, '/')
				if slash < 0 || namespace.ValidateName(string(rest[:slash])) != nil {
					p.add("key %q: not a key of a namespace", k)
					break
				}
				name := string(rest[:slash])
				data[name] = true
				// Skip the namespace's keys: '0' follows '/'.
				it.Seek([]byte(dataPrefix + name + "0"))
				continue
			case bytes.Equal(k, flushKey):
				// Left by a crash in the middle of flushMemtables; the
				// next read-write Open drops it.
			default:
				p.add("key %q: neither a namespace registry entry nor a key of a namespace", k)
			}
			it.Next()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	for _, name := range names {
		delete(data, name)
	}
	if s.opts.logger != nil && len(data) > 0 {
		left := make([]string, 0, len(data))
		for name := range data {
			left = append(left, name)
		}
		sort.Strings(left)
		s.opts.logger.Printf("check: keys of deleted namespaces %s are left (a deletion was cut short); they are dropped by the next read-write open or when a namespace of that name is created again",
			strings.Join(left, ", "))
	}
	return names, nil
}

// checkRegistryValue checks the registry entry of namespace name.
func checkRegistryValue(name string, v []byte, p *checkProblems) {
	if len(v) == 0 {
		return // written before bases were recorded: the default base
	}
	var r registryValue
	if err := json.Unmarshal(v, &r); err != nil {
		p.add("namespace %s: registry entry %q: %v", name, v, err)
		return
	}
	base := r.Base
	if base == "" {
		base = namespace.DefaultBasePrefix + name
	}
	if _, err := namespace.New(name, namespace.WithBase(base)); err != nil {
		p.add("namespace %s: registry entry: %v", name, err)
	}
}

// nsCheck is the state of the check of one namespace.
type nsCheck struct {
	s      *Store
	ctx    context.Context
	p      *checkProblems
	name   string
	prefix []byte // the namespace's key prefix in the Badger database

	inds    []ckv.QuadIndex
	buckets []string // bucket of each index
	full    []bool   // index i covers all four positions
	anyFull int      // an index covering all four positions, or -1

	horizon, size int64
	maxID         uint64

	// Nodes and live quads, as read from the log, and their positions by
	// id; nodes by term hash.
	nodes  []checkNode
	nodeAt map[uint64]int32
	byHash map[refs.ValueHash]int32
	quads  []checkQuad
	quadAt map[uint64]int32
	dead   map[uint64]struct{} // removed quads (log entries marked deleted)
	pins   []checkPin
	dec    sideDecoder
	vbuf   []byte // the value last read (value)
}

type checkNode struct {
	id    uint64
	hash  refs.ValueHash
	val   quad.Value
	uses  uint64 // quad positions of live quads using the node
	count uint64 // its 'n' entry
	hasV  bool
	hasN  bool
}

type checkQuad struct {
	id   uint64
	ids  [4]uint64 // subject, predicate, object, label
	seen uint64    // bit i: listed in index i
}

type checkPin struct {
	id   uint64
	hash refs.ValueHash
}

// checkNamespace checks namespace name in one read transaction. A name
// without a registry entry in that snapshot is an error matching
// ErrNoNamespace.
func (s *Store) checkNamespace(ctx context.Context, name string, p *checkProblems) error {
	c := &nsCheck{s: s, ctx: ctx, p: p, name: name, prefix: []byte(dataPrefix + name + "/"), anyFull: -1,
		dead: map[uint64]struct{}{},
		dec:  sideDecoder{intern: map[string]string{}}}
	return s.view(ctx, func(txn *badger.Txn) error {
		item, err := getItem(s, txn, []byte(registryPrefix+name))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return fmt.Errorf("%w %q", ErrNoNamespace, name)
		} else if err != nil {
			return err
		}
		if err := item.Value(func(v []byte) error { checkRegistryValue(name, v, p); return nil }); err != nil {
			return err
		}
		if ok, err := c.meta(txn); err != nil || !ok {
			return err
		}
		// Room for the live quads the meta says there are (within reason: it
		// may be wrong), and about as many terms.
		hint := int(min(max(c.size, 0), 1<<22))
		c.quads, c.quadAt = make([]checkQuad, 0, hint), make(map[uint64]int32, hint)
		c.nodes, c.nodeAt = make([]checkNode, 0, hint), make(map[uint64]int32, hint)
		c.byHash = make(map[refs.ValueHash]int32, hint)
		if err := c.log(txn); err != nil {
			return err
		}
		c.countUses()
		if err := c.rest(txn); err != nil {
			return err
		}
		c.verify()
		return nil
	})
}

func (c *nsCheck) add(format string, args ...any) {
	c.p.add("namespace "+c.name+": "+format, args...)
}

// get reads the value of key k of the namespace (nil, false if absent).
func (c *nsCheck) get(txn *badger.Txn, k ...[]byte) ([]byte, bool, error) {
	item, err := getItem(c.s, txn, layout.Escape(slices.Clip(c.prefix), k))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, false, nil
	} else if err != nil {
		return nil, false, err
	}
	v, err := item.ValueCopy(nil)
	return v, true, err
}

// meta reads the meta entries; ok is false if the namespace has no data
// version (then nothing else is checked).
func (c *nsCheck) meta(txn *badger.Txn) (ok bool, err error) {
	meta := layout.MetaBucket
	v, found, err := c.get(txn, meta, layout.Version[1])
	if err != nil {
		return false, err
	}
	if !found {
		c.add("no data version (meta/version): not a cayley quadstore")
		return false, nil
	}
	if len(v) != 8 || binary.LittleEndian.Uint64(v) != layout.DataVersion {
		c.add("data version %x, want %d", v, layout.DataVersion)
	}
	for _, m := range []struct {
		key []byte
		dst *int64
	}{{layout.Horizon[1], &c.horizon}, {layout.Size[1], &c.size}} {
		v, _, err := c.get(txn, meta, m.key)
		if err != nil {
			return false, err
		}
		if len(v) != 0 && len(v) != 8 {
			c.add("meta/%s holds %d bytes, want 8", m.key, len(v))
			continue
		}
		*m.dst, _ = metaInt(v)
	}
	v, found, err = c.get(txn, meta, layout.IndexList[1])
	if err != nil {
		return false, err
	}
	if found {
		if err := json.Unmarshal(v, &c.inds); err != nil {
			c.add("meta/indexes %q: %v", v, err)
		}
	}
	if len(c.inds) == 0 {
		// No list: cayley's legacy indexes (as readIndexes).
		c.inds = []ckv.QuadIndex{{Dirs: []quad.Direction{quad.Subject}}, {Dirs: []quad.Direction{quad.Object}}}
	}
	if len(c.inds) > 64 {
		c.add("%d indexes (at most 64 are checked)", len(c.inds))
		c.inds = c.inds[:64]
	}
	for i, ind := range c.inds {
		var dirs uint8
		valid := len(ind.Dirs) > 0 && len(ind.Dirs) <= 4
		b := make([]byte, 0, 4)
		for _, d := range ind.Dirs {
			switch d {
			case quad.Subject, quad.Predicate, quad.Object, quad.Label:
				valid = valid && dirs&(1<<layout.DirIndex(d)) == 0
				dirs |= 1 << layout.DirIndex(d)
			default:
				valid = false
			}
			b = append(b, d.Prefix())
		}
		if !valid {
			c.add("index %d has directions %v", i, ind.Dirs)
		}
		c.buckets = append(c.buckets, string(b))
		c.full = append(c.full, dirs == 0b1111)
		if dirs == 0b1111 && c.anyFull < 0 {
			c.anyFull = i
		}
	}
	// Reads and deltas use Cortex's indexes whatever the list says (scan.go,
	// write.go): the quads of any other index are invisible to them.
	if !slices.Equal(c.buckets, cortexBuckets) {
		c.add("indexes %v, want Cortex's %v (reads and deltas use only these)", c.buckets, cortexBuckets)
	}
	return true, nil
}

// cortexBuckets are the buckets of layout.Indexes, as nsCheck names them.
var cortexBuckets = func() []string {
	out := make([]string, len(layout.IndexBuckets))
	for i, b := range layout.IndexBuckets {
		out[i] = string(b)
	}
	return out
}()

// iterate calls fn with the parts of every key of the namespace under
// bucket (all keys if bucket is nil), unescaped, and its item. fn may
// return a key to seek to (escaped, after the namespace prefix).
func (c *nsCheck) iterate(txn *badger.Txn, bucket []byte, fn func(parts [][]byte, item *badger.Item) ([]byte, error)) error {
	opts := badger.DefaultIteratorOptions
	opts.PrefetchValues = false
	opts.Prefix = slices.Clip(c.prefix)
	if bucket != nil {
		opts.Prefix = append(layout.Escape(opts.Prefix, [][]byte{bucket}), '/')
	}
	it, err := newIterator(c.s, txn, opts)
	if err != nil {
		return err
	}
	defer it.Close()
	var parts [][]byte
	var seek, scratch []byte
	i := 0
	for it.Rewind(); it.Valid(); {
		if i++; i%4096 == 0 {
			if err := c.ctx.Err(); err != nil {
				return err
			}
		}
		item := it.Item()
		k := item.Key()[len(c.prefix):]
		var ok bool
		if parts, scratch, ok = splitKey(parts[:0], scratch, k); !ok {
			c.add("key %q: bad escaping", k)
			it.Next()
			continue
		}
		to, err := fn(parts, item)
		if err != nil {
			return err
		}
		if to != nil {
			seek = append(append(seek[:0], c.prefix...), to...)
			it.Seek(seek)
			continue
		}
		it.Next()
	}
	return nil
}

// splitKey splits the escaped key k (see escapeKey) into its parts,
// appended to dst; ok is false for a dangling escape. Unescaped parts are
// written to scratch (grown to len(k) if needed, and returned), so they are
// valid until its next use.
func splitKey(dst [][]byte, scratch, k []byte) (_ [][]byte, _ []byte, ok bool) {
	if bytes.IndexByte(k, layout.Esc) < 0 {
		for {
			i := bytes.IndexByte(k, layout.Sep)
			if i < 0 {
				return append(dst, k), scratch, true
			}
			dst = append(dst, k[:i])
			k = k[i+1:]
		}
	}
	scratch = slices.Grow(scratch[:0], len(k)) // never reallocated below
	start := 0
	for i := 0; i < len(k); i++ {
		switch k[i] {
		case layout.Esc:
			if i++; i == len(k) {
				return dst, scratch, false
			}
		case layout.Sep:
			dst = append(dst, scratch[start:len(scratch):len(scratch)])
			start = len(scratch)
			continue
		}
		scratch = append(scratch, k[i])
	}
	return append(dst, scratch[start:len(scratch):len(scratch)]), scratch, true
}

// log reads the quad log: nodes, live and removed quads.
func (c *nsCheck) log(txn *badger.Txn) error {
	return c.iterate(txn, layout.LogBucket, func(parts [][]byte, item *badger.Item) ([]byte, error) {
		if len(parts) == 2 && len(parts[1]) == 0 {
			return nil, c.marker(parts, item)
		}
		if len(parts) != 2 || len(parts[1]) != 8 {
			c.add("log key %q: want an 8-byte id", item.Key()[len(c.prefix):])
			return nil, nil
		}
		id := binary.BigEndian.Uint64(parts[1])
		c.maxID = max(c.maxID, id)
		v, err := c.value(item)
		if err == nil {
			c.logEntry(id, v)
		}
		return nil, err
	})
}

func (c *nsCheck) logEntry(id uint64, v []byte) {
	var prim proto.Primitive
	if err := prim.Unmarshal(v); err != nil {
		c.add("log entry %d: %v", id, err)
		return
	}
	if prim.ID != id {
		c.add("log entry %d holds id %d", id, prim.ID)
	}
	if prim.IsNode() {
		val, err := layout.DecodeTerm(v) // (pquads.UnmarshalValue can panic)
		if err != nil || val == nil {
			c.add("node %d: term does not decode (%v)", id, err)
			return
		}
		h := refs.HashOf(val)
		i := int32(len(c.nodes))
		if other, dup := c.byHash[h]; dup {
			c.add("nodes %d and %d hold the same term %v", c.nodes[other].id, id, val)
		} else {
			c.byHash[h] = i
		}
		c.nodeAt[id] = i
		c.nodes = append(c.nodes, checkNode{id: id, hash: h, val: val})
		return
	}
	if prim.Deleted {
		c.dead[id] = struct{}{}
		return
	}
	if prim.Subject == 0 || prim.Predicate == 0 || prim.Object == 0 {
		c.add("quad %d lacks a subject, predicate or object (%d %d %d)", id, prim.Subject, prim.Predicate, prim.Object)
	}
	c.quadAt[id] = int32(len(c.quads))
	c.quads = append(c.quads, checkQuad{id: id, ids: [4]uint64{prim.Subject, prim.Predicate, prim.Object, prim.Label}})
}

// node returns the node of id, or nil.
func (c *nsCheck) node(id uint64) *checkNode {
	if i, ok := c.nodeAt[id]; ok {
		return &c.nodes[i]
	}
	return nil
}

// quad returns the live quad of id, or nil.
func (c *nsCheck) quad(id uint64) *checkQuad {
	if i, ok := c.quadAt[id]; ok {
		return &c.quads[i]
	}
	return nil
}

// countUses counts the references of live quads to nodes.
func (c *nsCheck) countUses() {
	for _, q := range c.quads {
		for _, x := range q.ids {
			if x == 0 {
				continue
			}
			if nd := c.node(x); nd != nil {
				nd.uses++
			} else {
				c.add("quad %d uses node %d, which does not exist", q.id, x)
			}
		}
	}
}

// value returns the value of item, valid until the next call.
func (c *nsCheck) value(item *badger.Item) ([]byte, error) {
	v, err := item.ValueCopy(c.vbuf[:0])
	c.vbuf = v
	return v, err
}

// marker checks a bucket marker (kv.CreateBucket: the bucket and an empty
// part, no value) of a bucket cayley's kv.Init can create (markerBucket).
func (c *nsCheck) marker(parts [][]byte, item *badger.Item) error {
	if !markerBucket(parts[0]) {
		c.add("marker %q of an unknown bucket", item.Key()[len(c.prefix):])
		return nil
	}
	if item.ValueSize() > 0 {
		return item.Value(func(v []byte) error {
			if len(v) > 0 {
				c.add("bucket marker %q holds a value", parts[0])
			}
			return nil
		})
	}
	return nil
}

// markerBucket reports whether cayley's kv.Init writes a marker for bucket
// b (createBuckets): meta, log, an index's bucket (the prefixes of one to
// four distinct directions: its default indexes', the legacy ones', or those
// CAYLEY_KV_INDEXES gave when the namespace was created) and, when created
// upfront, a term bucket ('v' or 'n' and two hash bytes). Cortex writes no
// other (pins, import records and side tables have none).
func markerBucket(b []byte) bool {
	switch {
	case string(b) == string(layout.MetaBucket), string(b) == string(layout.LogBucket):
		return true
	case len(b) == 3 && (b[0] == 'v' || b[0] == 'n'):
		return true
	case len(b) == 0 || len(b) > 4:
		return false
	}
	var seen uint8
	for _, d := range b {
		dir := quad.Direction(0)
		switch d {
		case quad.Subject.Prefix():
			dir = quad.Subject
		case quad.Predicate.Prefix():
			dir = quad.Predicate
		case quad.Object.Prefix():
			dir = quad.Object
		case quad.Label.Prefix():
			dir = quad.Label
		default:
			return false
		}
		bit := uint8(1) << layout.DirIndex(dir)
		if seen&bit != 0 {
			return false
		}
		seen |= bit
	}
	return true
}

// rest checks every key but the log's.
func (c *nsCheck) rest(txn *badger.Txn) error {
	logEnd := layout.Escape(nil, [][]byte{layout.LogBucket})
	logEnd = append(logEnd, layout.Sep+1) // just past the log's keys
	return c.iterate(txn, nil, func(parts [][]byte, item *badger.Item) ([]byte, error) {
		b := parts[0]
		if string(b) == string(layout.LogBucket) && len(parts) > 1 {
			return logEnd, nil
		}
		if len(parts) == 2 && len(parts[1]) == 0 {
			return nil, c.marker(parts, item)
		}
		for i, bucket := range c.buckets {
			if string(b) == bucket {
				return nil, c.index(i, parts, item)
			}
		}
		switch {
		case string(b) == string(layout.MetaBucket):
			if len(parts) != 2 || !slices.ContainsFunc([]hkv.Key{layout.Version, layout.Horizon, layout.Size, layout.IndexList}, func(k hkv.Key) bool { return string(k[1]) == string(parts[1]) }) {
				c.add("unknown key %q", item.Key()[len(c.prefix):])
			}
			return nil, nil
		case len(b) == 3 && (b[0] == 'v' || b[0] == 'n'):
			return nil, c.termEntry(parts, item)
		case string(b) == string(layout.PinBucket):
			return nil, c.pin(parts, item)
		case string(b) == string(importsBucket):
			return nil, c.importRecord(parts, item)
		case string(b) == string(sideBucket):
			return nil, c.side(parts, item)
		}
		c.add("unknown key %q", item.Key()[len(c.prefix):])
		return nil, nil
	})
}

// termEntry checks a 'v' (term → id) or 'n' (reference count) entry.
func (c *nsCheck) termEntry(parts [][]byte, item *badger.Item) error {
	b := parts[0]
	if len(parts) != 2 || len(parts[1]) != quad.HashSize {
		c.add("key %q: want a %d-byte hash", item.Key()[len(c.prefix):], quad.HashSize)
		return nil
	}
	var h refs.ValueHash
	copy(h[:], parts[1])
	if b[1] != h[0] || b[2] != h[1] {
		c.add("%c entry %x in bucket %x", b[0], h[:], b[1:])
	}
	v, err := c.value(item)
	if err != nil {
		return err
	}
	return func() error {
		x, m := binary.Uvarint(v)
		if m <= 0 || m != len(v) {
			c.add("%c entry %x: value %x is not a varint", b[0], h[:], v)
			return nil
		}
		i, ok := c.byHash[h]
		var nd *checkNode
		if ok {
			nd = &c.nodes[i]
		}
		switch {
		case b[0] == 'v' && !ok:
			c.add("v entry %x maps to id %d, but no node holds its term (orphan)", h[:], x)
		case b[0] == 'v' && nd.id != x:
			c.add("v entry of %v maps to id %d, not to its node %d", nd.val, x, nd.id)
		case b[0] == 'v':
			nd.hasV = true
		case !ok:
			c.add("n entry %x counts %d references, but no node holds its term (orphan)", h[:], x)
		default:
			nd.hasN, nd.count = true, x
		}
		return nil
	}()
}

// index checks an entry of index i: its key, and the quads it lists.
func (c *nsCheck) index(i int, parts [][]byte, item *badger.Item) error {
	ind := c.inds[i]
	key := item.Key()[len(c.prefix):]
	if len(parts) != 2 || len(parts[1]) != 8*len(ind.Dirs) {
		c.add("index %s: key %q: want %d ids", c.buckets[i], key, len(ind.Dirs))
		return nil
	}
	v, err := c.value(item)
	if err != nil {
		return err
	}
	return func() error {
		if len(v) == 0 {
			c.add("index %s: key %x lists no quad", c.buckets[i], parts[1])
			return nil
		}
		var prev, firstLive uint64
		live := 0
		for r, j := v, 0; len(r) > 0; j++ {
			id, m := binary.Uvarint(r)
			if m <= 0 {
				c.add("index %s: key %x: bad list %x", c.buckets[i], parts[1], v)
				return nil
			}
			r = r[m:]
			if j > 0 && id <= prev {
				c.add("index %s: key %x: list %x does not ascend", c.buckets[i], parts[1], v)
			}
			prev = id
			q := c.quad(id)
			if q == nil {
				if _, dead := c.dead[id]; !dead {
					c.add("index %s: key %x lists %d, which is not a quad", c.buckets[i], parts[1], id)
				} else if c.full[i] {
					c.add("index %s: key %x lists quad %d, which was removed", c.buckets[i], parts[1], id)
				}
				continue
			}
			if live++; live == 1 {
				firstLive = id
			} else if c.full[i] {
				c.add("quads %d and %d are the same quad (index %s)", firstLive, id, c.buckets[i])
			}
			for j, d := range ind.Dirs {
				if binary.BigEndian.Uint64(parts[1][8*j:]) != q.ids[layout.DirIndex(d)] {
					c.add("index %s: key %x lists quad %d %v, which does not match it", c.buckets[i], parts[1], id, q.ids)
					break
				}
			}
			if q.seen&(1<<i) != 0 {
				c.add("index %s lists quad %d twice", c.buckets[i], id)
			}
			q.seen |= 1 << i
		}
		return nil
	}()
}

// pin checks a pin: the log entry of a node that exists, with its term.
func (c *nsCheck) pin(parts [][]byte, item *badger.Item) error {
	if len(parts) != 2 || len(parts[1]) != 8 {
		c.add("pin key %q: want an 8-byte id", item.Key()[len(c.prefix):])
		return nil
	}
	id := binary.BigEndian.Uint64(parts[1])
	v, err := c.value(item)
	if err != nil {
		return err
	}
	return func() error {
		var prim proto.Primitive
		if err := prim.Unmarshal(v); err != nil || prim.ID != id || !prim.IsNode() {
			c.add("pin %d: not the entry of node %d (id %d, node %v, %v)", id, id, prim.ID, prim.IsNode(), err)
			return nil
		}
		val, err := layout.DecodeTerm(v)
		if err != nil || val == nil {
			c.add("pin %d: term does not decode (%v)", id, err)
			return nil
		}
		c.pins = append(c.pins, checkPin{id: id, hash: refs.HashOf(val)})
		return nil
	}()
}

// importRecord checks the record of an unfinished import (resume.go).
func (c *nsCheck) importRecord(parts [][]byte, item *badger.Item) error {
	key := item.Key()[len(c.prefix):]
	if len(parts) != 2 {
		c.add("unknown key %q", key)
		return nil
	}
	v, err := c.value(item)
	if err != nil {
		return err
	}
	return func() error {
		rec, err := decodeImportRecord(v)
		if err != nil {
			c.add("import record %s: %q: %v", parts[1], v, err)
			return nil
		}
		if err := CheckImportID(rec.ID); err != nil {
			c.add("import record %s: %v", parts[1], err)
		}
		if want := importKey(rec.Name)[1]; !bytes.Equal(parts[1], want) {
			c.add("import record %s of source %q: its key should be %s", parts[1], rec.Name, want)
		}
		if !validImportTarget(rec.Target) {
			c.add("import record %s: target %q is neither %q, %q nor a graph's N-Quads term", parts[1], rec.Target, targetNone, targetDefault)
		}
		if rec.Base != "" && !iri.HasScheme(rec.Base) {
			c.add("import record %s: base %q is not an absolute IRI", parts[1], rec.Base)
		}
		return nil
	}()
}

// validImportTarget reports whether target is an UnfinishedImport.Target
// that importTarget can return (or "", a record written before targets
// were), in its canonical form: beginImport compares it as a string.
func validImportTarget(target string) bool {
	var g quad.Value
	switch {
	case target == "", target == targetNone, target == targetDefault:
		return true
	case strings.HasPrefix(target, "<") && strings.HasSuffix(target, ">") && len(target) >= 2:
		g = quad.IRI(target[1 : len(target)-1])
	case strings.HasPrefix(target, "_:"):
		g = quad.BNode(target[2:])
	default:
		return false
	}
	n, err := normalizeNode(g, "graph", false)
	return err == nil && n.String() == target
}

// side checks a side-table stamp or row (side.go).
func (c *nsCheck) side(parts [][]byte, item *badger.Item) error {
	key := item.Key()[len(c.prefix):]
	if len(parts) < 2 || len(parts) > 3 || !namespace.ValidName(string(parts[1])) {
		c.add("side-table key %q: not a stamp or row of a valid table", key)
		return nil
	}
	table := string(parts[1])
	v, err := c.value(item)
	if err != nil {
		return err
	}
	return func() error {
		if len(parts) == 3 {
			if _, err := c.dec.row(v); err != nil {
				c.add("side table %s: row %q does not decode: %v", table, parts[2], err)
			}
			return nil
		}
		if len(v) != 16 {
			c.add("side table %s: stamp of %d bytes, want 16", table, len(v))
			return nil
		}
		h, sz := int64(binary.LittleEndian.Uint64(v)), int64(binary.LittleEndian.Uint64(v[8:]))
		switch {
		case h < 0 || sz < 0 || sz > h:
			c.add("side table %s: stamp (horizon %d, size %d) is impossible", table, h, sz)
		case h > c.horizon:
			c.add("side table %s: stamp horizon %d is past the namespace's %d", table, h, c.horizon)
		case h == c.horizon && sz < c.size:
			c.add("side table %s: stamp (horizon %d, size %d) is below the namespace's size %d at the same horizon", table, h, sz, c.size)
		}
		return nil
	}()
}

// verify checks what needs the whole namespace read: terms, index
// coverage, size, horizon and pins.
func (c *nsCheck) verify() {
	switch {
	case c.horizon < 0 && c.maxID == 0:
		c.add("meta horizon %d is negative", c.horizon)
	case c.horizon < 0 || uint64(c.horizon) < c.maxID:
		c.add("meta horizon %d is below id %d", c.horizon, c.maxID)
	}
	if c.size != int64(len(c.quads)) {
		c.add("meta size %d, but %d live quads", c.size, len(c.quads))
	}
	// Problems in id order: nodes, then quads.
	var bad []int
	for i := range c.nodes {
		if nd := &c.nodes[i]; !nd.hasV || !nd.hasN || nd.uses == 0 || nd.count != nd.uses {
			bad = append(bad, i)
		}
	}
	slices.SortFunc(bad, func(a, b int) int { return cmp.Compare(c.nodes[a].id, c.nodes[b].id) })
	for _, i := range bad {
		nd := &c.nodes[i]
		switch {
		case !nd.hasV:
			c.add("node %d %v has no v entry (term → id)", nd.id, nd.val)
		case !nd.hasN:
			c.add("node %d %v has no reference count", nd.id, nd.val)
		case nd.uses == 0:
			c.add("node %d %v is used by no quad (orphan term; reference count %d)", nd.id, nd.val, nd.count)
		default:
			c.add("node %d %v: reference count %d, used %d times", nd.id, nd.val, nd.count, nd.uses)
		}
	}
	bad = bad[:0]
	all := uint64(1)<<len(c.inds) - 1
	for i := range c.quads {
		if c.quads[i].seen != all {
			bad = append(bad, i)
		}
	}
	slices.SortFunc(bad, func(a, b int) int { return cmp.Compare(c.quads[a].id, c.quads[b].id) })
	for _, i := range bad {
		q := &c.quads[i]
		for j := range c.inds {
			if q.seen&(1<<j) == 0 {
				c.add("quad %d %v is missing from index %s", q.id, q.ids, c.buckets[j])
			}
		}
	}
	for _, pin := range c.pins {
		switch nd := c.node(pin.id); {
		case nd == nil:
			c.add("pin %d: no such node", pin.id)
		case nd.hash != pin.hash:
			c.add("pin %d holds another term than node %d %v", pin.id, pin.id, nd.val)
		}
	}
}
