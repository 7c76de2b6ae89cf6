// Package ratelimit owns request rate limiting: the Limit type and its
// configuration syntax, and interchangeable limiters that hold counters in
// process memory (one replica) or in Redis (several replicas). Both backends
// run the same GCRA arithmetic as github.com/go-redis/redis_rate, so a
// deployment can move between them without clients noticing.
//
// The package decides nothing about keys or policy: callers choose the key
// (API key, bot key, client address), the Limit per endpoint class, and
// whether a backend error fails open or closed.
package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Limit allows Rate events per Period with bursts up to Burst (GCRA, the
// same algorithm redis_rate uses).
type Limit struct {
	Rate   int
	Burst  int
	Period time.Duration
}

// PerSecond allows n events per second with a burst of n.
func PerSecond(n int) Limit { return Limit{Rate: n, Burst: n, Period: time.Second} }

// PerMinute allows n events per minute with a burst of n.
func PerMinute(n int) Limit { return Limit{Rate: n, Burst: n, Period: time.Minute} }

// PerHour allows n events per hour with a burst of n.
func PerHour(n int) Limit { return Limit{Rate: n, Burst: n, Period: time.Hour} }

// IsZero reports whether l is the zero Limit, which limiters reject: a
// caller that wants no limit should not call a limiter (or use Off).
func (l Limit) IsZero() bool { return l == Limit{} }

const day = 24 * time.Hour

// maxSpan bounds Burst*Period/Rate so that time arithmetic in integer
// nanoseconds since the Unix epoch cannot overflow.
const maxSpan = 100 * 365 * day

// units is ordered largest first so String picks the shortest spelling.
var units = []struct {
	name string
	d    time.Duration
}{{"d", day}, {"h", time.Hour}, {"m", time.Minute}, {"s", time.Second}}

// Parse reads "30/m", "10/h", "5/s", "10/15m", "20/24h" or "100/d": a count,
// a slash, and a period made of an optional multiplier and a unit among s,
// m, h and d. Burst equals the count. "off" and "" are errors here because
// disabling a limit is the caller's policy, not a Limit value.
func Parse(s string) (Limit, error) {
	count, period, ok := strings.Cut(s, "/")
	if !ok {
		return Limit{}, fmt.Errorf("ratelimit: parse %q: want <count>/<period> such as 30/m or 10/15m", s)
	}
	rate, err := parsePositive(count)
	if err != nil {
		return Limit{}, fmt.Errorf("ratelimit: parse %q: count: %w", s, err)
	}
	if period == "" {
		return Limit{}, fmt.Errorf("ratelimit: parse %q: missing period after '/', want a unit among s, m, h, d", s)
	}
	unit := period[len(period)-1:]
	var unitDur time.Duration
	for _, u := range units {
		if u.name == unit {
			unitDur = u.d
		}
	}
	if unitDur == 0 {
		return Limit{}, fmt.Errorf("ratelimit: parse %q: unknown period unit %q, want one of s, m, h, d", s, unit)
	}
	mult := 1
	if m := period[:len(period)-1]; m != "" {
		if mult, err = parsePositive(m); err != nil {
			return Limit{}, fmt.Errorf("ratelimit: parse %q: period multiplier: %w", s, err)
		}
	}
	if int64(mult) > int64(maxSpan/unitDur) {
		return Limit{}, fmt.Errorf("ratelimit: parse %q: period longer than %d days", s, maxSpan/day)
	}
	l := Limit{Rate: rate, Burst: rate, Period: time.Duration(mult) * unitDur}
	if _, err := l.gcra(); err != nil {
		return Limit{}, fmt.Errorf("ratelimit: parse %q: %w", s, err)
	}
	return l, nil
}

// parsePositive accepts only plain decimal digits: strconv.Atoi would also
// take signs, which have no business in a rate.
func parsePositive(s string) (int, error) {
	if s == "" {
		return 0, errors.New("empty, want a positive integer")
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%q is not a positive integer", s)
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%q is out of range", s)
	}
	if n == 0 {
		return 0, errors.New("must be at least 1")
	}
	return n, nil
}

// String is the inverse of Parse for every Limit Parse returns, choosing the
// largest unit that divides Period ("20/24h" prints as "20/d"). Limits Parse
// cannot express (Burst != Rate, sub-second periods) still print readably.
func (l Limit) String() string {
	if l.IsZero() {
		return "off"
	}
	var period string
	for _, u := range units {
		if l.Period > 0 && l.Period%u.d == 0 {
			if n := l.Period / u.d; n == 1 {
				period = u.name
			} else {
				period = strconv.FormatInt(int64(n), 10) + u.name
			}
			break
		}
	}
	if period == "" {
		period = l.Period.String()
	}
	s := strconv.Itoa(l.Rate) + "/" + period
	if l.Burst != l.Rate {
		s += " (burst " + strconv.Itoa(l.Burst) + ")"
	}
	return s
}

// Result is the outcome of one AllowN call.
type Result struct {
	Allowed    bool
	Remaining  int
	RetryAfter time.Duration // > 0 only when !Allowed: how long until n events would be allowed
	ResetAfter time.Duration // until the bucket is full again
}

// Limiter is implemented by Memory, Redis and Off.
type Limiter interface {
	// AllowN consumes n events for key if allowed. n == 0 only reports the
	// current state (Allowed is true when at least one event would be
	// allowed now) without consuming. n > l.Burst is never allowed.
	AllowN(ctx context.Context, key string, l Limit, n int) (Result, error)
	// Reset forgets key (used e.g. after a successful password reset).
	Reset(ctx context.Context, key string) error
}

// Allow consumes one event: AllowN(ctx, key, l, 1).
func Allow(ctx context.Context, lim Limiter, key string, l Limit) (Result, error) {
	return lim.AllowN(ctx, key, l, 1)
}

// Off never limits. It exists for benchmarks (CONCIERGE_RATE_LIMITS=off),
// where counting would measure the limiter instead of the server.
type Off struct{}

// AllowN always allows and reports a full bucket.
func (Off) AllowN(_ context.Context, _ string, l Limit, _ int) (Result, error) {
	return Result{Allowed: true, Remaining: l.Burst}, nil
}

// Reset does nothing: Off keeps no state.
func (Off) Reset(context.Context, string) error { return nil }

var (
	_ Limiter = Off{}
	_ Limiter = (*Memory)(nil)
	_ Limiter = (*Redis)(nil)
)

// gcra is a Limit in integer nanoseconds. Integers rather than the float
// seconds of redis_rate's Lua script keep Memory exact on a fake clock: a
// caller that waits exactly RetryAfter is allowed, one that waits a
// nanosecond less is not.
type gcra struct {
	interval int64 // emission interval: the cost of one event
	offset   int64 // interval*Burst: how far the TAT may run ahead of now
}

// gcra validates l. Its errors carry no prefix; callers say where they came
// from.
func (l Limit) gcra() (gcra, error) {
	switch {
	case l.Rate < 1:
		return gcra{}, errors.New("rate must be at least 1")
	case l.Burst < 1:
		return gcra{}, errors.New("burst must be at least 1")
	case l.Period <= 0:
		return gcra{}, errors.New("period must be positive")
	}
	interval := int64(l.Period) / int64(l.Rate)
	if interval < 1 {
		return gcra{}, errors.New("more than one event per nanosecond")
	}
	if int64(l.Burst) > int64(maxSpan)/interval {
		return gcra{}, fmt.Errorf("a full burst takes longer than %d days to refill", maxSpan/day)
	}
	return gcra{interval: interval, offset: interval * int64(l.Burst)}, nil
}

// prepare validates the arguments common to every backend's AllowN.
func prepare(l Limit, n int) (gcra, error) {
	if n < 0 {
		return gcra{}, fmt.Errorf("ratelimit: negative event count %d", n)
	}
	g, err := l.gcra()
	if err != nil {
		return gcra{}, fmt.Errorf("ratelimit: invalid limit %s: %w", l, err)
	}
	return g, nil
}

// result turns the state after a decision into a Result. resetAfter is the
// theoretical arrival time minus now: after consuming when consumed,
// otherwise as it stands. Every number is derived from resetAfter so that
// Memory and Redis, which only hands back reset_after faithfully, share one
// formula. slack absorbs the float noise of the Redis script (zero for
// Memory): a bucket that is within slack of holding another whole event
// counts as holding it.
func (g gcra) result(n int, resetAfter int64, consumed bool, slack int64) Result {
	// diff is how far now is past the earliest moment the TAT allowed: the
	// credit left in the bucket, in nanoseconds.
	diff := g.offset - resetAfter
	r := Result{ResetAfter: time.Duration(resetAfter)}
	switch {
	case consumed:
		r.Allowed = true
		r.Remaining = g.whole(diff + slack)
	case n == 0:
		r.Remaining = g.whole(diff + slack)
		r.Allowed = r.Remaining >= 1
		if !r.Allowed {
			r.RetryAfter = time.Duration(g.interval - diff)
		}
	default:
		// redis_rate reports no remaining events on refusal, even when a
		// smaller n would have fit; Memory says the same.
		r.RetryAfter = time.Duration(satAdd(satMul(int64(n), g.interval), -diff))
		if r.RetryAfter <= 0 {
			// Only Redis float noise at the exact boundary gets here; the
			// server refused, so the caller must wait for something.
			r.RetryAfter = time.Microsecond
		}
	}
	return r
}

// whole counts the events that fit in credit, truncating like the Lua
// script's integer reply does.
func (g gcra) whole(credit int64) int {
	if credit <= 0 {
		return 0
	}
	return int(credit / g.interval)
}

func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

func satAdd(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
