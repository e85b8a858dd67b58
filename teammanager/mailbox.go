package teammanager

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/internal/ctxcause"
	ns "github.com/cortexgraph/cortex/namespace"
)

// The mailbox of a team: typed messages between its members, RDF in the
// team's mail graph (namespace.NS.MailGraph), with two side tables written
// in the same Update: mail (team, message number → the message) and inbox
// (team, recipient, message number → its status for that recipient).
const (
	mailTable  = "mail"
	inboxTable = "inbox"
)

// MessageType is the type of a mailbox message.
type MessageType string

// Message types.
const (
	MsgDelegateWork    MessageType = "delegate_work"
	MsgAskQuestion     MessageType = "ask_question"
	MsgShareFinding    MessageType = "share_finding"
	MsgRequestApproval MessageType = "request_approval"
	MsgApproval        MessageType = "approval"
	MsgRejection       MessageType = "rejection"
	MsgChallenge       MessageType = "challenge"
	MsgVote            MessageType = "vote"
	MsgTaskClaimed     MessageType = "task_claimed"
	MsgTaskCompleted   MessageType = "task_completed"
	MsgStatus          MessageType = "status"
)

// MessageTypes lists the message types.
var MessageTypes = []MessageType{MsgDelegateWork, MsgAskQuestion, MsgShareFinding, MsgRequestApproval,
	MsgApproval, MsgRejection, MsgChallenge, MsgVote, MsgTaskClaimed, MsgTaskCompleted, MsgStatus}

// MessageStatus is a message's status for one recipient: unread → read →
// archived.
type MessageStatus string

// Message statuses.
const (
	MsgUnread   MessageStatus = "unread"
	MsgRead     MessageStatus = "read"
	MsgArchived MessageStatus = "archived"
)

func (s MessageStatus) rank() int {
	switch s {
	case MsgUnread:
		return 1
	case MsgRead:
		return 2
	case MsgArchived:
		return 3
	}
	return 0
}

// OutMessage is a message to send.
type OutMessage struct {
	Type MessageType
	// To lists the recipients, members of the team other than the sender;
	// empty: a broadcast to every other member.
	To          []string
	Subject     string
	Body        string   // required
	ReplyTo     string   // the id of the message this one answers
	Task        string   // the id of a task of the team it is about
	Attachments []string // absolute IRIs, by reference
}

// Message is a mailbox message.
type Message struct {
	ID          string      `json:"id"` // M1, M2, ... within the team
	Team        string      `json:"team"`
	Type        MessageType `json:"type"`
	From        string      `json:"from,omitempty"` // empty: the board itself
	To          []string    `json:"to"`
	Broadcast   bool        `json:"broadcast,omitempty"`
	Subject     string      `json:"subject,omitempty"`
	Body        string      `json:"body"`
	ReplyTo     string      `json:"replyTo,omitempty"`
	Thread      string      `json:"thread"` // the id of the thread's first message
	Task        string      `json:"task,omitempty"`
	Attachments []string    `json:"attachments,omitempty"`
	SentAt      time.Time   `json:"sentAt"`
	// Status and ReadAt are the reader's, in Inbox; empty elsewhere.
	Status MessageStatus `json:"status,omitempty"`
	ReadAt time.Time     `json:"readAt,omitzero"`
}

// storedMessage is the row of a message in the mail table: the message and
// left, the count of inbox rows still holding it (at 0 retention removes
// it). left is retention's bookkeeping, not part of Message; the row's JSON
// is the one Message had when it carried the count as "left".
type storedMessage struct {
	Message
	Left int `json:"left"`
}

// Default mailbox retention (ConfigureMailbox).
const (
	DefaultMailMaxAge   = 30 * 24 * time.Hour
	DefaultMailPerAgent = 1000
)

// mailTrimMin bounds the inbox rows one send removes per recipient for
// retention: at least this many, so that trimming keeps up.
const mailTrimMin = 16

func msgID(n int) string { return fmt.Sprintf("M%d", n) }

func msgNum(id string) (int, bool) {
	rest, ok := strings.CutPrefix(id, "M")
	if !ok || rest == "" || rest[0] == '0' || len(rest) > 10 {
		return 0, false
	}
	n := 0
	for _, c := range rest {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func mailKey(team string, n int) string { return team + " " + pad(n) }

// SendMessage sends msg from member from of team teamID and returns it:
// one message, delivered unread to each recipient's inbox, in one atomic
// write with its message.sent event. The type must be one of
// MessageTypes, the recipients other members, the body not empty, ReplyTo
// a message of the team (the reply joins its thread), Task a task of the
// team and each attachment an absolute IRI; otherwise it fails with an
// error wrapping ErrInvalidMessage (ErrUnknownAgent for a sender that is
// not a member; both for a recipient that is not one; also ErrUnknownMessage
// for a ReplyTo, ErrUnknownTask for a Task, that the team does not have)
// and sends nothing. A delegate_work message is checked
// against the delegation rules of the sender and of each recipient
// (Config.WithDelegation): a refused one fails with a *DelegationError
// (ErrNotAllowed) and sends nothing.
//
// Retention is enforced by the sends: each recipient's inbox keeps at most
// the board's MailPerAgent messages and none older than MailMaxAge. The
// oldest go first: every message past MailPerAgent at once (a send after
// MailPerAgent was lowered removes all the surplus, however many), those
// only past MailMaxAge at most mailTrimMin (16) per recipient and send; a
// message no inbox holds any more is removed, quads and all.
func (m *Manager) SendMessage(ctx context.Context, teamID, from string, msg OutMessage) (_ Message, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	var out Message
	var rules delegationRules
	if msg.Type == MsgDelegateWork {
		if rules, err = m.delegationOfMessage(ctx, teamID, from, msg.To); err != nil {
			return Message{}, teamErr(teamID, "send message", err)
		}
	}
	err = m.boardWrite(ctx, func(b *boardTx) error {
		st, err := b.loadBoard(teamID, true)
		if err != nil {
			return err
		}
		if !st.isMember(from) {
			return fmt.Errorf("sender %q: %w", from, unknown(ErrUnknownAgent, from))
		}
		if msg.Type == MsgDelegateWork {
			to := msg.To
			if len(to) == 0 {
				to = st.Members // a broadcast: every other member
			}
			for _, a := range to {
				if st.isMember(a) {
					if err := rules.check(st, teamID, from, a); err != nil {
						return err
					}
				}
			}
		}
		out, err = b.send(st, teamID, from, msg, false)
		return err
	})
	if err != nil {
		return Message{}, teamErr(teamID, "send message", err)
	}
	return out, nil
}

// delegationOfMessage looks up the delegation rules of the sender of a
// delegate_work message and of its recipients (to; empty: every member).
func (m *Manager) delegationOfMessage(ctx context.Context, teamID, from string, to []string) (delegationRules, error) {
	if m.cfg.delegation == nil {
		return nil, nil
	}
	if len(to) == 0 {
		if err := m.boardRead(ctx, func(b *boardTx) error {
			st, err := b.loadBoard(teamID, true)
			if err == nil {
				to = st.Members
			}
			return err
		}); err != nil {
			return nil, err
		}
	}
	return m.delegationRules(ctx, teamID, append([]string{from}, to...)...)
}

// send validates and stages msg. system marks the board's own messages
// (escalations, review requests), whose recipients were chosen by the
// board.
func (b *boardTx) send(st *boardState, team, from string, msg OutMessage, system bool) (Message, error) {
	bad := func(format string, a ...any) (Message, error) {
		return Message{}, errorf(ErrInvalidMessage, format, a...)
	}
	if !slices.Contains(MessageTypes, msg.Type) {
		return bad("type %q (want one of %v)", msg.Type, MessageTypes)
	}
	if strings.TrimSpace(msg.Body) == "" && !system {
		return bad("empty body")
	}
	if err := checkText(ErrInvalidMessage, "subject", msg.Subject); err != nil {
		return Message{}, err
	}
	if err := checkText(ErrInvalidMessage, "body", msg.Body); err != nil {
		return Message{}, err
	}
	to := slices.Clone(msg.To)
	broadcast := len(to) == 0
	if broadcast {
		for _, a := range st.Members {
			if a != from {
				to = append(to, a)
			}
		}
	}
	slices.Sort(to)
	if len(slices.Compact(slices.Clone(to))) != len(to) {
		return bad("a recipient is listed twice")
	}
	for _, a := range to {
		switch {
		case !st.isMember(a):
			// Both kinds: an invalid message, to an unknown agent (exit 3,
			// as an unknown assignee of a task).
			return Message{}, fmt.Errorf("%w: recipient %q: %w", ErrInvalidMessage, a, unknown(ErrUnknownAgent, a))
		case a == from && !system:
			return bad("%s cannot send a message to itself", IDText(a))
		}
	}
	if len(to) == 0 {
		return bad("no recipient")
	}
	m := Message{Team: team, Type: msg.Type, From: from, To: to, Broadcast: broadcast, Subject: msg.Subject,
		Body: msg.Body, ReplyTo: msg.ReplyTo, Task: msg.Task, Attachments: slices.Clone(msg.Attachments), SentAt: b.now}
	for _, a := range msg.Attachments {
		if _, err := cortex.NormalizeTerm(quad.IRI(a)); err != nil || !strings.Contains(a, ":") {
			return bad("attachment %q is not an absolute IRI", a)
		}
	}
	if msg.Task != "" {
		if _, err := b.loadTask(team, msg.Task); errors.Is(err, ErrUnknownTask) {
			return Message{}, fmt.Errorf("%w: task %q: %w", ErrInvalidMessage, msg.Task, unknown(ErrUnknownTask, msg.Task))
		} else if err != nil {
			return Message{}, err
		}
	}
	seqTasks, seqMsgs, err := b.idSeq(team)
	if err != nil {
		return Message{}, err
	}
	n := max(st.Messages, seqMsgs) + 1 // (a number never used before: see idSeqTable)
	m.ID = msgID(n)
	m.Thread = m.ID
	if msg.ReplyTo != "" {
		parent, err := b.loadMessage(team, msg.ReplyTo)
		if errors.Is(err, ErrUnknownMessage) {
			return Message{}, fmt.Errorf("%w: reply to %q: %w", ErrInvalidMessage, msg.ReplyTo, unknown(ErrUnknownMessage, msg.ReplyTo))
		} else if err != nil {
			return Message{}, err
		}
		m.Thread = parent.Thread
	}
	st.Messages = n
	b.putIDSeq(team, seqTasks, n)
	b.saveBoard(team, st)
	b.putMessage(&storedMessage{Message: m, Left: len(to)})
	b.addQuads(b.m.messageQuads(&m)...)
	for _, a := range to {
		b.put(inboxTable, heldKey(team, a, n), []quad.Value{quad.String(MsgUnread), quad.String(fmtTime(b.now)), nil})
		if err := b.trimInbox(st, team, a); err != nil {
			return Message{}, err
		}
	}
	ev := m
	b.event(Event{Type: EventMessageSent, Team: team, Message: &ev})
	return m, nil
}

func (b *boardTx) putMessage(m *storedMessage) {
	n, _ := msgNum(m.ID)
	j, _ := json.Marshal(m) // plain data: cannot fail
	b.put(mailTable, mailKey(m.Team, n), []quad.Value{quad.String(j)})
}

func (b *boardTx) loadMessage(team, id string) (*Message, error) {
	m, err := b.loadStoredMessage(team, id)
	if err != nil {
		return nil, err
	}
	return &m.Message, nil
}

func (b *boardTx) loadStoredMessage(team, id string) (*storedMessage, error) {
	n, ok := msgNum(id)
	if !ok {
		return nil, fmt.Errorf("message %q: %w", id, unknown(ErrUnknownMessage, id))
	}
	vals, found, err := b.row(mailTable, mailKey(team, n))
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("message %q: %w", id, ErrUnknownMessage)
	}
	return decodeStoredMessage(vals)
}

func decodeMessage(vals []quad.Value) (*Message, error) {
	m, err := decodeStoredMessage(vals)
	if err != nil {
		return nil, err
	}
	return &m.Message, nil
}

func decodeStoredMessage(vals []quad.Value) (*storedMessage, error) {
	if len(vals) != 1 {
		return nil, fmt.Errorf("%w: message row of %d values", ErrCorrupt, len(vals))
	}
	s, _ := vals[0].(quad.String)
	var m storedMessage
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("%w: message: %v", ErrCorrupt, err)
	}
	return &m, nil
}

// trimInbox removes the oldest messages of agent's inbox beyond the
// retention limits — all those past the count limit, and of those only
// past the age limit at most mailTrimMin per call — once a message was
// just put in it. The inbox's head (queuehead.go)
// counts its rows, so this reads only the rows it removes and the one
// after them.
func (b *boardTx) trimInbox(st *boardState, team, agent string) error {
	maxAge, maxN := st.mailRetention()
	prefix := team + " " + agent + " "
	h, _ := headOfPrefix(inboxTable, prefix)
	q, found, err := b.head(h)
	if err != nil {
		return err
	}
	count := q.count + 1 // the message just put
	if !found || !q.counted {
		// An inbox from before counted heads: count it once.
		count = 0
		if err := b.scan(inboxTable, prefix, func(string, []quad.Value) bool { count++; return true }); err != nil {
			return err
		}
	}
	var drop []string
	if count > maxN || maxAge > 0 {
		if err := b.scan(inboxTable, prefix, func(key string, vals []quad.Value) bool {
			s, _ := vals[1].(quad.String)
			t, _ := parseTime(string(s))
			if count-len(drop) <= maxN && (maxAge <= 0 || b.now.Sub(t) <= maxAge) {
				return false
			}
			drop = append(drop, key)
			return len(drop) < mailTrimMin || count-len(drop) > maxN
		}); err != nil {
			return err
		}
	}
	for _, key := range drop {
		b.del(inboxTable, key)
		m, err := b.loadStoredMessage(team, msgID(numOfReadyKey(key)))
		if errors.Is(err, ErrUnknownMessage) {
			continue
		} else if err != nil {
			return err
		}
		m.Left--
		if m.Left > 0 {
			b.putMessage(m)
			continue
		}
		n, _ := msgNum(m.ID)
		b.del(mailTable, mailKey(team, n))
		b.removeQuads(b.m.messageQuads(&m.Message)...)
	}
	// The scans may have moved the head: read it as they left it.
	if q, found, err = b.head(h); err != nil {
		return err
	} else if !found {
		q.low = prefix
	}
	q.count, q.counted = count-len(drop), true
	b.putHead(h, q)
	return nil
}

func (st *boardState) mailRetention() (time.Duration, int) {
	age, n := st.MailMaxAge, st.MailPerAgent
	if n == 0 {
		age, n = DefaultMailMaxAge, DefaultMailPerAgent
	}
	return age, n
}

// ConfigureMailbox sets the retention of team teamID's mailbox: each
// member's inbox keeps at most perAgent messages (≥ 1) and none older
// than maxAge (0: whatever their age). Default 30 days and 1,000. Sends
// enforce it from then on. It is UpdateMailbox with both settings given.
func (m *Manager) ConfigureMailbox(ctx context.Context, teamID string, maxAge time.Duration, perAgent int) (err error) {
	if maxAge < 0 || perAgent < 1 {
		defer func() { err = ctxcause.With(ctx, err) }()
		return fmt.Errorf("team %s: mailbox retention %v, %d messages: %w: want an age ≥ 0 and at least 1 message", IDText(teamID), maxAge, perAgent, ErrInvalidConfig)
	}
	_, _, err = m.UpdateMailbox(ctx, teamID, MailboxUpdate{MaxAge: &maxAge, PerAgent: &perAgent})
	return err
}

// MailboxUpdate changes some of a mailbox's retention (UpdateMailbox): a
// nil field keeps the setting the mailbox has.
type MailboxUpdate struct {
	MaxAge   *time.Duration // ≥ 0; 0: whatever their age
	PerAgent *int           // ≥ 1
}

// UpdateMailbox changes the retention settings of team teamID's mailbox
// that u gives (see ConfigureMailbox), keeping the others (until it is
// configured: the defaults), and returns the retention after the change.
// The read and the change are one atomic write: a concurrent change of the
// other setting is not undone. A setting out of range is an error
// wrapping ErrInvalidConfig and changes nothing.
func (m *Manager) UpdateMailbox(ctx context.Context, teamID string, u MailboxUpdate) (maxAge time.Duration, perAgent int, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	if u.MaxAge != nil && *u.MaxAge < 0 {
		return 0, 0, fmt.Errorf("team %s: mailbox retention: %w: max age %v: want an age ≥ 0 (0: whatever their age)", IDText(teamID), ErrInvalidConfig, *u.MaxAge)
	}
	if u.PerAgent != nil && *u.PerAgent < 1 {
		return 0, 0, fmt.Errorf("team %s: mailbox retention: %w: %d messages per agent: want at least 1 message", IDText(teamID), ErrInvalidConfig, *u.PerAgent)
	}
	err = m.boardWrite(ctx, func(b *boardTx) error {
		st, err := b.loadBoard(teamID, true)
		if err != nil {
			return err
		}
		age, n := st.mailRetention()
		if u.MaxAge != nil {
			age = *u.MaxAge
		}
		if u.PerAgent != nil {
			n = *u.PerAgent
		}
		st.MailMaxAge, st.MailPerAgent = age, n
		b.saveBoard(teamID, st)
		maxAge, perAgent = age, n
		return nil
	})
	if err != nil {
		return 0, 0, teamErr(teamID, "mailbox retention", err)
	}
	return maxAge, perAgent, nil
}

// MailboxRetention returns the retention of team teamID's mailbox (see
// ConfigureMailbox): the defaults until it is configured. ErrUnknownTeam
// for a team that does not exist. It writes nothing.
func (m *Manager) MailboxRetention(ctx context.Context, teamID string) (maxAge time.Duration, perAgent int, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	err = m.boardRead(ctx, func(b *boardTx) error {
		st, err := b.readBoard(teamID)
		if err == nil {
			maxAge, perAgent = st.mailRetention()
		}
		return err
	})
	if err != nil {
		return 0, 0, teamErr(teamID, "mailbox retention", err)
	}
	return maxAge, perAgent, nil
}

// messageQuads returns the quads of m in its team's mail graph.
func (m *Manager) messageQuads(msg *Message) []quad.Quad {
	x := m.ns
	g := x.MailGraph(msg.Team)
	node := x.Message(msg.Team, msg.ID)
	var out []quad.Quad
	add := func(p quad.Value, o quad.Value) {
		out = append(out, quad.Quad{Subject: node, Predicate: p, Object: o, Label: g})
	}
	add(ns.RDFType, x.IRI(ns.ClassMessage))
	add(x.IRI(ns.MessageType), ns.String(string(msg.Type)))
	if msg.From != "" {
		add(x.IRI(ns.MessageFrom), x.Member(msg.Team, msg.From))
	}
	for _, a := range msg.To {
		add(x.IRI(ns.MessageTo), x.Member(msg.Team, a))
	}
	if msg.Broadcast {
		add(x.IRI(ns.MessageBroadcast), ns.Bool(true))
	}
	if msg.ReplyTo != "" {
		add(x.IRI(ns.MessageReplyTo), x.Message(msg.Team, msg.ReplyTo))
	}
	if msg.Task != "" {
		add(x.IRI(ns.MessageTask), x.Task(msg.Team, msg.Task))
	}
	if msg.Subject != "" {
		add(x.IRI(ns.MessageSubject), ns.String(msg.Subject))
	}
	add(x.IRI(ns.MessageBody), ns.String(msg.Body))
	for _, a := range msg.Attachments {
		add(x.IRI(ns.MessageAttachment), quad.IRI(a))
	}
	add(x.IRI(ns.MessageSentAt), ns.DateTime(msg.SentAt))
	return out
}

// commentQuads returns the quads of comment c of team's task c.Task.
func (m *Manager) commentQuads(team string, c TaskComment) []quad.Quad {
	x := m.ns
	g := x.TaskGraph(team)
	node := x.TaskComment(team, c.ID)
	q := func(p quad.Value, o quad.Value) quad.Quad {
		return quad.Quad{Subject: node, Predicate: p, Object: o, Label: g}
	}
	return []quad.Quad{
		q(ns.RDFType, x.IRI(ns.ClassTaskComment)),
		q(x.IRI(ns.CommentTask), x.Task(team, c.Task)),
		q(x.IRI(ns.CommentKind), ns.String(string(c.Kind))),
		q(x.IRI(ns.CommentText), ns.String(c.Text)),
		q(x.IRI(ns.CommentAuthor), x.Member(team, c.Author)),
		q(x.IRI(ns.CommentCreatedAt), ns.DateTime(c.CreatedAt)),
	}
}

// MailFilter selects messages in Inbox. The zero value selects the unread
// and read ones (not the archived).
type MailFilter struct {
	Status MessageStatus // empty: unread and read
}

// Inbox returns the messages of agent's inbox in team teamID that match f,
// oldest first, each with agent's Status and ReadAt, whatever the team's
// lifecycle (a disbanded team's mailbox is read-only, not unreadable).
// A status of f other than unread, read or archived fails it with
// ErrInvalidStatus.
func (m *Manager) Inbox(ctx context.Context, teamID, agent string, f MailFilter) (_ []Message, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	if f.Status != "" && f.Status.rank() == 0 {
		return nil, errorf(ErrInvalidStatus, "message status %q (want unread, read or archived)", f.Status)
	}
	var out []Message
	err = m.boardRead(ctx, func(b *boardTx) error {
		st, err := b.readBoard(teamID)
		if err != nil {
			return err
		}
		if !st.isMember(agent) {
			return fmt.Errorf("agent %q: %w", agent, unknown(ErrUnknownAgent, agent))
		}
		var ferr error
		err = m.readBoardRows(ctx, inboxTable, teamID+" "+agent+" ", func(key string, vals []quad.Value) bool {
			s, _ := vals[0].(quad.String)
			status := MessageStatus(s)
			if f.Status == "" && status == MsgArchived || f.Status != "" && status != f.Status {
				return true
			}
			msg, err := b.loadMessage(teamID, msgID(numOfReadyKey(key)))
			if errors.Is(err, ErrUnknownMessage) {
				// A send's retention removed it (row and message) since
				// the row was read: it is no longer in the inbox.
				return true
			}
			if err != nil {
				ferr = err
				return false
			}
			msg.Status = status
			if r, ok := vals[2].(quad.String); ok {
				msg.ReadAt, _ = parseTime(string(r))
			}
			out = append(out, *msg)
			return true
		})
		if err == nil {
			err = ferr
		}
		return err
	})
	if err != nil {
		return nil, agentErr(teamID, agent, "inbox of "+IDText(agent), "inbox", err)
	}
	return out, nil
}

// MarkMessages moves messages ids of agent's inbox to status read or
// archived (forward only: unread → read → archived; archiving an unread
// message reads it too). A message already at or past status is left as
// it is. An id that is not in agent's inbox fails the call with
// ErrUnknownMessage, and nothing is changed. It is a write of the team's
// mailbox: a disbanded team (ErrTeamDisbanded) or a finished one
// (ErrTeamFinished) refuses it, as SendMessage does; an agent that is not
// a member fails with ErrUnknownAgent.
func (m *Manager) MarkMessages(ctx context.Context, teamID, agent string, status MessageStatus, ids ...string) (err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	if status != MsgRead && status != MsgArchived {
		return errorf(ErrInvalidMessage, "mark as %q (want read or archived)", status)
	}
	err = m.boardWrite(ctx, func(b *boardTx) error {
		st, err := b.loadBoard(teamID, true)
		if err != nil {
			return err
		}
		if !st.isMember(agent) {
			return fmt.Errorf("agent %q: %w", agent, unknown(ErrUnknownAgent, agent))
		}
		for _, id := range ids {
			n, ok := msgNum(id)
			if !ok {
				return fmt.Errorf("message %q: %w", id, unknown(ErrUnknownMessage, id))
			}
			key := heldKey(teamID, agent, n)
			vals, found, err := b.row(inboxTable, key)
			if err != nil {
				return err
			}
			if !found {
				return fmt.Errorf("message %q of %s: %w", id, IDText(agent), ErrUnknownMessage)
			}
			s, _ := vals[0].(quad.String)
			if MessageStatus(s).rank() >= status.rank() {
				continue
			}
			row := slices.Clone(vals)
			row[0] = quad.String(status)
			if row[2] == nil {
				row[2] = quad.String(fmtTime(b.now))
			}
			b.put(inboxTable, key, row)
		}
		return nil
	})
	if err != nil {
		return teamErr(teamID, fmt.Sprintf("mark messages %s", status), err) // the error names the agent
	}
	return nil
}

// Thread returns the messages of the thread that message id belongs to,
// oldest first (retention may have removed some). It fails with
// ErrUnknownMessage, or ErrUnknownTeam if there is no such team.
func (m *Manager) Thread(ctx context.Context, teamID, id string) (_ []Message, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	var root string
	if err := m.boardRead(ctx, func(b *boardTx) error {
		msg, err := b.loadMessage(teamID, id)
		if errors.Is(err, ErrUnknownMessage) {
			if terr := m.knownTeam(ctx, teamID); terr != nil {
				return terr
			}
		}
		if err == nil {
			root = msg.Thread
		}
		return err
	}); err != nil {
		return nil, teamErr(teamID, "thread", err)
	}
	return m.history(ctx, teamID, func(msg *Message) bool { return msg.Thread == root }, 0)
}

// History returns the team's last limit messages (limit ≤ 0: all), oldest
// first.
func (m *Manager) History(ctx context.Context, teamID string, limit int) (_ []Message, err error) {
	defer func() { err = ctxcause.With(ctx, err) }()
	if err := m.knownTeam(ctx, teamID); err != nil {
		return nil, err
	}
	return m.history(ctx, teamID, func(*Message) bool { return true }, limit)
}

func (m *Manager) history(ctx context.Context, teamID string, keep func(*Message) bool, limit int) ([]Message, error) {
	var out []Message
	var ferr error
	err := m.readBoardRows(ctx, mailTable, teamKey(teamID), func(_ string, vals []quad.Value) bool {
		msg, err := decodeMessage(vals)
		if err != nil {
			ferr = err
			return false
		}
		if keep(msg) {
			out = append(out, *msg)
		}
		return true
	})
	if err == nil {
		err = ferr
	}
	if err != nil {
		return nil, teamErr(teamID, "messages", err)
	}
	if limit > 0 && len(out) > limit {
		out = out[len(out)-limit:]
	}
	return out, nil
}
