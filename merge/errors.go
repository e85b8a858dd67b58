package merge

import (
	"errors"
	"fmt"
	"strings"
)

// Errors returned by the registry.
var (
	// ErrUnknownStrategy is returned by Lookup and Merge for a name that was never registered.
	ErrUnknownStrategy = errors.New("unknown merge strategy")
)

// Errors describing bad input to a merge. They are wrapped with the offending member, finding or
// resolution; compare with errors.Is.
var (
	// ErrInvalidMember is returned for a member with an empty agent id, an unknown status, or an agent
	// listed twice.
	ErrInvalidMember = errors.New("invalid member")
	// ErrInvalidFinding is returned (through a *FindingError) for a finding of a completed member that
	// has no id, a term of the wrong kind, or a confidence outside [0, 1].
	ErrInvalidFinding = errors.New("invalid finding")
	// ErrInvalidTerm is the cause inside ErrInvalidFinding and ErrInvalidResolution errors when a term is
	// nil, of a kind other than the five allowed quad types, in the wrong position, or malformed.
	ErrInvalidTerm = errors.New("invalid term")
	// ErrInvalidConfidence is the cause inside ErrInvalidFinding when a confidence is NaN or outside [0, 1].
	ErrInvalidConfidence = errors.New("confidence outside [0, 1]")
	// ErrInvalidOptions is returned for a threshold outside [0, 1], or a negative confidence margin.
	ErrInvalidOptions = errors.New("invalid merge options")
	// ErrInvalidResolution is returned for a resolution without a resolver, with a malformed topic or
	// object, or whose conflict id does not match its topic.
	ErrInvalidResolution = errors.New("invalid resolution")
	// ErrUnknownConflict is returned for a resolution that names only a conflict id that matches no topic
	// spoken on by a completed member.
	ErrUnknownConflict = errors.New("unknown conflict")
	// ErrConflictingResolutions is returned when the latest resolutions of one topic carry the same time
	// but choose different objects, so that no order-independent choice exists. (Resolutions superseded
	// by a later one of the topic do not matter.)
	ErrConflictingResolutions = errors.New("conflicting resolutions")
	// ErrInvalidDecision is returned when a Decider keeps an object that no member asserted on the topic,
	// or both keeps objects and reports a conflict.
	ErrInvalidDecision = errors.New("invalid decision")
)

// UnknownStrategyError is returned by Lookup for a name that is not registered. It wraps
// ErrUnknownStrategy and lists the names that are.
type UnknownStrategyError struct {
	Name  string
	Known []string // sorted
}

func (e *UnknownStrategyError) Error() string {
	return fmt.Sprintf("merge strategy %q: %v (known: %s)", e.Name, ErrUnknownStrategy, strings.Join(e.Known, ", "))
}

// Unwrap returns ErrUnknownStrategy.
func (e *UnknownStrategyError) Unwrap() error { return ErrUnknownStrategy }

// FindingError reports a malformed finding of a completed member. errors.Is(err, ErrInvalidFinding)
// holds, and Err (for example ErrInvalidTerm or ErrInvalidConfidence) is reachable through Unwrap.
type FindingError struct {
	ID    string // the finding's id, possibly empty
	Agent string
	Err   error
}

func (e *FindingError) Error() string {
	return fmt.Sprintf("finding %q of agent %q: %v", e.ID, e.Agent, e.Err)
}

// Unwrap returns the cause.
func (e *FindingError) Unwrap() error { return e.Err }

// Is reports whether target is ErrInvalidFinding.
func (e *FindingError) Is(target error) bool { return target == ErrInvalidFinding }
