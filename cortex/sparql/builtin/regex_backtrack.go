package builtin

import (
	"errors"
	"math"
	"regexp/syntax"
	"slices"
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
// cannot run, those with back-references. It follows Go's regexp on
// everything else (leftmost-first matching, the same submatches, and the
// rule of Go's compiler for loops whose body can match the empty string:
// x* is (x+)?, and an iteration of x+ that matches the empty string ends
// the loop if it is the first and fails otherwise), so that it agrees with
// Go's regexp on expressions without back-references
// (TestBacktrack_AgreesWithRegexp, FuzzBacktrack_AgreesWithRegexp).
type btProg struct {
	inst  []btInst
	start int
	nregs int   // capture slots (2 per RE2 group, group 0 included), then 2 per loop
	caps  []int // caps[i]: the RE2 group of the user's group i (caps[0] = 0)
	// anchored: the expression starts with ^ (without the m flag), so a
	// match can start only at the start of the text.
	anchored bool
}

type btOp uint8

const (
	btMatch    btOp = iota
	btFail          // matches nothing
	btRune          // one character in runes (sorted lo, hi pairs)
	btEmpty         // an empty-width assertion (arg: syntax.EmptyOp)
	btSave          // regs[arg] = position
	btSplit         // try out, then alt
	btBackref       // the text of RE2 group arg (the empty string if it did not take part)
	btLoopInit      // regs[arg] = 1: the next iteration of a loop is its first
	btLoopIter      // regs[arg+1] = position: an iteration starts
	btLoopEnd       // an iteration ended: loop to out or leave to alt
)

type btInst struct {
	op     btOp
	out    int
	alt    int
	arg    int
	runes  []rune
	fold   bool // btBackref: compare case-insensitively
	greedy bool // btLoopEnd
}

// compileBacktrack compiles a translated expression (RE2 syntax, with
// back-references written as empty named groups) for the backtracking
// matcher; fold is the i flag (back-references compare case-insensitively).
func compileBacktrack(src string, fold bool) (*btProg, error) {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil, err
	}
	// The user's groups are the unnamed ones, in the order RE2 numbers them.
	p := &btProg{caps: []int{0}}
	var groups func(re *syntax.Regexp)
	var named []bool
	groups = func(re *syntax.Regexp) {
		if re.Op == syntax.OpCapture {
			for len(named) <= re.Cap {
				named = append(named, false)
			}
			named[re.Cap] = re.Name != ""
		}
		for _, sub := range re.Sub {
			groups(sub)
		}
	}
	groups(re)
	for c := 1; c < len(named); c++ {
		if !named[c] {
			p.caps = append(p.caps, c)
		}
	}
	p.nregs = 2 * len(named)
	if p.nregs == 0 {
		p.nregs = 2
	}
	re = re.Simplify()
	first := re
	for first.Op == syntax.OpConcat && len(first.Sub) > 0 {
		first = first.Sub[0]
	}
	p.anchored = first.Op == syntax.OpBeginText
	match := p.emit(btInst{op: btMatch})
	body := p.compile(re, match, fold)
	// Group 0 is the whole match.
	p.start = p.emit(btInst{op: btSave, arg: 0, out: body})
	p.inst[match] = btInst{op: btSave, arg: 1, out: p.emit(btInst{op: btMatch})}
	return p, nil
}

func (p *btProg) emit(in btInst) int {
	p.inst = append(p.inst, in)
	return len(p.inst) - 1
}

// compile emits the instructions of re followed by next and returns the
// first.
func (p *btProg) compile(re *syntax.Regexp, next int, fold bool) int {
	switch re.Op {
	case syntax.OpNoMatch:
		return p.emit(btInst{op: btFail})
	case syntax.OpEmptyMatch:
		return next
	case syntax.OpLiteral:
		for i := len(re.Rune) - 1; i >= 0; i-- {
			r := re.Rune[i]
			runes := []rune{r, r}
			if re.Flags&syntax.FoldCase != 0 {
				for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
					runes = append(runes, f, f)
				}
				runes = sortRanges(runes)
			}
			next = p.emit(btInst{op: btRune, runes: runes, out: next})
		}
		return next
	case syntax.OpCharClass:
		return p.emit(btInst{op: btRune, runes: re.Rune, out: next})
	case syntax.OpAnyCharNotNL:
		return p.emit(btInst{op: btRune, runes: []rune{0, '\n' - 1, '\n' + 1, unicode.MaxRune}, out: next})
	case syntax.OpAnyChar:
		return p.emit(btInst{op: btRune, runes: []rune{0, unicode.MaxRune}, out: next})
	case syntax.OpBeginLine:
		return p.emit(btInst{op: btEmpty, arg: int(syntax.EmptyBeginLine), out: next})
	case syntax.OpEndLine:
		return p.emit(btInst{op: btEmpty, arg: int(syntax.EmptyEndLine), out: next})
	case syntax.OpBeginText:
		return p.emit(btInst{op: btEmpty, arg: int(syntax.EmptyBeginText), out: next})
	case syntax.OpEndText:
		return p.emit(btInst{op: btEmpty, arg: int(syntax.EmptyEndText), out: next})
	case syntax.OpWordBoundary:
		return p.emit(btInst{op: btEmpty, arg: int(syntax.EmptyWordBoundary), out: next})
	case syntax.OpNoWordBoundary:
		return p.emit(btInst{op: btEmpty, arg: int(syntax.EmptyNoWordBoundary), out: next})
	case syntax.OpCapture:
		if strings.HasPrefix(re.Name, backrefPrefix) {
			_, n, _ := strings.Cut(re.Name, "_")
			g := 0
			for _, c := range n {
				g = g*10 + int(c-'0')
			}
			return p.emit(btInst{op: btBackref, arg: p.caps[g], fold: fold, out: next})
		}
		end := p.emit(btInst{op: btSave, arg: 2*re.Cap + 1, out: next})
		body := p.compile(re.Sub[0], end, fold)
		return p.emit(btInst{op: btSave, arg: 2 * re.Cap, out: body})
	case syntax.OpConcat:
		for i := len(re.Sub) - 1; i >= 0; i-- {
			next = p.compile(re.Sub[i], next, fold)
		}
		return next
	case syntax.OpAlternate:
		entry := p.compile(re.Sub[len(re.Sub)-1], next, fold)
		for i := len(re.Sub) - 2; i >= 0; i-- {
			first := p.compile(re.Sub[i], next, fold)
			entry = p.emit(btInst{op: btSplit, out: first, alt: entry})
		}
		return entry
	case syntax.OpQuest:
		return p.quest(p.compile(re.Sub[0], next, fold), next, re.Flags&syntax.NonGreedy == 0)
	case syntax.OpPlus:
		return p.plus(re.Sub[0], next, re.Flags&syntax.NonGreedy == 0, fold)
	case syntax.OpStar:
		// As Go's compiler does when x can match the empty string: (x+)?.
		greedy := re.Flags&syntax.NonGreedy == 0
		return p.quest(p.plus(re.Sub[0], next, greedy, fold), next, greedy)
	}
	// Simplify leaves no OpRepeat, and the translator writes no other op.
	return p.emit(btInst{op: btFail})
}

func (p *btProg) quest(body, next int, greedy bool) int {
	if greedy {
		return p.emit(btInst{op: btSplit, out: body, alt: next})
	}
	return p.emit(btInst{op: btSplit, out: next, alt: body})
}

func (p *btProg) plus(sub *syntax.Regexp, next int, greedy, fold bool) int {
	reg := p.nregs
	p.nregs += 2
	end := p.emit(btInst{op: btLoopEnd, arg: reg, alt: next, greedy: greedy})
	body := p.compile(sub, end, fold)
	iter := p.emit(btInst{op: btLoopIter, arg: reg, out: body})
	p.inst[end].out = iter
	return p.emit(btInst{op: btLoopInit, arg: reg, out: iter})
}

func sortRanges(r []rune) []rune {
	pairs := make([][2]rune, 0, len(r)/2)
	for i := 0; i+1 < len(r); i += 2 {
		pairs = append(pairs, [2]rune{r[i], r[i+1]})
	}
	slices.SortFunc(pairs, func(a, b [2]rune) int { return int(a[0] - b[0]) })
	out := r[:0]
	for _, q := range pairs {
		out = append(out, q[0], q[1])
	}
	return out
}

func inRanges(r rune, ranges []rune) bool {
	for i := 0; i+1 < len(ranges); i += 2 {
		if r < ranges[i] {
			return false
		}
		if r <= ranges[i+1] {
			return true
		}
	}
	return false
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
			return true, nil
		case btFail:
			ok = false
		case btRune:
			ok = false
			if pos < len(s) {
				r, w := utf8.DecodeRuneInString(s[pos:])
				if inRanges(r, in.runes) {
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
		case btLoopInit:
			m.set(in.arg, 1)
			pc = in.out
		case btLoopIter:
			m.set(in.arg+1, pos)
			pc = in.out
		case btLoopEnd:
			if pos == m.regs[in.arg+1] {
				// An empty iteration: the first leaves the loop, a later
				// one fails, as in Go's regexp.
				if m.regs[in.arg] == 1 {
					pc = in.alt
				} else {
					ok = false
				}
				break
			}
			if m.regs[in.arg] == 1 {
				m.set(in.arg, 0)
			}
			if in.greedy {
				m.push(in.alt, pos)
				pc = in.out
			} else {
				m.push(in.out, pos)
				pc = in.alt
			}
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
