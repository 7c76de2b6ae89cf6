package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
)

// maxWidgetGzip is the size budget of widget.js as sent (gzip).
const maxWidgetGzip = 30 << 10

func TestWidgetSize(t *testing.T) {
	raw, err := os.ReadFile("widget.js")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = zw.Write(raw)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("widget.js: %d bytes, %d bytes gzipped (budget %d)", len(raw), buf.Len(), maxWidgetGzip)
	if buf.Len() > maxWidgetGzip {
		t.Errorf("widget.js is %d bytes gzipped, over the %d byte budget", buf.Len(), maxWidgetGzip)
	}
	if !bytes.Equal(Widget.Body, raw) {
		t.Error("the embedded widget differs from widget.js")
	}
	zr, err := gzip.NewReader(bytes.NewReader(Widget.Gzip))
	if err != nil {
		t.Fatal(err)
	}
	if back, err := io.ReadAll(zr); err != nil || !bytes.Equal(back, raw) {
		t.Errorf("the precompressed widget does not decompress to widget.js: %v", err)
	}
	if Widget.ETag == Widget.GzipETag || !strings.HasPrefix(Widget.ETag, `"`) {
		t.Errorf("etags %s %s", Widget.ETag, Widget.GzipETag)
	}
}

// TestWidgetIsInert guards the rule that data never becomes markup or code.
func TestWidgetIsInert(t *testing.T) {
	src := regexp.MustCompile(`/\*(?s:.*?)\*/|(?m:^[ \t]*//[^\n]*)`).ReplaceAllString(string(Widget.Body), "")
	for _, banned := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(",
		"new Function", "setAttribute('href'", "setAttribute('src'", "createContextualFragment", "srcdoc"} {
		if strings.Contains(src, banned) {
			t.Errorf("widget.js uses %s", banned)
		}
	}
}

func TestSiteURL(t *testing.T) {
	long := "https://example.com/" + strings.Repeat("a", MaxSiteURL)
	for _, c := range []struct{ in, want string }{
		{"https://www.example.com/pricing?a=1&b=2#top", "https://www.example.com/pricing?a=1&b=2#top"},
		{"http://localhost:3000/", "http://localhost:3000/"},
		{`https://example.com/a?q="><img src=x onerror='y'>&ok=1#h<i>`, "https://example.com/a?q=%22%3E%3Cimg%20src=x%20onerror=%27y%27%3E&ok=1#h%3Ci%3E"},
		{"https://例え.jp/パス?q=日本", "https://%E4%BE%8B%E3%81%88.jp/%E3%83%91%E3%82%B9?q=%E6%97%A5%E6%9C%AC"},
		{`https://example.com/"><script>alert(1)</script>`, "https://example.com/%22%3E%3Cscript%3Ealert%281%29%3C/script%3E"},
		{"javascript:alert(1)", ""},
		{"JAVASCRIPT:alert(1)", ""},
		{"data:text/html,<script>alert(1)</script>", ""},
		{"//example.com/x", ""},
		{"/relative", ""},
		{"https://user:pw@example.com/", ""},
		{"ftp://example.com/", ""},
		{"https:opaque", ""},
		{long, ""},
		{"", ""},
	} {
		if got := SiteURL(c.in); got != c.want {
			t.Errorf("SiteURL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestDemoCSPAllowsExactlyTheInlineCode checks that the hashes in the policy
// are those of what the page really contains, in both modes.
func TestDemoCSPAllowsExactlyTheInlineCode(t *testing.T) {
	for _, edit := range []bool{false, true} {
		var buf bytes.Buffer
		if err := RenderDemo(&buf, DemoPage{BotKey: "bk_test", Name: `A "bot" <b>`, SiteURL: "https://example.com/",
			Edit: edit, Origin: "https://chat.example.net"}); err != nil {
			t.Fatal(err)
		}
		page, csp := buf.String(), DemoCSP(edit)
		css, _ := between(page, "<style>", "</style>")
		if want := "style-src 'self' " + hash(css); !strings.Contains(csp, want) {
			t.Errorf("edit=%v: csp %q lacks %q", edit, csp, want)
		}
		js, hasJS := between(page, "<script>", "</script>")
		if hasJS != edit {
			t.Errorf("edit=%v: inline script present = %v", edit, hasJS)
		}
		if edit && !strings.Contains(csp, "script-src 'self' "+hash(js)) {
			t.Errorf("csp %q does not allow the page's script", csp)
		}
		if !edit && strings.Contains(csp, "sha256") && strings.Contains(csp, "script-src 'self' '") {
			t.Errorf("csp %q allows inline script outside edit mode", csp)
		}
		if strings.Contains(page, `<b>`) || !strings.Contains(page, `A &#34;bot&#34; &lt;b&gt;`) {
			t.Errorf("edit=%v: the name is not escaped", edit)
		}
		for _, d := range []string{"default-src 'none'", "base-uri 'none'", "frame-ancestors 'none'", "connect-src 'self'",
			"frame-src http: https:", "img-src 'self' https: data:"} {
			if !strings.Contains(csp, d) {
				t.Errorf("csp %q lacks %q", csp, d)
			}
		}
		if strings.Contains(csp, "unsafe") {
			t.Errorf("csp %q allows unsafe sources", csp)
		}
	}
	var buf bytes.Buffer
	if err := RenderNotFound(&buf); err != nil {
		t.Fatal(err)
	}
	css, _ := between(buf.String(), "<style>", "</style>")
	if !strings.Contains(DemoCSP(false), hash(css)) {
		t.Error("the 404 page's style is not allowed by the policy")
	}
}

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}
