package idp_test

// The full web flow in a real Chromium against the fake provider. Like the
// browser tests in web/, it needs Debian's chromium (or CHROMIUM_PATH) and
// skips without it, except under CI=true, where a missing browser fails.

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"concierge/internal/testkit"
)

func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM_PATH"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium not found: the browser tests need Debian's chromium in CI")
	}
	t.Skip("chromium not found (apt-get install chromium, or set CHROMIUM_PATH)")
	return ""
}

func TestWebFlowInChromium(t *testing.T) {
	path := chromium(t)
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		f := testkit.NewFakeOIDC(t)
		f.SetUser(map[string]any{"sub": "browser-user", "email": "browser@example.com", "email_verified": true, "name": "Browser"})
		frontendSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte(`<!doctype html><title>Signed in</title><p id="done">signed in</p>`))
		}))
		t.Cleanup(frontendSrv.Close)
		// The callback URL must be registered before the app has an
		// address: a proxy in front of it is that address.
		var target atomic.Pointer[httputil.ReverseProxy]
		api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if p := target.Load(); p != nil {
				p.ServeHTTP(w, r)
				return
			}
			http.Error(w, "not ready", http.StatusServiceUnavailable)
		}))
		t.Cleanup(api.Close)
		a := testkit.NewApp(t, e, testkit.WithEnv(
			"CONCIERGE_IDP_ISSUER", f.URL, "CONCIERGE_IDP_CLIENT_ID", f.ClientID, "CONCIERGE_IDP_CLIENT_SECRET", f.ClientSecret,
			"CONCIERGE_IDP_REDIRECT_URL", api.URL+"/auth/idp/callback", "CONCIERGE_FRONTEND_URL", frontendSrv.URL+"/signed-in"))
		f.Now = a.Clock.Now
		appURL, _ := url.Parse(a.URL)
		target.Store(httputil.NewSingleHostReverseProxy(appURL))

		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
			chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
			chromedp.NoDefaultBrowserCheck, chromedp.Flag("disable-quic", true),
			chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true), chromedp.Flag("disable-extensions", true),
			chromedp.Flag("disable-dev-shm-usage", true), chromedp.UserDataDir(t.TempDir()))
		ctx, cancel := chromedp.NewContext(alloc)
		t.Cleanup(func() { cancel(); cancelAlloc() })
		started := make(chan error, 1)
		go func() { started <- chromedp.Do(ctx) }()
		select {
		case err := <-started:
			if err != nil {
				t.Fatalf("start chromium: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("chromium did not start within 30s")
		}

		run, stop := context.WithTimeout(ctx, 30*time.Second)
		defer stop()
		// login → provider (approves at once) → callback → frontend.
		if err := chromedp.Do(run, chromedp.Navigate(api.URL+"/auth/idp/login?next=%2Fbots%3Ftab%3Dall&mode=register")); err != nil {
			t.Fatalf("navigate: %v", err)
		}
		if _, err := chromedp.Run(run, chromedp.Poll[bool](`location.pathname === "/signed-in" && location.hash.length > 1`,
			chromedp.WithPollingTimeout(20*time.Second), chromedp.WithPollingInterval(25*time.Millisecond))); err != nil {
			loc, _ := chromedp.Run(context.WithoutCancel(ctx), chromedp.Location())
			t.Fatalf("browser did not land on the frontend: %v (at %s)", err, loc)
		}
		loc, err := chromedp.Run(run, chromedp.Location())
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(loc, frontendSrv.URL+"/signed-in#") {
			t.Fatalf("landed on %s", loc)
		}
		u, _ := url.Parse(loc)
		frag, err := url.ParseQuery(u.EscapedFragment())
		if err != nil {
			t.Fatal(err)
		}
		key := frag.Get("api_key")
		if frag.Get("created") != "true" || frag.Get("next") != "/bots?tab=all" {
			t.Fatalf("fragment: %v", frag)
		}
		r := a.Do(t, "GET", "/auth/me", nil, "X-API-Key", key)
		if r.Status != 200 || r.JSON(t)["email"] != "browser@example.com" {
			t.Fatalf("the key from the browser: %d %s", r.Status, r.Body)
		}
		if _, _, tokens := f.Counts(); tokens != 1 {
			t.Fatalf("token endpoint called %d times", tokens)
		}
	})
}
