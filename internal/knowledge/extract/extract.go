// Package extract turns an uploaded document (PDF, DOCX, HTML, Markdown,
// plain text, CSV) into plain-text sections with heading paths, ready for
// chunking. Every input is hostile until proven otherwise: sizes, archive
// contents, output volume and wall time are bounded, parser panics are
// contained, and nothing the document references is ever fetched or run.
package extract

import (
	"context"
	"errors"
	"fmt"
	"path"
	"runtime/debug"
	"strings"
	"time"
	"unicode/utf8"
)

// Section is a run of text under one heading path.
type Section struct {
	HeadingPath []string // e.g. ["Pricing", "Enterprise"]; empty for text before any heading
	// Anchor is the fragment (without "#") of the deepest heading of the
	// path that a link can point at, "" when none (HTML only).
	Anchor string
	Text   string // plain text, paragraphs separated by "\n\n", whitespace normalised
}

// Document is the result of a successful extraction.
type Document struct {
	Format   string    // "pdf", "docx", "html", "markdown", "text", "csv"
	Title    string    // best title found in the document, the file name otherwise
	Sections []Section // in document order; never empty
	Pages    int       // billing unit: PDF pages; other formats ceil(Runes/3000), minimum 1
	// Listing is set for a page that lists rather than explains: most of
	// its text is link text (an index, a sitemap, a table of contents) or
	// code (a source listing). HTML only.
	Listing  bool
	Runes    int    // total runes of all section text
	Language string // best guess ("" when unknown), e.g. "en"
}

// Limits bound the work one extraction may do. Zero fields take the defaults.
type Limits struct {
	MaxInputBytes  int64         // refuse larger inputs (ErrTooLarge); default 50 MiB
	MaxOutputRunes int           // stop (ErrTooLarge) when extracted text passes this; default 5,000,000
	MaxZipEntries  int           // DOCX: refuse archives with more entries; default 1,000
	MaxUnzipBytes  int64         // DOCX: refuse when declared or actual decompressed total passes this; default 50 MiB
	MaxUnzipRatio  int           // DOCX: refuse entries compressing better than this once past 1 MiB; default 100
	Timeout        time.Duration // the whole extraction runs under this deadline; default 30 s
}

// Defaults for the zero fields of Limits.
const (
	DefaultMaxInputBytes  = 50 << 20
	DefaultMaxOutputRunes = 5_000_000
	DefaultMaxZipEntries  = 1000
	DefaultMaxUnzipBytes  = 50 << 20
	DefaultMaxUnzipRatio  = 100
	DefaultTimeout        = 30 * time.Second
)

// runesPerPage converts text volume into the billing unit for formats that
// have no pages of their own.
const runesPerPage = 3000

func (l Limits) withDefaults() Limits {
	if l.MaxInputBytes <= 0 {
		l.MaxInputBytes = DefaultMaxInputBytes
	}
	if l.MaxOutputRunes <= 0 {
		l.MaxOutputRunes = DefaultMaxOutputRunes
	}
	if l.MaxZipEntries <= 0 {
		l.MaxZipEntries = DefaultMaxZipEntries
	}
	if l.MaxUnzipBytes <= 0 {
		l.MaxUnzipBytes = DefaultMaxUnzipBytes
	}
	if l.MaxUnzipRatio <= 0 {
		l.MaxUnzipRatio = DefaultMaxUnzipRatio
	}
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	return l
}

// Error kinds, for errors.Is. The error values returned by this package
// carry a message meant for the customer ("the PDF has no extractable
// text (scanned images?)"); the technical cause, when there is one, is
// reachable through errors.Unwrap for logs.
var (
	ErrUnsupported = errors.New("unsupported file type")
	ErrEmpty       = errors.New("no extractable text")
	ErrTooLarge    = errors.New("file too large")
	ErrMalformed   = errors.New("file is damaged or malformed")
)

// extractError is a customer-readable message with a kind and a cause.
type extractError struct {
	kind  error
	msg   string
	cause error
}

func (e *extractError) Error() string { return e.msg }

func (e *extractError) Unwrap() []error {
	if e.cause == nil {
		return []error{e.kind}
	}
	return []error{e.kind, e.cause}
}

func newErr(kind error, cause error, format string, args ...any) error {
	return &extractError{kind: kind, msg: fmt.Sprintf(format, args...), cause: cause}
}

// Extract detects the format of data (see Detect) and extracts its text.
// name is the customer's file name; it is only used for its extension and
// as a fallback title, never as a path.
//
// The work runs under lim.Timeout. Parsers that cannot be interrupted may
// keep reading data for a short while after a timeout has been reported,
// so callers must not modify data after calling Extract.
func Extract(ctx context.Context, name string, data []byte, lim Limits) (*Document, error) {
	lim = lim.withDefaults()
	if int64(len(data)) > lim.MaxInputBytes {
		return nil, newErr(ErrTooLarge, nil, "the file is %s; the limit is %s", humanBytes(int64(len(data))), humanBytes(lim.MaxInputBytes))
	}
	format, err := Detect(name, data)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	tctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()

	type result struct {
		doc *Document
		err error
	}
	// The parse runs on its own goroutine so a parser that ignores ctx
	// cannot hold the caller past the deadline; the channel is buffered so
	// the goroutine never blocks on a caller that has gone.
	done := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				cause := fmt.Errorf("panic: %v\n%s", r, debug.Stack())
				done <- result{err: newErr(ErrMalformed, cause, "the %s file could not be read; it may be damaged", formatLabel(format))}
			}
		}()
		doc, err := extractFormat(tctx, format, name, data, lim)
		done <- result{doc, err}
	}()

	var res result
	select {
	case res = <-done:
	case <-tctx.Done():
		select {
		case res = <-done: // finished right at the deadline: keep it
		default:
			res.err = tctx.Err()
		}
	}
	if res.err != nil {
		return nil, classifyCtxErr(ctx, res.err, lim.Timeout)
	}
	if err := finalize(res.doc, format, name); err != nil {
		return nil, err
	}
	return res.doc, nil
}

// classifyCtxErr turns our own deadline into a customer-facing ErrTooLarge
// (the file is too big or too complex to process in time) while leaving
// the caller's own cancellation as the plain context error, which is not
// the customer's fault.
func classifyCtxErr(parent context.Context, err error, timeout time.Duration) error {
	if perr := parent.Err(); perr != nil {
		return perr
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		var ee *extractError
		if errors.As(err, &ee) {
			return err
		}
		return newErr(ErrTooLarge, err, "processing the file took longer than %s; it is too large or too complex", timeout)
	}
	return err
}

func extractFormat(ctx context.Context, format, name string, data []byte, lim Limits) (*Document, error) {
	switch format {
	case "pdf":
		return extractPDF(ctx, data, lim)
	case "docx":
		return extractDOCX(ctx, data, lim)
	case "html":
		return extractHTML(ctx, data, lim)
	case "markdown":
		return extractMarkdown(ctx, data, lim)
	case "csv":
		return extractCSV(ctx, name, data, lim)
	case "text":
		return extractText(ctx, data, lim)
	}
	return nil, newErr(ErrUnsupported, nil, "unsupported file type")
}

// finalize fills the derived fields and enforces the "never empty" promise.
func finalize(doc *Document, format, name string) error {
	doc.Format = format
	var kept []Section
	runes := 0
	for _, s := range doc.Sections {
		if strings.TrimSpace(s.Text) == "" {
			continue
		}
		if len(s.HeadingPath) == 0 {
			s.HeadingPath = nil
		}
		runes += utf8.RuneCountInString(s.Text)
		kept = append(kept, s)
	}
	doc.Sections = kept
	doc.Runes = runes
	if len(kept) == 0 {
		if format == "pdf" {
			return newErr(ErrEmpty, nil, "the PDF has no extractable text (scanned images?)")
		}
		return newErr(ErrEmpty, nil, "the %s file contains no text", formatLabel(format))
	}
	if format != "pdf" || doc.Pages <= 0 {
		doc.Pages = max(1, (runes+runesPerPage-1)/runesPerPage)
	}
	doc.Title = truncateRunes(cleanInline(doc.Title), 300)
	if doc.Title == "" {
		doc.Title = fileTitle(name)
	}
	return nil
}

// fileTitle is the base name of the customer's file name, cleaned; both
// separators are handled because browsers on Windows send "C:\x\y.pdf".
func fileTitle(name string) string {
	name = strings.ReplaceAll(name, "\\", "/")
	base := cleanInline(path.Base(name))
	if base == "." || base == "/" || base == "" {
		return "Untitled"
	}
	return truncateRunes(base, 200)
}

func formatLabel(format string) string {
	switch format {
	case "pdf", "docx", "html", "csv":
		return strings.ToUpper(format)
	case "markdown":
		return "Markdown"
	}
	return "text"
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
