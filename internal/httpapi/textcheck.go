package httpapi

import (
	"bytes"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humachi"

	"concierge/internal/apperr"
)

// One rule at the edge for every string a request brings (path, query,
// headers, JSON bodies, multipart names): it is valid UTF-8 and holds no NUL.
// PostgreSQL refuses both in text columns, SQLite would store them, and no
// customer means either; refusing them here answers the same 422 on both
// engines before any handler or query runs. Text extracted from uploaded
// files and crawled pages is cleaned by the extractors instead.

// Validation types of the two problems.
const (
	typeInvalidUnicode = "string_unicode"
	typeNulCharacter   = "string_nul_character"
)

// textProblem classifies s: "" when it is fine.
func textProblem(s string) string {
	if !utf8.ValidString(s) {
		return typeInvalidUnicode
	}
	if strings.IndexByte(s, 0) >= 0 {
		return typeNulCharacter
	}
	return ""
}

func textItem(loc []any, typ string) validationItem {
	msg := "Text must be valid UTF-8"
	if typ == typeNulCharacter {
		msg = "Text must not contain NUL characters"
	}
	return validationItem{Loc: loc, Msg: msg, Type: typ}
}

// checkTextField is the rule for one value that huma does not see as
// JSON (a multipart file name); nil when it is fine.
func checkTextField(v string, loc ...any) error {
	if typ := textProblem(v); typ != "" {
		return &ErrorBody{status: http.StatusUnprocessableEntity, Detail: []validationItem{textItem(loc, typ)}}
	}
	return nil
}

// checkText applies the rule to the operation's parameters, every query
// value and name, and a JSON body, answering 422 with each offending field's
// loc. It runs after authentication, so a missing key is still a 401.
func (s *Server) checkText(ctx huma.Context, next func(huma.Context)) {
	var items []validationItem
	op := ctx.Operation()
	for _, p := range op.Parameters {
		var v string
		switch p.In {
		case "path":
			v = ctx.Param(p.Name)
		case "header":
			v = ctx.Header(p.Name)
		default:
			continue // every query value is checked below
		}
		if typ := textProblem(v); typ != "" {
			items = append(items, textItem([]any{p.In, p.Name}, typ))
		}
	}
	r, _ := humachi.Unwrap(ctx)
	if raw := r.URL.RawQuery; raw != "" {
		items = append(items, queryProblems(raw)...)
	}
	if r.Body != nil && r.Body != http.NoBody && isJSON(r.Header.Get("Content-Type")) {
		limit := op.MaxBodyBytes
		if limit <= 0 {
			limit = DefaultMaxBody
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
		if err != nil {
			s.writeErr(ctx, apperr.BadRequest("cannot read the request body"))
			return
		}
		if int64(len(body)) > limit {
			s.writeErr(ctx, apperr.New(apperr.KindTooLarge, "request body is too large"))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		items = append(items, jsonTextProblems(body)...)
	}
	if len(items) > 0 {
		s.writeErr(ctx, &ErrorBody{status: http.StatusUnprocessableEntity, Detail: items})
		return
	}
	next(ctx)
}

// queryProblems checks every name and value of a raw query string, decoded
// as the handlers will see them.
func queryProblems(raw string) []validationItem {
	var items []validationItem
	for part := range strings.SplitSeq(raw, "&") {
		if part == "" {
			continue
		}
		name, value, _ := strings.Cut(part, "=")
		n, err1 := unescapeQuery(name)
		v, err2 := unescapeQuery(value)
		if err1 != nil || err2 != nil {
			continue // the parameter parser reports malformed escapes
		}
		loc := []any{"query", printable(n)}
		if typ := textProblem(n); typ != "" {
			items = append(items, textItem(loc, typ))
		} else if typ := textProblem(v); typ != "" {
			items = append(items, textItem(loc, typ))
		}
	}
	return items
}

// unescapeQuery decodes %XX escapes and '+' as the url package does for
// query strings.
func unescapeQuery(s string) (string, error) {
	if !strings.ContainsAny(s, "%+") {
		return s, nil
	}
	return url.QueryUnescape(s)
}

// printable makes a name safe to echo in a loc: the bad bytes are dropped.
func printable(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, ""), "\x00", "")
}

func isJSON(ct string) bool {
	if ct == "" {
		return true // huma decodes a body without a Content-Type as JSON
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// jsonTextProblems finds every string (key or value) of a JSON document that
// breaks the rule: invalid UTF-8 bytes, a NUL (raw or \u0000) or an
// unpaired surrogate escape (which decoders silently turn into U+FFFD). A
// body that is not JSON yields nothing here: the decoder reports it.
func jsonTextProblems(b []byte) []validationItem {
	if utf8.Valid(b) && bytes.IndexByte(b, 0) < 0 && !bytes.Contains(b, []byte(`\u`)) {
		return nil // the common case: nothing to look at closely
	}
	sc := &jsonScanner{b: b, path: []any{"body"}}
	sc.value(0)
	return sc.items
}

type jsonScanner struct {
	b     []byte
	i     int
	path  []any
	items []validationItem
	bad   bool // the document is malformed: stop
}

const maxScanDepth = 512

func (s *jsonScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *jsonScanner) value(depth int) {
	s.ws()
	if s.bad || s.i >= len(s.b) || depth > maxScanDepth {
		s.bad = true
		return
	}
	switch s.b[s.i] {
	case '{':
		s.i++
		s.object(depth)
	case '[':
		s.i++
		s.array(depth)
	case '"':
		if _, typ := s.str(); typ != "" {
			s.items = append(s.items, textItem(append([]any(nil), s.path...), typ))
		}
	default:
		// A number, true, false or null: skip to the next delimiter.
		for s.i < len(s.b) && !strings.ContainsRune(",]} \t\r\n", rune(s.b[s.i])) {
			s.i++
		}
	}
}

func (s *jsonScanner) object(depth int) {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return
	}
	for !s.bad {
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			s.bad = true
			return
		}
		key, typ := s.str()
		s.path = append(s.path, printable(key))
		if typ != "" {
			s.items = append(s.items, textItem(append([]any(nil), s.path...), typ))
		}
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			s.bad = true
			return
		}
		s.i++
		s.value(depth + 1)
		s.path = s.path[:len(s.path)-1]
		if !s.more('}') {
			return
		}
	}
}

func (s *jsonScanner) array(depth int) {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return
	}
	for n := 0; !s.bad; n++ {
		s.path = append(s.path, n)
		s.value(depth + 1)
		s.path = s.path[:len(s.path)-1]
		if !s.more(']') {
			return
		}
	}
}

// more reads the delimiter after a member or element: true after a comma,
// false after the closing byte or on anything else (which marks the
// document malformed).
func (s *jsonScanner) more(closing byte) bool {
	s.ws()
	switch {
	case s.i < len(s.b) && s.b[s.i] == ',':
		s.i++
		return true
	case s.i < len(s.b) && s.b[s.i] == closing:
		s.i++
	default:
		s.bad = true
	}
	return false
}

// str reads the string at s.i (its opening quote) and returns its raw text
// and the first problem in it.
func (s *jsonScanner) str() (string, string) {
	start := s.i + 1
	s.i++
	problem := ""
	note := func(typ string) {
		if problem == "" || typ == typeNulCharacter {
			problem = typ
		}
	}
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			raw := string(s.b[start:s.i])
			s.i++
			return raw, problem
		case c == '\\':
			if s.i+1 >= len(s.b) {
				s.bad = true
				return "", problem
			}
			if s.b[s.i+1] != 'u' {
				s.i += 2
				continue
			}
			r, ok := hex4(s.b, s.i+2)
			if !ok {
				s.bad = true
				return "", problem
			}
			s.i += 6
			switch {
			case r == 0:
				note(typeNulCharacter)
			case r >= 0xD800 && r < 0xDC00:
				// A high surrogate must be followed by an escaped low one.
				if s.i+1 < len(s.b) && s.b[s.i] == '\\' && s.b[s.i+1] == 'u' {
					if lo, ok := hex4(s.b, s.i+2); ok && lo >= 0xDC00 && lo < 0xE000 {
						s.i += 6
						continue
					}
				}
				note(typeInvalidUnicode)
			case r >= 0xDC00 && r < 0xE000:
				note(typeInvalidUnicode)
			}
		case c == 0:
			note(typeNulCharacter)
			s.i++
		case c < utf8.RuneSelf:
			s.i++
		default:
			r, n := utf8.DecodeRune(s.b[s.i:])
			if r == utf8.RuneError && n == 1 {
				note(typeInvalidUnicode)
			}
			s.i += n
		}
	}
	s.bad = true
	return "", problem
}

func hex4(b []byte, at int) (rune, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[at : at+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}
