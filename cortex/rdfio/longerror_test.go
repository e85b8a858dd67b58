package rdfio_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/cortex/rdfio"
)

// TestSyntaxError_LongTokenCut: a syntax error repeats at most a few hundred
// bytes of the token it names, cut with "…": an undefined prefix or a
// relative IRI of megabytes made a message of megabytes (a server's 400
// answer repeated the whole body).
func TestSyntaxError_LongTokenCut(t *testing.T) {
	long := strings.Repeat("a", 4<<20)
	for _, tc := range []struct{ name, format, doc, want string }{
		{"undefined prefix", "turtle", long + ":x <http://e/p> 1 .", `undefined prefix "aaa`},
		{"relative datatype, no base", "turtle", `<http://e/s> <http://e/p> "x"^^<` + long + `> .`, "relative IRI <aaa"},
		{"relative IRI, N-Triples", "ntriples", `<` + long + `> <http://e/p> "x" .`, "relative IRI <aaa"},
		{"multi-byte text", "turtle", strings.Repeat("é", 1<<20) + ":x <http://e/p> 1 .", `undefined prefix "ééé`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := rdfio.ReadAll(strings.NewReader(tc.doc), tc.format, rdfio.DecodeOptions{})
			var se *rdfio.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("err %v, want a *SyntaxError", err)
			}
			if len(se.Msg) > 1024 || !strings.Contains(se.Msg, tc.want) || !strings.Contains(se.Msg, "…") || !strings.Contains(se.Msg, "aaa…") && !strings.Contains(se.Msg, "é…") {
				t.Fatalf("message of %d bytes: %.300s", len(se.Msg), se.Msg)
			}
		})
	}
}
