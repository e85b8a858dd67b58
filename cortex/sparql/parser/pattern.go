package parser

import (
	"strconv"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/internal/iri"
	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
)

// tblock collects the triples and non-trivial paths of one basic graph pattern (a triples block, merged
// with the blocks that follow it when only FILTERs separate them).
type tblock struct {
	id      int
	triples []algebra.TriplePattern
	paths   []*algebra.Path
}

func (b *tblock) node() algebra.Node {
	var n algebra.Node = &algebra.BGP{}
	if len(b.triples) > 0 {
		n = &algebra.BGP{Triples: b.triples}
	}
	for _, pth := range b.paths {
		n = join(n, pth)
	}
	return n
}

func (p *parser) newBlock() *tblock {
	p.block++
	return &tblock{id: p.block}
}

// join returns Join(a, b), simplified when either side is the empty group.
func join(a, b algebra.Node) algebra.Node {
	if isEmptyGroup(a) {
		return b
	}
	if isEmptyGroup(b) {
		return a
	}
	return &algebra.Join{Left: a, Right: b}
}

func isEmptyGroup(n algebra.Node) bool {
	b, ok := n.(*algebra.BGP)
	return ok && len(b.Triples) == 0
}

func conjunction(es []algebra.Expr) algebra.Expr {
	e := es[0]
	for _, x := range es[1:] {
		e = &algebra.Call{Op: algebra.OpAnd, Args: []algebra.Expr{e, x}}
	}
	return e
}

// groupGraphPattern parses '{' ... '}' and translates it (§18.2.2.6).
func (p *parser) groupGraphPattern() algebra.Node {
	g, filters := p.groupGraphPatternParts()
	if len(filters) > 0 {
		g = &algebra.Filter{Exprs: filters, Input: g}
	}
	return g
}

// groupGraphPatternParts parses a group and returns its pattern and, separately, its own FILTER
// expressions (which OPTIONAL moves into the LeftJoin; filters of nested groups stay where they are).
func (p *parser) groupGraphPatternParts() (algebra.Node, []algebra.Expr) {
	p.enter()
	defer p.leave()
	p.expectPunct("{")
	if p.isWord("SELECT") {
		n := p.subSelect()
		p.expectPunct("}")
		return n, nil
	}
	var g algebra.Node = &algebra.BGP{}
	var filters []algebra.Expr
	var blk *tblock
	scope := &groupScope{vars: map[algebra.Var]bool{}}
	flush := func() {
		if blk != nil {
			g = join(g, blk.node())
			blk = nil
		}
	}
	dotOK := false        // a '.' may follow
	afterTriples := false // the previous element was triples not ended by '.'
	for {
		t := p.peek()
		switch {
		case p.isPunct("}"):
			p.next()
			flush()
			return g, filters
		case p.isPunct("."):
			if !dotOK {
				p.expected("triple pattern, graph pattern or '}'")
			}
			p.next()
			dotOK, afterTriples = false, false
			continue
		case p.isWord("FILTER"):
			p.next()
			filters = append(filters, p.filter())
		case p.isWord("OPTIONAL"):
			p.next()
			flush()
			g = p.optionalGraphPattern(g)
		case p.isWord("MINUS"):
			p.next()
			flush()
			g = &algebra.Minus{Left: g, Right: p.groupGraphPattern()}
		case p.isWord("BIND"):
			p.next()
			flush()
			g = p.bind(g, scope)
		case p.isWord("GRAPH"):
			p.next()
			flush()
			g = join(g, p.graphGraphPattern())
		case p.isWord("SERVICE"):
			p.notSupported(t, "SERVICE")
		case p.isWord("VALUES"):
			p.next()
			flush()
			g = join(g, p.dataBlock())
		case p.isPunct("{"):
			flush()
			g = join(g, p.groupOrUnionGraphPattern())
		case t.kind == tEOF:
			p.expected("'}'")
		default:
			if afterTriples {
				p.expected("'.' or '}'")
			}
			if blk == nil {
				blk = p.newBlock()
			}
			p.triplesSameSubject(blk, true)
			dotOK, afterTriples = true, true
			continue
		}
		dotOK, afterTriples = true, false
	}
}

// filter parses the constraint of a FILTER (the keyword read) and returns its expression. Aggregates
// are not allowed in it: the aggregates of the enclosing query are set aside while it is parsed.
func (p *parser) filter() algebra.Expr {
	saved := p.aggs
	p.aggs = nil
	e := p.constraint()
	p.aggs = saved
	return e
}

// optionalGraphPattern parses the group of an OPTIONAL (the keyword read) and returns LeftJoin(g,
// group), with the group's own FILTERs, joined by &&, as the LeftJoin's expression (§18.2.2.6).
func (p *parser) optionalGraphPattern(g algebra.Node) algebra.Node {
	a, fs := p.groupGraphPatternParts()
	if len(fs) > 0 {
		return &algebra.LeftJoin{Left: g, Right: a, Expr: conjunction(fs)}
	}
	return &algebra.LeftJoin{Left: g, Right: a}
}

// groupScope is the set of the variables in scope of the pattern of a group as it is parsed: at is the
// pattern it was computed for. The pattern only grows by operators whose left operand (Input for
// Extend) is the pattern before, so update adds the variables of the new right operands only: calling
// algebra.InScope on the whole pattern at each BIND of a group of n BINDs took time quadratic in n.
type groupScope struct {
	at    algebra.Node
	vars  map[algebra.Var]bool
	steps int // operators walked by update
}

// update makes s the scope of g. It walks down the left operands from g to the pattern s was computed
// for, adding the variables of the right operands it passes (none for MINUS) and of the BIND variables;
// when it reaches the bottom of g instead (g was the empty group, which has no variable, and was
// replaced), it adds all the variables of that bottom node.
func (s *groupScope) update(g algebra.Node) {
	add := func(vs []algebra.Var) {
		for _, v := range vs {
			s.vars[v] = true
		}
	}
	n := g
	for n != s.at {
		s.steps++
		switch o := n.(type) {
		case *algebra.Join:
			add(algebra.InScope(o.Right))
			n = o.Left
		case *algebra.LeftJoin:
			add(algebra.InScope(o.Right))
			n = o.Left
		case *algebra.Minus:
			n = o.Left
		case *algebra.Extend:
			add([]algebra.Var{o.Var})
			n = o.Input
		default:
			add(algebra.InScope(o))
			n = s.at
		}
	}
	s.at = g
}

// bind parses '(' expression AS var ')' after BIND and returns Extend(g, var, expression). The
// expression may not hold aggregates, and var may not be in scope in g (the pattern before the BIND in
// its group, whose variables scope holds): that is a syntax error at the variable.
func (p *parser) bind(g algebra.Node, scope *groupScope) algebra.Node {
	p.expectPunct("(")
	saved := p.aggs
	p.aggs = nil
	e := p.expression()
	p.aggs = saved
	p.expectWord("AS")
	vt := p.expectVar("variable after AS")
	p.expectPunct(")")
	v := algebra.Var(vt.text)
	scope.update(g)
	if scope.vars[v] {
		p.fail(vt, "variable %s is already in scope in BIND", v)
	}
	return &algebra.Extend{Input: g, Var: v, Expr: e}
}

// graphGraphPattern parses the graph name (a variable or an IRI) and the group after GRAPH (the keyword
// read) and returns the Graph node.
func (p *parser) graphGraphPattern() algebra.Node {
	var name algebra.Term
	if nt := p.peek(); nt.kind == tVar {
		p.next()
		name = algebra.VarTerm(algebra.Var(nt.text))
	} else {
		name = algebra.ValueTerm(p.iri("variable or IRI after GRAPH"))
	}
	return &algebra.Graph{Name: name, Input: p.groupGraphPattern()}
}

// groupOrUnionGraphPattern parses a group followed by any number of UNION groups and returns the group,
// or the left-nested Union of them all.
func (p *parser) groupOrUnionGraphPattern() algebra.Node {
	a := p.groupGraphPattern()
	for p.acceptWord("UNION") {
		a = &algebra.Union{Left: a, Right: p.groupGraphPattern()}
	}
	return a
}

func (p *parser) startsVerb(paths bool) bool {
	t := p.peek()
	switch t.kind {
	case tVar, tIRI, tPName:
		return true
	case tWord:
		return t.text == "a"
	case tPunct:
		return paths && (t.text == "^" || t.text == "!" || t.text == "(")
	}
	return false
}

func (p *parser) isAnon() bool {
	return p.isPunct("[") && p.peekAt(1).kind == tPunct && p.peekAt(1).text == "]"
}

func (p *parser) isNil() bool {
	return p.isPunct("(") && p.peekAt(1).kind == tPunct && p.peekAt(1).text == ")"
}

// triplesSameSubject parses TriplesSameSubject(Path) into b.
func (p *parser) triplesSameSubject(b *tblock, paths bool) {
	switch {
	case p.isPunct("[") && !p.isAnon():
		s := p.bnodePropertyList(b, paths)
		if p.startsVerb(paths) {
			p.propertyList(b, s, paths)
		}
	case p.isPunct("(") && !p.isNil():
		s := p.collection(b, paths)
		if p.startsVerb(paths) {
			p.propertyList(b, s, paths)
		}
	default:
		s := p.varOrTerm(b)
		p.propertyList(b, s, paths)
	}
}

func (p *parser) propertyList(b *tblock, s algebra.Term, paths bool) {
	for {
		if !p.startsVerb(paths) {
			p.expected("predicate")
		}
		var pred algebra.Term
		var path algebra.PathExpr
		switch vt := p.peek(); {
		case vt.kind == tVar:
			p.next()
			pred = algebra.VarTerm(algebra.Var(vt.text))
		case paths:
			path = p.path()
			if l, ok := path.(algebra.Link); ok {
				pred, path = algebra.ValueTerm(l.IRI), nil
			}
		default:
			pred = algebra.ValueTerm(p.verbIRI())
		}
		for {
			o := p.graphNode(b, paths)
			if path != nil {
				p.addPath(b, s, path, o)
			} else {
				b.triples = append(b.triples, algebra.TriplePattern{Subject: s, Predicate: pred, Object: o})
			}
			if !p.acceptPunct(",") {
				break
			}
		}
		if !p.acceptPunct(";") {
			return
		}
		for p.acceptPunct(";") {
		}
		if !p.startsVerb(paths) {
			return
		}
	}
}

func (p *parser) verbIRI() quad.IRI {
	if t := p.peek(); t.kind == tWord && t.text == "a" {
		p.next()
		return algebra.RDFType
	}
	return p.iri("predicate")
}

// addPath translates "s path o" (§18.2.2.4): IRIs and inverted IRIs become triples, sequences are split
// with fresh variables, anything else becomes a Path node.
func (p *parser) addPath(b *tblock, s algebra.Term, path algebra.PathExpr, o algebra.Term) {
	switch pe := path.(type) {
	case algebra.Link:
		b.triples = append(b.triples, algebra.TriplePattern{Subject: s, Predicate: algebra.ValueTerm(pe.IRI), Object: o})
		return
	case *algebra.Inverse:
		if l, ok := pe.Path.(algebra.Link); ok {
			b.triples = append(b.triples, algebra.TriplePattern{Subject: o, Predicate: algebra.ValueTerm(l.IRI), Object: s})
			return
		}
	case *algebra.Seq:
		v := algebra.VarTerm(p.freshVar("p"))
		p.addPath(b, s, pe.Left, v)
		p.addPath(b, v, pe.Right, o)
		return
	}
	b.paths = append(b.paths, &algebra.Path{Subject: s, Path: path, Object: o})
}

func (p *parser) graphNode(b *tblock, paths bool) algebra.Term {
	p.enter()
	defer p.leave()
	switch {
	case p.isPunct("[") && !p.isAnon():
		return p.bnodePropertyList(b, paths)
	case p.isPunct("(") && !p.isNil():
		return p.collection(b, paths)
	}
	return p.varOrTerm(b)
}

func (p *parser) bnodePropertyList(b *tblock, paths bool) algebra.Term {
	p.expectPunct("[")
	s := p.freshBNode()
	p.propertyList(b, s, paths)
	p.expectPunct("]")
	return s
}

func (p *parser) collection(b *tblock, paths bool) algebra.Term {
	p.expectPunct("(")
	var items []algebra.Term
	for !p.isPunct(")") {
		if p.peek().kind == tEOF {
			p.expected("')'")
		}
		items = append(items, p.graphNode(b, paths))
	}
	p.next()
	head := p.freshBNode()
	cur := head
	for i, it := range items {
		b.triples = append(b.triples, algebra.TriplePattern{Subject: cur, Predicate: algebra.ValueTerm(algebra.RDFFirst), Object: it})
		next := algebra.ValueTerm(algebra.RDFNil)
		if i < len(items)-1 {
			next = p.freshBNode()
		}
		b.triples = append(b.triples, algebra.TriplePattern{Subject: cur, Predicate: algebra.ValueTerm(algebra.RDFRest), Object: next})
		cur = next
	}
	return head
}

// varOrTerm parses a variable, IRI, literal, blank node, [] or ().
func (p *parser) varOrTerm(b *tblock) algebra.Term {
	t := p.peek()
	switch {
	case t.kind == tVar:
		p.next()
		return algebra.VarTerm(algebra.Var(t.text))
	case t.kind == tIRI || t.kind == tPName:
		return algebra.ValueTerm(p.iri("term"))
	case t.kind == tBNode:
		p.next()
		return p.labelledBNode(b, t)
	case p.isAnon():
		p.next()
		p.next()
		return p.freshBNode()
	case p.isNil():
		p.next()
		p.next()
		return algebra.ValueTerm(algebra.RDFNil)
	}
	if v, ok := p.literal(); ok {
		return algebra.ValueTerm(v)
	}
	p.expected("variable or RDF term")
	return algebra.Term{}
}

func (p *parser) labelledBNode(b *tblock, t token) algebra.Term {
	if p.template != nil {
		p.template.labels[t.text] = true
		return algebra.ValueTerm(quad.BNode(t.text))
	}
	if id, ok := p.bnodeBlock[t.text]; ok && id != b.id {
		p.fail(t, "blank node label _:%s is used in more than one basic graph pattern", t.text)
	}
	p.bnodeBlock[t.text] = b.id
	return algebra.VarTerm(algebra.Var("?" + t.text))
}

func (p *parser) freshBNode() algebra.Term {
	if p.template != nil {
		// A space never occurs in a user label; templateTriples renames these placeholders.
		l := quad.BNode(" b" + strconv.Itoa(p.fresh))
		p.fresh++
		p.template.generated[l] = true
		return algebra.ValueTerm(l)
	}
	return algebra.VarTerm(p.freshVar("b"))
}

// templateTriples parses ConstructTriples up to (not including) '}'.
func (p *parser) templateTriples() []algebra.TriplePattern {
	p.template = &templateState{labels: map[string]bool{}, generated: map[quad.BNode]bool{}}
	defer func() { p.template = nil }()
	b := p.newBlock()
	for !p.isPunct("}") {
		p.triplesSameSubject(b, false)
		if !p.acceptPunct(".") {
			break
		}
	}
	// Give generated blank nodes labels distinct from the user's, in order of appearance.
	rename := map[quad.BNode]quad.BNode{}
	gen := func(t algebra.Term) {
		if bn, ok := t.Value.(quad.BNode); ok && p.template.generated[bn] {
			if _, done := rename[bn]; !done {
				n := strings.TrimPrefix(string(bn), " ")
				for p.template.labels[n] {
					n += "_"
				}
				p.template.labels[n] = true
				rename[bn] = quad.BNode(n)
			}
		}
	}
	for _, t := range b.triples {
		gen(t.Subject)
		gen(t.Predicate)
		gen(t.Object)
	}
	fix := func(t algebra.Term) algebra.Term {
		if bn, ok := t.Value.(quad.BNode); ok {
			if n, ok := rename[bn]; ok {
				return algebra.ValueTerm(n)
			}
		}
		return t
	}
	for i, t := range b.triples {
		b.triples[i] = algebra.TriplePattern{Subject: fix(t.Subject), Predicate: fix(t.Predicate), Object: fix(t.Object)}
	}
	return b.triples
}

// ---- property paths ----

func (p *parser) path() algebra.PathExpr {
	l := p.pathSeq()
	for p.acceptPunct("|") {
		l = &algebra.Alt{Left: l, Right: p.pathSeq()}
	}
	return l
}

func (p *parser) pathSeq() algebra.PathExpr {
	l := p.pathEltOrInverse()
	for p.acceptPunct("/") {
		l = &algebra.Seq{Left: l, Right: p.pathEltOrInverse()}
	}
	return l
}

func (p *parser) pathEltOrInverse() algebra.PathExpr {
	if p.acceptPunct("^") {
		return &algebra.Inverse{Path: p.pathElt()}
	}
	return p.pathElt()
}

func (p *parser) pathElt() algebra.PathExpr {
	prim := p.pathPrimary()
	switch {
	case p.isPunct("?"):
		p.next()
		return &algebra.ZeroOrOne{Path: prim}
	case p.isPunct("*"):
		p.next()
		return &algebra.ZeroOrMore{Path: prim}
	case p.isPunct("+"):
		// "+1" directly after a path is a positive numeric object, not a modifier.
		if nt := p.peekAt(1); isNumberTok(nt) && !nt.spaced {
			return prim
		}
		p.next()
		return &algebra.OneOrMore{Path: prim}
	}
	return prim
}

func isNumberTok(t token) bool { return t.kind == tInteger || t.kind == tDecimal || t.kind == tDouble }

func (p *parser) pathPrimary() algebra.PathExpr {
	p.enter()
	defer p.leave()
	switch {
	case p.acceptPunct("!"):
		return p.negatedPropertySet()
	case p.acceptPunct("("):
		pe := p.path()
		p.expectPunct(")")
		return pe
	}
	return algebra.Link{IRI: p.verbIRI()}
}

func (p *parser) negatedPropertySet() algebra.PathExpr {
	var fwd, inv []quad.IRI
	one := func() {
		if p.acceptPunct("^") {
			inv = append(inv, p.verbIRI())
		} else {
			fwd = append(fwd, p.verbIRI())
		}
	}
	if p.acceptPunct("(") {
		if !p.isPunct(")") {
			one()
			for p.acceptPunct("|") {
				one()
			}
		}
		p.expectPunct(")")
	} else {
		one()
	}
	switch {
	case len(inv) == 0:
		return &algebra.NegatedPropertySet{IRIs: fwd}
	case len(fwd) == 0:
		return &algebra.Inverse{Path: &algebra.NegatedPropertySet{IRIs: inv}}
	}
	return &algebra.Alt{Left: &algebra.NegatedPropertySet{IRIs: fwd},
		Right: &algebra.Inverse{Path: &algebra.NegatedPropertySet{IRIs: inv}}}
}

// ---- VALUES ----

func (p *parser) dataBlock() *algebra.Table {
	tab := &algebra.Table{}
	if t := p.peek(); t.kind == tVar {
		p.next()
		tab.Vars = []algebra.Var{algebra.Var(t.text)}
		p.expectPunct("{")
		for !p.acceptPunct("}") {
			tab.Rows = append(tab.Rows, []quad.Value{p.dataValue()})
		}
		return tab
	}
	if !p.isPunct("(") {
		p.expected("variable or '(' after VALUES")
	}
	p.next()
	listed := map[algebra.Var]bool{} // (searching tab.Vars took time quadratic in their number)
	for !p.acceptPunct(")") {
		t := p.expectVar("variable or ')' in VALUES")
		v := algebra.Var(t.text)
		if listed[v] {
			p.fail(t, "variable %s listed twice in VALUES", v)
		}
		listed[v] = true
		tab.Vars = append(tab.Vars, v)
	}
	p.expectPunct("{")
	for !p.acceptPunct("}") {
		start := p.peek()
		p.expectPunct("(")
		row := []quad.Value{}
		for !p.acceptPunct(")") {
			row = append(row, p.dataValue())
		}
		if len(row) != len(tab.Vars) {
			p.fail(start, "VALUES row has %d values, expected %d", len(row), len(tab.Vars))
		}
		tab.Rows = append(tab.Rows, row)
	}
	return tab
}

func (p *parser) dataValue() quad.Value {
	t := p.peek()
	if t.kind == tWord && strings.EqualFold(t.text, "UNDEF") {
		p.next()
		return nil
	}
	if t.kind == tIRI || t.kind == tPName {
		return p.iri("value")
	}
	if v, ok := p.literal(); ok {
		return v
	}
	p.expected("IRI, literal or UNDEF")
	return nil
}

// ---- terms ----

// iri parses an IRI reference or prefixed name and returns the absolute IRI.
func (p *parser) iri(what string) quad.IRI {
	t := p.peek()
	switch t.kind {
	case tIRI:
		p.next()
		return quad.IRI(p.resolve(t, "IRI"))
	case tPName:
		p.next()
		ns, ok := p.prefixes[t.pfx]
		if !ok {
			p.fail(t, "undefined prefix '%s:'", t.pfx)
		}
		if !iri.HasScheme(ns + t.text) {
			p.failAt(t.off, ErrRelativeIRI, "prefixed name %s expands to the relative IRI <%s> (prefix '%s:' is <%s>, not an absolute IRI)", clip(t.pfx+":"+t.text), clip(ns+t.text), t.pfx, clip(ns))
		}
		return quad.IRI(ns + t.text)
	}
	p.expected(what)
	return ""
}

// literal parses an RDF literal, numeric or boolean literal (with an adjacent sign).
func (p *parser) literal() (quad.Value, bool) {
	t := p.peek()
	switch t.kind {
	case tString:
		p.next()
		if lt := p.peek(); lt.kind == tLangTag {
			p.next()
			return quad.LangString{Value: quad.String(t.text), Lang: lt.text}, true
		}
		if p.acceptPunct("^^") {
			dt := p.iri("datatype IRI after '^^'")
			if dt == algebra.XSDString {
				return quad.String(t.text), true
			}
			return quad.TypedString{Value: quad.String(t.text), Type: dt}, true
		}
		return quad.String(t.text), true
	case tInteger, tDecimal, tDouble:
		p.next()
		return numeric(t.kind, t.text), true
	case tPunct:
		if t.text == "+" || t.text == "-" {
			if nt := p.peekAt(1); isNumberTok(nt) && !nt.spaced {
				p.next()
				p.next()
				return numeric(nt.kind, t.text+nt.text), true
			}
		}
	case tWord:
		if strings.EqualFold(t.text, "true") || strings.EqualFold(t.text, "false") {
			p.next()
			return quad.TypedString{Value: quad.String(strings.ToLower(t.text)), Type: algebra.XSDBoolean}, true
		}
	}
	return nil, false
}

func numeric(k tokKind, lex string) quad.Value {
	dt := algebra.XSDInteger
	switch k {
	case tDecimal:
		dt = algebra.XSDDecimal
	case tDouble:
		dt = algebra.XSDDouble
	}
	return quad.TypedString{Value: quad.String(lex), Type: dt}
}
