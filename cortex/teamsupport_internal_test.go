package cortex

import (
	"testing"

	"github.com/cayleygraph/cayley/graph/proto"
	"github.com/cayleygraph/quad"
	"github.com/cayleygraph/quad/pquads"
)

// FuzzDecodeLogTerm checks the direct log-entry decoder of TermsBatch
// against cayley's generic path (proto.Primitive + pquads): the same term
// for every entry both accept, and never a panic on malformed input.
func FuzzDecodeLogTerm(f *testing.F) {
	for _, v := range []quad.Value{
		quad.IRI("urn:x:a"), quad.BNode("b1"), quad.String(""), quad.String("plain ü"),
		quad.LangString{Value: "hallo", Lang: "de-CH"},
		quad.TypedString{Value: "2025-03-01T09:00:00Z", Type: xsd + "dateTime"},
		quad.TypedString{Value: "01", Type: xsd + "integer"},
		quad.TypedString{Value: "x", Type: "http://example.org/dt"},
		quad.Int(7), quad.Bool(true), quad.Float(1.5),
	} {
		b, err := pquads.MarshalValue(v)
		if err != nil {
			f.Fatal(err)
		}
		p := proto.Primitive{ID: 12, Value: b, Timestamp: 99}
		e, err := p.Marshal()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(e)
	}
	q := proto.Primitive{ID: 13, Subject: 1, Predicate: 2, Object: 3, Label: 4, Timestamp: 5, Deleted: true}
	e, _ := q.Marshal()
	f.Add(e)
	f.Add([]byte{0x42, 0x02, 0x38, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := decodeLogTerm(b)
		var p proto.Primitive
		if p.Unmarshal(b) != nil {
			return // malformed: an error or a lenient read, but no panic
		}
		if !p.IsNode() {
			if got != nil {
				t.Fatalf("quad entry decoded as %#v", got)
			}
			return
		}
		want, werr := safeUnmarshalValue(p.Value)
		if werr != nil {
			return
		}
		if err != nil {
			t.Fatalf("decodeLogTerm: %v; pquads read %#v", err, want)
		}
		if got != want {
			t.Fatalf("decodeLogTerm = %#v, pquads = %#v", got, want)
		}
	})
}

// safeUnmarshalValue is pquads.UnmarshalValue, which panics on a value
// without a known type, with the panic turned into an error.
func safeUnmarshalValue(b []byte) (v quad.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errPanic
		}
	}()
	return pquads.UnmarshalValue(b)
}

var errPanic = errorString("pquads panicked")

type errorString string

func (e errorString) Error() string { return string(e) }
