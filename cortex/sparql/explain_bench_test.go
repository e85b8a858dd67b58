package sparql_test

import (
	"context"
	"sort"
	"testing"
	"time"

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
		start := time.Now()
		p, err := ns.Explain(context.Background(), qs[n], sparql.Options{})
		if err != nil {
			b.Fatal(err)
		}
		// The first plan of a query in a process gathers its statistics (cached until the next write).
		b.Logf("%s (planned in %v):\n%s", n, time.Since(start).Round(time.Microsecond), p)
	}
}
