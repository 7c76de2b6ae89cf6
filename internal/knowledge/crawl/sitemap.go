package crawl

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/xml"
	"io"
	"net/url"
	"strings"
)

type sitemapRef struct {
	u     *url.URL
	depth int
}

// sitemaps feeds add with the page URLs of the site's sitemaps, in
// document order: those named by the root host's robots.txt, then
// /sitemap.xml on the root's origin; indexes are followed breadth-first up
// to maxSitemapDepth and maxSitemapDocs files. Sitemaps off the site or
// disallowed by robots.txt are not fetched; failures are skipped (a broken
// sitemap must not stop a crawl that can still follow links). add returns
// false to stop. At most MaxSitemapURLs URLs are passed to add, within
// sitemapBudget: the phase is best-effort, links still lead to the pages.
func (s *session) sitemaps(ctx context.Context, root *url.URL, rootHost *hostState, add func(*url.URL) bool) {
	ctx, cancel := context.WithTimeout(ctx, sitemapBudget)
	defer cancel()
	var queue []sitemapRef
	seen := map[string]bool{}
	push := func(raw string, depth int) {
		u, err := parse(raw)
		if err != nil || depth > maxSitemapDepth || !s.sameSite(u) || seen[u.String()] {
			return
		}
		seen[u.String()] = true
		queue = append(queue, sitemapRef{u, depth})
	}
	for _, sm := range rootHost.rules.sitemaps {
		push(sm, 0)
	}
	push(root.Scheme+"://"+root.Host+"/sitemap.xml", 0)

	taken := 0
	for docs := 0; len(queue) > 0 && docs < maxSitemapDocs && taken < s.opts.MaxSitemapURLs; docs++ {
		ref := queue[0]
		queue = queue[1:]
		if ctx.Err() != nil {
			return
		}
		hs, err := s.host(ctx, ref.u)
		if err != nil || !hs.allowed(ref.u) {
			continue
		}
		r, err := s.fetch(ctx, hs, ref.u, nil, true)
		if err != nil || r.status != 200 {
			continue
		}
		_ = parseSitemap(r.body, func(loc string) bool {
			u, err := parse(loc)
			if err != nil {
				return true
			}
			taken++
			return add(u) && taken < s.opts.MaxSitemapURLs
		}, func(loc string) {
			push(loc, ref.depth+1)
		})
	}
}

// parseSitemap streams a sitemap (XML urlset or sitemapindex, or the plain
// text form: one URL per line), gzip-compressed or not, calling page for
// each <url><loc> until it returns false and index for each <sitemap><loc>.
// Decoding stops at maxSitemapDecoded bytes, so a compressed bomb costs
// nothing beyond the cap.
func parseSitemap(body []byte, page func(string) bool, index func(string)) error {
	var r io.Reader = bytes.NewReader(body)
	if len(body) >= 2 && body[0] == 0x1f && body[1] == 0x8b {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return err
		}
		defer zr.Close()
		r = zr
	}
	br := bufio.NewReader(io.LimitReader(r, maxSitemapDecoded))
	if !looksLikeXML(br) {
		sc := bufio.NewScanner(br)
		for sc.Scan() {
			if line := strings.TrimSpace(strings.TrimPrefix(sc.Text(), "\ufeff")); line != "" && !page(line) {
				return nil
			}
		}
		return sc.Err()
	}
	dec := xml.NewDecoder(br)
	dec.Strict = false
	// URLs are ASCII; a declared legacy charset must not abort the parse.
	dec.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil }
	var parent string
	var loc strings.Builder
	inLoc := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err // what was read so far has been delivered
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "url", "sitemap":
				parent = t.Name.Local
			case "loc":
				inLoc = true
				loc.Reset()
			}
		case xml.CharData:
			if inLoc && loc.Len() < 8192 {
				loc.Write(t)
			}
		case xml.EndElement:
			if t.Name.Local != "loc" || !inLoc {
				continue
			}
			inLoc = false
			v := strings.TrimSpace(loc.String())
			switch {
			case v == "":
			case parent == "sitemap":
				index(v)
			case parent == "url":
				if !page(v) {
					return nil
				}
			}
		}
	}
}

// looksLikeXML peeks at the first non-space byte.
func looksLikeXML(br *bufio.Reader) bool {
	for n := 1; n <= 512; n++ {
		b, err := br.Peek(n)
		if err != nil {
			return false
		}
		switch c := b[n-1]; c {
		case ' ', '\t', '\r', '\n', 0xef, 0xbb, 0xbf: // whitespace, UTF-8 BOM
			continue
		default:
			return c == '<'
		}
	}
	return false
}
