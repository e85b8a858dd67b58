package merge_test

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/cortexgraph/cortex/merge"
)

// TestMergeWith: every built-in strategy is a ContextStrategy and stops
// with the context's error; a plain Strategy that blocks is left behind
// when the context ends; a plain Strategy's result and panic reach the
// caller while it waits.
func TestMergeWith(t *testing.T) {
	in := merge.Input{
		Members:  []merge.Member{done("a", 0), done("b", 0)},
		Findings: []merge.Finding{f("1", "a", "s", "p", str("x")), f("2", "b", "t", "p", str("y"))},
	}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()

	t.Run("built-ins", func(t *testing.T) {
		for _, name := range merge.Names() {
			s, _ := merge.Lookup(name)
			cs, ok := s.(merge.ContextStrategy)
			if !ok {
				t.Fatalf("%s is no ContextStrategy", name)
			}
			if _, err := cs.MergeContext(canceled, in); !errors.Is(err, context.Canceled) {
				t.Errorf("%s: MergeContext with a cancelled context: %v", name, err)
			}
			if _, err := merge.MergeWith(canceled, s, in); !errors.Is(err, context.Canceled) {
				t.Errorf("%s: MergeWith with a cancelled context: %v", name, err)
			}
			res, err := merge.MergeWith(context.Background(), s, in)
			if err != nil || len(res.Facts) != 2 {
				t.Errorf("%s: MergeWith: %+v, %v", name, res, err)
			}
		}
	})

	t.Run("blocking", func(t *testing.T) {
		started, release := make(chan struct{}), make(chan struct{})
		defer close(release)
		s := merge.StrategyFunc(func(in merge.Input) (merge.Result, error) {
			close(started)
			<-release
			return merge.Merge(merge.NameAdditive, in)
		})
		c, stop := context.WithCancel(context.Background())
		go func() { <-started; stop() }()
		if _, err := merge.MergeWith(c, s, in); !errors.Is(err, context.Canceled) {
			t.Fatalf("MergeWith of a blocked strategy, cancelled: %v", err)
		}
	})

	// A ContextStrategy that does not watch its ctx ran in the caller's
	// goroutine and held it until it returned: a merge's deadline (the
	// team manager's AutoMergeTimeout) did not stop it. MergeWith now stops
	// waiting for it when ctx ends, as for a plain Strategy.
	t.Run("ContextStrategy ignoring ctx", func(t *testing.T) {
		started, release := make(chan struct{}), make(chan struct{})
		defer close(release)
		s := deafStrategy{started: started, release: release}
		c, stop := context.WithCancel(context.Background())
		go func() { <-started; stop() }()
		errc := make(chan error, 1)
		go func() {
			_, err := merge.MergeWith(c, s, in)
			errc <- err
		}()
		select {
		case err := <-errc:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("MergeWith of a ContextStrategy that ignores ctx, cancelled: %v", err)
			}
		case <-time.After(time.Minute): // a guard: the test must not hang
			t.Fatal("MergeWith still waits for a ContextStrategy that ignores its cancelled ctx")
		}
	})

	t.Run("plain", func(t *testing.T) {
		add, _ := merge.Lookup(merge.NameAdditive)
		s := merge.StrategyFunc(add.Merge)
		res, err := merge.MergeWith(context.Background(), s, in)
		if err != nil || len(res.Facts) != 2 {
			t.Fatalf("MergeWith: %+v, %v", res, err)
		}
		boom := errors.New("boom")
		if _, err := merge.MergeWith(context.Background(), merge.StrategyFunc(func(merge.Input) (merge.Result, error) {
			return merge.Result{}, boom
		}), in); !errors.Is(err, boom) {
			t.Fatalf("MergeWith of a failing strategy: %v", err)
		}
	})

	t.Run("panic", func(t *testing.T) {
		defer func() {
			if r := recover(); r != "boom" {
				t.Fatalf("recovered %v; want the strategy's panic", r)
			}
		}()
		merge.MergeWith(context.Background(), merge.StrategyFunc(func(merge.Input) (merge.Result, error) { panic("boom") }), in) //nolint:errcheck
		t.Fatal("no panic")
	})

	// A strategy that ends its goroutine (runtime.Goexit) ends the
	// caller's, as it did when it ran there; MergeWith returned an empty
	// result and no error, and a merge wrote it.
	t.Run("goexit", func(t *testing.T) {
		returned := make(chan bool, 1)
		go func() {
			ended := true
			defer func() { returned <- !ended }()
			merge.MergeWith(context.Background(), merge.StrategyFunc(func(merge.Input) (merge.Result, error) { //nolint:errcheck
				runtime.Goexit()
				return merge.Result{}, nil
			}), in)
			ended = false
		}()
		if <-returned {
			t.Fatal("MergeWith returned after its strategy's runtime.Goexit")
		}
	})
}

// deafStrategy is a ContextStrategy that does not watch its ctx: it
// blocks until release is closed.
type deafStrategy struct{ started, release chan struct{} }

func (s deafStrategy) Merge(in merge.Input) (merge.Result, error) {
	return s.MergeContext(context.Background(), in)
}

func (s deafStrategy) MergeContext(_ context.Context, in merge.Input) (merge.Result, error) {
	close(s.started)
	<-s.release
	return merge.Merge(merge.NameAdditive, in)
}

// TestConfidenceWeighted_LoneObject: an object alone on its topic is kept
// under the default margin however small its score, and still needs more
// than a positive margin.
func TestConfidenceWeighted_LoneObject(t *testing.T) {
	for _, tc := range []struct {
		conf, margin float64
		kept         bool
	}{
		{1e-10, 0, true},
		{1e-300, 0, true},
		{0.3, 0.3, false},
		{0.3, 0.2, true},
	} {
		in := merge.Input{Members: []merge.Member{done("a", 0)}, Findings: []merge.Finding{fnd("1", "a", "s", "p", str("x"), 0, tc.conf)}}
		res, err := merge.ConfidenceWeighted{Margin: tc.margin}.Merge(in)
		if err != nil || (len(res.Facts) == 1) != tc.kept || len(res.Facts)+len(res.Conflicts) != 1 {
			t.Errorf("confidence %v, margin %v: facts %+v, conflicts %+v, %v; want kept %v", tc.conf, tc.margin, res.Facts, res.Conflicts, err, tc.kept)
		}
	}
}
