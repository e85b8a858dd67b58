package merge

import (
	"fmt"
	"slices"
	"sync"
)

// Registry maps names to strategies. The zero value is not usable; create one with NewRegistry.
// A Registry is safe for concurrent use by multiple goroutines.
type Registry struct {
	mu sync.RWMutex
	m  map[string]Strategy
}

// NewRegistry returns an empty registry. Call RegisterBuiltins to add the built-in strategies.
func NewRegistry() *Registry {
	return &Registry{m: make(map[string]Strategy)}
}

// RegisterBuiltins registers the built-in strategies (additive, replace, newest-wins, majority-wins,
// conflict-flag, confidence-weighted, consensus) in r. It panics if one of those names is already registered.
func RegisterBuiltins(r *Registry) {
	for _, b := range builtins() {
		r.Register(b.name, b.s)
	}
}

// Register adds s under name. It panics if name is empty, s is nil (also a nil StrategyFunc, or
// PerTopic with a nil Decider), or name is already registered: registration is a programming step done
// at start-up, like cayley's graph.RegisterQuadStore.
func (r *Registry) Register(name string, s Strategy) {
	if name == "" {
		panic("merge: Register with empty strategy name")
	}
	if isNilStrategy(s) {
		panic(fmt.Sprintf("merge: Register of nil strategy %q", name))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.m[name]; dup {
		panic(fmt.Sprintf("merge: strategy %q registered twice", name))
	}
	r.m[name] = s
}

// isNilStrategy reports whether s is nil or a strategy that would call a nil function.
func isNilStrategy(s Strategy) bool {
	switch v := s.(type) {
	case nil:
		return true
	case StrategyFunc:
		return v == nil
	case perTopic:
		return v.decide == nil
	}
	return false
}

// Lookup returns the strategy registered under name, or an *UnknownStrategyError (wrapping
// ErrUnknownStrategy) listing the registered names.
func (r *Registry) Lookup(name string) (Strategy, error) {
	r.mu.RLock()
	s, ok := r.m[name]
	r.mu.RUnlock()
	if !ok {
		return nil, &UnknownStrategyError{Name: name, Known: r.Names()}
	}
	return s, nil
}

// Names returns the registered names, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.m))
	for n := range r.m {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Merge runs the strategy registered under name on in and sets Result.Strategy to name.
func (r *Registry) Merge(name string, in Input) (Result, error) {
	s, err := r.Lookup(name)
	if err != nil {
		return Result{}, err
	}
	res, err := s.Merge(in)
	if err != nil {
		return Result{}, fmt.Errorf("merge with %s: %w", name, err)
	}
	res.Strategy = name
	return res, nil
}

// std is the default registry behind the package-level functions, holding the built-ins.
var std = func() *Registry {
	r := NewRegistry()
	RegisterBuiltins(r)
	return r
}()

// Register adds s to the default registry under name; see Registry.Register.
func Register(name string, s Strategy) { std.Register(name, s) }

// Lookup finds a strategy in the default registry; see Registry.Lookup.
func Lookup(name string) (Strategy, error) { return std.Lookup(name) }

// Names lists the default registry's strategies, sorted.
func Names() []string { return std.Names() }

// Merge runs the default registry's strategy name on in; see Registry.Merge.
func Merge(name string, in Input) (Result, error) { return std.Merge(name, in) }
