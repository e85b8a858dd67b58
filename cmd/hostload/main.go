// Command hostload runs the agent-host workload of issue 17 ("many teams at
// once") on Cortex, in-process, through the public API of teammanager and
// cortex, as an embedding agent host would:
//
//	go run ./cmd/hostload [--teams 16 --agents 4 --subjects 100 --findings 250 --seed 1 --interval-ms 100]
//	                      [--data DIR] [--out results-cortex.tsv] [--json summary-cortex.json] [--digest]
//	                      [--server unix|tcp|unix:///path/to/socket|http://127.0.0.1:PORT]
//
// It is the Cortex side of shared/bench/hostload/sqlbench.py (SQLite and
// PostgreSQL): the same flags and defaults, the same generator (--digest
// prints the same SHA-256 as `sqlbench.py --digest`), the same agent
// behaviour, the same summary JSON (summary.py reads it) and the same
// canonical results.tsv, so that the merges can be compared line by line.
//
// T teams of A members are created first (even teams majority-wins, odd
// teams conflict-flag; automatic merge on completion). Then T x A
// goroutines start at once; each sets its member running, adds its F
// findings one AddFinding call at a time (each one durable write), and sets
// itself completed (failed: the last agent of every team t with t % 8 ==
// 0); the update that finishes a team merges it in the same call. An
// operator goroutine lists all teams every --interval-ms and counts the
// findings per agent of one running team. The store has Cortex's default
// options: every commit waits for fsync.
//
// With --server the same workload runs through a Cortex server, over
// JSON-RPC (and the operator's SPARQL count over the SPARQL endpoint) with
// package client, which satisfies api.TeamManager as *teammanager.Manager
// does: one code path measures both. --server unix or tcp starts
// server.New(store) in this process on a Unix socket or on 127.0.0.1; a
// URL names a running server (loopback only; its namespace "hostload"
// must hold no teams). After the run every finding AddFinding acknowledged
// (returned an id for) is looked up in the store: one missing is a lost
// write, an error of the run.
//
// Reported: findings/s, p50/p99/max wall time of an AddFinding and of a
// member status update, merge time per team, operator latencies, peak RSS
// (VmHWM of /proc/self/status, read at the end), CPU time and disk use.
// Exit status: 0 when the run had no errors, 1 otherwise, 2 for bad flags.
// docs/PERFORMANCE.md ("Session 12: the hostload benchmark") has figures.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1 // the run failed or reported errors
	exitUsage = 2 // bad flags
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// params is the workload; its JSON form is the "params" of the summary
// (field names as the SQL side writes them).
type params struct {
	Teams      int
	Agents     int
	Subjects   int
	Findings   int
	Seed       int64
	IntervalMS int
}

// config is a parsed command line.
type config struct {
	params
	data    string // store directory; empty: a temporary one, removed
	out     string // results file
	json    string // summary file
	server  string // viaInProcess (""), viaUnix, viaTCP, or the URL of a running server
	stream  bool   // through a server: JSON-RPC calls on one stream (client.Options.WithRPCStream)
	digest  bool   // print the workload digest only
	opCount string // how the operator counts findings: opCountSPARQL or opCountFindings
	cpuProf string // CPU profile file of the run (empty: none)
	memProf string // heap profile file at the end of the run (empty: none)
}

// Operator count methods (--op-count; the summary's op_count_method).
const (
	opCountSPARQL   = "sparql"   // SPARQL COUNT ... GROUP BY through Manager.Query
	opCountFindings = "findings" // Manager.Findings, counted in Go
)

// maxAgents is the largest team a Manager accepts (Config.WithMaxTeamSize).
const maxAgents = 1000

// errUsage marks a bad command line.
var errUsage = errors.New("usage")

func usagef(format string, a ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, a...))
}

// parseArgs parses the command line (without the program name).
func parseArgs(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("hostload", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&c.Teams, "teams", 16, "number of teams")
	fs.IntVar(&c.Agents, "agents", 4, "agents (members) per team")
	fs.IntVar(&c.Subjects, "subjects", 100, "subjects per team")
	fs.IntVar(&c.Findings, "findings", 250, "findings per agent, each its own durable write")
	fs.Int64Var(&c.Seed, "seed", 1, "workload seed")
	fs.IntVar(&c.IntervalMS, "interval-ms", 100, "operator query interval (ms)")
	fs.StringVar(&c.data, "data", "", "store directory, empty or absent (default: a fresh temporary one, removed at the end)")
	fs.StringVar(&c.out, "out", "results-cortex.tsv", "canonical dump of the merged results")
	fs.StringVar(&c.json, "json", "summary-cortex.json", "summary (JSON, as summary.py reads it)")
	fs.StringVar(&c.server, "server", "", "run the workload through a server: unix or tcp (one of this store, started in this process, on a Unix socket or 127.0.0.1), "+
		"or the URL of a running one (unix:///path/to/socket, http://127.0.0.1:PORT; --data is then unused); empty: in-process, no server")
	fs.BoolVar(&c.stream, "rpc-stream", true, "through a server: the client's JSON-RPC calls share one JSON-RPC stream (the client's default); false: an HTTP request each, "+
		"whose time in the server (Server-Timing) the summary reports as add_server_ms and add_overhead_ms")
	fs.BoolVar(&c.digest, "digest", false, "print the workload digest and exit")
	fs.StringVar(&c.opCount, "op-count", opCountSPARQL, "how the operator counts findings per agent: sparql (Manager.Query) or findings (Manager.Findings)")
	fs.StringVar(&c.cpuProf, "cpuprofile", "", "write a CPU profile of the run (go tool pprof) to this file")
	fs.StringVar(&c.memProf, "memprofile", "", "write a heap profile (allocations) at the end of the run to this file")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: hostload [flags]\n\nThe agent-host workload of issue 17 on Cortex (see shared/bench/hostload.md).\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return c, err
		}
		return c, fmt.Errorf("%w: %w", errUsage, err)
	}
	if fs.NArg() > 0 {
		return c, usagef("unexpected argument %q", fs.Arg(0))
	}
	switch {
	case c.Teams < 1:
		return c, usagef("--teams %d: want at least 1", c.Teams)
	case c.Agents < 1 || c.Agents > maxAgents:
		return c, usagef("--agents %d: want 1..%d", c.Agents, maxAgents)
	case c.Subjects < 1:
		return c, usagef("--subjects %d: want at least 1", c.Subjects)
	case c.Findings < 0:
		return c, usagef("--findings %d: want at least 0", c.Findings)
	case c.IntervalMS < 1:
		return c, usagef("--interval-ms %d: want at least 1", c.IntervalMS)
	case c.opCount != opCountSPARQL && c.opCount != opCountFindings:
		return c, usagef("--op-count %q: want %s or %s", c.opCount, opCountSPARQL, opCountFindings)
	case !c.digest && (c.out == "" || c.json == ""):
		return c, usagef("--out and --json must name files")
	}
	if c.server == "" {
		c.server = viaInProcess
	}
	if c.server != viaInProcess && c.server != viaUnix && c.server != viaTCP {
		if err := checkServerURL(c.server); err != nil {
			return c, err
		}
		if c.data != "" {
			return c, usagef("--data and --server %s: the store is the server's", c.server)
		}
	}
	return c, nil
}

// run executes hostload with args (without the program name) and returns
// the exit code. It never calls os.Exit, so deferred cleanup (closing the
// store, removing a temporary directory) always runs.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, err := parseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "hostload: %v\n", err)
		return exitUsage
	}
	work, digest := genWorkload(c.params)
	if c.digest {
		fmt.Fprintln(stdout, digest)
		return exitOK
	}
	stop, err := startProfiles(c)
	if err != nil {
		fmt.Fprintf(stderr, "hostload: %v\n", err)
		return exitError
	}
	sum, err := runCommand(ctx, c, work, digest)
	if perr := stop(); err == nil {
		err = perr
	}
	if err != nil {
		fmt.Fprintf(stderr, "hostload: %v\n", err)
		if errors.Is(err, errUsage) {
			return exitUsage
		}
		return exitError
	}
	fmt.Fprintln(stdout, sum.line())
	for i, e := range sum.Errors {
		if i == 10 {
			break
		}
		fmt.Fprintln(stderr, "error:", e)
	}
	if len(sum.Errors) > 0 {
		return exitError
	}
	return exitOK
}

// startProfiles starts the CPU profile of c and returns the function that
// stops it and writes the heap profile.
func startProfiles(c config) (stop func() error, err error) {
	var cpu *os.File
	if c.cpuProf != "" {
		if cpu, err = os.Create(c.cpuProf); err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(cpu); err != nil {
			cpu.Close()
			return nil, err
		}
	}
	return func() error {
		if cpu != nil {
			pprof.StopCPUProfile()
			if err := cpu.Close(); err != nil {
				return err
			}
		}
		if c.memProf == "" {
			return nil
		}
		f, err := os.Create(c.memProf)
		if err != nil {
			return err
		}
		runtime.GC() // the profile shows the allocations up to the last GC
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}, nil
}
