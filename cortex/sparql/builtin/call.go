package builtin

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"hash"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cayleygraph/quad"
)

// Context supplies the per-query state some functions need. The zero value
// and a nil *Context are usable: IRI() then requires absolute IRIs, NOW is
// an error, RAND/UUID/STRUUID use the global random source and BNODE() makes
// random labels (BNODE(str) is an error without a BNodeScope).
type Context struct {
	// Base is the base IRI for resolving relative references in IRI/URI.
	Base string
	// Now is the instant returned by NOW; it must be the same for every call
	// within one query.
	Now time.Time
	// Rand is the source for RAND, UUID and STRUUID. It is not safe for
	// concurrent use; nil means the global source.
	Rand *rand.Rand
	// BNodeScope allocates blank nodes for BNODE.
	BNodeScope *BNodeScope
}

// BNodeScope allocates the blank nodes made by BNODE: BNODE() is a fresh
// node on every call, BNODE(str) is the same node for the same string within
// one solution and a different one in the next solution. Create one per
// query and call NextSolution before evaluating each solution's
// expressions. A BNodeScope is not safe for concurrent use.
type BNodeScope struct {
	prefix string
	n      uint64
	labels map[string]quad.BNode
}

// NewBNodeScope returns a scope whose labels are prefix followed by a
// counter. The prefix must not be a prefix of any blank-node label in the
// queried dataset; an empty prefix picks a random one.
func NewBNodeScope(prefix string) *BNodeScope {
	if prefix == "" {
		prefix = fmt.Sprintf("b%016xn", rand.Uint64())
	}
	return &BNodeScope{prefix: prefix}
}

// Fresh returns a blank node never returned before by this scope.
func (s *BNodeScope) Fresh() quad.BNode {
	s.n++
	return quad.BNode(s.prefix + strconv.FormatUint(s.n, 10))
}

// Minted reports whether b was made by this scope (its label has the scope's
// prefix), as opposed to a blank node of the data.
func (s *BNodeScope) Minted(b quad.BNode) bool {
	return s != nil && strings.HasPrefix(string(b), s.prefix)
}

// Labeled returns the blank node for label in the current solution.
func (s *BNodeScope) Labeled(label string) quad.BNode {
	if b, ok := s.labels[label]; ok {
		return b
	}
	if s.labels == nil {
		s.labels = make(map[string]quad.BNode)
	}
	b := s.Fresh()
	s.labels[label] = b
	return b
}

// NextSolution starts a new solution: later Labeled calls return new nodes.
func (s *BNodeScope) NextSolution() { clear(s.labels) }

type function struct {
	min, max int // argument count; max < 0 means variadic
	fn       func(ctx *Context, args []quad.Value) (quad.Value, error)
}

// functions is the package's built-in table.
var functions = map[string]function{
	"STR":            {1, 1, fnStr},
	"LANG":           {1, 1, fnLang},
	"LANGMATCHES":    {2, 2, fnLangMatches},
	"DATATYPE":       {1, 1, fnDatatype},
	"IRI":            {1, 1, fnIRI},
	"URI":            {1, 1, fnIRI},
	"BNODE":          {0, 1, fnBNode},
	"RAND":           {0, 0, fnRand},
	"NOW":            {0, 0, fnNow},
	"UUID":           {0, 0, fnUUID},
	"STRUUID":        {0, 0, fnStrUUID},
	"ABS":            {1, 1, fnAbs},
	"CEIL":           {1, 1, fnCeil},
	"FLOOR":          {1, 1, fnFloor},
	"ROUND":          {1, 1, fnRound},
	"CONCAT":         {0, -1, fnConcat},
	"STRLEN":         {1, 1, fnStrlen},
	"UCASE":          {1, 1, caseFn(upperCase)},
	"LCASE":          {1, 1, caseFn(lowerCase)},
	"ENCODE_FOR_URI": {1, 1, fnEncodeForURI},
	"CONTAINS":       {2, 2, stringTestFn(strings.Contains)},
	"STRSTARTS":      {2, 2, stringTestFn(strings.HasPrefix)},
	"STRENDS":        {2, 2, stringTestFn(strings.HasSuffix)},
	"STRBEFORE":      {2, 2, fnStrBefore},
	"STRAFTER":       {2, 2, fnStrAfter},
	"SUBSTR":         {2, 3, fnSubstr},
	"REGEX":          {2, 3, fnRegex},
	"REPLACE":        {3, 4, fnReplace},
	"YEAR":           {1, 1, dtPart("YEAR")},
	"MONTH":          {1, 1, dtPart("MONTH")},
	"DAY":            {1, 1, dtPart("DAY")},
	"HOURS":          {1, 1, dtPart("HOURS")},
	"MINUTES":        {1, 1, dtPart("MINUTES")},
	"SECONDS":        {1, 1, fnSeconds},
	"TIMEZONE":       {1, 1, fnTimezone},
	"TZ":             {1, 1, fnTZ},
	"MD5":            {1, 1, hashFn(md5.New)},
	"SHA1":           {1, 1, hashFn(sha1.New)},
	"SHA256":         {1, 1, hashFn(sha256.New)},
	"SHA384":         {1, 1, hashFn(sha512.New384)},
	"SHA512":         {1, 1, hashFn(sha512.New)},
	"STRLANG":        {2, 2, fnStrLang},
	"STRDT":          {2, 2, fnStrDT},
	"SAMETERM":       {2, 2, fnSameTerm},
	"ISIRI":          {1, 1, fnIsIRI},
	"ISURI":          {1, 1, fnIsIRI},
	"ISBLANK":        {1, 1, fnIsBlank},
	"ISLITERAL":      {1, 1, fnIsLiteral},
	"ISNUMERIC":      {1, 1, fnIsNumeric},
}

// Names returns the names accepted by Call, sorted.
func Names() []string {
	names := make([]string, 0, len(functions))
	for n := range functions {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// IsFunction reports whether name (upper-case, as in the grammar) is a
// function known to Call.
func IsFunction(name string) bool {
	_, ok := functions[name]
	return ok
}

// Call evaluates the SPARQL function name (upper-case as in the grammar,
// e.g. "STRLEN") on args with a nil Context. A nil argument is unbound and
// makes the call fail with ErrUnbound. See CallWithContext.
func Call(name string, args []quad.Value) (quad.Value, error) {
	return CallWithContext(nil, name, args)
}

// CallWithContext evaluates the function name on args. name is one of
// Names(), or the IRI of an XSD cast (see IsCast). Errors wrap ErrType
// (wrong argument types or count, unknown function, invalid input) or
// ErrUnbound (a nil argument). Special forms that take unevaluated or
// possibly unbound arguments (BOUND, IF, COALESCE, IN, EXISTS, && and ||)
// are the evaluator's job and are not provided here.
func CallWithContext(ctx *Context, name string, args []quad.Value) (quad.Value, error) {
	f, ok := functions[name]
	if !ok {
		if IsCast(quad.IRI(name)) {
			if len(args) != 1 {
				return nil, fmt.Errorf("%s: want 1 argument, got %d: %w", name, len(args), ErrType)
			}
			return Cast(quad.IRI(name), args[0])
		}
		return nil, fmt.Errorf("call %s: unknown function: %w", name, ErrType)
	}
	if len(args) < f.min || (f.max >= 0 && len(args) > f.max) {
		return nil, fmt.Errorf("%s: wrong number of arguments (%d): %w", name, len(args), ErrType)
	}
	for i, a := range args {
		if a == nil {
			return nil, fmt.Errorf("%s: argument %d: %w", name, i+1, ErrUnbound)
		}
	}
	if ctx == nil {
		ctx = &Context{}
	}
	v, err := f.fn(ctx, args)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return v, nil
}

func typeErr(format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, ErrType)...)
}

// --- term functions ---

func fnStr(_ *Context, a []quad.Value) (quad.Value, error) {
	switch t := a[0].(type) {
	case quad.IRI:
		return quad.String(string(t)), nil
	case quad.BNode:
		return nil, typeErr("blank node %s has no string form", termString(t))
	}
	l, ok := asLit(a[0])
	if !ok {
		return nil, typeErr("not a term: %s", termString(a[0]))
	}
	return quad.String(l.lex), nil
}

func fnLang(_ *Context, a []quad.Value) (quad.Value, error) {
	l, ok := asLit(a[0])
	if !ok {
		return nil, typeErr("%s is not a literal", termString(a[0]))
	}
	return quad.String(l.lang), nil
}

func fnLangMatches(_ *Context, a []quad.Value) (quad.Value, error) {
	tag, err := simpleArg(a[0])
	if err != nil {
		return nil, err
	}
	rng, err := simpleArg(a[1])
	if err != nil {
		return nil, err
	}
	return Boolean(LangMatches(tag, rng)), nil
}

// LangMatches implements RFC 4647 basic filtering as used by SPARQL
// langMatches: "*" matches any non-empty tag, otherwise the range must equal
// the tag or be a prefix of it followed by "-", case-insensitively.
func LangMatches(tag, rng string) bool {
	if rng == "*" {
		return tag != ""
	}
	if rng == "" {
		return tag == ""
	}
	if len(tag) < len(rng) || !strings.EqualFold(tag[:len(rng)], rng) {
		return false
	}
	return len(tag) == len(rng) || tag[len(rng)] == '-'
}

func fnDatatype(_ *Context, a []quad.Value) (quad.Value, error) {
	l, ok := asLit(a[0])
	if !ok {
		return nil, typeErr("%s is not a literal", termString(a[0]))
	}
	return l.datatype(), nil
}

func fnIRI(ctx *Context, a []quad.Value) (quad.Value, error) {
	var ref string
	switch t := a[0].(type) {
	case quad.IRI:
		return t, nil
	default:
		s, err := simpleArg(a[0])
		if err != nil {
			return nil, err
		}
		ref = s
	}
	iri, err := ResolveIRI(ctx.Base, ref)
	if err != nil {
		return nil, err
	}
	return quad.IRI(iri), nil
}

func fnBNode(ctx *Context, a []quad.Value) (quad.Value, error) {
	if len(a) == 0 {
		if ctx.BNodeScope != nil {
			return ctx.BNodeScope.Fresh(), nil
		}
		return quad.BNode(fmt.Sprintf("b%016x%016x", randUint64(ctx), randUint64(ctx))), nil
	}
	s, err := simpleArg(a[0])
	if err != nil {
		return nil, err
	}
	if ctx.BNodeScope == nil {
		return nil, typeErr("BNODE(str) needs a blank node scope")
	}
	return ctx.BNodeScope.Labeled(s), nil
}

func randUint64(ctx *Context) uint64 {
	if ctx.Rand != nil {
		return ctx.Rand.Uint64()
	}
	return rand.Uint64()
}

func fnRand(ctx *Context, _ []quad.Value) (quad.Value, error) {
	var f float64
	if ctx.Rand != nil {
		f = ctx.Rand.Float64()
	} else {
		f = rand.Float64()
	}
	return Double(f), nil
}

func fnNow(ctx *Context, _ []quad.Value) (quad.Value, error) {
	if ctx.Now.IsZero() {
		return nil, typeErr("no query time in context")
	}
	return quad.TypedString{Value: quad.String(formatDateTime(ctx.Now)), Type: XSDDateTime}, nil
}

func uuid4(ctx *Context) string {
	var b [16]byte
	hi, lo := randUint64(ctx), randUint64(ctx)
	for i := 0; i < 8; i++ {
		b[i] = byte(hi >> (8 * i))
		b[8+i] = byte(lo >> (8 * i))
	}
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

func fnUUID(ctx *Context, _ []quad.Value) (quad.Value, error) {
	return quad.IRI("urn:uuid:" + uuid4(ctx)), nil
}

func fnStrUUID(ctx *Context, _ []quad.Value) (quad.Value, error) {
	return quad.String(uuid4(ctx)), nil
}

func fnStrLang(_ *Context, a []quad.Value) (quad.Value, error) {
	s, err := simpleArg(a[0])
	if err != nil {
		return nil, err
	}
	tag, err := simpleArg(a[1])
	if err != nil {
		return nil, err
	}
	if !validLangTag(tag) {
		return nil, typeErr("invalid language tag %q", tag)
	}
	return quad.LangString{Value: quad.String(s), Lang: tag}, nil
}

// validLangTag checks the BCP 47 shape [a-zA-Z]{1,8}(-[a-zA-Z0-9]{1,8})*.
func validLangTag(tag string) bool {
	if tag == "" {
		return false
	}
	for i, part := range strings.Split(tag, "-") {
		if len(part) < 1 || len(part) > 8 {
			return false
		}
		for _, c := range []byte(part) {
			alpha := (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
			if !alpha && (i == 0 || c < '0' || c > '9') {
				return false
			}
		}
	}
	return true
}

func fnStrDT(_ *Context, a []quad.Value) (quad.Value, error) {
	s, err := simpleArg(a[0])
	if err != nil {
		return nil, err
	}
	dt, ok := a[1].(quad.IRI)
	if !ok {
		return nil, typeErr("datatype %s is not an IRI", termString(a[1]))
	}
	switch dt {
	case XSDString:
		return quad.String(s), nil
	case RDFLangString:
		return nil, typeErr("cannot make an rdf:langString without a tag")
	}
	return quad.TypedString{Value: quad.String(s), Type: dt}, nil
}

func fnSameTerm(_ *Context, a []quad.Value) (quad.Value, error) {
	return Boolean(SameTerm(a[0], a[1])), nil
}

func fnIsIRI(_ *Context, a []quad.Value) (quad.Value, error) {
	_, ok := a[0].(quad.IRI)
	return Boolean(ok), nil
}

func fnIsBlank(_ *Context, a []quad.Value) (quad.Value, error) {
	_, ok := a[0].(quad.BNode)
	return Boolean(ok), nil
}

func fnIsLiteral(_ *Context, a []quad.Value) (quad.Value, error) {
	_, ok := asLit(a[0])
	return Boolean(ok), nil
}

func fnIsNumeric(_ *Context, a []quad.Value) (quad.Value, error) {
	return Boolean(IsNumeric(a[0])), nil
}

func hashFn(newHash func() hash.Hash) func(*Context, []quad.Value) (quad.Value, error) {
	return func(_ *Context, a []quad.Value) (quad.Value, error) {
		s, err := simpleArg(a[0])
		if err != nil {
			return nil, err
		}
		h := newHash()
		h.Write([]byte(s))
		return quad.String(hex.EncodeToString(h.Sum(nil))), nil
	}
}

// --- numeric functions ---

func fnAbs(_ *Context, a []quad.Value) (quad.Value, error) {
	x, err := numericArg("abs", a[0])
	if err != nil {
		return nil, err
	}
	if isNeg(x) {
		x = negNumeric(x)
	}
	return x.Value(), nil
}

func isNeg(x Numeric) bool {
	switch x.kind {
	case IntegerKind:
		if x.big != nil {
			return x.big.Sign() < 0
		}
		return x.small < 0
	case DecimalKind:
		return x.dec.Sign() < 0
	}
	return x.f < 0 || (x.f == 0 && 1/x.f < 0)
}

func fnCeil(_ *Context, a []quad.Value) (quad.Value, error) {
	return roundingFn("ceil", a[0], ceilRat, ceilFloat)
}

func fnFloor(_ *Context, a []quad.Value) (quad.Value, error) {
	return roundingFn("floor", a[0], floorRat, floorFloat)
}

func fnRound(_ *Context, a []quad.Value) (quad.Value, error) {
	return roundingFn("round", a[0], roundRat, roundFloat)
}

func fnStrlen(_ *Context, a []quad.Value) (quad.Value, error) {
	l, err := stringArg(a[0])
	if err != nil {
		return nil, err
	}
	return Integer(int64(len([]rune(l.lex)))), nil
}

// --- dateTime functions ---

func dateTimeArg(v quad.Value) (dateTime, error) {
	l, ok := asLit(v)
	if !ok || l.kind != litTyped || l.dt != XSDDateTime {
		return dateTime{}, typeErr("%s is not an xsd:dateTime", termString(v))
	}
	d, ok := parseDateTime(l.lex)
	if !ok {
		return dateTime{}, typeErr("invalid xsd:dateTime %q", l.lex)
	}
	return d, nil
}

func dtPart(part string) func(*Context, []quad.Value) (quad.Value, error) {
	return func(_ *Context, a []quad.Value) (quad.Value, error) {
		d, err := dateTimeArg(a[0])
		if err != nil {
			return nil, err
		}
		var n int
		switch part {
		case "YEAR":
			n = d.year
		case "MONTH":
			n = d.month
		case "DAY":
			n = d.day
		case "HOURS":
			n = d.hour
		case "MINUTES":
			n = d.minute
		}
		return Integer(int64(n)), nil
	}
}

func fnSeconds(_ *Context, a []quad.Value) (quad.Value, error) {
	d, err := dateTimeArg(a[0])
	if err != nil {
		return nil, err
	}
	s := strconv.Itoa(d.second)
	if d.frac != "" {
		s += "." + d.frac
	}
	return Decimal(s)
}

func fnTimezone(_ *Context, a []quad.Value) (quad.Value, error) {
	d, err := dateTimeArg(a[0])
	if err != nil {
		return nil, err
	}
	if !d.hasTZ {
		return nil, typeErr("%s has no timezone", termString(a[0]))
	}
	return quad.TypedString{Value: quad.String(dayTimeDuration(d.tz)), Type: XSDDayTimeDuration}, nil
}

// dayTimeDuration renders an offset in minutes as a canonical
// xsd:dayTimeDuration ("PT0S", "-PT8H", "PT5H30M").
func dayTimeDuration(min int) string {
	if min == 0 {
		return "PT0S"
	}
	var b strings.Builder
	if min < 0 {
		b.WriteByte('-')
		min = -min
	}
	b.WriteString("PT")
	if h := min / 60; h > 0 {
		b.WriteString(strconv.Itoa(h) + "H")
	}
	if m := min % 60; m > 0 {
		b.WriteString(strconv.Itoa(m) + "M")
	}
	return b.String()
}

func fnTZ(_ *Context, a []quad.Value) (quad.Value, error) {
	d, err := dateTimeArg(a[0])
	if err != nil {
		return nil, err
	}
	return quad.String(d.tzLex), nil
}
