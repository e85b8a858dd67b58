package cortex_test

import (
	"context"
	"testing"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
)

// BenchmarkCheck measures Store.Check of a store holding 100,000 quads
// shaped like the team manager's (teamsData), in one namespace.
//
//	go test ./cortex -run '^$' -bench 'Check$' -benchtime 5x
func BenchmarkCheck(b *testing.B) {
	ctx := context.Background()
	qs := teamsData(100_000)
	s := cortextest.NewStore(b)
	ns, err := s.Namespace(ctx, "bench")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := ns.Import(ctx, &cortextest.SliceSource{Quads: qs}, cortex.ImportOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Check(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(qs))*float64(b.N)/b.Elapsed().Seconds(), "quads/s")
}
