package rdfio

import (
	"bufio"
	"bytes"
)

// lineReader reads input a line at a time (readLine).
type lineReader struct {
	r    *bufio.Reader
	long []byte // a line longer than r's buffer
	err  error  // the read error met after a whole line, for the next readLine
	// cut says that a line longer than r's buffer may be returned in
	// pieces cut just after white space between Turtle tokens (cutState),
	// for Turtle, whose grammar allows a whole document on one line.
	cut bool
	// longQ, when not 0, says that the next line starts inside a long
	// string of three longQ (the lexer sets it before it reads on in one),
	// where cutState starts: a line that starts inside a long string must
	// not take the string's closing quotes for opening ones.
	longQ byte
	// off counts the bytes of the input consumed so far (returned, or
	// skipped): at a read error, the offset of the error.
	off int64
}

// discard drops n buffered bytes, which are consumed.
func (lr *lineReader) discard(n int) {
	_, _ = lr.r.Discard(n) // n bytes are buffered: Discard cannot fail
	lr.off += int64(n)
}

// readLine reads the next line with its line end: up to and including the
// first '\n', or the first '\r' and a '\n' right after it. A CR alone
// ends a line as LF does (N-Triples and Turtle: EOL ::= [#xD#xA]+), so input
// with any line ends is read a line at a time; a CR LF pair is never split
// between two lines.
//
// A line that fits in r's buffer is returned as a slice of it, valid until
// the next read of r; a longer one is gathered in lr.long. At the end of the
// input (or on a read error) the rest is returned, maybe empty, with io.EOF
// (or the error). A line ended by a CR that the end of the input or a read
// error follows is returned whole, without error; the next call returns
// the error. With lr.cut, a line longer than r's buffer may be returned in
// pieces, each but the last ending with a space or a tab between Turtle
// tokens (never inside a string, an IRI or a comment).
func (lr *lineReader) readLine() ([]byte, error) {
	if lr.err != nil {
		return nil, lr.err
	}
	r, long := lr.r, &lr.long
	gathered := false // the start of the line is in *long
	gather := func(b []byte) {
		if !gathered {
			*long = (*long)[:0]
			gathered = true
		}
		*long = append(*long, b...)
	}
	done := func(b []byte, n int, err error) ([]byte, error) {
		if b == nil {
			// a failed Peek may have moved the buffered bytes: take them all
			b, _ = r.Peek(r.Buffered())
			n = len(b)
		}
		line := b[:n]
		if gathered {
			gather(line)
			line = *long
		}
		lr.discard(n)
		return line, err
	}
	scanned := 0 // bytes of the buffer known to hold no line end
	cut := cutState{}
	if lr.longQ != 0 {
		cut.mode, cut.q, lr.longQ = cutLong, lr.longQ, 0
	}
	for {
		n := r.Buffered()
		b, _ := r.Peek(n) // no read: n bytes are buffered
		i := indexEOL(b, scanned)
		scanned = i
		switch {
		case i < n && (b[i] == '\n' || i+1 < n):
			if b[i] == '\r' && b[i+1] == '\n' {
				i++
			}
			return done(b, i+1, nil)
		case i < n && n < r.Size():
			// a CR last in the buffer: read on to see whether LF follows
			if _, err := r.Peek(n + 1); err != nil {
				lr.err = err // the line is whole
				return done(nil, 0, nil)
			}
		case i < n:
			// a CR last in a full buffer: the line ends with it and with
			// the LF after it, if there is one
			gather(b)
			lr.discard(n)
			b, err := r.Peek(1)
			if err != nil {
				lr.err = err
				return *long, nil
			}
			if b[0] == '\n' {
				return done(b, 1, nil)
			}
			return *long, nil
		case n == r.Size():
			// no line end in a full buffer
			if lr.cut {
				if c := cut.scan(b); c > 0 {
					return done(b, c, nil)
				}
			}
			gather(b)
			lr.discard(n)
			scanned = 0
		default:
			if _, err := r.Peek(n + 1); err != nil {
				return done(nil, 0, err)
			}
		}
	}
}

// indexEOL returns the offset of the first '\n' or '\r' in b from offset
// i, or len(b). It looks through windows of b with bytes.IndexByte, so that
// neither a file without CR nor one without LF is searched to the end of the
// buffer for each line.
func indexEOL(b []byte, i int) int {
	const window = 512
	for i < len(b) {
		w := b[i:min(len(b), i+window)]
		if j := bytes.IndexByte(w, '\n'); j >= 0 {
			w = w[:j]
		}
		if j := bytes.IndexByte(w, '\r'); j >= 0 {
			return i + j
		}
		if len(w) < min(len(b)-i, window) {
			return i + len(w) // the LF
		}
		i += len(w)
	}
	return len(b)
}

// cutState follows a Turtle line from its start or from a cut (both
// outside any token but a long string the line starts in), to find where it can be cut: after a space or a tab
// outside strings, IRIs and comments, where the lexer is between tokens.
// It needs no line ends (it reads parts of a line without one), and it
// may find fewer places than there are (after a '\\' outside strings,
// which only PN_LOCAL_ESC allows, it skips a byte): cutting less is safe.
type cutState struct {
	mode uint8
	q    byte // the quote of the string
	run  int  // quotes in a row: opening a string, or closing a long one
}

const (
	cutOut      = iota // between tokens, or in a token without white space
	cutOutEsc          // after '\\' outside strings (PN_LOCAL_ESC)
	cutOpen            // after run quotes q that open a string
	cutShort           // in a string in quotes q
	cutShortEsc        // after '\\' in a short string
	cutLong            // in a long string (three quotes q); run quotes q seen
	cutLongEsc         // after '\\' in a long string
	cutIRI             // in <...>
	cutComment         // from '#' to the end of the line
)

// scan follows b, which continues what the state has followed, and returns
// the offset just after the last space or tab of b outside strings, IRIs
// and comments, or 0 if there is none.
func (s *cutState) scan(b []byte) int {
	last := 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch s.mode {
		case cutOut:
			switch c {
			case ' ', '\t':
				last = i + 1
			case '"', '\'':
				s.mode, s.q, s.run = cutOpen, c, 1
			case '<':
				s.mode = cutIRI
			case '#':
				s.mode = cutComment
			case '\\':
				s.mode = cutOutEsc
			}
		case cutOutEsc:
			s.mode = cutOut
		case cutOpen:
			switch {
			case c == s.q && s.run == 2:
				s.mode, s.run = cutLong, 0
			case c == s.q:
				s.run++
			case s.run == 2: // an empty string, closed: c is outside
				s.mode = cutOut
				i--
			default: // c is the first character of a short string
				s.mode = cutShort
				i--
			}
		case cutShort:
			switch c {
			case s.q:
				s.mode = cutOut
			case '\\':
				s.mode = cutShortEsc
			}
		case cutShortEsc:
			s.mode = cutShort
		case cutLong:
			switch c {
			case s.q:
				if s.run++; s.run == 3 {
					s.mode = cutOut
				}
			case '\\':
				s.mode, s.run = cutLongEsc, 0
			default:
				s.run = 0
			}
		case cutLongEsc:
			s.mode = cutLong
		case cutIRI:
			if c == '>' {
				s.mode = cutOut
			}
		}
	}
	return last
}
