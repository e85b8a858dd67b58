package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/cortexgraph/cortex/config"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/namespace"
)

// env is what commands share: the I/O streams, the global options and the
// store, opened on first use and closed by run.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer

	dataDir   string
	nsName    string
	cfg       config.Config
	memBudget int64 // --memory-limit; 0: none

	store *cortex.Store

	unknownCommand string // set by urfave's CommandNotFound hook
}

func (e *env) close() error {
	if e.store == nil {
		return nil
	}
	s := e.store
	e.store = nil
	return s.Close()
}

// open returns the store, opening it on first use.
func (e *env) open(ctx context.Context) (*cortex.Store, error) {
	if e.store != nil {
		return e.store, nil
	}
	opts := cortex.DefaultOptions()
	if e.memBudget > 0 {
		opts = opts.WithMemoryBudget(e.memBudget)
	}
	s, err := cortex.Open(ctx, e.dataDir, opts)
	if err != nil {
		return nil, err
	}
	e.store = s
	return s, nil
}

// namespace returns the selected namespace of the store.
func (e *env) namespace(ctx context.Context) (*cortex.Namespace, error) {
	s, err := e.open(ctx)
	if err != nil {
		return nil, err
	}
	return s.Namespace(ctx, e.nsName)
}

// ns returns the IRI layout of the selected namespace (with the configured base).
func (e *env) ns() (namespace.NS, error) {
	var opts []namespace.Option
	if c, ok := e.cfg.Namespaces[e.nsName]; ok && c.Base != "" {
		opts = append(opts, namespace.WithBase(c.Base))
	}
	return namespace.New(e.nsName, opts...)
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
	fmt.Fprintf(e.stderr, "cortexctl: %s\n", msg)
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

func newApp(e *env) *cli.App {
	app := &cli.App{
		Name:    "cortexctl",
		Usage:   "manage a Cortex knowledge graph of AI agent teams",
		Version: version,
		Description: `Cortex keeps teams of AI agents, their findings and merged knowledge as RDF
quads in an embedded store (Cayley on Badger). Data lives in --data; each
--namespace is an isolated graph collection.

Example:
   cortexctl import data.ttl && cortexctl graphs && cortexctl export -o all.nq`,
		Reader:               e.stdin,
		Writer:               e.stdout,
		ErrWriter:            e.stderr,
		EnableBashCompletion: true,
		Suggest:              true,
		HideHelpCommand:      false,
		ExitErrHandler:       func(*cli.Context, error) {}, // run maps errors to exit codes
		OnUsageError:         usageError,
		CommandNotFound: func(c *cli.Context, name string) {
			e.unknownCommand = name
		},
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "data", Usage: "store directory", EnvVars: []string{"CORTEX_DATA"}, Value: defaultDataDir(), DefaultText: "$XDG_DATA_HOME/cortex or ~/.local/share/cortex"},
			&cli.StringFlag{Name: "namespace", Aliases: []string{"n"}, Usage: "namespace to work in", EnvVars: []string{"CORTEX_NAMESPACE"}, Value: namespace.Default},
			&cli.StringFlag{Name: "config", Usage: "JSON5 config file", EnvVars: []string{"CORTEX_CONFIG"}},
			memoryLimitFlag(),
		},
		Before: func(c *cli.Context) error {
			n, err := applyMemoryLimit(c)
			if err != nil {
				return err
			}
			e.memBudget = n
			e.dataDir = c.String("data")
			e.nsName = c.String("namespace")
			if err := namespace.ValidateName(e.nsName); err != nil {
				return err
			}
			e.cfg = config.Default()
			if p := c.String("config"); p != "" {
				cfg, err := config.Load(p)
				if err != nil {
					return err
				}
				e.cfg = cfg
			}
			return nil
		},
		Commands: append(append(storeCommands(e), teamsCommands(e)...), demoCommand(e), completionCommand(e), queryCommand(e)),
	}
	for _, c := range app.Commands {
		setUsageErrors(c)
	}
	return app
}

func setUsageErrors(c *cli.Command) {
	c.OnUsageError = usageError
	for _, s := range c.Subcommands {
		setUsageErrors(s)
	}
}

func usageError(_ *cli.Context, err error, _ bool) error {
	return fmt.Errorf("%w: %v", errUsage, err)
}

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
