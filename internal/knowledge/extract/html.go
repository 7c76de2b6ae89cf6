package extract

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	readability "codeberg.org/readeck/go-readability"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

const (
	// minReadableRunes is the size under which readability's main content
	// is taken to have missed the point (a product page, a FAQ of short
	// entries) and the whole body is used instead.
	minReadableRunes = 200
	// Readability is many passes of tree scoring; beyond these sizes the
	// page is read whole, which is linear.
	maxReadabilityElems = 20_000
	maxReadabilityDepth = 256
)

// skipTags hold no reading text: code, chrome and embedded objects.
var skipTags = map[string]bool{
	"script": true, "style": true, "noscript": true, "template": true, "nav": true,
	"footer": true, "svg": true, "math": true, "iframe": true, "object": true, "embed": true,
	"canvas": true, "select": true, "button": true, "head": true,
}

// blockTags end the paragraph being collected.
var blockTags = map[string]bool{
	"p": true, "div": true, "section": true, "article": true, "header": true, "aside": true,
	"main": true, "blockquote": true, "pre": true, "table": true, "ul": true, "ol": true,
	"dl": true, "dt": true, "dd": true, "figure": true, "figcaption": true, "hr": true,
	"address": true, "details": true, "summary": true, "h5": true, "h6": true, "form": true,
	"fieldset": true, "caption": true, "body": true, "html": true,
}

func extractHTML(ctx context.Context, data []byte, lim Limits) (*Document, error) {
	src := decodeText(data)
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		return nil, newErr(ErrMalformed, err, "the HTML file could not be read")
	}
	meta := readMeta(doc)
	elems, depth := measure(doc)
	markHeadings(doc)
	lead := findLead(doc)

	var sections []Section
	var stats textStats
	title := ""
	if elems <= maxReadabilityElems && depth <= maxReadabilityDepth {
		// Readability mutates the tree; the original is not needed again
		// except by the fallback, which parses afresh.
		if art, ok := readable(doc); ok {
			sections, stats, err = htmlSections(ctx, art.Node, lim)
			if err != nil {
				return nil, err
			}
			title = art.Title
			if art.Language != "" {
				meta.lang = art.Language
			}
		}
	}
	if sectionRunes(sections) < minReadableRunes {
		whole, err := html.Parse(strings.NewReader(src))
		if err != nil {
			return nil, newErr(ErrMalformed, err, "the HTML file could not be read")
		}
		all, allStats, err := htmlSections(ctx, whole, lim)
		if err != nil {
			return nil, err
		}
		if sectionRunes(all) > sectionRunes(sections) {
			sections, stats = all, allStats
		}
	}
	sections = withLead(sections, lead)
	for _, t := range []string{title, meta.ogTitle, meta.title, meta.h1} {
		if t = cleanInline(t); t != "" {
			title = t
			break
		}
	}
	return &Document{Title: title, Sections: sections, Language: primaryLang(meta.lang), Listing: stats.listing()}, nil
}

// textStats counts the non-space runes of the text kept, and of those the
// ones inside links and inside code.
type textStats struct{ all, link, code int }

// A page is a listing when, of at least listingMinRunes of text, this
// share is link text or that share code.
const (
	listingMinRunes  = 300
	listingLinkShare = 0.5
	listingCodeShare = 0.6
)

func (t textStats) listing() bool {
	if t.all < listingMinRunes {
		return false
	}
	return float64(t.link) >= listingLinkShare*float64(t.all) || float64(t.code) >= listingCodeShare*float64(t.all)
}

// readable runs readability, whose scoring passes are many and intricate;
// a panic in them costs the main-content view, not the document.
func readable(doc *html.Node) (art readability.Article, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	p := readability.NewParser()
	p.DisableJSONLD = true
	art, err := p.ParseAndMutate(doc, nil)
	return art, err == nil && art.Node != nil
}

func sectionRunes(ss []Section) int {
	n := 0
	for _, s := range ss {
		n += utf8.RuneCountInString(s.Text)
	}
	return n
}

type htmlMeta struct{ title, ogTitle, h1, lang string }

// readMeta collects title candidates and the declared language.
func readMeta(doc *html.Node) htmlMeta {
	var m htmlMeta
	stack := []*html.Node{doc}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.Html:
				m.lang = getAttr(n, "lang")
			case atom.Title:
				if m.title == "" {
					m.title = textContent(n)
				}
			case atom.Meta:
				if p := getAttr(n, "property"); (p == "og:title" || getAttr(n, "name") == "og:title") && m.ogTitle == "" {
					m.ogTitle = getAttr(n, "content")
				}
			case atom.H1:
				if m.h1 == "" {
					m.h1 = textContent(n)
				}
			}
		}
		for c := n.LastChild; c != nil; c = c.PrevSibling {
			stack = append(stack, c)
		}
	}
	return m
}

// levelAttr records a heading's original level: readability renames h1 to
// h2 in the content it keeps, which would make an H1 it did not take as
// the title a sibling of the sections it heads.
const levelAttr = "data-concierge-level"

func markHeadings(doc *html.Node) {
	stack := []*html.Node{doc}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.Type == html.ElementNode && len(n.Data) == 2 && n.Data[0] == 'h' && n.Data[1] >= '1' && n.Data[1] <= '4' {
			n.Attr = append(n.Attr, html.Attribute{Key: levelAttr, Val: n.Data[1:]})
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			stack = append(stack, c)
		}
	}
}

// measure counts elements and the maximum depth without recursion.
func measure(doc *html.Node) (elems, depth int) {
	type item struct {
		n *html.Node
		d int
	}
	stack := []item{{doc, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.n.Type == html.ElementNode {
			elems++
		}
		depth = max(depth, it.d)
		for c := it.n.FirstChild; c != nil; c = c.NextSibling {
			stack = append(stack, item{c, it.d + 1})
		}
	}
	return elems, depth
}

func getAttr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func textContent(n *html.Node) string {
	var sb strings.Builder
	stack := []*html.Node{n}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if c.Type == html.TextNode {
			sb.WriteString(c.Data)
			sb.WriteByte(' ')
		}
		if c != n && c.Type == html.ElementNode && (skipTags[c.Data] || isPermalink(c)) {
			continue
		}
		for k := c.LastChild; k != nil; k = k.PrevSibling {
			stack = append(stack, k)
		}
	}
	return sb.String()
}

// htmlSections renders a tree into sections split on h1–h4. Tables become
// rows of tab-separated cells, list items lines, and pre keeps its line
// breaks; everything else flows into paragraphs ended by block elements.
func htmlSections(ctx context.Context, root *html.Node, lim Limits) ([]Section, textStats, error) {
	b := newBuilder(ctx, lim)
	var para strings.Builder
	var stats textStats
	pre, link, code := 0, 0, 0
	flush := func() error {
		s := para.String()
		para.Reset()
		return b.para(s)
	}
	type frame struct {
		n     *html.Node
		enter bool
	}
	stack := []frame{{root, true}}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := f.n
		switch n.Type {
		case html.TextNode:
			if pre > 0 {
				para.WriteString(n.Data)
			} else {
				para.WriteString(strings.ReplaceAll(n.Data, "\n", " "))
			}
			k := 0
			for _, r := range n.Data {
				if !unicode.IsSpace(r) {
					k++
				}
			}
			stats.all += k
			if link > 0 {
				stats.link += k
			}
			if pre > 0 || code > 0 {
				stats.code += k
			}
			continue
		case html.ElementNode:
		case html.DocumentNode:
			for c := n.LastChild; c != nil; c = c.PrevSibling {
				stack = append(stack, frame{c, true})
			}
			continue
		default:
			continue
		}
		tag := n.Data
		if !f.enter {
			switch {
			case tag == "a":
				link--
			case tag == "code" || tag == "kbd" || tag == "samp":
				code--
			case tag == "pre":
				pre--
				if err := flush(); err != nil {
					return nil, stats, err
				}
			case tag == "tr" || tag == "li":
				para.WriteByte('\n')
			case blockTags[tag]:
				if err := flush(); err != nil {
					return nil, stats, err
				}
			}
			continue
		}
		if skipTags[tag] || getAttr(n, "hidden") != "" || strings.EqualFold(getAttr(n, "aria-hidden"), "true") || isPermalink(n) {
			continue
		}
		switch tag {
		case "h1", "h2", "h3", "h4":
			if err := flush(); err != nil {
				return nil, stats, err
			}
			level := int(tag[1] - '0')
			if l := getAttr(n, levelAttr); len(l) == 1 && l[0] >= '1' && l[0] <= '4' {
				level = int(l[0] - '0')
			}
			if err := b.heading(level, textContent(n), headingAnchor(n)); err != nil {
				return nil, stats, err
			}
			continue
		case "br":
			para.WriteByte('\n')
		case "td", "th":
			para.WriteByte('\t')
		case "li":
			para.WriteString("\n- ")
		case "img":
			continue
		case "a":
			link++
		case "code", "kbd", "samp":
			code++
		case "pre":
			if err := flush(); err != nil {
				return nil, stats, err
			}
			pre++
		default:
			if blockTags[tag] {
				if err := flush(); err != nil {
					return nil, stats, err
				}
			}
		}
		stack = append(stack, frame{n, false})
		for c := n.LastChild; c != nil; c = c.PrevSibling {
			stack = append(stack, frame{c, true})
		}
	}
	if err := flush(); err != nil {
		return nil, stats, err
	}
	return b.finish(), stats, nil
}

// primaryLang reduces "en-US" to "en"; anything odd becomes "".
func primaryLang(tag string) string {
	tag = strings.ToLower(strings.TrimSpace(tag))
	if i := strings.IndexAny(tag, "-_"); i >= 0 {
		tag = tag[:i]
	}
	if len(tag) < 2 || len(tag) > 3 {
		return ""
	}
	for _, c := range tag {
		if c < 'a' || c > 'z' {
			return ""
		}
	}
	return tag
}

// isPermalink reports a heading's permalink ("¶", "#", "§", "🔗" linking to
// the heading's own fragment, as Sphinx, MkDocs and many blogs add): it is
// chrome, not text.
func isPermalink(n *html.Node) bool {
	if n.Type != html.ElementNode || n.DataAtom != atom.A || !strings.HasPrefix(getAttr(n, "href"), "#") {
		return false
	}
	if strings.Contains(" "+getAttr(n, "class")+" ", " headerlink ") {
		return true
	}
	t := strings.TrimSpace(textContent(n))
	if utf8.RuneCountInString(t) > 2 {
		return false
	}
	for _, r := range t {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// maxAnchor bounds a fragment kept for a deep link.
const maxAnchor = 200

// headingAnchor finds the fragment that links to heading h: its id, an
// anchor inside it (id or the old name form), its permalink's target, or
// the id of the section it opens. "" when none.
func headingAnchor(h *html.Node) string {
	ok := func(a string) string {
		a = strings.TrimPrefix(strings.TrimSpace(a), "#")
		if a == "" || len(a) > maxAnchor || strings.ContainsFunc(a, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
			return ""
		}
		return a
	}
	if a := ok(getAttr(h, "id")); a != "" {
		return a
	}
	stack := []*html.Node{h}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n != h && n.Type == html.ElementNode && n.DataAtom == atom.A {
			if a := ok(getAttr(n, "id")); a != "" {
				return a
			}
			if a := ok(getAttr(n, "name")); a != "" {
				return a
			}
			if isPermalink(n) {
				if a := ok(getAttr(n, "href")); a != "" {
					return a
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			stack = append(stack, c)
		}
	}
	// <section id="x"><h2>...</h2>: the heading opens the section.
	if p := h.Parent; p != nil && (p.DataAtom == atom.Section || p.DataAtom == atom.Div || p.DataAtom == atom.Article) {
		first := p.FirstChild
		for first != nil && first.Type != html.ElementNode {
			first = first.NextSibling
		}
		if first == h {
			return ok(getAttr(p, "id"))
		}
	}
	return ""
}

// lead is the page's opening sentence when it sits outside the main
// content: the first paragraph after the first h1 (a manual page's NAME
// line, a product's tagline under its name), with the heading above it.
type lead struct {
	text    string
	heading string
	anchor  string
}

// Leads shorter or longer than these are not an opening sentence.
const minLeadRunes, maxLeadRunes = 15, 600

// findLead reads the lead from the whole page, before readability trims
// it.
func findLead(doc *html.Node) lead {
	var out lead
	seenH1 := false
	var lastHeading *html.Node
	stack := []*html.Node{doc}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.Type == html.ElementNode {
			if skipTags[n.Data] || isPermalink(n) {
				continue
			}
			switch n.DataAtom {
			case atom.H1:
				seenH1 = true
				continue
			case atom.H2, atom.H3, atom.H4:
				if seenH1 {
					lastHeading = n
				}
				continue
			case atom.P:
				if !seenH1 {
					continue
				}
				t := cleanInline(textContent(n))
				if k := utf8.RuneCountInString(t); k < minLeadRunes || k > maxLeadRunes {
					return out
				}
				out.text = t
				if lastHeading != nil {
					out.heading = cleanInline(textContent(lastHeading))
					out.anchor = headingAnchor(lastHeading)
				}
				return out
			}
		}
		for c := n.LastChild; c != nil; c = c.PrevSibling {
			stack = append(stack, c)
		}
	}
	return out
}

// withLead puts the lead first when the sections do not hold it already.
func withLead(sections []Section, l lead) []Section {
	if l.text == "" {
		return sections
	}
	// Compared without whitespace: inline markup spaces text differently
	// in the two readings.
	squeeze := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsSpace(r) {
				return -1
			}
			return r
		}, s)
	}
	want := squeeze(l.text)
	for _, s := range sections {
		if strings.Contains(squeeze(s.Text), want) {
			return sections
		}
	}
	sec := Section{Text: l.text, Anchor: l.anchor}
	if l.heading != "" {
		sec.HeadingPath = []string{l.heading}
	}
	return append([]Section{sec}, sections...)
}
