package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"concierge/internal/clock"
)

// Providers New knows.
const (
	ProviderOpenAI    = "openai"    // any OpenAI-compatible chat-completions server
	ProviderAnthropic = "anthropic" // Anthropic's Messages API
)

// Defaults for the zero fields of Config.
const (
	DefaultOpenAIBaseURL    = "https://api.openai.com/v1"
	DefaultAnthropicBaseURL = "https://api.anthropic.com"
	DefaultMaxTokens        = 1024
	DefaultTimeout          = 60 * time.Second
	DefaultIdleTimeout      = 20 * time.Second
	DefaultMaxAttempts      = 3
	// MaxRetryAfter is the longest Retry-After a Stream call waits for;
	// beyond it the call fails at once with the provider's RetryAfter so
	// that the visitor is told to come back instead of staring at a spinner.
	MaxRetryAfter = 10 * time.Second
)

// Backoff between attempts when the provider gave no Retry-After.
const (
	backoffBase = 500 * time.Millisecond
	backoffMax  = 5 * time.Second
)

// Config selects and tunes a model client. The zero value of every field
// but Provider and Model means "the default".
type Config struct {
	Provider string // ProviderOpenAI or ProviderAnthropic
	// BaseURL of the API. OpenAI-compatible servers take the URL that
	// "/chat/completions" is appended to: https://api.openai.com/v1,
	// http://localhost:11434/v1 (Ollama), http://host:8000/v1 (vLLM,
	// llama.cpp), https://RESOURCE.openai.azure.com/openai/v1 (Azure's v1
	// API, which accepts the key as a bearer token). Anthropic takes the
	// host (https://api.anthropic.com; a trailing /v1 is accepted too).
	BaseURL string
	APIKey  string // may be empty for local OpenAI-compatible servers
	Model   string // the provider's model name (an Azure deployment name for Azure)
	// MaxTokens caps a reply when the Request does not; 0: DefaultMaxTokens.
	MaxTokens int
	// Temperature, when set, replaces every Request's temperature: for
	// models that accept only one value, or an operator who pins it. nil:
	// each Request's own Temperature is sent (0 is a valid value there, so
	// it cannot double as "unset").
	Temperature *float64
	// Timeout bounds a whole Stream call, retries and backoff included;
	// 0: DefaultTimeout.
	Timeout time.Duration
	// IdleTimeout bounds the wait for the first text and between texts;
	// 0: DefaultIdleTimeout. Reasoning models that think before writing
	// need it raised.
	IdleTimeout time.Duration
	// MaxAttempts bounds the tries of one Stream call, the first included;
	// 0: DefaultMaxAttempts, 1: never retry.
	MaxAttempts int

	// Sleep waits between attempts and must return early with ctx's error
	// when ctx ends; nil: a real timer. Not configuration: tests set it so
	// that retries do not really wait.
	Sleep func(ctx context.Context, d time.Duration) error
	// Clock reads the time for a Retry-After given as an HTTP date; nil:
	// the wall clock.
	Clock clock.Clock
}

// String prints the configuration with the API key masked, so that a
// logged or printed Config never leaks it.
func (c Config) String() string {
	key := ""
	if c.APIKey != "" {
		key = "[redacted]"
	}
	temp := "per request"
	if c.Temperature != nil {
		temp = fmt.Sprint(*c.Temperature)
	}
	return fmt.Sprintf("llm.Config{Provider:%q BaseURL:%q APIKey:%q Model:%q MaxTokens:%d Temperature:%s Timeout:%s IdleTimeout:%s MaxAttempts:%d}",
		c.Provider, c.BaseURL, key, c.Model, c.MaxTokens, temp, c.Timeout, c.IdleTimeout, c.MaxAttempts)
}

// GoString masks the key under %#v too.
func (c Config) GoString() string { return c.String() }

// LogValue masks the key in slog output.
func (c Config) LogValue() slog.Value { return slog.StringValue(c.String()) }

// New returns the Model that cfg describes. httpClient carries every
// request; nil gives a client with sensible connection timeouts and no
// overall timeout (a stream is bounded by cfg.Timeout, not by the client).
// The endpoints are the operator's, never a customer's, so this is not
// the SSRF-guarded client of internal/safehttp.
//
// The returned Model's Stream fails with an *Error, except in two cases:
// an error from onDelta comes back unchanged, and a caller whose context
// was cancelled gets a plain error wrapping context.Canceled (nobody is
// waiting for the answer). Before any text reached onDelta, 429, 5xx,
// 529, connection failures, streams cut short and the idle timeout are
// retried up to MaxAttempts; a spent quota and other 4xx never are. Once
// text reached onDelta nothing is retried and every failure, a stall
// included, is KindCut. On failure the returned Completion holds the text
// already passed to onDelta.
func New(cfg Config, httpClient *http.Client) (Model, error) {
	cfg.Provider = strings.ToLower(strings.TrimSpace(cfg.Provider))
	switch cfg.Provider {
	case ProviderOpenAI:
		if cfg.BaseURL == "" {
			cfg.BaseURL = DefaultOpenAIBaseURL
		}
	case ProviderAnthropic:
		if cfg.BaseURL == "" {
			cfg.BaseURL = DefaultAnthropicBaseURL
		}
		if cfg.APIKey == "" {
			return nil, errors.New("llm: anthropic needs an API key")
		}
	default:
		return nil, fmt.Errorf("llm: unknown provider %q (want %q or %q)", cfg.Provider, ProviderOpenAI, ProviderAnthropic)
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("llm: model name is required")
	}
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("llm: base URL must be an absolute http(s) URL, got %q", cfg.BaseURL)
	}
	if u.User != nil {
		return nil, errors.New("llm: base URL must not carry credentials; use the API key")
	}
	if cfg.MaxTokens < 0 || cfg.Timeout < 0 || cfg.IdleTimeout < 0 || cfg.MaxAttempts < 0 {
		return nil, errors.New("llm: max tokens, timeouts and attempts must not be negative")
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	if httpClient == nil {
		httpClient = defaultHTTPClient()
	}
	r := newRunner(cfg)
	if cfg.Provider == ProviderAnthropic {
		return newAnthropic(cfg, httpClient, r), nil
	}
	return newOpenAI(cfg, httpClient, r), nil
}

func newRunner(cfg Config) *runner {
	r := &runner{
		timeout:       cfg.Timeout,
		idle:          cfg.IdleTimeout,
		attempts:      cfg.MaxAttempts,
		maxRetryAfter: MaxRetryAfter,
		backoffBase:   backoffBase,
		backoffMax:    backoffMax,
		sleep:         cfg.Sleep,
		jitter:        fullJitter,
		clock:         cfg.Clock,
		secret:        cfg.APIKey,
	}
	if r.timeout == 0 {
		r.timeout = DefaultTimeout
	}
	if r.idle == 0 {
		r.idle = DefaultIdleTimeout
	}
	if r.attempts == 0 {
		r.attempts = DefaultMaxAttempts
	}
	if r.sleep == nil {
		r.sleep = sleepContext
	}
	if r.clock == nil {
		r.clock = clock.Real{}
	}
	return r
}

// defaultHTTPClient honours the environment's proxy settings (operators
// behind an egress proxy need them) and bounds connecting, but not the
// response: a reply streams for as long as cfg.Timeout allows.
func defaultHTTPClient() *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}}
}

// checkRequest rejects what no provider would accept, before spending a
// round trip on it.
func checkRequest(req Request) error {
	if len(req.Messages) == 0 {
		return &Error{Kind: KindRejected, Err: errors.New("request has no messages")}
	}
	for i, m := range req.Messages {
		if m.Role != RoleUser && m.Role != RoleAssistant {
			return &Error{Kind: KindRejected, Err: fmt.Errorf("message %d has role %q, want %q or %q", i, m.Role, RoleUser, RoleAssistant)}
		}
	}
	if req.MaxTokens < 0 {
		return &Error{Kind: KindRejected, Err: errors.New("negative max tokens")}
	}
	return nil
}
