package httpapi

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"concierge/internal/apperr"
	"concierge/web"
)

type demoInput struct {
	BotKey string `path:"bot_key" doc:"The bot's public key (4 to 64 characters of A-Z, a-z, 0-9, _ and -). An unknown or malformed key gives a 404 page."`
	URL    string `query:"url" doc:"The customer's page to show behind the widget: an absolute http or https URL of at most 2048 characters; anything else is ignored and a placeholder is shown. The service never fetches it: the visitor's browser loads it in a frame."`
	Edit   int    `query:"edit" minimum:"0" maximum:"1" default:"0" doc:"1 adds owner controls that need no credential: a field to change the previewed URL and the embed snippet with a copy button."`
}

type demoOutput struct {
	Status       int
	ContentType  string `header:"Content-Type"`
	CSP          string `header:"Content-Security-Policy" doc:"Scripts only from this service, no inline code but the page's own (by hash), the customer's site in a frame, no framing of the page itself."`
	FrameOptions string `header:"X-Frame-Options"`
	Body         []byte
}

func (s *Server) widgetRoutes() {
	// The script is a static asset, not API: it stays out of the OpenAPI
	// description and away from the API middleware (credentials, limits).
	s.router.Get("/widget.js", s.widgetScript)
	s.router.Head("/widget.js", s.widgetScript)

	const path = "/demo/{bot_key}"
	register(s, route{id: "demo-page", method: http.MethodGet, path: path, tags: []string{"Widget"},
		limit: limitPublic, summary: "Shareable demo page of a chatbot",
		desc: "An HTML page showing the customer's site (url) in a full-page frame with the chat widget over it. " +
			"No credential: it is the link an owner shares. edit=1 adds the owner's controls. An unknown bot key " +
			"is a 404 HTML page.",
		errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity}},
		func(ctx context.Context, in *demoInput) (*demoOutput, error) {
			out := &demoOutput{Status: http.StatusOK, ContentType: "text/html; charset=utf-8",
				CSP: web.DemoCSP(in.Edit == 1), FrameOptions: "DENY"}
			var buf bytes.Buffer
			v, err := s.bots.ByKey(ctx, in.BotKey)
			switch {
			case errors.Is(err, apperr.ErrUnauthorized): // unknown or malformed key
				out.Status, out.CSP = http.StatusNotFound, web.DemoCSP(false)
				err = web.RenderNotFound(&buf)
			case err != nil:
				return nil, err
			default:
				err = web.RenderDemo(&buf, web.DemoPage{BotKey: v.Key, Name: v.Name, SiteURL: web.SiteURL(in.URL),
					Edit: in.Edit == 1, Origin: s.publicOrigin})
			}
			if err != nil {
				return nil, err
			}
			out.Body = buf.Bytes()
			return out, nil
		})
	documentHTML(s.api.OpenAPI(), path, "200", "The demo page.")
	documentHTML(s.api.OpenAPI(), path, "404", "No bot has this key: a short HTML page.")
}

// documentHTML describes a text/html response of a GET operation (huma
// describes a []byte body as JSON).
func documentHTML(oapi *huma.OpenAPI, path, status, desc string) {
	item := oapi.Paths[path]
	if item == nil || item.Get == nil {
		return
	}
	resp := item.Get.Responses[status]
	if resp == nil {
		resp = &huma.Response{}
		item.Get.Responses[status] = resp
	}
	resp.Description = desc
	resp.Content = map[string]*huma.MediaType{"text/html": {Schema: &huma.Schema{Type: "string"}}}
}

// widgetScript serves widget.js: gzip when the client takes it, validators
// for cheap revalidation, a short public cache life so a new release
// reaches every site within minutes, and readable from any origin.
func (s *Server) widgetScript(w http.ResponseWriter, r *http.Request) {
	a := web.Widget
	body, etag := a.Body, a.ETag
	h := w.Header()
	h.Add("Vary", "Accept-Encoding")
	if acceptsGzip(r.Header.Values("Accept-Encoding")) {
		body, etag = a.Gzip, a.GzipETag
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("Content-Type", "application/javascript; charset=utf-8")
	h.Set("Cache-Control", "public, max-age=300")
	h.Set("ETag", etag)
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Cross-Origin-Resource-Policy", "cross-origin")
	h.Set("X-Content-Type-Options", "nosniff")
	if etagMatches(r.Header.Values("If-None-Match"), etag) {
		h.Del("Content-Encoding")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// acceptsGzip reads Accept-Encoding: gzip (or x-gzip, or *) with a
// non-zero quality.
func acceptsGzip(values []string) bool {
	gzipQ, starQ := -1.0, -1.0
	for _, v := range values {
		for _, item := range strings.Split(v, ",") {
			name, params, _ := strings.Cut(item, ";")
			q := 1.0
			for _, p := range strings.Split(params, ";") {
				k, val, ok := strings.Cut(strings.TrimSpace(p), "=")
				if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
					if f, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
						q = f
					}
				}
			}
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "gzip", "x-gzip":
				gzipQ = max(gzipQ, q)
			case "*":
				starQ = max(starQ, q)
			}
		}
	}
	if gzipQ >= 0 {
		return gzipQ > 0
	}
	return starQ > 0
}

// etagMatches is the weak comparison of If-None-Match (RFC 9110 13.1.2).
func etagMatches(values []string, etag string) bool {
	for _, v := range values {
		for _, t := range strings.Split(v, ",") {
			t = strings.TrimSpace(t)
			if t == "*" || strings.TrimPrefix(t, "W/") == etag {
				return true
			}
		}
	}
	return false
}
