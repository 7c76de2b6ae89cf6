package testkit

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"concierge/internal/account"
	"concierge/internal/app"
	"concierge/internal/clock"
	"concierge/internal/config"
	"concierge/internal/jobs"
	"concierge/internal/mail"
	"concierge/internal/secret"
	"concierge/internal/store"
)

// TestApp is the real service, serving HTTP on a loopback port, on a fresh
// database.
type TestApp struct {
	*app.App
	Engine  Engine
	URL     string
	Clock   *clock.Fake
	Mailbox *Mailbox
	Logs    *SyncBuffer
	Client  *http.Client
	DataDir string
	t       testing.TB
	stop    func()
}

// Stop takes the replica down in the middle of the test, as a crash of
// its process would from the clients' side: its listener closes, open
// requests and event streams are cut, and it answers nothing more. The
// database and the other replicas stay.
func (a *TestApp) Stop() { a.stop() }

// Option adjusts the configuration or wiring of a TestApp.
type Option func(*setup)

type setup struct {
	env   map[string]string
	edits []func(*config.Config)
	opts  app.Options
}

// WithEnv sets configuration as environment variables would (name, value
// pairs), over the test defaults.
func WithEnv(kv ...string) Option {
	return func(s *setup) {
		for i := 0; i+1 < len(kv); i += 2 {
			s.env[kv[i]] = kv[i+1]
		}
	}
}

// WithConfig edits the loaded configuration directly.
func WithConfig(fn func(*config.Config)) Option {
	return func(s *setup) { s.edits = append(s.edits, fn) }
}

// ReplicaOf makes the new app another replica of a: the same database and
// the same secret key (a replica with another key cannot open what the
// others sealed, such as operator keys), its own data directory and memory.
func ReplicaOf(a *TestApp) Option {
	return WithConfig(func(c *config.Config) {
		c.DatabaseURL = a.Config.DatabaseURL
		c.SecretKey = a.Config.SecretKey
		if c.SecretKey == "" {
			if raw, err := os.ReadFile(filepath.Join(a.DataDir, secret.KeyFileName)); err == nil {
				c.SecretKey = config.Secret(strings.TrimSpace(string(raw)))
			}
		}
	})
}

// WithOptions edits the wiring options directly.
func WithOptions(fn func(*app.Options)) Option {
	return func(s *setup) { fn(&s.opts) }
}

// WithRealHashing uses the production argon2id parameters.
func WithRealHashing() Option {
	return func(s *setup) { s.opts.HashParams = nil }
}

// testLimitVars are raised far above any test's traffic by default, so that
// only tests about limits meet them.
var testLimitVars = []string{"READ", "WRITE", "CHAT", "INGEST", "PREVIEW_COST", "CRAWL", "DISCOVER",
	"AUTH", "SIGNUP", "BILLING", "PUBLIC", "LOGIN_ACCOUNT"}

// NewApp starts the service on a fresh database of engine e. By default it
// uses a fake clock (starting now), an in-memory mailbox, cheap password
// hashing, generous rate limits and fast job polling; options change that.
func NewApp(t testing.TB, e Engine, opts ...Option) *TestApp {
	t.Helper()
	if e == Postgres {
		requirePostgres(t)
	}
	dataDir := t.TempDir()
	fake := clock.NewFake(time.Now())
	box := &Mailbox{}
	logs := &SyncBuffer{}
	cheap := account.HashParams{MemoryKiB: 64, Iterations: 1, Threads: 1}
	s := &setup{env: map[string]string{}, opts: app.Options{
		Clock:      fake,
		Mailer:     box,
		HashParams: &cheap,
		Logger:     Logger(logs),
		Jobs:       jobs.Options{PollInterval: 20 * time.Millisecond, BackoffBase: 50 * time.Millisecond},
		// No test may touch the network: e-mail checks ask this DNS.
		EmailResolver: NewResolver(),
	}}
	for _, v := range testLimitVars {
		s.env["CONCIERGE_RATE_LIMIT_"+v] = "100000/m"
	}
	for _, opt := range opts {
		opt(s)
	}
	cfg, err := config.Load(func(k string) string { return s.env[k] })
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	cfg.DataDir = dataDir
	cfg.ShutdownTimeout = 5 * time.Second
	// The service's public URL is where the test reaches it, unless a test
	// configures another.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	if cfg.PublicURL == "" {
		cfg.PublicURL = "http://" + ln.Addr().String()
	}
	if e == Postgres {
		cfg.DatabaseURL = config.Secret(NewPostgresURL(t))
	}
	for _, edit := range s.edits {
		edit(&cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("config: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a, err := app.New(ctx, cfg, s.opts)
	if err != nil {
		cancel()
		ln.Close()
		t.Fatalf("start app: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- a.Serve(ctx, ln) }()
	var once sync.Once
	stopped := false
	stop := func() {
		once.Do(func() {
			stopped = true
			cancel()
			if err := <-done; err != nil {
				t.Errorf("serve: %v", err)
			}
			a.Close()
		})
	}
	t.Cleanup(stop)
	// Whatever the test did, analytics' rollups say what the rows say (a
	// test that writes rows around the writers calls Analytics.Rebuild).
	t.Cleanup(func() {
		if stopped || t.Failed() || a.DB.Ping(context.Background()) != nil { // stopped, or its database closed by the test
			return
		}
		var err error
		for range 3 { // a write may land between the two reads
			if err = a.Analytics.VerifyQuarters(context.Background()); err == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Errorf("at the end of the test: %v", err)
	})
	fc, _ := s.opts.Clock.(*clock.Fake)
	return &TestApp{
		App: a, Engine: e, URL: "http://" + ln.Addr().String(), Clock: fc, Mailbox: box, Logs: logs,
		Client: &http.Client{Timeout: 30 * time.Second}, DataDir: dataDir, t: t, stop: stop,
	}
}

// Response is a finished HTTP exchange.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a map (or fails the test).
func (r *Response) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("response is not a JSON object: %v: %s", err, r.Body)
	}
	return m
}

// Decode decodes the body into v (or fails the test).
func (r *Response) Decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode response: %v: %s", err, r.Body)
	}
}

// Do sends a request. body may be nil, a string or []byte (sent as is), or
// anything else (sent as JSON). headers are name, value pairs.
func (a *TestApp) Do(t testing.TB, method, path string, body any, headers ...string) *Response {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("marshal body: %v", err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, a.URL+path, rd)
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if http.CanonicalHeaderKey(headers[i]) == "Host" {
			req.Host = headers[i+1] // net/http sends req.Host, not a Host header
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := a.Client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return &Response{Status: res.StatusCode, Header: res.Header, Body: raw}
}

// Register signs up a workspace and returns its API key and id.
func (a *TestApp) Register(t testing.TB, email string) (key string, workspaceID int64) {
	t.Helper()
	res := a.Do(t, "POST", "/auth/register", map[string]any{"email": email, "password": "correct horse battery"})
	if res.Status != http.StatusOK {
		t.Fatalf("register %s: %d %s", email, res.Status, res.Body)
	}
	var out struct {
		APIKey    string `json:"api_key"`
		Workspace struct {
			ID int64 `json:"id"`
		} `json:"workspace"`
	}
	res.Decode(t, &out)
	return out.APIKey, out.Workspace.ID
}

// Password is the password Register uses.
const Password = "correct horse battery"

// Mailbox is an in-memory mailer that records every message.
type Mailbox struct {
	mu   sync.Mutex
	msgs []mail.Message
	cond chan struct{}
	fail error
}

// Send records m.
func (b *Mailbox) Send(_ context.Context, m mail.Message) error {
	if err := m.Validate(); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fail != nil {
		return b.fail
	}
	b.msgs = append(b.msgs, m)
	if b.cond != nil {
		close(b.cond)
		b.cond = nil
	}
	return nil
}

// FailWith makes every Send fail with err (nil restores).
func (b *Mailbox) FailWith(err error) {
	b.mu.Lock()
	b.fail = err
	b.mu.Unlock()
}

// Messages returns the messages sent to addr ("" for all).
func (b *Mailbox) Messages(addr string) []mail.Message {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []mail.Message
	for _, m := range b.msgs {
		if addr == "" || (len(m.To) > 0 && strings.EqualFold(m.To[0], addr)) {
			out = append(out, m)
		}
	}
	return out
}

// WaitFor waits until at least n messages were sent to addr.
func (b *Mailbox) WaitFor(t testing.TB, addr string, n int) []mail.Message {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		b.mu.Lock()
		if b.cond == nil {
			b.cond = make(chan struct{})
		}
		ch := b.cond
		b.mu.Unlock()
		if msgs := b.Messages(addr); len(msgs) >= n {
			return msgs
		}
		select {
		case <-ch:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatalf("timed out waiting for %d message(s) to %s; have %d", n, addr, len(b.Messages(addr)))
		}
	}
}

var codePattern = regexp.MustCompile(`\b(\d{6})\b`)

// Code waits for the n-th message to addr and returns the 6-digit code in it.
func (b *Mailbox) Code(t testing.TB, addr string, n int) string {
	t.Helper()
	msgs := b.WaitFor(t, addr, n)
	m := codePattern.FindStringSubmatch(msgs[n-1].Text)
	if m == nil {
		t.Fatalf("no code in message: %q", msgs[n-1].Text)
	}
	return m[1]
}

// SyncBuffer is a bytes.Buffer safe for concurrent writers (the logger).
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

// String returns everything written.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// Settle waits until no job is running or due: the background work of
// earlier calls (verification mail, for one) has finished, so a snapshot
// taken next is not changed by it.
func (a *TestApp) Settle(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var n int
		if err := store.Get(context.Background(), a.DB.Reader(), &n, `SELECT COUNT(*) FROM jobs
			WHERE status = 'running' OR (status = 'queued' AND run_at <= ?)`, a.Clock.Now()); err != nil {
			t.Fatalf("settle: %v", err)
		}
		if n == 0 {
			// The outbox's events become webhook messages (dispatched_at)
			// in the background: do it now, so a snapshot is stable.
			if a.Webhooks != nil {
				if err := a.Webhooks.Pump(context.Background()); err != nil {
					t.Fatalf("settle: webhooks: %v", err)
				}
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("settle: %d jobs still running or due after 20s", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
