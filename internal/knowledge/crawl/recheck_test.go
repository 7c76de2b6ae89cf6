package crawl

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"
)

func TestRecheck(t *testing.T) {
	const lastMod = "Mon, 02 Jan 2026 15:04:05 GMT"
	var sl sleeps
	ts := newTestServer(t, map[string]http.Handler{"www.example.test": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			w.Write([]byte("User-agent: *\nDisallow: /private\nCrawl-delay: 2\n"))
		case "/etag":
			w.Header().Set("ETag", `"v1"`)
			if r.Header.Get("If-None-Match") == `"v1"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			serveHTML(htmlPage("Etag"))(w, r)
		case "/lm":
			w.Header().Set("Last-Modified", lastMod)
			if r.Header.Get("If-Modified-Since") == lastMod {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			serveHTML(htmlPage("LM"))(w, r)
		case "/changed":
			w.Header().Set("ETag", `"v2"`)
			serveHTML(htmlPage("Changed"))(w, r)
		case "/moved":
			http.Redirect(w, r, "/changed", http.StatusMovedPermanently)
		case "/gone":
			http.Error(w, "gone", http.StatusGone)
		case "/away":
			http.Redirect(w, r, "http://other.test/", http.StatusFound)
		case "/private/p":
			serveHTML(htmlPage("P"))(w, r)
		case "/error":
			http.Error(w, "SECRET", 500)
		default:
			http.NotFound(w, r)
		}
	})})
	opts := Options{Client: ts.client(), Sleep: sl.sleep}
	ctx := context.Background()

	for _, tc := range []struct {
		name, path, etag, lm string
		notModified, gone    bool
		status               int
		title                string
	}{
		{"etag 304", "/etag", `"v1"`, "", true, false, 304, ""},
		{"last-modified 304", "/lm", "", lastMod, true, false, 304, ""},
		{"stale etag", "/etag", `"v0"`, "", false, false, 200, "Etag"},
		{"changed", "/changed", `"v1"`, lastMod, false, false, 200, "Changed"},
		{"404", "/missing", `"v1"`, "", false, true, 404, ""},
		{"410", "/gone", "", "", false, true, 410, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Recheck(ctx, www+tc.path, tc.etag, tc.lm, opts)
			if err != nil {
				t.Fatal(err)
			}
			if res.NotModified != tc.notModified || res.Gone != tc.gone || res.Status != tc.status {
				t.Errorf("result %+v", res)
			}
			if (res.Page != nil) != (tc.title != "") || res.Page != nil && res.Page.Title != tc.title {
				t.Errorf("page %+v, want title %q", res.Page, tc.title)
			}
		})
	}
	res, err := Recheck(ctx, www+"/moved", "", "", opts)
	if err != nil || res.Page == nil || res.Page.URL != www+"/changed" || res.Page.ETag != `"v2"` {
		t.Errorf("redirected recheck = %+v, %v", res, err)
	}
	if _, err := Recheck(ctx, www+"/away", "", "", opts); !errors.Is(err, ErrOffSite) {
		t.Errorf("off-site redirect: err = %v; want ErrOffSite", err)
	}
	if _, err := Recheck(ctx, www+"/private/p", "", "", opts); !errors.Is(err, ErrDisallowed) {
		t.Errorf("disallowed: err = %v; want ErrDisallowed", err)
	}
	var se *StatusError
	if _, err := Recheck(ctx, www+"/error", "", "", opts); !errors.As(err, &se) || se.Code != 500 {
		t.Errorf("500: err = %v; want a StatusError", err)
	}
	// Each Recheck waits the site's Crawl-delay before its page request.
	for _, d := range sl.all() {
		if d != 2*time.Second {
			t.Errorf("delays %v; want 2s each", sl.all())
			break
		}
	}
	if n := ts.hitsOn("other.test", true); n != 0 {
		t.Errorf("off-site redirect followed")
	}
}
