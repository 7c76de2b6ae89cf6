package extract

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/zlib"
	"fmt"
	"hash/crc32"
	"io"
	"strings"
	"sync"
	"testing"
)

// Fixtures are generated here rather than checked in, so every byte of
// every test document is ours and its structure is visible in the test.

// pdfSpec describes a PDF made of Helvetica text lines. An empty line
// leaves a paragraph gap; a line starting with "#" is set large, like a
// heading.
type pdfSpec struct {
	Title    string
	Pages    [][]string
	Compress bool   // FlateDecode the content streams
	Version  string // header version, "1.4" when empty
}

func pdfEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`).Replace(s)
}

func buildPDF(spec pdfSpec) []byte {
	var objs []string
	n := len(spec.Pages)
	kids := make([]string, n)
	for i := range n {
		kids[i] = fmt.Sprintf("%d 0 R", 5+2*i)
	}
	objs = append(objs,
		"<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		fmt.Sprintf("<< /Title (%s) /Producer (concierge tests) >>", pdfEscape(spec.Title)),
	)
	for i, lines := range spec.Pages {
		var c strings.Builder
		c.WriteString("BT\n/F1 11 Tf\n14 TL\n72 740 Td\n")
		for _, l := range lines {
			switch {
			case l == "":
				c.WriteString("T*\n")
			case strings.HasPrefix(l, "#"):
				fmt.Fprintf(&c, "/F1 18 Tf\n(%s) Tj\n/F1 11 Tf\nT* T*\n", pdfEscape(strings.TrimSpace(l[1:])))
			default:
				fmt.Fprintf(&c, "(%s) Tj\nT*\n", pdfEscape(l))
			}
		}
		c.WriteString("ET\n")
		stream, filter := c.String(), ""
		if spec.Compress {
			var zb bytes.Buffer
			zw := zlib.NewWriter(&zb)
			_, _ = zw.Write([]byte(stream))
			_ = zw.Close()
			stream, filter = zb.String(), " /Filter /FlateDecode"
		}
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 6+2*i),
			fmt.Sprintf("<< /Length %d%s >>\nstream\n%s\nendstream", len(stream), filter, stream),
		)
	}
	return assemblePDF(spec.Version, objs, "/Info 4 0 R")
}

// assemblePDF numbers objs from 1 and writes a correct xref table.
func assemblePDF(version string, objs []string, trailerExtra string) []byte {
	if version == "" {
		version = "1.4"
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%%PDF-%s\n%%\xe2\xe3\xcf\xd3\n", version)
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R %s >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, trailerExtra, xref)
	return b.Bytes()
}

// docxPart is one zip entry.
type docxPart struct {
	Name string
	Body string
}

const wordNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"`

// wp renders a paragraph; style may be "".
func wp(style string, runs ...string) string {
	ppr := ""
	if style != "" {
		ppr = `<w:pPr><w:pStyle w:val="` + style + `"/><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr>`
	}
	var b strings.Builder
	for _, r := range runs {
		b.WriteString(`<w:r><w:rPr><w:b/></w:rPr><w:t xml:space="preserve">` + xmlEscape(r) + `</w:t></w:r>`)
	}
	return `<w:p>` + ppr + b.String() + `</w:p>`
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

func wtable(rows ...[]string) string {
	var b strings.Builder
	b.WriteString(`<w:tbl><w:tblPr/>`)
	for _, row := range rows {
		b.WriteString(`<w:tr>`)
		for _, c := range row {
			b.WriteString(`<w:tc><w:tcPr/>` + wp("", c) + `</w:tc>`)
		}
		b.WriteString(`</w:tr>`)
	}
	b.WriteString(`</w:tbl>`)
	return b.String()
}

// docxParts is a complete minimal DOCX around body (the content of w:body).
// The heading style ids are German on purpose: only the style names
// (always English for built-in styles) say they are headings.
func docxParts(title, body string) []docxPart {
	parts := []docxPart{
		{"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`},
		{"_rels/.rels", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/></Relationships>`},
		{"word/document.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ` + wordNS + `><w:body>` + body + `<w:sectPr/></w:body></w:document>`},
		{"word/styles.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles ` + wordNS + `>` +
			`<w:style w:type="paragraph" w:styleId="Titel"><w:name w:val="Title"/></w:style>` +
			`<w:style w:type="paragraph" w:styleId="berschrift1"><w:name w:val="heading 1"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>` +
			`<w:style w:type="paragraph" w:styleId="berschrift2"><w:name w:val="heading 2"/></w:style>` +
			`<w:style w:type="paragraph" w:styleId="MyFancyHeading"><w:name w:val="My fancy heading"/><w:basedOn w:val="berschrift2"/></w:style>` +
			`</w:styles>`},
	}
	if title != "" {
		parts = append(parts, docxPart{"docProps/core.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>` + xmlEscape(title) + `</dc:title><dc:creator>Tests</dc:creator></cp:coreProperties>`})
	}
	return parts
}

func buildZip(t testing.TB, parts []docxPart) []byte {
	return buildZipMethod(t, parts, zip.Deflate)
}

// buildZipMethod with zip.Store leaves the XML readable in the archive,
// which gives the fuzzer's mutations something to work on.
func buildZipMethod(t testing.TB, parts []docxPart, method uint16) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, p := range parts {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: p.Name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(w, p.Body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// bombChunk is the unit of generated bombs: a sync-flushed deflate block
// of 1 MiB of one byte only refers back within itself, so the same
// compressed block can be repeated to make any multiple of 1 MiB without
// ever holding the expansion.
const bombChunk = 1 << 20

var bombBlocks sync.Map // byte -> []byte

func bombBlock(c byte) []byte {
	if b, ok := bombBlocks.Load(c); ok {
		return b.([]byte)
	}
	b := deflateBytes(bytes.Repeat([]byte{c}, bombChunk), false)
	bombBlocks.Store(c, b)
	return b
}

func deflateBytes(s []byte, final bool) []byte {
	var b bytes.Buffer
	fw, _ := flate.NewWriter(&b, flate.BestCompression)
	_, _ = fw.Write(s)
	if final {
		_ = fw.Close()
	} else {
		_ = fw.Flush()
	}
	return b.Bytes()
}

// bombEntry writes a deflated entry of prefix + size bytes of 'a' + suffix.
// declared is the size written in the headers: the true size for an
// honest bomb, a small one for a lying header. The CRC is only computed
// for small bombs; big ones are refused long before it is checked.
func bombEntry(t testing.TB, zw *zip.Writer, name, prefix, suffix string, size, declared int64) {
	t.Helper()
	if size%bombChunk != 0 {
		t.Fatalf("bomb size must be a multiple of %d", bombChunk)
	}
	head, body, tail := deflateBytes([]byte(prefix), false), bombBlock('a'), deflateBytes([]byte(suffix), true)
	n := size / bombChunk
	var crc uint32
	if size <= 64<<20 {
		crc = crc32.ChecksumIEEE([]byte(prefix))
		block := bytes.Repeat([]byte{'a'}, bombChunk)
		for range n {
			crc = crc32.Update(crc, crc32.IEEETable, block)
		}
		crc = crc32.Update(crc, crc32.IEEETable, []byte(suffix))
	}
	w, err := zw.CreateRaw(&zip.FileHeader{
		Name: name, Method: zip.Deflate, CRC32: crc,
		CompressedSize64:   uint64(len(head) + int(n)*len(body) + len(tail)),
		UncompressedSize64: uint64(declared),
	})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write(head)
	for range n {
		_, _ = w.Write(body)
	}
	_, _ = w.Write(tail)
}
