package builtin

import (
	"errors"
	"math"
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/cayleygraph/quad"
	"golang.org/x/text/cases"
	"golang.org/x/text/language"

	"github.com/cortexgraph/cortex/cortex/internal/iri"
)

// stringArg accepts a "string literal" (§17.4.3.1.1): a simple literal,
// xsd:string or a language-tagged string.
func stringArg(v quad.Value) (lit, error) {
	l, ok := asLit(v)
	if !ok || l.kind == litTyped {
		return lit{}, typeErr("%s is not a string literal", termString(v))
	}
	return l, nil
}

// simpleArg accepts only a simple literal or xsd:string.
func simpleArg(v quad.Value) (string, error) {
	l, ok := asLit(v)
	if !ok || l.kind != litSimple {
		return "", typeErr("%s is not a simple literal", termString(v))
	}
	return l.lex, nil
}

// compatibleArgs checks the argument-compatibility rules of §17.4.3.1.2:
// both simple, both with the same language tag, or the first tagged and the
// second simple.
func compatibleArgs(a, b quad.Value) (lit, lit, error) {
	x, err := stringArg(a)
	if err != nil {
		return x, x, err
	}
	y, err := stringArg(b)
	if err != nil {
		return x, y, err
	}
	if y.kind == litSimple || (x.kind == litLang && strings.EqualFold(x.lang, y.lang)) {
		return x, y, nil
	}
	return x, y, typeErr("incompatible arguments %s and %s", termString(a), termString(b))
}

// withLex returns a literal like l (same tag or simple) with lexical form s.
func withLex(l lit, s string) quad.Value {
	if l.kind == litLang {
		return quad.LangString{Value: quad.String(s), Lang: l.lang}
	}
	return quad.String(s)
}

// caseFn makes UCASE and LCASE: conv applied to the lexical form of a string
// literal, keeping its language tag.
func caseFn(conv func(string) string) func(*Context, []quad.Value) (quad.Value, error) {
	return func(_ *Context, a []quad.Value) (quad.Value, error) {
		l, err := stringArg(a[0])
		if err != nil {
			return nil, err
		}
		return withLex(l, conv(l.lex)), nil
	}
}

// upperCase and lowerCase are fn:upper-case and fn:lower-case: Unicode's
// full case mappings without language tailoring (XPath F&O 3.1 §5.4.7-8), so
// "ß" becomes "SS", "İ" becomes "i\u0307" and a final capital sigma a final
// small sigma. strings.ToUpper and ToLower apply only the one-to-one
// mappings. A cases.Caser is not safe for concurrent use: one per call.
func upperCase(s string) string {
	if isASCII(s) {
		return strings.ToUpper(s)
	}
	return cases.Upper(language.Und).String(s)
}

func lowerCase(s string) string {
	if isASCII(s) {
		return strings.ToLower(s)
	}
	return cases.Lower(language.Und).String(s)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// stringTestFn makes CONTAINS, STRSTARTS and STRENDS: test applied to the
// lexical forms of two compatible arguments.
func stringTestFn(test func(s, sub string) bool) func(*Context, []quad.Value) (quad.Value, error) {
	return func(_ *Context, a []quad.Value) (quad.Value, error) {
		x, y, err := compatibleArgs(a[0], a[1])
		if err != nil {
			return nil, err
		}
		return Boolean(test(x.lex, y.lex)), nil
	}
}

func fnStrBefore(_ *Context, a []quad.Value) (quad.Value, error) {
	x, y, err := compatibleArgs(a[0], a[1])
	if err != nil {
		return nil, err
	}
	i := strings.Index(x.lex, y.lex)
	if i < 0 {
		return quad.String(""), nil
	}
	return withLex(x, x.lex[:i]), nil
}

func fnStrAfter(_ *Context, a []quad.Value) (quad.Value, error) {
	x, y, err := compatibleArgs(a[0], a[1])
	if err != nil {
		return nil, err
	}
	i := strings.Index(x.lex, y.lex)
	if i < 0 {
		return quad.String(""), nil
	}
	return withLex(x, x.lex[i+len(y.lex):]), nil
}

func fnConcat(_ *Context, a []quad.Value) (quad.Value, error) {
	var b strings.Builder
	lang, sameLang := "", true
	for i, v := range a {
		l, err := stringArg(v)
		if err != nil {
			return nil, err
		}
		b.WriteString(l.lex)
		switch {
		case l.kind != litLang:
			sameLang = false
		case i == 0:
			lang = l.lang
		case !strings.EqualFold(lang, l.lang):
			sameLang = false
		}
	}
	if len(a) > 0 && sameLang {
		return quad.LangString{Value: quad.String(b.String()), Lang: lang}, nil
	}
	return quad.String(b.String()), nil
}

func fnEncodeForURI(_ *Context, a []quad.Value) (quad.Value, error) {
	l, err := stringArg(a[0])
	if err != nil {
		return nil, err
	}
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(l.lex); i++ {
		c := l.lex[i]
		if (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
			c == '-' || c == '_' || c == '.' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return quad.String(b.String()), nil
}

// fnSubstr is fn:substring: the characters at 1-based positions p with
// round(start) <= p < round(start)+round(length), computed in double
// arithmetic so NaN and infinities behave as in XPath.
func fnSubstr(_ *Context, a []quad.Value) (quad.Value, error) {
	l, err := stringArg(a[0])
	if err != nil {
		return nil, err
	}
	start, err := numericArg("substr start", a[1])
	if err != nil {
		return nil, err
	}
	from := xpathRound(start.Float64())
	to := math.Inf(1)
	if len(a) == 3 {
		n, err := numericArg("substr length", a[2])
		if err != nil {
			return nil, err
		}
		to = from + xpathRound(n.Float64())
	}
	var b strings.Builder
	p := 0
	for _, r := range l.lex {
		p++
		if fp := float64(p); fp >= from && fp < to {
			b.WriteRune(r)
		}
	}
	return withLex(l, b.String()), nil
}

// xpathRound is fn:round on doubles: the nearest integer, halves rounded
// towards positive infinity.
func xpathRound(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return f
	}
	r := math.Floor(f)
	if f-r >= 0.5 {
		r++
	}
	if r == 0 && f < 0 {
		return math.Copysign(0, -1)
	}
	return r
}

func roundingFn(name string, v quad.Value, r func(*big.Rat) *big.Rat, f func(float64) float64) (quad.Value, error) {
	x, err := numericArg(name, v)
	if err != nil {
		return nil, err
	}
	switch x.kind {
	case IntegerKind:
		return x.Value(), nil
	case DecimalKind:
		return decNumeric(r(x.dec)).Value(), nil
	case FloatKind:
		return floatNumeric(f(x.f)).Value(), nil
	}
	return doubleNumeric(f(x.f)).Value(), nil
}

func floorRat(r *big.Rat) *big.Rat {
	q := new(big.Int).Div(r.Num(), r.Denom()) // Euclidean: floor for positive divisors
	return new(big.Rat).SetInt(q)
}

func ceilRat(r *big.Rat) *big.Rat {
	return new(big.Rat).Neg(floorRat(new(big.Rat).Neg(r)))
}

func roundRat(r *big.Rat) *big.Rat {
	return floorRat(new(big.Rat).Add(r, big.NewRat(1, 2)))
}

func floorFloat(f float64) float64 { return math.Floor(f) }
func ceilFloat(f float64) float64  { return math.Ceil(f) }
func roundFloat(f float64) float64 { return xpathRound(f) }

// ResolveIRI resolves ref against base following RFC 3986 §5.2. An absolute
// ref is returned with dot segments removed. It returns an error wrapping
// ErrType if ref contains characters not allowed in an IRI, or if ref is
// relative and base is empty or not absolute.
func ResolveIRI(base, ref string) (string, error) {
	if !validIRIChars(ref) {
		return "", typeErr("invalid IRI %q", ref)
	}
	s, err := iri.Resolve(base, ref)
	switch {
	case errors.Is(err, iri.ErrNoBase):
		return "", typeErr("relative IRI %q with no base", ref)
	case err != nil:
		return "", typeErr("base %q is not an absolute IRI", base)
	}
	return s, nil
}

func validIRIChars(s string) bool {
	for _, r := range s {
		if r <= 0x20 || strings.ContainsRune("<>\"{}|^`\\", r) || r == utf8.RuneError {
			return false
		}
	}
	return true
}
