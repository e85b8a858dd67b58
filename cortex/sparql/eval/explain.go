package eval

import (
	"context"
	"fmt"
	"strings"

	"github.com/cortexgraph/cortex/cortex/sparql/algebra"
)

// Explain compiles q over ds without running it and returns the evaluation plan: one operator per
// line, children indented, BGP triple patterns in execution order with their estimated cardinality
// (matches of the pattern's constants alone) and the planner's cost of the step.
func Explain(ctx context.Context, ds Dataset, q *algebra.Query, opts Options) (string, error) {
	p, err := prepare(ctx, ds, q, opts)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s", q.Form)
	if q.Form == algebra.Select {
		b.WriteString(" (")
		for i, v := range q.Vars {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(v.String())
		}
		b.WriteString(")")
	}
	b.WriteByte('\n')
	explainOp(&b, p.root, 1, p.c)
	return b.String(), nil
}

// explainOp writes the plan of o at depth (two spaces of indentation per level): the operator's line,
// the steps of a BGP, then its inputs one level deeper, in evaluation order.
func explainOp(b *strings.Builder, o op, depth int, c *compiler) {
	ind := strings.Repeat("  ", depth)
	label, inputs := describeOp(o, c)
	b.WriteString(ind + label + "\n")
	if o, ok := o.(*bgpOp); ok {
		explainSteps(b, o, ind)
	}
	for _, in := range inputs {
		explainOp(b, in, depth+1, c)
	}
}

// describeOp returns the one-line description of operator o (its Go type for an operator it does not
// know) and its inputs, in evaluation order; it reads term names from c and writes nothing.
func describeOp(o op, c *compiler) (string, []op) {
	switch o := o.(type) {
	case *bgpOp:
		return "bgp", nil
	case *pathOp:
		return "path " + o.pathString(c), nil
	case *joinOp:
		return "join (nested loop, bindings passed right)", []op{o.left, o.right}
	case *leftJoinOp:
		if o.expr != nil {
			return "leftjoin (with filter)", []op{o.left, o.right}
		}
		return "leftjoin", []op{o.left, o.right}
	case *filterOp:
		var es []string
		for _, e := range o.src {
			es = append(es, e.String())
		}
		return "filter " + strings.Join(es, " "), []op{o.input}
	case *unionOp:
		return "union", []op{o.left, o.right}
	case *minusOp:
		return fmt.Sprintf("minus (right side materialised) on (%s)", c.varList(o.shared)), []op{o.left, o.right}
	case *isolateOp:
		return fmt.Sprintf("hash-join %s evaluated alone, keys (%s)", o.label, c.varList(o.keys)), []op{o.child}
	case *graphOp:
		if o.slot >= 0 {
			return "graph " + c.names[o.slot].String(), []op{o.input}
		}
		return "graph " + algebra.FormatTerm(c.ev.term(c.ctx, o.id)), []op{o.input}
	case *extendOp:
		return fmt.Sprintf("extend %s := %s", o.src.Var.String(), o.src.Expr.String()), []op{o.input}
	case *tableOp:
		return fmt.Sprintf("table (%s) %d rows", c.varList(o.slots), len(o.rows)), nil
	case *groupOp:
		return o.label(c), []op{o.input}
	case *orderOp:
		if o.keep >= 0 {
			return fmt.Sprintf("top-k %d (bounded heap) by %d keys", o.keep, len(o.keys)), []op{o.input}
		}
		return fmt.Sprintf("order by %d keys", len(o.keys)), []op{o.input}
	case *projectOp:
		return fmt.Sprintf("project (%s)", c.varList(o.slots)), []op{o.input}
	case *distinctOp:
		if o.reduced {
			return "reduced (hash set)", []op{o.input}
		}
		return "distinct (hash set)", []op{o.input}
	case *sliceOp:
		return fmt.Sprintf("slice offset=%d limit=%d", o.offset, o.limit), []op{o.input}
	}
	return fmt.Sprintf("%T", o), nil
}

// explainSteps writes the steps of a BGP in execution order, indented one level past ind: the join
// method, the triple pattern and the planner's estimates, then the filters applied after the step.
func explainSteps(b *strings.Builder, o *bgpOp, ind string) {
	for _, t := range o.triples {
		how := "lookup"
		if t.hash {
			how = "hash"
		}
		fmt.Fprintf(b, "%s  %-6s %s %s %s  est=%d fan=%.1f rows=%.0f\n", ind, how, t.src.Subject, t.src.Predicate, t.src.Object, t.est, t.fan, t.rows)
		for _, f := range t.fsrc {
			fmt.Fprintf(b, "%s         filter %s\n", ind, f)
		}
	}
}

// label returns the description of a grouping: its keys (a variable, or exprN for the N-th key
// when it is an expression) and its aggregates (slot=name, with " distinct" when so).
func (o *groupOp) label(c *compiler) string {
	var by []string
	for i, s := range o.bySlot {
		if s >= 0 {
			by = append(by, c.names[s].String())
		} else {
			by = append(by, fmt.Sprintf("expr%d", i))
		}
	}
	var aggs []string
	for _, a := range o.aggs {
		d := ""
		if a.distinct {
			d = " distinct"
		}
		aggs = append(aggs, fmt.Sprintf("%s=%s%s", c.names[a.slot].String(), strings.ToLower(a.name), d))
	}
	return fmt.Sprintf("group (%s) aggregates (%s)", strings.Join(by, " "), strings.Join(aggs, " "))
}

// varList returns the names of the variables of slots, separated by spaces.
func (c *compiler) varList(slots []int) string {
	var s []string
	for _, x := range slots {
		s = append(s, c.names[x].String())
	}
	return strings.Join(s, " ")
}

func (o *pathOp) pathString(c *compiler) string {
	term := func(p pos) string {
		if p.slot >= 0 {
			return c.names[p.slot].String()
		}
		return algebra.FormatTerm(c.ev.term(c.ctx, p.id))
	}
	return term(o.s) + " " + o.p.kindString() + " " + term(o.o)
}

func (p *cpath) kindString() string {
	switch p.kind {
	case 'l':
		return "link"
	case 'i':
		return "(inv " + p.left.kindString() + ")"
	case 's':
		return "(seq " + p.left.kindString() + " " + p.right.kindString() + ")"
	case 'a':
		return "(alt " + p.left.kindString() + " " + p.right.kindString() + ")"
	case '!':
		return fmt.Sprintf("(notoneof %d)", len(p.ids))
	}
	return "(path" + string(p.kind) + " " + p.left.kindString() + ")"
}
