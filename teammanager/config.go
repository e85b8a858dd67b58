package teammanager

import (
	"fmt"
	"maps"
	"time"

	"github.com/cortexgraph/cortex/config"
	"github.com/cortexgraph/cortex/merge"
)

// Config configures a Manager. Build it with DefaultConfig (or FromConfig)
// and the WithX methods; New validates it once.
type Config struct {
	maxTeamSize     int
	defaultStrategy string
	workflowTimeout time.Duration
	autoMerge       bool
	now             func() time.Time
	registry        *merge.Registry
	prefixes        map[string]string
	eventMaxAge     time.Duration
	eventMax        int
	delegation      DelegationFunc
	noOpenWrites    bool // WithOpenWrites(false)
}

// Defaults of DefaultConfig, as in the Cortex "Teams" design.
const (
	DefaultMaxTeamSize     = 8
	DefaultStrategy        = merge.NameAdditive
	DefaultWorkflowTimeout = 600 * time.Second
)

// DefaultConfig returns teams of at most 8 members, strategy "additive",
// a 600 s workflow timeout, automatic merge on completion, the wall clock,
// the merge package's default registry, and events kept for 7 days, at
// most 100,000 of them.
func DefaultConfig() Config {
	return Config{
		maxTeamSize: DefaultMaxTeamSize, defaultStrategy: DefaultStrategy,
		workflowTimeout: DefaultWorkflowTimeout, autoMerge: true, now: time.Now,
		eventMaxAge: DefaultEventMaxAge, eventMax: DefaultEventMax,
	}
}

// FromConfig returns DefaultConfig with the values of a config file's teams
// section. Zero fields keep the defaults: MaxTeamSize 0 means 8 and
// DefaultStrategy "" means "additive", so a partly filled config.Teams
// works; EventMax 0 keeps the default event retention (and EventMaxAge with
// it). WorkflowTimeout is in seconds and keeps the config package's
// meaning: 0 means no timeout (config.Default and config.Parse supply 600
// when the file says nothing). Values out of range are kept and fail in New
// with ErrInvalidConfig.
func FromConfig(t config.Teams) Config {
	c := DefaultConfig().WithWorkflowTimeout(time.Duration(t.WorkflowTimeout) * time.Second)
	if t.MaxTeamSize != 0 {
		c = c.WithMaxTeamSize(t.MaxTeamSize)
	}
	if t.DefaultStrategy != "" {
		c = c.WithDefaultStrategy(t.DefaultStrategy)
	}
	if t.EventMax != 0 {
		// EventMaxAge keeps the config package's meaning: 0 means events
		// are kept whatever their age (config.Default and config.Parse
		// supply 7 days when the file says nothing).
		c = c.WithEventRetention(time.Duration(t.EventMaxAge)*time.Second, t.EventMax)
	}
	return c
}

// WithMaxTeamSize sets the largest allowed team. Default 8; valid 1..1000.
func (c Config) WithMaxTeamSize(n int) Config { c.maxTeamSize = n; return c }

// WithDefaultStrategy sets the merge strategy of teams that name none.
// Default "additive"; must be registered in the registry.
func (c Config) WithDefaultStrategy(name string) Config { c.defaultStrategy = name; return c }

// WithWorkflowTimeout sets how long a team may run (from its first member
// starting) before it fails, for teams that set no timeout of their own.
// Default 600 s; 0 means no timeout.
func (c Config) WithWorkflowTimeout(d time.Duration) Config { c.workflowTimeout = d; return c }

// WithAutoMerge selects whether a team is merged automatically when it
// finishes with completed members (in the call whose write finished it,
// after that write commits), and whether due merges are retried (see
// "Merges that always happen" in the package documentation). Default true.
func (c Config) WithAutoMerge(v bool) Config { c.autoMerge = v; return c }

// WithOpenWrites selects whether New may write (default true): rebuild a
// stale team table and retry interrupted merges. With false, New only
// reads, as on a read-only store: for a host that opens the Manager on
// behalf of a caller that may not write (the server, on a read-only
// token's first request in a namespace). The table is then rebuilt by
// the next ListTeams or Sweep, and the merges are retried by the other
// retry points (GetTeam, Sweep, the next write to the team), or both by
// Manager.OpenWrites, which the host calls when a caller that may write
// comes.
func (c Config) WithOpenWrites(v bool) Config { c.noOpenWrites = !v; return c }

// WithClock replaces the clock (default time.Now). Every time the manager
// writes or compares — creation, status changes, timeouts, merges — comes
// from it, so tests can drive timeouts without sleeping.
func (c Config) WithClock(now func() time.Time) Config { c.now = now; return c }

// WithRegistry sets the merge strategy registry. Default: merge's default
// registry (merge.Register, merge.Lookup).
func (c Config) WithRegistry(r *merge.Registry) Config { c.registry = r; return c }

// WithPrefixes adds prefixes (name without ':' → IRI) to those the manager
// predeclares in Query and accepts in prefixed names of ImportFindings (see
// Manager.Prefixes); they override the built-in ones of the same name. A
// config file's prefixes section goes here. Default: none. The map is
// copied.
func (c Config) WithPrefixes(p map[string]string) Config { c.prefixes = maps.Clone(p); return c }

// WithEventRetention sets how long events are kept and how many (see
// "Events" in the package documentation): an event older than maxAge (by
// the clock of WithClock), or beyond the newest maxEvents, is removed by a
// later write. Default 7 days and 100,000 (DefaultEventMaxAge,
// DefaultEventMax); maxAge 0 keeps events whatever their age; maxEvents
// must be at least 1.
func (c Config) WithEventRetention(maxAge time.Duration, maxEvents int) Config {
	c.eventMaxAge, c.eventMax = maxAge, maxEvents
	return c
}

func (c Config) validate() error {
	if c.maxTeamSize < 1 || c.maxTeamSize > 1000 {
		return fmt.Errorf("%w: max team size %d out of range 1..1000", ErrInvalidConfig, c.maxTeamSize)
	}
	if c.workflowTimeout < 0 {
		return fmt.Errorf("%w: negative workflow timeout %v", ErrInvalidConfig, c.workflowTimeout)
	}
	if c.eventMaxAge < 0 || c.eventMax < 1 {
		return fmt.Errorf("%w: event retention %v, %d events: want an age ≥ 0 and at least 1 event", ErrInvalidConfig, c.eventMaxAge, c.eventMax)
	}
	if c.now == nil {
		return fmt.Errorf("%w: nil clock", ErrInvalidConfig)
	}
	if _, err := c.lookup(c.defaultStrategy); err != nil {
		return fmt.Errorf("%w: default strategy: %w", ErrInvalidConfig, err)
	}
	return nil
}

func (c Config) lookup(name string) (merge.Strategy, error) {
	if c.registry != nil {
		return c.registry.Lookup(name)
	}
	return merge.Lookup(name)
}

// Strategies returns the names of the strategies teams may use, sorted.
func (c Config) Strategies() []string {
	if c.registry != nil {
		return c.registry.Names()
	}
	return merge.Names()
}
