package results_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/results"
)

func ExampleLookup() {
	f, err := results.Lookup("tsv")
	if err != nil {
		fmt.Println(err)
		return
	}
	w, err := f.NewWriter(os.Stdout, []string{"who", "name"})
	if err != nil {
		fmt.Println(err)
		return
	}
	w.Write(results.Row{quad.IRI("http://example.org/alice"), quad.LangString{Value: "Alice", Lang: "en"}})
	w.Write(results.Row{quad.BNode("b0"), nil})
	if err := w.Close(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// ?who	?name
	// <http://example.org/alice>	"Alice"@en
	// _:b0
}

func ExampleTable() {
	f := results.Table(results.DefaultTableOptions().WithPrefixes(map[string]string{"ex": "http://example.org/"}))
	w, _ := f.NewWriter(os.Stdout, []string{"s", "age"})
	w.Write(results.Row{quad.IRI("http://example.org/alice"), quad.TypedString{Value: "42", Type: "http://www.w3.org/2001/XMLSchema#integer"}})
	w.Write(results.Row{quad.IRI("http://example.org/bob"), nil})
	w.Close()
	f.WriteBoolean(os.Stdout, true)
	// Output:
	// | ?s       | ?age |
	// |----------|------|
	// | ex:alice | 42   |
	// | ex:bob   |      |
	// true
}

func ExampleEquivalent() {
	expected, _ := results.ReadTSV(strings.NewReader("?x\t?y\n_:a\t1\n_:b\t2\n"))
	actual, _ := results.ReadJSON(strings.NewReader(`{"head":{"vars":["y","x"]},"results":{"bindings":[
		{"x":{"type":"bnode","value":"n2"},"y":{"type":"literal","value":"2","datatype":"http://www.w3.org/2001/XMLSchema#integer"}},
		{"x":{"type":"bnode","value":"n1"},"y":{"type":"literal","value":"1","datatype":"http://www.w3.org/2001/XMLSchema#integer"}}]}}`))
	fmt.Println(results.Equivalent(expected, actual, false))
	fmt.Println(results.Equivalent(expected, actual, true))
	// Output:
	// true
	// false
}
