// Package app wires every service from the configuration, and runs and
// stops them in order: the database and migrations first, then the job
// workers and the HTTP server; on shutdown, in-flight requests finish, then
// running jobs finish or are released, then the database closes.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/redis/go-redis/v9"

	"concierge/internal/account"
	"concierge/internal/analytics"
	"concierge/internal/billing"
	"concierge/internal/bot"
	"concierge/internal/chat"
	"concierge/internal/clock"
	"concierge/internal/config"
	"concierge/internal/httpapi"
	"concierge/internal/idp"
	"concierge/internal/impersonation"
	"concierge/internal/jobs"
	"concierge/internal/knowledge"
	"concierge/internal/lead"
	"concierge/internal/lead/emailcheck"
	"concierge/internal/lead/refine"
	"concierge/internal/livechat"
	"concierge/internal/mail"
	"concierge/internal/operator"
	"concierge/internal/outbox"
	"concierge/internal/payment"
	"concierge/internal/ratelimit"
	"concierge/internal/retrieval"
	"concierge/internal/safehttp"
	"concierge/internal/secret"
	"concierge/internal/store"
	"concierge/internal/subscription"
	"concierge/internal/webhook"
)

// Version is the build's version, set with -ldflags "-X concierge/internal/app.Version=...".
var Version = "dev"

// Options override parts of the wiring; tests use them. Zero values mean
// production behaviour.
type Options struct {
	Clock clock.Clock
	// Payments replaces the configured payment provider (tests).
	Payments  payment.Provider
	Knowledge knowledge.Options
	Chat      chat.Options
	// Answerer replaces the configured answerer (tests).
	Answerer chat.Answerer
	Leads    lead.Options
	// EmailResolver answers the e-mail checks' DNS lookups (tests inject
	// one; nil is the system resolver). EmailProvider is an external
	// verification service (nil: none).
	EmailResolver emailcheck.Resolver
	EmailProvider emailcheck.Provider
	// Outbound adjusts the guarded client for customer URLs (tests inject
	// a resolver and a recording dialer); Allow still comes from config.
	Outbound    safehttp.Options
	Mailer      mail.Mailer
	HashParams  *account.HashParams
	Accounts    account.Options
	Jobs        jobs.Options
	Webhooks    webhook.Options
	Logger      *slog.Logger
	SkipMigrate bool
	// IDPClient reaches the identity provider (nil: idp.NewHTTPClient).
	IDPClient *http.Client
	// EmbeddingsClient reaches the configured embeddings server (nil: a
	// client with CONCIERGE_EMBEDDINGS_TIMEOUT).
	EmbeddingsClient *http.Client
}

// App is the running service.
type App struct {
	Config   config.Config
	DB       *store.DB
	Keys     *secret.Keyring
	Queue    *jobs.Queue
	Pool     *jobs.Pool
	Accounts *account.Service
	Billing  *billing.Service
	Bots     *bot.Service
	// Operators are live-chat operator accounts.
	Operators     *operator.Service
	Impersonation *impersonation.Service
	Subscriptions *subscription.Service
	Payments      payment.Provider
	Retrieval     *retrieval.Service
	Knowledge     *knowledge.Service
	Chat          *chat.Service
	Leads         *lead.Service
	Analytics     *analytics.Service
	Webhooks      *webhook.Service
	LiveChat      *livechat.Service
	Mailer        mail.Mailer
	Limiter       ratelimit.Limiter
	HTTP          *httpapi.Server
	Registry      *prometheus.Registry
	Log           *slog.Logger
	Clock         clock.Clock

	// IDP is sign-in through an identity provider.
	IDP *idp.Service

	redis *redis.Client
}

// New builds the service: it opens and migrates the database and creates
// every component, but starts nothing.
func New(ctx context.Context, cfg config.Config, opts Options) (_ *App, err error) {
	a := &App{Config: cfg, Log: opts.Logger, Clock: opts.Clock, Payments: opts.Payments}
	if a.Log == nil {
		a.Log = slog.New(slog.DiscardHandler)
	}
	if a.Clock == nil {
		a.Clock = clock.Real{}
	}
	defer func() {
		if err != nil {
			a.Close()
		}
	}()

	a.DB, err = store.Open(ctx, store.Options{
		DatabaseURL:  cfg.DatabaseURL.Reveal(),
		SQLitePath:   SQLitePath(cfg),
		MaxOpenConns: cfg.DBMaxConns,
	})
	if err != nil {
		return nil, err
	}
	if !opts.SkipMigrate {
		if _, err := a.DB.Migrate(ctx, a.Log); err != nil {
			return nil, err
		}
	} else if cur, latest, err := a.DB.MigrationVersion(ctx); err != nil || cur != latest {
		return nil, fmt.Errorf("app: database schema is at version %d, this build needs %d: run `concierge migrate`", cur, latest)
	}
	a.Keys, err = secret.Load(cfg.DataDir, cfg.SecretKey.Reveal())
	if err != nil {
		return nil, err
	}

	a.Mailer = opts.Mailer
	if a.Mailer == nil {
		a.Mailer, err = mail.New(cfg.SMTPURL.Reveal(), cfg.DataDir, cfg.MailFrom, a.Log)
		if err != nil {
			return nil, err
		}
	}

	limits, err := cfg.Limits.Parse()
	if err != nil {
		return nil, err
	}
	if err := a.openLimiter(ctx); err != nil {
		return nil, err
	}

	a.Registry = prometheus.NewRegistry()
	a.Registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))

	a.Queue = jobs.NewQueue(a.DB, a.Clock)
	jobOpts := opts.Jobs
	if jobOpts.Workers == 0 {
		jobOpts.Workers = cfg.Workers
	}
	if jobOpts.Lease == 0 {
		jobOpts.Lease = cfg.JobLease
	}
	jobOpts.Clock, jobOpts.Logger, jobOpts.Registerer = a.Clock, a.Log, a.Registry
	a.Pool = jobs.NewPool(a.Queue, jobOpts)
	// Finished jobs and dispatched events are not kept forever.
	jobs.RegisterPurge(a.Pool, outbox.Purger(a.DB, jobs.PurgeBatch))

	a.Billing, err = billing.NewService(billing.Deps{DB: a.DB, Queue: a.Queue, Clock: a.Clock, Logger: a.Log})
	if err != nil {
		return nil, err
	}
	a.Billing.RegisterJobs(a.Pool)

	hp := account.HashParams{MemoryKiB: cfg.Argon2MemoryKiB, Iterations: cfg.Argon2Iterations, Threads: 1}
	if opts.HashParams != nil {
		hp = *opts.HashParams
	}
	accOpts := opts.Accounts
	if accOpts.LoginAccount.IsZero() {
		accOpts.LoginAccount = limits["login_account"]
	}
	hasher := account.NewHasher(hp, cfg.HashConcurrency)
	a.Accounts = account.NewService(account.Deps{
		DB: a.DB, Keys: a.Keys, Hasher: hasher, Limiter: a.Limiter,
		Queue: a.Queue, Mailer: a.Mailer, Clock: a.Clock, Logger: a.Log, OnCreate: a.Billing.StartTrial,
	}, accOpts)
	a.Accounts.RegisterJobs(a.Pool)
	mail.RegisterJobs(a.Pool, a.Mailer)

	a.Bots = bot.NewService(bot.Deps{DB: a.DB, Billing: a.Billing, Clock: a.Clock, Logger: a.Log})
	a.Operators = operator.NewService(operator.Deps{DB: a.DB, Keys: a.Keys, Hasher: hasher, Limiter: a.Limiter,
		Billing: a.Billing, Clock: a.Clock, Logger: a.Log, LoginAccount: accOpts.LoginAccount})
	a.Impersonation = impersonation.NewService(a.DB, a.Clock)

	if a.Payments == nil {
		if a.Payments, err = a.openPayments(); err != nil {
			return nil, err
		}
	}
	planIDs, err := cfg.PlanIDs()
	if err != nil {
		return nil, err
	}
	var ids subscription.PlanIDs // nil: synthesised ids (sandbox)
	if cfg.PaymentProvider == "razorpay" {
		ids = func(plan, currency string) (string, bool) {
			id, ok := planIDs[plan][currency]
			return id, ok
		}
	}
	a.Subscriptions = subscription.NewService(subscription.Deps{DB: a.DB, Provider: a.Payments, Billing: a.Billing,
		Bots: a.Bots, PlanIDs: ids, Clock: a.Clock, Logger: a.Log})
	a.Bots.SetSubscriptionCanceller(a.Subscriptions)

	allow, err := cfg.OutboundAllowPrefixes()
	if err != nil {
		return nil, err
	}
	outOpts := opts.Outbound
	outOpts.Allow = allow
	outbound := safehttp.New(outOpts)
	embedder := newEmbedder(cfg, opts)
	a.Retrieval = retrieval.New(a.DB, retrieval.Options{Embedder: embedder, Logger: a.Log})
	a.Knowledge = knowledge.NewService(knowledge.Deps{DB: a.DB, Billing: a.Billing, Queue: a.Queue, Retrieval: a.Retrieval, Embedder: embedder,
		Client: outbound.HTTP(), ReadBody: safehttp.ReadBody, Allow: allow, Clock: a.Clock, Logger: a.Log}, opts.Knowledge)
	a.Knowledge.RegisterJobs(a.Pool)
	a.Billing.SetDocumentCounter(a.Knowledge)
	model, err := newModel(cfg, opts)
	if err != nil {
		return nil, err
	}
	chatOpts := opts.Chat
	if chatOpts.ReplyTimeout == 0 {
		chatOpts.ReplyTimeout = cfg.ReplyTimeout
	}
	if chatOpts.SettleAfter == 0 {
		chatOpts.SettleAfter = cfg.SettleAfter
	}
	a.Chat = chat.New(a.DB, a.Bots, a.Billing, a.Retrieval, newAnswerer(model, opts), a.Queue, a.Clock, a.Log, chatOpts)
	a.Chat.RegisterJobs(a.Pool)
	a.Knowledge.SetAfterCrawl(a.Chat.RefreshTone)
	provider := opts.EmailProvider
	if provider == nil && cfg.EmailVerifyURL != "" {
		if provider, err = emailcheck.NewConfiguredHTTPProvider(cfg.EmailVerifyURL, cfg.EmailVerifyToken.Reveal()); err != nil {
			return nil, fmt.Errorf("app: CONCIERGE_EMAIL_VERIFY_URL: %w", err)
		}
	}
	resolver := opts.EmailResolver
	if resolver == nil && cfg.DNSServer != "" {
		resolver = dnsResolver(cfg.DNSServer)
	}
	checker, err := emailcheck.New(emailcheck.Config{Resolver: resolver, Provider: provider,
		Clock: a.Clock, Logger: a.Log})
	if err != nil {
		return nil, err
	}
	// With a model, the lead_intelligence feature refines the rules' scores.
	var refiner lead.Refiner
	if model != nil {
		refiner = refine.New(model, a.Log)
	}
	a.Leads = lead.New(lead.Deps{DB: a.DB, Billing: a.Billing, Bots: a.Bots, Queue: a.Queue, Checker: checker,
		Refiner: refiner, Clock: a.Clock, Logger: a.Log}, opts.Leads)
	a.Leads.RegisterJobs(a.Pool)
	// A day's questions are folded once no reply of that day can still
	// complete: after the settle delay, and an hour more.
	a.Analytics = analytics.New(analytics.Deps{DB: a.DB, Billing: a.Billing, Clock: a.Clock, Search: a.Retrieval, Queue: a.Queue,
		FoldLag: cfg.SettleAfter + analytics.DefaultFoldLag})
	a.Analytics.RegisterJobs(a.Pool)
	a.LiveChat = livechat.New(livechat.Deps{DB: a.DB, Billing: a.Billing, Queue: a.Queue, Clock: a.Clock, Logger: a.Log,
		DatabaseURL: cfg.DatabaseURL.Reveal()})
	a.LiveChat.RegisterJobs(a.Pool)
	a.Chat.SetRelay(a.LiveChat)

	whOpts := opts.Webhooks
	if len(whOpts.Schedule) == 0 {
		whOpts.Schedule = cfg.WebhookRetrySchedule
	}
	// Webhooks get a client of their own: redirects are never followed
	// (a 3xx is a failed attempt) and the attempt timeout is theirs.
	whOut := opts.Outbound
	whOut.Allow, whOut.MaxRedirects, whOut.Timeout = allow, -1, opts.Webhooks.Timeout
	whOut.UserAgent = "Concierge-Webhooks/1.0"
	whOut.MaxIdleConns, whOut.MaxIdleConnsPerHost = 1024, 256
	a.Webhooks = webhook.New(webhook.Deps{DB: a.DB, Keys: a.Keys, Billing: a.Billing, Queue: a.Queue,
		CheckBot: func(ctx context.Context, workspaceID, botID int64) error {
			_, err := a.Bots.Get(ctx, workspaceID, botID)
			return err
		},
		Client: safehttp.New(whOut), Allow: allow, Clock: a.Clock, Logger: a.Log, DatabaseURL: cfg.DatabaseURL.Reveal()},
		whOpts)

	trusted, err := cfg.TrustedProxyPrefixes()
	if err != nil {
		return nil, err
	}
	publicOrigin, err := cfg.PublicOrigin()
	if err != nil {
		return nil, err
	}
	a.IDP = idp.New(idp.Deps{DB: a.DB, Keys: a.Keys, Accounts: a.Accounts, Clock: a.Clock, Logger: a.Log,
		HTTPClient: opts.IDPClient}, idp.Config{
		Issuer: cfg.IDP.Issuer, ClientID: cfg.IDP.ClientID, ClientSecret: cfg.IDP.ClientSecret.Reveal(),
		RedirectURL: cfg.IDP.RedirectURL, Audiences: cfg.IDP.AcceptedAudiences(), FrontendURL: cfg.IDP.FrontendURL,
		MobileRedirectURL: cfg.IDP.MobileRedirectURL,
	})
	a.HTTP = httpapi.New(httpapi.Deps{
		Accounts:         a.Accounts,
		Billing:          a.Billing,
		Bots:             a.Bots,
		Operators:        a.Operators,
		Impersonation:    a.Impersonation,
		Subscriptions:    a.Subscriptions,
		Knowledge:        a.Knowledge,
		Chat:             a.Chat,
		Leads:            a.Leads,
		Analytics:        a.Analytics,
		IDP:              a.IDP,
		Webhooks:         a.Webhooks,
		Ready:            a.DB.Ping,
		Limiter:          a.Limiter,
		Limits:           limits,
		LimitsOff:        cfg.RateLimits == "off",
		TrustedProxies:   trusted,
		TrustEdgeHeaders: cfg.TrustEdgeHeaders,
		PublicOrigin:     publicOrigin,
		Logger:           a.Log,
		AccessLog:        cfg.AccessLog,
		Registry:         a.Registry,
		MetricsToken:     cfg.MetricsToken.Reveal(),
		LiveChat:         a.LiveChat,
	})
	return a, nil
}

// openPayments builds the configured payment provider. The sandbox signs
// with a key derived from the server secret, so every replica agrees.
func (a *App) openPayments() (payment.Provider, error) {
	cfg := a.Config
	if cfg.PaymentProvider == "razorpay" {
		return payment.NewRazorpay(payment.RazorpayConfig{KeyID: cfg.RazorpayKeyID, KeySecret: cfg.RazorpayKeySecret.Reveal(),
			WebhookSecret: cfg.RazorpayWebhookSecret.Reveal(), BaseURL: cfg.RazorpayBaseURL})
	}
	return payment.NewSandbox(a.Keys.MAC("sandbox-payments")), nil
}

// SQLitePath is where the embedded database lives.
func SQLitePath(cfg config.Config) string { return filepath.Join(cfg.DataDir, "concierge.db") }

// openLimiter uses Redis when configured, so that every replica counts
// against the same ceilings; otherwise counters live in this process.
func (a *App) openLimiter(ctx context.Context) error {
	if a.Config.RedisURL == "" {
		a.Limiter = ratelimit.NewMemory(func() time.Time { return a.Clock.Now() })
		return nil
	}
	ropts, err := redis.ParseURL(a.Config.RedisURL.Reveal())
	if err != nil {
		return fmt.Errorf("app: REDIS_URL: %w", err)
	}
	a.redis = redis.NewClient(ropts)
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := a.redis.Ping(pctx).Err(); err != nil {
		return fmt.Errorf("app: redis: %w", err)
	}
	a.Limiter = ratelimit.NewRedis(a.redis, "concierge:rl:")
	return nil
}

// Serve runs the HTTP server on ln and the job workers until ctx is done,
// then shuts down gracefully within Config.ShutdownTimeout.
func (a *App) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           a.HTTP,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(a.Log.Handler(), slog.LevelWarn),
	}
	// Every replica makes sure next month's credit grants are queued; the
	// job's unique key keeps replicas from stacking copies.
	if err := a.Billing.EnsureScheduled(ctx); err != nil {
		return fmt.Errorf("app: schedule monthly credit grants: %w", err)
	}
	if err := a.Knowledge.EnsureScheduled(ctx); err != nil {
		return fmt.Errorf("app: schedule auto-recrawl: %w", err)
	}
	if err := a.Leads.EnsureScheduled(ctx); err != nil {
		return fmt.Errorf("app: schedule lead rescoring: %w", err)
	}
	if err := a.Analytics.EnsureScheduled(ctx); err != nil {
		return fmt.Errorf("app: schedule the analytics fold: %w", err)
	}
	if err := a.Queue.EnsurePurgeScheduled(ctx); err != nil {
		return fmt.Errorf("app: schedule the purge of finished jobs: %w", err)
	}
	a.Pool.Start()
	a.Webhooks.Start()
	a.LiveChat.Start(ctx)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errc:
	}
	a.Log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), a.Config.ShutdownTimeout)
	defer cancel()
	a.LiveChat.Hub().CloseAll() // open event streams end; clients reconnect elsewhere
	if err := srv.Shutdown(sctx); err != nil {
		a.Log.Warn("http shutdown", "err", err)
	}
	a.Pool.Stop(sctx)
	a.Webhooks.Stop()
	if errors.Is(serveErr, http.ErrServerClosed) {
		serveErr = nil
	}
	return serveErr
}

// Close releases the database and Redis connections.
func (a *App) Close() error {
	var errs []error
	if a.DB != nil {
		errs = append(errs, a.DB.Close())
	}
	if a.redis != nil {
		errs = append(errs, a.redis.Close())
	}
	return errors.Join(errs...)
}

// dnsResolver sends every lookup to server (host:port) instead of the
// system's resolvers (CONCIERGE_DNS_SERVER).
func dnsResolver(server string) *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, server)
	}}
}
