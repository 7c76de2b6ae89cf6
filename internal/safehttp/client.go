package safehttp

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"syscall"
	"time"

	"code.dny.dev/ssrf"
)

// Resolver is the subset of *net.Resolver the guard needs; tests inject a
// fake so no DNS query ever leaves the machine.
type Resolver interface {
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// DialFunc is the raw dialer used after the checks. It is only ever called
// with a literal, already-checked "IP:port".
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// Options configures a Client. The zero value is the production policy.
type Options struct {
	// Allow lists prefixes reachable despite the block rules, on any port
	// (CONCIERGE_OUTBOUND_ALLOW; tests use 127.0.0.1/32).
	Allow []netip.Prefix
	// Resolver resolves names at dial time; default net.DefaultResolver.
	Resolver Resolver
	// Dial is the raw dialer used AFTER the checks, with a literal IP:port.
	// Default: a net.Dialer with a 10s timeout whose Control hook re-checks
	// the socket address. Tests inject a recording dialer.
	Dial DialFunc
	// Timeout bounds the whole request including reading the body
	// (http.Client.Timeout); default 15s.
	Timeout time.Duration
	// MaxRedirects: 0 means the default 5, negative means redirects are
	// not followed (the 3xx response is returned to the caller).
	MaxRedirects int
	// UserAgent is sent on every request, redirects included, so robots.txt
	// rules and site operators always see the same identity.
	UserAgent string
	// MaxIdleConns and MaxIdleConnsPerHost size the keep-alive pool;
	// 0 means 64 and 4. The webhook sender keeps more per host, so that
	// concurrent deliveries to one endpoint reuse their connections.
	MaxIdleConns        int
	MaxIdleConnsPerHost int
}

// Defaults; see Options.
const (
	DefaultTimeout      = 15 * time.Second
	DefaultMaxRedirects = 5
	DefaultUserAgent    = "ConciergeBot/1.0 (+https://concierge.example/bot)"

	dialTimeout           = 10 * time.Second
	tlsHandshakeTimeout   = 10 * time.Second
	responseHeaderTimeout = 15 * time.Second
)

// Client is the guarded outbound HTTP client. It is safe for concurrent use;
// build one per policy (allowlist, user agent) and share it.
type Client struct {
	allow        []netip.Prefix
	resolver     Resolver
	dial         DialFunc
	userAgent    string
	maxRedirects int
	guardian     *ssrf.Guardian
	transport    *http.Transport
	client       *http.Client
}

// New builds a Client from opts, filling defaults.
func New(opts Options) *Client {
	c := &Client{
		allow:        append([]netip.Prefix(nil), opts.Allow...),
		resolver:     opts.Resolver,
		dial:         opts.Dial,
		userAgent:    opts.UserAgent,
		maxRedirects: opts.MaxRedirects,
	}
	if c.resolver == nil {
		c.resolver = net.DefaultResolver
	}
	if c.dial == nil {
		c.guardian = newGuardian(c.allow)
		d := &net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second, Control: c.control}
		c.dial = d.DialContext
	}
	if c.userAgent == "" {
		c.userAgent = DefaultUserAgent
	}
	if c.maxRedirects == 0 {
		c.maxRedirects = DefaultMaxRedirects
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	c.transport = &http.Transport{
		// Never an environment proxy: the dial-time check would then vet
		// the proxy's address instead of the destination's.
		Proxy:       nil,
		DialContext: c.dialContext,
		// TLS runs on top of our DialContext with ServerName taken from
		// the URL host by net/http, so certificates are verified against
		// the name the customer gave, not the IP we dialed.
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    tlsHandshakeTimeout,
		ResponseHeaderTimeout:  responseHeaderTimeout,
		ExpectContinueTimeout:  1 * time.Second,
		IdleConnTimeout:        30 * time.Second,
		MaxIdleConns:           orDefault(opts.MaxIdleConns, 64),
		MaxIdleConnsPerHost:    orDefault(opts.MaxIdleConnsPerHost, 4),
		MaxResponseHeaderBytes: 64 << 10,
		// ReadBody decodes gzip/deflate itself with a cap on the decoded
		// size; Go's transparent decompression has no such cap.
		DisableCompression: true,
		ForceAttemptHTTP2:  true,
	}
	c.client = &http.Client{
		Transport:     &guardedTransport{c: c},
		CheckRedirect: c.checkRedirect,
		Timeout:       timeout,
	}
	return c
}

func orDefault(n, def int) int {
	if n > 0 {
		return n
	}
	return def
}

// HTTP returns the guarded *http.Client. Each call returns a fresh copy
// sharing the guarded Transport (and its connection pool), so a caller that
// adjusts Timeout or Jar on its copy does not affect others. Replacing the
// Transport or CheckRedirect on it removes the guard: don't.
func (c *Client) HTTP() *http.Client {
	cp := *c.client
	return &cp
}

// Do runs CheckURL on req.URL (failing fast with a clear error, before any
// resolution), sends the normalised request with the guarded client, and
// returns its response. The caller must close resp.Body, ideally through
// ReadBody.
func (c *Client) Do(req *http.Request) (*http.Response, error) {
	u, err := checkParsed(req.URL, c.allow)
	if err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, err
	}
	r := req.WithContext(req.Context()) // shallow copy: never modify the caller's request
	if req.Host == "" || req.Host == req.URL.Host {
		r.Host = u.Host
	}
	r.URL = u
	return c.client.Do(r)
}

// CloseIdleConnections closes pooled connections (tests; shutdown).
func (c *Client) CloseIdleConnections() { c.transport.CloseIdleConnections() }

// guardedTransport re-validates every request URL, so callers of HTTP() that
// skip CheckURL, and every redirect hop, get the same URL checks, and sets
// the User-Agent.
type guardedTransport struct{ c *Client }

func (g *guardedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if _, err := checkParsed(req.URL, g.c.allow); err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, err
	}
	r := req.Clone(req.Context()) // a RoundTripper must not modify its request
	r.Header.Set("User-Agent", g.c.userAgent)
	return g.c.transport.RoundTrip(r)
}

func (g *guardedTransport) CloseIdleConnections() { g.c.transport.CloseIdleConnections() }

// checkRedirect bounds the chain and refuses downgrades. The target URL
// itself is checked by guardedTransport and at dial time like any request.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if c.maxRedirects < 0 {
		return http.ErrUseLastResponse
	}
	if len(via) > c.maxRedirects {
		return fmt.Errorf("%w: stopped after %d", ErrTooManyRedirects, c.maxRedirects)
	}
	if req.URL.Scheme != "https" {
		for _, v := range via {
			if v.URL.Scheme == "https" {
				// Once a chain was on TLS, a plain-text hop would expose
				// the request (and anything a later hop returns) to the
				// network; refuse it like a blocked destination.
				return fmt.Errorf("%w: redirect from https to %s://%s (downgrade)", ErrBlocked, req.URL.Scheme, req.URL.Host)
			}
		}
	}
	if _, err := checkParsed(req.URL, c.allow); err != nil {
		return fmt.Errorf("redirect refused: %w", err)
	}
	return nil
}

// dialContext is the Transport's dialer: resolve once, check every address
// and the port, then dial only the checked literal addresses.
func (c *Client) dialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	switch network {
	case "tcp", "tcp4", "tcp6":
	default:
		return nil, fmt.Errorf("%w: network %q", ErrBlocked, network)
	}
	hs, ps, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%w: dial address %q: %v", ErrInvalidURL, addr, err)
	}
	p, err := strconv.ParseUint(ps, 10, 16)
	if err != nil || p == 0 {
		return nil, fmt.Errorf("%w: dial port %q", ErrInvalidURL, ps)
	}
	port := uint16(p)
	h, err := parseHost(hs)
	if err != nil {
		return nil, err
	}
	if err := checkHost(h, port, c.allow); err != nil {
		return nil, err
	}

	ips := []netip.Addr{h.ip}
	if !h.ip.IsValid() {
		if ips, err = c.resolve(ctx, h.name); err != nil {
			return nil, err
		}
	}
	// Every address must pass: a name that resolves to a mix of public and
	// internal addresses is hostile, and skipping the bad ones would still
	// let it steer which address we use.
	for _, ip := range ips {
		if err := c.permit(h, ip, port); err != nil {
			return nil, err
		}
	}

	var firstErr error
	for _, ip := range ips {
		if (network == "tcp4" && !ip.Is4()) || (network == "tcp6" && ip.Is4()) {
			continue
		}
		// Dial the literal: the raw dialer has nothing left to resolve, so
		// the address checked above is the one connected to.
		conn, err := c.dial(ctx, "tcp", netip.AddrPortFrom(ip, port).String())
		if err == nil {
			return conn, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	if firstErr == nil {
		firstErr = fmt.Errorf("safehttp: no %s address for %s", network, h)
	}
	return nil, firstErr
}

// resolve looks name up once and returns its addresses, unmapped and
// de-duplicated, in resolver order.
func (c *Client) resolve(ctx context.Context, name string) ([]netip.Addr, error) {
	ias, err := c.resolver.LookupIPAddr(ctx, name)
	if err != nil {
		return nil, err
	}
	var out []netip.Addr
	seen := make(map[netip.Addr]bool, len(ias))
	for _, ia := range ias {
		a, ok := netip.AddrFromSlice(ia.IP)
		if !ok {
			return nil, fmt.Errorf("%w: %s resolved to a malformed address", ErrBlocked, name)
		}
		a = a.Unmap()
		if ia.Zone != "" && a.Is6() {
			a = a.WithZone(ia.Zone)
		}
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return nil, &net.DNSError{Err: "no addresses", Name: name, IsNotFound: true}
	}
	return out, nil
}

// permit is the address+port policy for one candidate address of h.
func (c *Client) permit(h host, ip netip.Addr, port uint16) error {
	what := ip.String()
	if h.name != "" {
		what = h.name + " resolves to " + what + ", which"
	}
	if why := blockReason(ip, c.allow); why != "" {
		return fmt.Errorf("%w: %s is %s", ErrBlocked, what, why)
	}
	if !portAllowed(ip, port, c.allow) {
		return fmt.Errorf("%w: port %d on %s (only 80 and 443 outside the allowlist)", ErrBlocked, port, ip)
	}
	return nil
}

// control is the default raw dialer's net.Dialer.Control hook: the last
// check, on the exact socket address the kernel is about to connect to. It
// applies our policy and then, as an independent second opinion,
// code.dny.dev/ssrf's Guardian (DEPENDENCIES.md: "the dialer's Control").
func (c *Client) control(network, address string, rc syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: unparsable socket address %q", ErrBlocked, address)
	}
	if err := c.permit(host{ip: ap.Addr()}, ap.Addr(), ap.Port()); err != nil {
		return err
	}
	if c.guardian != nil {
		if err := c.guardian.Safe(network, address, rc); err != nil {
			return fmt.Errorf("%w: %v", ErrBlocked, err)
		}
	}
	return nil
}

// newGuardian configures the ssrf Guardian to agree with IsBlocked where
// IsBlocked is more permissive on purpose: allowlisted prefixes (any port),
// and the NAT64 well-known prefix, whose embedded IPv4 permit has already
// checked. Ports are left to permit, since the Guardian cannot express "any
// port, but only inside the allowlist".
func newGuardian(allow []netip.Prefix) *ssrf.Guardian {
	var v4, v6 []netip.Prefix
	for _, p := range allow {
		if p.Addr().Is4In6() && p.Bits() >= 96 {
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		if p.Addr().Is4() {
			v4 = append(v4, p)
		} else {
			v6 = append(v6, p)
		}
	}
	v6 = append(v6, ssrf.IPv6NAT64Prefix)
	return ssrf.New(
		ssrf.WithAnyPort(),
		ssrf.WithNetworks("tcp", "tcp4", "tcp6"),
		ssrf.WithAllowedV4Prefixes(v4...),
		ssrf.WithAllowedV6Prefixes(v6...),
	)
}
