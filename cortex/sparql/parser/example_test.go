package parser_test

import (
	"fmt"

	"github.com/cortexgraph/cortex/cortex/sparql/parser"
)

func ExampleParse() {
	q, err := parser.Parse(`
		PREFIX cx: <urn:cortex:vocab:>
		SELECT ?team (COUNT(?m) AS ?members)
		WHERE { ?m cx:memberOf ?team FILTER(?team != cx:none) }
		GROUP BY ?team
		ORDER BY DESC(?members)
		LIMIT 3`, parser.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(q.Pattern)
	// Output:
	// (slice _ 3
	//   (project (?team ?members)
	//     (order ((desc ?members))
	//       (extend (?members ??.a0)
	//         (group (?team) ((??.a0 (count ?m)))
	//           (filter (!= ?team <urn:cortex:vocab:none>)
	//             (bgp
	//               (triple ?m <urn:cortex:vocab:memberOf> ?team))))))))
}

func ExampleSyntaxError() {
	_, err := parser.Parse("SELECT ?x WHERE {\n  ?x ?p\n}", parser.Options{})
	fmt.Println(err)
	// Output:
	// 3:1: expected variable or RDF term, found '}'
}
