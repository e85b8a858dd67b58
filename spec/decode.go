package spec

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// decoder turns a node tree into definitions, collecting problems with
// their path and line instead of stopping at the first, and remembering the
// line of every path for the checks that run on the decoded values.
type decoder struct {
	file   string
	strict bool
	probs  problemList
	lines  map[string]int
}

func newDecoder(file string, strict bool) *decoder {
	return &decoder{file: file, strict: strict, lines: map[string]int{}}
}

func (d *decoder) report(sev Severity, line int, path, format string, args ...interface{}) {
	d.probs.add(d.file, line, path, sev, format, args...)
}

func (d *decoder) errorf(n *node, path, format string, args ...interface{}) {
	d.report(SeverityError, lineOf(n), path, format, args...)
}

func (d *decoder) warnf(n *node, path, format string, args ...interface{}) {
	d.report(SeverityWarning, lineOf(n), path, format, args...)
}

func lineOf(n *node) int {
	if n == nil {
		return 0
	}
	return n.line
}

// pointerEscape escapes a key for a JSON pointer (RFC 6901).
func pointerEscape(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

func child(path, key string) string { return path + "/" + pointerEscape(key) }

func index(path string, i int) string { return fmt.Sprintf("%s/%d", path, i) }

// fieldFunc decodes the value of one key.
type fieldFunc func(v *node, path string)

// object decodes an object: each known key with its function, unknown keys
// as warnings (errors when strict), duplicate keys as errors. top is set
// for a file's top-level object, where "$schema" is accepted and ignored.
// aliases maps legacy key spellings to their modern key. It returns the keys
// present (by their modern spelling), or nil if n is not an object.
func (d *decoder) object(n *node, path, what string, top bool, fields map[string]fieldFunc, aliases map[string]string) map[string]*node {
	d.lines[path] = n.line
	if n.kind != kObject {
		d.errorf(n, path, "%s must be an object, not %s", what, describe(n))
		return nil
	}
	seen := make(map[string]*node, len(n.keys))
	keys := make(map[string]bool, len(n.keys)) // as written: unknown keys and $schema too
	for i, key := range n.keys {
		v := n.vals[i]
		kn := &node{line: n.keyLines[i]}
		p := child(path, key)
		if keys[key] {
			d.errorf(kn, p, "duplicate key %q", key)
			continue
		}
		keys[key] = true
		if top && key == "$schema" {
			continue
		}
		name := key
		if modern, ok := aliases[key]; ok {
			d.warnf(kn, p, "legacy key %q: use %q", key, modern)
			name = modern
		}
		fn, known := fields[name]
		if !known {
			sev := SeverityWarning
			if d.strict {
				sev = SeverityError
			}
			d.report(sev, kn.line, p, "unknown key %q in %s", key, what)
			continue
		}
		if _, dup := seen[name]; dup {
			d.errorf(kn, p, "duplicate key %q", key)
			continue
		}
		seen[name] = v
		d.lines[p] = v.line
		fn(v, p)
	}
	return seen
}

// require reports each of keys missing from seen.
func (d *decoder) require(n *node, path, what string, seen map[string]*node, keys ...string) {
	if seen == nil {
		return
	}
	for _, k := range keys {
		if _, ok := seen[k]; !ok {
			d.errorf(n, path, "%s is missing required field %q", what, k)
		}
	}
}

func describe(n *node) string {
	switch n.kind {
	case kNull:
		return "null"
	case kBool:
		return fmt.Sprintf("boolean %t", n.b)
	case kNumber:
		return "number " + n.str
	case kString:
		return fmt.Sprintf("string %q", n.str)
	case kObject:
		return "an object"
	}
	return "an array"
}

func (d *decoder) str(v *node, path string) string {
	if v.kind != kString {
		d.errorf(v, path, "must be a string, not %s", describe(v))
		return ""
	}
	return v.str
}

// name decodes a required, non-empty identifier, without control
// characters (a name goes into environment variables, messages and
// table cells: a NUL or a newline would break them).
func (d *decoder) name(v *node, path string) string {
	s := d.str(v, path)
	switch {
	case v.kind != kString:
	case strings.TrimSpace(s) == "":
		d.errorf(v, path, "must not be empty")
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		d.errorf(v, path, "%q must not contain control characters", s)
	}
	return s
}

func (d *decoder) boolean(v *node, path string) bool {
	if v.kind != kBool {
		d.errorf(v, path, "must be a boolean, not %s", describe(v))
		return false
	}
	return v.b
}

func (d *decoder) boolPtr(v *node, path string) *bool {
	if v.kind != kBool {
		d.errorf(v, path, "must be a boolean, not %s", describe(v))
		return nil
	}
	b := v.b
	return &b
}

// strings decodes an array of strings (elements of another type are
// reported and left out).
func (d *decoder) strings(v *node, path string) []string {
	if v.kind != kArray {
		d.errorf(v, path, "must be an array of strings, not %s", describe(v))
		return nil
	}
	var out []string // nil when empty: [] and an absent list mean the same
	for i, e := range v.elems {
		p := index(path, i)
		d.lines[p] = e.line
		if e.kind != kString {
			d.errorf(e, p, "must be a string, not %s", describe(e))
			continue
		}
		out = append(out, e.str)
	}
	return out
}

// stringList is strings for a list whose emptiness means something (an
// agent's tools: [] is no tool, an absent list the default): an array,
// even empty, is a non-nil slice.
func (d *decoder) stringList(v *node, path string) []string {
	out := d.strings(v, path)
	if out == nil && v.kind == kArray {
		out = []string{}
	}
	return out
}

// enum decodes a string that must be one of allowed.
func (d *decoder) enum(v *node, path string, allowed ...string) string {
	s := d.str(v, path)
	if v.kind != kString {
		return ""
	}
	for _, a := range allowed {
		if s == a {
			return s
		}
	}
	d.errorf(v, path, "%q is not one of %s", s, strings.Join(allowed, ", "))
	return ""
}

// array decodes each element of an array of objects with fn.
func (d *decoder) array(v *node, path, what string, fn func(e *node, p string)) {
	if v.kind != kArray {
		d.errorf(v, path, "must be an array of %s, not %s", what, describe(v))
		return
	}
	for i, e := range v.elems {
		p := index(path, i)
		d.lines[p] = e.line
		fn(e, p)
	}
}

// ---- agents ----

var taskAliases = map[string]string{"expectedoutput": "expected_output", "humaninloop": "human_in_loop", "expectedOutput": "expected_output", "humanInLoop": "human_in_loop"}

func (d *decoder) agent(n *node, path string) *Agent {
	a := &Agent{}
	seen := d.object(n, path, "agent", true, map[string]fieldFunc{
		"name":         func(v *node, p string) { a.Name = d.name(v, p) },
		"namespace":    func(v *node, p string) { a.Namespace = d.str(v, p) },
		"description":  func(v *node, p string) { a.Description = d.str(v, p) },
		"icon":         func(v *node, p string) { a.Icon = d.str(v, p) },
		"model":        func(v *node, p string) { a.Model = Model(d.enum(v, p, "haiku", "sonnet", "opus")) },
		"tools":        func(v *node, p string) { a.Tools = d.stringList(v, p) },
		"allowedTools": func(v *node, p string) { a.AllowedTools = d.stringList(v, p) },
		"skills":       func(v *node, p string) { a.Skills = d.stringList(v, p) },
		"dependencies": func(v *node, p string) { a.Dependencies = d.stringList(v, p) },
		"requires":     func(v *node, p string) { a.Requires = d.stringList(v, p) },
		"instructions": func(v *node, p string) { a.Instructions = d.str(v, p) },
		"tasks": func(v *node, p string) {
			d.array(v, p, "tasks", func(e *node, ep string) { a.Tasks = append(a.Tasks, d.task(e, ep)) })
		},
		"role":      func(v *node, p string) { a.Role = d.str(v, p) },
		"goal":      func(v *node, p string) { a.Goal = d.str(v, p) },
		"backstory": func(v *node, p string) { a.Backstory = d.str(v, p) },
		"delegation": func(v *node, p string) {
			a.Delegation = &Delegation{}
			dl := a.Delegation
			d.object(v, p, "delegation", false, map[string]fieldFunc{
				"allow_delegation": func(v *node, p string) { dl.AllowDelegation = d.boolean(v, p) },
				"can_delegate_to":  func(v *node, p string) { dl.CanDelegateTo = d.strings(v, p) },
				"can_receive_from": func(v *node, p string) { dl.CanReceiveFrom = d.strings(v, p) },
			}, nil)
		},
	}, map[string]string{"allowed_tools": "allowedTools"})
	d.require(n, path, "agent", seen, "name")
	if v, ok := seen["name"]; ok && strings.Contains(a.Name, "/") {
		d.errorf(v, child(path, "name"), "agent name %q must not contain '/' (use namespace)", a.Name)
	}
	if v, ok := seen["namespace"]; ok && a.Namespace != "" && !validNamespace(a.Namespace) {
		d.errorf(v, child(path, "namespace"), "namespace %q must be names separated by single '/', without control characters", a.Namespace)
	}
	return a
}

// validNamespace reports whether ns is names separated by single '/',
// none blank, "." or "..", without control characters.
func validNamespace(ns string) bool {
	for _, part := range strings.Split(ns, "/") {
		if !isName(part) || part == "." || part == ".." {
			return false
		}
	}
	return true
}

// isName reports whether s is what the decoder takes as a name: not
// blank, without control characters, valid UTF-8 (as every file read is).
func isName(s string) bool {
	return strings.TrimSpace(s) != "" && strings.IndexFunc(s, unicode.IsControl) < 0 && utf8.ValidString(s)
}

// ValidName reports whether a stored definition of kind can be called
// name: a team by a name that is not blank, has no control character and
// is valid UTF-8;
// an agent by such a name without '/', or by namespace/name, its namespace
// names separated by single '/' (none ".", ".."); kind "" for either.
// Definitions are only stored under such names, so a name that is not
// one is malformed rather than unknown (defstore.Get).
func ValidName(kind Kind, name string) bool {
	if kind == KindAgent {
		i := strings.LastIndexByte(name, '/')
		return isName(name[i+1:]) && (i < 0 || validNamespace(name[:i]))
	}
	return isName(name) // every agent's name is a team's name too
}

func (d *decoder) task(n *node, path string) Task {
	var t Task
	seen := d.object(n, path, "task", false, map[string]fieldFunc{
		"id":              func(v *node, p string) { t.ID = d.name(v, p) },
		"description":     func(v *node, p string) { t.Description = d.str(v, p) },
		"type":            func(v *node, p string) { t.Type = TaskType(d.enum(v, p, "command", "pattern", "file", "manual")) },
		"command":         func(v *node, p string) { t.Command = d.str(v, p) },
		"pattern":         func(v *node, p string) { t.Pattern = d.str(v, p) },
		"file":            func(v *node, p string) { t.File = d.str(v, p) },
		"files":           func(v *node, p string) { t.Files = d.str(v, p) },
		"required":        func(v *node, p string) { t.Required = d.boolPtr(v, p) },
		"expected_output": func(v *node, p string) { t.ExpectedOutput = d.str(v, p) },
		"human_in_loop":   func(v *node, p string) { t.HumanInLoop = d.str(v, p) },
	}, taskAliases)
	d.require(n, path, "task", seen, "id")
	return t
}

// ---- teams ----

// legacyWorkflowTypes maps the workflow type names of spec versions before
// v0.6.0 to the modern ones; "orchestrated" is crew when the team has a
// lead or orchestrator, else graph.
var legacyWorkflowTypes = map[string]WorkflowType{
	"sequential":   WorkflowChain,
	"parallel":     WorkflowScatter,
	"dag":          WorkflowGraph,
	"orchestrated": WorkflowGraph,
}

func (d *decoder) team(n *node, path string) *Team {
	t := &Team{}
	var orchestrated *node // the node of a legacy "orchestrated" type
	seen := d.object(n, path, "team", true, map[string]fieldFunc{
		"name":         func(v *node, p string) { t.Name = d.name(v, p) },
		"version":      func(v *node, p string) { t.Version = d.versionString(v, p) },
		"description":  func(v *node, p string) { t.Description = d.str(v, p) },
		"agents":       func(v *node, p string) { t.Agents = d.strings(v, p) },
		"orchestrator": func(v *node, p string) { t.Orchestrator = d.str(v, p) },
		"workflow": func(v *node, p string) {
			t.Workflow = &Workflow{}
			w := t.Workflow
			d.object(v, p, "workflow", false, map[string]fieldFunc{
				"type": func(v *node, p string) {
					if v.kind == kString {
						if modern, ok := legacyWorkflowTypes[v.str]; ok {
							if v.str == "orchestrated" {
								orchestrated = v
							} else {
								d.warnf(v, p, "legacy workflow type %q: use %q", v.str, modern)
							}
							w.Type = modern
							return
						}
					}
					w.Type = WorkflowType(d.enum(v, p, "chain", "scatter", "graph", "crew", "swarm", "council"))
				},
				"steps": func(v *node, p string) {
					d.array(v, p, "steps", func(e *node, ep string) { w.Steps = append(w.Steps, d.step(e, ep)) })
				},
			}, nil)
		},
		"context": func(v *node, p string) { t.Context = d.str(v, p) },
		"collaboration": func(v *node, p string) {
			t.Collaboration = d.collaboration(v, p)
		},
		"self_claim":    func(v *node, p string) { t.SelfClaim = d.boolean(v, p) },
		"plan_approval": func(v *node, p string) { t.PlanApproval = d.boolean(v, p) },
	}, nil)
	d.require(n, path, "team", seen, "name", "version", "agents")
	if orchestrated != nil {
		p := child(child(path, "workflow"), "type")
		if t.Lead() != "" {
			t.Workflow.Type = WorkflowCrew
			d.warnf(orchestrated, p, "legacy workflow type \"orchestrated\": use \"crew\" (the team has a lead)")
		} else {
			d.warnf(orchestrated, p, "legacy workflow type \"orchestrated\": use \"graph\", or \"crew\" with collaboration.lead")
		}
	}
	return t
}

// versionString decodes a version: a string; a YAML or JSON number is
// reported with a hint to quote it.
func (d *decoder) versionString(v *node, path string) string {
	if v.kind == kNumber {
		d.errorf(v, path, "must be a string, not %s (quote it: \"%s\")", describe(v), v.str)
		return ""
	}
	return d.name(v, path)
}

func (d *decoder) step(n *node, path string) Step {
	var s Step
	seen := d.object(n, path, "step", false, map[string]fieldFunc{
		"name":       func(v *node, p string) { s.Name = d.name(v, p) },
		"agent":      func(v *node, p string) { s.Agent = d.name(v, p) },
		"loop":       func(v *node, p string) { s.Loop = d.name(v, p) },
		"depends_on": func(v *node, p string) { s.DependsOn = d.strings(v, p) },
		"inputs":     func(v *node, p string) { s.Inputs = d.ports(v, p, true) },
		"outputs":    func(v *node, p string) { s.Outputs = d.ports(v, p, false) },
	}, nil)
	d.require(n, path, "step", seen, "name")
	if seen != nil {
		_, hasAgent := seen["agent"]
		_, hasLoop := seen["loop"]
		switch {
		case hasAgent && hasLoop:
			d.errorf(seen["loop"], child(path, "loop"), "a step has an agent or a loop, not both")
		case !hasAgent && !hasLoop:
			d.errorf(n, path, "step is missing required field \"agent\"")
		}
	}
	return s
}

// ports decodes a port list: the modern [{name, ...}], or the legacy
// shapes [name, ...] and (inputs) {name: "step.output", ...}, with a
// warning naming the modern form.
func (d *decoder) ports(v *node, path string, inputs bool) []Port {
	var out []Port
	switch {
	case v.kind == kObject && inputs:
		d.lines[path] = v.line
		var modern []string
		for i, k := range v.keys {
			p := child(path, k)
			val := v.vals[i]
			d.lines[p] = val.line
			from := d.str(val, p)
			if !d.portName(val, p, k) {
				continue
			}
			out = append(out, Port{Name: k, From: from})
			modern = append(modern, fmt.Sprintf(`{"name": %q, "from": %q}`, k, from))
		}
		d.warnf(v, path, "legacy input map: use [%s]", strings.Join(modern, ", "))
		return out
	case v.kind != kArray:
		d.errorf(v, path, "must be an array of ports, not %s", describe(v))
		return nil
	}
	for i, e := range v.elems {
		p := index(path, i)
		d.lines[p] = e.line
		if e.kind == kString {
			if !d.portName(e, p, e.str) {
				continue
			}
			d.warnf(e, p, "legacy port name: use {\"name\": %q}", e.str)
			out = append(out, Port{Name: e.str})
			continue
		}
		out = append(out, d.port(e, p))
	}
	return out
}

// portName checks the name of a port in a legacy shape (a list entry, an
// input map's key) as name checks a modern port's, and reports whether
// it is one.
func (d *decoder) portName(v *node, path, name string) bool {
	switch {
	case strings.TrimSpace(name) == "":
		d.errorf(v, path, "port name must not be empty")
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		d.errorf(v, path, "port name %q must not contain control characters", name)
	default:
		return true
	}
	return false
}

func (d *decoder) port(n *node, path string) Port {
	var pt Port
	seen := d.object(n, path, "port", false, map[string]fieldFunc{
		"name": func(v *node, p string) { pt.Name = d.name(v, p) },
		"type": func(v *node, p string) {
			pt.Type = PortType(d.enum(v, p, "string", "number", "boolean", "object", "array", "file"))
		},
		"description": func(v *node, p string) { pt.Description = d.str(v, p) },
		"required":    func(v *node, p string) { pt.Required = d.boolPtr(v, p) },
		"from":        func(v *node, p string) { pt.From = d.str(v, p) },
		"schema":      func(v *node, p string) { pt.Schema = d.freeForm(v, p) },
		"default": func(v *node, p string) {
			// A port's default is a Go value; nil is "none", so an explicit
			// null cannot be a default: say so rather than drop it silently.
			if v.kind == kNull {
				d.warnf(v, p, "default null is read as no default (the input stays required unless required is false)")
			}
			pt.Default = d.freeForm(v, p)
		},
	}, nil)
	d.require(n, path, "port", seen, "name")
	return pt
}

// freeForm returns the plain value of a free-form field (a port's schema
// or default), reporting each duplicate key in it: no object of a file
// names a key twice, free-form ones included.
func (d *decoder) freeForm(v *node, path string) interface{} {
	d.uniqueKeys(v, path, nil)
	return v.toAny()
}

// uniqueKeys reports the duplicate keys in n, at path and then segs (the
// keys and indexes that lead from path to n). The path of a value is
// built only for a duplicate: building it for every value cost the sum of
// their paths' lengths, up to 100 times the file's size (long keys 200
// levels deep).
func (d *decoder) uniqueKeys(n *node, path string, segs []string) {
	switch n.kind {
	case kObject:
		keys := make(map[string]bool, len(n.keys))
		for i, k := range n.keys {
			if keys[k] {
				p := path
				for _, s := range segs {
					p = child(p, s)
				}
				d.errorf(&node{line: n.keyLines[i]}, child(p, k), "duplicate key %q", k)
				continue
			}
			keys[k] = true
			d.uniqueKeys(n.vals[i], path, append(segs, k))
		}
	case kArray:
		for i, e := range n.elems {
			d.uniqueKeys(e, path, append(segs, strconv.Itoa(i)))
		}
	}
}

func (d *decoder) collaboration(n *node, path string) *Collaboration {
	c := &Collaboration{}
	d.object(n, path, "collaboration", false, map[string]fieldFunc{
		"lead":        func(v *node, p string) { c.Lead = d.str(v, p) },
		"specialists": func(v *node, p string) { c.Specialists = d.strings(v, p) },
		"task_queue":  func(v *node, p string) { c.TaskQueue = d.boolean(v, p) },
		"consensus": func(v *node, p string) {
			c.Consensus = &Consensus{}
			cs := c.Consensus
			d.object(v, p, "consensus", false, map[string]fieldFunc{
				"required_agreement": func(v *node, p string) {
					if v.kind != kNumber {
						d.errorf(v, p, "must be a number, not %s", describe(v))
						return
					}
					if v.num < 0 || v.num > 1 {
						d.errorf(v, p, "required_agreement %s is outside 0..1", v.str)
						return
					}
					if v.num == 0 {
						// As the spec's Go SDK, package workflow and
						// merge read it: 0 is unset.
						d.warnf(v, p, "required_agreement 0 is read as the default, %v (for the ballot with the most voters to win, give a small fraction such as 0.01)", DefaultRequiredAgreement)
					}
					f := v.num
					cs.RequiredAgreement = &f
				},
				"max_rounds": func(v *node, p string) {
					if v.kind != kNumber || v.num != math.Trunc(v.num) {
						d.errorf(v, p, "must be an integer, not %s", describe(v))
						return
					}
					if v.num < 1 {
						d.errorf(v, p, "max_rounds %s is less than 1", v.str)
						return
					}
					if v.num > MaxMaxRounds {
						d.errorf(v, p, "max_rounds %s is more than %d", v.str, MaxMaxRounds)
						return
					}
					r := int(v.num)
					cs.MaxRounds = &r
				},
				"tie_breaker": func(v *node, p string) { cs.TieBreaker = d.str(v, p) },
			}, nil)
		},
		"channels": func(v *node, p string) {
			d.array(v, p, "channels", func(e *node, ep string) {
				var ch Channel
				seen := d.object(e, ep, "channel", false, map[string]fieldFunc{
					"name":         func(v *node, p string) { ch.Name = d.name(v, p) },
					"type":         func(v *node, p string) { ch.Type = ChannelType(d.enum(v, p, "direct", "broadcast", "pub-sub")) },
					"participants": func(v *node, p string) { ch.Participants = d.strings(v, p) },
				}, nil)
				d.require(e, ep, "channel", seen, "name", "type")
				c.Channels = append(c.Channels, ch)
			})
		},
	}, nil)
	return c
}
