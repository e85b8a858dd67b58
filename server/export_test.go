package server

import (
	"context"
	"time"
)

// SetEventHeartbeat sets the interval of event streams' heartbeats until
// the returned function restores it.
func SetEventHeartbeat(d time.Duration) (restore func()) {
	old := eventHeartbeat
	eventHeartbeat = d
	return func() { eventHeartbeat = old }
}

// WithClock sets the clock that token expiry is checked against.
func WithClock(o Options, now func() time.Time) Options { o.now = now; return o }

// HoldTurn takes a turn among the read-heavy requests of s (as a running
// query does) until the returned function is called.
func HoldTurn(s *Server) (release func(), err error) {
	return s.queryTurn(context.Background())
}

// SetEventTokenCheck sets how often the token of an open event stream is
// checked again until the returned function restores it.
func SetEventTokenCheck(d time.Duration) (restore func()) {
	old := eventTokenCheck
	eventTokenCheck = d
	return func() { eventTokenCheck = old }
}

// DeletionWatches returns how many namespace names s keeps a deletion
// channel for (nsDeleted).
func DeletionWatches(s *Server) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.deleted)
}
