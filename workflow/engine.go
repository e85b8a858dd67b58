package workflow

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cayleygraph/quad"

	"github.com/cortexgraph/cortex/config"
	"github.com/cortexgraph/cortex/cortex"
	"github.com/cortexgraph/cortex/merge"
	ns "github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/teammanager"
)

// Side tables of the engine (cortex side.go): a row per run (its record as
// JSON) and a row per distinct definition (keyed by its hash).
const (
	runTable = "workflows"
	defTable = "workflow-defs"
)

// Config configures an Engine. Build it with DefaultConfig (or FromConfig)
// and the WithX methods.
type Config struct {
	stepTimeout     time.Duration
	defaultStrategy string
	now             func() time.Time
	registry        *merge.Registry
	poll            time.Duration
}

// DefaultStepTimeout is the step timeout of DefaultConfig: the teams'
// default workflow timeout.
const DefaultStepTimeout = teammanager.DefaultWorkflowTimeout

// DefaultConfig returns a 600 s step timeout, the "additive" default
// strategy, the wall clock, the merge package's default registry and a
// 200 ms poll interval for drivers waiting on other processes.
func DefaultConfig() Config {
	return Config{
		stepTimeout: DefaultStepTimeout, defaultStrategy: teammanager.DefaultStrategy,
		now: time.Now, poll: 200 * time.Millisecond,
	}
}

// FromConfig returns DefaultConfig with the step timeout and default
// strategy of a config file's teams section: teams.workflowTimeout
// (seconds; 0: no timeout) is the default step timeout of runs.
func FromConfig(t config.Teams) Config {
	c := DefaultConfig().WithStepTimeout(time.Duration(t.WorkflowTimeout) * time.Second)
	if t.DefaultStrategy != "" {
		c = c.WithDefaultStrategy(t.DefaultStrategy)
	}
	return c
}

// WithStepTimeout sets the step timeout of runs whose RunOptions give none
// (0: no timeout). Default 600 s.
func (c Config) WithStepTimeout(d time.Duration) Config { c.stepTimeout = d; return c }

// WithDefaultStrategy sets the merge strategy of runs whose RunOptions give
// none. Default "additive".
func (c Config) WithDefaultStrategy(s string) Config { c.defaultStrategy = s; return c }

// WithClock sets the clock (default time.Now); use the team manager's.
func (c Config) WithClock(now func() time.Time) Config { c.now = now; return c }

// WithRegistry sets the registry of the strategies that fuse fan-in
// findings and tally councils (default: the merge package's); use the
// team manager's. A strategy runs under the context of the call that needs
// it: one that is no merge.ContextStrategy and has not returned when that
// context ends is left behind, its result discarded (merge.MergeWith), and
// the call returns the context's error.
func (c Config) WithRegistry(r *merge.Registry) Config { c.registry = r; return c }

// WithPollInterval sets how often a driver with nothing to do looks for
// changes made by other processes (default 200 ms; changes made through
// the same Engine wake it at once).
func (c Config) WithPollInterval(d time.Duration) Config { c.poll = d; return c }

// Engine runs workflows in the namespace of a team manager. It is safe for
// concurrent use; see the package documentation.
type Engine struct {
	n   *cortex.Namespace
	tm  *teammanager.Manager
	x   ns.NS
	cfg Config

	mu    sync.Mutex
	defs  map[string]*defEntry // by hash
	runs  map[string]*record   // by id: the last read or written (see store.go)
	wakeC chan struct{}        // closed and replaced by every write

	// headHook, when set by a test, runs in a read of a run (load)
	// between the read of its row and that of its step rows.
	headHook func(id string)
	// findingsHook, when set by a test, runs in AddFindings once the
	// attempt is checked, before the write of the findings.
	findingsHook func()
}

type defEntry struct {
	def  Def
	plan *plan
}

// New returns an Engine over the namespace of tm in store s.
func New(ctx context.Context, s *cortex.Store, tm *teammanager.Manager, cfg Config) (*Engine, error) {
	if cfg.now == nil {
		cfg.now = time.Now
	}
	if cfg.poll <= 0 {
		return nil, fmt.Errorf("workflow: poll interval %s: must be positive", cfg.poll)
	}
	if cfg.stepTimeout < 0 {
		return nil, fmt.Errorf("workflow: step timeout %s: must not be negative", cfg.stepTimeout)
	}
	x := tm.Namespace()
	n, err := s.Namespace(ctx, x.Name(), cortex.WithBase(x.Base()))
	if err != nil {
		return nil, err
	}
	return &Engine{n: n, tm: tm, x: x, cfg: cfg, defs: map[string]*defEntry{}, runs: map[string]*record{}, wakeC: make(chan struct{})}, nil
}

func (e *Engine) now() time.Time { return e.cfg.now().UTC() }

// mergeUnder is merge under ctx, for a change (a council's tally).
func (e *Engine) mergeUnder(ctx context.Context) func(string, merge.Input) (merge.Result, error) {
	return func(name string, in merge.Input) (merge.Result, error) { return e.merge(ctx, name, in) }
}

// merge runs the strategy registered under name on in, under ctx (see
// merge.MergeWith: a strategy that is no merge.ContextStrategy and does
// not return is left behind when ctx ends, and its result discarded).
func (e *Engine) merge(ctx context.Context, name string, in merge.Input) (merge.Result, error) {
	lookup := merge.Lookup
	if e.cfg.registry != nil {
		lookup = e.cfg.registry.Lookup
	}
	s, err := lookup(name)
	if err != nil {
		return merge.Result{}, err
	}
	res, err := merge.MergeWith(ctx, s, in)
	if err != nil {
		return merge.Result{}, fmt.Errorf("merge with %s: %w", name, err)
	}
	res.Strategy = name
	return res, nil
}

// wake tells the drivers of this Engine that a run changed.
func (e *Engine) wake() {
	e.mu.Lock()
	close(e.wakeC)
	e.wakeC = make(chan struct{})
	e.mu.Unlock()
}

func (e *Engine) changed() <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.wakeC
}

// MemberID returns the team member id of agent: the agent name with '/'
// (a namespace-qualified agent) replaced by '+', which team member ids
// allow.
func MemberID(agent string) string { return strings.ReplaceAll(agent, "/", "+") }

// RunOptions are the options of Start.
type RunOptions struct {
	// ID is the run id, which is also its team's id. Empty: a fresh one.
	// Given: 1..64 characters of [A-Za-z0-9._@+-].
	ID string
	// Strategy is the merge strategy of the fan-in steps and the final
	// merge. Empty: the Engine's default.
	Strategy string
	// Inputs are the run inputs: an input port of a step that no upstream
	// output feeds takes the run input of its name.
	Inputs map[string]any
	// NonCritical lists agents whose failed steps do not fail their
	// dependents (which then run without their outputs) nor the run.
	NonCritical []string
	// StepTimeout is how long a started step may run before it is failed.
	// 0: the Engine's default; negative: no timeout.
	StepTimeout time.Duration
	// Actor is recorded as the actor of the run's creation (default
	// SystemActor); it must be valid UTF-8.
	Actor string
}

var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

func newRunID() string {
	var b [10]byte
	_, _ = rand.Read(b[:])
	return "r" + idEncoding.EncodeToString(b[:])
}

func validID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("._@+-", c) >= 0) {
			return false
		}
	}
	return true
}

// CheckOptions checks the options of a run of d as Start does, before
// anything is written: the run id, the strategy given (one of strategies,
// the team manager's: Manager.Strategies; a council's is consensus), the
// non-critical agents (members of the run), and that the run has members,
// each with a member id of its own that a team member may have (1..64
// characters of [A-Za-z0-9._@+-] once '/' is '+'), and the name (not
// blank) and context (UTF-8) its team takes from d. Errors match
// ErrInvalidRun. The
// strategy the Engine defaults to and the run inputs (CheckInputs) are
// checked by Start.
func (d Def) CheckOptions(opts RunOptions, strategies []string) error {
	x := d.expand()
	x.Type = x.EffectiveType()
	return x.checkOptions(opts, strategies)
}

// checkOptions is CheckOptions of an expanded d whose Type is set.
func (d *Def) checkOptions(opts RunOptions, strategies []string) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidRun, fmt.Sprintf(format, a...))
	}
	if opts.ID != "" && !validID(opts.ID) {
		return bad("id %q must be 1..64 characters of [A-Za-z0-9._@+-]", opts.ID)
	}
	if !utf8.ValidString(opts.Actor) {
		return bad("actor %q is not valid UTF-8", opts.Actor)
	}
	switch {
	case d.Type == Council && opts.Strategy != "" && opts.Strategy != merge.NameConsensus:
		return bad("a council merges with %s, not %q", merge.NameConsensus, opts.Strategy)
	case opts.Strategy != "" && !slices.Contains(strategies, opts.Strategy):
		return bad("unknown strategy %q (known: %s)", opts.Strategy, strings.Join(strategies, ", "))
	}
	// The run's team takes the definition's name and context, which a
	// team must have so (teammanager.Config.ValidateTeam).
	switch {
	case strings.TrimSpace(d.Name) == "":
		return bad("the definition's name %q is blank", d.Name)
	case !utf8.ValidString(d.Name) || !utf8.ValidString(d.Context):
		return bad("the definition's name or context is not valid UTF-8")
	}
	agents := d.members()
	if len(agents) == 0 {
		return bad("no steps")
	}
	ids := map[string]string{}
	for _, a := range agents {
		id := MemberID(a)
		if !validID(id) {
			return bad("agent %q: member id %q must be 1..64 characters of [A-Za-z0-9._@+-]", a, id)
		}
		if other, dup := ids[id]; dup {
			return bad("agents %q and %q have the same member id %q", other, a, id)
		}
		ids[id] = a
	}
	for _, a := range opts.NonCritical {
		if !slices.Contains(agents, a) {
			return bad("non-critical agent %q is not a member of the run", a)
		}
	}
	return nil
}

// CheckInputs checks the run inputs of a run of d as Start does, before
// anything is written: each must have the type of the step inputs of its
// name, and every required input of a step that only a run input can give
// (no From, no Default, not Optional) must be there — such a step could
// never run. Errors match ErrInvalidRun: the first wrong type, else every
// missing input, each with the steps that need it.
func (d Def) CheckInputs(inputs map[string]any) error {
	x := d.expand()
	_, err := x.checkInputs(inputs)
	return err
}

// checkInputs is CheckInputs of an expanded d; it returns the inputs
// normalised (as encoding/json decodes them).
func (d *Def) checkInputs(in map[string]any) (map[string]any, error) {
	inputs, err := normalize(in)
	if err != nil {
		return nil, fmt.Errorf("%w: inputs: %v", ErrInvalidRun, err)
	}
	for _, name := range slices.Sorted(maps.Keys(inputs)) {
		for _, s := range d.Steps {
			for _, port := range s.Inputs {
				if port.Name == name {
					if err := checkValue(port.Type, inputs[name]); err != nil {
						return nil, fmt.Errorf("%w: input %s (step %s): %v", ErrInvalidRun, name, s.Name, err)
					}
				}
			}
		}
	}
	needs := map[string][]string{} // missing run input -> the steps that need it
	for _, s := range d.Steps {
		for _, port := range s.Inputs {
			if _, ok := inputs[port.Name]; ok || port.From != "" || port.Default != nil || port.Optional {
				continue
			}
			if !slices.Contains(needs[port.Name], s.Name) {
				needs[port.Name] = append(needs[port.Name], s.Name)
			}
		}
	}
	if len(needs) == 0 {
		return inputs, nil
	}
	var missing []string
	for _, name := range slices.Sorted(maps.Keys(needs)) {
		steps := needs[name]
		what := "step " + steps[0]
		if len(steps) > 1 {
			what = "steps " + strings.Join(steps, ", ")
		}
		missing = append(missing, fmt.Sprintf("missing run input %s (required by %s, with no default)", name, what))
	}
	return nil, fmt.Errorf("%w: %s", ErrInvalidRun, strings.Join(missing, "; "))
}

// Start validates d and starts a run of it: it records the run (pending,
// the steps without dependencies ready) and creates its team, whose
// members are the steps' agents (MemberID; a crew's or swarm's agents, its
// board configured as the package documentation says), none of them
// critical in the team's own sense (criticality is the run's), with no
// team timeout.
//
// A run input missing for a step that nothing else can give it to is
// refused (CheckInputs), as a run with such a step would skip it without
// running it.
//
// Errors: ErrInvalidDef (every problem of d), ErrInvalidRun (options,
// inputs — a wrong type, a missing one —, a team the team manager refuses,
// such as more agents than its maximum team size), ErrRunExists (a run,
// or a team, with the id exists: the run's team takes the run's id).
func (e *Engine) Start(ctx context.Context, d Def, opts RunOptions) (Run, error) {
	d = d.expand()
	p, err := d.plan()
	if err != nil {
		return Run{}, err
	}
	d.Type = d.EffectiveType()
	bad := func(format string, a ...any) (Run, error) {
		return Run{}, fmt.Errorf("start %s: %w: %s", d.Name, ErrInvalidRun, fmt.Sprintf(format, a...))
	}
	if err := d.checkOptions(opts, e.tm.Strategies()); err != nil {
		return Run{}, fmt.Errorf("start %s: %w", d.Name, err)
	}
	if opts.ID == "" {
		opts.ID = newRunID()
	}
	switch {
	case d.Type == Council && opts.Strategy == "":
		opts.Strategy = merge.NameConsensus
	case opts.Strategy == "":
		opts.Strategy = e.cfg.defaultStrategy
	}
	if !slices.Contains(e.tm.Strategies(), opts.Strategy) {
		return bad("unknown strategy %q (known: %s)", opts.Strategy, strings.Join(e.tm.Strategies(), ", "))
	}
	inputs, err := d.checkInputs(opts.Inputs)
	if err != nil {
		return Run{}, fmt.Errorf("start %s: %w", d.Name, err)
	}
	timeout := opts.StepTimeout
	switch {
	case timeout == 0:
		timeout = e.cfg.stepTimeout
	case timeout < 0:
		timeout = 0
	}
	defJSON, err := json.Marshal(&d)
	if err != nil {
		return bad("definition: %v", err)
	}
	sum := sha256.Sum256(defJSON)
	hash := hex.EncodeToString(sum[:16])
	actor := opts.Actor
	if actor == "" {
		actor = SystemActor
	}
	now := e.now()
	rec := &record{Run: Run{
		ID: opts.ID, Name: d.Name, Type: d.Type, Status: RunPending, Strategy: opts.Strategy, Team: opts.ID,
		Inputs: inputs, NonCritical: slices.Clone(opts.NonCritical), StepTimeout: timeout, CreatedAt: now,
	}, DefHash: hash}
	for _, s := range d.Steps {
		rec.Steps = append(rec.Steps, StepState{Name: s.Name, Agent: s.Agent, Status: StepPending})
	}
	err = e.n.Update(ctx, func(tx *cortex.Tx) error {
		if _, found, err := tx.Namespace().SideRow(ctx, runTable, opts.ID); err != nil {
			return err
		} else if found {
			return fmt.Errorf("start %s: %w: %s", d.Name, ErrRunExists, opts.ID)
		}
		// The run's team has the run's id: a team that has it already
		// (not a run's) is not this run's to drive, merge or cancel.
		if qs, err := tx.Namespace().Quads(ctx, cortex.Pattern{
			Subject: e.x.Team(opts.ID), Predicate: ns.RDFType, Object: e.x.IRI(ns.ClassTeam),
			Graph: e.x.TeamGraph(opts.ID), Scope: cortex.OneGraph,
		}); err != nil {
			return err
		} else if len(qs) > 0 {
			return fmt.Errorf("start %s: %w: team %s exists", d.Name, ErrRunExists, opts.ID)
		}
		if _, found, err := tx.Namespace().SideRow(ctx, defTable, hash); err != nil {
			return err
		} else if !found {
			tx.PutSide(defTable, hash, []quad.Value{quad.String(defJSON)})
		}
		c := &change{rec: rec, now: now, merge: e.mergeUnder(ctx)}
		c.trans = append(c.trans, Transition{At: now, Actor: actor, To: string(RunPending), Reason: "run created"})
		if err := c.advance(&d, p); err != nil {
			return err
		}
		return e.stage(tx, nil, c, &d, p)
	})
	if err != nil {
		return Run{}, err
	}
	e.remember(rec.seal(), false)
	// The cache holds the definition as stored (as another Engine reads
	// it), not the caller's, whose slices and maps it may change after.
	var stored Def
	if err := json.Unmarshal(defJSON, &stored); err == nil {
		if sp, err := stored.plan(); err == nil {
			e.cacheDef(hash, &stored, sp)
		}
	}
	e.wake()
	rec, err = e.settle(ctx, rec)
	if errors.Is(err, teammanager.ErrInvalidTeam) {
		// The team manager refuses the team (too many agents, ...): the
		// run cannot run; remove it.
		if derr := e.remove(ctx, opts.ID, len(d.Steps)); derr != nil {
			return Run{}, errors.Join(err, derr)
		}
		return Run{}, fmt.Errorf("start %s: %w: %w", d.Name, ErrInvalidRun, err)
	}
	if err != nil {
		return Run{}, err
	}
	return rec.public(), nil
}

// remove deletes the record, the steps rows and the quads of a run of
// steps steps whose team could not be created.
func (e *Engine) remove(ctx context.Context, id string, steps int) error {
	defer e.forget(id)
	return e.n.Update(ctx, func(tx *cortex.Tx) error {
		for _, g := range []quad.Value{e.x.RunGraph(id), e.x.HistoryGraph(id)} {
			qs, err := tx.Namespace().Quads(ctx, cortex.Pattern{Graph: g, Scope: cortex.OneGraph})
			if err != nil {
				return err
			}
			tx.Remove(qs...)
		}
		tx.DeleteSide(runTable, id)
		for i := range steps {
			tx.DeleteSide(stepTable, stepKey(id, i))
		}
		tx.KeepSide(runTable)
		tx.KeepSide(stepTable)
		e.tm.KeepTables(tx)
		return nil
	})
}

func (e *Engine) cacheDef(hash string, d *Def, p *plan) {
	e.mu.Lock()
	e.defs[hash] = &defEntry{def: *d, plan: p}
	e.mu.Unlock()
}

// definition returns the definition and plan of a run (cached by hash).
func (e *Engine) definition(ctx context.Context, rec *record) (*Def, *plan, error) {
	e.mu.Lock()
	de := e.defs[rec.DefHash]
	e.mu.Unlock()
	if de != nil {
		return &de.def, de.plan, nil
	}
	row, found, err := e.n.SideRow(ctx, defTable, rec.DefHash)
	if err != nil {
		return nil, nil, err
	}
	if !found || len(row) != 1 {
		return nil, nil, fmt.Errorf("run %s: definition %s missing", rec.ID, rec.DefHash)
	}
	var d Def
	if err := json.Unmarshal([]byte(quadString(row[0])), &d); err != nil {
		return nil, nil, fmt.Errorf("run %s: definition %s: %w", rec.ID, rec.DefHash, err)
	}
	p, err := d.plan()
	if err != nil {
		return nil, nil, fmt.Errorf("run %s: stored definition: %w", rec.ID, err)
	}
	e.cacheDef(rec.DefHash, &d, p)
	return &d, p, nil
}

func quadString(v quad.Value) string {
	switch v := v.(type) {
	case quad.String:
		return string(v)
	case quad.TypedString:
		return string(v.Value)
	}
	return ""
}

func decodeRecord(id string, row []quad.Value) (*record, error) {
	if len(row) != 1 {
		return nil, fmt.Errorf("run %s: malformed record", id)
	}
	var rec record
	if err := json.Unmarshal([]byte(quadString(row[0])), &rec); err != nil {
		return nil, fmt.Errorf("run %s: record: %w", id, err)
	}
	return &rec, nil
}

// update is an atomic read-modify-write of run id: fn changes the record
// through c; the step timeouts are applied first, readiness after; the
// record, the run graph and the history are written in one Update.
func (e *Engine) update(ctx context.Context, id string, fn func(c *change, d *Def, p *plan) error) (*record, error) {
	var out *record
	wrote := false
	err := e.n.Update(ctx, func(tx *cortex.Tx) error {
		var err error
		out, wrote, err = e.updateIn(ctx, tx, id, fn)
		return err
	})
	if err != nil {
		return nil, err
	}
	e.wrote(out, wrote)
	return out, nil
}

// updateIn is the read-modify-write of update in tx, a write under the
// namespace's write lock: it returns the record and whether it staged it
// (then, once tx has committed, the caller calls wrote).
func (e *Engine) updateIn(ctx context.Context, tx *cortex.Tx, id string, fn func(c *change, d *Def, p *plan) error) (*record, bool, error) {
	old, err := e.load(ctx, tx.Namespace(), id, readLocked)
	if err != nil {
		return nil, false, err
	}
	if err := e.fenced(ctx, old); err != nil {
		return nil, false, err
	}
	d, p, err := e.definition(ctx, old)
	if err != nil {
		return nil, false, err
	}
	rec := old.next()
	c := &change{rec: rec, now: e.now(), merge: e.mergeUnder(ctx)}
	c.expire()
	if err := fn(c, d, p); err != nil {
		return nil, false, err
	}
	if err := c.advance(d, p); err != nil {
		return nil, false, err
	}
	if len(c.trans) == 0 && !stepsChanged(old, rec) && headEqual(old, rec) {
		return old, false, nil
	}
	return rec, true, e.stage(tx, old, c, d, p)
}

// wrote keeps rec, if written, as the run's latest and wakes the drivers.
func (e *Engine) wrote(rec *record, written bool) {
	if written {
		e.remember(rec.seal(), false)
		e.wake()
	}
}

// Get returns run id as stored. It only reads: a step past its timeout
// reads as running until a write or Ready records its failure. Like List
// and History, it never takes the namespace's write lock (see Caveats in
// the package documentation).
func (e *Engine) Get(ctx context.Context, id string) (Run, error) {
	rec, err := e.load(ctx, e.n, id, readOnly)
	if err != nil {
		return Run{}, err
	}
	return rec.public(), nil
}

// List returns the runs with status st (empty: all), sorted by creation
// time, then id. A status that is none of the RunStatus values is refused
// (ParseRunStatus's error, matching ErrInvalidRun).
func (e *Engine) List(ctx context.Context, st RunStatus) ([]Run, error) {
	if st != "" {
		if _, err := ParseRunStatus(string(st)); err != nil {
			return nil, fmt.Errorf("list runs: %w", err)
		}
	}
	rows, _, err := e.n.SideRows(ctx, runTable)
	if err != nil {
		return nil, err
	}
	var out []Run
	for _, row := range rows {
		rec, err := decodeRecord(row.Key, row.Vals)
		if err != nil {
			return nil, err
		}
		if st != "" && rec.Status != st {
			continue
		}
		if rec.StepRows > 0 {
			// Its steps are in their own rows, read with its head again
			// (it may have changed since this listing's read).
			if rec, err = e.load(ctx, e.n, row.Key, readOnly); errors.Is(err, ErrUnknownRun) {
				continue // removed meanwhile
			} else if err != nil {
				return nil, err
			}
			if st != "" && rec.Status != st {
				continue
			}
		}
		out = append(out, rec.public())
	}
	slices.SortFunc(out, func(a, b Run) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// ReadyStep is a step that may start, with what it receives.
type ReadyStep struct {
	Run     string          `json:"run"`
	Step    Step            `json:"step"`
	Agent   json.RawMessage `json:"agent,omitempty"` // the agent's definition, if the Def has it
	Context string          `json:"context,omitempty"`
	// Inputs are the step's resolved inputs.
	Inputs map[string]any `json:"inputs"`
	// Upstream is the fused view of the findings of the step's completed
	// dependencies, merged with the run's strategy: each fact's
	// Supporters are the dependency steps that reported it, its
	// FindingIDs their findings (the fan-in of a scatter's collect step).
	Upstream []merge.Fact `json:"upstream,omitempty"`
	// Conflicts are the topics the strategy left open among them.
	Conflicts []merge.Conflict `json:"conflicts,omitempty"`
	// Round is a council step's round (from 1), and Tally the tally of
	// the round before (nil in round 1): the topics still open are those
	// the member may change its votes on.
	Round int    `json:"round,omitempty"`
	Tally *Tally `json:"tally,omitempty"`
	// Turn is a crew's or swarm's lead turn (from 1) of MaxTurns, and
	// Members the run's members, lead first (see DriveLed).
	Turn     int         `json:"turn,omitempty"`
	MaxTurns int         `json:"max_turns,omitempty"`
	Members  []RunMember `json:"members,omitempty"`
}

// Ready returns the steps of run id that may start now, in definition
// order, with their resolved inputs and the fused findings of their
// dependencies. Before reading, it records what is due: the failure of
// steps past their timeout, the team's members, and the final merge of a
// run in which no step can still run (a crash leftover).
func (e *Engine) Ready(ctx context.Context, id string) ([]ReadyStep, error) {
	return e.ready(ctx, id, -1, nil)
}

// ready is Ready listing at most limit steps (limit < 0: all), none that
// skip names (nil: none): a driver asks for what it can start, so that
// the cost of a call does not grow with the steps that are ready.
func (e *Engine) ready(ctx context.Context, id string, limit int, skip func(step string) bool) ([]ReadyStep, error) {
	rec, err := e.load(ctx, e.n, id, readWriter)
	if err != nil {
		return nil, err
	}
	if e.expired(rec) {
		if rec, err = e.update(ctx, id, func(*change, *Def, *plan) error { return nil }); err != nil {
			return nil, err
		}
	}
	if rec.Type.Led() && rec.TeamReady && !rec.TeamGone && !rec.Status.Finished() {
		// A crew's or swarm's coordination is its team's board: a run
		// whose team was deleted or disbanded cannot go on.
		t, err := e.tm.GetTeam(ctx, rec.Team)
		how := ""
		switch {
		case errors.Is(err, teammanager.ErrUnknownTeam):
			how = "deleted"
		case err == nil && t.Lifecycle == teammanager.LifecycleDisbanded:
			how = "disbanded"
		}
		if how != "" {
			if rec, err = e.teamGone(ctx, id, how); err != nil {
				return nil, err
			}
		}
	}
	if e.unsettled(rec) {
		if rec, err = e.settle(ctx, rec); err != nil {
			return nil, err
		}
	}
	if rec.Status.Finished() || rec.Status == RunMerging {
		return nil, nil
	}
	d, p, err := e.definition(ctx, rec)
	if err != nil {
		return nil, err
	}
	var out []ReadyStep
	for i, s := range rec.Steps {
		if limit >= 0 && len(out) >= limit {
			break
		}
		if s.Status != StepReady || skip != nil && skip(s.Name) {
			continue
		}
		in, err := rec.inputs(d, p, i)
		if err != nil {
			return nil, fmt.Errorf("run %s: step %s: %w", id, s.Name, err)
		}
		// The definition is the Engine's, shared by its calls: the step
		// gets copies, which its runner may change.
		rs := ReadyStep{Run: id, Step: d.Steps[i].clone(), Agent: bytes.Clone(d.AgentDefs[s.Agent]), Context: d.Context, Inputs: in}
		if rec.Type.Led() {
			// A lead turn: the run's inputs, the members, the turn.
			rs.Inputs, rs.Turn, rs.MaxTurns, rs.Members = maps.Clone(rec.Inputs), i+1, len(rec.Steps), d.runMembers()
			for k := range rs.Members {
				rs.Members[k].Agent = bytes.Clone(rs.Members[k].Agent)
			}
			if rs.Inputs == nil {
				rs.Inputs = map[string]any{}
			}
		}
		if rec.Type == Council {
			// Every member answers the same question: the run's inputs.
			rs.Inputs, rs.Round = maps.Clone(rec.Inputs), rec.round(i)
			if rs.Inputs == nil {
				rs.Inputs = map[string]any{}
			}
			if k := rs.Round - 2; k >= 0 && k < len(rec.Rounds) {
				rs.Tally = rec.Rounds[k].clone() // the record is shared (store.go)
			}
		}
		// The run's record is shared (store.go): the step gets a copy of
		// its values, which its runner may change.
		if rs.Inputs, err = normalizeTo(rs.Inputs, 0); err != nil {
			return nil, fmt.Errorf("run %s: step %s: %w", id, s.Name, err)
		} else if rs.Inputs == nil {
			rs.Inputs = map[string]any{}
		}
		if rs.Upstream, rs.Conflicts, err = e.upstream(ctx, rec, p, i); err != nil {
			return nil, err
		}
		out = append(out, rs)
	}
	return out, nil
}

func (e *Engine) expired(rec *record) bool {
	if rec.StepTimeout <= 0 || rec.Status.Finished() {
		return false
	}
	now := e.now()
	for _, s := range rec.Steps {
		if s.Status == StepRunning && !now.Before(s.StartedAt.Add(rec.StepTimeout)) {
			return true
		}
	}
	return false
}

// upstream fuses the findings of step i's completed dependencies.
func (e *Engine) upstream(ctx context.Context, rec *record, p *plan, i int) ([]merge.Fact, []merge.Conflict, error) {
	var (
		members []merge.Member
		byAgent = map[string][]int{}
		agents  []string
	)
	for _, k := range p.deps[i] {
		dep := &rec.Steps[k]
		if dep.Status != StepCompleted {
			continue
		}
		members = append(members, merge.Member{Agent: dep.Name, Status: merge.Completed, CompletedAt: dep.CompletedAt})
		if len(dep.Findings) > 0 {
			if byAgent[dep.Agent] == nil {
				agents = append(agents, dep.Agent)
			}
			byAgent[dep.Agent] = append(byAgent[dep.Agent], k)
		}
	}
	if len(agents) == 0 {
		return nil, nil, nil
	}
	var fs []merge.Finding
	for _, agent := range agents {
		stored, err := e.tm.Findings(ctx, rec.Team, teammanager.FindingFilter{Agent: MemberID(agent)})
		if err != nil {
			return nil, nil, fmt.Errorf("run %s: findings of %s: %w", rec.ID, agent, err)
		}
		byID := make(map[string]*teammanager.StoredFinding, len(stored))
		for j := range stored {
			byID[stored[j].ID] = &stored[j]
		}
		for _, k := range byAgent[agent] {
			dep := &rec.Steps[k]
			for _, id := range dep.Findings {
				f := byID[id]
				if f == nil {
					continue // not committed (see AddFindings)
				}
				fs = append(fs, merge.Finding{ID: id, Agent: dep.Name, Subject: f.Subject, Predicate: f.Predicate,
					Object: f.Object, Confidence: f.Confidence, AssertedAt: f.AssertedAt})
			}
		}
	}
	res, err := e.merge(ctx, rec.Strategy, merge.Input{
		Team:    merge.Team{ID: rec.Team, Name: rec.Name},
		Members: members, Findings: fs, Options: merge.Options{Now: e.now()},
	})
	if err != nil {
		return nil, nil, fmt.Errorf("run %s: fan-in of step %s: %w", rec.ID, rec.Steps[i].Name, err)
	}
	return res.Facts, res.Conflicts, nil
}

func (rec *record) stepIndex(name string) (int, error) {
	for i := range rec.Steps {
		if rec.Steps[i].Name == name {
			return i, nil
		}
	}
	return -1, fmt.Errorf("run %s: step %q: %w", rec.ID, name, unknownStep(name))
}

func notFinished(rec *record) error {
	if rec.Status.Finished() {
		return fmt.Errorf("run %s is %s: %w", rec.ID, rec.Status, ErrRunFinished)
	}
	return nil
}

// StartStep moves a ready step to running, recording actor as the one who
// runs it, and returns the attempt it starts (StepState.Attempt: 1, then
// one more at each restart after ReleaseStep), which the step's later
// calls (AddFindings, CompleteStep, FailStep, ReleaseStep) name: a runner
// that returns after its attempt was given back and the step started
// again is refused (*AttemptError) instead of finishing the new attempt.
// It is an atomic read-modify-write: of two callers starting the same
// step, one gets a *TransitionError (the step is running). The run
// becomes running with its first step. The step's agent is then a running
// member of the run's team (an error doing that is returned with the
// attempt, which has started). An empty actor, or one that is not valid
// UTF-8, is refused with ErrInvalidRun before anything is written.
func (e *Engine) StartStep(ctx context.Context, id, step, actor string) (int, error) {
	if actor == "" || !utf8.ValidString(actor) {
		return 0, fmt.Errorf("run %s: step %s: %w: actor %q: empty or not valid UTF-8", id, step, ErrInvalidRun, actor)
	}
	attempt := 0
	rec, err := e.update(ctx, id, func(c *change, _ *Def, _ *plan) error {
		if err := notFinished(c.rec); err != nil {
			return err
		}
		i, err := c.rec.stepIndex(step)
		if err != nil {
			return err
		}
		s := &c.rec.Steps[i]
		if s.Status != StepReady {
			return &TransitionError{Run: id, Step: step, From: s.Status, To: StepRunning}
		}
		c.step(i, StepRunning, actor, "")
		s.Actor, s.StartedAt = actor, c.now
		s.Attempt++
		attempt = s.Attempt
		if c.rec.Status == RunPending {
			c.run(RunRunning, actor, "")
			c.rec.StartedAt = c.now
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	_, err = e.settle(ctx, rec)
	return attempt, err
}

// current checks that attempt is step i's current attempt.
func current(rec *record, i, attempt int) error {
	if s := &rec.Steps[i]; s.Attempt != attempt {
		return &AttemptError{Run: rec.ID, Step: s.Name, Attempt: attempt, Current: s.Attempt, Status: s.Status}
	}
	return nil
}

// running returns the index of step, which must be running its attempt
// attempt.
func running(c *change, step string, attempt int, to StepStatus) (int, error) {
	if err := notFinished(c.rec); err != nil {
		return -1, err
	}
	i, err := c.rec.stepIndex(step)
	if err != nil {
		return -1, err
	}
	if err := current(c.rec, i, attempt); err != nil {
		return -1, err
	}
	if s := c.rec.Steps[i].Status; s != StepRunning {
		return -1, &TransitionError{Run: c.rec.ID, Step: step, From: s, To: to}
	}
	return i, nil
}

// AddFindings records findings reported by attempt attempt of running
// step step (the number StartStep returned; *AttemptError for another,
// before anything is written; a step past its timeout is failed first, and
// its findings refused with a *TransitionError): they are
// written to the step agent's member graph in the run's team (see
// teammanager.Manager.AddFindings; a zero AssertedAt is now) and their ids
// on the step, which the fan-in of its dependents and its status show.
// It returns the finding ids. A council step's findings are its votes: they
// are recorded on the step in one write (see the package documentation) and
// no ids are returned.
//
// The findings and their ids on the step are written in one atomic write,
// which checks the attempt again: an attempt given back, or a step failed,
// after AddFindings was called writes nothing (*AttemptError or
// *TransitionError). A retry with the same AssertedAt gives the same ids
// (they are derived from the findings' content). If the run's team was
// deleted or disbanded, the run fails (see the package documentation) and
// AddFindings returns an error matching ErrRunFinished.
func (e *Engine) AddFindings(ctx context.Context, id, step string, attempt int, fs []teammanager.Finding) ([]string, error) {
	rec, err := e.load(ctx, e.n, id, readWriter)
	if err != nil {
		return nil, err
	}
	if e.expired(rec) {
		// Record the timeouts that are due first: a step past its
		// timeout has failed, and its late findings go nowhere.
		if rec, err = e.update(ctx, id, func(*change, *Def, *plan) error { return nil }); err != nil {
			return nil, err
		}
		if e.unsettled(rec) { // the run may have no step left to run
			if rec, err = e.settle(ctx, rec); err != nil {
				return nil, err
			}
		}
	}
	if err := notFinished(rec); err != nil {
		return nil, err
	}
	i, err := rec.stepIndex(step)
	if err != nil {
		return nil, err
	}
	if err := current(rec, i, attempt); err != nil {
		return nil, err
	}
	if s := rec.Steps[i].Status; s != StepRunning {
		return nil, &TransitionError{Run: id, Step: step, From: s, To: StepRunning}
	}
	if e.unsettled(rec) {
		if rec, err = e.settle(ctx, rec); err != nil {
			return nil, err
		}
	}
	now := e.now()
	if rec.Type == Council {
		return nil, e.addVotes(ctx, rec, id, step, attempt, fs, now)
	}
	if e.findingsHook != nil {
		e.findingsHook()
	}
	fs = slices.Clone(fs)
	for j := range fs {
		if fs[j].AssertedAt.IsZero() {
			fs[j].AssertedAt = now
		}
	}
	// The attempt is checked again, and the ids recorded on the step, in
	// the write that adds the findings to the team: an attempt given back
	// (or a step failed) since the check above writes nothing.
	var (
		out   *record
		wrote bool
		cerr  error // the check's
	)
	ids, err := e.tm.AddFindingsChecked(ctx, rec.Team, MemberID(rec.Steps[i].Agent), fs, func(tx *cortex.Tx, ids []string) error {
		out, wrote, cerr = e.updateIn(ctx, tx, id, func(c *change, _ *Def, _ *plan) error {
			i, err := running(c, step, attempt, StepRunning)
			if err != nil {
				return err
			}
			s := &c.rec.Steps[i]
			for _, fid := range ids {
				if !slices.Contains(s.Findings, fid) {
					s.Findings = append(s.Findings, fid)
				}
			}
			return nil
		})
		return cerr
	})
	if cerr != nil {
		return nil, cerr
	}
	if how := teamGoneHow(err); how != "" && rec.TeamReady {
		// The team was deleted or disbanded under the run: the run fails
		// (see settle), and these findings have nowhere to go.
		if rec, err = e.teamGone(ctx, id, how); err != nil {
			return nil, err
		}
		return nil, notFinished(rec)
	}
	if err != nil {
		return nil, fmt.Errorf("run %s: step %s: %w", id, step, err)
	}
	e.wrote(out, wrote)
	return ids, nil
}

// CompleteStep completes attempt attempt of running step step (the number
// StartStep returned: *AttemptError, matching ErrStaleAttempt and
// ErrInvalidTransition, for another; nothing is written) with outputs,
// which must be declared outputs of the step with values of their ports'
// types (ErrInvalidOutput otherwise; nothing is written). Its dependents
// become ready as their dependencies allow; when no step can still run,
// the run is merged and completes (or fails) before CompleteStep returns.
func (e *Engine) CompleteStep(ctx context.Context, id, step string, attempt int, outputs map[string]any) error {
	return e.finishStep(ctx, id, step, attempt, StepCompleted, outputs, "")
}

// FailStep fails attempt attempt of running step step with reason (its
// bytes that are not UTF-8 replaced by U+FFFD) (*AttemptError for another
// attempt, as CompleteStep). Its dependents
// are skipped, unless its agent is non-critical; when no step can still
// run, the run is merged and fails (or completes) before FailStep returns.
func (e *Engine) FailStep(ctx context.Context, id, step string, attempt int, reason string) error {
	if reason == "" {
		reason = "failed"
	}
	return e.finishStep(ctx, id, step, attempt, StepFailed, nil, reason)
}

func (e *Engine) finishStep(ctx context.Context, id, step string, attempt int, to StepStatus, outputs map[string]any, reason string) error {
	reason = validText(reason)
	rec, err := e.update(ctx, id, func(c *change, d *Def, _ *plan) error {
		i, err := running(c, step, attempt, to)
		if err != nil {
			return err
		}
		s := &c.rec.Steps[i]
		if to == StepCompleted {
			out, err := checkOutputs(&d.Steps[i], outputs)
			if err != nil {
				return fmt.Errorf("run %s: %w", id, err)
			}
			s.Outputs = out
		}
		c.step(i, to, s.Actor, reason)
		return nil
	})
	if err != nil {
		return err
	}
	_, err = e.settle(ctx, rec)
	return err
}

// ReleaseStep gives attempt attempt of running step step back
// (*AttemptError for another attempt, as CompleteStep): it becomes ready
// again, for any driver to start as its next attempt, with reason (as
// FailStep's) (a driver whose
// context ends releases the steps it runs, so the run can be resumed).
// Findings it reported stay recorded.
func (e *Engine) ReleaseStep(ctx context.Context, id, step string, attempt int, reason string) error {
	reason = validText(reason)
	_, err := e.update(withoutDriver(ctx), id, func(c *change, _ *Def, _ *plan) error {
		i, err := running(c, step, attempt, StepReady)
		if err != nil {
			return err
		}
		s := &c.rec.Steps[i]
		c.step(i, StepReady, s.Actor, reason)
		s.Actor, s.StartedAt = "", time.Time{}
		return nil
	})
	return err
}

// Cancel cancels run id: its running steps fail and the steps that have
// not run are skipped, with reason "run cancelled"; the run is cancelled.
// The team's members then finish and, as a team does, the team is merged
// if one of them completed a step. ErrRunFinished if the run has finished;
// ErrInvalidRun, before anything is written, for an actor that is not
// valid UTF-8.
func (e *Engine) Cancel(ctx context.Context, id, actor string) (Run, error) {
	if actor == "" {
		actor = SystemActor
	}
	if !utf8.ValidString(actor) {
		return Run{}, fmt.Errorf("run %s: %w: actor %q is not valid UTF-8", id, ErrInvalidRun, actor)
	}
	rec, err := e.update(ctx, id, func(c *change, _ *Def, _ *plan) error {
		if err := notFinished(c.rec); err != nil {
			return err
		}
		for i, s := range c.rec.Steps {
			switch s.Status {
			case StepRunning:
				c.step(i, StepFailed, actor, "run cancelled")
			case StepPending, StepReady:
				c.step(i, StepSkipped, actor, "run cancelled")
			}
		}
		c.run(RunCancelled, actor, "cancelled")
		c.rec.Error = "cancelled by " + actor
		return nil
	})
	if err != nil {
		return Run{}, err
	}
	rec, err = e.settle(ctx, rec)
	if err != nil {
		return Run{}, err
	}
	return rec.public(), nil
}

// validText returns reason, a free text that the run graph keeps as a
// literal, with its bytes that are not UTF-8 replaced by U+FFFD (as its
// JSON has them): a runner's error may quote a command's raw output.
func validText(reason string) string { return strings.ToValidUTF8(reason, "\uFFFD") }

// unsettled reports whether rec has work for settle.
func (e *Engine) unsettled(rec *record) bool {
	if rec.TeamGone {
		return false
	}
	if !rec.TeamReady || rec.Status == RunMerging {
		return true
	}
	for agent, want := range rec.desiredMembers() {
		if have := rec.Members[agent]; have != want && !(have != "" && rank(have) >= rank(want)) {
			return true
		}
	}
	return false
}

// rank orders member statuses: pending < running < completed, failed.
func rank(s teammanager.Status) int {
	switch s {
	case teammanager.Running:
		return 1
	case teammanager.Completed, teammanager.Failed:
		return 2
	}
	return 0
}

// settle brings the run's team in line with the run: it creates the team,
// moves the members to the status their steps call for, and finishes a
// merging run (merges the team if the team manager has not, then records
// completed or failed). Every part is idempotent, so a call after a crash
// at any point finishes what the crashed one started. A team that was
// disbanded (read-only from then on) or deleted under the run fails the
// run, as Cancel would but failed, and leaves nothing to settle.
func (e *Engine) settle(ctx context.Context, rec *record) (*record, error) {
	// What a write made follows from it: not fenced by a driver's lease
	// (WithDriver), as the write was.
	ctx = withoutDriver(ctx)
	if rec.TeamGone {
		return rec, nil
	}
	out, err := e.settleTeam(ctx, rec)
	if err == nil || !rec.TeamReady {
		return out, err
	}
	if how := teamGoneHow(err); how != "" {
		return e.teamGone(ctx, rec.ID, how)
	}
	return out, err
}

// teamGoneHow says how err reports the run's team gone: "deleted",
// "disbanded" (its graphs read-only), or "" if it does not.
func teamGoneHow(err error) string {
	switch {
	case errors.Is(err, teammanager.ErrUnknownTeam):
		return "deleted"
	case errors.Is(err, teammanager.ErrTeamDisbanded):
		return "disbanded"
	}
	return ""
}

// teamGone records that the team of run id was deleted or disbanded (how):
// the run, if not finished, fails (its running steps fail, the others are
// skipped), and there is nothing more to settle.
func (e *Engine) teamGone(ctx context.Context, id, how string) (*record, error) {
	return e.update(withoutDriver(ctx), id, func(c *change, _ *Def, _ *plan) error {
		c.rec.TeamGone = true
		if c.rec.Status.Finished() {
			return nil
		}
		reason := fmt.Sprintf("team %s was %s", c.rec.Team, how)
		for i, s := range c.rec.Steps {
			switch s.Status {
			case StepRunning:
				c.step(i, StepFailed, SystemActor, reason)
			case StepPending, StepReady:
				c.step(i, StepSkipped, SystemActor, reason)
			}
		}
		c.run(RunFailed, SystemActor, reason)
		c.rec.Error = reason
		return nil
	})
}

func (e *Engine) settleTeam(ctx context.Context, rec *record) (*record, error) {
	if !rec.TeamReady {
		d, _, err := e.definition(ctx, rec)
		if err != nil {
			return nil, err
		}
		tc := teammanager.TeamConfig{ID: rec.Team, Name: rec.Name, Strategy: rec.Strategy, Context: d.Context, Timeout: -1}
		if d.Consensus != nil && rec.Type == Council {
			tc.Threshold = d.Consensus.RequiredAgreement
			if tb := d.tieBreaker(); tb != "" {
				tc.TieBreaker = MemberID(tb)
			}
		}
		for _, a := range d.members() {
			tc.Members = append(tc.Members, teammanager.MemberConfig{AgentID: MemberID(a), Role: a, Task: d.memberTask(a)})
		}
		if _, err := e.tm.CreateTeam(ctx, tc); err != nil && !errors.Is(err, teammanager.ErrTeamExists) {
			return nil, fmt.Errorf("run %s: create team: %w", rec.ID, err)
		}
		if rec.Type.Led() {
			if err := e.configureBoard(ctx, rec.Team, d); err != nil {
				return nil, fmt.Errorf("run %s: %w", rec.ID, err)
			}
		}
		if rec, err = e.update(ctx, rec.ID, func(c *change, _ *Def, _ *plan) error {
			c.rec.TeamReady = true
			return nil
		}); err != nil {
			return nil, err
		}
	}
	if err := e.writeBallots(ctx, rec); err != nil {
		return nil, err
	}
	// Members follow the run's steps. A second pass is for another
	// driver that finished the run's last step after this one read the
	// run: the run is then merging while the members this one saw working
	// are not finished yet (that driver moves them too; either may go
	// first, moveMember takes what the other did).
	var team teammanager.Team
	for pass := 0; ; pass++ {
		var err error
		if rec, err = e.moveMembers(ctx, rec); err != nil {
			return nil, err
		}
		if rec.Status != RunMerging {
			return rec, nil
		}
		if team, err = e.tm.GetTeam(ctx, rec.Team); err != nil {
			return nil, fmt.Errorf("run %s: %w", rec.ID, err)
		}
		if teammanager.Finished(team.Status) {
			break
		}
		if pass > 0 {
			return nil, fmt.Errorf("run %s: team %s is %s while the run is merging", rec.ID, team.ID, team.Status)
		}
		if rec, err = e.load(ctx, e.n, rec.ID, readWriter); err != nil { // as the other driver left it
			return nil, err
		}
	}
	if !team.Merged && team.Status == teammanager.Completed || team.MergePending != "" {
		if _, err := e.tm.MergeTeamResults(ctx, rec.Team); err != nil {
			return nil, fmt.Errorf("run %s: merge: %w", rec.ID, err)
		}
	}
	return e.update(ctx, rec.ID, func(c *change, _ *Def, _ *plan) error {
		if c.rec.Status != RunMerging {
			return nil // another caller finished it
		}
		st, msg := c.rec.outcome()
		c.run(st, SystemActor, msg)
		c.rec.Error = msg
		return nil
	})
}

// moveMembers moves the run's members as far as its steps put them
// (record.desiredMembers; a led run's workers by their outcomes once it
// merges) and records where they are; it returns the run as recorded.
func (e *Engine) moveMembers(ctx context.Context, rec *record) (*record, error) {
	moved := map[string]teammanager.Status{}
	desired := rec.desiredMembers()
	if rec.Type.Led() && (rec.Status == RunMerging || rec.Status.Finished()) {
		d, _, err := e.definition(ctx, rec)
		if err != nil {
			return nil, err
		}
		workers, err := e.workerOutcomes(ctx, rec, d)
		if err != nil {
			return nil, err
		}
		maps.Copy(desired, workers)
	}
	for _, agent := range slices.Sorted(maps.Keys(desired)) {
		have, want := rec.Members[agent], desired[agent]
		if have == "" {
			have = teammanager.Pending
		}
		if have == want || rank(have) >= rank(want) {
			continue
		}
		if err := e.moveMember(ctx, rec.Team, MemberID(agent), have, want); err != nil {
			return nil, fmt.Errorf("run %s: member %s: %w", rec.ID, agent, err)
		}
		moved[agent] = want
	}
	if len(moved) > 0 {
		var err error
		if rec, err = e.update(ctx, rec.ID, func(c *change, _ *Def, _ *plan) error {
			if c.rec.Members == nil {
				c.rec.Members = map[string]teammanager.Status{}
			}
			for a, st := range moved {
				if rank(st) > rank(c.rec.Members[a]) {
					c.rec.Members[a] = st
				}
			}
			return nil
		}); err != nil {
			return nil, err
		}
	}
	return rec, nil
}

// moveMember moves member agent of team from have to want through the
// transitions the team manager allows. A transition that is refused
// because it was already made (a crash between the team write and the
// run's record of it, or a concurrent settle) reads the member's status
// and goes on from there.
func (e *Engine) moveMember(ctx context.Context, team, agent string, have, want teammanager.Status) error {
	for range 3 {
		var err error
		for _, st := range memberPath(have, want) {
			if _, err = e.tm.UpdateMemberStatus(ctx, team, agent, st, ""); err != nil {
				var am *teammanager.AutoMergeError
				if errors.As(err, &am) {
					err = nil // recorded on the team; settle retries the merge
					continue
				}
				break
			}
		}
		if err == nil {
			return nil
		}
		if !errors.Is(err, teammanager.ErrInvalidTransition) && !errors.Is(err, teammanager.ErrTeamFinished) {
			return err
		}
		t, gerr := e.tm.GetTeam(ctx, team)
		if gerr != nil {
			return errors.Join(err, gerr)
		}
		m, ok := t.Member(agent)
		if !ok {
			return err
		}
		if m.Status == want || rank(m.Status) >= rank(want) {
			return nil
		}
		have = m.Status
	}
	return fmt.Errorf("member %s of team %s: cannot reach %s", agent, team, want)
}

func memberPath(have, want teammanager.Status) []teammanager.Status {
	switch {
	case have == teammanager.Pending && want == teammanager.Completed:
		return []teammanager.Status{teammanager.Running, teammanager.Completed}
	default:
		return []teammanager.Status{want}
	}
}

// History returns every recorded transition of run id, in order.
func (e *Engine) History(ctx context.Context, id string) ([]Transition, error) {
	rec, err := e.load(ctx, e.n, id, readOnly)
	if err != nil {
		return nil, err
	}
	qs, err := e.n.Quads(ctx, cortex.Pattern{Graph: e.x.HistoryGraph(id), Scope: cortex.OneGraph})
	if err != nil {
		return nil, err
	}
	return e.decodeHistory(rec, qs)
}
