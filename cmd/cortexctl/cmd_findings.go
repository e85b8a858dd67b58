package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/teammanager"
)

func findingsCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "findings",
		Usage: "add, import and list the findings of a team's members",
		Description: `Example:
   cortexctl findings add TEAM alice '<http://ex/main.go>' '<http://ex/severity>' '"high"' --confidence 0.8`,
		Subcommands: []*cli.Command{
			{
				Name:      "add",
				Usage:     "record one triple asserted by a member",
				ArgsUsage: "TEAM AGENT SUBJECT PREDICATE OBJECT",
				Description: `Terms are N-Triples terms (<iri>, _:b, "text"@en, "1"^^xsd:...), prefixed
names (cx:, rdf:, rdfs:, xsd:, owl:, prov: or config prefixes), or for the
object a bare word, read as a plain string.

Example:
   cortexctl findings add TEAM alice '<http://ex/main.go>' rdfs:comment '"uses unsafe"' --confidence 0.9`,
				Flags: withOutput(
					&cli.Float64Flag{Name: "confidence", Usage: "confidence in [0, 1]", DefaultText: "unspecified"},
					&cli.StringFlag{Name: "at", Usage: "assertion time, RFC 3339 (e.g. 2026-01-02T15:04:05Z)", DefaultText: "now"},
				),
				Action: func(c *cli.Context) error { return findingsAdd(c, e) },
			},
			{
				Name:      "import",
				Usage:     "record the findings of a file (RDF or JSON) as a member's",
				ArgsUsage: "TEAM AGENT FILE",
				Description: `The format comes from the extension (.nt .ttl .nq; .json .jsonl .ndjson
for json) unless --format is given. All findings are written in one atomic
step, or none if one is bad.

RDF (ntriples, turtle, nquads: a quad naming a graph is an error): each triple is a finding asserted now with unspecified
confidence, except finding descriptions, which keep their confidence and time:
   [] a cx:Finding ; rdf:subject <s> ; rdf:predicate <p> ; rdf:object "o" ;
      cx:finding:confidence 0.8 ; cx:finding:assertedAt "2026-01-02T15:04:05Z"^^xsd:dateTime .
(with @prefix cx: <urn:cortex:NS:>, the namespace's IRI prefix). This is how
findings are stored, so an exported findings graph imports back as it was.

json: a JSON array of findings, as 'findings list --json' writes it, or one
finding object per line (JSON Lines):
   {"subject": "<s>", "predicate": "rdfs:comment", "object": "\"leaks\"",
    "confidence": 0.8, "assertedAt": "2026-01-02T15:04:05Z"}
Terms are N-Triples terms or prefixed names; confidence (0 or absent:
unspecified) and assertedAt (RFC 3339; absent: now) are optional; id and agent
are ignored. Keys are case-sensitive: other keys ("Subject" too), or a key
given twice, are errors.

Examples:
   cortexctl findings import TEAM alice fixtures/findings/code-review-alice.ttl
   cortexctl findings list TEAM --agent alice --json > a.json && cortexctl findings import TEAM bob a.json`,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "input format: ntriples (nt)|turtle (ttl)|nquads (nq)|json (default: from the file extension)"},
					summaryJSONFlag(),
				},
				Action: func(c *cli.Context) error { return findingsImport(c, e) },
			},
			{
				Name:      "list",
				Usage:     "list a team's findings, oldest first",
				ArgsUsage: "TEAM",
				Description: `Example:
   cortexctl findings list TEAM --agent alice --json`,
				Flags:  withOutput(&cli.StringFlag{Name: "agent", Usage: "only this member's findings"}),
				Action: func(c *cli.Context) error { return findingsList(c, e) },
			},
		},
	}
}

func findingsAdd(c *cli.Context, e *env) error {
	out, err := outputFormat(c)
	if err != nil {
		return err
	}
	args, err := wantArgs(c, "findings add: want TEAM AGENT SUBJECT PREDICATE OBJECT", 5, 2)
	if err != nil {
		return err
	}
	a := args
	var f teammanager.Finding
	s, err := e.parseTermArg(c.Context, a[2])
	if err != nil {
		return fmt.Errorf("findings add: subject: %w", err)
	}
	p, err := e.parseTermArg(c.Context, a[3])
	if err != nil {
		return fmt.Errorf("findings add: predicate: %w", err)
	}
	o, err := e.parseTermArg(c.Context, a[4])
	if err != nil {
		return fmt.Errorf("findings add: object: %w", err)
	}
	f.Subject, f.Predicate, f.Object = s, p, o
	f.Confidence = c.Float64("confidence")
	if at := c.String("at"); at != "" {
		t, err := time.Parse(time.RFC3339Nano, at)
		if err != nil {
			return fmt.Errorf("%w: --at %q is not an RFC 3339 time such as 2026-01-02T15:04:05Z or 2026-01-02T15:04:05.5+01:00", errInvalid, at)
		}
		if t.IsZero() {
			// A zero AssertedAt means now: a time given is not replaced.
			return fmt.Errorf("%w: --at %q is the zero time, which a finding cannot have: give another time, or no --at (now)", errInvalid, at)
		}
		f.AssertedAt = t
	}
	// Checked before the store is opened, as through a server (whose
	// client checks it before it sends anything), with the Manager's
	// message: a finding nothing can hold is exit 7 whether or not the
	// store and the namespace exist.
	if err := teammanager.CheckFinding(f); err != nil {
		return fmt.Errorf("team %s: agent %s: %w", a[0], a[1], err)
	}
	m, err := e.manager(c, accessWrite)
	if err != nil {
		return err
	}
	id, err := m.AddFinding(c.Context, a[0], a[1], f)
	if err != nil {
		return err
	}
	if out == formatJSON {
		return writeJSON(e.stdout, api.FindingAdded{ID: id})
	}
	fmt.Fprintf(e.stdout, "added finding %s\n", id)
	return nil
}

func findingsImport(c *cli.Context, e *env) error {
	out, err := outputFormat(c)
	if err != nil {
		return err
	}
	args, err := wantArgs(c, "findings import: want TEAM AGENT FILE", 3, 2)
	if err != nil {
		return err
	}
	path := args[2]
	var format string
	if f := c.String("format"); strings.EqualFold(f, teammanager.FindingsJSON) {
		format = teammanager.FindingsJSON
	} else if f != "" {
		if format, err = rdfFormat(f); err != nil {
			return usagef("findings import: --format: %v, or json", err)
		}
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json", ".jsonl", ".ndjson":
		if format == "" {
			format = teammanager.FindingsJSON
		}
	}
	if format == "" {
		if format, err = rdfFormatOf(path); err != nil {
			return fmt.Errorf("findings import %s: %w, or .json, .jsonl, .ndjson (use --format)", pathText(path), err)
		}
	}
	data, err := readInput("findings import", path)
	if err != nil {
		return err
	}
	// A server is sent the file as a JSON string, which cannot carry bytes
	// that are not UTF-8, and the embedded JSON reader would store U+FFFD
	// instead of them: such a file is refused here, in both modes, as the
	// syntax error of its format (RDF: exit 5; JSON findings: exit 7).
	if line, col, bad := firstInvalidUTF8(data); bad {
		var err error = &rdfio.SyntaxError{File: path, Line: line, Col: col, Msg: "not valid UTF-8"}
		if format == teammanager.FindingsJSON {
			err = fmt.Errorf("%w: %s:%d:%d: not valid UTF-8", teammanager.ErrInvalidFinding, pathText(path), line, col)
		}
		return fmt.Errorf("import findings: team %s: agent %s: %w", teammanager.IDText(args[0]), teammanager.IDText(args[1]), err)
	}
	m, err := e.manager(c, accessWrite)
	if err != nil {
		return err
	}
	n, err := m.ImportFindings(c.Context, args[0], args[1], bytes.NewReader(data), format)
	if err != nil {
		return err
	}
	if out == formatJSON {
		return writeJSON(e.stdout, api.FindingsImported{Team: args[0], Agent: args[1], File: path, Findings: n})
	}
	_, err = fmt.Fprintf(e.stdout, "imported %s from %s\n", plural(int64(n), "finding"), cell(path))
	return err
}

func findingsList(c *cli.Context, e *env) error {
	if _, err := outputFormat(c); err != nil {
		return err
	}
	args, err := wantArgs(c, "findings list: want TEAM", 1, 1)
	if err != nil {
		return err
	}
	m, err := e.manager(c, accessRead)
	if err != nil {
		return err
	}
	fs, err := m.Findings(c.Context, args[0], teammanager.FindingFilter{Agent: c.String("agent")})
	if err != nil {
		return err
	}
	out := api.FindingsOf(fs)
	return printResult(c, e.stdout, out, func() error {
		t := newTable(e.stdout, false, "AGENT", "SUBJECT", "PREDICATE", "OBJECT", "CONF")
		for _, f := range out {
			t.row(f.Agent, f.Subject, f.Predicate, f.Object, fmt.Sprintf("%g", f.Confidence))
		}
		return t.flush()
	})
}
