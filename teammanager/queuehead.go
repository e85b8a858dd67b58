package teammanager

import (
	"strconv"
	"strings"

	"github.com/cayleygraph/quad"
)

// Queue heads.
//
// Two of the board's tables are queues that are consumed from the front: a
// team's ready tasks (a claim takes the first one it may) and a member's
// inbox (retention drops the oldest). Badger keeps a deleted row as a
// tombstone until a compaction drops it, and a scan steps over every
// tombstone in its way: a scan from the start of a queue that has lost
// thousands of rows from its front costs thousands of steps, so claims and
// sends grew slower the more of the board was done.
//
// So the board keeps, for each queue, its head in the headTable side
// table: a key at or before the queue's first row (every row of the queue
// has a key ≥ it). A scan of a queue starts at its head, not at the start;
// a scan that meets the queue's first row past the head moves the head to
// it; and a batch that puts a row before the head moves the head back
// (boardTx.stage), in the same Update. An inbox's head also counts its
// rows, so that retention need not count them by a scan.
//
// A queue with no head row (a board written before heads) is scanned from
// its start, as before, and gets its head at its first scan.
const headTable = "taskhead"

// queueHead is a row of headTable: team, queue → [low, count].
type queueHead struct {
	low     string // every row of the queue has a key ≥ low
	count   int    // the rows of the queue, if counted
	counted bool
}

// headOfPrefix returns the head key of the queue whose rows are the keys
// of table under prefix, if that is a queue: a team's ready tasks
// (prefix "team ") or an inbox (prefix "team agent ").
func headOfPrefix(table, prefix string) (string, bool) {
	body, ok := strings.CutSuffix(prefix, " ")
	if !ok || body == "" {
		return "", false
	}
	switch n := strings.Count(body, " "); {
	case table == readyTable && n == 0:
		return body + " " + readyTable, true
	case table == inboxTable && n == 1:
		team, agent, _ := strings.Cut(body, " ")
		return team + " " + inboxTable + " " + agent, true
	}
	return "", false
}

// headOfKey returns the head key of the queue that row key of table
// belongs to, if table is a queue.
func headOfKey(table, key string) (string, bool) {
	switch table {
	case readyTable:
		team, _, ok := strings.Cut(key, " ")
		return team + " " + readyTable, ok
	case inboxTable:
		team, rest, ok := strings.Cut(key, " ")
		agent, _, ok2 := strings.Cut(rest, " ")
		return team + " " + inboxTable + " " + agent, ok && ok2
	}
	return "", false
}

// head reads the head of the queue at key h as this call sees it.
func (b *boardTx) head(h string) (queueHead, bool, error) {
	vals, found, err := b.row(headTable, h)
	if err != nil || !found {
		return queueHead{}, false, err
	}
	var q queueHead
	if len(vals) != 2 {
		return q, false, errorf(ErrCorrupt, "queue head %q of %d values", h, len(vals))
	}
	low, _ := vals[0].(quad.String)
	q.low = string(low)
	if c, ok := vals[1].(quad.String); ok {
		n, err := strconv.Atoi(string(c))
		if err != nil || n < 0 {
			return q, false, errorf(ErrCorrupt, "queue head %q: count %q", h, c)
		}
		q.count, q.counted = n, true
	}
	return q, true, nil
}

func (b *boardTx) putHead(h string, q queueHead) {
	vals := []quad.Value{quad.String(q.low), nil}
	if q.counted {
		vals[1] = quad.String(strconv.Itoa(q.count))
	}
	b.put(headTable, h, vals)
}

// advanceHead moves the head h of a queue to first, the queue's first row
// as this call sees it, if the head is before it.
func (b *boardTx) advanceHead(h, prefix, first string) error {
	q, found, err := b.head(h)
	if err != nil {
		return err
	}
	if !found {
		q.low = prefix
	}
	if first > q.low {
		q.low = first
		b.putHead(h, q)
	}
	return nil
}

// stageHeads moves back the head of every queue that this batch put a row
// before (b is the batch's root).
func (b *boardTx) stageHeads() error {
	lows := map[string]string{}
	var order []string
	for _, k := range b.rowSeq {
		if b.rows[k] == nil {
			continue
		}
		h, ok := headOfKey(k.table, k.key)
		if !ok {
			continue
		}
		if low, seen := lows[h]; !seen {
			lows[h] = k.key
			order = append(order, h)
		} else if k.key < low {
			lows[h] = k.key
		}
	}
	for _, h := range order {
		q, found, err := b.head(h)
		if err != nil {
			return err
		}
		if found && lows[h] < q.low {
			q.low = lows[h]
			b.putHead(h, q)
		}
	}
	return nil
}
