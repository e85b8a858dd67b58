package engine

import (
	"reflect"
	"testing"

	"github.com/cayleygraph/quad"
)

// FuzzSideRow: a row of any terms round-trips through the side-table
// encoding, and decoding arbitrary bytes never panics.
func FuzzSideRow(f *testing.F) {
	f.Add("urn:x", "name", "2025-01-01T00:00:00Z", "en", []byte{1, 0})
	f.Add("", "", "", "", []byte{9, 9, 9})
	f.Fuzz(func(t *testing.T, iri, s, typed, lang string, junk []byte) {
		dec := sideDecoder{intern: map[string]string{}}
		_, _ = dec.row(junk) // any error, no panic
		row := []quad.Value{quad.IRI(iri), nil, quad.String(s), quad.BNode(s),
			quad.TypedString{Value: quad.String(typed), Type: quad.IRI(iri)}, quad.LangString{Value: quad.String(s), Lang: lang}}
		b, err := encodeSideRow(row)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second time through the interned strings
			got, err := dec.row(b)
			if err != nil {
				t.Fatalf("decode %x: %v", b, err)
			}
			if !reflect.DeepEqual(got, row) {
				t.Fatalf("decoded %#v, want %#v", got, row)
			}
		}
		for i := range b { // every truncation is an error
			if _, err := dec.row(b[:i]); err == nil {
				t.Fatalf("truncated row %x decoded", b[:i])
			}
		}
	})
}
