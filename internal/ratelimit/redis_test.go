package ratelimit_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/redis/go-redis/v9"

	"concierge/internal/ratelimit"
)

// unreachableRedis returns a client for a loopback port nobody listens on,
// so every command fails fast with a connection error.
func unreachableRedis(t testing.TB) *redis.Client {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	client := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: time.Second})
	t.Cleanup(func() { _ = client.Close() })
	return client
}

func TestRedisKeyLayoutAndReset(t *testing.T) {
	client := newRealRedisClient(t)
	ctx := context.Background()
	lim := ratelimit.NewRedis(client, "concierge:rl:")

	if _, err := lim.AllowN(ctx, "peeked", ratelimit.PerHour(3), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := ratelimit.Allow(ctx, lim, "api:123", ratelimit.PerHour(3)); err != nil {
		t.Fatal(err)
	}
	keys, err := client.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	// redis_rate adds its fixed "rate:" in front of our prefix; a peek at
	// a fresh key writes nothing.
	if diff := cmp.Diff([]string{"rate:concierge:rl:api:123"}, keys); diff != "" {
		t.Fatalf("keys in Redis (-want +got):\n%s", diff)
	}
	ttl, err := client.TTL(ctx, keys[0]).Result()
	if err != nil {
		t.Fatal(err)
	}
	// The bucket refills in 20 minutes, and so the key expires then.
	if ttl <= 19*time.Minute || ttl > 20*time.Minute {
		t.Errorf("TTL = %v, want about 20m", ttl)
	}

	if err := lim.Reset(ctx, "api:123"); err != nil {
		t.Fatal(err)
	}
	if n, err := client.Exists(ctx, keys[0]).Result(); err != nil || n != 0 {
		t.Errorf("after Reset: EXISTS = %d, %v; want 0", n, err)
	}
}

func TestRedisErrors(t *testing.T) {
	const secretKey = "apikey-6f1c2b9e"
	lim := ratelimit.NewRedis(unreachableRedis(t), "concierge:rl:")
	ctx := context.Background()

	_, err := ratelimit.Allow(ctx, lim, secretKey, ratelimit.PerHour(3))
	checkRedisErr(t, "AllowN", err, secretKey)
	checkRedisErr(t, "Reset", lim.Reset(ctx, secretKey), secretKey)
}

func TestRedisCancelledContext(t *testing.T) {
	const secretKey = "apikey-6f1c2b9e"
	lim := ratelimit.NewRedis(newRealRedisClient(t), "p:")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := lim.AllowN(ctx, secretKey, ratelimit.PerHour(3), 1)
	checkRedisErr(t, "AllowN with a cancelled context", err, secretKey)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v does not wrap context.Canceled", err)
	}
}

func checkRedisErr(t *testing.T, op string, err error, secretKey string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error from an unusable Redis", op)
	}
	if !strings.HasPrefix(err.Error(), "ratelimit: redis: ") {
		t.Errorf("%s: error %q lacks the \"ratelimit: redis: \" prefix", op, err)
	}
	if strings.Contains(err.Error(), secretKey) {
		t.Errorf("%s: error %q leaks the key", op, err)
	}
}

// TestRedisConcurrentOneKey checks that the script is atomic across
// connections, as it must be for replicas sharing one limit.
func TestRedisConcurrentOneKey(t *testing.T) {
	client := newRealRedisClient(t)
	lim := ratelimit.NewRedis(client, "concurrent:")
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 100 {
				r, err := ratelimit.Allow(context.Background(), lim, "hot", ratelimit.PerHour(500))
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
	wg.Wait()
	if got := allowed.Load(); got != 500 {
		t.Errorf("allowed %d of 1600 calls, want exactly 500", got)
	}
}

// TestRedisFloatNoise pins down why redisSlack exists: on a fresh key,
// redis_rate's float arithmetic puts a 10/s bucket a hair short of 9 events
// after the first one, which it would report as 8.
func TestRedisFloatNoise(t *testing.T) {
	lim := ratelimit.NewRedis(newRealRedisClient(t), "noise:")
	for _, l := range []ratelimit.Limit{ratelimit.PerSecond(10), ratelimit.PerHour(500), ratelimit.PerHour(7)} {
		r, err := ratelimit.Allow(context.Background(), lim, l.String(), l)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Allowed || r.Remaining != l.Burst-1 {
			t.Errorf("%v: first event: got %+v, want allowed with %d remaining", l, r, l.Burst-1)
		}
	}
}

func TestInvalidArguments(t *testing.T) {
	limiters := map[string]ratelimit.Limiter{
		"memory": ratelimit.NewMemory(nil),
		// Validation happens before any network traffic, so an unreachable
		// server is fine here.
		"redis": ratelimit.NewRedis(unreachableRedis(t), "test:"),
	}
	tests := []struct {
		name    string
		l       ratelimit.Limit
		n       int
		wantErr string
	}{
		{"zero limit", ratelimit.Limit{}, 1, "ratelimit: invalid limit off: rate must be at least 1"},
		{"zero burst", ratelimit.Limit{Rate: 1, Period: time.Second}, 1, "burst must be at least 1"},
		{"zero period", ratelimit.Limit{Rate: 1, Burst: 1}, 1, "period must be positive"},
		{"negative n", ratelimit.PerHour(1), -1, "ratelimit: negative event count -1"},
		{"too long", ratelimit.Limit{Rate: 1, Burst: 1000, Period: 1000 * 24 * time.Hour}, 1, "days to refill"},
	}
	for name, lim := range limiters {
		for _, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				_, err := lim.AllowN(context.Background(), "k", tt.l, tt.n)
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("AllowN error = %v, want one containing %q", err, tt.wantErr)
				}
			})
		}
	}
}
