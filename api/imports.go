package api

import (
	"time"

	"github.com/cortexgraph/cortex/cortex"
)

// ImportEvent is one line of the answer of a server's streamed import
// (POST /ns/{ns}/import, application/x-ndjson): first "started" (the
// import id chosen, before anything is written), then "done" or "error".
type ImportEvent struct {
	Event string `json:"event"` // started, done or error

	// started: the import id and, for an import of a recorded source,
	// whether it resumes an unfinished import (Started: when that one
	// began), replaces the record of another version of the source, or
	// leaves the record of the same version under another id as it is
	// (Kept: this import is not recorded).
	ImportID string                   `json:"importId,omitempty"`
	Resumed  bool                     `json:"resumed,omitempty"`
	Started  *time.Time               `json:"started,omitempty"`
	Replaced *cortex.UnfinishedImport `json:"replaced,omitempty"`
	Kept     *cortex.UnfinishedImport `json:"kept,omitempty"`

	// done: what the import read and wrote (cortex.ImportResult).
	Read      int64 `json:"read,omitempty"`
	Committed int64 `json:"committed,omitempty"`
	Chunks    int   `json:"chunks,omitempty"`

	// error: the error that ended the import, as a JSON-RPC error's data
	// carries it.
	Error *EventError `json:"error,omitempty"`
}

// EventError is an error in a stream of events: its message, how
// cortexctl exits for it, its kind, and the names of the sentinel errors
// it matches (ErrorNames).
type EventError struct {
	Message  string   `json:"message"`
	ExitCode int      `json:"exitCode"`
	Kind     Kind     `json:"kind"`
	Errors   []string `json:"errors,omitempty"`
}

// EventErrorOf returns the EventError of err.
func EventErrorOf(err error) *EventError {
	exit, kind := Classify(err)
	return &EventError{Message: err.Error(), ExitCode: exit, Kind: kind, Errors: ErrorNames(err)}
}
