package retrieval

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// cachedOf is get as a map of the ids found.
func cachedOf(c *passageCache, ids []int64) map[int64]*cachedPassage {
	out := map[int64]*cachedPassage{}
	for i, p := range c.get(ids) {
		if p != nil {
			out[ids[i]] = p
		}
	}
	return out
}

func TestPassageCacheBoundAndOrder(t *testing.T) {
	p := func(id int64, text string) *cachedPassage { return &cachedPassage{id: id, text: text} }
	one := passageSize(p(0, strings.Repeat("x", 100)))
	c := newPassageCache(8*one + one/2) // room for eight
	all := []int64{1, 2, 3, 4, 5, 6, 7, 8, 9}
	for _, id := range all[:8] {
		c.put(p(id, strings.Repeat("x", 100)))
	}
	c.get([]int64{1}) // 1 is now the most recently used; 2 the least
	c.put(p(9, strings.Repeat("x", 100)))
	got := cachedOf(c, all)
	if _, ok := got[2]; ok || len(got) != 8 || got[1] == nil || got[9] == nil {
		t.Fatalf("after a ninth entry: %d cached, 2 present %v; want all but 2", len(got), got[2] != nil)
	}
	if c.size > c.max {
		t.Fatalf("size %d over the bound %d", c.size, c.max)
	}
	// A passage bigger than an eighth of the cache is served, not kept.
	big := p(10, strings.Repeat("y", int(c.max)))
	if c.put(big) != big || c.len() != 8 {
		t.Fatalf("a giant passage was cached (%d entries)", c.len())
	}
	// A second put of an id keeps the first entry (and its memo).
	first := c.get([]int64{3})[0]
	if again := c.put(p(3, strings.Repeat("x", 100))); again != first {
		t.Fatal("a second put replaced the cached entry")
	}
	var off *passageCache // turned off
	if off.put(big) != big || off.get([]int64{10})[0] != nil || off.len() != 0 {
		t.Fatal("a nil cache must keep nothing")
	}
}

func TestMemoComputesOncePerPassage(t *testing.T) {
	type key struct{}
	type other struct{}
	cp := &cachedPassage{id: 1, text: "Kettles boil water."}
	var calls atomic.Int32
	compute := func() any { calls.Add(1); return strings.ToUpper(cp.text) }
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := Hit{Text: cp.text, cached: cp}
			if v := h.Memo(key{}, compute); v != "KETTLES BOIL WATER." {
				t.Errorf("memo = %v", v)
			}
		}()
	}
	wg.Wait()
	before := calls.Load()
	h := Hit{cached: cp}
	h.Memo(key{}, compute)
	if calls.Load() != before {
		t.Fatal("a memoised value was computed again")
	}
	if v := h.Memo(other{}, func() any { return 7 }); v != 7 {
		t.Fatalf("another key shares the value: %v", v)
	}
	// A hit built by hand has no entry: it computes every time.
	plain := Hit{Text: "x"}
	n := 0
	for range 2 {
		plain.Memo(key{}, func() any { n++; return n })
	}
	if n != 2 {
		t.Fatalf("hand-built hit computed %d times, want 2", n)
	}
}
