// Command cortexctl operates a Cortex knowledge graph: import and export RDF,
// inspect graphs, run agent teams and query them.
//
// Run `cortexctl --help` for the commands; exit codes are listed in
// exitcodes.go and in README.md.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func main() {
	// SIGTERM, what process managers send, stops a command as Ctrl-C does:
	// its context ends, work in progress is given back or rolled back. A
	// command that has not stopped stopGrace later (blocked writing its
	// output), or a second signal, exits at once (see stopper).
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	s := &stopper{stderr: os.Stderr, exit: os.Exit, sigs: sigs}
	s.grace.Store(int64(stopGrace))
	ctx, stop := s.start(context.Background(), sigs)
	code := run(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes cortexctl with args and returns the exit code. It never calls
// os.Exit, so deferred cleanup (closing the store) always runs.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	out := &outWriter{w: stdout}
	e := &env{stdin: stdin, stdout: out, stderr: stderr}
	defer e.close()
	app := newApp(e)
	if isCompletion(args) {
		// Never run the app: no Before, no Action, nothing opened.
		complete(app, args[1:len(args)-1], stdout)
		return exitOK
	}
	args = reorderArgs(app, args)
	e.args = args
	err := repeatedFlag(app, args)
	if err == nil {
		err = app.RunContext(ctx, args)
	}
	if e.unknownCommand != "" {
		in := "cortexctl"
		if e.unknownIn != "" {
			in = e.unknownIn
		}
		err = usagef("unknown command %q (see %s --help)", e.unknownCommand, in)
	}
	if err == nil {
		err = e.close()
	}
	if err == nil {
		err = out.err
	}
	if err == nil {
		return exitOK
	}
	code := exitCode(err)
	if code != exitFalse {
		e.printError(err)
	}
	return code
}
