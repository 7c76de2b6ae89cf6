package crawl

import (
	"context"
	"fmt"
	"net/url"
	"slices"
)

// Discover lists crawlable pages without crawling: the root page, the
// sitemap URLs and the links of the root page — in the order Crawl would
// take them, robots-allowed, same site, binary links dropped, deduplicated
// by Normalize — then keeps the first opts.MaxPages and returns them sorted
// as Normalize keys. Only the root page and the sitemaps are fetched (plus
// robots.txt of each host met, at most 50). It fails only when nothing was
// found and the root could not be fetched, with the same errors as Crawl.
func Discover(ctx context.Context, root string, opts Options) ([]string, error) {
	s, rootURL, err := newSession(ctx, root, opts)
	if err != nil {
		return nil, err
	}
	hs, err := s.host(ctx, rootURL)
	if err != nil {
		return nil, err
	}
	if hs.err != nil {
		return nil, fmt.Errorf("crawl: %s: %w", rootURL.Host, hs.err)
	}
	seen := map[string]bool{}
	var found []string
	add := func(key string) bool {
		if !seen[key] {
			seen[key] = true
			found = append(found, key)
		}
		return len(found) < s.opts.MaxPages
	}
	// allowed asks the URL's own host: a sitemap may list other subdomains.
	allowed := func(u *url.URL) bool {
		if !s.sameSite(u) || skippable(u) || seen[keyOf(u)] {
			return false
		}
		h, err := s.host(ctx, u)
		return err == nil && h.allowed(u)
	}

	var rootErr error
	var links []*url.URL
	if !hs.allowed(rootURL) {
		rootErr = hs.disallowedError(rootURL)
	} else if r, err := s.fetch(ctx, hs, rootURL, nil, false); err != nil {
		rootErr = err
	} else {
		var p *Page
		p, _, links = s.page(r)
		add(p.URL)
	}
	if len(found) < s.opts.MaxPages {
		s.sitemaps(ctx, rootURL, hs, func(u *url.URL) bool {
			if allowed(u) {
				return add(keyOf(u))
			}
			return true
		})
	}
	for _, u := range links {
		if len(found) >= s.opts.MaxPages {
			break
		}
		if allowed(u) {
			add(keyOf(u))
		}
	}
	if len(found) == 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if rootErr != nil {
			return nil, rootErr
		}
	}
	slices.Sort(found)
	return found, nil
}
