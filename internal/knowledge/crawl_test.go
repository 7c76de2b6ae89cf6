package knowledge_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"concierge/internal/store"
	"concierge/internal/testkit"
)

// site is a small local website whose pages can change while tests run.
type site struct {
	srv   *httptest.Server
	mu    sync.Mutex
	pages map[string]string // path → body; a missing path is 404
	slow  atomic.Bool
	hits  atomic.Int64
}

func newSite(t *testing.T) *site {
	s := &site{pages: map[string]string{}}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprintf(w, "User-agent: *\nDisallow: /private\nSitemap: %s/sitemap.xml\n", s.srv.URL)
			return
		case "/sitemap.xml":
			s.mu.Lock()
			var b strings.Builder
			b.WriteString(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
			for p := range s.pages {
				fmt.Fprintf(&b, "<url><loc>%s%s</loc></url>", s.srv.URL, p)
			}
			b.WriteString(`</urlset>`)
			s.mu.Unlock()
			w.Header().Set("Content-Type", "application/xml")
			fmt.Fprint(w, b.String())
			return
		}
		if s.slow.Load() && r.URL.Path != "/" {
			select {
			case <-time.After(3 * time.Second):
			case <-r.Context().Done():
				return
			}
		}
		s.mu.Lock()
		body, ok := s.pages[r.URL.Path]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *site) set(path, title, text string, links ...string) {
	var l strings.Builder
	for _, p := range links {
		fmt.Fprintf(&l, `<a href="%s">%s</a> `, p, p)
	}
	s.mu.Lock()
	s.pages[path] = fmt.Sprintf(`<html><head><title>%s</title></head><body><main><h1>%s</h1><p>%s</p>%s</main></body></html>`,
		title, title, text, l.String())
	s.mu.Unlock()
}

func (s *site) remove(path string) {
	s.mu.Lock()
	delete(s.pages, path)
	s.mu.Unlock()
}

type progress struct {
	Status       string  `json:"status"`
	PagesIndexed int     `json:"pages_indexed"`
	PagesFetched int     `json:"pages_fetched"`
	PagesSkipped int     `json:"pages_skipped_robots"`
	Error        *string `json:"error"`
}

func waitCrawl(t *testing.T, a *testkit.TestApp, key string, bot int64, until func(p progress) bool) progress {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var p progress
		a.Do(t, "GET", fmt.Sprintf("/crawl/progress?bot_id=%d", bot), nil, "X-API-Key", key).Decode(t, &p)
		if until(p) {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("crawl progress stuck at %+v", p)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func finished(p progress) bool {
	return p.Status == "completed" || p.Status == "cancelled" || p.Status == "failed"
}

func TestCrawlSite(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		s := newSite(t)
		s.set("/", "Home", "Welcome to the gnocchimatic bakery.", "/menu", "/private/secret", "/contact")
		s.set("/menu", "Menu", "Our sourdough is proofed for fortyeight hours.")
		s.set("/contact", "Contact", "Call us at the lighthouse counter.")
		s.set("/private/secret", "Secret", "The vault code is grapefruitalpha.")
		a := testkit.NewApp(t, e, testkit.WithEnv("CONCIERGE_OUTBOUND_ALLOW", "127.0.0.1/32"))
		key, ws := a.Register(t, "crawl@example.com")
		bot := newBot(t, a, key)

		r := a.Do(t, "POST", "/crawl/discover", map[string]any{"bot_id": bot, "url": s.srv.URL + "/"}, "X-API-Key", key)
		if r.Status != 200 || !strings.Contains(string(r.Body), "/menu") || strings.Contains(string(r.Body), "/private") {
			t.Fatalf("discover: %d %s", r.Status, r.Body)
		}
		if docs := a.Do(t, "GET", fmt.Sprintf("/documents?bot_id=%d", bot), nil, "X-API-Key", key); !strings.Contains(string(docs.Body), `"total":0`) {
			t.Fatalf("discover indexed something: %s", docs.Body)
		}
		r = a.Do(t, "POST", "/crawl", map[string]any{"bot_id": bot, "url": s.srv.URL + "/"}, "X-API-Key", key)
		if r.Status != 202 {
			t.Fatalf("crawl: %d %s", r.Status, r.Body)
		}
		p := waitCrawl(t, a, key, bot, finished)
		if p.Status != "completed" || p.PagesIndexed != 3 {
			t.Fatalf("crawl ended %+v", p)
		}
		if got := search(t, a, ws, bot, "sourdough proofed"); !strings.Contains(got, "fortyeight") {
			t.Errorf("crawled page not retrievable: %q", got)
		}
		if got := search(t, a, ws, bot, "vault code grapefruitalpha"); strings.Contains(got, "grapefruitalpha") {
			t.Errorf("a robots-disallowed page was indexed: %q", got)
		}
		// A crawled page is deleted by its URL, escaped into one path segment.
		var docs struct {
			Items []struct {
				Name string `json:"document_name"`
			} `json:"items"`
		}
		a.Do(t, "GET", fmt.Sprintf("/documents?bot_id=%d", bot), nil, "X-API-Key", key).Decode(t, &docs)
		var contact string
		for _, d := range docs.Items {
			if strings.HasSuffix(d.Name, "/contact") {
				contact = d.Name
			}
		}
		if r := a.Do(t, "DELETE", fmt.Sprintf("/documents/%s?bot_id=%d", url.PathEscape(contact), bot), nil, "X-API-Key", key); r.Status != 200 {
			t.Fatalf("delete %q: %d %s", contact, r.Status, r.Body)
		}
		if got := search(t, a, ws, bot, "lighthouse counter"); strings.Contains(got, "lighthouse") {
			t.Errorf("deleted page still retrievable: %q", got)
		}
		// A second crawl of the same site replaces pages by URL: nothing is duplicated.
		a.Do(t, "POST", "/crawl", map[string]any{"bot_id": bot, "url": s.srv.URL + "/"}, "X-API-Key", key)
		waitCrawl(t, a, key, bot, finished)
		if docs := a.Do(t, "GET", fmt.Sprintf("/documents?bot_id=%d", bot), nil, "X-API-Key", key); !strings.Contains(string(docs.Body), `"total":3`) {
			t.Errorf("after a second crawl: %s", docs.Body)
		}
	})
}

func TestCrawlCancel(t *testing.T) {
	testkit.ForEachEngine(t, testCrawlCancel)
}

func testCrawlCancel(t *testing.T, e testkit.Engine) {
	s := newSite(t)
	var links []string
	for i := 0; i < 20; i++ {
		p := fmt.Sprintf("/p%d", i)
		links = append(links, p)
		s.set(p, "Page", fmt.Sprintf("Page number %d of the slow site.", i))
	}
	s.set("/", "Home", "Home of the slow site.", links...)
	a := testkit.NewApp(t, e, testkit.WithEnv("CONCIERGE_OUTBOUND_ALLOW", "127.0.0.1/32"))
	key, _ := a.Register(t, "cancel@example.com")
	bot := newBot(t, a, key)
	s.slow.Store(true)
	a.Do(t, "POST", "/crawl", map[string]any{"bot_id": bot, "url": s.srv.URL + "/"}, "X-API-Key", key)
	waitCrawl(t, a, key, bot, func(p progress) bool { return p.Status == "running" && p.PagesIndexed >= 1 })
	if r := a.Do(t, "POST", "/crawl", map[string]any{"bot_id": bot, "url": s.srv.URL + "/"}, "X-API-Key", key); r.Status != 409 {
		t.Errorf("a second crawl while one runs: %d", r.Status)
	}
	t0 := time.Now()
	if r := a.Do(t, "POST", "/crawl/cancel", map[string]any{"bot_id": bot}, "X-API-Key", key); r.Status != 200 {
		t.Fatalf("cancel: %d %s", r.Status, r.Body)
	}
	p := waitCrawl(t, a, key, bot, finished)
	if p.Status != "cancelled" || time.Since(t0) > 10*time.Second {
		t.Fatalf("after cancel: %+v in %v", p, time.Since(t0))
	}
	docs := a.Do(t, "GET", fmt.Sprintf("/documents?bot_id=%d", bot), nil, "X-API-Key", key)
	if strings.Contains(string(docs.Body), `"total":0`) {
		t.Errorf("pages indexed before the cancel were dropped: %s", docs.Body)
	}
	if r := a.Do(t, "POST", "/crawl/cancel", map[string]any{"bot_id": bot}, "X-API-Key", key); r.Status != 409 {
		t.Errorf("cancel with nothing running: %d", r.Status)
	}
}

// TestCrawlRefusesPrivateTargets: without the allowlist, loopback and other
// private targets are refused before anything is fetched.
func TestCrawlRefusesPrivateTargets(t *testing.T) {
	s := newSite(t)
	s.set("/", "Home", "x")
	a := testkit.NewApp(t, testkit.SQLite)
	key, _ := a.Register(t, "ssrf@example.com")
	bot := newBot(t, a, key)
	for _, target := range []string{s.srv.URL + "/", "http://localhost/", "http://127.1/", "http://2130706433/",
		"http://[::1]/", "http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/", "file:///etc/passwd",
		"gopher://example.com/", "http://user:pass@example.com/", "http://example.com:6379/"} {
		for _, path := range []string{"/crawl/discover", "/crawl"} {
			r := a.Do(t, "POST", path, map[string]any{"bot_id": bot, "url": target}, "X-API-Key", key)
			if r.Status != 422 {
				t.Errorf("%s %s: %d %s", path, target, r.Status, r.Body)
			}
		}
	}
	if n := s.hits.Load(); n != 0 {
		t.Errorf("the local site received %d requests", n)
	}
}

func TestAutoRecrawl(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		s := newSite(t)
		s.set("/", "Home", "Home page of the pretzelorama shop.", "/a", "/b")
		s.set("/a", "A", "Page A talks about cinnamonvortex rolls.")
		s.set("/b", "B", "Page B talks about the blueberrytide muffin.")
		a := testkit.NewApp(t, e, testkit.WithEnv("CONCIERGE_OUTBOUND_ALLOW", "127.0.0.1/32"))
		key, ws := a.Register(t, "recrawl@example.com")
		// A paid plan: the test moves the clock past the trial's end.
		if err := a.Billing.SetPlan(context.Background(), ws, "standard"); err != nil {
			t.Fatal(err)
		}
		bot := newBot(t, a, key)
		a.Do(t, "POST", "/crawl", map[string]any{"bot_id": bot, "url": s.srv.URL + "/"}, "X-API-Key", key)
		waitCrawl(t, a, key, bot, finished)
		r := a.Do(t, "PATCH", fmt.Sprintf("/bots/%d/recrawl", bot), map[string]any{"enabled": true}, "X-API-Key", key)
		if r.Status != 200 {
			t.Fatalf("enable recrawl: %d %s", r.Status, r.Body)
		}
		interval := time.Duration(r.JSON(t)["interval_hours"].(float64)) * time.Hour

		s.set("/a", "A", "Page A now talks about the marzipanquake tart.")
		s.remove("/b")
		s.set("/c", "C", "Page C is new and mentions the licoriceflux.")
		s.set("/", "Home", "Home page of the pretzelorama shop.", "/a", "/b", "/c")

		runRecrawl := func() {
			t.Helper()
			var mark int64
			_ = store.Get(context.Background(), a.DB.Reader(), &mark, `SELECT COALESCE(MAX(id), 0) FROM crawls WHERE bot_id = ?`, bot)
			a.Clock.Advance(interval + 10*time.Minute)
			deadline := time.Now().Add(60 * time.Second)
			for {
				var done int
				_ = store.Get(context.Background(), a.DB.Reader(), &done, `SELECT COUNT(*) FROM crawls WHERE bot_id = ?
					AND kind = 'recrawl' AND status IN ('completed', 'failed', 'cancelled') AND id > ?`, bot, mark)
				if done > 0 {
					return
				}
				if time.Now().After(deadline) {
					var rows []struct {
						Kind   string    `db:"kind"`
						Status string    `db:"status"`
						RunAt  time.Time `db:"run_at"`
						Err    *string   `db:"last_error"`
					}
					_ = store.Select(context.Background(), a.DB.Reader(), &rows, `SELECT kind, status, run_at, last_error FROM jobs ORDER BY id`)
					t.Logf("now %v jobs %+v", a.Clock.Now(), rows)
					t.Fatal("no recrawl ran")
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
		runRecrawl()
		if got := search(t, a, ws, bot, "marzipanquake tart"); !strings.Contains(got, "marzipanquake") {
			t.Errorf("changed page not re-indexed: %q", got)
		}
		if got := search(t, a, ws, bot, "cinnamonvortex"); strings.Contains(got, "cinnamonvortex") {
			t.Errorf("old content of a changed page still retrievable: %q", got)
		}
		if got := search(t, a, ws, bot, "licoriceflux"); !strings.Contains(got, "licoriceflux") {
			t.Errorf("new page not added: %q", got)
		}
		if got := search(t, a, ws, bot, "blueberrytide"); !strings.Contains(got, "blueberrytide") {
			t.Errorf("a page gone once was removed already (should survive one 404): %q", got)
		}
		st := a.Do(t, "GET", fmt.Sprintf("/bots/%d/recrawl", bot), nil, "X-API-Key", key)
		if !strings.Contains(string(st.Body), `"pages_changed":2`) || !strings.Contains(string(st.Body), `"pages_added":1`) {
			t.Errorf("last run summary: %s", st.Body)
		}
		runRecrawl()
		if got := search(t, a, ws, bot, "blueberrytide"); strings.Contains(got, "blueberrytide") {
			t.Errorf("a page gone twice is still retrievable: %q", got)
		}
		st = a.Do(t, "GET", fmt.Sprintf("/bots/%d/recrawl", bot), nil, "X-API-Key", key)
		if !strings.Contains(string(st.Body), `"pages_removed":1`) {
			t.Errorf("second run summary: %s", st.Body)
		}
	})
}

// TestCrawledSourcesLinkToTheirSection: a reply's source for a crawled
// page opens at the section it quotes (the page URL with the heading's
// fragment), and two sections of one page are one source.
func TestCrawledSourcesLinkToTheirSection(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		s := newSite(t)
		s.mu.Lock()
		s.pages["/"] = `<html><head><title>Help</title></head><body><main><h1>Help</h1>
<p>Everything about ordering from the gnocchimatic bakery, from the oven to your door.</p>
<h2 id="shipping">Shipping<a class="headerlink" href="#shipping">¶</a></h2>
<p>Parcels of sourdough leave the bakery every morning and reach most cities within two days.</p>
<section id="returns"><h2>Returns</h2>
<p>A loaf that arrives stale is replaced for free; write to the counter within a week of delivery.</p></section>
</main></body></html>`
		s.mu.Unlock()
		a := testkit.NewApp(t, e, testkit.WithEnv("CONCIERGE_OUTBOUND_ALLOW", "127.0.0.1/32"))
		key, _ := a.Register(t, "deeplink@example.com")
		bot := newBot(t, a, key)
		if r := a.Do(t, "POST", "/crawl", map[string]any{"bot_id": bot, "url": s.srv.URL + "/"}, "X-API-Key", key); r.Status != 202 {
			t.Fatalf("crawl: %d %s", r.Status, r.Body)
		}
		if p := waitCrawl(t, a, key, bot, finished); p.Status != "completed" || p.PagesIndexed != 1 {
			t.Fatalf("crawl ended %+v", p)
		}
		var rep struct {
			Reply   string `json:"reply"`
			Sources []struct {
				URL     string `json:"url"`
				Heading string `json:"heading"`
			} `json:"sources"`
		}
		r := a.Do(t, "POST", "/chat", map[string]any{"message": "how long does shipping of sourdough parcels take?"}, "X-API-Key", key)
		if r.Status != 200 {
			t.Fatalf("chat: %d %s", r.Status, r.Body)
		}
		r.Decode(t, &rep)
		if len(rep.Sources) != 1 || rep.Sources[0].URL != s.srv.URL+"/#shipping" || rep.Sources[0].Heading != "Shipping" {
			t.Fatalf("sources %+v (reply %q)", rep.Sources, rep.Reply)
		}
		if strings.Contains(rep.Reply, "¶") {
			t.Fatalf("permalink in the reply: %q", rep.Reply)
		}
	})
}
