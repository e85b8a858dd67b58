package workflow

import (
	"context"
	"fmt"
	"time"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/teammanager"
)

// A driver acts on a crew or swarm run only while it holds the run: each
// write it makes checks that, in the write itself (a fence), so that a
// driver whose lease ended, or that was taken over, cannot act until its
// next renewal tells it so.

type driverKey struct{}

// heldBy names the driver a context acts for (WithDriver).
type heldBy struct{ run, driver string }

// WithDriver returns a context for the calls of driver driverID of crew or
// swarm run id (DriveLedWith makes them with it): each write of that run
// through an Engine made with it (StartStep, AddFindings, CompleteStep,
// FailStep, Cancel, and the timeouts Ready records) checks, in that same
// atomic write, that the driver holds the run — it is the run's Driver
// and its lease has not ended — and otherwise writes nothing and returns
// an error matching ErrDriverBusy. ClaimDriver, ReleaseDriver and
// ReleaseStep are not fenced (a driver renews its hold, and gives back
// what it holds, with them). The task board's writes are fenced the same
// way through teammanager.WithWriteCheck (Pull.DriverCheck, which
// DriveLedWith adds whatever implements its Pull); a client of a server
// (package client) sends the driver with each call, and the server fences
// both.
func WithDriver(ctx context.Context, id, driverID string) context.Context {
	return context.WithValue(ctx, driverKey{}, heldBy{run: id, driver: driverID})
}

// DriverOf returns the run and driver that ctx acts for (WithDriver).
func DriverOf(ctx context.Context) (id, driverID string, ok bool) {
	h, ok := ctx.Value(driverKey{}).(heldBy)
	return h.run, h.driver, ok && h.driver != ""
}

// withoutDriver returns ctx acting for no driver.
func withoutDriver(ctx context.Context) context.Context {
	if _, _, ok := DriverOf(ctx); !ok {
		return ctx
	}
	return context.WithValue(ctx, driverKey{}, heldBy{})
}

// holds returns nil if driver driverID holds run rec at now, else an
// error matching ErrDriverBusy.
func holds(rec *record, driverID string, now time.Time) error {
	switch h := rec.Driver; {
	case h == nil || h.ID != driverID:
		return fmt.Errorf("run %s: %w: driver %s no longer holds the run (it let go of it, or another driver took it); it may not act on it", rec.ID, ErrDriverBusy, driverID)
	case !now.Before(h.Until):
		return fmt.Errorf("run %s: %w: the lease of driver %s ended at %s; it may not act on the run until it renews it", rec.ID, ErrDriverBusy, driverID, h.Until.Format(time.RFC3339Nano))
	}
	return nil
}

// fenced checks, in a write of run rec, that the driver ctx acts for, if
// it acts for one on this run, holds it.
func (e *Engine) fenced(ctx context.Context, rec *record) error {
	if id, driverID, ok := DriverOf(ctx); ok && id == rec.ID {
		return holds(rec, driverID, e.now())
	}
	return nil
}

// DriverCheck returns the fence of driver driverID of run id for the task
// board's writes (teammanager.WithWriteCheck): it reads the run in the
// board's write and returns an error matching ErrDriverBusy unless the
// driver holds the run (see WithDriver).
func (e *Engine) DriverCheck(id, driverID string) teammanager.WriteCheck {
	return func(ctx context.Context, tx *cortex.Tx) error {
		rec, err := e.load(ctx, tx.Namespace(), id, readLocked)
		if err != nil {
			return err
		}
		return holds(rec, driverID, e.now())
	}
}
