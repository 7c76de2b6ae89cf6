package emailcheck

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"concierge/internal/clock"
)

// Verdicts. Valid is false exactly for the unambiguous junk: invalid_syntax,
// reserved_domain, spamtrap, disposable, no_mail_server and undeliverable.
const (
	// VerdictValid: the address passed every check that ran.
	VerdictValid = "valid"
	// VerdictInvalidSyntax: not an address we accept (see the package
	// documentation for the rules). Suggestion may hold a repaired address.
	VerdictInvalidSyntax = "invalid_syntax"
	// VerdictReservedDomain: a domain reserved for documentation, testing
	// or private use (example.com, *.test, *.local, ...).
	VerdictReservedDomain = "reserved_domain"
	// VerdictSpamtrap: a mailbox that is never a lead (abuse@,
	// postmaster@, noreply@, ...).
	VerdictSpamtrap = "spamtrap"
	// VerdictDisposable: a throwaway-mail domain.
	VerdictDisposable = "disposable"
	// VerdictNoMailServer: DNS says the domain cannot receive mail
	// (NXDOMAIN, or a null MX).
	VerdictNoMailServer = "no_mail_server"
	// VerdictUndeliverable: the verification provider reports that the
	// mailbox does not exist.
	VerdictUndeliverable = "undeliverable"
	// VerdictCatchAll: the domain accepts any mailbox, so this one cannot
	// be confirmed. Valid.
	VerdictCatchAll = "catch_all"
	// VerdictUnknown: a check could not reach a conclusion (DNS or
	// provider failure, timeout, provider uncertain). Valid: fail open.
	VerdictUnknown = "unknown"
)

// Result is the outcome of one Check.
type Result struct {
	// Valid is false only for unambiguous junk; see the Verdict constants.
	Valid bool
	// Verdict is one of the Verdict constants.
	Verdict string
	// Reason explains the verdict in a short English phrase; empty for
	// VerdictValid.
	Reason string
	// Normalized is the address with its domain in lower-case ASCII; empty
	// when the syntax is invalid.
	Normalized string
	// Suggestion is a probably intended address ("bob@gmail.com" for
	// "bob@gmial.com"), or empty. It never affects Valid.
	Suggestion string
}

// Config configures a Checker. The zero value works: system DNS, no
// verification provider, the defaults below.
type Config struct {
	// Resolver answers the mail-server lookups; nil means the system
	// resolver (net.DefaultResolver). Tests must inject one: no test may
	// touch the network.
	Resolver Resolver
	// Provider, if set, is asked about addresses that pass the local
	// checks. nil: no external verification (fail open).
	Provider Provider

	// LookupTimeout bounds each DNS query. Default 3s.
	LookupTimeout time.Duration
	// ProviderTimeout bounds a provider call. Default 5s: the widget waits
	// for the answer while the visitor looks at the form.
	ProviderTimeout time.Duration

	// CacheSize is how many domains' mail-server answers are remembered.
	// Default 10000; a negative value disables the cache.
	CacheSize int
	// PositiveTTL is how long "has a mail server" is remembered. Default 1h.
	PositiveTTL time.Duration
	// NegativeTTL is how long "has no mail server" is remembered; shorter,
	// because a domain being set up gains its MX within minutes. Default 5m.
	NegativeTTL time.Duration

	// ExtraDisposable adds operator-maintained disposable domains to the
	// shipped list (same matching: the domain and its subdomains).
	ExtraDisposable []string
	// AllowDomains exempts domains (and their subdomains) from the
	// disposable list, for false positives in the shipped list until the
	// next release fixes them. It does not exempt them from the other
	// checks.
	AllowDomains []string

	// Clock drives cache expiry. Default clock.Real.
	Clock clock.Clock
	// Logger receives fail-open events (DNS and provider failures), with
	// the domain but never the full address. Default: discarded.
	Logger *slog.Logger
}

// Defaults for the zero Config.
const (
	DefaultLookupTimeout   = 3 * time.Second
	DefaultProviderTimeout = 5 * time.Second
	DefaultCacheSize       = 10000
	DefaultPositiveTTL     = time.Hour
	DefaultNegativeTTL     = 5 * time.Minute
)

// Checker validates lead e-mail addresses. It is safe for concurrent use;
// build one per process so the domain cache is shared.
type Checker struct {
	resolver        Resolver
	provider        Provider
	lookupTimeout   time.Duration
	providerTimeout time.Duration
	positiveTTL     time.Duration
	negativeTTL     time.Duration
	extra           map[string]struct{}
	allow           map[string]struct{}
	clock           clock.Clock
	log             *slog.Logger
	cache           *domainCache

	mu       sync.Mutex
	inflight map[string]*flight
}

// New builds a Checker. It fails only on a malformed ExtraDisposable or
// AllowDomains entry, so a typo in operator configuration is noticed at
// start-up instead of silently matching nothing.
func New(cfg Config) (*Checker, error) {
	extra, err := normalizeDomains(cfg.ExtraDisposable)
	if err != nil {
		return nil, fmt.Errorf("emailcheck: extra disposable domains: %w", err)
	}
	allow, err := normalizeDomains(cfg.AllowDomains)
	if err != nil {
		return nil, fmt.Errorf("emailcheck: allowed domains: %w", err)
	}
	c := &Checker{
		resolver:        cfg.Resolver,
		provider:        cfg.Provider,
		lookupTimeout:   orDefault(cfg.LookupTimeout, DefaultLookupTimeout),
		providerTimeout: orDefault(cfg.ProviderTimeout, DefaultProviderTimeout),
		positiveTTL:     orDefault(cfg.PositiveTTL, DefaultPositiveTTL),
		negativeTTL:     orDefault(cfg.NegativeTTL, DefaultNegativeTTL),
		extra:           toSet(extra),
		allow:           toSet(allow),
		clock:           cfg.Clock,
		log:             cfg.Logger,
		inflight:        make(map[string]*flight),
	}
	if c.resolver == nil {
		c.resolver = net.DefaultResolver
	}
	if c.clock == nil {
		c.clock = clock.Real{}
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	size := cfg.CacheSize
	if size == 0 {
		size = DefaultCacheSize
	}
	c.cache = newDomainCache(size)
	return c, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Check validates one address. The checks run cheapest first and stop at
// the first unambiguous failure: syntax, reserved domain, spamtrap mailbox,
// disposable domain, mail server (DNS), then the verification provider. It
// never returns an error: every failure to reach a conclusion is a Valid
// result with VerdictUnknown and a reason.
func (c *Checker) Check(ctx context.Context, address string) Result {
	a, err := parseAddress(address)
	if err != nil {
		r := Result{Verdict: VerdictInvalidSyntax, Reason: err.Error()}
		if fixed, ok := repair(address); ok {
			r.Suggestion = suggestion(fixed)
		}
		return r
	}
	res := Result{Normalized: a.String()}
	if s := suggestion(a); s != res.Normalized {
		res.Suggestion = s
	}
	junk := func(verdict, reason string) Result {
		res.Verdict, res.Reason = verdict, reason
		return res
	}
	if isReserved(a.domain) {
		return junk(VerdictReservedDomain, "the domain is reserved and cannot receive mail")
	}
	if reason, ok := spamtrapLocal(a.local); ok {
		return junk(VerdictSpamtrap, reason)
	}
	if c.isDisposable(a.domain) {
		return junk(VerdictDisposable, "the domain belongs to a disposable e-mail service")
	}
	mx := c.mailServer(ctx, a.domain)
	if mx.status == mxNone {
		return junk(VerdictNoMailServer, mx.reason)
	}

	res.Valid = true
	if c.provider == nil {
		if mx.status == mxUnknown {
			res.Verdict, res.Reason = VerdictUnknown, mx.reason
		} else {
			res.Verdict = VerdictValid
		}
		return res
	}
	if ctx.Err() != nil {
		// Nobody is waiting for the answer: do not pay for a provider call.
		res.Verdict, res.Reason = VerdictUnknown, "the check was cancelled"
		return res
	}
	pr, err := c.verify(ctx, res.Normalized)
	switch {
	case err != nil:
		c.log.WarnContext(ctx, "emailcheck: verification provider failed; failing open",
			"domain", a.domain, "err", err)
		res.Verdict, res.Reason = VerdictUnknown, "the verification service is unavailable"
	case pr.Verdict == ProviderUndeliverable:
		res.Valid = false
		res.Verdict, res.Reason = VerdictUndeliverable, providerReason(pr.Reason, "the mailbox does not exist")
	case pr.Verdict == ProviderCatchAll:
		res.Verdict, res.Reason = VerdictCatchAll, "the domain accepts mail for any mailbox, so this one cannot be confirmed"
	case pr.Verdict == ProviderDeliverable:
		res.Verdict = VerdictValid
	default:
		res.Verdict, res.Reason = VerdictUnknown, "the verification service could not confirm the mailbox"
	}
	return res
}

func (c *Checker) isDisposable(domain string) bool {
	if matchSuffix(c.allow, domain) {
		return false
	}
	return matchSuffix(builtinDisposable, domain) || matchSuffix(c.extra, domain)
}

// verify calls the provider with its own deadline and also stops waiting at
// that deadline if the provider ignores its context, so a misbehaving
// provider can delay the widget by ProviderTimeout at most.
func (c *Checker) verify(ctx context.Context, addr string) (ProviderResult, error) {
	ctx, cancel := context.WithTimeout(ctx, c.providerTimeout)
	defer cancel()
	type answer struct {
		r   ProviderResult
		err error
	}
	ch := make(chan answer, 1) // buffered: a late answer must not block the goroutine
	go func() {
		r, err := c.provider.Verify(ctx, addr)
		ch <- answer{r, err}
	}()
	select {
	case a := <-ch:
		return a.r, a.err
	case <-ctx.Done():
		return ProviderResult{}, fmt.Errorf("verification provider: %w", ctx.Err())
	}
}

// maxReasonLen bounds a provider-supplied reason passed on to the widget.
const maxReasonLen = 200

func providerReason(s, fallback string) string {
	s = strings.TrimSpace(strings.Map(func(r rune) rune {
		if !unicode.IsPrint(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "")))
	if s == "" {
		return fallback
	}
	if len(s) > maxReasonLen {
		cut := maxReasonLen
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	return s
}

// suggestion returns the address with a popular provider substituted for a
// probable typo of it, or the address unchanged.
func suggestion(a address) string {
	if d := suggestDomain(a.domain); d != "" {
		a.domain = d
	}
	return a.String()
}
