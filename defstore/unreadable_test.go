package defstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/defstore"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/spec"
)

// TestStore_UnreadableStoredDefinition: a stored definition whose source
// no longer reads (written by an older Cortex whose rules were looser, or
// by an import of quads into its graph) made every operation on the
// namespace's definitions fail, the repairs included: Get of any other
// definition (and so every delegation check, api.StoredDelegation), Import
// when it is an agent, Delete of it. Now List and Get of it fail naming it
// and the way out, and the rest works: Get and List of the others, Import
// (which replaces it), Delete (which removes it, or says which teams use
// it).
func TestStore_UnreadableStoredDefinition(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		kind  spec.Kind
		src   string
		other string // a definition that must still be read
		inUse bool   // Delete refuses it: a stored team lists it
		add   bool   // src is added beside the source, not put in its place
	}{
		{"review", spec.KindTeam, `{"name": "review", "version": "1", "agents": ["pm"], "workflow": {"type": "council"}}`, "pm", false, false},
		{"review", spec.KindTeam, `{"name": "review"`, "release", false, false},
		{"review", spec.KindTeam, `{"name": "other", "version": "1", "agents": ["pm"]}`, "pm", false, false},
		{"docs", spec.KindAgent, `{"name": "docs", "model": 7}`, "release", true, false},
		{"qa/unit", spec.KindAgent, `[]`, "pm", true, false},
		// A second source (an import of quads into the graph) made the
		// name ambiguous, "an agent and a team", and Delete refused it.
		{"review", spec.KindTeam, `{"name": "review"`, "pm", false, true},
		{"pm", spec.KindAgent, `{"name": "pm"}`, "docs", true, true},
	} {
		t.Run(c.name+" "+c.src, func(t *testing.T) {
			s, n, x := newStore(t)
			if _, err := s.Import(ctx, []string{legacy}, spec.Options{}); err != nil {
				t.Fatal(err)
			}
			corrupt := func() {
				t.Helper()
				g := x.TeamDefGraph(c.name)
				if c.kind == spec.KindAgent {
					g = x.AgentDefGraph(c.name)
				}
				err := n.Update(ctx, func(tx *cortex.Tx) error {
					old, err := n.Quads(ctx, cortex.Pattern{Graph: g, Predicate: x.IRI(namespace.DefSource), Scope: cortex.OneGraph})
					if err != nil || len(old) != 1 {
						t.Fatalf("def:source of %s: %v, %v", c.name, old, err)
					}
					if !c.add {
						tx.Remove(old[0])
					}
					tx.Add(quad.Quad{Subject: old[0].Subject, Predicate: old[0].Predicate, Object: namespace.String(c.src), Label: g})
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			corrupt()
			for op, f := range map[string]func() error{
				"List": func() error { _, err := s.List(ctx, ""); return err },
				"Get":  func() error { _, err := s.Get(ctx, c.name, ""); return err },
			} {
				if err := f(); err == nil || !strings.Contains(err.Error(), `definition "`+c.name+`" cannot be read (import it again, or delete it)`) {
					t.Errorf("%s = %v, want an error naming the definition and the way out", op, err)
				}
			}
			if d, err := s.Get(ctx, c.other, ""); err != nil || d.Name() != c.other {
				t.Errorf("Get(%s) beside the unreadable definition: %v", c.other, err)
			}
			otherKind := spec.KindAgent
			if c.kind == spec.KindAgent {
				otherKind = spec.KindTeam
			}
			if _, err := s.List(ctx, otherKind); err != nil {
				t.Errorf("List(%s) beside the unreadable definition: %v", otherKind, err)
			}
			// Import replaces it.
			if _, err := s.Import(ctx, []string{legacy}, spec.Options{}); err != nil {
				t.Fatalf("Import over the unreadable definition: %v", err)
			}
			if d, err := s.Get(ctx, c.name, c.kind); err != nil || d.Name() != c.name {
				t.Fatalf("Get(%s) after the import: %v", c.name, err)
			}
			// Delete removes it, or says which teams use it.
			corrupt()
			d, err := s.Delete(ctx, c.name, c.kind)
			if c.inUse {
				if !errors.Is(err, defstore.ErrInUse) {
					t.Fatalf("Delete(%s) = %v, want ErrInUse", c.name, err)
				}
				return
			}
			if err != nil || d.Kind != c.kind || d.Name() != c.name {
				t.Fatalf("Delete(%s) = %+v, %v", c.name, d, err)
			}
			if _, err := s.List(ctx, ""); err != nil {
				t.Errorf("List after the delete: %v", err)
			}
		})
	}
}
