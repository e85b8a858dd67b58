package sparql_test

import (
	"context"
	"errors"
	"strings"
	"testing"

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
