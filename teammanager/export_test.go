package teammanager

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
)

// SetMergeHook sets a function that every merge calls after it has read the
// store and computed its writes, before it writes them (nil: none). Tests
// set it before starting merges and reset it after they end.
func SetMergeHook(fn func()) { mergeHook = fn }

// SetFindingScan sets how Conflicts finds its candidate findings: with at
// least min candidates it first reads the members' graphs, up to budget
// keys per candidate, and calls hook (if not nil) with the number found
// that way. It returns a function restoring the previous settings. Tests
// using it must not run in parallel.
func SetFindingScan(min, budget int, hook func(found int)) (restore func()) {
	oldMin, oldBudget, oldHook := findingScanMin, findingScanBudget, findingScanHook
	findingScanMin, findingScanBudget, findingScanHook = min, budget, hook
	return func() { findingScanMin, findingScanBudget, findingScanHook = oldMin, oldBudget, oldHook }
}

// ListFromQuads lists the teams matching status from the quads, as a
// listing does when the team table is stale, without touching the table.
func ListFromQuads(m *Manager, ctx context.Context, status Status) ([]Team, error) {
	l, err := m.scanListing(ctx, status, true)
	if err != nil {
		return nil, err
	}
	out, _, err := m.buildTeams(ctx, l, status, true)
	return out, err
}

// TeamTable is the name of the team table (a cortex side table).
const TeamTable = teamTable

// SetMergeWriteHook sets a function that every merge calls inside the
// Update that writes it, after staging its writes and before they commit
// (nil: none). Tests set it before starting merges and reset it after.
func SetMergeWriteHook(fn func()) { mergeWriteHook = fn }

// SetRetryOnOpen selects whether New retries interrupted merges (default
// true). It returns a function restoring the previous setting. Tests using
// it must not run in parallel.
func SetRetryOnOpen(v bool) (restore func()) {
	old := retryOnOpen
	retryOnOpen = v
	return func() { retryOnOpen = old }
}

// SetFactsHook sets a function that Facts calls once it has begun to read
// the fact sets (nil: none). Tests set it before calling Facts and reset
// it after.
func SetFactsHook(fn func()) { factsHook = fn }

// SetMemberChangeHook sets the hook a member update runs once it has
// staged part of its change (nil: none); an error it returns fails the
// update.
func SetMemberChangeHook(fn func(team, agent string) error) { memberChangeHook = fn }

// MergeWritesWaiting returns the number of merges waiting for their turn
// to write (commitMerge).
func MergeWritesWaiting(m *Manager) int32 { return m.mergeWriteWaiting.Load() }

// ResetBatchCounts sets the counts of batches taken and of the teams they
// read to zero (after a test's setup, whose member updates are batches).
func ResetBatchCounts(m *Manager) {
	c := &m.commits
	c.mu.Lock()
	defer c.mu.Unlock()
	c.batches = 0
	c.teamReads.Store(0)
}

// FindingsQueue returns the number of writes (findings and member updates)
// waiting for a batch and the number of batches taken so far (commit.go).
func FindingsQueue(m *Manager) (queued int, batches int64) {
	c := &m.commits
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.queue), c.batches
}

// CheckBoard checks that team's task board is consistent: its task rows,
// ready and held rows, quads, counter and queue heads agree.
func CheckBoard(m *Manager, ctx context.Context, team string) error { return m.checkBoard(ctx, team) }

// RewriteTaskRowUnpacked rewrites the stored row of task id of team in
// the layout task rows had before they were packed (tasktypes.go): one
// value per field, nothing for an empty one.
func RewriteTaskRowUnpacked(m *Manager, ctx context.Context, team, id string) error {
	n, _ := taskNum(id)
	key := taskKey(team, n)
	return m.n.Update(ctx, func(tx *cortex.Tx) error {
		vals, found, err := m.n.SideRow(ctx, taskTable, key)
		if err != nil || !found {
			return fmt.Errorf("task %s: found %v, %v", id, found, err)
		}
		fs, err := taskFields(vals)
		if err != nil {
			return err
		}
		old := make([]quad.Value, nTaskFields)
		for i, f := range fs {
			if f != "" {
				old[i] = quad.String(f)
			}
		}
		tx.PutSide(taskTable, key, old)
		return nil
	})
}

// TaskRowValues returns the number of values of the stored row of task id
// of team: 1 once packed.
func TaskRowValues(m *Manager, ctx context.Context, team, id string) (int, error) {
	n, _ := taskNum(id)
	vals, found, err := m.n.SideRow(ctx, taskTable, taskKey(team, n))
	if err == nil && !found {
		err = fmt.Errorf("task %s: no row", id)
	}
	return len(vals), err
}

// FindingsTeamReads returns the number of team states findings batches have
// read from the store so far; the others came from the batches' team cache
// (commit.go).
func FindingsTeamReads(m *Manager) int64 { return m.commits.teamReads.Load() }

// RewriteBoardRowUnfinished rewrites the stored board row of team as
// boards wrote it before they recorded their finished members.
func RewriteBoardRowUnfinished(m *Manager, ctx context.Context, team string) error {
	return m.n.Update(ctx, func(tx *cortex.Tx) error {
		vals, found, err := m.n.SideRow(ctx, boardTable, team)
		if err != nil || !found {
			return fmt.Errorf("board %s: found %v, %v", team, found, err)
		}
		st, err := decodeBoard(team, vals)
		if err != nil {
			return err
		}
		st.Finished, st.FinishedKnown = nil, false
		j, _ := json.Marshal(st)
		tx.PutSide(boardTable, team, []quad.Value{quad.String(j)})
		return nil
	})
}

// SetTaskFindingsHook sets a function that AddTaskFindings calls before
// its write (nil: none).
func SetTaskFindingsHook(fn func()) { taskFindingsHook = fn }

// SetAutoMergeTimeout sets the bound of automatic merges (AutoMergeTimeout
// by default). It returns a function restoring the previous bound. Tests
// using it must not run in parallel.
func SetAutoMergeTimeout(d time.Duration) (restore func()) {
	old := autoMergeTimeout
	autoMergeTimeout = d
	return func() { autoMergeTimeout = old }
}

// SetAutoMergeBound replaces how each phase of an automatic merge is
// bounded (see AutoMergeTimeout): fn returns ctx bounded, ending with
// cause at its bound. It returns a function restoring the default. Tests
// using it must not run in parallel.
func SetAutoMergeBound(fn func(ctx context.Context, cause error) (context.Context, context.CancelFunc)) (restore func()) {
	old := autoMergeBound
	autoMergeBound = fn
	return func() { autoMergeBound = old }
}

// LockTeamMerges takes team id's merge lock, as a merge of the team does,
// and returns its unlock.
func LockTeamMerges(m *Manager, id string) (unlock func()) {
	mu := m.mergeLock(id)
	mu.Lock()
	return mu.Unlock
}

// TeamMergeLockRefs returns the number of callers that hold or wait for
// team id's merge lock.
func TeamMergeLockRefs(m *Manager, id string) int {
	m.mergeLocks.mu.Lock()
	defer m.mergeLocks.mu.Unlock()
	if e := m.mergeLocks.m[id]; e != nil {
		return e.refs
	}
	return 0
}
