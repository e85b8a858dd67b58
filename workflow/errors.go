package workflow

import (
	"errors"
	"fmt"
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
	// ErrRunExists: a run with the requested id exists.
	ErrRunExists = errors.New("run exists")
	// ErrUnknownRun: no run has this id.
	ErrUnknownRun = errors.New("unknown run")
	// ErrUnknownStep: the run has no step of this name.
	ErrUnknownStep = errors.New("unknown step")
	// ErrRunFinished: the run is completed, failed or cancelled.
	ErrRunFinished = errors.New("run finished")
	// ErrInvalidTransition: the step is not in a status that allows the
	// call (see *TransitionError).
	ErrInvalidTransition = errors.New("invalid step transition")
	// ErrInvalidOutput: an output is not a declared output of the step, or
	// its value does not have the port's type.
	ErrInvalidOutput = errors.New("invalid output")
)

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
