package iri_test

import (
	"fmt"

	"github.com/cortexgraph/cortex/cortex/internal/iri"
)

func ExampleResolve() {
	s, err := iri.Resolve("http://example.org/team/a/", "../b/findings#f1")
	fmt.Println(s, err)
	// Output: http://example.org/team/b/findings#f1 <nil>
}
