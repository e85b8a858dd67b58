package spec

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// jsonSeeds are valid JSON texts that exercise what the two JSON readers
// must agree on: lines, escapes, invalid UTF-8, numbers, depth.
var jsonSeeds = []string{
	`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `1.5e3`, `-1E-2`, `1e400`, `-1e309`, `123456789012345678901234567890`,
	`"a"`, `""`, `"\u00e9\n\t\"\\\/"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\udc00x"`, "\"\xff\xfe\"", "\"caf\xc3\xa9\"",
	"{\"a\":1,\"a\":2}", "{\n  \"name\": \"x\",\r\n  \"k\": [1,\n 2, {\"z\": null}]\n}\n",
	" \t\r\n[ \n1 , \"two\" ,\n\n{ } , [ ] ]\n ", `{"\u0000": "\u0000"}`, "{\"k\\n\": \"v\"}",
	strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth),
	strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1),
	strings.Repeat("{\"a\":\n", maxDepth+1) + "1" + strings.Repeat("}", maxDepth+1),
	"{\r\"a\": 1,\r\r\"b\": [\r\n2]\n}\r", "[1,\r1e999]", "[1,\n2,\n1e999]", "{\"a\":\n[\"\xc3\"]}",
}

// TestParseValidJSON_MatchesTokens: on valid JSON the fast reader gives
// jsonParser's nodes, or its error.
func TestParseValidJSON_MatchesTokens(t *testing.T) {
	for _, s := range jsonSeeds {
		checkJSONReaders(t, []byte(s))
	}
}

func FuzzParseValidJSON(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkJSONReaders(t, data)
	})
}

func checkJSONReaders(t *testing.T, data []byte) {
	t.Helper()
	if !json.Valid(data) {
		return
	}
	fast, ferr := parseValidJSON(data)
	slow, serr := parseJSONTokens(data)
	if (ferr == nil) != (serr == nil) {
		t.Fatalf("%q: fast error %v, token reader's %v", data, ferr, serr)
	}
	if ferr != nil {
		if !reflect.DeepEqual(ferr, serr) {
			t.Fatalf("%q: fast error %#v, token reader's %#v", data, ferr, serr)
		}
		return
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%q: nodes differ:\nfast  %s\ntoken %s", data, dumpNode(fast), dumpNode(slow))
	}
}

func dumpNode(n *node) string {
	var b strings.Builder
	var walk func(n *node)
	walk = func(n *node) {
		b.WriteString("(")
		b.WriteString(strings.Join([]string{string(rune('0' + n.kind)), n.str}, ":"))
		b.WriteString("@")
		b.WriteString(strings.Repeat("|", n.line))
		for i, k := range n.keys {
			b.WriteString(" " + k + "@")
			b.WriteString(strings.Repeat("|", n.keyLines[i]))
			walk(n.vals[i])
		}
		for _, e := range n.elems {
			walk(e)
		}
		b.WriteString(")")
	}
	walk(n)
	return b.String()
}

// TestParseJSON_LinesAtAnyLineEnd: a JSON file's lines end at LF, CR LF or a
// CR alone, in both readers: with CR-only line ends every problem was on
// line 1.
func TestParseJSON_LinesAtAnyLineEnd(t *testing.T) {
	for _, eol := range []string{"\n", "\r\n", "\r"} {
		text := strings.ReplaceAll("{\n\"name\": \"x\",\n\n\"colour\": 1\n}\n", "\n", eol)
		for name, read := range map[string]func([]byte) (*node, error){"fast": parseValidJSON, "tokens": parseJSONTokens} {
			n, err := read([]byte(text))
			if err != nil {
				t.Fatalf("%q, %s: %v", eol, name, err)
			}
			if n.keyLines[1] != 4 || n.vals[1].line != 4 {
				t.Errorf("%q, %s: colour on line %d (value %d), want 4", eol, name, n.keyLines[1], n.vals[1].line)
			}
		}
		if _, err := parseJSONTokens([]byte(strings.ReplaceAll("[1,\n\n1e999]", "\n", eol))); err == nil || err.(*syntaxError).line != 3 {
			t.Errorf("%q: number error %v, want on line 3", eol, err)
		}
	}
}
