package chat_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"concierge/internal/app"
	"concierge/internal/chat"
	"concierge/internal/llm"
	"concierge/internal/llm/llmtest"
	"concierge/internal/testkit"
)

// TestKeepAliveAfterModelFaults: a model failing in every way (5xx,
// quota, too slow, cut mid-stream) ends its own request only: the next
// request on the same kept-alive connection (a load balancer reuses them)
// is served as usual.
func TestKeepAliveAfterModelFaults(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		fake := llmtest.NewOpenAI(t)
		cfg := fake.Config()
		cfg.Timeout = 1500 * time.Millisecond
		model, err := llm.New(cfg, fake.Client())
		if err != nil {
			t.Fatal(err)
		}
		w := newWorld(t, e, testkit.WithOptions(func(o *app.Options) { o.Answerer = chat.Model{LLM: model} }))
		client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1, MaxIdleConnsPerHost: 1}, Timeout: 30 * time.Second}
		do := func(method, path string, body any, hdr ...string) (int, string) {
			t.Helper()
			var rd io.Reader
			if body != nil {
				b, _ := json.Marshal(body)
				rd = bytes.NewReader(b)
			}
			req, _ := http.NewRequest(method, w.a.URL+path, rd)
			req.Header.Set("Content-Type", "application/json")
			for i := 0; i+1 < len(hdr); i += 2 {
				req.Header.Set(hdr[i], hdr[i+1])
			}
			res, err := client.Do(req)
			if err != nil {
				t.Fatalf("%s %s: %v", method, path, err)
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			return res.StatusCode, string(b)
		}
		for name, script := range map[string][]llmtest.Reply{
			"down":      {{Status: 503}, {Status: 503}},
			"quota":     {{Quota: true}},
			"too slow":  {{Text: "late", FirstDelay: time.Second}, {Text: "late", FirstDelay: time.Second}},
			"cut":       {{Text: "Orders ship from Pune within two days.", Chunks: 5, Cut: llmtest.CutConnection, CutAfter: 2}},
			"cut event": {{Text: "Orders ship from Pune within two days.", Chunks: 5, Cut: llmtest.CutEvents, CutAfter: 2}},
			"cycle": {{Status: 500}, {Status: 429, RetryAfter: "1"}, {FirstDelay: time.Minute},
				{Cut: llmtest.CutConnection, CutAfter: 2, ChunkDelay: 2 * time.Millisecond}},
		} {
			for _, path := range []string{"/chat/stream", "/chat"} {
				fake.Enqueue(script...)
				status, body := do("POST", path, map[string]any{"message": "Where do orders ship from?"}, "X-Bot-Key", w.botKey)
				if status == 499 {
					t.Fatalf("%s %s: %d %s", name, path, status, body)
				}
				for range 3 {
					if status, body := do("GET", "/bots", nil, "X-API-Key", w.key); status != 200 {
						t.Fatalf("after %s on %s, the next request on the connection: %d %s", name, path, status, body)
					}
				}
			}
		}
	})
}

// TestKeepAliveAfterALongRequest: a reply that takes longer than the
// body's read deadline (huma's 5 s) leaves its connection as good as
// before. The deadline used to stay set after the body was read; when it
// expired mid-request, net/http took it for the client gone and cancelled
// that request and every later one on the kept-alive connection (found by
// the soak as 499s to everything through its proxy).
func TestKeepAliveAfterALongRequest(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		fake := llmtest.NewOpenAI(t)
		cfg := fake.Config()
		cfg.Timeout, cfg.IdleTimeout = 20*time.Second, 20*time.Second
		model, err := llm.New(cfg, fake.Client())
		if err != nil {
			t.Fatal(err)
		}
		w := newWorld(t, e, testkit.WithOptions(func(o *app.Options) { o.Answerer = chat.Model{LLM: model} }))
		client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1, MaxIdleConnsPerHost: 1}, Timeout: 30 * time.Second}
		fake.Enqueue(llmtest.Reply{Text: "Orders ship from our warehouse in Pune [1].", FirstDelay: 5500 * time.Millisecond})
		req, _ := http.NewRequest("POST", w.a.URL+"/chat/stream", strings.NewReader(`{"message":"Where do orders ship from?"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Bot-Key", w.botKey)
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !strings.Contains(string(body), "Pune") {
			t.Fatalf("the long reply: %d %s", res.StatusCode, body)
		}
		for range 3 {
			req, _ := http.NewRequest("GET", w.a.URL+"/bots", nil)
			req.Header.Set("X-API-Key", w.key)
			res, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 200 {
				t.Fatalf("the next request on the connection: %d %s", res.StatusCode, b)
			}
		}
	})
}
