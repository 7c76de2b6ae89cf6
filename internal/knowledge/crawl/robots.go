package crawl

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/temoto/robotstxt"
)

// hostState is one origin's robots.txt rules and politeness gate, loaded
// once per crawl by whichever request reaches the host first.
type hostState struct {
	ready chan struct{} // closed once the fields below are set
	rules robotsRules
	err   error // robots.txt could not be fetched (network): nothing is allowed
	sem   chan struct{}
	delay time.Duration
}

type robotsRules struct {
	group    *robotstxt.Group // nil: everything allowed
	none     bool             // everything disallowed
	why      string           // why none
	sitemaps []string
}

func (h *hostState) allowed(u *url.URL) bool {
	if h.rules.none {
		return false
	}
	if h.rules.group == nil {
		return true
	}
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	return h.rules.group.Test(p)
}

// disallowedError explains a refusal the way a customer can act on it.
func (h *hostState) disallowedError(u *url.URL) error {
	if h.err != nil {
		return fmt.Errorf("%s: %w", u.Host, h.err)
	}
	if h.rules.none {
		return fmt.Errorf("%w: %s (%s)", ErrDisallowed, u, h.rules.why)
	}
	return fmt.Errorf("%w: %s", ErrDisallowed, u)
}

// host returns the origin's state, fetching its robots.txt first if this
// is the first URL seen there.
func (s *session) host(ctx context.Context, u *url.URL) (*hostState, error) {
	origin := u.Scheme + "://" + u.Host
	s.mu.Lock()
	hs, ok := s.hosts[origin]
	if !ok {
		if len(s.hosts) >= maxHosts {
			s.mu.Unlock()
			return nil, errTooManyHosts
		}
		hs = &hostState{ready: make(chan struct{})}
		s.hosts[origin] = hs
	}
	s.mu.Unlock()
	if !ok {
		s.loadRobots(hs, origin)
		close(hs.ready)
		return hs, nil
	}
	select {
	case <-hs.ready:
		return hs, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *session) loadRobots(hs *hostState, origin string) {
	hs.rules, hs.err = s.fetchRobots(origin)
	hs.delay = s.opts.DefaultCrawlDelay
	if g := hs.rules.group; g != nil && g.CrawlDelay > 0 {
		hs.delay = min(g.CrawlDelay, MaxCrawlDelay)
	}
	n := s.opts.PerHostConcurrency
	if hs.delay > 0 {
		n = 1
	}
	hs.sem = make(chan struct{}, n)
}

// fetchRobots applies RFC 9309 2.3.1: 2xx is parsed, 4xx means no rules,
// 5xx or an unreachable server means nothing may be crawled. Redirects are
// followed by the caller's client policy, off-site included (robots.txt on
// a CDN is legitimate; the guard still applies).
func (s *session) fetchRobots(origin string) (robotsRules, error) {
	ctx, cancel := context.WithTimeout(s.ctx, s.opts.RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, origin+"/robots.txt", nil)
	if err != nil {
		return robotsRules{none: true, why: "invalid robots.txt URL"}, err
	}
	s.setHeaders(req)
	req.Header.Set("Accept", "text/plain,*/*;q=0.1")
	resp, err := s.opts.Client.Do(req)
	if err != nil {
		return robotsRules{none: true, why: "robots.txt unreachable"},
			fmt.Errorf("robots.txt unreachable: %w", s.requestError(s.ctx, ctx, err))
	}
	defer resp.Body.Close()
	switch code := resp.StatusCode; {
	case code >= 500:
		return robotsRules{none: true, why: fmt.Sprintf("robots.txt answered HTTP %d", code)}, nil
	case code >= 400:
		return robotsRules{}, nil
	case code >= 300 || code < 200:
		// A redirect the policy would not follow: RFC 9309 lets a crawler
		// treat it as unavailable, i.e. no rules.
		return robotsRules{}, nil
	}
	body, err := s.opts.ReadBody(resp, maxRobotsBytes)
	if err != nil {
		return robotsRules{none: true, why: "robots.txt unreadable"},
			fmt.Errorf("robots.txt unreadable: %w", s.requestError(s.ctx, ctx, err))
	}
	data := parseRobots(body)
	if data == nil {
		return robotsRules{none: true, why: "robots.txt unparseable"}, nil
	}
	return robotsRules{group: data.FindGroup(s.token), sitemaps: data.Sitemaps}, nil
}

// parseRobots is lenient the way RFC 9309 asks ("use the parseable
// rules"): the library rejects a whole file for one bad line, so on error
// the lines that fail on their own (or are group rules before any
// User-agent) are dropped and the rest parsed again.
func parseRobots(body []byte) *robotstxt.RobotsData {
	if d, err := robotstxt.FromBytes(body); err == nil {
		return d
	}
	var kept []string
	inGroup := false
	for _, line := range strings.Split(string(body), "\n") {
		field, _, _ := strings.Cut(strings.TrimSpace(line), ":")
		switch strings.ToLower(strings.TrimSpace(field)) {
		case "user-agent", "useragent":
			inGroup = true
		case "allow", "disallow", "crawl-delay", "crawldelay":
			if !inGroup {
				continue
			}
		}
		if _, err := robotstxt.FromString("User-agent: *\n" + line); err != nil {
			continue
		}
		kept = append(kept, line)
	}
	d, err := robotstxt.FromString(strings.Join(kept, "\n"))
	if err != nil {
		return nil
	}
	return d
}
