package cortex_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/cortex/rdfio"
)

// TestInvalidArguments: a malformed argument other than a quad is an
// error matching ErrInvalidArgument, as the sentinel's doc says, and
// writes nothing. Options that Open refuses, side-table names and keys,
// and a resumable import's empty source name were refused with errors
// matching no sentinel (so cortexctl reported them as internal errors).
func TestInvalidArguments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for name, o := range map[string]cortex.Options{
		"chunk size 0":     cortex.DefaultOptions().WithChunkQuads(0),
		"small budget":     cortex.DefaultOptions().WithMemoryBudget(1 << 20),
		"small segments":   cortex.DefaultOptions().WithImportSegmentBytes(1),
		"in-memory and ro": cortex.DefaultOptions().WithInMemory(true).WithReadOnly(true),
		"negative tuning":  cortex.DefaultOptions().WithTuning(cortex.Tuning{CloseWait: -1}),
	} {
		dir := t.TempDir()
		if _, err := cortex.Open(ctx, dir, o); !errors.Is(err, cortex.ErrInvalidArgument) {
			t.Errorf("open with %s: %v, want ErrInvalidArgument", name, err)
		}
	}

	ns := cortextest.NewNamespace(t, "default")
	good := q("s", "p", quad.String("ok"), nil)
	long := strings.Repeat("k", cortex.MaxSideKey+1)
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"PutSide table", func() error {
			return ns.Update(ctx, func(tx *cortex.Tx) error { tx.Add(good); tx.PutSide("Bad Table", "k", nil); return nil })
		}},
		{"PutSide key", func() error {
			return ns.Update(ctx, func(tx *cortex.Tx) error { tx.Add(good); tx.PutSide("rows", long, nil); return nil })
		}},
		{"StampSide table", func() error {
			return ns.Update(ctx, func(tx *cortex.Tx) error { tx.Add(good); tx.StampSide("a/b"); return nil })
		}},
		{"SideRows", func() error { _, _, err := ns.SideRows(ctx, "A"); return err }},
		{"SideRowsAfter", func() error { _, err := ns.SideRowsAfter(ctx, "A", "", 0); return err }},
		{"SideRow", func() error { _, _, err := ns.SideRow(ctx, "A", "k"); return err }},
		{"SideCurrent", func() error { _, err := ns.SideCurrent(ctx, "A"); return err }},
		{"ImportRDF empty source name", func() error {
			_, err := ns.ImportRDF(ctx, strings.NewReader("<http://ex/s> <http://ex/p> \"o\" .\n"),
				cortex.RDFImportOptions{Format: rdfio.NTriples, Resume: &cortex.ImportSource{Version: "1"}})
			return err
		}},
		{"Import graph not an IRI", func() error {
			_, err := ns.Import(ctx, &cortextest.SliceSource{Quads: []quad.Quad{good}}, cortex.ImportOptions{Graph: quad.String("g")})
			return err
		}},
		{"Import graph bad IRI", func() error {
			_, err := ns.Import(ctx, &cortextest.SliceSource{Quads: []quad.Quad{good}}, cortex.ImportOptions{Graph: quad.IRI("http://ex/a b")})
			return err
		}},
		{"ImportRDF graph bad IRI", func() error {
			_, err := ns.ImportRDF(ctx, strings.NewReader("<http://ex/s> <http://ex/p> \"o\" .\n"),
				cortex.RDFImportOptions{Format: rdfio.NTriples, Graph: quad.IRI("rel")})
			return err
		}},
	} {
		if err := tc.call(); !errors.Is(err, cortex.ErrInvalidArgument) {
			t.Errorf("%s: %v, want ErrInvalidArgument", tc.name, err)
		}
	}
	if n, err := ns.Size(ctx); err != nil || n != 0 {
		t.Fatalf("size %d, %v after refused calls", n, err)
	}
	if u, err := ns.UnfinishedImports(ctx); err != nil || len(u) != 0 {
		t.Fatalf("unfinished imports %+v, %v after refused calls", u, err)
	}
}
