package parser

import (
	"strings"

	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
)

// builtins maps upper-case keywords of §17.4 built-in calls to canonical algebra names.
var builtins = map[string]string{
	"STR": algebra.OpStr, "LANG": algebra.OpLang, "LANGMATCHES": algebra.OpLangMatches,
	"DATATYPE": algebra.OpDatatype, "BOUND": algebra.OpBound, "IRI": algebra.OpIRI, "URI": algebra.OpIRI,
	"BNODE": algebra.OpBNode, "RAND": algebra.OpRand, "ABS": algebra.OpAbs, "CEIL": algebra.OpCeil,
	"FLOOR": algebra.OpFloor, "ROUND": algebra.OpRound, "CONCAT": algebra.OpConcat,
	"STRLEN": algebra.OpStrLen, "UCASE": algebra.OpUCase, "LCASE": algebra.OpLCase,
	"ENCODE_FOR_URI": algebra.OpEncodeForURI, "CONTAINS": algebra.OpContains,
	"STRSTARTS": algebra.OpStrStarts, "STRENDS": algebra.OpStrEnds, "STRBEFORE": algebra.OpStrBefore,
	"STRAFTER": algebra.OpStrAfter, "YEAR": algebra.OpYear, "MONTH": algebra.OpMonth, "DAY": algebra.OpDay,
	"HOURS": algebra.OpHours, "MINUTES": algebra.OpMinutes, "SECONDS": algebra.OpSeconds,
	"TIMEZONE": algebra.OpTimezone, "TZ": algebra.OpTZ, "NOW": algebra.OpNow, "UUID": algebra.OpUUID,
	"STRUUID": algebra.OpStrUUID, "MD5": algebra.OpMD5, "SHA1": algebra.OpSHA1, "SHA256": algebra.OpSHA256,
	"SHA384": algebra.OpSHA384, "SHA512": algebra.OpSHA512, "COALESCE": algebra.OpCoalesce,
	"IF": algebra.OpIf, "STRLANG": algebra.OpStrLang, "STRDT": algebra.OpStrDT,
	"SAMETERM": algebra.OpSameTerm, "ISIRI": algebra.OpIsIRI, "ISURI": algebra.OpIsIRI,
	"ISBLANK": algebra.OpIsBlank, "ISLITERAL": algebra.OpIsLiteral, "ISNUMERIC": algebra.OpIsNumeric,
	"REGEX": algebra.OpRegex, "SUBSTR": algebra.OpSubstr, "REPLACE": algebra.OpReplace,
}

var aggregates = map[string]string{
	"COUNT": algebra.AggCount, "SUM": algebra.AggSum, "MIN": algebra.AggMin, "MAX": algebra.AggMax,
	"AVG": algebra.AggAvg, "SAMPLE": algebra.AggSample, "GROUP_CONCAT": algebra.AggGroupConcat,
}

func call(op string, args ...algebra.Expr) *algebra.Call { return &algebra.Call{Op: op, Args: args} }

func (p *parser) expression() algebra.Expr {
	l := p.andExpr()
	for p.acceptPunct("||") {
		l = call(algebra.OpOr, l, p.andExpr())
	}
	return l
}

func (p *parser) andExpr() algebra.Expr {
	l := p.relational()
	for p.acceptPunct("&&") {
		l = call(algebra.OpAnd, l, p.relational())
	}
	return l
}

func (p *parser) relational() algebra.Expr {
	l := p.additive()
	t := p.peek()
	if t.kind == tPunct {
		switch t.text {
		case "=", "!=", "<", ">", "<=", ">=":
			p.next()
			return call(t.text, l, p.additive())
		}
	}
	if p.acceptWord("IN") {
		return call(algebra.OpIn, append([]algebra.Expr{l}, p.expressionList()...)...)
	}
	if p.isWord("NOT") && p.peekAt(1).kind == tWord && strings.EqualFold(p.peekAt(1).text, "IN") {
		p.next()
		p.next()
		return call(algebra.OpNotIn, append([]algebra.Expr{l}, p.expressionList()...)...)
	}
	return l
}

func (p *parser) expressionList() []algebra.Expr {
	p.expectPunct("(")
	args := []algebra.Expr{}
	if p.acceptPunct(")") {
		return args
	}
	for {
		args = append(args, p.expression())
		if !p.acceptPunct(",") {
			break
		}
	}
	p.expectPunct(")")
	return args
}

func (p *parser) additive() algebra.Expr {
	l := p.multiplicative()
	for {
		switch {
		case p.isPunct("+"):
			p.next()
			l = call(algebra.OpAdd, l, p.multiplicative())
		case p.isPunct("-"):
			p.next()
			l = call(algebra.OpSub, l, p.multiplicative())
		default:
			return l
		}
	}
}

func (p *parser) multiplicative() algebra.Expr {
	l := p.unary()
	for {
		switch {
		case p.isPunct("*"):
			p.next()
			l = call(algebra.OpMul, l, p.unary())
		case p.isPunct("/"):
			p.next()
			l = call(algebra.OpDiv, l, p.unary())
		default:
			return l
		}
	}
}

func (p *parser) unary() algebra.Expr {
	p.enter()
	defer p.leave()
	switch {
	case p.acceptPunct("!"):
		return call(algebra.OpNot, p.unary())
	case p.isPunct("+") || p.isPunct("-"):
		if v, ok := p.literal(); ok { // signed numeric literal
			return algebra.Const{Value: v}
		}
		op := algebra.OpUPlus
		if p.next().text == "-" {
			op = algebra.OpUMinus
		}
		return call(op, p.unary())
	}
	return p.primaryExpression()
}

// startsBuiltinOrFunction reports whether the next tokens start a BuiltInCall or FunctionCall.
func (p *parser) startsBuiltinOrFunction() bool {
	t := p.peek()
	switch t.kind {
	case tWord:
		u := strings.ToUpper(t.text)
		if _, ok := builtins[u]; ok {
			return true
		}
		if _, ok := aggregates[u]; ok {
			return true
		}
		return u == "EXISTS" || u == "NOT" && p.peekAt(1).kind == tWord && strings.EqualFold(p.peekAt(1).text, "EXISTS")
	case tIRI, tPName:
		n := p.peekAt(1)
		return n.kind == tPunct && n.text == "("
	}
	return false
}

// constraint parses a FILTER / HAVING / ORDER BY constraint: a bracketted expression, built-in call or
// function call.
func (p *parser) constraint() algebra.Expr {
	if p.acceptPunct("(") {
		e := p.expression()
		p.expectPunct(")")
		return e
	}
	if !p.startsBuiltinOrFunction() {
		p.expected("'(', built-in call or function call")
	}
	return p.primaryExpression()
}

func (p *parser) primaryExpression() algebra.Expr {
	t := p.peek()
	switch t.kind {
	case tPunct:
		if t.text == "(" {
			p.next()
			e := p.expression()
			p.expectPunct(")")
			return e
		}
	case tVar:
		p.next()
		return algebra.Var(t.text)
	case tIRI, tPName:
		iri := p.iri("IRI")
		if !p.isPunct("(") {
			return algebra.Const{Value: iri}
		}
		p.next()
		if p.isWord("DISTINCT") {
			p.notSupported(p.peek(), "DISTINCT in a call to <"+string(iri)+"> (custom aggregates)")
		}
		p.pos-- // re-read '(' in expressionList
		return &algebra.Call{IRI: iri, Args: p.expressionList()}
	case tWord:
		u := strings.ToUpper(t.text)
		if op, ok := builtins[u]; ok {
			return p.builtinCall(t, op)
		}
		if op, ok := aggregates[u]; ok {
			return p.aggregate(t, op)
		}
		switch {
		case u == "EXISTS":
			p.next()
			return &algebra.Exists{Pattern: p.existsPattern()}
		case u == "NOT" && p.peekAt(1).kind == tWord && strings.EqualFold(p.peekAt(1).text, "EXISTS"):
			p.next()
			p.next()
			return &algebra.Exists{Pattern: p.existsPattern(), Not: true}
		}
	}
	if v, ok := p.literal(); ok {
		return algebra.Const{Value: v}
	}
	if t.kind == tWord && p.peekAt(1).kind == tPunct && p.peekAt(1).text == "(" {
		p.fail(t, "unknown function %s", t.text)
	}
	p.expected("expression")
	return nil
}

func (p *parser) existsPattern() algebra.Node {
	saved := p.aggs
	p.aggs = nil
	n := p.groupGraphPattern()
	p.aggs = saved
	return n
}

func (p *parser) builtinCall(t token, op string) algebra.Expr {
	p.next()
	if !p.isPunct("(") {
		p.expected("'(' after " + t.text)
	}
	args := p.expressionList()
	ar := algebra.BuiltinArity[op]
	if len(args) < ar[0] || ar[1] >= 0 && len(args) > ar[1] {
		p.fail(t, "wrong number of arguments to %s: %d", strings.ToUpper(t.text), len(args))
	}
	if op == algebra.OpBound {
		if _, ok := args[0].(algebra.Var); !ok {
			p.fail(t, "BOUND takes a variable")
		}
	}
	return &algebra.Call{Op: op, Args: args}
}

func (p *parser) aggregate(t token, op string) algebra.Expr {
	if p.aggs == nil {
		p.fail(t, "aggregate %s is not allowed here", strings.ToUpper(t.text))
	}
	p.next()
	p.expectPunct("(")
	agg := &algebra.Aggregate{Op: op}
	agg.Distinct = p.acceptWord("DISTINCT")
	outer := p.aggs
	p.aggs = nil // no nested aggregates
	if op == algebra.AggCount && p.acceptPunct("*") {
		agg.Arg = nil
	} else {
		agg.Arg = p.expression()
	}
	p.aggs = outer
	if op == algebra.AggGroupConcat {
		agg.Separator = " "
		if p.acceptPunct(";") {
			p.expectWord("SEPARATOR")
			p.expectPunct("=")
			st := p.peek()
			if st.kind != tString {
				p.expected("string after SEPARATOR =")
			}
			p.next()
			agg.Separator = st.text
		}
	}
	p.expectPunct(")")
	v := p.freshVar("a")
	*p.aggs = append(*p.aggs, algebra.AggBinding{Var: v, Agg: agg})
	return v
}
