package algebra

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cayleygraph/quad"
)

// ParseSSE reads the canonical text form written by (*Query).String back into a Query. Errors are
// *SSEError values wrapping ErrSSE. ParseSSE never panics on bad input.
func ParseSSE(text string) (*Query, error) {
	return parseSSE(text, "query", (*sseReader).query)
}

// ParseSSENode reads the text form of a single pattern node, as written by Node.String.
func ParseSSENode(text string) (Node, error) {
	return parseSSE(text, "node", (*sseReader).node)
}

// parseSSE reads the one s-expression of text (what names it in errors) and converts it with conv. The
// reader reports errors by panicking with an *SSEError; parseSSE turns that panic into the error returned.
func parseSSE[T any](text, what string, conv func(*sseReader, *sx) T) (v T, err error) {
	r := &sseReader{src: text}
	defer func() {
		if rec := recover(); rec != nil {
			se, ok := rec.(*SSEError)
			if !ok {
				panic(rec)
			}
			var zero T
			v, err = zero, se
		}
	}()
	x := r.read()
	r.skipSpace()
	if r.pos < len(r.src) {
		r.fail(r.pos, "trailing text after the %s", what)
	}
	return conv(r, x), nil
}

type sxKind int

const (
	sxList  sxKind = iota
	sxSym          // bare word: keyword, operator, '_'
	sxVar          // ?name
	sxValue        // RDF term: IRI, blank node, literal (numbers and booleans included)
)

type sx struct {
	kind  sxKind
	off   int
	list  []*sx
	text  string     // symbol text or variable name
	value quad.Value // for sxValue; nil for UNDEF
	undef bool
}

type sseReader struct {
	src   string
	pos   int
	depth int
}

// maxSSEDepth bounds list nesting so that hostile input cannot exhaust the stack.
const maxSSEDepth = 20000

func (r *sseReader) fail(off int, format string, args ...any) {
	panic(&SSEError{Offset: off, Msg: fmt.Sprintf(format, args...)})
}

func (r *sseReader) skipSpace() {
	for r.pos < len(r.src) {
		switch r.src[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

func isDelim(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '(' || c == ')'
}

func (r *sseReader) word() string {
	start := r.pos
	for r.pos < len(r.src) && !isDelim(r.src[r.pos]) {
		r.pos++
	}
	return r.src[start:r.pos]
}

func (r *sseReader) read() *sx {
	r.skipSpace()
	if r.pos >= len(r.src) {
		r.fail(r.pos, "unexpected end of input")
	}
	start := r.pos
	switch c := r.src[r.pos]; c {
	case '(':
		r.pos++
		r.depth++
		if r.depth > maxSSEDepth {
			r.fail(start, "nested too deeply")
		}
		defer func() { r.depth-- }()
		x := &sx{kind: sxList, off: start}
		for {
			r.skipSpace()
			if r.pos >= len(r.src) {
				r.fail(start, "unclosed '('")
			}
			if r.src[r.pos] == ')' {
				r.pos++
				return x
			}
			x.list = append(x.list, r.read())
		}
	case ')':
		r.fail(start, "unexpected ')'")
	case '<':
		// The operators "<" and "<=" are followed by a delimiter; an IRI never is (the printer escapes
		// white space in IRIs, and "<=>" is an IRI).
		rest := r.src[r.pos+1:]
		if rest == "" || isDelim(rest[0]) || rest[0] == '=' && (len(rest) == 1 || isDelim(rest[1])) {
			break
		}
		return &sx{kind: sxValue, off: start, value: quad.IRI(r.iri())}
	case '"':
		s := r.str()
		if r.pos < len(r.src) && r.src[r.pos] == '@' {
			r.pos++
			lang := r.word()
			if lang == "" {
				r.fail(r.pos, "empty language tag")
			}
			return &sx{kind: sxValue, off: start, value: quad.LangString{Value: quad.String(s), Lang: lang}}
		}
		if strings.HasPrefix(r.src[r.pos:], "^^") {
			r.pos += 2
			if r.pos >= len(r.src) || r.src[r.pos] != '<' {
				r.fail(r.pos, "expected datatype IRI")
			}
			dt := quad.IRI(r.iri())
			if dt == XSDString {
				return &sx{kind: sxValue, off: start, value: quad.String(s)}
			}
			return &sx{kind: sxValue, off: start, value: quad.TypedString{Value: quad.String(s), Type: dt}}
		}
		return &sx{kind: sxValue, off: start, value: quad.String(s)}
	case '?':
		r.pos++
		name := r.word()
		if name == "" {
			r.fail(start, "empty variable name")
		}
		return &sx{kind: sxVar, off: start, text: name}
	}
	w := r.word()
	switch {
	case strings.HasPrefix(w, "_:") && len(w) > 2:
		return &sx{kind: sxValue, off: start, value: quad.BNode(w[2:])}
	case w == "true" || w == "false":
		return &sx{kind: sxValue, off: start, value: quad.TypedString{Value: quad.String(w), Type: XSDBoolean}}
	case w == "UNDEF":
		return &sx{kind: sxValue, off: start, undef: true}
	}
	if dt := NumericKind(w); dt != "" {
		return &sx{kind: sxValue, off: start, value: quad.TypedString{Value: quad.String(w), Type: dt}}
	}
	return &sx{kind: sxSym, off: start, text: w}
}

func (r *sseReader) iri() string {
	start := r.pos
	r.pos++ // '<'
	var b strings.Builder
	for {
		if r.pos >= len(r.src) {
			r.fail(start, "unterminated IRI")
		}
		c := r.src[r.pos]
		switch c {
		case '>':
			r.pos++
			return b.String()
		case '\\':
			b.WriteRune(r.uescape())
		default:
			b.WriteByte(c)
			r.pos++
		}
	}
}

func (r *sseReader) uescape() rune {
	s := r.src[r.pos:]
	n := 0
	if len(s) >= 2 && s[1] == 'u' {
		n = 4
	} else if len(s) >= 2 && s[1] == 'U' {
		n = 8
	}
	if n == 0 || len(s) < 2+n {
		r.fail(r.pos, "bad escape")
	}
	v, err := strconv.ParseUint(s[2:2+n], 16, 32)
	if err != nil || v > utf8.MaxRune {
		r.fail(r.pos, "bad escape")
	}
	r.pos += 2 + n
	return rune(v)
}

func (r *sseReader) str() string {
	start := r.pos
	r.pos++
	var b strings.Builder
	for {
		if r.pos >= len(r.src) {
			r.fail(start, "unterminated string")
		}
		c := r.src[r.pos]
		switch c {
		case '"':
			r.pos++
			return b.String()
		case '\\':
			if r.pos+1 >= len(r.src) {
				r.fail(r.pos, "bad escape")
			}
			switch r.src[r.pos+1] {
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case '"':
				b.WriteByte('"')
			case '\\':
				b.WriteByte('\\')
			case 'u', 'U':
				b.WriteRune(r.uescape())
				continue
			default:
				r.fail(r.pos, "bad escape")
			}
			r.pos += 2
		default:
			b.WriteByte(c)
			r.pos++
		}
	}
}

// ---- interpretation ----

func (r *sseReader) head(x *sx) string {
	if x.kind != sxList || len(x.list) == 0 || x.list[0].kind != sxSym {
		return ""
	}
	return x.list[0].text
}

// form checks that x is (name arg...) with n arguments (n < 0: at least -n-1) and returns the arguments.
func (r *sseReader) form(x *sx, name string, n int) []*sx {
	if r.head(x) != name {
		r.fail(x.off, "expected (%s ...)", name)
	}
	args := x.list[1:]
	if n >= 0 && len(args) != n || n < 0 && len(args) < -n-1 {
		r.fail(x.off, "wrong number of elements in (%s ...)", name)
	}
	return args
}

func (r *sseReader) list(x *sx) []*sx {
	if x.kind != sxList {
		r.fail(x.off, "expected a list")
	}
	return x.list
}

func (r *sseReader) variable(x *sx) Var {
	if x.kind != sxVar {
		r.fail(x.off, "expected a variable")
	}
	return Var(x.text)
}

func (r *sseReader) vars(xs []*sx) []Var {
	var out []Var
	for _, x := range xs {
		out = append(out, r.variable(x))
	}
	return out
}

func (r *sseReader) iriValue(x *sx) quad.IRI {
	if x.kind == sxValue {
		if iri, ok := x.value.(quad.IRI); ok {
			return iri
		}
	}
	r.fail(x.off, "expected an IRI")
	return ""
}

func (r *sseReader) term(x *sx) Term {
	switch {
	case x.kind == sxVar:
		return VarTerm(Var(x.text))
	case x.kind == sxValue && !x.undef:
		return ValueTerm(x.value)
	}
	r.fail(x.off, "expected a variable or RDF term")
	return Term{}
}

func (r *sseReader) triple(x *sx) TriplePattern {
	a := r.form(x, "triple", 3)
	return TriplePattern{Subject: r.term(a[0]), Predicate: r.term(a[1]), Object: r.term(a[2])}
}

func (r *sseReader) query(x *sx) *Query {
	q := &Query{}
	switch r.head(x) {
	case "select":
		q.Form = Select
	case "ask":
		q.Form = Ask
	case "construct":
		q.Form = Construct
	case "describe":
		q.Form = Describe
	default:
		r.fail(x.off, "expected (select|ask|construct|describe ...)")
	}
	args := x.list[1:]
	if len(args) == 0 {
		r.fail(x.off, "missing query pattern")
	}
	for _, a := range args[:len(args)-1] {
		switch r.head(a) {
		case "base":
			q.Base = r.iriValue(r.form(a, "base", 1)[0])
		case "dataset":
			q.Dataset = &Dataset{}
			for _, d := range a.list[1:] {
				switch r.head(d) {
				case "from":
					q.Dataset.Default = append(q.Dataset.Default, r.iriValue(r.form(d, "from", 1)[0]))
				case "named":
					q.Dataset.Named = append(q.Dataset.Named, r.iriValue(r.form(d, "named", 1)[0]))
				default:
					r.fail(d.off, "expected (from <iri>) or (named <iri>)")
				}
			}
		case "vars":
			q.Vars = r.vars(a.list[1:])
		case "template":
			for _, t := range a.list[1:] {
				q.Template = append(q.Template, r.triple(t))
			}
		case "terms":
			for _, t := range a.list[1:] {
				q.Describe = append(q.Describe, r.term(t))
			}
		default:
			r.fail(a.off, "unknown query clause")
		}
	}
	q.Pattern = r.node(args[len(args)-1])
	return q
}

func (r *sseReader) node(x *sx) Node {
	h := r.head(x)
	switch h {
	case "bgp":
		b := &BGP{}
		for _, t := range x.list[1:] {
			b.Triples = append(b.Triples, r.triple(t))
		}
		return b
	case "path":
		a := r.form(x, h, 3)
		return &Path{Subject: r.term(a[0]), Path: r.path(a[1]), Object: r.term(a[2])}
	case "join":
		a := r.form(x, h, 2)
		return &Join{Left: r.node(a[0]), Right: r.node(a[1])}
	case "union":
		a := r.form(x, h, 2)
		return &Union{Left: r.node(a[0]), Right: r.node(a[1])}
	case "minus":
		a := r.form(x, h, 2)
		return &Minus{Left: r.node(a[0]), Right: r.node(a[1])}
	case "leftjoin":
		a := r.form(x, h, -3)
		if len(a) > 3 {
			r.fail(x.off, "too many elements in (leftjoin ...)")
		}
		n := &LeftJoin{Left: r.node(a[0]), Right: r.node(a[1])}
		if len(a) == 3 {
			n.Expr = r.expr(a[2])
		}
		return n
	case "filter":
		a := r.form(x, h, 2)
		n := &Filter{Input: r.node(a[1])}
		if r.head(a[0]) == "exprlist" {
			for _, e := range a[0].list[1:] {
				n.Exprs = append(n.Exprs, r.expr(e))
			}
			if len(n.Exprs) < 2 {
				r.fail(a[0].off, "exprlist needs two or more expressions")
			}
		} else {
			n.Exprs = []Expr{r.expr(a[0])}
		}
		return n
	case "graph":
		a := r.form(x, h, 2)
		return &Graph{Name: r.term(a[0]), Input: r.node(a[1])}
	case "extend":
		a := r.form(x, h, 2)
		b := r.list(a[0])
		if len(b) != 2 {
			r.fail(a[0].off, "expected (?var expr)")
		}
		return &Extend{Var: r.variable(b[0]), Expr: r.expr(b[1]), Input: r.node(a[1])}
	case "table":
		a := r.form(x, h, -2)
		t := &Table{Vars: r.vars(r.form(a[0], "vars", -1))}
		for _, row := range a[1:] {
			vals := r.form(row, "row", len(t.Vars))
			out := make([]quad.Value, len(vals))
			for i, v := range vals {
				if v.kind != sxValue {
					r.fail(v.off, "expected an RDF term or UNDEF")
				}
				out[i] = v.value
			}
			t.Rows = append(t.Rows, out)
		}
		return t
	case "group":
		a := r.form(x, h, 3)
		g := &Group{}
		for _, k := range r.list(a[0]) {
			g.By = append(g.By, r.expr(k))
		}
		for _, b := range r.list(a[1]) {
			pair := r.list(b)
			if len(pair) != 2 {
				r.fail(b.off, "expected (?var aggregate)")
			}
			agg, ok := r.expr(pair[1]).(*Aggregate)
			if !ok {
				r.fail(pair[1].off, "expected an aggregate")
			}
			g.Aggregates = append(g.Aggregates, AggBinding{Var: r.variable(pair[0]), Agg: agg})
		}
		g.Input = r.node(a[2])
		return g
	case "order":
		a := r.form(x, h, 2)
		o := &OrderBy{}
		for _, c := range r.list(a[0]) {
			switch r.head(c) {
			case "asc":
				o.Conds = append(o.Conds, OrderCond{Expr: r.expr(r.form(c, "asc", 1)[0])})
			case "desc":
				o.Conds = append(o.Conds, OrderCond{Expr: r.expr(r.form(c, "desc", 1)[0]), Desc: true})
			default:
				r.fail(c.off, "expected (asc expr) or (desc expr)")
			}
		}
		o.Input = r.node(a[1])
		return o
	case "project":
		a := r.form(x, h, 2)
		return &Project{Vars: r.vars(r.list(a[0])), Input: r.node(a[1])}
	case "distinct":
		return &Distinct{Input: r.node(r.form(x, h, 1)[0])}
	case "reduced":
		return &Reduced{Input: r.node(r.form(x, h, 1)[0])}
	case "slice":
		a := r.form(x, h, 3)
		return &Slice{Offset: r.sliceNum(a[0], 0), Limit: r.sliceNum(a[1], -1), Input: r.node(a[2])}
	}
	r.fail(x.off, "expected a pattern node")
	return nil
}

func (r *sseReader) sliceNum(x *sx, none int64) int64 {
	if x.kind == sxSym && x.text == "_" {
		return none
	}
	if x.kind == sxValue {
		if ts, ok := x.value.(quad.TypedString); ok && ts.Type == XSDInteger {
			if n, err := strconv.ParseInt(string(ts.Value), 10, 64); err == nil && n >= 0 {
				return n
			}
		}
	}
	r.fail(x.off, "expected a non-negative integer or _")
	return 0
}

var aggregateNames = map[string]bool{AggCount: true, AggSum: true, AggMin: true, AggMax: true, AggAvg: true,
	AggSample: true, AggGroupConcat: true}

func (r *sseReader) expr(x *sx) Expr {
	switch x.kind {
	case sxVar:
		return Var(x.text)
	case sxValue:
		if x.undef {
			r.fail(x.off, "UNDEF is not an expression")
		}
		return Const{Value: x.value}
	case sxSym:
		r.fail(x.off, "unexpected symbol %q", x.text)
	}
	if len(x.list) == 0 {
		r.fail(x.off, "empty expression")
	}
	hd := x.list[0]
	args := x.list[1:]
	if hd.kind == sxValue {
		iri, ok := hd.value.(quad.IRI)
		if !ok {
			r.fail(hd.off, "expected a function name or IRI")
		}
		c := &Call{IRI: iri}
		for _, a := range args {
			c.Args = append(c.Args, r.expr(a))
		}
		return c
	}
	if hd.kind != sxSym {
		r.fail(hd.off, "expected a function name or IRI")
	}
	name := hd.text
	switch {
	case name == "exists" || name == "notexists":
		if len(args) != 1 {
			r.fail(x.off, "expected (%s pattern)", name)
		}
		return &Exists{Pattern: r.node(args[0]), Not: name == "notexists"}
	case aggregateNames[name]:
		a := &Aggregate{Op: name}
		if len(args) > 0 && args[0].kind == sxSym && args[0].text == "distinct" {
			a.Distinct = true
			args = args[1:]
		}
		if name == AggGroupConcat {
			if len(args) == 0 || args[0].kind != sxValue {
				r.fail(x.off, "expected a separator string in (group_concat ...)")
			}
			s, ok := args[0].value.(quad.String)
			if !ok {
				r.fail(args[0].off, "expected a separator string")
			}
			a.Separator = string(s)
			args = args[1:]
		}
		switch {
		case len(args) == 1:
			a.Arg = r.expr(args[0])
		case len(args) == 0 && name == AggCount:
		default:
			r.fail(x.off, "wrong number of arguments in (%s ...)", name)
		}
		return a
	}
	ar, ok := BuiltinArity[name]
	if !ok {
		ar, ok = operatorArity[name]
	}
	if !ok {
		r.fail(hd.off, "unknown function %q", name)
	}
	if len(args) < ar[0] || ar[1] >= 0 && len(args) > ar[1] {
		r.fail(x.off, "wrong number of arguments to %s", name)
	}
	c := &Call{Op: name}
	for _, a := range args {
		c.Args = append(c.Args, r.expr(a))
	}
	return c
}

func (r *sseReader) path(x *sx) PathExpr {
	if x.kind == sxValue {
		return Link{IRI: r.iriValue(x)}
	}
	h := r.head(x)
	switch h {
	case "inv":
		return &Inverse{Path: r.path(r.form(x, h, 1)[0])}
	case "seq":
		a := r.form(x, h, 2)
		return &Seq{Left: r.path(a[0]), Right: r.path(a[1])}
	case "alt":
		a := r.form(x, h, 2)
		return &Alt{Left: r.path(a[0]), Right: r.path(a[1])}
	case "path*":
		return &ZeroOrMore{Path: r.path(r.form(x, h, 1)[0])}
	case "path+":
		return &OneOrMore{Path: r.path(r.form(x, h, 1)[0])}
	case "path?":
		return &ZeroOrOne{Path: r.path(r.form(x, h, 1)[0])}
	case "notoneof":
		n := &NegatedPropertySet{}
		for _, a := range x.list[1:] {
			n.IRIs = append(n.IRIs, r.iriValue(a))
		}
		return n
	}
	r.fail(x.off, "expected a path expression")
	return nil
}
