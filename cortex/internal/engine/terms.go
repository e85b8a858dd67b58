package engine

import (
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/internal/iri"
	"github.com/cortexgraph/cortex/cortex/internal/lex"
	"github.com/cortexgraph/cortex/cortex/rdfio"
)

const xsd = "http://www.w3.org/2001/XMLSchema#"

// rdfLangString is the datatype of language-tagged literals, and of them
// only (RDF 1.1 Concepts 3.3).
const rdfLangString = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"

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
	// stored: the quads are looked up, not written (the removals of a
	// delta): their literals are not checked (see normalizeStored).
	stored bool
}

func (z *quadNormalizer) normalize(q quad.Quad) (quad.Quad, error) {
	terms := [4]*quad.Value{&q.Subject, &q.Predicate, &q.Object, &q.Label}
	for i, t := range terms {
		if iri, ok := (*t).(quad.IRI); ok && iri != "" && iri == z.last[i] {
			continue // checked already (an IRI normalizes to itself)
		}
		v, err := normalizeAt(i, *t, !z.stored)
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
// graph) of a quad; checkLit: check a literal object's text, language tag
// and datatype (see NormalizeTerm).
func normalizeAt(i int, v quad.Value, checkLit bool) (quad.Value, error) {
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
		o, err := normalizeTerm(v, checkLit)
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
// NormalizeQuad) or an error for values that are not RDF terms, or that
// could not be exported: a literal's text must be valid UTF-8 (a lone
// surrogate is not), its language tag well-formed ([a-zA-Z]+ ('-'
// [a-zA-Z0-9]+)*), its datatype a valid absolute IRI (CheckIRI) other than
// rdf:langString, which RDF 1.1 gives language-tagged literals only (a
// quad.TypedString has no tag).
func NormalizeTerm(v quad.Value) (quad.Value, error) { return normalizeTerm(v, true) }

// normalizeStored is NormalizeTerm for a term to look up or remove, not to
// write: it does not check a literal's text, language tag or datatype, so
// that terms a store wrote before they were checked can still be found and
// removed (a term that fails the checks is stored nowhere else).
func normalizeStored(v quad.Value) (quad.Value, error) { return normalizeTerm(v, false) }

// maxQuoted bounds the bytes of a literal an error quotes.
const maxQuoted = 64

// quoteShort quotes s, or its first maxQuoted bytes and its length.
func quoteShort(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%q... (%d bytes)", s[:maxQuoted], len(s))
}

// checkText reports whether s, a literal's text, is valid UTF-8.
func checkText(s quad.String) error {
	if !utf8.ValidString(string(s)) {
		return fmt.Errorf("literal %s is not valid UTF-8", quoteShort(string(s)))
	}
	return nil
}

func normalizeTerm(v quad.Value, checkLit bool) (quad.Value, error) {
	if checkLit {
		var err error
		switch t := v.(type) {
		case quad.String:
			err = checkText(t)
		case quad.LangString:
			if err = checkText(t.Value); err == nil && t.Lang != "" && !lex.IsLangTag(t.Lang) {
				err = fmt.Errorf("literal %s: bad language tag %s", quoteShort(string(t.Value)), quoteShort(t.Lang))
			}
		case quad.TypedString:
			if err = checkText(t.Value); err == nil && t.Type != "" {
				if ierr := CheckIRI(string(t.Type)); ierr != nil {
					err = fmt.Errorf("literal %s: datatype: %v", quoteShort(string(t.Value)), ierr)
				} else if t.Type == rdfLangString {
					err = fmt.Errorf("literal %s: rdf:langString literal without a language tag", quoteShort(string(t.Value)))
				}
			}
		}
		if err != nil {
			return nil, err
		}
	}
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
		return fmt.Errorf("IRI %s is not valid UTF-8", quoteShort(s))
	}
	// Every forbidden character is ASCII: check bytes (multi-byte UTF-8
	// sequences have only bytes >= 0x80).
	for i := 0; i < len(s); i++ {
		if c := s[i]; lex.NotInIRI(c) {
			return fmt.Errorf("IRI %s contains %q, which IRIs cannot hold", quoteShort(s), rune(c))
		}
	}
	if !iri.HasScheme(s) {
		return fmt.Errorf("IRI %s is not absolute (no scheme)", quoteShort(s))
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

// maxTerm is the largest term the store holds, in termBytes (0: no bound
// but Badger's value log file size). An in-memory store keeps every value
// in its memtable, where Badger refuses one above its value threshold
// (1 MB): a term's node log entry is its bytes and a few dozen more.
func (s *Store) maxTerm() int {
	if !s.opts.inMemory {
		return 0
	}
	return int(s.valueThreshold) - 64 // the rest of the entry: ids, timestamp, lengths
}

// checkTermSizes reports the first term of qs larger than max, as an error
// wrapping ErrInvalidQuad.
func checkTermSizes(qs []quad.Quad, max int) error {
	for _, q := range qs {
		if err := checkQuadSize(q, max); err != nil {
			return err
		}
	}
	return nil
}

// checkQuadSize is checkTermSizes of one quad.
func checkQuadSize(q quad.Quad, max int) error {
	for i, v := range [4]quad.Value{q.Subject, q.Predicate, q.Object, q.Label} {
		if n := rdfio.TermBytes(v); n > max {
			return fmt.Errorf("%w: %s: a term of %d bytes; an in-memory store holds terms of at most %d", ErrInvalidQuad, positionNames[i], n, max)
		}
	}
	return nil
}

// checkRowSizes reports the first row of o whose value (its terms, and a
// few bytes each) is larger than max, as checkTermSizes does.
func (o *sideOps) checkRowSizes(max int) error {
	if o == nil {
		return nil
	}
	for table, rows := range o.puts {
		for key, row := range rows {
			n := 0
			for _, v := range row {
				n += rdfio.TermBytes(v) + 16
			}
			if n > max {
				return fmt.Errorf("%w: side table %s: row %s of %d bytes; an in-memory store holds rows of at most %d", ErrInvalidArgument, table, quoteShort(key), n, max)
			}
		}
	}
	return nil
}
