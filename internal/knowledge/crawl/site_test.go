package crawl

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// testServer is one loopback listener serving many "sites", routed by
// Host; the test client dials every name to it, so names such as
// www.example.test exercise the same-site rules without any DNS.
type testServer struct {
	srv   *httptest.Server
	hosts map[string]http.Handler

	mu   sync.Mutex
	hits map[string]int // host + request URI
}

func newTestServer(t testing.TB, hosts map[string]http.Handler) *testServer {
	t.Helper()
	ts := &testServer{hosts: hosts, hits: map[string]int{}}
	ts.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		ts.mu.Lock()
		ts.hits[host+r.URL.RequestURI()]++
		ts.mu.Unlock()
		h, ok := ts.hosts[host]
		if !ok {
			http.NotFound(w, r)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.srv.Close)
	return ts
}

// client dials every host name to the test listener.
func (ts *testServer) client() *http.Client {
	addr := ts.srv.Listener.Addr().String()
	return &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, addr)
		},
		MaxIdleConnsPerHost: 64,
	}}
}

func (ts *testServer) hitsFor(hostPath string) int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.hits[hostPath]
}

// hitsOn counts requests to a host, robots.txt excluded unless asked.
func (ts *testServer) hitsOn(host string, withRobots bool) int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	n := 0
	for k, v := range ts.hits {
		h, p, _ := strings.Cut(k, "/")
		if h == host && (withRobots || p != "robots.txt") {
			n += v
		}
	}
	return n
}

// htmlPage renders a page with a title and links.
func htmlPage(title string, links ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!doctype html><html><head><title>%s</title></head><body><h1>%s</h1>\n", title, title)
	for _, l := range links {
		fmt.Fprintf(&b, "<a href=\"%s\">link</a>\n", l)
	}
	b.WriteString("</body></html>")
	return b.String()
}

func serveHTML(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}
}

func serveText(ct, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ct)
		fmt.Fprint(w, body)
	}
}

// recorder is a Handler that keeps what it is given and checks that Page
// calls never overlap.
type recorder struct {
	onPage func(ctx context.Context, p *Page) error

	mu       sync.Mutex
	pages    []*Page
	last     Progress
	calls    int
	inPage   bool
	overlaps int
}

func (r *recorder) Page(ctx context.Context, p *Page) error {
	r.mu.Lock()
	if r.inPage {
		r.overlaps++
	}
	r.inPage = true
	r.mu.Unlock()
	var err error
	if r.onPage != nil {
		err = r.onPage(ctx, p)
	}
	r.mu.Lock()
	r.inPage = false
	r.pages = append(r.pages, p)
	r.mu.Unlock()
	return err
}

func (r *recorder) Progress(p Progress) {
	r.mu.Lock()
	r.last = p
	r.calls++
	r.mu.Unlock()
}

// urls returns the delivered Page.URLs, sorted.
func (r *recorder) urls() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.pages))
	for i, p := range r.pages {
		out[i] = p.URL
	}
	sort.Strings(out)
	return out
}

func (r *recorder) page(url string) *Page {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range r.pages {
		if p.URL == url {
			return p
		}
	}
	return nil
}

// sleeps records the delays the crawler asks for without waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// noSleep keeps tests fast when delays are not under test.
func noSleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }
