package teammanager

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
)

// checkBoard checks that team's board is consistent: every task row
// decodes and its quads in the task graph are exactly those it implies;
// a task has a ready row if and only if it is pending, not paused and its
// blockers are done, and a held row (under its assignee alone) if and only
// if it is in_progress; the board's task counter is past every task; the
// ready queue's head is at or before its first row; and each counted
// inbox head counts its inbox's rows.
func (m *Manager) checkBoard(ctx context.Context, team string) error {
	var tasks []Task
	if err := m.readBoardRows(ctx, taskTable, teamKey(team), func(_ string, vals []quad.Value) bool {
		t, err := decodeTask(team, vals)
		if err == nil {
			t.IRI = m.ns.Task(team, t.ID)
		}
		tasks = append(tasks, t)
		return err == nil
	}); err != nil {
		return err
	}
	rows := func(table, prefix string) ([]string, error) {
		var keys []string
		err := m.readBoardRows(ctx, table, prefix, func(key string, _ []quad.Value) bool {
			keys = append(keys, key)
			return true
		})
		return keys, err
	}
	ready, err := rows(readyTable, teamKey(team))
	if err != nil {
		return err
	}
	held, err := rows(heldTable, teamKey(team))
	if err != nil {
		return err
	}
	byID := map[string]*Task{}
	for i := range tasks {
		byID[tasks[i].ID] = &tasks[i]
	}
	var wantReady, wantHeld []string
	want := map[quad.Quad]bool{}
	for _, t := range tasks {
		n, _ := taskNum(t.ID)
		done := true
		for _, id := range t.BlockedBy {
			if bt := byID[id]; bt == nil || !satisfies(bt) {
				done = false
			}
		}
		if t.Status == TaskPending && !t.Paused && done {
			wantReady = append(wantReady, readyKey(team, t.Priority, n))
		}
		if t.Status == TaskInProgress {
			if t.Assignee == "" {
				return fmt.Errorf("task %s is in_progress with no assignee", t.ID)
			}
			wantHeld = append(wantHeld, heldKey(team, t.Assignee, n))
		}
		for _, q := range m.taskQuads(&t) {
			want[q] = true
		}
	}
	slices.Sort(wantReady)
	slices.Sort(wantHeld)
	if !slices.Equal(ready, wantReady) {
		return fmt.Errorf("ready rows %v, want %v", trimList(ready), trimList(wantReady))
	}
	if !slices.Equal(held, wantHeld) {
		return fmt.Errorf("held rows %v, want %v", trimList(held), trimList(wantHeld))
	}
	qs, err := m.n.Quads(ctx, cortex.Pattern{Graph: m.ns.TaskGraph(team), Scope: cortex.OneGraph})
	if err != nil {
		return err
	}
	var cerr error
	if err := m.readBoardRows(ctx, commentTable, teamKey(team), func(_ string, vals []quad.Value) bool {
		var c TaskComment
		s, _ := vals[0].(quad.String)
		if cerr = json.Unmarshal([]byte(s), &c); cerr != nil {
			return false
		}
		for _, q := range m.commentQuads(team, c) {
			want[q] = true
		}
		return true
	}); err != nil || cerr != nil {
		return fmt.Errorf("comments: %v %v", err, cerr)
	}
	got := map[quad.Quad]bool{}
	for _, q := range qs {
		got[q] = true
	}
	for q := range want {
		if !got[q] {
			return fmt.Errorf("task graph lacks %v", q)
		}
	}
	for q := range got {
		if !want[q] {
			return fmt.Errorf("task graph holds %v, which no task row implies", q)
		}
	}
	b := &boardTx{m: m, ctx: ctx, n: m.n}
	b.init()
	vals, found, err := b.row(boardTable, team)
	if err != nil || !found {
		return fmt.Errorf("board row: found %v, %v", found, err)
	}
	var st boardState
	if s, _ := vals[0].(quad.String); json.Unmarshal([]byte(s), &st) != nil {
		return fmt.Errorf("board row %q", s)
	}
	// The board's counter is past every task's number, and so is the
	// team's highest number ever (idSeqTable); numbers a restore or a
	// deletion removed are not taken again, so there may be gaps.
	seqTasks, seqMsgs, err := b.idSeq(team)
	if err != nil {
		return err
	}
	if st.Next < 1 || len(tasks) > st.Next-1 || seqTasks > 0 && st.Next > seqTasks+1 {
		return fmt.Errorf("board counter %d with %d tasks (highest number ever %d)", st.Next, len(tasks), seqTasks)
	}
	for _, t := range tasks {
		if n, ok := taskNum(t.ID); !ok || n >= st.Next || n > max(seqTasks, st.Next-1) {
			return fmt.Errorf("task %s past the board counter %d (highest number ever %d)", t.ID, st.Next, seqTasks)
		}
	}
	if seqMsgs > 0 && st.Messages > seqMsgs {
		return fmt.Errorf("message counter %d past the highest number ever %d", st.Messages, seqMsgs)
	}
	if h, found, err := b.head(team + " " + readyTable); err != nil {
		return err
	} else if found && len(ready) > 0 && h.low > ready[0] {
		return fmt.Errorf("ready head %q is past the first ready row %q", h.low, ready[0])
	}
	for _, a := range st.Members {
		h, found, err := b.head(team + " " + inboxTable + " " + a)
		if err != nil {
			return err
		}
		inbox, err := rows(inboxTable, team+" "+a+" ")
		if err != nil {
			return err
		}
		if found && h.counted && h.count != len(inbox) {
			return fmt.Errorf("inbox head of %s counts %d rows, the inbox has %d", a, h.count, len(inbox))
		}
		if found && len(inbox) > 0 && h.low > inbox[0] {
			return fmt.Errorf("inbox head of %s %q is past its first row %q", a, h.low, inbox[0])
		}
	}
	return nil
}

func trimList(keys []string) string {
	if len(keys) > 6 {
		return strings.Join(keys[:6], ", ") + fmt.Sprintf(" ... (%d)", len(keys))
	}
	return strings.Join(keys, ", ")
}
