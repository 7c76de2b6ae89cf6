package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// PDF text comes from poppler's pdftotext when it is installed (better
// reading order, spacing, encodings, PDF 2.0, and it runs in its own
// process), else from the pure-Go github.com/ledongthuc/pdf, which panics
// and allocates without bound on hostile files and so runs in a child
// process too (see sandbox_linux.go). Either way the parser can be killed
// at the deadline and its memory is capped, which recover() alone cannot
// give.

// pdfText is what either reader produces: the metadata title and the text
// of each page, in order.
type pdfText struct {
	Title string   `json:"title"`
	Pages []string `json:"pages"`
}

const (
	// pdftotextMemory caps poppler's address space (prlimit --as).
	pdftotextMemory = 512 << 20
	maxPDFPages     = 10_000
)

// Tools are looked up once; tests swap these to force a path.
var (
	pdftotextPath = sync.OnceValue(func() string { p, _ := exec.LookPath("pdftotext"); return p })
	prlimitPath   = sync.OnceValue(func() string { p, _ := exec.LookPath("prlimit"); return p })
)

func extractPDF(ctx context.Context, data []byte, lim Limits) (*Document, error) {
	return extractPDFWith(ctx, pdftotextPath(), data, lim)
}

// extractPDFWith uses pdftotext at tool, or only the Go reader when tool
// is "".
func extractPDFWith(ctx context.Context, tool string, data []byte, lim Limits) (*Document, error) {
	var text *pdfText
	var err error
	if tool != "" {
		text, err = runPdftotext(ctx, tool, data, lim)
		if err != nil && fallbackWorthy(ctx, err) {
			// poppler refused or crashed. The Go reader is stricter, so
			// this rarely helps; it gets a third of the time left, so a
			// file that makes it spin still fails as damaged, in time.
			// Its own verdict is not more useful than poppler's.
			fctx, cancel := context.WithTimeout(ctx, remaining(ctx, lim.Timeout)/3)
			if t, gerr := readPDFIsolated(fctx, data, lim); gerr == nil {
				text, err = t, nil
			}
			cancel()
		}
	} else {
		text, err = readPDFIsolated(ctx, data, lim)
	}
	if err != nil {
		return nil, err
	}
	return pdfDocument(ctx, text, lim)
}

func remaining(ctx context.Context, def time.Duration) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		return time.Until(dl)
	}
	return def
}

// fallbackWorthy: limits and permission refusals are final; a damaged
// file or a poppler crash may still be readable by the other parser.
func fallbackWorthy(ctx context.Context, err error) bool {
	return ctx.Err() == nil && errors.Is(err, ErrMalformed)
}

// runPdftotext feeds the PDF on stdin, so neither the customer's file
// name nor a temporary file is involved, and reads text and title back
// from -htmlmeta output (text in <pre>, pages separated by form feeds).
func runPdftotext(ctx context.Context, tool string, data []byte, lim Limits) (*pdfText, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	args := []string{"-enc", "UTF-8", "-eol", "unix", "-htmlmeta", "-", "-"}
	name := tool
	if pl := prlimitPath(); pl != "" {
		name = pl
		// The CPU limit backs up the deadline should this process die
		// without killing its child.
		cpu := int(lim.Timeout/time.Second) + 5
		args = append([]string{"--as=" + strconv.Itoa(pdftotextMemory), "--cpu=" + strconv.Itoa(cpu), "--", tool}, args...)
	}
	cmd := exec.CommandContext(ctx, name, args...)
	setDeathSignal(cmd)
	cmd.Env = []string{"LC_ALL=C.UTF-8"}
	cmd.Stdin = bytes.NewReader(data)
	stdout := &capBuffer{max: lim.MaxOutputRunes*4 + 64<<10, onFull: cancel}
	stderr := &capBuffer{max: 4 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	switch {
	case stdout.full:
		return nil, newErr(ErrTooLarge, nil, "the document has more than %d characters of text", lim.MaxOutputRunes)
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		cause := fmt.Errorf("pdftotext: %v: %s", err, strings.TrimSpace(stderr.String()))
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 3 {
			return nil, newErr(ErrUnsupported, cause, "the PDF's permissions do not allow copying its text")
		}
		if strings.Contains(stderr.String(), "Incorrect password") {
			return nil, newErr(ErrUnsupported, cause, "the PDF is password-protected")
		}
		return nil, newErr(ErrMalformed, cause, "the PDF could not be read; it may be damaged")
	}
	return parseHTMLMeta(stdout.String()), nil
}

func parseHTMLMeta(out string) *pdfText {
	t := &pdfText{}
	if _, rest, ok := strings.Cut(out, "<title>"); ok {
		if title, _, ok := strings.Cut(rest, "</title>"); ok {
			t.Title = html.UnescapeString(title)
		}
	}
	_, body, _ := strings.Cut(out, "<pre>")
	if i := strings.LastIndex(body, "</pre>"); i >= 0 {
		body = body[:i]
	}
	body = html.UnescapeString(body)
	pages := strings.Split(body, "\f")
	// Every page ends with a form feed, so the last element is what
	// follows the last page: a newline at most.
	if len(pages) > 1 {
		pages = pages[:len(pages)-1]
	}
	t.Pages = pages
	return t
}

// capBuffer keeps at most max bytes. Past that it either fails the write
// and calls onFull (output: kill the producer rather than buffer a flood)
// or, with onFull nil, silently drops the rest (diagnostics: poppler can
// print gigabytes of warnings, and failing its stderr would kill it with
// SIGPIPE on files it reads fine). It deliberately has no ReadFrom, so
// io.Copy cannot bypass the limit.
type capBuffer struct {
	buf    bytes.Buffer
	max    int
	full   bool
	onFull func()
}

func (c *capBuffer) Write(p []byte) (int, error) {
	if c.buf.Len()+len(p) <= c.max && !c.full {
		return c.buf.Write(p)
	}
	if c.onFull == nil {
		c.buf.Write(p[:max(0, min(len(p), c.max-c.buf.Len()))])
		return len(p), nil
	}
	if !c.full {
		c.full = true
		c.onFull()
	}
	return 0, errors.New("output limit reached")
}

func (c *capBuffer) String() string { return c.buf.String() }
func (c *capBuffer) Bytes() []byte  { return c.buf.Bytes() }

// pdfDocument turns page texts into one section per page (passages never
// straddle a page, so a citation names one page); wrapped lines are joined
// into paragraphs.
func pdfDocument(ctx context.Context, t *pdfText, lim Limits) (*Document, error) {
	if len(t.Pages) > maxPDFPages {
		return nil, newErr(ErrTooLarge, nil, "the PDF has %d pages; the limit is %d", len(t.Pages), maxPDFPages)
	}
	b := newBuilder(ctx, lim)
	for _, page := range t.Pages {
		for _, p := range splitParagraphs(page) {
			if err := b.para(joinWrapped(p)); err != nil {
				return nil, err
			}
		}
		b.flush()
	}
	return &Document{Title: pdfTitle(t.Title), Sections: b.finish(), Pages: max(1, len(t.Pages))}, nil
}

// pdfTitle drops the placeholders PDF producers write as titles.
func pdfTitle(s string) string {
	s = cleanInline(s)
	s = strings.TrimPrefix(s, "Microsoft Word - ")
	switch strings.ToLower(s) {
	case "untitled", "untitled document", "title", "document", "slide 1", "(anonymous)":
		return ""
	}
	return s
}

// joinWrapped joins the lines of a paragraph laid out by the PDF into one
// line, removing hyphenation at line ends ("docu-\nment" → "document")
// when a lowercase letter follows.
func joinWrapped(p string) string {
	out := make([]byte, 0, len(p))
	for l := range strings.SplitSeq(p, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if len(out) > 0 {
			last, _ := utf8.DecodeLastRune(out)
			first, _ := utf8.DecodeRuneInString(l)
			switch {
			case last == '-' && unicode.IsLower(first) && unicode.IsLetter(runeBefore(out)):
				out = out[:len(out)-1]
			case isCJK(last) && isCJK(first):
				// CJK text has no spaces between wrapped lines.
			default:
				out = append(out, ' ')
			}
		}
		out = append(out, l...)
	}
	return string(out)
}

// runeBefore is the rune before the final byte of b.
func runeBefore(b []byte) rune {
	r, _ := utf8.DecodeLastRune(b[:len(b)-1])
	return r
}

func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) ||
		unicode.Is(unicode.Hangul, r) || (r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFFEF)
}
