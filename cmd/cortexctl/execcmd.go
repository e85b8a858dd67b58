package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/cortexgraph/cortex/internal/jsonexact"
)

// maxExecOutput is how much stdout an --exec command may print for one
// step, turn or task; more fails it (its result would not fit a step).
const maxExecOutput = 64 << 20

// execWaitDelay is how long, after an --exec command was stopped (its
// step timed out, the run was cancelled, the driver is stopping), the
// driver waits for the processes it left behind to close its stdout.
const execWaitDelay = 5 * time.Second

// runExec runs `sh -c command` with stdin, env added to the environment,
// and stderr passed through, and returns its stdout. what names the
// command in errors ("step", "lead", "task"). When ctx ends, the command's
// whole process group is killed (sh and what it started), and ctx's error
// returned; stdout over maxExecOutput is an error.
func runExec(ctx context.Context, what, command string, stdin []byte, stderr io.Writer, env ...string) ([]byte, error) {
	stdout := &capWriter{max: maxExecOutput}
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(stdin), stdout, stderr
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = execWaitDelay
	ownProcessGroup(cmd)
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case stdout.over:
		return nil, fmt.Errorf("%s command output: more than %d bytes", what, maxExecOutput)
	case err != nil:
		return nil, fmt.Errorf("%s command: %v", what, err)
	}
	return stdout.buf.Bytes(), nil
}

// capWriter keeps up to max bytes and fails the write that would pass it.
type capWriter struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (w *capWriter) Write(p []byte) (int, error) {
	if w.buf.Len()+len(p) > w.max {
		w.over = true
		return 0, errExecOutputTooLarge
	}
	return w.buf.Write(p)
}

var errExecOutputTooLarge = errors.New("output too large")

// decodeExecJSON decodes data, an --exec command's output, into v: one
// JSON value with nothing after it but white space (a second value is an
// error, not dropped), its member names read exactly as the server reads
// params (jsonexact.Unmarshal: no unknown field, none in another case, no
// key twice).
func decodeExecJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return err
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("more output after the JSON value, which ends at byte %d", end)
	}
	return jsonexact.Unmarshal(raw, v)
}
