package crawl

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func siteWithRobots(t testing.TB, robots http.HandlerFunc) *testServer {
	return newTestServer(t, map[string]http.Handler{"www.example.test": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			robots(w, r)
		case "/":
			serveHTML(htmlPage("Home", "/a", "/b"))(w, r)
		case "/a", "/b":
			serveHTML(htmlPage(r.URL.Path))(w, r)
		default:
			http.NotFound(w, r)
		}
	})})
}

func TestRobotsStatus(t *testing.T) {
	t.Run("5xx disallows the host", func(t *testing.T) {
		ts := siteWithRobots(t, func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", http.StatusServiceUnavailable) })
		rec := &recorder{}
		sum, err := Crawl(context.Background(), www, Options{Client: ts.client(), Sleep: noSleep}, rec)
		if !errors.Is(err, ErrDisallowed) || !strings.Contains(err.Error(), "503") {
			t.Errorf("err = %v, want ErrDisallowed naming the 503", err)
		}
		if n := ts.hitsOn("www.example.test", false); n != 0 {
			t.Errorf("%d requests beyond robots.txt, want 0", n)
		}
		if sum == nil || sum.SkippedRobots != 1 || len(rec.urls()) != 0 {
			t.Errorf("summary %+v, pages %v", sum, rec.urls())
		}
	})
	t.Run("404 allows everything", func(t *testing.T) {
		ts := siteWithRobots(t, http.NotFound)
		rec := &recorder{}
		if _, err := Crawl(context.Background(), www, Options{Client: ts.client(), Sleep: noSleep}, rec); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{www + "/", www + "/a", www + "/b"}, rec.urls()); diff != "" {
			t.Errorf("pages (-want +got):\n%s", diff)
		}
	})
	t.Run("403 allows everything", func(t *testing.T) {
		ts := siteWithRobots(t, func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", http.StatusForbidden) })
		rec := &recorder{}
		if _, err := Crawl(context.Background(), www, Options{Client: ts.client(), Sleep: noSleep}, rec); err != nil {
			t.Fatal(err)
		}
		if len(rec.urls()) != 3 {
			t.Errorf("pages %v", rec.urls())
		}
	})
	t.Run("one bad line keeps the rest", func(t *testing.T) {
		ts := siteWithRobots(t, serveText("text/plain", "Disallow: /b\nUser-agent: *\nCrawl-delay: soon\nDisallow: /a\n"))
		rec := &recorder{}
		if _, err := Crawl(context.Background(), www, Options{Client: ts.client(), Sleep: noSleep}, rec); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{www + "/", www + "/b"}, rec.urls()); diff != "" {
			t.Errorf("pages (-want +got):\n%s", diff)
		}
	})
	t.Run("redirect into a disallowed path", func(t *testing.T) {
		ts := newTestServer(t, map[string]http.Handler{"www.example.test": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/robots.txt":
				fmt.Fprint(w, "User-agent: *\nDisallow: /private\n")
			case "/":
				serveHTML(htmlPage("Home", "/go"))(w, r)
			case "/go":
				http.Redirect(w, r, "/private/x", http.StatusFound)
			default:
				serveHTML(htmlPage(r.URL.Path))(w, r)
			}
		})})
		sum, err := Crawl(context.Background(), www, Options{Client: ts.client(), Sleep: noSleep}, &recorder{})
		if err != nil {
			t.Fatal(err)
		}
		if sum.SkippedRobots != 1 || sum.Fetched != 1 || ts.hitsFor("www.example.test/private/x") != 0 {
			t.Errorf("summary %+v, /private/x hits %d", sum, ts.hitsFor("www.example.test/private/x"))
		}
	})
	t.Run("agent group wins over *", func(t *testing.T) {
		ts := siteWithRobots(t, serveText("text/plain", "User-agent: *\nDisallow: /\n\nUser-agent: ConciergeBot\nDisallow: /b\n"))
		rec := &recorder{}
		if _, err := Crawl(context.Background(), www, Options{Client: ts.client(), UserAgent: "ConciergeBot/2.1 (+https://concierge.test/bot)", Sleep: noSleep}, rec); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{www + "/", www + "/a"}, rec.urls()); diff != "" {
			t.Errorf("pages (-want +got):\n%s", diff)
		}
	})
}

// errGuard stands in for the SSRF guard's refusal, raised at dial time.
var errGuard = errors.New("ssrf: destination address is not permitted")

func dialErrClient(err error) *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext: func(context.Context, string, string) (net.Conn, error) { return nil, err },
	}}
}

func TestCrawlRootErrors(t *testing.T) {
	t.Run("refused by the guard", func(t *testing.T) {
		_, err := Crawl(context.Background(), "http://internal.example.test/", Options{Client: dialErrClient(errGuard)}, &recorder{})
		if !errors.Is(err, errGuard) {
			t.Errorf("err = %v; want errors.Is guard error", err)
		}
	})
	t.Run("dns", func(t *testing.T) {
		dnsErr := &net.DNSError{Err: "no such host", Name: "nowhere.test", IsNotFound: true}
		_, err := Crawl(context.Background(), "http://nowhere.test/", Options{Client: dialErrClient(dnsErr)}, &recorder{})
		var de *net.DNSError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), "no such host") {
			t.Errorf("err = %v; want a DNS error", err)
		}
	})

	pages := map[string]http.HandlerFunc{
		"/robots.txt": http.NotFound,
		"/missing":    func(w http.ResponseWriter, r *http.Request) { http.Error(w, "SECRET-BODY", 404) },
		"/stall":      waitForClient(nil),
		"/bomb":       serveBomb,
		"/image":      serveText("image/png", "\x89PNG"),
		"/away":       redirect("http://example.org.test/", http.StatusMovedPermanently),
		"/private":    serveHTML(htmlPage("p")),
	}
	ts := newTestServer(t, map[string]http.Handler{"www.example.test": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h, ok := pages[r.URL.Path]; ok {
			h(w, r)
			return
		}
		http.NotFound(w, r)
	})})
	for _, tc := range []struct {
		path  string
		check func(error) bool
		text  string
	}{
		{"/missing", func(err error) bool { var se *StatusError; return errors.As(err, &se) && se.Code == 404 }, "HTTP 404"},
		{"/stall", func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }, "timed out after 300ms"},
		{"/bomb", func(err error) bool { return errors.Is(err, ErrTooLarge) }, "exceeds"},
		{"/image", func(err error) bool { return errors.Is(err, ErrNotIndexable) }, "image/png"},
		{"/away", func(err error) bool { return errors.Is(err, ErrOffSite) }, "example.org.test"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			sum, err := Crawl(context.Background(), www+tc.path, Options{Client: ts.client(), RequestTimeout: 300 * time.Millisecond, Sleep: noSleep}, &recorder{})
			if err == nil || !tc.check(err) || !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("err = %v; want one containing %q", err, tc.text)
			}
			if strings.Contains(err.Error(), "SECRET") {
				t.Errorf("error leaks the response body: %v", err)
			}
			if sum == nil || sum.Fetched != 0 {
				t.Errorf("summary %+v", sum)
			}
		})
	}
	if n := ts.hitsOn("example.org.test", true); n != 0 {
		t.Errorf("off-site redirect followed: %d requests", n)
	}
	t.Run("invalid root", func(t *testing.T) {
		for _, root := range []string{"ftp://x.test/", "javascript:alert(1)", "http://user:pw@x.test/", "not a url", ""} {
			if _, err := Crawl(context.Background(), root, Options{Client: ts.client()}, &recorder{}); !errors.Is(err, ErrInvalidURL) {
				t.Errorf("Crawl(%q) err = %v; want ErrInvalidURL", root, err)
			}
		}
	})
}

func TestGzipBombMemory(t *testing.T) {
	// Not parallel: it measures the process's allocations.
	ts := newTestServer(t, map[string]http.Handler{"www.example.test": http.HandlerFunc(serveBomb)})
	gzipBomb() // built before measuring
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := Crawl(context.Background(), www+"/bomb", Options{Client: ts.client(), Sleep: noSleep}, &recorder{})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v; want ErrTooLarge", err)
	}
	// 1 GiB decoded would need ≥ 1 GiB; the 5 MiB cap keeps the total of
	// all allocations, let alone the live heap, far below 100 MiB.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 100<<20 {
		t.Errorf("allocated %d MiB reading the bomb", alloc>>20)
	}
}

func TestDefaultReadBodyDecodesGzipWithCap(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		if r.URL.Path == "/bomb" {
			w.Write(gzipBomb())
			return
		}
		w.Write(gzipBytes("hello gzip"))
	}))
	defer srv.Close()
	// The caller asks for gzip itself, so the transport leaves the bytes
	// compressed and readBody must decode them.
	get := func(path string) *http.Response {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	b, err := readBody(get("/small"), 1<<20)
	if err != nil || string(b) != "hello gzip" {
		t.Errorf("readBody = %q, %v", b, err)
	}
	if _, err := readBody(get("/bomb"), 1<<20); !errors.Is(err, ErrTooLarge) {
		t.Errorf("bomb: err = %v; want ErrTooLarge", err)
	}
	if _, err := readBody(get("/small"), 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the cap: err = %v; want ErrTooLarge", err)
	}
}

func TestCallerRedirectPolicyStillApplies(t *testing.T) {
	ts := newTestServer(t, map[string]http.Handler{"www.example.test": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/old":
			http.Redirect(w, r, "/new", http.StatusFound)
		case "/new":
			serveHTML(htmlPage("new"))(w, r)
		default:
			http.NotFound(w, r)
		}
	})})
	client := ts.client()
	// Stands in for the guard re-checking every hop.
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return errGuard }
	_, err := Crawl(context.Background(), www+"/old", Options{Client: client, Sleep: noSleep}, &recorder{})
	if !errors.Is(err, errGuard) {
		t.Errorf("err = %v; want the caller's redirect refusal", err)
	}
	if ts.hitsFor("www.example.test/new") != 0 {
		t.Error("refused redirect was followed")
	}
}
