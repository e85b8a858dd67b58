package eval

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/cayleygraph/quad"
)

// MemDataset is an in-memory Dataset for tests and small graphs. Terms are interned on Add; xsd:string
// typed literals are stored as plain quad.String values. It is safe for concurrent use.
type MemDataset struct {
	mu    sync.RWMutex
	ids   map[string]ID
	terms []quad.Value // terms[id-1]
	quads []Quad
	set   map[Quad]bool
}

var _ Dataset = (*MemDataset)(nil)

// NewMemDataset returns a dataset holding qs (a nil Label is the default graph).
func NewMemDataset(qs ...quad.Quad) *MemDataset {
	d := &MemDataset{ids: map[string]ID{}, set: map[Quad]bool{}}
	d.Add(qs...)
	return d
}

// Add adds quads; duplicates are ignored.
func (d *MemDataset) Add(qs ...quad.Quad) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, q := range qs {
		iq := Quad{S: d.intern(q.Subject), P: d.intern(q.Predicate), O: d.intern(q.Object)}
		if q.Label != nil {
			iq.G = d.intern(q.Label)
		}
		if !d.set[iq] {
			d.set[iq] = true
			d.quads = append(d.quads, iq)
		}
	}
}

func memNorm(v quad.Value) quad.Value {
	if t, ok := v.(quad.TypedString); ok && t.Type == "http://www.w3.org/2001/XMLSchema#string" {
		return t.Value
	}
	if t, ok := v.(quad.LangString); ok && t.Lang == "" {
		return t.Value
	}
	return v
}

func (d *MemDataset) intern(v quad.Value) ID {
	v = memNorm(v)
	k := termKey(v)
	if id, ok := d.ids[k]; ok {
		return id
	}
	d.terms = append(d.terms, v)
	id := ID(len(d.terms))
	d.ids[k] = id
	return id
}

// IDs implements Dataset.
func (d *MemDataset) IDs(_ context.Context, terms []quad.Value) ([]ID, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	out := make([]ID, len(terms))
	for i, t := range terms {
		if t != nil {
			out[i] = d.ids[termKey(memNorm(t))]
		}
	}
	return out, nil
}

// Terms implements Dataset.
func (d *MemDataset) Terms(_ context.Context, ids []ID) ([]quad.Value, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	out := make([]quad.Value, len(ids))
	for i, id := range ids {
		if id != 0 && int(id) <= len(d.terms) {
			out[i] = d.terms[id-1]
		}
	}
	return out, nil
}

func (p Pattern) matches(q Quad) bool {
	if (p.S != 0 && q.S != p.S) || (p.P != 0 && q.P != p.P) || (p.O != 0 && q.O != p.O) {
		return false
	}
	switch p.Scope {
	case DefaultGraph:
		return q.G == 0
	case OneGraph:
		return p.G != 0 && q.G == p.G
	case NamedGraphs:
		return q.G != 0
	}
	return true
}

// Match implements Dataset.
func (d *MemDataset) Match(_ context.Context, p Pattern) QuadIterator {
	d.mu.RLock()
	var out []Quad
	for _, q := range d.quads {
		if p.matches(q) {
			out = append(out, q)
		}
	}
	d.mu.RUnlock()
	return &sliceQuads{qs: out, i: -1}
}

// NamedGraphs implements Dataset.
func (d *MemDataset) NamedGraphs(context.Context) ([]ID, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	seen := map[ID]bool{}
	var out []ID
	for _, q := range d.quads {
		if q.G != 0 && !seen[q.G] {
			seen[q.G] = true
			out = append(out, q.G)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, nil
}

// Estimate implements Dataset: the exact count.
func (d *MemDataset) Estimate(_ context.Context, p Pattern) (int64, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	var n int64
	for _, q := range d.quads {
		if p.matches(q) {
			n++
		}
	}
	return n, nil
}

type sliceQuads struct {
	qs []Quad
	i  int
}

func (s *sliceQuads) Next(ctx context.Context) bool {
	if s.i+1 >= len(s.qs) {
		s.i = len(s.qs)
		return false
	}
	s.i++
	return true
}
func (s *sliceQuads) Quad() Quad   { return s.qs[s.i] }
func (s *sliceQuads) Err() error   { return nil }
func (s *sliceQuads) Close() error { return nil }

// termKey is an injective string key of a term.
func termKey(v quad.Value) string {
	switch t := v.(type) {
	case quad.IRI:
		return "I" + string(t)
	case quad.BNode:
		return "B" + string(t)
	case quad.String:
		return "S" + string(t)
	case quad.LangString:
		return "L" + t.Lang + "\x00" + string(t.Value)
	case quad.TypedString:
		if t.Type == "http://www.w3.org/2001/XMLSchema#string" {
			return "S" + string(t.Value)
		}
		return "T" + string(t.Type) + "\x00" + string(t.Value)
	case nil:
		return ""
	}
	return fmt.Sprintf("X%T%v", v, v)
}
