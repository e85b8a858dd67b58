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
// several times what common expressions need (a loop leaves at most an
// entry per character it repeats over, and none where what follows it
// cannot start, plus one per group it sets in an iteration); going beyond
// is a budget error, as running out of steps is.
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
	// look (btSplit) tells when out (look[0]) and alt (look[1]) fail at
	// once, so that the choice need not be pushed.
	look [2]btLook
	rune *syntax.Inst // btRune
	fold bool         // btBackref: compare case-insensitively
}

// btLook is what a branch needs at the position it starts from: the
// assertions (empty) and the character (rune, unless nil) its first steps,
// up to the first character, require; fails: it matches nothing. A branch
// that starts with anything else (a choice, a back-reference, the end of
// the match) gets the zero btLook, which asks nothing.
type btLook struct {
	empty syntax.EmptyOp
	rune  *syntax.Inst
	fails bool
}

// lookFrom returns the btLook of a branch that starts at pc.
func (p *btProg) lookFrom(pc int) btLook {
	var l btLook
	for range len(p.inst) {
		switch in := &p.inst[pc]; in.op {
		case btSave:
			pc = in.out
			continue
		case btEmpty:
			l.empty |= syntax.EmptyOp(in.arg)
			pc = in.out
			continue
		case btRune:
			l.rune = in.rune
		case btFail:
			l.fails = true
		}
		break
	}
	return l
}

// viable reports whether l lets a branch match at pos of s.
func (l *btLook) viable(s string, pos int) bool {
	if l.fails {
		return false
	}
	if l.empty != 0 {
		r1, r2 := rune(-1), rune(-1)
		if pos > 0 {
			r1, _ = utf8.DecodeLastRuneInString(s[:pos])
		}
		if pos < len(s) {
			r2, _ = utf8.DecodeRuneInString(s[pos:])
		}
		if syntax.EmptyOpContext(r1, r2)&l.empty != l.empty {
			return false
		}
	}
	if l.rune != nil {
		if pos >= len(s) {
			return false
		}
		r := rune(s[pos])
		if r >= utf8.RuneSelf {
			r, _ = utf8.DecodeRuneInString(s[pos:])
		}
		return l.rune.MatchRune(r)
	}
	return true
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
	for pc := range p.inst {
		if in := &p.inst[pc]; in.op == btSplit {
			in.look = [2]btLook{p.lookFrom(in.out), p.lookFrom(in.alt)}
		}
	}
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

// btStack is the backtracking stack: blocks of btBlock frames (the first
// grows up to that size), so that a deep stack is allocated once, not
// copied as it grows (an append-grown slice allocates about five times its
// final size on the way).
type btStack struct {
	blocks [][]btFrame
	n      int // frames on the stack
}

const btBlockShift = 12

const btBlock = 1 << btBlockShift

func (st *btStack) push(f btFrame) {
	i, j := st.n>>btBlockShift, st.n&(btBlock-1)
	if i == len(st.blocks) {
		c := btBlock
		if i == 0 {
			c = 4
		}
		st.blocks = append(st.blocks, make([]btFrame, 0, c))
	}
	if b := st.blocks[i]; j < len(b) {
		b[j] = f
	} else {
		st.blocks[i] = append(b, f)
	}
	st.n++
}

func (st *btStack) pop() btFrame {
	st.n--
	return st.blocks[st.n>>btBlockShift][st.n&(btBlock-1)]
}

// btMachine runs a btProg over one text, within a step budget.
//
// A register set needs a frame to restore it only when a choice is on the
// stack, and only once after the topmost choice: saved[r] is the index of
// the frame that restores register r, if it is still on the stack, and
// base the index above the topmost choice.
type btMachine struct {
	p        *btProg
	s        string
	regs     []int
	saved    []int
	base     int
	choices  int // choices on the stack
	stack    btStack
	budget   int // steps left
	maxStack int // entries the stack may hold
}

func (p *btProg) machine(s string) *btMachine {
	m := &btMachine{p: p, s: s, regs: make([]int, p.nregs), saved: make([]int, p.nregs), budget: btBudget(len(s)), maxStack: btStackBase + btStackPerByte*len(s)}
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

// push pushes a choice: resume at pc and pos.
func (m *btMachine) push(pc, pos int) {
	m.stack.push(btFrame{int32(pc), int32(pos)})
	m.choices++
	m.base = m.stack.n
}

// set sets register reg to v, pushing a frame to restore it when a choice
// could need its old value.
func (m *btMachine) set(reg, v int) {
	if m.choices > 0 && m.saved[reg] < m.base {
		m.saved[reg] = m.stack.n
		m.stack.push(btFrame{int32(-reg - 1), int32(m.regs[reg])})
	}
	m.regs[reg] = v
}

// run matches the program anchored at pos.
func (m *btMachine) run(pos int) (bool, error) {
	for i := range m.regs {
		m.regs[i], m.saved[i] = -1, -1
	}
	m.stack.n, m.base, m.choices = 0, 0, 0
	m.regs[0] = pos
	s, inst := m.s, m.p.inst
	pc := m.p.start
	for {
		m.budget--
		if m.budget < 0 {
			return false, errBudget
		}
		if m.stack.n > m.maxStack {
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
			// A branch that fails at once is not tried (nor pushed).
			switch {
			case !in.look[1].viable(s, pos):
				pc = in.out
			case !in.look[0].viable(s, pos):
				pc = in.alt
			default:
				m.push(in.alt, pos)
				pc = in.out
			}
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
			if m.stack.n == 0 {
				return false, nil
			}
			f := m.stack.pop()
			if f.pc < 0 {
				m.regs[-f.pc-1], m.saved[-f.pc-1] = int(f.pos), -1
				continue
			}
			m.choices--
			m.base = m.stack.n
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
