package parser

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/cortex/internal/iri"
	"github.com/cortexgraph/cortex/cortex/internal/lex"
	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
)

// Parse parses a SPARQL 1.1 query and translates it to the algebra (SPARQL 1.1 Query §18.2).
//
// Errors are *SyntaxError values with the 1-based line and character column; they wrap ErrSyntax, or
// ErrNotSupported for valid SPARQL that Cortex does not implement (SPARQL Update, SERVICE, custom
// aggregates). Parse never panics on bad input and is safe for concurrent use.
//
// One leading U+FEFF (a byte-order mark, as editors on Windows write at the start of a UTF-8 file) is
// skipped; it is not counted in the columns of line 1.
func Parse(text string, opts Options) (*algebra.Query, error) {
	return ParseContext(context.Background(), text, opts)
}

// ParseContext is Parse stopped by ctx: when ctx ends before the query is parsed, it returns ctx.Err()
// (not a *SyntaxError). It looks at ctx when it starts and every ctxEvery tokens read, so that the
// timeout of a query bounds the parse of a huge text too.
func ParseContext(ctx context.Context, text string, opts Options) (q *algebra.Query, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	text = strings.TrimPrefix(text, byteOrderMark)
	if opts.Base != "" && !lex.IRIChars(opts.Base) {
		// As a BASE declaration with it would be: every relative reference
		// would resolve to an IRI that no RDF syntax can write.
		return nil, &SyntaxError{Line: 1, Col: 1, Err: ErrSyntax, Msg: fmt.Sprintf("the base IRI %q given with the query holds a character IRIs do not "+
			"(white space, a control character, <>\"{}|^`\\ or bytes that are not UTF-8)", clipArgs([]any{opts.Base})...)}
	}
	p := &parser{
		ctx:        ctx,
		lx:         newLexer(text),
		base:       opts.Base,
		prefixes:   maps.Clone(opts.Prefixes),
		bnodeBlock: map[string]int{},
	}
	if p.prefixes == nil {
		p.prefixes = map[string]string{}
	}
	defer func() {
		if r := recover(); r != nil {
			if st, ok := r.(ctxStop); ok {
				q, err = nil, st.err
				return
			}
			se, ok := r.(*SyntaxError)
			if !ok {
				panic(r)
			}
			q, err = nil, se
		}
	}()
	toks, lerr := p.lx.all(p.look)
	if lerr != nil {
		p.failMsg(lerr.off, ErrSyntax, lerr.msg) // its quotes clipped by the lexer
	}
	p.toks = toks
	return p.queryUnit(), nil
}

// byteOrderMark is U+FEFF, which Parse skips at the start of the text.
const byteOrderMark = "\uFEFF"

// ctxEvery is how many tokens ParseContext reads (lexing, then parsing) between looks at its context.
const ctxEvery = 1024

// ctxStop is raised with panic when the parser's context has ended, and recovered in ParseContext.
type ctxStop struct{ err error }

// look raises ctxStop when the parser's context has ended.
func (p *parser) look() {
	if err := p.ctx.Err(); err != nil {
		panic(ctxStop{err})
	}
}

// parser is a recursive-descent parser over the token slice. Errors are raised with panic(*SyntaxError)
// and recovered in Parse.
type parser struct {
	ctx      context.Context
	lx       *lexer
	toks     []token
	pos      int
	base     string
	prefixes map[string]string

	fresh      int            // counter for fresh variables and template blank nodes
	bnodeBlock map[string]int // blank node label → id of the basic graph pattern using it
	block      int            // id of the basic graph pattern being parsed
	template   *templateState // non-nil while parsing a CONSTRUCT template
	aggs       *[]algebra.AggBinding
	depth      int // nesting depth of groups, expressions, paths and nested terms
}

// maxDepth bounds the nesting of the query so that hostile input cannot exhaust the stack.
const maxDepth = 1000

func (p *parser) enter() {
	p.depth++
	if p.depth > maxDepth {
		p.fail(p.peek(), "query nested too deeply (more than %d levels)", maxDepth)
	}
}

func (p *parser) leave() { p.depth-- }

type templateState struct {
	labels    map[string]bool // user labels
	generated map[quad.BNode]bool
}

// ---- token helpers ----

func (p *parser) peek() token { return p.toks[p.pos] }

func (p *parser) peekAt(i int) token {
	if p.pos+i >= len(p.toks) {
		return p.toks[len(p.toks)-1]
	}
	return p.toks[p.pos+i]
}

func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != tEOF {
		p.pos++
		if p.pos%ctxEvery == 0 {
			p.look()
		}
	}
	return t
}

func (p *parser) isWord(kw string) bool {
	t := p.peek()
	return t.kind == tWord && strings.EqualFold(t.text, kw)
}

func (p *parser) acceptWord(kw string) bool {
	if p.isWord(kw) {
		p.pos++
		return true
	}
	return false
}

func (p *parser) expectWord(kw string) token {
	if !p.isWord(kw) {
		p.expected(kw)
	}
	return p.next()
}

// expectVar consumes a variable token; what describes it in the error.
func (p *parser) expectVar(what string) token {
	if p.peek().kind != tVar {
		p.expected(what)
	}
	return p.next()
}

func (p *parser) isPunct(s string) bool {
	t := p.peek()
	return t.kind == tPunct && t.text == s
}

func (p *parser) acceptPunct(s string) bool {
	if p.isPunct(s) {
		p.pos++
		return true
	}
	return false
}

func (p *parser) expectPunct(s string) token {
	if !p.isPunct(s) {
		p.expected("'" + s + "'")
	}
	return p.next()
}

// failAt raises a syntax error at byte offset off; every text among args is clipped (clipArgs).
func (p *parser) failAt(off int, kind error, format string, args ...any) {
	p.failMsg(off, kind, fmt.Sprintf(format, clipArgs(args)...))
}

func (p *parser) failMsg(off int, kind error, msg string) {
	line, col := p.lx.position(off)
	panic(&SyntaxError{Line: line, Col: col, Msg: msg, Err: kind})
}

func (p *parser) fail(t token, format string, args ...any) {
	p.failAt(t.off, ErrSyntax, format, args...)
}

func (p *parser) notSupported(t token, what string) {
	p.failAt(t.off, ErrNotSupported, "not supported: %s", what)
}

func (p *parser) expected(what string) {
	t := p.peek()
	p.fail(t, "expected %s, found %s", what, describe(t))
}

func describe(t token) string {
	switch t.kind {
	case tEOF:
		return "end of query"
	case tIRI:
		return "IRI <" + clip(t.text) + ">"
	case tPName:
		return "prefixed name " + clip(t.pfx+":"+t.text)
	case tBNode:
		return "blank node _:" + clip(t.text)
	case tVar:
		return "variable ?" + clip(t.text)
	case tString:
		return "string " + strconv.Quote(clip(t.text))
	case tLangTag:
		return "language tag @" + clip(t.text)
	case tInteger, tDecimal, tDouble:
		return "number " + t.text
	case tWord:
		return "'" + clip(t.text) + "'"
	default:
		return "'" + t.text + "'"
	}
}

// resolve returns the IRI reference of token t (a tIRI) resolved against the base IRI (RFC 3986 §5.2;
// a reference with a scheme is kept exactly as written). A relative reference that cannot be resolved,
// because there is no base IRI or the base is itself relative, fails with ErrRelativeIRI at t: an RDF
// term is an absolute IRI (SPARQL 1.1 Query §4.1.1.1 leaves the base of a query with no BASE to its
// environment, and RFC 3986 §5.1 wants a base to be absolute). what names the reference in the message
// ("IRI", "BASE", "PREFIX p:").
func (p *parser) resolve(t token, what string) string {
	if iri.HasScheme(t.text) {
		return t.text
	}
	s, err := iri.Resolve(p.base, t.text)
	switch {
	case err == nil:
		return s
	case p.base == "":
		p.failAt(t.off, ErrRelativeIRI, "%s <%s> is a relative IRI and there is no base IRI to resolve it against (declare BASE <absolute-IRI> or give a base)", what, clip(t.text))
	default:
		p.failAt(t.off, ErrRelativeIRI, "%s <%s> is a relative IRI and the base IRI <%s> to resolve it against is not absolute", what, clip(t.text), clip(p.base))
	}
	return ""
}

// clip shortens a token quoted in a message to 40 characters.
func clip(s string) string { return clipRunes(s, 40) }

// maxArgRunes bounds each text (a name, a token, an IRI) that a syntax error message quotes from the
// query, so that the message stays short however long the query's tokens are.
const maxArgRunes = 80

// clipRunes returns s cut to n characters (Unicode code points), the last three of them "..." when it
// is cut; it never splits a character.
func clipRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i, runes := 0, 0
	for i < len(s) && runes < n-3 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		runes++
	}
	if utf8.RuneCountInString(s[i:]) <= 3 {
		return s
	}
	return s[:i] + "..."
}

// clipArgs returns a copy of the arguments of a message with every text (string or fmt.Stringer) cut
// to maxArgRunes characters.
func clipArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case string:
			out[i] = clipRunes(v, maxArgRunes)
		case fmt.Stringer:
			out[i] = clipRunes(v.String(), maxArgRunes)
		default:
			out[i] = a
		}
	}
	return out
}

// ---- prologue and query forms ----

var updateKeywords = []string{"INSERT", "DELETE", "LOAD", "CLEAR", "CREATE", "DROP", "COPY", "MOVE", "ADD", "WITH"}

func (p *parser) queryUnit() *algebra.Query {
	p.prologue()
	t := p.peek()
	var q *algebra.Query
	switch {
	case p.isWord("SELECT"):
		q = p.selectQuery()
	case p.isWord("CONSTRUCT"):
		q = p.constructQuery()
	case p.isWord("DESCRIBE"):
		q = p.describeQuery()
	case p.isWord("ASK"):
		q = p.askQuery()
	default:
		for _, kw := range updateKeywords {
			if p.isWord(kw) {
				p.notSupported(t, "SPARQL Update")
			}
		}
		p.expected("SELECT, CONSTRUCT, DESCRIBE or ASK")
	}
	if p.peek().kind != tEOF {
		p.expected("end of query")
	}
	q.Base = quad.IRI(p.base)
	return q
}

func (p *parser) prologue() {
	for {
		switch {
		case p.acceptWord("BASE"):
			t := p.peek()
			if t.kind != tIRI {
				p.expected("IRI after BASE")
			}
			p.next()
			p.base = p.resolve(t, "BASE")
		case p.acceptWord("PREFIX"):
			t := p.peek()
			if t.kind != tPName || t.text != "" {
				p.expected("prefix name ending in ':' after PREFIX")
			}
			p.next()
			ref := p.peek()
			if ref.kind != tIRI {
				p.expected("IRI after PREFIX " + t.pfx + ":")
			}
			p.next()
			p.prefixes[t.pfx] = p.resolve(ref, "PREFIX "+t.pfx+":")
		default:
			return
		}
	}
}

// selectClause is the parsed SELECT clause of a query or sub-select.
type selectClause struct {
	distinct, reduced, star bool
	starTok                 token
	items                   []selectItem
}

type selectItem struct {
	v   algebra.Var
	e   algebra.Expr // nil for a plain variable
	tok token
}

// modifiers are the parsed solution modifiers.
type modifiers struct {
	hasGroup      bool
	groupBy       []groupCond
	having        []algebra.Expr
	order         []algebra.OrderCond
	limit, offset int64
	hasSlice      bool
}

type groupCond struct {
	e   algebra.Expr
	v   algebra.Var // (expr AS ?v)
	tok token
}

func (p *parser) selectClause() *selectClause {
	p.expectWord("SELECT")
	sc := &selectClause{}
	if p.acceptWord("DISTINCT") {
		sc.distinct = true
	} else if p.acceptWord("REDUCED") {
		sc.reduced = true
	}
	if p.isPunct("*") {
		sc.star, sc.starTok = true, p.next()
		return sc
	}
	for {
		t := p.peek()
		switch {
		case t.kind == tVar:
			p.next()
			sc.items = append(sc.items, selectItem{v: algebra.Var(t.text), tok: t})
			continue
		case p.isPunct("("):
			p.next()
			e := p.expression()
			p.expectWord("AS")
			vt := p.expectVar("variable after AS")
			p.expectPunct(")")
			sc.items = append(sc.items, selectItem{v: algebra.Var(vt.text), e: e, tok: vt})
			continue
		}
		break
	}
	if len(sc.items) == 0 {
		p.expected("variable, '(' or '*' in SELECT")
	}
	return sc
}

func (p *parser) datasetClauses() *algebra.Dataset {
	var ds *algebra.Dataset
	for p.acceptWord("FROM") {
		if ds == nil {
			ds = &algebra.Dataset{}
		}
		named := p.acceptWord("NAMED")
		iri := p.iri("IRI after FROM")
		if named {
			ds.Named = append(ds.Named, iri)
		} else {
			ds.Default = append(ds.Default, iri)
		}
	}
	return ds
}

func (p *parser) whereClause() algebra.Node {
	p.acceptWord("WHERE")
	saved := p.aggs
	p.aggs = nil
	n := p.groupGraphPattern()
	p.aggs = saved
	return n
}

func (p *parser) selectQuery() *algebra.Query {
	var aggs []algebra.AggBinding
	p.aggs = &aggs
	sc := p.selectClause()
	p.aggs = nil
	ds := p.datasetClauses()
	where := p.whereClause()
	p.aggs = &aggs
	mods := p.solutionModifiers()
	p.aggs = nil
	values := p.valuesClause()
	node, vars := p.build(where, sc, mods, values, aggs)
	return &algebra.Query{Form: algebra.Select, Pattern: node, Vars: vars, Dataset: ds}
}

// subSelect parses a sub-select after '{' and returns its algebra.
func (p *parser) subSelect() algebra.Node {
	saved := p.aggs
	var aggs []algebra.AggBinding
	p.aggs = &aggs
	sc := p.selectClause()
	p.aggs = nil
	where := p.whereClause()
	p.aggs = &aggs
	mods := p.solutionModifiers()
	p.aggs = nil
	values := p.valuesClause()
	p.aggs = saved
	node, _ := p.build(where, sc, mods, values, aggs)
	return node
}

func (p *parser) askQuery() *algebra.Query {
	p.expectWord("ASK")
	ds := p.datasetClauses()
	where := p.whereClause()
	var aggs []algebra.AggBinding
	p.aggs = &aggs
	mods := p.solutionModifiers()
	p.aggs = nil
	values := p.valuesClause()
	node, _ := p.build(where, nil, mods, values, aggs)
	return &algebra.Query{Form: algebra.Ask, Pattern: node, Dataset: ds}
}

func (p *parser) constructQuery() *algebra.Query {
	p.expectWord("CONSTRUCT")
	var tmpl []algebra.TriplePattern
	var where algebra.Node
	var ds *algebra.Dataset
	if p.isPunct("{") {
		p.next()
		tmpl = p.templateTriples()
		p.expectPunct("}")
		ds = p.datasetClauses()
		where = p.whereClause()
	} else {
		ds = p.datasetClauses()
		wt := p.expectWord("WHERE")
		p.expectPunct("{")
		tmpl = p.templateTriples()
		p.expectPunct("}")
		// CONSTRUCT WHERE { T } is CONSTRUCT { T } WHERE { T }: template blank nodes become variables.
		triples := make([]algebra.TriplePattern, len(tmpl))
		for i, t := range tmpl {
			triples[i] = algebra.TriplePattern{Subject: bnodeToVar(t.Subject), Predicate: bnodeToVar(t.Predicate),
				Object: bnodeToVar(t.Object)}
		}
		_ = wt
		where = &algebra.BGP{Triples: triples}
	}
	var aggs []algebra.AggBinding
	p.aggs = &aggs
	mods := p.solutionModifiers()
	p.aggs = nil
	values := p.valuesClause()
	node, _ := p.build(where, nil, mods, values, aggs)
	return &algebra.Query{Form: algebra.Construct, Pattern: node, Template: tmpl, Dataset: ds}
}

func bnodeToVar(t algebra.Term) algebra.Term {
	if b, ok := t.Value.(quad.BNode); ok {
		return algebra.VarTerm(algebra.Var("?" + string(b)))
	}
	return t
}

func (p *parser) describeQuery() *algebra.Query {
	p.expectWord("DESCRIBE")
	q := &algebra.Query{Form: algebra.Describe}
	star := false
	if p.acceptPunct("*") {
		star = true
	} else {
		for {
			t := p.peek()
			if t.kind == tVar {
				p.next()
				q.Describe = append(q.Describe, algebra.VarTerm(algebra.Var(t.text)))
			} else if t.kind == tIRI || t.kind == tPName {
				q.Describe = append(q.Describe, algebra.ValueTerm(p.iri("IRI")))
			} else {
				break
			}
		}
		if len(q.Describe) == 0 {
			p.expected("variable, IRI or '*' after DESCRIBE")
		}
	}
	q.Dataset = p.datasetClauses()
	var where algebra.Node = &algebra.BGP{}
	if p.isWord("WHERE") || p.isPunct("{") {
		where = p.whereClause()
	}
	var aggs []algebra.AggBinding
	p.aggs = &aggs
	mods := p.solutionModifiers()
	p.aggs = nil
	values := p.valuesClause()
	node, _ := p.build(where, nil, mods, values, aggs)
	q.Pattern = node
	if star {
		for _, v := range algebra.InScope(node) {
			if v.Projectable() {
				q.Vars = append(q.Vars, v)
			}
		}
	}
	return q
}

func (p *parser) solutionModifiers() *modifiers {
	m := &modifiers{limit: -1}
	if p.isWord("GROUP") {
		p.next()
		p.expectWord("BY")
		m.hasGroup = true
		for {
			t := p.peek()
			switch {
			case t.kind == tVar:
				p.next()
				m.groupBy = append(m.groupBy, groupCond{e: algebra.Var(t.text), tok: t})
				continue
			case p.isPunct("("):
				p.next()
				saved := p.aggs
				p.aggs = nil
				e := p.expression()
				p.aggs = saved
				gc := groupCond{e: e, tok: t}
				if p.acceptWord("AS") {
					vt := p.expectVar("variable after AS")
					gc.v, gc.tok = algebra.Var(vt.text), vt
				}
				p.expectPunct(")")
				m.groupBy = append(m.groupBy, gc)
				continue
			case p.startsBuiltinOrFunction():
				saved := p.aggs
				p.aggs = nil
				e := p.primaryExpression()
				p.aggs = saved
				m.groupBy = append(m.groupBy, groupCond{e: e, tok: t})
				continue
			}
			break
		}
		if len(m.groupBy) == 0 {
			p.expected("group condition after GROUP BY")
		}
	}
	if p.acceptWord("HAVING") {
		for {
			m.having = append(m.having, p.constraint())
			if !p.isPunct("(") && !p.startsBuiltinOrFunction() {
				break
			}
		}
	}
	if p.isWord("ORDER") {
		p.next()
		p.expectWord("BY")
		for {
			switch {
			case p.isWord("ASC") || p.isWord("DESC"):
				desc := p.next().text
				p.expectPunct("(")
				e := p.expression()
				p.expectPunct(")")
				m.order = append(m.order, algebra.OrderCond{Expr: e, Desc: strings.EqualFold(desc, "DESC")})
				continue
			case p.peek().kind == tVar:
				m.order = append(m.order, algebra.OrderCond{Expr: algebra.Var(p.next().text)})
				continue
			case p.isPunct("(") || p.startsBuiltinOrFunction():
				m.order = append(m.order, algebra.OrderCond{Expr: p.constraint()})
				continue
			}
			break
		}
		if len(m.order) == 0 {
			p.expected("order condition after ORDER BY")
		}
	}
	limitSet, offsetSet := false, false
	for i := 0; i < 2; i++ {
		switch {
		case !limitSet && p.acceptWord("LIMIT"):
			m.limit = p.integer("LIMIT")
			limitSet, m.hasSlice = true, true
		case !offsetSet && p.acceptWord("OFFSET"):
			m.offset = p.integer("OFFSET")
			offsetSet, m.hasSlice = true, true
		}
	}
	return m
}

func (p *parser) integer(what string) int64 {
	t := p.peek()
	if t.kind != tInteger {
		p.expected("integer after " + what)
	}
	p.next()
	n, err := strconv.ParseInt(t.text, 10, 64)
	if errors.Is(err, strconv.ErrRange) {
		// The grammar takes any INTEGER; past the largest int64 no result can tell the difference.
		return math.MaxInt64
	}
	if err != nil {
		p.fail(t, "%s value %s out of range", what, t.text)
	}
	return n
}

func (p *parser) valuesClause() *algebra.Table {
	if !p.acceptWord("VALUES") {
		return nil
	}
	return p.dataBlock()
}

// build applies the translation of §18.2.4 and §18.2.5: grouping, HAVING, VALUES, select expressions,
// ORDER BY, projection, DISTINCT/REDUCED and slicing.
func (p *parser) build(where algebra.Node, sc *selectClause, m *modifiers, values *algebra.Table,
	aggs []algebra.AggBinding) (algebra.Node, []algebra.Var) {
	n := where
	whereScope := map[algebra.Var]bool{}
	for _, v := range algebra.InScope(where) {
		whereScope[v] = true
	}
	grouping := m.hasGroup || len(aggs) > 0
	allowed := map[algebra.Var]bool{}
	if grouping {
		var keys []algebra.Expr
		for _, g := range m.groupBy {
			if g.v != "" {
				if whereScope[g.v] {
					p.fail(g.tok, "variable %s is already in scope", g.v)
				}
				n = &algebra.Extend{Input: n, Var: g.v, Expr: g.e}
				keys = append(keys, g.v)
				allowed[g.v] = true
				continue
			}
			if v, ok := g.e.(algebra.Var); ok {
				allowed[v] = true
			}
			keys = append(keys, g.e)
		}
		for _, a := range aggs {
			allowed[a.Var] = true
		}
		n = &algebra.Group{Input: n, By: keys, Aggregates: aggs}
	}
	if len(m.having) > 0 {
		n = &algebra.Filter{Exprs: m.having, Input: n}
	}
	if values != nil {
		n = join(n, values)
	}
	var vars []algebra.Var
	if sc != nil {
		if sc.star {
			if grouping {
				p.fail(sc.starTok, "SELECT * is not allowed with GROUP BY or aggregates")
			}
			for _, v := range algebra.InScope(n) {
				if v.Projectable() {
					vars = append(vars, v)
				}
			}
		} else {
			assigned := map[algebra.Var]bool{}
			// The variables in scope of n, kept as n grows by one Extend per item (InScope(n) per
			// item took time quadratic in the number of items).
			inScope := map[algebra.Var]bool{}
			for _, v := range algebra.InScope(n) {
				inScope[v] = true
			}
			for _, it := range sc.items {
				if it.e == nil {
					if grouping && !allowed[it.v] {
						p.fail(it.tok, "variable %s is neither grouped nor aggregated", it.v)
					}
					vars = append(vars, it.v)
					continue
				}
				if whereScope[it.v] || assigned[it.v] || inScope[it.v] {
					p.fail(it.tok, "variable %s is already in scope", it.v)
				}
				if grouping {
					for _, v := range freeVars(it.e) {
						if !allowed[v] {
							p.fail(it.tok, "variable %s in the expression for %s is neither grouped nor aggregated", v, it.v)
						}
					}
				}
				n = &algebra.Extend{Input: n, Var: it.v, Expr: it.e}
				inScope[it.v] = true
				assigned[it.v] = true
				allowed[it.v] = true
				vars = append(vars, it.v)
			}
		}
	}
	if len(m.order) > 0 {
		n = &algebra.OrderBy{Input: n, Conds: m.order}
	}
	if sc != nil {
		n = &algebra.Project{Input: n, Vars: vars}
		if sc.distinct {
			n = &algebra.Distinct{Input: n}
		} else if sc.reduced {
			n = &algebra.Reduced{Input: n}
		}
	}
	if m.hasSlice && (m.offset > 0 || m.limit >= 0) {
		n = &algebra.Slice{Input: n, Offset: m.offset, Limit: m.limit}
	}
	return n, vars
}

// freeVars lists the variables of e outside EXISTS patterns.
func freeVars(e algebra.Expr) []algebra.Var {
	var out []algebra.Var
	var walk func(algebra.Expr)
	walk = func(e algebra.Expr) {
		switch e := e.(type) {
		case algebra.Var:
			out = append(out, e)
		case *algebra.Call:
			for _, a := range e.Args {
				walk(a)
			}
		case *algebra.Aggregate:
			if e.Arg != nil {
				walk(e.Arg)
			}
		}
	}
	walk(e)
	return out
}

func (p *parser) freshVar(kind string) algebra.Var {
	v := algebra.Var("?." + kind + strconv.Itoa(p.fresh))
	p.fresh++
	return v
}
