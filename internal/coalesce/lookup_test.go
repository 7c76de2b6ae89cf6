package coalesce

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// fakeRows is a fetch whose calls block until released, so a test can
// queue reads while a query is "in flight".
type fakeRows struct {
	mu      sync.Mutex
	rows    map[string]int64 // key -> row id
	calls   [][]string
	started chan []string
	release chan error
}

func newFakeRows(rows map[string]int64) *fakeRows {
	return &fakeRows{rows: rows, started: make(chan []string, 100), release: make(chan error)}
}

// fetch reads its snapshot of the rows when it starts, as a query does.
func (f *fakeRows) fetch(ctx context.Context, keys []string) (map[string]int64, error) {
	out := map[string]int64{}
	f.mu.Lock()
	f.calls = append(f.calls, slices.Clone(keys))
	for _, k := range keys {
		if id, ok := f.rows[k]; ok {
			out[k] = id
		}
	}
	f.mu.Unlock()
	f.started <- slices.Clone(keys)
	if err := <-f.release; err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return out, nil
}

type result struct {
	id    int64
	found bool
	err   error
}

func newFakeLookup(f *fakeRows) *Lookup[string, int64] {
	return NewLookup(2, 128, 30*time.Second, f.fetch)
}

func startGet(ctx context.Context, l *Lookup[string, int64], key string) chan result {
	ch := make(chan result, 1)
	go func() {
		id, found, err := l.Get(ctx, key)
		ch <- result{id, found, err}
	}()
	return ch
}

// waitQueued waits (without a clock) until n reads are queued.
func waitQueued(l *Lookup[string, int64], n int) {
	for l.queue.Queued() < n {
		runtime.Gosched()
	}
}

// TestLookupNeverAnswersFromAnEarlierQuery: a read that arrives while a
// query is in flight is not answered by that query (which may predate a
// change the caller already saw, a key rotated) but by the next one,
// together with the other reads queued meanwhile, each key once.
func TestLookupNeverAnswersFromAnEarlierQuery(t *testing.T) {
	f := newFakeRows(map[string]int64{"a": 1, "b": 2, "c": 3})
	l := newFakeLookup(f)
	l.queue.MaxInFlight = 1
	ctx := context.Background()

	first := startGet(ctx, l, "a")
	if got := <-f.started; !slices.Equal(got, []string{"a"}) {
		t.Fatalf("first query for %v, want [a]", got)
	}
	// While "a" is in flight, "a" (twice), "b", "c" and an unknown key queue.
	late := map[string][]chan result{}
	for i, k := range []string{"a", "b", "a", "c", "zz"} {
		late[k] = append(late[k], startGet(ctx, l, k))
		waitQueued(l, i+1)
	}
	// The change happens now: "a" becomes "a2". The first query started
	// before it and still answers "a"; the queued reads must see it.
	f.mu.Lock()
	delete(f.rows, "a")
	f.rows["a2"] = 1
	f.mu.Unlock()
	f.release <- nil
	if r := <-first; r.err != nil || !r.found || r.id != 1 {
		t.Fatalf("first read = %+v", r)
	}
	second := <-f.started
	slices.Sort(second)
	if !slices.Equal(second, []string{"a", "b", "c", "zz"}) {
		t.Fatalf("second query for %v, want every queued key once", second)
	}
	f.release <- nil
	for _, ch := range late["a"] {
		if r := <-ch; r.err != nil || r.found {
			t.Errorf("changed key: %+v, want no row", r)
		}
	}
	for k, id := range map[string]int64{"b": 2, "c": 3} {
		if r := <-late[k][0]; r.err != nil || !r.found || r.id != id {
			t.Errorf("%s: %+v", k, r)
		}
	}
	if r := <-late["zz"][0]; r.err != nil || r.found {
		t.Errorf("unknown key: %+v", r)
	}
	if len(f.calls) != 2 {
		t.Errorf("%d queries, want 2", len(f.calls))
	}
	if l.queue.InFlight() != 0 || l.queue.Queued() != 0 {
		t.Errorf("batcher not idle: %d in flight, %d queued", l.queue.InFlight(), l.queue.Queued())
	}
}

// TestLookupErrorsAndCancellation: a failed query fails every read it
// served; a caller that gives up gets its context's error without
// cancelling the query the others wait for.
func TestLookupErrorsAndCancellation(t *testing.T) {
	f := newFakeRows(map[string]int64{"a": 1, "b": 2})
	l := newFakeLookup(f)
	l.queue.MaxInFlight = 1

	cctx, cancel := context.WithCancel(context.Background())
	first := startGet(cctx, l, "a")
	<-f.started
	other := startGet(context.Background(), l, "b")
	waitQueued(l, 1)
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

// TestLookupBoundsBatches: at most maxBatch reads share a query.
func TestLookupBoundsBatches(t *testing.T) {
	f := newFakeRows(map[string]int64{})
	l := newFakeLookup(f)
	l.queue.MaxInFlight, l.queue.MaxBatch = 1, 3
	ctx := context.Background()
	chans := []chan result{startGet(ctx, l, "h0")}
	<-f.started
	for i := 1; i <= 5; i++ {
		chans = append(chans, startGet(ctx, l, fmt.Sprint("h", i)))
		waitQueued(l, i)
	}
	f.release <- nil
	if got := <-f.started; len(got) != 3 {
		t.Fatalf("second query for %v, want 3 keys", got)
	}
	f.release <- nil
	if got := <-f.started; len(got) != 2 {
		t.Fatalf("third query for %v, want 2 keys", got)
	}
	f.release <- nil
	for _, ch := range chans {
		if r := <-ch; r.err != nil || r.found {
			t.Errorf("%+v", r)
		}
	}
}
