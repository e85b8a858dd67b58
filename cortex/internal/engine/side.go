package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/cortexgraph/cortex/cortex/internal/layout"

	"github.com/cayleygraph/quad"
	"github.com/dgraph-io/badger/v4"
	hkv "github.com/hidal-go/hidalgo/kv"

	"github.com/cortexgraph/cortex/namespace"
)

// Side tables
//
// A side table is a small table of rows, each a key and a fixed list of
// terms, that a host keeps beside a namespace's quads as a materialised view
// of them: Cortex's team manager keeps a row per team with the fields a
// listing shows, so that listing 10,000 teams reads one table instead of
// scanning the indexes for seven predicates and resolving every term.
//
// Rows are written only by Update (Tx.PutSide, Tx.DeleteSide), atomically
// with the delta, in one transaction or journaled alike. The store cannot
// know what a row means; it tracks only whether a table can still be
// trusted. A table is current when no quad of the namespace changed since
// the last Update that kept it (Tx.KeepSide: "this delta keeps the table in
// step with the quads", honoured only if the table was current before) or
// stamped it (Tx.StampSide: "the table now matches the quads", for
// rebuilds). Any other write that changes quads (Apply, Import, DropGraph,
// an Update that does not keep the table) leaves it stale, and SideRows
// says so: the host then reads the quads and may rebuild the table.
//
// "No quad changed" is decided by the namespace's (horizon, size) pair,
// which every change of quads changes: adding a quad allocates a log id
// (the horizon only grows), and a delta that only removes quads lowers the
// size. A rolled-back write restores both with the rest.
//
// Side tables are not exported and not imported: a store rebuilt from an
// export has none, and its tables read as stale until a host rebuilds them.

// sideBucket holds side-table rows (sideBucket/table/key) and the tables'
// stamps (sideBucket/table).
var sideBucket = []byte("side")

// SideRow is a row of a side table.
type SideRow struct {
	Key  string
	Vals []quad.Value // nil entries are absent values
}

// sideOps are the side-table writes an Update stages.
type sideOps struct {
	puts  map[string]map[string][]quad.Value // table → key → row
	dels  map[string]map[string]bool         // table → keys
	keep  map[string]bool
	stamp map[string]bool
	err   error // the first invalid table name or term
}

func (o *sideOps) len() int {
	if o == nil {
		return 0
	}
	n := len(o.keep) + len(o.stamp)
	for _, m := range o.puts {
		n += len(m)
	}
	for _, m := range o.dels {
		n += len(m)
	}
	return n
}

func (tx *Tx) side(table string) *sideOps {
	if tx.s == nil {
		tx.s = &sideOps{puts: map[string]map[string][]quad.Value{}, dels: map[string]map[string]bool{},
			keep: map[string]bool{}, stamp: map[string]bool{}}
	}
	if tx.s.err == nil && !namespace.ValidName(table) {
		tx.s.err = fmt.Errorf("%w: side table name %q: want %s", ErrInvalidArgument, table, namespace.NameRule)
	}
	return tx.s
}

// PutSide stages row vals under key in side table table (see "Side tables"
// in side.go), replacing the row there. Table names follow the rule of
// namespace names (namespace.NameRule, namespace.ValidName); keys are any
// string of up to MaxSideKey bytes (a longer one fails the Update). A later DeleteSide of the same key in this Update wins, and the
// other way round.
func (tx *Tx) PutSide(table, key string, vals []quad.Value) {
	o := tx.side(table)
	if len(key) > MaxSideKey && o.err == nil {
		o.err = fmt.Errorf("side table %s: %w: row key of %d bytes, longer than %d", table, ErrInvalidArgument, len(key), MaxSideKey)
	}
	row := make([]quad.Value, len(vals))
	for i, v := range vals {
		if v == nil {
			continue
		}
		nv, err := NormalizeTerm(v)
		if err != nil && o.err == nil {
			o.err = fmt.Errorf("side table %s: row %q: %w", table, key, err)
		}
		row[i] = nv
	}
	if o.puts[table] == nil {
		o.puts[table] = map[string][]quad.Value{}
	}
	o.puts[table][key] = row
	delete(o.dels[table], key)
}

// DeleteSide stages the deletion of the row under key in side table table,
// if there is one.
func (tx *Tx) DeleteSide(table, key string) {
	o := tx.side(table)
	if o.dels[table] == nil {
		o.dels[table] = map[string]bool{}
	}
	o.dels[table][key] = true
	delete(o.puts[table], key)
}

// KeepSide declares that this Update's delta, with its side-table writes,
// keeps table in step with the quads: if the table was current before the
// Update, it is current after it. (If it was stale, it stays stale.)
func (tx *Tx) KeepSide(table string) { tx.side(table).keep[table] = true }

// StampSide declares that table, after this Update's side-table writes,
// matches the quads as they are after its delta: the table is current after
// the Update whatever it was before. A caller rebuilding a table reads the
// quads inside the Update (no other write can interleave) and puts and
// deletes rows so that the whole table is right.
func (tx *Tx) StampSide(table string) { tx.side(table).stamp[table] = true }

// SideRows returns the rows of side table table in key order, and whether
// the table is current (see "Side tables" in side.go), read from one
// snapshot. A table that was never written is empty and not current.
//
// It is safe for concurrent use and sees committed data only.
func (n *Namespace) SideRows(ctx context.Context, table string) (rows []SideRow, current bool, err error) {
	if err := n.s.checkOpen(); err != nil {
		return nil, false, err
	}
	if !namespace.ValidName(table) {
		return nil, false, fmt.Errorf("namespace %s: %w: side table name %q: want %s", n.name, ErrInvalidArgument, table, namespace.NameRule)
	}
	fail := func(err error) ([]SideRow, bool, error) {
		return nil, false, fmt.Errorf("namespace %s: side table %s: %w", n.name, table, err)
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	txn, end, err := n.view.NewTxn(ctx, false) // through the store's gate (gate.go)
	if err != nil {
		return fail(err)
	}
	defer end()
	prefix := n.view.Prefix()
	if current, err = sideCurrentTxn(txn, prefix, table); err != nil {
		return fail(err)
	}
	if rows, err = readSideRows(ctx, n.s, txn, prefix, table, "", false, 0); err != nil {
		return fail(err)
	}
	return rows, current, nil
}

// SideRowsAfter returns the rows of side table table that come after
// afterKey in the order of SideRows (key order; a key holding '/' or '\\'
// sorts by its escaped form), at most limit of them (limit ≤ 0: all), read
// from one snapshot. It reads only those rows: a host keeping a log in a
// table, keyed by fixed-width ids, pages through it with it. An afterKey
// that is no row's key is a position like any other. A table that was
// never written has no rows.
//
// It is safe for concurrent use and sees committed data only.
func (n *Namespace) SideRowsAfter(ctx context.Context, table, afterKey string, limit int) ([]SideRow, error) {
	if err := n.s.checkOpen(); err != nil {
		return nil, err
	}
	if !namespace.ValidName(table) {
		return nil, fmt.Errorf("namespace %s: %w: side table name %q: want %s", n.name, ErrInvalidArgument, table, namespace.NameRule)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("namespace %s: side table %s: %w", n.name, table, err)
	}
	txn, end, err := n.view.NewTxn(ctx, false) // through the store's gate (gate.go)
	if err != nil {
		return nil, fmt.Errorf("namespace %s: side table %s: %w", n.name, table, err)
	}
	defer end()
	rows, err := readSideRows(ctx, n.s, txn, n.view.Prefix(), table, afterKey, true, limit)
	if err != nil {
		return nil, fmt.Errorf("namespace %s: side table %s: %w", n.name, table, err)
	}
	return rows, nil
}

// SideRow returns the row of side table table at key, and whether there is
// one. It is a point read: its cost does not grow with the number of times
// the row was rewritten (a scan, as SideRows and SideRowsAfter do, steps
// over the older versions of a key until Badger compacts them away), so a
// host that keeps a counter in a side table reads it with SideRow.
//
// It is safe for concurrent use and sees committed data only.
func (n *Namespace) SideRow(ctx context.Context, table, key string) (_ []quad.Value, found bool, err error) {
	if err := n.s.checkOpen(); err != nil {
		return nil, false, err
	}
	if !namespace.ValidName(table) {
		return nil, false, fmt.Errorf("namespace %s: %w: side table name %q: want %s", n.name, ErrInvalidArgument, table, namespace.NameRule)
	}
	fail := func(err error) ([]quad.Value, bool, error) {
		return nil, false, fmt.Errorf("namespace %s: side table %s: row %q: %w", n.name, table, key, err)
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	txn, end, err := n.view.NewTxn(ctx, false) // through the store's gate (gate.go)
	if err != nil {
		return fail(err)
	}
	defer end()
	item, err := getItem(n.s, txn, layout.Escape(slices.Clip(n.view.Prefix()), sideRowKey(table, key)))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return fail(err)
	}
	var vals []quad.Value
	dec := sideDecoder{intern: map[string]string{}}
	if err := item.Value(func(b []byte) error {
		var err error
		vals, err = dec.row(b)
		return err
	}); err != nil {
		return fail(fmt.Errorf("%w: %v", ErrCorrupt, err))
	}
	return vals, true, nil
}

// readSideRows reads the rows of table in txn (keys under prefix), all of
// them or, if after, those past afterKey; at most limit if limit > 0.
func readSideRows(ctx context.Context, s *Store, txn *badger.Txn, prefix []byte, table, afterKey string, after bool, limit int) ([]SideRow, error) {
	// Read with Badger directly: keys escaped as hidalgo's flat layout
	// (layout.Escape), without its per-key allocations.
	opts := badger.DefaultIteratorOptions
	opts.PrefetchValues = false
	opts.Prefix = layout.Escape(slices.Clip(prefix), sideRowKey(table, ""))
	it, err := newIterator(s, txn, opts) // Close may have cut the transaction off
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var seek []byte
	if after {
		seek = layout.Escape(slices.Clip(prefix), sideRowKey(table, afterKey))
	}
	var rows []SideRow
	dec := sideDecoder{intern: map[string]string{}}
	for it.Seek(seek); it.Valid() && (limit <= 0 || len(rows) < limit); it.Next() {
		if len(rows)%4096 == 4095 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		item := it.Item()
		if after && bytes.Equal(item.Key(), seek) {
			continue // the row at afterKey itself
		}
		key, ok := layout.UnescapePart(item.Key()[len(opts.Prefix):])
		if !ok {
			continue // not a row key (a longer key below the table's)
		}
		var vals []quad.Value
		err := item.Value(func(b []byte) error {
			var err error
			vals, err = dec.row(b)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("%w: row %q: %v", ErrCorrupt, key, err)
		}
		rows = append(rows, SideRow{Key: key, Vals: vals})
	}
	return rows, nil
}

// SideCurrent reports whether side table table is current (see SideRows),
// without reading its rows.
//
// It is safe for concurrent use and sees committed data only.
func (n *Namespace) SideCurrent(ctx context.Context, table string) (bool, error) {
	if err := n.s.checkOpen(); err != nil {
		return false, err
	}
	if !namespace.ValidName(table) {
		return false, fmt.Errorf("namespace %s: %w: side table name %q: want %s", n.name, ErrInvalidArgument, table, namespace.NameRule)
	}
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("namespace %s: side table %s: %w", n.name, table, err)
	}
	txn, end, err := n.view.NewTxn(ctx, false)
	if err != nil {
		return false, err
	}
	defer end()
	current, err := sideCurrentTxn(txn, n.view.Prefix(), table)
	if err != nil {
		return false, fmt.Errorf("namespace %s: side table %s: %w", n.name, table, err)
	}
	return current, nil
}

// sideCurrentTxn reads whether table is current in txn's snapshot.
func sideCurrentTxn(txn *badger.Txn, prefix []byte, table string) (bool, error) {
	get := func(k hkv.Key) ([]byte, error) {
		item, err := txn.Get(layout.Escape(slices.Clip(prefix), k))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil, nil
		} else if err != nil {
			return nil, err
		}
		return item.ValueCopy(nil)
	}
	st, err := get(sideStampKey(table))
	if err != nil || st == nil {
		return false, err
	}
	var hs [2]int64
	for i, k := range []hkv.Key{layout.Horizon, layout.Size} {
		b, err := get(k)
		if err != nil {
			return false, err
		}
		if b != nil && len(b) != 8 {
			return false, fmt.Errorf("%w: meta value of %d bytes", ErrCorrupt, len(b))
		}
		if b != nil {
			hs[i] = int64(binary.LittleEndian.Uint64(b))
		}
	}
	return bytes.Equal(st, sideStamp(hs[0], hs[1])), nil
}

func sideStampKey(table string) hkv.Key { return hkv.Key{sideBucket, []byte(table)} }

func sideRowKey(table, key string) hkv.Key {
	return hkv.Key{sideBucket, []byte(table), []byte(key)}
}

// sideStamp is a table's stamp: the (horizon, size) pair it is current at.
func sideStamp(horizon, size int64) []byte {
	b := make([]byte, 16)
	binary.LittleEndian.PutUint64(b, uint64(horizon))
	binary.LittleEndian.PutUint64(b[8:], uint64(size))
	return b
}

// Row encoding: a uvarint count of values, then per value a kind byte and
// its strings, each a uvarint length and bytes: 0 absent; 1 IRI; 2 blank
// node; 3 plain literal; 4 typed literal (value, datatype); 5 language-tagged
// literal (value, tag). Values are normalised (NormalizeTerm), so these are
// the only kinds.
const (
	sideAbsent byte = iota
	sideIRI
	sideBNode
	sideString
	sideTyped
	sideLang
)

func encodeSideRow(vals []quad.Value) ([]byte, error) {
	b := binary.AppendUvarint(nil, uint64(len(vals)))
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	for _, v := range vals {
		switch t := v.(type) {
		case nil:
			b = append(b, sideAbsent)
		case quad.IRI:
			b = append(b, sideIRI)
			str(string(t))
		case quad.BNode:
			b = append(b, sideBNode)
			str(string(t))
		case quad.String:
			b = append(b, sideString)
			str(string(t))
		case quad.TypedString:
			b = append(b, sideTyped)
			str(string(t.Value))
			str(string(t.Type))
		case quad.LangString:
			b = append(b, sideLang)
			str(string(t.Value))
			str(t.Lang)
		default:
			return nil, fmt.Errorf("unsupported term type %T", v)
		}
	}
	return b, nil
}

// sideDecoder decodes rows, sharing the strings many rows repeat: datatypes,
// language tags, and short values (statuses, strategies).
type sideDecoder struct {
	intern map[string]string
}

const (
	sideInternMax = 64   // longest value shared
	sideInternCap = 4096 // most distinct values shared
)

func (d *sideDecoder) str(b []byte, share bool) string {
	if !share || len(b) > sideInternMax {
		return string(b)
	}
	if s, ok := d.intern[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(d.intern) < sideInternCap {
		d.intern[s] = s
	}
	return s
}

func (d *sideDecoder) row(b []byte) ([]quad.Value, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, errors.New("bad value count")
	}
	b = b[k:]
	next := func(share bool) (string, error) {
		l, k := binary.Uvarint(b)
		if k <= 0 || l > uint64(len(b)-k) {
			return "", errors.New("bad string length")
		}
		s := d.str(b[k:k+int(l)], share)
		b = b[k+int(l):]
		return s, nil
	}
	vals := make([]quad.Value, n)
	for i := range vals {
		if len(b) == 0 {
			return nil, errors.New("truncated row")
		}
		kind := b[0]
		b = b[1:]
		var v1, v2 string
		var err error
		switch kind {
		case sideAbsent:
			continue
		case sideIRI, sideBNode:
			v1, err = next(false)
		case sideString:
			v1, err = next(true)
		case sideTyped, sideLang:
			if v1, err = next(true); err == nil {
				v2, err = next(true)
			}
		default:
			return nil, fmt.Errorf("value kind %d", kind)
		}
		if err != nil {
			return nil, err
		}
		switch kind {
		case sideIRI:
			vals[i] = quad.IRI(v1)
		case sideBNode:
			vals[i] = quad.BNode(v1)
		case sideString:
			vals[i] = quad.String(v1)
		case sideTyped:
			vals[i] = quad.TypedString{Value: quad.String(v1), Type: quad.IRI(v2)}
		case sideLang:
			vals[i] = quad.LangString{Value: quad.String(v1), Lang: v2}
		}
	}
	if len(b) != 0 {
		return nil, errors.New("trailing bytes")
	}
	return vals, nil
}

// flushSide writes the side-table operations of the delta, after its quads:
// rows put and deleted, and the stamps of the tables it keeps (if they were
// current at h0, s0, the horizon and size before the delta) or stamps.
func (w *deltaWriter) flushSide(h0, s0 int64) error {
	o := w.side
	if o == nil {
		return nil
	}
	if o.err != nil {
		return o.err
	}
	tables := make([]string, 0, len(o.puts)+len(o.dels))
	for t := range o.puts {
		tables = append(tables, t)
	}
	for t := range o.dels {
		if o.puts[t] == nil {
			tables = append(tables, t)
		}
	}
	sort.Strings(tables)
	for _, t := range tables {
		for key, row := range o.puts[t] {
			b, err := encodeSideRow(row)
			if err != nil {
				return fmt.Errorf("side table %s: row %q: %w", t, key, err)
			}
			if err := w.tx.Put(sideRowKey(t, key), b); err != nil {
				return err
			}
		}
		for key := range o.dels[t] {
			k := sideRowKey(t, key)
			if _, err := w.tx.Get(w.ctx, k); errors.Is(err, hkv.ErrNotFound) {
				continue // no deletion marker for a row that is not there
			} else if err != nil {
				return err
			}
			if err := w.tx.Del(k); err != nil {
				return err
			}
		}
	}
	now := sideStamp(w.horizon, w.size)
	for t := range o.keep {
		if o.stamp[t] {
			continue
		}
		st, err := w.tx.Get(w.ctx, sideStampKey(t))
		if errors.Is(err, hkv.ErrNotFound) {
			continue // stale: never stamped
		} else if err != nil {
			return err
		}
		if !bytes.Equal(st, sideStamp(h0, s0)) || bytes.Equal(st, now) {
			continue // stale, or current and unchanged
		}
		if err := w.tx.Put(sideStampKey(t), now); err != nil {
			return err
		}
	}
	for t := range o.stamp {
		if err := w.tx.Put(sideStampKey(t), now); err != nil {
			return err
		}
	}
	return nil
}
