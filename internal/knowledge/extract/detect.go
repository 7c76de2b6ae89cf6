package extract

import (
	"bytes"
	"path"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/gabriel-vasile/mimetype"
)

// textExts maps the extensions accepted for text formats. Text formats
// have no magic number, so the extension decides the format once the
// content has been checked to be text.
var textExts = map[string]string{
	".md":       "markdown",
	".markdown": "markdown",
	".mdown":    "markdown",
	".txt":      "text",
	".text":     "text",
	".csv":      "csv",
	".tsv":      "csv",
	".html":     "html",
	".htm":      "html",
	".xhtml":    "html",
}

// Detect decides the format from the content and the file name together.
// Binary formats are recognised by their magic (PDF "%PDF-", a zip holding
// word/document.xml) whatever the name says. Text formats are accepted by
// extension once the content is text. A binary extension whose content is
// something else (a ".pdf" holding HTML or SVG) is refused: that is how
// active content gets smuggled past upload filters.
func Detect(name string, data []byte) (string, error) {
	if len(data) == 0 {
		return "", newErr(ErrEmpty, nil, "the file is empty")
	}
	ext := strings.ToLower(path.Ext(strings.ReplaceAll(name, "\\", "/")))
	if isPDF(data, ext == ".pdf") {
		return "pdf", nil
	}
	if bytes.HasPrefix(data, []byte("PK\x03\x04")) || bytes.HasPrefix(data, []byte("PK\x05\x06")) {
		return detectZip(ext, data)
	}
	m := mimetype.Detect(data)
	switch ext {
	case ".pdf", ".docx":
		label := strings.ToUpper(ext[1:])
		return "", newErr(ErrUnsupported, nil, "the file is named %s but its content is %s, not %s", ext, describeMIME(m), label)
	case ".doc", ".xls", ".xlsx", ".ppt", ".pptx", ".odt", ".rtf", ".pages":
		return "", newErr(ErrUnsupported, nil, "%s files are not supported; save the document as PDF or DOCX", ext)
	}
	if !looksLikeText(data) {
		return "", newErr(ErrUnsupported, nil, "unsupported file type (%s); upload PDF, DOCX, HTML, Markdown, text or CSV", describeMIME(m))
	}
	if f, ok := textExts[ext]; ok {
		return f, nil
	}
	// No usable extension: go by the sniffed content. SVG and other XML
	// is refused rather than read as text, since it is an active format.
	switch {
	case m.Is("text/html"):
		return "html", nil
	case m.Is("image/svg+xml"), m.Is("text/xml"), m.Is("application/xml"):
		return "", newErr(ErrUnsupported, nil, "unsupported file type (%s)", describeMIME(m))
	case m.Is("text/csv"), m.Is("text/tab-separated-values"):
		return "csv", nil
	}
	return "text", nil
}

// isPDF wants the header at the start. Readers accept it anywhere in the
// first KiB, so a file named .pdf gets that leeway too; other names do not,
// or a text file quoting "%PDF-" would be mistaken for one.
func isPDF(data []byte, named bool) bool {
	if bytes.HasPrefix(data, []byte("%PDF-")) {
		return true
	}
	return named && bytes.Contains(data[:min(len(data), 1024)], []byte("%PDF-"))
}

func detectZip(ext string, data []byte) (string, error) {
	zr, err := openZip(data)
	if err != nil {
		return "", newErr(ErrMalformed, err, "the file is a damaged or unsupported zip archive")
	}
	if docxMainPart(zr) != "" {
		return "docx", nil
	}
	switch ext {
	case ".docx":
		return "", newErr(ErrMalformed, nil, "the DOCX file has no document body (word/document.xml)")
	case ".xlsx", ".pptx", ".odt":
		return "", newErr(ErrUnsupported, nil, "%s files are not supported; save the document as PDF or DOCX", ext)
	}
	return "", newErr(ErrUnsupported, nil, "zip archives are not supported; upload the documents one by one")
}

func describeMIME(m *mimetype.MIME) string {
	switch {
	case m.Is("text/html"):
		return "HTML"
	case m.Is("image/svg+xml"):
		return "SVG"
	case m.Is("application/x-ole-storage"):
		return "a legacy Office document"
	case m.Is("text/plain"):
		return "plain text"
	case m.Is("application/octet-stream"):
		return "unrecognised binary data"
	}
	s := m.String()
	if i := strings.IndexByte(s, ';'); i >= 0 {
		s = s[:i]
	}
	return s
}

// looksLikeText accepts UTF-8, UTF-16 with a byte-order mark, and legacy
// 8-bit text (read as Windows-1252), and refuses anything with more than
// a sprinkle of control bytes (NUL included) in its first 64 KiB.
func looksLikeText(data []byte) bool {
	if bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF}) {
		return len(data)%2 == 0
	}
	sample := data[:min(len(data), 64<<10)]
	controls := 0
	for _, c := range sample {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != 0x1b {
			controls++
		}
	}
	// Stray NULs and escapes happen in real text files; binary data has
	// one control byte in eight or so.
	return controls <= 2 || controls*100 <= len(sample)
}

// decodeText returns data as valid UTF-8: BOMs are dropped, UTF-16 with a
// BOM is decoded, and input that is not UTF-8 is read as Windows-1252,
// the usual encoding of text that is not UTF-8.
func decodeText(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		data = data[3:]
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}), bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return decodeUTF16(data)
	}
	if utf8.Valid(data) {
		return string(data)
	}
	invalid, multibyte := 0, 0
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			invalid++
		} else if n > 1 {
			multibyte++
		}
		i += n
	}
	// Valid multi-byte sequences do not happen by chance in 8-bit text:
	// if they outnumber the bad bytes, this is damaged UTF-8.
	if multibyte >= invalid {
		return strings.ToValidUTF8(string(data), "\uFFFD")
	}
	var b strings.Builder
	b.Grow(len(data) + len(data)/8)
	for _, c := range data {
		if c >= 0x80 && c < 0xA0 {
			b.WriteRune(cp1252[c-0x80])
		} else {
			b.WriteRune(rune(c))
		}
	}
	return b.String()
}

func decodeUTF16(data []byte) string {
	bigEndian := data[0] == 0xFE
	data = data[2:]
	u := make([]uint16, 0, len(data)/2)
	for i := 0; i+1 < len(data); i += 2 {
		if bigEndian {
			u = append(u, uint16(data[i])<<8|uint16(data[i+1]))
		} else {
			u = append(u, uint16(data[i+1])<<8|uint16(data[i]))
		}
	}
	return string(utf16.Decode(u))
}

// cp1252 maps 0x80..0x9F of Windows-1252; the rest of the code page is
// Latin-1, which maps byte for rune.
var cp1252 = [32]rune{
	'€', '\uFFFD', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\uFFFD', 'Ž', '\uFFFD',
	'\uFFFD', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\uFFFD', 'ž', 'Ÿ',
}
