package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// stopGrace is how long a command has, after the first SIGINT or SIGTERM
// cancelled its context, to stop by itself before cortexctl exits at once
// (exit 8): a command blocked writing its output (a pipe nobody reads, a
// named pipe nobody opened) does not see its context end.
const stopGrace = 2 * time.Second

// stopper turns SIGINT and SIGTERM into the end of a command's context,
// then, if the command has not returned within its grace or a second
// signal comes, into an immediate exit with exitTimeout. The exit cuts a
// write in flight as a crash would (the store survives it by design: its
// next open recovers) and releases the store's lock with the process.
type stopper struct {
	stderr io.Writer
	exit   func(int)
	grace  atomic.Int64 // time.Duration
	// sigs is the channel start reads, for notifyStop (nil: none).
	sigs chan<- os.Signal

	mu sync.Mutex
	// atExit are run, last first, before the immediate exit (onHardExit).
	atExit map[int]func()
	nextID int
}

type stopperKey struct{}

// start cancels the returned context at the first of the signals sigs
// delivers, and exits (s.exit(exitTimeout)) at the second one or when
// s's grace has passed since the first. stop stops it (call it when the
// command has returned).
func (s *stopper) start(ctx context.Context, sigs <-chan os.Signal) (_ context.Context, stop func()) {
	ctx, cancel := context.WithCancel(context.WithValue(ctx, stopperKey{}, s))
	done := make(chan struct{})
	go func() {
		var sig os.Signal
		select {
		case sig = <-sigs:
		case <-done:
			return
		}
		cancel()
		grace := time.Duration(s.grace.Load())
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-done:
			return
		case sig2 := <-sigs:
			fmt.Fprintf(s.stderr, "cortexctl: interrupted: %v again: exiting at once (a write in progress is cut as by a crash; the store recovers at its next open)\n", sig2)
		case <-t.C:
			fmt.Fprintf(s.stderr, "cortexctl: interrupted: the command did not stop within %v of %v (output blocked?): exiting at once (a write in progress is cut as by a crash; the store recovers at its next open)\n", grace, sig)
		}
		s.runAtExit()
		s.exit(exitTimeout)
	}()
	return ctx, func() { close(done); cancel() }
}

// setStopGrace gives the command running with ctx a grace of d after the
// first signal (see stopper), if ctx is a stopper's: serve, whose
// shutdown lets requests in flight finish, needs longer than stopGrace.
func setStopGrace(ctx context.Context, d time.Duration) {
	if s, ok := ctx.Value(stopperKey{}).(*stopper); ok {
		s.grace.Store(int64(d))
	}
}

// notifyStop makes sigs stop the command running with ctx as SIGINT and
// SIGTERM do, a second one or the grace included (see stopper), if ctx
// is a stopper's that has its channel: serve stops so on SIGHUP and
// SIGQUIT too.
func notifyStop(ctx context.Context, sigs ...os.Signal) {
	if s, ok := ctx.Value(stopperKey{}).(*stopper); ok && s.sigs != nil {
		signal.Notify(s.sigs, sigs...)
	}
}

// onHardExit makes f run before the immediate exit of the command running
// with ctx (the second signal, or its grace over: see stopper), if ctx is
// a stopper's; remove stops that (call it once the command has cleaned up
// by itself). serve removes its discovery file and socket so: the exit
// skips its deferred cleanup. f runs in another goroutine than the
// command, which may be cleaning up at the same time.
func onHardExit(ctx context.Context, f func()) (remove func()) {
	s, ok := ctx.Value(stopperKey{}).(*stopper)
	if !ok {
		return func() {}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.atExit == nil {
		s.atExit = map[int]func(){}
	}
	id := s.nextID
	s.nextID++
	s.atExit[id] = f
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.atExit, id)
	}
}

// runAtExit runs the functions onHardExit registered, last first.
func (s *stopper) runAtExit() {
	s.mu.Lock()
	ids := make([]int, 0, len(s.atExit))
	for id := range s.atExit {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	fs := make([]func(), 0, len(ids))
	for _, id := range slices.Backward(ids) {
		fs = append(fs, s.atExit[id])
	}
	s.mu.Unlock()
	for _, f := range fs {
		f()
	}
}
