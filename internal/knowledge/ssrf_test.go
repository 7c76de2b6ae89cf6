package knowledge_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"concierge/internal/app"
	"concierge/internal/safehttp"
	"concierge/internal/testkit"
)

// The guarded client is given a fake resolver and a recording dialer: the
// "public" site www.shop.test resolves to a real public address that the
// dialer routes to a local server, every other dial request is recorded and
// refused, so no packet leaves loopback and the test can assert that no
// blocked address was ever dialed, across discover, crawl and recrawl.
const publicIP = "93.184.216.34"

type dialer struct {
	mu     sync.Mutex
	seen   []string
	target string // the local site's listener
}

func (d *dialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.seen = append(d.seen, addr)
	d.mu.Unlock()
	if addr == publicIP+":80" {
		var nd net.Dialer
		return nd.DialContext(ctx, network, d.target)
	}
	return nil, fmt.Errorf("test dialer: %s is not routed", addr)
}

func (d *dialer) blocked() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	for _, a := range d.seen {
		if a != publicIP+":80" {
			out = append(out, a)
		}
	}
	return out
}

// targets are URL forms that must never lead to a connection.
var targets = []string{
	"http://127.0.0.1/", "http://127.1/", "http://0.0.0.0/", "http://2130706433/", "http://0x7f000001/",
	"http://0177.0.0.1/", "http://localhost/", "http://[::1]/", "http://[::ffff:127.0.0.1]/", "http://[::ffff:7f00:1]/",
	"http://169.254.169.254/latest/meta-data/", "http://metadata.google.internal/", "http://[fd00:ec2::254]/",
	"http://10.0.0.1/", "http://172.16.0.1/", "http://192.168.1.1/", "http://100.64.0.1/", "http://198.18.0.1/",
	"http://224.0.0.1/", "http://240.0.0.1/", "http://[2002:7f00:1::]/", "http://[64:ff9b::7f00:1]/",
	"http://private.shop.test/", "http://metadata.shop.test/", "http://rebound.shop.test/",
	"file:///etc/passwd", "gopher://www.shop.test/", "ftp://www.shop.test/", "data:text/html,hi", "javascript:alert(1)",
	"http://www.shop.test:22/", "http://www.shop.test:25/", "http://www.shop.test:6379/", "http://www.shop.test:8080/",
	"http://user:pass@www.shop.test/", "http://public@127.0.0.1/", "http://www.shop.test/redirect-loopback",
	"http://www.shop.test/redirect-metadata", "http://www.shop.test/redirect-private-name", "http://www.shop.test/redirect-v6",
	"http://www.shop.test/redirect-chain/0",
}

func TestNoConnectionToBlockedTargets(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.URL.Path == "/robots.txt":
				fmt.Fprint(w, "User-agent: *\nAllow: /\n")
			case r.URL.Path == "/redirect-loopback":
				http.Redirect(w, r, "http://127.0.0.1:6379/", http.StatusFound)
			case r.URL.Path == "/redirect-metadata":
				http.Redirect(w, r, "http://169.254.169.254/latest/", http.StatusMovedPermanently)
			case r.URL.Path == "/redirect-private-name":
				http.Redirect(w, r, "http://private.shop.test/admin", http.StatusTemporaryRedirect)
			case r.URL.Path == "/redirect-v6":
				http.Redirect(w, r, "http://[::1]/", http.StatusPermanentRedirect)
			case strings.HasPrefix(r.URL.Path, "/redirect-chain/"):
				var n int
				fmt.Sscanf(r.URL.Path, "/redirect-chain/%d", &n)
				http.Redirect(w, r, fmt.Sprintf("/redirect-chain/%d", n+1), http.StatusFound)
			default:
				w.Header().Set("Content-Type", "text/html")
				fmt.Fprint(w, `<html><head><title>Shop</title></head><body><main><h1>Shop</h1>
					<p>The shop sells teapots made of marbled porcelain.</p>
					<a href="/page">page</a> <a href="http://private.shop.test/secret">secret</a>
					<a href="/redirect-loopback">a</a> <a href="/redirect-metadata">b</a>
					<a href="/redirect-private-name">c</a> <a href="/redirect-v6">d</a></main></body></html>`)
			}
		}))
		defer site.Close()
		res := testkit.NewHosts("www.shop.test", publicIP, "private.shop.test", "10.0.0.7",
			"metadata.shop.test", "169.254.169.254", "rebound.shop.test", "127.0.0.1")
		d := &dialer{target: site.Listener.Addr().String()}
		a := testkit.NewApp(t, e, testkit.WithOptions(func(o *app.Options) {
			o.Outbound = safehttp.Options{Resolver: res, Dial: d.dial, Timeout: 5 * time.Second}
		}))
		key, ws := a.Register(t, "ssrf@example.com")
		bot := newBot(t, a, key)

		// Discover and crawl the public site: its links and redirects point at blocked targets.
		r := a.Do(t, "POST", "/crawl/discover", map[string]any{"bot_id": bot, "url": "http://www.shop.test/"}, "X-API-Key", key)
		if r.Status != 200 {
			t.Fatalf("discover the public site: %d %s", r.Status, r.Body)
		}
		a.Do(t, "POST", "/crawl", map[string]any{"bot_id": bot, "url": "http://www.shop.test/"}, "X-API-Key", key)
		p := waitCrawl(t, a, key, bot, finished)
		if p.PagesIndexed < 1 {
			t.Fatalf("the public site was not crawled: %+v", p)
		}
		if got := search(t, a, ws, bot, "marbled porcelain teapots"); !strings.Contains(got, "porcelain") {
			t.Fatalf("crawled page missing: %q", got)
		}
		// Every target form, on both endpoints.
		for _, target := range targets {
			for _, path := range []string{"/crawl/discover", "/crawl"} {
				r := a.Do(t, "POST", path, map[string]any{"bot_id": bot, "url": target}, "X-API-Key", key)
				if r.Status == 202 {
					waitCrawl(t, a, key, bot, finished)
				}
			}
		}
		// Recrawl after the site's name was rebound to a private address.
		if err := a.Billing.SetPlan(context.Background(), ws, "standard"); err != nil {
			t.Fatal(err)
		}
		rr := a.Do(t, "PATCH", fmt.Sprintf("/bots/%d/recrawl", bot), map[string]any{"enabled": true}, "X-API-Key", key)
		interval := time.Duration(rr.JSON(t)["interval_hours"].(float64)) * time.Hour
		res.Set("www.shop.test", "10.0.0.9")
		a.Clock.Advance(interval + 10*time.Minute)
		deadline := time.Now().Add(30 * time.Second)
		for {
			var p struct {
				Kind   string `json:"kind"`
				Status string `json:"status"`
			}
			a.Do(t, "GET", fmt.Sprintf("/crawl/progress?bot_id=%d", bot), nil, "X-API-Key", key).Decode(t, &p)
			if p.Kind == "recrawl" && (p.Status == "completed" || p.Status == "failed") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("recrawl did not finish: %+v", p)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if got := search(t, a, ws, bot, "marbled porcelain teapots"); !strings.Contains(got, "porcelain") {
			t.Errorf("a page that could not be rechecked lost its content: %q", got)
		}
		if bad := d.blocked(); len(bad) > 0 {
			t.Fatalf("the dialer was asked for blocked addresses: %v", bad)
		}
	})
}
