package parser_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/cortex/sparql/parser"
)

// looksContext is a context that ends (context.Canceled) once its Err has
// been called ends times (never when ends is 0), and counts the calls.
type looksContext struct {
	context.Context
	ends, looks int
}

func (c *looksContext) Err() error {
	c.looks++
	if c.ends > 0 && c.looks >= c.ends {
		return context.Canceled
	}
	return nil
}

// TestParseContext_StopsWithContext: parsing looked at no context, so the
// timeout of a query did not bound the parse of a huge text. ParseContext
// looks at its context every ctxEvery tokens, while lexing and while parsing,
// and returns its error (here the text ends with a syntax error, which a
// parse that does not stop reports instead).
func TestParseContext_StopsWithContext(t *testing.T) {
	text := "SELECT * {" + strings.Repeat(" ?s ?p ?o .", 20000) + " ?s ?p }"
	full := &looksContext{Context: context.Background()}
	if _, err := parser.ParseContext(full, text, parser.Options{}); !errors.As(err, new(*parser.SyntaxError)) {
		t.Fatalf("err = %v, want the syntax error at the end", err)
	}
	// One look when it starts, one every 1,024 tokens of the 80,000 (lexing), one every 1,024 read
	// (parsing).
	if full.looks < 150 {
		t.Fatalf("the context was looked at %d times, want at least 150", full.looks)
	}
	for _, tc := range []struct {
		name string
		ends int
	}{
		{"already ended", 1},
		{"while lexing", 10},
		{"while parsing", full.looks - 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := &looksContext{Context: context.Background(), ends: tc.ends}
			q, err := parser.ParseContext(ctx, text, parser.Options{})
			if q != nil || err != context.Canceled {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if ctx.looks != tc.ends {
				t.Fatalf("the context was looked at %d times, want %d (stopped at the first ended look)", ctx.looks, tc.ends)
			}
		})
	}
}
