package builtin

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cayleygraph/quad"
)

// DefaultSeparator is the GROUP_CONCAT separator when the query gives none.
const DefaultSeparator = " "

// Aggregate accumulates the values of one aggregate expression over one
// group (§18.5). An Aggregate is not safe for concurrent use.
type Aggregate interface {
	// Add feeds the value of the aggregate's expression for one solution, or
	// the error its evaluation produced (pass ErrUnbound-wrapping errors for
	// an unbound variable). COUNT(*) is fed Add(nil, nil) once per solution;
	// Add(nil, nil) is otherwise treated as an unbound value.
	Add(v quad.Value, err error)
	// Result returns the aggregate's value: (nil, nil) when it has none
	// (MIN, MAX or SAMPLE of an empty group), and an error wrapping ErrType
	// when the aggregate fails (SUM or AVG over a non-number or an error,
	// GROUP_CONCAT over an error or a term that is not a string literal).
	// The evaluator leaves the variable unbound in both cases. Result may be
	// called more than once.
	Result() (quad.Value, error)
}

// AggregateNames lists the aggregates NewAggregate accepts, sorted.
func AggregateNames() []string {
	return []string{"AVG", "COUNT", "GROUP_CONCAT", "MAX", "MIN", "SAMPLE", "SUM"}
}

// NewAggregate returns an accumulator for the aggregate name (upper-case:
// COUNT, SUM, MIN, MAX, AVG, SAMPLE, GROUP_CONCAT). With distinct, values
// that are the same RDF term are fed only once (COUNT(DISTINCT *) needs the
// evaluator to deduplicate solutions itself). separator is used by
// GROUP_CONCAT only; pass DefaultSeparator when the query has no SEPARATOR.
// Empty groups give COUNT 0, SUM 0, AVG 0, GROUP_CONCAT "" and no value for
// MIN, MAX and SAMPLE. MIN and MAX use OrderCompare and skip errors.
// GROUP_CONCAT takes string literals only, as CONCAT does (§18.5.1.7): a
// number or an IRI fails the group (GROUP_CONCAT(STR(?x)) concatenates them).
func NewAggregate(name string, distinct bool, separator string) (Aggregate, error) {
	var a Aggregate
	switch name {
	case "COUNT":
		a = &countAgg{}
	case "SUM":
		a = &sumAgg{sum: Numeric{kind: IntegerKind}}
	case "AVG":
		a = &sumAgg{sum: Numeric{kind: IntegerKind}, avg: true}
	case "MIN":
		a = &extremeAgg{sign: -1}
	case "MAX":
		a = &extremeAgg{sign: 1}
	case "SAMPLE":
		a = &sampleAgg{}
	case "GROUP_CONCAT":
		a = &concatAgg{sep: separator, sameLang: true}
	default:
		return nil, fmt.Errorf("aggregate %s: unknown aggregate: %w", name, ErrType)
	}
	if distinct {
		a = &distinctAgg{inner: a, seen: make(map[string]struct{})}
	}
	return a, nil
}

// distinctAgg forwards each distinct term once; errors and Add(nil, nil)
// are always forwarded.
type distinctAgg struct {
	inner Aggregate
	seen  map[string]struct{}
}

func (d *distinctAgg) Add(v quad.Value, err error) {
	if err == nil && v != nil {
		k := termKey(v)
		if _, ok := d.seen[k]; ok {
			return
		}
		d.seen[k] = struct{}{}
	}
	d.inner.Add(v, err)
}

func (d *distinctAgg) Result() (quad.Value, error) { return d.inner.Result() }

// termKey is a string identifying v up to SameTerm.
func termKey(v quad.Value) string {
	switch t := v.(type) {
	case quad.IRI:
		return "I" + string(t)
	case quad.BNode:
		return "B" + string(t)
	}
	l, ok := asLit(v)
	if !ok {
		return fmt.Sprintf("?%T%v", v, v)
	}
	switch l.kind {
	case litLang:
		return "L" + strings.ToLower(l.lang) + "@" + l.lex
	case litTyped:
		return "T" + string(l.dt) + ">" + l.lex
	}
	return "S" + l.lex
}

type countAgg struct{ n int64 }

func (c *countAgg) Add(_ quad.Value, err error) {
	if err == nil {
		c.n++
	}
}

func (c *countAgg) Result() (quad.Value, error) { return Integer(c.n), nil }

type sumAgg struct {
	sum Numeric
	n   int64
	avg bool
	err error
}

func (s *sumAgg) Add(v quad.Value, err error) {
	if s.err != nil {
		return
	}
	if err == nil && v == nil {
		err = ErrUnbound
	}
	if err != nil {
		s.err = err
		return
	}
	x, ok := NumericValue(v)
	if !ok {
		s.err = fmt.Errorf("%s is not a number: %w", termString(v), ErrType)
		return
	}
	k := max(x.kind, s.sum.kind)
	s.sum = addNumeric(s.sum.to(k), x.to(k))
	s.n++
}

func (s *sumAgg) Result() (quad.Value, error) {
	name := "sum"
	if s.avg {
		name = "avg"
	}
	if s.err != nil {
		return nil, fmt.Errorf("aggregate %s: %w", name, wrapType(s.err))
	}
	if !s.avg {
		return s.sum.Value(), nil
	}
	if s.n == 0 {
		return Integer(0), nil
	}
	return Div(s.sum.Value(), Integer(s.n))
}

// wrapType makes sure an aggregate error wraps ErrType.
func wrapType(err error) error {
	if errors.Is(err, ErrType) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrType, err)
}

type extremeAgg struct {
	sign int
	best quad.Value
}

func (m *extremeAgg) Add(v quad.Value, err error) {
	if err != nil || v == nil {
		return
	}
	if m.best == nil || OrderCompare(v, m.best)*m.sign > 0 {
		m.best = Normalize(v)
	}
}

func (m *extremeAgg) Result() (quad.Value, error) { return m.best, nil }

type sampleAgg struct{ v quad.Value }

func (s *sampleAgg) Add(v quad.Value, err error) {
	if s.v == nil && err == nil && v != nil {
		s.v = Normalize(v)
	}
}

func (s *sampleAgg) Result() (quad.Value, error) { return s.v, nil }

type concatAgg struct {
	sep      string
	b        strings.Builder
	n        int
	lang     string
	sameLang bool
	err      error
}

func (c *concatAgg) Add(v quad.Value, err error) {
	if c.err != nil {
		return
	}
	if err == nil && v == nil {
		err = ErrUnbound
	}
	if err != nil {
		c.err = err
		return
	}
	// §18.5.1.7 defines GroupConcat by CONCAT, which takes string literals
	// only (§17.4.3.12): a number, an IRI or any other term is a type error
	// (STR() turns one into a string first).
	l, err := stringArg(v)
	if err != nil {
		c.err = err
		return
	}
	s := l.lex
	switch {
	case l.kind != litLang:
		c.sameLang = false
	case c.n == 0:
		c.lang = l.lang
	case !strings.EqualFold(c.lang, l.lang):
		c.sameLang = false
	}
	if c.n > 0 {
		c.b.WriteString(c.sep)
	}
	c.b.WriteString(s)
	c.n++
}

func (c *concatAgg) Result() (quad.Value, error) {
	if c.err != nil {
		return nil, fmt.Errorf("aggregate group_concat: %w", wrapType(c.err))
	}
	if c.n > 0 && c.sameLang {
		return quad.LangString{Value: quad.String(c.b.String()), Lang: c.lang}, nil
	}
	return quad.String(c.b.String()), nil
}
