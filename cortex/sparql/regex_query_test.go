package sparql_test

import (
	"context"
	"slices"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/cortex/sparql"
	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
)

// TestQuery_RegexXPathEscapes runs REGEX and REPLACE with back-references,
// \i and \c, and block escapes \p{IsX} through the engine over a store: the
// FILTER keeps the rows they match, an invalid expression (an unknown block,
// a back-reference to a group not yet closed) is an expression error that
// drops every row, and REPLACE uses the groups.
func TestQuery_RegexXPathEscapes(t *testing.T) {
	ctx := context.Background()
	ns, err := cortextest.NewStore(t).Namespace(ctx, "regex")
	if err != nil {
		t.Fatal(err)
	}
	var qs []quad.Quad
	for i, name := range []string{"abab", "abac", "x:name-1", "1name", "αβγ", "abc", "ÀÉ", "bob  bob"} {
		qs = append(qs, bq(string(rune('a'+i)), "name", quad.String(name)))
	}
	if _, err := ns.Import(ctx, &cortextest.SliceSource{Quads: qs}, cortex.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, filter string
		want         []string
	}{
		{"back-reference", `REGEX(?n, "^(..)\\1$")`, []string{"abab"}},
		{"back-reference-i", `REGEX(?n, "^(AB)\\1$", "i")`, []string{"abab"}},
		{"back-reference-words", `REGEX(?n, "^(\\w+)\\s+\\1$")`, []string{"bob  bob"}},
		{"xml-name", `REGEX(?n, "^\\i\\c*$")`, []string{"abab", "abac", "abc", "x:name-1", "αβγ", "ÀÉ"}},
		{"not-xml-name", `REGEX(?n, "\\C")`, []string{"bob  bob"}},
		{"name-start-class", `REGEX(?n, "^[\\i-[a-z]]")`, []string{"αβγ", "ÀÉ"}},
		{"block", `REGEX(?n, "^\\p{IsGreek}+$")`, []string{"αβγ"}},
		{"not-block", `REGEX(?n, "^\\P{IsBasicLatin}+$")`, []string{"αβγ", "ÀÉ"}},
		{"block-class", `REGEX(?n, "^[\\p{IsLatin-1Supplement}\\p{IsGreekandCoptic}]+$")`, []string{"αβγ", "ÀÉ"}},
		{"unknown-block", `REGEX(?n, "\\p{IsNoSuchBlock}")`, nil},
		{"open-group", `REGEX(?n, "(a\\1)")`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := `SELECT ?n WHERE { ?s <http://ex/name> ?n FILTER(` + tt.filter + `) }`
			res, err := ns.Query(ctx, q, sparql.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := names(t, ctx, res)
			want := slices.Sorted(slices.Values(tt.want))
			if !slices.Equal(got, want) {
				t.Fatalf("FILTER(%s) kept %q, want %q", tt.filter, got, want)
			}
		})
	}
	t.Run("replace", func(t *testing.T) {
		q := `SELECT ?n WHERE { ?s <http://ex/name> ?o FILTER(STRSTARTS(?o, "ab")) BIND(REPLACE(?o, "(.)(.)\\1", "$2$1") AS ?n) }`
		res, err := ns.Query(ctx, q, sparql.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := names(t, ctx, res)
		want := []string{"abc", "bac", "bab"}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("REPLACE gave %q, want %q", got, want)
		}
	})
}

// names returns the sorted lexical forms of the ?n column of a result.
func names(t *testing.T, ctx context.Context, res *sparql.Result) []string {
	t.Helper()
	out, err := res.Collect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, row := range out.Rows {
		s, ok := row[0].(quad.String)
		if !ok {
			t.Fatalf("?n is %s, want a simple literal", algebra.FormatTerm(row[0]))
		}
		got = append(got, string(s))
	}
	slices.Sort(got)
	return got
}
