package extract

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// xrefStreamPDF is a PDF whose cross-reference is a stream and whose
// catalog lives in an object stream: the structures the pdfcpu and
// ledongthuc issues are about. size is the xref stream's /Size and n the
// object stream's /N, both as the attacker writes them.
func xrefStreamPDF(size, n string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n")
	offs := map[int]int{}
	obj := func(id int, body string) {
		offs[id] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", id, body)
	}
	obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	obj(3, "<< /Type /Page /Parent 2 0 R /Contents 5 0 R >>")
	// The stream's index names object 9, so looking up object 1 walks
	// all n entries.
	objStm := "9 0 << /Type /Catalog /Pages 2 0 R >>"
	obj(4, fmt.Sprintf("<< /Type /ObjStm /N %s /First 4 /Length %d >>\nstream\n%s\nendstream", n, len(objStm), objStm))
	content := "BT /F1 12 Tf 72 700 Td (Hello from an object stream) Tj ET"
	obj(5, fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content))
	var xr bytes.Buffer
	entry := func(typ byte, a uint32, c uint16) {
		xr.WriteByte(typ)
		_ = binary.Write(&xr, binary.BigEndian, a)
		_ = binary.Write(&xr, binary.BigEndian, c)
	}
	xrefAt := b.Len()
	offs[6] = xrefAt
	entry(0, 0, 0xFFFF)
	entry(2, 4, 0) // object 1 is number 0 in object stream 4
	for id := 2; id <= 6; id++ {
		entry(1, uint32(offs[id]), 0)
	}
	fmt.Fprintf(&b, "6 0 obj\n<< /Type /XRef /Size %s /W [1 4 2] /Root 1 0 R /Length %d >>\nstream\n", size, xr.Len())
	b.Write(xr.Bytes())
	fmt.Fprintf(&b, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", xrefAt)
	return b.Bytes()
}

// contentBombPDF has one page whose content stream inflates to size bytes
// of operands with no operator: an interpreter stacks them all.
func contentBombPDF(size int64) []byte {
	block := bytes.Repeat([]byte("1 "), bombChunk/2)
	body := deflateBytes(block, false)
	var stream bytes.Buffer
	stream.Write([]byte{0x78, 0xDA}) // zlib header; the checksum is never reached
	for range size / bombChunk {
		stream.Write(body)
	}
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>",
		fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", stream.Len(), stream.String()),
	}
	return assemblePDF("1.4", objs, "")
}

// hostilePDF is a malformed PDF and the error kind each reader must end
// in; a nil kind accepts a repair (text) or any of the package's kinds,
// for outcomes that depend on the poppler version.
type hostilePDF struct {
	data            []byte
	goKind, popKind error
}

func hostilePDFs(t *testing.T) map[string]hostilePDF {
	good := buildPDF(pdfSpec{Title: "Good", Pages: [][]string{{"Some text on the first page."}, {"More text on the second page."}}})
	garbled := bytes.Clone(good)
	copy(garbled[len(garbled)/2:], bytes.Repeat([]byte("\x00\xff(<<[%"), 40))
	xref := bytes.Index(good, []byte("xref\n"))
	badXref := append(bytes.Clone(good[:xref]), []byte(strings.NewReplacer("0000000", "9999999").Replace(string(good[xref:])))...)
	cycle := []byte(strings.Replace(string(good), "/Kids [5 0 R 7 0 R]", "/Kids [2 0 R 5 0 R 7 0 R]", 1))
	if bytes.Equal(cycle, good) {
		t.Fatal("cycle fixture did not apply")
	}
	return map[string]hostilePDF{
		"truncated":         {good[:len(good)*6/10], ErrMalformed, ErrMalformed},
		"no-eof-marker":     {bytes.TrimSuffix(good, []byte("%%EOF\n")), ErrMalformed, nil},
		"bad-xref":          {badXref, ErrMalformed, nil},
		"garbage-in-middle": {garbled, ErrMalformed, nil},
		"page-tree-cycle":   {cycle, ErrMalformed, nil},
		// The library walks all 2·10⁹ entries of the object stream index:
		// killed at the deadline.
		"huge-objstm-n": {xrefStreamPDF("7", "2000000000"), ErrTooLarge, nil},
		// The library allocates the claimed size: the child dies of it.
		"huge-xref-size":       {xrefStreamPDF("10000000000", "1"), ErrTooLarge, nil},
		"huge-xref-subsection": {[]byte(strings.Replace(string(good), "xref\n0 ", "xref\n4000000000 ", 1)), ErrTooLarge, nil},
		// 1 GiB of operands from 1 MiB: memory for the Go reader, time
		// for poppler.
		"content-flate-bomb": {contentBombPDF(1 << 30), ErrTooLarge, ErrTooLarge},
		"header-only":        {[]byte("%PDF-1.7\n"), ErrMalformed, ErrMalformed},
		// The library's lexer loops forever on an unterminated hex string.
		"unterminated-hex":  {contentPDF([]byte("BT /F1 12 Tf (Hi) Tj <4142")), ErrTooLarge, nil},
		"html-after-header": {[]byte("%PDF-1.4\n<html><script>alert(1)</script></html>\n%%EOF\n"), ErrMalformed, ErrMalformed},
	}
}

// Each malformed PDF, through each reader, ends in the expected kind (or,
// when poppler repairs it, in text) within the deadline, and never takes
// this process down.
func TestHostilePDF(t *testing.T) {
	const timeout = 3 * time.Second
	readers := []string{"go"}
	if pdftotextPath() != "" {
		readers = append(readers, "pdftotext")
	}
	for name, tc := range hostilePDFs(t) {
		for _, reader := range readers {
			t.Run(reader+"/"+name, func(t *testing.T) {
				t.Parallel()
				ctx, cancel := context.WithTimeout(context.Background(), timeout)
				defer cancel()
				lim := Limits{Timeout: timeout}.withDefaults()
				start := time.Now()
				var text *pdfText
				var err error
				want := tc.goKind
				if reader == "go" {
					text, err = readPDFIsolated(ctx, tc.data, lim)
				} else {
					text, err = runPdftotext(ctx, pdftotextPath(), tc.data, lim)
					want = tc.popKind
				}
				var doc *Document
				if err == nil {
					doc, err = pdfDocument(ctx, text, lim)
					if err == nil {
						err = finalize(doc, "pdf", "x.pdf")
					}
				}
				elapsed := time.Since(start)
				if elapsed > timeout+2*time.Second {
					t.Errorf("took %v", elapsed)
				}
				err = classifyCtxErr(context.Background(), err, timeout)
				switch {
				case want != nil && !errors.Is(err, want):
					t.Errorf("err = %v (%v), want kind %v", err, cause(err), want)
				case err == nil:
					t.Logf("repaired in %v: %q", elapsed, allText(doc))
				case errors.Is(err, ErrMalformed), errors.Is(err, ErrEmpty), errors.Is(err, ErrTooLarge), errors.Is(err, ErrUnsupported):
					t.Logf("refused in %v: %v (%v)", elapsed, err, cause(err))
				default:
					t.Errorf("err = %v: not one of the package's kinds", err)
				}
			})
		}
	}
}

// cause is the technical error behind a customer message, for logs.
func cause(err error) error {
	if ee, ok := err.(*extractError); ok && ee.cause != nil {
		return ee.cause
	}
	return nil
}

// Through Extract, the timeout is reported as a customer error.
func TestHostilePDFTimeoutThroughExtract(t *testing.T) {
	withoutPdftotext(t) // not parallel: it swaps a package variable
	start := time.Now()
	_, err := Extract(context.Background(), "slow.pdf", xrefStreamPDF("7", "2000000000"), Limits{Timeout: time.Second})
	wantKind(t, err, ErrTooLarge)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v", d)
	}
}

// The in-process reader contains what it can: panics become errors.
func TestPDFGoReaderContainsPanics(t *testing.T) {
	for _, data := range [][]byte{
		[]byte("%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\ntrailer << /Root 1 0 R >>\nstartxref\n9\n%%EOF\n"),
		[]byte("%PDF-1.4\nxref\n0 1\n0000000000 65535 f \ntrailer << /Root (x) >>\nstartxref\n9\n%%EOF\n"),
	} {
		if _, err := readPDFGo(context.Background(), data, 1000); !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrEmpty) && err != nil {
			t.Errorf("err = %v", err)
		}
	}
}
