package ratelimit_test

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"

	"concierge/internal/ratelimit"
)

func benchKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = "bench:apikey:" + strconv.Itoa(i)
	}
	return keys
}

// BenchmarkMemoryAllow models production traffic: many goroutines, many
// keys, a mix of allowed and refused calls.
func BenchmarkMemoryAllow(b *testing.B) {
	lim := ratelimit.NewMemory(nil)
	keys := benchKeys(100_000)
	l := ratelimit.PerMinute(60)
	var worker atomic.Uint64
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := worker.Add(1) * 7919
		for pb.Next() {
			i++
			if _, err := ratelimit.Allow(ctx, lim, keys[i%uint64(len(keys))], l); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkMemoryAllowOneKey is the worst case for the sharded locks: every
// goroutine contends for one key.
func BenchmarkMemoryAllowOneKey(b *testing.B) {
	lim := ratelimit.NewMemory(nil)
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := ratelimit.Allow(ctx, lim, "hot", ratelimit.PerSecond(1000)); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkRedisAllow measures a round trip to a local redis-server: serial
// for latency, parallel for throughput over the client's pool.
func BenchmarkRedisAllow(b *testing.B) {
	lim := ratelimit.NewRedis(newRealRedisClient(b), "bench:")
	keys := benchKeys(10_000)
	l := ratelimit.PerMinute(60)
	ctx := context.Background()
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, err := ratelimit.Allow(ctx, lim, keys[i%len(keys)], l); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		var worker atomic.Uint64
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			i := worker.Add(1) * 7919
			for pb.Next() {
				i++
				if _, err := ratelimit.Allow(ctx, lim, keys[i%uint64(len(keys))], l); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}
