package account

import (
	"context"
	"time"

	"concierge/internal/coalesce"
)

// keyBatcher coalesces concurrent workspace-key lookups into one query per
// round trip on PostgreSQL. Nothing is cached: a lookup joins the queue when
// its request asks, and is answered by a query that starts after that
// moment, so it sees every key rotation committed before the request
// arrived, exactly as a query of its own would. What is shared is the round
// trip: under load, the lookups that arrive while earlier queries are in
// flight go together in the next one (WHERE key_hash = ANY($1)), so the
// database and the network stack pay one statement, one snapshot and one
// pair of socket writes for many requests instead of one each.
//
// There is no timer: a lookup that finds fewer than maxInFlight queries
// running starts one at once with whatever is queued, so a lone request is
// never delayed to wait for company.
type keyBatcher struct {
	lookup  func(ctx context.Context, hashes []string) ([]keyRow, error)
	timeout time.Duration
	queue   *coalesce.Batcher[*keyWait]
}

// keyRow is one workspace found by its key hash.
type keyRow struct {
	Workspace
	KeyHash string `db:"key_hash"`
}

type keyWait struct {
	ctx  context.Context
	hash string
	done chan struct{}
	w    *Workspace
	key  string // the stored key hash of w
	err  error
}

func newKeyBatcher(lookup func(ctx context.Context, hashes []string) ([]keyRow, error)) *keyBatcher {
	b := &keyBatcher{lookup: lookup, timeout: 30 * time.Second}
	b.queue = coalesce.New(2, 128, b.answer)
	return b
}

// get returns the workspace whose key hash is hash and the hash as stored,
// nil when there is none, or the error of the query that looked it up. It
// returns ctx's error if ctx ends first.
func (b *keyBatcher) get(ctx context.Context, hash string) (*Workspace, string, error) {
	wt := &keyWait{ctx: ctx, hash: hash, done: make(chan struct{})}
	b.queue.Add(wt)
	select {
	case <-wt.done:
		return wt.w, wt.key, wt.err
	case <-ctx.Done():
		return nil, "", ctx.Err()
	}
}

func (b *keyBatcher) answer(batch []*keyWait) {
	hashes := make([]string, 0, len(batch))
	seen := make(map[string]struct{}, len(batch))
	live := batch[0].ctx // carries the request's values (request id) into logs
	for _, wt := range batch {
		if wt.ctx.Err() == nil {
			live = wt.ctx
		}
		if _, ok := seen[wt.hash]; !ok {
			seen[wt.hash] = struct{}{}
			hashes = append(hashes, wt.hash)
		}
	}
	// The query serves every lookup of the batch, so no single caller's
	// cancellation may abort it; it is bounded by its own timeout instead.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(live), b.timeout)
	rows, err := b.lookup(ctx, hashes)
	cancel()
	for _, wt := range batch {
		if err != nil {
			wt.err = err
		} else {
			for i := range rows {
				if rows[i].KeyHash == wt.hash {
					w := rows[i].Workspace // each caller gets its own copy
					wt.w, wt.key = &w, rows[i].KeyHash
					break
				}
			}
		}
		close(wt.done)
	}
}
