package workflow

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/teammanager"
)

// RunStatus is the status of a run.
type RunStatus string

// Run statuses: pending → running → merging → completed | failed, and
// cancelled from any of the first three.
const (
	RunPending   RunStatus = "pending"   // no step started yet
	RunRunning   RunStatus = "running"   // a step has started, some step can still run
	RunMerging   RunStatus = "merging"   // no step can still run; the run's team is being merged
	RunCompleted RunStatus = "completed" // merged; a step completed and no step of a critical agent failed
	RunFailed    RunStatus = "failed"    // merged (if anything completed); a step of a critical agent failed, or none completed
	RunCancelled RunStatus = "cancelled" // Cancel
)

// Finished reports whether s is completed, failed or cancelled.
func (s RunStatus) Finished() bool {
	return s == RunCompleted || s == RunFailed || s == RunCancelled
}

// ParseRunStatus returns the RunStatus named s, or an error wrapping
// ErrInvalidRun.
func ParseRunStatus(s string) (RunStatus, error) {
	switch st := RunStatus(s); st {
	case RunPending, RunRunning, RunMerging, RunCompleted, RunFailed, RunCancelled:
		return st, nil
	}
	return "", fmt.Errorf("%w: status %q (want pending, running, merging, completed, failed or cancelled)", ErrInvalidRun, s)
}

// StepStatus is the status of a step.
type StepStatus string

// Step statuses: pending → ready → running → completed | failed; pending →
// skipped (with a reason) when it can never run; running → ready again when
// a driver gives it back (ReleaseStep).
const (
	StepPending   StepStatus = "pending"   // a dependency has not finished
	StepReady     StepStatus = "ready"     // may start: Ready lists it
	StepRunning   StepStatus = "running"   // started (StartStep), not finished
	StepCompleted StepStatus = "completed" // CompleteStep: outputs recorded
	StepFailed    StepStatus = "failed"    // FailStep, its timeout, or Cancel
	StepSkipped   StepStatus = "skipped"   // can never run (Reason says why)
)

// Final reports whether s is completed, failed or skipped.
func (s StepStatus) Final() bool {
	return s == StepCompleted || s == StepFailed || s == StepSkipped
}

// StepState is the state of one step of a run.
type StepState struct {
	Name        string         `json:"name"`
	Agent       string         `json:"agent"`
	Status      StepStatus     `json:"status"`
	Reason      string         `json:"reason,omitempty"` // why failed or skipped
	Actor       string         `json:"actor,omitempty"`  // who started it
	StartedAt   time.Time      `json:"started_at,omitzero"`
	CompletedAt time.Time      `json:"completed_at,omitzero"`
	Outputs     map[string]any `json:"outputs,omitempty"`
	// Findings are the ids of the findings the step reported, in its
	// agent's member graph of the run's team.
	Findings []string `json:"findings,omitempty"`
	// Votes are the findings a council step reported: its agent's votes
	// in the step's round (see Tally).
	Votes []Vote `json:"votes,omitempty"`
	// Attempt counts the step's starts (StartStep): 1 for the first, one
	// more each time it is started again after ReleaseStep. The calls of
	// a started step (AddFindings, CompleteStep, FailStep, ReleaseStep)
	// name the attempt they belong to and are refused (*AttemptError)
	// for any other, so that a runner that returns late cannot finish
	// another driver's attempt. 0: never started, or started by a
	// version of Cortex that did not count attempts (stored runs without
	// "attempt" read so): such a step is attempt 0, finished by calls
	// naming attempt 0, and its next start is attempt 1.
	Attempt int `json:"attempt,omitempty"`
}

// Run is the state of a run.
type Run struct {
	ID       string    `json:"id"`
	Name     string    `json:"name"` // the definition's name
	Type     Type      `json:"type"`
	Status   RunStatus `json:"status"`
	Strategy string    `json:"strategy"`
	// Team is the id of the run's team (the run id).
	Team        string         `json:"team"`
	Inputs      map[string]any `json:"inputs,omitempty"`
	NonCritical []string       `json:"non_critical,omitempty"`
	// StepTimeout is how long a started step may run; 0: no limit.
	StepTimeout time.Duration `json:"step_timeout"`
	CreatedAt   time.Time     `json:"created_at"`
	StartedAt   time.Time     `json:"started_at,omitzero"`
	CompletedAt time.Time     `json:"completed_at,omitzero"`
	Error       string        `json:"error,omitempty"`
	Steps       []StepState   `json:"steps"` // in definition order
	// Rounds are a council's tallies, one per counted round.
	Rounds []Tally `json:"rounds,omitempty"`
	// Driver is the driver that holds a crew or swarm run, if one does
	// (Engine.ClaimDriver); kept after its lease ended until another
	// driver takes the run or it lets go.
	Driver *Driver `json:"driver,omitempty"`
}

// Step returns the state of step name.
func (r Run) Step(name string) (*StepState, bool) {
	for i := range r.Steps {
		if r.Steps[i].Name == name {
			return &r.Steps[i], true
		}
	}
	return nil, false
}

// record is what the store keeps of a run (the row of the runs table):
// Run plus the engine's own bookkeeping.
type record struct {
	Run
	// DefHash identifies the definition row the run was started with.
	DefHash string `json:"def_hash"`
	// TeamReady is set once the run's team exists.
	TeamReady bool `json:"team_ready,omitempty"`
	// TeamGone is set once the run's team was found deleted or disbanded:
	// there is nothing more to settle.
	TeamGone bool `json:"team_gone,omitempty"`
	// Members is each agent's member status as last written to the team.
	Members map[string]teammanager.Status `json:"members,omitempty"`
	// Seq is the number of transitions recorded.
	Seq int `json:"seq"`
	// Rev identifies the write that stored the record (random, new at
	// each write) and Gen counts the writes: an Engine reuses the record
	// it read or wrote while the stored one has its Rev.
	Rev string `json:"rev,omitempty"`
	Gen int64  `json:"gen,omitempty"`
	// StepRows is the number of the run's rows in the step table, which
	// hold its steps (see stepKey); 0: a record of an older version, with
	// its steps in its own row.
	StepRows int `json:"step_rows,omitempty"`
	// EndedDrivers are the ids of the drivers whose hold of the run ended
	// (it let go, or another driver took the run), the last
	// maxEndedDrivers of them: ClaimDriver refuses them (see there).
	EndedDrivers []string `json:"ended_drivers,omitempty"`

	desired map[string]teammanager.Status // desiredMembers, once sealed
}

// Transition is one recorded status change of a run or a step.
type Transition struct {
	Seq    int       `json:"seq"`
	At     time.Time `json:"at"`
	Actor  string    `json:"actor"`
	Step   string    `json:"step,omitempty"` // empty for the run's own status
	From   string    `json:"from"`
	To     string    `json:"to"`
	Reason string    `json:"reason,omitempty"`
}

// SystemActor is the actor of the transitions the engine derives
// (readiness, skips, timeouts, the run's status).
const SystemActor = "cortex"

// change collects the transitions of one write.
type change struct {
	rec   *record
	now   time.Time
	trans []Transition
	merge func(string, merge.Input) (merge.Result, error) // the Engine's
}

func (c *change) step(i int, to StepStatus, actor, reason string) {
	s := &c.rec.Steps[i]
	c.trans = append(c.trans, Transition{At: c.now, Actor: actor, Step: s.Name, From: string(s.Status), To: string(to), Reason: reason})
	s.Status = to
	if to == StepFailed || to == StepSkipped {
		s.Reason = reason
	}
	if to.Final() {
		s.CompletedAt = c.now
	}
}

func (c *change) run(to RunStatus, actor, reason string) {
	r := c.rec
	c.trans = append(c.trans, Transition{At: c.now, Actor: actor, From: string(r.Status), To: string(to), Reason: reason})
	r.Status = to
	if to.Finished() {
		r.CompletedAt = c.now
	}
}

func (r *record) critical(agent string) bool { return !slices.Contains(r.NonCritical, agent) }

// expire fails the running steps that have passed their timeout.
func (c *change) expire() {
	r := c.rec
	if r.StepTimeout <= 0 || r.Status.Finished() {
		return
	}
	for i := range r.Steps {
		s := &r.Steps[i]
		if s.Status == StepRunning && !c.now.Before(s.StartedAt.Add(r.StepTimeout)) {
			c.step(i, StepFailed, SystemActor, fmt.Sprintf("timed out after %s", r.StepTimeout))
		}
	}
}

// advance makes pending steps ready or skipped as their dependencies allow
// and moves a run in which no step can still run to merging.
func (c *change) advance(d *Def, p *plan) error {
	r := c.rec
	if r.Status.Finished() || r.Status == RunMerging {
		return nil
	}
	council := r.Type == Council
	if council {
		if err := c.councilRounds(d); err != nil {
			return err
		}
	}
	if r.Type.Led() {
		c.ledTurns()
	}
	for _, i := range p.order {
		if r.Steps[i].Status != StepPending {
			continue
		}
		waiting, skip := false, ""
		for _, k := range p.deps[i] {
			dep := &r.Steps[k]
			switch dep.Status {
			case StepCompleted:
			case StepFailed:
				if !council && r.critical(dep.Agent) {
					skip = fmt.Sprintf("dependency %s failed", dep.Name)
				}
			case StepSkipped:
				skip = fmt.Sprintf("dependency %s was skipped", dep.Name)
			default:
				waiting = true
			}
			if skip != "" {
				break
			}
		}
		switch {
		case skip != "":
			c.step(i, StepSkipped, SystemActor, skip)
		case waiting:
		default:
			if _, err := r.inputs(d, p, i); err != nil {
				c.step(i, StepSkipped, SystemActor, err.Error())
			} else {
				c.step(i, StepReady, SystemActor, "")
			}
		}
	}
	for _, s := range r.Steps {
		if !s.Status.Final() {
			return nil
		}
	}
	c.run(RunMerging, SystemActor, "no step can still run")
	return nil
}

// outcome returns the final status of a merged run and its error.
func (r *record) outcome() (RunStatus, string) {
	if r.Type.Led() {
		return r.ledOutcome()
	}
	if r.Type == Council {
		// A council fails when a critical member never voted.
		for i, s := range r.Steps {
			if s.Status == StepFailed && r.critical(s.Agent) && r.round(i) == 1 {
				return RunFailed, fmt.Sprintf("step %s failed: %s", s.Name, s.Reason)
			}
		}
		return r.nothingDone()
	}
	for _, s := range r.Steps {
		if s.Status == StepFailed && r.critical(s.Agent) {
			return RunFailed, fmt.Sprintf("step %s failed: %s", s.Name, s.Reason)
		}
	}
	return r.nothingDone()
}

// nothingDone returns the outcome of a merged run in which no step of a
// critical agent failed: completed, unless no step completed (every one
// was skipped, or failed with a non-critical agent). Such a run did
// nothing; its team, none of whose members completed, failed
// (teammanager.FailAllMembers), and so does the run, with the first
// step's reason.
func (r *record) nothingDone() (RunStatus, string) {
	if slices.ContainsFunc(r.Steps, func(s StepState) bool { return s.Status == StepCompleted }) {
		return RunCompleted, ""
	}
	for _, s := range r.Steps {
		if s.Reason != "" {
			return RunFailed, fmt.Sprintf("no step completed (step %s %s: %s)", s.Name, s.Status, s.Reason)
		}
	}
	return RunFailed, "no step completed"
}

// inputs resolves the inputs of step i: from an upstream step's output,
// else a run input of the port's name, else the port's default. A required
// input that none of them gives is an error saying why.
func (r *record) inputs(d *Def, p *plan, i int) (map[string]any, error) {
	out := map[string]any{}
	for _, port := range d.Steps[i].Inputs {
		why := ""
		if port.From != "" {
			step, name := port.fromStep()
			src := &r.Steps[p.index[step]]
			if v, ok := src.Outputs[name]; ok && src.Status == StepCompleted {
				out[port.Name] = v
				continue
			}
			if src.Status == StepCompleted {
				why = fmt.Sprintf("step %s completed without output %s", step, name)
			} else {
				why = fmt.Sprintf("step %s %s", step, src.Status)
			}
		}
		if v, ok := r.Inputs[port.Name]; ok {
			out[port.Name] = v
			continue
		}
		if port.Default != nil {
			out[port.Name] = port.Default
			continue
		}
		if port.Optional {
			continue
		}
		if why == "" {
			why = "no run input or default"
		}
		return nil, fmt.Errorf("input %s unresolved: %s", port.Name, why)
	}
	return out, nil
}

// checkOutputs normalises outputs (a JSON round trip) and checks them
// against the step's declared output ports.
func checkOutputs(s *Step, outputs map[string]any) (map[string]any, error) {
	if len(outputs) == 0 {
		return nil, nil
	}
	norm, err := normalize(outputs)
	if err != nil {
		return nil, fmt.Errorf("step %s: %w: %w", s.Name, ErrInvalidOutput, err)
	}
	for _, name := range slices.Sorted(maps.Keys(norm)) {
		i := slices.IndexFunc(s.Outputs, func(p Port) bool { return p.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("step %s: %w: %q is not a declared output", s.Name, ErrInvalidOutput, name)
		}
		if err := checkValue(s.Outputs[i].Type, norm[name]); err != nil {
			return nil, fmt.Errorf("step %s: %w %s: %w", s.Name, ErrInvalidOutput, name, err)
		}
	}
	return norm, nil
}

// MaxValueDepth is how deeply run inputs and step outputs may nest, the
// map of inputs or outputs being level 1 (so {"x": [[1]]} is 3 levels
// deep). Start refuses deeper inputs (ErrInvalidRun) and CompleteStep
// deeper outputs (ErrInvalidOutput), embedded and through a server alike
// (the client checks them before it sends them: CheckValues): it is well
// under encoding/json's 10,000 levels, which the envelope of a request or
// of a stored record would otherwise reach first.
const MaxValueDepth = 1000

// CheckValues returns the error for which Start refuses run inputs m
// (wrapped in ErrInvalidRun) and CompleteStep step outputs m (in
// ErrInvalidOutput), or nil: a key or string that is not valid UTF-8
// (ValidateUTF8), a value JSON cannot carry (NaN, ±Inf, a cycle, a type
// JSON has no form for), or one nested deeper than MaxValueDepth.
func CheckValues(m map[string]any) error {
	_, err := normalize(m)
	return err
}

// normalize returns m as encoding/json decodes it (numbers float64,
// objects map[string]any, arrays []any), or the error of CheckValues.
func normalize(m map[string]any) (map[string]any, error) {
	return normalizeTo(m, MaxValueDepth)
}

// normalizeTo is normalize with values nested at most depth levels.
// Ready copies a step's inputs with normalizeTo(m, 0): no limit, as a run
// stored by a version before MaxValueDepth may hold deeper ones.
func normalizeTo(m map[string]any, depth int) (map[string]any, error) {
	if err := ValidateUTF8(m); err != nil {
		return nil, err // encoding/json would turn the bad bytes into U+FFFD
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	if d := jsonDepth(b); depth > 0 && d > depth {
		return nil, fmt.Errorf("nested %d levels deep, more than %d (workflow.MaxValueDepth)", d, depth)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// checkValue checks that v (as encoding/json decodes it) has type t.
func checkValue(t PortType, v any) error {
	ok := false
	switch t {
	case "":
		return nil
	case String, File:
		_, ok = v.(string)
	case Number:
		switch v.(type) {
		case float64, float32, int, int64, int32, uint, uint64, uint32:
			ok = true
		}
	case Boolean:
		_, ok = v.(bool)
	case Object:
		_, ok = v.(map[string]any)
	case Array:
		_, ok = v.([]any)
	}
	if !ok {
		return fmt.Errorf("want %s, got %s", t, jsonKind(v))
	}
	return nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64, float32, int, int64, int32, uint, uint64, uint32:
		return "number"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	return fmt.Sprintf("%T", v)
}

// desiredMembers returns the member status each agent's steps call for:
// pending until one of its steps starts, running while one can still run
// (in a council: until its tally is final), then completed if one
// completed, else failed.
func (r *record) desiredMembers() map[string]teammanager.Status {
	if r.desired != nil {
		return maps.Clone(r.desired)
	}
	return r.computeDesiredMembers()
}

func (r *record) computeDesiredMembers() map[string]teammanager.Status {
	type acc struct{ started, open, completed bool }
	accs := map[string]*acc{}
	for _, s := range r.Steps {
		a := accs[s.Agent]
		if a == nil {
			a = &acc{}
			accs[s.Agent] = a
		}
		switch s.Status {
		case StepRunning:
			a.started, a.open = true, true
		case StepCompleted:
			a.started, a.completed = true, true
		case StepFailed:
			a.started = true
		case StepSkipped:
		default:
			a.open = true
		}
	}
	// A council's members finish together, when its tally is final (after
	// writeBallots) or the run is cancelled.
	hold := r.Type == Council && !r.Status.Finished() && (len(r.Rounds) == 0 || !r.Rounds[len(r.Rounds)-1].Final)
	out := make(map[string]teammanager.Status, len(accs))
	for agent, a := range accs {
		if hold {
			a.open = true
		}
		switch {
		case a.open && a.started:
			out[agent] = teammanager.Running
		case a.open:
			out[agent] = teammanager.Pending
		case a.completed:
			out[agent] = teammanager.Completed
		default:
			out[agent] = teammanager.Failed
		}
	}
	return out
}

// ValidateUTF8 returns an error naming the first key or string value of m
// (run inputs, step outputs), in key order, that is not valid UTF-8, which
// a run cannot keep as given, or nil. Start and CompleteStep refuse such
// values with it (wrapped in ErrInvalidRun or ErrInvalidOutput).
func ValidateUTF8(m map[string]any) error {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if where, bad := notUTF8(reflect.ValueOf(m[k]), strconv.Quote(k), 1); bad || !utf8.ValidString(k) {
			if !utf8.ValidString(k) {
				where = "key " + strconv.Quote(k)
			}
			return fmt.Errorf("%s is not valid UTF-8", where)
		}
	}
	return nil
}

// maxUTF8Depth bounds how deep notUTF8 looks: normalize refuses a value
// nested deeper (MaxValueDepth), and a value that holds itself would have
// it recurse for ever.
const maxUTF8Depth = MaxValueDepth

// jsonDepth returns how deeply the JSON text b nests objects and arrays.
func jsonDepth(b []byte) int {
	depth, deepest, inString, escaped := 0, 0, false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// notUTF8 looks for a string in v (a key or value, as encoding/json would
// encode it) that is not valid UTF-8, at depth (from 1) at most
// maxUTF8Depth; it returns where (a path under name).
func notUTF8(v reflect.Value, name string, depth int) (string, bool) {
	if depth > maxUTF8Depth {
		return "", false // encoding/json refuses it: a cycle, or too deep
	}
	switch v.Kind() {
	case reflect.String:
		return name, !utf8.ValidString(v.String())
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return "", false
		}
		if v.Kind() == reflect.Pointer {
			depth++ // a cycle may go through pointers alone
		}
		return notUTF8(v.Elem(), name, depth)
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && f.Tag.Get("json") != "-" {
				if where, bad := notUTF8(v.Field(i), name+"."+f.Name, depth+1); bad {
					return where, true
				}
			}
		}
	case reflect.Map:
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int {
			return strings.Compare(fmt.Sprint(a.Interface()), fmt.Sprint(b.Interface()))
		})
		for _, k := range keys {
			key := fmt.Sprint(k.Interface())
			if !utf8.ValidString(key) {
				return name + " key " + strconv.Quote(key), true
			}
			if where, bad := notUTF8(v.MapIndex(k), name+"["+strconv.Quote(key)+"]", depth+1); bad {
				return where, true
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return "", false // base64
		}
		for i := range v.Len() {
			if where, bad := notUTF8(v.Index(i), name+"["+strconv.Itoa(i)+"]", depth+1); bad {
				return where, true
			}
		}
	}
	return "", false
}
