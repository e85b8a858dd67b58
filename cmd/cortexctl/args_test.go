package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// leafCommands walks the app's command tree and returns every command that
// runs (has no subcommands), with its path.
func leafCommands(cmds []*cli.Command, path []string) map[string]*cli.Command {
	out := map[string]*cli.Command{}
	for _, c := range cmds {
		p := append(slices.Clone(path), c.Name)
		if len(c.Subcommands) == 0 {
			out[strings.Join(p, " ")] = c
			continue
		}
		for k, v := range leafCommands(c.Subcommands, p) {
			out[k] = v
		}
	}
	return out
}

// sampleValue returns a value flag f accepts on the command line, or ""
// for a flag that takes none.
func sampleValue(t *testing.T, f cli.Flag) string {
	t.Helper()
	switch f.(type) {
	case *cli.BoolFlag:
		return ""
	case *cli.StringFlag, *cli.StringSliceFlag:
		return "v"
	case *cli.Int64Flag, *cli.IntFlag:
		return "3"
	case *cli.Float64Flag:
		return "0.5"
	case *cli.DurationFlag:
		return "2s"
	case *cli.GenericFlag:
		return "json"
	}
	t.Fatalf("flag %s: no sample value for %T", f.Names()[0], f)
	return ""
}

// TestCLI_FlagsAfterArguments: for every command of the app and every one
// of its flags, the flag written after a positional argument is parsed as
// the flag, in its long and short forms and as --flag=value, and "--"
// still ends the flags. The commands' actions are replaced by one that
// records what it got.
func TestCLI_FlagsAfterArguments(t *testing.T) {
	var got struct {
		args []string
		set  bool
	}
	var flagName string
	e := &env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	app := newApp(e)
	leaves := leafCommands(app.Commands, nil)
	if len(leaves) < 15 {
		t.Fatalf("only %d commands found", len(leaves))
	}
	for _, c := range leaves {
		c.Action = func(c *cli.Context) error {
			got.args = c.Args().Slice()
			got.set = c.IsSet(flagName)
			return nil
		}
	}
	run := func(args ...string) error {
		got.args, got.set = nil, false
		return app.RunContext(context.Background(), reorderArgs(app, append([]string{"cortexctl", "--data", t.TempDir()}, args...)))
	}
	checked := 0
	for name, c := range leaves {
		path := strings.Fields(name)
		for _, f := range c.Flags {
			for _, fn := range f.Names() {
				dash := "--"
				if len(fn) == 1 {
					dash = "-"
				}
				flagName = f.Names()[0]
				v := sampleValue(t, f)
				forms := [][]string{{dash + fn}}
				if v != "" {
					forms = [][]string{{dash + fn, v}, {dash + fn + "=" + v}}
				}
				for _, form := range forms {
					args := append(append(slices.Clone(path), "ARG1", "ARG2"), form...)
					if err := run(args...); err != nil {
						t.Errorf("%v: %v", args, err)
						continue
					}
					if !got.set || !slices.Equal(got.args, []string{"ARG1", "ARG2"}) {
						t.Errorf("%v: flag set %v, args %q", args, got.set, got.args)
					}
					checked++
				}
			}
		}
		// After "--", a word that looks like a flag is an argument.
		if len(c.Flags) > 0 {
			flagName = c.Flags[0].Names()[0]
			args := append(slices.Clone(path), "ARG1", "--", "--"+flagName, "-x")
			if err := run(args...); err != nil || got.set || !slices.Equal(got.args, []string{"ARG1", "--" + flagName, "-x"}) {
				t.Errorf("%v: err %v, flag set %v, args %q", args, err, got.set, got.args)
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d flag forms checked", checked)
	}
	// A global flag after the command goes to the app; "-" stays an
	// argument; an unknown flag is still an error.
	flagName = "json"
	if err := run("graphs", "-n", "acme"); err != nil || e.nsName != "acme" {
		t.Fatalf("global flag after the command: %v, namespace %q", err, e.nsName)
	}
	if err := run("import", "-", "--format", "nt"); err != nil || !slices.Equal(got.args, []string{"-"}) {
		t.Fatalf("import - --format nt: %v, args %q", err, got.args)
	}
	if err := run("import", "a.nt", "--bogus"); err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Fatalf("unknown flag: %v", err)
	}
}

// TestCLI_HelpAfterArguments: --help after a command's arguments shows the
// command's help.
func TestCLI_HelpAfterArguments(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		name string
	}{
		{[]string{"teams", "get", "T1", "--help"}, "cortexctl teams get - show a team"},
		{[]string{"import", "a.nt", "-h"}, "cortexctl import - load RDF files"},
		{[]string{"query", "ASK {}", "--json", "--help"}, "cortexctl query - run a SPARQL"},
	} {
		if out := mustCLI(t, dir, tc.args...); !strings.Contains(out, tc.name) || !strings.Contains(out, "Example") {
			t.Errorf("%v:\n%s", tc.args, out)
		}
	}
	if dirState(t, dir) != "" {
		t.Fatalf("help wrote to the store directory: %s", dirState(t, dir))
	}
}

// TestCLI_FlagsAfterArgumentsForReal: the examples, run.
func TestCLI_FlagsAfterArgumentsForReal(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, "data.ttl", "<http://ex/s> <http://ex/p> \"o\" .\n")
	mustCLI(t, dir, "import", in, "--graph", "http://example.org/g1")
	if out := mustCLI(t, dir, "graphs", "--json"); !strings.Contains(out, `"graph": "http://example.org/g1"`) || strings.Contains(out, `"graph": null`) {
		t.Fatalf("imported into the wrong graph:\n%s", out)
	}
	if out := mustCLI(t, dir, "query", "ASK {}", "--json"); !strings.Contains(out, `"boolean":true`) {
		t.Fatalf("query --json after the query: %q", out)
	}
}

// TestCLI_ImportChecksEveryArgumentFirst: a bad argument anywhere leaves
// nothing of the good files behind (not even a store).
func TestCLI_ImportChecksEveryArgumentFirst(t *testing.T) {
	good := writeFile(t, "a.ttl", "<http://ex/s> <http://ex/p> \"o\" .\n")
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"missing second file", []string{good, filepath.Join(t.TempDir(), "missing.ttl")}, exitNotFound},
		{"unknown extension", []string{good, writeFile(t, "b.rdf", "")}, exitUsage},
		{"a directory", []string{good, t.TempDir()}, exitUsage},
		{"stdin twice", []string{"-", "-", "--format", "nt"}, exitUsage},
		{"relative base", []string{good, "--base", "rel"}, exitInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "store")
			r := runCLI(t, dir, "", append([]string{"import"}, tc.args...)...)
			if r.code != tc.code || dirState(t, dir) != "absent" {
				t.Fatalf("exit %d (want %d), store %s: %s", r.code, tc.code, dirState(t, dir), r.stderr)
			}
		})
	}
	// On an existing store, nothing of the good file is imported either.
	dir := t.TempDir()
	mustCLI(t, dir, "import", writeFile(t, "other.nt", "<http://ex/x> <http://ex/p> \"other\" .\n"))
	if r := runCLI(t, dir, "", "import", good, filepath.Join(t.TempDir(), "missing.ttl")); r.code != exitNotFound {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if out := mustCLI(t, dir, "export"); strings.Contains(out, "<http://ex/s>") {
		t.Fatalf("the good file was imported:\n%s", out)
	}
}

// TestCLI_EmptyArguments walks every command of the app: each positional
// argument its usage names (TEAM, TASK, [REASON], each of MESSAGE...)
// given empty, and each of its string options given empty (but those
// whose empty value means something, emptyMeans), is a usage error (exit
// 2) naming the argument or option, before anything is opened or sent
// (a number or duration option given empty too: it was 7, as one that
// does not parse, while README says 2):
// the store's directory (and so its content) is left as it was, read-only
// commands included. They were 2, 3, 5 or 7 by command (teams get "" 2,
// workflows run "" 3, findings add with an empty SUBJECT 5, mail send
// with an empty BODY 7, --as "" 7), and an empty optional argument (tasks
// cancel TEAM TASK "") was taken for one left out.
func TestCLI_EmptyArguments(t *testing.T) {
	var dir string
	if throughServer {
		dir = t.TempDir() // populatedStore makes a token, which no server does
		crewTeam(t, dir)
	} else {
		dir = populatedStore(t)
	}
	before, beforeTree := mustCLI(t, dir, "export"), treeState(t, dir)
	check := func(t *testing.T, args []string, want string) {
		t.Helper()
		r := runCLI(t, dir, "", args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, want) || r.stdout != "" {
			t.Fatalf("%q: exit %d (want %d), stdout %q, stderr %q (want %q)", args, r.code, exitUsage, r.stdout, r.stderr, want)
		}
		// Through a server, the server (one per command) rewrites the
		// store's lock file: its content is compared instead.
		if !throughServer {
			if after := treeState(t, dir); after != beforeTree {
				t.Fatalf("%q changed the store's directory:\n%s\nwant\n%s", args, after, beforeTree)
			}
		}
	}
	app := newApp(&env{})
	cmds := leafCommands(app.Commands, nil)
	n := 0
	for path, c := range cmds {
		names, repeats := argNames(c.ArgsUsage)
		if repeats {
			names = append(names, names[len(names)-1]) // the second of them
		}
		for i, name := range names {
			args := strings.Fields(path)
			for j := range names {
				if j == i {
					args = append(args, "")
				} else if j < i || j < len(names)-1 || !repeats {
					args = append(args, "x")
				}
			}
			t.Run(path+" "+name+fmt.Sprint(i), func(t *testing.T) {
				check(t, args, path+": "+name+" is empty: want ")
			})
			n++
		}
		for _, f := range c.Flags {
			switch f := f.(type) {
			case *cli.StringFlag:
				if len(f.EnvVars) > 0 {
					continue
				}
			case *cli.StringSliceFlag:
			case *cli.IntFlag, *cli.Int64Flag, *cli.UintFlag, *cli.Uint64Flag, *cli.Float64Flag, *cli.DurationFlag:
				// A number or a duration given empty is empty too, not
				// one that does not parse (exit 7, "--priority "": want
				// a whole number").
				if ev, ok := f.(interface{ GetEnvVars() []string }); ok && len(ev.GetEnvVars()) > 0 {
					continue
				}
			default:
				continue
			}
			name := f.Names()[0]
			if emptyMeans[path+" --"+name] {
				continue
			}
			args := strings.Fields(path)
			for range len(names) {
				args = append(args, "x")
			}
			args = append(args, "--"+name, "")
			t.Run(path+" --"+name, func(t *testing.T) {
				check(t, args, path+": --"+name)
			})
			n++
		}
	}
	if n < 150 {
		t.Fatalf("%d cases: the walk missed commands", n)
	}
	for _, flag := range []string{"--namespace (-n)", "--memory-limit", "--config", "--server", "--token"} {
		args := []string{strings.Fields(flag)[0], "", "stats"}
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			check(t, args, "usage: "+flag+" is empty")
		})
	}
	// --data "", given by runCLI: the directory is another's.
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"cortexctl", "--data", "", "stats"}, strings.NewReader(""), &out, &errb)
	if want := "usage: --data is empty"; code != exitUsage || !strings.Contains(errb.String(), want) {
		t.Errorf("--data \"\" stats: exit %d (want %d), stderr %q (want %q)", code, exitUsage, errb.String(), want)
	}
	if after := mustCLI(t, dir, "export"); after != before {
		t.Fatalf("the store changed:\n%s\nwant\n%s", after, before)
	}
}

// TestCLI_EmptyOptionValues: an option given an empty value is a usage
// error (exit 2, as --data ” is) naming the option, and writes nothing;
// it was taken for the option left out (--graph ” imported into the
// default graph, -o ” wrote to standard output, --id ” generated an
// id). The options whose empty value means something (serve --listen ”)
// are apart.
func TestCLI_EmptyOptionValues(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	before := mustCLI(t, dir, "export")
	nt := writeFile(t, "a.nt", "<http://ex/s> <http://ex/p> \"o\" .\n")
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"import", nt, "--graph", ""}, "--graph (-g)"},
		{[]string{"import", nt, "--import-id", ""}, "--import-id"},
		{[]string{"import", nt, "--base", ""}, "--base"},
		{[]string{"export", "--graph", ""}, "--graph (-g)"},
		{[]string{"export", "-o", ""}, "--output (-o)"},
		{[]string{"export", "--format", ""}, "--format (-f)"},
		{[]string{"teams", "create", "--id", "", "--name", "n", "--member", "x"}, "--id"},
		{[]string{"teams", "create", "--id", "t2", "--name", "n", "--member", ""}, "--member"},
		{[]string{"query", "SELECT * {}", "--default-graph", ""}, "--default-graph"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := runCLI(t, dir, "", tc.args...)
			want := tc.flag + " is empty"
			if r.code != exitUsage || !strings.Contains(r.stderr, want) || r.stdout != "" {
				t.Fatalf("exit %d (want %d), stdout %q, stderr %q (want %q)", r.code, exitUsage, r.stdout, r.stderr, want)
			}
		})
	}
	if after := mustCLI(t, dir, "export"); after != before {
		t.Fatalf("the store changed:\n%s\nwant\n%s", after, before)
	}
}

// TestCLI_EmptyGlobalOptionValues: --config ”, --server ” and --token ”
// on the command line are usage errors (exit 2) naming the option, as
// --data ” is, and write nothing: they were taken for the option left out
// (--server "$URL" with URL unset worked on the local store instead of the
// server's; --config "$CFG" ran with the default config). The variables
// set empty (CORTEX_CONFIG= ...) are ones left unset.
func TestCLI_EmptyGlobalOptionValues(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	before := mustCLI(t, dir, "export")
	for _, flag := range []string{"--config", "--server", "--token"} {
		for _, args := range [][]string{{flag, "", "teams", "list"}, {"teams", "create", "--name", "n", "--member", "x", flag + "="}} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				r := runCLI(t, dir, "", args...)
				want := flag + " is empty"
				if r.code != exitUsage || !strings.Contains(r.stderr, want) || r.stdout != "" {
					t.Fatalf("exit %d (want %d), stdout %q, stderr %q (want %q)", r.code, exitUsage, r.stdout, r.stderr, want)
				}
			})
		}
	}
	if after := mustCLI(t, dir, "export"); after != before {
		t.Fatalf("the store changed:\n%s\nwant\n%s", after, before)
	}
	for _, env := range []string{"CORTEX_CONFIG", "CORTEX_SERVER", "CORTEX_TOKEN"} {
		t.Run(env+"=", func(t *testing.T) {
			t.Setenv(env, "")
			if r := runCLI(t, dir, "", "teams", "list"); r.code != 0 {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
		})
	}
}

// TestCLI_FlagValues: a flag's value that is not of its type is an invalid
// value (exit 7, as README's table lists `--timeout -5`), naming the flag
// with its two dashes and what it takes, and writes nothing.
func TestCLI_FlagValues(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	before := mustCLI(t, dir, "export")
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"query", "ASK {}", "--timeout", "-5"}, `--timeout "-5": want a duration`},
		{[]string{"query", "ASK {}", "--timeout", "abc"}, `--timeout "abc": want a duration`},
		{[]string{"teams", "create", "--name", "x", "--member", "a:lead", "--timeout", "1.5"}, `--timeout "1.5": want a whole number`},
		{[]string{"teams", "create", "--name", "x", "--member", "a:lead", "--timeout", "99999999999999999999"}, `--timeout "99999999999999999999": out of range`},
		{[]string{"tasks", "create", "crew", "x", "--priority", "high"}, `--priority "high": want a whole number`},
		{[]string{"findings", "add", "crew", "bob", "<http://ex/s>", "<http://ex/p>", "o", "--confidence", "sure"}, `--confidence "sure": want a number`},
		{[]string{"teams", "list", "--json=maybe"}, `--json="maybe": want true or false`},
		{[]string{"--verbose=x", "teams", "list"}, `--verbose="x": want true or false`},
	} {
		t.Run(strings.Join(tc.args[:2], " "), func(t *testing.T) {
			r := runCLI(t, dir, "", tc.args...)
			if r.code != exitInvalid || !strings.Contains(r.stderr, tc.msg) || r.stdout != "" {
				t.Fatalf("%q: exit %d (want %d), stdout %q, stderr %q (want %q)", tc.args, r.code, exitInvalid, r.stdout, r.stderr, tc.msg)
			}
		})
	}
	t.Run("environment", func(t *testing.T) {
		t.Setenv("CORTEX_VERBOSE", "x")
		r := runCLI(t, dir, "", "teams", "list")
		if want := `CORTEX_VERBOSE="x" (--verbose): want true or false`; r.code != exitInvalid || !strings.Contains(r.stderr, want) {
			t.Fatalf("exit %d (want %d), stderr %q (want %q)", r.code, exitInvalid, r.stderr, want)
		}
	})
	// The memory limit's message names the variable too (it named
	// --memory-limit alone, which the command line did not give).
	t.Run("environment memory limit", func(t *testing.T) {
		t.Setenv("CORTEX_MEMORY_LIMIT", "lots")
		r := runCLI(t, dir, "", "teams", "list")
		if want := `--memory-limit (CORTEX_MEMORY_LIMIT): "lots" is not a size`; r.code != exitInvalid || !strings.Contains(r.stderr, want) {
			t.Fatalf("exit %d (want %d), stderr %q (want %q)", r.code, exitInvalid, r.stderr, want)
		}
	})
	if after := mustCLI(t, dir, "export"); after != before {
		t.Fatalf("the store changed:\n%s\nwant\n%s", after, before)
	}
}

// TestCLI_EmptyVariablesAreUnset: CORTEX_NAMESPACE, CORTEX_MEMORY_LIMIT and
// CORTEX_DATA set but empty count as unset (the default namespace, limit
// and directory),
// as CORTEX_CONFIG, CORTEX_SERVER and CORTEX_TOKEN do; they were invalid
// values (exit 7). Empty on the command line they are usage errors (exit
// 2), as any empty option value is.
func TestCLI_EmptyVariablesAreUnset(t *testing.T) {
	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--id", "t1", "--name", "n", "--member", "a")
	for _, env := range []string{"CORTEX_NAMESPACE", "CORTEX_MEMORY_LIMIT"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, "")
			if out := mustCLI(t, dir, "teams", "list", "--json"); !strings.Contains(out, `"t1"`) {
				t.Fatalf("%s empty: teams list %s, want the default namespace's t1", env, out)
			}
		})
	}
	// CORTEX_DATA empty: the default directory, under XDG_DATA_HOME.
	t.Run("CORTEX_DATA", func(t *testing.T) {
		xdg := t.TempDir()
		t.Setenv("XDG_DATA_HOME", xdg)
		t.Setenv("CORTEX_DATA", "")
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{"cortexctl", "teams", "create", "--id", "t2", "--name", "n", "--member", "a"}, strings.NewReader(""), &out, &errb)
		if code != 0 {
			t.Fatalf("CORTEX_DATA empty: teams create exit %d: %s", code, errb.String())
		}
		if out := mustCLI(t, filepath.Join(xdg, "cortex"), "teams", "list", "--json"); !strings.Contains(out, `"t2"`) {
			t.Fatalf("the default directory's teams: %s, want t2", out)
		}
	})
	t.Setenv("CORTEX_NAMESPACE", "")
	t.Setenv("CORTEX_MEMORY_LIMIT", "")
	for _, args := range [][]string{{"-n", "", "teams", "list"}, {"--memory-limit", "", "teams", "list"}} {
		if r := runCLI(t, dir, "", args...); r.code != exitUsage {
			t.Errorf("%q: exit %d, want %d: %s", args, r.code, exitUsage, r.stderr)
		}
	}
}

// TestCLI_LongValuesCutInErrors: an error message quotes a long value
// (an id of 100 KB) by its start and its length, not whole: it wrote the
// whole value to stderr. Messages of ordinary values are unchanged.
func TestCLI_LongValuesCutInErrors(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	long := strings.Repeat("a", 102400)
	want := `"` + strings.Repeat("a", quotedKeep) + `…" (102400 bytes)`
	for _, args := range [][]string{
		{"teams", "get", long},
		{"findings", "list", long},
		{"tasks", "get", "crew", long},
		{"workflows", "status", long},
		{"teams", "snapshot", "list", long},
		{"tokens", "revoke", long},
		{"defs", "get", long},
		{"-n", long, "stats"},
		{"import", writeFile(t, "a.nt", "<http://ex/s> <http://ex/p> \"o\" .\n"), "--import-id", long},
	} {
		name := strings.ReplaceAll(strings.Join(args, " "), long, "LONG")
		t.Run(name, func(t *testing.T) {
			r := runCLI(t, dir, "", args...)
			if r.code == 0 || len(r.stderr) > 1000 || !strings.Contains(r.stderr, want) {
				t.Fatalf("exit %d, %d bytes of stderr (want a message quoting %s): %.300q", r.code, len(r.stderr), want, r.stderr)
			}
		})
	}
	if r := runCLI(t, dir, "", "teams", "get", "nope"); r.stderr != "cortexctl: team \"nope\": unknown team\n" {
		t.Fatalf("teams get nope: stderr %q", r.stderr)
	}
}

// TestCLI_UsageMessages: usage errors name the command at fault and the
// help to read: an unknown subcommand points to its parent's help (it
// pointed to cortexctl --help), an unknown flag is named with its dashes
// and its command (it was "flag provided but not defined: -bogus"); a
// duration too long for a flag says so (it said "want a duration such as
// 30s" of a well-formed one); an output format that is neither table nor
// json is named with its flag's dashes and its command (it was `invalid
// value "xml" for flag -format: want table or json, got "xml"`); teams
// create --help has no stray words.
func TestCLI_UsageMessages(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"teams", "bogus"}, exitUsage, `cortexctl: usage: unknown command "bogus" (see cortexctl teams --help)` + "\n"},
		{[]string{"teams", "snapshot", "bogus"}, exitUsage, `cortexctl: usage: unknown command "bogus" (see cortexctl teams snapshot --help)` + "\n"},
		{[]string{"bogus"}, exitUsage, `cortexctl: usage: unknown command "bogus" (see cortexctl --help)` + "\n"},
		{[]string{"stats", "--bogus"}, exitUsage, "cortexctl: usage: stats: unknown flag --bogus (see cortexctl stats --help)\n"},
		{[]string{"teams", "create", "-x"}, exitUsage, "cortexctl: usage: teams create: unknown flag -x (see cortexctl teams create --help)\n"},
		{[]string{"query", "ASK {}", "--timeout", "99999999h"}, exitInvalid, `cortexctl: invalid value: --timeout "99999999h": out of range: at most 2562047h47m16s (about 292 years)` + "\n"},
		{[]string{"query", "ASK {}", "--timeout", "9x"}, exitInvalid, `cortexctl: invalid value: --timeout "9x": want a duration such as 30s, 5m or 1h30m` + "\n"},
		{[]string{"teams", "list", "--format", "xml"}, exitUsage, `cortexctl: usage: teams list: --format "xml": want table or json` + "\n"},
		{[]string{"teams", "list", "-f=yaml"}, exitUsage, `cortexctl: usage: teams list: --format "yaml": want table or json` + "\n"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := runCLI(t, dir, "", tc.args...)
			if r.code != tc.code || r.stderr != tc.want {
				t.Fatalf("exit %d (want %d), stderr %q, want %q", r.code, tc.code, r.stderr, tc.want)
			}
		})
	}
	if out := mustCLI(t, dir, "teams", "create", "--help"); strings.Contains(out, "in this case") || !strings.Contains(out, "critical}]; a key given twice") {
		t.Errorf("teams create --help:\n%s", out)
	}
}

// TestREADME_DashDashEndsFlags runs the README's example of "--" ending
// the flags, as written, on a team T whose member A runs: the word after
// "--" is the object, not a flag. (It gave relative IRIs, <s> and <p>,
// which every command refuses: exit 5.)
func TestREADME_DashDashEndsFlags(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("`(cortexctl findings add T A [^`]* -- -5)`").FindSubmatch(readme)
	if m == nil {
		t.Fatal("the README has no `cortexctl findings add T A ... -- -5` example")
	}
	dir := t.TempDir()
	mustCLI(t, dir, "teams", "create", "--id", "T", "--name", "t", "--member", "A")
	mustCLI(t, dir, "teams", "member-status", "T", "A", "running")
	cmd := exec.Command("bash", "-c", string(m[1]))
	cmd.Env = append(os.Environ(), "CORTEX_DATA="+dir,
		"PATH="+filepath.Dir(buildCLI(t))+string(os.PathListSeparator)+os.Getenv("PATH"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", m[1], err, out)
	}
	if out := mustCLI(t, dir, "findings", "list", "T", "--json"); !strings.Contains(out, `"object": "\"-5\""`) {
		t.Fatalf("findings list:\n%s\nwant the object \"-5\"", out)
	}
}

// TestCLI_FlagGivenTwice: a flag that takes one value, given twice (in any
// of its forms), is a usage error (exit 2) naming it, and nothing is
// written; urfave/cli took the last one silently (import -g A -g B
// imported into B). Repeatable flags and boolean ones are apart.
func TestCLI_FlagGivenTwice(t *testing.T) {
	dir := t.TempDir()
	crewTeam(t, dir)
	before := mustCLI(t, dir, "export")
	nt := writeFile(t, "a.nt", "<http://ex/s> <http://ex/p> \"o\" .\n")
	out := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"import", nt, "-g", "http://ex/a", "-g", "http://ex/b"}, "import: --graph (-g) given twice"},
		{[]string{"import", "--graph=http://ex/a", nt, "-g", "http://ex/a"}, "import: --graph (-g) given twice"},
		{[]string{"import", nt, "--import-id", "a1", "--import-id", "a2"}, "import: --import-id given twice"},
		{[]string{"import", nt, "--base", "http://ex/", "--base", "http://ex/"}, "import: --base given twice"},
		{[]string{"import", nt, "-f", "nt", "--format", "ttl"}, "import: --format (-f) given twice"},
		{[]string{"export", "-o", filepath.Join(out, "a.nq"), "-o", filepath.Join(out, "b.nq")}, "export: --output (-o) given twice"},
		{[]string{"query", "SELECT * {}", "--format", "json", "--format", "csv"}, "query: --format (-f) given twice"},
		{[]string{"graphs", "-f", "json", "-f", "table"}, "graphs: --format (-f) given twice"},
		{[]string{"--data", dir, "stats"}, "--data given twice"},
		{[]string{"-n", "a", "stats", "-n", "b"}, "--namespace (-n) given twice"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := runCLI(t, dir, "", tc.args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) || r.stdout != "" {
				t.Fatalf("exit %d (want %d), stdout %q, stderr %q (want %q)", r.code, exitUsage, r.stdout, r.stderr, tc.want)
			}
		})
	}
	if after := mustCLI(t, dir, "export"); after != before {
		t.Fatalf("the store changed:\n%s\nwant\n%s", after, before)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Fatalf("export wrote %v", ents)
	}
	// A boolean flag given twice says the same twice.
	if r := runCLI(t, dir, "", "graphs", "--json", "--json"); r.code != 0 {
		t.Fatalf("graphs --json --json: exit %d: %s", r.code, r.stderr)
	}
}

// TestCLI_FlagGivenTwiceEveryCommand: for every command, every flag that
// takes one value is refused when given twice (its long and short names
// mixed), and every repeatable one is not.
func TestCLI_FlagGivenTwiceEveryCommand(t *testing.T) {
	e := &env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	app := newApp(e)
	checked := 0
	for name, c := range leafCommands(app.Commands, nil) {
		path := strings.Fields(name)
		for _, f := range c.Flags {
			v := sampleValue(t, f)
			if v == "" {
				continue
			}
			names := f.Names()
			last := names[len(names)-1]
			dash := "--"
			if len(last) == 1 {
				dash = "-"
			}
			args := append(append([]string{"cortexctl"}, path...), "--"+names[0], v, "ARG", dash+last+"="+v)
			err := repeatedFlag(app, reorderArgs(app, args))
			if sf, ok := f.(interface{ IsSliceFlag() bool }); ok && sf.IsSliceFlag() {
				if err != nil {
					t.Errorf("%v: %v", args, err)
				}
				continue
			}
			if err == nil || exitCode(err) != exitUsage || !strings.Contains(err.Error(), "--"+names[0]) {
				t.Errorf("%v: %v", args, err)
			}
			checked++
		}
	}
	if checked < 50 {
		t.Fatalf("only %d flags checked", checked)
	}
}
