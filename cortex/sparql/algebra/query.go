package algebra

import "github.com/cayleygraph/quad"

// Form is the query form.
type Form int

// Query forms.
const (
	Select Form = iota
	Ask
	Construct
	Describe
)

// String returns the lower-case keyword of the form.
func (f Form) String() string {
	switch f {
	case Select:
		return "select"
	case Ask:
		return "ask"
	case Construct:
		return "construct"
	case Describe:
		return "describe"
	}
	return "form?"
}

// Dataset is the RDF dataset named by FROM and FROM NAMED clauses.
type Dataset struct {
	Default []quad.IRI // FROM: merged into the default graph
	Named   []quad.IRI // FROM NAMED
}

// Query is a translated SPARQL query.
//
// Pattern is the whole algebra expression, solution modifiers included (for SELECT it ends in Project,
// then Distinct/Reduced and Slice). Vars is the SELECT projection in order (for SELECT * the projectable
// in-scope variables). Template is the CONSTRUCT template, whose blank nodes are quad.BNode values to be
// instantiated afresh per solution. Describe lists the DESCRIBE resources (IRIs or variables; empty for
// DESCRIBE *, which describes every projectable in-scope variable, listed in Vars). Dataset is nil
// without FROM / FROM NAMED. Base is the base IRI in effect at the end of the prologue, "" if none.
type Query struct {
	Form     Form
	Pattern  Node
	Vars     []Var
	Template []TriplePattern
	Describe []Term
	Dataset  *Dataset
	Base     quad.IRI
}

// String returns the canonical SSE form of the query.
func (q *Query) String() string { return queryString(q) }
