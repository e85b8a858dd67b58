package spec

import (
	"errors"
	"fmt"
	"strings"
)

// Errors of package spec. Compare with errors.Is.
var (
	// ErrInvalid means definitions failed validation; the error is a
	// *ValidationError listing every problem.
	ErrInvalid = errors.New("invalid definition")
	// ErrUnknownFormat means a file whose extension is not a definition
	// format (.md, .json, .json5, .yaml, .yml).
	ErrUnknownFormat = errors.New("unknown definition format")
)

// Severity tells errors from warnings.
type Severity string

// Severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Problem is one thing wrong with a definition file.
type Problem struct {
	File string `json:"file"`
	// Line is the 1-based line the problem is on, 0 when unknown (JSON5
	// files, problems of a whole file or between files).
	Line int `json:"line,omitempty"`
	// Path is a JSON pointer into the file's value ("/workflow/steps/2/agent");
	// "" for the file as a whole.
	Path     string   `json:"path"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
}

// String formats p as FILE[:LINE]: SEVERITY: [PATH: ]MESSAGE.
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d", p.Line)
	}
	fmt.Fprintf(&b, ": %s: ", p.Severity)
	if p.Path != "" {
		b.WriteString(p.Path)
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// Report is the outcome of parsing and validating definitions: every
// problem found, in file order (then line, then path).
type Report struct {
	Problems []Problem `json:"problems"`
}

// Errors returns the number of problems of severity error.
func (r Report) Errors() int { return r.count(SeverityError) }

// Warnings returns the number of problems of severity warning.
func (r Report) Warnings() int { return r.count(SeverityWarning) }

func (r Report) count(s Severity) int {
	n := 0
	for _, p := range r.Problems {
		if p.Severity == s {
			n++
		}
	}
	return n
}

// Err returns a *ValidationError (matching ErrInvalid) if the report has
// errors, else nil: warnings alone do not fail.
func (r Report) Err() error {
	if r.Errors() == 0 {
		return nil
	}
	return &ValidationError{Problems: r.Problems}
}

// ValidationError is the error of definitions that failed validation.
// It matches ErrInvalid.
type ValidationError struct {
	Problems []Problem // every problem, warnings included
}

func (e *ValidationError) Error() string {
	var errs []Problem
	for _, p := range e.Problems {
		if p.Severity == SeverityError {
			errs = append(errs, p)
		}
	}
	if len(errs) == 1 {
		return fmt.Sprintf("%v: %s", ErrInvalid, errs[0])
	}
	return fmt.Sprintf("%v: %d errors, the first: %s", ErrInvalid, len(errs), errs[0])
}

func (e *ValidationError) Unwrap() error { return ErrInvalid }
