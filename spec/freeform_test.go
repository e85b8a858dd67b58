package spec_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/cortexgraph/cortex/spec"
)

// TestParseTeam_DeepFreeFormCost: a port's schema nested 190 levels deep
// under long keys is checked for duplicate keys at a cost in proportion
// to the file, and a duplicate deep in it is reported at its path. The
// path of every value was built as the check went down, so the bytes
// allocated were the sum of the paths' lengths: for a 15 MB file (80 KB
// keys) 1.4 GB, live at once at the deepest level.
func TestParseTeam_DeepFreeFormCost(t *testing.T) {
	const depth = 190
	key := strings.Repeat("k", 20000)
	doc := func(leaf string) []byte {
		var b strings.Builder
		b.WriteString(`{"name": "t", "version": "1", "agents": ["a"], "workflow": {"steps": [{"name": "s", "agent": "a", "outputs": [{"name": "o", "schema": [`)
		for range depth {
			b.WriteString(`{"` + key + `": `)
		}
		b.WriteString(leaf)
		b.WriteString(strings.Repeat("}", depth))
		b.WriteString(`]}]}]}}`)
		return []byte(b.String())
	}
	data := doc("1")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, rep := spec.ParseTeam("t.json", data, spec.Options{Strict: true})
	runtime.ReadMemStats(&after)
	if rep.Err() != nil {
		t.Fatal(rep.Err())
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("a file of %d bytes: %d bytes allocated", len(data), alloc)
	if alloc > uint64(20*len(data)) { // (about once measured; building every path: 95 times)
		t.Errorf("a file of %d bytes allocated %d bytes, more than 20 times its size", len(data), alloc)
	}

	_, rep = spec.ParseTeam("t.json", doc(`{"x/y": 1, "x/y": 2}`), spec.Options{})
	want := "/workflow/steps/0/outputs/0/schema/0" + strings.Repeat("/"+key, depth) + "/x~1y"
	if len(rep.Problems) != 1 || rep.Problems[0].Path != want || rep.Problems[0].Message != `duplicate key "x/y"` {
		t.Fatalf("problems %.300v, want a duplicate key \"x/y\" at the end of the path", rep.Problems)
	}
}
