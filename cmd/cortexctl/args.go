package main

import (
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/cortexgraph/cortex/merge"
	"github.com/urfave/cli/v2"
)

// reorderArgs returns args (args[0] is the program name) rearranged so that
// urfave/cli, which stops parsing flags at a command's first positional
// argument, sees every flag: `import data.ttl --graph IRI` becomes
// `import --graph IRI data.ttl`, and `query 'ASK {}' --json` becomes
// `query --json 'ASK {}'`.
//
// The command is found by walking the app's command tree; the flags of the
// command that runs, wherever they are, move before its positional
// arguments, each with its value when it takes one (`--graph IRI`; a value
// given as `--graph=IRI` stays in its word). A global flag written after
// the command (`stats -n acme`) moves before the command, unless the
// command has a flag of that name. "--" ends the flags: what follows is
// positional, as given (the "--" is kept so that a positional argument
// that starts with '-' stays one). A word that looks like a flag but is
// none is left to the parser, which reports it. With --help (-h) the
// positional arguments are dropped: urfave would take the first for a
// command to show the help of. Nothing else changes.
func reorderArgs(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	global := flagArity(app.Flags, true)
	rest := args[1:]
	n := leadingFlags(rest, global)
	pre := append([]string{args[0]}, rest[:n]...)
	rest = rest[n:]
	var path []string
	cmds := app.Commands
	for len(rest) > 0 {
		cmd := findCommand(cmds, rest[0])
		if cmd == nil {
			break // an unknown command, or none: the parser reports it
		}
		path = append(path, rest[0])
		rest = rest[1:]
		local := flagArity(cmd.Flags, false)
		n := leadingFlags(rest, local)
		if n < len(rest) && findCommand(cmd.Subcommands, rest[n]) != nil {
			path = append(path, rest[:n]...)
			rest = rest[n:]
			cmds = cmd.Subcommands
			continue
		}
		// cmd is the command that runs.
		flags, globals, pos, dashes := splitArgs(rest, local, global)
		out := append(append(pre, globals...), path...)
		out = append(out, flags...)
		if slices.ContainsFunc(flags, isHelp) {
			return out // urfave would read an argument as a command to show the help of
		}
		if dashes {
			out = append(out, "--")
		}
		return append(out, pos...)
	}
	return append(append(pre, path...), rest...)
}

// isHelp reports whether word asks for help.
func isHelp(word string) bool {
	return word == "-h" || word == "--help" || word == "-help"
}

// flagArity maps each name of flags (and of urfave's help flag, and of its
// version flag at the top) to whether the flag takes a value.
func flagArity(flags []cli.Flag, top bool) map[string]bool {
	m := map[string]bool{"help": false, "h": false}
	if top {
		m["version"], m["v"] = false, false
	}
	for _, f := range flags {
		takes := true
		if tv, ok := f.(interface{ TakesValue() bool }); ok {
			takes = tv.TakesValue()
		}
		for _, name := range f.Names() {
			m[name] = takes
		}
	}
	return m
}

// isFlag reports whether word is written as a flag: "-x", "--name", with or
// without "=value". "-" (standard input) and "--" are not.
func isFlag(word string) bool {
	return len(word) > 1 && word[0] == '-' && word != "--"
}

// flagName returns the name of a flag word and whether it carries its
// value ("--graph=IRI").
func flagName(word string) (string, bool) {
	name, _, inline := strings.Cut(strings.TrimLeft(word, "-"), "=")
	return name, inline
}

// leadingFlags returns how many words at the start of args are flags (with
// their values) of the given arities.
func leadingFlags(args []string, arity map[string]bool) int {
	i := 0
	for i < len(args) && isFlag(args[i]) {
		name, inline := flagName(args[i])
		i++
		if arity[name] && !inline && i < len(args) {
			i++
		}
	}
	return i
}

// splitArgs separates the words after a command into its flags (with their
// values), global flags, and positional arguments; dashes reports a "--".
func splitArgs(args []string, local, global map[string]bool) (flags, globals, pos []string, dashes bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return flags, globals, append(pos, args[i+1:]...), true
		}
		if !isFlag(a) {
			pos = append(pos, a)
			continue
		}
		name, inline := flagName(a)
		takes, isLocal := local[name]
		dst := &flags
		if !isLocal {
			if gt, isGlobal := global[name]; isGlobal && name != "help" && name != "h" {
				takes, dst = gt, &globals
			}
		}
		*dst = append(*dst, a)
		if takes && !inline && i+1 < len(args) {
			i++
			*dst = append(*dst, args[i])
		}
	}
	return flags, globals, pos, false
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// wantArgs returns c's positional arguments if there are n of them and the
// first ids of them, which name things (a team, an agent, a message, a
// run ...), are not empty; else a usage error (exit 2) saying usage, e.g.
// "teams get: want TEAM". (An empty argument is refused before the
// command runs, by refuseEmptyArgs; the check here stays for a command
// run otherwise.)
func wantArgs(c *cli.Context, usage string, n, ids int) ([]string, error) {
	args := c.Args().Slice()
	if len(args) != n {
		return nil, usagef("%s", usage)
	}
	if err := notEmpty(usage, args[:ids]...); err != nil {
		return nil, err
	}
	return args, nil
}

// refuseBlank returns a usage error (exit 2) if v, the text of argument
// or option name of command cmd (e.g. "mail send", "BODY") that must say
// something, is white space only: it is text left out, as an empty one is
// (refuseEmptyArgs), e.g. "mail send: BODY is blank: want TEAM BODY", and
// refused as early, before anything is opened or sent (the Manager would
// refuse it as an invalid value, exit 7, and an empty one too). want ends
// the message.
func refuseBlank(cmd, name, v, want string) error {
	if v != "" && strings.TrimSpace(v) == "" {
		return usagef("%s: %s is blank: %s", cmd, name, want)
	}
	return nil
}

// blankRefused are the options and optional arguments, by command ("tasks
// progress NOTE", "tasks create --description"), that take free text (a
// note, a reason, a description, a command), and the terms of a finding:
// given white space only, the text is left out, and refused as an empty
// one is (refuseBlankValues), not stored as blank (an OBJECT " " was
// stored as the literal " ") nor taken for a literal that is no subject.
// (Required texts are checked by their commands, refuseBlank, as is tasks
// review's --feedback: needFeedback.)
var blankRefused = map[string]bool{
	"tasks progress NOTE":          true,
	"tasks complete RESULT":        true,
	"tasks cancel REASON":          true,
	"tasks skip REASON":            true,
	"tasks create --description":   true,
	"tasks update --description":   true,
	"mail send --subject":          true,
	"plans approve --feedback":     true,
	"teams create --name":          true,
	"teams create --context":       true,
	"teams member-status --result": true,
	"teams snapshot create --note": true,
	"workflows run --exec":         true,
	"findings add SUBJECT":         true,
	"findings add PREDICATE":       true,
	"findings add OBJECT":          true,
	"tasks add-finding SUBJECT":    true,
	"tasks add-finding PREDICATE":  true,
	"tasks add-finding OBJECT":     true,
	"workflows drive --exec":       true,
}

// refuseBlankValues returns a usage error (exit 2) naming the first
// option or positional argument of c's command (cmd, e.g. "tasks
// progress") that blankRefused lists and that is given as white space
// only, e.g. "tasks progress: NOTE is blank: want TEAM TASK [NOTE]",
// before anything is opened or sent.
func refuseBlankValues(c *cli.Context, cmd string) error {
	if c.Command == nil {
		return nil
	}
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		if _, ok := f.(*cli.StringFlag); !ok || !blankRefused[cmd+" --"+name] || !c.IsSet(name) {
			continue
		}
		if err := refuseBlank(cmd, "--"+name, c.String(name), "give a value or leave the option out"); err != nil {
			return err
		}
	}
	names, _ := argNames(c.Command.ArgsUsage)
	for i, a := range c.Args().Slice() {
		if i < len(names) && blankRefused[cmd+" "+names[i]] {
			if err := refuseBlank(cmd, names[i], a, "want "+strings.TrimSpace(c.Command.ArgsUsage)); err != nil {
				return err
			}
		}
	}
	return nil
}

// idLists are the repeatable options, by command, whose values list ids
// split on commas ("--to ann,cat"), with what each id names.
var idLists = map[string]string{
	"mail send --to":               "AGENT",
	"teams create --critical":      "AGENT",
	"workflows run --non-critical": "AGENT",
	"tasks create --blocked-by":    "TASK",
	"tasks update --blocked-by":    "TASK",
}

// refuseEmptyListItems returns a usage error (exit 2) naming the first
// value of an option of idLists that lists an empty id ("--to bob,",
// "--blocked-by ' , '"), e.g. `mail send: --to "bob,": an empty AGENT in
// the list: want AGENT[,AGENT...]`, before anything is opened or sent: a
// blocked-by list of empty ids created a task blocked by none, a
// recipient list said `recipient "": invalid id` (exit 7) or "a recipient
// is listed twice". A value given empty is left to refuseEmptyValues (it
// means none for tasks update --blocked-by).
func refuseEmptyListItems(c *cli.Context, cmd string) error {
	if c.Command == nil {
		return nil
	}
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		word, ok := idLists[cmd+" --"+name]
		if !ok || !c.IsSet(name) {
			continue
		}
		for _, v := range c.StringSlice(name) {
			if v == "" {
				continue
			}
			for _, id := range strings.Split(v, ",") {
				if strings.TrimSpace(id) == "" {
					return usagef("%s: --%s %q: an empty %s in the list: want %s[,%s...]", cmd, name, v, word, word, word)
				}
			}
		}
	}
	return nil
}

// notEmpty returns a usage error saying usage if one of names is empty.
func notEmpty(usage string, names ...string) error {
	if slices.Contains(names, "") {
		return usagef("%s (not empty)", usage)
	}
	return nil
}

// repeatedFlag returns a usage error naming the first flag that takes one
// value and is given twice in args, as reorderArgs returns them (a
// global flag given before and after the command counts twice): urfave/cli
// would keep the last value silently (import -g A -g B importing into B).
// Repeatable flags (those whose help says "repeatable": slices) and
// boolean ones are apart. Values read from the environment do not count.
func repeatedFlag(app *cli.App, args []string) error {
	if len(args) < 2 {
		return nil
	}
	flags, cmds, rest, cmd := app.Flags, app.Commands, args[1:], ""
	for {
		byName := map[string]cli.Flag{}
		for _, f := range flags {
			for _, n := range f.Names() {
				byName[n] = f
			}
		}
		arity := flagArity(flags, cmd == "")
		seen := map[cli.Flag]bool{}
		i := 0
		for i < len(rest) && isFlag(rest[i]) {
			name, inline := flagName(rest[i])
			i++
			if !arity[name] {
				continue // a boolean flag, help, or one the parser reports
			}
			if !inline && i < len(rest) {
				i++
			}
			f := byName[name]
			if sf, ok := f.(interface{ IsSliceFlag() bool }); f == nil || ok && sf.IsSliceFlag() {
				continue
			}
			if seen[f] {
				names := f.Names()
				flag := "--" + names[0]
				if len(names) > 1 {
					flag += " (" + strings.Repeat("-", min(len(names[1]), 2)) + names[1] + ")"
				}
				what := ""
				if cmd != "" {
					what = cmd + ": "
				}
				return usagef("%s%s given twice: it takes one value", what, flag)
			}
			seen[f] = true
		}
		if i == len(rest) {
			return nil
		}
		c := findCommand(cmds, rest[i])
		if c == nil {
			return nil // an argument, or an unknown command the parser reports
		}
		cmd = strings.TrimPrefix(cmd+" "+c.Name, " ")
		flags, cmds, rest = c.Flags, c.Subcommands, rest[i+1:]
	}
}

// argWord matches a word of a command's ArgsUsage that names a positional
// argument: TEAM, [REASON] (optional), MESSAGE... (repeated), 'SPARQL'.
var argWord = regexp.MustCompile(`^\[?'?([A-Z][A-Z0-9_]*)'?(\.\.\.)?\]?$`)

// argNames returns the names of the positional arguments that usage (a
// command's ArgsUsage) lists, in order ("TEAM TASK [REASON]": TEAM, TASK,
// REASON), and whether the last one repeats ("TEAM MESSAGE..."). It stops
// at the first word that names none ("FILE... (- for standard input)").
func argNames(usage string) (names []string, repeats bool) {
	for _, w := range strings.Fields(usage) {
		m := argWord.FindStringSubmatch(w)
		if m == nil {
			break
		}
		names, repeats = append(names, m[1]), m[2] != ""
	}
	return names, repeats
}

// refuseEmptyArgs returns a usage error naming the first positional
// argument of c's command (cmd, e.g. "tasks get") given empty, e.g.
// "tasks get: TASK is empty: want TEAM TASK": an empty argument, required
// or optional, is refused before anything is opened or sent, whatever
// the command, not taken for a name of nothing (exit 3), a malformed
// term (5) or an invalid value (7), nor for the argument left out. An
// argument past those the command takes is left to the command, which
// reports their number.
func refuseEmptyArgs(c *cli.Context, cmd string) error {
	if c.Command == nil {
		return nil
	}
	names, repeats := argNames(c.Command.ArgsUsage)
	for i, a := range c.Args().Slice() {
		if a != "" {
			continue
		}
		var name string
		switch {
		case i < len(names):
			name = names[i]
		case repeats:
			name = names[len(names)-1]
		default:
			continue
		}
		return usagef("%s: %s is empty: want %s", cmd, name, strings.TrimSpace(c.Command.ArgsUsage))
	}
	return nil
}

// statusFilter parses the word of a --status (or --lifecycle) filter in
// any case ("--status READ" is read): statuses are lower-case words. An
// unknown word is parse's error on s as given.
func statusFilter[T any](s string, parse func(string) (T, error)) (T, error) {
	if v, err := parse(statusWord(s)); err == nil {
		return v, nil
	}
	return parse(s)
}

// strategyName returns the merge strategy named s: s if one is so named,
// else s in lower case if one is so named (the built-in names are lower
// case; any case is taken, as the status words are), else s, which the
// Manager refuses naming the known ones.
func strategyName(s string) string {
	if _, err := merge.Lookup(s); err != nil {
		if _, err := merge.Lookup(statusWord(s)); err == nil {
			return statusWord(s)
		}
	}
	return s
}

// statusWord folds the ASCII letters of s to lower case.
func statusWord(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// firstOfEach returns ids without repeats, each at its first place.
func firstOfEach(ids []string) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// durationText returns the value of the duration flag name as the user
// gave it (args is the command line as reorderArgs returns it, the last
// occurrence wins, as in the parser; else the flag's environment
// variable), for an error to echo: -1h, not -1h0m0s.
func durationText(c *cli.Context, args []string, name string) string {
	var flags []cli.Flag
	for _, l := range c.Lineage() {
		if l.Command != nil {
			flags = append(flags, l.Command.Flags...)
		}
		if l.App != nil && l.Command == nil {
			flags = append(flags, l.App.Flags...)
		}
	}
	flags = append(flags, c.App.Flags...)
	arity := flagArity(flags, true)
	text, found := "", false
	for i := 1; i < len(args) && args[i] != "--"; i++ {
		if !isFlag(args[i]) {
			continue
		}
		n, inline := flagName(args[i])
		switch {
		case inline:
			if n == name {
				_, text, _ = strings.Cut(args[i], "=")
				found = true
			}
		case arity[n]:
			i++
			if n == name && i < len(args) {
				text, found = args[i], true
			}
		}
	}
	if !found {
		for _, f := range flags {
			if df, ok := f.(*cli.DurationFlag); ok && slices.Contains(df.Names(), name) {
				for _, v := range df.EnvVars {
					if s, ok := os.LookupEnv(v); ok {
						text, found = s, true
					}
				}
			}
		}
	}
	if !found {
		text = c.Duration(name).String()
	}
	return text
}
