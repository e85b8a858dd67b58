package builtin_test

import (
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/sparql/builtin"
)

func BenchmarkCompare(b *testing.B) {
	cases := []struct {
		name string
		x, y quad.Value
	}{
		{"integer", integer("12345"), integer("12346")},
		{"integer-decimal", integer("12345"), decimal("12345.5")},
		{"string", str("hello world"), str("hello there")},
		{"dateTime", dateTime("2010-06-21T11:28:01Z"), dateTime("2010-12-21T15:38:02-08:00")},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := builtin.Compare(c.x, c.y); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkOrderCompare(b *testing.B) {
	x, y := integer("12345"), decimal("12345.5")
	b.ReportAllocs()
	for b.Loop() {
		builtin.OrderCompare(x, y)
	}
}

func BenchmarkAdd(b *testing.B) {
	for _, c := range []struct {
		name string
		x, y quad.Value
	}{
		{"integer", integer("12345"), integer("67890")},
		{"decimal", decimal("123.45"), decimal("0.55")},
		{"double", double("1.5E0"), integer("2")},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := builtin.Add(c.x, c.y); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkRegex(b *testing.B) {
	args := vals(str("The quick brown fox jumps over the lazy dog"), str(`\p{Lu}\w+\s+quick`), str("i"))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := builtin.Call("REGEX", args); err != nil {
			b.Fatal(err)
		}
	}
}
