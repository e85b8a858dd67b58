package engine

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/cortexgraph/cortex/internal/pathtext"
)

// Errors returned by the store. Compare with errors.Is.
var (
	// ErrLocked means the store directory is in use by another process.
	ErrLocked = errors.New("store is in use by another process")
	// ErrClosed means the store was closed.
	ErrClosed = errors.New("store is closed")
	// ErrBusy means a write that needs the store to itself (a streamed
	// delta or import segment, the dropping of a namespace's keys) gave up
	// waiting for open transactions to end: typically a query result or
	// iterator that was not closed, in the writing goroutine. The error
	// says how many were open and where each query result was opened.
	ErrBusy = errors.New("store is busy")
	// ErrInvalidQuad means a quad has a term of the wrong kind in some position
	// (for example a literal subject), an unsupported term type, a term that
	// could not be exported (see NormalizeTerm), or one larger than an
	// in-memory store holds.
	ErrInvalidQuad = errors.New("invalid quad")
	// ErrNotFound means a requested store or namespace does not exist (see
	// ErrNoStore, ErrNoNamespace). A graph is never "not found": one that
	// holds no quad is empty (Quads, Export, DropGraph of it succeed).
	ErrNotFound = errors.New("not found")
	// ErrCorrupt means the store's data does not have the expected format.
	ErrCorrupt = errors.New("store data is corrupt or of an unknown version")

	// ErrNoStore means a read-only Open found no store: the directory does
	// not exist or holds no Badger database. It matches ErrNotFound.
	ErrNoStore error = &kindError{msg: "no store", kind: ErrNotFound}
	// ErrNoNamespace means the namespace does not exist (OpenNamespace,
	// DeleteNamespace, or Namespace on a read-only store). It matches
	// ErrNotFound.
	ErrNoNamespace error = &kindError{msg: "no such namespace", kind: ErrNotFound}
	// ErrRecoveryNeeded means a read-only Open found a write that a crash
	// interrupted: only a read-write Open can roll it back. It matches
	// ErrCorrupt.
	ErrRecoveryNeeded error = &kindError{msg: "an interrupted write must be rolled back", kind: ErrCorrupt}
	// ErrCutOff means Close stopped waiting for transactions still open
	// (Tuning.CloseWait: a Dataset.Match iterator or a Tx never closed, a
	// read or write still running) and closed the store under them; the
	// error says how many were open. The store was closed anyway; what was
	// cut off fails with an error matching ErrClosed.
	ErrCutOff = errors.New("transactions cut off by close")
	// ErrResultsOpen means Close found query results that were never closed
	// (the error names where they were opened); the store was closed anyway.
	// It matches ErrCutOff.
	ErrResultsOpen error = &kindError{msg: "query results not closed", kind: ErrCutOff}
	// ErrInvalidArgument means an argument other than a quad is malformed
	// (for example a namespace name or base, which also match
	// namespace.ErrInvalidName or ErrInvalidBase, an import id, a side-table
	// name, or options Open refuses).
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrReadOnly means a write was attempted on a store opened read-only.
	ErrReadOnly = errors.New("store is read-only")
	// ErrBaseMismatch means a namespace was opened with a base other than
	// the one recorded when it was created (see *BaseMismatchError).
	ErrBaseMismatch = errors.New("namespace base mismatch")
)

// kindError is a sentinel that also matches a broader one: ErrNoStore is
// an ErrNotFound.
type kindError struct {
	msg  string
	kind error
}

func (e *kindError) Error() string { return e.msg }

// Unwrap returns the broader sentinel.
func (e *kindError) Unwrap() error { return e.kind }

// argError is the error of a malformed argument that another package
// checks (a namespace name or base): its message is err's, and it matches
// both err and ErrInvalidArgument.
type argError struct{ err error }

func (e *argError) Error() string { return e.err.Error() }

// Unwrap returns the cause and ErrInvalidArgument.
func (e *argError) Unwrap() []error { return []error{e.err, ErrInvalidArgument} }

// BaseMismatchError reports that namespace Namespace was created with base
// Recorded and opened with WithBase(Requested). It matches ErrBaseMismatch.
type BaseMismatchError struct {
	Namespace string
	Recorded  string
	Requested string
}

func (e *BaseMismatchError) Error() string {
	return "namespace " + e.Namespace + " was created with base " + strconv.Quote(e.Recorded) +
		", not " + strconv.Quote(e.Requested)
}

// Is makes errors.Is(err, ErrBaseMismatch) true.
func (e *BaseMismatchError) Is(target error) bool { return target == ErrBaseMismatch }

// LockedError reports that Dir is in use by another process. It matches
// ErrLocked with errors.Is.
type LockedError struct {
	Dir string
	// PID is the process that has the store open read-write, where known
	// (on Unix: it writes its pid into DIR/cortex.lock); 0 if processes
	// that only read it hold it, or if the holder is not known.
	PID int
	Err error // underlying cause, may be nil
}

func (e *LockedError) Error() string {
	msg := "store " + pathtext.Quote(e.Dir) + " is in use by another process"
	if e.PID > 0 {
		msg += " (pid " + strconv.Itoa(e.PID) + ")"
	}
	return msg
}

// Is makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// Unwrap returns the underlying cause.
func (e *LockedError) Unwrap() error { return e.Err }

// ImportError reports a failed import: how many quads had been committed when
// the error happened, and the cause (often an *rdfio.SyntaxError).
type ImportError struct {
	Committed int64 // quads committed by earlier chunks; 0 means nothing was written
	ImportID  string
	// Resumable is set when the import was recorded (RDFImportOptions.Resume):
	// importing the same source again resumes it without its id.
	Resumable bool
	Err       error
}

func (e *ImportError) Error() string {
	switch {
	case e.Committed == 0:
		return e.Err.Error() + " (nothing was imported)"
	case e.Resumable:
		return e.Err.Error() + " (" + itoa(e.Committed) + " quads were committed; importing the same input again resumes import " +
			e.ImportID + " and converges)"
	case e.ImportID == "":
		// (Namespace.Import: the source's blank nodes are its own.)
		return e.Err.Error() + " (" + itoa(e.Committed) + " quads were committed; importing the same quads again converges)"
	}
	return e.Err.Error() + " (" + itoa(e.Committed) + " quads were committed; re-run with import id " +
		e.ImportID + " to converge)"
}

// Unwrap returns the cause.
func (e *ImportError) Unwrap() error { return e.Err }

// CheckError reports the problems Store.Check or Namespace.Check found:
// the first 20 (Problems), and how many in all (Total). It matches
// ErrCorrupt.
type CheckError struct {
	Problems []string
	Total    int
}

func (e *CheckError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "store check: %d problem", e.Total)
	if e.Total != 1 {
		b.WriteString("s")
	}
	if len(e.Problems) < e.Total {
		fmt.Fprintf(&b, " (the first %d)", len(e.Problems))
	}
	b.WriteString(":")
	for _, p := range e.Problems {
		b.WriteString("\n\t")
		b.WriteString(p)
	}
	return b.String()
}

// Unwrap returns ErrCorrupt.
func (e *CheckError) Unwrap() error { return ErrCorrupt }
