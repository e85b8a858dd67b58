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
	"strings"
	"time"
	"unicode/utf8"

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
// returned; stdout over maxExecOutput is an error. A command that fails is
// an error that quotes the last line it wrote on stderr, if any: it is
// what the run records as the step's, turn's or task's error.
func runExec(ctx context.Context, what, command string, stdin []byte, stderr io.Writer, env ...string) ([]byte, error) {
	stdout := &capWriter{max: maxExecOutput}
	tail := &tailWriter{w: stderr}
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(stdin), stdout, tail
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
		if line := tail.lastLine(); line != "" {
			return nil, fmt.Errorf("%s command: %v (stderr: %q)", what, err, line)
		}
		return nil, fmt.Errorf("%s command: %v", what, err)
	}
	return stdout.buf.Bytes(), nil
}

// tailWriter passes what is written on to w and keeps its last
// tailBytes bytes. (exec.Cmd writes a command's stderr from one goroutine,
// and Run returns after it is done.)
type tailWriter struct {
	w    io.Writer
	tail []byte
}

// tailBytes bounds what tailWriter keeps, and lastLine's result.
const tailBytes = 512

func (t *tailWriter) Write(p []byte) (int, error) {
	t.tail = append(t.tail, p...)
	if len(t.tail) > 2*tailBytes {
		t.tail = append(t.tail[:0], t.tail[len(t.tail)-tailBytes:]...)
	}
	return t.w.Write(p)
}

// lastLine returns the last line that is not blank of what was written,
// trimmed, at most its last tailBytes bytes (from a character's start),
// with bytes that are not UTF-8 replaced.
func (t *tailWriter) lastLine() string {
	b := bytes.TrimRight(t.tail, " \t\r\n")
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	if len(b) > tailBytes {
		b = b[len(b)-tailBytes:]
	}
	// From a character's start: what was kept may begin inside one.
	for len(b) > 0 && !utf8.RuneStart(b[0]) {
		b = b[1:]
	}
	return strings.ToValidUTF8(strings.TrimSpace(string(b)), "\uFFFD")
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
	return jsonexact.TypeText(jsonexact.Unmarshal(raw, v))
}
