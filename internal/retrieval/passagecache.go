package retrieval

import (
	"container/list"
	"sync"
)

// passageCache keeps the passages searches returned recently, by id, so
// that a popular passage is read from the database once rather than on
// every question that finds it, and what answerers derive from it (its
// sentences and their terms) is computed once too (Hit.Memo).
//
// A passage row never changes after it is written (re-indexing a document
// writes new passages with new ids; ids are never reused: AUTOINCREMENT on
// SQLite, an identity on PostgreSQL), and neither does its document's
// name, so a cached passage is never out of date. Whether it is still
// visible is the snapshot's decision: hydrate only looks up ids that the
// bot's current snapshot returned, so a passage leaves the answers when its
// document leaves the index, on this replica at once (Invalidate) and on
// the others within VersionCheck, as every other change of the index does.
// Entries are found only through the snapshot of the bot that owns them,
// so the cache cannot leak a passage across bots or workspaces.
//
// Bounded in bytes (an estimate that includes what Memo adds), least
// recently used first out.
type passageCache struct {
	mu    sync.Mutex
	max   int64
	size  int64
	items map[int64]*list.Element // of *cachedPassage
	lru   *list.List              // most recently used first
}

// cachedPassage is what a hit shows, shared by every hit of the passage.
type cachedPassage struct {
	id, doc                          int64
	title, url, text, terms, docName string
	heading                          []string
	listing                          bool // the document lists rather than explains (extract.Document.Listing)
	// index is the passage's terms as the second stage reads them, built
	// once when the passage is read from the database.
	index *termIndex
	size  int64

	memoMu sync.Mutex
	memo   map[any]any
}

func newPassageCache(maxBytes int64) *passageCache {
	if maxBytes <= 0 {
		return nil
	}
	return &passageCache{max: maxBytes, items: map[int64]*list.Element{}, lru: list.New()}
}

// passageOverhead approximates the per-entry cost beyond its strings: the
// structs, the map and list entries, and what Memo typically derives (a
// passage's sentences and their terms, about twice its text).
const passageOverhead = 256

func passageSize(p *cachedPassage) int64 {
	n := len(p.title) + len(p.url) + 3*len(p.text) + len(p.terms) + len(p.docName) + passageOverhead
	for _, h := range p.heading {
		n += len(h) + 16
	}
	if p.index != nil {
		return int64(n) + p.index.size()
	}
	return int64(n)
}

// get returns the cached passages of ids, in their order (nil for an id
// not cached), marking them used.
func (c *passageCache) get(ids []int64) []*cachedPassage {
	out := make([]*cachedPassage, len(ids))
	if c == nil {
		return out
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, id := range ids {
		if e, ok := c.items[id]; ok {
			c.lru.MoveToFront(e)
			out[i] = e.Value.(*cachedPassage)
		}
	}
	return out
}

// put adds p (or returns the entry another search added first) and
// evicts the least recently used entries beyond the bound.
func (c *passageCache) put(p *cachedPassage) *cachedPassage {
	if c == nil {
		return p
	}
	p.size = passageSize(p)
	if p.size > c.max/8 {
		return p // a giant passage would evict too much; serve it uncached
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[p.id]; ok {
		c.lru.MoveToFront(e)
		return e.Value.(*cachedPassage)
	}
	c.items[p.id] = c.lru.PushFront(p)
	c.size += p.size
	for c.size > c.max {
		back := c.lru.Back()
		old := back.Value.(*cachedPassage)
		c.lru.Remove(back)
		delete(c.items, old.id)
		c.size -= old.size
	}
	return p
}

// len reports the number of cached passages (tests).
func (c *passageCache) len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}

// Memo returns what compute derives from the hit's passage, computing it
// once per passage while the passage stays cached: answerers use it for
// work that depends on the passage alone (splitting it into sentences,
// analysing them). key tells callers' values apart; use a value of an
// unexported type, as with context keys. compute must not depend on
// anything but the passage, and the value it returns is shared between
// goroutines, so it must not be modified. A hit built by hand, or one whose
// passage is not cached, computes every time.
func (h *Hit) Memo(key any, compute func() any) any {
	p := h.cached
	if p == nil {
		return compute()
	}
	p.memoMu.Lock()
	if v, ok := p.memo[key]; ok {
		p.memoMu.Unlock()
		return v
	}
	p.memoMu.Unlock()
	v := compute()
	p.memoMu.Lock()
	defer p.memoMu.Unlock()
	if old, ok := p.memo[key]; ok {
		return old // another search computed it meanwhile
	}
	if p.memo == nil {
		p.memo = map[any]any{}
	}
	p.memo[key] = v
	return v
}
