package builtin

import (
	"errors"
	"math"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// backrefPrefix names the empty RE2 capture groups the translator writes for
// back-references: (?P<br3_1>) is the third back-reference of the
// expression, to group 1. XPath has no named groups, so no expression of
// the user's can clash with them.
const backrefPrefix = "br"

// btStepBudget and btStepsPerByte bound the work of one REGEX or REPLACE
// call on an expression with back-references: the backtracking matcher they
// need can take time exponential in the length of the text ((a*)*\1b on a
// run of a), and running out of steps is an error rather than a hang. A
// call may take btStepBudget steps plus btStepsPerByte per byte of the
// text (btBudget), so that common expressions, which take a few steps per
// byte ((a)\1, (\w+)\s\1), run on texts of any length, and the time an
// expression that backtracks without end takes is linear in the length of
// the text (some seconds for 5 MB). A back-reference costs a step, and a
// step per 8 bytes it compares (per byte with the i flag).
const (
	btStepBudget   = 1 << 22
	btStepsPerByte = 32
)

// btStackBase and btStackPerByte bound the backtracking stack (8 bytes an
// entry): btStackBase entries plus btStackPerByte per byte of the text,
// several times what common expressions need (a greedy loop leaves about
// two entries per character it repeats over); going beyond is a budget
// error, as running out of steps is.
const (
	btStackBase    = 1 << 20
	btStackPerByte = 8
)

// btBudget returns the number of steps a call may take on a text of n bytes.
func btBudget(n int) int { return btStepBudget + btStepsPerByte*n }

// errBudget and errStack are the matcher's internal signals that the step
// budget ran out, or the stack outgrew its bound.
var (
	errBudget = errors.New("step budget exhausted")
	errStack  = errors.New("backtracking stack too deep")
)

// btProg is a backtracking matcher for the translated expressions RE2
// cannot run, those with back-references. It runs the program Go's regexp
// compiles (syntax.Compile) with the rule Go's matchers follow for loops
// whose body can match the empty string: a path that comes back to a
// choice it is still exploring without consuming any text fails. So it
// agrees with Go's regexp on expressions without back-references, groups
// included (TestBacktrack_AgreesWithRegexp, TestBacktrack_RandomAgreesWithRegexp,
// FuzzBacktrack_AgreesWithRegexp).
type btProg struct {
	inst  []btInst
	start int
	nregs int   // capture slots (2 per RE2 group, group 0 included), then 1 per marked choice
	caps  []int // caps[i]: the RE2 group of the user's group i (caps[0] = 0)
	// anchored: the expression starts with ^ (without the m flag), so a
	// match can start only at the start of the text.
	anchored bool
}

type btOp uint8

const (
	btMatch   btOp = iota
	btFail         // matches nothing
	btRune         // one character (rune: the instruction of Go's program)
	btEmpty        // an empty-width assertion (arg: syntax.EmptyOp)
	btSave         // regs[arg] = position
	btSplit        // try out, then alt
	btBackref      // the text of RE2 group arg (the empty string if it did not take part)
)

type btInst struct {
	op  btOp
	out int
	alt int
	arg int
	// mark (btSplit) is the register that holds the position at which the
	// current path entered the choice, for a choice on a loop whose body
	// can match the empty string; -1 for the others.
	mark int
	rune *syntax.Inst // btRune
	fold bool         // btBackref: compare case-insensitively
}

// compileBacktrack compiles a translated expression (RE2 syntax, with
// back-references written as empty named groups) for the backtracking
// matcher; fold is the i flag (back-references compare case-insensitively).
func compileBacktrack(src string, fold bool) (*btProg, error) {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil, err
	}
	// The user's groups are the unnamed ones, in the order RE2 numbers
	// them; a named one is a back-reference to the group its name ends
	// with.
	names := re.CapNames()
	p := &btProg{caps: []int{0}}
	for c := 1; c < len(names); c++ {
		if names[c] == "" {
			p.caps = append(p.caps, c)
		}
	}
	backref := make([]int, len(names)) // per RE2 group: the group it refers to, or -1
	for c, name := range names {
		backref[c] = -1
		if strings.HasPrefix(name, backrefPrefix) {
			_, n, _ := strings.Cut(name, "_")
			g := 0
			for _, d := range n {
				g = g*10 + int(d-'0')
			}
			backref[c] = p.caps[g]
		}
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil, err
	}
	p.nregs = 2 * len(names)
	p.anchored = prog.StartCond()&syntax.EmptyBeginText != 0
	// skip follows pc past the instructions that do nothing here: no-ops,
	// and the second capture instruction of a back-reference (the first
	// is the back-reference).
	skip := func(pc uint32) int {
		for range len(prog.Inst) {
			in := &prog.Inst[pc]
			if in.Op != syntax.InstNop && (in.Op != syntax.InstCapture || in.Arg%2 == 0 || backref[in.Arg/2] < 0) {
				break
			}
			pc = in.Out
		}
		return int(pc)
	}
	p.inst = make([]btInst, len(prog.Inst))
	for pc := range prog.Inst {
		in := &prog.Inst[pc]
		bi := btInst{op: btFail, out: skip(in.Out), mark: -1}
		switch in.Op {
		case syntax.InstMatch:
			bi.op = btMatch
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			bi.op, bi.rune = btRune, in
		case syntax.InstEmptyWidth:
			bi.op, bi.arg = btEmpty, int(in.Arg)
		case syntax.InstCapture:
			bi.op, bi.arg = btSave, int(in.Arg)
			if g := backref[in.Arg/2]; g >= 0 {
				bi.op, bi.arg, bi.fold = btBackref, g, fold
			}
		case syntax.InstAlt, syntax.InstAltMatch:
			bi.op, bi.alt = btSplit, skip(in.Arg)
		}
		p.inst[pc] = bi
	}
	p.start = skip(uint32(prog.Start))
	p.markLoops()
	return p, nil
}

// markLoops gives a register (mark) to each choice that lies on a cycle of
// instructions that consume no text, around which a path could come back to
// it at the same position: the choices in the strongly connected components
// of more than one instruction of the graph of such steps (Tarjan's
// algorithm).
func (p *btProg) markLoops() {
	n := len(p.inst)
	index, low := make([]int, n), make([]int, n)
	onStack := make([]bool, n)
	var stack []int
	next := 1
	var visit func(v int)
	visit = func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		in := &p.inst[v]
		var succ []int
		switch in.op {
		case btSplit:
			succ = []int{in.out, in.alt}
		case btEmpty, btSave, btBackref: // a back-reference to an empty group consumes nothing
			succ = []int{in.out}
		}
		for _, w := range succ {
			if index[w] == 0 {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		i := len(stack) - 1
		for stack[i] != v {
			i--
		}
		comp := stack[i:]
		stack = stack[:i]
		for _, w := range comp {
			onStack[w] = false
			if len(comp) > 1 && p.inst[w].op == btSplit {
				p.inst[w].mark = p.nregs
				p.nregs++
			}
		}
	}
	for v := range n {
		if index[v] == 0 {
			visit(v)
		}
	}
}

// btFrame is an entry of the backtracking stack: a choice to resume (pc >=
// 0) or a register to restore (regs[-pc-1] = pos). Texts longer than
// math.MaxInt32 bytes are refused (machine).
type btFrame struct{ pc, pos int32 }

// btMachine runs a btProg over one text, within a step budget.
type btMachine struct {
	p        *btProg
	s        string
	regs     []int
	stack    []btFrame
	budget   int // steps left
	maxStack int // entries the stack may hold
}

func (p *btProg) machine(s string) *btMachine {
	m := &btMachine{p: p, s: s, regs: make([]int, p.nregs), budget: btBudget(len(s)), maxStack: btStackBase + btStackPerByte*len(s)}
	if len(s) > math.MaxInt32 {
		m.budget = 0 // positions would not fit a btFrame
	}
	return m
}

// find returns the leftmost-first match starting at or after from, with its
// groups as RE2 numbers them, or nil.
func (m *btMachine) find(from int) ([]int, error) {
	for pos := from; pos <= len(m.s); {
		if m.p.anchored && pos > 0 {
			break
		}
		ok, err := m.run(pos)
		if err != nil {
			return nil, err
		}
		if ok {
			return m.regs, nil
		}
		if pos == len(m.s) {
			break
		}
		_, w := utf8.DecodeRuneInString(m.s[pos:])
		pos += w
	}
	return nil, nil
}

func (m *btMachine) push(pc, pos int) { m.stack = append(m.stack, btFrame{int32(pc), int32(pos)}) }

func (m *btMachine) set(reg, v int) {
	m.push(-reg-1, m.regs[reg])
	m.regs[reg] = v
}

// run matches the program anchored at pos.
func (m *btMachine) run(pos int) (bool, error) {
	for i := range m.regs {
		m.regs[i] = -1
	}
	m.stack = m.stack[:0]
	m.regs[0] = pos
	s, inst := m.s, m.p.inst
	pc := m.p.start
	for {
		m.budget--
		if m.budget < 0 {
			return false, errBudget
		}
		if len(m.stack) > m.maxStack {
			return false, errStack
		}
		in := &inst[pc]
		ok := true
		switch in.op {
		case btMatch:
			m.regs[1] = pos
			return true, nil
		case btFail:
			ok = false
		case btRune:
			ok = false
			if pos < len(s) {
				r, w := rune(s[pos]), 1
				if r >= utf8.RuneSelf {
					r, w = utf8.DecodeRuneInString(s[pos:])
				}
				if in.rune.MatchRune(r) {
					pos += w
					pc = in.out
					ok = true
				}
			}
		case btEmpty:
			r1, r2 := rune(-1), rune(-1)
			if pos > 0 {
				r1, _ = utf8.DecodeLastRuneInString(s[:pos])
			}
			if pos < len(s) {
				r2, _ = utf8.DecodeRuneInString(s[pos:])
			}
			op := syntax.EmptyOp(in.arg)
			ok = syntax.EmptyOpContext(r1, r2)&op == op
			pc = in.out
		case btSave:
			m.set(in.arg, pos)
			pc = in.out
		case btSplit:
			if in.mark >= 0 {
				if m.regs[in.mark] == pos {
					// Back at a choice this path is exploring, with no
					// text consumed since: a loop's empty iteration.
					ok = false
					break
				}
				m.set(in.mark, pos)
			}
			m.push(in.alt, pos)
			pc = in.out
		case btBackref:
			st, en := m.regs[2*in.arg], m.regs[2*in.arg+1]
			if st >= 0 && en > st {
				// What it may compare: without the i flag nothing when
				// the rest of the text is too short.
				if n := en - st; in.fold {
					m.budget -= min(n, len(s)-pos)
				} else if n <= len(s)-pos {
					m.budget -= n / 8
				}
				pos, ok = matchBackref(s, pos, s[st:en], in.fold)
			}
			pc = in.out
		}
		if ok {
			continue
		}
		// Backtrack: undo register changes up to the last choice.
		for {
			if len(m.stack) == 0 {
				return false, nil
			}
			f := m.stack[len(m.stack)-1]
			m.stack = m.stack[:len(m.stack)-1]
			if f.pc < 0 {
				m.regs[-f.pc-1] = int(f.pos)
				continue
			}
			pc, pos = int(f.pc), int(f.pos)
			break
		}
	}
}

// matchBackref matches text at pos of s, case-insensitively (simple case
// folding, as the i flag matches characters) when fold is set, and returns
// the position after it.
func matchBackref(s string, pos int, text string, fold bool) (int, bool) {
	if !fold {
		if strings.HasPrefix(s[pos:], text) {
			return pos + len(text), true
		}
		return pos, false
	}
	for _, want := range text {
		if pos >= len(s) {
			return pos, false
		}
		r, w := utf8.DecodeRuneInString(s[pos:])
		if r != want && !foldEqual(r, want) {
			return pos, false
		}
		pos += w
	}
	return pos, true
}

func foldEqual(a, b rune) bool {
	for f := unicode.SimpleFold(a); f != a; f = unicode.SimpleFold(f) {
		if f == b {
			return true
		}
	}
	return false
}
