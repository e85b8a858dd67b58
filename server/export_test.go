package server

import "time"

// SetEventHeartbeat sets the interval of event streams' heartbeats until
// the returned function restores it.
func SetEventHeartbeat(d time.Duration) (restore func()) {
	old := eventHeartbeat
	eventHeartbeat = d
	return func() { eventHeartbeat = old }
}

// WithClock sets the clock that token expiry is checked against.
func WithClock(o Options, now func() time.Time) Options { o.now = now; return o }
