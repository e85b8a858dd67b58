package eval

import (
	"context"
	"errors"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
	"github.com/cortexgraph/cortex/internal/ctxcause"
)

const batchSize = 64

// stream runs a producer in its own goroutine and hands its batches to the consumer.
type stream[T any] struct {
	ch     chan []T
	cancel context.CancelFunc
	done   chan struct{}
	perr   error // set by the producer before closing ch
	batch  []T
	i      int
	err    error
	closed bool
}

func newStream[T any](ctx context.Context, produce func(ctx context.Context, emit func([]T) error) error) *stream[T] {
	ctx, cancel := context.WithCancel(ctx)
	s := &stream[T]{ch: make(chan []T, 2), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		defer close(s.ch)
		s.perr = produce(ctx, func(b []T) error {
			select {
			case s.ch <- b:
				return nil
			case <-ctx.Done():
				return ctxcause.Err(ctx)
			}
		})
	}()
	return s
}

func (s *stream[T]) next(ctx context.Context) bool {
	if s.closed || s.err != nil {
		return false
	}
	s.i++
	if s.i < len(s.batch) {
		return true
	}
	for {
		select {
		case b, ok := <-s.ch:
			if !ok {
				s.err = s.perr
				s.batch = nil
				return false
			}
			if len(b) == 0 {
				continue
			}
			s.batch, s.i = b, 0
			return true
		case <-ctx.Done():
			s.err = ctxcause.Err(ctx)
			return false
		}
	}
}

func (s *stream[T]) close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	s.cancel()
	for range s.ch {
	}
	<-s.done
	if errors.Is(s.err, context.Canceled) {
		return nil
	}
	return nil
}

// Rows streams the solutions of a SELECT query. Iterate with Next until it returns false, then check
// Err; always Close. Rows is not safe for concurrent use.
type Rows struct {
	vars []string
	s    *stream[[]quad.Value]
}

// Vars returns the names of the projected variables, in order.
func (r *Rows) Vars() []string { return r.vars }

// Next advances to the next solution; it returns false at the end, on error or when ctx is done.
func (r *Rows) Next(ctx context.Context) bool { return r.s.next(ctx) }

// Row returns the current solution aligned with Vars (nil for unbound). It is valid until the next call
// of Next.
func (r *Rows) Row() []quad.Value { return r.s.batch[r.s.i] }

// Err returns the error that ended the iteration, if any.
func (r *Rows) Err() error {
	if errors.Is(r.s.err, ErrClosed) {
		return nil
	}
	return r.s.err
}

// Close stops the evaluation and releases its resources. It is safe to call more than once.
func (r *Rows) Close() error { return r.s.close() }

func (p *prepared) rows(ctx context.Context) *Rows {
	names := make([]string, len(p.q.Vars))
	for i, v := range p.q.Vars {
		names[i] = string(v)
	}
	ev := p.ev
	s := newStream(ctx, func(ctx context.Context, emit func([][]quad.Value) error) error {
		var ids []ID
		n := len(p.vars)
		flush := func() error {
			if len(ids) == 0 {
				return nil
			}
			vals := make([]quad.Value, len(ids))
			if err := ev.terms(ctx, ids, vals); err != nil {
				return err
			}
			b := make([][]quad.Value, 0, len(ids)/max(n, 1))
			for i := 0; i < len(ids); i += n {
				b = append(b, vals[i:i+n:i+n])
			}
			if n == 0 {
				b = b[:0]
			}
			ids = ids[:0]
			return emit(b)
		}
		count := 0
		var empties [][]quad.Value
		err := p.root.run(ctx, gctx{}, make(row, ev.nvars), func(r row) error {
			if ev.fatal != nil {
				return ev.fatal
			}
			if n == 0 {
				empties = append(empties, []quad.Value{})
				if len(empties) == batchSize {
					e := emit(empties)
					empties = nil
					return e
				}
				return nil
			}
			for _, s := range p.vars {
				ids = append(ids, r[s])
			}
			count++
			if count%batchSize == 0 {
				ids2 := ids
				err := flush()
				ids = ids2[:0]
				return err
			}
			return nil
		})
		if err != nil {
			return err
		}
		if len(empties) > 0 {
			if err := emit(empties); err != nil {
				return err
			}
		}
		if err := flush(); err != nil {
			return err
		}
		return ev.fatal
	})
	return &Rows{vars: names, s: s}
}

// Quads streams the triples of a CONSTRUCT or DESCRIBE result (Label always nil); duplicates are
// removed. Use like Rows.
type Quads struct {
	s *stream[quad.Quad]
}

// Next advances to the next triple.
func (q *Quads) Next(ctx context.Context) bool { return q.s.next(ctx) }

// Quad returns the current triple.
func (q *Quads) Quad() quad.Quad { return q.s.batch[q.s.i] }

// Err returns the error that ended the iteration, if any.
func (q *Quads) Err() error { return q.s.err }

// Close stops the evaluation and releases its resources.
func (q *Quads) Close() error { return q.s.close() }

func tripleKey(q quad.Quad) string {
	return termKey(q.Subject) + "\x01" + termKey(q.Predicate) + "\x01" + termKey(q.Object)
}

func (p *prepared) construct(ctx context.Context) *Quads {
	ev := p.ev
	type tpos struct {
		slot  int
		val   quad.Value
		bnode string
	}
	var tmpl [][3]tpos
	for _, t := range p.q.Template {
		var x [3]tpos
		for i, term := range []algebra.Term{t.Subject, t.Predicate, t.Object} {
			switch {
			case term.IsVar():
				x[i] = tpos{slot: p.c.slot(term.Var)}
			default:
				if b, ok := term.Value.(quad.BNode); ok {
					x[i] = tpos{slot: -1, bnode: string(b)}
				} else {
					x[i] = tpos{slot: -1, val: term.Value}
				}
			}
		}
		tmpl = append(tmpl, x)
	}
	s := newStream(ctx, func(ctx context.Context, emit func([]quad.Quad) error) error {
		seen := map[string]bool{}
		var batch []quad.Quad
		// A template's blank nodes are new for each solution and distinct from the data's: they come
		// from the query's BNodeScope (a random prefix), as BNODE() does.
		err := p.root.run(ctx, gctx{}, make(row, ev.nvars), func(r row) error {
			labels := map[string]quad.BNode{}
			for _, t := range tmpl {
				var vals [3]quad.Value
				for i, x := range t {
					switch {
					case x.slot >= 0:
						vals[i] = ev.term(ctx, r[x.slot])
					case x.bnode != "":
						b, ok := labels[x.bnode]
						if !ok {
							b = ev.bctx.BNodeScope.Fresh()
							labels[x.bnode] = b
						}
						vals[i] = b
					default:
						vals[i] = x.val
					}
				}
				if !validTriple(vals) {
					continue
				}
				q := quad.Quad{Subject: vals[0], Predicate: vals[1], Object: vals[2]}
				k := tripleKey(q)
				if seen[k] {
					continue
				}
				seen[k] = true
				batch = append(batch, q)
			}
			if len(batch) >= batchSize {
				b := batch
				batch = nil
				return emit(b)
			}
			return ev.fatal
		})
		if err != nil {
			return err
		}
		if len(batch) > 0 {
			return emit(batch)
		}
		return ev.fatal
	})
	return &Quads{s: s}
}

// validTriple reports whether an instance of a CONSTRUCT template is an RDF
// triple; those that are not (an unbound variable, a literal subject, a
// literal of datatype rdf:langString without a language tag, which RDF 1.1
// Concepts 3.3 does not allow) are left out of the graph (SPARQL 1.1, 16.2).
func validTriple(v [3]quad.Value) bool {
	switch v[0].(type) {
	case quad.IRI, quad.BNode:
	default:
		return false
	}
	if _, ok := v[1].(quad.IRI); !ok {
		return false
	}
	if t, ok := v[2].(quad.TypedString); ok && t.Type == algebra.RDFLangString {
		return false
	}
	return v[2] != nil
}

// describe returns the concise bounded description of each resource: its triples as subject, and
// recursively those of blank-node objects.
func (p *prepared) describe(ctx context.Context) *Quads {
	ev := p.ev
	s := newStream(ctx, func(ctx context.Context, emit func([]quad.Quad) error) error {
		var res []ID
		seenRes := map[ID]bool{}
		var slots []int
		for _, t := range p.q.Describe {
			if t.IsVar() {
				slots = append(slots, p.c.slot(t.Var))
			} else if id := ev.intern(ctx, t.Value); !seenRes[id] {
				seenRes[id] = true
				res = append(res, id)
			}
		}
		if len(p.q.Describe) == 0 {
			slots = p.vars
		}
		if len(slots) > 0 {
			err := p.root.run(ctx, gctx{}, make(row, ev.nvars), func(r row) error {
				for _, s := range slots {
					if id := r[s]; id != 0 && !seenRes[id] {
						seenRes[id] = true
						res = append(res, id)
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		visited := map[ID]bool{}
		var batch []quad.Quad
		var walk func(id ID) error
		walk = func(id ID) error {
			if visited[id] {
				return nil
			}
			visited[id] = true
			var objs []ID
			err := ev.scan(ctx, gctx{}, id, 0, 0, func(q Quad) error {
				vals := make([]quad.Value, 3)
				if err := ev.terms(ctx, []ID{q.S, q.P, q.O}, vals); err != nil {
					return err
				}
				batch = append(batch, quad.Quad{Subject: vals[0], Predicate: vals[1], Object: vals[2]})
				if _, ok := vals[2].(quad.BNode); ok {
					objs = append(objs, q.O)
				}
				return nil
			})
			if err != nil {
				return err
			}
			for _, o := range objs {
				if err := walk(o); err != nil {
					return err
				}
			}
			return nil
		}
		for _, id := range res {
			if err := walk(id); err != nil {
				return err
			}
			if len(batch) >= batchSize {
				if err := emit(batch); err != nil {
					return err
				}
				batch = nil
			}
		}
		if len(batch) > 0 {
			return emit(batch)
		}
		return nil
	})
	return &Quads{s: s}
}
