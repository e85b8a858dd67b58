package rdfio_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/rdfio"
)

// Names made of the characters at both ends of every range of PN_CHARS_BASE
// and of the ranges PN_CHARS adds, as blank node labels and prefixed names.
const (
	pnBaseEnds = "AZaz\u00C0\u00D6\u00D8\u00F6\u00F8\u02FF\u0370\u037D\u037F\u1FFF\u200C\u200D" +
		"\u2070\u218F\u2C00\u2FEF\u3001\uD7FF\uF900\uFDCF\uFDF0\uFFFD\U00010000\U000EFFFF"
	pnCharsEnds = "-09_\u00B7\u0300\u036F\u203F\u2040"
)

// TestDecode_NameBoundaries checks the readers on names at the ends of the
// character ranges (they read them as before the classes moved to
// internal/lex), and that characters just outside the ranges end a name.
func TestDecode_NameBoundaries(t *testing.T) {
	labels := []string{
		"a", "_", "0", "9x", "\u00C0", "\uFFFD", "\U000EFFFF",
		pnBaseEnds, "a" + pnCharsEnds, "a.b..c", "a" + pnCharsEnds + "." + pnBaseEnds,
	}
	for _, f := range []string{rdfio.NTriples, rdfio.NQuads, rdfio.Turtle} {
		for _, l := range labels {
			t.Run(f+"/blank/"+l, func(t *testing.T) {
				got := mustRead(t, f, "_:"+l+" <http://ex.org/p> _:"+l+".\n", rdfio.DecodeOptions{})
				want := quad.BNode(l)
				if f == rdfio.Turtle {
					want = "e" + want // the Turtle reader's labels for written ones
				}
				if len(got) != 1 || got[0].Subject != want || got[0].Object != want {
					t.Fatalf("got %v, want subject and object %q", got, want)
				}
			})
		}
	}
	names := []struct{ prefix, local, iri string }{
		{"", "a", "a"},
		{"p", "_", "_"},
		{"p", "0", "0"},
		{"p", ":", ":"},
		{"p", "a:b:", "a:b:"},
		{"p", "%41", "%41"},
		{"p", `\~a\.`, "~a."},
		{"p", "a.b", "a.b"},
		{pnBaseEnds, pnBaseEnds, pnBaseEnds},
		{"a" + pnCharsEnds + "." + pnBaseEnds, "a" + pnCharsEnds + "." + pnBaseEnds, "a" + pnCharsEnds + "." + pnBaseEnds},
		{"\uFFFD", "\uFFFD", "\uFFFD"},
		{"p", pnCharsEnds[1:], pnCharsEnds[1:]}, // a local name may start with a digit
	}
	for _, n := range names {
		t.Run("turtle/pname/"+n.prefix+":"+n.local, func(t *testing.T) {
			src := "@prefix " + n.prefix + ": <http://ex.org/> .\n" + n.prefix + ":" + n.local + " <http://ex.org/p> <http://ex.org/o>.\n"
			got := mustRead(t, rdfio.Turtle, src, rdfio.DecodeOptions{})
			if len(got) != 1 || got[0].Subject != iri(n.iri) {
				t.Fatalf("got %v, want subject %v", got, iri(n.iri))
			}
		})
	}
	// Characters just outside the ranges are not name characters.
	bad := []struct{ format, src, msg string }{
		{rdfio.NTriples, "_:\u00B7a <http://ex.org/p> <http://ex.org/o> .\n", "not allowed at the start of a blank node label"},
		{rdfio.NTriples, "_:-a <http://ex.org/p> <http://ex.org/o> .\n", "not allowed at the start of a blank node label"},
		{rdfio.NTriples, "_:a\u00D7 <http://ex.org/p> <http://ex.org/o> .\n", "unexpected '×'"},
		{rdfio.NTriples, "_:a:b <http://ex.org/p> <http://ex.org/o> .\n", "unexpected ':'"},
		{rdfio.NQuads, "_:a\uFFFE <http://ex.org/p> <http://ex.org/o> .\n", "unexpected '\\ufffe'"},
		{rdfio.Turtle, "_:\u0300 <http://ex.org/p> <http://ex.org/o> .\n", "blank node label must start with"},
		{rdfio.Turtle, "@prefix \u00B7: <http://ex.org/> .\n", "unexpected '·'"},
		{rdfio.Turtle, "@prefix p: <http://ex.org/> .\np:a\u2041 <http://ex.org/p> <http://ex.org/o> .\n", "unexpected '⁁'"},
		{rdfio.Turtle, "@prefix p: <http://ex.org/> .\np:\u00B7 <http://ex.org/p> <http://ex.org/o> .\n", "unexpected '·'"},
	}
	for _, b := range bad {
		t.Run(b.format+"/bad/"+b.src, func(t *testing.T) {
			err := readErr(t, b.format, b.src, rdfio.DecodeOptions{})
			if !errors.Is(err, rdfio.ErrSyntax) || !strings.Contains(err.Error(), b.msg) {
				t.Fatalf("error %v, want a syntax error containing %q", err, b.msg)
			}
		})
	}
}

// TestDecode_InvalidUTF8InNames checks that a byte that is not valid UTF-8
// is never a name character: it ends a blank node label, a prefix or a local
// name, and is then reported. (The readers used to take it for U+FFFD, a
// name character, and made labels and IRIs that were not valid UTF-8.)
func TestDecode_InvalidUTF8InNames(t *testing.T) {
	tests := []struct {
		name, format, src string
		col               int
	}{
		{"LabelStart", rdfio.NTriples, "_:\xffa <http://ex.org/p> <http://ex.org/o> .\n", 3},
		{"LabelMiddle", rdfio.NTriples, "_:a\xffb <http://ex.org/p> <http://ex.org/o> .\n", 4},
		{"LabelEnd", rdfio.NQuads, "<http://ex.org/s> <http://ex.org/p> _:a\x80 .\n", 40},
		{"TruncatedSequence", rdfio.NQuads, "_:a\xef\xbf <http://ex.org/p> <http://ex.org/o> .\n", 4},
		{"TurtleLabel", rdfio.Turtle, "_:a\xffb <http://ex.org/p> <http://ex.org/o> .\n", 4},
		{"TurtleLabelStart", rdfio.Turtle, "_:\xff <http://ex.org/p> <http://ex.org/o> .\n", 3},
		{"Prefix", rdfio.Turtle, "@prefix ab\xffc: <http://ex.org/> .\n", 11},
		{"Word", rdfio.Turtle, "@prefix p: <http://ex.org/> .\np:s p:p tr\xffue .\n", 11},
		{"PrefixStart", rdfio.Turtle, "\xff:a <http://ex.org/p> <http://ex.org/o> .\n", 1},
		{"LocalName", rdfio.Turtle, "@prefix p: <http://ex.org/> .\np:a\xffb <http://ex.org/p> <http://ex.org/o> .\n", 4},
		{"LocalNameStart", rdfio.Turtle, "@prefix p: <http://ex.org/> .\np:\xff <http://ex.org/p> <http://ex.org/o> .\n", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := readErr(t, tt.format, tt.src, rdfio.DecodeOptions{})
			var se *rdfio.SyntaxError
			if !errors.As(err, &se) || !strings.Contains(se.Msg, "invalid UTF-8") {
				t.Fatalf("error %v, want a *SyntaxError about invalid UTF-8", err)
			}
			if se.Col != tt.col {
				t.Errorf("column %d, want %d (%v)", se.Col, tt.col, err)
			}
		})
	}
}
