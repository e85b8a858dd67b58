// Package jsonexact decodes JSON into Go values as encoding/json does, but
// reads member names exactly: encoding/json matches "Team" and "TEAM" to
// the field tagged "team", and takes the last of two members that name one
// field, so that a misspelt name is silently accepted and {"team": "a",
// "Team": "b"} is read as "b". Unmarshal refuses both, naming the member
// and where it is, before anything is decoded.
//
// It is how Cortex reads JSON that others send it: the params of the
// server's JSON-RPC methods, cortexctl's team files and the output of its
// --exec commands.
package jsonexact

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Unmarshal decodes data, one JSON value, into v (a non-nil pointer), as a
// json.Decoder with DisallowUnknownFields decodes it, after checking every
// member name of data:
//
//   - a member of an object decoded into a struct must be named as one of
//     the struct's fields is named for encoding/json (its tag's name, else
//     the Go field's, fields of embedded structs included), in the same
//     case; else the error is a *NameError matching ErrUnknownField, whose
//     Want names the field a name in another case stands for;
//   - no object, at any depth (map values and values decoded into any or
//     json.RawMessage included), names a member twice: a *NameError
//     matching ErrDuplicateKey.
//
// Objects decoded into maps, interfaces or types that decode themselves
// (json.Unmarshaler, encoding.TextUnmarshaler, such as time.Time) may name
// any member. Data that is not one JSON value gets encoding/json's
// *json.SyntaxError. v is not modified when a name is refused; other errors
// (a value of the wrong type) are encoding/json's, as it leaves v.
//
// Unmarshal is safe for concurrent use.
func Unmarshal(data []byte, v any) error {
	if !json.Valid(data) {
		var x any
		if err := json.Unmarshal(data, &x); err != nil {
			return err // the syntax error, as encoding/json words it
		}
		return errors.New("not a json value")
	}
	w := walker{data: data}
	if err := w.value(reflect.TypeOf(v)); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// walker scans a value beside the type it is decoded into and checks its
// member names, without allocating while they are fine. The value is
// valid JSON (json.Valid): the scan need not check its syntax, and its
// nesting, and so the walker's recursion, is bounded.
type walker struct {
	data []byte
	i    int // the next byte to read
}

func (w *walker) skipSpace() {
	for w.i < len(w.data) {
		switch w.data[w.i] {
		case ' ', '\t', '\r', '\n':
			w.i++
		default:
			return
		}
	}
}

// next skips white space and returns the byte after it, read.
func (w *walker) next() byte {
	w.skipSpace()
	c := w.data[w.i]
	w.i++
	return c
}

// value reads the next value, decoded into t (nil: anything).
func (w *walker) value(t reflect.Type) error {
	switch w.next() {
	case '{':
		return w.object(shape(t))
	case '[':
		return w.array(shape(t))
	case '"':
		w.str()
	default: // the rest of a number, true, false or null
		for w.i < len(w.data) {
			switch w.data[w.i] {
			case ',', ']', '}', ' ', '\t', '\r', '\n':
				return nil
			}
			w.i++
		}
	}
	return nil
}

// str reads the rest of a string whose opening quote has been read and
// returns its contents as written, and whether they must be unquoted to
// be read as encoding/json reads them (escapes, or bytes that are not
// UTF-8, which it reads as U+FFFD).
func (w *walker) str() (raw []byte, unquote bool) {
	start := w.i
	for {
		switch w.data[w.i] {
		case '"':
			raw = w.data[start:w.i]
			w.i++
			return raw, unquote || !utf8.Valid(raw)
		case '\\':
			unquote = true
			w.i += 2
		default:
			w.i++
		}
	}
}

// array reads the elements of an array whose [ has been read, decoded
// into t (nil: anything).
func (w *walker) array(t reflect.Type) error {
	var elem reflect.Type
	if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		elem = t.Elem()
	}
	if w.skipSpace(); w.data[w.i] == ']' {
		w.i++
		return nil
	}
	for i := 0; ; i++ {
		if err := w.value(elem); err != nil {
			return within(err, "["+strconv.Itoa(i)+"]")
		}
		if w.next() == ']' {
			return nil
		}
	}
}

// object reads the members of an object whose { has been read, decoded
// into t (nil: anything).
func (w *walker) object(t reflect.Type) error {
	var fields *fieldSet
	var elem reflect.Type
	if t != nil {
		switch t.Kind() {
		case reflect.Struct:
			fields = fieldsOf(t)
		case reflect.Map:
			elem = t.Elem()
		}
	}
	if w.skipSpace(); w.data[w.i] == '}' {
		w.i++
		return nil
	}
	var seen names
	for {
		w.next() // "
		name, unquote := w.str()
		if unquote {
			var s string
			if err := json.Unmarshal(w.data[w.i-len(name)-2:w.i], &s); err != nil { // the quoted name
				return err
			}
			name = []byte(s)
		}
		if fields != nil {
			ft, ok := fields.byName[string(name)]
			if !ok {
				return &NameError{Name: string(name), Want: fields.fold(string(name)), Err: ErrUnknownField}
			}
			elem = ft
		}
		if !seen.add(name) {
			return &NameError{Name: string(name), Err: ErrDuplicateKey}
		}
		w.next() // :
		if err := w.value(elem); err != nil {
			if fields != nil {
				return within(err, string(name))
			}
			return within(err, "["+strconv.Quote(string(name))+"]")
		}
		if w.next() == '}' {
			return nil
		}
	}
}

// within returns err, of a value at step (a field's name, "[index]" or
// `["key"]`) of its container, with its path from the container: the path
// of a NameError is built as it goes up, so that it costs nothing while
// the names are fine.
func within(err error, step string) error {
	var ne *NameError
	if !errors.As(err, &ne) {
		return err
	}
	switch {
	case ne.Path == "":
		ne.Path = step
	case ne.Path[0] == '[':
		ne.Path = step + ne.Path
	default:
		ne.Path = step + "." + ne.Path
	}
	return ne
}

// names is a set of the member names of one object: an array while it is
// small (no allocation), a map beyond (an object of many members stays
// linear).
type names struct {
	few  [16][]byte
	n    int // in few
	many map[string]struct{}
}

// add adds name and reports whether it was not in the set yet.
func (n *names) add(name []byte) bool {
	if n.many == nil {
		for _, s := range n.few[:n.n] {
			if bytes.Equal(s, name) {
				return false
			}
		}
		if n.n < len(n.few) {
			n.few[n.n] = name
			n.n++
			return true
		}
		n.many = make(map[string]struct{}, 2*len(n.few))
		for _, s := range n.few {
			n.many[string(s)] = struct{}{}
		}
	}
	if _, ok := n.many[string(name)]; ok {
		return false
	}
	n.many[string(name)] = struct{}{}
	return true
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// shape returns the type whose members and elements a value decoded into t
// is checked against: t without its pointers; nil (anything) for an
// interface or a type that decodes itself.
func shape(t reflect.Type) reflect.Type {
	for t != nil {
		if decodesItself(t) || decodesItself(reflect.PointerTo(t)) {
			return nil
		}
		switch t.Kind() {
		case reflect.Pointer:
			t = t.Elem()
		case reflect.Interface:
			return nil
		default:
			return t
		}
	}
	return nil
}

func decodesItself(t reflect.Type) bool {
	return t.Implements(jsonUnmarshaler) || t.Implements(textUnmarshaler)
}

// fieldSet is the fields of a struct type by their JSON names.
type fieldSet struct {
	byName map[string]reflect.Type
	names  []string // in the struct's order, for fold
}

// fold returns the field whose name is name in another case, or "".
func (f *fieldSet) fold(name string) string {
	for _, n := range f.names {
		if strings.EqualFold(n, name) {
			return n
		}
	}
	return ""
}

var fieldSets sync.Map // reflect.Type -> *fieldSet

// fieldsOf returns the fields of the struct type t as encoding/json names
// them: exported fields by their tag's name, else their Go name, those
// tagged "-" left out, and the fields of embedded structs without a tag
// name promoted (a shallower field wins a name). Where encoding/json finds
// two fields of one name at one depth ambiguous and drops both, both are
// here: the decoder still refuses such a member, as an unknown field.
func fieldsOf(t reflect.Type) *fieldSet {
	if f, ok := fieldSets.Load(t); ok {
		return f.(*fieldSet)
	}
	f := &fieldSet{byName: map[string]reflect.Type{}}
	visited := map[reflect.Type]bool{}
	for next := []reflect.Type{t}; len(next) > 0; {
		level := next
		next = nil
		for _, st := range level {
			if visited[st] {
				continue
			}
			visited[st] = true
			for i := range st.NumField() {
				sf := st.Field(i)
				ft := sf.Type
				if sf.Anonymous {
					if ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, _, _ := strings.Cut(tag, ",")
				if !validTag(name) {
					name = ""
				}
				if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
					next = append(next, ft)
					continue
				}
				if name == "" {
					name = sf.Name
				}
				if _, ok := f.byName[name]; !ok {
					f.byName[name] = sf.Type
					f.names = append(f.names, name)
				}
			}
		}
	}
	actual, _ := fieldSets.LoadOrStore(t, f)
	return actual.(*fieldSet)
}

// validTag reports whether s is a name encoding/json takes from a tag (its
// isValidTag): other names fall back to the Go field's.
func validTag(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
			// Backslash and quote chars are reserved, but otherwise any
			// punctuation chars are allowed in a tag name.
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
