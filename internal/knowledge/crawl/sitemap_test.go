package crawl

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseSitemap(t *testing.T) {
	for _, tc := range []struct {
		name            string
		body            []byte
		pages, sitemaps []string
		stopAfter       int
	}{
		{"urlset", []byte(urlset("http://a.test/1", " http://a.test/2 ")), []string{"http://a.test/1", "http://a.test/2"}, nil, 0},
		{"gzip urlset", gzipBytes(urlset("http://a.test/1")), []string{"http://a.test/1"}, nil, 0},
		{"index", []byte(`<?xml version="1.0" encoding="ISO-8859-1"?><sitemapindex><sitemap><loc>http://a.test/s1.xml</loc>
			<lastmod>2026-01-01</lastmod></sitemap><sitemap><loc>http://a.test/s2.xml.gz</loc></sitemap></sitemapindex>`),
			nil, []string{"http://a.test/s1.xml", "http://a.test/s2.xml.gz"}, 0},
		{"text", []byte("\ufeffhttp://a.test/1\n\n  http://a.test/2\r\n"), []string{"http://a.test/1", "http://a.test/2"}, nil, 0},
		{"stop", []byte(urlset("http://a.test/1", "http://a.test/2", "http://a.test/3")), []string{"http://a.test/1", "http://a.test/2"}, nil, 2},
		{"broken xml keeps what came before", []byte(`<urlset><url><loc>http://a.test/1</loc></url><url><loc>http://a.test/2</lo`),
			[]string{"http://a.test/1"}, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var pages, maps []string
			parseSitemap(tc.body, func(s string) bool {
				pages = append(pages, s)
				return tc.stopAfter == 0 || len(pages) < tc.stopAfter
			}, func(s string) { maps = append(maps, s) })
			if diff := cmp.Diff(tc.pages, pages); diff != "" {
				t.Errorf("pages (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.sitemaps, maps); diff != "" {
				t.Errorf("sitemaps (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCrawlLargeSitemap(t *testing.T) {
	// G13: a 10,000-entry sitemap; the crawl still stops at the page cap and
	// sitemap intake stops at MaxSitemapURLs.
	locs := make([]string, 10_000)
	for i := range locs {
		locs[i] = fmt.Sprintf("%s/p/%d", www, i)
	}
	body := gzipBytes(urlset(locs...))
	ts := newTestServer(t, map[string]http.Handler{"www.example.test": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/robots.txt":
			fmt.Fprint(w, "Sitemap: "+www+"/big.xml.gz\n")
		case r.URL.Path == "/big.xml.gz":
			w.Header().Set("Content-Type", "application/gzip")
			w.Write(body)
		case r.URL.Path == "/" || strings.HasPrefix(r.URL.Path, "/p/"):
			serveHTML(htmlPage(r.URL.Path))(w, r)
		default:
			http.NotFound(w, r)
		}
	})})
	for _, tc := range []struct{ maxSitemap, wantFound int }{{0, 10_001}, {2_500, 2_501}} {
		rec := &recorder{}
		sum, err := Crawl(context.Background(), www, Options{Client: ts.client(), MaxPages: 30, MaxSitemapURLs: tc.maxSitemap, Sleep: noSleep}, rec)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Found != tc.wantFound || sum.Fetched != 30 || len(rec.urls()) != 30 {
			t.Errorf("MaxSitemapURLs %d: summary %+v; want Found %d, 30 fetched", tc.maxSitemap, sum, tc.wantFound)
		}
	}
}

func TestScanHTML(t *testing.T) {
	body := `<html><head><title>
	  Hello &amp;   world </title><base href="/docs/"><link rel="Canonical" href="/canon">
	  <link rel="stylesheet" href="/s.css"></head><body><svg><title>icon</title></svg>
	  <a href="a">A</a><a href=" b ">B</a><a>no href</a><area href="/map"><a href="">empty</a></body></html>`
	info := scanHTML([]byte(body))
	want := htmlInfo{title: "Hello & world", canonical: "/canon", base: "/docs/", links: []string{"a", "b", "/map"}}
	if diff := cmp.Diff(want, info, cmp.AllowUnexported(htmlInfo{})); diff != "" {
		t.Errorf("scanHTML (-want +got):\n%s", diff)
	}

	s := &session{site: "example.test"}
	final, _ := url.Parse(www + "/x/page")
	p, finalKey, links := s.page(&response{final: final, status: 200, header: http.Header{"Etag": {`"e"`}}, ct: "text/html", body: []byte(body)})
	if p.URL != www+"/canon" || finalKey != www+"/x/page" || p.ETag != `"e"` || p.Title != "Hello & world" {
		t.Errorf("page %+v, final key %s", p, finalKey)
	}
	var got []string
	for _, u := range links {
		got = append(got, u.String())
	}
	if diff := cmp.Diff([]string{www + "/docs/a", www + "/docs/b", www + "/map"}, got); diff != "" {
		t.Errorf("links resolved against <base> (-want +got):\n%s", diff)
	}
}
