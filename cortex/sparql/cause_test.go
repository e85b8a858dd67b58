package sparql_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/cortex/sparql"
)

// TestQuery_ContextCause checks that a query stopped by a context cancelled
// with a cause reports the cause and still matches context.Canceled.
func TestQuery_ContextCause(t *testing.T) {
	cause := errors.New("the agent went away")
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, context.Canceled) || !errors.Is(err, cause) || !strings.Contains(err.Error(), cause.Error()) {
			t.Fatalf("%s: err = %v, want context.Canceled with cause %q", what, err, cause)
		}
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	_, err := sparql.Query(ctx, bindData(), `ASK { ?s ?p ?o FILTER(?o = "absent") }`, sparql.Options{})
	check("ask", err)

	// Compilation looks at the context, so the query may stop before it returns a result.
	res, err := sparql.Query(ctx, bindData(), `SELECT * WHERE { ?s ?p ?o }`, sparql.Options{})
	if err == nil {
		defer res.Close()
		for res.Next(ctx) {
		}
		err = res.Err()
	}
	check("select", err)
}

// TestQuery_ParseStopsWithContext: a query's context (and Options.Timeout)
// did not bound the parsing of its text, so a huge query's parse could not be
// stopped. A query whose context has ended while it is parsed fails with the
// error an evaluation stopped by it returns, not with what the parse would
// have found (here a syntax error at the end).
func TestQuery_ParseStopsWithContext(t *testing.T) {
	text := "SELECT * {" + strings.Repeat(" ?s ?p ?o .", 5000) + " ?s ?p }"
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	// What an evaluation stopped by the same context returns.
	res, err := sparql.Query(ctx, bindData(), `SELECT * WHERE { ?s ?p ?o }`, sparql.Options{})
	if err == nil {
		for res.Next(ctx) {
		}
		err = res.Err()
		res.Close()
	}
	want := err
	if !errors.Is(want, context.DeadlineExceeded) {
		t.Fatalf("evaluation: err = %v, want context.DeadlineExceeded", want)
	}
	_, err = sparql.Query(ctx, bindData(), text, sparql.Options{})
	if !errors.Is(err, context.DeadlineExceeded) || err.Error() != want.Error() {
		t.Fatalf("parse: err = %v, want %v", err, want)
	}
	_, err = sparql.Explain(ctx, bindData(), text, sparql.Options{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("explain: err = %v, want context.DeadlineExceeded", err)
	}
}
