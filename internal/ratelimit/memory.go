package ratelimit

import (
	"context"
	"strings"
	"sync"
	"time"
)

const (
	// memoryShards spreads lock contention: requests for different keys
	// rarely wait for each other, and a sweep holds only 1/64 of the keys.
	memoryShards = 64

	// defaultMaxKeys caps memory at roughly 100 MB (with keys of a few
	// dozen bytes) even when callers spray unique keys, e.g. one per IPv6
	// address.
	defaultMaxKeys = 1_000_000

	// sweepEvery trades a little memory held by refilled buckets for not
	// walking a shard on every call.
	sweepEvery = time.Minute

	// capSweepGap stops a shard that is full of live buckets from being
	// walked on every new key; between sweeps eviction samples instead.
	capSweepGap = time.Second

	// evictionSample is how many entries are inspected to choose a victim
	// when a shard is full; Go's randomised map iteration makes this a
	// random sample, as in Redis's approximated eviction.
	evictionSample = 16
)

// Memory is an in-process Limiter for a single replica. Its state is one
// theoretical arrival time (TAT) per key, exactly what redis_rate stores in
// Redis, and for the same calls at the same times its results match Redis's:
// Allowed and Remaining exactly, durations to within the microsecond or so
// that the script's float arithmetic loses.
//
// Memory stays bounded without a background goroutine. Each shard drops
// refilled buckets (which are indistinguishable from absent ones) when a
// call finds a minute has passed since its last sweep. On top of that, the
// number of keys is capped: a new key that finds its shard full first
// sweeps refilled buckets, and if every bucket is still live, evicts the
// sampled one closest to refilled. The cap is never a reason to refuse a
// request; the price is that, only under extreme key cardinality, a caller
// whose bucket was nearly full again gets it back full slightly early. We
// prefer that to unbounded memory, and to failing innocent callers closed.
type Memory struct {
	now      func() time.Time
	shardCap int
	shards   [memoryShards]memoryShard
}

type memoryShard struct {
	mu           sync.Mutex
	tats         map[string]int64 // key -> TAT, Unix nanoseconds
	nextSweep    int64
	lastCapSweep int64
	// Padding keeps neighbouring shards' mutexes off one cache line, so
	// that goroutines on different shards do not contend in hardware.
	_ [64]byte
}

// NewMemory returns an empty Memory limiter. now is the clock (a fake one
// in tests); nil means time.Now.
func NewMemory(now func() time.Time) *Memory {
	return newMemory(now, defaultMaxKeys)
}

func newMemory(now func() time.Time, maxKeys int) *Memory {
	if now == nil {
		now = time.Now
	}
	m := &Memory{now: now, shardCap: max(1, maxKeys/memoryShards)}
	for i := range m.shards {
		m.shards[i].tats = make(map[string]int64)
	}
	return m
}

// AllowN implements Limiter. It never fails for valid arguments; ctx is
// accepted only to satisfy the interface, as nothing here blocks.
func (m *Memory) AllowN(_ context.Context, key string, l Limit, n int) (Result, error) {
	g, err := prepare(l, n)
	if err != nil {
		return Result{}, err
	}
	now := m.now().UnixNano()
	s := m.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.maybeSweep(now)

	stored, found := s.tats[key]
	tat := max(stored, now) // an absent key behaves as a full bucket
	if n == 0 {
		return g.result(0, tat-now, false, 0), nil
	}
	newTAT := satAdd(tat, satMul(int64(n), g.interval))
	if newTAT-g.offset > now {
		return g.result(n, tat-now, false, 0), nil
	}
	if !found {
		s.makeRoom(now, m.shardCap)
		// The caller's key may be a slice of a large request buffer; a
		// copy keeps that buffer from living as long as the bucket.
		key = strings.Clone(key)
	}
	s.tats[key] = newTAT
	return g.result(n, newTAT-now, true, 0), nil
}

// Reset implements Limiter.
func (m *Memory) Reset(_ context.Context, key string) error {
	s := m.shard(key)
	s.mu.Lock()
	delete(s.tats, key)
	s.mu.Unlock()
	return nil
}

// size reports the number of tracked keys, for tests.
func (m *Memory) size() int {
	total := 0
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		total += len(s.tats)
		s.mu.Unlock()
	}
	return total
}

func (m *Memory) shard(key string) *memoryShard {
	return &m.shards[shardIndex(key)]
}

// shardIndex is FNV-1a inlined: hash/fnv would allocate for every call on
// the hot path.
func shardIndex(key string) int {
	const (
		offset64 = 14695981039346656037
		prime64  = 1099511628211
	)
	h := uint64(offset64)
	for i := 0; i < len(key); i++ {
		h ^= uint64(key[i])
		h *= prime64
	}
	return int(h % memoryShards)
}

// maybeSweep also sweeps when the clock has jumped backwards by more than
// the interval, which would otherwise postpone sweeping by the jump.
func (s *memoryShard) maybeSweep(now int64) {
	if now >= s.nextSweep || now < s.nextSweep-int64(sweepEvery) {
		s.sweep(now)
		s.nextSweep = now + int64(sweepEvery)
	}
}

// sweep drops refilled buckets; dropping them changes no result.
func (s *memoryShard) sweep(now int64) {
	for k, tat := range s.tats {
		if tat <= now {
			delete(s.tats, k)
		}
	}
}

// makeRoom brings the shard below its cap before a new key is inserted.
func (s *memoryShard) makeRoom(now int64, limit int) {
	if len(s.tats) < limit {
		return
	}
	if now-s.lastCapSweep >= int64(capSweepGap) || now < s.lastCapSweep {
		s.sweep(now)
		s.lastCapSweep = now
	}
	for len(s.tats) >= limit {
		s.evictNearestRefill()
	}
}

// evictNearestRefill drops the sampled bucket with the earliest TAT: a
// refilled one if the sample has any, else the one whose loss forgives the
// fewest events.
func (s *memoryShard) evictNearestRefill() {
	var victim string
	var victimTAT int64
	seen := 0
	for k, tat := range s.tats {
		if seen == 0 || tat < victimTAT {
			victim, victimTAT = k, tat
		}
		seen++
		if seen == evictionSample {
			break
		}
	}
	delete(s.tats, victim)
}
