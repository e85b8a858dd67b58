package builtin_test

import (
	"errors"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/builtin"
)

const xsd = "http://www.w3.org/2001/XMLSchema#"

func typed(lex, dt string) quad.Value {
	return quad.TypedString{Value: quad.String(lex), Type: quad.IRI(xsd + dt)}
}

func integer(lex string) quad.Value { return typed(lex, "integer") }
func decimal(lex string) quad.Value { return typed(lex, "decimal") }
func double(lex string) quad.Value  { return typed(lex, "double") }
func float(lex string) quad.Value   { return typed(lex, "float") }
func boolean(lex string) quad.Value { return typed(lex, "boolean") }
func dateTime(lex string) quad.Value {
	return typed(lex, "dateTime")
}
func str(s string) quad.Value       { return quad.String(s) }
func lang(s, tag string) quad.Value { return quad.LangString{Value: quad.String(s), Lang: tag} }
func iri(s string) quad.Value       { return quad.IRI(s) }
func bnode(s string) quad.Value     { return quad.BNode(s) }
func other(lex, dt string) quad.Value {
	return quad.TypedString{Value: quad.String(lex), Type: quad.IRI(dt)}
}
func xsdString(s string) quad.Value      { return typed(s, "string") }
func vals(vs ...quad.Value) []quad.Value { return vs }

var (
	T = boolean("true")
	F = boolean("false")
)

// checkValue compares a result with the expected term (exact term, not
// value equality) or the expected error sentinel.
func checkValue(t *testing.T, got quad.Value, err error, want quad.Value, wantErr error) {
	t.Helper()
	if wantErr != nil {
		if !errors.Is(err, wantErr) {
			t.Fatalf("got (%#v, %v), want error %v", got, err, wantErr)
		}
		return
	}
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	if got != want {
		t.Fatalf("got %#v, want %#v", got, want)
	}
}

var _ = builtin.ErrType
