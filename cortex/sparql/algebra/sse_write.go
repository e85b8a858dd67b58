package algebra

import (
	"strconv"
	"strings"
)

// printer writes the canonical SSE form. Pattern nodes start on their own line, indented two spaces per
// level; expressions and paths are written on one line.
type printer struct {
	b      strings.Builder
	indent int
}

func nodeString(n Node) string {
	var p printer
	p.node(n)
	return p.b.String()
}

func exprString(e Expr) string {
	var p printer
	p.expr(e)
	return p.b.String()
}

func pathString(pe PathExpr) string {
	var p printer
	p.path(pe)
	return p.b.String()
}

func queryString(q *Query) string {
	var p printer
	p.query(q)
	return p.b.String()
}

func (p *printer) newline() {
	p.b.WriteByte('\n')
	for i := 0; i < p.indent; i++ {
		p.b.WriteString("  ")
	}
}

// child writes a nested node on a new, deeper line.
func (p *printer) child(n Node) {
	p.indent++
	p.newline()
	p.node(n)
	p.indent--
}

func (p *printer) vars(vs []Var) {
	p.b.WriteByte('(')
	for i, v := range vs {
		if i > 0 {
			p.b.WriteByte(' ')
		}
		p.b.WriteString(v.String())
	}
	p.b.WriteByte(')')
}

func (p *printer) node(n Node) {
	b := &p.b
	switch n := n.(type) {
	case nil:
		b.WriteString("(null)")
	case *BGP:
		b.WriteString("(bgp")
		p.indent++
		for _, t := range n.Triples {
			p.newline()
			p.triple(t)
		}
		p.indent--
		b.WriteByte(')')
	case *Path:
		b.WriteString("(path ")
		b.WriteString(n.Subject.String())
		b.WriteByte(' ')
		p.path(n.Path)
		b.WriteByte(' ')
		b.WriteString(n.Object.String())
		b.WriteByte(')')
	case *Join:
		b.WriteString("(join")
		p.child(n.Left)
		p.child(n.Right)
		b.WriteByte(')')
	case *LeftJoin:
		b.WriteString("(leftjoin")
		p.child(n.Left)
		p.child(n.Right)
		if n.Expr != nil {
			p.indent++
			p.newline()
			p.expr(n.Expr)
			p.indent--
		}
		b.WriteByte(')')
	case *Union:
		b.WriteString("(union")
		p.child(n.Left)
		p.child(n.Right)
		b.WriteByte(')')
	case *Minus:
		b.WriteString("(minus")
		p.child(n.Left)
		p.child(n.Right)
		b.WriteByte(')')
	case *Filter:
		b.WriteString("(filter ")
		if len(n.Exprs) == 1 {
			p.expr(n.Exprs[0])
		} else {
			b.WriteString("(exprlist")
			for _, e := range n.Exprs {
				b.WriteByte(' ')
				p.expr(e)
			}
			b.WriteByte(')')
		}
		p.child(n.Input)
		b.WriteByte(')')
	case *Graph:
		b.WriteString("(graph ")
		b.WriteString(n.Name.String())
		p.child(n.Input)
		b.WriteByte(')')
	case *Extend:
		b.WriteString("(extend (")
		b.WriteString(n.Var.String())
		b.WriteByte(' ')
		p.expr(n.Expr)
		b.WriteByte(')')
		p.child(n.Input)
		b.WriteByte(')')
	case *Table:
		b.WriteString("(table (vars")
		for _, v := range n.Vars {
			b.WriteByte(' ')
			b.WriteString(v.String())
		}
		b.WriteByte(')')
		p.indent++
		for _, row := range n.Rows {
			p.newline()
			b.WriteString("(row")
			for _, v := range row {
				b.WriteByte(' ')
				writeTerm(b, v)
			}
			b.WriteByte(')')
		}
		p.indent--
		b.WriteByte(')')
	case *Group:
		b.WriteString("(group (")
		for i, e := range n.By {
			if i > 0 {
				b.WriteByte(' ')
			}
			p.expr(e)
		}
		b.WriteString(") (")
		for i, a := range n.Aggregates {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteByte('(')
			b.WriteString(a.Var.String())
			b.WriteByte(' ')
			p.expr(a.Agg)
			b.WriteByte(')')
		}
		b.WriteByte(')')
		p.child(n.Input)
		b.WriteByte(')')
	case *OrderBy:
		b.WriteString("(order (")
		for i, c := range n.Conds {
			if i > 0 {
				b.WriteByte(' ')
			}
			if c.Desc {
				b.WriteString("(desc ")
			} else {
				b.WriteString("(asc ")
			}
			p.expr(c.Expr)
			b.WriteByte(')')
		}
		b.WriteByte(')')
		p.child(n.Input)
		b.WriteByte(')')
	case *Project:
		b.WriteString("(project ")
		p.vars(n.Vars)
		p.child(n.Input)
		b.WriteByte(')')
	case *Distinct:
		b.WriteString("(distinct")
		p.child(n.Input)
		b.WriteByte(')')
	case *Reduced:
		b.WriteString("(reduced")
		p.child(n.Input)
		b.WriteByte(')')
	case *Slice:
		b.WriteString("(slice ")
		if n.Offset > 0 {
			b.WriteString(strconv.FormatInt(n.Offset, 10))
		} else {
			b.WriteByte('_')
		}
		b.WriteByte(' ')
		if n.Limit >= 0 {
			b.WriteString(strconv.FormatInt(n.Limit, 10))
		} else {
			b.WriteByte('_')
		}
		p.child(n.Input)
		b.WriteByte(')')
	default:
		b.WriteString("(unknown)")
	}
}

func (p *printer) expr(e Expr) {
	b := &p.b
	switch e := e.(type) {
	case nil:
		b.WriteString("(null)")
	case Var:
		b.WriteString(e.String())
	case Const:
		writeTerm(b, e.Value)
	case *Call:
		b.WriteByte('(')
		if e.Op != "" {
			b.WriteString(e.Op)
		} else {
			WriteIRI(b, string(e.IRI))
		}
		for _, a := range e.Args {
			b.WriteByte(' ')
			p.expr(a)
		}
		b.WriteByte(')')
	case *Exists:
		if e.Not {
			b.WriteString("(notexists")
		} else {
			b.WriteString("(exists")
		}
		p.child(e.Pattern)
		b.WriteByte(')')
	case *Aggregate:
		b.WriteByte('(')
		b.WriteString(e.Op)
		if e.Distinct {
			b.WriteString(" distinct")
		}
		if e.Op == AggGroupConcat {
			b.WriteByte(' ')
			WriteString(b, e.Separator)
		}
		if e.Arg != nil {
			b.WriteByte(' ')
			p.expr(e.Arg)
		}
		b.WriteByte(')')
	default:
		b.WriteString("(unknown)")
	}
}

func (p *printer) path(pe PathExpr) {
	b := &p.b
	un := func(name string, inner PathExpr) {
		b.WriteByte('(')
		b.WriteString(name)
		b.WriteByte(' ')
		p.path(inner)
		b.WriteByte(')')
	}
	bin := func(name string, l, r PathExpr) {
		b.WriteByte('(')
		b.WriteString(name)
		b.WriteByte(' ')
		p.path(l)
		b.WriteByte(' ')
		p.path(r)
		b.WriteByte(')')
	}
	switch pe := pe.(type) {
	case Link:
		WriteIRI(b, string(pe.IRI))
	case *Inverse:
		un("inv", pe.Path)
	case *Seq:
		bin("seq", pe.Left, pe.Right)
	case *Alt:
		bin("alt", pe.Left, pe.Right)
	case *ZeroOrMore:
		un("path*", pe.Path)
	case *OneOrMore:
		un("path+", pe.Path)
	case *ZeroOrOne:
		un("path?", pe.Path)
	case *NegatedPropertySet:
		b.WriteString("(notoneof")
		for _, iri := range pe.IRIs {
			b.WriteByte(' ')
			WriteIRI(b, string(iri))
		}
		b.WriteByte(')')
	default:
		b.WriteString("(unknown)")
	}
}

func (p *printer) query(q *Query) {
	b := &p.b
	b.WriteByte('(')
	b.WriteString(q.Form.String())
	p.indent++
	if q.Base != "" {
		p.newline()
		b.WriteString("(base ")
		WriteIRI(b, string(q.Base))
		b.WriteByte(')')
	}
	if q.Dataset != nil {
		p.newline()
		b.WriteString("(dataset")
		for _, iri := range q.Dataset.Default {
			b.WriteString(" (from ")
			WriteIRI(b, string(iri))
			b.WriteByte(')')
		}
		for _, iri := range q.Dataset.Named {
			b.WriteString(" (named ")
			WriteIRI(b, string(iri))
			b.WriteByte(')')
		}
		b.WriteByte(')')
	}
	if q.Form == Select || len(q.Vars) > 0 {
		p.newline()
		b.WriteString("(vars")
		for _, v := range q.Vars {
			b.WriteByte(' ')
			b.WriteString(v.String())
		}
		b.WriteByte(')')
	}
	if q.Form == Construct {
		p.newline()
		b.WriteString("(template")
		p.indent++
		for _, t := range q.Template {
			p.newline()
			p.triple(t)
		}
		p.indent--
		b.WriteByte(')')
	}
	if q.Form == Describe {
		p.newline()
		b.WriteString("(terms")
		for _, t := range q.Describe {
			b.WriteByte(' ')
			b.WriteString(t.String())
		}
		b.WriteByte(')')
	}
	p.newline()
	p.node(q.Pattern)
	p.indent--
	b.WriteByte(')')
}

func (p *printer) triple(t TriplePattern) {
	p.b.WriteString("(triple ")
	p.term(t.Subject)
	p.b.WriteByte(' ')
	p.term(t.Predicate)
	p.b.WriteByte(' ')
	p.term(t.Object)
	p.b.WriteByte(')')
}

func (p *printer) term(t Term) {
	if t.Value == nil {
		p.b.WriteByte('?')
		p.b.WriteString(string(t.Var))
		return
	}
	writeTerm(&p.b, t.Value)
}
