package coalesce

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestEveryItemOnceWithinBounds: under concurrent adds every item runs in
// exactly one batch, batches respect MaxBatch, never more than MaxInFlight
// run at once, and the batcher ends idle.
func TestEveryItemOnceWithinBounds(t *testing.T) {
	var running, most atomic.Int32
	seen := make([]atomic.Int32, 2000)
	var done sync.WaitGroup
	var b *Batcher[int]
	b = New(2, 16, func(batch []int) {
		n := running.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		if len(batch) > b.MaxBatch {
			t.Errorf("batch of %d, over %d", len(batch), b.MaxBatch)
		}
		time.Sleep(100 * time.Microsecond)
		for _, i := range batch {
			seen[i].Add(1)
			done.Done()
		}
		running.Add(-1)
	})
	done.Add(len(seen))
	var adders sync.WaitGroup
	for w := range 8 {
		adders.Go(func() {
			for i := w; i < len(seen); i += 8 {
				b.Add(i)
			}
		})
	}
	adders.Wait()
	done.Wait()
	for i := range seen {
		if n := seen[i].Load(); n != 1 {
			t.Fatalf("item %d ran %d times", i, n)
		}
	}
	if m := most.Load(); m > 2 {
		t.Fatalf("%d batches at once, over 2", m)
	}
	for deadline := time.Now().Add(5 * time.Second); b.InFlight() != 0 || b.Queued() != 0; {
		if time.Now().After(deadline) {
			t.Fatalf("not idle: %d in flight, %d queued", b.InFlight(), b.Queued())
		}
		time.Sleep(time.Millisecond)
	}
}
