package cortex_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
)

// TestDelta_SetSemantics: as Delta's doc says, quads are a set: adding a
// quad that exists or removing one that does not is not an error, and a
// quad in both lists ends up present, whether it existed before or not,
// in a delta written in one transaction or journaled, by Apply or Update.
func TestDelta_SetSemantics(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, size := range []struct {
		name  string
		extra int
	}{{"one transaction", 0}, {"journaled", cortex.MaxDeltaQuads}} {
		for _, way := range []string{"Apply", "Update"} {
			t.Run(size.name+"/"+way, func(t *testing.T) {
				t.Parallel()
				ns := cortextest.NewNamespace(t, "team")
				old, gone, fresh := q("s", "p", quad.String("old"), nil), q("s", "p", quad.String("gone"), nil), q("s", "p", quad.String("fresh"), nil)
				never := q("s", "p", quad.String("never"), nil)
				if err := ns.Apply(ctx, cortex.Delta{Add: []quad.Quad{old, gone}}); err != nil {
					t.Fatal(err)
				}
				var filler []quad.Quad
				for i := range size.extra {
					filler = append(filler, q("f", "p", quad.String(strconv.Itoa(i)), nil))
				}
				d := cortex.Delta{
					Remove: []quad.Quad{old, gone, fresh, never, never},
					Add:    append([]quad.Quad{old, old, fresh}, filler...),
				}
				var err error
				if way == "Apply" {
					err = ns.Apply(ctx, d)
				} else {
					err = ns.Update(ctx, func(tx *cortex.Tx) error { tx.Remove(d.Remove...); tx.Add(d.Add...); return nil })
				}
				if err != nil {
					t.Fatal(err)
				}
				checkContent(t, ns, append([]quad.Quad{old, fresh}, filler...))
				if n, err := ns.Size(ctx); err != nil || n != int64(2+len(filler)) {
					t.Errorf("Size %d, %v; want %d", n, err, 2+len(filler))
				}
			})
		}
	}
}
