package engine

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	hkv "github.com/hidal-go/hidalgo/kv"

	"github.com/cortexgraph/cortex/cortex/rdfio"
)

// TestImportRDF_ResumesRecordWithoutTarget: a record written before
// import records held their target (no "target" field) resumes as it did,
// whatever the target of the import that resumes it.
func TestImportRDF_ResumesRecordWithoutTarget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, t.TempDir(), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n, err := s.Namespace(ctx, "default")
	if err != nil {
		t.Fatal(err)
	}
	src := ImportSource{Name: "/data/old.nt", Version: "v1"}
	// The JSON of a record of an earlier release, field for field.
	old := struct {
		ID      string    `json:"id"`
		Name    string    `json:"name"`
		Version string    `json:"version"`
		Started time.Time `json:"started"`
	}{"old1", src.Name, src.Version, time.Now().UTC().Add(-time.Hour)}
	b, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	if err := hkv.Update(ctx, n.kv, func(tx hkv.Tx) error { return tx.Put(importKey(src.Name), b) }); err != nil {
		t.Fatal(err)
	}
	var st ImportStart
	res, err := n.ImportRDF(ctx, strings.NewReader("_:b <http://ex/p> \"o\" .\n"), RDFImportOptions{
		Format: rdfio.NTriples, File: src.Name, DefaultGraph: true, Resume: &src,
		OnStart: func(s ImportStart) { st = s },
	})
	if err != nil || !st.Resumed || st.ID != "old1" || res.ImportID != "old1" {
		t.Fatalf("import with a record without target: %+v, %+v, %v; want a resumption of old1", st, res, err)
	}
	if u, err := n.UnfinishedImports(ctx); err != nil || len(u) != 0 {
		t.Fatalf("unfinished imports %+v, %v after the resumed import completed", u, err)
	}
}

// TestImportRDF_RecordWaitsForTheWriteLock: an import's record is written
// holding the namespace's write lock, as every write of the namespace's
// keys is: a journaled delta in flight holds that lock, and its roll-back
// deletes every key of the namespace newer than its first version, a
// record written meanwhile included. While another write holds the lock,
// the import has recorded nothing; once it is released, the import runs.
func TestImportRDF_RecordWaitsForTheWriteLock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := testNamespace(t, DefaultOptions())
	src := ImportSource{Name: "/data/x.nt", Version: "v1"}
	n.wmu.Lock() // another write in progress
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := n.ImportRDF(ctx, strings.NewReader("<http://ex/s> <http://ex/p> \"o\" .\n"), RDFImportOptions{
			Format: rdfio.NTriples, File: src.Name, DefaultGraph: true, Resume: &src,
			OnStart: func(ImportStart) { close(started) },
		})
		done <- err
	}()
	select {
	case <-started:
		n.wmu.Unlock()
		t.Fatal("the import recorded itself while another write held the namespace's write lock")
	case <-time.After(100 * time.Millisecond):
	}
	u, err := n.UnfinishedImports(ctx)
	n.wmu.Unlock()
	if err != nil || len(u) != 0 {
		t.Fatalf("unfinished imports %+v, %v: the record was written without the write lock", u, err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	<-started
}

// TestImportRDF_CancelledBeforeWritingKeepsNoRecord: a resumable import
// whose context ends once it is recorded and before it writes anything
// (here in OnStart) removes its record, as one that fails in its first
// chunk does: it wrote nothing, so there is nothing to resume, and a new
// namespace it was created for stays empty as created (its caller deletes
// it again, Store.DeleteIfUnused).
func TestImportRDF_CancelledBeforeWritingKeepsNoRecord(t *testing.T) {
	t.Parallel()
	s := testStore(t, t.TempDir(), DefaultOptions().WithSyncWrites(false))
	n, created, err := s.NamespaceCreated(context.Background(), "fresh")
	if err != nil || !created {
		t.Fatal(created, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src := ImportSource{Name: "/data/a.nt", Version: "v1"}
	_, err = n.ImportRDF(ctx, strings.NewReader("<http://ex/s> <http://ex/p> \"o\" .\n"), RDFImportOptions{
		Format: rdfio.NTriples, File: src.Name, Resume: &src,
		OnStart: func(ImportStart) { cancel() },
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("import cancelled in OnStart: %v, want context.Canceled", err)
	}
	if u, err := n.UnfinishedImports(context.Background()); err != nil || len(u) != 0 {
		t.Errorf("unfinished imports %+v, %v after an import that wrote nothing", u, err)
	}
	if deleted, err := s.DeleteIfUnused(context.Background(), n); err != nil || !deleted {
		t.Errorf("DeleteIfUnused of the namespace created for it: %v, %v; want it deleted", deleted, err)
	}
}
