package cortex

import "github.com/cortexgraph/cortex/cortex/internal/engine"

// Errors returned by the store. Compare with errors.Is. They are the
// engine's values (package cortex/internal/engine creates them), so an
// error from any layer matches them.
var (
	// ErrLocked means the store directory is in use by another process.
	ErrLocked = engine.ErrLocked
	// ErrClosed means the store was closed.
	ErrClosed = engine.ErrClosed
	// ErrBusy means a write that needs the store to itself (a streamed
	// delta or import segment, the dropping of a namespace's keys) gave up
	// waiting for open transactions to end: typically a query result or
	// iterator that was not closed, in the writing goroutine. The error
	// says how many were open and where each query result was opened.
	ErrBusy = engine.ErrBusy
	// ErrInvalidQuad means a quad has a term of the wrong kind in some position
	// (for example a literal subject), an unsupported term type, a term that
	// could not be exported (see NormalizeTerm), or one larger than an
	// in-memory store holds.
	ErrInvalidQuad = engine.ErrInvalidQuad
	// ErrNotFound means a requested store or namespace does not exist (see
	// ErrNoStore, ErrNoNamespace). A graph is never "not found": one that
	// holds no quad is empty (Quads, Export, DropGraph of it succeed).
	ErrNotFound = engine.ErrNotFound
	// ErrCorrupt means the store's data does not have the expected format.
	ErrCorrupt = engine.ErrCorrupt

	// ErrNoStore means a read-only Open found no store: the directory does
	// not exist or holds no Badger database. It matches ErrNotFound.
	ErrNoStore = engine.ErrNoStore
	// ErrNoNamespace means the namespace does not exist (OpenNamespace,
	// DeleteNamespace, or Namespace on a read-only store). It matches
	// ErrNotFound.
	ErrNoNamespace = engine.ErrNoNamespace
	// ErrRecoveryNeeded means a read-only Open found a write that a crash
	// interrupted: only a read-write Open can roll it back. It matches
	// ErrCorrupt.
	ErrRecoveryNeeded = engine.ErrRecoveryNeeded
	// ErrCutOff means Close stopped waiting for transactions still open
	// (Tuning.CloseWait: a Dataset.Match iterator or a Tx never closed, a
	// read or write still running) and closed the store under them; the
	// error says how many were open. The store was closed anyway; what was
	// cut off fails with an error matching ErrClosed.
	ErrCutOff = engine.ErrCutOff
	// ErrResultsOpen means Close found query results that were never closed
	// (the error names where they were opened); the store was closed anyway.
	// It matches ErrCutOff.
	ErrResultsOpen = engine.ErrResultsOpen
	// ErrInvalidArgument means an argument other than a quad is malformed
	// (for example a namespace name or base, which also match
	// namespace.ErrInvalidName or ErrInvalidBase, an import id, a side-table
	// name, or options Open refuses).
	ErrInvalidArgument = engine.ErrInvalidArgument
	// ErrReadOnly means a write was attempted on a store opened read-only.
	ErrReadOnly = engine.ErrReadOnly
	// ErrBaseMismatch means a namespace was opened with a base other than
	// the one recorded when it was created (see *BaseMismatchError).
	ErrBaseMismatch = engine.ErrBaseMismatch
)

// Errors that carry data. They are made deep in the engine, so they are
// its types under these names (errors.As with a *cortex.LockedError
// matches); their fields are listed here.

// BaseMismatchError reports that namespace Namespace was created with base
// Recorded and opened with WithBase(Requested). It matches ErrBaseMismatch.
//
//	type BaseMismatchError struct {
//		Namespace string
//		Recorded  string
//		Requested string
//	}
type BaseMismatchError = engine.BaseMismatchError

// LockedError reports that Dir is in use by another process. It matches
// ErrLocked with errors.Is; Unwrap returns the underlying cause.
//
//	type LockedError struct {
//		Dir string
//		PID int   // the process that has it open read-write, where known; else 0
//		Err error // underlying cause, may be nil
//	}
type LockedError = engine.LockedError

// ImportError reports a failed import: how many quads had been committed when
// the error happened, and the cause (often an *rdfio.SyntaxError), which
// Unwrap returns.
//
//	type ImportError struct {
//		Committed int64 // quads committed by earlier chunks; 0 means nothing was written
//		ImportID  string
//		// Resumable is set when the import was recorded (RDFImportOptions.Resume):
//		// importing the same source again resumes it without its id.
//		Resumable bool
//		Err       error
//	}
type ImportError = engine.ImportError

// CheckError reports the problems Store.Check or Namespace.Check found:
// the first 20 (Problems), and how many in all (Total). It matches
// ErrCorrupt.
//
//	type CheckError struct {
//		Problems []string
//		Total    int
//	}
type CheckError = engine.CheckError

// NoSpaceError reports that a write was refused because the store's file
// system lacks space. It matches syscall.ENOSPC with errors.Is.
//
//	type NoSpaceError struct {
//		Dir  string
//		What string // the refused write, e.g. "import segment"; empty for a deletion (its error names it)
//		Free int64  // bytes available to the store's process
//		Need int64  // bytes the write needs, reserve included
//	}
type NoSpaceError = engine.NoSpaceError
