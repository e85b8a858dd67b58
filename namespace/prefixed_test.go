package namespace_test

import (
	"errors"
	"testing"

	"github.com/cortexgraph/cortex/namespace"
)

func TestExpandDatatype(t *testing.T) {
	prefixes := map[string]string{"xsd": "http://www.w3.org/2001/XMLSchema#", "": "http://ex/"}
	for _, c := range []struct{ in, want string }{
		{`"1"^^xsd:integer`, `"1"^^<http://www.w3.org/2001/XMLSchema#integer>`},
		{`"1"^^:t`, `"1"^^<http://ex/t>`},
		{`"a\"^^xsd:b"^^xsd:string `, `"a\"^^xsd:b"^^<http://www.w3.org/2001/XMLSchema#string>`},
		{`"a\\"^^xsd:string`, `"a\\"^^<http://www.w3.org/2001/XMLSchema#string>`},
		// White space may separate the string, '^^' and the datatype, as
		// in N-Triples ("1" ^^ <...>): it is kept for the parser. It made
		// "1"^^ xsd:integer an unknown prefix " xsd".
		{`"1" ^^xsd:integer`, `"1" ^^<http://www.w3.org/2001/XMLSchema#integer>`},
		{"\"1\"^^ \txsd:integer", "\"1\"^^ \t<http://www.w3.org/2001/XMLSchema#integer>"},
		{`"1"	^^ :t `, `"1"	^^ <http://ex/t>`},
		// Unchanged: not a literal with a prefixed datatype.
		{`"1"^^<http://www.w3.org/2001/XMLSchema#integer>`, `"1"^^<http://www.w3.org/2001/XMLSchema#integer>`},
		{`"a"@en`, `"a"@en`},
		{`"a^^xsd:int`, `"a^^xsd:int`},
		{`"a"^^`, `"a"^^`},
		{`"a"^^int`, `"a"^^int`},
		{`<http://ex/a>`, `<http://ex/a>`},
		{`xsd:integer`, `xsd:integer`},
	} {
		got, err := namespace.ExpandDatatype(c.in, prefixes)
		if err != nil || got != c.want {
			t.Errorf("ExpandDatatype(%s) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
	if _, err := namespace.ExpandDatatype(`"1"^^zz:int`, prefixes); !errors.Is(err, namespace.ErrUnknownPrefix) {
		t.Errorf("unknown prefix: %v, want ErrUnknownPrefix", err)
	}
}
