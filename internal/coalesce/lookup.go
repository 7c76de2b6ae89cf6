package coalesce

import (
	"context"
	"time"
)

// Lookup coalesces concurrent reads of rows by key into one query per round
// trip. Nothing is cached: a read joins the queue when its caller asks and
// is answered by a query that starts after that moment, so it sees every
// write committed before the caller asked, exactly as a query of its own
// would. What is shared is the query: under load, the reads that arrive
// while earlier queries are in flight go together in the next one, each
// distinct key once, so the database pays one statement (and one snapshot,
// one round trip) for many requests instead of one each.
//
// There is no timer: a read that finds fewer than MaxInFlight queries
// running starts one at once with whatever is queued, so a lone caller is
// never delayed to wait for company.
type Lookup[K comparable, V any] struct {
	fetch   func(ctx context.Context, keys []K) (map[K]V, error)
	timeout time.Duration
	queue   *Batcher[*lookupWait[K, V]]
}

type lookupWait[K comparable, V any] struct {
	ctx   context.Context
	key   K
	done  chan struct{}
	v     V
	found bool
	err   error
}

// NewLookup returns a Lookup that reads with fetch: at most maxInFlight
// queries at once, each for at most maxBatch reads, each bounded by
// timeout. fetch returns the rows found, by key; a key it leaves out has no
// row.
func NewLookup[K comparable, V any](maxInFlight, maxBatch int, timeout time.Duration,
	fetch func(ctx context.Context, keys []K) (map[K]V, error)) *Lookup[K, V] {
	l := &Lookup[K, V]{fetch: fetch, timeout: timeout}
	l.queue = New(maxInFlight, maxBatch, l.answer)
	return l
}

// Get returns key's row (a copy of its own), found false when there is
// none, or the error of the query that looked it up. It returns ctx's
// error if ctx ends first; the query then still serves the others.
func (l *Lookup[K, V]) Get(ctx context.Context, key K) (v V, found bool, err error) {
	w := &lookupWait[K, V]{ctx: ctx, key: key, done: make(chan struct{})}
	l.queue.Add(w)
	select {
	case <-w.done:
		return w.v, w.found, w.err
	case <-ctx.Done():
		return v, false, ctx.Err()
	}
}

func (l *Lookup[K, V]) answer(batch []*lookupWait[K, V]) {
	keys := make([]K, 0, len(batch))
	seen := make(map[K]struct{}, len(batch))
	live := batch[0].ctx // carries a request's values (request id) into logs
	for _, w := range batch {
		if w.ctx.Err() == nil {
			live = w.ctx
		}
		if _, ok := seen[w.key]; !ok {
			seen[w.key] = struct{}{}
			keys = append(keys, w.key)
		}
	}
	// The query serves every read of the batch, so no single caller's
	// cancellation may abort it; it is bounded by its own timeout instead.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(live), l.timeout)
	rows, err := l.fetch(ctx, keys)
	cancel()
	for _, w := range batch {
		if err != nil {
			w.err = err
		} else {
			w.v, w.found = rows[w.key]
		}
		close(w.done)
	}
}
