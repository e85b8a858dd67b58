package main

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

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
			return usagef("completion: want bash, zsh or fish, got %q", c.Args().First())
		},
	}
}
