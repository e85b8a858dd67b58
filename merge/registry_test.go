package merge_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cortexgraph/cortex/merge"
)

func TestNames_Builtins(t *testing.T) {
	want := []string{"additive", "confidence-weighted", "conflict-flag", "consensus", "majority-wins", "newest-wins", "replace"}
	if got := merge.Names(); !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	r := merge.NewRegistry()
	if got := r.Names(); len(got) != 0 {
		t.Fatalf("new registry has %v", got)
	}
	merge.RegisterBuiltins(r)
	if got := r.Names(); !slices.Equal(got, want) {
		t.Fatalf("RegisterBuiltins: Names() = %v, want %v", got, want)
	}
}

func TestRegistry_Register_Panics(t *testing.T) {
	noop := merge.StrategyFunc(func(merge.Input) (merge.Result, error) { return merge.Result{}, nil })
	cases := []struct {
		name string
		reg  func(r *merge.Registry)
	}{
		{"duplicate", func(r *merge.Registry) { r.Register("x", noop); r.Register("x", noop) }},
		{"duplicate built-in", func(r *merge.Registry) { merge.RegisterBuiltins(r); r.Register("additive", noop) }},
		{"empty name", func(r *merge.Registry) { r.Register("", noop) }},
		{"nil strategy", func(r *merge.Registry) { r.Register("x", nil) }},
		// A nil function or decider is a nil strategy too: registered, it
		// would panic in every merge instead of at start-up.
		{"nil StrategyFunc", func(r *merge.Registry) { r.Register("x", merge.StrategyFunc(nil)) }},
		{"PerTopic with a nil Decider", func(r *merge.Registry) { r.Register("x", merge.PerTopic("x", nil)) }},
		{"package-level duplicate", func(*merge.Registry) { merge.Register("majority-wins", noop) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			tc.reg(merge.NewRegistry())
		})
	}
}

func TestLookup_Unknown(t *testing.T) {
	_, err := merge.Lookup("coin-toss")
	if !errors.Is(err, merge.ErrUnknownStrategy) {
		t.Fatalf("err = %v, want ErrUnknownStrategy", err)
	}
	var ue *merge.UnknownStrategyError
	if !errors.As(err, &ue) || ue.Name != "coin-toss" || !slices.Equal(ue.Known, merge.Names()) {
		t.Fatalf("err = %#v", err)
	}
	for _, n := range merge.Names() {
		if !strings.Contains(err.Error(), n) {
			t.Errorf("error %q does not list %q", err, n)
		}
	}
	if _, err := merge.Merge("coin-toss", merge.Input{}); !errors.Is(err, merge.ErrUnknownStrategy) {
		t.Fatalf("Merge: err = %v, want ErrUnknownStrategy", err)
	}
}

func TestRegistry_Merge_SetsName(t *testing.T) {
	r := merge.NewRegistry()
	s, err := merge.Lookup("additive")
	if err != nil {
		t.Fatal(err)
	}
	r.Register("union", s)
	res, err := r.Merge("union", merge.Input{Members: team(), Findings: disputed()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Strategy != "union" {
		t.Fatalf("Strategy = %q, want union", res.Strategy)
	}
	direct, _ := s.Merge(merge.Input{})
	if direct.Strategy != "additive" {
		t.Fatalf("direct Strategy = %q, want additive", direct.Strategy)
	}
}

func TestRegistry_Merge_WrapsStrategyErrors(t *testing.T) {
	_, err := merge.Merge("additive", merge.Input{Members: []merge.Member{{}}})
	if !errors.Is(err, merge.ErrInvalidMember) || !strings.Contains(err.Error(), "additive") {
		t.Fatalf("err = %v", err)
	}
}

func TestRegistry_Concurrent(t *testing.T) {
	r := merge.NewRegistry()
	merge.RegisterBuiltins(r)
	in := merge.Input{Members: team(), Findings: disputed()}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.Register(fmt.Sprintf("alias-%d", i), merge.PerTopic("alias", merge.DecideAdditive))
			for _, n := range r.Names() {
				if _, err := r.Merge(n, in); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if got := len(r.Names()); got != 15 {
		t.Fatalf("%d names, want 15", got)
	}
}
