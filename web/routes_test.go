package web_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"concierge/internal/testkit"
	"concierge/web"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// rawGet sends a GET without Go's transparent gzip handling.
func rawGet(t *testing.T, method, u string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	c := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, body
}

func TestWidgetScriptRoute(t *testing.T) {
	a := testkit.NewApp(t, testkit.SQLite)
	u := a.URL + "/widget.js"

	res, body := rawGet(t, "GET", u, "Accept-Encoding", "gzip, deflate, br")
	if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("gzip: %d %q", res.StatusCode, res.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if plain, _ := io.ReadAll(zr); !bytes.Equal(plain, web.Widget.Body) {
		t.Error("gzip body is not widget.js")
	}
	for k, want := range map[string]string{
		"Content-Type":                "application/javascript; charset=utf-8",
		"Cache-Control":               "public, max-age=300",
		"Access-Control-Allow-Origin": "*",
		"X-Content-Type-Options":      "nosniff",
		"Vary":                        "Accept-Encoding",
		"ETag":                        web.Widget.GzipETag,
	} {
		if got := res.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}

	res, body = rawGet(t, "GET", u)
	if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != "" || !bytes.Equal(body, web.Widget.Body) ||
		res.Header.Get("ETag") != web.Widget.ETag {
		t.Errorf("identity: %d %q etag %q", res.StatusCode, res.Header.Get("Content-Encoding"), res.Header.Get("ETag"))
	}
	if res, _ := rawGet(t, "GET", u, "Accept-Encoding", "gzip;q=0, identity"); res.Header.Get("Content-Encoding") != "" {
		t.Error("gzip;q=0 still got gzip")
	}

	for _, c := range []struct {
		name, inm, ae string
		status        int
	}{
		{"same representation", web.Widget.GzipETag, "gzip", 304},
		{"weak form and a list", `"nope", W/` + web.Widget.ETag, "", 304},
		{"star", "*", "", 304},
		{"identity tag for the gzip representation", web.Widget.ETag, "gzip", 200},
		{"stale tag", `"old"`, "gzip", 200},
	} {
		res, body := rawGet(t, "GET", u, "If-None-Match", c.inm, "Accept-Encoding", c.ae)
		if res.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d", c.name, res.StatusCode, c.status)
		}
		if c.status == 304 && (len(body) != 0 || res.Header.Get("ETag") == "" || res.Header.Get("Cache-Control") != "public, max-age=300") {
			t.Errorf("%s: 304 with body %d bytes, headers %v", c.name, len(body), res.Header)
		}
	}

	res, body = rawGet(t, "HEAD", u)
	if res.StatusCode != 200 || len(body) != 0 || res.ContentLength != int64(len(web.Widget.Body)) {
		t.Errorf("HEAD: %d, %d bytes, length %d", res.StatusCode, len(body), res.ContentLength)
	}
}

func TestDemoPageRoute(t *testing.T) {
	a := testkit.NewApp(t, testkit.SQLite)
	key, _ := a.Register(t, "demo@example.com")
	r := a.Do(t, "POST", "/bots", map[string]any{"name": `Acme "<Help>"`}, "X-API-Key", key)
	if r.Status != 201 {
		t.Fatalf("bot: %d %s", r.Status, r.Body)
	}
	var b struct {
		BotKey string `json:"bot_key"`
	}
	r.Decode(t, &b)

	site := `https://www.example.com/pricing?plan=pro&x="><script>alert(1)</script>`
	r = a.Do(t, "GET", "/demo/"+b.BotKey+"?url="+url.QueryEscape(site), nil)
	if r.Status != 200 || r.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("demo: %d %q", r.Status, r.Header.Get("Content-Type"))
	}
	if r.Header.Get("Content-Security-Policy") != web.DemoCSP(false) || r.Header.Get("X-Content-Type-Options") != "nosniff" ||
		r.Header.Get("Referrer-Policy") == "" || r.Header.Get("X-Frame-Options") != "DENY" {
		t.Errorf("headers: %v", r.Header)
	}
	page := string(r.Body)
	want := `src="https://www.example.com/pricing?plan=pro&amp;x=%22%3E%3Cscript%3Ealert%281%29%3C/script%3E"`
	if !strings.Contains(page, want) {
		t.Errorf("iframe src: want %s in\n%s", want, page)
	}
	if strings.Contains(page, "<script>alert") || strings.Contains(page, `"<Help>"`) {
		t.Error("unescaped data in the page")
	}
	if !strings.Contains(page, `<script src="/widget.js" data-bot-key="`+b.BotKey+`"></script>`) ||
		strings.Count(page, "<script") != 1 {
		t.Error("the page does not load exactly the widget")
	}
	if strings.Contains(page, "Copy embed snippet") {
		t.Error("edit controls outside edit mode")
	}

	for _, bad := range []string{"javascript:alert(1)", "data:text/html,hi", "/relative", "https://x.example/" + strings.Repeat("a", 2100)} {
		r = a.Do(t, "GET", "/demo/"+b.BotKey+"?url="+url.QueryEscape(bad), nil)
		if r.Status != 200 || strings.Contains(string(r.Body), "<iframe") {
			t.Errorf("url %.40q: %d, iframe present %v", bad, r.Status, strings.Contains(string(r.Body), "<iframe"))
		}
	}

	r = a.Do(t, "GET", "/demo/"+b.BotKey+"?edit=1&url=https://example.com/", nil)
	page = string(r.Body)
	if r.Status != 200 || !strings.Contains(page, "Copy embed snippet") ||
		!strings.Contains(page, `value="&lt;script src=&#34;`+a.URL+`/widget.js&#34; data-bot-key=&#34;`+b.BotKey+`&#34; async&gt;&lt;/script&gt;"`) {
		t.Errorf("edit mode: %d\n%s", r.Status, page)
	}
	if csp := r.Header.Get("Content-Security-Policy"); csp != web.DemoCSP(true) || !strings.Contains(csp, "form-action 'self'") {
		t.Errorf("edit csp %q", csp)
	}
	if r = a.Do(t, "GET", "/demo/"+b.BotKey+"?edit=2", nil); r.Status != 422 {
		t.Errorf("edit=2: %d", r.Status)
	}

	for _, k := range []string{"bk_doesnotexist000", "abc", "bad!key", strings.Repeat("k", 65)} {
		r = a.Do(t, "GET", "/demo/"+url.PathEscape(k), nil)
		if r.Status != 404 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") ||
			!strings.Contains(string(r.Body), "Demo not found") || r.Header.Get("Content-Security-Policy") == "" {
			t.Errorf("key %q: %d %q", k, r.Status, r.Header.Get("Content-Type"))
		}
	}

	r = a.Do(t, "GET", "/openapi.json", nil)
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Content map[string]json.RawMessage `json:"content"`
			} `json:"responses"`
		} `json:"paths"`
	}
	r.Decode(t, &doc)
	op, ok := doc.Paths["/demo/{bot_key}"]["get"]
	if !ok {
		t.Fatal("the demo page is not in the OpenAPI description")
	}
	for _, status := range []string{"200", "404"} {
		if _, ok := op.Responses[status].Content["text/html"]; !ok || len(op.Responses[status].Content) != 1 {
			t.Errorf("demo %s is not described as text/html: %v", status, op.Responses[status].Content)
		}
	}
	if _, ok := doc.Paths["/widget.js"]; ok {
		t.Error("/widget.js is in the OpenAPI description")
	}
}

// TestPublicURL: the embed snippet and the API description name the
// configured public base URL, whatever Host header the request carries.
func TestPublicURL(t *testing.T) {
	a := testkit.NewApp(t, testkit.SQLite, testkit.WithEnv("CONCIERGE_PUBLIC_URL", "https://Chat.Example.com/"))
	key, _ := a.Register(t, "pub@example.com")
	var b struct {
		BotKey string `json:"bot_key"`
	}
	a.Do(t, "POST", "/bots", map[string]any{"name": "Pub"}, "X-API-Key", key).Decode(t, &b)
	page := string(a.Do(t, "GET", "/demo/"+b.BotKey+"?edit=1", nil, "Host", "evil.example").Body)
	want := html.EscapeString(`<script src="https://chat.example.com/widget.js" data-bot-key="` + b.BotKey + `" async></script>`)
	if !strings.Contains(page, want) || strings.Contains(page, "evil.example") {
		t.Errorf("snippet: want %s in\n%s", want, page)
	}
	var spec struct {
		Servers []struct {
			URL string `json:"url"`
		} `json:"servers"`
	}
	a.Do(t, "GET", "/openapi.json", nil).Decode(t, &spec)
	if len(spec.Servers) != 1 || spec.Servers[0].URL != "https://chat.example.com" {
		t.Errorf("servers: %+v", spec.Servers)
	}
}
