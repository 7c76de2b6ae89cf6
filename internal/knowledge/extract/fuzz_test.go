package extract

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// fuzzLimits keep each input cheap; a result slower than fuzzSlow is
// reported as a hang even though the deadline would have contained it.
var fuzzLimits = Limits{MaxInputBytes: 2 << 20, MaxOutputRunes: 1 << 20, Timeout: 20 * time.Second}

const fuzzSlow = 10 * time.Second

// checkResult holds for every input: a document that keeps the package's
// promises, or an error of one of its kinds.
func checkResult(t *testing.T, doc *Document, err error, elapsed time.Duration) {
	t.Helper()
	if elapsed > fuzzSlow {
		t.Fatalf("took %v", elapsed)
	}
	if err != nil {
		if !errors.Is(err, ErrUnsupported) && !errors.Is(err, ErrEmpty) && !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrMalformed) {
			t.Fatalf("error of no kind: %v", err)
		}
		return
	}
	if len(doc.Sections) == 0 || doc.Pages < 1 || doc.Title == "" {
		t.Fatalf("document breaks promises: %+v", doc)
	}
	runes := 0
	for _, s := range doc.Sections {
		if s.Text == "" || !utf8.ValidString(s.Text) || strings.Contains(s.Text, "\n\n\n") {
			t.Fatalf("bad section text %q", s.Text)
		}
		for _, r := range s.Text {
			if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f {
				t.Fatalf("control character %U in %q", r, s.Text)
			}
		}
		for _, h := range s.HeadingPath {
			if h == "" || strings.ContainsAny(h, "\n\t") {
				t.Fatalf("bad heading %q", h)
			}
		}
		runes += utf8.RuneCountInString(s.Text)
	}
	if runes != doc.Runes || runes > fuzzLimits.MaxOutputRunes {
		t.Fatalf("runes %d, document says %d", runes, doc.Runes)
	}
}

func fuzzExtract(t *testing.T, name string, data []byte) {
	start := time.Now()
	doc, err := Extract(context.Background(), name, data, fuzzLimits)
	checkResult(t, doc, err, time.Since(start))
}

// FuzzExtractPDF goes through the production path: pdftotext when the
// input's length is odd and it is installed, else the sandboxed Go
// reader. Either runs in a child process, so this mostly proves that
// nothing a parser does reaches this process, and that the deadline holds.
func FuzzExtractPDF(f *testing.F) {
	f.Add(buildPDF(pdfSpec{Title: "Seed", Pages: [][]string{{"#Heading", "Body text.", "", "Next paragraph."}}}))
	f.Add(buildPDF(pdfSpec{Title: "Zipped", Compress: true, Pages: [][]string{{"One"}, {"Two"}}}))
	f.Add(xrefStreamPDF("7", "1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tool := ""
		if len(data)%2 == 1 {
			tool = pdftotextPath()
		}
		lim := Limits{MaxOutputRunes: 1 << 20, Timeout: 3 * time.Second}.withDefaults()
		ctx, cancel := context.WithTimeout(context.Background(), lim.Timeout)
		defer cancel()
		start := time.Now()
		doc, err := extractPDFWith(ctx, tool, data, lim)
		if err == nil {
			err = finalize(doc, "pdf", "f.pdf")
		}
		elapsed := time.Since(start)
		if elapsed > lim.Timeout+2*time.Second {
			t.Fatalf("took %v", elapsed)
		}
		checkResult(t, doc, classifyCtxErr(context.Background(), err, lim.Timeout), 0)
	})
}

// FuzzPDFGoContent runs the Go reader on a well-formed PDF whose page
// content stream is the fuzz input, so our operator interpretation
// (spacing, fonts, limits) sees arbitrary input. It goes through the
// sandbox: the library loops forever on some content (an unterminated
// hex string, seed 4e8f4a0ce7495ea5), which only a killable child can
// contain.
func FuzzPDFGoContent(f *testing.F) {
	f.Add([]byte("BT /F1 12 Tf 72 700 Td (Hello) Tj 0 -14 Td [(Wor) -300 (ld)] TJ T* (x) ' 1 2 (y) \" ET"))
	f.Add([]byte("BT /F1 12 Tf 1 0 0 1 72 700 Tm 14 TL (a) Tj T* T* (b) Tj /F9 0 Tf (c) Tj ET BI /W 1 ID \x00\xff EI"))
	f.Fuzz(func(t *testing.T, content []byte) {
		lim := Limits{Timeout: 3 * time.Second}.withDefaults()
		ctx, cancel := context.WithTimeout(context.Background(), lim.Timeout)
		defer cancel()
		start := time.Now()
		res, err := readPDFIsolated(ctx, contentPDF(content), lim)
		if time.Since(start) > lim.Timeout+2*time.Second {
			t.Fatalf("took %v", time.Since(start))
		}
		if err != nil {
			err = classifyCtxErr(context.Background(), err, lim.Timeout)
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("error of no kind: %v", err)
			}
			return
		}
		if len(res.Pages) != 1 {
			t.Fatalf("%d pages", len(res.Pages))
		}
	})
}

// contentPDF is a one-page PDF around the given content stream.
func contentPDF(content []byte) []byte {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
	}
	return assemblePDF("1.4", objs, "")
}

func FuzzExtractDOCX(f *testing.F) {
	f.Add(buildZip(f, docxParts("Seed", wp("berschrift1", "Heading")+wp("", "Text")+wtable([]string{"a", "b"}))))
	f.Add(buildZipMethod(f, docxParts("", `<w:p><w:pPr><w:outlineLvl w:val="1"/></w:pPr><w:r><w:t>x</w:t><w:tab/><w:br/></w:r></w:p>`), zip.Store))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzExtract(t, "f.docx", data) })
}

func FuzzExtractHTML(f *testing.F) {
	f.Add([]byte("<h1>a</h1><h3>b<h2>c</h3><table><tr><td>x<td>y</table><pre>l1\nl2</pre>"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzExtract(t, "f.html", data) })
}

func FuzzExtractMarkdown(f *testing.F) {
	f.Add([]byte("---\ntitle: x\n---\n# a\n> b\n- c\n  - d\n\n| x | y |\n|---|---|\n| 1 | 2 |\n\n```\ncode\n```\n<div>h</div>"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzExtract(t, "f.md", data) })
}

func FuzzExtractCSV(f *testing.F) {
	f.Add([]byte("a;b\n\"x\"\"y\";2\n,,\n\"unterminated"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzExtract(t, "f.csv", data)
		fuzzExtract(t, "f.tsv", data)
	})
}

func FuzzExtractText(f *testing.F) {
	f.Add([]byte("Title line\r\n\r\n\tindented  text\u00a0with nbsp\fform feed\x00nul \u2028sep\u00adsoft"))
	f.Add([]byte("\xff\xfe invalid \xc3 utf-8"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzExtract(t, "f.txt", data) })
}
