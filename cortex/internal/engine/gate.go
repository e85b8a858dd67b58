package engine

import (
	"context"
	"sync"
	"time"
)

// gate counts the Badger transactions open in a store, so that a streamed
// import (stream.go) can run with none open: Badger's StreamWriter replaces
// the database's timestamp oracle when it finishes, which a transaction
// started before and ended after would trip over.
//
// enter/leave bracket every transaction (read or write; for an asynchronous
// commit, leave runs when the commit has completed). exclusive waits until no
// transaction is open and then holds new ones back until release. While it
// waits it alternates between holding new transactions back (so that a
// continuously busy store drains) and admitting them (so that a goroutine
// that opens a second transaction while holding one is not deadlocked
// against it; its context bounds the wait).
//
// Started marks the moment a transaction admitted by Enter has taken its
// Badger read timestamp. holdNew holds new transactions back like exclusive
// but waits only for those admitted and not yet started, not for the open
// ones: a journaled delta written in several Badger transactions needs no
// reader to start in the middle of it, and readers already open read a
// snapshot older than all of it. There is one exclusive holder at a time,
// of either kind.
type gate struct {
	mu sync.Mutex
	n  int // open transactions
	// starting counts the transactions admitted by Enter that have not yet
	// taken their Badger read timestamp (Started); startIdle is closed when
	// it drops to 0 (created by a holdNew waiter).
	starting  int
	startIdle chan struct{}
	excl      bool // an exclusive holder is active
	// held is set while an exclusive holder has acquired the gate (holdNew
	// or exclusive returned, until release): it is writing. A caller that
	// owns g.one but is still waiting for open transactions to end is not
	// holding it (closeUnless gives up on such a waiter).
	held bool
	open chan struct{} // closed when the exclusive holder releases
	idle chan struct{} // closed when n drops to 0 (created by a waiter)
	one  chan struct{} // capacity 1: one exclusive holder at a time
	shut bool          // the store is closing: no new transaction is admitted
	// lost, if set, is why Badger can serve no transaction any more (see
	// Store.lose): no new transaction is admitted, and Enter returns it.
	lost error
	// onStall, if set, is called (without the lock) each time an exclusive
	// waiter's closed window passes with transactions still open: the
	// store collects query results that nobody closed (results.go).
	onStall func()
	// The windows of exclusive (see below).
	firstClosed, maxClosed, openWindow time.Duration
}

// newGate returns a gate with the windows of t (resolved).
func newGate(t Tuning) *gate {
	return &gate{one: make(chan struct{}, 1), firstClosed: t.GateFirstClosed, maxClosed: t.GateMaxClosed, openWindow: t.GateOpenWindow}
}

// Enter admits a transaction, waiting while an exclusive holder is active (a
// streamed segment, a journaled delta, a namespace's deletion): ctx bounds
// that wait, and Enter fails with ctx's error (errors.Is ctx.Err()) when it
// is done first, counting nothing. It fails with ErrClosed once the store is
// closing, and with the error given to refuse once Badger can serve no
// transaction.
func (g *gate) Enter(ctx context.Context) error {
	g.mu.Lock()
	for g.excl {
		ch := g.open
		g.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
		g.mu.Lock()
	}
	if g.shut {
		g.mu.Unlock()
		return ErrClosed
	}
	if err := g.lost; err != nil {
		g.mu.Unlock()
		return err
	}
	g.n++
	g.starting++
	g.mu.Unlock()
	return nil
}

// refuse makes Enter fail with err from now on.
func (g *gate) refuse(err error) {
	g.mu.Lock()
	if g.lost == nil {
		g.lost = err
	}
	g.mu.Unlock()
}

// Started tells the gate that a transaction admitted by Enter has taken its
// Badger read timestamp (badgerkv calls it right after NewTransaction): from
// then on it reads a snapshot that no later commit changes (see holdNew).
func (g *gate) Started() {
	g.mu.Lock()
	g.starting--
	if g.starting < 0 {
		g.mu.Unlock()
		panic("cortex: gate started more often than entered")
	}
	if g.starting == 0 && g.startIdle != nil {
		close(g.startIdle)
		g.startIdle = nil
	}
	g.mu.Unlock()
}

// holdNew keeps new transactions out until release, like exclusive, but
// waits only for the transactions that have been admitted and have not yet
// taken their read timestamp, not for the open ones: a transaction whose
// snapshot was taken before the holder's first commit sees none of what it
// writes, and one that starts after release sees all of it. It suits a
// write committed in several Badger transactions that readers must see all
// or nothing of (a journaled delta, journal.go), not the stream writer, which
// replaces Badger's timestamp oracle and needs no transaction open at all
// (exclusive). It fails only when ctx is done.
func (g *gate) holdNew(ctx context.Context) error {
	select {
	case g.one <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	g.mu.Lock()
	g.excl = true
	g.open = make(chan struct{})
	for g.starting > 0 {
		if g.startIdle == nil {
			g.startIdle = make(chan struct{})
		}
		ch := g.startIdle
		g.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			// (NewTransaction waits only for commits in flight: this is
			// reached only if ctx is already done or about to be.)
			g.mu.Lock()
			g.excl = false
			close(g.open)
			g.mu.Unlock()
			<-g.one
			return ctx.Err()
		}
		g.mu.Lock()
	}
	g.held = true
	g.mu.Unlock()
	return nil
}

// closeUnless waits, at most wait, until no transaction is open and no
// exclusive holder is active (see exclusive), then admits no transaction ever
// again. While no exclusive holder is writing (held), it stops waiting for
// the open transactions early when giveUp (if not nil), asked every 50 ms
// with the number of open transactions and the time waited so far, says so;
// it never gives up while a holder is writing (a streamed or journaled
// write, whose own transactions are not counted as open), only on one that
// still waits for the open transactions itself. It reports whether it
// drained.
func (g *gate) closeUnless(wait time.Duration, giveUp func(open int, waited time.Duration) bool) bool {
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if giveUp != nil {
		done := make(chan struct{})
		defer close(done)
		go func() {
			t := time.NewTicker(50 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-done:
					return
				case <-ctx.Done():
					return
				case <-t.C:
				}
				g.mu.Lock()
				open, held := g.n, g.held
				g.mu.Unlock()
				if !held && giveUp(open, time.Since(start)) {
					cancel()
					return
				}
			}
		}()
	}
	drained := g.exclusive(ctx) == nil
	g.mu.Lock()
	g.shut = true
	g.mu.Unlock()
	if drained {
		g.release() // wakes waiters, which now fail
	}
	return drained
}

// Leave ends a transaction admitted by Enter.
func (g *gate) Leave() {
	g.mu.Lock()
	g.n--
	if g.n < 0 {
		g.mu.Unlock()
		panic("cortex: gate left more often than entered")
	}
	if g.n == 0 && g.idle != nil {
		close(g.idle)
		g.idle = nil
	}
	g.mu.Unlock()
}

// Windows of exclusive (Tuning.GateFirstClosed, GateMaxClosed,
// GateOpenWindow): it holds new transactions back for a closed window
// (doubling each round up to maxClosed) while the open ones end, and if they
// do not, admits new ones again for openWindow. Holding new ones back is
// what lets a store under continuous reads drain; admitting them again is
// what keeps a goroutine that opens a second transaction while holding one
// from deadlocking against the holder.

// exclusive waits until no transaction is open and then keeps new ones out
// until release (see the windows above). It fails only when ctx is done.
func (g *gate) exclusive(ctx context.Context) error { return g.exclusiveWait(ctx, 0) }

// exclusiveWait is exclusive with a bound on the wait for the store's open
// transactions to end (0: none): it fails with context.DeadlineExceeded
// when they do not end within wait. The wait for earlier exclusive holders,
// which never wait for anything a transaction holder may hold, is bounded
// by ctx only.
func (g *gate) exclusiveWait(ctx context.Context, wait time.Duration) error {
	select {
	case g.one <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	return g.drainHeld(ctx, wait)
}

// drainHeld is exclusiveWait for a caller that has taken g.one: it gives
// g.one back if it fails.
func (g *gate) drainHeld(ctx context.Context, wait time.Duration) error {
	if wait > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, wait)
		defer cancel()
	}
	closed := g.firstClosed
	for {
		g.mu.Lock()
		g.excl = true
		g.open = make(chan struct{})
		if g.n == 0 {
			g.held = true
			g.mu.Unlock()
			return nil
		}
		if g.idle == nil {
			g.idle = make(chan struct{})
		}
		ch := g.idle
		g.mu.Unlock()
		t := time.NewTimer(closed)
		select {
		case <-ch:
			// No transaction is open and none can start: acquired.
			t.Stop()
			g.setHeld()
			return nil
		case <-t.C:
			if g.onStall != nil {
				g.onStall()
				// Results the collector closes leave the gate soon after.
				select {
				case <-ch:
					g.setHeld()
					return nil
				case <-time.After(g.openWindow):
				case <-ctx.Done():
				}
			}
		case <-ctx.Done():
			t.Stop()
		}
		g.mu.Lock()
		g.excl = false
		close(g.open)
		g.mu.Unlock()
		if err := ctx.Err(); err != nil {
			<-g.one
			return err
		}
		t = time.NewTimer(g.openWindow)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			<-g.one
			return ctx.Err()
		}
		closed = min(2*closed, g.maxClosed)
	}
}

// setHeld records that the exclusive waiter has acquired the gate.
func (g *gate) setHeld() {
	g.mu.Lock()
	g.held = true
	g.mu.Unlock()
}

// release ends an exclusive hold.
func (g *gate) release() {
	g.mu.Lock()
	g.excl = false
	g.held = false
	close(g.open)
	g.mu.Unlock()
	<-g.one
}
