package parser_test

import (
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/parser"
)

// TestParse_ResolvesIRIs checks how the parser resolves IRI references (the
// policy of iri.ResolveOrKeep, formerly the parser's own resolveIRI):
// relative references against BASE or the base option, absolute ones kept as
// written, and references left relative when there is no absolute base.
func TestParse_ResolvesIRIs(t *testing.T) {
	tests := []struct {
		name, base, prologue, ref, want string
	}{
		{"Relative", "", "BASE <http://a/b/c/d;p?q>", "<../g?y#s>", "http://a/b/g?y#s"},
		{"Empty", "", "BASE <http://a/b/c/d;p?q>", "<>", "http://a/b/c/d;p?q"},
		{"URNBase", "", "BASE <urn:x:y>", "<#frag>", "urn:x:y#frag"},
		{"BaseOption", "http://a/b/", "", "<c>", "http://a/b/c"},
		{"RelativeBASEAgainstOption", "http://a/b/", "BASE <c/>", "<d>", "http://a/b/c/d"},
		{"Prefix", "", "BASE <http://a/b/> PREFIX p: <c/>", "p:d", "http://a/b/c/d"},
		{"AbsoluteNotNormalised", "", "BASE <http://a/b/>", "<http://x/a/./b>", "http://x/a/./b"},
		{"AbsoluteBASENotNormalised", "", "BASE <http://a/./b/>", "<>", "http://a/./b/"},
		{"NoBase", "", "", "<rel>", "rel"},
		{"RelativeBase", "", "BASE <rel/base>", "<x>", "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := tt.prologue + " CONSTRUCT { " + tt.ref + " <http://p/> 1 } WHERE { }"
			a, err := parser.Parse(q, parser.DefaultOptions().WithBase(tt.base))
			if err != nil {
				t.Fatalf("Parse(%q): %v", q, err)
			}
			if len(a.Template) != 1 || a.Template[0].Subject.Value != quad.IRI(tt.want) {
				t.Fatalf("Parse(%q): template %v, want subject <%s>", q, a.Template, tt.want)
			}
		})
	}
}
