package spec

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxQuoted is the most of a name that a problem's message quotes: a
// name may be quoted in a message for each of many entries (a team's
// for each agent it lists), so a long one would make the messages grow
// with its length times their number.
const maxQuoted = 100

// clip returns s, or its first maxQuoted bytes (whole runes) and "…".
func clip(s string) string {
	if len(s) <= maxQuoted {
		return s
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// quote returns s quoted for a message, as %q does, its first maxQuoted
// bytes only (and "…" after the quotes) if it is longer.
func quote(s string) string {
	if c := clip(s); c != s {
		return strconv.Quote(strings.TrimSuffix(c, "…")) + "…"
	}
	return strconv.Quote(s)
}

// elide joins names with sep, each clipped: up to 10 names all, more as
// the first 5, "…" and the last 3 (a cycle or a list of candidates may
// name thousands).
func elide(names []string, sep string) string {
	if len(names) > 10 {
		names = append(append(names[:5:5], "…"), names[len(names)-3:]...)
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = clip(n)
	}
	return strings.Join(out, sep)
}

// lineAt returns the line recorded for path, or for its nearest ancestor.
func (d *decoder) lineAt(path string) int {
	for {
		if l, ok := d.lines[path]; ok && l > 0 {
			return l
		}
		i := strings.LastIndexByte(path, '/')
		if i < 0 {
			return 0
		}
		path = path[:i]
	}
}

func (d *decoder) errAt(path, format string, args ...interface{}) {
	d.report(SeverityError, d.lineAt(path), path, format, args...)
}

func (d *decoder) warnAt(path, format string, args ...interface{}) {
	d.report(SeverityWarning, d.lineAt(path), path, format, args...)
}

// members resolves agent references against a team's agents list.
type members struct {
	exact map[string]bool
	bare  map[string][]string // unqualified name → team entries with it
}

func newMembers(agents []string) members {
	m := members{exact: map[string]bool{}, bare: map[string][]string{}}
	for _, a := range agents {
		m.exact[a] = true
		_, name := SplitQualified(a)
		m.bare[name] = append(m.bare[name], a)
	}
	return m
}

// has reports whether ref names a team agent: an entry as written, or the
// unqualified name of exactly one qualified entry.
// entry returns the team's entry that ref names ("" if none, or if a bare
// name is ambiguous).
func (m members) entry(ref string) string {
	if m.exact[ref] {
		return ref
	}
	if !strings.Contains(ref, "/") && len(m.bare[ref]) == 1 {
		return m.bare[ref][0]
	}
	return ""
}

func (m members) has(ref string) bool {
	if m.exact[ref] {
		return true
	}
	return !strings.Contains(ref, "/") && len(m.bare[ref]) == 1
}

// checkTeam applies the rules that need only the team itself.
func (d *decoder) checkTeam(t *Team) {
	seen := map[string]int{}
	for i, a := range t.Agents {
		p := index("/agents", i)
		switch {
		case strings.TrimSpace(a) == "":
			d.errAt(p, "agent name must not be empty")
		case strings.HasPrefix(a, "/") || strings.HasSuffix(a, "/"):
			d.errAt(p, "agent reference %q must be name or namespace/name", a)
		case strings.IndexFunc(a, unicode.IsControl) >= 0:
			d.errAt(p, "agent reference %q must not contain control characters", a)
		}
		if j, dup := seen[a]; dup {
			d.errAt(p, "duplicate agent %q (also at /agents/%d)", a, j)
			continue
		}
		seen[a] = i
	}
	m := newMembers(t.Agents)
	notMember := func(p, what, ref string) {
		d.errAt(p, "%s %q is not one of the team's agents", what, ref)
	}
	if t.Orchestrator != "" && !m.has(t.Orchestrator) {
		notMember("/orchestrator", "orchestrator", t.Orchestrator)
	}
	c := t.Collaboration
	if c != nil {
		if c.Lead != "" && !m.has(c.Lead) {
			notMember("/collaboration/lead", "lead", c.Lead)
		}
		lead := m.entry(t.Lead())
		for i, s := range c.Specialists {
			switch {
			case !m.has(s):
				notMember(index("/collaboration/specialists", i), "specialist", s)
			case lead != "" && m.entry(s) == lead:
				// The schema allows it, but specialists do not delegate and
				// the lead does: a crew's run refuses it (workflow.Def).
				d.warnAt(index("/collaboration/specialists", i), "specialist %q is the crew's lead: specialists do not delegate, the lead does (workflows run refuses such a crew)", s)
			}
		}
		if cs := c.Consensus; cs != nil && cs.TieBreaker != "" {
			p := "/collaboration/consensus/tie_breaker"
			switch {
			case cs.TieBreaker == LeadAgent && !m.has(LeadAgent):
				if t.Lead() == "" {
					d.errAt(p, "tie_breaker \"lead\" needs a lead (collaboration.lead or orchestrator)")
				}
			case !m.has(cs.TieBreaker):
				notMember(p, "tie_breaker", cs.TieBreaker)
			}
		}
		names := map[string]int{}
		for i, ch := range c.Channels {
			p := index("/collaboration/channels", i)
			if j, dup := names[ch.Name]; dup && ch.Name != "" {
				d.errAt(child(p, "name"), "duplicate channel %q (also at /collaboration/channels/%d)", ch.Name, j)
			} else {
				names[ch.Name] = i
			}
			for k, part := range ch.Participants {
				if part != AllAgents && !m.has(part) {
					notMember(index(child(p, "participants"), k), "participant", part)
				}
			}
		}
	}
	switch wp := "/workflow/type"; t.WorkflowType() {
	case WorkflowCrew:
		if t.Lead() == "" {
			d.errAt(wp, "a crew needs a lead: set collaboration.lead or orchestrator")
		}
	case WorkflowSwarm:
		if (c == nil || !c.TaskQueue) && !t.SelfClaim {
			d.errAt(wp, "a swarm needs a task queue: set collaboration.task_queue or self_claim")
		}
	case WorkflowCouncil:
		if c == nil || c.Consensus == nil {
			d.errAt(wp, "a council needs collaboration.consensus")
		}
	}
	d.checkSteps(t, m)
}

func (d *decoder) checkSteps(t *Team, m members) {
	steps := t.Steps()
	if len(steps) > MaxSteps {
		// The checks below grow with steps × inputs; no workflow this
		// large is run (package workflow).
		d.errAt("/workflow/steps", "a workflow has at most %d steps, not %d", MaxSteps, len(steps))
		return
	}
	byName := map[string]int{}
	for i, s := range steps {
		p := index("/workflow/steps", i)
		if s.Name == "" {
			continue
		}
		if j, dup := byName[s.Name]; dup {
			d.errAt(child(p, "name"), "duplicate step %q (also at /workflow/steps/%d)", s.Name, j)
			continue
		}
		byName[s.Name] = i
		if strings.Contains(s.Name, ".") {
			d.errAt(child(p, "name"), "step name %q must not contain '.' (from is \"step.output\")", s.Name)
		}
	}
	chain := t.WorkflowType() == WorkflowChain
	forward := false // a chain's step depends on a later one: a cycle
	for i, s := range steps {
		p := index("/workflow/steps", i)
		if s.Agent != "" && !m.has(s.Agent) {
			d.errAt(child(p, "agent"), "step %q: agent %q is not one of the team's agents", s.Name, s.Agent)
		}
		deps := map[string]bool{}
		for k, dep := range s.DependsOn {
			dp := index(child(p, "depends_on"), k)
			_, known := byName[dep]
			switch {
			case dep == s.Name:
				d.errAt(dp, "step %s depends on itself", quote(s.Name))
			case !known:
				d.errAt(dp, "step %s depends on unknown step %s", quote(s.Name), quote(dep))
			case deps[dep]:
				d.errAt(dp, "step %s lists %s twice in depends_on", quote(s.Name), quote(dep))
			case chain && byName[dep] > i:
				// Each step of a chain depends on the one before it.
				forward = true
				d.errAt(dp, "step %s depends on %s, which comes after it in the chain: depends_on cycle: %s", quote(s.Name), quote(dep), chainCycle(steps, i, byName[dep]))
			}
			deps[dep] = true
		}
		d.uniquePorts(s.Inputs, child(p, "inputs"))
		d.uniquePorts(s.Outputs, child(p, "outputs"))
	}
	cyclic := d.checkCycles(steps, byName) || forward
	up := newReach(steps, byName, chain)
	for i, s := range steps {
		p := index("/workflow/steps", i)
		for k, in := range s.Inputs {
			if in.From == "" {
				continue
			}
			fp := child(index(child(p, "inputs"), k), "from")
			step, out := in.FromStep()
			j, known := byName[step]
			switch {
			case step == "" || out == "":
				d.errAt(fp, "from %q must be \"step.output\"", in.From)
			case !known:
				d.errAt(fp, "from %q names unknown step %q", in.From, step)
			case !hasPort(steps[j].Outputs, out):
				d.errAt(fp, "from %q names unknown output %q of step %q", in.From, out, step)
			case step == s.Name:
				d.errAt(fp, "from %q names the step itself", in.From)
			case !cyclic && !up.upstream(i, j):
				d.errAt(fp, "from %s names step %s, which is not upstream of %s (add it to depends_on)", quote(in.From), quote(step), quote(s.Name))
			}
		}
	}
}

func hasPort(ports []Port, name string) bool {
	for _, p := range ports {
		if p.Name == name {
			return true
		}
	}
	return false
}

func (d *decoder) uniquePorts(ports []Port, path string) {
	seen := map[string]int{}
	for i, pt := range ports {
		if pt.Name == "" {
			continue
		}
		if j, dup := seen[pt.Name]; dup {
			d.errAt(child(index(path, i), "name"), "duplicate port %q (also at %s/%d)", pt.Name, path, j)
			continue
		}
		seen[pt.Name] = i
	}
}

// checkCycles reports every depends_on cycle, naming its steps, and
// reports whether there is one.
func (d *decoder) checkCycles(steps []Step, byName map[string]int) bool {
	const (
		white = iota
		grey
		black
	)
	color := make([]int, len(steps))
	pos := make([]int, len(steps)) // a grey step's place on the stack
	var stack []int
	found := false
	var visit func(i int)
	visit = func(i int) {
		color[i] = grey
		pos[i] = len(stack)
		stack = append(stack, i)
		for k, dep := range steps[i].DependsOn {
			j, ok := byName[dep]
			if !ok || j == i {
				continue
			}
			switch color[j] {
			case white:
				visit(j)
			case grey:
				found = true
				// The cycle is stack[pos[j]:] and j again: only the
				// names elide keeps are gathered (a step may close
				// thousands of cycles, each thousands of steps long).
				cyc := stack[pos[j]:]
				var names []string
				if len(cyc)+1 > 10 {
					for _, s := range cyc[:5] {
						names = append(names, steps[s].Name)
					}
					names = append(names, "…", steps[cyc[len(cyc)-2]].Name, steps[cyc[len(cyc)-1]].Name)
				} else {
					for _, s := range cyc {
						names = append(names, steps[s].Name)
					}
				}
				names = append(names, steps[j].Name)
				d.errAt(index(child(index("/workflow/steps", i), "depends_on"), k), "depends_on cycle: %s", elide(names, " → "))
			}
		}
		stack = stack[:len(stack)-1]
		color[i] = black
	}
	for i := range steps {
		if color[i] == white && byName[steps[i].Name] == i {
			visit(i)
		}
	}
	return found
}

// chainCycle names the cycle of a chain's step i that depends on the
// later step j: i → j → j-1 → … → i (long ones elided in the middle).
func chainCycle(steps []Step, i, j int) string {
	names := []string{steps[i].Name}
	if j-i+2 > 10 {
		// The names elide keeps of a long cycle, without listing it.
		names = append(names, steps[j].Name, steps[j-1].Name, steps[j-2].Name, steps[j-3].Name, "…", steps[i+2].Name, steps[i+1].Name, steps[i].Name)
	} else {
		for k := j; k >= i; k-- {
			names = append(names, steps[k].Name)
		}
	}
	return elide(names, " → ")
}

// reach answers whether a step is upstream of another: in a chain, every
// earlier step (a chain's depends_on may only name earlier steps); else
// the steps it transitively depends on. The graph must be acyclic. The
// steps upstream of a step are a set of bits, computed once (from those
// of the steps it depends on) when one of its inputs is first checked:
// a team is checked in O(n·e/64) simple steps at worst (n steps, e
// depends_on entries), however many inputs its steps have. A search per
// input cost as much as the graph for each: 100,000 inputs after 5,000
// steps, or 7,000 inputs after a graph of a million edges, took a minute.
type reach struct {
	chain  bool
	deps   [][]int    // each step's depends_on, without repeats
	up     [][]uint64 // up[k]: the steps upstream of k, once computed
	visits int        // depends_on entries followed (tests)
}

func newReach(steps []Step, byName map[string]int, chain bool) *reach {
	r := &reach{chain: chain, deps: make([][]int, len(steps)), up: make([][]uint64, len(steps))}
	seen := make([]int, len(steps)) // seen[k] == i+1: k is in deps[i]
	for i, s := range steps {
		for _, dep := range s.DependsOn {
			if k, ok := byName[dep]; ok && k != i && seen[k] != i+1 {
				seen[k] = i + 1
				r.deps[i] = append(r.deps[i], k)
			}
		}
	}
	return r
}

// upstream reports whether step j is upstream of step i.
func (r *reach) upstream(i, j int) bool {
	if r.chain {
		return j < i
	}
	return r.upOf(i)[j/64]&(1<<(j%64)) != 0
}

// upOf returns the set of the steps upstream of step k.
func (r *reach) upOf(k int) []uint64 {
	if r.up[k] != nil {
		return r.up[k]
	}
	u := make([]uint64, (len(r.deps)+63)/64)
	for _, d := range r.deps[k] {
		r.visits++
		u[d/64] |= 1 << (d % 64)
		for w, x := range r.upOf(d) {
			u[w] |= x
		}
	}
	r.up[k] = u
	return u
}

// checkAgent applies the rules that need only the agent itself.
func (d *decoder) checkAgent(a *Agent) {
	ids := map[string]int{}
	for i, t := range a.Tasks {
		if t.ID == "" {
			continue
		}
		if j, dup := ids[t.ID]; dup {
			d.errAt(child(index("/tasks", i), "id"), "duplicate task %q (also at /tasks/%d)", t.ID, j)
			continue
		}
		ids[t.ID] = i
	}
	if dl := a.Delegation; dl != nil && len(dl.CanDelegateTo) > 0 && !dl.AllowDelegation {
		d.report(SeverityWarning, d.lineAt("/delegation/can_delegate_to"), "/delegation/can_delegate_to",
			"can_delegate_to has no effect without allow_delegation: true")
	}
}
