package engine

import (
	"sync"

	"github.com/cayleygraph/quad"
)

// valueCache maps term ids to terms. It is bounded: when full it is emptied
// (ids of live terms never change, so entries are only dropped on removals).
type valueCache struct {
	mu  sync.RWMutex
	max int
	m   map[termID]quad.Value
}

func (c *valueCache) init(max int) {
	c.max = max
	c.m = make(map[termID]quad.Value)
}

func (c *valueCache) get(id termID) (quad.Value, bool) {
	c.mu.RLock()
	v, ok := c.m[id]
	c.mu.RUnlock()
	return v, ok
}

func (c *valueCache) put(id termID, v quad.Value) {
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

// cacheChunk is how many entries getMany and putWants handle per lock
// acquisition, so that a large batch does not hold the lock for long.
const cacheChunk = 1024

// getMany stores in out[i] the cached term of ids[i], for every non-zero id
// the cache holds, and returns the indexes of the other non-zero ids, in
// order. out must be as long as ids.
func (c *valueCache) getMany(ids []termID, out []quad.Value) []int {
	var miss []int
	for lo := 0; lo < len(ids); lo += cacheChunk {
		hi := min(lo+cacheChunk, len(ids))
		c.mu.RLock()
		for i := lo; i < hi; i++ {
			id := ids[i]
			if id == 0 {
				continue
			}
			if v, ok := c.m[id]; ok {
				out[i] = v
			} else {
				if miss == nil {
					miss = make([]int, 0, len(ids)-i)
				}
				miss = append(miss, i)
			}
		}
		c.mu.RUnlock()
	}
	return miss
}

// putWants caches vals[k] as the term of wants[k].id, skipping nil values.
// A small cache receiving a large batch is regrown once to fit it.
func (c *valueCache) putWants(wants []logWant, vals []quad.Value) {
	if c.max <= 0 {
		return
	}
	for lo := 0; lo < len(wants); lo += cacheChunk {
		hi := min(lo+cacheChunk, len(wants))
		c.mu.Lock()
		if lo == 0 && len(c.m) < len(wants) {
			m := make(map[termID]quad.Value, min(len(c.m)+len(wants), c.max))
			for id, v := range c.m {
				m[id] = v
			}
			c.m = m
		}
		for k := lo; k < hi; k++ {
			if vals[k] == nil {
				continue
			}
			if len(c.m) >= c.max {
				clear(c.m)
			}
			c.m[wants[k].id] = vals[k]
		}
		c.mu.Unlock()
	}
}
