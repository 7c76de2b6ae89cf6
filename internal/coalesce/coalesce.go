// Package coalesce runs work that concurrent callers queue in batches: a
// database round trip, a transaction, shared by everything that arrived
// while the previous ones were in flight.
//
// There is no timer. An item that finds fewer than MaxInFlight batches
// running starts one at once, on a goroutine of its own, with everything
// queued, so a lone caller is never delayed to wait for company; a batch
// that finishes takes what queued meanwhile, until the queue is empty.
package coalesce

import "sync"

// Batcher queues items and runs them in batches. Set MaxInFlight and
// MaxBatch before the first Add.
type Batcher[T any] struct {
	// MaxInFlight bounds the batches running at once; MaxBatch the items
	// of one batch.
	MaxInFlight, MaxBatch int

	run      func(batch []T)
	mu       sync.Mutex
	pending  []T
	inFlight int
}

// New returns a Batcher that runs batches with run. run must settle every
// item of its batch: callers wait for their items on signals of their own.
func New[T any](maxInFlight, maxBatch int, run func(batch []T)) *Batcher[T] {
	return &Batcher[T]{MaxInFlight: maxInFlight, MaxBatch: maxBatch, run: run}
}

// Add queues item and, when fewer than MaxInFlight batches are running,
// starts one with what is queued.
func (b *Batcher[T]) Add(item T) {
	b.mu.Lock()
	b.pending = append(b.pending, item)
	var batch []T
	if b.inFlight < b.MaxInFlight {
		b.inFlight++
		batch = b.takeLocked()
	}
	b.mu.Unlock()
	if batch != nil {
		go b.loop(batch)
	}
}

// takeLocked removes up to MaxBatch items from the queue.
func (b *Batcher[T]) takeLocked() []T {
	n := min(len(b.pending), b.MaxBatch)
	batch := b.pending[:n:n]
	if n == len(b.pending) {
		b.pending = nil
	} else {
		b.pending = b.pending[n:]
	}
	return batch
}

// loop runs batch, then what queued meanwhile, until the queue is empty.
func (b *Batcher[T]) loop(batch []T) {
	for {
		b.run(batch)
		b.mu.Lock()
		if len(b.pending) == 0 {
			b.inFlight--
			b.mu.Unlock()
			return
		}
		batch = b.takeLocked()
		b.mu.Unlock()
	}
}

// Queued and InFlight report the queue's length and the batches running
// (tests).
func (b *Batcher[T]) Queued() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.pending)
}

// InFlight reports the batches running.
func (b *Batcher[T]) InFlight() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.inFlight
}
