package teammanager_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/rdfio"
	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/cortex/sparql/parser"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/teammanager"
)

// selectRows runs a SELECT through m.Query and returns its rows as sorted
// "term term ..." strings.
func selectRows(t *testing.T, m *teammanager.Manager, text string, opts sparql.Options) ([]string, error) {
	t.Helper()
	res, err := m.Query(ctx, text, opts)
	if err != nil {
		return nil, err
	}
	r, err := res.Collect(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, row := range r.Rows {
		var parts []string
		for _, v := range row {
			if v == nil {
				parts = append(parts, "-")
				continue
			}
			parts = append(parts, rdfio.FormatTerm(v))
		}
		out = append(out, strings.Join(parts, " "))
	}
	slices.Sort(out)
	return out, nil
}

func TestManager_Query(t *testing.T) {
	f := newFixture(t, teammanager.DefaultConfig().WithPrefixes(map[string]string{"ex": "http://example.org/"}))
	f.running(t, "t", "a", "b")
	if _, err := f.m.AddFindings(ctx, "t", "a", []teammanager.Finding{
		{Subject: iri("pool.go"), Predicate: iri("severity"), Object: quad.String("high"), Confidence: 0.9},
		{Subject: iri("main.go"), Predicate: iri("severity"), Object: quad.String("low")},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.AddFinding(ctx, "t", "b", teammanager.Finding{Subject: iri("pool.go"), Predicate: iri("severity"), Object: quad.String(`x" } ; DROP ALL #`)}); err != nil {
		t.Fatal(err)
	}
	// cx: is the namespace's vocabulary, ex: comes from the config, and the
	// member is a parameter.
	const q = `SELECT ?s ?o ?c WHERE {
		?f a cx:Finding ; cx:finding:assertedBy ?by ; rdf:subject ?s ; rdf:predicate ex:severity ; rdf:object ?o .
		OPTIONAL { ?f cx:finding:confidence ?c } }`
	got, err := selectRows(t, f.m, q, sparql.Options{}.Bind("by", f.ns.Member("t", "a")))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`<http://example.org/main.go> "low" -`, `<http://example.org/pool.go> "high" "0.9"^^<http://www.w3.org/2001/XMLSchema#decimal>`}
	if !slices.Equal(got, want) {
		t.Fatalf("a's findings: %q, want %q", got, want)
	}
	// A hostile value is only a value.
	got, err = selectRows(t, f.m, `SELECT ?by WHERE { ?f cx:finding:assertedBy ?by ; rdf:object ?o }`,
		sparql.Options{}.Bind("o", quad.String(`x" } ; DROP ALL #`)))
	if err != nil || !slices.Equal(got, []string{rdfio.FormatTerm(f.ns.Member("t", "b"))}) {
		t.Fatalf("hostile literal: %q, %v", got, err)
	}
	// Caller prefixes override the manager's.
	got, err = selectRows(t, f.m, `SELECT ?o WHERE { ex:pool.go ?p ?o }`, sparql.Options{Prefixes: map[string]string{"ex": "urn:nothing:"}})
	if err != nil || len(got) != 0 {
		t.Fatalf("overridden ex: %q, %v", got, err)
	}

	for _, tc := range []struct {
		name, q string
		opts    sparql.Options
		want    error
		msg     string
	}{
		{"unknown variable", q, sparql.Options{}.Bind("agent", f.ns.Member("t", "a")), sparql.ErrUnknownVariable, "?agent is not a variable"},
		{"blank node", q, sparql.Options{}.Bind("by", quad.BNode("x")), sparql.ErrInvalidBinding, "blank node"},
		{"fmt trap", fmt.Sprintf("SELECT ?f WHERE { ?f cx:finding:assertedBy <%s> }", f.ns.Member("t", "a")), sparql.Options{}, parser.ErrSyntax, "angle brackets are doubled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := selectRows(t, f.m, tc.q, tc.opts)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want %v mentioning %q", err, tc.want, tc.msg)
			}
		})
	}
}

func TestPrefixes(t *testing.T) {
	x, err := namespace.New("acme", namespace.WithBase("https://acme.example/kg"))
	if err != nil {
		t.Fatal(err)
	}
	got := teammanager.Prefixes(x, map[string]string{"ex": "http://example.org/", "prov": "urn:my-prov:"})
	want := parser.DefaultPrefixes()
	want["prov"] = "urn:my-prov:"
	want["ex"] = "http://example.org/"
	want["cx"] = "https://acme.example/kg:"
	want["acme"] = "https://acme.example/kg:"
	if !maps.Equal(got, want) {
		t.Fatalf("Prefixes = %v, want %v", got, want)
	}
	// A namespace named like a built-in prefix does not shadow it.
	rdf, err := namespace.New("rdf")
	if err != nil {
		t.Fatal(err)
	}
	if p := teammanager.Prefixes(rdf, nil); p["rdf"] != parser.DefaultPrefixes()["rdf"] || p["cx"] != rdf.Prefix() {
		t.Fatalf("namespace rdf: %v", p)
	}
}

// TestManager_ContextCause checks that an operation stopped by a cancelled
// context reports the cancellation's cause, and still matches
// context.Canceled.
func TestManager_ContextCause(t *testing.T) {
	f := newFixture(t)
	f.running(t, "t", "a")
	cause := errors.New("agent a shut down")
	cctx, cancel := context.WithCancelCause(ctx)
	cancel(cause)
	fd := teammanager.Finding{Subject: iri("s"), Predicate: iri("p"), Object: quad.String("o")}
	for name, call := range map[string]func() error{
		"AddFinding":  func() error { _, err := f.m.AddFinding(cctx, "t", "a", fd); return err },
		"AddFindings": func() error { _, err := f.m.AddFindings(cctx, "t", "a", []teammanager.Finding{fd}); return err },
		"ImportFindings": func() error {
			_, err := f.m.ImportFindings(cctx, "t", "a", strings.NewReader("<http://ex/s> <http://ex/p> <http://ex/o> .\n"), "ntriples")
			return err
		},
		"CreateTeam": func() error {
			_, err := f.m.CreateTeam(cctx, teammanager.TeamConfig{Name: "n", Members: members("x")})
			return err
		},
		"GetTeam":            func() error { _, err := f.m.GetTeam(cctx, "t"); return err },
		"Findings":           func() error { _, err := f.m.Findings(cctx, "t", teammanager.FindingFilter{}); return err },
		"UpdateMemberStatus": func() error { _, err := f.m.UpdateMemberStatus(cctx, "t", "a", teammanager.Completed, ""); return err },
		"DeleteTeam":         func() error { return f.m.DeleteTeam(cctx, "t") },
		"MergeTeamResults":   func() error { _, err := f.m.MergeTeamResults(cctx, "t"); return err },
		"Conflicts":          func() error { _, err := f.m.Conflicts(cctx, "t"); return err },
		"Facts":              func() error { _, err := f.m.Facts(cctx, "t", teammanager.FactFilter{}); return err },
		"ResolveConflict": func() error {
			_, err := f.m.ResolveConflict(cctx, "t", "c0123456789abcdef0123456789abcdef", nil, "alice")
			return err
		},
		"Query": func() error {
			res, err := f.m.Query(cctx, `SELECT * WHERE { ?s ?p ?o }`, sparql.Options{})
			if err != nil {
				return err
			}
			_, err = res.Collect(cctx)
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			err := call()
			if !errors.Is(err, context.Canceled) || !errors.Is(err, cause) || !strings.Contains(err.Error(), cause.Error()) {
				t.Fatalf("err = %v, want context.Canceled with cause %q", err, cause)
			}
		})
	}
	if got := f.stored(t, "t", "a"); len(got) != 0 {
		t.Fatalf("%d findings written with a cancelled context", len(got))
	}
}
