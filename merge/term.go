package merge

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cayleygraph/quad"
)

const (
	xsdString     = quad.IRI("http://www.w3.org/2001/XMLSchema#string")
	rdfLangString = quad.IRI("http://www.w3.org/1999/02/22-rdf-syntax-ns#langString")
)

// Term kinds in the order CompareTerms sorts them.
const (
	kindNil = iota
	kindIRI
	kindBNode
	kindString
	kindLang
	kindTyped
	kindOther
)

func kindOf(v quad.Value) int {
	switch v := v.(type) {
	case nil:
		return kindNil
	case quad.IRI:
		return kindIRI
	case quad.BNode:
		return kindBNode
	case quad.String:
		return kindString
	case quad.LangString:
		return kindLang
	case quad.TypedString:
		if v.Type == xsdString {
			return kindString
		}
		return kindTyped
	default:
		return kindOther
	}
}

// CompareTerms is a total order over RDF terms, used to sort everything in a Result. It returns a
// negative number when a sorts before b, zero when they are identical terms, and a positive number
// otherwise. (Two spellings of one language tag, such as "en" and "EN", are adjacent but not identical.)
//
// Terms are ordered first by kind — nil, quad.IRI, quad.BNode, plain quad.String, quad.LangString,
// quad.TypedString, then any other quad.Value — and then lexically by bytes: IRIs and blank-node labels
// by their text; plain strings by value; language-tagged strings by value, then by language tag compared
// case-insensitively, then by the tag's exact bytes; typed literals by lexical form, then by datatype IRI.
// A quad.TypedString with datatype xsd:string is the same term as the plain quad.String. Values of other
// types are ordered by Go type name and then by quad.StringOf. CompareTerms never panics.
func CompareTerms(a, b quad.Value) int {
	ka, kb := kindOf(a), kindOf(b)
	if ka != kb {
		return cmp.Compare(ka, kb)
	}
	switch ka {
	case kindNil:
		return 0
	case kindIRI:
		return strings.Compare(string(a.(quad.IRI)), string(b.(quad.IRI)))
	case kindBNode:
		return strings.Compare(string(a.(quad.BNode)), string(b.(quad.BNode)))
	case kindString:
		return strings.Compare(plainValue(a), plainValue(b))
	case kindLang:
		la, lb := a.(quad.LangString), b.(quad.LangString)
		if c := strings.Compare(string(la.Value), string(lb.Value)); c != 0 {
			return c
		}
		if c := strings.Compare(strings.ToLower(la.Lang), strings.ToLower(lb.Lang)); c != 0 {
			return c
		}
		return strings.Compare(la.Lang, lb.Lang)
	case kindTyped:
		ta, tb := a.(quad.TypedString), b.(quad.TypedString)
		if c := strings.Compare(string(ta.Value), string(tb.Value)); c != 0 {
			return c
		}
		return strings.Compare(string(ta.Type), string(tb.Type))
	default:
		if c := strings.Compare(fmt.Sprintf("%T", a), fmt.Sprintf("%T", b)); c != 0 {
			return c
		}
		return strings.Compare(quad.StringOf(a), quad.StringOf(b))
	}
}

func plainValue(v quad.Value) string {
	switch v := v.(type) {
	case quad.String:
		return string(v)
	case quad.TypedString:
		return string(v.Value)
	}
	return ""
}

// objKey identifies an object up to RDF term equality: xsd:string typed literals equal plain strings
// and language tags compare case-insensitively. It is comparable and used as a map key.
type objKey struct {
	kind int
	a, b string
}

// ObjectKey returns a text that is the same for two objects exactly when a merge treats them as one
// object: a literal typed xsd:string is the plain string, and language tags compare case-insensitively.
// A host uses it to match stored findings to a merged fact's object. It fails with ErrInvalidTerm for a
// term that is not a valid object.
func ObjectKey(v quad.Value) (string, error) {
	_, k, err := normObject(v)
	if err != nil {
		return "", err
	}
	// b (a language tag or datatype IRI) may hold any byte but a '<' or '>', NUL too: its length
	// comes first, so that the key is unambiguous.
	return strconv.Itoa(k.kind) + "\x00" + strconv.Itoa(len(k.b)) + "\x00" + k.b + k.a, nil
}

// CheckTriple reports whether a merge accepts subject, predicate and object as the triple of a finding:
// nil when it does, else an error wrapping ErrInvalidTerm that names the position. A host that stores
// findings checks them with it when they are written, so that no stored finding can make every later
// merge of its team fail. Objects chosen by a resolution are checked with ObjectKey.
func CheckTriple(subject, predicate, object quad.Value) error {
	if _, err := normNode(subject); err != nil {
		return fmt.Errorf("subject: %w", err)
	}
	if _, err := normPredicate(predicate); err != nil {
		return fmt.Errorf("predicate: %w", err)
	}
	if _, _, err := normObject(object); err != nil {
		return fmt.Errorf("object: %w", err)
	}
	return nil
}

// normObject checks that v is one of the five allowed term kinds and well formed, and returns it in
// normal form (xsd:string typed literals become quad.String) with its equality key.
func normObject(v quad.Value) (quad.Value, objKey, error) {
	// Return v itself rather than the switch variable, so that no new interface value is allocated.
	switch x := v.(type) {
	case quad.IRI:
		if !validIRI(string(x)) {
			return nil, objKey{}, fmt.Errorf("IRI %q: %w", string(x), ErrInvalidTerm)
		}
		return v, objKey{kind: kindIRI, a: string(x)}, nil
	case quad.BNode:
		if x == "" || !utf8.ValidString(string(x)) {
			return nil, objKey{}, fmt.Errorf("blank node %q: %w", string(x), ErrInvalidTerm)
		}
		return v, objKey{kind: kindBNode, a: string(x)}, nil
	case quad.String:
		if !utf8.ValidString(string(x)) {
			return nil, objKey{}, fmt.Errorf("string literal is not valid UTF-8: %w", ErrInvalidTerm)
		}
		return v, objKey{kind: kindString, a: string(x)}, nil
	case quad.LangString:
		if !utf8.ValidString(string(x.Value)) {
			return nil, objKey{}, fmt.Errorf("language-tagged literal is not valid UTF-8: %w", ErrInvalidTerm)
		}
		if !validLangTag(x.Lang) {
			return nil, objKey{}, fmt.Errorf("language tag %q: %w", x.Lang, ErrInvalidTerm)
		}
		return v, objKey{kind: kindLang, a: string(x.Value), b: lower(x.Lang)}, nil
	case quad.TypedString:
		if !utf8.ValidString(string(x.Value)) {
			return nil, objKey{}, fmt.Errorf("typed literal is not valid UTF-8: %w", ErrInvalidTerm)
		}
		switch {
		case x.Type == xsdString:
			return x.Value, objKey{kind: kindString, a: string(x.Value)}, nil
		case x.Type == rdfLangString:
			return nil, objKey{}, fmt.Errorf("rdf:langString literal without a language tag: %w", ErrInvalidTerm)
		case !validIRI(string(x.Type)):
			return nil, objKey{}, fmt.Errorf("datatype %q: %w", string(x.Type), ErrInvalidTerm)
		}
		return v, objKey{kind: kindTyped, a: string(x.Value), b: string(x.Type)}, nil
	case nil:
		return nil, objKey{}, fmt.Errorf("nil term: %w", ErrInvalidTerm)
	default:
		return nil, objKey{}, fmt.Errorf("term of type %T (want quad.IRI, quad.BNode, quad.String, quad.LangString or quad.TypedString): %w", v, ErrInvalidTerm)
	}
}

// lower is strings.ToLower without an allocation for the common all-lower-case ASCII tag.
func lower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf {
			return strings.ToLower(s)
		}
	}
	return s
}

// normNode checks a subject: a non-empty quad.IRI or quad.BNode.
func normNode(v quad.Value) (quad.Value, error) {
	switch x := v.(type) {
	case quad.IRI:
		if !validIRI(string(x)) {
			return nil, fmt.Errorf("IRI %q: %w", string(x), ErrInvalidTerm)
		}
		return v, nil
	case quad.BNode:
		if x == "" || !utf8.ValidString(string(x)) {
			return nil, fmt.Errorf("blank node %q: %w", string(x), ErrInvalidTerm)
		}
		return v, nil
	case nil:
		return nil, fmt.Errorf("nil term: %w", ErrInvalidTerm)
	default:
		return nil, fmt.Errorf("term of type %T where an IRI or blank node is required: %w", v, ErrInvalidTerm)
	}
}

// normPredicate checks a predicate: a non-empty quad.IRI.
func normPredicate(v quad.Value) (quad.Value, error) {
	iri, ok := v.(quad.IRI)
	if !ok {
		return nil, fmt.Errorf("predicate of type %T (want quad.IRI): %w", v, ErrInvalidTerm)
	}
	if !validIRI(string(iri)) {
		return nil, fmt.Errorf("IRI %q: %w", string(iri), ErrInvalidTerm)
	}
	return v, nil
}

// validIRI accepts any non-empty valid UTF-8 text that is not wrapped in angle brackets. Characters that
// N-Triples does not allow in an IRIREF are accepted here and escaped on output.
func validIRI(s string) bool {
	return s != "" && utf8.ValidString(s) && !strings.ContainsAny(s, "<>")
}

// validLangTag accepts BCP 47 shaped tags as in the N-Triples LANGTAG production:
// [a-zA-Z]+ ('-' [a-zA-Z0-9]+)*.
func validLangTag(s string) bool {
	part := 0 // index of the current '-'-separated part
	n := 0    // length of the current part
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '-':
			if n == 0 {
				return false
			}
			part++
			n = 0
			continue
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && part > 0:
		default:
			return false
		}
		n++
	}
	return n > 0
}

// writeNodeNT writes an IRI or blank node in N-Triples form. Characters not allowed in an IRIREF are
// written as \uXXXX; blank-node labels are escaped the same way so that the output is unambiguous.
func writeNodeNT(sb *strings.Builder, v quad.Value) {
	switch v := v.(type) {
	case quad.IRI:
		sb.WriteByte('<')
		writeEscapedIRI(sb, string(v))
		sb.WriteByte('>')
	case quad.BNode:
		sb.WriteString("_:")
		writeEscapedIRI(sb, string(v))
	case nil:
		sb.WriteString("nil")
	default:
		sb.WriteString(strconv.Quote(fmt.Sprintf("%T:%s", v, quad.StringOf(v))))
	}
}

func writeEscapedIRI(sb *strings.Builder, s string) {
	for _, r := range s {
		if r <= 0x20 || strings.ContainsRune("<>\"{}|^`\\", r) {
			fmt.Fprintf(sb, `\u%04X`, r)
			continue
		}
		sb.WriteRune(r)
	}
}
