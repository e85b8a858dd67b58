package builtin_test

import (
	"errors"
	"fmt"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/builtin"
)

func ExampleAdd() {
	one := quad.TypedString{Value: "1", Type: builtin.XSDInteger}
	half := quad.TypedString{Value: "0.5", Type: builtin.XSDDecimal}
	sum, _ := builtin.Add(one, half)
	fmt.Println(sum)
	q, _ := builtin.Div(one, quad.TypedString{Value: "4", Type: builtin.XSDInteger})
	fmt.Println(q)
	_, err := builtin.Div(one, quad.TypedString{Value: "0", Type: builtin.XSDInteger})
	fmt.Println(errors.Is(err, builtin.ErrType))
	// Output:
	// "1.5"^^<http://www.w3.org/2001/XMLSchema#decimal>
	// "0.25"^^<http://www.w3.org/2001/XMLSchema#decimal>
	// true
}

func ExampleCallWithContext() {
	ctx := &builtin.Context{Base: "http://example.org/"}
	v, _ := builtin.CallWithContext(ctx, "IRI", []quad.Value{quad.String("doc")})
	fmt.Println(v)
	v, _ = builtin.Call("STRBEFORE", []quad.Value{quad.LangString{Value: "abc", Lang: "en"}, quad.String("c")})
	fmt.Println(v)
	_, err := builtin.Call("STRBEFORE", []quad.Value{quad.String("abc"), quad.LangString{Value: "c", Lang: "en"}})
	fmt.Println(err)
	// Output:
	// <http://example.org/doc>
	// "ab"@en
	// STRBEFORE: incompatible arguments "abc" and "c"@en: type error
}

func ExampleNewAggregate() {
	avg, _ := builtin.NewAggregate("AVG", false, "")
	for _, s := range []string{"1", "2", "4"} {
		avg.Add(quad.TypedString{Value: quad.String(s), Type: builtin.XSDInteger}, nil)
	}
	v, _ := avg.Result()
	fmt.Println(v)
	// Output:
	// "2.333333333333333333333333"^^<http://www.w3.org/2001/XMLSchema#decimal>
}
