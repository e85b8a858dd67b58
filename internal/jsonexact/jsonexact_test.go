package jsonexact_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"runtime"
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

// Names are printed with strconv.QuoteToASCII: a name that only looks
// like a field's name in another case (a Kelvin sign for a K) is told from
// it.
func TestNameError_ASCII(t *testing.T) {
	var key struct {
		Key int `json:"key"`
	}
	for data, want := range map[string]string{
		`{"\u212aey":1}`:                            `unknown field "\u212aey" (field names are case-sensitive; did you mean "key"?)`,
		"{\"\u212aey\":1}":                          `unknown field "\u212aey" (field names are case-sensitive; did you mean "key"?)`,
		`{"Key":1,"k\u00e9y":2}`:                    `unknown field "Key" (field names are case-sensitive; did you mean "key"?)`,
		`{"k\u00e9y":2}`:                            `unknown field "k\u00e9y"`,
		`{"outputs":{"\u212aey":{"a":1,"a":2}}}`:    `outputs["\u212aey"]: duplicate key "a"`,
		`{"outputs":{"x":{"\u00e9":1,"\u00e9":2}}}`: `outputs["x"]: duplicate key "\u00e9"`,
	} {
		var v any = &key
		if strings.Contains(data, "outputs") {
			v = &params{}
		}
		if err := jsonexact.Unmarshal([]byte(data), v); err == nil || err.Error() != want {
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

// nested returns depth arrays (or, with member, objects whose only member
// is member) around inner.
func nested(depth int, member, inner string) []byte {
	open, end := "[", "]"
	if member != "" {
		open, end = `{"`+member+`":`, "}"
	}
	return []byte(strings.Repeat(open, depth) + inner + strings.Repeat(end, depth))
}

// costOf returns the allocations and the bytes allocated per call of f,
// averaged over runs.
func costOf(f func()) (allocs float64, bytes uint64) {
	const runs = 5
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	allocs = testing.AllocsPerRun(runs, f) // and one warm-up call
	runtime.ReadMemStats(&after)
	return allocs, (after.TotalAlloc - before.TotalAlloc) / (runs + 1)
}

type linked struct {
	Next *linked `json:"next"`
	Tail any     `json:"tail"`
}

// A refused name deep in a value costs as much as the value's size: its
// path is built once (a quadratic one made a 20 KB value cost 158 MB), it
// is whole in Path and shortened in the message. Values that their type
// cannot hold are not looked into at all.
func TestUnmarshal_DeepNesting(t *testing.T) {
	const depth = 9998 // encoding/json's limit is 10,000 levels, the top-level struct and the innermost object included
	dup := `{"a":1,"a":2}`
	for _, tc := range []struct {
		name string
		data []byte
		v    func() any
		path string
	}{
		{name: "arrays in any", data: nested(depth, "", dup), v: func() any { return new(any) }, path: strings.Repeat("[0]", depth)},
		{name: "objects in a map", data: nested(depth, "k", dup), v: func() any { return new(map[string]any) }, path: strings.Repeat(`["k"]`, depth)},
		{name: "struct fields", data: nested(depth, "next", `{"tail":`+dup+`}`), v: func() any { return new(linked) }, path: strings.Repeat("next.", depth) + "tail"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			allocs, bytes := costOf(func() { err = jsonexact.Unmarshal(tc.data, tc.v()) })
			var ne *jsonexact.NameError
			if !errors.As(err, &ne) || !errors.Is(err, jsonexact.ErrDuplicateKey) || ne.Name != "a" {
				t.Fatalf("Unmarshal = %.300v, want a duplicate key \"a\"", err)
			}
			if ne.Path != tc.path {
				t.Errorf("Path = %.100q... (%d bytes), want %.100q... (%d bytes)", ne.Path, len(ne.Path), tc.path, len(tc.path))
			}
			if msg := err.Error(); len(msg) > 600 || !strings.Contains(msg, "...") || !strings.HasSuffix(msg, `: duplicate key "a"`) {
				t.Errorf("message of %d bytes: %.700s", len(msg), msg)
			}
			t.Logf("%d levels: %v allocations, %d bytes a call", depth, allocs, bytes)
			// Linear: fewer allocations than levels, bytes a small multiple of
			// them (json.Valid, encoding/json's scanner, allocates 16 bytes a
			// level).
			if allocs > depth/100 || bytes > 128*depth {
				t.Errorf("Unmarshal of %d levels: %v allocations, %d bytes a call; want at most %d and %d", depth, allocs, bytes, depth/100, 128*depth)
			}
		})
	}
	// A string field given nested arrays: a value of the wrong type, that
	// encoding/json refuses, without looking for names in it.
	for _, data := range [][]byte{
		[]byte(`{"team":` + string(nested(depth, "", dup)) + `}`),
		[]byte(`{"team":` + dup + `}`),
		[]byte(`{"findings":[[` + dup + `]]}`),
		[]byte(`{"findings":` + dup + `}`),
		[]byte(`{"step":[` + dup + `]}`),
		[]byte(`{"steps":{"a":[[` + dup + `]]}}`),
	} {
		var err error
		allocs, _ := costOf(func() { err = jsonexact.Unmarshal(data, &params{}) })
		if ue := (*json.UnmarshalTypeError)(nil); !errors.As(err, &ue) {
			t.Errorf("Unmarshal(%.60s...) = %v, want a *json.UnmarshalTypeError", data, err)
		}
		if allocs > depth/100 {
			t.Errorf("Unmarshal(%.60s...): %v allocations a call, want at most %d", data, allocs, depth/100)
		}
	}
}

// A long name is printed shortened.
func TestNameError_LongName(t *testing.T) {
	name := strings.Repeat("é", 5000) + "x"
	err := jsonexact.Unmarshal([]byte(`{"`+name+`":1}`), &params{})
	var ne *jsonexact.NameError
	if !errors.As(err, &ne) || ne.Name != name {
		t.Fatalf("Unmarshal = %.100v, want a NameError with the whole name", err)
	}
	msg := err.Error()
	if len(msg) > 1000 || !strings.HasPrefix(msg, `unknown field "\u00e9\u00e9`) || !strings.HasSuffix(msg, `\u00e9x"`) || !strings.Contains(msg, `"..."`) {
		t.Errorf("message of %d bytes: %.1100s", len(msg), msg)
	}
}

func BenchmarkUnmarshal_Deep(b *testing.B) {
	data := nested(9999, "", `{"a":1,"a":2}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := jsonexact.Unmarshal(data, new(any)); !errors.Is(err, jsonexact.ErrDuplicateKey) {
			b.Fatal(err)
		}
	}
}

type untaggedX struct{ X map[string]any }

type taggedX struct {
	X struct {
		Y int `json:"y"`
	} `json:"X"`
}

type untaggedX2 struct{ X int }

type taggedZ struct {
	Z int `json:"z"`
}

type taggedZ2 struct {
	Z string `json:"z"`
}

type withQ struct{ Q int }

type embedsQ1 struct{ withQ }

type embedsQ2 struct{ withQ }

// Of two fields of one name, the one encoding/json decodes has it: the
// shallower one, else the tagged one; a name that both or neither of two
// fields at one depth are tagged with is no field's, as for encoding/json.
// What Unmarshal accepts is decoded as encoding/json decodes it.
func TestUnmarshal_FieldPrecedence(t *testing.T) {
	type tagWins struct {
		untaggedX
		taggedX
	}
	type bothUntagged struct {
		untaggedX
		untaggedX2
		Lower int `json:"x"`
	}
	type bothTagged struct {
		taggedZ
		*taggedZ2     // a pointer, which go vet's structtag does not follow: the tag repeated is the case
		Lower     int `json:"Z"`
	}
	type embeddedTwice struct {
		embedsQ1
		embedsQ2
		Lower int `json:"q"`
	}
	for _, tc := range []struct {
		name, data string
		v          func() any
		key, want  string // the unknown name, and its Want; "": accepted
	}{
		{name: "the tagged field wins", data: `{"X":{"y":1}}`, v: func() any { return new(tagWins) }},
		{name: "the tagged field's names", data: `{"X":{"Y":1}}`, v: func() any { return new(tagWins) }, key: "Y", want: "y"},
		{name: "neither tagged", data: `{"X":1}`, v: func() any { return new(bothUntagged) }, key: "X", want: "x"},
		{name: "neither tagged, the other field", data: `{"x":1}`, v: func() any { return new(bothUntagged) }},
		{name: "both tagged", data: `{"z":1}`, v: func() any { return new(bothTagged) }, key: "z", want: "Z"},
		{name: "a struct embedded twice", data: `{"Q":1}`, v: func() any { return new(embeddedTwice) }, key: "Q", want: "q"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.v()
			err := jsonexact.Unmarshal([]byte(tc.data), got)
			if tc.key == "" {
				want := tc.v()
				if err != nil || strictDecode(tc.data, want) != nil || !reflect.DeepEqual(got, want) {
					t.Fatalf("Unmarshal(%s) = %v, %+v; encoding/json: %+v", tc.data, err, got, want)
				}
				return
			}
			var ne *jsonexact.NameError
			if !errors.As(err, &ne) || !errors.Is(err, jsonexact.ErrUnknownField) || ne.Name != tc.key || ne.Want != tc.want {
				t.Fatalf("Unmarshal(%s) = %#v, want unknown field %q (did you mean %q?)", tc.data, err, tc.key, tc.want)
			}
		})
	}
}

// What the package's Caveats say Unmarshal does not see, it does not.
func TestUnmarshal_Caveats(t *testing.T) {
	t.Run("map keys that decode to one key", func(t *testing.T) {
		var m map[int]string
		if err := jsonexact.Unmarshal([]byte(`{"1":"a","01":"b"}`), &m); err != nil || len(m) != 1 || m[1] != "b" {
			t.Errorf("Unmarshal = %v, %v; want map[1:b]", err, m)
		}
	})
	t.Run("an interface holding a pointer", func(t *testing.T) {
		p := params{Extra: &inner{}}
		if err := jsonexact.Unmarshal([]byte(`{"extra":{"PORT":"p"}}`), &p); err != nil || p.Extra.(*inner).Port != "p" {
			t.Errorf("Unmarshal = %v, %+v; want the name in another case decoded into the pointer", err, p.Extra)
		}
		p = params{Extra: &inner{}}
		if err := jsonexact.Unmarshal([]byte(`{"extra":{"port":"p","port":"q"}}`), &p); !errors.Is(err, jsonexact.ErrDuplicateKey) {
			t.Errorf("Unmarshal = %v; want a duplicate key", err)
		}
	})
}
