// Package jsonexact decodes JSON into Go values as encoding/json does, but
// reads member names exactly: encoding/json matches "Team" and "TEAM" to
// the field tagged "team", and takes the last of two members that name one
// field, so that a misspelt name is silently accepted and {"team": "a",
// "Team": "b"} is read as "b". Unmarshal refuses both, naming the member
// and where it is, before anything is decoded.
//
// It is how Cortex reads JSON that others send it: the params of the
// server's JSON-RPC methods (findings.import's JSON data included),
// cortexctl's team files, JSON findings files and the output of its
// --exec commands.
//
// # Caveats
//
// The names are checked against the types v declares, and compared as
// written (after their escapes are read). So Unmarshal does not see:
//
//   - map keys that differ only as written but decode to one key: into a
//     map[int]T, {"1": a, "01": b} is two keys here, and encoding/json
//     decodes both into key 1, keeping b (the same for keys of a type that
//     decodes itself, encoding.TextUnmarshaler);
//   - the names of a value decoded through an interface that already
//     holds a non-nil pointer (a field of type any set to &T{} before
//     Unmarshal): encoding/json decodes into the T, matching its fields'
//     names in any case, while Unmarshal reads the interface's type, any,
//     and checks that value's objects for keys given twice only;
//   - the members of a value of the wrong type (an object for a string
//     field): Unmarshal does not look into it, and encoding/json refuses
//     it (*json.UnmarshalTypeError), whatever its members.
//
// Unmarshal's cost is linear in the size of data, whatever its nesting;
// a NameError's message is about a kilobyte long at most, its Path and
// Name shortened.
package jsonexact

import (
	"bytes"
	"cmp"
	"encoding"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
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
//     the Go field's, fields of embedded structs included, where a name
//     two fields have is the shallower one's, else the tagged one's, else
//     neither's, as encoding/json has it), in the same case; else the
//     error is a *NameError matching ErrUnknownField, whose Want names
//     the field a name in another case stands for;
//   - no object decoded into a struct, a map, an interface or a type that
//     decodes itself, at any depth (map values and values decoded into any
//     or json.RawMessage included), names a member twice: a *NameError
//     matching ErrDuplicateKey.
//
// Objects decoded into maps, interfaces or types that decode themselves
// (json.Unmarshaler, encoding.TextUnmarshaler, such as time.Time) may name
// any member. An object or array that the type it is decoded into cannot
// hold (an object for a string or a slice, an array for a struct) is not
// looked into: encoding/json refuses it. Data that is not one JSON value
// gets encoding/json's *json.SyntaxError. v is not modified when a name is
// refused; other errors (a value of the wrong type) are encoding/json's,
// as it leaves v. See the package's Caveats for what is not checked.
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
		var ne *NameError
		if errors.As(err, &ne) {
			ne.Path = joinPath(w.path)
		}
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// walker scans a value beside the type it is decoded into and checks its
// member names, without allocating while they are fine. The value is
// valid JSON (json.Valid): the scan need not check its syntax, and its
// nesting, and so the walker's recursion, is bounded (encoding/json's
// 10,000 levels).
type walker struct {
	data []byte
	i    int // the next byte to read
	// path is, once a name is refused, the steps from the object that
	// names it up to the top, innermost first: each container adds its
	// step as the error goes up, and Unmarshal joins them once, so that
	// the path costs as much as its length, whatever the depth.
	path  []step
	depth int // the objects and arrays open
	// at and selfDecoding make the walker look for a value (TypePath),
	// and fail with errFound once it has read it, its path in path: the
	// innermost value that holds the byte offset at, if at > 0; else, if
	// selfDecoding, the first value of a type that decodes itself that
	// does not decode alone.
	at           int
	selfDecoding bool
}

// step is where a value is in its container.
type step struct {
	kind  stepKind
	name  []byte // of a field or a map entry
	index int    // of an element
}

type stepKind uint8

const (
	stepField   stepKind = iota // a struct field: .name
	stepKey                     // a map entry, or a member of a free object: ["name"]
	stepElement                 // an array element: [index]
)

// up adds the step of a value whose name is refused to w.path, from its
// container, at the depth of that container.
func (w *walker) up(s step) {
	if w.path == nil {
		w.path = make([]step, 0, w.depth) // a step per open container
	}
	w.path = append(w.path, s)
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

// value reads the next value, decoded into t (nil: anything). An object
// or array that t cannot hold (an object for a string, an array for a
// struct) is skipped, not walked: encoding/json refuses it as a value of
// the wrong type, whatever its members.
func (w *walker) value(t reflect.Type) error {
	w.skipSpace()
	start := w.i
	if err := w.read(t); err != nil {
		return err
	}
	if (w.at > 0 || w.selfDecoding) && w.found(t, start) {
		return errFound
	}
	return nil
}

// read reads the value of value.
func (w *walker) read(t reflect.Type) error {
	switch w.next() {
	case '{':
		if t := shape(t); t == nil || t.Kind() == reflect.Struct || t.Kind() == reflect.Map {
			return w.object(t)
		}
		w.skip()
	case '[':
		if t := shape(t); t == nil || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			return w.array(t)
		}
		w.skip()
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

// skip reads the rest of an object or array whose { or [ has been read,
// without recursion.
func (w *walker) skip() {
	for depth := 1; depth > 0; {
		switch w.data[w.i] {
		case '"':
			w.i++
			w.str()
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
		w.i++
	}
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
// into t (nil: anything; else a slice or an array).
func (w *walker) array(t reflect.Type) error {
	var elem reflect.Type
	if t != nil {
		elem = t.Elem()
	}
	if w.skipSpace(); w.data[w.i] == ']' {
		w.i++
		return nil
	}
	w.depth++
	for i := 0; ; i++ {
		if err := w.value(elem); err != nil {
			w.up(step{kind: stepElement, index: i})
			return err
		}
		if w.next() == ']' {
			w.depth--
			return nil
		}
	}
}

// object reads the members of an object whose { has been read, decoded
// into t (nil: anything; else a struct or a map).
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
	w.depth++
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
			k := stepField
			if fields == nil {
				k = stepKey
			}
			w.up(step{kind: k, name: name})
			return err
		}
		if w.next() == '}' {
			w.depth--
			return nil
		}
	}
}

// joinPath returns the path of steps, innermost first, as NameError.Path
// writes it.
func joinPath(steps []step) string {
	var b []byte
	for i := len(steps) - 1; i >= 0; i-- {
		s := steps[i]
		switch s.kind {
		case stepElement:
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(s.index), 10)
			b = append(b, ']')
		case stepKey:
			b = append(b, '[')
			b = strconv.AppendQuoteToASCII(b, string(s.name))
			b = append(b, ']')
		default:
			if len(b) > 0 {
				b = append(b, '.')
			}
			b = append(b, s.name...)
		}
	}
	return string(b)
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
	names  []string // in the struct's order (encoding/json's), for fold
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

// fieldsOf returns the fields of the struct type t that encoding/json
// decodes, by the names it gives them (its typeFields and dominantField):
// exported fields by their tag's name, else their Go name, those tagged
// "-" left out, and the fields of embedded structs without a tag name
// promoted. Of the fields of one name, the shallowest wins; of several at
// that depth, the one tagged with the name, if only one is; else the name
// is ambiguous and no field has it (encoding/json drops it: a member of
// that name is an unknown field).
func fieldsOf(t reflect.Type) *fieldSet {
	if f, ok := fieldSets.Load(t); ok {
		return f.(*fieldSet)
	}
	type field struct {
		name   string
		tagged bool
		index  []int // of the field, from t, through embedded structs
		typ    reflect.Type
	}
	var fields []field
	// The embedded structs whose fields are read at this depth and the
	// next, with how many of each type the depth has: the fields of a
	// struct embedded twice at one depth are ambiguous.
	type embedded struct {
		typ   reflect.Type
		index []int
	}
	var count, nextCount map[reflect.Type]int
	visited := map[reflect.Type]bool{} // at a shallower depth
	for next := []embedded{{typ: t}}; len(next) > 0; {
		level := next
		next = nil
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, st := range level {
			if visited[st.typ] {
				continue
			}
			visited[st.typ] = true
			for i := range st.typ.NumField() {
				sf := st.typ.Field(i)
				if sf.Anonymous {
					ft := sf.Type
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
				index := append(slices.Clone(st.index), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
					if nextCount[ft]++; nextCount[ft] == 1 {
						next = append(next, embedded{typ: ft, index: index})
					}
					continue
				}
				f := field{name: name, tagged: name != "", index: index, typ: sf.Type}
				if f.name == "" {
					f.name = sf.Name
				}
				fields = append(fields, f)
				if count[st.typ] > 1 {
					fields = append(fields, f) // so that the name is ambiguous
				}
			}
		}
	}
	// By name, then depth, tagged first, then order; the first of a name
	// is the one that has it, unless the second is as deep and as tagged.
	slices.SortFunc(fields, func(a, b field) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a.index), len(b.index)); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return 1
		}
		return slices.Compare(a.index, b.index)
	})
	kept := fields[:0]
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].name == fields[i].name {
			j++
		}
		if j == i+1 || len(fields[i].index) < len(fields[i+1].index) || fields[i].tagged != fields[i+1].tagged {
			kept = append(kept, fields[i])
		}
		i = j
	}
	slices.SortFunc(kept, func(a, b field) int { return slices.Compare(a.index, b.index) })
	f := &fieldSet{byName: make(map[string]reflect.Type, len(kept)), names: make([]string, len(kept))}
	for i, k := range kept {
		f.byName[k.name] = k.typ
		f.names[i] = k.name
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
