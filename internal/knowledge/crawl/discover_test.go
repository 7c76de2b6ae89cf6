package crawl

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func discoverSite(t testing.TB) *testServer {
	return newTestServer(t, map[string]http.Handler{
		"www.example.test": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/robots.txt":
				fmt.Fprint(w, "User-agent: *\nDisallow: /private\n\nSitemap: "+www+"/sm.xml\n")
			case "/sm.xml":
				serveText("application/xml", urlset(www+"/a", www+"/b/", www+"/private/x", "http://other.test/z",
					"http://docs.example.test/guide", "http://docs.example.test/secret", www+"/pic.png"))(w, r)
			case "/":
				serveHTML(htmlPage("Home", "/c", "/a#frag", "/b?utm_source=1", "/private/y", "http://other.test/q", "/d.zip", "mailto:x@y"))(w, r)
			default:
				http.NotFound(w, r) // pages are not fetched: Discover must not need them
			}
		}),
		"docs.example.test": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/robots.txt" {
				fmt.Fprint(w, "User-agent: *\nDisallow: /secret\n")
				return
			}
			http.NotFound(w, r)
		}),
	})
}

func TestDiscover(t *testing.T) {
	ts := discoverSite(t)
	got, err := Discover(context.Background(), www, Options{Client: ts.client(), Sleep: noSleep})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"http://docs.example.test/guide", www + "/", www + "/a", www + "/b", www + "/c"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Discover (-want +got):\n%s", diff)
	}
	for _, p := range []string{"www.example.test/a", "www.example.test/c", "docs.example.test/guide"} {
		if n := ts.hitsFor(p); n != 0 {
			t.Errorf("%s fetched by Discover", p)
		}
	}
	if n := ts.hitsOn("other.test", true); n != 0 {
		t.Errorf("%d requests to other.test", n)
	}
}

func TestDiscoverMaxPages(t *testing.T) {
	ts := discoverSite(t)
	// The first three in crawl order (root, then sitemap order), sorted.
	got, err := Discover(context.Background(), www, Options{Client: ts.client(), MaxPages: 3, Sleep: noSleep})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{www + "/", www + "/a", www + "/b"}, got); diff != "" {
		t.Errorf("Discover (-want +got):\n%s", diff)
	}
}

func TestDiscoverErrors(t *testing.T) {
	_, err := Discover(context.Background(), "http://internal.example.test/", Options{Client: dialErrClient(errGuard)})
	if !errors.Is(err, errGuard) {
		t.Errorf("err = %v; want the guard's error", err)
	}
	ts := newTestServer(t, map[string]http.Handler{"www.example.test": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "SECRET", 500)
	})})
	_, err = Discover(context.Background(), www, Options{Client: ts.client()})
	if !errors.Is(err, ErrDisallowed) { // robots.txt answered 500 too
		t.Errorf("err = %v; want ErrDisallowed", err)
	}
}
