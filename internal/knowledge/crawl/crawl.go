// Package crawl owns the crawling logic of the knowledge base: which URLs of
// a customer's site are fetched, in what order, how politely, and under
// which key each page is indexed. It fetches through the *http.Client it is
// given (in production the SSRF-guarded safehttp client) and never builds
// its own client, transport or dialer; it never touches the database — the
// knowledge service turns the pages it delivers into documents, progress
// rows and credits.
//
// Every request carries a deadline (Options.RequestTimeout) covering the
// body, every body is read through a decoded-size cap, robots.txt (RFC
// 9309) is honoured for every URL, and every count that a hostile site
// could inflate (pages, requests, hosts, sitemap entries, links per page,
// redirects) is bounded.
package crawl

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Options configure a crawl. Zero values mean the documented default.
type Options struct {
	// Client performs every request; required. Production passes the
	// SSRF-guarded client. Its redirect policy still applies: the crawler
	// only adds its own (stay on the site, respect robots.txt, detect loops).
	Client *http.Client
	// ReadBody reads a response body decoded (Content-Encoding) and capped
	// at max decoded bytes, returning an error beyond it. Default: a bounded
	// reader that decodes gzip (see ErrTooLarge). Production passes
	// safehttp.ReadBody.
	ReadBody func(resp *http.Response, max int64) ([]byte, error)
	// UserAgent is sent as the User-Agent header; its product token (up to
	// the first "/" or space, e.g. "ConciergeBot" of "ConciergeBot/1.0") is
	// what robots.txt groups are matched against. Default "ConciergeBot".
	UserAgent string
	// MaxPages is how many pages the handler may accept (the plan's
	// crawl_pages); default 100. Requests are bounded separately at
	// 2×MaxPages+20 so that a site of broken links cannot run forever.
	MaxPages int
	// MaxBytesPerPage caps a decoded body; default 5 MiB.
	MaxBytesPerPage int64
	// MaxSitemapURLs caps the page URLs taken from sitemaps; default 50,000.
	MaxSitemapURLs int
	// PerHostConcurrency bounds simultaneous requests to one host; default 2.
	// A Crawl-delay forces it to 1.
	PerHostConcurrency int
	// RequestTimeout bounds one request including its body; default 15s.
	RequestTimeout time.Duration
	// DefaultCrawlDelay is the pause before each request to a host whose
	// robots.txt sets no Crawl-delay; default 0. A Crawl-delay from
	// robots.txt wins, capped at MaxCrawlDelay.
	DefaultCrawlDelay time.Duration
	// Sleep waits for d or until ctx is done; injectable for tests.
	Sleep func(ctx context.Context, d time.Duration) error
}

// MaxCrawlDelay caps a robots.txt Crawl-delay: a site asking for a minute
// between requests would otherwise hold a crawl of 100 pages for hours.
const MaxCrawlDelay = 10 * time.Second

// Internal bounds against hostile sites; not options because no plan
// should need to change them.
const (
	maxRedirects       = 10
	maxHosts           = 50              // distinct scheme://host:port per crawl
	maxKnownURLs       = 200_000         // frontier plus visited keys
	maxLinksPerPage    = 5_000           // links taken from one page
	maxSitemapDocs     = 50              // sitemap files fetched per crawl
	maxSitemapDepth    = 3               // index → index → sitemap
	sitemapBudget      = 3 * time.Minute // whole sitemap phase: stalling sitemaps must not hold the crawl
	maxSitemapBytes    = 16 << 20        // a sitemap file as served (maybe gzip)
	maxSitemapDecoded  = 64 << 20        // a gzip sitemap once decoded
	maxRobotsBytes     = 512 << 10       // RFC 9309 asks for at least 500 KiB
	defaultUserAgent   = "ConciergeBot"
	defaultMaxPages    = 100
	defaultMaxBytes    = 5 << 20
	defaultSitemapURLs = 50_000
	defaultPerHost     = 2
	defaultTimeout     = 15 * time.Second
)

// Page is one fetched, indexable page.
type Page struct {
	URL          string // Normalize of the final URL, or of its same-site rel=canonical: the document key
	FinalURL     string // the URL actually answered, after redirects (link to this one)
	Status       int
	ContentType  string // as served (with charset), or guessed from the extension or content when missing
	Body         []byte // decoded, at most MaxBytesPerPage
	ETag         string
	LastModified string
	Title        string // <title> of HTML pages, whitespace collapsed
}

// Progress are the running counts of a crawl. Once the frontier is
// exhausted, Found = Fetched + Failed + SkippedRobots + SkippedOther.
type Progress struct {
	Found         int    // distinct same-site URLs queued (sitemaps, links)
	Fetched       int    // pages the handler accepted
	Failed        int    // fetch errors, error statuses, oversize bodies, handler errors
	SkippedRobots int    // disallowed by robots.txt (also when reached through a redirect)
	SkippedOther  int    // duplicates, off-site redirects, non-indexable content types
	CurrentURL    string // the URL most recently started
}

// Handler receives the crawl's output.
type Handler interface {
	// Page is called for every successfully fetched indexable page, one
	// call at a time (never two concurrently; fetching continues meanwhile).
	// Returning an error marks the page failed and the crawl goes on,
	// unless errors.Is(err, ErrStop): then the page counts failed and the
	// crawl ends. ctx is cancelled when the crawl is cancelled or stopped.
	Page(ctx context.Context, p *Page) error
	// Progress is called whenever counts change: one call at a time, never
	// an older snapshot after a newer one, possibly while a Page call runs.
	// It runs on a worker, not under the crawler's lock, but the workers
	// queue behind it, so it should be cheap (the caller throttles writes).
	// The last call carries the final counts (also in Summary).
	Progress(p Progress)
}

// ErrStop is returned (possibly wrapped) by a Handler to end the crawl
// early, e.g. when credits ran out.
var ErrStop = errors.New("crawl: stop requested")

// ErrDisallowed reports a URL that robots.txt forbids (including every URL
// of a host whose robots.txt answered 5xx).
var ErrDisallowed = errors.New("disallowed by robots.txt")

// ErrOffSite reports a redirect that leaves the site being crawled.
var ErrOffSite = errors.New("redirect leaves the site")

// ErrNotIndexable reports a response whose content type cannot be indexed.
var ErrNotIndexable = errors.New("content type not indexable")

// StatusError is an HTTP status other than success. It never carries the
// response body: error text reaches customers.
type StatusError struct {
	URL  string
	Code int
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%s answered HTTP %d %s", e.URL, e.Code, http.StatusText(e.Code))
}

// Summary is how a crawl ended.
type Summary struct {
	Progress
	Cancelled bool   // ctx was cancelled before the crawl finished
	Reason    string // why it ended, for people
}

// Why a crawl ended (Summary.Reason).
const (
	ReasonDone        = "no more pages to crawl"
	ReasonMaxPages    = "page limit reached"
	ReasonMaxRequests = "request limit reached"
	ReasonCancelled   = "cancelled"
	ReasonStopped     = "stopped by handler"
)

// Crawl fetches root's site breadth-first and hands each indexable page to
// h: first root, then URLs from sitemaps (robots.txt Sitemap: lines and
// /sitemap.xml; indexes and .xml.gz followed, bounded), then links found in
// pages. Only the same registrable domain is crawled (www.example.com and
// docs.example.com are one site, example.org is not), http and https only,
// robots.txt respected for every URL, until MaxPages pages were accepted,
// 2×MaxPages+20 requests were made, or the frontier is empty.
//
// Each page is indexed once: URLs are compared by Normalize, a redirect's
// final URL and a same-site rel=canonical are what a page is indexed under,
// and a body identical to one already delivered is skipped.
//
// Cancelling ctx aborts in-flight requests; Crawl returns once every worker
// has stopped, with Summary.Cancelled set and no further Handler calls.
//
// The error is nil unless nothing was delivered and the root itself could
// not be fetched: then it says why (the client's error wrapped, so errors.Is
// sees DNS and SSRF-guard errors; *StatusError; ErrDisallowed; ErrOffSite;
// ErrNotIndexable; ErrTooLarge) and never contains a response body. The
// summary is returned with it. An invalid root or Options are an error too.
func Crawl(ctx context.Context, root string, opts Options, h Handler) (*Summary, error) {
	if h == nil {
		return nil, errors.New("crawl: nil handler")
	}
	s, rootURL, err := newSession(ctx, root, opts)
	if err != nil {
		return nil, err
	}
	c := newCrawler(ctx, s, h)
	defer c.cancel()
	if err := c.seed(rootURL); err != nil {
		return c.summary(), err
	}
	c.run()
	sum := c.summary()
	if c.delivered == 0 && c.rootErr != nil && !sum.Cancelled {
		return sum, c.rootErr
	}
	return sum, nil
}
