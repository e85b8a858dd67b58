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

func explainOp(b *strings.Builder, o op, depth int, c *compiler) {
	ind := strings.Repeat("  ", depth)
	line := func(format string, args ...any) { fmt.Fprintf(b, ind+format+"\n", args...) }
	vars := func(slots []int) string {
		var s []string
		for _, x := range slots {
			s = append(s, c.names[x].String())
		}
		return strings.Join(s, " ")
	}
	switch o := o.(type) {
	case *bgpOp:
		line("bgp")
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
	case *pathOp:
		line("path %s", o.pathString(c))
	case *joinOp:
		line("join (nested loop, bindings passed right)")
		explainOp(b, o.left, depth+1, c)
		explainOp(b, o.right, depth+1, c)
	case *leftJoinOp:
		if o.expr != nil {
			line("leftjoin (with filter)")
		} else {
			line("leftjoin")
		}
		explainOp(b, o.left, depth+1, c)
		explainOp(b, o.right, depth+1, c)
	case *filterOp:
		var es []string
		for _, e := range o.src {
			es = append(es, e.String())
		}
		line("filter %s", strings.Join(es, " "))
		explainOp(b, o.input, depth+1, c)
	case *unionOp:
		line("union")
		explainOp(b, o.left, depth+1, c)
		explainOp(b, o.right, depth+1, c)
	case *minusOp:
		line("minus (right side materialised) on (%s)", vars(o.shared))
		explainOp(b, o.left, depth+1, c)
		explainOp(b, o.right, depth+1, c)
	case *isolateOp:
		line("hash-join %s evaluated alone, keys (%s)", o.label, vars(o.keys))
		explainOp(b, o.child, depth+1, c)
	case *graphOp:
		if o.slot >= 0 {
			line("graph %s", c.names[o.slot].String())
		} else {
			line("graph %s", algebra.FormatTerm(c.ev.term(c.ctx, o.id)))
		}
		explainOp(b, o.input, depth+1, c)
	case *extendOp:
		line("extend %s := %s", o.src.Var.String(), o.src.Expr.String())
		explainOp(b, o.input, depth+1, c)
	case *tableOp:
		line("table (%s) %d rows", vars(o.slots), len(o.rows))
	case *groupOp:
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
		line("group (%s) aggregates (%s)", strings.Join(by, " "), strings.Join(aggs, " "))
		explainOp(b, o.input, depth+1, c)
	case *orderOp:
		if o.keep >= 0 {
			line("top-k %d (bounded heap) by %d keys", o.keep, len(o.keys))
		} else {
			line("order by %d keys", len(o.keys))
		}
		explainOp(b, o.input, depth+1, c)
	case *projectOp:
		line("project (%s)", vars(o.slots))
		explainOp(b, o.input, depth+1, c)
	case *distinctOp:
		if o.reduced {
			line("reduced (hash set)")
		} else {
			line("distinct (hash set)")
		}
		explainOp(b, o.input, depth+1, c)
	case *sliceOp:
		line("slice offset=%d limit=%d", o.offset, o.limit)
		explainOp(b, o.input, depth+1, c)
	default:
		line("%T", o)
	}
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
