package crawl

import (
	"context"
	"errors"
	"net/http"
)

// RecheckResult is the outcome of a conditional fetch. Exactly one of
// Page, NotModified and Gone is set.
type RecheckResult struct {
	Page        *Page // changed (or the server ignores validators): index this
	NotModified bool  // 304: keep what is indexed
	Gone        bool  // 404 or 410, after redirects
	Status      int
}

// Recheck fetches one URL conditionally (If-None-Match, If-Modified-Since)
// for auto-recrawl. It fetches the host's robots.txt first and honours it
// (an error wrapping ErrDisallowed), including its Crawl-delay, which it
// waits before the page request: sequential Recheck calls on one site are
// therefore paced as a crawl would be. Redirects follow Crawl's rules (an
// off-site one is an ErrOffSite error); Page.URL is the final URL's key or
// its same-site canonical, which may differ from rawURL. Other statuses
// and network failures are errors: transient, the indexed copy should stay.
func Recheck(ctx context.Context, rawURL, etag, lastModified string, opts Options) (*RecheckResult, error) {
	s, u, err := newSession(ctx, rawURL, opts)
	if err != nil {
		return nil, err
	}
	hs, err := s.host(ctx, u)
	if err != nil {
		return nil, err
	}
	if !hs.allowed(u) {
		return nil, hs.disallowedError(u)
	}
	hdr := http.Header{}
	if etag != "" {
		hdr.Set("If-None-Match", etag)
	}
	if lastModified != "" {
		hdr.Set("If-Modified-Since", lastModified)
	}
	r, err := s.fetch(ctx, hs, u, hdr, false)
	if err != nil {
		var se *StatusError
		if errors.As(err, &se) && (se.Code == http.StatusNotFound || se.Code == http.StatusGone) {
			return &RecheckResult{Gone: true, Status: se.Code}, nil
		}
		return nil, err
	}
	if r.status == http.StatusNotModified {
		return &RecheckResult{NotModified: true, Status: r.status}, nil
	}
	p, _, _ := s.page(r)
	return &RecheckResult{Page: p, Status: r.status}, nil
}
