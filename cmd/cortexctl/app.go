package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/cortexgraph/cortex/client"
	"github.com/cortexgraph/cortex/config"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/server"
)

// env is what commands share: the I/O streams, the global options and the
// store, opened on first use and closed by run.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer

	args      []string // the command line, as reorderArgs returns it
	dataDir   string
	nsName    string
	cfg       config.Config
	memBudget int64 // --memory-limit; 0: none
	verbose   bool  // --verbose: the storage engine's warnings on stderr

	store *cortex.Store

	// The server the command goes through (remote.go): --server, or the
	// one the discovery file of --data names.
	serverURL  string
	token      string // --token (CORTEX_TOKEN): the bearer token sent to the server
	remoteDone bool
	client     *client.Client
	remoteErr  error
	discovered *server.Discovery // nil with --server
	// remotePrefixes are the server's prefixes (env.prefixes), once asked.
	remotePrefixes map[string]string
	// answerTimeout is --server-timeout (CORTEX_SERVER_TIMEOUT): how
	// long a request waits for the server to begin answering (0: no limit).
	answerTimeout time.Duration

	command        string // the running command, e.g. "cortexctl teams list"
	unknownCommand string // set by urfave's CommandNotFound hook
	unknownIn      string // the command it is not a subcommand of ("" for cortexctl)
}

func (e *env) close() error {
	if e.store == nil {
		return nil
	}
	s := e.store
	e.store = nil
	return s.Close()
}

// How a command opens the store.
// access is what a command does with the selected namespace: read it
// (opening the store read-only), write to what it holds (the store and the
// namespace must exist: a typo in --data or -n is "not found", exit 3, and
// creates nothing), or create it if needed (import, teams create, demo).
type access int

const (
	accessRead access = iota
	accessWrite
	accessCreate
)

type openMode int

const (
	readOnly      openMode = iota // create nothing; no store is an error
	readWrite                     // create the directory and the store if needed
	writeExisting                 // read-write, but no store is an error
)

// open returns the store, opening it on first use in the given mode. A
// command opens the store in one mode; the first call decides. Without
// a store in --data, readOnly and writeExisting fail with an error
// matching cortex.ErrNoStore (exit code 3) and create nothing.
//
// A read-only open of a store that a killed or crashed process left
// unclosed (Badger's log to replay, a write of Cortex's to roll back:
// cortex.ErrRecoveryNeeded) is retried once read-write, which recovers it
// and so rewrites files in --data (recovery, not the command writing); one
// line on stderr says so, naming the command, before it starts
// (recoveryReporter adds one for a write rolled back). The store is then
// reopened read-only.
func (e *env) open(ctx context.Context, mode openMode) (*cortex.Store, error) {
	if e.store != nil {
		return e.store, nil
	}
	if err := e.direct(); err != nil {
		return nil, err
	}
	opts := cortex.DefaultOptions().WithRecoveryProgress(e.recoveryReporter())
	if e.memBudget > 0 {
		opts = opts.WithMemoryBudget(e.memBudget)
	}
	if e.verbose {
		opts = opts.WithLogger(log.New(e.stderr, "cortexctl: ", 0))
	}
	switch mode {
	case readOnly:
		opts = opts.WithReadOnly(true)
	case writeExisting:
		opts = opts.WithCreate(false)
	}
	s, err := cortex.Open(ctx, e.dataDir, opts)
	if errors.Is(err, cortex.ErrLocked) {
		s, err = e.openAfterServer(ctx, err, func() (*cortex.Store, error) { return cortex.Open(ctx, e.dataDir, opts) })
	}
	if mode == readOnly && errors.Is(err, cortex.ErrRecoveryNeeded) {
		who := e.command
		if who == "" {
			who = "cortexctl"
		}
		fmt.Fprintf(e.stderr, "cortexctl: the store in %s was not closed cleanly (a process writing it was killed or crashed): %s opens it read-write once to recover it, which rewrites some of its files, then reads it read-only\n",
			pathText(e.dataDir), who)
		var rw *cortex.Store
		if rw, err = cortex.Open(ctx, e.dataDir, opts.WithReadOnly(false).WithCreate(false)); err == nil {
			err = rw.Close()
		}
		if err == nil {
			s, err = cortex.Open(ctx, e.dataDir, opts)
		}
	}
	if err != nil && notDir(e.dataDir) {
		// --data names a file, or a path under one: no store there (exit
		// 3), and none can be created (an invalid value, as --data "" is).
		if mode == readWrite {
			return nil, fmt.Errorf("%w: --data %s is not a directory (want the store directory)", errInvalid, pathText(e.dataDir))
		}
		return nil, fmt.Errorf("%w at %s (not a directory)", cortex.ErrNoStore, pathText(e.dataDir))
	}
	if errors.Is(err, cortex.ErrNoStore) {
		return nil, fmt.Errorf("%w (commands that write, such as import or teams create, create it)", err)
	}
	if err != nil {
		return nil, err
	}
	e.store = s
	return s, nil
}

// recoveryReporter returns the store's recovery progress callback: one line
// on stderr saying what is rolled back once its keys are counted, and a
// progress bar on a terminal (cleared when done).
func (e *env) recoveryReporter() func(cortex.RecoveryProgress) {
	var bar *progress
	return func(p cortex.RecoveryProgress) {
		if bar == nil {
			if p.Total == 0 && !p.Done {
				return // counting
			}
			fmt.Fprintf(e.stderr, "cortexctl: rolling back an interrupted %s in namespace %s (%s; Ctrl-C stops it, the next command starts it again)\n",
				p.What, p.Namespace, plural(p.Total, "key"))
			bar = e.newProgress("rolling back", p.Total, false)
		}
		bar.set(p.Keys)
		if p.Done {
			bar.finish()
		}
	}
}

// base returns the IRI base of the selected namespace: the config's, else
// the default.
func (e *env) base() string { return e.cfg.NamespaceBase(e.nsName) }

// namespace returns the selected namespace, creating it (and the store)
// when write is set; without write, a missing store or namespace is an
// error (exit code 3) and nothing is created. The base the namespace
// recorded when it was created must be the configured one.
func (e *env) namespace(ctx context.Context, a access) (*cortex.Namespace, error) {
	n, _, err := e.namespaceCreated(ctx, a)
	return n, err
}

// namespaceForWrite is namespace(ctx, accessCreate) for a write that may
// fail: undo, called once the write failed, deletes the namespace again if
// this call created it and nothing else used it since
// (cortex.Store.DeleteNamespaceIfUnused), so that a write that fails
// creates no namespace.
func (e *env) namespaceForWrite(ctx context.Context) (n *cortex.Namespace, undo func(), err error) {
	n, created, err := e.namespaceCreated(ctx, accessCreate)
	if err != nil {
		return nil, nil, err
	}
	return n, func() {
		if created {
			if _, err := e.store.DeleteNamespaceIfUnused(ctx, n); err != nil {
				fmt.Fprintf(e.stderr, "cortexctl: could not delete namespace %s, created for the failed write: %v\n", e.nsName, err)
			}
		}
	}, nil
}

// namespaceCreated is namespace that also reports whether it created the
// namespace.
func (e *env) namespaceCreated(ctx context.Context, a access) (*cortex.Namespace, bool, error) {
	mode := map[access]openMode{accessRead: readOnly, accessWrite: writeExisting, accessCreate: readWrite}[a]
	s, err := e.open(ctx, mode)
	if err != nil {
		return nil, false, err
	}
	var n *cortex.Namespace
	created := false
	if a == accessCreate {
		n, created, err = s.NamespaceCreated(ctx, e.nsName, cortex.WithBase(e.base()))
	} else {
		n, err = s.OpenNamespace(ctx, e.nsName, cortex.WithBase(e.base()))
	}
	var be *cortex.BaseMismatchError
	if errors.As(err, &be) {
		return nil, false, fmt.Errorf("%w: the config gives namespace %s the base %q, but it was created with %q; a namespace's base cannot change (set namespaces.%s.base to %q)",
			cortex.ErrBaseMismatch, e.nsName, be.Requested, be.Recorded, e.nsName, be.Recorded)
	}
	return n, created, err
}

// ns returns the IRI layout of the selected namespace (with the configured base).
func (e *env) ns() (namespace.NS, error) {
	return namespace.New(e.nsName, namespace.WithBase(e.base()))
}

// stderrIsTerminal reports whether progress output makes sense.
func (e *env) stderrIsTerminal() bool {
	f, ok := e.stderr.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func (e *env) printError(err error) {
	msg := err.Error()
	var le *cortex.LockedError
	if errors.As(err, &le) {
		msg = le.Error()
	}
	// Whatever a message holds raw (a path or a value another package
	// names as it is) is escaped: a message is one line of text, with no
	// control character to reach the terminal.
	fmt.Fprintf(e.stderr, "cortexctl: %s\n", oneLine(cutQuoted(msg)))
}

func defaultDataDir() string {
	if x := os.Getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "cortex")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".local", "share", "cortex")
	}
	return "cortex-data"
}

// idList returns the ids that repeatable flag name gives, each value split
// on commas ("--to ann,cat" is "--to ann --to cat"): no team, agent or task
// id holds a comma. Parts are trimmed of spaces; an empty one is refused
// before the command runs (refuseEmptyListItems, for the options of
// idLists).
func idList(c *cli.Context, name string) []string {
	var out []string
	for _, v := range c.StringSlice(name) {
		for _, id := range strings.Split(v, ",") {
			out = append(out, strings.TrimSpace(id))
		}
	}
	return out
}

func newApp(e *env) *cli.App {
	app := &cli.App{
		Name:    "cortexctl",
		Usage:   "manage a Cortex knowledge graph of AI agent teams",
		Version: version,
		Description: `Cortex keeps teams of AI agents, their findings and merged knowledge as RDF
quads in an embedded store (Cayley on Badger). Data lives in --data; each
--namespace is an isolated graph collection.

While a server holds --data (cortexctl serve, or a host serving its store),
commands go through it, found by DIR/cortex-server.json; --server URL
(CORTEX_SERVER) sends them to a server instead. Through a server: teams, plans,
tasks, mail, findings, facts, conflicts, strategies, namespaces, graphs,
stats, query, import, export, defs, workflows and demo. serve opens the
store itself: while a server holds it, serve exits 6; with --server, 2.

Example:
   cortexctl import data.ttl && cortexctl graphs && cortexctl export -o all.nq`,
		Reader:          e.stdin,
		Writer:          e.stdout,
		ErrWriter:       e.stderr,
		Suggest:         true,
		HideHelpCommand: false,
		// A repeatable flag's value is one value: an IRI (--attach), a
		// term (--object), a plan step or a JSON input may hold a comma.
		// The flags that list ids split them on commas (idList).
		DisableSliceFlagSeparator: true,
		// Completion is answered by complete (cmd_completion.go), before
		// the app runs: urfave's own runs the command when the word being
		// completed is "--".
		ExitErrHandler: func(*cli.Context, error) {}, // run maps errors to exit codes
		OnUsageError:   usageError,
		CommandNotFound: func(c *cli.Context, name string) {
			e.unknownCommand = name
			if c.Command != nil && c.Command.Name != "" {
				e.unknownIn = c.Command.HelpName // its parent: "cortexctl teams"
			}
		},
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "data", Usage: "store directory", EnvVars: []string{"CORTEX_DATA"}, Value: defaultDataDir(), DefaultText: "$XDG_DATA_HOME/cortex or ~/.local/share/cortex"},
			&cli.StringFlag{Name: "namespace", Aliases: []string{"n"}, Usage: "namespace to work in", EnvVars: []string{"CORTEX_NAMESPACE"}, Value: namespace.Default},
			&cli.StringFlag{Name: "config", Usage: "JSON5 config file", EnvVars: []string{"CORTEX_CONFIG"}},
			memoryLimitFlag(),
			&cli.BoolFlag{Name: "verbose", Usage: "also print the storage engine's (Badger's) warnings and errors on stderr", EnvVars: []string{"CORTEX_VERBOSE"}},
			&cli.StringFlag{Name: "server", Usage: "send the command to the server at `URL` (unix:///path/to/cortex.sock or http://127.0.0.1:7474) instead of opening --data; without it, a server that holds --data is used", EnvVars: []string{"CORTEX_SERVER"}},
			&cli.StringFlag{Name: "token", Usage: "bearer `TOKEN` sent to the server (cortexctl tokens create); a Unix socket needs none", EnvVars: []string{"CORTEX_TOKEN"}},
			&cli.DurationFlag{Name: "server-timeout", Usage: "how long a command sent to a server waits for it to begin answering each request (a query: its --timeout on top); then exit 8. 0: no limit", EnvVars: []string{"CORTEX_SERVER_TIMEOUT"}, Value: client.DefaultAnswerTimeout},
		},
		Before: func(c *cli.Context) error {
			n, err := applyMemoryLimit(c, e.args)
			if err != nil {
				return err
			}
			e.memBudget = n
			e.verbose = c.Bool("verbose")
			e.dataDir = c.String("data")
			e.nsName = c.String("namespace")
			e.serverURL = c.String("server")
			e.token = c.String("token")
			if e.answerTimeout = c.Duration("server-timeout"); e.answerTimeout < 0 {
				return fmt.Errorf("%w: --server-timeout %s: want 0 (no limit) or a positive duration", errInvalid, durationText(c, e.args, "server-timeout"))
			}
			// Given empty on the command line (--server "$URL" with URL
			// unset), they are usage errors, as --data "" is, not the
			// option left out: the command would work on the local store,
			// or with the default config. An empty variable is one unset
			// (LocalFlagNames names a flag set by either).
			for _, name := range c.LocalFlagNames() {
				env, ok := emptyMeansUnset[name]
				if v, set := os.LookupEnv(env); ok && c.String(name) == "" && !(set && v == "") {
					return usagef("--%s is empty: give a value or leave the option out", name)
				}
			}
			// CORTEX_NAMESPACE set but empty is unset, as the other
			// variables are: the default namespace.
			if e.nsName == "" {
				if namespaceOnCommandLine(c.App, e.args) {
					return usagef("--namespace (-n) is empty: give a value or leave the option out")
				}
				if v, set := os.LookupEnv("CORTEX_NAMESPACE"); set && v == "" {
					e.nsName = namespace.Default
				}
			}
			// CORTEX_DATA set but empty is unset too: the default directory.
			if e.dataDir == "" {
				if v, set := os.LookupEnv("CORTEX_DATA"); set && v == "" && !flagOnCommandLine(c.App, e.args, "data") {
					e.dataDir = defaultDataDir()
				}
			}
			if e.dataDir == "" && e.serverURL == "" {
				return usagef("--data is empty: want the store directory")
			}
			if err := namespace.ValidateName(e.nsName); err != nil {
				return err
			}
			e.cfg = config.Default()
			if p := c.String("config"); p != "" {
				data, err := readInput("--config", p)
				if err != nil {
					return err
				}
				cfg, err := config.Parse(data)
				if err != nil {
					return fmt.Errorf("config %s: %w", pathText(p), err)
				}
				// config does not know the strategies: a name none has
				// would fail every team command later (and every teams
				// RPC of serve), naming neither the file nor the key.
				if _, err := merge.Lookup(cfg.Teams.DefaultStrategy); err != nil {
					return fmt.Errorf("config %s: %w: teams.defaultStrategy: %v", pathText(p), config.ErrInvalid, err)
				}
				e.cfg = cfg
			}
			return nil
		},
		Commands: append(append(storeCommands(e), teamsCommands(e)...), demoCommand(e), completionCommand(e), queryCommand(e), namespacesCommand(e), serveCommand(e), tokensCommand(e), workflowsCommand(e), defsCommand(e), plansCommand(e), tasksCommand(e), mailCommand(e)),
	}
	for _, c := range app.Commands {
		setUsageErrors(c)
		recordCommand(e, c, "cortexctl")
	}
	return app
}

func setUsageErrors(c *cli.Command) {
	c.OnUsageError = usageError
	for _, s := range c.Subcommands {
		setUsageErrors(s)
	}
}

// recordCommand makes each command with an action record its name in
// e.command as it runs (for messages).
func recordCommand(e *env, c *cli.Command, parent string) {
	name := parent + " " + c.Name
	if action := c.Action; action != nil {
		c.Action = func(ctx *cli.Context) error {
			e.command = name
			if err := refuseEmptyArgs(ctx, strings.TrimPrefix(name, "cortexctl ")); err != nil {
				return err
			}
			if err := refuseEmptyValues(e, ctx); err != nil {
				return err
			}
			if err := refuseBlankValues(ctx, strings.TrimPrefix(name, "cortexctl ")); err != nil {
				return err
			}
			if err := refuseEmptyListItems(ctx, strings.TrimPrefix(name, "cortexctl ")); err != nil {
				return err
			}
			return e.runAction(func() error { return action(ctx) })
		}
	}
	for _, s := range c.Subcommands {
		recordCommand(e, s, name)
	}
}

// emptyMeansUnset maps the global options that an empty variable leaves
// unset to their variables: given empty on the command line, they are
// usage errors.
var emptyMeansUnset = map[string]string{"config": "CORTEX_CONFIG", "server": "CORTEX_SERVER", "token": "CORTEX_TOKEN"}

// emptyMeans are the options whose empty value means something (their
// help says what); any other option given an empty value (--graph "",
// -o "") is a usage error (exit 2), as an empty argument and --data ""
// are, not taken for the option left out.
// Keyed by command and option: --assignee "" of tasks update unassigns,
// of tasks create or tasks list it is refused.
var emptyMeans = map[string]bool{
	"serve --listen":              true, // no TCP listener
	"serve --socket":              true, // no Unix socket
	"tasks update --assignee":     true, // unassigned
	"tasks update --blocked-by":   true, // blocked by none
	"tasks board --plan-approver": true, // the operator approves
}

// refuseEmptyValues returns a usage error naming the first string
// option of c's command given an empty value on the command line, except
// those of emptyMeans and those read from the environment (an empty
// variable is one left unset).
func refuseEmptyValues(e *env, c *cli.Context) error {
	if c.Command == nil {
		return nil
	}
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		var env []string
		var empty bool
		switch f := f.(type) {
		case *cli.StringFlag:
			env, empty = f.EnvVars, c.String(name) == ""
		case *cli.StringSliceFlag:
			env, empty = f.EnvVars, slices.Contains(c.StringSlice(name), "")
		default:
			continue
		}
		if empty && len(env) == 0 && !emptyMeans[strings.TrimPrefix(e.command, "cortexctl ")+" --"+name] && c.IsSet(name) {
			flag := "--" + name
			if names := f.Names(); len(names) > 1 {
				flag += " (" + strings.Repeat("-", min(len(names[1]), 2)) + names[1] + ")"
			}
			return usagef("%s: %s is empty: give a value or leave the option out", strings.TrimPrefix(e.command, "cortexctl "), flag)
		}
	}
	return nil
}

// usageError is the error of a command line that does not parse: a usage
// error (exit 2), except a flag's value that is not of its type (--timeout
// abc, --priority 1.5), which is an invalid value (exit 7) saying what the
// flag takes, as every other option value that cannot be used is.
func usageError(c *cli.Context, err error, _ bool) error {
	if m := boolValueError.FindStringSubmatch(err.Error()); m != nil {
		return fmt.Errorf("%w: --%s=%s: want true or false", errInvalid, m[2], m[1])
	}
	if m := envValueError.FindStringSubmatch(err.Error()); m != nil {
		want, typed := "want true or false", m[2] == "bool"
		if !typed && c != nil && c.App != nil {
			want, typed = flagWants(c.App.Flags, m[4], m[1], m[5])
		}
		if typed {
			return fmt.Errorf("%w: %s=%s (--%s): %s", errInvalid, m[3], m[1], m[4], want)
		}
	}
	if m := flagValueError.FindStringSubmatch(err.Error()); m != nil && c != nil {
		flags := c.App.Flags
		if c.Command != nil && c.Command.Name != "" {
			flags = c.Command.Flags
		}
		if want, typed := flagWants(flags, m[2], m[1], m[3]); typed {
			if m[1] == `""` {
				// Empty, as an empty string option is (refuseEmptyValues):
				// a usage error, not a number or duration that does not
				// parse.
				cmd := ""
				if c.Command != nil && c.Command.Name != "" {
					cmd = strings.TrimPrefix(c.Command.HelpName, "cortexctl ") + ": "
				}
				return usagef("%s--%s is empty: give a value or leave the option out", cmd, m[2])
			}
			return fmt.Errorf("%w: --%s %s: %s", errInvalid, m[2], m[1], want)
		}
	}
	if m := unknownFlagError.FindStringSubmatch(err.Error()); m != nil {
		// The flag package names it with one dash and no command.
		help := "cortexctl"
		if c != nil && c.Command != nil && c.Command.Name != "" {
			help = c.Command.HelpName
		}
		flag := "--" + m[1]
		if len(m[1]) == 1 {
			flag = "-" + m[1]
		}
		what := strings.TrimPrefix(strings.TrimPrefix(help, "cortexctl"), " ")
		if what != "" {
			what += ": "
		}
		return usagef("%sunknown flag %s (see %s --help)", what, flag, help)
	}
	// Among them, a value that a flag of our own type refuses (--format
	// yaml: an unknown format), named as the unknown flag is: its
	// command, and the flag by its name with two dashes (the flag
	// package says "for flag -f").
	if m := flagValueError.FindStringSubmatch(err.Error()); m != nil && c != nil && c.Command != nil && c.Command.Name != "" {
		name := m[2]
		for _, f := range c.Command.Flags {
			if slices.Contains(f.Names(), name) {
				name = f.Names()[0]
				break
			}
		}
		return usagef("%s: --%s %s: %s", strings.TrimPrefix(c.Command.HelpName, "cortexctl "), name, m[1], m[3])
	}
	return fmt.Errorf("%w: %v", errUsage, err)
}

// unknownFlagError matches the flag package's error for a flag the
// command does not have: its name.
var unknownFlagError = regexp.MustCompile(`^flag provided but not defined: -+(.+)$`)

// flagValueError matches the flag package's error for a value that does
// not parse: the value (quoted), the flag's name, the reason.
var flagValueError = regexp.MustCompile(`^invalid value ("(?:[^"\\]|\\.)*") for flag -([^:\s]+): (.*)$`)

// boolValueError is flagValueError for a boolean flag (--json=maybe).
var boolValueError = regexp.MustCompile(`^invalid boolean value ("(?:[^"\\]|\\.)*") for -([^:\s]+): (.*)$`)

// envValueError is flagValueError for a flag's environment variable: the
// value, its type, the variable, the flag, the reason.
var envValueError = regexp.MustCompile(`^could not parse ("(?:[^"\\]|\\.)*") as (\w+) value from environment variable "([^"]+)" for flag (\S+): (.*)$`)

// flagWants says what the flag named name of flags takes, given the flag
// package's reason for refusing a value.
// It reports false for a flag that is not of a number or duration type
// (its own Value refused the value: a usage error).
func flagWants(flags []cli.Flag, name, quotedValue, reason string) (string, bool) {
	for _, f := range flags {
		if !slices.Contains(f.Names(), name) {
			continue
		}
		want := ""
		switch f.(type) {
		case *cli.DurationFlag:
			want = "want a duration such as 30s, 5m or 1h30m"
			if v, err := strconv.Unquote(quotedValue); err == nil && durationSyntax.MatchString(v) {
				// Well formed: time.ParseDuration refuses it as too long
				// (with the same message as a malformed one).
				want = "out of range: at most 2562047h47m16s (about 292 years)"
			}
		case *cli.IntFlag, *cli.Int64Flag, *cli.UintFlag, *cli.Uint64Flag:
			want = "want a whole number"
		case *cli.Float64Flag:
			want = "want a number"
		default:
			return "", false
		}
		if reason == "value out of range" {
			want = "out of range"
		}
		return want, true
	}
	return "", false
}

// durationSyntax matches what time.ParseDuration parses, whatever its
// size.
var durationSyntax = regexp.MustCompile(`^[-+]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|µs|μs|ms|s|m|h))+$`)

// usagef returns a usage error (exit code 2).
func usagef(format string, a ...interface{}) error {
	return fmt.Errorf("%w: "+format, append([]interface{}{errUsage}, a...)...)
}

func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%s %ss", groupDigits(n), word)
}

func groupDigits(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
