package ratelimit_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/redis/go-redis/v9"

	"concierge/internal/clock"
	"concierge/internal/ratelimit"
	"concierge/internal/testkit"
)

// step is one call in a conformance sequence.
type step struct {
	advance time.Duration // clock movement before the call; timed cases only
	key     string        // "" means "k"
	reset   bool          // Reset(key) instead of AllowN
	limit   ratelimit.Limit
	n       int
	want    ratelimit.Result
}

// conformanceCase is a sequence of calls on a fresh limiter. Timed cases
// move the clock and so run only on backends with a fake clock.
type conformanceCase struct {
	name  string
	timed bool
	steps []step
}

func ok(remaining int, resetAfter time.Duration) ratelimit.Result {
	return ratelimit.Result{Allowed: true, Remaining: remaining, ResetAfter: resetAfter}
}

func refused(retryAfter, resetAfter time.Duration) ratelimit.Result {
	return ratelimit.Result{RetryAfter: retryAfter, ResetAfter: resetAfter}
}

const (
	second = time.Second
	minute = time.Minute
	hour   = time.Hour
)

var conformanceCases = []conformanceCase{
	{name: "burst then refusal", steps: []step{
		{limit: ratelimit.PerHour(3), n: 1, want: ok(2, 20*minute)},
		{limit: ratelimit.PerHour(3), n: 1, want: ok(1, 40*minute)},
		{limit: ratelimit.PerHour(3), n: 1, want: ok(0, 60*minute)},
		{limit: ratelimit.PerHour(3), n: 1, want: refused(20*minute, 60*minute)},
		{limit: ratelimit.PerHour(3), n: 1, want: refused(20*minute, 60*minute)},
	}},
	{name: "peek does not consume", steps: []step{
		{limit: ratelimit.PerHour(4), n: 0, want: ok(4, 0)},
		{limit: ratelimit.PerHour(4), n: 0, want: ok(4, 0)},
		{limit: ratelimit.PerHour(4), n: 1, want: ok(3, 15*minute)},
		{limit: ratelimit.PerHour(4), n: 0, want: ok(3, 15*minute)},
		{limit: ratelimit.PerHour(4), n: 3, want: ok(0, 60*minute)},
		{limit: ratelimit.PerHour(4), n: 0, want: refused(15*minute, 60*minute)},
		{limit: ratelimit.PerHour(4), n: 0, want: refused(15*minute, 60*minute)},
		{limit: ratelimit.PerHour(4), n: 1, want: refused(15*minute, 60*minute)},
	}},
	{name: "n greater than one", steps: []step{
		{limit: ratelimit.PerHour(10), n: 4, want: ok(6, 24*minute)},
		{limit: ratelimit.PerHour(10), n: 7, want: refused(6*minute, 24*minute)},
		{limit: ratelimit.PerHour(10), n: 6, want: ok(0, 60*minute)},
		{limit: ratelimit.PerHour(10), n: 0, want: refused(6*minute, 60*minute)},
	}},
	{name: "n above burst is never allowed", steps: []step{
		{limit: ratelimit.PerHour(5), n: 6, want: refused(12*minute, 0)},
		{limit: ratelimit.PerHour(5), n: 5, want: ok(0, 60*minute)},
		{limit: ratelimit.PerHour(5), n: 6, want: refused(72*minute, 60*minute)},
	}},
	{name: "keys are independent", steps: []step{
		{key: "a", limit: ratelimit.PerHour(2), n: 2, want: ok(0, 60*minute)},
		{key: "a", limit: ratelimit.PerHour(2), n: 1, want: refused(30*minute, 60*minute)},
		{key: "b", limit: ratelimit.PerHour(2), n: 1, want: ok(1, 30*minute)},
		{key: "b", limit: ratelimit.PerHour(2), n: 0, want: ok(1, 30*minute)},
	}},
	{name: "reset", steps: []step{
		{limit: ratelimit.PerHour(2), n: 2, want: ok(0, 60*minute)},
		{key: "other", limit: ratelimit.PerHour(2), n: 1, want: ok(1, 30*minute)},
		{reset: true},
		{limit: ratelimit.PerHour(2), n: 0, want: ok(2, 0)},
		{limit: ratelimit.PerHour(2), n: 1, want: ok(1, 30*minute)},
		{key: "other", limit: ratelimit.PerHour(2), n: 0, want: ok(1, 30*minute)},
		{key: "never-used", reset: true},
	}},
	{name: "limit shrinks under a key", steps: []step{
		{limit: ratelimit.PerHour(10), n: 10, want: ok(0, 60*minute)},
		{limit: ratelimit.PerHour(2), n: 0, want: refused(30*minute, 60*minute)},
		// The stored TAT is further ahead than the new burst allows.
		{limit: ratelimit.Limit{Rate: 1, Burst: 1, Period: 30 * minute}, n: 0, want: refused(60*minute, 60*minute)},
		{limit: ratelimit.Limit{Rate: 1, Burst: 1, Period: 30 * minute}, n: 1, want: refused(60*minute, 60*minute)},
	}},
	{name: "interval not a whole second", steps: []step{
		{limit: ratelimit.PerHour(500), n: 1, want: ok(499, 7200*time.Millisecond)},
		{limit: ratelimit.PerHour(500), n: 1, want: ok(498, 14400*time.Millisecond)},
		{limit: ratelimit.PerHour(500), n: 0, want: ok(498, 14400*time.Millisecond)},
		{limit: ratelimit.PerHour(500), n: 498, want: ok(0, hour)},
		{limit: ratelimit.PerHour(500), n: 1, want: refused(7200*time.Millisecond, hour)},
	}},
	{name: "interval not a whole nanosecond", steps: []step{
		{limit: ratelimit.PerHour(7), n: 7, want: ok(0, 7*(hour/7))},
		{limit: ratelimit.PerHour(7), n: 1, want: refused(hour/7, 7*(hour/7))},
	}},
	{name: "daily", steps: []step{
		{limit: ratelimit.Limit{Rate: 100, Burst: 100, Period: 24 * hour}, n: 100, want: ok(0, 24*hour)},
		{limit: ratelimit.Limit{Rate: 100, Burst: 100, Period: 24 * hour}, n: 1, want: refused(864*second, 24*hour)},
	}},
	{name: "burst larger than rate", steps: []step{
		{limit: ratelimit.Limit{Rate: 10, Burst: 20, Period: hour}, n: 20, want: ok(0, 2*hour)},
		{limit: ratelimit.Limit{Rate: 10, Burst: 20, Period: hour}, n: 1, want: refused(6*minute, 2*hour)},
	}},

	{name: "refill over time", timed: true, steps: []step{
		{limit: ratelimit.PerSecond(10), n: 10, want: ok(0, second)},
		{limit: ratelimit.PerSecond(10), n: 1, want: refused(100*time.Millisecond, second)},
		{advance: 100 * time.Millisecond, limit: ratelimit.PerSecond(10), n: 1, want: ok(0, second)},
		{advance: 250 * time.Millisecond, limit: ratelimit.PerSecond(10), n: 0, want: ok(2, 750*time.Millisecond)},
		{advance: 10 * second, limit: ratelimit.PerSecond(10), n: 0, want: ok(10, 0)},
		{limit: ratelimit.PerSecond(10), n: 1, want: ok(9, 100*time.Millisecond)},
	}},
	{name: "allowed exactly when RetryAfter has elapsed", timed: true, steps: []step{
		{limit: ratelimit.PerMinute(30), n: 30, want: ok(0, 60*second)},
		{limit: ratelimit.PerMinute(30), n: 1, want: refused(2*second, 60*second)},
		{advance: 1999 * time.Millisecond, limit: ratelimit.PerMinute(30), n: 1, want: refused(time.Millisecond, 58001*time.Millisecond)},
		{advance: time.Millisecond, limit: ratelimit.PerMinute(30), n: 1, want: ok(0, 60*second)},
	}},
	{name: "partial refill", timed: true, steps: []step{
		{limit: ratelimit.PerMinute(4), n: 4, want: ok(0, 60*second)},
		{advance: 40 * second, limit: ratelimit.PerMinute(4), n: 0, want: ok(2, 20*second)},
		{limit: ratelimit.PerMinute(4), n: 2, want: ok(0, 50*second)},
		{limit: ratelimit.PerMinute(4), n: 1, want: refused(5*second, 50*second)},
		{advance: 5 * second, limit: ratelimit.PerMinute(4), n: 1, want: ok(0, 60*second)},
	}},
	{name: "interval not a whole microsecond", timed: true, steps: []step{
		{limit: ratelimit.PerSecond(3), n: 3, want: ok(0, 3*(second/3))},
		{advance: 334 * time.Millisecond, limit: ratelimit.PerSecond(3), n: 1, want: ok(0, 4*(second/3)-334*time.Millisecond)},
		{limit: ratelimit.PerSecond(3), n: 0, want: refused(2*(second/3)-334*time.Millisecond, 4*(second/3)-334*time.Millisecond)},
	}},
}

// backend makes fresh limiters for the conformance suite.
type backend struct {
	// newLimiter returns an empty limiter and a way to move its clock, nil
	// when the limiter runs on a real clock.
	newLimiter func(t *testing.T) (ratelimit.Limiter, func(time.Duration))
	// tolerance is how far durations may stray from the expected ones:
	// zero for exact arithmetic, more where a real clock runs during the
	// test or float seconds round.
	tolerance time.Duration
}

func runConformance(t *testing.T, b backend) {
	for _, c := range conformanceCases {
		t.Run(c.name, func(t *testing.T) {
			lim, advance := b.newLimiter(t)
			if c.timed && advance == nil {
				t.Skip("needs a fake clock")
			}
			near := cmp.Comparer(func(x, y time.Duration) bool {
				return (x - y).Abs() <= b.tolerance
			})
			ctx := context.Background()
			for i, st := range c.steps {
				if st.advance != 0 {
					advance(st.advance)
				}
				key := st.key
				if key == "" {
					key = "k"
				}
				if st.reset {
					if err := lim.Reset(ctx, key); err != nil {
						t.Fatalf("step %d: Reset(%q): %v", i, key, err)
					}
					continue
				}
				got, err := lim.AllowN(ctx, key, st.limit, st.n)
				if err != nil {
					t.Fatalf("step %d: AllowN(%q, %v, %d): %v", i, key, st.limit, st.n, err)
				}
				if diff := cmp.Diff(st.want, got, near); diff != "" {
					t.Errorf("step %d: AllowN(%q, %v, %d) (-want +got):\n%s", i, key, st.limit, st.n, diff)
				}
			}
		})
	}
}

func TestConformanceMemory(t *testing.T) {
	runConformance(t, backend{
		newLimiter: func(*testing.T) (ratelimit.Limiter, func(time.Duration)) {
			clk := newFakeClock()
			return ratelimit.NewMemory(clk.Now), clk.Advance
		},
	})
}

// TestConformanceRedis runs the suite on a real redis-server, whose clock
// cannot be faked: timed cases are skipped, and the others allow for the
// time the test itself takes.
func TestConformanceRedis(t *testing.T) {
	client := newRealRedisClient(t)
	runConformance(t, backend{
		newLimiter: func(t *testing.T) (ratelimit.Limiter, func(time.Duration)) {
			return ratelimit.NewRedis(client, "conformance:"+t.Name()+":"), nil
		},
		tolerance: 2 * time.Second,
	})
}

// TestConformanceMiniredis runs redis_rate's script under miniredis, whose
// TIME can be set, so the timed cases check that Redis and Memory agree on
// refill arithmetic too. The tolerance covers the script's float seconds.
func TestConformanceMiniredis(t *testing.T) {
	runConformance(t, backend{
		newLimiter: func(t *testing.T) (ratelimit.Limiter, func(time.Duration)) {
			clk := newFakeClock()
			mr, client := newMiniredis(t, clk)
			return ratelimit.NewRedis(client, "conformance:"), func(d time.Duration) {
				clk.Advance(d)
				mr.SetTime(clk.Now()) // moves TIME
				mr.FastForward(d)     // expires keys
			}
		},
		tolerance: time.Microsecond,
	})
}

func newFakeClock() *clock.Fake {
	return clock.NewFake(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
}

func newMiniredis(t *testing.T, clk *clock.Fake) (*miniredis.Miniredis, *redis.Client) {
	t.Helper()
	mr := miniredis.RunT(t)
	mr.SetTime(clk.Now())
	client := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { _ = client.Close() })
	return mr, client
}

func newRealRedisClient(t testing.TB) *redis.Client {
	t.Helper()
	opts, err := redis.ParseURL(testkit.StartRedis(t))
	if err != nil {
		t.Fatal(err)
	}
	client := redis.NewClient(opts)
	t.Cleanup(func() { _ = client.Close() })
	return client
}

// TestDifferentialMiniredis drives Memory and Redis (on miniredis) with the
// same pseudo-random calls at the same fake times and requires the same
// answers, covering sequences nobody thought to write down.
func TestDifferentialMiniredis(t *testing.T) {
	limits := []ratelimit.Limit{
		ratelimit.PerSecond(10), ratelimit.PerSecond(3), ratelimit.PerMinute(30), ratelimit.PerHour(500), ratelimit.PerHour(7),
		{Rate: 5, Burst: 12, Period: 10 * second},
	}
	clk := newFakeClock()
	mem := ratelimit.NewMemory(clk.Now)
	mr, client := newMiniredis(t, clk)
	red := ratelimit.NewRedis(client, "diff:")
	// The script stores its TAT as float seconds since 2017 and each
	// update rounds it, so over thousands of calls Redis's durations drift
	// from Memory's exact ones by a microsecond or two.
	near := cmp.Comparer(func(x, y time.Duration) bool { return (x - y).Abs() <= 10*time.Microsecond })
	ctx := context.Background()

	rnd := uint64(1) // xorshift: reproducible without math/rand seeding
	next := func(n int) int {
		rnd ^= rnd << 13
		rnd ^= rnd >> 7
		rnd ^= rnd << 17
		return int(rnd % uint64(n))
	}
	for i := range 3000 {
		if d := time.Duration(next(400)) * 7 * time.Millisecond; next(3) == 0 {
			clk.Advance(d)
			mr.SetTime(clk.Now())
			mr.FastForward(d)
		}
		l := limits[next(len(limits))]
		key := fmt.Sprint(l, "/", next(3))
		if next(200) == 0 {
			if err := mem.Reset(ctx, key); err != nil {
				t.Fatal(err)
			}
			if err := red.Reset(ctx, key); err != nil {
				t.Fatal(err)
			}
			continue
		}
		n := next(4)
		want, err := mem.AllowN(ctx, key, l, n)
		if err != nil {
			t.Fatal(err)
		}
		got, err := red.AllowN(ctx, key, l, n)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got, near); diff != "" {
			t.Fatalf("call %d: AllowN(%q, %d) Memory vs Redis (-memory +redis):\n%s", i, key, n, diff)
		}
	}
}
