package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"
	"unicode/utf8"

	hkv "github.com/hidal-go/hidalgo/kv"
)

// Resumable imports. An import's blank nodes are scoped by its import id, so
// re-running an interrupted import converges to the same graph only with the
// same id. ImportRDF with a Resume source records the import in the
// namespace (its id, the source's name and version, when it started) before
// it writes anything and removes the record when the import completes; a
// re-run of the same source (same name and version) with no id given reuses
// the recorded id. The records live in the namespace's "imports" bucket,
// keyed by a hash of the source's name, so a source has at most one: an
// import of the same version of a source under another id given by the
// caller is not recorded (ImportStart.Kept), so that the unfinished one
// stays resumable.
//
// A record also holds the import's target graph (UnfinishedImport.Target):
// resuming an import into another target would leave the quads of its
// first run in the first target and write the rest elsewhere, so an import
// that would resume a record of another target is refused before anything
// is written. Records written before targets were recorded have none and
// resume whatever the target.

// importsBucket holds the records of unfinished imports (importsBucket/hash
// of the source name → JSON importRecord).
var importsBucket = []byte("imports")

// ImportSource identifies the input of an import for resuming it (see
// RDFImportOptions.Resume): its Name (e.g. a file's absolute path) and its
// Version (e.g. FileVersion), which must change when the content does.
type ImportSource struct {
	Name    string
	Version string
}

// UnfinishedImport is the record of an import that started and did not
// complete (it was interrupted by a crash, a cancellation or an error).
type UnfinishedImport struct {
	ID      string    `json:"id"`
	Name    string    `json:"name"`
	Version string    `json:"version"`
	Started time.Time `json:"started"`
	// Target is where the import writes: "none" (no graph given: triples
	// into the default graph, quads into their own), "default" (every quad
	// into the default graph) or the graph's N-Quads term (<http://ex/g>).
	// It is "" in records written before targets were recorded.
	Target string `json:"target,omitempty"`
	// Base is the base IRI the import's relative IRIs resolve against: the
	// one given, else the file's file:// URL. An import that would resume
	// the record with another base is refused, as one into another target
	// is. It is "" in records written before bases were recorded, and for
	// an input with no base.
	Base string `json:"base,omitempty"`
}

// importRecordJSON is an import record as stored: JSON, which holds only
// valid UTF-8 (json.Marshal turns other bytes into U+FFFD), so a source
// name or version that is not valid UTF-8 (a file's path need not be) is
// kept as given in NameBytes or VersionBytes too, and read back from
// there. Records of valid names are as they always were.
type importRecordJSON struct {
	UnfinishedImport
	NameBytes    []byte `json:"name_bytes,omitempty"`
	VersionBytes []byte `json:"version_bytes,omitempty"`
}

// encodeImportRecord returns the stored form of rec.
func encodeImportRecord(rec UnfinishedImport) ([]byte, error) {
	r := importRecordJSON{UnfinishedImport: rec}
	if !utf8.ValidString(rec.Name) {
		r.NameBytes = []byte(rec.Name)
	}
	if !utf8.ValidString(rec.Version) {
		r.VersionBytes = []byte(rec.Version)
	}
	return json.Marshal(r)
}

// decodeImportRecord reads a record that encodeImportRecord wrote.
func decodeImportRecord(b []byte) (UnfinishedImport, error) {
	var r importRecordJSON
	if err := json.Unmarshal(b, &r); err != nil {
		return UnfinishedImport{}, err
	}
	if r.NameBytes != nil {
		r.Name = string(r.NameBytes)
	}
	if r.VersionBytes != nil {
		r.Version = string(r.VersionBytes)
	}
	return r.UnfinishedImport, nil
}

// The targets of an import that are not a graph (UnfinishedImport.Target).
const (
	targetNone    = "none"
	targetDefault = "default"
)

// importTarget returns the UnfinishedImport.Target of an import with
// options o (checked by checkGraph).
func importTarget(o ImportOptions) string {
	switch {
	case o.Graph != nil:
		return o.Graph.String()
	case o.DefaultGraph:
		return targetDefault
	}
	return targetNone
}

// describeTarget names target for an error message: where it writes
// ("graph <http://ex/g>") and how to give it again ("into graph
// <http://ex/g>").
func describeTarget(target string) (where, how string) {
	switch target {
	case targetNone:
		return "the input's own graphs (no graph given)", "with no graph given"
	case targetDefault:
		return "the default graph", "into the default graph"
	}
	return "graph " + target, "into graph " + target
}

// resumeTargetError refuses an import that would resume the unfinished
// import rec (same source, same version, same or no import id) into
// another target than the one it started writing into. It matches
// ErrInvalidArgument.
type resumeTargetError struct {
	rec    UnfinishedImport
	target string // the refused import's (UnfinishedImport.Target)
}

func (e *resumeTargetError) Error() string {
	where, how := describeTarget(e.rec.Target)
	other, _ := describeTarget(e.target)
	return fmt.Sprintf("%v: import %s of %s was interrupted while it imported into %s, not %s: "+
		"import it again %s to resume it, or under a new import id (import-id NEW) to import it anew; what import %s wrote stays",
		ErrInvalidArgument, e.rec.ID, e.rec.Name, where, other, how, e.rec.ID)
}

// Is makes errors.Is(err, ErrInvalidArgument) true.
func (e *resumeTargetError) Is(target error) bool { return target == ErrInvalidArgument }

// ImportStart tells an import's caller (RDFImportOptions.OnStart), before
// anything is written, which id the import uses.
type ImportStart struct {
	ID string
	// Resumed is set when ID is that of an unfinished import of the same
	// source (Resume), which this import completes.
	Resumed bool
	// Started is when the resumed import first started (zero when new).
	Started time.Time
	// Replaced is the unfinished import of the same source name but another
	// version (the input changed since), whose record this import replaces.
	// Its quads stay in the namespace; re-importing that version with its id
	// converges to its graph.
	Replaced *UnfinishedImport
	// Kept is the unfinished import of the same version of the source,
	// under another id than the one given (ImportID): its record stays,
	// so the same import without an id still resumes it, and this import
	// is not recorded (re-running it with its id converges).
	Kept *UnfinishedImport
}

// FileVersion returns a version of the file at path for ImportSource: its
// size, modification time and the SHA-256 of its first 64 KiB.
func FileVersion(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, 64<<10)); err != nil {
		return "", err
	}
	return fmt.Sprintf("size=%d mtime=%d head=%s", st.Size(), st.ModTime().UnixNano(), hex.EncodeToString(h.Sum(nil)[:16])), nil
}

// FileSource returns the ImportSource of the file at path: its absolute path
// and FileVersion.
func FileSource(path string) (ImportSource, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ImportSource{}, err
	}
	v, err := FileVersion(abs)
	if err != nil {
		return ImportSource{}, err
	}
	return ImportSource{Name: abs, Version: v}, nil
}

func importKey(name string) hkv.Key {
	sum := sha256.Sum256([]byte(name))
	return hkv.Key{importsBucket, []byte(hex.EncodeToString(sum[:16]))}
}

// importRecord reads the record of source name; ok is false when there is
// none.
func (n *Namespace) importRecord(ctx context.Context, name string) (rec UnfinishedImport, ok bool, err error) {
	err = hkv.View(n.kvCtx(ctx), func(tx hkv.Tx) error {
		b, err := tx.Get(ctx, importKey(name))
		if errors.Is(err, hkv.ErrNotFound) {
			return nil
		} else if err != nil {
			return err
		}
		ok = true
		rec, err = decodeImportRecord(b)
		return err
	})
	return rec, ok, err
}

// updateKV runs fn in a read-write transaction of the namespace's keys,
// holding its write lock: every write of a namespace's keys does, as a
// journaled delta of the namespace may be in flight, and its roll-back
// (after a failure or a crash) deletes every key of the namespace newer
// than the delta's first version.
func (n *Namespace) updateKV(ctx context.Context, fn func(tx hkv.Tx) error) error {
	if err := n.lockWriteCtx(ctx); err != nil {
		return err
	}
	defer n.wmu.Unlock()
	return hkv.Update(ctx, n.kvCtx(ctx), fn)
}

// beginImport picks the import id of an import of src into target (id,
// when not empty, is the caller's) and records the import, durably, before
// it writes. An import that would resume a record of another target is a
// *resumeTargetError.
func (n *Namespace) beginImport(ctx context.Context, src ImportSource, id, target, base string) (ImportStart, error) {
	if src.Name == "" {
		return ImportStart{}, fmt.Errorf("%w: resume: empty source name", ErrInvalidArgument)
	}
	rec, found, err := n.importRecord(ctx, src.Name)
	if err != nil {
		return ImportStart{}, fmt.Errorf("read import record: %w", err)
	}
	start := ImportStart{ID: id}
	// The recorded import goes on when the source is the same version
	// and no other id is given, or when its id is given (a changed file
	// imported under it converges with what it wrote): only into its
	// target.
	if found && (id == rec.ID || id == "" && rec.Version == src.Version) {
		if rec.Target != "" && rec.Target != target {
			return ImportStart{}, &resumeTargetError{rec: rec, target: target}
		}
		if rec.Base != "" && rec.Base != base {
			return ImportStart{}, fmt.Errorf("%w: import %s of %s was interrupted while its relative IRIs resolved against <%s>, not <%s>: "+
				"import it again with that base to resume it, or under a new import id (import-id NEW) to import it anew; what import %s wrote stays",
				ErrInvalidArgument, rec.ID, rec.Name, rec.Base, base, rec.ID)
		}
	}
	switch {
	case found && rec.Version == src.Version && (id == "" || id == rec.ID):
		start.ID, start.Resumed, start.Started = rec.ID, true, rec.Started
		return start, nil // recorded already
	case found && rec.Version == src.Version:
		// Another id given (import-id NEW): the unfinished import stays
		// recorded, and resumable; this one, which the caller can
		// re-run with its id, is not recorded over it.
		start.Kept = &rec
		return start, nil
	case found && rec.Version != src.Version:
		start.Replaced = &rec
	}
	if start.ID == "" {
		start.ID = NewImportID()
	}
	b, err := encodeImportRecord(UnfinishedImport{ID: start.ID, Name: src.Name, Version: src.Version, Started: time.Now().UTC(), Target: target, Base: base})
	if err != nil {
		return ImportStart{}, err
	}
	err = n.updateKV(ctx, func(tx hkv.Tx) error { return tx.Put(importKey(src.Name), b) })
	if err != nil {
		return ImportStart{}, fmt.Errorf("record import: %w", err)
	}
	return start, nil
}

// endImport removes the record of a completed import of src, if it is still
// the one of import id.
func (n *Namespace) endImport(ctx context.Context, src ImportSource, id string) error {
	err := n.updateKV(ctx, func(tx hkv.Tx) error {
		b, err := tx.Get(ctx, importKey(src.Name))
		if errors.Is(err, hkv.ErrNotFound) {
			return nil
		} else if err != nil {
			return err
		}
		if rec, err := decodeImportRecord(b); err == nil && rec.ID != id {
			return nil // another import of the source took it over
		}
		return tx.Del(importKey(src.Name))
	})
	if err != nil {
		return fmt.Errorf("remove import record: %w", err)
	}
	return nil
}

// UnfinishedImports lists the recorded imports that started and did not
// complete (see RDFImportOptions.Resume), oldest first.
//
// It is safe for concurrent use and sees committed data only.
func (n *Namespace) UnfinishedImports(ctx context.Context) ([]UnfinishedImport, error) {
	if err := n.s.checkOpen(); err != nil {
		return nil, err
	}
	var out []UnfinishedImport
	err := hkv.View(n.kvCtx(ctx), func(tx hkv.Tx) error {
		it := tx.Scan(hkv.Key{importsBucket})
		defer it.Close()
		for it.Next(ctx) {
			rec, err := decodeImportRecord(it.Val())
			if err != nil {
				return fmt.Errorf("%w: import record %s: %v", ErrCorrupt, it.Key(), err)
			}
			out = append(out, rec)
		}
		return it.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("namespace %s: unfinished imports: %w", n.name, err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Started.Before(out[j].Started) })
	return out, nil
}
