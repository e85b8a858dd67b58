package engine

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
)

// Open query results. A query result holds a read transaction until it is
// closed, and a large write (a journaled delta, a streamed import segment)
// waits for every transaction of the store to end. A result that its
// program dropped without closing it is closed by the garbage collector
// (sparql.Result); a write that waits runs the collector (gate.onStall), so
// it does not wait for a reader that is gone. A result still referenced and
// not closed is reported by Close (ErrResultsOpen), with where it was opened.

// openResults tracks the store's query results that are not closed yet.
type openResults struct {
	mu     sync.Mutex
	seq    uint64
	m      map[uint64]openResult
	leaked int64 // results the garbage collector closed
}

type openResult struct {
	ns     string
	query  string
	opened time.Time
	pcs    []uintptr // where Query was called; symbolised when reported
}

// add records a result of query text opened on namespace ns and returns its
// id.
func (o *openResults) add(ns, text string) uint64 {
	var pcs [12]uintptr
	k := runtime.Callers(3, pcs[:]) // the caller of Namespace.Query and up
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.m == nil {
		o.m = map[uint64]openResult{}
	}
	o.seq++
	o.m[o.seq] = openResult{ns: ns, query: text, opened: time.Now(), pcs: append([]uintptr(nil), pcs[:k]...)}
	return o.seq
}

// remove forgets result id (it was closed).
func (o *openResults) remove(id uint64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.m, id)
}

// leak forgets result id, which the garbage collector closed, and returns
// its description.
func (o *openResults) leak(id uint64) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	r, ok := o.m[id]
	delete(o.m, id)
	o.leaked++
	if !ok {
		return "a query result"
	}
	return r.describe()
}

// count returns the number of results not closed.
func (o *openResults) count() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.m)
}

// describe lists the results not closed, oldest first.
func (o *openResults) describe() string {
	o.mu.Lock()
	rs := make([]openResult, 0, len(o.m))
	for _, r := range o.m {
		rs = append(rs, r)
	}
	o.mu.Unlock()
	sort.Slice(rs, func(i, j int) bool { return rs[i].opened.Before(rs[j].opened) })
	var b strings.Builder
	for i, r := range rs {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(r.describe())
	}
	return b.String()
}

// describe says which query, on which namespace, opened where and when.
func (r openResult) describe() string {
	q := strings.Join(strings.Fields(r.query), " ")
	if rs := []rune(q); len(rs) > 60 {
		q = string(rs[:57]) + "..."
	}
	return fmt.Sprintf("%q on namespace %s, opened %s ago at %s", q, r.ns, time.Since(r.opened).Round(time.Millisecond), callers(r.pcs))
}

// callers formats program counters as "func (file:line) < caller (file:line)".
func callers(pcs []uintptr) string {
	frames := runtime.CallersFrames(pcs)
	var parts []string
	for {
		f, more := frames.Next()
		if f.Function != "" && !strings.HasPrefix(f.Function, "runtime.") && !strings.HasPrefix(f.Function, "testing.") {
			parts = append(parts, fmt.Sprintf("%s (%s:%d)", f.Function, f.File, f.Line))
		}
		if !more || len(parts) == 4 {
			break
		}
	}
	if len(parts) == 0 {
		return "an unknown place"
	}
	return strings.Join(parts, " < ")
}

// collectLeakedResults runs the garbage collector when query results are
// open, so that the results no program references any more are closed
// (their clean-ups run soon after, on the runtime's clean-up goroutine).
func (s *Store) collectLeakedResults() {
	if s.results.count() > 0 {
		runtime.GC()
	}
}
