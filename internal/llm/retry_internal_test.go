package llm

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestRetryAfterHeader(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"absent", nil, 0},
		{"seconds", map[string]string{"Retry-After": "7"}, 7 * time.Second},
		{"fractional seconds", map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond},
		{"milliseconds win", map[string]string{"Retry-After": "7", "Retry-After-Ms": "250"}, 250 * time.Millisecond},
		{"http date", map[string]string{"Retry-After": now.Add(4 * time.Second).Format(http.TimeFormat)}, 4 * time.Second},
		{"date in the past", map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{"negative", map[string]string{"Retry-After": "-3"}, 0},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0},
	}
	for _, tc := range tests {
		h := http.Header{}
		for k, v := range tc.header {
			h.Set(k, v)
		}
		if got := retryAfter(h, now); got != tc.want {
			t.Errorf("%s: retryAfter = %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestBackoffFullJitter(t *testing.T) {
	var asked []time.Duration
	r := &runner{backoffBase: 500 * time.Millisecond, backoffMax: 5 * time.Second,
		jitter: func(d time.Duration) time.Duration { asked = append(asked, d); return d }}
	for n := 1; n <= 40; n++ {
		r.backoff(n)
	}
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second}
	for i, w := range want {
		if asked[i] != w {
			t.Errorf("attempt %d: cap %s, want %s", i+1, asked[i], w)
		}
	}
	for i, d := range asked[len(want):] {
		if d != 5*time.Second {
			t.Errorf("attempt %d: cap %s, want the 5s maximum (no overflow)", i+len(want)+1, d)
		}
	}
	for range 1000 {
		if d := fullJitter(time.Second); d < 0 || d > time.Second {
			t.Fatalf("fullJitter(1s) = %s", d)
		}
	}
}

func TestSSEData(t *testing.T) {
	in := ": comment\n\nevent: a\ndata: {\"x\":\r\ndata:1}\r\n\r\nid: 3\nretry: 10\ndata: two\n\nevent: b\ndata: unterminated"
	sc := bufio.NewScanner(strings.NewReader(in))
	var buf bytes.Buffer
	var got []string
	for {
		d, err := nextSSEData(sc, &buf)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(d))
	}
	want := []string{"{\"x\":\n1}", "two"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("events %q, want %q (the unterminated one dropped)", got, want)
	}
}

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("é", 300)
	got := excerpt(long)
	if !utf8.ValidString(got) || len(got) > 210 {
		t.Errorf("excerpt: %d bytes, valid %v", len(got), utf8.ValidString(got))
	}
	if got := excerpt("a\n  b\tc"); got != "a b c" {
		t.Errorf("excerpt = %q", got)
	}
}

func TestScrub(t *testing.T) {
	r := &runner{secret: "sk-123"}
	e := r.scrub(&Error{Kind: KindRejected, Status: 401, Err: io.ErrUnexpectedEOF})
	if e.Err != io.ErrUnexpectedEOF {
		t.Error("an error without the key was rewritten")
	}
	e = r.scrub(&Error{Kind: KindRejected, Err: &testErr{"bad key sk-123, sk-123"}})
	if strings.Contains(e.Error(), "sk-123") || !strings.Contains(e.Error(), "[redacted]") {
		t.Errorf("scrubbed: %v", e)
	}
}

type testErr struct{ s string }

func (e *testErr) Error() string { return e.s }

func TestProviderKinds(t *testing.T) {
	anthropic := []struct {
		status   int
		typ, msg string
		want     Kind
	}{
		{400, "invalid_request_error", "Your credit balance is too low to access the Anthropic API.", KindQuota},
		{403, "permission_error", "Your Credit Balance is too low", KindQuota},
		{0, "invalid_request_error", "credit balance is too low", KindQuota},
		{402, "billing_error", "billing", KindQuota},
		{400, "billing_error", "billing", KindQuota},
		{400, "invalid_request_error", "max_tokens: Field required", KindRejected},
		{401, "authentication_error", "invalid x-api-key", KindRejected},
		{403, "permission_error", "no access", KindRejected},
		{413, "request_too_large", "too big", KindRejected},
		{429, "rate_limit_error", "slow down", KindRateLimited},
		{500, "api_error", "oops", KindUnavailable},
		{504, "timeout_error", "slow", KindUnavailable},
		{529, "overloaded_error", "Overloaded", KindUnavailable},
		{529, "", "", KindUnavailable},
		{0, "overloaded_error", "Overloaded", KindUnavailable},
		{0, "rate_limit_error", "", KindRateLimited},
		{0, "invalid_request_error", "bad", KindRejected},
	}
	for _, tc := range anthropic {
		if got := anthropicKind(tc.status, tc.typ, tc.msg); got != tc.want {
			t.Errorf("anthropic %d %s %q: %s, want %s", tc.status, tc.typ, tc.msg, got, tc.want)
		}
	}
	if got := statusKind(418); got != KindRejected {
		t.Errorf("418: %s", got)
	}
}
