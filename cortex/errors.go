package cortex

import "errors"

// Errors returned by the store. Compare with errors.Is.
var (
	// ErrLocked means the store directory is in use by another process.
	ErrLocked = errors.New("store is in use by another process")
	// ErrClosed means the store was closed.
	ErrClosed = errors.New("store is closed")
	// ErrBusy means a write that needs the store to itself (a delta larger
	// than MaxDeltaQuads) gave up waiting for open transactions to end:
	// typically a query that was not closed, in the writing goroutine.
	ErrBusy = errors.New("store is busy")
	// ErrInvalidQuad means a quad has a term of the wrong kind in some position
	// (for example a literal subject) or an unsupported term type.
	ErrInvalidQuad = errors.New("invalid quad")
	// ErrNotFound means a requested graph or namespace does not exist.
	ErrNotFound = errors.New("not found")
	// ErrCorrupt means the store's data does not have the expected format.
	ErrCorrupt = errors.New("store data is corrupt or of an unknown version")
)

// LockedError reports that Dir is in use by another process. It matches
// ErrLocked with errors.Is.
type LockedError struct {
	Dir string
	Err error // underlying cause, may be nil
}

func (e *LockedError) Error() string {
	return "store " + e.Dir + " is in use by another process"
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
	Err       error
}

func (e *ImportError) Error() string {
	if e.Committed == 0 {
		return e.Err.Error() + " (nothing was imported)"
	}
	return e.Err.Error() + " (" + itoa(e.Committed) + " quads of earlier chunks were committed; re-run with import id " +
		e.ImportID + " to converge)"
}

// Unwrap returns the cause.
func (e *ImportError) Unwrap() error { return e.Err }
