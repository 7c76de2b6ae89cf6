package crawl

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// generatedSite serves n pages, /p/0 … /p/n-1, each with ~2 KB of text and
// links to the next ten pages (wrapping), so the crawl is breadth-first
// over a dense graph rather than a chain.
func generatedSite(n int) http.Handler {
	text := strings.Repeat("Concierge answers questions from your documentation. ", 40)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var i int
		switch {
		case r.URL.Path == "/":
		case strings.HasPrefix(r.URL.Path, "/p/"):
			if _, err := fmt.Sscanf(r.URL.Path, "/p/%d", &i); err != nil || i >= n {
				http.NotFound(w, r)
				return
			}
		default:
			http.NotFound(w, r)
			return
		}
		var b strings.Builder
		fmt.Fprintf(&b, "<html><head><title>Page %d</title></head><body><h1>Page %d</h1><p>%s</p>", i, i, text)
		for k := 1; k <= 10; k++ {
			fmt.Fprintf(&b, `<a href="/p/%d">next %d</a> `, (i+k)%n, k)
		}
		b.WriteString("</body></html>")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(b.String()))
	})
}

type countingHandler struct{ pages int }

func (h *countingHandler) Page(context.Context, *Page) error { h.pages++; return nil }
func (h *countingHandler) Progress(Progress)                 {}

// BenchmarkCrawl1000 measures crawl throughput on loopback (no indexing):
//
//	go test -run '^$' -bench Crawl1000 -benchtime 5x ./internal/knowledge/crawl/
func BenchmarkCrawl1000(b *testing.B) {
	const n = 1000
	ts := newTestServer(b, map[string]http.Handler{"www.example.test": generatedSite(n)})
	client := ts.client()
	var total time.Duration
	for b.Loop() {
		h := &countingHandler{}
		start := time.Now()
		sum, err := Crawl(context.Background(), www, Options{Client: client, MaxPages: n + 1, PerHostConcurrency: 4, Sleep: noSleep}, h)
		total += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		// "/" and /p/0 serve the same body: the second is skipped as a duplicate.
		if h.pages != n || sum.Fetched != n {
			b.Fatalf("crawled %d pages, summary %+v", h.pages, sum)
		}
	}
	b.ReportMetric(float64(n*b.N)/total.Seconds(), "pages/s")
}
