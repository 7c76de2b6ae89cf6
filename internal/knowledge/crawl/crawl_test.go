package crawl

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const giB = 1 << 30

// gzipBomb is a gzip stream that decodes to 1 GiB of zeros: 1,024
// concatenated members of 1 MiB each (gzip readers decode members as one
// stream), about 1 MiB on the wire and cheap to build.
var gzipBomb = sync.OnceValue(func() []byte {
	var member bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	zw.Write(make([]byte, 1<<20))
	zw.Close()
	return bytes.Repeat(member.Bytes(), giB>>20)
})

func serveBomb(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html")
	w.Header().Set("Content-Encoding", "gzip")
	w.Write(gzipBomb())
}

// streamZeros writes up to total bytes in chunks, counting what the
// client accepted, and stops when the client goes away.
func streamZeros(ct string, total int64, written *atomic.Int64) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ct)
		chunk := make([]byte, 64<<10)
		for n := int64(0); n < total; n += int64(len(chunk)) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			written.Add(int64(len(chunk)))
		}
	}
}

func redirect(to string, code int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, to, code) }
}

// waitForClient blocks like a stalled server until the client gives up.
func waitForClient(started chan<- struct{}) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if started != nil {
			select {
			case started <- struct{}{}:
			default:
			}
		}
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	}
}

func gzipBytes(s string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.Bytes()
}

func urlset(locs ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for _, l := range locs {
		fmt.Fprintf(&b, "<url><loc>%s</loc><changefreq>daily</changefreq></url>\n", l)
	}
	b.WriteString("</urlset>")
	return b.String()
}

const www = "http://www.example.test"

func TestCrawlSite(t *testing.T) {
	var hugeWritten, binaryWritten atomic.Int64
	wwwMux := map[string]http.HandlerFunc{
		"/robots.txt": serveText("text/plain", "User-agent: *\nDisallow: /private\nAllow: /private/ok\nCrawl-delay: 1\n\n"+
			"User-agent: otherbot\nDisallow: /\n\nSitemap: "+www+"/sitemap_index.xml\nSitemap: http://other.test/sitemap.xml\n"),
		"/sitemap_index.xml": serveText("application/xml", `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
			<sitemap><loc>`+www+`/sitemap-pages.xml.gz</loc></sitemap>
			<sitemap><loc>`+www+`/sitemap-more.xml</loc></sitemap>
			<sitemap><loc>http://other.test/sitemap-evil.xml</loc></sitemap></sitemapindex>`),
		"/sitemap-pages.xml.gz": serveText("application/x-gzip", string(gzipBytes(urlset(
			www+"/about", www+"/private/secret", www+"/private/ok", www+"/docs/", "http://other.test/page")))),
		"/sitemap-more.xml": serveText("application/xml", urlset(www+"/contact?utm_source=sitemap", www+"/blog", www+"/files/report.zip")),
		"/": serveHTML(htmlPage("Home", "/about#team", "/about/", "contact", "/contact#form", "/contact?utm_source=news&gclid=abc",
			"/products?b=2&a=1", "/products?a=1&b=2&fbclid=z", "/old", "/loop1", "/go-away", "http://other.test/x", "//other.test/y",
			"http://docs.example.test/guide", "/slow", "/huge", "/bomb", "/broken", "/dup", "/download", "/files/app.zip",
			"/img/logo.JPG", "/video.mp4", "mailto:a@example.test", "tel:+123", "javascript:void(0)", "/notes.txt", "/readme.md",
			"/private/secret", "HTTP://WWW.EXAMPLE.TEST:80/about")),
		"/about":      serveHTML(htmlPage("About", "/")),
		"/private/ok": serveHTML(htmlPage("OK")),
		"/docs/":      serveHTML(htmlPage("Docs", "intro")), // relative: must resolve against /docs/
		"/docs/intro": serveHTML(htmlPage("Intro")),
		"/contact":    serveHTML(htmlPage("Contact")),
		"/blog":       serveHTML(htmlPage("Blog", "/about")),
		"/products": func(w http.ResponseWriter, r *http.Request) {
			if r.URL.RawQuery != "a=1&b=2" {
				http.NotFound(w, r)
				return
			}
			serveHTML(htmlPage("Products"))(w, r)
		},
		"/old":       redirect("/new", http.StatusMovedPermanently),
		"/new":       serveHTML(htmlPage("New")),
		"/loop1":     redirect("/loop2", http.StatusFound),
		"/loop2":     redirect("/loop1", http.StatusFound),
		"/go-away":   redirect("http://elsewhere.test/landing", http.StatusFound),
		"/slow":      waitForClient(nil),
		"/huge":      streamZeros("text/html", giB, &hugeWritten),
		"/bomb":      serveBomb,
		"/download":  streamZeros("application/octet-stream", giB, &binaryWritten),
		"/broken":    func(w http.ResponseWriter, r *http.Request) { http.Error(w, "SECRET stack trace", 500) },
		"/dup":       serveHTML(`<html><head><title>Dup</title><link rel="canonical" href="` + www + `/about"></head><body>x</body></html>`),
		"/notes.txt": serveText("text/plain; charset=utf-8", "plain notes"),
		"/readme.md": serveText("text/markdown", "# Readme"),
	}
	ts := newTestServer(t, map[string]http.Handler{
		"www.example.test": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if h, ok := wwwMux[r.URL.Path]; ok {
				h(w, r)
				return
			}
			http.NotFound(w, r)
		}),
		"docs.example.test": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/guide" {
				serveHTML(htmlPage("Guide", www+"/about", "/guide#top"))(w, r)
				return
			}
			http.NotFound(w, r)
		}),
	})
	var sl sleeps
	rec := &recorder{}
	sum, err := Crawl(context.Background(), www+"/", Options{
		Client: ts.client(), UserAgent: "ConciergeBot/1.0", MaxBytesPerPage: 1 << 20,
		RequestTimeout: time.Second, Sleep: sl.sleep,
	}, rec)
	if err != nil {
		t.Fatalf("Crawl: %v", err)
	}

	want := []string{
		"http://docs.example.test/guide",
		www + "/", www + "/about", www + "/blog", www + "/contact", www + "/docs", www + "/docs/intro", www + "/new",
		www + "/notes.txt", www + "/private/ok", www + "/products?a=1&b=2", www + "/readme.md",
	}
	if diff := cmp.Diff(want, rec.urls()); diff != "" {
		t.Errorf("delivered pages (-want +got):\n%s", diff)
	}
	wantSum := &Summary{Progress: Progress{Found: 21, Fetched: 12, Failed: 5, SkippedRobots: 1, SkippedOther: 3}, Reason: ReasonDone}
	if diff := cmp.Diff(wantSum, sum, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".CurrentURL" }, cmp.Ignore())); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	if rec.overlaps != 0 {
		t.Errorf("Handler.Page calls overlapped %d times", rec.overlaps)
	}
	if diff := cmp.Diff(sum.Progress, rec.last, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".CurrentURL" }, cmp.Ignore())); diff != "" {
		t.Errorf("last Progress differs from summary:\n%s", diff)
	}

	// Pages carry what the knowledge side needs.
	if p := rec.page(www + "/docs"); p == nil || p.FinalURL != www+"/docs/" || p.Title != "Docs" || p.Status != 200 {
		t.Errorf("docs page = %+v", p)
	}
	if p := rec.page(www + "/new"); p == nil || p.FinalURL != www+"/new" {
		t.Errorf("redirected page = %+v", p)
	}
	if p := rec.page(www + "/readme.md"); p == nil || p.ContentType != "text/markdown" || string(p.Body) != "# Readme" {
		t.Errorf("markdown page = %+v", p)
	}

	for _, never := range []string{
		"www.example.test/private/secret", "www.example.test/files/app.zip", "www.example.test/img/logo.JPG",
		"www.example.test/video.mp4", "www.example.test/files/report.zip",
	} {
		if n := ts.hitsFor(never); n != 0 {
			t.Errorf("%s requested %d times", never, n)
		}
	}
	for _, host := range []string{"other.test", "elsewhere.test"} {
		if n := ts.hitsOn(host, true); n != 0 {
			t.Errorf("%d requests to off-site host %s", n, host)
		}
	}
	for _, once := range []string{"www.example.test/robots.txt", "docs.example.test/robots.txt", "www.example.test/contact",
		"www.example.test/about", "www.example.test/products?a=1&b=2"} {
		if n := ts.hitsFor(once); n != 1 {
			t.Errorf("%s requested %d times, want 1", once, n)
		}
	}
	if n := hugeWritten.Load(); n >= 64<<20 {
		t.Errorf("huge page: server wrote %d bytes; the cap must stop reading early", n)
	}
	if n := binaryWritten.Load(); n >= 64<<20 {
		t.Errorf("binary: server wrote %d bytes; a non-indexable type must not be read", n)
	}

	// Crawl-delay 1 on www: one pause before every gated www request
	// (4 sitemap files and 19 pages), none for docs (robots.txt 404).
	d := sl.all()
	for _, v := range d {
		if v != time.Second {
			t.Fatalf("requested delays %v, want only 1s", d)
		}
	}
	if len(d) != 23 {
		t.Errorf("%d delays requested, want 23", len(d))
	}
}

func TestCrawlDelay(t *testing.T) {
	for _, tc := range []struct {
		name   string
		robots string
		def    time.Duration
		want   time.Duration
	}{
		{"from robots", "User-agent: *\nCrawl-delay: 3\n", 0, 3 * time.Second},
		{"capped", "User-agent: conciergebot\nCrawl-delay: 3600\n", 0, MaxCrawlDelay},
		{"default", "User-agent: *\nDisallow: /nothing\n", 500 * time.Millisecond, 500 * time.Millisecond},
		{"other agent's delay ignored", "User-agent: slowbot\nCrawl-delay: 5\n", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTestServer(t, map[string]http.Handler{"www.example.test": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/robots.txt":
					fmt.Fprint(w, tc.robots)
				case "/":
					serveHTML(htmlPage("Home", "/a", "/b", "/c"))(w, r)
				case "/a", "/b", "/c":
					serveHTML(htmlPage(r.URL.Path))(w, r)
				default:
					http.NotFound(w, r)
				}
			})})
			var sl sleeps
			rec := &recorder{}
			if _, err := Crawl(context.Background(), www, Options{Client: ts.client(), DefaultCrawlDelay: tc.def, Sleep: sl.sleep}, rec); err != nil {
				t.Fatal(err)
			}
			var want []time.Duration
			if tc.want > 0 {
				// /sitemap.xml and four pages; robots.txt itself is not delayed.
				want = []time.Duration{tc.want, tc.want, tc.want, tc.want, tc.want}
			}
			if diff := cmp.Diff(want, sl.all()); diff != "" {
				t.Errorf("delays (-want +got):\n%s", diff)
			}
			if got := len(rec.urls()); got != 4 {
				t.Errorf("%d pages, want 4", got)
			}
		})
	}
}

// farm is an endless site: /a/N links to /a/N+1 and /a/N+2.
func farm() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		if r.URL.Path == "/" {
			n = 0
		} else if _, err := fmt.Sscanf(r.URL.Path, "/a/%d", &n); err != nil {
			http.NotFound(w, r)
			return
		}
		serveHTML(htmlPage(fmt.Sprint("page ", n), fmt.Sprintf("/a/%d", n+1), fmt.Sprintf("/a/%d", n+2)))(w, r)
	})
}

func TestCrawlMaxPagesExactOnLinkFarm(t *testing.T) {
	for _, max := range []int{1, 7, 25} {
		t.Run(fmt.Sprint(max), func(t *testing.T) {
			ts := newTestServer(t, map[string]http.Handler{"www.example.test": farm()})
			rec := &recorder{}
			sum, err := Crawl(context.Background(), www, Options{Client: ts.client(), MaxPages: max, PerHostConcurrency: 4, Sleep: noSleep}, rec)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(rec.urls()); got != max || sum.Fetched != max || sum.Reason != ReasonMaxPages {
				t.Errorf("delivered %d, summary %+v; want exactly %d and %q", got, sum, max, ReasonMaxPages)
			}
			// Every success counts, so no request is wasted beyond the cap.
			if n := ts.hitsOn("www.example.test", false) - 1; n != max { // minus /sitemap.xml
				t.Errorf("%d page requests, want %d", n, max)
			}
		})
	}
}

func TestCrawlRequestBudgetOnBrokenLinks(t *testing.T) {
	// Every page fails, but links keep coming from the sitemap: the request
	// budget (2×MaxPages+20) ends the crawl.
	var locs []string
	for i := range 500 {
		locs = append(locs, fmt.Sprintf("%s/broken/%d", www, i))
	}
	ts := newTestServer(t, map[string]http.Handler{"www.example.test": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			serveHTML(htmlPage("Home"))(w, r)
		case "/sitemap.xml":
			serveText("application/xml", urlset(locs...))(w, r)
		case "/robots.txt":
			http.NotFound(w, r)
		default:
			http.Error(w, "no", 500)
		}
	})})
	rec := &recorder{}
	sum, err := Crawl(context.Background(), www, Options{Client: ts.client(), MaxPages: 10, Sleep: noSleep}, rec)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Reason != ReasonMaxRequests || sum.Fetched != 1 || sum.Failed != 39 || sum.Found != 501 {
		t.Errorf("summary %+v; want 1 fetched, 39 failed, %q", sum, ReasonMaxRequests)
	}
}

func TestCrawlSlowPageTimesOutAndCrawlGoesOn(t *testing.T) {
	var trickled atomic.Int64
	ts := newTestServer(t, map[string]http.Handler{"www.example.test": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			serveHTML(htmlPage("Home", "/stall", "/trickle", "/fine"))(w, r)
		case "/stall":
			waitForClient(nil)(w, r)
		case "/trickle": // one byte every 20ms: headers arrive, the body never ends
			w.Header().Set("Content-Type", "text/html")
			for {
				if _, err := w.Write([]byte("x")); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				trickled.Add(1)
				select {
				case <-r.Context().Done():
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		case "/fine":
			serveHTML(htmlPage("Fine"))(w, r)
		default:
			http.NotFound(w, r)
		}
	})})
	rec := &recorder{}
	start := time.Now()
	sum, err := Crawl(context.Background(), www, Options{Client: ts.client(), RequestTimeout: 400 * time.Millisecond, Sleep: noSleep}, rec)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("crawl took %v; the per-request deadline must bound stalled pages", el)
	}
	if sum.Failed != 2 || sum.Fetched != 2 {
		t.Errorf("summary %+v; want the two slow pages failed and the others fetched", sum)
	}
	if trickled.Load() == 0 {
		t.Error("trickle page never started")
	}
}

func TestCrawlCancel(t *testing.T) {
	started := make(chan struct{}, 1)
	ts := newTestServer(t, map[string]http.Handler{"www.example.test": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			serveHTML(htmlPage("Home", "/a", "/slow"))(w, r)
		case "/a":
			serveHTML(htmlPage("A"))(w, r)
		case "/slow":
			waitForClient(started)(w, r)
		default:
			http.NotFound(w, r)
		}
	})})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancel once the slow page is in flight and the other two pages were
	// delivered (their order is not fixed).
	twoDone := make(chan struct{})
	var delivered atomic.Int32
	var start time.Time
	go func() {
		<-started
		<-twoDone
		start = time.Now()
		cancel()
	}()
	rec := &recorder{onPage: func(_ context.Context, p *Page) error {
		if delivered.Add(1) == 2 {
			close(twoDone)
		}
		return nil
	}}
	sum, err := Crawl(ctx, www, Options{Client: ts.client(), RequestTimeout: time.Minute, Sleep: noSleep}, rec)
	el := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if el > 2*time.Second {
		t.Errorf("Crawl returned %v after cancel", el)
	}
	if !sum.Cancelled || sum.Reason != ReasonCancelled {
		t.Errorf("summary %+v; want Cancelled", sum)
	}
	if diff := cmp.Diff([]string{www + "/", www + "/a"}, rec.urls()); diff != "" {
		t.Errorf("pages delivered before the cancel (-want +got):\n%s", diff)
	}
	if sum.Fetched != 2 {
		t.Errorf("Fetched = %d, want 2", sum.Fetched)
	}
}

func TestCrawlHandlerStopAndErrors(t *testing.T) {
	ts := newTestServer(t, map[string]http.Handler{"www.example.test": farm()})
	var calls atomic.Int32
	rec := &recorder{onPage: func(ctx context.Context, p *Page) error {
		switch calls.Add(1) {
		case 2:
			return errors.New("extraction failed")
		case 4:
			return fmt.Errorf("credits: %w", ErrStop)
		}
		return nil
	}}
	sum, err := Crawl(context.Background(), www, Options{Client: ts.client(), MaxPages: 50, Sleep: noSleep}, rec)
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 4 || sum.Fetched != 2 || sum.Failed != 2 || sum.Reason != ReasonStopped || sum.Cancelled {
		t.Errorf("%d calls, summary %+v; want 4 calls, 2 fetched, 2 failed, stopped", calls.Load(), sum)
	}
}

func TestCrawlContentTypes(t *testing.T) {
	noType := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header()["Content-Type"] = nil // stop the server from sniffing for us
			w.Write([]byte(body))
		}
	}
	ts := newTestServer(t, map[string]http.Handler{"www.example.test": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			serveHTML(htmlPage("Home", "/untyped", "/doc.pdf", "/blob", "/data.json.txt"))(w, r)
		case "/untyped":
			noType("<!DOCTYPE html><html><title>Untyped</title></html>")(w, r)
		case "/doc.pdf":
			serveText("application/octet-stream", "%PDF-1.4 fake")(w, r)
		case "/blob":
			noType("\x00\x01\x02binary")(w, r)
		case "/data.json.txt":
			serveText("application/json", "{}")(w, r)
		default:
			http.NotFound(w, r)
		}
	})})
	rec := &recorder{}
	sum, err := Crawl(context.Background(), www, Options{Client: ts.client(), Sleep: noSleep}, rec)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{www + "/", www + "/doc.pdf", www + "/untyped"}, rec.urls()); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
	if p := rec.page(www + "/doc.pdf"); p == nil || p.ContentType != "application/pdf" {
		t.Errorf("pdf page %+v", p)
	}
	if p := rec.page(www + "/untyped"); p == nil || !strings.HasPrefix(p.ContentType, "text/html") || p.Title != "Untyped" {
		t.Errorf("untyped page %+v", p)
	}
	if sum.SkippedOther != 2 {
		t.Errorf("summary %+v; want the blob and the JSON skipped", sum)
	}
}
