package defstore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/cortexgraph/cortex/defstore"
	"github.com/cortexgraph/cortex/spec"
)

// TestStore_ConcurrentWriters: several goroutines import teams over a
// stored agent, delete and re-import that agent, import and delete their
// own agents, and list and get, at once (run with -race). Each write is an
// atomic read-modify-write, so whatever the interleaving: no stored team
// lists an agent that is not stored (a delete either sees the team and is
// refused, or the team's import sees no agent and is refused), every
// definition List returns parses and Get finds it, and List is sorted.
func TestStore_ConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	s, _, _ := newStore(t)
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	shared := write("shared.md", "---\nname: shared\n---\n")
	if _, err := s.Import(ctx, []string{shared}, spec.Options{}); err != nil {
		t.Fatal(err)
	}
	const writers, rounds = 4, 8
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	fail := func(format string, args ...interface{}) {
		select {
		case errs <- fmt.Errorf(format, args...):
		default:
		}
	}
	for w := 0; w < writers; w++ {
		own := write(fmt.Sprintf("a%d.md", w), fmt.Sprintf("---\nname: a%d\n---\n", w))
		team := write(fmt.Sprintf("t%d.json", w), fmt.Sprintf(`{"name": "t%d", "version": "1", "agents": ["a%d", "shared"]}`, w, w))
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				// The team with its own agent, over the stored shared one:
				// refused only when shared is not stored.
				if _, err := s.Import(ctx, []string{own, team}, spec.Options{}); err != nil && !errors.Is(err, spec.ErrInvalid) {
					fail("writer %d: import: %v", w, err)
				}
				if r%2 == 1 {
					if _, err := s.Delete(ctx, fmt.Sprintf("t%d", w), spec.KindTeam); err != nil && !errors.Is(err, defstore.ErrNotFound) {
						fail("writer %d: delete team: %v", w, err)
					}
				}
			}
		}(w)
	}
	wg.Add(1)
	go func() { // deletes shared when no team uses it, and puts it back
		defer wg.Done()
		for r := 0; r < rounds*writers; r++ {
			if _, err := s.Delete(ctx, "shared", spec.KindAgent); err != nil && !errors.Is(err, defstore.ErrInUse) && !errors.Is(err, defstore.ErrNotFound) {
				fail("delete shared: %v", err)
			}
			if r%3 == 2 {
				if _, err := s.Import(ctx, []string{shared}, spec.Options{}); err != nil {
					fail("import shared: %v", err)
				}
			}
		}
	}()
	for rd := 0; rd < 2; rd++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < rounds*writers; r++ {
				defs, err := s.List(ctx, "")
				if err != nil {
					fail("list: %v", err)
					return
				}
				if !sorted(defs) {
					fail("list not sorted: %v", defNames(defs))
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	defs, err := s.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]bool{}
	for _, d := range defs {
		if d.Kind == spec.KindAgent {
			stored[d.Name()] = true
		}
		if _, err := s.Get(ctx, d.Name(), d.Kind); err != nil {
			t.Errorf("Get(%s %s) of a listed definition: %v", d.Kind, d.Name(), err)
		}
	}
	for _, d := range defs {
		if d.Kind != spec.KindTeam {
			continue
		}
		for _, a := range d.Team.Agents {
			if !stored[a] {
				t.Errorf("team %s lists agent %s, which is not stored (stored: %v)", d.Name(), a, defNames(defs))
			}
		}
	}
}

func sorted(defs []spec.Def) bool {
	return sort.SliceIsSorted(defs, func(i, j int) bool {
		if defs[i].Kind != defs[j].Kind {
			return defs[i].Kind == spec.KindAgent
		}
		return defs[i].Name() < defs[j].Name()
	})
}

func defNames(defs []spec.Def) []string {
	out := make([]string, len(defs))
	for i, d := range defs {
		out[i] = string(d.Kind) + " " + d.Name()
	}
	return out
}
