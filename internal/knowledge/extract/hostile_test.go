package extract

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The G14 upload-hardening corpus: every input is refused or extracted
// with a clear error kind, without a panic, within the deadline, and with
// bounded memory in this process.

func extractErr(t *testing.T, name string, data []byte, lim Limits) error {
	t.Helper()
	_, err := Extract(context.Background(), name, data, lim)
	return err
}

func wantKind(t *testing.T, err, kind error) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("err = %v, want kind %v", err, kind)
	}
	if strings.Contains(err.Error(), "panic") || strings.Contains(err.Error(), "goroutine") {
		t.Errorf("message leaks internals: %q", err.Error())
	}
}

func TestHostileDetect(t *testing.T) {
	garbage := make([]byte, 4096)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range garbage {
		garbage[i] = byte(r.UintN(256))
	}
	svg := []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>`)
	htmlDoc := []byte("<!DOCTYPE html><html><body><script>alert(1)</script><p>hi</p></body></html>")
	tests := []struct {
		name    string
		data    []byte
		kind    error
		message string
	}{
		{"empty.pdf", nil, ErrEmpty, "the file is empty"},
		{"invoice.pdf", htmlDoc, ErrUnsupported, "the file is named .pdf but its content is HTML, not PDF"},
		{"invoice.pdf", svg, ErrUnsupported, "the file is named .pdf but its content is SVG, not PDF"},
		{"letter.docx", htmlDoc, ErrUnsupported, "the file is named .docx but its content is HTML, not DOCX"},
		{"noise.bin", garbage, ErrUnsupported, ""},
		{"noise.txt", garbage, ErrUnsupported, ""},
		{"noise.md", garbage, ErrUnsupported, ""},
		{"noise", garbage, ErrUnsupported, ""},
		{"picture", svg, ErrUnsupported, "unsupported file type (SVG)"},
		{"old.doc", []byte("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1" + strings.Repeat("\x00", 600)), ErrUnsupported, ".doc files are not supported; save the document as PDF or DOCX"},
		{"archive.zip", buildZip(t, []docxPart{{"a.txt", "hello"}}), ErrUnsupported, "zip archives are not supported; upload the documents one by one"},
		{"broken.docx", buildZip(t, []docxPart{{"a.txt", "hello"}}), ErrMalformed, "the DOCX file has no document body (word/document.xml)"},
		{"truncated.docx", []byte("PK\x03\x04garbage"), ErrMalformed, "the file is a damaged or unsupported zip archive"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Detect(tc.name, tc.data)
			wantKind(t, err, tc.kind)
			if tc.message != "" && err.Error() != tc.message {
				t.Errorf("message = %q, want %q", err.Error(), tc.message)
			}
			// Extract refuses the same way.
			wantKind(t, extractErr(t, tc.name, tc.data, Limits{}), tc.kind)
		})
	}
}

func TestDetectFormats(t *testing.T) {
	docx := buildZip(t, docxParts("", wp("", "x")))
	pdf := buildPDF(pdfSpec{Pages: [][]string{{"x"}}})
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"a.pdf", pdf, "pdf"},
		{"no-extension", pdf, "pdf"},
		{"misnamed.txt", pdf, "pdf"},
		{"a.DOCX", docx, "docx"},
		{"upload", docx, "docx"},
		{"a.md", []byte("# x"), "markdown"},
		{"a.markdown", []byte("x"), "markdown"},
		{"a.txt", []byte("x"), "text"},
		{"a.csv", []byte("a,b"), "csv"},
		{"a.tsv", []byte("a\tb"), "csv"},
		{"a.html", []byte("plain words"), "html"},
		{"a.htm", []byte("<p>x</p>"), "html"},
		{"page", []byte("<!DOCTYPE html><html><body>x</body></html>"), "html"},
		{"notes", []byte("just some words"), "text"},
		{"quote.md", []byte("The header is %PDF-1.7 in every file."), "markdown"},
		{`C:\Users\me\Desktop\report.md`, []byte("x"), "markdown"},
	}
	for _, tc := range tests {
		got, err := Detect(tc.name, tc.data)
		if err != nil || got != tc.want {
			t.Errorf("Detect(%q) = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}

func TestHostileTooLargeInput(t *testing.T) {
	data := bytes.Repeat([]byte("a"), 2048)
	err := extractErr(t, "big.txt", data, Limits{MaxInputBytes: 1024})
	wantKind(t, err, ErrTooLarge)
	if err.Error() != "the file is 2.0 KiB; the limit is 1.0 KiB" {
		t.Errorf("message = %q", err.Error())
	}
}

// heapDuring reports the bytes allocated while f runs: an upper bound on
// its peak heap that catches an extraction materialising a bomb.
func heapDuring(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

const docPrefix = `<?xml version="1.0" encoding="UTF-8"?><w:document ` + wordNS + `><w:body><w:p><w:r><w:t>`
const docSuffix = `</w:t></w:r></w:p></w:body></w:document>`

// bombDOCX is a DOCX whose document body holds size bytes of text,
// declared in the headers as declared bytes.
func bombDOCX(t *testing.T, size, declared int64) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, p := range docxParts("Bomb", "") {
		if p.Name == "word/document.xml" {
			bombEntry(t, zw, p.Name, docPrefix, docSuffix, size, declared)
			continue
		}
		w, _ := zw.Create(p.Name)
		_, _ = w.Write([]byte(p.Body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestHostileDOCXZipBomb(t *testing.T) {
	const twoGiB = 2 << 30
	honest := bombDOCX(t, twoGiB, twoGiB+int64(len(docPrefix)+len(docSuffix)))
	t.Logf("2 GiB bomb: %d bytes compressed", len(honest))
	var err error
	alloc := heapDuring(func() { err = extractErr(t, "bomb.docx", honest, Limits{}) })
	wantKind(t, err, ErrTooLarge)
	if err.Error() != "the DOCX expands to more than 50.0 MiB" || alloc > 64<<20 {
		t.Errorf("declared bomb: %q after %d bytes allocated", err, alloc)
	}

	// The same bomb with headers claiming 1,000 bytes: archive/zip
	// refuses to inflate past the declared size.
	lying := bombDOCX(t, twoGiB, 1000)
	alloc = heapDuring(func() { err = extractErr(t, "bomb.docx", lying, Limits{}) })
	wantKind(t, err, ErrMalformed)
	if alloc > 64<<20 {
		t.Errorf("lying bomb: %d bytes allocated", alloc)
	}

	// Within the size budget but compressed 1000:1: the ratio rule stops
	// it once it passes 1 MiB.
	const size = 40 << 20
	dense := bombDOCX(t, size, size+int64(len(docPrefix)+len(docSuffix)))
	alloc = heapDuring(func() { err = extractErr(t, "dense.docx", dense, Limits{}) })
	wantKind(t, err, ErrTooLarge)
	if err.Error() != "the DOCX contains a part that expands more than 100 times (a zip bomb?)" || alloc > 64<<20 {
		t.Errorf("ratio: %q after %d bytes allocated", err, alloc)
	}
}

// endless is an io.Reader of 'a' that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

// The budget counts actual bytes, whatever the headers said; archive/zip
// also stops at the declared size, so this is the second line.
func TestUnzipBudgetCountsActualBytes(t *testing.T) {
	b := &unzipBudget{lim: Limits{MaxUnzipBytes: 1 << 20, MaxUnzipRatio: 1 << 30}.withDefaults(), size: 1 << 30}
	r := &budgetReader{r: endless{}, b: b, compressed: 1 << 30}
	n, err := io.Copy(io.Discard, r)
	wantKind(t, err, ErrTooLarge)
	if n > 1<<20+32<<10 {
		t.Errorf("read %d bytes past a 1 MiB budget", n)
	}
}

// zip64Claim rewrites the end of a zip to claim n entries through a
// ZIP64 end-of-central-directory record, the CVE-2021-33196 shape.
func zip64Claim(t *testing.T, zipData []byte, n uint64) []byte {
	eocd := bytes.LastIndex(zipData, []byte("PK\x05\x06"))
	if eocd < 0 {
		t.Fatal("no EOCD")
	}
	dirSize := binary.LittleEndian.Uint32(zipData[eocd+12:])
	dirOff := binary.LittleEndian.Uint32(zipData[eocd+16:])
	out := append([]byte(nil), zipData[:eocd]...)
	rec := len(out)
	z64 := make([]byte, 56)
	copy(z64, "PK\x06\x06")
	binary.LittleEndian.PutUint64(z64[4:], 44)
	binary.LittleEndian.PutUint16(z64[12:], 45)
	binary.LittleEndian.PutUint16(z64[14:], 45)
	binary.LittleEndian.PutUint64(z64[24:], n)
	binary.LittleEndian.PutUint64(z64[32:], n)
	binary.LittleEndian.PutUint64(z64[40:], uint64(dirSize))
	binary.LittleEndian.PutUint64(z64[48:], uint64(dirOff))
	out = append(out, z64...)
	loc := make([]byte, 20)
	copy(loc, "PK\x06\x07")
	binary.LittleEndian.PutUint64(loc[8:], uint64(rec))
	binary.LittleEndian.PutUint32(loc[16:], 1)
	out = append(out, loc...)
	end := make([]byte, 22)
	copy(end, "PK\x05\x06")
	binary.LittleEndian.PutUint16(end[8:], 0xFFFF)
	binary.LittleEndian.PutUint16(end[10:], 0xFFFF)
	binary.LittleEndian.PutUint32(end[12:], 0xFFFFFFFF)
	binary.LittleEndian.PutUint32(end[16:], 0xFFFFFFFF)
	return append(out, end...)
}

func TestHostileDOCXEntryCounts(t *testing.T) {
	valid := buildZip(t, docxParts("T", wp("", "hello")))
	err := extractErr(t, "claims.docx", zip64Claim(t, valid, 1_000_000_000), Limits{})
	wantKind(t, err, ErrMalformed)

	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, p := range docxParts("T", wp("", "hello")) {
		w, _ := zw.Create(p.Name)
		_, _ = w.Write([]byte(p.Body))
	}
	for i := range 20_000 {
		if _, err := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("word/media/image%d.png", i), Method: zip.Store}); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	many := b.Bytes()
	start := time.Now()
	err = extractErr(t, "many.docx", many, Limits{})
	wantKind(t, err, ErrTooLarge)
	if err.Error() != "the DOCX contains 20005 files; the limit is 1000" {
		t.Errorf("message = %q", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("20,000 entries took %v", d)
	}
}

func TestHostileDOCXEntryNames(t *testing.T) {
	canary := "../concierge-zip-slip-canary"
	parts := append(docxParts("Names", wp("", "The real text.")),
		docxPart{canary, "<x/>"}, docxPart{"/etc/concierge-abs-canary", "<x/>"}, docxPart{"", "<x/>"},
		docxPart{"word/../word/document.xml", "<not-the-document/>"})
	doc, err := Extract(context.Background(), "names.docx", buildZip(t, parts), Limits{})
	if err != nil || allText(doc) != "The real text." {
		t.Fatalf("doc, err = %+v, %v", doc, err)
	}
	for _, p := range []string{canary, "/etc/concierge-abs-canary"} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s exists", p)
		}
	}
	// A body that only exists under an unsafe name is no body at all.
	var hidden []docxPart
	for _, p := range docxParts("", wp("", "x")) {
		if p.Name == "word/document.xml" {
			p.Name = "../word/document.xml"
		}
		hidden = append(hidden, p)
	}
	wantKind(t, extractErr(t, "hidden.docx", buildZip(t, hidden), Limits{}), ErrMalformed)
}

func TestHostileDOCXNestedZipIsNotOpened(t *testing.T) {
	inner := bombDOCX(t, 256<<20, 256<<20)
	parts := append(docxParts("Outer", wp("", "Outer text.")), docxPart{"word/embeddings/inner.docx", string(inner)})
	doc, err := Extract(context.Background(), "outer.docx", buildZip(t, parts), Limits{})
	if err != nil || allText(doc) != "Outer text." {
		t.Fatalf("doc, err = %+v, %v", doc, err)
	}
}

func TestHostileDOCXMalformedXML(t *testing.T) {
	parts := docxParts("", "")
	for i := range parts {
		if parts[i].Name == "word/document.xml" {
			parts[i].Body = `<w:document ` + wordNS + `><w:body><w:p><w:r><w:t>unclosed`
		}
	}
	wantKind(t, extractErr(t, "bad.docx", buildZip(t, parts), Limits{}), ErrMalformed)
	// Entities are not expanded (encoding/xml knows none beyond the five).
	for i := range parts {
		if parts[i].Name == "word/document.xml" {
			parts[i].Body = `<!DOCTYPE d [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><w:document ` + wordNS + `><w:body><w:p><w:r><w:t>&b;</w:t></w:r></w:p></w:body></w:document>`
		}
	}
	wantKind(t, extractErr(t, "laughs.docx", buildZip(t, parts), Limits{}), ErrMalformed)
}
