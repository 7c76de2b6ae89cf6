package crawl

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"
)

// ErrTooLarge is returned by the default ReadBody when the decoded body
// exceeds the limit. The crawler counts such a page failed: a prefix of a
// PDF or DOCX is unusable, and a page that large is rarely one a visitor
// would be pointed to.
var ErrTooLarge = errors.New("body exceeds the size limit")

// readBody is the default Options.ReadBody. It never holds more than
// max+1 decoded bytes, whatever the wire or Content-Length claim, so a
// gzip bomb costs at most max bytes of memory.
func readBody(resp *http.Response, max int64) ([]byte, error) {
	var r io.Reader = resp.Body
	enc := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding")))
	switch enc {
	case "", "identity":
		// Only meaningful when the bytes are not going to be decoded.
		if resp.ContentLength > max {
			return nil, fmt.Errorf("%w (%d bytes announced, limit %d)", ErrTooLarge, resp.ContentLength, max)
		}
	case "gzip", "x-gzip":
		// The transport removes this header when it decodes itself, so
		// reaching here means the bytes are still compressed.
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			return nil, fmt.Errorf("gzip body: %w", err)
		}
		defer zr.Close()
		r = zr
	default:
		return nil, fmt.Errorf("unsupported content encoding %q", enc)
	}
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%w (limit %d bytes)", ErrTooLarge, max)
	}
	return b, nil
}

// indexableTypes are the media types the knowledge side can extract text
// from (spec 4.4: HTML, plain text, markdown, PDF, DOCX).
var indexableTypes = map[string]bool{
	"text/html":             true,
	"application/xhtml+xml": true,
	"text/plain":            true,
	"text/markdown":         true,
	"text/x-markdown":       true,
	"application/pdf":       true,
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document": true,
}

// typeByExtension is consulted only when the server gives no useful
// Content-Type (missing or application/octet-stream).
var typeByExtension = map[string]string{
	".html": "text/html", ".htm": "text/html", ".txt": "text/plain", ".md": "text/markdown",
	".markdown": "text/markdown", ".pdf": "application/pdf",
	".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
}

// contentType decides from the headers alone whether a response is worth
// reading. It returns the value to put in Page.ContentType, whether the
// type is indexable, and whether the body must be sniffed first (no
// Content-Type at all).
func contentType(h http.Header, u *url.URL) (ct string, ok, sniff bool) {
	raw := strings.TrimSpace(h.Get("Content-Type"))
	if raw == "" {
		if t, found := typeByExtension[strings.ToLower(path.Ext(u.Path))]; found {
			return t, true, false
		}
		return "", false, true
	}
	mt, _, err := mime.ParseMediaType(raw)
	if err != nil {
		return raw, false, false
	}
	if indexableTypes[mt] {
		return raw, true, false
	}
	if mt == "application/octet-stream" || mt == "binary/octet-stream" {
		if t, found := typeByExtension[strings.ToLower(path.Ext(u.Path))]; found {
			return t, true, false
		}
	}
	return mt, false, false
}

// sniffType classifies a body that came without a Content-Type.
func sniffType(body []byte) (string, bool) {
	ct := http.DetectContentType(body)
	mt, _, _ := mime.ParseMediaType(ct)
	return ct, indexableTypes[mt]
}

func isHTML(ct string) bool {
	mt, _, _ := mime.ParseMediaType(ct)
	return mt == "text/html" || mt == "application/xhtml+xml"
}
