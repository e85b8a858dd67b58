package builtin

import (
	"cmp"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"

	"github.com/cayleygraph/quad"
)

// NumericKind is the primitive numeric type of a literal, in promotion order:
// integer → decimal → float → double.
type NumericKind uint8

// Numeric kinds. NotNumeric is the zero value.
const (
	NotNumeric NumericKind = iota
	IntegerKind
	DecimalKind
	FloatKind
	DoubleKind
)

// String returns the kind's name.
func (k NumericKind) String() string {
	switch k {
	case IntegerKind:
		return "integer"
	case DecimalKind:
		return "decimal"
	case FloatKind:
		return "float"
	case DoubleKind:
		return "double"
	}
	return "not numeric"
}

// Datatype returns the XSD datatype IRI of the kind ("" for NotNumeric).
func (k NumericKind) Datatype() quad.IRI {
	switch k {
	case IntegerKind:
		return XSDInteger
	case DecimalKind:
		return XSDDecimal
	case FloatKind:
		return XSDFloat
	case DoubleKind:
		return XSDDouble
	}
	return ""
}

func numericKindOf(dt quad.IRI) NumericKind {
	switch dt {
	case XSDInteger:
		return IntegerKind
	case XSDDecimal:
		return DecimalKind
	case XSDFloat:
		return FloatKind
	case XSDDouble:
		return DoubleKind
	}
	if _, ok := integerSubtypes[dt]; ok {
		return IntegerKind
	}
	return NotNumeric
}

// NumericKindOf returns the numeric kind of v's datatype, or NotNumeric if v
// is not a literal with a numeric datatype. It does not check the lexical
// form; see IsNumeric.
func NumericKindOf(v quad.Value) NumericKind {
	l, ok := asLit(v)
	if !ok || l.kind != litTyped {
		return NotNumeric
	}
	return numericKindOf(l.dt)
}

// IsNumeric reports whether v is a literal of a numeric datatype with a valid
// lexical form (the SPARQL isNumeric function).
func IsNumeric(v quad.Value) bool {
	_, ok := NumericValue(v)
	return ok
}

// Numeric is the value of a numeric literal. The zero value is not a valid
// number. Numerics are immutable.
type Numeric struct {
	kind  NumericKind
	small int64    // integer value when big == nil
	big   *big.Int // integer value outside int64
	dec   *big.Rat // decimal value
	f     float64  // float (float32-representable) or double value
}

// NumericValue parses v as a number. It reports false if v is not a literal
// of a numeric datatype or its lexical form is invalid for the datatype
// (including the range of xsd:integer subtypes such as xsd:byte).
func NumericValue(v quad.Value) (Numeric, bool) {
	l, ok := asLit(v)
	if !ok || l.kind != litTyped {
		return Numeric{}, false
	}
	return parseNumeric(l)
}

// Kind returns the primitive numeric kind.
func (n Numeric) Kind() NumericKind { return n.kind }

// Float64 returns the value as a float64 (rounded for big integers and
// decimals).
func (n Numeric) Float64() float64 {
	switch n.kind {
	case IntegerKind:
		if n.big != nil {
			f, _ := new(big.Float).SetInt(n.big).Float64()
			return f
		}
		return float64(n.small)
	case DecimalKind:
		f, _ := n.dec.Float64()
		return f
	}
	return n.f
}

// Rat returns the exact value as a rational number, and false for NaN and
// infinities.
func (n Numeric) Rat() (*big.Rat, bool) {
	switch n.kind {
	case IntegerKind:
		return new(big.Rat).SetInt(n.bigInt()), true
	case DecimalKind:
		return new(big.Rat).Set(n.dec), true
	case FloatKind, DoubleKind:
		if math.IsNaN(n.f) || math.IsInf(n.f, 0) {
			return nil, false
		}
		return new(big.Rat).SetFloat64(n.f), true
	}
	return nil, false
}

// Value returns the canonical literal of n.
func (n Numeric) Value() quad.Value {
	switch n.kind {
	case IntegerKind:
		var s string
		if n.big != nil {
			s = n.big.String()
		} else {
			s = strconv.FormatInt(n.small, 10)
		}
		return quad.TypedString{Value: quad.String(s), Type: XSDInteger}
	case DecimalKind:
		return decimalValue(n.dec)
	case FloatKind:
		return quad.TypedString{Value: quad.String(formatDouble(n.f, 32)), Type: XSDFloat}
	case DoubleKind:
		return quad.TypedString{Value: quad.String(formatDouble(n.f, 64)), Type: XSDDouble}
	}
	return nil
}

func (n Numeric) bigInt() *big.Int {
	if n.big != nil {
		return n.big
	}
	return big.NewInt(n.small)
}

func intNumeric(b *big.Int) Numeric {
	if b.IsInt64() {
		return Numeric{kind: IntegerKind, small: b.Int64()}
	}
	return Numeric{kind: IntegerKind, big: b}
}

func decNumeric(r *big.Rat) Numeric   { return Numeric{kind: DecimalKind, dec: r} }
func floatNumeric(f float64) Numeric  { return Numeric{kind: FloatKind, f: float64(float32(f))} }
func doubleNumeric(f float64) Numeric { return Numeric{kind: DoubleKind, f: f} }

// to converts n to a kind at least as general as n's (type promotion).
func (n Numeric) to(k NumericKind) Numeric {
	if n.kind == k {
		return n
	}
	switch k {
	case DecimalKind:
		return decNumeric(new(big.Rat).SetInt(n.bigInt()))
	case FloatKind:
		return floatNumeric(n.Float64())
	case DoubleKind:
		return doubleNumeric(n.Float64())
	}
	return n
}

func parseNumeric(l lit) (Numeric, bool) {
	kind := numericKindOf(l.dt)
	switch kind {
	case IntegerKind:
		n, ok := parseInteger(l.lex)
		if !ok {
			return Numeric{}, false
		}
		if rc := integerSubtypes[l.dt]; rc.min != nil || rc.max != nil {
			if rc.min != nil && cmpBig(n, rc.min) < 0 {
				return Numeric{}, false
			}
			if rc.max != nil && cmpBig(n, rc.max) > 0 {
				return Numeric{}, false
			}
		}
		return n, true
	case DecimalKind:
		r, ok := parseDecimal(l.lex)
		if !ok {
			return Numeric{}, false
		}
		return decNumeric(r), true
	case FloatKind, DoubleKind:
		f, ok := parseDouble(l.lex, kind == FloatKind)
		if !ok {
			return Numeric{}, false
		}
		return Numeric{kind: kind, f: f}, true
	}
	return Numeric{}, false
}

// cmpBig compares an integer Numeric with b.
func cmpBig(n Numeric, b *big.Int) int {
	if n.big == nil && b.IsInt64() {
		return cmp.Compare(n.small, b.Int64())
	}
	return n.bigInt().Cmp(b)
}

// digits reports whether s is a non-empty run of ASCII digits.
func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func trimSign(s string) (string, bool) {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		return s[1:], s[0] == '-'
	}
	return s, false
}

// parseInteger parses the xsd:integer lexical form [+-]?[0-9]+.
func parseInteger(s string) (Numeric, bool) {
	body, _ := trimSign(s)
	if !digits(body) {
		return Numeric{}, false
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return Numeric{kind: IntegerKind, small: n}, true
	}
	b, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return Numeric{}, false
	}
	return intNumeric(b), true
}

// parseDecimal parses the xsd:decimal lexical form [+-]?(d+(.d*)?|.d+).
func parseDecimal(s string) (*big.Rat, bool) {
	body, neg := trimSign(s)
	intPart, frac, hasDot := strings.Cut(body, ".")
	if !hasDot {
		if !digits(intPart) {
			return nil, false
		}
	} else if (intPart != "" && !digits(intPart)) || (frac != "" && !digits(frac)) || (intPart == "" && frac == "") {
		return nil, false
	}
	num, ok := new(big.Int).SetString("0"+intPart+frac, 10)
	if !ok {
		return nil, false
	}
	if neg {
		num.Neg(num)
	}
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(frac))), nil)
	return new(big.Rat).SetFrac(num, den), true
}

// parseDouble parses the xsd:double / xsd:float lexical form.
func parseDouble(s string, float32Precision bool) (float64, bool) {
	switch s {
	case "INF", "+INF":
		return math.Inf(1), true
	case "-INF":
		return math.Inf(-1), true
	case "NaN":
		return math.NaN(), true
	}
	body, _ := trimSign(s)
	mant, exp, hasExp := strings.Cut(body, "e")
	if !hasExp {
		mant, exp, hasExp = strings.Cut(body, "E")
	}
	ip, fp, hasDot := strings.Cut(mant, ".")
	if !hasDot {
		if !digits(ip) {
			return 0, false
		}
	} else if (ip != "" && !digits(ip)) || (fp != "" && !digits(fp)) || (ip == "" && fp == "") {
		return 0, false
	}
	if hasExp {
		e, _ := trimSign(exp)
		if !digits(e) {
			return 0, false
		}
	}
	bitSize := 64
	if float32Precision {
		bitSize = 32
	}
	f, err := strconv.ParseFloat(s, bitSize)
	if err != nil {
		var ne *strconv.NumError
		if !asNumError(err, &ne) || ne.Err != strconv.ErrRange {
			return 0, false
		}
		// Out of range: ParseFloat returns ±Inf or ±0, as XSD 1.1 rounds.
	}
	return f, true
}

func asNumError(err error, target **strconv.NumError) bool {
	ne, ok := err.(*strconv.NumError)
	if ok {
		*target = ne
	}
	return ok
}

// formatDouble renders f in the XSD canonical form of xsd:double (bitSize 64)
// or xsd:float (bitSize 32): a mantissa with one non-zero digit before the
// point and at least one after it, and an exponent ("1.5E0", "1.0E-7").
func formatDouble(f float64, bitSize int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "INF"
	case math.IsInf(f, -1):
		return "-INF"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0E0"
		}
		return "0.0E0"
	}
	s := strconv.FormatFloat(f, 'E', -1, bitSize)
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, err := strconv.Atoi(exp)
	if err != nil {
		return s
	}
	return mant + "E" + strconv.Itoa(e)
}

// formatDecimal renders r in XSD canonical decimal form: at least one digit
// on each side of the point, no superfluous zeros ("2.0", "-0.5").
func formatDecimal(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String() + ".0"
	}
	scale := decimalScale(r.Denom())
	if scale < 0 {
		scale = decimalDivScale
	}
	s := r.FloatString(scale)
	s = strings.TrimRight(s, "0")
	if strings.HasSuffix(s, ".") {
		s += "0"
	}
	if s == "-0.0" {
		s = "0.0"
	}
	return s
}

// decimalDivScale is the number of fractional digits kept by a decimal
// division whose result does not terminate.
const decimalDivScale = 24

// decimalScale returns the number of fractional digits needed to write 1/d
// exactly, or -1 if d has prime factors other than 2 and 5.
func decimalScale(d *big.Int) int {
	d = new(big.Int).Set(d)
	two, five := 0, 0
	var m big.Int
	for {
		q, r := new(big.Int).QuoRem(d, big.NewInt(2), &m)
		if r.Sign() != 0 {
			break
		}
		d, two = q, two+1
	}
	for {
		q, r := new(big.Int).QuoRem(d, big.NewInt(5), &m)
		if r.Sign() != 0 {
			break
		}
		d, five = q, five+1
	}
	if d.Cmp(big.NewInt(1)) != 0 {
		return -1
	}
	return max(two, five)
}

func decimalValue(r *big.Rat) quad.Value {
	return quad.TypedString{Value: quad.String(formatDecimal(r)), Type: XSDDecimal}
}

// numericArgs parses both operands and promotes them to a common kind.
func numericArgs(op string, a, b quad.Value) (Numeric, Numeric, error) {
	if a == nil || b == nil {
		return Numeric{}, Numeric{}, fmt.Errorf("%s: %w", op, ErrUnbound)
	}
	x, ok := NumericValue(a)
	if !ok {
		return Numeric{}, Numeric{}, fmt.Errorf("%s: %s is not a number: %w", op, termString(a), ErrType)
	}
	y, ok := NumericValue(b)
	if !ok {
		return Numeric{}, Numeric{}, fmt.Errorf("%s: %s is not a number: %w", op, termString(b), ErrType)
	}
	k := max(x.kind, y.kind)
	return x.to(k), y.to(k), nil
}

// Add returns a + b (op:numeric-add) with numeric type promotion.
func Add(a, b quad.Value) (quad.Value, error) {
	x, y, err := numericArgs("add", a, b)
	if err != nil {
		return nil, err
	}
	return addNumeric(x, y).Value(), nil
}

func addNumeric(x, y Numeric) Numeric {
	switch x.kind {
	case IntegerKind:
		if x.big == nil && y.big == nil {
			s := x.small + y.small
			// Overflow iff both operands have the same sign and the sum differs.
			if (x.small >= 0) == (y.small >= 0) && (s >= 0) != (x.small >= 0) {
				return intNumeric(new(big.Int).Add(big.NewInt(x.small), big.NewInt(y.small)))
			}
			return Numeric{kind: IntegerKind, small: s}
		}
		return intNumeric(new(big.Int).Add(x.bigInt(), y.bigInt()))
	case DecimalKind:
		return decNumeric(new(big.Rat).Add(x.dec, y.dec))
	case FloatKind:
		return floatNumeric(float64(float32(x.f) + float32(y.f)))
	}
	return doubleNumeric(x.f + y.f)
}

// Sub returns a - b (op:numeric-subtract).
func Sub(a, b quad.Value) (quad.Value, error) {
	x, y, err := numericArgs("subtract", a, b)
	if err != nil {
		return nil, err
	}
	switch x.kind {
	case IntegerKind:
		return intNumeric(new(big.Int).Sub(x.bigInt(), y.bigInt())).Value(), nil
	case DecimalKind:
		return decNumeric(new(big.Rat).Sub(x.dec, y.dec)).Value(), nil
	case FloatKind:
		return floatNumeric(float64(float32(x.f) - float32(y.f))).Value(), nil
	}
	return doubleNumeric(x.f - y.f).Value(), nil
}

// Mul returns a * b (op:numeric-multiply).
func Mul(a, b quad.Value) (quad.Value, error) {
	x, y, err := numericArgs("multiply", a, b)
	if err != nil {
		return nil, err
	}
	switch x.kind {
	case IntegerKind:
		if x.big == nil && y.big == nil {
			hi, lo := bits.Mul64(uint64(abs64(x.small)), uint64(abs64(y.small)))
			if hi == 0 && lo <= math.MaxInt64 && x.small != math.MinInt64 && y.small != math.MinInt64 {
				return Numeric{kind: IntegerKind, small: x.small * y.small}.Value(), nil
			}
		}
		return intNumeric(new(big.Int).Mul(x.bigInt(), y.bigInt())).Value(), nil
	case DecimalKind:
		return decNumeric(new(big.Rat).Mul(x.dec, y.dec)).Value(), nil
	case FloatKind:
		return floatNumeric(float64(float32(x.f) * float32(y.f))).Value(), nil
	}
	return doubleNumeric(x.f * y.f).Value(), nil
}

func abs64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// Div returns a / b (op:numeric-divide). Dividing two integers yields a
// decimal; integer or decimal division by zero is an error, float and double
// division follow IEEE 754 (INF, NaN).
func Div(a, b quad.Value) (quad.Value, error) {
	x, y, err := numericArgs("divide", a, b)
	if err != nil {
		return nil, err
	}
	if x.kind == IntegerKind {
		x, y = x.to(DecimalKind), y.to(DecimalKind)
	}
	switch x.kind {
	case DecimalKind:
		if y.dec.Sign() == 0 {
			return nil, fmt.Errorf("divide: division by zero: %w", ErrType)
		}
		return decNumeric(roundDecimal(new(big.Rat).Quo(x.dec, y.dec))).Value(), nil
	case FloatKind:
		return floatNumeric(float64(float32(x.f) / float32(y.f))).Value(), nil
	}
	return doubleNumeric(x.f / y.f).Value(), nil
}

// roundDecimal rounds a non-terminating decimal to decimalDivScale digits.
func roundDecimal(r *big.Rat) *big.Rat {
	if s := decimalScale(r.Denom()); s >= 0 && s <= 4*decimalDivScale {
		return r
	}
	out, _ := new(big.Rat).SetString(r.FloatString(decimalDivScale))
	return out
}

// Neg returns -a (op:numeric-unary-minus).
func Neg(a quad.Value) (quad.Value, error) {
	x, err := numericArg("unary minus", a)
	if err != nil {
		return nil, err
	}
	return negNumeric(x).Value(), nil
}

func negNumeric(x Numeric) Numeric {
	switch x.kind {
	case IntegerKind:
		if x.big == nil && x.small != math.MinInt64 {
			return Numeric{kind: IntegerKind, small: -x.small}
		}
		return intNumeric(new(big.Int).Neg(x.bigInt()))
	case DecimalKind:
		return decNumeric(new(big.Rat).Neg(x.dec))
	}
	return Numeric{kind: x.kind, f: -x.f}
}

// Plus returns +a (op:numeric-unary-plus): the value of a in canonical form.
func Plus(a quad.Value) (quad.Value, error) {
	x, err := numericArg("unary plus", a)
	if err != nil {
		return nil, err
	}
	return x.Value(), nil
}

func numericArg(op string, a quad.Value) (Numeric, error) {
	if a == nil {
		return Numeric{}, fmt.Errorf("%s: %w", op, ErrUnbound)
	}
	x, ok := NumericValue(a)
	if !ok {
		return Numeric{}, fmt.Errorf("%s: %s is not a number: %w", op, termString(a), ErrType)
	}
	return x, nil
}

// cmpNumeric compares two numbers of the same kind; ok is false if either is
// NaN.
func cmpNumeric(x, y Numeric) (int, bool) {
	switch x.kind {
	case IntegerKind:
		if x.big == nil && y.big == nil {
			switch {
			case x.small < y.small:
				return -1, true
			case x.small > y.small:
				return 1, true
			}
			return 0, true
		}
		return x.bigInt().Cmp(y.bigInt()), true
	case DecimalKind:
		return x.dec.Cmp(y.dec), true
	}
	if math.IsNaN(x.f) || math.IsNaN(y.f) {
		return 0, false
	}
	switch {
	case x.f < y.f:
		return -1, true
	case x.f > y.f:
		return 1, true
	}
	return 0, true
}

// cmpNumericExact compares numbers of any kinds exactly (no promotion
// rounding); NaN sorts before everything and equals itself. It is a total
// order used by OrderCompare.
func cmpNumericExact(x, y Numeric) int {
	xn := (x.kind == FloatKind || x.kind == DoubleKind) && math.IsNaN(x.f)
	yn := (y.kind == FloatKind || y.kind == DoubleKind) && math.IsNaN(y.f)
	switch {
	case xn && yn:
		return 0
	case xn:
		return -1
	case yn:
		return 1
	}
	if x.kind == y.kind {
		c, _ := cmpNumeric(x, y)
		return c
	}
	xi, yi := infSign(x), infSign(y)
	if xi != 0 || yi != 0 {
		return cmp.Compare(xi, yi)
	}
	xr, _ := x.Rat()
	yr, _ := y.Rat()
	return xr.Cmp(yr)
}

func infSign(n Numeric) int {
	if n.kind == FloatKind || n.kind == DoubleKind {
		if math.IsInf(n.f, 1) {
			return 1
		}
		if math.IsInf(n.f, -1) {
			return -1
		}
	}
	return 0
}
