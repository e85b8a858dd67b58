package teammanager

import (
	"context"
	"fmt"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
)

// CheckMailbox is checkMailbox, for the black-box tests.
func CheckMailbox(m *Manager, ctx context.Context, team string) error {
	return m.checkMailbox(ctx, team)
}

// checkMailbox checks that team's mailbox is consistent: every inbox row
// names a message of the mail table; every message is held by as many
// inbox rows as its count says, at least one; and the mail graph holds
// exactly the quads of those messages.
func (m *Manager) checkMailbox(ctx context.Context, team string) error {
	held := map[int]int{}
	if err := m.readBoardRows(ctx, inboxTable, teamKey(team), func(key string, _ []quad.Value) bool {
		held[numOfReadyKey(key)]++
		return true
	}); err != nil {
		return err
	}
	want := map[quad.Quad]bool{}
	var cerr error
	seen := map[int]bool{}
	if err := m.readBoardRows(ctx, mailTable, teamKey(team), func(key string, vals []quad.Value) bool {
		sm, err := decodeStoredMessage(vals)
		if err != nil {
			cerr = err
			return false
		}
		n := numOfReadyKey(key)
		seen[n] = true
		if sm.Left != held[n] || sm.Left < 1 {
			cerr = fmt.Errorf("message %s counts %d inbox rows, %d hold it", sm.ID, sm.Left, held[n])
			return false
		}
		for _, q := range m.messageQuads(&sm.Message) {
			want[q] = true
		}
		return true
	}); err != nil || cerr != nil {
		return fmt.Errorf("mail: %v %v", err, cerr)
	}
	for n := range held {
		if !seen[n] {
			return fmt.Errorf("an inbox holds %s, which the mail table lacks", msgID(n))
		}
	}
	qs, err := m.n.Quads(ctx, cortex.Pattern{Graph: m.ns.MailGraph(team), Scope: cortex.OneGraph})
	if err != nil {
		return err
	}
	got := map[quad.Quad]bool{}
	for _, q := range qs {
		got[q] = true
		if !want[q] {
			return fmt.Errorf("mail graph holds %v, which no message row implies", q)
		}
	}
	for q := range want {
		if !got[q] {
			return fmt.Errorf("mail graph lacks %v", q)
		}
	}
	return nil
}
