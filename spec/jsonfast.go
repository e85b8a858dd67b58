package spec

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// parseValidJSON parses data, which json.Valid accepts, into nodes as
// jsonParser does (the same lines, values and errors), without
// encoding/json's token API: that boxed every token and, at the end of
// each value, built and dropped an error, about 240 ms and 110 MB of
// garbage per MiB of small values. A file that is not valid JSON takes
// jsonParser's path, whose errors name what is wrong.
func parseValidJSON(data []byte) (*node, error) {
	p := &validJSON{data: data, line: 1}
	return p.value(0)
}

// validJSON reads a valid JSON text: it never meets a syntax error, only
// the limits jsonParser also applies (depth, number range).
type validJSON struct {
	data []byte
	pos  int
	line int
}

// space skips white space, counting lines (ended by LF, CR LF or CR).
func (p *validJSON) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case '\n':
			p.line++
		case '\r': // a line end unless a CR LF pair's
			if p.pos+1 == len(p.data) || p.data[p.pos+1] != '\n' {
				p.line++
			}
		case ' ', '\t':
		default:
			return
		}
		p.pos++
	}
}

// value reads the value at depth (see jsonParser.value).
func (p *validJSON) value(depth int) (*node, error) {
	p.space()
	n := &node{line: p.line}
	switch c := p.data[p.pos]; c {
	case 'n':
		n.kind = kNull
		p.pos += len("null")
	case 't':
		n.kind, n.b = kBool, true
		p.pos += len("true")
	case 'f':
		n.kind = kBool
		p.pos += len("false")
	case '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		n.kind, n.str = kString, s
	case '{', '[':
		if depth >= maxDepth {
			return nil, &syntaxError{line: n.line, msg: fmt.Sprintf("nested more than %d levels deep", maxDepth)}
		}
		p.pos++
		if c == '{' {
			n.kind = kObject
		} else {
			n.kind = kArray
		}
		for {
			p.space()
			if p.data[p.pos] == '}' || p.data[p.pos] == ']' {
				p.pos++
				return n, nil
			}
			if p.data[p.pos] == ',' {
				p.pos++
				p.space()
			}
			if c == '[' {
				v, err := p.value(depth + 1)
				if err != nil {
					return nil, err
				}
				n.elems = append(n.elems, v)
				continue
			}
			kl := p.line
			key, err := p.str()
			if err != nil {
				return nil, err
			}
			p.space()
			p.pos++ // ':'
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			n.keys, n.keyLines, n.vals = append(n.keys, key), append(n.keyLines, kl), append(n.vals, v)
		}
	default: // a number
		start := p.pos
		for p.pos < len(p.data) && isNumberByte(p.data[p.pos]) {
			p.pos++
		}
		lit := string(p.data[start:p.pos])
		f, err := strconv.ParseFloat(lit, 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, &syntaxError{line: n.line, msg: fmt.Sprintf("number %s out of range", lit)}
		}
		n.kind, n.num, n.str = kNumber, f, lit
	}
	return n, nil
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// str reads the string at p.pos. One without escapes and of valid UTF-8
// is its bytes; any other is decoded by encoding/json, so that escapes and
// invalid bytes (U+FFFD) come out as jsonParser's do.
func (p *validJSON) str() (string, error) {
	start := p.pos
	p.pos++
	plain := true
	for {
		c := p.data[p.pos]
		if c == '"' {
			break
		}
		if c == '\\' {
			plain = false
			p.pos++ // the escaped byte cannot end the string
		}
		p.pos++
	}
	p.pos++
	raw := p.data[start+1 : p.pos-1]
	if plain && utf8.Valid(raw) {
		return string(raw), nil
	}
	var s string
	if err := json.Unmarshal(p.data[start:p.pos], &s); err != nil {
		return "", &syntaxError{line: p.line, msg: err.Error()} // not met: json.Valid accepted it
	}
	return s, nil
}
