package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/titanous/json5"
	"gopkg.in/yaml.v3"
)

// node is a parsed JSON, JSON5 or YAML value with the line it starts on
// (0 where it is not known). Every decoder below turns
// its parser's output into nodes, so that one walk (decode.go) checks types,
// keys and required fields whatever the source format.
type node struct {
	kind nodeKind
	line int
	str  string  // kString: the value; kNumber: the literal as written
	num  float64 // kNumber
	b    bool    // kBool

	keys     []string // kObject, in source order
	keyLines []int
	vals     []*node
	elems    []*node // kArray
}

type nodeKind uint8

const (
	kNull nodeKind = iota
	kBool
	kNumber
	kString
	kObject
	kArray
)

// maxDepth bounds the nesting of a definition file, so that a hostile
// file cannot exhaust the stack.
const maxDepth = 200

// maxAliasNodes bounds the nodes YAML aliases may expand to (a "billion
// laughs" file expands exponentially).
const maxAliasNodes = 100000

// maxAliasBytes bounds the text (scalars and mapping keys) YAML aliases
// may expand to: as much as a file may hold. An alias of a long string
// counts as one node, and every copy of it may be quoted in a problem.
const maxAliasBytes = MaxFileSize

// syntaxError is a parse failure at a line (0: unknown).
type syntaxError struct {
	line int
	msg  string
}

func (e *syntaxError) Error() string { return e.msg }

// lineIndex maps byte offsets to 1-based line numbers.
type lineIndex []int // offsets at which lines start

// newLineIndex indexes the lines of data, which end at LF, CR LF or a CR
// alone (JSON reads all three as white space; YAML as line ends).
func newLineIndex(data []byte) lineIndex {
	idx := lineIndex{0}
	for i, c := range data {
		if c == '\n' || c == '\r' && (i+1 == len(data) || data[i+1] != '\n') {
			idx = append(idx, i+1)
		}
	}
	return idx
}

func (l lineIndex) line(off int64) int {
	return sort.Search(len(l), func(i int) bool { return int64(l[i]) > off })
}

// parseJSON parses one JSON value with lines, rejecting trailing data.
// Duplicate keys are kept (decode reports them).
func parseJSON(data []byte) (*node, error) {
	if json.Valid(data) {
		return parseValidJSON(data)
	}
	return parseJSONTokens(data)
}

// parseJSONTokens is parseJSON with encoding/json's tokens: slower, but it
// names what is wrong in a file that is not valid JSON.
func parseJSONTokens(data []byte) (*node, error) {
	lines := newLineIndex(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	p := &jsonParser{dec: dec, lines: lines}
	n, err := p.value(0)
	if err != nil {
		return nil, p.wrap(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &syntaxError{line: lines.line(dec.InputOffset()), msg: "unexpected data after the top-level value"}
	}
	return n, nil
}

type jsonParser struct {
	dec   *json.Decoder
	lines lineIndex
}

func (p *jsonParser) wrap(err error) error {
	var se *syntaxError
	if errors.As(err, &se) {
		return se
	}
	var jse *json.SyntaxError
	if errors.As(err, &jse) {
		return &syntaxError{line: p.lines.line(jse.Offset - 1), msg: jse.Error()}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &syntaxError{line: p.lines.line(p.dec.InputOffset()), msg: "unexpected end of json input"}
	}
	return &syntaxError{line: p.lines.line(p.dec.InputOffset()), msg: err.Error()}
}

// here is the line of the token just read (its last byte).
func (p *jsonParser) here() int { return p.lines.line(p.dec.InputOffset() - 1) }

// value reads the value at depth, the number of objects and arrays
// around it: an object or array at depth maxDepth would be level
// maxDepth+1, refused as scanJSON5 and yamlConv refuse it.
func (p *jsonParser) value(depth int) (*node, error) {
	tok, err := p.dec.Token()
	if err != nil {
		return nil, err
	}
	return p.fromToken(tok, depth)
}

func (p *jsonParser) fromToken(tok json.Token, depth int) (*node, error) {
	n := &node{line: p.here()}
	switch t := tok.(type) {
	case nil:
		n.kind = kNull
	case bool:
		n.kind, n.b = kBool, t
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, &syntaxError{line: n.line, msg: fmt.Sprintf("number %s out of range", t)}
		}
		n.kind, n.num, n.str = kNumber, f, string(t)
	case string:
		n.kind, n.str = kString, t
	case json.Delim:
		if depth >= maxDepth {
			return nil, &syntaxError{line: n.line, msg: fmt.Sprintf("nested more than %d levels deep", maxDepth)}
		}
		switch t {
		case '{':
			n.kind = kObject
			for p.dec.More() {
				kt, err := p.dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				kl := p.here()
				v, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				n.keys, n.keyLines, n.vals = append(n.keys, key), append(n.keyLines, kl), append(n.vals, v)
			}
		case '[':
			n.kind = kArray
			for p.dec.More() {
				v, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				n.elems = append(n.elems, v)
			}
		}
		if _, err := p.dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
	}
	return n, nil
}

// parseJSON5 parses JSON5 (comments, trailing commas, unquoted keys).
// The parser reports the position of a syntax error only: the lines of
// the values and keys are those scanJSON5 finds for their paths. Object
// keys come out sorted.
func parseJSON5(data []byte) (*node, error) {
	lines := &json5Lines{value: map[string]int{}, key: map[string]int{}}
	if err := scanJSON5(data, lines); err != nil {
		return nil, err
	}
	var v interface{}
	if err := json5.Unmarshal(data, &v); err != nil {
		return nil, json5SyntaxError(data, err)
	}
	return fromAny(v, 0, "", lines)
}

// json5Lines are the lines of a JSON5 file's values and of its objects'
// keys, by their JSON pointer ("" for the top-level value, "/steps/0/name").
type json5Lines struct{ value, key map[string]int }

// JSON5Error returns err, from the JSON5 parser (github.com/titanous/json5)
// on data, with the line it is at ("line 3: invalid character ','
// looking for beginning of object key"), as CheckJSON5's errors are; a
// character that is not ASCII is named whole (the parser names its first
// byte as a Latin-1 character: 'ï' for U+FEFF). Lines end at LF, CR LF or
// a CR alone. An error without a position is returned as it is, and nil
// as nil.
func JSON5Error(data []byte, err error) error {
	if err == nil {
		return nil
	}
	if se := json5SyntaxError(data, err); se.line > 0 {
		return fmt.Errorf("line %d: %s", se.line, se.msg)
	}
	return err
}

// json5SyntaxError is err, from the JSON5 parser on data, with its line
// (0 when the parser gave no position).
func json5SyntaxError(data []byte, err error) *syntaxError {
	var te *json5.UnmarshalTypeError
	if errors.As(err, &te) && strings.HasPrefix(te.Value, "number ") && te.Offset >= 0 && te.Offset <= int64(len(data)) {
		// The only value that goes into no interface{}: a number no
		// float64 holds (1e400), read up to Offset. As JSON says it.
		return &syntaxError{line: newLineIndex(data).line(max(te.Offset-1, 0)), msg: te.Value + " out of range"}
	}
	var se *json5.SyntaxError
	if !errors.As(err, &se) || se.Offset < 1 || se.Offset > int64(len(data)) {
		return &syntaxError{msg: err.Error()}
	}
	at := int(se.Offset) - 1 // the byte the parser stopped at
	msg := se.Error()
	if c := data[at]; c >= utf8.RuneSelf {
		r, n := utf8.DecodeRune(data[at:])
		name := strconv.QuoteRune(r)
		if r == utf8.RuneError && n == 1 {
			name = fmt.Sprintf("byte 0x%02x (not UTF-8)", c)
		}
		q := strconv.Quote(string(rune(c))) // as the parser quotes c
		msg = strings.Replace(msg, "'"+q[1:len(q)-1]+"'", name, 1)
	}
	return &syntaxError{line: newLineIndex(data).line(int64(at)), msg: msg}
}

// CheckJSON5 checks JSON5 data for what the JSON5 parser Cortex uses
// (github.com/titanous/json5) lets through or fails on, and should be
// called before it: an object that names a key twice (the parser keeps the
// last silently) and nesting deeper than 200 levels (the parser recurses
// without a bound: a deep enough file overflows the stack and ends the
// process). Keys are compared as the parser reads them: a, 'a', "a" and
// "\u0061" are one key. The error names the line: `line 3: duplicate key
// "name"`. Other syntax is not checked: what CheckJSON5 cannot make sense
// of, it leaves to the parser. Definitions in JSON5 (Parse, Load) are
// checked so.
func CheckJSON5(data []byte) error {
	if err := scanJSON5(data, nil); err != nil {
		var se *syntaxError
		if errors.As(err, &se) && se.line > 0 {
			return fmt.Errorf("line %d: %s", se.line, se.msg)
		}
		return err
	}
	return nil
}

// JSON5KeyLines checks data as CheckJSON5 does, with its errors, and
// returns the line of each key of its objects by its JSON pointer
// ("/teams/maxTeamSize", RFC 6901), so that an error about a value can
// name its line (config's do).
func JSON5KeyLines(data []byte) (map[string]int, error) {
	lines := &json5Lines{value: map[string]int{}, key: map[string]int{}}
	if err := scanJSON5(data, lines); err != nil {
		var se *syntaxError
		if errors.As(err, &se) && se.line > 0 {
			return nil, fmt.Errorf("line %d: %s", se.line, se.msg)
		}
		return nil, err
	}
	return lines.key, nil
}

// scanJSON5 checks what the JSON5 parser does not, before it runs: the
// nesting (maxDepth; the parser recurses without a bound, and a deep file
// overflows the stack) and duplicate keys of an object (the parser keeps
// the last silently), with their line. It only tokenizes: strings,
// comments, brackets, ':' and ','; what it cannot make sense of is left
// to the parser's syntax errors. Keys are compared as the parser reads
// them: a quoted key with escapes is unquoted by the parser itself. If
// lines is not nil, it records there the line of each value and key.
func scanJSON5(data []byte, lines *json5Lines) error {
	type frame struct {
		object    bool
		expectKey bool
		keys      map[string]bool
		path      string // the object's or array's (lines only)
		key       string // an object's last key
		index     int    // an array's element
	}
	var stack []frame
	var idx lineIndex
	lineAt := func(off int) int {
		if idx == nil {
			idx = newLineIndex(data)
		}
		return idx.line(int64(off))
	}
	// valueAt records the line of the value that starts at off, and
	// returns its path.
	valueAt := func(off int) string {
		if lines == nil {
			return ""
		}
		p := ""
		if n := len(stack); n > 0 && stack[n-1].object {
			p = child(stack[n-1].path, stack[n-1].key)
		} else if n > 0 {
			p = index(stack[n-1].path, stack[n-1].index)
		}
		lines.value[p] = lineAt(off)
		return p
	}
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			// The parser ends a line comment at LF or CR.
			for i+1 < len(data) && data[i+1] != '\n' && data[i+1] != '\r' {
				i++
			}
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			i += 2
			for i < len(data) && !(data[i] == '*' && i+1 < len(data) && data[i+1] == '/') {
				i++
			}
			i++
		case c == '{' || c == '[':
			if len(stack) >= maxDepth {
				return &syntaxError{line: lineAt(i), msg: fmt.Sprintf("nested more than %d levels deep", maxDepth)}
			}
			stack = append(stack, frame{object: c == '{', expectKey: c == '{', path: valueAt(i)})
		case c == '}' || c == ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case c == ',':
			if n := len(stack); n > 0 && stack[n-1].object {
				stack[n-1].expectKey = true
			} else if n > 0 {
				stack[n-1].index++
			}
		case c == ':':
			if n := len(stack); n > 0 {
				stack[n-1].expectKey = false
			}
		default:
			// A string, or an unquoted token (key, number, literal).
			start, keyStart := i, i
			if c == '"' || c == '\'' {
				for i++; i < len(data) && data[i] != c; i++ {
					if data[i] == '\\' {
						i++
					}
				}
				start++
			} else {
				for i+1 < len(data) && !strings.ContainsRune(" \t\r\n\f\v,:[]{}/\"'", rune(data[i+1])) {
					i++
				}
				i++
			}
			n := len(stack)
			if n == 0 || !stack[n-1].object || !stack[n-1].expectKey {
				valueAt(keyStart)
				if c != '"' && c != '\'' {
					i--
				}
				continue
			}
			key := string(data[start:min(i, len(data))])
			if c != '"' && c != '\'' {
				i--
				if !keyLiteral(key) {
					// No key to the parser, which says what is wrong.
					stack[n-1].expectKey = false
					continue
				}
			} else if i < len(data) && strings.IndexByte(key, '\\') >= 0 {
				var unquoted string
				if json5.Unmarshal(data[start-1:i+1], &unquoted) == nil {
					key = unquoted
				}
			}
			f := &stack[n-1]
			f.expectKey = false
			if f.keys == nil {
				f.keys = map[string]bool{}
			}
			if f.keys[key] {
				return &syntaxError{line: lineAt(keyStart), msg: fmt.Sprintf("duplicate key %q", key)}
			}
			f.keys[key] = true
			if lines != nil {
				f.key = key
				lines.key[child(f.path, key)] = lineAt(keyStart)
			}
		}
	}
	return nil
}

// keyLiteral reports whether s is a key without quotes as the JSON5
// parser reads one: an ASCII letter, '_' or '$', then those or digits.
func keyLiteral(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '$' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return s != ""
}

// fromAny returns v, a value the JSON5 parser read at path, as a node
// with the lines of lines.
func fromAny(v interface{}, depth int, path string, lines *json5Lines) (*node, error) {
	n, err := fromAnyAt(v, depth, path, lines)
	if n != nil {
		n.line = lines.value[path]
	}
	return n, err
}

func fromAnyAt(v interface{}, depth int, path string, lines *json5Lines) (*node, error) {
	if depth > maxDepth {
		return nil, &syntaxError{msg: fmt.Sprintf("nested more than %d levels deep", maxDepth)}
	}
	switch t := v.(type) {
	case nil:
		return &node{kind: kNull}, nil
	case bool:
		return &node{kind: kBool, b: t}, nil
	case float64:
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return nil, &syntaxError{msg: fmt.Sprintf("number %v cannot be represented in json", t)}
		}
		return &node{kind: kNumber, num: t, str: strconv.FormatFloat(t, 'g', -1, 64)}, nil
	case string:
		return &node{kind: kString, str: t}, nil
	case []interface{}:
		n := &node{kind: kArray}
		for i, e := range t {
			c, err := fromAny(e, depth+1, index(path, i), lines)
			if err != nil {
				return nil, err
			}
			n.elems = append(n.elems, c)
		}
		return n, nil
	case map[string]interface{}:
		n := &node{kind: kObject}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := child(path, k)
			c, err := fromAny(t[k], depth+1, p, lines)
			if err != nil {
				return nil, err
			}
			n.keys, n.keyLines, n.vals = append(n.keys, k), append(n.keyLines, lines.key[p]), append(n.vals, c)
		}
		return n, nil
	}
	return nil, &syntaxError{msg: fmt.Sprintf("unsupported json5 value %T", v)}
}

// parseYAML parses one YAML document (an empty document is an empty
// object); lineOffset is added to every line (front matter starts after
// the "---" line).
func parseYAML(data []byte, lineOffset int) (*node, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &node{kind: kObject, line: lineOffset + 1}, nil
		}
		return nil, yamlError(err, data, lineOffset)
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return nil, &syntaxError{line: more.Line + lineOffset, msg: "more than one yaml document"}
	}
	y := &yamlConv{offset: lineOffset}
	return y.conv(&doc, 0)
}

// yamlError turns a yaml.v3 error ("yaml: line 3: ...") into a syntaxError
// with the file's line.
func yamlError(err error, data []byte, offset int) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if i := strings.IndexByte(rest, ':'); i > 0 {
			if n, err := strconv.Atoi(rest[:i]); err == nil {
				line = n + offset
				msg = strings.TrimSpace(rest[i+1:])
			}
		}
	}
	if name, ok := strings.CutPrefix(msg, "unknown anchor '"); ok && line == 0 {
		// The parser names no line: the first alias of name.
		if name, ok = strings.CutSuffix(name, "' referenced"); ok {
			if at := aliasAt(data, name); at >= 0 {
				line = newLineIndex(data).line(int64(at)) + offset
			}
		}
	}
	if line == 0 && msg == "control characters are not allowed" {
		// The reader names no line: the first character it refuses.
		for i := 0; i < len(data); {
			r, n := utf8.DecodeRune(data[i:])
			if !yamlPrintable(r) {
				line = newLineIndex(data).line(int64(i)) + offset
				break
			}
			i += n
		}
	}
	return &syntaxError{line: line, msg: msg}
}

// aliasAt returns the offset in YAML text data of the first alias of
// anchor name (*name), outside comments and quoted scalars; -1 if none.
func aliasAt(data []byte, name string) int {
	starts := func(i int) bool { return i == 0 || strings.IndexByte(" \t\r\n[{,", data[i-1]) >= 0 }
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case c == '#' && starts(i):
			for i < len(data) && data[i] != '\n' && data[i] != '\r' {
				i++
			}
		case (c == '\'' || c == '"') && starts(i):
			for i++; i < len(data) && data[i] != c; i++ {
				if c == '"' && data[i] == '\\' {
					i++
				}
			}
		case c == '*' && starts(i) && bytes.HasPrefix(data[i+1:], []byte(name)):
			if end := i + 1 + len(name); end == len(data) || strings.IndexByte(" \t\r\n,]}", data[end]) >= 0 {
				return i
			}
		}
	}
	return -1
}

// yamlPrintable reports whether the YAML reader (gopkg.in/yaml.v3) takes
// r: tab, LF, CR, printable ASCII, NEL and the rest of Unicode but C1
// controls, surrogates and U+FFFE, U+FFFF.
func yamlPrintable(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' || r >= 0x20 && r <= 0x7e || r == 0x85 ||
		r >= 0xa0 && r <= 0xd7ff || r >= 0xe000 && r <= 0xfffd || r >= 0x10000 && r <= 0x10ffff
}

type yamlConv struct {
	offset  int
	nodes   int // nodes produced by expanding aliases
	bytes   int // their text, and that of aliases used as mapping keys
	inAlias int // aliases being expanded around the current node
}

// expanded counts text that aliases expand to, failing past maxAliasBytes.
func (y *yamlConv) expanded(text string, line int) error {
	if y.bytes += len(text); y.bytes > maxAliasBytes {
		return &syntaxError{line: line + y.offset, msg: fmt.Sprintf("more than %d bytes of text (yaml aliases expand too far)", maxAliasBytes)}
	}
	return nil
}

// conv converts n, which depth objects and arrays enclose (the document
// node and aliases add none, so that levels count as in JSON).
func (y *yamlConv) conv(n *yaml.Node, depth int) (*node, error) {
	if depth >= maxDepth && (n.Kind == yaml.SequenceNode || n.Kind == yaml.MappingNode) {
		return nil, &syntaxError{line: n.Line + y.offset, msg: fmt.Sprintf("nested more than %d levels deep", maxDepth)}
	}
	// Only what aliases expand to is counted: the other nodes are
	// bounded by the file's size, as a JSON file's are.
	if y.inAlias > 0 {
		y.nodes++
	}
	if y.nodes > maxAliasNodes {
		return nil, &syntaxError{line: n.Line + y.offset, msg: fmt.Sprintf("more than %d values (yaml aliases expand too far)", maxAliasNodes)}
	}
	if y.inAlias > 0 && n.Kind == yaml.ScalarNode {
		if err := y.expanded(n.Value, n.Line); err != nil {
			return nil, err
		}
	}
	line := n.Line + y.offset
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return &node{kind: kObject, line: line}, nil
		}
		return y.conv(n.Content[0], depth)
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, &syntaxError{line: line, msg: "unknown yaml alias"}
		}
		y.inAlias++
		defer func() { y.inAlias-- }()
		return y.conv(n.Alias, depth)
	case yaml.SequenceNode:
		out := &node{kind: kArray, line: line}
		for _, c := range n.Content {
			v, err := y.conv(c, depth+1)
			if err != nil {
				return nil, err
			}
			out.elems = append(out.elems, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := &node{kind: kObject, line: line}
		var merged []*node // the mappings of merge keys (<<), in order
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			keyAlias := k.Kind == yaml.AliasNode && k.Alias != nil
			if keyAlias {
				k = k.Alias
			}
			if keyAlias || y.inAlias > 0 {
				if err := y.expanded(k.Value, n.Content[i].Line); err != nil {
					return nil, err
				}
			}
			if k.Kind != yaml.ScalarNode {
				return nil, &syntaxError{line: k.Line + y.offset, msg: "mapping key is not a scalar"}
			}
			val, err := y.conv(v, depth+1)
			if err != nil {
				return nil, err
			}
			if k.ShortTag() == "!!merge" {
				if merged, err = mergeSources(merged, val, k.Line+y.offset); err != nil {
					return nil, err
				}
				continue
			}
			out.keys, out.keyLines, out.vals = append(out.keys, k.Value), append(out.keyLines, k.Line+y.offset), append(out.vals, val)
		}
		// A merge key brings in the keys of its mappings that the mapping
		// does not give itself, the first mapping's first (YAML 1.1's
		// merge key type, as yaml.v3 decodes it).
		// The keys are kept in a set, not looked up in out.keys: a file
		// may merge a mapping of a million keys.
		if len(merged) > 0 {
			has := make(map[string]bool, len(out.keys))
			for _, key := range out.keys {
				has[key] = true
			}
			for _, m := range merged {
				for j, key := range m.keys {
					if !has[key] {
						has[key] = true
						out.keys, out.keyLines, out.vals = append(out.keys, key), append(out.keyLines, m.keyLines[j]), append(out.vals, m.vals[j])
					}
				}
			}
		}
		return out, nil
	case yaml.ScalarNode:
		out := &node{line: line}
		switch n.ShortTag() {
		case "!!null":
			out.kind = kNull
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return nil, &syntaxError{line: line, msg: err.Error()}
			}
			out.kind, out.b = kBool, b
		case "!!int", "!!float":
			var f float64
			if err := n.Decode(&f); err != nil {
				return nil, &syntaxError{line: line, msg: fmt.Sprintf("bad number %q", n.Value)}
			}
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, &syntaxError{line: line, msg: fmt.Sprintf("number %s cannot be represented in json", n.Value)}
			}
			out.kind, out.num, out.str = kNumber, f, n.Value
		default: // !!str, !!timestamp, !!binary and custom tags: the text as written
			out.kind, out.str = kString, n.Value
		}
		return out, nil
	}
	return nil, &syntaxError{line: line, msg: "unsupported yaml node"}
}

// mergeSources appends to merged the mappings that the value v of a YAML
// merge key (<<, on line) gives: a mapping, or a sequence of mappings.
// A mapping that names a key twice is an error, as anywhere in a file
// (the merge would keep the first silently).
func mergeSources(merged []*node, v *node, line int) ([]*node, error) {
	bad := &syntaxError{line: line, msg: "a yaml merge key (<<) takes a mapping or a sequence of mappings"}
	var sources []*node
	switch v.kind {
	case kObject:
		sources = []*node{v}
	case kArray:
		for _, e := range v.elems {
			if e.kind != kObject {
				return nil, bad
			}
		}
		sources = v.elems
	default:
		return nil, bad
	}
	for _, m := range sources {
		seen := make(map[string]bool, len(m.keys))
		for i, k := range m.keys {
			if seen[k] {
				return nil, &syntaxError{line: m.keyLines[i], msg: fmt.Sprintf("duplicate key %q in a mapping that a merge key (<<) brings in", k)}
			}
			seen[k] = true
		}
	}
	return append(merged, sources...), nil
}

// toAny returns the plain Go value of n (JSON-shaped: float64 numbers,
// map[string]interface{} objects), for free-form fields (a port's schema
// and default). The last of duplicate keys wins; decode reports them.
func (n *node) toAny() interface{} {
	switch n.kind {
	case kBool:
		return n.b
	case kNumber:
		return n.num
	case kString:
		return n.str
	case kObject:
		m := make(map[string]interface{}, len(n.keys))
		for i, k := range n.keys {
			m[k] = n.vals[i].toAny()
		}
		return m
	case kArray:
		a := make([]interface{}, len(n.elems))
		for i, e := range n.elems {
			a[i] = e.toAny()
		}
		return a
	}
	return nil
}
