package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strconv"
	"strings"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/teammanager"
)

// The events of the client's namespace, read from the server's event
// stream (GET /ns/{ns}/events, Server-Sent Events: see package server).

// LastEventID returns the id of the namespace's last event, 0 if there is
// none yet, as teammanager.Manager.LastEventID: the resume point of an
// event stream opened for new events only, which the server sends first.
// A namespace that does not exist on the server is an error matching
// cortex.ErrNoNamespace (exit code 3), as for ListTeams: reading creates
// nothing (see Subscribe).
func (c *Client) LastEventID(ctx context.Context) (uint64, error) {
	resp, err := c.openEvents(ctx, "", false)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	r := newSSEReader(resp.Body)
	for {
		msg, err := r.next()
		if err != nil {
			return 0, c.eventsError(ctx, err)
		}
		if msg.hasID {
			id, err := strconv.ParseUint(msg.id, 10, 64)
			if err != nil {
				return 0, fmt.Errorf("events: the server's resume point %q is no event id", msg.id)
			}
			return id, nil
		}
	}
}

// Subscribe returns the namespace's events after afterID, in id order, as
// teammanager.Manager.Subscribe does (with its payloads as the JSON
// shapes of package api carry them): first those stored, then each new
// one, until ctx ends (the sequence then yields ctx's error, with its
// cause, and stops) or the stream fails or ends (it yields the error and
// stops). An afterID past the last event is an error matching
// teammanager.ErrInvalidEventID. When the namespace is deleted, the
// sequence yields an error matching cortex.ErrNoNamespace and stops; when
// the server shuts down, or the connection is lost, one matching
// api.ErrUnavailable (subscribe again after the last event received);
// when the server ends it because the client's token was revoked or
// expired, the error a request with that token gets (matching
// api.ErrDenied).
// Events that retention removed before they were read come as one
// events.lost event (teammanager.LostEvents). Each range over the
// sequence opens a stream of its own, after afterID.
//
// Subscribe reads only: it never creates the namespace (nor does the
// Manager's: its namespace exists from New, which creates it for writing
// and, over a read-only store, fails with an error matching
// cortex.ErrNoNamespace if it does not exist). A namespace that does not
// exist on the server (no team was ever created in it) is an error
// matching cortex.ErrNoNamespace (exit code 3) at once, as for ListTeams,
// or from the sequence if it is deleted before the stream opens. An event of a type this client does not know comes
// with its id, type, team and time only.
func (c *Client) Subscribe(ctx context.Context, afterID uint64) (iter.Seq2[teammanager.Event, error], error) {
	last, err := c.LastEventID(ctx)
	if err != nil {
		return nil, err
	}
	if afterID > last {
		return nil, fmt.Errorf("subscribe after event %d: %w: the last event is %d", afterID, teammanager.ErrInvalidEventID, last)
	}
	// Made while the log is empty, it wants every event from the first,
	// as the Manager's: a position (Last-Event-ID) of 0, not ?after=0
	// (from the oldest event kept), so that events removed before they
	// are read come as events.lost.
	fromFirst := afterID == 0 && last == 0
	return func(yield func(teammanager.Event, error) bool) {
		fail := func(err error) { yield(teammanager.Event{}, err) }
		resp, err := c.openEvents(ctx, strconv.FormatUint(afterID, 10), fromFirst)
		if err != nil {
			fail(err)
			return
		}
		defer resp.Body.Close()
		r := newSSEReader(resp.Body)
		for {
			msg, err := r.next()
			if err != nil {
				fail(c.eventsError(ctx, err))
				return
			}
			if msg.deleted {
				fail(fmt.Errorf("events: %w: namespace %s was deleted", cortex.ErrNoNamespace, c.ns))
				return
			}
			if !msg.hasData {
				continue
			}
			ev, err := eventOf(msg.data)
			if err != nil {
				fail(fmt.Errorf("events: %w", err))
				return
			}
			if ctx.Err() != nil {
				fail(c.eventsError(ctx, ctx.Err()))
				return
			}
			if !yield(ev, nil) {
				return
			}
		}
	}, nil
}

// openEvents opens the namespace's event stream, after the id after (""
// for new events only), given as the client's position (Last-Event-ID)
// if position, else as ?after=.
func (c *Client) openEvents(ctx context.Context, after string, position bool) (*http.Response, error) {
	u := c.url("events")
	if after != "" && !position {
		u += "?after=" + after
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("events: %w", err)
	}
	req.Header.Set("Accept", "text/event-stream")
	if position {
		req.Header.Set("Last-Event-ID", after)
	}
	resp, err := c.do(req)
	if err != nil {
		return nil, fmt.Errorf("events: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, fmt.Errorf("events: %w", c.connError(ctx, err))
		}
		err = httpError(resp, data)
		if e := (*Error)(nil); errors.As(err, &e) && e.Kind == api.KindNotFound {
			// The route answers not found for the namespace only: the
			// error matches cortex.ErrNoNamespace, as a JSON-RPC
			// method's does.
			e.Names = append(e.Names, "no_namespace")
		}
		return nil, fmt.Errorf("events: %w", err)
	}
	return resp, nil
}

// eventsError is the error of a stream that could not be read further:
// ctx's if it ended; the server's refusal of the client's token (matching
// api.ErrDenied) if the server ended the stream saying why and refuses
// the token now (revoked, expired, or none while one is needed), as a
// request with it gets; else one matching api.ErrUnavailable (the server
// ended the stream: its last comment, if any, says why).
func (c *Client) eventsError(ctx context.Context, err error) error {
	var end *streamEnd
	if errors.As(err, &end) && ctx.Err() == nil {
		if strings.HasSuffix(end.why, ": the stream ends") {
			// Ask again, as a request: a stream ended for its token is
			// refused, with the error of the token.
			resp, err := c.openEvents(ctx, "", false)
			if err == nil {
				resp.Body.Close()
			} else if errors.Is(err, api.ErrDenied) {
				return err
			}
		}
		return fmt.Errorf("events: %w", unavailable(c.target, end))
	}
	return fmt.Errorf("events: %w", c.connError(ctx, err))
}

// streamEnd is the end of an event stream by the server.
type streamEnd struct{ why string }

func (e *streamEnd) Error() string {
	if e.why == "" {
		return "the server ended the event stream"
	}
	return "the server ended the event stream: " + e.why
}

// sseReader reads the messages of an event stream (WHATWG HTML,
// "Server-sent events": lines ended by CR, LF or CRLF; fields "name:
// value"; a message ends at an empty line).
type sseReader struct {
	r           *bufio.Reader
	lastComment string
	pendingCR   bool // the last line ended with CR: an LF right after it is part of that end
}

// sseMessage is one message of an event stream.
type sseMessage struct {
	id, data       string
	hasID, hasData bool
	deleted        bool // the server's comment that the namespace was deleted
}

func newSSEReader(r io.Reader) *sseReader { return &sseReader{r: bufio.NewReaderSize(r, 64<<10)} }

// line reads one line, without its end.
func (s *sseReader) line() (string, error) {
	var b strings.Builder
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			if err == io.EOF {
				err = &streamEnd{why: s.lastComment}
			}
			return "", err
		}
		if s.pendingCR {
			s.pendingCR = false
			if c == '\n' {
				continue
			}
		}
		switch c {
		case '\n':
			return b.String(), nil
		case '\r':
			s.pendingCR = true
			return b.String(), nil
		}
		b.WriteByte(c)
	}
}

// next reads the next message (one with fields, or the server's comment
// that the namespace was deleted).
func (s *sseReader) next() (sseMessage, error) {
	var m sseMessage
	fields := false
	for {
		line, err := s.line()
		if err != nil {
			return sseMessage{}, err
		}
		if line == "" {
			if fields || m.deleted {
				return m, nil
			}
			continue
		}
		if comment, ok := strings.CutPrefix(line, ":"); ok {
			s.lastComment = strings.TrimSpace(comment)
			if strings.HasPrefix(s.lastComment, "namespace ") && strings.HasSuffix(s.lastComment, " was deleted: the stream ends") {
				m.deleted = true
			}
			continue
		}
		name, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		fields = true
		switch name {
		case "id":
			m.id, m.hasID = value, true
		case "data":
			if m.hasData {
				m.data += "\n"
			}
			m.data += value
			m.hasData = true
		}
	}
}

// eventOf returns the event of a message's data (api.Event).
func eventOf(data string) (teammanager.Event, error) {
	var je api.Event
	if err := json.Unmarshal([]byte(data), &je); err != nil {
		return teammanager.Event{}, fmt.Errorf("the server's event is not JSON: %w", err)
	}
	ev := teammanager.Event{ID: je.ID, Type: teammanager.EventType(je.Type), Team: je.Team, Time: tv(je.Time)}
	decode := func(v any) error {
		if err := json.Unmarshal(je.Data, v); err != nil {
			return fmt.Errorf("event %d (%s): %w", je.ID, je.Type, err)
		}
		return nil
	}
	bad := func(err error) (teammanager.Event, error) {
		return teammanager.Event{}, fmt.Errorf("event %d (%s): %w", je.ID, je.Type, err)
	}
	switch ev.Type {
	case teammanager.EventTeamCreated, teammanager.EventTeamStatus:
		var t api.Team
		if err := decode(&t); err != nil {
			return teammanager.Event{}, err
		}
		team := teamOf(t)
		ev.TeamState = &team
	case teammanager.EventMemberStatus:
		var up api.MemberStatus
		if err := decode(&up); err != nil {
			return teammanager.Event{}, err
		}
		ev.Member = &teammanager.MemberUpdate{Team: up.Team, TeamStatus: teammanager.Status(up.TeamStatus), FailReason: up.FailReason, Member: memberOf(up.Member)}
	case teammanager.EventFindingsAdded:
		var fa api.FindingsAdded
		if err := decode(&fa); err != nil {
			return teammanager.Event{}, err
		}
		ev.Agent = fa.Agent
		for _, fj := range fa.Findings {
			sf, err := storedFindingOf(fj)
			if err != nil {
				return bad(err)
			}
			ev.Findings = append(ev.Findings, sf)
		}
	case teammanager.EventMergeCompleted:
		var mj api.Merge
		if err := decode(&mj); err != nil {
			return teammanager.Event{}, err
		}
		rep, err := mergeReportOf(mj)
		if err != nil {
			return bad(err)
		}
		ev.Merge, ev.MergeID = &rep, rep.MergeID
	case teammanager.EventConflictDetected:
		var cd api.ConflictsDetected
		if err := decode(&cd); err != nil {
			return teammanager.Event{}, err
		}
		ev.MergeID = cd.MergeID
		for _, cj := range cd.Conflicts {
			cf, err := conflictOf(cj)
			if err != nil {
				return bad(err)
			}
			ev.Conflicts = append(ev.Conflicts, cf)
		}
	case teammanager.EventConflictResolved:
		var cj api.Conflict
		if err := decode(&cj); err != nil {
			return teammanager.Event{}, err
		}
		cf, err := conflictOf(cj)
		if err != nil {
			return bad(err)
		}
		ev.Conflicts = []teammanager.Conflict{cf}
	case teammanager.EventTeamDeleted:
	case teammanager.EventTaskCreated, teammanager.EventTaskStatus, teammanager.EventTaskUpdated:
		var te api.TaskEvent
		if err := decode(&te); err != nil {
			return teammanager.Event{}, err
		}
		ch := taskChangeOf(te)
		ev.Task = &ch
	case teammanager.EventMessageSent:
		var mj api.Message
		if err := decode(&mj); err != nil {
			return teammanager.Event{}, err
		}
		msg := messageOf(mj)
		ev.Message = &msg
	case teammanager.EventPlanDrafted, teammanager.EventPlanSubmitted, teammanager.EventPlanApproved, teammanager.EventPlanRejected:
		ev.Plan = new(teammanager.Plan)
		if err := decode(ev.Plan); err != nil {
			return teammanager.Event{}, err
		}
	case teammanager.EventSnapshotCreated, teammanager.EventSnapshotRestored, teammanager.EventSnapshotDeleted:
		ev.Snapshot = new(teammanager.Snapshot)
		if err := decode(ev.Snapshot); err != nil {
			return teammanager.Event{}, err
		}
	case teammanager.EventsLost:
		var l api.EventsLost
		if err := decode(&l); err != nil {
			return teammanager.Event{}, err
		}
		ev.Lost = &teammanager.LostEvents{After: l.After, First: l.First}
	}
	return ev, nil
}
