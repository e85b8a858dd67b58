package algebra

import "github.com/cayleygraph/quad"

// PathExpr is a property path expression: Link, *Inverse, *Seq, *Alt, *ZeroOrMore, *OneOrMore,
// *ZeroOrOne or *NegatedPropertySet.
type PathExpr interface {
	String() string
	isPath()
}

// Link is a single predicate IRI.
type Link struct {
	IRI quad.IRI
}

// Inverse is ^Path.
type Inverse struct {
	Path PathExpr
}

// Seq is Left/Right.
type Seq struct {
	Left, Right PathExpr
}

// Alt is Left|Right.
type Alt struct {
	Left, Right PathExpr
}

// ZeroOrMore is Path*.
type ZeroOrMore struct {
	Path PathExpr
}

// OneOrMore is Path+.
type OneOrMore struct {
	Path PathExpr
}

// ZeroOrOne is Path?.
type ZeroOrOne struct {
	Path PathExpr
}

// NegatedPropertySet matches the pairs of nodes linked by a forward edge whose predicate is none of
// IRIs, each pair once however many such edges link it (a set, §18.4). Inverse members of a
// SPARQL negated set are translated (as in §18.2.2.3) to an Inverse of a NegatedPropertySet, and a mixed
// set to an Alt of both.
type NegatedPropertySet struct {
	IRIs []quad.IRI
}

// String returns the IRI in N-Triples form.
func (p Link) String() string { return pathString(p) }

// String returns "(inv p)".
func (p *Inverse) String() string { return pathString(p) }

// String returns "(seq a b)".
func (p *Seq) String() string { return pathString(p) }

// String returns "(alt a b)".
func (p *Alt) String() string { return pathString(p) }

// String returns "(path* p)".
func (p *ZeroOrMore) String() string { return pathString(p) }

// String returns "(path+ p)".
func (p *OneOrMore) String() string { return pathString(p) }

// String returns "(path? p)".
func (p *ZeroOrOne) String() string { return pathString(p) }

// String returns "(notoneof <a> <b>)".
func (p *NegatedPropertySet) String() string { return pathString(p) }

func (Link) isPath()                {}
func (*Inverse) isPath()            {}
func (*Seq) isPath()                {}
func (*Alt) isPath()                {}
func (*ZeroOrMore) isPath()         {}
func (*OneOrMore) isPath()          {}
func (*ZeroOrOne) isPath()          {}
func (*NegatedPropertySet) isPath() {}
