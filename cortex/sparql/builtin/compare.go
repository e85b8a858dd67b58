package builtin

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cayleygraph/quad"
)

// EBV returns the effective boolean value of v (SPARQL §17.2.2): a valid
// xsd:boolean is its value; a valid number is false iff it is zero or NaN; a
// numeric or boolean literal with an invalid lexical form is false; a simple,
// xsd:string or language-tagged literal is false iff it is empty. Any other
// term (IRI, blank node, literal of another datatype) is a type error; an
// unbound value is ErrUnbound.
func EBV(v quad.Value) (bool, error) {
	if v == nil {
		return false, fmt.Errorf("effective boolean value: %w", ErrUnbound)
	}
	l, ok := asLit(v)
	if !ok {
		return false, fmt.Errorf("effective boolean value of %s: %w", termString(v), ErrType)
	}
	switch l.kind {
	case litSimple, litLang:
		return l.lex != "", nil
	}
	if l.dt == XSDBoolean {
		b, ok := parseBoolean(l.lex)
		return ok && b, nil
	}
	if numericKindOf(l.dt) != NotNumeric {
		n, ok := parseNumeric(l)
		if !ok {
			return false, nil
		}
		switch n.kind {
		case IntegerKind:
			return n.big != nil || n.small != 0, nil
		case DecimalKind:
			return n.dec.Sign() != 0, nil
		}
		return n.f == n.f && n.f != 0, nil
	}
	return false, fmt.Errorf("effective boolean value of %s: %w", termString(v), ErrType)
}

// category is the value space a valid literal belongs to.
type category uint8

const (
	catOther category = iota // unknown datatype or ill-typed
	catNumeric
	catString
	catLang
	catBoolean
	catDateTime
	catDate // dtv is the date's first instant
)

// typed is a decomposed literal with its parsed value.
type typed struct {
	lit
	cat category
	num Numeric
	b   bool
	dtv dateTime
}

func classify(l lit) typed {
	t := typed{lit: l}
	switch l.kind {
	case litSimple:
		t.cat = catString
		return t
	case litLang:
		t.cat = catLang
		return t
	}
	switch {
	case l.dt == XSDBoolean:
		if b, ok := parseBoolean(l.lex); ok {
			t.cat, t.b = catBoolean, b
		}
	case l.dt == XSDDateTime:
		if d, ok := parseDateTime(l.lex); ok {
			t.cat, t.dtv = catDateTime, d
		}
	case l.dt == XSDDate:
		if d, ok := parseDate(l.lex); ok {
			t.cat, t.dtv = catDate, d
		}
	default:
		if n, ok := parseNumeric(l); ok {
			t.cat, t.num = catNumeric, n
		}
	}
	return t
}

// Compare orders a and b for the SPARQL operators < <= > >= (§17.3):
// numbers by value with type promotion, simple literals and xsd:strings by
// code point, booleans (false < true), and xsd:dateTimes by instant
// following XML Schema's partial order for values with and without a
// timezone, as are xsd:dates by their first instant (a date and a dateTime
// do not compare). It returns -1, 0 or +1. Any other pair — different value
// spaces, IRIs, blank nodes, language-tagged strings, ill-typed literals,
// NaN, or an indeterminate dateTime comparison — is a type error. Two
// numbers of which one is NaN are unordered (see Unordered): the four
// operators are false for them, which no result of Compare expresses.
func Compare(a, b quad.Value) (int, error) {
	if a == nil || b == nil {
		return 0, fmt.Errorf("compare: %w", ErrUnbound)
	}
	la, ok1 := asLit(a)
	lb, ok2 := asLit(b)
	if !ok1 || !ok2 {
		return 0, fmt.Errorf("compare %s with %s: %w", termString(a), termString(b), ErrType)
	}
	x, y := classify(la), classify(lb)
	if x.cat == y.cat {
		switch x.cat {
		case catNumeric:
			k := max(x.num.kind, y.num.kind)
			if c, ok := cmpNumeric(x.num.to(k), y.num.to(k)); ok {
				return c, nil
			}
		case catString:
			return strings.Compare(x.lex, y.lex), nil
		case catBoolean:
			return cmpBool(x.b, y.b), nil
		case catDateTime, catDate:
			if c, ok := cmpDateTime(x.dtv, y.dtv); ok {
				return c, nil
			}
		}
	}
	return 0, fmt.Errorf("compare %s with %s: %w", termString(a), termString(b), ErrType)
}

// Unordered reports whether a and b are numbers (valid lexical forms) at
// least one of which is NaN. op:numeric-less-than and
// op:numeric-greater-than are false for such a pair (F&O §4.3.2, §4.3.3),
// so the SPARQL operators < <= > >= are false where Compare reports a type
// error.
func Unordered(a, b quad.Value) bool {
	x, ok1 := NumericValue(a)
	y, ok2 := NumericValue(b)
	return ok1 && ok2 && (x.isNaN() || y.isNaN())
}

func (n Numeric) isNaN() bool {
	return (n.kind == FloatKind || n.kind == DoubleKind) && math.IsNaN(n.f)
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// Equal implements the SPARQL = operator (and != as its negation): numbers
// compare by value with type promotion ("1"^^xsd:integer = "1.0"^^xsd:decimal;
// NaN equals nothing), strings, booleans, dateTimes and dates by value, language-
// tagged strings by lexical form and case-insensitive tag. Literals of
// different known value spaces, and a literal versus an IRI or blank node,
// are unequal. Otherwise (RDFterm-equal) the same term is equal, and two
// different literals at least one of which has an unknown datatype or an
// ill-typed lexical form are a type error, as is an indeterminate dateTime
// comparison.
func Equal(a, b quad.Value) (bool, error) {
	if a == nil || b == nil {
		return false, fmt.Errorf("equal: %w", ErrUnbound)
	}
	la, ok1 := asLit(a)
	lb, ok2 := asLit(b)
	if !ok1 || !ok2 {
		return SameTerm(a, b), nil
	}
	x, y := classify(la), classify(lb)
	if x.cat == y.cat {
		switch x.cat {
		case catNumeric:
			k := max(x.num.kind, y.num.kind)
			c, ok := cmpNumeric(x.num.to(k), y.num.to(k))
			return ok && c == 0, nil
		case catString:
			return x.lex == y.lex, nil
		case catLang:
			return x.lex == y.lex && strings.EqualFold(x.lang, y.lang), nil
		case catBoolean:
			return x.b == y.b, nil
		case catDateTime, catDate:
			c, ok := cmpDateTime(x.dtv, y.dtv)
			if !ok {
				return false, fmt.Errorf("equal %s and %s: indeterminate: %w", termString(a), termString(b), ErrType)
			}
			return c == 0, nil
		}
	}
	if sameLit(la, lb) {
		return true, nil
	}
	if x.cat != catOther && y.cat != catOther {
		return false, nil
	}
	return false, fmt.Errorf("equal %s and %s: %w", termString(a), termString(b), ErrType)
}

// SameTerm reports whether a and b are the same RDF term (sameTerm).
// Language tags compare case-insensitively; a TypedString with datatype
// xsd:string is the same term as the equal quad.String. Two nil values are
// the same (both unbound).
func SameTerm(a, b quad.Value) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case quad.IRI:
		y, ok := b.(quad.IRI)
		return ok && x == y
	case quad.BNode:
		y, ok := b.(quad.BNode)
		return ok && x == y
	}
	la, ok1 := asLit(a)
	lb, ok2 := asLit(b)
	if !ok1 || !ok2 {
		// Not one of the supported term types: identity is unknowable
		// without risking a panic on uncomparable dynamic types.
		return false
	}
	return sameLit(la, lb)
}

func sameLit(a, b lit) bool {
	return a.kind == b.kind && a.lex == b.lex && a.dt == b.dt && strings.EqualFold(a.lang, b.lang)
}

// OrderCompare is the total order used by ORDER BY (§15.1), returning -1, 0
// or +1: unbound < blank nodes < IRIs < literals. Blank nodes order by label
// and IRIs by code point. Literals are grouped by value space — numbers,
// then simple literals/xsd:strings, language-tagged strings, booleans,
// dateTimes, and finally literals of other datatypes or ill-typed ones —
// and ordered within a group by value (numbers exactly, NaN first; dateTimes
// by instant with a missing timezone read as UTC; language-tagged strings by
// lexical form then tag), with ties between different terms broken by
// lexical form, datatype IRI and language tag, so that only the same term
// compares 0.
func OrderCompare(a, b quad.Value) int {
	ra, rb := orderRank(a), orderRank(b)
	if ra != rb {
		return cmp.Compare(ra, rb)
	}
	switch x := a.(type) {
	case nil:
		return 0
	case quad.BNode:
		return strings.Compare(string(x), string(b.(quad.BNode)))
	case quad.IRI:
		return strings.Compare(string(x), string(b.(quad.IRI)))
	}
	la, ok1 := asLit(a)
	lb, ok2 := asLit(b)
	if !ok1 || !ok2 {
		// Unknown value types (rank 4): order by their string form.
		return strings.Compare(fmt.Sprint(a), fmt.Sprint(b))
	}
	x, y := classify(la), classify(lb)
	if c := cmp.Compare(catOrder(x.cat), catOrder(y.cat)); c != 0 {
		return c
	}
	c := 0
	switch x.cat {
	case catNumeric:
		c = cmpNumericExact(x.num, y.num)
	case catString:
		c = strings.Compare(x.lex, y.lex)
	case catLang:
		c = strings.Compare(x.lex, y.lex)
		if c == 0 {
			c = strings.Compare(strings.ToLower(x.lang), strings.ToLower(y.lang))
		}
	case catBoolean:
		c = cmpBool(x.b, y.b)
	case catDateTime:
		c = cmpInstant(x.dtv, y.dtv)
	}
	if c != 0 {
		return c
	}
	if c = strings.Compare(x.lex, y.lex); c != 0 {
		return c
	}
	if c = strings.Compare(string(la.datatype()), string(lb.datatype())); c != 0 {
		return c
	}
	return strings.Compare(strings.ToLower(x.lang), strings.ToLower(y.lang))
}

func orderRank(v quad.Value) int {
	switch v.(type) {
	case nil:
		return 0
	case quad.BNode:
		return 1
	case quad.IRI:
		return 2
	}
	if _, ok := asLit(v); ok {
		return 3
	}
	return 4
}

func catOrder(c category) int {
	switch c {
	case catNumeric:
		return 0
	case catString:
		return 1
	case catLang:
		return 2
	case catBoolean:
		return 3
	case catDateTime:
		return 4
	}
	return 5
}

// termString renders v in N-Triples-like syntax for error messages.
func termString(v quad.Value) string {
	switch t := v.(type) {
	case nil:
		return "unbound"
	case quad.IRI:
		return "<" + string(t) + ">"
	case quad.BNode:
		return "_:" + string(t)
	}
	l, ok := asLit(v)
	if !ok {
		return fmt.Sprintf("%T", v)
	}
	s := l.lex
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	q := strconv.Quote(s)
	switch l.kind {
	case litLang:
		return q + "@" + l.lang
	case litTyped:
		return q + "^^<" + string(l.dt) + ">"
	}
	return q
}
