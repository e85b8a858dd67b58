package workflow

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/cortexgraph/cortex/internal/proc"
)

// Driver is a driver of a crew or swarm run (Run.Driver). A led run's
// members run the tasks their driver claimed for them, so two drivers of
// one run would run each other's tasks: DriveLed holds the run for its
// whole drive (Engine.ClaimDriver), renewing a lease, and a second driver
// is refused with a *DriverBusyError until the first lets go, its lease
// ends, or it is found dead.
type Driver struct {
	ID    string    `json:"id"`             // unique to one drive
	Actor string    `json:"actor"`          // the actor it drives as
	Host  string    `json:"host,omitempty"` // the host name of its process
	PID   int       `json:"pid,omitempty"`  // its process, on Host
	Until time.Time `json:"until"`          // the end of its lease (the store's clock)
}

// DefaultDriverLease is how long DriveLed's hold of a run lasts without
// renewal; it renews it every third of that. A driver killed without
// letting go holds the run that long, unless the next driver on the same
// host finds its process gone and takes the run at once.
const DefaultDriverLease = 15 * time.Second

// NewDriver returns a driver for actor in this process: a fresh id, the
// host name and the process id.
func NewDriver(actor string) Driver {
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	host, _ := os.Hostname()
	return Driver{ID: hex.EncodeToString(b[:]), Actor: actor, Host: host, PID: os.Getpid()}
}

// gone reports whether d's process is known to have ended: it ran on this
// host and its pid is not alive. A driver of another host is never known
// gone: its lease must end.
func (d Driver) gone() bool {
	host, err := os.Hostname()
	return err == nil && d.Host != "" && d.Host == host && d.PID > 0 && !proc.Alive(d.PID)
}

// maxEndedDrivers bounds record.EndedDrivers: a driver whose hold ended
// more than that many holds ago is no longer recognised as stale.
const maxEndedDrivers = 64

// ClaimDriver makes d the driver of crew or swarm run id for ttl from now
// (Run.Driver, d.Until set by the store's clock; the d.Until given is not
// read, whatever it is): when no driver holds the
// run, when d holds it already (a renewal), when the holder's lease has
// ended, or when the holder's id is replace (a takeover: "" takes over
// nobody). Otherwise it returns a *DriverBusyError (ErrDriverBusy).
//
// A driver id holds a run once: a driver whose hold ended — it let go
// (ReleaseDriver), another driver took the run over, or took it once its
// lease had ended — is refused with an error wrapping ErrDriverBusy, even
// when the run is free, so that its next renewal tells it that it lost
// the run instead of handing the run back to it while another driver may
// have driven it in between. (A lease that ended while no other driver
// claimed the run is renewed: nobody else held it.) A new drive claims
// with a new driver (NewDriver). The run remembers the last 64 ended
// drivers.
//
// It is an atomic read-modify-write: of two drivers claiming a free run,
// one wins. It records no transition. ErrRunFinished once the run has
// finished; ErrInvalidRun for a run that is not a crew or swarm, an empty
// driver id or actor, an id, actor or host that is not valid UTF-8, or a
// ttl ≤ 0.
func (e *Engine) ClaimDriver(ctx context.Context, id string, d Driver, ttl time.Duration, replace string) (Run, error) {
	if d.ID == "" || d.Actor == "" || ttl <= 0 {
		return Run{}, fmt.Errorf("run %s: %w: a driver needs an id, an actor and a lease > 0", id, ErrInvalidRun)
	}
	if !utf8.ValidString(d.ID) || !utf8.ValidString(d.Actor) || !utf8.ValidString(d.Host) {
		// The run's row would hold it with U+FFFD: another Engine would
		// not know the driver by the id it gives.
		return Run{}, fmt.Errorf("run %s: %w: driver %q: its id, actor and host must be valid UTF-8", id, ErrInvalidRun, d.ID)
	}
	rec, err := e.update(withoutDriver(ctx), id, func(c *change, _ *Def, _ *plan) error {
		if err := notFinished(c.rec); err != nil {
			return err
		}
		if !c.rec.Type.Led() {
			return fmt.Errorf("run %s: %w: a %s run has no driver to hold it (only crew and swarm runs)", id, ErrInvalidRun, c.rec.Type)
		}
		if slices.Contains(c.rec.EndedDrivers, d.ID) {
			return fmt.Errorf("run %s: %w: driver %s no longer holds the run (it let go of it, or another driver took it); "+
				"a new drive claims it with a new driver", id, ErrDriverBusy, d.ID)
		}
		h := c.rec.Driver
		if h != nil && h.ID != d.ID && h.ID != replace && c.now.Before(h.Until) {
			return &DriverBusyError{Run: id, Holder: *h}
		}
		if h != nil && h.ID != d.ID {
			c.rec.endDriver(h.ID)
		}
		d.Until = c.now.Add(ttl)
		c.rec.Driver = &d
		return nil
	})
	if err != nil {
		return Run{}, err
	}
	return rec.public(), nil
}

// endDriver records that driver id's hold of the run ended.
func (r *record) endDriver(id string) {
	r.EndedDrivers = append(r.EndedDrivers, id)
	if n := len(r.EndedDrivers); n > maxEndedDrivers {
		r.EndedDrivers = slices.Delete(r.EndedDrivers, 0, n-maxEndedDrivers)
	}
}

// ReleaseDriver lets go of run id if driver driverID holds it (else it
// does nothing): the next driver may claim it at once. A finished run is
// let go of too.
func (e *Engine) ReleaseDriver(ctx context.Context, id, driverID string) error {
	_, err := e.update(withoutDriver(ctx), id, func(c *change, _ *Def, _ *plan) error {
		if c.rec.Driver != nil && c.rec.Driver.ID == driverID {
			c.rec.Driver = nil
			c.rec.endDriver(driverID)
		}
		return nil
	})
	return err
}
