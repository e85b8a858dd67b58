package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Marshal formats.
const (
	FormatJSON     = "json"
	FormatMarkdown = "md"
)

// MarshalAgent writes a as JSON (FormatJSON) or as Markdown with YAML front
// matter and the instructions as the body (FormatMarkdown). Parsing the
// result gives a back (instructions with leading or trailing white space
// stay in the front matter, since a body is trimmed).
func MarshalAgent(a *Agent, format string) ([]byte, error) {
	switch format {
	case FormatJSON:
		return marshalJSON(a)
	case FormatMarkdown:
		fm := *a
		body := ""
		if a.Instructions != "" && a.Instructions == strings.TrimSpace(a.Instructions) {
			fm.Instructions, body = "", a.Instructions
		}
		doc, err := frontMatterNode(&fm)
		if err != nil {
			return nil, fmt.Errorf("marshal agent %s: %w", a.QualifiedName(), err)
		}
		var b bytes.Buffer
		b.WriteString("---\n")
		enc := yaml.NewEncoder(&b)
		enc.SetIndent(2)
		if err := enc.Encode(doc); err != nil {
			return nil, fmt.Errorf("marshal agent %s: %w", a.QualifiedName(), err)
		}
		if err := enc.Close(); err != nil {
			return nil, fmt.Errorf("marshal agent %s: %w", a.QualifiedName(), err)
		}
		b.WriteString("---\n")
		if body != "" {
			b.WriteString("\n")
			b.WriteString(body)
			b.WriteString("\n")
		}
		return b.Bytes(), nil
	}
	return nil, fmt.Errorf("marshal agent %s: %w %q (want json or md)", a.QualifiedName(), ErrUnknownFormat, format)
}

// MarshalTeam writes t as JSON (FormatJSON, the only format of teams):
// indented, or compact if indented it would be larger than MaxFileSize
// (MarshalAgent's JSON too).
func MarshalTeam(t *Team, format string) ([]byte, error) {
	if format != FormatJSON {
		return nil, fmt.Errorf("marshal team %s: %w %q (teams are json)", t.Name, ErrUnknownFormat, format)
	}
	c := *t
	if c.Agents == nil {
		c.Agents = []string{} // required, so never null
	}
	return marshalJSON(&c)
}

// frontMatterNode returns the YAML of a, built from its JSON form (same
// keys, same order) with each value's tag set. A multi-line string that
// starts with white space (a newline, a tab, U+2028 ...) or an unprintable
// rune is double-quoted: yaml.v3 writes it as a literal block that loses a
// leading newline, or that its parser refuses (a leading tab).
func frontMatterNode(a *Agent) (*yaml.Node, error) {
	data, err := marshalJSON(a)
	if err != nil {
		return nil, err
	}
	n, err := parseJSON(data)
	if err != nil {
		return nil, err
	}
	return yamlNode(n), nil
}

func yamlNode(n *node) *yaml.Node {
	switch n.kind {
	case kNull:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	case kBool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(n.b)}
	case kNumber:
		tag := "!!float"
		if n.num == math.Trunc(n.num) && !strings.ContainsAny(n.str, ".eE") {
			tag = "!!int"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: n.str}
	case kString:
		y := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: n.str}
		if r, _ := utf8.DecodeRuneInString(n.str); strings.ContainsRune(n.str, '\n') && (unicode.IsSpace(r) || !unicode.IsPrint(r)) {
			y.Style = yaml.DoubleQuotedStyle
		}
		return y
	case kArray:
		y := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, e := range n.elems {
			y.Content = append(y.Content, yamlNode(e))
		}
		return y
	}
	y := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i, k := range n.keys {
		y.Content = append(y.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k}, yamlNode(n.vals[i]))
	}
	return y
}

// marshalJSON writes v as indented JSON, or compact JSON if indented it
// would be larger than MaxFileSize: indentation grows with each line's
// depth (a port's schema 150 levels deep takes 50 times its compact
// size), and an export must read back as a file.
func marshalJSON(v interface{}) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("marshal: %w", err)
	}
	if b.Len() > MaxFileSize {
		b.Reset()
		enc = json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return nil, fmt.Errorf("marshal: %w", err)
		}
	}
	return b.Bytes(), nil
}
