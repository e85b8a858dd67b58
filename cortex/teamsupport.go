package cortex

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/cayleygraph/cayley/graph/proto"
	"github.com/cayleygraph/quad"
	"github.com/cayleygraph/quad/pquads"
	"github.com/dgraph-io/badger/v4"
	hkv "github.com/hidal-go/hidalgo/kv"
)

// TermsBatch returns the terms of ids (nil for 0 or an unknown id), like
// Terms, but is built for thousands of ids at once: each distinct id is read
// once, and the misses of the term cache are read in key order through one
// Badger iterator of one snapshot, stepping to near neighbours (ids written
// by the same write are adjacent in the log) and seeking across larger gaps,
// instead of one point lookup per id; large batches are split into key
// ranges read concurrently. Resolved terms enter the term cache.
//
// It is safe for concurrent use and sees committed data only.
func (n *Namespace) TermsBatch(ctx context.Context, ids []ID) ([]quad.Value, error) {
	return n.termsBatch(ctx, ids, false)
}

// PinnedTermsBatch is TermsBatch for ids that are mostly pinned (see
// Delta.Pin): the misses of the term cache are read from the pins first, a
// small table read in key order, and only those still missing from the log.
// For ids that are not pinned it costs up to a seek each more than
// TermsBatch.
//
// It is safe for concurrent use and sees committed data only.
func (n *Namespace) PinnedTermsBatch(ctx context.Context, ids []ID) ([]quad.Value, error) {
	return n.termsBatch(ctx, ids, true)
}

// Pins returns every pin of the namespace (see Delta.Pin): node id → term.
// It is for diagnostics and tests; it reads the whole pin table.
func (n *Namespace) Pins(ctx context.Context) (map[ID]quad.Value, error) {
	if err := n.s.checkOpen(); err != nil {
		return nil, err
	}
	out := map[ID]quad.Value{}
	err := hkv.View(n.kv, func(tx hkv.Tx) error {
		it := tx.Scan(hkv.Key{pinBucket})
		defer it.Close()
		for it.Next(ctx) {
			k := it.Key()
			if len(k) != 2 || len(k[1]) != 8 {
				continue // the bucket's marker
			}
			v, err := decodeLogTerm(it.Val())
			if err != nil {
				return fmt.Errorf("%w: pin %x: %v", ErrCorrupt, k[1], err)
			}
			out[ID(binary.BigEndian.Uint64(k[1]))] = v
		}
		return it.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("namespace %s: read pins: %w", n.name, err)
	}
	return out, nil
}

func (n *Namespace) termsBatch(ctx context.Context, ids []ID, pinned bool) ([]quad.Value, error) {
	if err := n.s.checkOpen(); err != nil {
		return nil, err
	}
	out := make([]quad.Value, len(ids))
	miss := n.cache.getMany(ids, out)
	if len(miss) == 0 {
		return out, nil
	}
	// One want per missing occurrence, sorted by key below: duplicates
	// become adjacent and are read once.
	wants := make([]logWant, len(miss))
	for j, i := range miss {
		wants[j] = logWant{id: ids[i], rank: logKeyRank(ids[i]), slot: int32(i)}
	}
	vals := make([]quad.Value, len(wants))
	if err := n.readWants(ctx, wants, vals, pinned); err != nil {
		return nil, fmt.Errorf("namespace %s: read terms: %w", n.name, err)
	}
	n.cache.putWants(wants, vals)
	for k, w := range wants {
		out[w.slot] = vals[k]
	}
	return out, nil
}

// readWants reads the terms of wants into vals: from the pins first if
// pinned, then the rest from the log.
func (n *Namespace) readWants(ctx context.Context, wants []logWant, vals []quad.Value, pinned bool) error {
	if pinned {
		if err := n.readLogBatch(ctx, pinBucket, wants, vals); err != nil {
			return err
		}
		// Keep reading what the pins lacked (wants stay sorted).
		var rest []logWant
		var at []int
		for k := range wants {
			if vals[k] == nil {
				rest = append(rest, wants[k])
				at = append(at, k)
			}
		}
		if len(rest) == 0 {
			return nil
		}
		got := make([]quad.Value, len(rest))
		if err := n.readWants(ctx, rest, got, false); err != nil {
			return err
		}
		for j, k := range at {
			vals[k] = got[j]
		}
		return nil
	}
	if len(wants) < minBatch {
		// Opening an iterator costs more than a few point reads.
		wantIDs := make([]ID, len(wants))
		for k, w := range wants {
			wantIDs[k] = w.id
		}
		return n.lookupTerms(ctx, wantIDs, vals)
	}
	return n.readLogBatch(ctx, logBucket, wants, vals)
}

// logWant is an occurrence of a term to read from the log: its id, the rank
// of its log key (see logKeyRank) and its index in the caller's ids.
type logWant struct {
	id   ID
	rank uint64
	slot int32
}

// readLogBatch sorts wants by key and reads the term of wants[k] into
// vals[k] from the log entries (or pins) under bucket, leaving unknown ids
// nil. Large batches are split into key ranges
// read concurrently, each through its own iterator of one shared snapshot.
func (n *Namespace) readLogBatch(ctx context.Context, bkt []byte, wants []logWant, vals []quad.Value) error {
	slices.SortFunc(wants, func(a, b logWant) int { return cmp.Compare(a.rank, b.rank) })
	parts := 1
	if len(wants) >= 2*parallelBatch {
		parts = min(runtime.GOMAXPROCS(0), len(wants)/parallelBatch, 4)
	}
	txn, end, err := n.view.NewTxn(false) // through the store's gate (gate.go)
	if err != nil {
		return err
	}
	defer end()
	bucket := escapeKey(n.view.Prefix(), hkv.Key{bkt, nil})
	if parts == 1 {
		return readLogTerms(ctx, txn, bucket, wants, vals)
	}
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*len(wants)/parts, (p+1)*len(wants)/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[p] = readLogTerms(ctx, txn, bucket, wants[lo:hi], vals[lo:hi])
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// logKeyRank maps id to a number that orders ids as their escaped log keys
// sort (see escapeKey): escaping turns '/' into `\/` and '\' into `\\`, so an
// escaped '/' sorts just below an escaped '\' and above every unescaped byte
// below '\'. Ranking each big-endian byte accordingly (a bijection on bytes)
// gives the order of the keys without building them.
func logKeyRank(id ID) uint64 {
	var r uint64
	for sh := 56; sh >= 0; sh -= 8 {
		b := byte(id >> sh)
		switch {
		case b == '/':
			b = '\\' - 1
		case b > '/' && b < '\\':
			b--
		}
		r = r<<8 | uint64(b)
	}
	return r
}

// minBatch is the number of missing ids from which TermsBatch reads through
// an iterator rather than with point reads.
const minBatch = 32

// maxStep is the largest id distance TermsBatch steps over (Badger Next)
// rather than seeking to. A seek repositions every table that overlaps the
// log (and, on a cold block cache, loads a block of each): on a cold 10,000
// team listing, whose wanted terms come in clusters ~35 log entries apart,
// seeking to each cluster cost more CPU and allocation than stepping.
const maxStep = 64

// parallelBatch is the least number of ids TermsBatch reads per goroutine.
const parallelBatch = 4096

// readLogTerms reads into vals[k] the node term stored under the log key of
// wants[k]; wants are in ascending key order (by rank, duplicates adjacent),
// all under bucket. Several may run concurrently on one read-only
// transaction.
func readLogTerms(ctx context.Context, txn *badger.Txn, bucket []byte, wants []logWant, vals []quad.Value) error {
	opts := badger.DefaultIteratorOptions
	opts.PrefetchValues = false
	opts.Prefix = bucket
	// All versions: cheaper per step (no per-key de-duplication); the newest
	// version visible to the snapshot comes first, older ones are skipped
	// by key comparison below.
	opts.AllVersions = true
	it := txn.NewIterator(opts)
	defer it.Close()
	var (
		key, prev  []byte
		last       ID
		positioned bool
	)
	key = make([]byte, 0, len(bucket)+16)
	prev = make([]byte, 0, len(bucket)+16)
	for k, w := range wants {
		if k%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if k > 0 && w.id == wants[k-1].id {
			vals[k] = vals[k-1]
			continue
		}
		key = appendEscapedID(append(key[:0], bucket...), w.id)
		// Step forward over near keys; seek across larger gaps (or if the
		// keys are not ascending, which the ranking rules out).
		if positioned && w.id > last && w.id-last <= maxStep && bytes.Compare(prev, key) < 0 {
			steps := 0
			for it.Valid() && bytes.Compare(it.Item().Key(), key) < 0 {
				if steps++; steps > 2*maxStep {
					it.Seek(key) // many versions of one key
					break
				}
				it.Next()
			}
		} else {
			it.Seek(key)
			if !it.Valid() {
				break // past the bucket's last key: so are the later wants
			}
		}
		positioned, last = it.Valid(), w.id
		prev = append(prev[:0], key...)
		if !it.Valid() {
			continue
		}
		item := it.Item()
		if !bytes.Equal(item.Key(), key) || item.IsDeletedOrExpired() {
			continue // unknown id
		}
		if err := item.Value(func(b []byte) error {
			v, err := decodeLogTerm(b)
			if err != nil {
				return fmt.Errorf("%w: log entry %d: %v", ErrCorrupt, w.id, err)
			}
			vals[k] = v
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}

// appendEscapedID appends the escaped big-endian bytes of id (see escapeKey).
func appendEscapedID(dst []byte, id ID) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(id))
	for _, c := range b {
		if c == '/' || c == '\\' {
			dst = append(dst, '\\')
		}
		dst = append(dst, c)
	}
	return dst
}

// decodeLogTerm decodes a log entry (a cayley proto.Primitive) and returns
// its term, or nil for a quad entry. Well-formed entries of the term types
// Cortex stores (IRIs, blank nodes, plain, typed and language-tagged
// literals) are read directly from the protobuf wire format; anything else
// goes through cayley's generic decoding (proto.Primitive, then pquads). The
// result is the same either way. Malformed input is an error, never a panic.
func decodeLogTerm(b []byte) (quad.Value, error) {
	if v, ok := decodeLogTermFast(b); ok {
		return v, nil
	}
	var p proto.Primitive
	if err := p.Unmarshal(b); err != nil {
		return nil, err
	}
	if !p.IsNode() {
		return nil, nil
	}
	var pv pquads.Value
	if err := pv.Unmarshal(p.Value); err != nil {
		return nil, err
	}
	if pv.Value == nil {
		return nil, errors.New("term of unknown type") // ToNative would panic
	}
	return pv.ToNative(), nil
}

// decodeLogTermFast is decodeLogTerm's direct path; ok is false for
// anything it does not handle exactly as the generic path would.
func decodeLogTermFast(b []byte) (_ quad.Value, ok bool) {
	// Primitive: fields 1-7 and 9 are varints (ids, timestamp, deleted
	// flag), field 8 the node's value; the last occurrence wins.
	var val []byte
	if !protoFields(b, func(num, wire int, data []byte) bool {
		switch {
		case num == 8:
			val = data
			return wire == 2
		case num <= 9:
			return wire == 0
		}
		return true
	}) {
		return nil, false
	}
	if len(val) == 0 {
		return nil, true // a quad
	}
	// pquads.Value: a oneof; the last member present wins.
	var (
		field int
		data  []byte
	)
	if !protoFields(val, func(num, wire int, d []byte) bool {
		if num <= 10 {
			field, data = num, d
		}
		return num > 6 || wire == 2
	}) {
		return nil, false
	}
	switch field {
	case 2:
		return quad.String(data), true
	case 3:
		return quad.IRI(data), true
	case 4:
		return quad.BNode(data), true
	case 5, 6:
		var s, t []byte
		if !protoFields(data, func(num, wire int, d []byte) bool {
			switch num {
			case 1:
				s = d
			case 2:
				t = d
			default:
				return true
			}
			return wire == 2
		}) {
			return nil, false
		}
		if field == 6 {
			return quad.LangString{Value: quad.String(s), Lang: string(t)}, true
		}
		return quad.TypedString{Value: quad.String(s), Type: datatype(t)}, true
	}
	// No type, or raw, native numbers, booleans, times: never written by
	// Cortex; the generic path decides.
	return nil, false
}

// datatype returns the IRI t, sharing the strings of common XSD datatypes.
func datatype(t []byte) quad.IRI {
	switch string(t) {
	case xsd + "dateTime":
		return xsd + "dateTime"
	case xsd + "duration":
		return xsd + "duration"
	case xsd + "decimal":
		return xsd + "decimal"
	case xsd + "integer":
		return xsd + "integer"
	case xsd + "boolean":
		return xsd + "boolean"
	case xsd + "double":
		return xsd + "double"
	}
	return quad.IRI(t)
}

// protoFields calls fn for each field of the protobuf message b, in order,
// with its number, wire type and, for length-delimited fields, its bytes.
// It returns false as soon as fn does, and for malformed input or wire
// types it does not handle (groups).
func protoFields(b []byte, fn func(num, wire int, data []byte) bool) bool {
	for len(b) > 0 {
		tag, n := binary.Uvarint(b)
		if n <= 0 || tag>>3 == 0 || tag>>3 > 1<<29-1 {
			return false
		}
		b = b[n:]
		num, wire := int(tag>>3), int(tag&7)
		var data []byte
		switch wire {
		case 0:
			if _, n = binary.Uvarint(b); n <= 0 {
				return false
			}
			b = b[n:]
		case 1:
			if len(b) < 8 {
				return false
			}
			b = b[8:]
		case 2:
			l, n := binary.Uvarint(b)
			if n <= 0 || l > uint64(len(b)-n) {
				return false
			}
			data, b = b[n:n+int(l)], b[n+int(l):]
		case 5:
			if len(b) < 4 {
				return false
			}
			b = b[4:]
		default:
			return false
		}
		if !fn(num, wire, data) {
			return false
		}
	}
	return true
}
