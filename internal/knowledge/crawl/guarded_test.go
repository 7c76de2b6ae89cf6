package crawl

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"concierge/internal/safehttp"
)

// tableResolver answers from a map; unknown names do not exist.
type tableResolver map[string]string

func (r tableResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	ip, ok := r[strings.TrimSuffix(host, ".")]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return []net.IPAddr{{IP: net.ParseIP(ip)}}, nil
}

// guardedClient is the production client (safehttp) with loopback
// allowlisted, names resolved from a table and every permitted dial sent to
// the test listener; it records the addresses it was asked to dial.
func guardedClient(ts *testServer) (*http.Client, func() []string) {
	var mu sync.Mutex
	var dials []string
	addr := ts.srv.Listener.Addr().String()
	c := safehttp.New(safehttp.Options{
		Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		Resolver: tableResolver{
			"www.example.test":      "127.0.0.1",
			"docs.example.test":     "127.0.0.1",
			"internal.example.test": "10.0.0.1",
		},
		Dial: func(ctx context.Context, network, a string) (net.Conn, error) {
			mu.Lock()
			dials = append(dials, a)
			mu.Unlock()
			var d net.Dialer
			return d.DialContext(ctx, network, addr)
		},
	})
	return c.HTTP(), func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), dials...)
	}
}

// TestCrawlThroughGuard runs the crawler on the SSRF-guarded client: a
// same-site name resolving to a private address is refused by the guard
// (never dialled), directly or through a redirect, and the crawl goes on.
func TestCrawlThroughGuard(t *testing.T) {
	ts := newTestServer(t, map[string]http.Handler{"www.example.test": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			serveHTML(htmlPage("Home", "http://internal.example.test/admin", "/to-internal", "/to-metadata", "/bomb", "/ok"))(w, r)
		case "/to-internal":
			http.Redirect(w, r, "http://internal.example.test/secret", http.StatusFound)
		case "/to-metadata":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		case "/bomb":
			serveBomb(w, r)
		case "/ok":
			serveHTML(htmlPage("OK"))(w, r)
		default:
			http.NotFound(w, r)
		}
	})})
	client, dials := guardedClient(ts)
	rec := &recorder{}
	sum, err := Crawl(context.Background(), www, Options{Client: client, ReadBody: safehttp.ReadBody, Sleep: noSleep}, rec)
	if err != nil {
		t.Fatal(err)
	}
	// /admin and /to-internal fail at the guard, /bomb on the decoded cap;
	// /to-metadata leaves the site and is not followed at all.
	if sum.Fetched != 2 || sum.Failed != 3 || sum.SkippedOther != 1 {
		t.Errorf("summary %+v; want 2 fetched, 3 failed, 1 skipped", sum)
	}
	for _, d := range dials() {
		if !strings.HasPrefix(d, "127.0.0.1:") {
			t.Errorf("dialled %s", d)
		}
	}

	_, err = Crawl(context.Background(), "http://internal.example.test/", Options{Client: client, ReadBody: safehttp.ReadBody}, &recorder{})
	if !errors.Is(err, safehttp.ErrBlocked) {
		t.Errorf("root on a private address: err = %v; want safehttp.ErrBlocked", err)
	}
	_, err = Crawl(context.Background(), www+"/bomb", Options{Client: client, ReadBody: safehttp.ReadBody}, &recorder{})
	if !errors.Is(err, safehttp.ErrTooLarge) {
		t.Errorf("bomb root: err = %v; want safehttp.ErrTooLarge", err)
	}
}
