package builtin_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/builtin"
)

// input is one Add call.
type input struct {
	v   quad.Value
	err error
}

func ok(vs ...quad.Value) []input {
	out := make([]input, len(vs))
	for i, v := range vs {
		out[i] = input{v: v}
	}
	return out
}

var errExpr = fmt.Errorf("expression failed: %w", builtin.ErrType)

func TestAggregate(t *testing.T) {
	E := builtin.ErrType
	tests := []struct {
		name     string
		agg      string
		distinct bool
		sep      string
		in       []input
		want     quad.Value
		wantErr  error
	}{
		// COUNT (agg01..agg05 style): errors are skipped, (nil, nil) is COUNT(*).
		{"count empty", "COUNT", false, "", nil, integer("0"), nil},
		{"count", "COUNT", false, "", ok(integer("1"), str("a"), integer("1")), integer("3"), nil},
		{"count distinct", "COUNT", true, "", ok(integer("1"), str("a"), integer("1"), integer("01")), integer("3"), nil},
		{"count skips errors", "COUNT", false, "", append(ok(str("a")), input{err: errExpr}, input{err: builtin.ErrUnbound}), integer("1"), nil},
		{"count star", "COUNT", false, "", ok(nil, nil, nil), integer("3"), nil},
		// SUM (agg-sum-01/02, agg-err-01)
		{"sum empty", "SUM", false, "", nil, integer("0"), nil},
		{"sum ints", "SUM", false, "", ok(integer("1"), integer("2"), integer("3")), integer("6"), nil},
		{"sum mixed", "SUM", false, "", ok(integer("1"), decimal("2.2"), integer("3")), decimal("6.2"), nil},
		{"sum double", "SUM", false, "", ok(integer("1"), double("0.5")), double("1.5E0"), nil},
		{"sum distinct", "SUM", true, "", ok(integer("1"), integer("1"), integer("2")), integer("3"), nil},
		{"sum big", "SUM", false, "", ok(integer("9223372036854775807"), integer("9223372036854775807")), integer("18446744073709551614"), nil},
		{"sum non-number", "SUM", false, "", ok(integer("1"), str("2")), nil, E},
		{"sum error", "SUM", false, "", append(ok(integer("1")), input{err: errExpr}), nil, E},
		{"sum unbound", "SUM", false, "", append(ok(integer("1")), input{err: builtin.ErrUnbound}), nil, E},
		// AVG (agg-avg-01/02, agg-err-01)
		{"avg empty", "AVG", false, "", nil, integer("0"), nil},
		{"avg ints", "AVG", false, "", ok(integer("1"), integer("2")), decimal("1.5"), nil},
		{"avg exact", "AVG", false, "", ok(integer("2"), integer("4")), decimal("3.0"), nil},
		{"avg decimals", "AVG", false, "", ok(decimal("1.0"), decimal("2.2"), decimal("3.5")), decimal("2.233333333333333333333333"), nil},
		{"avg double", "AVG", false, "", ok(double("1"), integer("2")), double("1.5E0"), nil},
		{"avg distinct", "AVG", true, "", ok(integer("1"), integer("1"), integer("4")), decimal("2.5"), nil},
		{"avg error", "AVG", false, "", ok(integer("1"), lang("x", "en")), nil, E},
		// MIN/MAX use the ORDER BY order and skip errors (agg-min-01, agg-max-01)
		{"min empty", "MIN", false, "", nil, nil, nil},
		{"min numbers", "MIN", false, "", ok(integer("3"), decimal("1.5"), double("2")), decimal("1.5"), nil},
		{"max numbers", "MAX", false, "", ok(integer("3"), decimal("1.5"), double("2")), integer("3"), nil},
		{"min mixed", "MIN", false, "", ok(str("a"), integer("9"), iri("http://x")), iri("http://x"), nil},
		{"max mixed", "MAX", false, "", ok(str("a"), integer("9"), iri("http://x")), str("a"), nil},
		{"min skips errors", "MIN", false, "", append(ok(integer("3")), input{err: errExpr}, input{err: builtin.ErrUnbound}), integer("3"), nil},
		{"max only errors", "MAX", false, "", []input{{err: errExpr}}, nil, nil},
		// SAMPLE
		{"sample empty", "SAMPLE", false, "", nil, nil, nil},
		{"sample", "SAMPLE", false, "", append([]input{{err: errExpr}}, ok(str("a"), str("b"))...), str("a"), nil},
		// GROUP_CONCAT (agg-groupconcat-01..05)
		{"concat empty", "GROUP_CONCAT", false, " ", nil, str(""), nil},
		{"concat default sep", "GROUP_CONCAT", false, builtin.DefaultSeparator, ok(str("a"), str("b")), str("a b"), nil},
		{"concat sep", "GROUP_CONCAT", false, ", ", ok(str("a"), str("b"), str("a")), str("a, b, a"), nil},
		{"concat empty sep", "GROUP_CONCAT", false, "", ok(str("a"), str("b")), str("ab"), nil},
		{"concat distinct", "GROUP_CONCAT", true, "|", ok(str("a"), str("b"), str("a")), str("a|b"), nil},
		{"concat same lang", "GROUP_CONCAT", false, " ", ok(lang("a", "en"), lang("b", "EN")), lang("a b", "en"), nil},
		{"concat mixed lang", "GROUP_CONCAT", false, " ", ok(lang("a", "en"), str("b")), str("a b"), nil},
		// §18.5.1.7 defines GroupConcat by CONCAT, whose arguments are string
		// literals (§17.4.3.12): any other term is a type error for the group.
		{"concat numbers", "GROUP_CONCAT", false, " ", ok(integer("1"), decimal("2.50")), nil, E},
		{"concat number after string", "GROUP_CONCAT", false, " ", ok(str("a"), integer("1")), nil, E},
		{"concat iri", "GROUP_CONCAT", false, " ", ok(iri("http://x")), nil, E},
		{"concat other datatype", "GROUP_CONCAT", false, " ", ok(typed("x", "boolean")), nil, E},
		{"concat xsd:string", "GROUP_CONCAT", false, "|", ok(typed("a", "string"), str("b")), str("a|b"), nil},
		{"concat error", "GROUP_CONCAT", false, " ", append(ok(str("a")), input{err: errExpr}), nil, E},
		{"concat bnode", "GROUP_CONCAT", false, " ", ok(bnode("b")), nil, E},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := builtin.NewAggregate(tt.agg, tt.distinct, tt.sep)
			if err != nil {
				t.Fatal(err)
			}
			for _, in := range tt.in {
				a.Add(in.v, in.err)
			}
			got, err := a.Result()
			checkValue(t, got, err, tt.want, tt.wantErr)
			// Result is repeatable.
			again, err2 := a.Result()
			if again != got || (err == nil) != (err2 == nil) {
				t.Fatalf("second Result() = %#v, %v", again, err2)
			}
		})
	}
}

func TestNewAggregate_Unknown(t *testing.T) {
	if _, err := builtin.NewAggregate("MEDIAN", false, ""); !errors.Is(err, builtin.ErrType) {
		t.Fatalf("err = %v", err)
	}
	for _, n := range builtin.AggregateNames() {
		if _, err := builtin.NewAggregate(n, true, " "); err != nil {
			t.Errorf("NewAggregate(%q): %v", n, err)
		}
	}
}
