package ratelimit

import (
	"context"
	"fmt"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// redisSlack is the resolution of Redis's TIME. The Lua script computes in
// float seconds since 2017, which are only accurate to a fraction of a
// microsecond; a credit within this much of a whole event is one, so that
// Redis reports the same Remaining as Memory's exact integer arithmetic.
const redisSlack = int64(time.Microsecond)

// Redis is a Limiter whose state lives in Redis, shared by all replicas, via
// redis_rate's GCRA script. The script reads the server's clock, so replica
// clock skew does not matter.
//
// redis_rate prepends its own fixed "rate:" to every key, so a key k is
// stored at "rate:" + prefix + k. Each key expires on its own once its
// bucket is full again.
//
// n == 0 runs the same script with a cost of zero, which consumes nothing:
// redis_rate reads the TAT and writes the same value back (refreshing its
// TTL). Apart from the allow/refuse decision, which stays the server's,
// every Result field is derived from the script's reset_after with the
// arithmetic Memory uses: the script's own remaining can come out one short
// when float rounding lands just below a whole number, and for a peek it
// reports neither whether an event would fit nor when one will.
type Redis struct {
	limiter *redis_rate.Limiter
	prefix  string
}

// NewRedis returns a Limiter storing its buckets in client under prefix
// (e.g. "concierge:rl:").
func NewRedis(client redis.UniversalClient, prefix string) *Redis {
	return &Redis{limiter: redis_rate.NewLimiter(client), prefix: prefix}
}

// AllowN implements Limiter. Redis errors are returned, never swallowed:
// whether to fail open or closed is the caller's decision.
func (r *Redis) AllowN(ctx context.Context, key string, l Limit, n int) (Result, error) {
	g, err := prepare(l, n)
	if err != nil {
		return Result{}, err
	}
	rl := redis_rate.Limit{Rate: l.Rate, Burst: l.Burst, Period: l.Period}
	res, err := r.limiter.AllowN(ctx, r.prefix+key, rl, n)
	if err != nil {
		// The key is left out on purpose: it may be derived from an API key
		// and errors end up in logs.
		return Result{}, fmt.Errorf("ratelimit: redis: %w", err)
	}
	// The script's allowed field is its cost, n, when it consumed; for a
	// peek it is always 0.
	consumed := n > 0 && res.Allowed > 0
	return g.result(n, int64(res.ResetAfter), consumed, redisSlack), nil
}

// Reset implements Limiter by deleting the key.
func (r *Redis) Reset(ctx context.Context, key string) error {
	if err := r.limiter.Reset(ctx, r.prefix+key); err != nil {
		return fmt.Errorf("ratelimit: redis: %w", err)
	}
	return nil
}
