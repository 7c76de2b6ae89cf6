package extract

import (
	"bytes"
	"context"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"golang.org/x/net/html"
)

// maxMarkdownNesting is the deepest block nesting (">>>>", "- - - -")
// handed to goldmark, whose parser and AST walk recurse per level.
// Deeper input is read as plain text instead.
const maxMarkdownNesting = 64

var markdownParser = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough)).Parser()

func extractMarkdown(ctx context.Context, data []byte, lim Limits) (*Document, error) {
	src := bytes.ReplaceAll([]byte(decodeText(data)), []byte("\r\n"), []byte("\n"))
	src, fmTitle := stripFrontMatter(src)
	if blockNesting(src) > maxMarkdownNesting {
		doc, err := extractText(ctx, src, lim)
		if doc != nil {
			doc.Title = fmTitle
		}
		return doc, err
	}
	root := markdownParser.Parse(text.NewReader(src))
	w := &mdWalker{b: newBuilder(ctx, lim), src: src}
	if err := w.walk(root); err != nil {
		return nil, err
	}
	title := fmTitle
	if title == "" {
		title = w.firstH1
	}
	return &Document{Title: title, Sections: w.b.finish()}, nil
}

type mdWalker struct {
	b       *builder
	src     []byte
	firstH1 string
	list    []string // lines of the outermost open list
	inList  int
}

type mdFrame struct {
	n        ast.Node
	entering bool
}

// walk visits blocks with an explicit stack so hostile nesting cannot
// exhaust the goroutine stack in our code.
func (w *mdWalker) walk(root ast.Node) error {
	stack := []mdFrame{{root, true}}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !f.entering {
			if err := w.leave(f.n); err != nil {
				return err
			}
			continue
		}
		descend, err := w.enter(f.n)
		if err != nil {
			return err
		}
		if !descend {
			continue
		}
		stack = append(stack, mdFrame{f.n, false})
		var kids []ast.Node
		for c := f.n.FirstChild(); c != nil; c = c.NextSibling() {
			kids = append(kids, c)
		}
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, mdFrame{kids[i], true})
		}
	}
	return nil
}

// enter handles a block and reports whether to visit its children.
func (w *mdWalker) enter(n ast.Node) (bool, error) {
	switch n := n.(type) {
	case *ast.Heading:
		t := inlineText(n, w.src)
		if n.Level == 1 && w.firstH1 == "" {
			w.firstH1 = cleanInline(t)
		}
		return false, w.b.heading(n.Level, t, "")
	case *ast.Paragraph, *ast.TextBlock:
		return false, w.block(inlineText(n, w.src))
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		return false, w.block(string(n.Lines().Value(w.src)))
	case *ast.HTMLBlock:
		var buf bytes.Buffer
		buf.Write(n.Lines().Value(w.src))
		if n.HasClosure() {
			buf.Write(n.ClosureLine.Value(w.src))
		}
		return false, w.block(htmlFragmentText(buf.String()))
	case *extast.Table:
		return false, w.block(tableText(n, w.src))
	case *ast.List:
		w.inList++
		return true, nil
	case *ast.ListItem:
		w.list = append(w.list, "- ")
		return true, nil
	case *ast.ThematicBreak, *ast.LinkReferenceDefinition:
		return false, nil
	}
	return true, nil
}

func (w *mdWalker) leave(n ast.Node) error {
	if _, ok := n.(*ast.List); !ok {
		return nil
	}
	w.inList--
	if w.inList > 0 {
		return nil
	}
	var lines []string
	for _, l := range w.list {
		if l = strings.TrimSpace(l); l != "-" && l != "" {
			lines = append(lines, l)
		}
	}
	w.list = nil
	return w.b.para(strings.Join(lines, "\n"))
}

// block adds a paragraph, or inside a list appends it to the current item
// so a list stays one paragraph of "- item" lines.
func (w *mdWalker) block(s string) error {
	if w.inList == 0 {
		return w.b.para(s)
	}
	if len(w.list) == 0 {
		w.list = append(w.list, "- ")
	}
	last := len(w.list) - 1
	if strings.TrimSpace(w.list[last]) != "-" {
		w.list[last] += " "
	}
	w.list[last] += strings.ReplaceAll(cleanText(s), "\n", " ")
	return nil
}

// inlineText renders the inline content of a block: link and image text
// kept, URLs, raw HTML and markup dropped.
func inlineText(n ast.Node, src []byte) string {
	var sb strings.Builder
	stack := []ast.Node{}
	for c := n.LastChild(); c != nil; c = c.PreviousSibling() {
		stack = append(stack, c)
	}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch c := c.(type) {
		case *ast.Text:
			sb.Write(c.Segment.Value(src))
			switch {
			case c.HardLineBreak():
				sb.WriteByte('\n')
			case c.SoftLineBreak():
				sb.WriteByte(' ')
			}
			continue
		case *ast.String:
			sb.Write(c.Value)
			continue
		case *ast.AutoLink:
			sb.Write(c.Label(src))
			continue
		case *ast.RawHTML:
			continue
		}
		for k := c.LastChild(); k != nil; k = k.PreviousSibling() {
			stack = append(stack, k)
		}
	}
	return sb.String()
}

func tableText(t *extast.Table, src []byte) string {
	var rows []string
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		var cells []string
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, cleanInline(inlineText(c, src)))
		}
		rows = append(rows, strings.Join(cells, "\t"))
	}
	return strings.Join(rows, "\n")
}

// htmlFragmentText is the text of raw HTML embedded in Markdown, with
// script and style content dropped.
func htmlFragmentText(s string) string {
	z := html.NewTokenizer(strings.NewReader(s))
	var sb strings.Builder
	skip := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return sb.String()
		case html.StartTagToken:
			name, _ := z.TagName()
			if skipTags[string(name)] {
				skip++
			} else if blockTags[string(name)] {
				sb.WriteByte('\n')
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if skipTags[string(name)] && skip > 0 {
				skip--
			} else if blockTags[string(name)] {
				sb.WriteByte('\n')
			}
		case html.TextToken:
			if skip == 0 {
				sb.Write(z.Text())
			}
		}
	}
}

// stripFrontMatter removes a leading YAML front matter block, which
// goldmark would otherwise read as a thematic break and a setext heading,
// and returns its title.
func stripFrontMatter(src []byte) ([]byte, string) {
	rest, ok := bytes.CutPrefix(src, []byte("---\n"))
	if !ok {
		return src, ""
	}
	title := ""
	off := 0
	for i := 0; i < 200 && off < len(rest) && off < 64<<10; i++ {
		end := bytes.IndexByte(rest[off:], '\n')
		if end < 0 {
			end = len(rest) - off
		}
		line := strings.TrimSpace(string(rest[off : off+end]))
		off += end + 1
		if line == "---" || line == "..." {
			return rest[min(off, len(rest)):], title
		}
		if v, ok := strings.CutPrefix(line, "title:"); ok && title == "" {
			title = strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return src, ""
}

// blockNesting estimates the deepest container nesting from the quote
// and list markers ("> ", "- ", "1. ") that open a line.
func blockNesting(src []byte) int {
	deepest := 0
	for line := range bytes.SplitSeq(src, []byte("\n")) {
		depth := 0
		for i := 0; i < len(line); {
			c := line[i]
			switch {
			case c == ' ' || c == '\t':
				i++
				continue
			case c == '>':
				depth++
				i++
				continue
			case (c == '-' || c == '*' || c == '+') && i+1 < len(line) && (line[i+1] == ' ' || line[i+1] == '\t'):
				depth++
				i += 2
				continue
			case c >= '0' && c <= '9':
				j := i
				for j < len(line) && j-i < 9 && line[j] >= '0' && line[j] <= '9' {
					j++
				}
				if j+1 < len(line) && (line[j] == '.' || line[j] == ')') && (line[j+1] == ' ' || line[j+1] == '\t') {
					depth++
					i = j + 2
					continue
				}
			}
			break
		}
		deepest = max(deepest, depth)
	}
	return deepest
}
