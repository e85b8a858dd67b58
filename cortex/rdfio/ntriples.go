package rdfio

import (
	"bufio"
	"io"

	"github.com/cayleygraph/quad"
)

// lineDecoder is our own N-Triples / N-Quads parser: one statement per line,
// constant memory apart from the longest line.
type lineDecoder struct {
	lines  lineReader
	quads  bool
	s      scanner
	err    error
	eof    bool
	start  bool
	closed bool
	limit  termLimit
}

func newLineDecoder(r io.Reader, opts DecodeOptions, quads bool) (Decoder, error) {
	opts, err := opts.validate()
	if err != nil {
		return nil, err
	}
	d := &lineDecoder{
		lines: lineReader{r: bufio.NewReaderSize(r, 64<<10), cut: true, nt: true},
		quads: quads,
		start: true,
	}
	d.s = scanner{line: 1, file: opts.File, bprefix: opts.BlankPrefix, intern: make(map[string]string)}
	d.s.more = d.fill // a line longer than the buffer comes in pieces
	d.limit = opts.termLimit()
	d.lines.max = d.limit.max
	return d, nil
}

// fill reads the next chunk: a line, or a piece of a long one cut at white
// space between terms (see readLine).
func (d *lineDecoder) fill() bool {
	if d.eof {
		return false
	}
	line, err := d.lines.readLine()
	d.s.lineStart -= len(d.s.buf)
	d.s.buf, d.s.pos = line, 0
	if d.start {
		d.start = false
		if len(line) >= 3 && line[0] == 0xEF && line[1] == 0xBB && line[2] == 0xBF {
			d.s.pos, d.s.lineStart = 3, 3 // columns do not count the byte order mark
		}
	}
	if err != nil {
		d.eof = true
		if err != io.EOF {
			// The statement the error cuts is not read: the error is
			// where the input ends (a token too large starts there).
			col := len(line) - d.s.lineStart + 1
			if _, ok := err.(tokenTooLarge); ok {
				d.err = &SyntaxError{File: d.s.file, Line: d.s.line, Col: col, Msg: d.limit.msg(-1)}
			} else {
				d.err = &ReadError{File: d.s.file, Line: d.s.line, Col: col + d.lines.skipped, Offset: d.lines.off, Err: err}
			}
			d.s.buf, d.s.pos = line[:0], 0
			return false
		}
	}
	return len(line) > 0
}

func (d *lineDecoder) Next() (quad.Quad, error) {
	if d.closed {
		return quad.Quad{}, ErrDecoderClosed
	}
	if d.err != nil {
		return quad.Quad{}, d.err
	}
	s := &d.s
	for {
		for s.pos < len(s.buf) {
			switch c := s.buf[s.pos]; c {
			case ' ', '\t':
				s.pos++
			case '\n':
				s.pos++
				s.line++
				s.lineStart = s.pos
			case '\r':
				s.pos++
				if s.pos < len(s.buf) && s.buf[s.pos] == '\n' {
					s.pos++
				}
				s.line++
				s.lineStart = s.pos
			case '#':
				for s.pos < len(s.buf) && s.buf[s.pos] != '\n' && s.buf[s.pos] != '\r' {
					s.pos++
				}
			default:
				q, err := d.statement()
				if err != nil {
					if d.err == nil {
						// (else a read error, or a token too large, cut
						// the statement: it is the error)
						d.err = err
					}
					return quad.Quad{}, d.err
				}
				return q, nil
			}
		}
		if !d.fill() {
			if d.err != nil {
				return quad.Quad{}, d.err
			}
			return quad.Quad{}, io.EOF
		}
	}
}

// sized refuses a term v larger than d.maxTerm, at pos where it starts.
func (d *lineDecoder) sized(v quad.Value, pos int) error {
	if msg := d.limit.check(v); msg != "" {
		return d.s.errf(pos, "%s", msg)
	}
	return nil
}

func (d *lineDecoder) statement() (quad.Quad, error) {
	s := &d.s
	var q quad.Quad
	switch start := s.pos; s.buf[s.pos] {
	case '<', '_':
		v, err := s.term(false)
		if err == nil {
			err = d.sized(v, start)
		}
		if err != nil {
			return q, err
		}
		q.Subject = v
	default:
		return q, s.errf(s.pos, "unexpected %s, expected subject IRI or blank node", describeByte(s.buf, s.pos))
	}
	s.skipSpace()
	if s.pos >= len(s.buf) || s.buf[s.pos] != '<' {
		return q, s.errf(s.pos, "unexpected %s, expected predicate IRI", describeByte(s.buf, s.pos))
	}
	start := s.pos
	p, err := s.iri(true)
	if err == nil {
		err = d.sized(quad.IRI(p), start)
	}
	if err != nil {
		return q, err
	}
	q.Predicate = quad.IRI(p)
	s.skipSpace()
	start = s.pos
	if q.Object, err = s.term(false); err == nil {
		err = d.sized(q.Object, start)
	}
	if err != nil {
		return q, err
	}
	s.skipSpace()
	if d.quads && s.pos < len(s.buf) && (s.buf[s.pos] == '<' || s.buf[s.pos] == '_') {
		start = s.pos
		if s.buf[s.pos] == '<' {
			g, err := s.iri(true)
			if err != nil {
				return q, err
			}
			q.Label = quad.IRI(g)
		} else if q.Label, err = s.bnode(); err != nil {
			return q, err
		}
		if err := d.sized(q.Label, start); err != nil {
			return q, err
		}
		s.skipSpace()
	}
	if s.pos >= len(s.buf) || s.buf[s.pos] != '.' {
		what := "'.'"
		if d.quads {
			what = "graph label or '.'"
		}
		return q, s.errf(s.pos, "unexpected %s, expected %s", describeByte(s.buf, s.pos), what)
	}
	s.pos++
	s.skipSpace()
	if s.pos < len(s.buf) {
		switch s.buf[s.pos] {
		case '#', '\n', '\r':
		default:
			return q, s.errf(s.pos, "unexpected %s after '.', expected end of line", describeByte(s.buf, s.pos))
		}
	}
	return q, nil
}

func (d *lineDecoder) Close() error {
	d.closed = true
	return nil
}
