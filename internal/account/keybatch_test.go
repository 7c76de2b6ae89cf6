package account

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
)

// fakeKeys is a lookup whose calls block until released, so a test can
// queue lookups while a query is "in flight".
type fakeKeys struct {
	mu      sync.Mutex
	rows    map[string]int64 // key hash -> workspace id
	calls   [][]string
	started chan []string
	release chan error
}

func newFakeKeys(rows map[string]int64) *fakeKeys {
	return &fakeKeys{rows: rows, started: make(chan []string, 100), release: make(chan error)}
}

// lookup reads its snapshot of the rows when it starts, as a query does.
func (f *fakeKeys) lookup(ctx context.Context, hashes []string) ([]keyRow, error) {
	var out []keyRow
	f.mu.Lock()
	f.calls = append(f.calls, slices.Clone(hashes))
	for _, h := range hashes {
		if id, ok := f.rows[h]; ok {
			out = append(out, keyRow{Workspace: Workspace{ID: id, Email: fmt.Sprint(id, "@example.com")}, KeyHash: h})
		}
	}
	f.mu.Unlock()
	f.started <- slices.Clone(hashes)
	if err := <-f.release; err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return out, nil
}

type lookupResult struct {
	w    *Workspace
	hash string
	err  error
}

func startGet(ctx context.Context, b *keyBatcher, hash string) chan lookupResult {
	ch := make(chan lookupResult, 1)
	go func() {
		w, h, err := b.get(ctx, hash)
		ch <- lookupResult{w, h, err}
	}()
	return ch
}

// waitQueued waits (without a clock) until n lookups are queued.
func waitQueued(b *keyBatcher, n int) {
	for b.queue.Queued() < n {
		runtime.Gosched()
	}
}

// TestKeyBatcherNeverAnswersFromAnEarlierQuery: a lookup that arrives while
// a query is in flight is not answered by that query (which may predate a
// key rotation the caller already saw) but by the next one, together with
// the other lookups queued meanwhile.
func TestKeyBatcherNeverAnswersFromAnEarlierQuery(t *testing.T) {
	f := newFakeKeys(map[string]int64{"a": 1, "b": 2, "c": 3})
	b := newKeyBatcher(f.lookup)
	b.queue.MaxInFlight = 1
	ctx := context.Background()

	first := startGet(ctx, b, "a")
	if got := <-f.started; !slices.Equal(got, []string{"a"}) {
		t.Fatalf("first query for %v, want [a]", got)
	}
	// While "a" is in flight, "a" (again), "b", "c" and an unknown key queue.
	late := map[string]chan lookupResult{}
	for i, h := range []string{"a", "b", "c", "zz"} {
		late[h] = startGet(ctx, b, h)
		waitQueued(b, i+1)
	}
	// The rotation happens now: "a" becomes "a2". The first query started
	// before it and still answers "a"; the queued lookups must see it.
	f.mu.Lock()
	delete(f.rows, "a")
	f.rows["a2"] = 1
	f.mu.Unlock()
	f.release <- nil
	if r := <-first; r.err != nil || r.w == nil || r.w.ID != 1 || r.hash != "a" {
		t.Fatalf("first lookup = %+v", r)
	}
	second := <-f.started
	slices.Sort(second)
	if !slices.Equal(second, []string{"a", "b", "c", "zz"}) {
		t.Fatalf("second query for %v, want every queued hash once", second)
	}
	f.release <- nil
	if r := <-late["a"]; r.err != nil || r.w != nil {
		t.Errorf("rotated key: %+v, want no workspace", r)
	}
	for h, id := range map[string]int64{"b": 2, "c": 3} {
		if r := <-late[h]; r.err != nil || r.w == nil || r.w.ID != id || r.hash != h {
			t.Errorf("%s: %+v", h, r)
		}
	}
	if r := <-late["zz"]; r.err != nil || r.w != nil {
		t.Errorf("unknown key: %+v", r)
	}
	if len(f.calls) != 2 {
		t.Errorf("%d queries, want 2", len(f.calls))
	}
	if b.queue.InFlight() != 0 || b.queue.Queued() != 0 {
		t.Errorf("batcher not idle: %d in flight, %d queued", b.queue.InFlight(), b.queue.Queued())
	}
}

// TestKeyBatcherErrorsAndCancellation: a failed query fails every lookup it
// served; a caller that gives up gets its context's error without
// cancelling the query the others wait for.
func TestKeyBatcherErrorsAndCancellation(t *testing.T) {
	f := newFakeKeys(map[string]int64{"a": 1, "b": 2})
	b := newKeyBatcher(f.lookup)
	b.queue.MaxInFlight = 1

	cctx, cancel := context.WithCancel(context.Background())
	first := startGet(cctx, b, "a")
	<-f.started
	other := startGet(context.Background(), b, "b")
	waitQueued(b, 1)
	cancel()
	if r := <-first; !errors.Is(r.err, context.Canceled) {
		t.Fatalf("cancelled caller: %+v", r)
	}
	f.release <- nil // the query itself was not cancelled
	<-f.started
	boom := errors.New("boom")
	f.release <- boom
	if r := <-other; !errors.Is(r.err, boom) {
		t.Fatalf("failed query: %+v, want boom", r)
	}
}

// TestKeyBatcherBoundsBatches: at most maxBatch lookups share a query.
func TestKeyBatcherBoundsBatches(t *testing.T) {
	f := newFakeKeys(map[string]int64{})
	b := newKeyBatcher(f.lookup)
	b.queue.MaxInFlight, b.queue.MaxBatch = 1, 3
	ctx := context.Background()
	chans := []chan lookupResult{startGet(ctx, b, "h0")}
	<-f.started
	for i := 1; i <= 5; i++ {
		chans = append(chans, startGet(ctx, b, fmt.Sprint("h", i)))
		waitQueued(b, i)
	}
	f.release <- nil
	if got := <-f.started; len(got) != 3 {
		t.Fatalf("second query for %v, want 3 hashes", got)
	}
	f.release <- nil
	if got := <-f.started; len(got) != 2 {
		t.Fatalf("third query for %v, want 2 hashes", got)
	}
	f.release <- nil
	for _, ch := range chans {
		if r := <-ch; r.err != nil || r.w != nil {
			t.Errorf("%+v", r)
		}
	}
}
