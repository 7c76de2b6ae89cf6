package llm_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"concierge/internal/clock"
	"concierge/internal/llm"
	"concierge/internal/llm/llmtest"
)

// fake is one provider's fake, for tables that run on both.
type fake struct {
	name  string
	start func(testing.TB) *llmtest.Server
}

var fakes = []fake{
	{llm.ProviderOpenAI, llmtest.NewOpenAI},
	{llm.ProviderAnthropic, llmtest.NewAnthropic},
}

// sleeps records the backoff waits instead of waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// newModel builds a client for srv with cfg's changes applied and backoff
// waits recorded.
func newModel(t *testing.T, srv *llmtest.Server, change func(*llm.Config)) (llm.Model, *sleeps) {
	t.Helper()
	cfg := srv.Config()
	sl := &sleeps{}
	cfg.Sleep = sl.sleep
	if change != nil {
		change(&cfg)
	}
	m, err := llm.New(cfg, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	return m, sl
}

var question = llm.Request{
	System:      "You answer questions about Acme's opening hours.",
	Messages:    []llm.Message{{Role: llm.RoleUser, Content: "Hi"}, {Role: llm.RoleAssistant, Content: "Hello!"}, {Role: llm.RoleUser, Content: "When are you open on Sunday?"}},
	MaxTokens:   300,
	Temperature: 0.2,
}

// collect streams req and returns the deltas as received.
func collect(ctx context.Context, m llm.Model, req llm.Request) ([]string, llm.Completion, error) {
	var deltas []string
	c, err := m.Stream(ctx, req, func(s string) error {
		deltas = append(deltas, s)
		return nil
	})
	return deltas, c, err
}

func TestStreamAssemblesText(t *testing.T) {
	const text = "We open at 10:00 on Sundays — and close at 16:00. ☀️"
	for _, f := range fakes {
		for _, chunks := range []int{0, 1, 7, 1000} {
			t.Run(fmt.Sprintf("%s/%d chunks", f.name, chunks), func(t *testing.T) {
				srv := f.start(t)
				srv.Enqueue(llmtest.Reply{Text: text, Chunks: chunks})
				m, _ := newModel(t, srv, nil)

				deltas, c, err := collect(t.Context(), m, question)
				if err != nil {
					t.Fatalf("Stream: %v", err)
				}
				if diff := cmp.Diff(llmtest.Split(text, chunks), deltas); diff != "" {
					t.Errorf("deltas (-want +got):\n%s", diff)
				}
				if c.Text != text {
					t.Errorf("Text = %q, want %q", c.Text, text)
				}
				if c.StopReason != llm.StopEnd {
					t.Errorf("StopReason = %q, want %q", c.StopReason, llm.StopEnd)
				}
				if c.InputTokens == 0 || c.OutputTokens == 0 {
					t.Errorf("usage = %d in, %d out; want both counted", c.InputTokens, c.OutputTokens)
				}

				got := srv.Requests()
				if len(got) != 1 {
					t.Fatalf("%d requests, want 1", len(got))
				}
				r := got[0]
				if r.System != question.System {
					t.Errorf("system = %q, want %q", r.System, question.System)
				}
				if diff := cmp.Diff(question.Messages, r.Messages); diff != "" {
					t.Errorf("messages (-want +got):\n%s", diff)
				}
				if r.Model != llmtest.DefaultModel || r.MaxTokens != 300 || !r.Stream {
					t.Errorf("model %q, max tokens %d, stream %v", r.Model, r.MaxTokens, r.Stream)
				}
				if r.Temperature == nil || *r.Temperature < 0.19 || *r.Temperature > 0.21 {
					t.Errorf("temperature = %v, want 0.2", r.Temperature)
				}
				if f.name == llm.ProviderOpenAI && !r.IncludeUsage {
					t.Error("stream_options.include_usage not asked for")
				}
				if f.name == llm.ProviderAnthropic && r.Header.Get("anthropic-version") != llm.AnthropicVersion {
					t.Errorf("anthropic-version = %q", r.Header.Get("anthropic-version"))
				}
				if len(r.ChunkTimes) != len(deltas) {
					t.Errorf("%d chunk times for %d deltas", len(r.ChunkTimes), len(deltas))
				}
			})
		}
	}
}

func TestStreamDefaultEchoAndOptions(t *testing.T) {
	for _, f := range fakes {
		t.Run(f.name, func(t *testing.T) {
			srv := f.start(t)
			srv.Enqueue(llmtest.Reply{NoUsage: true, StopReason: map[string]string{
				llm.ProviderOpenAI: "length", llm.ProviderAnthropic: "max_tokens"}[f.name]})
			m, _ := newModel(t, srv, func(c *llm.Config) { c.MaxTokens = 77 })

			req := question
			req.MaxTokens = 0 // the client's default
			req.Temperature = 0
			_, c, err := collect(t.Context(), m, req)
			if err != nil {
				t.Fatal(err)
			}
			if want := llmtest.Echo(question.Messages); c.Text != want {
				t.Errorf("Text = %q, want %q", c.Text, want)
			}
			if c.StopReason != llm.StopMaxTokens {
				t.Errorf("StopReason = %q, want %q", c.StopReason, llm.StopMaxTokens)
			}
			if c.InputTokens != 0 || c.OutputTokens != 0 {
				t.Errorf("usage %d/%d from a server that sent none", c.InputTokens, c.OutputTokens)
			}
			r := srv.Last(t)
			if r.MaxTokens != 77 {
				t.Errorf("max tokens = %d, want the configured 77", r.MaxTokens)
			}
			// 0 is a real temperature and must reach the provider as 0,
			// not be dropped (the server's default is 1).
			if r.Temperature == nil || *r.Temperature > 1e-6 {
				t.Errorf("temperature = %v, want 0", r.Temperature)
			}
			if !strings.HasPrefix(m.Name(), f.name+"/") {
				t.Errorf("Name() = %q", m.Name())
			}
		})
	}
}

func TestStreamTemperatureOverrideAndReasoningModel(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	pinned := 0.7
	m, _ := newModel(t, srv, func(c *llm.Config) { c.Temperature = &pinned })
	if _, _, err := collect(t.Context(), m, question); err != nil {
		t.Fatal(err)
	}
	if r := srv.Last(t); r.Temperature == nil || *r.Temperature < 0.69 || *r.Temperature > 0.71 {
		t.Errorf("temperature = %v, want the pinned 0.7", r.Temperature)
	}

	// Reasoning models refuse max_tokens and sampling parameters.
	m, _ = newModel(t, srv, func(c *llm.Config) { c.Model = "o3-mini" })
	if _, _, err := collect(t.Context(), m, question); err != nil {
		t.Fatal(err)
	}
	r := srv.Last(t)
	if !strings.Contains(string(r.Body), `"max_completion_tokens":300`) || strings.Contains(string(r.Body), `"max_tokens"`) {
		t.Errorf("reasoning model body: %s", r.Body)
	}
	if r.Temperature != nil {
		t.Errorf("temperature %v sent to a reasoning model", *r.Temperature)
	}
}

// TestFaults checks every failure's classification, whether it is
// retried, and that the API key never shows in the error.
func TestFaults(t *testing.T) {
	type fault struct {
		name     string
		reply    llmtest.Reply
		badKey   bool
		kind     llm.Kind
		status   int
		attempts int // of 3 allowed
	}
	common := []fault{
		{name: "429", reply: llmtest.Reply{Status: 429}, kind: llm.KindRateLimited, status: 429, attempts: 3},
		{name: "500", reply: llmtest.Reply{Status: 500}, kind: llm.KindUnavailable, status: 500, attempts: 3},
		{name: "502", reply: llmtest.Reply{Status: 502}, kind: llm.KindUnavailable, status: 502, attempts: 3},
		{name: "503", reply: llmtest.Reply{Status: 503}, kind: llm.KindUnavailable, status: 503, attempts: 3},
		{name: "529", reply: llmtest.Reply{Status: 529}, kind: llm.KindUnavailable, status: 529, attempts: 3},
		{name: "quota", reply: llmtest.Reply{Quota: true}, kind: llm.KindQuota, attempts: 1},
		{name: "quota with retry-after", reply: llmtest.Reply{Quota: true, RetryAfter: "1"}, kind: llm.KindQuota, attempts: 1},
		{name: "400", reply: llmtest.Reply{Status: 400}, kind: llm.KindRejected, status: 400, attempts: 1},
		{name: "404 model", reply: llmtest.Reply{Status: 404}, kind: llm.KindRejected, status: 404, attempts: 1},
		{name: "wrong key", badKey: true, kind: llm.KindRejected, status: 401, attempts: 1},
		{name: "cut before text", reply: llmtest.Reply{Cut: llmtest.CutConnection}, kind: llm.KindCut, attempts: 3},
		{name: "clean end without final events", reply: llmtest.Reply{Cut: llmtest.CutEvents}, kind: llm.KindCut, attempts: 3},
		{name: "error event before text", reply: llmtest.Reply{Cut: llmtest.CutError}, kind: llm.KindUnavailable, attempts: 3},
	}
	for _, f := range fakes {
		for _, tc := range common {
			t.Run(f.name+"/"+tc.name, func(t *testing.T) {
				srv := f.start(t)
				srv.Handle(func(llmtest.Received) llmtest.Reply { return tc.reply })
				badKey := "sk-wrong-" + strings.Repeat("x", 20)
				m, _ := newModel(t, srv, func(c *llm.Config) {
					if tc.badKey {
						c.APIKey = badKey
					}
				})

				deltas, _, err := collect(t.Context(), m, question)
				e, ok := llm.AsError(err)
				if !ok {
					t.Fatalf("err = %v, want *llm.Error", err)
				}
				if e.Kind != tc.kind {
					t.Errorf("kind = %s, want %s (%v)", e.Kind, tc.kind, err)
				}
				if tc.status != 0 && e.Status != tc.status {
					t.Errorf("status = %d, want %d", e.Status, tc.status)
				}
				if n := len(srv.Requests()); n != tc.attempts {
					t.Errorf("%d attempts, want %d", n, tc.attempts)
				}
				if len(deltas) != 0 {
					t.Errorf("deltas %q from a failed reply", deltas)
				}
				for _, secret := range []string{srv.APIKey, badKey} {
					if strings.Contains(err.Error(), secret) {
						t.Errorf("error text holds the API key: %v", err)
					}
				}
				if strings.Contains(err.Error(), question.System) {
					t.Errorf("error text holds the request: %v", err)
				}
			})
		}
	}
}

func TestRetryThenSucceed(t *testing.T) {
	for _, f := range fakes {
		t.Run(f.name, func(t *testing.T) {
			srv := f.start(t)
			srv.Enqueue(llmtest.Reply{Status: 429}, llmtest.Reply{Status: 503}, llmtest.Reply{Text: "Open 10 to 4.", Chunks: 3})
			m, sl := newModel(t, srv, nil)

			deltas, c, err := collect(t.Context(), m, question)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(deltas, "") != "Open 10 to 4." || c.Text != "Open 10 to 4." {
				t.Errorf("deltas %q, text %q", deltas, c.Text)
			}
			if n := len(srv.Requests()); n != 3 {
				t.Errorf("%d attempts, want 3", n)
			}
			waits := sl.all()
			if len(waits) != 2 {
				t.Fatalf("%d backoff waits, want 2", len(waits))
			}
			// Full jitter: uniform in [0, base·2^(n-1)], base 500ms.
			for i, w := range waits {
				if bound := 500 * time.Millisecond << i; w < 0 || w > bound {
					t.Errorf("wait %d = %s, want within [0, %s]", i+1, w, bound)
				}
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		retryAfter string
		wantWait   time.Duration // 0: no retry
		wantErr    time.Duration // the RetryAfter of the final error
	}{
		{"seconds", "2", 2 * time.Second, 0},
		{"fraction", "0.5", 500 * time.Millisecond, 0},
		{"http date", now.Add(3 * time.Second).Format(http.TimeFormat), 3 * time.Second, 0},
		{"beyond the cap: fail now", "30", 0, 30 * time.Second},
	}
	for _, f := range fakes {
		for _, tc := range tests {
			t.Run(f.name+"/"+tc.name, func(t *testing.T) {
				srv := f.start(t)
				srv.Enqueue(llmtest.Reply{Status: 429, RetryAfter: tc.retryAfter})
				m, sl := newModel(t, srv, func(c *llm.Config) { c.Clock = clock.NewFake(now) })

				_, _, err := collect(t.Context(), m, question)
				if tc.wantWait == 0 {
					e, ok := llm.AsError(err)
					if !ok || e.Kind != llm.KindRateLimited || e.RetryAfter != tc.wantErr {
						t.Fatalf("err = %#v, want rate limited with RetryAfter %s", err, tc.wantErr)
					}
					if n := len(srv.Requests()); n != 1 {
						t.Errorf("%d attempts, want 1", n)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff([]time.Duration{tc.wantWait}, sl.all()); diff != "" {
					t.Errorf("waits (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestRetryBound(t *testing.T) {
	for _, attempts := range []int{1, 2, 5} {
		srv := llmtest.NewAnthropic(t)
		srv.Handle(func(llmtest.Received) llmtest.Reply { return llmtest.Reply{Status: 529} })
		m, sl := newModel(t, srv, func(c *llm.Config) { c.MaxAttempts = attempts })
		_, _, err := collect(t.Context(), m, question)
		if e, ok := llm.AsError(err); !ok || e.Kind != llm.KindUnavailable {
			t.Fatalf("MaxAttempts %d: err = %v", attempts, err)
		}
		if n := len(srv.Requests()); n != attempts {
			t.Errorf("MaxAttempts %d: %d attempts", attempts, n)
		}
		for _, w := range sl.all() {
			if w < 0 || w > 5*time.Second {
				t.Errorf("wait %s beyond the 5s backoff cap", w)
			}
		}
	}
}

// TestNoRetryAfterText: once text reached the caller, a failure is a cut
// and nothing is sent twice.
func TestNoRetryAfterText(t *testing.T) {
	const text = "one two three four five six"
	for _, f := range fakes {
		for _, cut := range []llmtest.Cut{llmtest.CutConnection, llmtest.CutEvents, llmtest.CutError} {
			t.Run(fmt.Sprintf("%s/cut %d", f.name, cut), func(t *testing.T) {
				srv := f.start(t)
				srv.Enqueue(llmtest.Reply{Text: text, Cut: cut, CutAfter: 2}, llmtest.Reply{Text: text})
				m, _ := newModel(t, srv, nil)

				deltas, c, err := collect(t.Context(), m, question)
				e, ok := llm.AsError(err)
				if !ok || e.Kind != llm.KindCut {
					t.Fatalf("err = %v, want KindCut", err)
				}
				want := llmtest.Split(text, 0)[:2]
				if diff := cmp.Diff(want, deltas); diff != "" {
					t.Errorf("deltas (-want +got):\n%s", diff)
				}
				if c.Text != strings.Join(want, "") {
					t.Errorf("partial Text = %q", c.Text)
				}
				if n := len(srv.Requests()); n != 1 {
					t.Errorf("%d attempts after text was delivered, want 1", n)
				}
			})
		}
	}
}

func TestTimeouts(t *testing.T) {
	tests := []struct {
		name     string
		reply    llmtest.Reply
		cfg      func(*llm.Config)
		kind     llm.Kind
		attempts int
		deltas   int
	}{
		{
			name:  "no first token within the idle timeout, retried",
			reply: llmtest.Reply{FirstDelay: 10 * time.Second},
			cfg:   func(c *llm.Config) { c.IdleTimeout = 100 * time.Millisecond; c.MaxAttempts = 2 },
			kind:  llm.KindTimeout, attempts: 2,
		},
		{
			name:  "overall deadline",
			reply: llmtest.Reply{FirstDelay: 10 * time.Second},
			cfg:   func(c *llm.Config) { c.Timeout = 150 * time.Millisecond },
			kind:  llm.KindTimeout, attempts: 1,
		},
		{
			name:  "stall after text is a cut",
			reply: llmtest.Reply{Text: "a b c", ChunkDelay: 10 * time.Second},
			cfg:   func(c *llm.Config) { c.IdleTimeout = 100 * time.Millisecond },
			kind:  llm.KindCut, attempts: 1, deltas: 1,
		},
	}
	for _, f := range fakes {
		for _, tc := range tests {
			t.Run(f.name+"/"+tc.name, func(t *testing.T) {
				srv := f.start(t)
				srv.Handle(func(llmtest.Received) llmtest.Reply { return tc.reply })
				m, _ := newModel(t, srv, tc.cfg)

				start := time.Now()
				deltas, _, err := collect(t.Context(), m, question)
				if took := time.Since(start); took > 5*time.Second {
					t.Errorf("took %s", took)
				}
				e, ok := llm.AsError(err)
				if !ok || e.Kind != tc.kind {
					t.Fatalf("err = %v, want %s", err, tc.kind)
				}
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("err = %v, want it to match context.DeadlineExceeded", err)
				}
				if n := len(srv.Requests()); n != tc.attempts {
					t.Errorf("%d attempts, want %d", n, tc.attempts)
				}
				if len(deltas) != tc.deltas {
					t.Errorf("deltas %q, want %d", deltas, tc.deltas)
				}
			})
		}
	}
}

// TestSlowConsumerIsNotIdle: the idle timer measures the model, not the
// time onDelta takes.
func TestSlowConsumerIsNotIdle(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	srv.Enqueue(llmtest.Reply{Text: "a b c"})
	m, _ := newModel(t, srv, func(c *llm.Config) { c.IdleTimeout = 50 * time.Millisecond })
	c, err := m.Stream(t.Context(), question, func(string) error {
		time.Sleep(120 * time.Millisecond)
		return nil
	})
	if err != nil || c.Text != "a b c" {
		t.Fatalf("Stream = %q, %v", c.Text, err)
	}
}

func TestCancelStopsPromptly(t *testing.T) {
	for _, f := range fakes {
		for _, midStream := range []bool{false, true} {
			t.Run(f.name, func(t *testing.T) {
				srv := f.start(t)
				reply := llmtest.Reply{Text: "a b c d", ChunkDelay: 10 * time.Second}
				if !midStream {
					reply.FirstDelay = 10 * time.Second
				}
				srv.Enqueue(reply)
				m, _ := newModel(t, srv, nil)

				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				if !midStream {
					time.AfterFunc(50*time.Millisecond, cancel)
				}
				start := time.Now()
				_, err := m.Stream(ctx, question, func(string) error {
					cancel() // the visitor left after the first word
					return nil
				})
				if took := time.Since(start); took > 3*time.Second {
					t.Errorf("cancelled stream took %s", took)
				}
				if !errors.Is(err, context.Canceled) {
					t.Errorf("err = %v, want context.Canceled", err)
				}
				if _, ok := llm.AsError(err); ok {
					t.Errorf("err = %v: a caller that left is not the provider's failure", err)
				}
				if n := len(srv.Requests()); n != 1 {
					t.Errorf("%d attempts after cancellation, want 1", n)
				}
			})
		}
	}
}

func TestOnDeltaErrorStops(t *testing.T) {
	stop := errors.New("client gone")
	for _, f := range fakes {
		t.Run(f.name, func(t *testing.T) {
			srv := f.start(t)
			srv.Enqueue(llmtest.Reply{Text: "a b c d"})
			m, _ := newModel(t, srv, nil)
			calls := 0
			c, err := m.Stream(t.Context(), question, func(string) error {
				calls++
				return stop
			})
			if !errors.Is(err, stop) {
				t.Errorf("err = %v, want onDelta's error", err)
			}
			if calls != 1 || c.Text != "a" {
				t.Errorf("%d calls, text %q", calls, c.Text)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d attempts", n)
			}
		})
	}
}

func TestRequestCheckedLocally(t *testing.T) {
	for _, f := range fakes {
		for _, req := range []llm.Request{
			{System: "x"},
			{Messages: []llm.Message{{Role: "system", Content: "x"}}},
			{Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}, MaxTokens: -1},
		} {
			srv := f.start(t)
			m, _ := newModel(t, srv, nil)
			_, _, err := collect(t.Context(), m, req)
			if e, ok := llm.AsError(err); !ok || e.Kind != llm.KindRejected {
				t.Errorf("%s %+v: err = %v, want KindRejected", f.name, req, err)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("%s: %d requests sent for an invalid request", f.name, n)
			}
		}
	}
}

func TestConnectionRefused(t *testing.T) {
	srv := llmtest.NewOpenAI(t)
	cfg := srv.Config()
	srv.Close() // nothing listens on its port any more
	sl := &sleeps{}
	cfg.Sleep = sl.sleep
	m, err := llm.New(cfg, &http.Client{})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = collect(t.Context(), m, question)
	if e, ok := llm.AsError(err); !ok || e.Kind != llm.KindUnavailable {
		t.Fatalf("err = %v, want KindUnavailable", err)
	}
	if n := len(sl.all()); n != 2 {
		t.Errorf("%d backoff waits, want 2 (3 attempts)", n)
	}
}

func TestConcurrentStreams(t *testing.T) {
	for _, f := range fakes {
		srv := f.start(t)
		m, _ := newModel(t, srv, nil)
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for i := range 8 {
			wg.Go(func() {
				req := llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: fmt.Sprintf("question %d", i)}}}
				c, err := m.Stream(t.Context(), req, nil)
				if err == nil && c.Text != llmtest.Echo(req.Messages) {
					err = fmt.Errorf("stream %d got %q", i, c.Text)
				}
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Errorf("%s: %v", f.name, err)
			}
		}
	}
}
