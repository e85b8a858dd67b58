package engine

import (
	"context"

	"github.com/cayleygraph/cayley/graph/refs"
	"github.com/cayleygraph/quad"
	"github.com/cayleygraph/quad/pquads"
)

// The bulk-import pipeline has three stages, each on its own goroutine:
//
//	decode (src.Next, NormalizeQuad) ─▶ prepare (hash, marshal, dedupe) ─▶ write (ids, keys, one transaction)
//
// prepare turns a chunk of normalised quads into a prepChunk: the distinct
// terms of the chunk with their cayley hashes and marshalled values, and the
// distinct quads as indexes into that term table. Everything it computes
// depends on the chunk alone, so it runs concurrently with the writer.

// prepNode is one distinct term of a chunk.
type prepNode struct {
	hash refs.ValueHash // refs.HashOf(term): the key of cayley's node buckets
	enc  []byte         // pquads.MarshalValue(term): the node primitive's Value
	iri  bool           // the term is an IRI (cayley caches IRI ids)
}

// prepQuad is a quad as indexes into prepChunk.nodes, in quad.Directions
// order (subject, predicate, object, label); -1 means no term (the default
// graph).
type prepQuad [4]int32

// prepChunk is a prepared chunk: its distinct quads (in input order) over its
// distinct terms.
type prepChunk struct {
	nodes []prepNode
	quads []prepQuad
	read  int   // quads read from the source for this chunk, duplicates included
	err   error // source error after the quads (the chunk must not be written)
}

// prepare builds a prepChunk from normalised quads. It never fails: the quads
// were validated by NormalizeQuad, whose term types pquads can all marshal.
func prepare(qs []quad.Quad) *prepChunk {
	c := &prepChunk{
		nodes: make([]prepNode, 0, len(qs)),
		quads: make([]prepQuad, 0, len(qs)),
		read:  len(qs),
	}
	terms := make(map[quad.Value]int32, len(qs))
	seen := make(map[prepQuad]struct{}, len(qs))
	node := func(v quad.Value) int32 {
		if v == nil {
			return -1
		}
		if i, ok := terms[v]; ok {
			return i
		}
		i := int32(len(c.nodes))
		enc, err := pquads.MarshalValue(v)
		if err != nil {
			// Unreachable for normalised terms; keep the library panic-free by
			// leaving enc empty, which the writer rejects.
			enc = nil
		}
		_, isIRI := v.(quad.IRI)
		c.nodes = append(c.nodes, prepNode{hash: refs.HashOf(v), enc: enc, iri: isIRI})
		terms[v] = i
		return i
	}
	for _, q := range qs {
		pq := prepQuad{node(q.Subject), node(q.Predicate), node(q.Object), node(q.Label)}
		if _, dup := seen[pq]; dup {
			continue
		}
		seen[pq] = struct{}{}
		c.quads = append(c.quads, pq)
	}
	return c
}

// rawChunk is a chunk of normalised quads from the decode stage.
type rawChunk struct {
	quads []quad.Quad
	err   error
}

// prepareStage runs prepare on every chunk of in and sends the results to out,
// in order; it closes out when in is closed or ctx is done.
func prepareStage(ctx context.Context, in <-chan rawChunk, out chan<- *prepChunk) {
	defer close(out)
	for rc := range in {
		c := prepare(rc.quads)
		c.err = rc.err
		select {
		case out <- c:
		case <-ctx.Done():
			return
		}
	}
}
