package crawl

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// session is what Crawl, Discover and Recheck share: the options with
// defaults applied, the site being crawled, the redirect-restricted client
// and the per-host robots.txt rules and politeness gates.
type session struct {
	// ctx bounds robots.txt fetches: they serve every later request to the
	// host, so they must not die with the one request that triggered them.
	ctx    context.Context
	opts   Options
	token  string // robots.txt product token
	site   string // registrable domain of the root
	client *http.Client

	mu    sync.Mutex
	hosts map[string]*hostState // by scheme://host:port
}

var errTooManyHosts = fmt.Errorf("more than %d hosts on the site", maxHosts)

var errRedirectLoop = errors.New("redirect loop")

func withDefaults(o Options) Options {
	if o.ReadBody == nil {
		o.ReadBody = readBody
	}
	if strings.TrimSpace(o.UserAgent) == "" {
		o.UserAgent = defaultUserAgent
	}
	if o.MaxPages <= 0 {
		o.MaxPages = defaultMaxPages
	}
	if o.MaxBytesPerPage <= 0 {
		o.MaxBytesPerPage = defaultMaxBytes
	}
	if o.MaxSitemapURLs <= 0 {
		o.MaxSitemapURLs = defaultSitemapURLs
	}
	if o.PerHostConcurrency <= 0 {
		o.PerHostConcurrency = defaultPerHost
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = defaultTimeout
	}
	if o.DefaultCrawlDelay < 0 {
		o.DefaultCrawlDelay = 0
	}
	if o.Sleep == nil {
		o.Sleep = sleep
	}
	return o
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func newSession(ctx context.Context, root string, opts Options) (*session, *url.URL, error) {
	if opts.Client == nil {
		return nil, nil, errors.New("crawl: Options.Client is required")
	}
	u, err := parse(root)
	if err != nil {
		return nil, nil, fmt.Errorf("crawl: %w", err)
	}
	opts = withDefaults(opts)
	token := strings.TrimSpace(opts.UserAgent)
	if i := strings.IndexAny(token, "/ "); i > 0 {
		token = token[:i]
	}
	s := &session{ctx: ctx, opts: opts, token: token, site: siteOf(u.Hostname()), hosts: map[string]*hostState{}}
	// A copy of the caller's client, not a new one: same guarded transport,
	// jar and timeout, with the crawler's redirect rules layered on top of
	// the caller's own (which keep running, e.g. the SSRF re-check per hop).
	restricted := *opts.Client
	restricted.CheckRedirect = s.checkRedirect(opts.Client.CheckRedirect)
	s.client = &restricted
	return s, u, nil
}

func (s *session) sameSite(u *url.URL) bool { return siteOf(u.Hostname()) == s.site }

// redirectNote carries, through the request context, why the redirect
// policy stopped following: the policy can only return the last response.
type redirectNote struct{ err error }

type noteKey struct{}

func (s *session) checkRedirect(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects {
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		for _, v := range via {
			if v.URL.String() == req.URL.String() {
				return errRedirectLoop
			}
		}
		note, _ := req.Context().Value(noteKey{}).(*redirectNote)
		stop := func(err error) error {
			if note != nil {
				note.err = err
			}
			return http.ErrUseLastResponse
		}
		u, err := clean(req.URL)
		if err != nil {
			return fmt.Errorf("redirect: %w", err)
		}
		// Not followed at all, so the other site never sees a request.
		if !s.sameSite(u) {
			return stop(fmt.Errorf("%w: to %s", ErrOffSite, u.Host))
		}
		// The caller's policy vets the hop before robots.txt is fetched
		// from the new host.
		if next != nil {
			if err := next(req, via); err != nil {
				return err
			}
		}
		hs, err := s.host(req.Context(), u)
		if err != nil {
			return stop(err)
		}
		if !hs.allowed(u) {
			return stop(hs.disallowedError(u))
		}
		return nil
	}
}

func (s *session) setHeaders(req *http.Request) {
	req.Header.Set("User-Agent", s.opts.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/markdown,text/plain;q=0.9,"+
		"application/pdf,application/vnd.openxmlformats-officedocument.wordprocessingml.document;q=0.8,*/*;q=0.1")
}

// acquire waits for a request slot on the host and then for its crawl
// delay. With a delay the gate holds one slot, so the delay separates the
// end of one request from the start of the next.
func (s *session) acquire(ctx context.Context, hs *hostState) (func(), error) {
	select {
	case hs.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if hs.delay > 0 {
		if err := s.opts.Sleep(ctx, hs.delay); err != nil {
			<-hs.sem
			return nil, err
		}
	}
	return func() { <-hs.sem }, nil
}

// response is what fetch learnt; returned alongside most errors so callers
// can see the status.
type response struct {
	final  *url.URL
	status int
	header http.Header
	ct     string
	body   []byte
}

// fetch GETs target through the host's gate, following same-site,
// robots-allowed redirects, and reads the body when its type is indexable.
// A 304 is returned without error; other non-2xx statuses as *StatusError,
// unfollowed redirects as ErrOffSite or ErrDisallowed. anyType reads any
// content type up to maxSitemapBytes (sitemaps).
func (s *session) fetch(ctx context.Context, hs *hostState, target *url.URL, extra http.Header, anyType bool) (*response, error) {
	release, err := s.acquire(ctx, hs)
	if err != nil {
		return nil, err
	}
	defer release()
	// The deadline starts after the politeness wait and covers the body.
	rctx, cancel := context.WithTimeout(ctx, s.opts.RequestTimeout)
	defer cancel()
	note := &redirectNote{}
	req, err := http.NewRequestWithContext(context.WithValue(rctx, noteKey{}, note), http.MethodGet, target.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidURL, err)
	}
	s.setHeaders(req)
	for k, v := range extra {
		req.Header[k] = v
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, s.requestError(ctx, rctx, err)
	}
	defer resp.Body.Close()
	r := &response{final: resp.Request.URL, status: resp.StatusCode, header: resp.Header}
	if note.err != nil {
		return r, fmt.Errorf("%s: %w", target, note.err)
	}
	if resp.StatusCode == http.StatusNotModified {
		return r, nil
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 || resp.StatusCode == http.StatusNoContent {
		return r, &StatusError{URL: r.final.String(), Code: resp.StatusCode}
	}
	if anyType {
		body, err := s.opts.ReadBody(resp, maxSitemapBytes)
		if err != nil {
			return r, s.requestError(ctx, rctx, fmt.Errorf("read %s: %w", r.final, err))
		}
		r.body = body
		return r, nil
	}
	ct, ok, sniff := contentType(resp.Header, r.final)
	if !ok && !sniff {
		// Closing without reading: a 100 MiB binary costs one round trip.
		return r, fmt.Errorf("%s: %w: %s", r.final, ErrNotIndexable, ct)
	}
	body, err := s.opts.ReadBody(resp, s.opts.MaxBytesPerPage)
	if err != nil {
		return r, s.requestError(ctx, rctx, fmt.Errorf("read %s: %w", r.final, err))
	}
	if sniff {
		if ct, ok = sniffType(body); !ok {
			return r, fmt.Errorf("%s: %w: %s", r.final, ErrNotIndexable, ct)
		}
	}
	r.ct, r.body = ct, body
	return r, nil
}

// requestError says "timed out" when the request's own deadline fired
// (the client's error only says "context deadline exceeded") and keeps the
// cause wrapped for errors.Is.
func (s *session) requestError(parent, rctx context.Context, err error) error {
	if parent.Err() == nil && errors.Is(rctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("timed out after %s: %w", s.opts.RequestTimeout, err)
	}
	return err
}
