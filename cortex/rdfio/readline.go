package rdfio

import (
	"bufio"
	"bytes"

	"github.com/cortexgraph/cortex/cortex/internal/lex"
)

// lineReader reads input a line at a time (readLine).
type lineReader struct {
	r    *bufio.Reader
	long []byte // a line longer than r's buffer
	err  error  // the read error met after a whole line, for the next readLine
	// cut says that a line longer than r's buffer may be returned in
	// pieces cut just after white space (or a ; , ( ) [ or ]) between
	// tokens (cutState): Turtle's grammar allows a whole document on one
	// line, and N-Triples allows any white space between terms.
	cut bool
	// nt says that the input is N-Triples or N-Quads (cutState.nt).
	nt bool
	// max, if not 0, bounds a token that does not fit in r's buffer:
	// its bytes, each escape sequence counted as one (cutState.tok), never
	// more than the term it makes. A larger one ends the line before it,
	// with a *tokenTooLarge error.
	max int
	// skipped is the number of bytes of the last line returned that were
	// left out of it: the end of a comment that did not fit in r's buffer
	// (never held: a comment takes constant memory).
	skipped int
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

// tokenTooLarge is the error of readLine at a token larger than
// lineReader.max, which the line it returns ends just before.
type tokenTooLarge struct{}

func (tokenTooLarge) Error() string { return "token too large" }

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
// tokens (never inside a string, an IRI or a comment). A comment that does
// not fit in r's buffer is returned cut after its '#' (lr.skipped says how
// many bytes are left out), and a token larger than lr.max fails the line
// where it starts (tokenTooLarge), so that neither is ever held whole.
func (lr *lineReader) readLine() ([]byte, error) {
	lr.skipped = 0
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
	cut := cutState{nt: lr.nt, max: lr.max}
	if lr.longQ != 0 {
		// the line starts inside a long string, which started before it
		cut.mode, cut.q, cut.start, lr.longQ = cutLong, lr.longQ, -1, 0
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
			base := 0 // the offset of b in the line
			if gathered {
				base = len(*long)
			}
			c := cut.scan(b, base)
			if lr.cut && c > 0 {
				return done(b, c, nil) // (a token too large after c is met again)
			}
			if cut.over {
				// The line ends where the token starts (its start, if it
				// started on an earlier line).
				lr.err = tokenTooLarge{}
				switch start := max(cut.start, 0); {
				case start >= base:
					return done(b, start-base, lr.err)
				default:
					return (*long)[:start], lr.err
				}
			}
			if cut.mode == cutComment {
				// Keep the comment's '#' and skip the rest, up to the line end.
				gather(b[:cut.comment+1])
				lr.discard(n)
				lr.skipped = n - cut.comment - 1
				for {
					n := r.Buffered()
					b, _ := r.Peek(n)
					if i := indexEOL(b, 0); i < n {
						lr.discard(i)
						lr.skipped += i
						break
					}
					lr.discard(n)
					lr.skipped += n
					if _, err := r.Peek(1); err != nil {
						return *long, err
					}
				}
				scanned = 0
				continue
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
// outside any token but a long string the line starts in), to find where it
// can be cut: after a space or a tab outside strings, IRIs and comments, or
// after a ; , ( ) [ or ], where the lexer is between tokens. It needs no line
// ends (it reads parts of a line without one), and it may find fewer places
// than there are (after a '\\' outside strings, which only PN_LOCAL_ESC
// allows, it skips a byte): cutting less is safe. It also measures the
// token it is in (tok) and tells where a comment starts.
type cutState struct {
	mode uint8
	q    byte // the quote of the string
	run  int  // quotes in a row: opening a string, or closing a long one
	// nt: N-Triples, where only '"' quotes a string and there are no long
	// strings ("""" is an empty string and a quote).
	nt bool
	// max, if not 0, bounds tok: over says that tok went beyond it, in the
	// token that starts at start (-1: before the line).
	max   int
	tok   int  // the bytes of the token so far, each escape counted as one
	start int  // where the token starts, from the start of the line
	word  bool // in a token outside strings and IRIs (a name, a number)
	hex   int  // hex digits of a \u or \U still to skip (not counted)
	over  bool
	// comment is the offset in the last buffer scanned of the '#' that
	// starts the comment it ends in (mode cutComment).
	comment int
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
	cutIRIEsc          // after '\\' in <...>
	cutComment         // from '#' to the end of the line
)

// scan follows b, which continues what the state has followed (base bytes
// of the line before it), and returns the offset just after the last place
// of b where the line can be cut, or 0 if there is none. It stops at a byte
// that makes tok larger than max, setting over.
//
// tok never counts more than the term the token makes: an IRI counts the
// bytes between < and >, a string those between its quotes, a name those
// after its last ':' (the local part of a prefixed name, the label of a
// blank node), each escape sequence (\n, \u0041, \-) counting one byte.
// (A relative IRI with dot segments may resolve to fewer bytes.)
func (s *cutState) scan(b []byte, base int) int {
	last := 0
	open := func(i int) { s.tok, s.start, s.word = 0, base+i, false }
	for i := 0; i < len(b); i++ {
		c := b[i]
		if s.hex > 0 {
			if lex.IsHex(c) {
				s.hex--
				continue
			}
			s.hex = 0
		}
		switch s.mode {
		case cutOut:
			switch c {
			case ' ', '\t':
				last = i + 1
				s.word = false
			case ';', ',', '(', ')', '[', ']':
				last = i + 1
				s.word = false
			case '"', '\'':
				if c == '\'' && s.nt {
					s.word = false // not a token of N-Triples
					continue
				}
				s.mode, s.q, s.run = cutOpen, c, 1
				open(i)
			case '<':
				s.mode = cutIRI
				open(i)
			case '#':
				s.mode, s.comment, s.word = cutComment, i, false
			case '^':
				s.word = false
			case '\\':
				if !s.word {
					open(i)
					s.word = true
				}
				s.mode = cutOutEsc
			case ':':
				if !s.word {
					open(i)
					s.word = true
				}
				s.tok = 0 // the name's local part, or label, follows
			default:
				if !s.word {
					open(i)
					s.word = true
				}
				s.tok++
			}
		case cutOutEsc:
			s.mode = cutOut
			s.tok++
		case cutOpen:
			switch {
			case s.run == 2 && (c != s.q || s.nt): // an empty string, closed: c is outside
				s.mode = cutOut
				i--
			case c == s.q && s.run == 2:
				s.mode, s.run = cutLong, 0
			case c == s.q:
				s.run++
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
			default:
				s.tok++
			}
		case cutShortEsc, cutLongEsc, cutIRIEsc:
			s.tok++
			switch c {
			case 'u':
				s.hex = 4
			case 'U':
				s.hex = 8
			}
			switch s.mode { // back to the mode the escape is in
			case cutShortEsc:
				s.mode = cutShort
			case cutLongEsc:
				s.mode = cutLong
			default:
				s.mode = cutIRI
			}
		case cutLong:
			switch c {
			case s.q:
				if s.run++; s.run == 3 {
					s.mode = cutOut
				}
			case '\\':
				s.tok += s.run
				s.mode, s.run = cutLongEsc, 0
			default:
				s.tok += s.run + 1
				s.run = 0
			}
		case cutIRI:
			switch c {
			case '>':
				s.mode = cutOut
			case '\\':
				s.mode = cutIRIEsc
			default:
				s.tok++
			}
		}
		if s.max > 0 && s.tok > s.max {
			s.over = true
			return last
		}
	}
	return last
}
