// Package web holds what the service sends to browsers, embedded into the
// binary: the chat widget script that customers put on their sites with one
// script tag, and the template of the shareable demo page. It prepares them
// for serving (precompressed bytes, validators, the demo page's
// Content-Security-Policy); the HTTP layer decides when to send what.
package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"html/template"
	"io"
	"net/url"
	"strings"
)

//go:embed widget.js demo.html
var files embed.FS

// Asset is a static file ready to serve in either encoding.
type Asset struct {
	Body []byte
	Gzip []byte
	// ETag and GzipETag are strong validators of Body and Gzip: two
	// encodings are two representations, so they differ.
	ETag     string
	GzipETag string
}

// Widget is widget.js.
var Widget = mustAsset("widget.js")

// MaxSiteURL is the longest url the demo page accepts (spec section 8).
const MaxSiteURL = 2048

// DemoPage is what the demo page shows.
type DemoPage struct {
	BotKey string
	// Name is the bot's name, shown in the title and the edit bar.
	Name string
	// SiteURL is the customer's page shown behind the widget; pass the
	// result of SiteURL. Empty shows a plain placeholder instead.
	SiteURL string
	// Edit adds the owner's controls (URL field, embed snippet).
	Edit bool
	// Origin is scheme://host of this service (configured, never the
	// request's Host), for the embed snippet.
	Origin string
}

// demoView is the template's data: every field is escaped by html/template.
type demoView struct {
	DemoPage
	Path      string
	WidgetSrc string
	Snippet   string
}

var (
	pages = template.Must(template.New("").ParseFS(files, "demo.html"))
	// styleSrc and scriptSrc are the CSP hash sources of the page's inline
	// style and script, taken from a rendered page so they match byte for
	// byte what html/template writes.
	styleSrc, scriptSrc = inlineHashes()
)

// RenderDemo writes the demo page.
func RenderDemo(w io.Writer, p DemoPage) error {
	v := demoView{DemoPage: p, Path: "/demo/" + url.PathEscape(p.BotKey), WidgetSrc: "/widget.js",
		Snippet: Snippet(p.Origin, p.BotKey)}
	return pages.ExecuteTemplate(w, "demo", v)
}

// RenderNotFound writes the page for an unknown bot key.
func RenderNotFound(w io.Writer) error {
	return pages.ExecuteTemplate(w, "notfound", nil)
}

// Snippet is the one-line embed code of a bot served from origin.
func Snippet(origin, botKey string) string {
	return `<script src="` + origin + `/widget.js" data-bot-key="` + botKey + `" async></script>`
}

// DemoCSP is the Content-Security-Policy of the demo page. Scripts: the
// widget from this origin and, in edit mode, the page's one inline script
// by hash. The widget styles itself with constructed stylesheets and CSSOM
// properties, which style-src does not govern, so no 'unsafe-inline' is
// needed. The customer's site may be framed from anywhere; nobody may frame
// the demo page (a framed widget could be clicked into spending credits).
func DemoCSP(edit bool) string {
	script, form := "'self'", "'none'"
	if edit {
		script += " " + scriptSrc
		form = "'self'" // the edit bar's URL field submits to this page
	}
	return strings.Join([]string{
		"default-src 'none'",
		"script-src " + script,
		"style-src 'self' " + styleSrc,
		"connect-src 'self'",
		"img-src 'self' https: data:",
		"frame-src http: https:",
		"base-uri 'none'",
		"form-action " + form,
		"frame-ancestors 'none'",
	}, "; ")
}

// SiteURL returns raw as the URL to show in the demo page's frame when it is
// an absolute http or https URL of at most MaxSiteURL characters without
// credentials; anything else gives "". The result is percent-encoded the way
// html/template normalises URLs, so the page's frame src is exactly it.
func SiteURL(raw string) string {
	if raw == "" || len(raw) > MaxSiteURL {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.Opaque != "" {
		return ""
	}
	s := normalizeURL(u.String())
	if len(s) > MaxSiteURL {
		return ""
	}
	return s
}

// normalizeURL percent-encodes every byte outside RFC 3986's unreserved and
// reserved sets, and the quote and parentheses (as html/template does).
// Existing escapes stay.
func normalizeURL(s string) string {
	const keep = "!#$&*+,/:;=?@[]-._~%"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(keep, c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

func mustAsset(name string) Asset {
	body, err := files.ReadFile(name)
	if err != nil {
		panic("web: " + err.Error()) // embedded at build time: cannot fail
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = zw.Write(body)
	if err := zw.Close(); err != nil {
		panic("web: gzip " + name + ": " + err.Error())
	}
	sum := sha256.Sum256(body)
	tag := hex.EncodeToString(sum[:16])
	return Asset{Body: body, Gzip: buf.Bytes(), ETag: `"` + tag + `"`, GzipETag: `"` + tag + `-gzip"`}
}

func inlineHashes() (style, script string) {
	var buf bytes.Buffer
	if err := RenderDemo(&buf, DemoPage{BotKey: "bk_hash", Name: "hash", Edit: true, Origin: "https://example.com"}); err != nil {
		panic("web: render demo page: " + err.Error())
	}
	page := buf.String()
	css, ok1 := between(page, "<style>", "</style>")
	js, ok2 := between(page, "<script>", "</script>")
	if !ok1 || !ok2 {
		panic("web: the demo page lost its inline style or script")
	}
	return hashSource(css), hashSource(js)
}

func between(s, open, close string) (string, bool) {
	i := strings.Index(s, open)
	if i < 0 {
		return "", false
	}
	s = s[i+len(open):]
	j := strings.Index(s, close)
	if j < 0 {
		return "", false
	}
	return s[:j], true
}

func hashSource(s string) string {
	sum := sha256.Sum256([]byte(s))
	return fmt.Sprintf("'sha256-%s'", base64.StdEncoding.EncodeToString(sum[:]))
}
