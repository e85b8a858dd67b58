package spec

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cortexgraph/cortex/internal/pathtext"
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

	// LeftOutErrors and LeftOutWarnings are set on the problem that says
	// how many problems of its file were left out (MaxProblems): the errors
	// and warnings it counts, which Report.Errors and Warnings add. Zero on
	// every other problem.
	LeftOutErrors   int `json:"leftOutErrors,omitempty"`
	LeftOutWarnings int `json:"leftOutWarnings,omitempty"`
}

// leftOut reports whether p counts the problems of its file left out (it
// is sorted last).
func (p Problem) leftOut() bool { return p.LeftOutErrors+p.LeftOutWarnings > 0 }

// String formats p as FILE[:LINE]: SEVERITY: [PATH: ]MESSAGE, FILE named
// as pathtext.Quote names paths (quoted unless plain text; an empty FILE is
// left out).
func (p Problem) String() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(pathtext.Quote(p.File))
	}
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
// problem found, in file order (then line, then path), but for the
// problems a file has beyond MaxProblems, which one more problem of that
// file counts.
type Report struct {
	Problems []Problem `json:"problems"`
}

// Errors returns the number of errors found: those listed, and those of a
// file past MaxProblems that its last problem counts.
func (r Report) Errors() int { return r.count(SeverityError) }

// Warnings returns the number of warnings found, as Errors counts errors.
func (r Report) Warnings() int { return r.count(SeverityWarning) }

func (r Report) count(s Severity) int {
	n := 0
	for _, p := range r.Problems {
		switch {
		case p.leftOut() && s == SeverityError:
			n += p.LeftOutErrors
		case p.leftOut():
			n += p.LeftOutWarnings
		case p.Severity == s:
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
	Problems []Problem // every problem, warnings included (see MaxProblems)
}

func (e *ValidationError) Error() string {
	i := slices.IndexFunc(e.Problems, func(p Problem) bool { return p.Severity == SeverityError })
	if i < 0 {
		return ErrInvalid.Error()
	}
	n := Report{Problems: e.Problems}.Errors()
	if n == 1 {
		return fmt.Sprintf("%v: %s", ErrInvalid, e.Problems[i])
	}
	return fmt.Sprintf("%v: %d errors, the first: %s", ErrInvalid, n, e.Problems[i])
}

func (e *ValidationError) Unwrap() error { return ErrInvalid }

// MaxProblems bounds the problems a Report lists for one file: the first
// MaxProblems found while reading it (and as many found by the checks
// between files) are listed, and one more problem, on the line of the last
// one left out, says how many errors and warnings were left out. A
// hostile 16 MiB file can hold millions of problems (a duplicate key in
// every 6 bytes): listing them all took gigabytes and minutes.
const MaxProblems = 1000

// problemList collects problems, listing the first MaxProblems of each
// file and counting the rest. The zero value is empty.
type problemList struct {
	list    []Problem
	perFile map[string]*fileProblems
	files   []string // the files with problems left out, in order
}

type fileProblems struct {
	listed, errors, warnings, line int
}

// add records a problem of file, formatting its message only if it is
// listed.
func (l *problemList) add(file string, line int, path string, sev Severity, format string, args ...interface{}) {
	if l.perFile == nil {
		l.perFile = map[string]*fileProblems{}
	}
	f := l.perFile[file]
	if f == nil {
		f = &fileProblems{}
		l.perFile[file] = f
	}
	if f.listed < MaxProblems {
		f.listed++
		l.list = append(l.list, Problem{File: file, Line: line, Path: path, Severity: sev, Message: fmt.Sprintf(format, args...)})
		return
	}
	if f.errors+f.warnings == 0 {
		l.files = append(l.files, file)
	}
	if sev == SeverityError {
		f.errors++
	} else {
		f.warnings++
	}
	f.line = max(f.line, line)
}

// problems returns the problems listed, then one per file that had some
// left out: an error if any error was.
func (l *problemList) problems() []Problem {
	out := l.list
	for _, file := range l.files {
		f := l.perFile[file]
		sev := SeverityWarning
		if f.errors > 0 {
			sev = SeverityError
		}
		out = append(out, Problem{File: file, Line: f.line, Severity: sev, LeftOutErrors: f.errors, LeftOutWarnings: f.warnings, Message: fmt.Sprintf(
			"%s not listed (%s, %s): only the first %d of a file are", count(f.errors+f.warnings, "more problem"),
			count(f.errors, "error"), count(f.warnings, "warning"), MaxProblems)})
	}
	return out
}

// count is n and noun, plural unless n is 1.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
