package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"
)

// completionFlag is what the completion scripts append to the words typed
// so far to ask for candidates.
const completionFlag = "--generate-bash-completion"

// isCompletion reports whether args ask for completion candidates.
func isCompletion(args []string) bool {
	return len(args) > 1 && args[len(args)-1] == completionFlag
}

// complete prints the completion candidates for words (the command line
// typed so far, without the program name and the completion flag), one a
// line: the flags of the command reached when the last word starts with
// '-', else its subcommands. It only reads the app's command tree: no
// command runs, nothing is opened.
func complete(app *cli.App, words []string, w io.Writer) {
	flags, cmds := app.Flags, app.Commands
	global := flagArity(app.Flags, true)
	arity := global
	top := true // no command reached yet
	cur := ""
	if n := len(words); n > 0 && strings.HasPrefix(words[n-1], "-") {
		cur, words = words[n-1], words[:n-1]
	}
	for i := 0; i < len(words); i++ {
		word := words[i]
		if isFlag(word) {
			name, inline := flagName(word)
			takes, ok := arity[name]
			if !ok {
				takes = global[name]
			}
			if takes && !inline {
				i++
			}
			continue
		}
		cmd := findCommand(cmds, word)
		if cmd == nil {
			continue // a positional argument
		}
		flags, cmds, arity, top = cmd.Flags, cmd.Subcommands, flagArity(cmd.Flags, false), false
	}
	var out []string
	if cur != "" {
		flags = append(flags, cli.HelpFlag)
		if top {
			flags = append(flags, cli.VersionFlag)
		}
		for _, f := range flags {
			if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
				continue
			}
			for _, name := range f.Names() {
				dashed := "--" + name
				if len(name) == 1 {
					dashed = "-" + name
				}
				if strings.HasPrefix(dashed, cur) {
					out = append(out, dashed)
				}
			}
		}
	} else {
		for _, c := range cmds {
			if !c.Hidden {
				out = append(out, c.Names()...)
			}
		}
	}
	sort.Strings(out)
	for _, s := range out {
		fmt.Fprintln(w, s)
	}
}

const bashCompletion = `# cortexctl bash completion: source <(cortexctl completion bash)
_cortexctl_complete() {
  local cur opts
  COMPREPLY=()
  cur="${COMP_WORDS[COMP_CWORD]}"
  if [[ "$cur" == "-"* ]]; then
    opts=$( "${COMP_WORDS[@]:0:$COMP_CWORD}" "${cur}" --generate-bash-completion 2>/dev/null )
  else
    opts=$( "${COMP_WORDS[@]:0:$COMP_CWORD}" --generate-bash-completion 2>/dev/null )
  fi
  COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
  return 0
}
complete -o bashdefault -o default -F _cortexctl_complete cortexctl
`

const zshCompletion = `#compdef cortexctl
# cortexctl zsh completion: source <(cortexctl completion zsh)
_cortexctl_complete() {
  local -a opts
  local cur=${words[-1]}
  if [[ "$cur" == "-"* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} ${cur} --generate-bash-completion 2>/dev/null)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion 2>/dev/null)}")
  fi
  if [[ "${opts[1]}" != "" ]]; then
    _describe 'values' opts
  else
    _files
  fi
}
compdef _cortexctl_complete cortexctl
`

func completionCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script (bash, zsh or fish)",
		ArgsUsage: "bash|zsh|fish",
		Description: `Example:
   source <(cortexctl completion bash)
   cortexctl completion fish > ~/.config/fish/completions/cortexctl.fish`,
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return usagef("completion: unexpected argument %q (want one of bash, zsh or fish)", c.Args().Get(1))
			}
			switch c.Args().First() {
			case "bash":
				_, err := fmt.Fprint(e.stdout, bashCompletion)
				return err
			case "zsh":
				_, err := fmt.Fprint(e.stdout, zshCompletion)
				return err
			case "fish":
				s, err := c.App.ToFishCompletion()
				if err != nil {
					return err
				}
				_, err = fmt.Fprint(e.stdout, s)
				return err
			}
			if c.NArg() == 0 {
				return usagef("completion: want the shell: bash, zsh or fish")
			}
			return usagef("completion: want bash, zsh or fish, got %q", c.Args().First())
		},
	}
}
