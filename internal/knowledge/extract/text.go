package extract

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"
)

// builder accumulates paragraphs into sections, keeps the heading path,
// and enforces the output budget and the deadline as text is produced, so
// every format stops as soon as a limit is passed rather than after
// materialising the whole document.
type builder struct {
	ctx      context.Context
	maxRunes int
	runes    int
	heads    []heading
	cur      []string
	sections []Section
	calls    int
}

type heading struct {
	level  int
	text   string
	anchor string // the fragment that links to it, "" when none
}

func newBuilder(ctx context.Context, lim Limits) *builder {
	return &builder{ctx: ctx, maxRunes: lim.MaxOutputRunes}
}

// heading starts a new section. Levels are relative (1 = top); a heading
// closes every open heading of the same or a deeper level, so skipping a
// level (H1 then H3) still gives the path [H1, H3]. anchor is the page
// fragment that links to the heading ("" when it has none).
func (b *builder) heading(level int, raw, anchor string) error {
	if err := b.check(); err != nil {
		return err
	}
	text := truncateRunes(cleanInline(raw), 300)
	if text == "" {
		return nil
	}
	b.flush()
	for len(b.heads) > 0 && b.heads[len(b.heads)-1].level >= level {
		b.heads = b.heads[:len(b.heads)-1]
	}
	b.heads = append(b.heads, heading{level, text, anchor})
	return b.count(text)
}

// para adds one paragraph; raw may contain newlines (kept as line breaks)
// and any amount of junk whitespace and control characters.
func (b *builder) para(raw string) error {
	if err := b.check(); err != nil {
		return err
	}
	text := cleanText(raw)
	if text == "" {
		return nil
	}
	b.cur = append(b.cur, text)
	return b.count(text)
}

func (b *builder) count(s string) error {
	b.runes += utf8.RuneCountInString(s) + 2
	if b.runes > b.maxRunes {
		return newErr(ErrTooLarge, nil, "the document has more than %d characters of text", b.maxRunes)
	}
	return nil
}

// check polls the deadline every few calls; ctx.Err is cheap but the
// builder is called once per paragraph of multi-megabyte documents.
func (b *builder) check() error {
	b.calls++
	if b.calls%32 == 0 {
		return b.ctx.Err()
	}
	return nil
}

func (b *builder) flush() {
	if len(b.cur) == 0 {
		return
	}
	var path []string
	anchor := ""
	for _, h := range b.heads {
		path = append(path, h.text)
		if h.anchor != "" {
			anchor = h.anchor // the deepest heading that has one
		}
	}
	b.sections = append(b.sections, Section{HeadingPath: path, Anchor: anchor, Text: strings.Join(b.cur, "\n\n")})
	b.cur = nil
}

func (b *builder) finish() []Section {
	b.flush()
	return b.sections
}

// cleanText normalises a paragraph: valid UTF-8, no control characters,
// horizontal whitespace collapsed (a run holding a tab becomes one tab, so
// table cells stay apart), lines trimmed, blank lines dropped.
func cleanText(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	var out strings.Builder
	out.Grow(len(s))
	lineHas := false // the current line has text
	needNL := false  // a line with text ended: the next text starts a new line
	pendingSpace, pendingTab := false, false
	for i := 0; i < len(s); {
		r, n := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		switch {
		case r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029' || r == '\f' || r == '\v' || r == '\u0085':
			needNL = needNL || lineHas
			lineHas, pendingSpace, pendingTab = false, false, false
		case r == '\t':
			pendingTab = true
		case r == ' ' || (r >= utf8.RuneSelf && unicode.IsSpace(r)):
			pendingSpace = true
		case r < 0x20 || (r >= 0x7f && r < 0xa0) || r == '\uFEFF' || r == '\uFFFE' || r == '\uFFFF' || r == 0xAD:
			// Controls, byte-order marks, non-characters and soft
			// hyphens carry no text.
		default:
			switch {
			case lineHas && pendingTab:
				out.WriteByte('\t')
			case lineHas && pendingSpace:
				out.WriteByte(' ')
			case !lineHas && needNL:
				out.WriteByte('\n')
				needNL = false
			}
			pendingSpace, pendingTab, lineHas = false, false, true
			out.WriteString(s[i : i+n])
		}
		i += n
	}
	return out.String()
}

// cleanInline is cleanText for one-line values (titles, headings, cells).
func cleanInline(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(cleanText(s), "\t", " ")), " ")
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n]))
}

// splitParagraphs splits text on blank lines; CRLF and CR count as LF.
func splitParagraphs(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	var paras []string
	var cur []string
	for line := range strings.SplitSeq(s, "\n") {
		if strings.TrimSpace(line) == "" {
			if len(cur) > 0 {
				paras = append(paras, strings.Join(cur, "\n"))
				cur = cur[:0]
			}
			continue
		}
		cur = append(cur, line)
	}
	if len(cur) > 0 {
		paras = append(paras, strings.Join(cur, "\n"))
	}
	return paras
}

func extractText(ctx context.Context, data []byte, lim Limits) (*Document, error) {
	text := decodeText(data)
	b := newBuilder(ctx, lim)
	for _, p := range splitParagraphs(text) {
		if err := b.para(p); err != nil {
			return nil, err
		}
	}
	return &Document{Sections: b.finish()}, nil
}
