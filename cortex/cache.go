package cortex

import (
	"sync"

	"github.com/cayleygraph/quad"
)

// valueCache maps term ids to terms. It is bounded: when full it is emptied
// (ids of live terms never change, so entries are only dropped on removals).
type valueCache struct {
	mu  sync.RWMutex
	max int
	m   map[ID]quad.Value
}

func (c *valueCache) init(max int) {
	c.max = max
	c.m = make(map[ID]quad.Value)
}

func (c *valueCache) get(id ID) (quad.Value, bool) {
	c.mu.RLock()
	v, ok := c.m[id]
	c.mu.RUnlock()
	return v, ok
}

func (c *valueCache) put(id ID, v quad.Value) {
	if c.max <= 0 {
		return
	}
	c.mu.Lock()
	if len(c.m) >= c.max {
		clear(c.m)
	}
	c.m[id] = v
	c.mu.Unlock()
}

func (c *valueCache) clear() {
	c.mu.Lock()
	clear(c.m)
	c.mu.Unlock()
}
