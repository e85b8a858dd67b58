package engine

import (
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/internal/iri"
)

const xsd = "http://www.w3.org/2001/XMLSchema#"

// NormalizeQuad checks that q is a valid RDF quad and returns it in the
// canonical term representation Cortex stores: subjects are IRIs or blank
// nodes, predicates IRIs, graph labels nil (default graph), IRIs or blank
// nodes; objects any term. A "..."^^xsd:string literal becomes a plain
// quad.String; cayley's native quad.Int, Float, Bool and Time become typed
// literals. Anything else is an error wrapping ErrInvalidQuad.
func NormalizeQuad(q quad.Quad) (quad.Quad, error) {
	var z quadNormalizer
	return z.normalize(q)
}

// quadNormalizer normalizes quads as NormalizeQuad does, remembering the
// last IRI of each position: the quads of a delta often repeat one (a
// record's subject, the predicates, the graph), and checking an IRI reads
// all of it. The zero value is ready to use.
type quadNormalizer struct {
	last [4]quad.IRI // the last IRI normalized in each position ("": none)
}

func (z *quadNormalizer) normalize(q quad.Quad) (quad.Quad, error) {
	terms := [4]*quad.Value{&q.Subject, &q.Predicate, &q.Object, &q.Label}
	for i, t := range terms {
		if iri, ok := (*t).(quad.IRI); ok && iri != "" && iri == z.last[i] {
			continue // checked already (an IRI normalizes to itself)
		}
		v, err := normalizeAt(i, *t)
		if err != nil {
			return q, err
		}
		*t = v
		if iri, ok := v.(quad.IRI); ok {
			z.last[i] = iri
		}
	}
	return q, nil
}

// positionNames name the positions of a quad in errors.
var positionNames = [4]string{"subject", "predicate", "object", "graph"}

// normalizeAt normalizes term v of position i (subject, predicate, object,
// graph) of a quad.
func normalizeAt(i int, v quad.Value) (quad.Value, error) {
	if iri, ok := v.(quad.IRI); ok {
		// The common case, valid in every position; v is returned as it
		// is (boxing the IRI again would allocate).
		if err := CheckIRI(string(iri)); err != nil {
			return v, fmt.Errorf("%w: %s: %v", ErrInvalidQuad, positionNames[i], err)
		}
		return v, nil
	}
	switch i {
	case 0:
		return normalizeNode(v, "subject", false)
	case 1:
		p, ok := v.(quad.IRI)
		if !ok {
			return v, fmt.Errorf("%w: predicate must be an IRI, got %s", ErrInvalidQuad, describe(v))
		}
		if err := CheckIRI(string(p)); err != nil {
			return v, fmt.Errorf("%w: predicate: %v", ErrInvalidQuad, err)
		}
		return p, nil
	case 2:
		o, err := NormalizeTerm(v)
		if err != nil {
			return v, fmt.Errorf("%w: object: %v", ErrInvalidQuad, err)
		}
		return o, nil
	default:
		if v == nil {
			return nil, nil
		}
		return normalizeNode(v, "graph", false)
	}
}

func normalizeNode(v quad.Value, pos string, _ bool) (quad.Value, error) {
	switch t := v.(type) {
	case quad.IRI:
		if err := CheckIRI(string(t)); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrInvalidQuad, pos, err)
		}
		return t, nil
	case quad.BNode:
		if t == "" {
			return nil, fmt.Errorf("%w: empty blank node label as %s", ErrInvalidQuad, pos)
		}
		return t, nil
	}
	return nil, fmt.Errorf("%w: %s must be an IRI or a blank node, got %s", ErrInvalidQuad, pos, describe(v))
}

// NormalizeTerm returns v in Cortex's canonical representation (see
// NormalizeQuad) or an error for values that are not RDF terms.
func NormalizeTerm(v quad.Value) (quad.Value, error) {
	switch t := v.(type) {
	case quad.IRI:
		if err := CheckIRI(string(t)); err != nil {
			return nil, err
		}
		return t, nil
	case quad.BNode:
		if t == "" {
			return nil, fmt.Errorf("empty blank node label")
		}
		return t, nil
	case quad.String:
		return t, nil
	case quad.LangString:
		if t.Lang == "" {
			return t.Value, nil
		}
		return t, nil
	case quad.TypedString:
		if t.Type == "" || t.Type == xsd+"string" {
			return t.Value, nil
		}
		return t, nil
	case quad.Int:
		return quad.TypedString{Value: quad.String(strconv.FormatInt(int64(t), 10)), Type: xsd + "integer"}, nil
	case quad.Float:
		return quad.TypedString{Value: quad.String(strconv.FormatFloat(float64(t), 'E', -1, 64)), Type: xsd + "double"}, nil
	case quad.Bool:
		return quad.TypedString{Value: quad.String(strconv.FormatBool(bool(t))), Type: xsd + "boolean"}, nil
	case quad.Time:
		return quad.TypedString{Value: quad.String(time.Time(t).Format(time.RFC3339Nano)), Type: xsd + "dateTime"}, nil
	case nil:
		return nil, fmt.Errorf("missing term")
	}
	return nil, fmt.Errorf("unsupported term type %T", v)
}

// iriForbidden marks the ASCII characters above space that an IRI cannot hold.
var iriForbidden = func() (t [256]bool) {
	for _, c := range "<>\"{}|^`\\" {
		t[c] = true
	}
	return t
}()

// CheckIRI reports whether s can be stored and exported as an IRI: an
// absolute IRI (with a scheme), valid UTF-8, free of the characters an
// N-Triples IRIREF cannot hold (U+0000 to U+0020 and <>"{}|^`\). Cortex
// builds its own IRIs with the namespace package, which escapes user input so
// that this always holds.
func CheckIRI(s string) error {
	if s == "" {
		return fmt.Errorf("empty IRI")
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("IRI %q is not valid UTF-8", s)
	}
	// Every forbidden character is ASCII: check bytes (multi-byte UTF-8
	// sequences have only bytes >= 0x80).
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= 0x20 || iriForbidden[c] {
			return fmt.Errorf("IRI %q contains %q, which IRIs cannot hold", s, rune(c))
		}
	}
	if !iri.HasScheme(s) {
		return fmt.Errorf("IRI %q is not absolute (no scheme)", s)
	}
	return nil
}

func describe(v quad.Value) string {
	switch v.(type) {
	case nil:
		return "nothing"
	case quad.IRI:
		return "an IRI"
	case quad.BNode:
		return "a blank node"
	case quad.String, quad.LangString, quad.TypedString, quad.Int, quad.Float, quad.Bool, quad.Time:
		return "a literal " + v.String()
	}
	return fmt.Sprintf("a %T", v)
}
