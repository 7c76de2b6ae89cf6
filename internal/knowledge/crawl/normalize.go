package crawl

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path"
	"slices"
	"strings"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
)

// ErrInvalidURL is returned for URLs the crawler cannot or will not fetch:
// unparseable, not http or https, without a host, or carrying credentials.
var ErrInvalidURL = errors.New("invalid or unsupported URL")

// Normalize returns the key a page is fetched and indexed under, so that the
// many spellings of one page collapse into one document:
//
//   - scheme and host lower-cased, a trailing dot on the host dropped,
//     internationalised host names in their ASCII (punycode) form;
//   - default ports (:80 for http, :443 for https) dropped;
//   - the fragment dropped;
//   - percent-escapes upper-cased, escapes of unreserved characters decoded,
//     other non-ASCII bytes escaped;
//   - dot segments ("." and "..") resolved; an empty path becomes "/";
//   - a trailing slash dropped from every path but "/": "/docs/" and "/docs"
//     are the same key. Servers almost always serve one of the two or redirect
//     one to the other, and a stable key matters more than the rare site that
//     serves different pages there. The crawler still fetches the URL as it
//     was linked, so relative links resolve against the right base;
//   - the query kept, tracking parameters (utm_*, gclid, fbclid, …) and empty
//     pairs dropped, the rest sorted by name (values of a repeated name keep
//     their order, which some applications rely on).
//
// URLs with user information are refused: credentials found in links must
// never be replayed.
func Normalize(raw string) (string, error) {
	u, err := parse(raw)
	if err != nil {
		return "", err
	}
	return keyOf(u), nil
}

// parse parses and cleans an absolute URL into its fetch form: everything
// Normalize does except dropping the trailing slash.
func parse(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidURL, err)
	}
	return clean(u)
}

// clean returns the fetch form of an absolute URL (see parse).
func clean(u *url.URL) (*url.URL, error) {
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return nil, fmt.Errorf("%w: scheme %q (only http and https)", ErrInvalidURL, u.Scheme)
	}
	if u.Opaque != "" {
		return nil, fmt.Errorf("%w: no host", ErrInvalidURL)
	}
	if u.User != nil {
		return nil, fmt.Errorf("%w: credentials in URL", ErrInvalidURL)
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "" {
		return nil, fmt.Errorf("%w: no host", ErrInvalidURL)
	}
	if !isASCII(host) {
		a, err := idna.Lookup.ToASCII(host)
		if err != nil {
			return nil, fmt.Errorf("%w: host: %v", ErrInvalidURL, err)
		}
		host = a
	}
	port := u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") { // IPv6 literal
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	p := removeDotSegments(normalizeEscapes(u.EscapedPath()))
	out := &url.URL{Scheme: scheme, Host: host, RawQuery: normalizeQuery(u.RawQuery)}
	// Path must hold the decoded form and RawPath the escaped one, or String
	// would re-escape what we just normalised.
	dec, err := url.PathUnescape(p)
	if err != nil {
		return nil, fmt.Errorf("%w: path: %v", ErrInvalidURL, err)
	}
	out.Path, out.RawPath = dec, p
	return out, nil
}

// keyOf turns a fetch form into its key by dropping the trailing slash.
func keyOf(u *url.URL) string {
	k := *u
	if len(k.RawPath) > 1 && strings.HasSuffix(k.RawPath, "/") {
		k.RawPath = strings.TrimRight(k.RawPath, "/")
		if k.RawPath == "" {
			k.RawPath = "/"
		}
		k.Path, _ = url.PathUnescape(k.RawPath)
	}
	return k.String()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// normalizeEscapes applies RFC 3986 6.2.2.1 and 6.2.2.2: upper-case hex in
// escapes, decode escaped unreserved characters, escape raw bytes that have
// no business in a URL.
func normalizeEscapes(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if isUnreserved(v) {
				b.WriteByte(v)
			} else {
				b.WriteByte('%')
				b.WriteString(strings.ToUpper(s[i+1 : i+3]))
			}
			i += 2
			continue
		}
		if c <= ' ' || c >= 0x7f || c == '%' {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

func isUnreserved(c byte) bool {
	return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// removeDotSegments is RFC 3986 5.2.4 on an absolute path. Unlike
// path.Clean it keeps empty segments ("//") and a trailing slash, which
// servers may treat as meaningful.
func removeDotSegments(p string) string {
	if p == "" {
		return "/"
	}
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	if !strings.Contains(p, ".") {
		return p
	}
	in := strings.Split(p[1:], "/")
	out := make([]string, 0, len(in))
	for i, seg := range in {
		last := i == len(in)-1
		switch seg {
		case ".":
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, seg)
			continue
		}
		if last { // "/a/." and "/a/b/.." name a directory
			out = append(out, "")
		}
	}
	return "/" + strings.Join(out, "/")
}

// trackingParams are query parameters that identify a visit, not a page.
var trackingParams = map[string]bool{
	"gclid": true, "gclsrc": true, "dclid": true, "gbraid": true, "wbraid": true, "fbclid": true,
	"msclkid": true, "yclid": true, "twclid": true, "igshid": true, "mc_cid": true, "mc_eid": true,
	"_ga": true, "_gl": true, "_hsenc": true, "_hsmi": true, "mkt_tok": true,
	"phpsessid": true, "jsessionid": true, "sessionid": true,
}

func normalizeQuery(raw string) string {
	if raw == "" {
		return ""
	}
	type pair struct{ name, raw string }
	var pairs []pair
	for _, p := range strings.Split(raw, "&") {
		if p == "" {
			continue
		}
		p = normalizeEscapes(p)
		name, _, _ := strings.Cut(p, "=")
		dec, err := url.QueryUnescape(name)
		if err != nil {
			dec = name
		}
		low := strings.ToLower(dec)
		if strings.HasPrefix(low, "utm_") || trackingParams[low] {
			continue
		}
		pairs = append(pairs, pair{name, p})
	}
	slices.SortStableFunc(pairs, func(a, b pair) int { return strings.Compare(a.name, b.name) })
	parts := make([]string, len(pairs))
	for i, p := range pairs {
		parts[i] = p.raw
	}
	return strings.Join(parts, "&")
}

// siteOf is the registrable domain (eTLD+1) of a host: www.example.com and
// docs.example.com are one site. IP addresses, single-label names and hosts
// that are themselves public suffixes are only their own site, so an
// address never pulls its numeric neighbours in.
func siteOf(host string) string {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if net.ParseIP(h) != nil || !strings.Contains(h, ".") {
		return h
	}
	s, err := publicsuffix.EffectiveTLDPlusOne(h)
	if err != nil {
		return h
	}
	return s
}

// skippedExtensions are file types that are never content the knowledge
// base can index; links to them are dropped without a request.
var skippedExtensions = map[string]bool{}

func init() {
	for _, e := range strings.Fields(`
		zip gz tgz tar bz2 xz 7z rar zst dmg iso img exe msi apk deb rpm bin jar war dll so pkg
		jpg jpeg png gif webp svg ico bmp tif tiff avif heic psd ai eps
		mp4 m4v mov avi mkv webm flv wmv mpg mpeg 3gp mp3 m4a wav ogg oga flac aac opus wma
		css js mjs map json xml rss atom woff woff2 ttf otf eot
		doc xls xlsx ppt pptx odt ods odp rtf epub csv ics vcf`) {
		skippedExtensions[e] = true
	}
}

// skippable reports URLs that are obviously not content, judged by the
// extension of the last path segment.
func skippable(u *url.URL) bool {
	ext := strings.TrimPrefix(strings.ToLower(path.Ext(u.Path)), ".")
	return ext != "" && skippedExtensions[ext]
}
