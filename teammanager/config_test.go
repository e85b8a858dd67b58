package teammanager_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/config"
	"github.com/cortexgraph/cortex/cortex/cortextest"
	"github.com/cortexgraph/cortex/merge"
	"github.com/cortexgraph/cortex/namespace"
	"github.com/cortexgraph/cortex/teammanager"
)

// TestFromConfig_ZeroFieldsTakeDefaults checks that a partly filled
// config.Teams gives a working manager: zero MaxTeamSize and
// DefaultStrategy take the defaults, WorkflowTimeout 0 keeps its documented
// meaning (no timeout), and out-of-range values still fail in New.
func TestFromConfig_ZeroFieldsTakeDefaults(t *testing.T) {
	for _, tc := range []struct {
		name        string
		in          config.Teams
		maxSize     int
		strategy    string
		timeout     time.Duration
		wantInvalid bool
	}{
		{name: "timeout only", in: config.Teams{WorkflowTimeout: 300}, maxSize: 8, strategy: merge.NameAdditive, timeout: 300 * time.Second},
		{name: "zero value", in: config.Teams{}, maxSize: 8, strategy: merge.NameAdditive, timeout: 0},
		{name: "size only", in: config.Teams{MaxTeamSize: 3}, maxSize: 3, strategy: merge.NameAdditive, timeout: 0},
		{name: "strategy only", in: config.Teams{DefaultStrategy: merge.NameMajorityWins}, maxSize: 8, strategy: merge.NameMajorityWins, timeout: 0},
		{name: "config default", in: config.Default().Teams, maxSize: 8, strategy: merge.NameAdditive, timeout: 600 * time.Second},
		{name: "all set", in: config.Teams{MaxTeamSize: 2, DefaultStrategy: merge.NameConflictFlag, WorkflowTimeout: 5}, maxSize: 2, strategy: merge.NameConflictFlag, timeout: 5 * time.Second},
		{name: "negative size", in: config.Teams{MaxTeamSize: -1}, wantInvalid: true},
		{name: "unknown strategy", in: config.Teams{DefaultStrategy: "nope"}, wantInvalid: true},
		{name: "negative timeout", in: config.Teams{WorkflowTimeout: -1}, wantInvalid: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := cortextest.NewStore(t)
			x, err := namespace.New("acme")
			if err != nil {
				t.Fatal(err)
			}
			m, err := teammanager.New(ctx, s, x, teammanager.FromConfig(tc.in))
			if tc.wantInvalid {
				if !errors.Is(err, teammanager.ErrInvalidConfig) {
					t.Fatalf("New: %v, want ErrInvalidConfig", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("New(FromConfig(%+v)): %v", tc.in, err)
			}
			var ms []teammanager.MemberConfig
			for i := range tc.maxSize {
				ms = append(ms, teammanager.MemberConfig{AgentID: fmt.Sprintf("a%d", i)})
			}
			team, err := m.CreateTeam(ctx, teammanager.TeamConfig{Name: "full", Members: ms})
			if err != nil {
				t.Fatalf("team of %d: %v", tc.maxSize, err)
			}
			if team.Strategy != tc.strategy || team.Timeout != tc.timeout {
				t.Fatalf("team strategy %q timeout %v, want %q %v", team.Strategy, team.Timeout, tc.strategy, tc.timeout)
			}
			ms = append(ms, teammanager.MemberConfig{AgentID: "one-more"})
			if _, err := m.CreateTeam(ctx, teammanager.TeamConfig{Name: "over", Members: ms}); !errors.Is(err, teammanager.ErrInvalidTeam) {
				t.Fatalf("team of %d: %v, want ErrInvalidTeam", len(ms), err)
			}
		})
	}
}

// TestStrategies: a Manager lists the strategies of its registry (the
// default one, or its own), sorted.
func TestStrategies(t *testing.T) {
	if got, want := teammanager.DefaultConfig().Strategies(), merge.Names(); !slices.Equal(got, want) {
		t.Fatalf("default: %v, want %v", got, want)
	}
	reg := merge.NewRegistry()
	reg.Register("zeta", merge.PerTopic("zeta", merge.DecideAdditive))
	reg.Register("alpha", merge.PerTopic("alpha", merge.DecideAdditive))
	f := newFixture(t, teammanager.DefaultConfig().WithRegistry(reg).WithDefaultStrategy("alpha"))
	if got := f.m.Strategies(); !slices.Equal(got, []string{"alpha", "zeta"}) {
		t.Fatalf("own registry: %v", got)
	}
}
