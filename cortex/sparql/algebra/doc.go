// Package algebra defines the SPARQL 1.1 algebra (W3C SPARQL 1.1 Query, §18) that the parser produces and
// the planner and evaluator consume, with a canonical SSE-like text form.
//
// A query is a [Query]: its form (SELECT, ASK, CONSTRUCT, DESCRIBE), its dataset, and a pattern tree of
// [Node] values (BGP, Path, Join, LeftJoin, Filter, Union, Minus, Graph, Extend, Table, Group, OrderBy,
// Project, Distinct, Reduced, Slice). Expressions are [Expr] trees (Var, Const, Call, Exists, Aggregate);
// property paths are [PathExpr] trees (Link, Inverse, Seq, Alt, ZeroOrMore, OneOrMore, ZeroOrOne,
// NegatedPropertySet).
//
// RDF terms are github.com/cayleygraph/quad values, restricted to quad.IRI, quad.BNode, quad.String
// (plain literal, xsd:string), quad.LangString and quad.TypedString (any other datatype, lexical form kept
// exactly as written).
//
// # Variables
//
// A [Var] is a name without the leading '?'. Names that start with '?' are not projectable: the parser
// uses them for blank nodes in patterns (`_:x` becomes `??x`), for the fresh variables of property path
// expansion, anonymous blank nodes and collections (`??.p0`, `??.b0`) and for aggregate results
// (`??.a0`). They never appear in results; SELECT * skips them.
//
// # Text form
//
// Every node, expression and path has a canonical String() in an S-expression syntax close to Jena's SSE,
// for example
//
//	(project (?x)
//	  (filter (= ?x 1)
//	    (bgp
//	      (triple ?x <http://ex/p> ?y))))
//
// [ParseSSE] reads that form back, so Parse → String → ParseSSE → String is the identity on the text.
//
// # Concurrency
//
// Algebra values are plain data. They are safe for concurrent reads; nothing in this package mutates a
// tree after construction.
//
// # Caveats
//
// Sub-selects are embedded directly (their Project node bounds their scope); there is no separate
// ToMultiSet node. Aggregates appear only in [Group] nodes once a query is translated; expressions above
// the group refer to them through their non-projectable variables.
package algebra
