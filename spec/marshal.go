package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

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
		var b bytes.Buffer
		b.WriteString("---\n")
		enc := yaml.NewEncoder(&b)
		enc.SetIndent(2)
		if err := enc.Encode(&fm); err != nil {
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

// MarshalTeam writes t as JSON (FormatJSON, the only format of teams).
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

func marshalJSON(v interface{}) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("marshal: %w", err)
	}
	return b.Bytes(), nil
}
