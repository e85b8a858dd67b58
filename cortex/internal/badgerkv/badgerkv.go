// Package badgerkv adapts github.com/dgraph-io/badger/v4 to hidalgo's flat
// key-value interfaces (github.com/hidal-go/hidalgo/kv/flat), so that cayley's
// graph/kv quadstore can run on Badger v4 (cayley itself ships only a Badger v1
// backend).
//
// A DB may be confined to a key prefix: several independent flat stores (one per
// Cortex namespace) then share one Badger database without seeing each other's
// keys.
//
// # Concurrency
//
// A DB is safe for concurrent use. A Tx and an Iterator are not: use each from
// one goroutine. Badger transactions are snapshot-isolated; conflicting
// read-write transactions fail at Commit with an error wrapping
// badger.ErrConflict.
//
// # Caveats
//
// One read-write transaction holds a bounded amount of data (Badger's
// ErrTxnTooBig, about 15% of the memtable). This adapter reports that error
// wrapped; callers that write a lot must split their work (the cortex store does).
package badgerkv

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/dgraph-io/badger/v4"
	"github.com/hidal-go/hidalgo/kv/flat"
)

// ErrTxnTooBig is returned (wrapped) by Put and Del when the transaction has
// reached Badger's size limit. It is badger.ErrTxnTooBig.
var ErrTxnTooBig = badger.ErrTxnTooBig

// DB is a flat.KV over a Badger database, optionally confined to a key prefix.
type DB struct {
	db     *badger.DB
	gate   Gate
	prefix []byte
	owns   bool // Close closes the Badger database
	closed atomic.Bool
	cause  atomic.Pointer[error] // what a closed view's transactions fail with (CloseWith)
}

var _ flat.KV = (*DB)(nil)

// New returns a flat.KV view of db whose keys all live under prefix (which may
// be empty). Closing the view does not close db: the caller owns it.
func New(db *badger.DB, prefix []byte) *DB {
	return &DB{db: db, prefix: append([]byte(nil), prefix...), gate: noGate{}}
}

// Gate is told about every transaction of a view: Enter before it starts and
// Leave, exactly once, when it has ended (committed or discarded). An error
// from Enter refuses the transaction (the store is closing, or ctx, which
// bounds any wait to be admitted, is done); Leave is then not called.
type Gate interface {
	Enter(ctx context.Context) error
	Leave()
}

// WriteGate is a Gate that may refuse read-write transactions on their own
// (for example when the disk is full): EnterWrite is called instead of Enter
// for them, and Leave ends them as usual.
type WriteGate interface {
	Gate
	EnterWrite(ctx context.Context) error
}

// StartGate is a Gate that is also told when each transaction it admitted
// has taken its Badger read timestamp (right after NewTransaction).
type StartGate interface {
	Gate
	Started()
}

// LostGate is a Gate that knows when Badger can serve no transaction any
// more: a write that could not create Badger's next memtable leaves it
// without one, and a read already inside a transaction then panics in
// Badger (a nil memtable) at its next Get or Scan. Lost is given what such
// a read panicked with and returns the error to fail it with instead, or
// nil for a panic of another cause, which goes on.
type LostGate interface {
	Gate
	Lost(panicked any) error
}

// recoverLost, deferred by a read that calls into Badger, turns a panic
// that the view's LostGate recognises into *err.
func (d *DB) recoverLost(err *error) {
	lg, ok := d.gate.(LostGate)
	if !ok {
		return
	}
	if r := recover(); r != nil {
		lerr := lg.Lost(r)
		if lerr == nil {
			panic(r)
		}
		*err = lerr
	}
}

// started tells g, if it wants to know, that a transaction it admitted has
// taken its read timestamp.
func started(g Gate) {
	if sg, ok := g.(StartGate); ok {
		sg.Started()
	}
}

// enter admits a transaction through g.
func enter(ctx context.Context, g Gate, rw bool) error {
	if wg, ok := g.(WriteGate); ok && rw {
		return wg.EnterWrite(ctx)
	}
	return g.Enter(ctx)
}

type noGate struct{}

func (noGate) Enter(context.Context) error { return nil }
func (noGate) Leave()                      {}

// NewGated is New with a Gate that brackets every transaction of the view.
func NewGated(db *badger.DB, prefix []byte, g Gate) *DB {
	d := New(db, prefix)
	d.gate = g
	return d
}

// NewTxn starts a Badger transaction through the view's gate; end discards it
// and leaves the gate (calling end again does nothing). ctx bounds the wait
// to be admitted by the gate. Use it for direct Badger access that must be
// bracketed like the view's own transactions; for an asynchronous commit use
// NewGatedTxn.
func (d *DB) NewTxn(ctx context.Context, rw bool) (txn *badger.Txn, end func(), err error) {
	t, err := d.NewGatedTxn(ctx, rw)
	if err != nil {
		return nil, nil, err
	}
	return t.Txn, t.End, nil
}

// GatedTxn is a Badger transaction admitted by a view's gate.
type GatedTxn struct {
	*badger.Txn
	gate Gate
	once sync.Once
}

// NewGatedTxn starts a Badger transaction through the view's gate; ctx
// bounds the wait to be admitted. Like Tx, it fails once the view is closed.
func (d *DB) NewGatedTxn(ctx context.Context, rw bool) (*GatedTxn, error) {
	if d.closed.Load() {
		return nil, d.closedErr()
	}
	if err := enter(ctx, d.gate, rw); err != nil {
		return nil, err
	}
	txn := d.db.NewTransaction(rw)
	started(d.gate)
	return &GatedTxn{Txn: txn, gate: d.gate}, nil
}

// End discards the transaction (if it was not committed) and leaves the gate.
// Calling it again, or after CommitWith, does nothing.
func (t *GatedTxn) End() {
	t.once.Do(func() {
		t.Txn.Discard()
		t.gate.Leave()
	})
}

// CommitWith commits asynchronously, like badger.Txn.CommitWith; the gate is
// left when the commit has completed, before cb runs.
func (t *GatedTxn) CommitWith(cb func(error)) {
	t.Txn.CommitWith(func(err error) {
		t.once.Do(t.gate.Leave) // CommitWith discards the transaction itself
		cb(err)
	})
}

// Open opens (creating if needed) a Badger database with opts and returns a
// flat.KV that owns it: Close closes the database.
func Open(opts badger.Options) (*DB, error) {
	db, err := badger.Open(opts)
	if err != nil {
		return nil, err
	}
	return &DB{db: db, owns: true, gate: noGate{}}, nil
}

// Badger returns the underlying database.
func (d *DB) Badger() *badger.DB { return d.db }

// Prefix returns a copy of the key prefix of this view.
func (d *DB) Prefix() []byte { return append([]byte(nil), d.prefix...) }

// Close releases the view; if the DB owns the Badger database, it closes it.
// Closing twice is not an error.
func (d *DB) Close() error {
	if d.closed.Swap(true) {
		return nil
	}
	if d.owns {
		return d.db.Close()
	}
	return nil
}

// Tx starts a transaction; rw selects a read-write one. Its wait to be
// admitted by the gate is not bounded (flat.KV's Tx has no context): use
// TxContext where a context is at hand.
func (d *DB) Tx(rw bool) (flat.Tx, error) { return d.TxContext(context.Background(), rw) }

// TxContext is Tx with ctx bounding the wait to be admitted by the gate: it
// fails with ctx's error (errors.Is ctx.Err()) when ctx is done first.
func (d *DB) TxContext(ctx context.Context, rw bool) (flat.Tx, error) {
	if d.closed.Load() {
		return nil, d.closedErr()
	}
	if err := enter(ctx, d.gate, rw); err != nil {
		return nil, err
	}
	txn := d.db.NewTransaction(rw)
	started(d.gate)
	return &Tx{d: d, txn: txn, rw: rw}, nil
}

// WithContext returns d as a flat.KV whose transactions wait to be admitted
// by the gate only until ctx is done (TxContext); its Close does nothing.
func (d *DB) WithContext(ctx context.Context) flat.KV { return ctxKV{d: d, ctx: ctx} }

// ctxKV is DB.WithContext.
type ctxKV struct {
	d   *DB
	ctx context.Context
}

func (k ctxKV) Close() error                { return nil }
func (k ctxKV) Tx(rw bool) (flat.Tx, error) { return k.d.TxContext(k.ctx, rw) }

// ErrClosed is what the transactions of a closed view fail with, unless it
// was closed with CloseWith.
var ErrClosed = errors.New("badgerkv: database is closed")

// CloseWith is Close, after which the view's transactions fail with cause
// (which says why, e.g. that its keys were deleted) instead of ErrClosed.
func (d *DB) CloseWith(cause error) error {
	d.cause.Store(&cause)
	return d.Close()
}

// closedErr is the error of a transaction of the closed view.
func (d *DB) closedErr() error {
	if c := d.cause.Load(); c != nil {
		return *c
	}
	return ErrClosed
}

func (d *DB) key(k flat.Key) []byte {
	out := make([]byte, 0, len(d.prefix)+len(k))
	out = append(out, d.prefix...)
	return append(out, k...)
}

// Tx is a Badger transaction seen through the flat.Tx interface.
type Tx struct {
	d    *DB
	txn  *badger.Txn
	rw   bool
	done bool
	left bool // the gate has been left
}

// finish marks the transaction ended and leaves the gate once.
func (tx *Tx) finish() {
	tx.done = true
	if !tx.left {
		tx.left = true
		tx.d.gate.Leave()
	}
}

var _ flat.Tx = (*Tx)(nil)

// Commit commits a read-write transaction; for a read-only one it releases it.
func (tx *Tx) Commit(ctx context.Context) error {
	if tx.done {
		return errors.New("badgerkv: transaction already finished")
	}
	defer tx.finish()
	if !tx.rw {
		tx.txn.Discard()
		return nil
	}
	if err := ctx.Err(); err != nil {
		tx.txn.Discard()
		return err
	}
	if err := tx.txn.Commit(); err != nil {
		return fmt.Errorf("badgerkv: commit: %w", err)
	}
	return nil
}

// ReadTs is Badger's read timestamp of the transaction: the newest commit
// it sees (badger.Txn.ReadTs). Each commit of the database takes the next
// timestamp, so a transaction reading at T+1 knows that exactly one commit
// came after one that read at T.
func (tx *Tx) ReadTs() uint64 { return tx.txn.ReadTs() }

// Close discards the transaction if it was not committed.
func (tx *Tx) Close() error {
	tx.txn.Discard()
	tx.finish()
	return nil
}

// Get returns a copy of the value of key, or flat.ErrNotFound.
func (tx *Tx) Get(ctx context.Context, key flat.Key) (_ flat.Value, err error) {
	if len(key) == 0 {
		return nil, flat.ErrNotFound
	}
	defer tx.d.recoverLost(&err)
	item, err := tx.txn.Get(tx.d.key(key))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, flat.ErrNotFound
	} else if err != nil {
		return nil, fmt.Errorf("badgerkv: get: %w", err)
	}
	v, err := item.ValueCopy(nil)
	if err != nil {
		return nil, fmt.Errorf("badgerkv: read value: %w", err)
	}
	return v, nil
}

// GetBatch returns the values of keys; a missing key gives a nil element.
func (tx *Tx) GetBatch(ctx context.Context, keys []flat.Key) ([]flat.Value, error) {
	vals := make([]flat.Value, len(keys))
	for i, k := range keys {
		v, err := tx.Get(ctx, k)
		if errors.Is(err, flat.ErrNotFound) {
			continue
		} else if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return vals, nil
}

// Put writes key = val. The slices are copied.
func (tx *Tx) Put(key flat.Key, val flat.Value) error {
	if !tx.rw {
		return flat.ErrReadOnly
	}
	if err := tx.txn.Set(tx.d.key(key), append([]byte{}, val...)); err != nil {
		return fmt.Errorf("badgerkv: put: %w", err)
	}
	return nil
}

// PutShared writes key = val, copying key but not val: val must not change
// until the transaction ends (several keys may share it).
func (tx *Tx) PutShared(key flat.Key, val flat.Value) error {
	if !tx.rw {
		return flat.ErrReadOnly
	}
	if err := tx.txn.Set(tx.d.key(key), val); err != nil {
		return fmt.Errorf("badgerkv: put: %w", err)
	}
	return nil
}

// Del deletes key.
func (tx *Tx) Del(key flat.Key) error {
	if !tx.rw {
		return flat.ErrReadOnly
	}
	if err := tx.txn.Delete(tx.d.key(key)); err != nil {
		return fmt.Errorf("badgerkv: delete: %w", err)
	}
	return nil
}

// Scan iterates, in key order, over the pairs whose key starts with pref.
func (tx *Tx) Scan(pref flat.Key) flat.Iterator {
	opts := badger.DefaultIteratorOptions
	opts.PrefetchValues = false // values are small and often unused (key scans); read lazily
	opts.Prefix = tx.d.key(pref)
	it, err := tx.newIterator(opts)
	if err != nil {
		return &Iterator{err: err, closed: true}
	}
	return &Iterator{it: it, pref: opts.Prefix, strip: len(tx.d.prefix), first: true}
}

// newIterator is tx.txn.NewIterator, failing with the LostGate's error
// instead of Badger's panic.
func (tx *Tx) newIterator(opts badger.IteratorOptions) (_ *badger.Iterator, err error) {
	defer tx.d.recoverLost(&err)
	return tx.txn.NewIterator(opts), nil
}

// Iterator walks the pairs of a Scan.
type Iterator struct {
	it     *badger.Iterator
	pref   []byte
	strip  int
	first  bool
	closed bool
	val    []byte
	valOK  bool // val holds the current item's value
	err    error
}

var _ flat.Iterator = (*Iterator)(nil)

// Next advances to the next pair; it returns false at the end or on error.
func (it *Iterator) Next(ctx context.Context) bool {
	if it.closed || it.err != nil {
		return false
	}
	if err := ctx.Err(); err != nil {
		it.err = err
		return false
	}
	if it.first {
		it.first = false
		it.it.Seek(it.pref)
	} else {
		it.it.Next()
	}
	it.valOK = false
	return it.it.ValidForPrefix(it.pref)
}

// Err returns the error that stopped the iteration, if any.
func (it *Iterator) Err() error { return it.err }

// Close releases the iterator. Closing twice is not an error.
func (it *Iterator) Close() error {
	if !it.closed {
		it.closed = true
		it.it.Close()
	}
	return it.err
}

// Key returns the current key, without the DB prefix. It is valid until Next.
func (it *Iterator) Key() flat.Key { return it.it.Item().Key()[it.strip:] }

// Val returns the current value. It is valid until Next. A read error is
// reported by Err (and the value is nil).
func (it *Iterator) Val() flat.Value {
	if !it.valOK {
		var err error
		it.val, err = it.it.Item().ValueCopy(it.val[:0])
		if err != nil {
			it.err = err
			return nil
		}
		it.valOK = true
	}
	return it.val
}
