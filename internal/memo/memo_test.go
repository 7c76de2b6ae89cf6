package memo

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

func TestMap(t *testing.T) {
	var calls atomic.Int64
	m := New(64, func(k string) int {
		calls.Add(1)
		return len(k)
	})
	words := []string{"a", "bb", "ccc"}
	for range 3 {
		for _, k := range words {
			if got := m.Get(k); got != len(k) {
				t.Fatalf("Get(%q) = %d", k, got)
			}
		}
	}
	if n := calls.Load(); n != 3 {
		t.Fatalf("%d calls, want 3 (cached)", n)
	}
	// Bounded: many distinct keys never hold more than max plus a shard.
	for i := range 10_000 {
		m.Get(strings.Repeat("x", i%300) + string(rune('a'+i%26)))
	}
	if n := m.Len(); n > 64+shards {
		t.Fatalf("Len %d over the bound", n)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 2000 {
				k := string(rune('a' + (i+j)%26))
				if m.Get(k) != 1 {
					t.Error("wrong value")
				}
			}
		})
	}
	wg.Wait()
}

// TestKeysAreCopied: a key sliced from a large text is not the memory the
// cache keeps, nor what f sees.
func TestKeysAreCopied(t *testing.T) {
	text := strings.Repeat("word ", 1000)
	var seen string
	m := New(10, func(k string) string { seen = k; return k })
	key := text[5:9]
	got := m.Get(key)
	if got != "word" {
		t.Fatalf("Get = %q", got)
	}
	if unsafe.StringData(seen) == unsafe.StringData(key) || unsafe.StringData(got) == unsafe.StringData(key) {
		t.Fatal("the cache kept the caller's memory")
	}
}
