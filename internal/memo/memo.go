// Package memo remembers the results of pure functions of short strings
// (words, pre-tokens) in a bounded map that is safe for concurrent use.
package memo

import (
	"hash/maphash"
	"strings"
	"sync"
)

const shards = 16

// Map caches f(key). Each of its shards is emptied when it reaches its
// share of max entries, which bounds memory whatever the input and costs
// little when keys repeat, as words of a text do. Keys are copied before
// they are kept, so a key sliced from a large text never pins that text;
// f receives the copy, so a value sliced from its key is safe too.
type Map[V any] struct {
	f        func(string) V
	perShard int
	seed     maphash.Seed
	shards   [shards]shard[V]
}

type shard[V any] struct {
	mu sync.RWMutex
	m  map[string]V
}

// New returns a Map of f holding about max entries at most.
func New[V any](max int, f func(string) V) *Map[V] {
	return &Map[V]{f: f, perShard: max/shards + 1, seed: maphash.MakeSeed()}
}

// Get returns f(key), computing it at most once while it stays cached.
func (c *Map[V]) Get(key string) V {
	s := &c.shards[maphash.String(c.seed, key)%shards]
	s.mu.RLock()
	v, ok := s.m[key]
	s.mu.RUnlock()
	if ok {
		return v
	}
	key = strings.Clone(key)
	v = c.f(key)
	s.mu.Lock()
	if s.m == nil || len(s.m) >= c.perShard {
		s.m = make(map[string]V, 64)
	}
	s.m[key] = v
	s.mu.Unlock()
	return v
}

// Len reports the entries cached.
func (c *Map[V]) Len() int {
	n := 0
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.RLock()
		n += len(s.m)
		s.mu.RUnlock()
	}
	return n
}
