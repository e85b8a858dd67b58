package client

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/defstore"
	"github.com/cortexgraph/cortex/spec"
)

// ImportDefs stores the definitions of files (spec.ReadFiles reads them)
// in the client's namespace on the server (JSON-RPC defs.import), all or
// nothing, as defstore.Store.Import does. If a definition has an error,
// nothing is stored and the error is an *Error matching spec.ErrInvalid
// whose Problems are every problem found; the report returned holds them
// too. A file that is not UTF-8, which JSON cannot carry, is a syntax
// error in it: the import is then checked here, as the server would check
// it (with the agents stored in the namespace known), and nothing is sent
// but defs.list; the error also matches ErrNotUTF8.
func (c *Client) ImportDefs(ctx context.Context, files []spec.File, opts spec.Options) (api.DefsReport, error) {
	for _, f := range files {
		if !utf8.ValidString(f.Data) {
			return c.checkDefs(ctx, files, opts)
		}
	}
	var out api.DefsReport
	err := c.Call(ctx, "defs.import", map[string]any{"files": files, "strict": opts.Strict}, &out)
	var e *Error
	if errors.As(err, &e) && e.Problems != nil {
		rep := spec.Report{Problems: e.Problems}
		out = api.DefsReport{Agents: []string{}, Teams: []string{}, Errors: rep.Errors(), Warnings: rep.Warnings(), Problems: e.Problems}
	}
	return out, err
}

// checkDefs returns the report and error of an import of files that the
// server would refuse, checked here as defstore checks it: with the agents
// stored in the namespace known (none in a namespace that does not exist).
func (c *Client) checkDefs(ctx context.Context, files []spec.File, opts spec.Options) (api.DefsReport, error) {
	stored, err := c.ListDefs(ctx, spec.KindAgent)
	if err != nil && !errors.Is(err, cortex.ErrNoNamespace) {
		return api.DefsReport{}, err
	}
	o := opts
	o.KnownAgents = slices.Clone(opts.KnownAgents)
	for _, d := range stored {
		o.KnownAgents = append(o.KnownAgents, spec.Qualify(d.Namespace, d.Name))
	}
	_, rep := spec.LoadFiles(files, o)
	out := api.DefsReport{Agents: []string{}, Teams: []string{}, Errors: rep.Errors(), Warnings: rep.Warnings(), Problems: rep.Problems}
	err = rep.Err()
	if err == nil { // spec reads a file that is not UTF-8 as a syntax error
		err = fmt.Errorf("%w: a definition file is not valid UTF-8", spec.ErrInvalid)
	}
	return out, &textError{fmt.Errorf("import definitions: %w", err)}
}

// checkDefName refuses a definition name that JSON cannot carry (not
// UTF-8), which no definition has, with the server's error for a malformed
// name (defstore.CheckName, after "definition NAME: " as op says), also
// matching ErrNotUTF8; nothing is sent.
func checkDefName(op, name string, kind spec.Kind) error {
	if utf8.ValidString(name) {
		return nil
	}
	return &textError{fmt.Errorf("%s %q: %w", op, name, defstore.CheckName(name, kind))}
}

// ListDefs returns the summaries of the stored definitions of kind (""
// for both), agents then teams (JSON-RPC defs.list).
func (c *Client) ListDefs(ctx context.Context, kind spec.Kind) ([]api.DefSummary, error) {
	var out []api.DefSummary
	err := c.Call(ctx, "defs.list", map[string]string{"kind": string(kind)}, &out)
	return out, err
}

// GetDef returns the stored definition name (of kind, "" for either;
// JSON-RPC defs.get). One that does not exist matches api.ErrNotFound.
func (c *Client) GetDef(ctx context.Context, name string, kind spec.Kind) (api.DefDetail, error) {
	var out api.DefDetail
	if err := checkDefName("definition", name, kind); err != nil {
		return out, err
	}
	err := c.Call(ctx, "defs.get", map[string]string{"name": name, "kind": string(kind)}, &out)
	return out, err
}

// ExportDef returns the stored definition name as a file in format
// (spec.FormatJSON, or spec.FormatMarkdown for agents; JSON-RPC
// defs.export).
func (c *Client) ExportDef(ctx context.Context, name string, kind spec.Kind, format string) (api.DefExport, error) {
	var out api.DefExport
	if err := checkDefName("definition", name, kind); err != nil {
		return out, err
	}
	err := c.Call(ctx, "defs.export", map[string]string{"name": name, "kind": string(kind), "format": format}, &out)
	return out, err
}

// DeleteDef deletes the stored definition name (JSON-RPC defs.delete)
// and returns its kind and name. An agent a stored team lists is not
// deleted: an error matching api.ErrConflict.
func (c *Client) DeleteDef(ctx context.Context, name string, kind spec.Kind) (api.DefSummary, error) {
	var out api.DefSummary
	if err := checkDefName("delete definition", name, kind); err != nil {
		return out, err
	}
	err := c.Call(ctx, "defs.delete", map[string]string{"name": name, "kind": string(kind)}, &out)
	return out, err
}
