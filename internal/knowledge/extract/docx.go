package extract

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"path"
	"strconv"
	"strings"
)

// A DOCX is a zip of XML parts. Only three parts are ever read (the main
// document, its styles, the core properties), each through a budget that
// counts the bytes actually inflated, because zip headers are written by
// the attacker. Nothing is written to disk and embedded archives are never
// opened.

const (
	nsW       = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	nsWStrict = "http://purl.oclc.org/ooxml/wordprocessingml/main"
	nsMC      = "http://schemas.openxmlformats.org/markup-compatibility/2006"
	nsDC      = "http://purl.org/dc/elements/1.1/"

	// ratioFloor is the size an entry may reach before its compression
	// ratio is checked: small XML parts legitimately compress very well.
	ratioFloor = 1 << 20
	// smallPartLimit bounds the parts that are metadata, not content.
	smallPartLimit = 4 << 20
)

func openZip(data []byte) (*zip.Reader, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		// With GODEBUG=zipinsecurepath=0 the reader is still usable; names
		// like "../x" are harmless here since entries are looked up by
		// exact, clean names and never written anywhere.
		if errors.Is(err, zip.ErrInsecurePath) && zr != nil {
			return zr, nil
		}
		return nil, err
	}
	return zr, nil
}

// zipEntry finds an entry by its exact name. Names we look up are always
// clean relative paths, so "../x", absolute and empty names never match.
func zipEntry(zr *zip.Reader, name string) *zip.File {
	for _, f := range zr.File {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// docxMainPart finds the main document part: the officeDocument target of
// _rels/.rels when it is a safe path under word/, else word/document.xml.
func docxMainPart(zr *zip.Reader) string {
	if f := zipEntry(zr, "_rels/.rels"); f != nil {
		if rc, err := f.Open(); err == nil {
			dec := xml.NewDecoder(io.LimitReader(rc, 1<<20))
			for {
				tok, err := dec.Token()
				if err != nil {
					break
				}
				se, ok := tok.(xml.StartElement)
				if !ok || se.Name.Local != "Relationship" || !strings.HasSuffix(attr(se, "Type"), "/officeDocument") {
					continue
				}
				target := path.Clean(strings.TrimPrefix(attr(se, "Target"), "/"))
				if strings.HasPrefix(target, "word/") && zipEntry(zr, target) != nil {
					_ = rc.Close()
					return target
				}
			}
			_ = rc.Close()
		}
	}
	if zipEntry(zr, "word/document.xml") != nil {
		return "word/document.xml"
	}
	return ""
}

func attr(se xml.StartElement, local string) string {
	for _, a := range se.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// unzipBudget counts inflated bytes across every part read.
type unzipBudget struct {
	lim  Limits
	used int64
	size int64 // archive size, a bound on any honest compressed size
}

type budgetReader struct {
	r          io.Reader
	b          *unzipBudget
	n          int64
	compressed int64
}

func (r *budgetReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.n += int64(n)
	r.b.used += int64(n)
	if r.b.used > r.b.lim.MaxUnzipBytes {
		return n, newErr(ErrTooLarge, nil, "the DOCX expands to more than %s", humanBytes(r.b.lim.MaxUnzipBytes))
	}
	if r.n > ratioFloor && r.n > int64(r.b.lim.MaxUnzipRatio)*max(r.compressed, 1) {
		return n, newErr(ErrTooLarge, nil, "the DOCX contains a part that expands more than %d times (a zip bomb?)", r.b.lim.MaxUnzipRatio)
	}
	return n, err
}

// open returns the inflated content of f through the budget. The
// LimitReader stops a lying header one byte past the budget even if the
// counting were somehow bypassed.
func (b *unzipBudget) open(f *zip.File) (io.ReadCloser, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, newErr(ErrMalformed, err, "the DOCX file is damaged (%s cannot be read)", f.Name)
	}
	compressed := b.size
	if f.CompressedSize64 < uint64(b.size) {
		compressed = int64(f.CompressedSize64)
	}
	lr := io.LimitReader(rc, b.lim.MaxUnzipBytes-b.used+1)
	return struct {
		io.Reader
		io.Closer
	}{&budgetReader{r: lr, b: b, compressed: compressed}, rc}, nil
}

func extractDOCX(ctx context.Context, data []byte, lim Limits) (*Document, error) {
	zr, err := openZip(data)
	if err != nil {
		return nil, newErr(ErrMalformed, err, "the DOCX file is damaged")
	}
	if len(zr.File) > lim.MaxZipEntries {
		return nil, newErr(ErrTooLarge, nil, "the DOCX contains %d files; the limit is %d", len(zr.File), lim.MaxZipEntries)
	}
	mainName := docxMainPart(zr)
	if mainName == "" {
		return nil, newErr(ErrMalformed, nil, "the DOCX file has no document body (word/document.xml)")
	}
	main := zipEntry(zr, mainName)
	stylesPart := zipEntry(zr, path.Join(path.Dir(mainName), "styles.xml"))
	corePart := zipEntry(zr, "docProps/core.xml")

	var declared uint64
	for _, f := range []*zip.File{main, stylesPart, corePart} {
		if f != nil {
			declared += f.UncompressedSize64
		}
	}
	if declared > uint64(lim.MaxUnzipBytes) {
		return nil, newErr(ErrTooLarge, nil, "the DOCX expands to more than %s", humanBytes(lim.MaxUnzipBytes))
	}
	budget := &unzipBudget{lim: lim, size: int64(len(data))}

	styles, err := readStyles(budget, stylesPart)
	if err != nil {
		return nil, err
	}
	title, err := readCoreTitle(budget, corePart)
	if err != nil {
		return nil, err
	}
	rc, err := budget.open(main)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	w := &docxWalker{b: newBuilder(ctx, lim), styles: styles}
	if err := w.walk(xml.NewDecoder(rc)); err != nil {
		var ee *extractError
		if errors.As(err, &ee) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			return nil, err
		}
		return nil, newErr(ErrMalformed, err, "the DOCX file is damaged (its document body is not valid XML)")
	}
	if title == "" {
		title = w.title
	}
	if title == "" {
		title = w.firstH1
	}
	return &Document{Title: title, Sections: w.b.finish()}, nil
}

// readCoreTitle returns dc:title from docProps/core.xml, "" when absent.
func readCoreTitle(b *unzipBudget, f *zip.File) (string, error) {
	if f == nil {
		return "", nil
	}
	rc, err := b.open(f)
	if err != nil {
		// Metadata is optional: a damaged part only loses the title.
		return "", nil
	}
	defer rc.Close()
	dec := xml.NewDecoder(io.LimitReader(rc, smallPartLimit))
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", budgetErr(err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Space == nsDC && se.Name.Local == "title" {
			var s string
			if err := dec.DecodeElement(&s, &se); err != nil {
				return "", budgetErr(err)
			}
			return s, nil
		}
	}
}

// budgetErr keeps budget refusals and drops every other error: the parts
// read through it are optional.
func budgetErr(err error) error {
	var ee *extractError
	if errors.As(err, &ee) {
		return err
	}
	return nil
}

// styleInfo is what a paragraph style says about heading level:
// -1 none, 0 title, 1..9 heading level.
type styleInfo struct {
	level   int
	basedOn string
}

// readStyles maps style ids to heading levels. Style ids are localised
// ("berschrift1" in German Word) but style names of built-in styles are
// always English ("heading 1"), and outline levels are language-neutral.
func readStyles(b *unzipBudget, f *zip.File) (map[string]styleInfo, error) {
	styles := map[string]styleInfo{}
	if f == nil {
		return styles, nil
	}
	rc, err := b.open(f)
	if err != nil {
		return styles, nil // styles are optional
	}
	defer rc.Close()
	dec := xml.NewDecoder(io.LimitReader(rc, smallPartLimit))
	var id string
	var cur styleInfo
	for {
		tok, err := dec.Token()
		if err != nil {
			return styles, budgetErr(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if !isW(t.Name) {
				continue
			}
			switch t.Name.Local {
			case "style":
				id, cur = wAttr(t, "styleId"), styleInfo{level: -1}
			case "name":
				if lvl := levelFromName(wAttr(t, "val")); lvl >= 0 {
					cur.level = lvl
				}
			case "basedOn":
				cur.basedOn = wAttr(t, "val")
			case "outlineLvl":
				if n, err := strconv.Atoi(wAttr(t, "val")); err == nil && n >= 0 && n < 9 && cur.level < 0 {
					cur.level = n + 1
				}
			}
		case xml.EndElement:
			if isW(t.Name) && t.Name.Local == "style" && id != "" {
				styles[id] = cur
				id = ""
			}
		}
	}
}

// levelFromName reads "heading 3", "Heading3", "Title"; -1 otherwise.
func levelFromName(name string) int {
	n := strings.ToLower(strings.ReplaceAll(name, " ", ""))
	if n == "title" {
		return 0
	}
	if rest, ok := strings.CutPrefix(n, "heading"); ok && len(rest) == 1 && rest[0] >= '1' && rest[0] <= '9' {
		return int(rest[0] - '0')
	}
	return -1
}

func isW(n xml.Name) bool { return n.Space == nsW || n.Space == nsWStrict }

func wAttr(se xml.StartElement, local string) string {
	for _, a := range se.Attr {
		if a.Name.Local == local && (isW(a.Name) || a.Name.Space == "") {
			return a.Value
		}
	}
	return ""
}
