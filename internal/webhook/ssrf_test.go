package webhook_test

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

// G12 for webhooks: the guarded client gets a fake resolver and a
// recording dialer. The "public" receivers are routed to a local server;
// any other dial is recorded and refused. Across create, PATCH,
// test and every retry, no blocked address may be dialed.
const (
	publicIP = "93.184.216.34"
	// redirector is another public address, allowlisted for plain http
	// so that redirects can be tested without TLS.
	redirector = "93.184.216.35"
)

func routed(addr string) bool {
	return addr == publicIP+":80" || addr == publicIP+":443" || strings.HasPrefix(addr, redirector+":")
}

type dialer struct {
	mu     sync.Mutex
	seen   []string
	target string
}

func (d *dialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.seen = append(d.seen, addr)
	d.mu.Unlock()
	if routed(addr) {
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
		if !routed(a) {
			out = append(out, a)
		}
	}
	return out
}

var targets = []string{
	"http://127.0.0.1/", "http://127.1/", "http://0.0.0.0/", "http://2130706433/", "http://0x7f000001/",
	"http://0177.0.0.1/", "http://localhost/", "http://[::1]/", "http://[::ffff:127.0.0.1]/", "http://[::ffff:7f00:1]/",
	"http://169.254.169.254/latest/meta-data/", "http://metadata.google.internal/", "http://[fd00:ec2::254]/",
	"http://10.0.0.1/", "http://172.16.0.1/", "http://192.168.1.1/", "http://100.64.0.1/", "http://198.18.0.1/",
	"http://224.0.0.1/", "http://240.0.0.1/", "http://[2002:7f00:1::]/", "http://[64:ff9b::7f00:1]/",
	"http://private.hooks.test/", "http://metadata.hooks.test/", "http://rebound.hooks.test/",
	"file:///etc/passwd", "gopher://www.hooks.test/", "ftp://www.hooks.test/", "data:text/html,hi", "javascript:alert(1)",
	"http://www.hooks.test:22/", "http://www.hooks.test:25/", "http://www.hooks.test:6379/", "http://www.hooks.test:8080/",
	"http://user:pass@www.hooks.test/", "http://public@127.0.0.1/",
	"http://" + redirector + "/redirect-loopback", "http://" + redirector + "/redirect-metadata",
	"http://" + redirector + "/redirect-private-name", "http://" + redirector + "/redirect-v6", "http://" + redirector + "/redirect-chain/0",
}

func TestNoConnectionToBlockedTargetsG12(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		var mu sync.Mutex
		hits := map[string]int{}
		site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			hits[r.URL.Path]++
			mu.Unlock()
			switch {
			case r.URL.Path == "/redirect-loopback":
				http.Redirect(w, r, "http://127.0.0.1:6379/", http.StatusFound)
			case r.URL.Path == "/redirect-metadata":
				http.Redirect(w, r, "http://169.254.169.254/latest/", http.StatusMovedPermanently)
			case r.URL.Path == "/redirect-private-name":
				http.Redirect(w, r, "http://private.hooks.test/admin", http.StatusTemporaryRedirect)
			case r.URL.Path == "/redirect-v6":
				http.Redirect(w, r, "http://[::1]/", http.StatusPermanentRedirect)
			case strings.HasPrefix(r.URL.Path, "/redirect-chain/"):
				var n int
				fmt.Sscanf(r.URL.Path, "/redirect-chain/%d", &n)
				http.Redirect(w, r, fmt.Sprintf("/redirect-chain/%d", n+1), http.StatusFound)
			default:
				w.WriteHeader(200)
			}
		}))
		defer site.Close()
		res := testkit.NewHosts("www.hooks.test", publicIP, "private.hooks.test", "10.0.0.7",
			"metadata.hooks.test", "169.254.169.254", "rebound.hooks.test", "127.0.0.1")
		d := &dialer{target: site.Listener.Addr().String()}
		a := testkit.NewApp(t, e, manual(), testkit.WithEnv("CONCIERGE_OUTBOUND_ALLOW", redirector+"/32"),
			testkit.WithOptions(func(o *app.Options) {
				o.Outbound = safehttp.Options{Resolver: res, Dial: d.dial}
				o.Webhooks.Timeout = 5 * time.Second
			}))
		w := &world{a: a, ownerEmail: "ssrf@example.com"}
		w.key, w.ws = a.Register(t, w.ownerEmail)
		if err := a.Billing.SetPlan(context.Background(), w.ws, "pro"); err != nil {
			t.Fatal(err)
		}
		auth := []string{"X-API-Key", w.key}
		created := 0
		var forms []string
		for _, tg := range targets {
			forms = append(forms, tg)
			if strings.HasPrefix(tg, "http://") {
				forms = append(forms, "https://"+strings.TrimPrefix(tg, "http://"))
			}
		}
		var ids []string
		for i, tg := range forms {
			if i%20 == 0 { // the plan's limit per bot
				w.bot = w.createBot(t, w.key, fmt.Sprintf("bot %d", i))
			}
			r := a.Do(t, "POST", "/webhooks", map[string]any{"bot_id": w.bot, "url": tg, "events": []string{"lead.captured"}}, auth...)
			switch r.Status {
			case 422:
			case 201:
				created++
				ids = append(ids, r.JSON(t)["webhook_id"].(string))
			default:
				t.Fatalf("create %s: %d %s", tg, r.Status, r.Body)
			}
		}
		// PATCH a valid endpoint to each form.
		w.bot = w.createBot(t, w.key, "patched")
		ep := w.createEndpoint(t, w.bot, "http://"+redirector+"/ok", "lead.captured")
		for _, tg := range forms {
			r := a.Do(t, "PATCH", "/webhooks/"+ep.ID, map[string]any{"url": tg}, auth...)
			if r.Status == 200 {
				ids = append(ids, ep.ID)
				tr := a.Do(t, "POST", "/webhooks/"+ep.ID+"/test", nil, auth...)
				if tr.Status != 200 {
					t.Fatalf("test after PATCH to %s: %d %s", tg, tr.Status, tr.Body)
				}
			} else if r.Status != 422 {
				t.Fatalf("patch %s: %d %s", tg, r.Status, r.Body)
			}
		}
		if created == 0 {
			t.Fatal("no target form passed validation: the dial-time checks went untested")
		}
		// Test every endpoint that was accepted, then let the retries run
		// after the public name is rebound to a private address.
		for _, id := range ids {
			if r := a.Do(t, "POST", "/webhooks/"+id+"/test", nil, auth...); r.Status != 200 {
				t.Fatalf("test %s: %d %s", id, r.Status, r.Body)
			}
		}
		good := w.createEndpoint(t, w.bot, "https://www.hooks.test/in", "lead.captured")
		res.Set("www.hooks.test", "10.0.0.9")
		if r := a.Do(t, "POST", "/webhooks/"+good.ID+"/test", nil, auth...); r.Status != 200 ||
			!strings.Contains(string(r.Body), "blocked address") {
			t.Fatalf("test after rebinding: %d %s", r.Status, r.Body)
		}
		w.runUntil(t, a.Clock.Now().Add(3*time.Hour))
		if bad := d.blocked(); len(bad) > 0 {
			t.Fatalf("the dialer was asked for blocked addresses: %v", bad)
		}
		mu.Lock()
		defer mu.Unlock()
		for p, n := range hits {
			if strings.HasPrefix(p, "/redirect-chain/") && p != "/redirect-chain/0" {
				t.Fatalf("a redirect was followed to %s (%d)", p, n)
			}
		}
		t.Logf("%d target forms, %d accepted at create (then checked at every dial)", len(forms), created)
	})
}
