package crawl

import (
	"bytes"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlInfo is what the crawler needs from a page; text extraction happens
// on the knowledge side.
type htmlInfo struct {
	title     string
	canonical string   // href of <link rel=canonical>, unresolved
	base      string   // href of <base>, unresolved
	links     []string // hrefs of <a> and <area>, unresolved, at most maxLinksPerPage
}

// scanHTML tokenises rather than builds a tree: it is linear in the body
// and allocates little, whatever the markup looks like.
func scanHTML(body []byte) htmlInfo {
	var info htmlInfo
	z := html.NewTokenizer(bytes.NewReader(body))
	inTitle, haveTitle := false, false
	var title strings.Builder
	for {
		switch z.Next() {
		case html.ErrorToken:
			info.title = strings.Join(strings.Fields(title.String()), " ")
			return info
		case html.TextToken:
			if inTitle && title.Len() < 4096 {
				title.Write(z.Text())
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); atom.Lookup(name) == atom.Title {
				inTitle = false
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			if a == atom.Title && !haveTitle {
				inTitle, haveTitle = true, true
				continue
			}
			if !hasAttr || (a != atom.A && a != atom.Area && a != atom.Link && a != atom.Base) {
				continue
			}
			var href, rel string
			for {
				k, v, more := z.TagAttr()
				switch string(k) {
				case "href":
					href = string(v)
				case "rel":
					rel = strings.ToLower(string(v))
				}
				if !more {
					break
				}
			}
			href = strings.TrimSpace(href)
			if href == "" {
				continue
			}
			switch a {
			case atom.Base:
				if info.base == "" {
					info.base = href
				}
			case atom.Link:
				if info.canonical == "" && hasToken(rel, "canonical") {
					info.canonical = href
				}
			default:
				if len(info.links) < maxLinksPerPage {
					info.links = append(info.links, href)
				}
			}
		}
	}
}

func hasToken(list, tok string) bool {
	for _, f := range strings.Fields(list) {
		if f == tok {
			return true
		}
	}
	return false
}

// resolve makes href absolute against base and returns its fetch form, or
// nil for anything the crawler will not fetch (other schemes, credentials,
// binary extensions).
func resolve(base *url.URL, href string) *url.URL {
	ref, err := url.Parse(href)
	if err != nil {
		return nil
	}
	u, err := clean(base.ResolveReference(ref))
	if err != nil || skippable(u) {
		return nil
	}
	return u
}

// page builds the Page for a fetched response and collects its same-site
// links (fetch forms). finalKey is the key of the URL that answered, which
// differs from Page.URL when a same-site rel=canonical names another page.
func (s *session) page(r *response) (p *Page, finalKey string, links []*url.URL) {
	final := r.final
	if c, err := clean(r.final); err == nil {
		final = c
	}
	finalKey = keyOf(final)
	p = &Page{
		URL: finalKey, FinalURL: r.final.String(), Status: r.status, ContentType: r.ct, Body: r.body,
		ETag: r.header.Get("ETag"), LastModified: r.header.Get("Last-Modified"),
	}
	if !isHTML(r.ct) {
		return p, finalKey, nil
	}
	info := scanHTML(r.body)
	p.Title = info.title
	base := r.final
	if info.base != "" {
		if b, err := base.Parse(info.base); err == nil && (b.Scheme == "http" || b.Scheme == "https") {
			base = b
		}
	}
	// Another site's canonical is ignored: a page is indexed under its own
	// site's URL, and a hostile page must not claim someone else's.
	if info.canonical != "" {
		if cu := resolve(base, info.canonical); cu != nil && s.sameSite(cu) {
			p.URL = keyOf(cu)
		}
	}
	for _, href := range info.links {
		if u := resolve(base, href); u != nil && s.sameSite(u) {
			links = append(links, u)
		}
	}
	return p, finalKey, links
}
