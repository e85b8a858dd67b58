package rdfio

import (
	"fmt"
	"unicode/utf8"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/internal/iri"
	"github.com/cortexgraph/cortex/cortex/internal/lex"
)

// scanner reads N-Triples/N-Quads terms from an in-memory chunk of input.
// It is shared by the line decoder and ParseTerm.
type scanner struct {
	buf       []byte
	pos       int
	line      int // 1-based line of buf[lineStart]
	lineStart int // offset in buf where the current line starts (may be negative for long lines split across chunks; never in practice)
	file      string
	bprefix   string            // prepended to blank node labels
	intern    map[string]string // small cache for repeated IRIs (predicates, datatypes, graphs)
	scratch   []byte
	lastIRI   string
	// more, if not nil, reads the next piece of the line into buf when
	// white space ends buf (a piece cut there), reporting whether there
	// is one.
	more func() bool
}

const maxIntern = 4096

func (s *scanner) errf(pos int, format string, args ...any) error {
	return &SyntaxError{File: s.file, Line: s.line, Col: pos - s.lineStart + 1, Msg: fmt.Sprintf(format, clipArgs(args)...)}
}

func (s *scanner) skipSpace() {
	for {
		for s.pos < len(s.buf) && (s.buf[s.pos] == ' ' || s.buf[s.pos] == '\t') {
			s.pos++
		}
		if s.pos < len(s.buf) || s.more == nil || !s.more() {
			return
		}
	}
}

// term parses an IRI, blank node or literal at s.pos.
func (s *scanner) term(intern bool) (quad.Value, error) {
	if s.pos >= len(s.buf) {
		return nil, s.errf(s.pos, "unexpected end of line, expected a term")
	}
	switch s.buf[s.pos] {
	case '<':
		iri, err := s.iri(intern)
		if err != nil {
			return nil, err
		}
		return quad.IRI(iri), nil
	case '_':
		return s.bnode()
	case '"':
		return s.literal()
	}
	return nil, s.errf(s.pos, "unexpected %s, expected a term", describeByte(s.buf, s.pos))
}

func describeByte(b []byte, pos int) string {
	if pos >= len(b) {
		return "end of line"
	}
	r, _ := lex.DecodeRune(b[pos:])
	switch r {
	case '\n', '\r':
		return "end of line"
	case lex.Invalid:
		return fmt.Sprintf("invalid UTF-8 byte %#02x", b[pos])
	}
	return fmt.Sprintf("%q", r)
}

// badIRIByte reports whether c cannot appear in an IRIREF, raw or as a
// UCHAR (lex.NotInIRI).
func badIRIByte(c byte) bool { return lex.NotInIRI(c) }

// iri parses <...> at s.pos; the IRI must be absolute.
func (s *scanner) iri(intern bool) (string, error) {
	start := s.pos
	i := s.pos + 1
	escaped, high := false, false
	for ; i < len(s.buf); i++ {
		c := s.buf[i]
		if c == '>' {
			break
		}
		if c == '\\' {
			escaped = true
			continue
		}
		if c >= 0x80 {
			high = true
			continue
		}
		if badIRIByte(c) {
			if c == '\n' || c == '\r' {
				return "", s.errf(start, "unterminated IRI")
			}
			return "", s.errf(i, "character %q not allowed in IRI", c)
		}
	}
	if i >= len(s.buf) {
		return "", s.errf(start, "unterminated IRI")
	}
	raw := s.buf[start+1 : i]
	s.pos = i + 1
	if high && !utf8.Valid(raw) {
		return "", s.errf(start, "IRI is not valid UTF-8")
	}
	if escaped {
		var err error
		raw, err = s.unescapeIRI(raw, start+1)
		if err != nil {
			return "", err
		}
	}
	if !iri.HasScheme(raw) {
		return "", s.errf(start, "relative IRI <%s> not allowed", raw)
	}
	if intern && !escaped {
		if v, ok := s.intern[string(raw)]; ok {
			return v, nil
		}
		v := string(raw)
		if s.intern != nil && len(s.intern) < maxIntern {
			s.intern[v] = v
		}
		return v, nil
	}
	// consecutive statements usually share their subject
	if string(raw) == s.lastIRI {
		return s.lastIRI, nil
	}
	s.lastIRI = string(raw)
	return s.lastIRI, nil
}

func (s *scanner) unescapeIRI(raw []byte, off int) ([]byte, error) {
	out := s.scratch[:0]
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		r, n, err := s.uchar(raw, i, off)
		if err != nil {
			return nil, err
		}
		if r < 0x80 && badIRIByte(byte(r)) {
			return nil, s.errf(off+i, "escaped character %q not allowed in IRI", r)
		}
		out = utf8.AppendRune(out, r)
		i += n - 1
	}
	s.scratch = out
	return out, nil
}

// uchar decodes the UCHAR at b[i] (see lex.UCHAR); off is the offset of b in
// s.buf.
func (s *scanner) uchar(b []byte, i, off int) (rune, int, error) {
	r, n, err := lex.UCHAR(b[i:])
	if err != nil {
		return 0, 0, s.errf(off+i, "%v", err)
	}
	return r, n, nil
}

// bnode parses _:label at s.pos.
func (s *scanner) bnode() (quad.Value, error) {
	start := s.pos
	if s.pos+1 >= len(s.buf) || s.buf[s.pos+1] != ':' {
		return nil, s.errf(start, "expected ':' after '_' in blank node")
	}
	i := s.pos + 2
	if i >= len(s.buf) {
		return nil, s.errf(i, "empty blank node label")
	}
	r, n := lex.DecodeRune(s.buf[i:])
	if !lex.IsLabelStart(r) {
		if r == lex.Invalid {
			return nil, s.errf(i, "%s at the start of a blank node label", describeByte(s.buf, i))
		}
		return nil, s.errf(i, "character %q not allowed at the start of a blank node label", r)
	}
	i += n
	end := i // end of the label without trailing dots
	for i < len(s.buf) {
		c := s.buf[i]
		if c < 0x80 {
			if c == '.' {
				i++
				continue
			}
			if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' {
				i++
				end = i
				continue
			}
			break
		}
		r, n := lex.DecodeRune(s.buf[i:])
		if !lex.IsPNChars(r) {
			break
		}
		i += n
		end = i
	}
	label := s.buf[start+2 : end]
	s.pos = end
	s.scratch = append(append(s.scratch[:0], s.bprefix...), label...)
	return quad.BNode(s.scratch), nil
}

// literal parses "..." with an optional @lang or ^^<datatype>.
func (s *scanner) literal() (quad.Value, error) {
	start := s.pos
	i := s.pos + 1
	escaped, high := false, false
	for ; i < len(s.buf); i++ {
		c := s.buf[i]
		if c == '"' {
			break
		}
		switch {
		case c == '\\':
			escaped = true
			i++ // skip the escaped byte (validated below)
		case c == '\n' || c == '\r':
			return nil, s.errf(start, "unterminated string literal")
		case c >= 0x80:
			high = true
		}
	}
	if i >= len(s.buf) {
		return nil, s.errf(start, "unterminated string literal")
	}
	raw := s.buf[start+1 : i]
	s.pos = i + 1
	if high && !utf8.Valid(raw) {
		return nil, s.errf(start, "string literal is not valid UTF-8")
	}
	var val string
	if escaped {
		out, err := s.unescapeString(raw, start+1)
		if err != nil {
			return nil, err
		}
		val = string(out)
	} else {
		val = string(raw)
	}
	// White space may separate the string from its language tag or '^^', and
	// '^^' from the datatype: they are distinct terminals of rule literal.
	// (Skipping it is harmless where neither follows: what follows a term
	// skips it too.)
	if s.pos < len(s.buf) && (s.buf[s.pos] == ' ' || s.buf[s.pos] == '\t') {
		s.skipSpace()
	}
	if s.pos < len(s.buf) {
		switch s.buf[s.pos] {
		case '@':
			lstart := s.pos + 1
			j := lstart
			for j < len(s.buf) && (isAlnum(s.buf[j]) || s.buf[j] == '-') {
				j++
			}
			lang := s.buf[lstart:j]
			if !lex.IsLangTag(string(lang)) {
				return nil, s.errf(s.pos, "bad language tag %q", lang)
			}
			s.pos = j
			var l string
			if v, ok := s.intern[string(lang)]; ok {
				l = v
			} else {
				l = string(lang)
			}
			return quad.LangString{Value: quad.String(val), Lang: l}, nil
		case '^':
			if s.pos+1 >= len(s.buf) || s.buf[s.pos+1] != '^' {
				return nil, s.errf(s.pos, "expected '^^' before datatype")
			}
			s.pos += 2
			s.skipSpace()
			if s.pos >= len(s.buf) || s.buf[s.pos] != '<' {
				return nil, s.errf(s.pos, "expected datatype IRI after '^^'")
			}
			dtPos := s.pos
			dt, err := s.iri(true)
			if err != nil {
				return nil, err
			}
			switch dt {
			case xsdString:
				return quad.String(val), nil
			case rdfLangString:
				return nil, s.errf(dtPos, msgLangStringNoTag)
			}
			return quad.TypedString{Value: quad.String(val), Type: quad.IRI(dt)}, nil
		}
	}
	return quad.String(val), nil
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (s *scanner) unescapeString(raw []byte, off int) ([]byte, error) {
	out := s.scratch[:0]
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		if i+1 >= len(raw) {
			return nil, s.errf(off+i, "incomplete escape sequence")
		}
		if c, ok := lex.ECHAR(raw[i+1]); ok {
			out = append(out, c)
			i++
			continue
		}
		r, n, err := s.uchar(raw, i, off)
		if err != nil {
			return nil, err
		}
		out = utf8.AppendRune(out, r)
		i += n - 1
	}
	s.scratch = out
	return out, nil
}
