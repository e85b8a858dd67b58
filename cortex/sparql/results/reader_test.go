package results_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/results"
)

type readCase struct {
	name string
	in   string
	want *results.Result // nil: expect a syntax error
}

func boolResult(b bool) *results.Result { return &results.Result{Boolean: &b} }

func runReadCases(t *testing.T, read func(string) (*results.Result, error), cases []readCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := read(tc.in)
			if tc.want == nil {
				if !errors.Is(err, results.ErrSyntax) {
					t.Fatalf("err = %v, want ErrSyntax (got %+v)", err, got)
				}
				var se *results.SyntaxError
				if !errors.As(err, &se) {
					t.Fatalf("err %T is not a *SyntaxError", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %#v\nwant %#v", got, tc.want)
			}
		})
	}
}

func TestReadJSON(t *testing.T) {
	read := func(s string) (*results.Result, error) { return results.ReadJSON(strings.NewReader(s)) }
	runReadCases(t, read, []readCase{
		{"Boolean", `{"head":{},"boolean":false}`, boolResult(false)},
		{"BooleanWithLink", `{"head":{"link":["x"]},"boolean":true}`, boolResult(true)},
		{"Terms", `{"head":{"vars":["a","b","c","d"],"link":[]},"results":{"bindings":[
			{"a":{"type":"uri","value":"http://x/"},"b":{"type":"bnode","value":"r1"},"c":{"type":"literal","value":"v","xml:lang":"en-GB"}},
			{"d":{"type":"typed-literal","datatype":"http://www.w3.org/2001/XMLSchema#int","value":" 1"}},
			{"c":{"type":"literal","datatype":"http://www.w3.org/2001/XMLSchema#string","value":"s"},
			 "d":{"type":"literal","datatype":"http://www.w3.org/1999/02/22-rdf-syntax-ns#langString","xml:lang":"de","value":"d"}}]}}`,
			&results.Result{Vars: []string{"a", "b", "c", "d"}, Rows: []results.Row{
				{quad.IRI("http://x/"), quad.BNode("r1"), quad.LangString{Value: "v", Lang: "en-GB"}, nil},
				{nil, nil, nil, quad.TypedString{Value: " 1", Type: xsd + "int"}},
				{nil, nil, quad.String("s"), quad.LangString{Value: "d", Lang: "de"}},
			}}},
		{"NoVars", `{"head":{},"results":{"bindings":[{}]}}`, &results.Result{Vars: []string{}, Rows: []results.Row{{}}}},
		{"Empty", ``, nil},
		{"Truncated", `{"head":`, nil},
		{"NoHead", `{"boolean":true}`, nil},
		{"NoResults", `{"head":{"vars":[]}}`, nil},
		{"Both", `{"head":{},"boolean":true,"results":{"bindings":[]}}`, nil},
		{"Trailing", `{"head":{},"boolean":true} x`, nil},
		{"UnknownVar", `{"head":{"vars":["a"]},"results":{"bindings":[{"b":{"type":"uri","value":"x"}}]}}`, nil},
		{"UnknownType", `{"head":{"vars":["a"]},"results":{"bindings":[{"a":{"type":"triple","value":"x"}}]}}`, nil},
		{"MissingValue", `{"head":{"vars":["a"]},"results":{"bindings":[{"a":{"type":"uri"}}]}}`, nil},
		{"LangAndDatatype", `{"head":{"vars":["a"]},"results":{"bindings":[{"a":{"type":"literal","value":"x","xml:lang":"en","datatype":"http://x/"}}]}}`, nil},
		{"EmptyLangIsNone", `{"head":{"vars":["a"]},"results":{"bindings":[{"a":{"type":"literal","value":"x","xml:lang":""}}]}}`,
			&results.Result{Vars: []string{"a"}, Rows: []results.Row{{quad.String("x")}}}},
		{"BadLang", `{"head":{"vars":["a"]},"results":{"bindings":[{"a":{"type":"literal","value":"x","xml:lang":"e n"}}]}}`, nil},
		{"LangStringWithoutTag", `{"head":{"vars":["a"]},"results":{"bindings":[{"a":{"type":"literal","value":"x","datatype":"http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"}}]}}`, nil},
		{"LangStringWithEmptyTag", `{"head":{"vars":["a"]},"results":{"bindings":[{"a":{"type":"literal","value":"x","xml:lang":"","datatype":"http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"}}]}}`, nil},
		{"EmptyBNode", `{"head":{"vars":["a"]},"results":{"bindings":[{"a":{"type":"bnode","value":""}}]}}`, nil},
		{"BadVar", `{"head":{"vars":["a b"]},"results":{"bindings":[]}}`, nil},
		{"DuplicateVar", `{"head":{"vars":["a","a"]},"results":{"bindings":[]}}`, nil},
		{"WrongShape", `{"head":{"vars":"a"},"results":{"bindings":[]}}`, nil},
		{"InvalidUTF8", "{\"head\":{},\"boolean\":true,\"x\":\"\xff\"}", nil},

		// Duplicate names: RFC 8259 leaves their meaning open; a strict
		// reader refuses them rather than keep one value silently.
		{"VarBoundTwice", `{"head":{"vars":["a"]},"results":{"bindings":[{"a":{"type":"uri","value":"x"},"a":{"type":"uri","value":"y"}}]}}`, nil},
		{"VarBoundTwiceEscapedName", `{"head":{"vars":["a"]},"results":{"bindings":[{"a":{"type":"uri","value":"x"},"\u0061":{"type":"uri","value":"y"}}]}}`, nil},
		{"TypeTwice", `{"head":{"vars":["a"]},"results":{"bindings":[{"a":{"type":"uri","type":"bnode","value":"x"}}]}}`, nil},
		{"ValueTwice", `{"head":{"vars":["a"]},"results":{"bindings":[{"a":{"type":"uri","value":"x","value":"y"}}]}}`, nil},
		{"UnknownMemberTwice", `{"head":{"vars":["a"]},"results":{"bindings":[{"a":{"type":"uri","value":"x","extra":1,"extra":2}}]}}`, nil},
		{"HeadTwice", `{"head":{"vars":["a"]},"head":{"vars":["b"]},"results":{"bindings":[]}}`, nil},
		{"BooleanTwice", `{"head":{},"boolean":true,"boolean":false}`, nil},
		{"VarsTwice", `{"head":{"vars":["a"],"vars":["b"]},"results":{"bindings":[]}}`, nil},
		{"BindingsTwice", `{"head":{"vars":["a"]},"results":{"bindings":[],"bindings":[{}]}}`, nil},

		// Unpaired UTF-16 surrogate escapes denote no Unicode character.
		{"LoneHighSurrogate", `{"head":{"vars":["a"]},"results":{"bindings":[{"a":{"type":"literal","value":"x\ud800y"}}]}}`, nil},
		{"LoneHighSurrogateAtEnd", `{"head":{"vars":["a"]},"results":{"bindings":[{"a":{"type":"literal","value":"x\uD800"}}]}}`, nil},
		{"LoneLowSurrogate", `{"head":{"vars":["a"]},"results":{"bindings":[{"a":{"type":"literal","value":"\udc00"}}]}}`, nil},
		{"HighSurrogateThenNonSurrogate", `{"head":{"vars":["a"]},"results":{"bindings":[{"a":{"type":"literal","value":"\ud800\u0041"}}]}}`, nil},
		{"TwoHighSurrogates", `{"head":{"vars":["a"]},"results":{"bindings":[{"a":{"type":"literal","value":"\ud800\ud800"}}]}}`, nil},
		{"LoneSurrogateInName", `{"head":{"vars":["a"]},"results":{"bindings":[{"\ud800":{"type":"uri","value":"x"}}]}}`, nil},
		{"SurrogatePair", `{"head":{"vars":["a"]},"results":{"bindings":[{"a":{"type":"literal","value":"\ud83d\ude00\u00e9\/\b\f\n\r\t\"\\"}}]}}`,
			&results.Result{Vars: []string{"a"}, Rows: []results.Row{{quad.String("😀é/\b\f\n\r\t\"\\")}}}},

		// Names match exactly, as JSON compares strings: encoding/json's
		// case-insensitive field matching read these as "type", "head" ...
		{"TypeCapitalised", `{"head":{"vars":["a"]},"results":{"bindings":[{"a":{"Type":"uri","value":"x"}}]}}`, nil},
		{"ValueCapitalised", `{"head":{"vars":["a"]},"results":{"bindings":[{"a":{"type":"uri","VALUE":"x"}}]}}`, nil},
		{"HeadCapitalised", `{"Head":{},"boolean":true}`, nil},
		{"BooleanCapitalised", `{"head":{},"Boolean":true}`, nil},
		{"BindingsCapitalised", `{"head":{"vars":["a"]},"results":{"Bindings":[{"a":{"type":"uri","value":"x"}}]}}`,
			&results.Result{Vars: []string{"a"}, Rows: []results.Row{}}},
		{"VarsCapitalised", `{"head":{"Vars":["a"]},"results":{"bindings":[]}}`, &results.Result{Vars: []string{}, Rows: []results.Row{}}},
		{"LangCapitalised", `{"head":{"vars":["a"]},"results":{"bindings":[{"a":{"type":"literal","value":"x","XML:LANG":"en"}}]}}`,
			&results.Result{Vars: []string{"a"}, Rows: []results.Row{{quad.String("x")}}}},
		{"VarNameCase", `{"head":{"vars":["a"]},"results":{"bindings":[{"A":{"type":"uri","value":"x"}}]}}`, nil},
		{"EscapedNames", `{"\u0068ead":{"vars":["a"]},"results":{"bindings":[{"\u0061":{"\u0074ype":"uri","value":"x"}}]}}`,
			&results.Result{Vars: []string{"a"}, Rows: []results.Row{{quad.IRI("x")}}}},

		// Members in any order; values of the wrong JSON type.
		{"ResultsBeforeHead", `{"results":{"bindings":[{"b":{"value":"x","type":"uri"}}]},"head":{"link":[],"vars":["a","b"]}}`,
			&results.Result{Vars: []string{"a", "b"}, Rows: []results.Row{{nil, quad.IRI("x")}}}},
		{"ResultsBeforeHeadUnknownVar", `{"results":{"bindings":[{"c":{"value":"x","type":"uri"}}]},"head":{"vars":["a","b"]}}`, nil},
		{"UnknownMembersSkipped", `{"x":[1,-2.5e+3,{"y":[true,false,null]},"s"],"head":{"vars":["a"],"z":{}},"results":{"ordered":false,"bindings":[{"a":{"type":"uri","value":"x","q":null}}]}}`,
			&results.Result{Vars: []string{"a"}, Rows: []results.Row{{quad.IRI("x")}}}},
		{"ValueNotString", `{"head":{"vars":["a"]},"results":{"bindings":[{"a":{"type":"literal","value":1}}]}}`, nil},
		{"ValueNull", `{"head":{"vars":["a"]},"results":{"bindings":[{"a":{"type":"literal","value":null}}]}}`, nil},
		{"BindingNotObject", `{"head":{"vars":["a"]},"results":{"bindings":[[]]}}`, nil},
		{"BooleanNotBool", `{"head":{},"boolean":"true"}`, nil},
		{"LinkNotStrings", `{"head":{"link":[1]},"boolean":true}`, nil},
		{"RawControlInString", "{\"head\":{\"vars\":[\"a\"]},\"results\":{\"bindings\":[{\"a\":{\"type\":\"literal\",\"value\":\"a\tb\"}}]}}", nil},
		{"BadEscape", `{"head":{"vars":["a"]},"results":{"bindings":[{"a":{"type":"literal","value":"\x41"}}]}}`, nil},
		{"BadNumber", `{"head":{},"boolean":true,"x":01}`, nil},
		{"TrailingComma", `{"head":{},"boolean":true,}`, nil},
		{"BOM", "\ufeff{\"head\":{},\"boolean\":true}", nil},
		{"DeepNesting", `{"head":{},"boolean":true,"x":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}`, nil},
	})
	t.Run("Position", func(t *testing.T) {
		_, err := results.ReadJSON(strings.NewReader("{\"head\":{},\n  \"boolean\": tru}"))
		var se *results.SyntaxError
		if !errors.As(err, &se) || se.Line != 2 || se.Col == 0 {
			t.Errorf("err = %#v, want line 2", err)
		}
	})
	// Errors found in well-formed JSON say where, too: at the escape, the
	// repeated name.
	for _, tc := range []struct {
		name, in  string
		line, col int
		msg       string
	}{
		{"LoneSurrogate", "{\"head\":{\"vars\":[\"a\"]},\n\"results\":{\"bindings\":[{\"a\":{\"type\":\"literal\",\"value\":\"é\\ud800\"}}]}}", 2, 57, `\ud800`},
		{"DuplicateVar", "{\"head\":{\"vars\":[\"a\"]},\n\"results\":{\"bindings\":[{\"a\":{\"type\":\"uri\",\"value\":\"x\"},\"a\":{}}]}}", 2, 56, `"a"`},
	} {
		t.Run("Position"+tc.name, func(t *testing.T) {
			_, err := results.ReadJSON(strings.NewReader(tc.in))
			var se *results.SyntaxError
			if !errors.As(err, &se) || se.Line != tc.line || se.Col != tc.col || !strings.Contains(se.Msg, tc.msg) {
				t.Errorf("err = %#v, want line %d, col %d, mentioning %s", err, tc.line, tc.col, tc.msg)
			}
		})
	}
}

const srxHead = `<?xml version="1.0"?>
<sparql xmlns="http://www.w3.org/2005/sparql-results#">`

func TestReadXML(t *testing.T) {
	read := func(s string) (*results.Result, error) { return results.ReadXML(strings.NewReader(s)) }
	runReadCases(t, read, []readCase{
		{"Boolean", srxHead + `<head/><boolean> true </boolean></sparql>`, boolResult(true)},
		{"ByteOrderMark", "\ufeff" + srxHead + `<head/><boolean>true</boolean></sparql>`, boolResult(true)},
		{"ByteOrderMarkTwice", "\ufeff\ufeff" + srxHead + `<head/><boolean>true</boolean></sparql>`, nil},
		{"Terms", srxHead + `<!-- c --><head><variable name="a"/><variable name="b"/><link href="x"/></head>
			<results ordered="false"><result>
			  <binding name="b"><literal xml:lang="en-US"> two  spaces </literal></binding>
			  <binding name="a">
			    <uri> http://x/?a=1&amp;b=2 </uri>
			  </binding>
			</result><result>
			  <binding name="a"><bnode>r0</bnode></binding>
			  <binding name="b"><literal datatype="http://www.w3.org/2001/XMLSchema#integer">007</literal></binding>
			</result><result/><result>
			  <binding name="b"><literal/></binding>
			  <binding name="a"><literal datatype="http://www.w3.org/2001/XMLSchema#string">x&#xD;<![CDATA[<y>]]></literal></binding>
			</result></results></sparql>`,
			&results.Result{Vars: []string{"a", "b"}, Rows: []results.Row{
				{quad.IRI("http://x/?a=1&b=2"), quad.LangString{Value: " two  spaces ", Lang: "en-US"}},
				{quad.BNode("r0"), quad.TypedString{Value: "007", Type: xsd + "integer"}},
				{nil, nil},
				{quad.String("x\r<y>"), quad.String("")},
			}}},
		{"PrefixedNamespace", `<s:sparql xmlns:s="http://www.w3.org/2005/sparql-results#"><s:head/><s:results/></s:sparql>`,
			&results.Result{Vars: []string{}, Rows: []results.Row{}}},
		{"NotXML", `{"head":{}}`, nil},
		{"Empty", ``, nil},
		{"WrongNamespace", `<sparql xmlns="http://example.org/"><head/><boolean>true</boolean></sparql>`, nil},
		{"NoNamespace", `<sparql><head/><boolean>true</boolean></sparql>`, nil},
		{"Unclosed", srxHead + `<head/><results><result>`, nil},
		{"BadBoolean", srxHead + `<head/><boolean>yes</boolean></sparql>`, nil},
		{"UnknownVar", srxHead + `<head><variable name="a"/></head><results><result><binding name="z"><uri>x</uri></binding></result></results></sparql>`, nil},
		{"BoundTwice", srxHead + `<head><variable name="a"/></head><results><result><binding name="a"><uri>x</uri></binding><binding name="a"><uri>y</uri></binding></result></results></sparql>`, nil},
		{"EmptyBinding", srxHead + `<head><variable name="a"/></head><results><result><binding name="a"></binding></result></results></sparql>`, nil},
		{"UnknownTerm", srxHead + `<head><variable name="a"/></head><results><result><binding name="a"><triple/></binding></result></results></sparql>`, nil},
		{"TextInResults", srxHead + `<head/><results>oops</results></sparql>`, nil},
		{"NestedInLiteral", srxHead + `<head><variable name="a"/></head><results><result><binding name="a"><literal>a<b/></literal></binding></result></results></sparql>`, nil},
		{"VariableWithoutName", srxHead + `<head><variable/></head><results/></sparql>`, nil},
		{"SecondRoot", srxHead + `<head/><results/></sparql><sparql/>`, nil},
		{"ControlCharRef", srxHead + `<head><variable name="a"/></head><results><result><binding name="a"><literal>&#x1;</literal></binding></result></results></sparql>`, nil},
		{"LangAndDatatype", srxHead + `<head><variable name="a"/></head><results><result><binding name="a"><literal xml:lang="en" datatype="http://x/">a</literal></binding></result></results></sparql>`, nil},
		{"LangStringWithoutTag", srxHead + `<head><variable name="a"/></head><results><result><binding name="a"><literal datatype="http://www.w3.org/1999/02/22-rdf-syntax-ns#langString">a</literal></binding></result></results></sparql>`, nil},

		// Not well-formed XML that encoding/xml lets through: a repeated
		// attribute (XML 1.0 WFC: Unique Att Spec; it kept the first), a
		// character reference to a surrogate (WFC: Legal Character; it
		// read U+FFFD).
		{"LangTwice", srxHead + `<head><variable name="a"/></head><results><result><binding name="a"><literal xml:lang="en" xml:lang="fr">x</literal></binding></result></results></sparql>`, nil},
		{"DatatypeTwice", srxHead + `<head><variable name="a"/></head><results><result><binding name="a"><literal datatype="http://x/a" datatype="http://x/b">x</literal></binding></result></results></sparql>`, nil},
		{"VariableNameTwice", srxHead + `<head><variable name="a" name="b"/></head><results/></sparql>`, nil},
		{"BindingNameTwice", srxHead + `<head><variable name="a"/><variable name="b"/></head><results><result><binding name="a" name="b"><uri>x</uri></binding></result></results></sparql>`, nil},
		{"SameAttributeTwoPrefixes", `<s:sparql xmlns:s="http://www.w3.org/2005/sparql-results#" xmlns:t="http://www.w3.org/2005/sparql-results#"><s:head><s:variable name="a"/></s:head><s:results><s:result><s:binding name="a"><s:literal s:x="1" t:x="2">x</s:literal></s:binding></s:result></s:results></s:sparql>`, nil},
		{"SurrogateCharRef", srxHead + `<head><variable name="a"/></head><results><result><binding name="a"><literal>x&#xD800;</literal></binding></result></results></sparql>`, nil},
		{"SurrogateCharRefDecimal", srxHead + `<head><variable name="a"/></head><results><result><binding name="a"><literal>&#57343;</literal></binding></result></results></sparql>`, nil},
		{"SurrogateCharRefInAttribute", srxHead + `<head><variable name="a"/></head><results><result><binding name="a"><literal datatype="http://x/&#xdc00;">x</literal></binding></result></results></sparql>`, nil},
		{"SurrogateCharRefInURI", srxHead + `<head><variable name="a"/></head><results><result><binding name="a"><uri>http://x/&#xD83D;&#xDE00;</uri></binding></result></results></sparql>`, nil},
		{"CharRefsInCDATAAndComments", srxHead + `<head><variable name="a"/></head><results><result><binding name="a"><literal>&#x1F600;<!-- &#xD800; --><![CDATA[&#xD800;]]>&#65533;</literal></binding></result></results></sparql>`,
			&results.Result{Vars: []string{"a"}, Rows: []results.Row{{quad.String("😀&#xD800;\uFFFD")}}}},
		{"BooleanNoBreakSpace", srxHead + "<head/><boolean>\u00a0true</boolean></sparql>", nil},
	})
	t.Run("Position", func(t *testing.T) {
		_, err := results.ReadXML(strings.NewReader(srxHead + "\n<head/>\n<boolean>maybe</boolean></sparql>"))
		var se *results.SyntaxError
		if !errors.As(err, &se) || se.Line != 4 {
			t.Errorf("err = %#v, want line 4", err)
		}
		_, err = results.ReadXML(strings.NewReader(srxHead + "<head><variable name=\"a\"/></head><results><result>\n<binding name=\"a\"><literal>é&#xd800;</literal></binding></result></results></sparql>"))
		if !errors.As(err, &se) || se.Line != 3 || se.Col != 29 || !strings.Contains(se.Msg, "&#xd800;") {
			t.Errorf("err = %#v, want line 3, col 29, naming &#xd800;", err)
		}
	})
}

func TestReadTSV(t *testing.T) {
	read := func(s string) (*results.Result, error) { return results.ReadTSV(strings.NewReader(s)) }
	integer := func(s string) quad.Value { return quad.TypedString{Value: quad.String(s), Type: xsd + "integer"} }
	runReadCases(t, read, []readCase{
		{"Boolean", "true\n", boolResult(true)},
		// Jena's form of an ASK result (RowSetWriterTSV), and what its
		// reader also accepts; other documents with ?_askResult are SELECT
		// results.
		{"JenaBooleanTrue", "?_askResult\ntrue\n", boolResult(true)},
		{"JenaBooleanFalse", "?_askResult\nfalse\n", boolResult(false)},
		{"JenaBooleanCRLFNoFinalBreak", "?_askResult\r\nfalse", boolResult(false)},
		{"JenaBooleanYesUpper", "?_askResult\n YES \n", boolResult(true)},
		{"JenaBooleanNo", "?_askResult\nno\n", boolResult(false)},
		{"AskResultVarFullForm", "?_askResult\n\"true\"^^<http://www.w3.org/2001/XMLSchema#boolean>\n",
			&results.Result{Vars: []string{"_askResult"}, Rows: []results.Row{{quad.TypedString{Value: "true", Type: xsd + "boolean"}}}}},
		{"AskResultVarNoRows", "?_askResult\n", &results.Result{Vars: []string{"_askResult"}, Rows: []results.Row{}}},
		{"AskResultVarTwoRows", "?_askResult\ntrue\nfalse\n", &results.Result{Vars: []string{"_askResult"}, Rows: []results.Row{
			{quad.TypedString{Value: "true", Type: xsd + "boolean"}}, {quad.TypedString{Value: "false", Type: xsd + "boolean"}}}}},
		{"AskResultVarUnbound", "?_askResult\n\n", &results.Result{Vars: []string{"_askResult"}, Rows: []results.Row{{nil}}}},
		{"AskResultVarOther", "?_askResult\n1\n", &results.Result{Vars: []string{"_askResult"}, Rows: []results.Row{{integer("1")}}}},
		{"AskResultVarAndAnother", "?_askResult\t?b\ntrue\t\n", &results.Result{Vars: []string{"_askResult", "b"}, Rows: []results.Row{
			{quad.TypedString{Value: "true", Type: xsd + "boolean"}, nil}}}},
		{"W3CExample", "?x\t?literal\n<http://example/x>\t\"String\"\n<http://example/x>\t\"String-with-dquote\\\"\"\n_:blank0\t\"Blank node\"\n\t\"Missing 'x'\"\n\t\n<http://example/x>\t\n_:blank1\t\"String-with-lang\"@en\n_:blank1\t123\n",
			&results.Result{Vars: []string{"x", "literal"}, Rows: []results.Row{
				{quad.IRI("http://example/x"), quad.String("String")},
				{quad.IRI("http://example/x"), quad.String(`String-with-dquote"`)},
				{quad.BNode("blank0"), quad.String("Blank node")},
				{nil, quad.String("Missing 'x'")},
				{nil, nil},
				{quad.IRI("http://example/x"), nil},
				{quad.BNode("blank1"), quad.LangString{Value: "String-with-lang", Lang: "en"}},
				{quad.BNode("blank1"), integer("123")},
			}}},
		{"Abbreviations", "?a\t?b\t?c\t?d\t?e\r\n-01\t+1.50\t.5e-3\tfalse\t'single \\'q\\' \\u00E9\\U0001F600'\r\n",
			&results.Result{Vars: []string{"a", "b", "c", "d", "e"}, Rows: []results.Row{{
				integer("-01"),
				quad.TypedString{Value: "+1.50", Type: xsd + "decimal"},
				quad.TypedString{Value: ".5e-3", Type: xsd + "double"},
				quad.TypedString{Value: "false", Type: xsd + "boolean"},
				quad.String("single 'q' é😀"),
			}}}},
		{"EscapesAndDatatype", "$a\t?b\n<http://x/\\u0020y>\t\"a\\tb\\nc\\\\\"^^<http://www.w3.org/2001/XMLSchema#string>\n",
			&results.Result{Vars: []string{"a", "b"}, Rows: []results.Row{{quad.IRI("http://x/ y"), quad.String("a\tb\nc\\")}}}},
		{"NoTrailingNewline", "?a\n<x>", &results.Result{Vars: []string{"a"}, Rows: []results.Row{{quad.IRI("x")}}}},
		{"UnboundSingleColumn", "?a\n\n\n", &results.Result{Vars: []string{"a"}, Rows: []results.Row{{nil}, {nil}}}},
		{"ByteOrderMark", "\ufeff?a\n<x>\n", &results.Result{Vars: []string{"a"}, Rows: []results.Row{{quad.IRI("x")}}}},
		{"ByteOrderMarkBoolean", "\ufefftrue\n", boolResult(true)},
		{"Empty", "", nil},
		{"HeaderWithoutMark", "a\tb\n", nil},
		{"BadVar", "?a b\n", nil},
		{"FieldCount", "?a\t?b\n<x>\n", nil},
		{"BadEscape", "?a\n\"\\q\"\n", nil},
		{"Unterminated", "?a\n\"abc\n", nil},
		{"LongString", "?a\n\"\"\"abc\"\"\"\n", nil},
		{"PrefixedName", "?a\nex:foo\n", nil},
		{"PrefixedDatatype", "?a\n\"1\"^^xsd:integer\n", nil},
		{"BadBNode", "?a\n_:a.\n", nil},
		{"BadLang", "?a\n\"x\"@\n", nil},
		{"LangStringWithoutTag", "?a\n\"x\"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#langString>\n", nil},
		{"JunkAfterIRI", "?a\n<x>y\n", nil},
		{"IRIWithSpace", "?a\n<x y>\n", nil},
		{"Surrogate", "?a\n\"\\uD800\"\n", nil},
		{"BadNumber", "?a\n1.\n", nil},
		{"InvalidUTF8", "?a\n\"\xff\"\n", nil},
	})
}

func TestReadCSV(t *testing.T) {
	read := func(s string) (*results.Result, error) { return results.ReadCSV(strings.NewReader(s)) }
	runReadCases(t, read, []readCase{
		{"Boolean", "false\r\n", boolResult(false)},
		// Jena's form of an ASK result (RowSetWriterCSV), and what its
		// reader also accepts; other documents with _askResult are SELECT
		// results.
		{"JenaBooleanTrue", "_askResult\r\ntrue\r\n", boolResult(true)},
		{"JenaBooleanFalseLF", "_askResult\nfalse", boolResult(false)},
		{"JenaBooleanYesUpper", "_askResult\r\nYes\r\n", boolResult(true)},
		{"AskResultVarQuotedHeader", "\"_askResult\"\r\ntrue\r\n", &results.Result{Vars: []string{"_askResult"}, Rows: []results.Row{{quad.String("true")}}}},
		{"AskResultVarQuotedValue", "_askResult\r\n\"true\"\r\n", &results.Result{Vars: []string{"_askResult"}, Rows: []results.Row{{quad.String("true")}}}},
		{"AskResultVarSpacedValue", "_askResult\r\n true\r\n", &results.Result{Vars: []string{"_askResult"}, Rows: []results.Row{{quad.String(" true")}}}},
		{"AskResultVarNoRows", "_askResult\r\n", &results.Result{Vars: []string{"_askResult"}, Rows: []results.Row{}}},
		{"AskResultVarTwoRows", "_askResult\r\ntrue\r\ntrue\r\n", &results.Result{Vars: []string{"_askResult"}, Rows: []results.Row{{quad.String("true")}, {quad.String("true")}}}},
		{"AskResultVarOther", "_askResult\r\nmaybe\r\n", &results.Result{Vars: []string{"_askResult"}, Rows: []results.Row{{quad.String("maybe")}}}},
		{"W3CExample", "x,literal\r\nhttp://example/x,String\r\nhttp://example/x,\"String-with-dquote\"\"\"\r\n_:b0,Blank node\r\n,Missing 'x'\r\n,\r\nhttp://example/x,\r\n_:b1,String-with-lang\r\n_:b1,123\r\n",
			&results.Result{Vars: []string{"x", "literal"}, Rows: []results.Row{
				{quad.IRI("http://example/x"), quad.String("String")},
				{quad.IRI("http://example/x"), quad.String(`String-with-dquote"`)},
				{quad.BNode("b0"), quad.String("Blank node")},
				{nil, quad.String("Missing 'x'")},
				{nil, nil},
				{quad.IRI("http://example/x"), nil},
				{quad.BNode("b1"), quad.String("String-with-lang")},
				{quad.BNode("b1"), quad.String("123")},
			}}},
		{"LFAndMultiline", "a,b\n\"x\r\ny\",urn:isbn:1\nmailto:a@b,not an:iri\n",
			&results.Result{Vars: []string{"a", "b"}, Rows: []results.Row{
				{quad.String("x\r\ny"), quad.IRI("urn:isbn:1")},
				{quad.IRI("mailto:a@b"), quad.String("not an:iri")},
			}}},
		// Excel's "CSV UTF-8": the mark is not part of the name "a",
		// though SPARQL would allow it in one.
		{"ByteOrderMark", "\ufeffa,b\r\nx,y\r\n", &results.Result{Vars: []string{"a", "b"}, Rows: []results.Row{{quad.String("x"), quad.String("y")}}}},
		{"Empty", "", nil},
		{"Unterminated", "a\r\n\"abc\r\n", nil},
		{"FieldCount", "a,b\r\nx\r\n", nil},
		{"QuoteInField", "a\r\nab\"c\r\n", nil},
		{"JunkAfterQuote", "a\r\n\"ab\"c\r\n", nil},
		{"StrayCR", "a\rb\r\n", nil},
		{"BadVar", "a b\r\n", nil},
	})
}

// Rows of no term, as other writers write them: Jena writes an unbound
// sole variable, and a row of no variables, as an empty line in TSV and
// CSV. A quoted empty field is a field: a variable named "" in a header,
// one field too many in a row of no variables.
func TestRead_EmptyLines(t *testing.T) {
	tsv := func(s string) (*results.Result, error) { return results.ReadTSV(strings.NewReader(s)) }
	csv := func(s string) (*results.Result, error) { return results.ReadCSV(strings.NewReader(s)) }
	one := func(rows ...results.Row) *results.Result { return &results.Result{Vars: []string{"a"}, Rows: rows} }
	none := func(n int) *results.Result {
		r := &results.Result{Vars: []string{}, Rows: []results.Row{}}
		for range n {
			r.Rows = append(r.Rows, results.Row{})
		}
		return r
	}
	x := quad.IRI("http://ex.org/x")
	t.Run("tsv", func(t *testing.T) {
		runReadCases(t, tsv, []readCase{
			{"OneVar", "?a\n\n<http://ex.org/x>\n\n\n", one(results.Row{nil}, results.Row{x}, results.Row{nil}, results.Row{nil})},
			{"OneVarCRLF", "?a\r\n\r\n\r\n", one(results.Row{nil}, results.Row{nil})},
			{"NoVars", "\n\n\n", none(2)},
			{"NoVarsNoRows", "\n", none(0)},
			{"TwoVarsEmptyLine", "?a\t?b\n\n", nil},
		})
	})
	t.Run("csv", func(t *testing.T) {
		runReadCases(t, csv, []readCase{
			{"OneVar", "a\r\n\r\n\"\"\r\nhttp://ex.org/x\r\n\r\n", one(results.Row{nil}, results.Row{nil}, results.Row{x}, results.Row{nil})},
			{"NoVars", "\r\n\r\n\r\n", none(2)},
			{"NoVarsNoRows", "\r\n", none(0)},
			{"NoVarsQuotedField", "\r\n\"\"\r\n", nil},
			{"QuotedEmptyHeader", "\"\"\r\n", nil},
			{"TwoVarsEmptyLine", "a,b\r\n\r\n", nil},
		})
	})
}
