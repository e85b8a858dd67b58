package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/defstore"
	"github.com/cortexgraph/cortex/spec"
)

func defsCommand(e *env) *cli.Command {
	kindFlag := func(usage string) cli.Flag {
		return &cli.StringFlag{Name: "kind", Usage: usage}
	}
	return &cli.Command{
		Name:  "defs",
		Usage: "validate, import and read agent and team definitions (multi-agent-spec)",
		Description: `Agent files are Markdown with YAML front matter or JSON; team files are JSON,
YAML or JSON5. A directory is read recursively: an agent's namespace is its
subdirectory (below the nearest "agents" directory), and teams name agents
namespace/name. Problems are printed FILE:LINE: SEVERITY: PATH: MESSAGE, all
of them at once; any error exits 7. See README, Definitions. Through a
server, import reads the files here and sends their contents; validate
needs no store and always runs here.

Example:
   cortexctl defs validate specs/ && cortexctl defs import specs/
   cortexctl defs list --kind team`,
		Subcommands: []*cli.Command{
			{
				Name:      "validate",
				Usage:     "check definition files and directories (no store needed)",
				ArgsUsage: "PATH...",
				Description: `Unknown keys are warnings; with --strict, errors. Legacy forms (workflow
types sequential, parallel, dag, orchestrated; port lists of names; input
maps) are warnings naming the modern form. Only regular files of at most
16 MiB are read; names may not contain control characters. Exit 7 on any
error.

Example:
   cortexctl defs validate specs/agents specs/teams/release.json --json`,
				Flags:  withOutput(&cli.BoolFlag{Name: "strict", Usage: "unknown keys are errors"}),
				Action: func(c *cli.Context) error { return defsValidate(c, e) },
			},
			{
				Name:      "import",
				Usage:     "validate definitions and store them in the namespace (all or nothing)",
				ArgsUsage: "PATH...",
				Description: `Teams and delegation lists may name agents already stored. Importing a
definition again replaces it. Nothing is written if any definition has an
error (exit 7).

Example:
   cortexctl defs import specs/`,
				Flags:  withOutput(&cli.BoolFlag{Name: "strict", Usage: "unknown keys are errors"}),
				Action: func(c *cli.Context) error { return defsImport(c, e) },
			},
			{
				Name:  "list",
				Usage: "list the stored definitions: agents, then teams",
				Description: `Example:
   cortexctl defs list --kind agent --json`,
				Flags:  withOutput(kindFlag("only agent or team definitions")),
				Action: func(c *cli.Context) error { return defsList(c, e) },
			},
			{
				Name:      "get",
				Usage:     "show a stored definition",
				ArgsUsage: "NAME",
				Description: `NAME is a team, or an agent as namespace/name (or its bare name when one
namespace has it). --kind picks one when an agent and a team share NAME.
A NAME no definition has exits 3; one none can have (blank, with a control
character; with --kind agent also an empty, "." or ".." namespace part, as
in a//b) exits 7.

Example:
   cortexctl defs get security/scanner --json`,
				Flags:  withOutput(kindFlag("agent or team, when both have NAME")),
				Action: func(c *cli.Context) error { return defsGet(c, e) },
			},
			{
				Name:      "export",
				Usage:     "print a stored definition as a file (json, or md for agents)",
				ArgsUsage: "NAME",
				Description: `NAME is as for defs get. Importing what export prints gives the same
definition.

Example:
   cortexctl defs export architect --format md > architect.md`,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: spec.FormatJSON, Usage: "json|md (md: agents only)"},
					&cli.BoolFlag{Name: "json", Usage: "alias of --format json"},
					kindFlag("agent or team, when both have NAME"),
				},
				Action: func(c *cli.Context) error { return defsExport(c, e) },
			},
			{
				Name:      "delete",
				Usage:     "delete a stored definition",
				ArgsUsage: "NAME",
				Description: `NAME is as for defs get. An agent that a stored team lists is not deleted
(exit 4): delete the team, or import it without the agent, first.

Example:
   cortexctl defs delete release`,
				Flags:  withOutput(kindFlag("agent or team, when both have NAME")),
				Action: func(c *cli.Context) error { return defsDelete(c, e) },
			},
		},
	}
}

// defsKind reads --kind.
func defsKind(c *cli.Context) (spec.Kind, error) {
	switch k := spec.Kind(c.String("kind")); k {
	case "", spec.KindAgent, spec.KindTeam:
		return k, nil
	default:
		return "", usagef("defs %s: --kind must be agent or team, not %q", c.Command.Name, k)
	}
}

// oneName returns the command's single NAME argument.
func oneName(c *cli.Context) (string, error) {
	if c.NArg() != 1 {
		return "", usagef("defs %s: want one NAME, got %d arguments", c.Command.Name, c.NArg())
	}
	if err := notEmpty("defs "+c.Command.Name+": want NAME", c.Args().First()); err != nil {
		return "", err
	}
	return c.Args().First(), nil
}

// unreadableFile returns the report of err if it is spec.ReadFiles's
// *spec.ValidationError (a file that is not a regular file or is too
// large), else nil.
func unreadableFile(err error) *spec.Report {
	var ve *spec.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	return &spec.Report{Problems: ve.Problems}
}

// printProblems writes every problem, one a line.
func printProblems(e *env, rep spec.Report) {
	for _, p := range rep.Problems {
		fmt.Fprintln(e.stderr, oneLine(p.String()))
	}
}

func defsValidate(c *cli.Context, e *env) error {
	if c.NArg() == 0 {
		return usagef("defs validate: give at least one PATH")
	}
	set, rep, err := spec.Load(c.Args().Slice(), spec.Options{Strict: c.Bool("strict")})
	if p := unreadableFile(err); p != nil {
		// A file that is no definition file to read (not a regular
		// file, too large) is a problem of that file, reported so.
		set, rep, err = &spec.Set{}, *p, nil
	}
	if err != nil {
		return err
	}
	out := api.NewDefsReport(set, rep)
	if err := printResult(c, e.stdout, out, func() error {
		for _, p := range rep.Problems {
			fmt.Fprintln(e.stdout, oneLine(p.String()))
		}
		fmt.Fprintf(e.stdout, "%s, %s: %s, %s\n", plural(int64(len(out.Agents)), "agent"), plural(int64(len(out.Teams)), "team"),
			plural(int64(out.Errors), "error"), plural(int64(out.Warnings), "warning"))
		return nil
	}); err != nil {
		return err
	}
	return rep.Err()
}

// defStore returns the definitions of the selected namespace.
func (e *env) defStore(c *cli.Context, a access) (*defstore.Store, error) {
	n, err := e.namespace(c.Context, a)
	if err != nil {
		return nil, err
	}
	x, err := e.ns()
	if err != nil {
		return nil, err
	}
	return defstore.New(n, x), nil
}

func defsImport(c *cli.Context, e *env) error {
	if c.NArg() == 0 {
		return usagef("defs import: give at least one PATH")
	}
	f, err := outputFormat(c)
	if err != nil {
		return err
	}
	res, err := e.importDefs(c)
	if f == formatJSON {
		out := api.DefsReport{Agents: res.Agents, Teams: res.Teams, Errors: res.Report.Errors(), Warnings: res.Report.Warnings(), Problems: res.Report.Problems}
		if out.Agents == nil {
			out.Agents = []string{}
		}
		if out.Teams == nil {
			out.Teams = []string{}
		}
		if out.Problems == nil {
			out.Problems = []spec.Problem{}
		}
		if werr := writeJSON(e.stdout, out); werr != nil {
			return werr
		}
		return err
	}
	printProblems(e, res.Report)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "imported %s and %s into namespace %s\n", plural(int64(len(res.Agents)), "agent"), plural(int64(len(res.Teams)), "team"), e.nsName)
	return nil
}

// importDefs imports the definitions of the command's paths: through the
// server the command goes through (the files read here and sent), or
// into the namespace itself.
//
// The files are read first: a path that cannot be read creates no store
// or namespace, and paths without a definition file import nothing (and
// create nothing), through a server too. Into a store or namespace that does not exist
// yet, the definitions are checked before it is created.
func (e *env) importDefs(c *cli.Context) (defstore.ImportResult, error) {
	opts := spec.Options{Strict: c.Bool("strict")}
	files, err := spec.ReadFiles(c.Args().Slice())
	if err != nil {
		var res defstore.ImportResult
		if p := unreadableFile(err); p != nil {
			res.Report = *p
		}
		return res, fmt.Errorf("import definitions: %w", err)
	}
	rc, err := e.remote()
	if err != nil {
		return defstore.ImportResult{}, err
	}
	if rc == nil {
		if len(files) == 0 {
			return defstore.ImportResult{}, nil
		}
		s, err := e.defStore(c, accessWrite)
		if errors.Is(err, cortex.ErrNoStore) || errors.Is(err, cortex.ErrNoNamespace) {
			if res, err := defstore.CheckFiles(files, opts); err != nil {
				return res, err
			}
			s, err = e.defStore(c, accessCreate)
		}
		if err != nil {
			return defstore.ImportResult{}, err
		}
		return s.ImportFiles(c.Context, files, opts)
	}
	if files == nil {
		files = []spec.File{} // none: an import of nothing, not a missing param
	}
	out, err := rc.ImportDefs(c.Context, files, opts)
	return defstore.ImportResult{Agents: out.Agents, Teams: out.Teams, Report: spec.Report{Problems: out.Problems}}, err
}

func defsList(c *cli.Context, e *env) error {
	if c.NArg() > 0 {
		return usagef("defs list: unexpected argument %q", c.Args().First())
	}
	kind, err := defsKind(c)
	if err != nil {
		return err
	}
	out, err := e.listDefs(c, kind)
	if err != nil {
		return err
	}
	return printResult(c, e.stdout, out, func() error {
		t := newTable(e.stdout, false, "KIND", "NAME", "VERSION/MODEL", "WORKFLOW", "DESCRIPTION")
		for _, d := range out {
			vm := d.Version
			if d.Kind == string(spec.KindAgent) {
				vm = d.Model
			}
			t.row(d.Kind, d.Name, vm, d.Workflow, d.Description)
		}
		return t.flush()
	})
}

// listDefs returns the summaries of the stored definitions of kind, from
// the server the command goes through or the namespace itself.
func (e *env) listDefs(c *cli.Context, kind spec.Kind) ([]api.DefSummary, error) {
	if rc, err := e.remote(); err != nil || rc != nil {
		if err != nil {
			return nil, err
		}
		return rc.ListDefs(c.Context, kind)
	}
	s, err := e.defStore(c, accessRead)
	if err != nil {
		return nil, err
	}
	defs, err := s.List(c.Context, kind)
	if err != nil {
		return nil, err
	}
	out := make([]api.DefSummary, len(defs))
	for i, d := range defs {
		out[i] = api.NewDefSummary(d)
	}
	return out, nil
}

// getDef returns the stored definition name, from the server the command
// goes through (read back from its JSON form) or the namespace itself.
func (e *env) getDef(c *cli.Context, name string, kind spec.Kind) (spec.Def, api.DefDetail, error) {
	if rc, err := e.remote(); err != nil || rc != nil {
		if err != nil {
			return spec.Def{}, api.DefDetail{}, err
		}
		d, err := rc.GetDef(c.Context, name, kind)
		if err != nil {
			return spec.Def{}, d, err
		}
		def, rep := spec.Parse("definition.json", d.Definition, spec.Options{})
		if err := rep.Err(); err != nil || def.Kind == "" {
			return spec.Def{}, d, fmt.Errorf("defs get %s: the server's definition: %w", name, err)
		}
		return def, d, nil
	}
	s, err := e.defStore(c, accessRead)
	if err != nil {
		return spec.Def{}, api.DefDetail{}, err
	}
	def, err := s.Get(c.Context, name, kind)
	if err != nil {
		return def, api.DefDetail{}, err
	}
	src, err := marshalDef(def, spec.FormatJSON)
	if err != nil {
		return def, api.DefDetail{}, err
	}
	return def, api.DefDetail{DefSummary: api.NewDefSummary(def), Definition: src}, nil
}

func defsGet(c *cli.Context, e *env) error {
	name, err := oneName(c)
	if err != nil {
		return err
	}
	kind, err := defsKind(c)
	if err != nil {
		return err
	}
	def, out, err := e.getDef(c, name, kind)
	if err != nil {
		return err
	}
	return printResult(c, e.stdout, out, func() error {
		t := newTable(e.stdout, false)
		t.row("kind", out.Kind)
		t.row("name", out.Name)
		for _, kv := range [][2]string{{"namespace", out.Namespace}, {"version", out.Version}, {"model", out.Model}, {"workflow", out.Workflow}, {"description", out.Description}, {"agents", strings.Join(out.Agents, ", ")}} {
			if kv[1] != "" {
				t.row(kv[0], kv[1])
			}
		}
		if def.Agent != nil && len(def.Agent.Tools) > 0 {
			t.row("tools", strings.Join(def.Agent.Tools, ", "))
		}
		if dl := defDelegation(def); dl != "" {
			t.row("delegates to", dl)
		}
		for _, st := range def.Team.StepsOrNil() {
			t.row("step "+st.Name, st.Agent+dependsOn(st))
		}
		return t.flush()
	})
}

func defDelegation(def spec.Def) string {
	if def.Agent == nil || def.Agent.Delegation == nil {
		return ""
	}
	return strings.Join(def.Agent.Delegation.CanDelegateTo, ", ")
}

func dependsOn(st spec.Step) string {
	if len(st.DependsOn) == 0 {
		return ""
	}
	return " after " + strings.Join(st.DependsOn, ", ")
}

func marshalDef(def spec.Def, format string) ([]byte, error) {
	if def.Kind == spec.KindAgent {
		return spec.MarshalAgent(def.Agent, format)
	}
	return spec.MarshalTeam(def.Team, format)
}

func defsExport(c *cli.Context, e *env) error {
	name, err := oneName(c)
	if err != nil {
		return err
	}
	kind, err := defsKind(c)
	if err != nil {
		return err
	}
	format := c.String("format")
	if c.Bool("json") {
		if c.IsSet("format") && format != spec.FormatJSON {
			return usagef("defs export: --json conflicts with --format %s", format)
		}
		format = spec.FormatJSON
	}
	if format != spec.FormatJSON && format != spec.FormatMarkdown {
		return usagef("defs export: --format must be json or md, not %q", format)
	}
	if rc, err := e.remote(); err != nil || rc != nil {
		if err != nil {
			return err
		}
		d, err := rc.ExportDef(c.Context, name, kind, format)
		if err != nil {
			return err
		}
		_, err = io.WriteString(e.stdout, d.Data)
		return err
	}
	s, err := e.defStore(c, accessRead)
	if err != nil {
		return err
	}
	def, err := s.Get(c.Context, name, kind)
	if err != nil {
		return err
	}
	if def.Kind == spec.KindTeam && format == spec.FormatMarkdown {
		return usagef("defs export: team %q has no md form (use --format json)", def.Name())
	}
	data, err := marshalDef(def, format)
	if err != nil {
		return err
	}
	_, err = e.stdout.Write(data)
	return err
}

func defsDelete(c *cli.Context, e *env) error {
	name, err := oneName(c)
	if err != nil {
		return err
	}
	kind, err := defsKind(c)
	if err != nil {
		return err
	}
	out, err := e.deleteDef(c, name, kind)
	if err != nil {
		return err
	}
	return printResult(c, e.stdout, out, func() error {
		_, err := fmt.Fprintf(e.stdout, "deleted %s %s\n", out.Kind, oneLine(out.Name))
		return err
	})
}

// deleteDef deletes the stored definition name, through the server the
// command goes through or in the namespace itself.
func (e *env) deleteDef(c *cli.Context, name string, kind spec.Kind) (api.DefSummary, error) {
	if rc, err := e.remote(); err != nil || rc != nil {
		if err != nil {
			return api.DefSummary{}, err
		}
		return rc.DeleteDef(c.Context, name, kind)
	}
	s, err := e.defStore(c, accessWrite)
	if err != nil {
		return api.DefSummary{}, err
	}
	def, err := s.Delete(c.Context, name, kind)
	if err != nil {
		return api.DefSummary{}, err
	}
	return api.DefSummary{Kind: string(def.Kind), Name: def.Name()}, nil
}
