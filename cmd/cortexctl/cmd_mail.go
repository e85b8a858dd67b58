package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/teammanager"
)

// messageTypes returns the names of the message types.
func messageTypes() []string {
	types := make([]string, 0, len(teammanager.MessageTypes))
	for _, t := range teammanager.MessageTypes {
		types = append(types, string(t))
	}
	return types
}

func mailCommand(e *env) *cli.Command {
	types := messageTypes()
	return &cli.Command{
		Name:  "mail",
		Usage: "the mailbox of a team: typed messages between its members",
		Description: `Messages are unread, then read, then archived, for each recipient; a reply
joins its message's thread. The mailbox keeps working while the team is
paused (see README, Led teams).

Example:
   cortexctl mail send TEAM 'which API version?' --as bob --to ann --type ask_question
   cortexctl mail inbox TEAM --as ann`,
		Subcommands: []*cli.Command{
			{
				Name:      "send",
				Usage:     "send a message from --as to --to (none: every other member)",
				ArgsUsage: "TEAM BODY",
				Description: `Types: ` + strings.Join(types, ", ") + `.

Example:
   cortexctl mail send TEAM 'which API version?' --as bob --to ann --type ask_question
   cortexctl mail send TEAM 'v2' --as ann --reply-to M1`,
				Flags: withOutput(
					&cli.StringFlag{Name: "as", Usage: "the member `AGENT` sending (required)"},
					&cli.StringFlag{Name: "type", Usage: "message `TYPE` (any case)", Value: string(teammanager.MsgStatus)},
					&cli.StringSliceFlag{Name: "to", Usage: "recipient `AGENT`, repeatable", DefaultText: "every other member"},
					&cli.StringFlag{Name: "subject", Usage: "subject line"},
					&cli.StringFlag{Name: "reply-to", Usage: "the `MESSAGE` this one answers (joins its thread)"},
					&cli.StringFlag{Name: "task", Usage: "the `TASK` it is about"},
					&cli.StringSliceFlag{Name: "attach", Usage: "`IRI` attached by reference, repeatable"}),
				Action: func(c *cli.Context) error { return mailSend(c, e) },
			},
			{
				Name:      "inbox",
				Usage:     "list --as's messages, oldest first: unread and read ones, or those of --status",
				ArgsUsage: "TEAM",
				Description: `Example:
   cortexctl mail inbox TEAM --as ann --status unread --json`,
				Flags: withOutput(&cli.StringFlag{Name: "as", Usage: "the member `AGENT` whose inbox (required)"},
					&cli.StringFlag{Name: "status", Usage: "only messages with this status: unread|read|archived (any case)"}),
				Action: func(c *cli.Context) error { return mailInbox(c, e) },
			},
			markCommand(e, teammanager.MsgRead),
			markCommand(e, teammanager.MsgArchived),
			{
				Name:      "retention",
				Usage:     "show or set how many messages, and how old, each member's inbox keeps",
				ArgsUsage: "TEAM",
				Description: `Without flags, shows the team's retention (it writes nothing). With --max-age,
--per-agent or both, sets them; the one not given keeps its current value. A
team starts with 720h (30 days) and 1000 messages. Sends enforce it: the
oldest messages go first, and a message no inbox holds any more is removed.
With --server, setting it needs an admin token (showing it, read).

Example:
   cortexctl mail retention TEAM --max-age 168h --per-agent 200`,
				Flags: withOutput(
					&cli.DurationFlag{Name: "max-age", Usage: "remove messages older than this (0: whatever their age)", DefaultText: "the current"},
					&cli.Int64Flag{Name: "per-agent", Usage: "messages each inbox keeps (≥ 1)", DefaultText: "the current"}),
				Action: func(c *cli.Context) error { return mailRetention(c, e) },
			},
			{
				Name:      "thread",
				Usage:     "list the messages of a message's thread, oldest first",
				ArgsUsage: "TEAM MESSAGE",
				Description: `Example:
   cortexctl mail thread TEAM M1`,
				Flags: withOutput(),
				Action: func(c *cli.Context) error {
					args, err := wantArgs(c, "mail thread: want TEAM MESSAGE", 2, 2)
					if err != nil {
						return err
					}
					return mailList(c, e, func(m api.TeamManager) ([]teammanager.Message, error) {
						return m.Thread(c.Context, args[0], args[1])
					})
				},
			},
			{
				Name:      "history",
				Usage:     "list a team's messages, oldest first",
				ArgsUsage: "TEAM",
				Description: `Example:
   cortexctl mail history TEAM --limit 20`,
				Flags: withOutput(&cli.Int64Flag{Name: "limit", Usage: "only the last `N` messages", DefaultText: "all"}),
				Action: func(c *cli.Context) error {
					args, err := wantArgs(c, "mail history: want TEAM", 1, 1)
					if err != nil {
						return err
					}
					n := c.Int64("limit")
					if n < 0 || n > 1<<31 {
						return fmt.Errorf("%w: --limit %d: want 0 (all) to %d messages", errInvalid, n, int64(1)<<31)
					}
					return mailList(c, e, func(m api.TeamManager) ([]teammanager.Message, error) {
						return m.History(c.Context, args[0], int(n))
					})
				},
			},
		},
	}
}

// markCommand is mail read (status read) or mail archive (archived).
func markCommand(e *env, status teammanager.MessageStatus) *cli.Command {
	name := map[teammanager.MessageStatus]string{teammanager.MsgRead: "read", teammanager.MsgArchived: "archive"}[status]
	return &cli.Command{
		Name:      name,
		Usage:     fmt.Sprintf("mark messages of --as's inbox %s", status),
		ArgsUsage: "TEAM MESSAGE...",
		Description: fmt.Sprintf(`Every MESSAGE must be in the inbox, or none is marked. A MESSAGE given
twice is marked, and reported, once.

Example:
   cortexctl mail %s TEAM M1 M2 --as ann`, name),
		Flags: withOutput(&cli.StringFlag{Name: "as", Usage: "the member `AGENT` whose inbox (required)"}),
		Action: func(c *cli.Context) error {
			if _, err := outputFormat(c); err != nil {
				return err
			}
			args := c.Args().Slice()
			if len(args) < 2 {
				return usagef("mail %s: want TEAM MESSAGE...", name)
			}
			if err := notEmpty(fmt.Sprintf("mail %s: want TEAM MESSAGE...", name), args...); err != nil {
				return err
			}
			if c.String("as") == "" {
				return usagef("mail %s: want --as AGENT (whose inbox)", name)
			}
			m, err := e.manager(c, accessWrite)
			if err != nil {
				return err
			}
			if err := m.MarkMessages(c.Context, args[0], c.String("as"), status, args[1:]...); err != nil {
				return err
			}
			// A message is marked once: one given twice is reported once.
			out := api.MessagesMarked{Team: args[0], Agent: c.String("as"), Status: string(status), Messages: firstOfEach(args[1:])}
			return printResult(c, e.stdout, out, func() error {
				_, err := fmt.Fprintf(e.stdout, "%s %s: %s\n", plural(int64(len(out.Messages)), "message"), status, strings.Join(out.Messages, " "))
				return err
			})
		},
	}
}

func mailSend(c *cli.Context, e *env) error {
	if _, err := outputFormat(c); err != nil {
		return err
	}
	args, err := wantArgs(c, "mail send: want TEAM BODY", 2, 1)
	if err != nil {
		return err
	}
	if err := refuseBlank("mail send", "BODY", args[1], "want TEAM BODY"); err != nil {
		return err
	}
	if c.String("as") == "" {
		return usagef("mail send: want --as AGENT (the sender)")
	}
	// Checked before anything is opened or sent, and named as the
	// other unknown words are (the Manager lists the types as a Go
	// slice: "want one of [delegate_work ...]").
	// Any case, as the status words are.
	typ := teammanager.MessageType(statusWord(c.String("type")))
	if !slices.Contains(teammanager.MessageTypes, typ) {
		types := messageTypes()
		last := len(types) - 1
		return fmt.Errorf("mail send: %w: type %q (want %s or %s)", teammanager.ErrInvalidMessage, c.String("type"), strings.Join(types[:last], ", "), types[last])
	}
	m, err := e.manager(c, accessWrite)
	if err != nil {
		return err
	}
	msg, err := m.SendMessage(c.Context, args[0], c.String("as"), teammanager.OutMessage{Type: typ,
		To: idList(c, "to"), Subject: c.String("subject"), Body: args[1], ReplyTo: c.String("reply-to"), Task: c.String("task"),
		Attachments: c.StringSlice("attach")})
	if err != nil {
		return err
	}
	return printResult(c, e.stdout, api.MessageOf(msg), func() error {
		_, err := fmt.Fprintf(e.stdout, "sent %s (%s) to %s, thread %s\n", msg.ID, msg.Type, strings.Join(msg.To, " "), msg.Thread)
		return err
	})
}

func mailInbox(c *cli.Context, e *env) error {
	args, err := wantArgs(c, "mail inbox: want TEAM", 1, 1)
	if err != nil {
		return err
	}
	if c.String("as") == "" {
		return usagef("mail inbox: want --as AGENT (whose inbox)")
	}
	return mailList(c, e, func(m api.TeamManager) ([]teammanager.Message, error) {
		return m.Inbox(c.Context, args[0], c.String("as"), teammanager.MailFilter{Status: messageStatus(c.String("status"))})
	})
}

// mailList prints the messages list reads, as a table or JSON.
func mailList(c *cli.Context, e *env, list func(m api.TeamManager) ([]teammanager.Message, error)) error {
	if _, err := outputFormat(c); err != nil {
		return err
	}
	m, err := e.manager(c, accessRead)
	if err != nil {
		return err
	}
	ms, err := list(m)
	if err != nil {
		return err
	}
	return printResult(c, e.stdout, api.MessagesOf(ms), func() error {
		tb := newTable(e.stdout, false, "ID", "SENT", "TYPE", "FROM", "TO", "STATUS", "THREAD", "SUBJECT", "BODY")
		for _, msg := range ms {
			from := msg.From
			if from == "" {
				from = "(board)"
			}
			to := strings.Join(msg.To, " ")
			if msg.Broadcast {
				to = "(all " + strconv.Itoa(len(msg.To)) + ")"
			}
			tb.row(msg.ID, msg.SentAt.Format(time.RFC3339), string(msg.Type), from, to, string(msg.Status), msg.Thread, msg.Subject, msg.Body)
		}
		return tb.flush()
	})
}

func mailRetention(c *cli.Context, e *env) error {
	if _, err := outputFormat(c); err != nil {
		return err
	}
	args, err := wantArgs(c, "mail retention: want TEAM", 1, 1)
	if err != nil {
		return err
	}
	setAge, setN := c.IsSet("max-age"), c.IsSet("per-agent")
	age, n := c.Duration("max-age"), c.Int64("per-agent")
	// Name only the flag at fault (not one left out, at its zero value).
	if setAge && age < 0 {
		return fmt.Errorf("%w: --max-age %s: want an age ≥ 0 (0: whatever their age)", errInvalid, durationText(c, e.args, "max-age"))
	}
	if setN && (n < 1 || n > 1<<31) {
		return fmt.Errorf("%w: --per-agent %d: want at least 1 message (at most %d)", errInvalid, n, int64(1)<<31)
	}
	access := accessWrite
	if !setAge && !setN {
		access = accessRead
	}
	m, err := e.manager(c, access)
	if err != nil {
		return err
	}
	var curAge time.Duration
	var curN int
	if setAge || setN {
		// Only the settings given change, in one write: a concurrent
		// change of the other is kept.
		var u teammanager.MailboxUpdate
		if setAge {
			u.MaxAge = &age
		}
		if setN {
			v := int(n)
			u.PerAgent = &v
		}
		curAge, curN, err = m.UpdateMailbox(c.Context, args[0], u)
	} else {
		curAge, curN, err = m.MailboxRetention(c.Context, args[0])
	}
	if err != nil {
		return err
	}
	age, n = curAge, int64(curN)
	return printResult(c, e.stdout, api.MailRetention{Team: args[0], MaxAge: age.Seconds(), PerAgent: int(n)}, func() error {
		older := "none older than " + age.String()
		if age == 0 {
			older = "whatever their age"
		}
		_, err := fmt.Fprintf(e.stdout, "team %s: each inbox keeps %s, %s\n", args[0], plural(n, "message"), older)
		return err
	})
}

// messageStatus is the message status of a --status filter, in any case
// (statusFilter); an unknown word is kept as given, for the Manager to
// refuse.
func messageStatus(s string) teammanager.MessageStatus {
	switch st := teammanager.MessageStatus(statusWord(s)); st {
	case teammanager.MsgUnread, teammanager.MsgRead, teammanager.MsgArchived:
		return st
	}
	return teammanager.MessageStatus(s)
}
