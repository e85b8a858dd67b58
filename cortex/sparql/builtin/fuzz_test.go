package builtin_test

import (
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/builtin"
)

// fuzzTerm builds a term from a kind selector and a lexical form.
func fuzzTerm(kind uint8, lex string) quad.Value {
	dts := []string{"integer", "decimal", "double", "float", "boolean", "dateTime", "string", "byte", "unsignedLong", "date"}
	switch kind % 16 {
	case 0:
		return nil
	case 1:
		return quad.IRI(lex)
	case 2:
		return quad.BNode(lex)
	case 3:
		return quad.String(lex)
	case 4:
		return quad.LangString{Value: quad.String(lex), Lang: "en"}
	case 5:
		return quad.TypedString{Value: quad.String(lex), Type: "http://example.org/t"}
	}
	return typed(lex, dts[int(kind%16-6)%len(dts)])
}

func FuzzCall(f *testing.F) {
	f.Add(uint8(0), uint8(3), "abc", uint8(3), "b", uint8(6), "1")
	f.Add(uint8(26), uint8(3), "abracadabra", uint8(3), "a(.)", uint8(3), "$1x")
	f.Add(uint8(25), uint8(3), "aaa", uint8(3), `a{2,}[\d-z]`, uint8(3), "ixsm")
	f.Add(uint8(27), uint8(4), "日本語", uint8(8), "NaN", uint8(9), "-INF")
	f.Add(uint8(30), uint8(11), "2010-12-31T24:00:00-14:00", uint8(0), "", uint8(0), "")
	names := builtin.Names()
	f.Fuzz(func(t *testing.T, fn uint8, k1 uint8, l1 string, k2 uint8, l2 string, k3 uint8, l3 string) {
		name := names[int(fn)%len(names)]
		args := []quad.Value{fuzzTerm(k1, l1), fuzzTerm(k2, l2), fuzzTerm(k3, l3)}
		ctx := &builtin.Context{Base: "http://example.org/a/b", BNodeScope: builtin.NewBNodeScope("f")}
		for n := 0; n <= 3; n++ {
			v, err := builtin.CallWithContext(ctx, name, args[:n])
			if err == nil && v == nil {
				t.Fatalf("%s(%v) returned nil without error", name, args[:n])
			}
			if err == nil {
				checkTermType(t, v)
			}
		}
		for _, dt := range []quad.IRI{builtin.XSDString, builtin.XSDInteger, builtin.XSDDecimal, builtin.XSDDouble, builtin.XSDBoolean, builtin.XSDDateTime} {
			if v, err := builtin.Cast(dt, args[0]); err == nil {
				checkTermType(t, v)
				if !builtin.ValidLexical(v) {
					t.Fatalf("Cast(%s, %#v) = ill-formed %#v", dt, args[0], v)
				}
			}
		}
		_, _ = builtin.EBV(args[0])
	})
}

func FuzzCompare(f *testing.F) {
	f.Add(uint8(6), "1", uint8(7), "1.0")
	f.Add(uint8(8), "NaN", uint8(9), "INF")
	f.Add(uint8(11), "2010-12-31T24:00:00Z", uint8(11), "2011-01-01T00:00:00")
	f.Add(uint8(6), "99999999999999999999999", uint8(8), "1e400")
	f.Fuzz(func(t *testing.T, k1 uint8, l1 string, k2 uint8, l2 string) {
		a, b := fuzzTerm(k1, l1), fuzzTerm(k2, l2)
		c1, err1 := builtin.Compare(a, b)
		c2, err2 := builtin.Compare(b, a)
		if (err1 == nil) != (err2 == nil) || (err1 == nil && c1 != -c2) {
			t.Fatalf("Compare not antisymmetric: %d,%v vs %d,%v", c1, err1, c2, err2)
		}
		e1, err1 := builtin.Equal(a, b)
		e2, err2 := builtin.Equal(b, a)
		if (err1 == nil) != (err2 == nil) || e1 != e2 {
			t.Fatalf("Equal not symmetric: %v,%v vs %v,%v", e1, err1, e2, err2)
		}
		if o1, o2 := builtin.OrderCompare(a, b), builtin.OrderCompare(b, a); o1 != -o2 {
			t.Fatalf("OrderCompare not antisymmetric: %d vs %d", o1, o2)
		}
		if builtin.OrderCompare(a, a) != 0 {
			t.Fatalf("OrderCompare(a, a) != 0 for %#v", a)
		}
		for _, op := range []func(quad.Value, quad.Value) (quad.Value, error){builtin.Add, builtin.Sub, builtin.Mul, builtin.Div} {
			if v, err := op(a, b); err == nil && !builtin.IsNumeric(v) {
				t.Fatalf("arithmetic produced non-number %#v", v)
			}
		}
		_, _ = builtin.Neg(a)
		_ = builtin.ValidLexical(a)
		for _, name := range builtin.AggregateNames() {
			agg, err := builtin.NewAggregate(name, k1%2 == 0, ",")
			if err != nil {
				t.Fatal(err)
			}
			agg.Add(a, nil)
			agg.Add(b, nil)
			agg.Add(nil, nil)
			if v, err := agg.Result(); err == nil && v != nil && !builtin.ValidLexical(v) && builtin.IsNumeric(a) && builtin.IsNumeric(b) && name != "MIN" && name != "MAX" && name != "SAMPLE" {
				t.Fatalf("%s produced ill-formed %#v", name, v)
			}
		}
	})
}

func FuzzCompileRegex(f *testing.F) {
	for _, p := range []string{`a[b\n]c`, `[^\p{L}-]`, `(a|b)*?\d{1,3}`, `[a-z-[aeiou]]`, `\`, `[\--\\]`,
		`[^\w\s]`, `[\w.-]+`, `[^a-z-[b-y-[c]]]`, `[\S-[\p{L}]]`} {
		f.Add(p, "", "abc")
	}
	f.Fuzz(func(t *testing.T, pattern, flags, text string) {
		re, err := builtin.CompileRegex(pattern, flags)
		if err == nil {
			re.MatchString(text)
		}
	})
}

// checkTermType enforces the package's output contract: one of the five
// term types, never a TypedString with datatype xsd:string.
func checkTermType(t *testing.T, v quad.Value) {
	t.Helper()
	switch x := v.(type) {
	case quad.IRI, quad.BNode, quad.String, quad.LangString:
	case quad.TypedString:
		if x.Type == builtin.XSDString || x.Type == "" {
			t.Fatalf("result %#v should be a quad.String", v)
		}
	default:
		t.Fatalf("result %#v has type %T", v, v)
	}
}
