package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/cortexgraph/cortex/internal/proc"
	"github.com/cortexgraph/cortex/workflow"
)

// execActorPrefix starts the actor of a run's steps started by cortexctl's
// --exec drivers.
const execActorPrefix = "cortexctl-exec:"

// execActor is the actor this process's drivers record on the steps they
// start: cortexctl-exec:HOST:PID, so that a later driver on the same host
// can tell when the process that started a step is gone
// (releaseOrphans).
func execActor() string {
	host, _ := os.Hostname()
	return execActorPrefix + host + ":" + strconv.Itoa(os.Getpid())
}

// parseExecActor returns the host and pid of an execActor; false for any
// other actor (another program's, or an older cortexctl's
// cortexctl-exec:PID, which does not say its host).
func parseExecActor(actor string) (host string, pid int, ok bool) {
	rest, ok := strings.CutPrefix(actor, execActorPrefix)
	if !ok {
		return "", 0, false
	}
	i := strings.LastIndexByte(rest, ':')
	if i <= 0 {
		return "", 0, false
	}
	pid, err := strconv.Atoi(rest[i+1:])
	if err != nil || pid <= 0 {
		return "", 0, false
	}
	return rest[:i], pid, true
}

// releaseOrphans gives back, before a driver starts, the running steps of
// run r whose driver was a cortexctl of this host whose process is gone
// (killed: nothing gave its steps back), so that they run again now
// instead of after their step timeout; it says so on w. A step another
// driver changed meanwhile is left alone.
func releaseOrphans(ctx context.Context, wf workflows, r workflow.Run, w io.Writer) error {
	host, err := os.Hostname()
	if err != nil {
		return nil // no telling which steps are this host's
	}
	for _, s := range r.Steps {
		if s.Status != workflow.StepRunning {
			continue
		}
		h, pid, ok := parseExecActor(s.Actor)
		if !ok || h != host || pid == os.Getpid() || proc.Alive(pid) {
			continue
		}
		reason := fmt.Sprintf("driver %s is gone (no process %d on %s)", s.Actor, pid, host)
		err := wf.ReleaseStep(ctx, r.ID, s.Name, s.Attempt, reason)
		var ae *workflow.AttemptError
		switch {
		case err == nil:
			fmt.Fprintf(w, "cortexctl: run %s: step %s: %s: starting it again\n", r.ID, s.Name, reason)
		case errors.Is(err, workflow.ErrInvalidTransition), errors.Is(err, workflow.ErrRunFinished), errors.As(err, &ae):
			// Another driver got to it first.
		default:
			return fmt.Errorf("run %s: step %s: give back the step of a driver that is gone: %w", r.ID, s.Name, err)
		}
	}
	return nil
}
