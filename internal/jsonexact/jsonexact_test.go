package jsonexact_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/internal/jsonexact"
)

type finding struct {
	Subject    string     `json:"subject"`
	Confidence float64    `json:"confidence"`
	AssertedAt *time.Time `json:"assertedAt"`
}

type ref struct {
	Team string `json:"team"`
	Task string `json:"task"`
}

type inner struct {
	Port string `json:"port,omitempty"`
}

// selfDecoding is a struct that decodes itself: its members are its own
// business.
type selfDecoding struct{ members int }

func (s *selfDecoding) UnmarshalJSON(data []byte) error {
	var m map[string]any
	err := json.Unmarshal(data, &m)
	s.members = len(m)
	return err
}

// params has the shapes the server's params have: plain fields, an
// embedded struct without a tag (promoted), slices of structs, a pointer
// to a struct, maps, free values, and a field without a tag.
type params struct {
	ref
	Agent    string                     `json:"agent"`
	Findings []finding                  `json:"findings"`
	Step     *inner                     `json:"step"`
	Steps    map[string]inner           `json:"steps"`
	Outputs  map[string]any             `json:"outputs"`
	Defs     map[string]json.RawMessage `json:"agent_defs"`
	Extra    any                        `json:"extra"`
	Self     *selfDecoding              `json:"self"`
	Skipped  string                     `json:"-"`
	Untagged int
	//lint:ignore U1000 an unexported field is no member: TestUnmarshal checks that "hidden" is refused
	hidden int
}

func TestUnmarshal(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		path, key  string // the NameError wanted; key "": none
		want       string // its Want
		err        error  // its Err
	}{
		{name: "exact case", data: `{"team":"t1","task":"k","agent":"a","Untagged":3}`},
		{name: "nested exact", data: `{"findings":[{"subject":"s","assertedAt":"2024-01-02T03:04:05Z"}],"step":{"port":"p"},"steps":{"Any Key":{"port":"q"}}}`},
		{name: "free members", data: `{"outputs":{"Team":1,"team":2,"x":{"Y":[{"Z":null}]}},"agent_defs":{"A":{"B":1}},"extra":{"Team":true}}`},
		{name: "a type that decodes itself", data: `{"self":{"Any":1,"any":2}}`},
		{name: "null and empty", data: `{"step":null,"findings":null,"outputs":{}}`},

		{name: "wrong case", data: `{"Team":"t1"}`, key: "Team", want: "team", err: jsonexact.ErrUnknownField},
		{name: "all capitals", data: `{"team":"t1","AGENT":"a"}`, key: "AGENT", want: "agent", err: jsonexact.ErrUnknownField},
		{name: "promoted field in another case", data: `{"Task":"k"}`, key: "Task", want: "task", err: jsonexact.ErrUnknownField},
		{name: "untagged field in another case", data: `{"untagged":1}`, key: "untagged", want: "Untagged", err: jsonexact.ErrUnknownField},
		{name: "unicode folding", data: `{"teaM":"t","agenſ":"a"}`, key: "teaM", want: "team", err: jsonexact.ErrUnknownField},
		{name: "escaped name in another case", data: `{"\u0054eam":"t1"}`, key: "Team", want: "team", err: jsonexact.ErrUnknownField},
		{name: "unknown", data: `{"tema":"t1"}`, key: "tema", err: jsonexact.ErrUnknownField},
		{name: "tagged -", data: `{"-":"x"}`, key: "-", err: jsonexact.ErrUnknownField},
		{name: "go name of a tagged field", data: `{"Agent":"a"}`, key: "Agent", want: "agent", err: jsonexact.ErrUnknownField},
		{name: "unexported field", data: `{"hidden":1}`, key: "hidden", err: jsonexact.ErrUnknownField},

		{name: "duplicate", data: `{"team":"a","agent":"x","team":"b"}`, key: "team", err: jsonexact.ErrDuplicateKey},
		{name: "duplicate escaped", data: `{"team":"a","t\u0065am":"b"}`, key: "team", err: jsonexact.ErrDuplicateKey},
		{name: "both cases", data: `{"team":"a","Team":"b"}`, key: "Team", want: "team", err: jsonexact.ErrUnknownField},

		{name: "nested wrong case", data: `{"findings":[{"subject":"s"},{"Subject":"s"}]}`, path: "findings[1]", key: "Subject", want: "subject", err: jsonexact.ErrUnknownField},
		{name: "nested in a pointer", data: `{"step":{"Port":"p"}}`, path: "step", key: "Port", want: "port", err: jsonexact.ErrUnknownField},
		{name: "nested in a map value", data: `{"steps":{"a b":{"PORT":"p"}}}`, path: `steps["a b"]`, key: "PORT", want: "port", err: jsonexact.ErrUnknownField},
		{name: "nested duplicate", data: `{"findings":[{"subject":"s","confidence":1,"subject":"t"}]}`, path: "findings[0]", key: "subject", err: jsonexact.ErrDuplicateKey},
		{name: "duplicate map key", data: `{"outputs":{"a":1,"a":2}}`, path: "outputs", key: "a", err: jsonexact.ErrDuplicateKey},
		{name: "duplicate in a free value", data: `{"extra":[{"k":1,"k":1}]}`, path: "extra[0]", key: "k", err: jsonexact.ErrDuplicateKey},
		{name: "duplicate in a type that decodes itself", data: `{"self":{"a":1,"a":2}}`, path: "self", key: "a", err: jsonexact.ErrDuplicateKey},
		{name: "duplicate in raw json", data: `{"agent_defs":{"a":{"x":{"y":1,"y":2}}}}`, path: `agent_defs["a"]["x"]`, key: "y", err: jsonexact.ErrDuplicateKey},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := params{Agent: "untouched"}
			err := jsonexact.Unmarshal([]byte(tc.data), &p)
			if tc.key == "" {
				if err != nil {
					t.Fatalf("Unmarshal(%s) = %v", tc.data, err)
				}
				// What is accepted is decoded as encoding/json decodes it.
				want := params{Agent: "untouched"}
				if err := strictDecode(tc.data, &want); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(p, want) {
					t.Errorf("Unmarshal(%s) = %+v, encoding/json %+v", tc.data, p, want)
				}
				return
			}
			var ne *jsonexact.NameError
			if !errors.As(err, &ne) || !errors.Is(err, tc.err) || ne.Path != tc.path || ne.Name != tc.key || ne.Want != tc.want {
				t.Fatalf("Unmarshal(%s) = %#v, want path %q name %q want %q (%v)", tc.data, err, tc.path, tc.key, tc.want, tc.err)
			}
			if p.Agent != "untouched" || p.Team != "" {
				t.Errorf("a refused name changed v: %+v", p)
			}
		})
	}
}

func TestNameError_Message(t *testing.T) {
	for data, want := range map[string]string{
		`{"Team":"a"}`:                    `unknown field "Team" (field names are case-sensitive; did you mean "team"?)`,
		`{"tema":"a"}`:                    `unknown field "tema"`,
		`{"team":"a","team":"b"}`:         `duplicate key "team"`,
		`{"findings":[{"Subject":"s"}]}`:  `findings[0]: unknown field "Subject" (field names are case-sensitive; did you mean "subject"?)`,
		`{"outputs":{"a\"b":1,"a\"b":2}}`: `outputs: duplicate key "a\"b"`,
	} {
		err := jsonexact.Unmarshal([]byte(data), &params{})
		if err == nil || err.Error() != want {
			t.Errorf("Unmarshal(%s) = %v, want %s", data, err, want)
		}
	}
}

// Data that is not one JSON value, and values of the wrong type, get
// encoding/json's errors.
func TestUnmarshal_EncodingJSONErrors(t *testing.T) {
	for _, data := range []string{``, `{`, `{"team":"a"}x`, `{"team":"a"} {}`, `[1,]`, `{"team" 1}`} {
		var se *json.SyntaxError
		if err := jsonexact.Unmarshal([]byte(data), &params{}); !errors.As(err, &se) {
			t.Errorf("Unmarshal(%q) = %v, want a *json.SyntaxError", data, err)
		}
	}
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	if err := jsonexact.Unmarshal([]byte(deep), new(any)); err == nil || !strings.Contains(err.Error(), "exceeded max depth") {
		t.Errorf("Unmarshal of 20000 nested arrays = %v, want encoding/json's depth error", err)
	}
	for _, data := range []string{`{"team":1}`, `{"findings":{"subject":"s"}}`, `{"step":[{"Port":1}]}`, `[]`, `"team"`} {
		var ue *json.UnmarshalTypeError
		if err := jsonexact.Unmarshal([]byte(data), &params{}); !errors.As(err, &ue) {
			t.Errorf("Unmarshal(%s) = %v, want a *json.UnmarshalTypeError", data, err)
		}
	}
}

// The names of a struct are those encoding/json gives its fields: a
// shallower field wins a name, an embedded struct with a tag name is one
// field, a pointer to an embedded struct is followed.
func TestUnmarshal_EmbeddedStructs(t *testing.T) {
	type Deep struct {
		Name string `json:"name"`
		Deep string `json:"deep"`
	}
	type Mid struct {
		*Deep
		Name int `json:"name"`
	}
	var v struct {
		Mid
		Tagged ref `json:"tagged"`
	}
	if err := jsonexact.Unmarshal([]byte(`{"name":3,"deep":"d","tagged":{"team":"t"}}`), &v); err != nil || v.Name != 3 || v.Deep.Deep != "d" || v.Tagged.Team != "t" {
		t.Fatalf("Unmarshal = %v: %+v", err, v)
	}
	for data, want := range map[string]string{
		`{"Deep":"d"}`:            `unknown field "Deep" (field names are case-sensitive; did you mean "deep"?)`,
		`{"team":"t"}`:            `unknown field "team"`,
		`{"tagged":{"Team":"t"}}`: `tagged: unknown field "Team" (field names are case-sensitive; did you mean "team"?)`,
	} {
		if err := jsonexact.Unmarshal([]byte(data), &v); err == nil || err.Error() != want {
			t.Errorf("Unmarshal(%s) = %v, want %s", data, err, want)
		}
	}
}

// An object of many members is checked for duplicates beyond the first
// few.
func TestUnmarshal_ManyMembers(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{`)
	for i := range 100 {
		b.WriteString(`"k` + strings.Repeat("x", i) + `":1,`)
	}
	b.WriteString(`"k` + strings.Repeat("x", 50) + `":2}`)
	err := jsonexact.Unmarshal(b.Bytes(), &map[string]int{})
	if !errors.Is(err, jsonexact.ErrDuplicateKey) {
		t.Fatalf("Unmarshal of 101 members, one a duplicate = %v", err)
	}
	var m map[string]int
	if err := jsonexact.Unmarshal(bytes.Replace(b.Bytes(), []byte(`":2}`), []byte(`y":2}`), 1), &m); err != nil || len(m) != 101 {
		t.Fatalf("Unmarshal of 101 members = %v, %d", err, len(m))
	}
}

// FuzzUnmarshal: Unmarshal never panics; what it accepts encoding/json
// (DisallowUnknownFields) accepts and decodes to the same value; and into
// any, it refuses a name of valid JSON exactly when an object in it names
// a member twice (as encoding/json's tokens read the names).
func FuzzUnmarshal(f *testing.F) {
	for _, s := range []string{
		`{"team":"t1","agent":"a"}`, `{"Team":"t1"}`, `{"team":"a","team":"b"}`, `{"findings":[{"subject":"s","confidence":0.5}]}`,
		`{"outputs":{"a":[1,{"b":null}]}}`, `{"step":{"port":"p"}}`, `{"agent_defs":{"x":{"y":1}}}`, `[]`, `{`, `null`,
		`{"a\"b":"\\","a\u0022b":1}`, ` [ { "x" : [ ] , "y" : { } } , -1.5e3 , true ] `, "{\"\xff\":1,\"\xfe\":2}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var free any
		err := jsonexact.Unmarshal(data, &free)
		if json.Valid(data) {
			var ne *jsonexact.NameError
			if dup := duplicateKey(t, data); errors.Is(err, jsonexact.ErrDuplicateKey) != dup || !dup && errors.As(err, &ne) {
				t.Fatalf("Unmarshal(%q) into any = %v; a duplicate key: %v", data, err, dup)
			}
		}
		var got params
		if err := jsonexact.Unmarshal(data, &got); err != nil {
			return
		}
		var want params
		if err := strictDecode(string(data), &want); err != nil {
			t.Fatalf("Unmarshal accepted %q, encoding/json refuses it: %v", data, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Unmarshal(%q) = %+v, encoding/json %+v", data, got, want)
		}
	})
}

// duplicateKey reports whether an object of data, valid JSON, names a
// member twice, reading it with encoding/json's tokens.
func duplicateKey(t *testing.T, data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // 1e700 is valid JSON, not a float64
	// The names seen, per open object; nil for an array.
	var objects []map[string]bool
	key := false // the next token in an object is a name
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return false
		}
		if err != nil {
			t.Fatalf("Token of valid JSON %q: %v", data, err)
		}
		if s, ok := tok.(string); ok && key {
			if objects[len(objects)-1][s] {
				return true
			}
			objects[len(objects)-1][s] = true
			key = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			objects = append(objects, map[string]bool{})
		case json.Delim('['):
			objects = append(objects, nil)
		case json.Delim('}'), json.Delim(']'):
			objects = objects[:len(objects)-1]
		}
		key = len(objects) > 0 && objects[len(objects)-1] != nil && dec.More() && tok != json.Delim('[')
	}
}

func strictDecode(data string, v any) error {
	dec := json.NewDecoder(strings.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
