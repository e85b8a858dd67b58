package eval

import (
	"fmt"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/builtin"
)

const (
	xsdDate     = quad.IRI("http://www.w3.org/2001/XMLSchema#date")
	xsdDateTime = quad.IRI("http://www.w3.org/2001/XMLSchema#dateTime")
)

func isLiteral(v quad.Value) bool {
	switch v.(type) {
	case quad.String, quad.LangString, quad.TypedString:
		return true
	}
	return false
}

// dateAsDateTime turns an xsd:date literal into the xsd:dateTime of its first instant (same timezone),
// so that builtin's dateTime comparison applies.
func dateAsDateTime(v quad.Value) (quad.Value, bool) {
	t, ok := v.(quad.TypedString)
	if !ok || t.Type != xsdDate {
		return v, false
	}
	s := string(t.Value)
	if len(s) < 10 {
		return v, false
	}
	i := 10
	if s[0] == '-' {
		i = 11
	}
	if len(s) < i {
		return v, false
	}
	return quad.TypedString{Value: quad.String(s[:i] + "T00:00:00" + s[i:]), Type: xsdDateTime}, true
}

// equalTerms is the SPARQL = operator: builtin.Equal, plus xsd:date values, and a language-tagged
// string never equals a literal without a language tag (different value spaces).
func equalTerms(a, b quad.Value) (bool, error) {
	_, la := a.(quad.LangString)
	_, lb := b.(quad.LangString)
	if la != lb && isLiteral(a) && isLiteral(b) {
		return false, nil
	}
	da, okA := dateAsDateTime(a)
	db, okB := dateAsDateTime(b)
	if okA && okB {
		return builtin.Equal(da, db)
	}
	if okA != okB && isLiteral(a) && isLiteral(b) {
		other := b
		if okB {
			other = a
		}
		if builtin.IsNumeric(other) || isKnownType(other) {
			return false, nil
		}
	}
	return builtin.Equal(a, b)
}

func isKnownType(v quad.Value) bool {
	switch t := v.(type) {
	case quad.String:
		return true
	case quad.TypedString:
		return t.Type == xsdDateTime || t.Type == "http://www.w3.org/2001/XMLSchema#boolean"
	}
	return false
}

// compareTerms is the SPARQL < > <= >= operators: builtin.Compare plus xsd:date values.
func compareTerms(a, b quad.Value) (int, error) {
	da, okA := dateAsDateTime(a)
	db, okB := dateAsDateTime(b)
	if okA && okB {
		return builtin.Compare(da, db)
	}
	if okA || okB {
		return 0, fmt.Errorf("compare xsd:date with another type: %w", builtin.ErrType)
	}
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
