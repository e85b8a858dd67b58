package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cortexgraph/cortex/api"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/defstore"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/spec"
)

// The definitions of a namespace (package defstore): defs.import,
// defs.list, defs.get, defs.export, defs.delete, with the shapes of
// cortexctl defs --json. defs.validate stays on the client: it needs no
// store.

// defStore returns the definitions of the request's namespace.
func (c *rpcCtx) defStore(ctx context.Context, a access) (*defstore.Store, error) {
	n, err := c.s.namespace(ctx, c.ns, a)
	if err != nil {
		return nil, err
	}
	x, err := namespace.New(c.ns, namespace.WithBase(c.s.opts.cfg.NamespaceBase(c.ns)))
	if err != nil {
		return nil, err
	}
	return defstore.New(n, x), nil
}

// defKind reads the optional kind param: agent, team or "".
func defKind(k string) (spec.Kind, error) {
	switch kind := spec.Kind(k); kind {
	case "", spec.KindAgent, spec.KindTeam:
		return kind, nil
	default:
		return "", fmt.Errorf("%w: params: kind must be agent or team, not %q", api.ErrUsage, k)
	}
}

// defsImportParams: the files (spec.File: path, namespace, data) as the
// client read them (spec.ReadFiles), and strict.
type defsImportParams struct {
	Files  []spec.File `json:"files"`
	Strict bool        `json:"strict"`
}

// defsImport: {files, strict} -> api.DefsReport of what was stored. A
// definition with an error stores nothing: the error (exit code 7, kind
// invalid, "invalid_definition") carries every problem, warnings
// included, in its data's "problems".
func defsImport(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p defsImportParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.Files == nil {
		return nil, fmt.Errorf(`%w: params: "files" is required (the files: {"path", "namespace", "data"})`, api.ErrUsage)
	}
	if len(p.Files) == 0 {
		// No files (cortexctl defs import of a directory without
		// definitions): nothing imported, nothing created.
		return api.DefsReport{Agents: []string{}, Teams: []string{}, Problems: []spec.Problem{}}, nil
	}
	opts := spec.Options{Strict: p.Strict}
	s, err := c.defStore(ctx, accessWrite)
	if errors.Is(err, cortex.ErrNoNamespace) {
		// A new namespace: it is created for valid definitions only.
		if _, err := defstore.CheckFiles(p.Files, opts); err != nil {
			return nil, err
		}
		s, err = c.defStore(ctx, accessCreate)
	}
	if err != nil {
		return nil, err
	}
	res, err := s.ImportFiles(ctx, p.Files, opts)
	if err != nil {
		return nil, err
	}
	return api.DefsReport{Agents: nonNil(res.Agents), Teams: nonNil(res.Teams), Errors: res.Report.Errors(),
		Warnings: res.Report.Warnings(), Problems: nonNil(res.Report.Problems)}, nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// defsList: {kind} -> [api.DefSummary], agents then teams.
func defsList(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		Kind string `json:"kind"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	kind, err := defKind(p.Kind)
	if err != nil {
		return nil, err
	}
	s, err := c.defStore(ctx, accessRead)
	if err != nil {
		return nil, err
	}
	defs, err := s.List(ctx, kind)
	if err != nil {
		return nil, err
	}
	if err := c.checkCount(len(defs), "definitions"); err != nil {
		return nil, err
	}
	out := make([]api.DefSummary, len(defs))
	for i, d := range defs {
		out[i] = api.NewDefSummary(d)
	}
	return out, nil
}

type defParams struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	Format string `json:"format"` // defs.export only
}

// def reads {name, kind} and returns the definition named.
func (c *rpcCtx) def(ctx context.Context, params json.RawMessage, withFormat bool) (spec.Def, defParams, error) {
	var p defParams
	var err error
	if withFormat {
		err = decodeParams(params, &p)
	} else {
		var q struct {
			Name string `json:"name"`
			Kind string `json:"kind"`
		}
		err = decodeParams(params, &q)
		p.Name, p.Kind = q.Name, q.Kind
	}
	if err != nil {
		return spec.Def{}, p, err
	}
	if err := required("name", p.Name); err != nil {
		return spec.Def{}, p, err
	}
	kind, err := defKind(p.Kind)
	if err != nil {
		return spec.Def{}, p, err
	}
	s, err := c.defStore(ctx, accessRead)
	if err != nil {
		return spec.Def{}, p, err
	}
	def, err := s.Get(ctx, p.Name, kind)
	return def, p, err
}

// marshalDef returns def as a file in format (spec.FormatJSON, or
// spec.FormatMarkdown for an agent): what cortexctl defs export prints.
func marshalDef(def spec.Def, format string) ([]byte, error) {
	if def.Kind == spec.KindAgent {
		return spec.MarshalAgent(def.Agent, format)
	}
	if format == spec.FormatMarkdown {
		return nil, fmt.Errorf("%w: defs export: team %q has no md form (use --format json)", api.ErrUsage, def.Name())
	}
	return spec.MarshalTeam(def.Team, format)
}

// defsGet: {name, kind} -> api.DefDetail.
func defsGet(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	def, _, err := c.def(ctx, params, false)
	if err != nil {
		return nil, err
	}
	src, err := marshalDef(def, spec.FormatJSON)
	if err != nil {
		return nil, err
	}
	return api.DefDetail{DefSummary: api.NewDefSummary(def), Definition: src}, nil
}

// defsExport: {name, kind, format} -> api.DefExport (format json, the
// default, or md for agents).
func defsExport(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	def, p, err := c.def(ctx, params, true)
	if err != nil {
		return nil, err
	}
	if p.Format == "" {
		p.Format = spec.FormatJSON
	}
	if p.Format != spec.FormatJSON && p.Format != spec.FormatMarkdown {
		return nil, fmt.Errorf("%w: params: format must be json or md, not %q", api.ErrUsage, p.Format)
	}
	data, err := marshalDef(def, p.Format)
	if err != nil {
		return nil, err
	}
	return api.DefExport{DefSummary: api.NewDefSummary(def), Format: p.Format, Data: string(data)}, nil
}

// defsDelete: {name, kind} -> {kind, name} of the definition deleted.
func defsDelete(ctx context.Context, c *rpcCtx, params json.RawMessage) (any, error) {
	var p struct {
		Name string `json:"name"`
		Kind string `json:"kind"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if err := required("name", p.Name); err != nil {
		return nil, err
	}
	kind, err := defKind(p.Kind)
	if err != nil {
		return nil, err
	}
	s, err := c.defStore(ctx, accessWrite)
	if err != nil {
		return nil, err
	}
	def, err := s.Delete(ctx, p.Name, kind)
	if err != nil {
		return nil, err
	}
	return api.DefSummary{Kind: string(def.Kind), Name: def.Name()}, nil
}
