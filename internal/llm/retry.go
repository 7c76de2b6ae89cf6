package llm

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"concierge/internal/clock"
)

// The causes the runner cancels an attempt with, so that a failed read can
// be told apart from the caller going away. Both match
// context.DeadlineExceeded for callers that only ask "was it a timeout?".
var (
	errIdle     error = &timeoutError{"no output from the model"}
	errDeadline error = &timeoutError{"no complete reply"}
)

type timeoutError struct{ msg string }

func (e *timeoutError) Error() string        { return e.msg }
func (e *timeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// attemptFunc performs one exchange with the provider. It passes the
// reply's text to emit as it arrives and returns the finished completion
// (its Text is ignored: the runner assembles it from emit). An HTTP
// failure comes back as an *Error carrying the status and Retry-After; a
// stream that stops before the provider's final event as KindCut; a
// transport failure as the plain error.
type attemptFunc func(ctx context.Context, emit func(text string) error) (Completion, error)

// runner is the behaviour both providers share: the overall deadline, the
// idle timeout, retries with backoff, and the rule that nothing is retried
// once text has reached the caller (the caller cannot take it back).
type runner struct {
	timeout       time.Duration // whole Stream call, retries included
	idle          time.Duration // before the first text and between texts
	attempts      int
	maxRetryAfter time.Duration
	backoffBase   time.Duration
	backoffMax    time.Duration
	sleep         func(context.Context, time.Duration) error
	jitter        func(time.Duration) time.Duration // uniform in [0, d]
	clock         clock.Clock
	secret        string // the API key, scrubbed from every error text
}

// run calls attempt until it succeeds, fails for good, or runs out of
// attempts or time. onDelta sees every piece of text exactly once: a
// retry only ever happens before the first piece.
func (r *runner) run(parent context.Context, onDelta func(string) error, attempt attemptFunc) (Completion, error) {
	ctx, cancel := context.WithTimeoutCause(parent, r.timeout, errDeadline)
	defer cancel()

	var (
		text     strings.Builder
		deltaErr error
	)
	deliver := func(s string) error {
		text.WriteString(s)
		if err := onDelta(s); err != nil {
			deltaErr = err
			return err
		}
		return nil
	}

	for n := 1; ; n++ {
		c, err, cause := r.once(ctx, deliver, attempt)
		c.Text = text.String()
		if err == nil && deltaErr == nil {
			return c, nil
		}
		if deltaErr != nil {
			return c, deltaErr
		}
		if parent.Err() != nil {
			return c, r.abandoned(parent)
		}
		e := r.classify(err, cause)
		if text.Len() > 0 {
			if e.Kind != KindCut {
				e = &Error{Kind: KindCut, Status: e.Status, RetryAfter: e.RetryAfter,
					Err: fmt.Errorf("%s after a partial reply: %w", e.Kind, e.Err)}
			}
			return c, r.scrub(e)
		}
		wait, ok := r.retryWait(ctx, e, n)
		if !ok {
			return c, r.scrub(e)
		}
		if err := r.sleep(ctx, wait); err != nil {
			if parent.Err() != nil {
				return c, r.abandoned(parent)
			}
			return c, r.scrub(e)
		}
	}
}

// once runs one attempt under the idle timeout. The timer is paused while
// onDelta runs: a slow consumer (a visitor on a bad connection) is not the
// model being idle.
func (r *runner) once(ctx context.Context, deliver func(string) error, attempt attemptFunc) (Completion, error, error) {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := time.AfterFunc(r.idle, func() { cancel(errIdle) })
	defer idle.Stop()
	emit := func(s string) error {
		if s == "" {
			return nil
		}
		idle.Stop()
		if err := deliver(s); err != nil {
			return err
		}
		idle.Reset(r.idle)
		return nil
	}
	c, err := attempt(actx, emit)
	return c, err, context.Cause(actx)
}

// abandoned is the error for a caller that went away or whose own deadline
// passed. A cancelled caller gets a plain error wrapping context.Canceled:
// it is not the provider's failure and nobody is waiting for an answer.
func (r *runner) abandoned(parent context.Context) error {
	if errors.Is(parent.Err(), context.DeadlineExceeded) {
		return &Error{Kind: KindTimeout, Err: fmt.Errorf("the caller's deadline passed: %w", context.DeadlineExceeded)}
	}
	return fmt.Errorf("llm: stream abandoned: %w", parent.Err())
}

// classify turns an attempt's failure into an *Error. The cancellation
// cause comes first: a read that failed because the runner cancelled it
// is a timeout, whatever the transport said.
func (r *runner) classify(err, cause error) *Error {
	switch {
	case cause == errIdle:
		return &Error{Kind: KindTimeout, Err: fmt.Errorf("%w for %s", errIdle, r.idle)}
	case cause == errDeadline:
		return &Error{Kind: KindTimeout, Err: fmt.Errorf("%w within %s", errDeadline, r.timeout)}
	}
	if e, ok := AsError(err); ok {
		c := *e
		return &c
	}
	// A transport failure: refused, reset, DNS, TLS. Worth another try.
	return &Error{Kind: KindUnavailable, Err: err}
}

// retryWait says whether e is worth another attempt and how long to wait
// first. A Retry-After longer than maxRetryAfter ends the call at once:
// trying earlier than the provider asked only burns an attempt, and a
// visitor is not going to wait that long for a chat reply.
func (r *runner) retryWait(ctx context.Context, e *Error, n int) (time.Duration, bool) {
	if !retryable(e) || n >= r.attempts || ctx.Err() != nil {
		return 0, false
	}
	wait := r.backoff(n)
	if e.RetryAfter > 0 {
		if e.RetryAfter > r.maxRetryAfter {
			return 0, false
		}
		wait = e.RetryAfter
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= wait {
		return 0, false
	}
	return wait, true
}

// retryable reports whether another attempt may succeed: the provider is
// busy or broken for a moment, not refusing this request or this account.
func retryable(e *Error) bool {
	switch e.Kind {
	case KindUnavailable, KindRateLimited, KindCut:
		return true
	case KindTimeout:
		// Only the idle timeout: a stalled connection is often fixed by a
		// new one. The overall deadline leaves no time for another try.
		return errors.Is(e.Err, errIdle)
	}
	return false
}

// backoff is "full jitter" exponential backoff: a uniform wait in
// [0, min(max, base·2^(n-1))], so that many clients failing together do
// not come back together.
func (r *runner) backoff(n int) time.Duration {
	d := r.backoffMax
	if n-1 < 31 {
		if b := r.backoffBase << (n - 1); b > 0 && b < d {
			d = b
		}
	}
	return r.jitter(d)
}

// scrub removes the API key from e's text. Providers echo a bad key back
// in 401 messages (OpenAI masks the middle, a proxy may not), and errors
// end up in logs.
func (r *runner) scrub(e *Error) *Error {
	if r.secret == "" || e.Err == nil || !strings.Contains(e.Err.Error(), r.secret) {
		return e
	}
	c := *e
	// The original is dropped, not wrapped: its text holds the key.
	c.Err = errors.New(strings.ReplaceAll(e.Err.Error(), r.secret, "[redacted]"))
	return &c
}

func sleepContext(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func fullJitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return rand.N(d + 1)
}

// retryAfter reads how long the provider asked us to wait: retry-after-ms
// (OpenAI and Anthropic send it beside the standard header), then
// Retry-After in seconds or as an HTTP date. 0 when absent or unreadable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// statusKind is the classification every provider shares for an HTTP
// failure status; providers refine it from their error bodies (a spent
// quota hides behind 429 or 400).
func statusKind(status int) Kind {
	switch {
	case status == http.StatusPaymentRequired:
		return KindQuota
	case status == http.StatusTooManyRequests:
		return KindRateLimited
	case status >= 500:
		return KindUnavailable
	default:
		return KindRejected
	}
}

// excerpt bounds a provider's error message for our error text. Some
// servers (vLLM's validation errors) quote the request back, and the
// request holds the visitor's question and the retrieved passages.
func excerpt(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const limit = 200
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
