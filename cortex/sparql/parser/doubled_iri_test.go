package parser_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/parser"
)

// TestParse_DoubledIRI checks the error for "<<iri>>", what fmt.Sprintf("<%s>", v) gives for a
// quad.IRI v (whose String() has its own brackets).
func TestParse_DoubledIRI(t *testing.T) {
	agent := quad.IRI("urn:cortex:acme:agent:alice")
	for _, q := range []string{
		fmt.Sprintf("SELECT * WHERE { %s ?p ?o }", "<"+agent.String()+">"),
		fmt.Sprintf("SELECT * WHERE { ?f <urn:by> <%s> }", agent),
		fmt.Sprintf("SELECT * WHERE { ?f <urn:by> ?a FILTER(?a = <%s>) }", agent),
	} {
		_, err := parser.Parse(q, parser.DefaultOptions())
		var se *parser.SyntaxError
		if !errors.As(err, &se) || !errors.Is(err, parser.ErrSyntax) {
			t.Fatalf("%s: err = %v, want a syntax error", q, err)
		}
		for _, want := range []string{"'<<urn:cortex:acme:agent:alice>>' is not an IRI", "quad.IRI", "<urn:cortex:acme:agent:alice>", "parameter"} {
			if !strings.Contains(se.Msg, want) {
				t.Fatalf("%s: message %q lacks %q", q, se.Msg, want)
			}
		}
		if col := strings.Index(q, "<<") + 1; se.Line != 1 || se.Col != col {
			t.Fatalf("%s: error at %d:%d, want 1:%d", q, se.Line, se.Col, col)
		}
	}
	// A less-than followed by an IRI is still an expression.
	if _, err := parser.Parse("SELECT * WHERE { ?s ?p ?o FILTER(?o<<urn:x>) }", parser.DefaultOptions()); err != nil {
		t.Fatalf("?o<<urn:x>: %v", err)
	}
}
