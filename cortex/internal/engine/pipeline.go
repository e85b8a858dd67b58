package engine

import (
	"context"
	"fmt"

	hkv "github.com/hidal-go/hidalgo/kv"
)

// Pipelined commits (UpdateAsync).
//
// A delta holds the namespace's write lock (wmu) while its keys are computed
// and while Badger commits them. The commit is most of it: in the host
// workload (cmd/hostload) the lock was busy 97% of the run, two thirds of it
// waiting for Badger's writer and the fsync (docs/design-nostall.md, "Session
// 26"). UpdateAsync lets go of the lock once its delta is staged, and
// commits after, so that the namespace's next writer computes its delta
// while this one commits.
//
// What keeps it exact:
//   - Order. The deltas staged but not yet committed are the namespace's
//     flight, oldest first. Each commits only after the one before it
//     committed; if that one failed, it fails too, unwritten (its keys were
//     computed from a state that never came to be). A caller returns only
//     once its own delta has committed, so a crash keeps every call
//     acknowledged, as before: each delta is still one Badger transaction.
//   - Reads. Every read a delta makes goes through deltaTx.Get (a delta
//     never scans). The deltas of the flight record what they wrote (but
//     the three index keys no delta reads: only the first index is read, by
//     exists), and a delta staged after them reads through them, newest
//     first, before Badger: it sees the namespace as if they had committed.
//     Readers (queries, listings) never see the flight: a write is visible
//     once committed, as before.
//   - Everyone else waits. Every other way to the write lock (Apply,
//     Update, imports, DropGraph, closing) settles the flight first: it
//     waits for every staged delta to commit. An UpdateAsync's own function
//     reads committed state through the namespace, which may not hold the
//     flight yet: it must call Tx.Settle before such a read (see
//     UpdateAsync).
//   - The node cache (nodecache.go) is kept by write generation for a
//     staged delta: it is exact for the next delta if that delta is the
//     namespace's next write (every write of a namespace's keys holds wmu
//     and advances writeGen) and nothing in the flight failed.

// flightDelta is a staged delta of the flight.
type flightDelta struct {
	kv   map[string]flightValue // escaped key -> what the delta wrote there
	done chan struct{}          // closed once committed or failed
	err  error                  // set before done is closed
}

// flightValue is a key's value as a staged delta left it.
type flightValue struct {
	v   []byte
	del bool // deleted
}

// value returns v as a read of its key returns it.
func (v flightValue) value() (hkv.Value, error) {
	if v.del {
		return nil, hkv.ErrNotFound
	}
	return v.v, nil
}

// settleLocked waits for every delta of the flight to commit or fail and
// forgets them; if one failed, the node cache is emptied (it may hold what
// the failed delta staged). It reports whether there was anything to wait
// for. The caller holds wmu.
func (n *Namespace) settleLocked() (waited bool) {
	if len(n.flight) == 0 {
		return false
	}
	failed := false
	for _, f := range n.flight {
		<-f.done
		failed = failed || f.err != nil
	}
	clear(n.flight)
	n.flight = n.flight[:0]
	if failed {
		n.nodes.reset()
	}
	return true
}

// pruneLocked forgets the deltas at the front of the flight that have
// committed. If one failed, it settles the whole flight (the deltas after it
// fail with it). The caller holds wmu.
func (n *Namespace) pruneLocked() {
	i := 0
	for ; i < len(n.flight); i++ {
		select {
		case <-n.flight[i].done:
			if n.flight[i].err != nil {
				n.settleLocked()
				return
			}
			continue
		default:
		}
		break
	}
	if i > 0 {
		k := copy(n.flight, n.flight[i:])
		clear(n.flight[k:])
		n.flight = n.flight[:k]
	}
}

// UpdateAsync is Update in two steps: it runs fn and stages its delta
// under the namespace's write lock, as Update does, starts its commit and
// returns, with the lock free for the namespace's next writer; the
// returned wait waits for the commit and returns its error (it may be
// called from any goroutine, any number of times, or not at all). The
// commit waits for the deltas staged before this one to commit first, and
// fails, writing nothing, if one of them failed. Once UpdateAsync has
// returned, the delta commits whatever ctx does. If fn or the staging
// fails, UpdateAsync returns the error and wait is nil.
//
// fn runs before the deltas staged by earlier UpdateAsync calls may have
// committed: reads through the namespace (tx.Namespace()) see committed
// state only. fn must call tx.Settle before any read whose answer the
// deltas in flight may change. Writes staged through tx are computed as if
// they had all committed. A delta too large for one transaction (see Apply)
// settles first and commits before UpdateAsync returns.
func (n *Namespace) UpdateAsync(ctx context.Context, fn func(tx *Tx) error) (wait func() error, err error) {
	if err := n.lockWriteNoSettle(ctx); err != nil {
		return nil, err
	}
	n.pruneLocked()
	n.async = true
	err = n.updateLocked(ctx, fn)
	staged := n.staged
	n.async, n.staged = false, nil
	n.wmu.Unlock()
	if err != nil {
		return nil, err
	}
	if staged == nil { // nothing to write, or written (journaled)
		return func() error { return nil }, nil
	}
	return staged, nil
}

// Settle waits for the deltas staged by earlier UpdateAsync calls to
// commit or fail: after it, reads through the namespace see what they
// wrote. In an Update, or with nothing in flight, it returns at once. (A
// delta that failed reports it to its own caller; the state read after
// Settle is exact either way.)
func (tx *Tx) Settle() { tx.n.settleLocked() }

// InFlight reports whether deltas staged by earlier UpdateAsync calls are
// still committing (reads through the namespace may not see them).
func (tx *Tx) InFlight() bool {
	tx.n.pruneLocked()
	return len(tx.n.flight) > 0
}

// stageLocked puts the staged delta of tx (read at ts, by w) in the flight,
// starts its commit and returns a function that waits for it. The caller
// holds wmu.
func (n *Namespace) stageLocked(ctx context.Context, tx *deltaTx, w *deltaWriter, ts uint64) func() error {
	f := &flightDelta{kv: tx.rec, done: make(chan struct{})}
	var prev *flightDelta
	if len(n.flight) > 0 {
		prev = n.flight[len(n.flight)-1]
	}
	n.flight = append(n.flight, f)
	n.lastEntries = int64(tx.n)
	n.nodes.committedGen(w, ts, n.writeGen)
	ctx = context.WithoutCancel(ctx)
	go func() {
		defer close(f.done)
		defer tx.Close()
		if prev != nil {
			<-prev.done
			if prev.err != nil {
				f.err = fmt.Errorf("namespace %s: write: an earlier write of the namespace failed: %w", n.name, prev.err)
				return
			}
		}
		if err := n.s.opts.hooks.beforeAsyncCommit(); err != nil {
			f.err = fmt.Errorf("namespace %s: write: %w", n.name, err)
			return
		}
		if err := tx.Commit(ctx); err != nil {
			f.err = fmt.Errorf("namespace %s: write: %w", n.name, err)
		}
	}()
	return func() error {
		<-f.done
		return f.err
	}
}
