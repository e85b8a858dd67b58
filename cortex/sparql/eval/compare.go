package eval

import (
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/builtin"
)

func isLiteral(v quad.Value) bool {
	switch v.(type) {
	case quad.String, quad.LangString, quad.TypedString:
		return true
	}
	return false
}

// equalTerms is the SPARQL = operator: builtin.Equal, and a language-tagged string never equals a
// literal without a language tag (different value spaces).
func equalTerms(a, b quad.Value) (bool, error) {
	_, la := a.(quad.LangString)
	_, lb := b.(quad.LangString)
	if la != lb && isLiteral(a) && isLiteral(b) {
		return false, nil
	}
	return builtin.Equal(a, b)
}

// compareTerms is the SPARQL < > <= >= operators.
func compareTerms(a, b quad.Value) (int, error) {
	return builtin.Compare(a, b)
}

// langVariants returns the case variants of a language-tagged literal to look up when the exact one is
// absent (language tags are case-insensitive).
func langVariants(v quad.Value) []quad.Value {
	l, ok := v.(quad.LangString)
	if !ok {
		return nil
	}
	lower := strings.ToLower(l.Lang)
	canon := lower
	if i := strings.IndexByte(lower, '-'); i > 0 {
		canon = lower[:i] + strings.ToUpper(lower[i:])
	}
	var out []quad.Value
	for _, tag := range []string{lower, canon, strings.ToUpper(l.Lang)} {
		if tag != l.Lang {
			out = append(out, quad.LangString{Value: l.Value, Lang: tag})
		}
	}
	return out
}
