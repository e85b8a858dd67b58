package workflow

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/cortexgraph/cortex/namespace"
)

// Definition errors.
var (
	// ErrInvalidDef: a team definition breaks a rule (see Def.Validate).
	ErrInvalidDef = errors.New("invalid team definition")
)

// Run errors.
var (
	// ErrInvalidRun: bad run options (id, strategy, inputs, non-critical
	// agents) or a team the team manager refuses.
	ErrInvalidRun = errors.New("invalid run")
	// ErrRunExists: a run with the requested id exists, or a team (a
	// run's team has the run's id).
	ErrRunExists = errors.New("run exists")
	// ErrUnknownRun: no run has this id. For an id no run can have (not
	// 1 to 64 characters of A-Z a-z 0-9 . _ @ + -: "a/b") the error is a
	// *namespace.IDError, which matches namespace.ErrInvalidID too.
	ErrUnknownRun = errors.New("unknown run")
	// ErrUnknownStep: the run has no step of this name. For a name no
	// step can have (empty, or with a control character) the error is a
	// *namespace.IDError, which matches namespace.ErrInvalidID too.
	ErrUnknownStep = errors.New("unknown step")
	// ErrRunFinished: the run is completed, failed or cancelled.
	ErrRunFinished = errors.New("run finished")
	// ErrInvalidTransition: the step is not in a status that allows the
	// call (see *TransitionError).
	ErrInvalidTransition = errors.New("invalid step transition")
	// ErrStaleAttempt: the call names an attempt of the step that is not
	// its current one: the step was given back and started again since
	// (see *AttemptError, which matches ErrInvalidTransition too).
	ErrStaleAttempt = errors.New("stale step attempt")
	// ErrInvalidOutput: an output is not a declared output of the step, or
	// its value does not have the port's type.
	ErrInvalidOutput = errors.New("invalid output")
	// ErrDriverBusy: another driver holds the crew or swarm run (see
	// Engine.ClaimDriver and *DriverBusyError).
	ErrDriverBusy = errors.New("run held by another driver")
)

// unknownRun returns the lookup error of run id, which no run has:
// ErrUnknownRun for a well-formed id, a *namespace.IDError (matching
// namespace.ErrInvalidID and ErrUnknownRun) for one that no run can have,
// as RunOptions.ID allows none other.
func unknownRun(id string) error {
	if validID(id) {
		return ErrUnknownRun
	}
	return &namespace.IDError{Unknown: ErrUnknownRun, Want: "1 to 64 characters of A-Z a-z 0-9 . _ @ + -"}
}

// unknownStep returns the lookup error of step name, which the run does
// not have: ErrUnknownStep for a well-formed name, a *namespace.IDError
// (matching namespace.ErrInvalidID and ErrUnknownStep) for one that no
// step can have, as Def.Validate allows none other.
func unknownStep(name string) error {
	if name != "" && strings.IndexFunc(name, unicode.IsControl) < 0 {
		return ErrUnknownStep
	}
	return &namespace.IDError{Unknown: ErrUnknownStep, Want: "a step name: not empty, no control characters"}
}

// DriverBusyError is a claim of a crew or swarm run that another driver
// holds, until its lease ends.
type DriverBusyError struct {
	Run    string
	Holder Driver
}

func (e *DriverBusyError) Error() string {
	where := ""
	if e.Holder.Host != "" {
		where = fmt.Sprintf(", process %d on %s", e.Holder.PID, e.Holder.Host)
	}
	return fmt.Sprintf("run %s is driven by %s (driver %s%s) until %s: one driver per run; "+
		"stop that driver, or take the run over if it is gone (workflows drive --takeover)",
		e.Run, e.Holder.Actor, e.Holder.ID, where, e.Holder.Until.UTC().Format(time.RFC3339))
}

// Unwrap returns ErrDriverBusy.
func (e *DriverBusyError) Unwrap() error { return ErrDriverBusy }

// TransitionError is a call that needs a step in another status: starting a
// step that is not ready (another driver started it, or its dependencies
// have not completed), completing one that is not running, ...
type TransitionError struct {
	Run, Step string
	From      StepStatus // the step's status
	To        StepStatus // the status the call would have set
}

func (e *TransitionError) Error() string {
	return fmt.Sprintf("run %s: step %s is %s, cannot become %s", e.Run, e.Step, e.From, e.To)
}

// Unwrap returns ErrInvalidTransition.
func (e *TransitionError) Unwrap() error { return ErrInvalidTransition }

// AttemptError is a call for an attempt of a step (the number StartStep
// returned) that is not the step's current attempt: a runner that returns
// after its step was released and started again, by this driver or
// another. Nothing is written. It matches ErrStaleAttempt and
// ErrInvalidTransition, so that drivers take it as they take a step that
// timed out meanwhile: nothing to record.
type AttemptError struct {
	Run, Step string
	Attempt   int        // the attempt the call names
	Current   int        // the step's current attempt
	Status    StepStatus // the step's status
}

func (e *AttemptError) Error() string {
	return fmt.Sprintf("run %s: step %s: attempt %d is stale: the step's current attempt is %d (%s)",
		e.Run, e.Step, e.Attempt, e.Current, e.Status)
}

// Unwrap returns ErrStaleAttempt and ErrInvalidTransition.
func (e *AttemptError) Unwrap() []error { return []error{ErrStaleAttempt, ErrInvalidTransition} }
