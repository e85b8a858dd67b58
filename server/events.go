package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
	"weak"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/teammanager"
)

// The events route: GET /ns/{ns}/events streams the namespace's events
// (teammanager.Manager.Subscribe) as Server-Sent Events, each message
//
//	id: 42
//	event: member.status
//	data: {"id":42,"type":"member.status","team":"t1","time":"...","data":{...}}
//
// with the JSON of api.Event as its data. Where it starts: after the id in
// the Last-Event-ID header (sent by a reconnecting EventSource), else
// after the id in ?after= (0: the oldest event retained), else after the
// last event (only new events). An id that is not a number is 400, and so
// is an ?after= past the last event. Events that retention removed before
// the client read them come as one events.lost event (api.EventsLost),
// also after a Last-Event-ID of 0: a position before event 1 (only
// ?after=0 means "from the oldest event retained").
//
// The first message, sent at once, is the resume point: the opening
// comment and "id: N", N the id the stream starts after, with no data. By
// the SSE processing model (WHATWG HTML, "Server-sent events") a message
// without data fires no event but still sets the EventSource's last event
// id, so a client that goes before any event comes back with
// Last-Event-ID N and misses nothing written meanwhile.
//
// Ids start at 1 again in a namespace deleted and created again under its
// name. A stream that the deletion ends sets its client's last event id to
// 0 first ("id: 0"), so that the reconnection gets every event of the new
// namespace. A Last-Event-ID past the last event (the client was away at
// the deletion) is not refused, which an EventSource would take as final:
// the stream starts with an events.lost event (after: that id, first: the
// oldest event retained; id first-1) and goes on with every event of the
// new namespace. A client away while the new namespace wrote past its id
// cannot be told apart from one that is not: it gets the events after its
// id only.
//
// At most Options.WithMaxEventStreams streams are open at once; one more
// is refused at once: 503 with Retry-After, kind busy.
//
// Comment lines (": ping") are sent every eventHeartbeat so that proxies
// keep an idle stream open; each message is flushed as it is written. The
// stream ends when the client goes, when the server shuts down (Serve, or
// the Shutdown of any http.Server running Handler: streams do not hold a
// graceful shutdown back), when the namespace is deleted (namespaces.delete,
// or cortex.Store.DeleteNamespace by an embedder: see above), when
// reading the store fails, or, for a stream
// opened with a bearer token, once that token is revoked, expires or
// leaves the token file, and for a stream opened over TCP without a token
// (none existed), once the token file holds one (checked every
// eventTokenCheck; a last comment line says why).

// eventHeartbeat is the interval of heartbeat comments.
var eventHeartbeat = 15 * time.Second

// eventTokenCheck is how often the token of an open stream is checked
// again (TokenFile.Check: one stat of the token file, which is reread if
// it changed).
var eventTokenCheck = time.Second

// serveEvents serves GET /ns/{ns}/events.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request, ns string) {
	after, given, fromHeader, err := eventsAfter(r)
	if err != nil {
		writeError(w, err, "")
		return
	}
	select {
	case s.streams <- struct{}{}:
		defer func() { <-s.streams }()
	default:
		writeError(w, fmt.Errorf("%w: %d event streams are open, the server's limit (Options.WithMaxEventStreams, cortexctl serve --max-event-streams): retry later",
			api.ErrBusy, cap(s.streams)), "")
		return
	}
	deleted, release := s.nsDeleted(ns) // before the manager: see nsDeleted
	defer release()
	m, err := s.manager(r.Context(), ns, accessRead)
	if err != nil {
		writeError(w, err, "")
		return
	}
	if !given {
		if after, err = m.LastEventID(r.Context()); err != nil {
			writeError(w, err, "")
			return
		}
	}
	stop := shutdownOf(r) // before anything is sent: see shutdownOf
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	seq, err := m.Subscribe(ctx, after)
	// A client's position from Last-Event-ID is where it stopped reading:
	// if the first event it gets is not the next, those in between are
	// lost to it, and it is told so (an events.lost event), also at 0 (a
	// position before event 1: only ?after=0 means "from the oldest event
	// kept") and past the last event (see the route's doc).
	checkLost, lostAfter := fromHeader, after
	if errors.Is(err, teammanager.ErrInvalidEventID) && fromHeader {
		after = 0
		seq, err = m.Subscribe(ctx, after)
	}
	if err != nil {
		writeError(w, err, "")
		return
	}
	type next struct {
		ev  teammanager.Event
		err error
	}
	events := make(chan next)
	go func() {
		defer close(events)
		for ev, err := range seq {
			select {
			case events <- next{ev, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return // the headers of the stream, which has no end to wait for
	}
	rc := http.NewResponseController(w)
	send := func(msg []byte) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(s.opts.writeTimeout)) // not supported: no bound
		if _, err := w.Write(msg); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	// The resume point, at once: a message with an id and no data sets
	// an EventSource's last event id without firing an event.
	if !send([]byte(": cortex events of namespace " + ns + "\nid: " + strconv.FormatUint(after, 10) + "\n\n")) {
		return
	}
	// gone ends the stream of a deleted namespace: a namespace created
	// again under its name numbers its events from 1, so the client's
	// resume point goes back to 0 (all events of the next namespace).
	gone := func() {
		send([]byte("id: 0\n: namespace " + ns + " was deleted: the stream ends\n\n"))
	}
	beat := time.NewTicker(eventHeartbeat)
	defer beat.Stop()
	// The token that opened the stream is checked again every
	// eventTokenCheck: the stream ends once it is revoked or expired. A
	// stream opened without a token because none existed yet ends once
	// one exists: from then on, the server needs one.
	var recheck <-chan time.Time
	pr, _ := r.Context().Value(principalKey{}).(principal)
	if (pr.tok != nil || pr.untilToken) && s.opts.tokens != nil {
		t := time.NewTicker(eventTokenCheck)
		defer t.Stop()
		recheck = t.C
	}
	for {
		select {
		case <-recheck:
			if err := s.recheck(pr); err != nil {
				send([]byte(": " + oneLine.Replace(err.Error()) + ": the stream ends\n\n"))
				return
			}
		case n, ok := <-events:
			if !ok {
				return
			}
			if errors.Is(n.err, cortex.ErrNoNamespace) {
				gone()
				return
			}
			if n.err != nil {
				if ctx.Err() == nil {
					s.opts.logger.Printf("events of %s: %v", ns, n.err)
				}
				return
			}
			if checkLost && n.ev.Type == teammanager.EventsLost {
				// One events.lost, from the client's id.
				n.ev.Lost = &teammanager.LostEvents{After: lostAfter, First: n.ev.Lost.First}
				checkLost = false
			}
			if checkLost && n.ev.ID != lostAfter+1 {
				lost := teammanager.Event{ID: n.ev.ID - 1, Type: teammanager.EventsLost,
					Lost: &teammanager.LostEvents{After: lostAfter, First: n.ev.ID}}
				msg, err := sseMessage(lost)
				if err != nil {
					s.opts.logger.Printf("events of %s: %v", ns, err)
					return
				}
				if !send(msg) {
					return
				}
			}
			checkLost = false
			msg, err := sseMessage(n.ev)
			if err != nil {
				s.opts.logger.Printf("events of %s: %v", ns, err)
				return
			}
			if !send(msg) {
				return
			}
		case <-beat.C:
			if !send([]byte(": ping\n\n")) {
				return
			}
		case <-deleted:
			gone()
			return
		case <-stop:
			return
		case <-ctx.Done():
			return
		}
	}
}

// oneLine puts a text on one line of an event stream, where CR, LF and
// CRLF each end a line.
var oneLine = strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ")

// recheck returns nil if pr, who opened an event stream, may still
// follow it: its token is still valid, or (let in without one because
// none existed) the token file still holds none. An error of the token
// file ends the stream too.
func (s *Server) recheck(pr principal) error {
	if pr.tok != nil {
		return s.opts.tokens.Check(pr.tok.ID, s.opts.now())
	}
	any, err := s.opts.tokens.Any()
	switch {
	case err != nil:
		return tokenFileError(err)
	case any:
		return fmt.Errorf("%w: a token now exists, and this server needs one (Authorization: Bearer TOKEN)", ErrUnauthorized)
	}
	return nil
}

// eventsAfter reads where a stream starts: the Last-Event-ID header
// (fromHeader), else the after query parameter; given is false if neither
// is there.
func eventsAfter(r *http.Request) (after uint64, given, fromHeader bool, err error) {
	// Given twice, one reader of the request (a proxy) may take the one
	// and the server the other: refused, as the other routes' are.
	if n := len(r.Header.Values("Last-Event-ID")); n > 1 {
		return 0, false, false, fmt.Errorf("%w: Last-Event-ID given %d times", api.ErrUsage, n)
	}
	if n := len(r.URL.Query()["after"]); n > 1 {
		return 0, false, false, fmt.Errorf("%w: after given %d times", api.ErrUsage, n)
	}
	name, v := "Last-Event-ID", r.Header.Get("Last-Event-ID")
	if v == "" {
		name, v = "after", r.URL.Query().Get("after")
	}
	if v == "" {
		return 0, false, false, nil
	}
	after, err = strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, false, false, fmt.Errorf("%w: %s %q: want an event id (a number ≥ 0)", api.ErrInvalid, name, v)
	}
	return after, true, name == "Last-Event-ID", nil
}

// sseMessage returns ev as an SSE message.
func sseMessage(ev teammanager.Event) ([]byte, error) {
	je, err := api.EventOf(ev)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(je)
	if err != nil {
		return nil, fmt.Errorf("event %d: %w", ev.ID, err)
	}
	b := make([]byte, 0, len(data)+64)
	b = append(b, "id: "...)
	b = strconv.AppendUint(b, ev.ID, 10)
	b = append(b, "\nevent: "...)
	b = append(b, ev.Type...)
	b = append(b, "\ndata: "...)
	b = append(b, data...) // JSON without raw newlines: one data line
	return append(b, "\n\n"...), nil
}

// Shutdown of streams. An http.Server's Shutdown waits for the requests in
// flight, and an event stream never ends on its own. Under Serve, a stream
// ends when Serve's context does, which is when Serve starts shutting down
// (a stream that starts after that ends at once). Under Handler, in a
// host's own http.Server, each http.Server that runs a stream gets, once,
// an OnShutdown function that ends its streams (a stream that starts after
// its server's Shutdown began is not ended by it).

// serveDoneKey is the request context key of the Done channel of Serve's
// context.
type serveDoneKey struct{}

var (
	shutdownsMu sync.Mutex
	// shutdowns holds the channel that the Shutdown of a host's
	// http.Server closes, for each one that ran a stream (shutdownOf).
	// Its keys are weak: it keeps no http.Server alive (with its handler,
	// its Server and store), and an entry goes at its server's Shutdown,
	// or, for a server closed (Close) or let go without one, whose
	// OnShutdown functions never run, once the server is garbage
	// collected.
	shutdowns = map[weak.Pointer[http.Server]]chan struct{}{}
)

// shutdownOf returns a channel closed when the http.Server serving r
// starts shutting down (nil, never closed, if r has no http.Server).
func shutdownOf(r *http.Request) <-chan struct{} {
	if done, ok := r.Context().Value(serveDoneKey{}).(<-chan struct{}); ok {
		return done
	}
	hs, _ := r.Context().Value(http.ServerContextKey).(*http.Server)
	if hs == nil {
		return nil
	}
	key := weak.Make(hs)
	shutdownsMu.Lock()
	defer shutdownsMu.Unlock()
	ch, ok := shutdowns[key]
	if !ok {
		ch = make(chan struct{})
		shutdowns[key] = ch
		hs.RegisterOnShutdown(func() {
			shutdownsMu.Lock()
			defer shutdownsMu.Unlock()
			if shutdowns[key] == ch {
				delete(shutdowns, key)
			}
			close(ch)
		})
		// Neither the function nor its argument holds hs.
		runtime.AddCleanup(hs, func(key weak.Pointer[http.Server]) {
			shutdownsMu.Lock()
			defer shutdownsMu.Unlock()
			delete(shutdowns, key)
		}, key)
	}
	return ch
}
