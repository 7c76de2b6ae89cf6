package emailcheck

import (
	"container/list"
	"context"
	"errors"
	"net"
	"sync"
	"time"
)

// Resolver is the DNS the mail-server check needs. *net.Resolver satisfies
// it; tests inject a fake. Names are passed fully qualified (with a trailing
// dot) so that the system resolver never appends a search domain: an
// NXDOMAIN for gmial.com must not turn into an answer for
// gmial.com.corp.example.
type Resolver interface {
	LookupMX(ctx context.Context, name string) ([]*net.MX, error)
	LookupHost(ctx context.Context, name string) ([]string, error)
}

var _ Resolver = (*net.Resolver)(nil)

// mxStatus is what DNS says about a domain's ability to receive mail.
type mxStatus int

const (
	mxUnknown mxStatus = iota // no definitive answer: fail open, never cached
	mxOK                      // an MX host, or an address as implicit MX
	mxNone                    // NXDOMAIN, or a null MX (RFC 7505)
)

type mxOutcome struct {
	status mxStatus
	reason string
}

// lookupMail asks DNS whether domain can receive mail. Only NXDOMAIN (on
// both the MX and the address lookup) and a null MX count as "no mail
// server"; timeouts, SERVFAIL, malformed answers and anything else are
// mxUnknown, because a transient DNS problem must not cost a lead. Each
// lookup gets its own timeout so one slow query cannot use up the other's
// time.
func lookupMail(ctx context.Context, r Resolver, domain string, timeout time.Duration) mxOutcome {
	fqdn := domain + "."
	mctx, cancel := context.WithTimeout(ctx, timeout)
	mxs, err := r.LookupMX(mctx, fqdn)
	cancel()
	// net.Resolver.LookupMX returns the well-formed records together with
	// an error when some were malformed; usable records win.
	usable, null := 0, 0
	for _, mx := range mxs {
		switch {
		case mx == nil:
		case mx.Host == "." || mx.Host == "":
			null++
		default:
			usable++
		}
	}
	switch {
	case usable > 0:
		return mxOutcome{mxOK, ""}
	case null > 0 && err == nil:
		// RFC 7505: a single MX with the root as exchange declares that
		// the domain accepts no mail at all.
		return mxOutcome{mxNone, "the domain declares that it accepts no mail (null MX)"}
	case err != nil && !isNotFound(err):
		return mxOutcome{mxUnknown, "the mail server lookup failed: " + dnsErrorKind(err)}
	}
	// No MX records (NODATA or NXDOMAIN: the resolver reports both as not
	// found). RFC 5321 5.1: without MX, the domain's address is the
	// implicit mail server.
	hctx, cancel := context.WithTimeout(ctx, timeout)
	addrs, err := r.LookupHost(hctx, fqdn)
	cancel()
	switch {
	case err == nil && len(addrs) > 0:
		return mxOutcome{mxOK, ""}
	case isNotFound(err):
		return mxOutcome{mxNone, "the domain has no mail server"}
	case err == nil:
		// An empty answer without an error is not something the system
		// resolver produces; not unambiguous, so not a verdict.
		return mxOutcome{mxUnknown, "the mail server lookup returned nothing"}
	default:
		return mxOutcome{mxUnknown, "the mail server lookup failed: " + dnsErrorKind(err)}
	}
}

func isNotFound(err error) bool {
	var de *net.DNSError
	return errors.As(err, &de) && de.IsNotFound
}

// dnsErrorKind names a lookup failure without echoing resolver addresses
// into a Reason a visitor may see.
func dnsErrorKind(err error) string {
	var de *net.DNSError
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &de) && de.IsTimeout:
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.As(err, &de) && de.IsTemporary:
		return "temporary DNS failure"
	default:
		return "DNS error"
	}
}

// domainCache remembers definitive mail-server answers per domain so a burst
// of sign-ups from one company costs one lookup. It is a bounded LRU; each
// entry carries its own expiry because negative answers live shorter than
// positive ones (a domain that just got its MX should not be refused for
// long).
type domainCache struct {
	mu      sync.Mutex
	max     int
	order   *list.List // front = most recently used; values are *cacheEntry
	entries map[string]*list.Element
}

type cacheEntry struct {
	domain  string
	out     mxOutcome
	expires time.Time
}

func newDomainCache(max int) *domainCache {
	return &domainCache{max: max, order: list.New(), entries: make(map[string]*list.Element)}
}

func (c *domainCache) get(domain string, now time.Time) (mxOutcome, bool) {
	if c.max <= 0 {
		return mxOutcome{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[domain]
	if !ok {
		return mxOutcome{}, false
	}
	e := el.Value.(*cacheEntry)
	if !now.Before(e.expires) {
		c.order.Remove(el)
		delete(c.entries, domain)
		return mxOutcome{}, false
	}
	c.order.MoveToFront(el)
	return e.out, true
}

func (c *domainCache) put(domain string, out mxOutcome, expires time.Time) {
	if c.max <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[domain]; ok {
		e := el.Value.(*cacheEntry)
		e.out, e.expires = out, expires
		c.order.MoveToFront(el)
		return
	}
	c.entries[domain] = c.order.PushFront(&cacheEntry{domain: domain, out: out, expires: expires})
	for c.order.Len() > c.max {
		el := c.order.Back()
		c.order.Remove(el)
		delete(c.entries, el.Value.(*cacheEntry).domain)
	}
}

func (c *domainCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// flight is one lookup in progress; concurrent checks of the same domain
// wait for it instead of starting their own.
type flight struct {
	done chan struct{}
	out  mxOutcome // written before done is closed
}

// mailServer answers from the cache, joins a lookup already in flight for the
// domain, or starts one. The lookup runs detached from the caller's
// cancellation (bounded by the per-lookup timeouts instead) so that one
// visitor closing the page does not fail the check for everyone waiting on
// the same domain; each caller still stops waiting when its own context ends.
func (c *Checker) mailServer(ctx context.Context, domain string) mxOutcome {
	if out, ok := c.cache.get(domain, c.clock.Now()); ok {
		return out
	}
	c.mu.Lock()
	f, ok := c.inflight[domain]
	if !ok {
		f = &flight{done: make(chan struct{})}
		c.inflight[domain] = f
		go c.resolve(context.WithoutCancel(ctx), domain, f)
	}
	c.mu.Unlock()
	select {
	case <-f.done:
		return f.out
	case <-ctx.Done():
		return mxOutcome{mxUnknown, "the mail server lookup was cancelled"}
	}
}

func (c *Checker) resolve(ctx context.Context, domain string, f *flight) {
	out := lookupMail(ctx, c.resolver, domain, c.lookupTimeout)
	now := c.clock.Now()
	switch out.status {
	case mxOK:
		c.cache.put(domain, out, now.Add(c.positiveTTL))
	case mxNone:
		c.cache.put(domain, out, now.Add(c.negativeTTL))
	default:
		c.log.WarnContext(ctx, "emailcheck: mail server lookup failed; failing open",
			"domain", domain, "reason", out.reason)
	}
	// The cache is filled before the flight is removed, so a check arriving
	// in between finds one or the other and never starts a second lookup.
	c.mu.Lock()
	delete(c.inflight, domain)
	c.mu.Unlock()
	f.out = out
	close(f.done)
}
