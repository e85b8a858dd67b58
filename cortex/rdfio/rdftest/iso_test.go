package rdftest_test

import (
	"fmt"
	"testing"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/rdfio/rdftest"
)

func q(s, p, o quad.Value, g ...quad.Value) quad.Quad {
	qq := quad.Quad{Subject: s, Predicate: p, Object: o}
	if len(g) > 0 {
		qq.Label = g[0]
	}
	return qq
}

var p = quad.IRI("http://ex.org/p")

func cycle(n int, prefix string) []quad.Quad {
	var qs []quad.Quad
	for i := 0; i < n; i++ {
		qs = append(qs, q(quad.BNode(fmt.Sprintf("%s%d", prefix, i)), p, quad.BNode(fmt.Sprintf("%s%d", prefix, (i+1)%n))))
	}
	return qs
}

func TestIsomorphic(t *testing.T) {
	a, b := quad.BNode("a"), quad.BNode("b")
	x, y := quad.BNode("x"), quad.BNode("y")
	g := quad.IRI("http://ex.org/g")
	cases := []struct {
		name string
		l, r []quad.Quad
		want bool
	}{
		{"empty", nil, nil, true},
		{"ground equal", []quad.Quad{q(g, p, quad.String("v"))}, []quad.Quad{q(g, p, quad.String("v"))}, true},
		{"ground differ", []quad.Quad{q(g, p, quad.String("v"))}, []quad.Quad{q(g, p, quad.String("w"))}, false},
		{"relabel", []quad.Quad{q(a, p, b), q(b, p, quad.String("1"))}, []quad.Quad{q(x, p, y), q(y, p, quad.String("1"))}, true},
		{"direction matters", []quad.Quad{q(a, p, b), q(b, p, quad.String("1"))}, []quad.Quad{q(y, p, x), q(y, p, quad.String("1"))}, false},
		{"merge not allowed", []quad.Quad{q(a, p, g), q(b, p, g)}, []quad.Quad{q(x, p, g)}, false},
		{"duplicates ignored", []quad.Quad{q(g, p, a), q(g, p, a)}, []quad.Quad{q(g, p, x)}, true},
		{"graph label blank", []quad.Quad{q(g, p, g, a)}, []quad.Quad{q(g, p, g, x)}, true},
		{"graph label differs", []quad.Quad{q(g, p, g, a)}, []quad.Quad{q(g, p, g)}, false},
		{"lang case-insensitive", []quad.Quad{q(g, p, quad.LangString{Value: "v", Lang: "EN"})}, []quad.Quad{q(g, p, quad.LangString{Value: "v", Lang: "en"})}, true},
		{"lexical form kept", []quad.Quad{q(g, p, quad.TypedString{Value: "01", Type: "http://www.w3.org/2001/XMLSchema#integer"})},
			[]quad.Quad{q(g, p, quad.TypedString{Value: "1", Type: "http://www.w3.org/2001/XMLSchema#integer"})}, false},
		{"xsd string equals plain", []quad.Quad{q(g, p, quad.TypedString{Value: "v", Type: "http://www.w3.org/2001/XMLSchema#string"})}, []quad.Quad{q(g, p, quad.String("v"))}, true},
		{"cycles same", cycle(6, "a"), cycle(6, "z"), true},
		{"cycle vs two cycles", cycle(6, "a"), append(cycle(3, "m"), cycle(3, "n")...), false},
		{"two cycles same", append(cycle(4, "a"), cycle(4, "b")...), append(cycle(4, "m"), cycle(4, "n")...), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := rdftest.Isomorphic(c.l, c.r); got != c.want {
				t.Errorf("Isomorphic = %v, want %v", got, c.want)
			}
			if got := rdftest.Isomorphic(c.r, c.l); got != c.want {
				t.Errorf("Isomorphic (swapped) = %v, want %v", got, c.want)
			}
		})
	}
}
