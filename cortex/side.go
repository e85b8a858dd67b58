package cortex

import (
	"context"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/internal/engine"
)

// SideRow is a row of a side table.
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
// Side tables are not exported and not imported: a store rebuilt from an
// export has none, and its tables read as stale until a host rebuilds them.
type SideRow struct {
	Key  string
	Vals []quad.Value // nil entries are absent values
}

// PutSide stages row vals under key in side table table (see SideRow),
// replacing the row there. Table names follow the rule of namespace names
// (namespace.NameRule, namespace.ValidName); keys are any string of up to
// MaxSideKey bytes (a longer one fails the Update, which writes nothing).
// A later DeleteSide of the same key in this Update wins, and the other way
// round.
func (tx *Tx) PutSide(table, key string, vals []quad.Value) { tx.t.PutSide(table, key, vals) }

// DeleteSide stages the deletion of the row under key in side table table,
// if there is one.
func (tx *Tx) DeleteSide(table, key string) { tx.t.DeleteSide(table, key) }

// KeepSide declares that this Update's delta, with its side-table writes,
// keeps table in step with the quads: if the table was current before the
// Update, it is current after it. (If it was stale, it stays stale.)
func (tx *Tx) KeepSide(table string) { tx.t.KeepSide(table) }

// StampSide declares that table, after this Update's side-table writes,
// matches the quads as they are after its delta: the table is current after
// the Update whatever it was before. A caller rebuilding a table reads the
// quads inside the Update (no other write can interleave) and puts and
// deletes rows so that the whole table is right.
func (tx *Tx) StampSide(table string) { tx.t.StampSide(table) }

// SideRows returns the rows of side table table in key order, and whether
// the table is current (see SideRow), read from one snapshot. A table that
// was never written is empty and not current.
//
// It is safe for concurrent use and sees committed data only. If ctx has
// ended when it is called, it returns an error wrapping ctx's error.
func (n *Namespace) SideRows(ctx context.Context, table string) (rows []SideRow, current bool, err error) {
	rs, current, err := n.e.SideRows(ctx, table)
	return sideRows(rs), current, err
}

// SideRowsAfter returns the rows of side table table that come after
// afterKey in the order of SideRows (key order; a key holding '/' or '\\'
// sorts by its escaped form), at most limit of them (limit ≤ 0: all), read
// from one snapshot. It reads only those rows: a host keeping a log in a
// table, keyed by fixed-width ids, pages through it with it. An afterKey
// that is no row's key is a position like any other. A table that was
// never written has no rows.
//
// It is safe for concurrent use and sees committed data only. If ctx has
// ended when it is called, it returns an error wrapping ctx's error.
func (n *Namespace) SideRowsAfter(ctx context.Context, table, afterKey string, limit int) ([]SideRow, error) {
	rs, err := n.e.SideRowsAfter(ctx, table, afterKey, limit)
	return sideRows(rs), err
}

// SideRow returns the row of side table table at key, and whether there is
// one. It is a point read: its cost does not grow with the number of times
// the row was rewritten (a scan, as SideRows and SideRowsAfter do, steps
// over the older versions of a key until Badger compacts them away), so a
// host that keeps a counter in a side table reads it with SideRow.
//
// It is safe for concurrent use and sees committed data only. If ctx has
// ended when it is called, it returns an error wrapping ctx's error.
func (n *Namespace) SideRow(ctx context.Context, table, key string) (_ []quad.Value, found bool, err error) {
	return n.e.SideRow(ctx, table, key)
}

// SideCurrent reports whether side table table is current (see SideRow),
// without reading its rows.
//
// It is safe for concurrent use and sees committed data only. If ctx has
// ended when it is called, it returns an error wrapping ctx's error.
func (n *Namespace) SideCurrent(ctx context.Context, table string) (bool, error) {
	return n.e.SideCurrent(ctx, table)
}

// sideRows converts the engine's rows (nil stays nil).
func sideRows(rs []engine.SideRow) []SideRow {
	if rs == nil {
		return nil
	}
	out := make([]SideRow, len(rs))
	for i, r := range rs {
		out[i] = SideRow(r)
	}
	return out
}
