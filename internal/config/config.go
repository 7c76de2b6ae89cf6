// Package config is the one Config struct of the process, loaded from the
// environment (CONCIERGE_*, DATABASE_URL, REDIS_URL) with defaults that run
// on one machine with nothing else installed.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"

	"concierge/internal/ratelimit"
)

// Secret is a configuration value that must never be printed.
type Secret string

// String masks the value.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return "***"
}

// LogValue masks the value in structured logs.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// Reveal returns the value for the one place that needs it.
func (s Secret) Reveal() string { return string(s) }

// Config is everything the process can be told.
type Config struct {
	Addr string `env:"CONCIERGE_ADDR" envDefault:"127.0.0.1:8080"`
	// PublicURL is where browsers and API clients reach this service
	// (scheme://host[:port], behind any proxy): the service's own origin for
	// the widget's origin check, the embed snippet, links in e-mails and the
	// API description's server. Unset: http:// plus the listen address.
	PublicURL   string `env:"CONCIERGE_PUBLIC_URL"`
	DataDir     string `env:"CONCIERGE_DATA_DIR" envDefault:"./data"`
	DatabaseURL Secret `env:"DATABASE_URL"`
	DBMaxConns  int    `env:"CONCIERGE_DB_MAX_CONNS" envDefault:"16"`
	RedisURL    Secret `env:"REDIS_URL"`
	// SecretKey is hex or base64 of >= 32 random bytes. Replicas sharing a
	// database must share it; without it, <data dir>/secret.key is used.
	SecretKey Secret `env:"CONCIERGE_SECRET_KEY"`

	LogFormat string `env:"CONCIERGE_LOG_FORMAT" envDefault:"text"`
	LogLevel  string `env:"CONCIERGE_LOG_LEVEL" envDefault:"info"`
	// AccessLog writes one line per request at INFO.
	AccessLog bool `env:"CONCIERGE_ACCESS_LOG" envDefault:"true"`

	// RateLimits is "on" or "off" (benchmarks only).
	RateLimits string    `env:"CONCIERGE_RATE_LIMITS" envDefault:"on"`
	Limits     LimitsEnv `envPrefix:"CONCIERGE_RATE_LIMIT_"`
	// TrustedProxies are CIDRs whose X-Forwarded-For is believed.
	TrustedProxies []string `env:"CONCIERGE_TRUSTED_PROXIES" envSeparator:","`
	// OutboundAllow lists CIDRs the guarded outbound client may reach on any
	// port despite the SSRF rules (tests and private deployments only).
	OutboundAllow []string `env:"CONCIERGE_OUTBOUND_ALLOW" envSeparator:","`
	// TrustEdgeHeaders lets /auth/detect-country read CDN country headers.
	TrustEdgeHeaders bool `env:"CONCIERGE_TRUST_EDGE_HEADERS"`

	// Payments: "sandbox" (default: activates at once, for local use) or
	// "razorpay".
	PaymentProvider       string `env:"CONCIERGE_PAYMENT_PROVIDER" envDefault:"sandbox"`
	RazorpayKeyID         string `env:"CONCIERGE_RAZORPAY_KEY_ID"`
	RazorpayKeySecret     Secret `env:"CONCIERGE_RAZORPAY_KEY_SECRET"`
	RazorpayWebhookSecret Secret `env:"CONCIERGE_RAZORPAY_WEBHOOK_SECRET"`
	// RazorpayPlanIDs maps plan and currency to Razorpay plan ids:
	// "starter:INR=plan_A,starter:USD=plan_B,...".
	RazorpayPlanIDs string `env:"CONCIERGE_RAZORPAY_PLAN_IDS"`
	RazorpayBaseURL string `env:"CONCIERGE_RAZORPAY_BASE_URL"`

	// The answerer: "extractive" (default: offline, deterministic),
	// "openai" (any OpenAI-compatible chat-completions server) or
	// "anthropic".
	LLMProvider    string        `env:"CONCIERGE_LLM_PROVIDER" envDefault:"extractive"`
	LLMBaseURL     string        `env:"CONCIERGE_LLM_BASE_URL"`
	LLMAPIKey      Secret        `env:"CONCIERGE_LLM_API_KEY"`
	LLMModel       string        `env:"CONCIERGE_LLM_MODEL"`
	LLMMaxTokens   int           `env:"CONCIERGE_LLM_MAX_TOKENS" envDefault:"700"`
	LLMTemperature float64       `env:"CONCIERGE_LLM_TEMPERATURE" envDefault:"0.2"`
	LLMTimeout     time.Duration `env:"CONCIERGE_LLM_TIMEOUT" envDefault:"60s"`
	LLMMaxAttempts int           `env:"CONCIERGE_LLM_MAX_ATTEMPTS" envDefault:"3"`

	// Dense retrieval: any OpenAI-compatible /v1/embeddings server. On when
	// EmbeddingsModel is set; passages are embedded as they are indexed and
	// each question as it is asked, fused with the keyword ranking.
	EmbeddingsBaseURL string        `env:"CONCIERGE_EMBEDDINGS_BASE_URL"`
	EmbeddingsAPIKey  Secret        `env:"CONCIERGE_EMBEDDINGS_API_KEY"`
	EmbeddingsModel   string        `env:"CONCIERGE_EMBEDDINGS_MODEL"`
	EmbeddingsTimeout time.Duration `env:"CONCIERGE_EMBEDDINGS_TIMEOUT" envDefault:"30s"`

	SMTPURL  Secret `env:"CONCIERGE_SMTP_URL"`
	MailFrom string `env:"CONCIERGE_MAIL_FROM"`

	// EmailVerifyURL is an optional external e-mail verification service
	// (POST {"email"} → {"result", "reason"}); without it lead addresses
	// get the local checks only. EmailVerifyToken is its bearer token.
	EmailVerifyURL   string `env:"CONCIERGE_EMAIL_VERIFY_URL"`
	EmailVerifyToken Secret `env:"CONCIERGE_EMAIL_VERIFY_TOKEN"`

	Workers int `env:"CONCIERGE_WORKERS" envDefault:"4"`
	// JobLease is how long a job stays claimed without a heartbeat: how
	// soon another worker takes over the jobs of a crashed process.
	JobLease        time.Duration `env:"CONCIERGE_JOB_LEASE" envDefault:"30s"`
	ShutdownTimeout time.Duration `env:"CONCIERGE_SHUTDOWN_TIMEOUT" envDefault:"20s"`
	// ReplyTimeout bounds one chat reply, model retries included.
	// SettleAfter is when a reply whose process died mid-way is settled
	// (its reservation refunded); it must be longer than ReplyTimeout.
	ReplyTimeout time.Duration `env:"CONCIERGE_REPLY_TIMEOUT" envDefault:"90s"`
	SettleAfter  time.Duration `env:"CONCIERGE_SETTLE_AFTER" envDefault:"10m"`
	// WebhookRetrySchedule is the delay before each delivery attempt of a
	// webhook message, the first included (each varied by ±20 %); empty is
	// the documented default 0, 5s, 5m, 30m, 2h, 5h, 10h, 10h.
	WebhookRetrySchedule []time.Duration `env:"CONCIERGE_WEBHOOK_RETRY_SCHEDULE" envSeparator:","`
	// DNSServer (host:port), when set, answers the DNS lookups of the
	// e-mail checks instead of the system resolver.
	DNSServer string `env:"CONCIERGE_DNS_SERVER"`
	// MetricsToken, when set, is required as a bearer token on /metrics.
	MetricsToken Secret `env:"CONCIERGE_METRICS_TOKEN"`

	// Password hashing (argon2id). The defaults are OWASP's minimum.
	Argon2MemoryKiB  uint32 `env:"CONCIERGE_ARGON2_MEMORY_KIB" envDefault:"19456"`
	Argon2Iterations uint32 `env:"CONCIERGE_ARGON2_ITERATIONS" envDefault:"2"`
	HashConcurrency  int    `env:"CONCIERGE_PASSWORD_HASH_CONCURRENCY" envDefault:"0"`

	// Sign-in through an OpenID Connect identity provider (see idp.go):
	// on when IDPClientID is set.
	IDP IDPEnv `envPrefix:"CONCIERGE_"`
}

// LimitsEnv holds the per-class rate-limit ceilings as "N/period" strings.
// Defaults follow the spec's table (section 8).
type LimitsEnv struct {
	Read        string `env:"READ" envDefault:"60/m"`
	Write       string `env:"WRITE" envDefault:"60/m"`
	Chat        string `env:"CHAT" envDefault:"30/m"`
	Ingest      string `env:"INGEST" envDefault:"10/m"`
	PreviewCost string `env:"PREVIEW_COST" envDefault:"20/m"`
	Crawl       string `env:"CRAWL" envDefault:"10/h"`
	Discover    string `env:"DISCOVER" envDefault:"120/h"`
	Auth        string `env:"AUTH" envDefault:"10/m"`
	Signup      string `env:"SIGNUP" envDefault:"20/h"`
	Billing     string `env:"BILLING" envDefault:"10/m"`
	Public      string `env:"PUBLIC" envDefault:"60/m"`
	// LoginAccount bounds failed sign-ins per account from any address.
	LoginAccount string `env:"LOGIN_ACCOUNT" envDefault:"10/15m"`
}

// Load reads the configuration from getenv (os.Getenv in production).
func Load(getenv func(string) string) (Config, error) {
	var c Config
	// Read exactly the variables the struct names through getenv, so tests
	// can pass a map instead of mutating the process environment.
	params, err := env.GetFieldParams(&c)
	if err != nil {
		return c, fmt.Errorf("config: %w", err)
	}
	environ := map[string]string{}
	for _, p := range params {
		if v := getenv(p.Key); v != "" {
			environ[p.Key] = v
		}
	}
	if err := env.ParseWithOptions(&c, env.Options{Environment: environ}); err != nil {
		return c, fmt.Errorf("config: %w", err)
	}
	return c, c.Validate()
}

// Validate checks values that parse but make no sense.
func (c Config) Validate() error {
	var errs []error
	switch c.LLMProvider {
	case "extractive":
	case "openai", "anthropic":
		if c.LLMModel == "" {
			errs = append(errs, fmt.Errorf("CONCIERGE_LLM_MODEL is needed with CONCIERGE_LLM_PROVIDER=%s", c.LLMProvider))
		}
	default:
		errs = append(errs, fmt.Errorf("CONCIERGE_LLM_PROVIDER %q: want extractive, openai or anthropic", c.LLMProvider))
	}
	if c.EmbeddingsModel == "" && (c.EmbeddingsBaseURL != "" || c.EmbeddingsAPIKey != "") {
		errs = append(errs, errors.New("CONCIERGE_EMBEDDINGS_MODEL is needed with CONCIERGE_EMBEDDINGS_BASE_URL or _API_KEY"))
	}
	if c.EmbeddingsBaseURL != "" {
		if u, err := url.Parse(c.EmbeddingsBaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, errors.New("CONCIERGE_EMBEDDINGS_BASE_URL must be an http(s) URL (the API root, e.g. http://127.0.0.1:11434/v1)"))
		}
	}
	if c.EmbeddingsTimeout <= 0 {
		errs = append(errs, errors.New("CONCIERGE_EMBEDDINGS_TIMEOUT must be positive"))
	}
	if c.Addr == "" {
		errs = append(errs, errors.New("CONCIERGE_ADDR is empty"))
	}
	if c.DataDir == "" {
		errs = append(errs, errors.New("CONCIERGE_DATA_DIR is empty"))
	}
	if _, err := c.PublicOrigin(); err != nil {
		errs = append(errs, err)
	}
	if c.DatabaseURL != "" {
		u, err := url.Parse(c.DatabaseURL.Reveal())
		if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
			errs = append(errs, errors.New("DATABASE_URL must be a postgres:// URL"))
		}
	}
	switch c.RateLimits {
	case "on", "off":
	default:
		errs = append(errs, fmt.Errorf("CONCIERGE_RATE_LIMITS=%q: want on or off", c.RateLimits))
	}
	if _, err := c.Limits.Parse(); err != nil {
		errs = append(errs, err)
	}
	if _, err := parsePrefixes("CONCIERGE_OUTBOUND_ALLOW", c.OutboundAllow); err != nil {
		errs = append(errs, err)
	}
	if _, err := c.TrustedProxyPrefixes(); err != nil {
		errs = append(errs, err)
	}
	switch c.PaymentProvider {
	case "sandbox":
	case "razorpay":
		if c.RazorpayKeyID == "" || c.RazorpayKeySecret == "" || c.RazorpayWebhookSecret == "" {
			errs = append(errs, errors.New("CONCIERGE_PAYMENT_PROVIDER=razorpay needs CONCIERGE_RAZORPAY_KEY_ID, _KEY_SECRET and _WEBHOOK_SECRET"))
		}
		if _, err := c.PlanIDs(); err != nil {
			errs = append(errs, err)
		}
	default:
		errs = append(errs, fmt.Errorf("CONCIERGE_PAYMENT_PROVIDER=%q: want sandbox or razorpay", c.PaymentProvider))
	}
	if c.Workers < 1 {
		errs = append(errs, errors.New("CONCIERGE_WORKERS must be at least 1"))
	}
	if c.ReplyTimeout <= 0 || c.SettleAfter <= c.ReplyTimeout {
		errs = append(errs, errors.New("CONCIERGE_SETTLE_AFTER must be longer than CONCIERGE_REPLY_TIMEOUT, both positive"))
	}
	if n := len(c.WebhookRetrySchedule); n > 20 {
		errs = append(errs, fmt.Errorf("CONCIERGE_WEBHOOK_RETRY_SCHEDULE has %d attempts: at most 20", n))
	}
	for _, d := range c.WebhookRetrySchedule {
		if d < 0 || d > 7*24*time.Hour {
			errs = append(errs, fmt.Errorf("CONCIERGE_WEBHOOK_RETRY_SCHEDULE: %s is not between 0 and 7 days", d))
			break
		}
	}
	if c.DNSServer != "" {
		if _, _, err := net.SplitHostPort(c.DNSServer); err != nil {
			errs = append(errs, fmt.Errorf("CONCIERGE_DNS_SERVER=%q: want host:port", c.DNSServer))
		}
	}
	if c.Argon2MemoryKiB < 8 || c.Argon2Iterations < 1 {
		errs = append(errs, errors.New("argon2 parameters too small"))
	}
	errs = append(errs, c.IDP.validate()...)
	return errors.Join(errs...)
}

// Limits are the parsed per-class ceilings.
type Limits map[string]ratelimit.Limit

// Parse returns the ceilings by class name (read, write, chat, ...).
func (l LimitsEnv) Parse() (Limits, error) {
	raw := map[string]string{
		"read": l.Read, "write": l.Write, "chat": l.Chat, "ingest": l.Ingest,
		"preview_cost": l.PreviewCost, "crawl": l.Crawl, "discover": l.Discover,
		"auth": l.Auth, "signup": l.Signup, "billing": l.Billing, "public": l.Public,
		"login_account": l.LoginAccount,
	}
	out := Limits{}
	for class, v := range raw {
		lim, err := ratelimit.Parse(v)
		if err != nil {
			return nil, fmt.Errorf("CONCIERGE_RATE_LIMIT_%s=%q: %w", strings.ToUpper(class), v, err)
		}
		out[class] = lim
	}
	return out, nil
}

// TrustedProxyPrefixes parses TrustedProxies; a bare address is a /32 or /128.
// PublicOrigin is the configured public base URL as scheme://host[:port]
// (lower case, no trailing slash), never taken from a request's Host
// header. Without CONCIERGE_PUBLIC_URL it is http:// and the listen
// address, with an unspecified host read as 127.0.0.1.
func (c Config) PublicOrigin() (string, error) {
	raw := c.PublicURL
	if raw == "" {
		host, port, err := net.SplitHostPort(c.Addr)
		if err != nil {
			return "", fmt.Errorf("CONCIERGE_ADDR %q: %w", c.Addr, err)
		}
		if a, err := netip.ParseAddr(host); host == "" || (err == nil && a.IsUnspecified()) {
			host = "127.0.0.1"
		}
		raw = "http://" + net.JoinHostPort(host, port)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("CONCIERGE_PUBLIC_URL %q: want scheme://host[:port], e.g. https://chat.example.com", raw)
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}

func (c Config) TrustedProxyPrefixes() ([]netip.Prefix, error) {
	return parsePrefixes("CONCIERGE_TRUSTED_PROXIES", c.TrustedProxies)
}

// OutboundAllowPrefixes parses OutboundAllow.
func (c Config) OutboundAllowPrefixes() ([]netip.Prefix, error) {
	return parsePrefixes("CONCIERGE_OUTBOUND_ALLOW", c.OutboundAllow)
}

func parsePrefixes(name string, list []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not an address or CIDR", name, s)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}

// PlanIDs parses RazorpayPlanIDs into plan → currency → provider plan id.
func (c Config) PlanIDs() (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	for _, item := range strings.Split(c.RazorpayPlanIDs, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		key, id, ok := strings.Cut(item, "=")
		plan, currency, ok2 := strings.Cut(key, ":")
		if !ok || !ok2 || id == "" || plan == "" || len(currency) != 3 {
			return nil, fmt.Errorf("CONCIERGE_RAZORPAY_PLAN_IDS: %q is not plan:CURRENCY=plan_id", item)
		}
		if out[plan] == nil {
			out[plan] = map[string]string{}
		}
		out[plan][strings.ToUpper(currency)] = id
	}
	return out, nil
}
