package sparql_test

import (
	"context"
	"sort"
	"testing"

	"github.com/cortexgraph/cortex/cortex/sparql"
)

func BenchmarkExplain(b *testing.B) {
	ns := benchNamespace(b)
	qs := benchQueries(b)
	var names []string
	for n := range qs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p, err := ns.Explain(context.Background(), qs[n], sparql.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("%s:\n%s", n, p)
	}
}
