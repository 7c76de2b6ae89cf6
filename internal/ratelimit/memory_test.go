package ratelimit

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"concierge/internal/clock"
)

func newFakeClock() *clock.Fake {
	return clock.NewFake(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
}

func mustAllowN(t *testing.T, lim Limiter, key string, l Limit, n int) Result {
	t.Helper()
	r, err := lim.AllowN(context.Background(), key, l, n)
	if err != nil {
		t.Fatalf("AllowN(%q, %v, %d): %v", key, l, n, err)
	}
	return r
}

func TestMemoryBurstThenRefusal(t *testing.T) {
	clk := newFakeClock()
	m := NewMemory(clk.Now)
	l := PerMinute(3) // one event every 20s
	want := []Result{
		{Allowed: true, Remaining: 2, ResetAfter: 20 * time.Second},
		{Allowed: true, Remaining: 1, ResetAfter: 40 * time.Second},
		{Allowed: true, Remaining: 0, ResetAfter: 60 * time.Second},
		{Allowed: false, Remaining: 0, RetryAfter: 20 * time.Second, ResetAfter: 60 * time.Second},
		{Allowed: false, Remaining: 0, RetryAfter: 20 * time.Second, ResetAfter: 60 * time.Second},
	}
	for i, w := range want {
		got := mustAllowN(t, m, "k", l, 1)
		if diff := cmp.Diff(w, got); diff != "" {
			t.Errorf("call %d (-want +got):\n%s", i+1, diff)
		}
	}
}

// TestMemoryRetryAfterExact checks that RetryAfter is neither pessimistic
// nor optimistic: waiting exactly that long is enough, 1ms less is not.
func TestMemoryRetryAfterExact(t *testing.T) {
	tests := []struct {
		l         Limit
		n         int
		wantRetry time.Duration
	}{
		{PerSecond(5), 1, 200 * time.Millisecond},
		{PerMinute(30), 1, 2 * time.Second},
		{PerHour(10), 1, 6 * time.Minute},
		{PerHour(10), 4, 24 * time.Minute},
		{PerHour(7), 1, time.Hour / 7},
		{Limit{Rate: 10, Burst: 10, Period: 15 * time.Minute}, 2, 3 * time.Minute},
		{Limit{Rate: 100, Burst: 100, Period: 24 * time.Hour}, 1, 864 * time.Second},
		{Limit{Rate: 1, Burst: 5, Period: time.Minute}, 3, 3 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%v n=%d", tt.l, tt.n), func(t *testing.T) {
			clk := newFakeClock()
			m := NewMemory(clk.Now)
			if r := mustAllowN(t, m, "k", tt.l, tt.l.Burst); !r.Allowed || r.Remaining != 0 {
				t.Fatalf("draining the burst: %+v", r)
			}
			r := mustAllowN(t, m, "k", tt.l, tt.n)
			if r.Allowed || r.RetryAfter != tt.wantRetry {
				t.Fatalf("after the burst: got %+v, want refusal with RetryAfter %v", r, tt.wantRetry)
			}
			clk.Advance(r.RetryAfter - time.Millisecond)
			if r := mustAllowN(t, m, "k", tt.l, tt.n); r.Allowed || r.RetryAfter != time.Millisecond {
				t.Fatalf("1ms early: got %+v, want refusal with RetryAfter 1ms", r)
			}
			clk.Advance(time.Millisecond)
			if r := mustAllowN(t, m, "k", tt.l, tt.n); !r.Allowed {
				t.Fatalf("after RetryAfter: got %+v, want allowed", r)
			}
		})
	}
}

func TestMemoryPeekDoesNotConsume(t *testing.T) {
	clk := newFakeClock()
	m := NewMemory(clk.Now)
	l := PerMinute(2) // one event every 30s
	full := Result{Allowed: true, Remaining: 2}
	for range 3 {
		if diff := cmp.Diff(full, mustAllowN(t, m, "k", l, 0)); diff != "" {
			t.Fatalf("peek on a new key (-want +got):\n%s", diff)
		}
	}
	if m.size() != 0 {
		t.Errorf("a peek stored %d keys, want 0", m.size())
	}
	mustAllowN(t, m, "k", l, 2)
	empty := Result{Remaining: 0, RetryAfter: 30 * time.Second, ResetAfter: time.Minute}
	for range 3 {
		if diff := cmp.Diff(empty, mustAllowN(t, m, "k", l, 0)); diff != "" {
			t.Fatalf("peek on an empty bucket (-want +got):\n%s", diff)
		}
	}
	clk.Advance(45 * time.Second)
	half := Result{Allowed: true, Remaining: 1, ResetAfter: 15 * time.Second}
	if diff := cmp.Diff(half, mustAllowN(t, m, "k", l, 0)); diff != "" {
		t.Errorf("peek after 45s (-want +got):\n%s", diff)
	}
	if r := mustAllowN(t, m, "k", l, 1); !r.Allowed || r.Remaining != 0 {
		t.Errorf("the event the peek reported: got %+v, want allowed with 0 remaining", r)
	}
}

func TestMemoryKeysAreIndependent(t *testing.T) {
	clk := newFakeClock()
	m := NewMemory(clk.Now)
	l := PerHour(2)
	mustAllowN(t, m, "a", l, 2)
	if r := mustAllowN(t, m, "a", l, 1); r.Allowed {
		t.Fatalf("a is exhausted but allowed: %+v", r)
	}
	want := Result{Allowed: true, Remaining: 1, ResetAfter: 30 * time.Minute}
	if diff := cmp.Diff(want, mustAllowN(t, m, "b", l, 1)); diff != "" {
		t.Errorf("b after a was exhausted (-want +got):\n%s", diff)
	}
}

func TestMemoryReset(t *testing.T) {
	clk := newFakeClock()
	m := NewMemory(clk.Now)
	l := PerHour(3)
	mustAllowN(t, m, "k", l, 3)
	mustAllowN(t, m, "other", l, 1)
	if err := m.Reset(context.Background(), "k"); err != nil {
		t.Fatal(err)
	}
	want := Result{Allowed: true, Remaining: 2, ResetAfter: 20 * time.Minute}
	if diff := cmp.Diff(want, mustAllowN(t, m, "k", l, 1)); diff != "" {
		t.Errorf("after Reset (-want +got):\n%s", diff)
	}
	if r := mustAllowN(t, m, "other", l, 0); r.Remaining != 2 {
		t.Errorf("Reset of k touched another key: %+v", r)
	}
	if err := m.Reset(context.Background(), "never-seen"); err != nil {
		t.Errorf("Reset of an unknown key: %v", err)
	}
}

func TestMemoryNLargerThanBurst(t *testing.T) {
	m := NewMemory(newFakeClock().Now)
	want := Result{RetryAfter: 12 * time.Minute}
	if diff := cmp.Diff(want, mustAllowN(t, m, "k", PerHour(5), 6)); diff != "" {
		t.Errorf("n > burst (-want +got):\n%s", diff)
	}
	if m.size() != 0 {
		t.Errorf("a refusal stored a key")
	}
}

func TestMemorySweepDropsFullBuckets(t *testing.T) {
	clk := newFakeClock()
	m := NewMemory(clk.Now)
	const n = 1000
	for i := range n {
		mustAllowN(t, m, fmt.Sprint("short-", i), PerSecond(1), 1)
	}
	mustAllowN(t, m, "long", PerHour(1), 1)
	if got := m.size(); got != n+1 {
		t.Fatalf("size = %d, want %d", got, n+1)
	}

	// Refilled but the sweep interval has not passed: entries linger, which
	// is harmless because a refilled bucket behaves as an absent one.
	clk.Advance(30 * time.Second)
	probeAllShards(t, m)
	if got := m.size(); got != n+1 {
		t.Fatalf("size before the sweep interval = %d, want %d", got, n+1)
	}
	if r := mustAllowN(t, m, "short-1", PerSecond(1), 0); r.Remaining != 1 || r.ResetAfter != 0 {
		t.Fatalf("a refilled bucket is not full: %+v", r)
	}

	clk.Advance(sweepEvery)
	probeAllShards(t, m)
	if got := m.size(); got != 1 {
		t.Fatalf("size after the sweep = %d, want 1 (the live bucket)", got)
	}
	if r := mustAllowN(t, m, "long", PerHour(1), 0); r.Allowed {
		t.Errorf("the sweep dropped a live bucket: %+v", r)
	}
}

// probeAllShards peeks at one key per shard, so each shard gets the chance
// to sweep without anything being stored.
func probeAllShards(t *testing.T, m *Memory) {
	t.Helper()
	for s := range memoryShards {
		mustAllowN(t, m, keyInShard(t, s, 0), PerSecond(1), 0)
	}
}

// keyInShard returns the i-th key, in a fixed order, that hashes to shard.
func keyInShard(t testing.TB, shard, i int) string {
	t.Helper()
	for j := 0; j < 1_000_000; j++ {
		k := fmt.Sprint("probe-", j)
		if shardIndex(k) == shard {
			if i == 0 {
				return k
			}
			i--
		}
	}
	t.Fatalf("no key for shard %d", shard)
	return ""
}

func TestMemoryCap(t *testing.T) {
	const perShard = 4
	clk := newFakeClock()
	m := newMemory(clk.Now, perShard*memoryShards)
	keys := make([]string, 7)
	for i := range keys {
		keys[i] = keyInShard(t, 3, i)
	}
	peek := func(k string, l Limit) Result { return mustAllowN(t, m, k, l, 0) }

	// keys[0] refills after 1s; keys[1..3] are live hourly buckets whose
	// TATs are staggered so the one nearest refill is known.
	mustAllowN(t, m, keys[0], PerSecond(1), 1)
	for i := 1; i <= 3; i++ {
		mustAllowN(t, m, keys[i], PerHour(1), 1)
		clk.Advance(10 * time.Second) // staying within sweepEvery
	}
	clk.Advance(capSweepGap)
	mustAllowN(t, m, keys[4], PerHour(1), 1) // shard full: the refilled keys[0] goes
	if got := m.size(); got != perShard {
		t.Fatalf("size = %d, want %d", got, perShard)
	}
	for i := 1; i <= 4; i++ {
		if r := peek(keys[i], PerHour(1)); r.Allowed {
			t.Fatalf("live keys[%d] was evicted while a refilled bucket was available", i)
		}
	}

	// Every bucket is live: the one closest to refilled (keys[1], consumed
	// first) is evicted rather than any request being refused.
	if r := mustAllowN(t, m, keys[5], PerHour(1), 1); !r.Allowed {
		t.Fatalf("a full shard refused a new key: %+v", r)
	}
	if r := peek(keys[1], PerHour(1)); !r.Allowed {
		t.Errorf("keys[1], nearest refill, was kept")
	}
	for i := 2; i <= 5; i++ {
		if r := peek(keys[i], PerHour(1)); r.Allowed {
			t.Errorf("keys[%d] was evicted instead of keys[1]", i)
		}
	}
	mustAllowN(t, m, keys[6], PerHour(1), 1)
	if got := m.size(); got != perShard {
		t.Errorf("size = %d, want the cap %d", got, perShard)
	}
}

func TestMemoryConcurrentOneKey(t *testing.T) {
	const (
		goroutines = 64
		calls      = 1000
	)
	m := NewMemory(newFakeClock().Now)
	l := PerHour(500)
	var allowed atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range goroutines {
		wg.Go(func() {
			<-start
			for range calls {
				r, err := Allow(context.Background(), m, "hot", l)
				if err != nil {
					t.Error(err)
					return
				}
				if r.Allowed {
					allowed.Add(1)
				}
			}
		})
	}
	close(start)
	wg.Wait()
	if got := allowed.Load(); got != 500 {
		t.Errorf("allowed %d of %d calls, want exactly 500", got, goroutines*calls)
	}
}

// TestMemoryConcurrentManyKeys exists for -race: it mixes every operation
// across shards, including sweeps and Reset.
func TestMemoryConcurrentManyKeys(t *testing.T) {
	clk := newFakeClock()
	m := newMemory(clk.Now, 64*memoryShards)
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 2000 {
				key := fmt.Sprint("k", (g*7919+i)%500)
				switch i % 10 {
				case 0:
					clk.Advance(time.Second)
				case 1:
					_ = m.Reset(context.Background(), key)
				}
				if _, err := m.AllowN(context.Background(), key, PerMinute(5), i%3); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if got := m.size(); got > 64*memoryShards {
		t.Errorf("size %d exceeds the cap", got)
	}
}
