package builtin_test

import (
	"errors"
	"math/rand/v2"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/builtin"
)

type callCase struct {
	fn      string
	args    []quad.Value
	want    quad.Value
	wantErr error
}

func runCalls(t *testing.T, ctx *builtin.Context, tests []callCase) {
	t.Helper()
	for _, tt := range tests {
		name := tt.fn + "("
		for i, a := range tt.args {
			if i > 0 {
				name += ","
			}
			name += termName(a)
		}
		t.Run(name+")", func(t *testing.T) {
			got, err := builtin.CallWithContext(ctx, tt.fn, tt.args)
			checkValue(t, got, err, tt.want, tt.wantErr)
		})
	}
}

func TestCall_Terms(t *testing.T) {
	E := builtin.ErrType
	dtype := func(s string) quad.Value { return iri(xsd + s) }
	runCalls(t, &builtin.Context{Base: "http://example.org/base/doc"}, []callCase{
		// STR (expr-builtin q-str-*)
		{"STR", vals(iri("http://example/a")), str("http://example/a"), nil},
		{"STR", vals(lang("chat", "fr")), str("chat"), nil},
		{"STR", vals(integer("01")), str("01"), nil},
		{"STR", vals(str("x")), str("x"), nil},
		{"STR", vals(bnode("b")), nil, E},
		// LANG (q-lang-*)
		{"LANG", vals(lang("chat", "fr")), str("fr"), nil},
		{"LANG", vals(lang("chat", "EN-gb")), str("EN-gb"), nil},
		{"LANG", vals(str("x")), str(""), nil},
		{"LANG", vals(integer("1")), str(""), nil},
		{"LANG", vals(iri("http://a")), nil, E},
		// LANGMATCHES (q-langMatches-*, §17.4.3.1 examples)
		{"LANGMATCHES", vals(str("en"), str("EN")), T, nil},
		{"LANGMATCHES", vals(str("en-US"), str("en")), T, nil},
		{"LANGMATCHES", vals(str("en-US"), str("en-us")), T, nil},
		{"LANGMATCHES", vals(str("fr"), str("en")), F, nil},
		{"LANGMATCHES", vals(str("english"), str("en")), F, nil},
		{"LANGMATCHES", vals(str("de-DE"), str("de-de")), T, nil},
		{"LANGMATCHES", vals(str("de"), str("de-de")), F, nil},
		{"LANGMATCHES", vals(str("fr"), str("*")), T, nil},
		{"LANGMATCHES", vals(str(""), str("*")), F, nil},
		{"LANGMATCHES", vals(str(""), str("")), T, nil},
		{"LANGMATCHES", vals(lang("en", "en"), str("en")), nil, E},
		// DATATYPE (q-datatype-*)
		{"DATATYPE", vals(str("x")), dtype("string"), nil},
		{"DATATYPE", vals(xsdString("x")), dtype("string"), nil},
		{"DATATYPE", vals(lang("x", "en")), iri("http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"), nil},
		{"DATATYPE", vals(integer("1")), dtype("integer"), nil},
		{"DATATYPE", vals(typed("1", "byte")), dtype("byte"), nil},
		{"DATATYPE", vals(other("x", "http://example.org/t")), iri("http://example.org/t"), nil},
		{"DATATYPE", vals(iri("http://a")), nil, E},
		{"DATATYPE", vals(bnode("b")), nil, E},
		// IRI / URI (iri01, RFC 3986 §5.4 examples)
		{"IRI", vals(str("iri")), iri("http://example.org/base/iri"), nil},
		{"URI", vals(str("uri")), iri("http://example.org/base/uri"), nil},
		{"IRI", vals(iri("http://x/y")), iri("http://x/y"), nil},
		{"IRI", vals(str("http://x/a/../b")), iri("http://x/b"), nil},
		{"IRI", vals(str("../up")), iri("http://example.org/up"), nil},
		{"IRI", vals(str("/abs")), iri("http://example.org/abs"), nil},
		{"IRI", vals(str("//other/x")), iri("http://other/x"), nil},
		{"IRI", vals(str("?q")), iri("http://example.org/base/doc?q"), nil},
		{"IRI", vals(str("#f")), iri("http://example.org/base/doc#f"), nil},
		{"IRI", vals(str("")), iri("http://example.org/base/doc"), nil},
		{"IRI", vals(str("a b")), nil, E},
		{"IRI", vals(lang("x", "en")), nil, E},
		{"IRI", vals(integer("1")), nil, E},
		{"IRI", vals(bnode("b")), nil, E},
		// STRLANG, STRDT (strlang*, strdt*)
		{"STRLANG", vals(str("foo"), str("en-US")), lang("foo", "en-US"), nil},
		{"STRLANG", vals(xsdString("abc"), str("en")), lang("abc", "en"), nil},
		{"STRLANG", vals(lang("foo", "en"), str("fr")), nil, E},
		{"STRLANG", vals(integer("1"), str("en")), nil, E},
		{"STRLANG", vals(str("foo"), str("")), nil, E},
		{"STRLANG", vals(str("foo"), str("not a tag")), nil, E},
		{"STRDT", vals(str("123"), iri(xsd+"integer")), integer("123"), nil},
		{"STRDT", vals(str("iiii"), iri("http://example/romanNumeral")), other("iiii", "http://example/romanNumeral"), nil},
		{"STRDT", vals(str("foo"), iri(xsd+"string")), str("foo"), nil},
		{"STRDT", vals(lang("foo", "en"), iri(xsd+"string")), nil, E},
		{"STRDT", vals(str("foo"), str("http://t")), nil, E},
		{"STRDT", vals(str("foo"), iri("http://www.w3.org/1999/02/22-rdf-syntax-ns#langString")), nil, E},
		// SAMETERM and the IS* tests (sameTerm*, q-isliteral-1, q-blank-1, isnumeric01)
		{"SAMETERM", vals(integer("1"), integer("1")), T, nil},
		{"SAMETERM", vals(integer("1"), integer("01")), F, nil},
		{"SAMETERM", vals(integer("1"), decimal("1.0")), F, nil},
		{"SAMETERM", vals(lang("a", "en"), lang("a", "EN")), T, nil},
		{"ISIRI", vals(iri("http://a")), T, nil},
		{"ISURI", vals(str("http://a")), F, nil},
		{"ISBLANK", vals(bnode("b")), T, nil},
		{"ISBLANK", vals(iri("b")), F, nil},
		{"ISLITERAL", vals(lang("a", "en")), T, nil},
		{"ISLITERAL", vals(bnode("b")), F, nil},
		{"ISNUMERIC", vals(integer("12")), T, nil},
		{"ISNUMERIC", vals(str("12")), F, nil},
		{"ISNUMERIC", vals(typed("1200", "byte")), F, nil},
		{"ISNUMERIC", vals(typed("12", "byte")), T, nil},
		{"ISNUMERIC", vals(iri("http://example/")), F, nil},
		// errors
		{"ISIRI", vals(nil), nil, builtin.ErrUnbound},
		{"ISIRI", vals(), nil, E},
		{"STR", vals(str("a"), str("b")), nil, E},
		{"NOSUCH", vals(str("a")), nil, E},
		{"str", vals(str("a")), nil, E},
	})
}

func TestCall_Numeric(t *testing.T) {
	E := builtin.ErrType
	runCalls(t, nil, []callCase{
		// abs01, ceil01, floor01, round01 (data.ttl :num values)
		{"ABS", vals(integer("-2")), integer("2"), nil},
		{"ABS", vals(integer("-1")), integer("1"), nil},
		{"ABS", vals(decimal("-1.6")), decimal("1.6"), nil},
		{"ABS", vals(decimal("1.1")), decimal("1.1"), nil},
		{"ABS", vals(decimal("2.5")), decimal("2.5"), nil},
		{"ABS", vals(double("-1.5")), double("1.5E0"), nil},
		{"ABS", vals(float("-0")), float("0.0E0"), nil},
		{"ABS", vals(typed("-3", "int")), integer("3"), nil},
		{"CEIL", vals(integer("-2")), integer("-2"), nil},
		{"CEIL", vals(decimal("-1.6")), decimal("-1.0"), nil},
		{"CEIL", vals(decimal("1.1")), decimal("2.0"), nil},
		{"CEIL", vals(decimal("2.5")), decimal("3.0"), nil},
		{"CEIL", vals(double("10.5")), double("1.1E1"), nil},
		{"FLOOR", vals(integer("-1")), integer("-1"), nil},
		{"FLOOR", vals(decimal("-1.6")), decimal("-2.0"), nil},
		{"FLOOR", vals(decimal("1.1")), decimal("1.0"), nil},
		{"FLOOR", vals(decimal("2.5")), decimal("2.0"), nil},
		{"FLOOR", vals(double("-10.5")), double("-1.1E1"), nil},
		{"ROUND", vals(integer("-2")), integer("-2"), nil},
		{"ROUND", vals(decimal("-1.6")), decimal("-2.0"), nil},
		{"ROUND", vals(decimal("1.1")), decimal("1.0"), nil},
		{"ROUND", vals(decimal("2.5")), decimal("3.0"), nil},
		{"ROUND", vals(decimal("-2.5")), decimal("-2.0"), nil},
		{"ROUND", vals(double("2.4999")), double("2.0E0"), nil},
		{"ROUND", vals(double("-2.5")), double("-2.0E0"), nil},
		{"ROUND", vals(double("0.49999999999999994")), double("0.0E0"), nil},
		{"ROUND", vals(double("NaN")), double("NaN"), nil},
		{"ROUND", vals(double("-INF")), double("-INF"), nil},
		{"ROUND", vals(str("1.5")), nil, E},
		{"ABS", vals(integer("x")), nil, E},
	})
}

func TestCall_Strings(t *testing.T) {
	E := builtin.ErrType
	runCalls(t, nil, []callCase{
		// STRLEN (length01), UCASE/LCASE (ucase01, lcase01)
		{"STRLEN", vals(str("foo")), integer("3"), nil},
		{"STRLEN", vals(lang("bar", "en")), integer("3"), nil},
		{"STRLEN", vals(str("食べ物")), integer("3"), nil},
		{"STRLEN", vals(str("\U0001D400\U0001D401")), integer("2"), nil},
		{"STRLEN", vals(str("")), integer("0"), nil},
		{"STRLEN", vals(integer("7")), nil, E},
		{"UCASE", vals(str("foo")), str("FOO"), nil},
		{"UCASE", vals(lang("bar", "en")), lang("BAR", "en"), nil},
		{"UCASE", vals(xsdString("abc")), str("ABC"), nil},
		{"UCASE", vals(str("食べ物")), str("食べ物"), nil},
		{"LCASE", vals(str("BAZ")), str("baz"), nil},
		{"LCASE", vals(lang("BAR", "en")), lang("bar", "en"), nil},
		{"UCASE", vals(iri("http://a")), nil, E},
		// fn:upper-case and fn:lower-case use Unicode's full case mappings
		// (XPath F&O 3.1 §5.4.7-8: "case mappings may change the length of a
		// string"), without language tailoring.
		{"UCASE", vals(str("straße")), str("STRASSE"), nil},
		{"UCASE", vals(lang("ﬁx", "en")), lang("FIX", "en"), nil},
		{"UCASE", vals(str("ŉ")), str("ʼN"), nil},
		{"LCASE", vals(str("İ")), str("i\u0307"), nil},
		{"LCASE", vals(str("ΟΔΟΣ")), str("οδος"), nil},
		{"UCASE", vals(str("a\U0001F600ö")), str("A\U0001F600Ö"), nil},
		// SUBSTR (substring01, substring02, XPath fn:substring examples)
		{"SUBSTR", vals(str("foo"), integer("1"), integer("1")), str("f"), nil},
		{"SUBSTR", vals(lang("bar", "en"), integer("1"), integer("1")), lang("b", "en"), nil},
		{"SUBSTR", vals(str("食べ物"), integer("1"), integer("1")), str("食"), nil},
		{"SUBSTR", vals(str("食べ物"), integer("2")), str("べ物"), nil},
		{"SUBSTR", vals(str("100%"), integer("2")), str("00%"), nil},
		{"SUBSTR", vals(str("foobar"), integer("4")), str("bar"), nil},
		{"SUBSTR", vals(str("foobar"), integer("4"), integer("1")), str("b"), nil},
		{"SUBSTR", vals(str("motor car"), integer("6")), str(" car"), nil},
		{"SUBSTR", vals(str("metadata"), integer("4"), integer("3")), str("ada"), nil},
		{"SUBSTR", vals(str("12345"), decimal("1.5"), decimal("2.6")), str("234"), nil},
		{"SUBSTR", vals(str("12345"), integer("0"), integer("3")), str("12"), nil},
		{"SUBSTR", vals(str("12345"), integer("5"), integer("-3")), str(""), nil},
		{"SUBSTR", vals(str("12345"), integer("-3"), integer("5")), str("1"), nil},
		{"SUBSTR", vals(str("12345"), double("NaN"), integer("3")), str(""), nil},
		{"SUBSTR", vals(str("12345"), integer("1"), double("NaN")), str(""), nil},
		{"SUBSTR", vals(str("12345"), double("-INF"), double("INF")), str(""), nil},
		{"SUBSTR", vals(str("12345"), double("-42"), double("INF")), str("12345"), nil},
		{"SUBSTR", vals(str("abc"), str("1")), nil, E},
		{"SUBSTR", vals(integer("123"), integer("1")), nil, E},
		// STRSTARTS/STRENDS/CONTAINS (starts01, ends01, contains01, §17.4.3.1.2)
		{"STRSTARTS", vals(str("foobar"), str("foo")), T, nil},
		{"STRSTARTS", vals(lang("foobar", "en"), lang("foo", "en")), T, nil},
		{"STRSTARTS", vals(lang("foobar", "en"), str("foo")), T, nil},
		{"STRSTARTS", vals(lang("foobar", "en"), xsdString("foo")), T, nil},
		{"STRSTARTS", vals(str("foobar"), lang("foo", "en")), nil, E},
		{"STRSTARTS", vals(lang("foobar", "en"), lang("foo", "fr")), nil, E},
		{"STRSTARTS", vals(str("foobar"), integer("1")), nil, E},
		{"STRENDS", vals(str("foobar"), str("bar")), T, nil},
		{"STRENDS", vals(str("foobar"), str("foo")), F, nil},
		{"CONTAINS", vals(str("foobar"), str("bar")), T, nil},
		{"CONTAINS", vals(lang("foobar", "en"), lang("oba", "EN")), T, nil},
		{"CONTAINS", vals(str("foobar"), str("")), T, nil},
		{"CONTAINS", vals(str("foobar"), str("x")), F, nil},
		// STRBEFORE/STRAFTER (strbefore01, strafter01, spec examples)
		{"STRBEFORE", vals(str("abc"), str("b")), str("a"), nil},
		{"STRBEFORE", vals(lang("abc", "en"), str("bc")), lang("a", "en"), nil},
		{"STRBEFORE", vals(lang("abc", "en"), lang("b", "cy")), nil, E},
		{"STRBEFORE", vals(xsdString("abc"), str("")), str(""), nil},
		{"STRBEFORE", vals(lang("abc", "en"), str("")), lang("", "en"), nil},
		{"STRBEFORE", vals(str("abc"), str("xyz")), str(""), nil},
		{"STRBEFORE", vals(lang("english", "en"), str("s")), lang("engli", "en"), nil},
		{"STRBEFORE", vals(lang("日本語", "ja"), str("s")), str(""), nil},
		{"STRAFTER", vals(str("abc"), str("b")), str("c"), nil},
		{"STRAFTER", vals(lang("abc", "en"), str("ab")), lang("c", "en"), nil},
		{"STRAFTER", vals(lang("abc", "en"), lang("b", "cy")), nil, E},
		{"STRAFTER", vals(lang("abc", "en"), str("")), lang("abc", "en"), nil},
		{"STRAFTER", vals(str("abc"), str("xyz")), str(""), nil},
		{"STRAFTER", vals(lang("english", "en"), str("e")), lang("nglish", "en"), nil},
		{"STRAFTER", vals(lang("français", "fr"), str("e")), str(""), nil},
		// CONCAT (concat01, concat02, concat-empty, spec examples)
		{"CONCAT", vals(str("foo"), str("bar")), str("foobar"), nil},
		{"CONCAT", vals(lang("foo", "en"), lang("bar", "en")), lang("foobar", "en"), nil},
		{"CONCAT", vals(lang("foo", "en"), str("bar")), str("foobar"), nil},
		{"CONCAT", vals(lang("foo", "en"), lang("bar", "fr")), str("foobar"), nil},
		{"CONCAT", vals(xsdString("abc"), xsdString("def")), str("abcdef"), nil},
		{"CONCAT", vals(str("123"), lang("english", "en")), str("123english"), nil},
		{"CONCAT", vals(lang("x", "en")), lang("x", "en"), nil},
		{"CONCAT", vals(), str(""), nil},
		{"CONCAT", vals(str("a"), integer("7")), nil, E},
		// ENCODE_FOR_URI (encode01, spec examples)
		{"ENCODE_FOR_URI", vals(str("Los Angeles")), str("Los%20Angeles"), nil},
		{"ENCODE_FOR_URI", vals(lang("Los Angeles", "en")), str("Los%20Angeles"), nil},
		{"ENCODE_FOR_URI", vals(str("食べ物")), str("%E9%A3%9F%E3%81%B9%E7%89%A9"), nil},
		{"ENCODE_FOR_URI", vals(str("100%")), str("100%25"), nil},
		{"ENCODE_FOR_URI", vals(str("a-_.~/?")), str("a-_.~%2F%3F"), nil},
		{"ENCODE_FOR_URI", vals(iri("http://a")), nil, E},
	})
}

func TestCall_Hashes(t *testing.T) {
	E := builtin.ErrType
	runCalls(t, nil, []callCase{
		// md5-01, sha1-01, sha256-01, sha384-01, sha512-01 ("abc") and the spec examples.
		{"MD5", vals(str("abc")), str("900150983cd24fb0d6963f7d28e17f72"), nil},
		{"MD5", vals(xsdString("abc")), str("900150983cd24fb0d6963f7d28e17f72"), nil},
		{"SHA1", vals(str("abc")), str("a9993e364706816aba3e25717850c26c9cd0d89d"), nil},
		{"SHA256", vals(str("abc")), str("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"), nil},
		{"SHA384", vals(str("abc")), str("cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"), nil},
		{"SHA512", vals(str("abc")), str("ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"), nil},
		{"MD5", vals(str("")), str("d41d8cd98f00b204e9800998ecf8427e"), nil},
		{"MD5", vals(lang("abc", "en")), nil, E},
		{"SHA1", vals(integer("1")), nil, E},
	})
}

func TestCall_DateTime(t *testing.T) {
	E := builtin.ErrType
	d1 := dateTime("2010-06-21T11:28:01Z")
	d2 := dateTime("2010-12-21T15:38:02-08:00")
	d3 := dateTime("2008-06-20T23:59:00Z")
	d4 := dateTime("2011-02-01T01:02:03")
	runCalls(t, nil, []callCase{
		// year-01, month-01, day-01, hours-01, minutes-01, seconds-01, timezone-01, tz-01
		{"YEAR", vals(d1), integer("2010"), nil},
		{"YEAR", vals(d3), integer("2008"), nil},
		{"YEAR", vals(d4), integer("2011"), nil},
		{"YEAR", vals(dateTime("-0044-03-15T12:00:00")), integer("-44"), nil},
		{"MONTH", vals(d1), integer("6"), nil},
		{"MONTH", vals(d2), integer("12"), nil},
		{"MONTH", vals(d4), integer("2"), nil},
		{"DAY", vals(d1), integer("21"), nil},
		{"DAY", vals(d3), integer("20"), nil},
		{"DAY", vals(d4), integer("1"), nil},
		{"HOURS", vals(d1), integer("11"), nil},
		{"HOURS", vals(d2), integer("15"), nil},
		{"HOURS", vals(d3), integer("23"), nil},
		{"HOURS", vals(d4), integer("1"), nil},
		{"MINUTES", vals(d1), integer("28"), nil},
		{"MINUTES", vals(d2), integer("38"), nil},
		{"MINUTES", vals(d3), integer("59"), nil},
		{"MINUTES", vals(d4), integer("2"), nil},
		{"SECONDS", vals(d1), decimal("1.0"), nil},
		{"SECONDS", vals(d2), decimal("2.0"), nil},
		{"SECONDS", vals(d3), decimal("0.0"), nil},
		{"SECONDS", vals(d4), decimal("3.0"), nil},
		{"SECONDS", vals(dateTime("2011-01-10T14:45:13.815-05:00")), decimal("13.815"), nil},
		{"TIMEZONE", vals(d1), typed("PT0S", "dayTimeDuration"), nil},
		{"TIMEZONE", vals(d2), typed("-PT8H", "dayTimeDuration"), nil},
		{"TIMEZONE", vals(d3), typed("PT0S", "dayTimeDuration"), nil},
		{"TIMEZONE", vals(dateTime("2011-01-10T14:45:13+05:30")), typed("PT5H30M", "dayTimeDuration"), nil},
		{"TIMEZONE", vals(d4), nil, E},
		{"TZ", vals(d1), str("Z"), nil},
		{"TZ", vals(d2), str("-08:00"), nil},
		{"TZ", vals(d4), str(""), nil},
		// 24:00:00 is the start of the next day.
		{"DAY", vals(dateTime("2010-12-31T24:00:00Z")), integer("1"), nil},
		{"YEAR", vals(dateTime("2010-12-31T24:00:00Z")), integer("2011"), nil},
		{"HOURS", vals(dateTime("2010-12-31T24:00:00Z")), integer("0"), nil},
		{"YEAR", vals(str("2010-06-21T11:28:01Z")), nil, E},
		{"YEAR", vals(dateTime("2010-13-21T11:28:01Z")), nil, E},
		{"MONTH", vals(typed("2010-06-21", "date")), nil, E},
	})
}

func TestCall_Context(t *testing.T) {
	now := time.Date(2011, 1, 10, 14, 45, 13, 815000000, time.FixedZone("", -5*3600))
	ctx := &builtin.Context{Now: now, Rand: rand.New(rand.NewPCG(1, 2)), BNodeScope: builtin.NewBNodeScope("q1_")}

	t.Run("NOW", func(t *testing.T) {
		got, err := builtin.CallWithContext(ctx, "NOW", nil)
		checkValue(t, got, err, dateTime("2011-01-10T14:45:13.815-05:00"), nil)
		got, err = builtin.CallWithContext(&builtin.Context{Now: time.Date(2020, 2, 3, 4, 5, 6, 0, time.UTC)}, "NOW", nil)
		checkValue(t, got, err, dateTime("2020-02-03T04:05:06Z"), nil)
		if _, err := builtin.Call("NOW", nil); !errors.Is(err, builtin.ErrType) {
			t.Fatalf("NOW without a context: %v", err)
		}
	})
	t.Run("RAND", func(t *testing.T) {
		for range 100 {
			v, err := builtin.CallWithContext(ctx, "RAND", nil)
			if err != nil {
				t.Fatal(err)
			}
			n, ok := builtin.NumericValue(v)
			if !ok || n.Kind() != builtin.DoubleKind || n.Float64() < 0 || n.Float64() >= 1 {
				t.Fatalf("RAND() = %#v", v)
			}
		}
	})
	uuidRE := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	t.Run("UUID", func(t *testing.T) {
		a, err := builtin.CallWithContext(ctx, "UUID", nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := builtin.CallWithContext(ctx, "UUID", nil)
		s, ok := a.(quad.IRI)
		if !ok || len(s) < 9 || s[:9] != "urn:uuid:" || !uuidRE.MatchString(string(s[9:])) || a == b {
			t.Fatalf("UUID() = %#v, %#v", a, b)
		}
	})
	t.Run("STRUUID", func(t *testing.T) {
		a, err := builtin.Call("STRUUID", nil)
		s, ok := a.(quad.String)
		if err != nil || !ok || !uuidRE.MatchString(string(s)) {
			t.Fatalf("STRUUID() = %#v, %v", a, err)
		}
	})
	t.Run("BNODE", func(t *testing.T) {
		call := func(args ...quad.Value) quad.Value {
			t.Helper()
			v, err := builtin.CallWithContext(ctx, "BNODE", args)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := v.(quad.BNode); !ok {
				t.Fatalf("BNODE = %#v", v)
			}
			return v
		}
		f1, f2 := call(), call()
		a1, a2, b1 := call(str("a")), call(str("a")), call(str("b"))
		if f1 == f2 || a1 != a2 || a1 == b1 || a1 == f1 || a1 == f2 {
			t.Fatalf("BNODE results %v %v %v %v %v", f1, f2, a1, a2, b1)
		}
		ctx.BNodeScope.NextSolution()
		if a3 := call(str("a")); a3 == a1 {
			t.Fatalf("BNODE(\"a\") reused across solutions: %v", a3)
		}
		if _, err := builtin.CallWithContext(ctx, "BNODE", vals(lang("a", "en"))); !errors.Is(err, builtin.ErrType) {
			t.Fatalf("BNODE(lang) err = %v", err)
		}
		if v, err := builtin.Call("BNODE", nil); err != nil {
			t.Fatalf("BNODE() without scope: %v", err)
		} else if _, ok := v.(quad.BNode); !ok {
			t.Fatalf("BNODE() without scope = %#v", v)
		}
	})
}

func TestNames(t *testing.T) {
	names := builtin.Names()
	if !slices.IsSorted(names) {
		t.Fatal("Names not sorted")
	}
	want := []string{"ABS", "BNODE", "CEIL", "CONCAT", "CONTAINS", "DATATYPE", "DAY", "ENCODE_FOR_URI",
		"FLOOR", "HOURS", "IRI", "ISBLANK", "ISIRI", "ISLITERAL", "ISNUMERIC", "ISURI", "LANG",
		"LANGMATCHES", "LCASE", "MD5", "MINUTES", "MONTH", "NOW", "RAND", "REGEX", "REPLACE", "ROUND",
		"SAMETERM", "SECONDS", "SHA1", "SHA256", "SHA384", "SHA512", "STR", "STRAFTER", "STRBEFORE",
		"STRDT", "STRENDS", "STRLANG", "STRLEN", "STRSTARTS", "STRUUID", "SUBSTR", "TIMEZONE", "TZ",
		"UCASE", "URI", "UUID", "YEAR"}
	if !slices.Equal(names, want) {
		t.Fatalf("Names() = %v", names)
	}
	for _, n := range want {
		if !builtin.IsFunction(n) {
			t.Errorf("IsFunction(%q) = false", n)
		}
	}
	if builtin.IsFunction("BOUND") {
		t.Error("IsFunction(BOUND) = true")
	}
}
