package extract

import (
	"encoding/xml"
	"io"
	"strconv"
	"strings"
)

// docxWalker streams word/document.xml. Memory stays proportional to the
// largest paragraph or table, not to the document.
type docxWalker struct {
	b       *builder
	styles  map[string]styleInfo
	paras   []*docxPara // open paragraphs; more than one inside text boxes
	tables  []*docxTable
	inPPr   int
	inText  bool
	title   string // first Title-styled paragraph
	firstH1 string
}

type docxPara struct {
	text    strings.Builder
	style   string
	outline int // w:outlineLvl of the paragraph itself, -1 when absent
}

type docxTable struct {
	rows []string
	row  []string
	cell []string
}

func (w *docxWalker) walk(dec *xml.Decoder) error {
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			// mc:Fallback repeats the mc:Choice content in an older form.
			if t.Name.Space == nsMC && t.Name.Local == "Fallback" {
				if err := dec.Skip(); err != nil {
					return err
				}
				continue
			}
			if isW(t.Name) {
				w.start(t)
			}
		case xml.EndElement:
			if isW(t.Name) {
				if err := w.end(t.Name.Local); err != nil {
					return err
				}
			}
		case xml.CharData:
			if w.inText && len(w.paras) > 0 {
				w.paras[len(w.paras)-1].text.Write(t)
			}
		}
	}
}

func (w *docxWalker) write(s string) {
	if len(w.paras) > 0 && w.inPPr == 0 {
		w.paras[len(w.paras)-1].text.WriteString(s)
	}
}

func (w *docxWalker) start(t xml.StartElement) {
	switch t.Name.Local {
	case "p":
		w.paras = append(w.paras, &docxPara{outline: -1})
	case "pPr":
		w.inPPr++
	case "pStyle":
		if w.inPPr > 0 && len(w.paras) > 0 {
			w.paras[len(w.paras)-1].style = wAttr(t, "val")
		}
	case "outlineLvl":
		if n, err := strconv.Atoi(wAttr(t, "val")); err == nil && w.inPPr > 0 && len(w.paras) > 0 {
			w.paras[len(w.paras)-1].outline = n
		}
	case "t":
		w.inText = true
	case "tab", "ptab":
		// In w:pPr, w:tabs/w:tab defines tab stops rather than tabs.
		w.write("\t")
	case "br", "cr":
		w.write("\n")
	case "noBreakHyphen":
		w.write("-")
	case "tbl":
		w.tables = append(w.tables, &docxTable{})
	case "tr":
		if tb := w.table(); tb != nil {
			tb.row = nil
		}
	case "tc":
		if tb := w.table(); tb != nil {
			tb.cell = nil
		}
	}
}

func (w *docxWalker) table() *docxTable {
	if len(w.tables) == 0 {
		return nil
	}
	return w.tables[len(w.tables)-1]
}

func (w *docxWalker) end(local string) error {
	switch local {
	case "t":
		w.inText = false
	case "pPr":
		w.inPPr = max(0, w.inPPr-1)
	case "p":
		if len(w.paras) == 0 {
			return nil
		}
		p := w.paras[len(w.paras)-1]
		w.paras = w.paras[:len(w.paras)-1]
		return w.endPara(p)
	case "tc":
		if tb := w.table(); tb != nil {
			tb.row = append(tb.row, cleanInline(strings.Join(tb.cell, " ")))
			tb.cell = nil
		}
	case "tr":
		if tb := w.table(); tb != nil {
			if line := strings.Join(tb.row, "\t"); strings.TrimSpace(line) != "" {
				tb.rows = append(tb.rows, line)
			}
			tb.row = nil
		}
	case "tbl":
		if len(w.tables) == 0 {
			return nil
		}
		tb := w.tables[len(w.tables)-1]
		w.tables = w.tables[:len(w.tables)-1]
		return w.emit(strings.Join(tb.rows, "\n"))
	}
	return nil
}

// emit routes finished text to the enclosing table cell, the enclosing
// paragraph (text boxes), or the document.
func (w *docxWalker) emit(text string) error {
	if tb := w.table(); tb != nil {
		tb.cell = append(tb.cell, text)
		return nil
	}
	if len(w.paras) > 0 {
		p := w.paras[len(w.paras)-1]
		p.text.WriteString("\n")
		p.text.WriteString(text)
		return nil
	}
	return w.b.para(text)
}

func (w *docxWalker) endPara(p *docxPara) error {
	text := p.text.String()
	if w.table() != nil || len(w.paras) > 0 {
		return w.emit(text)
	}
	switch lvl := w.level(p); {
	case lvl == 0:
		if w.title == "" {
			w.title = cleanInline(text)
		}
		return w.b.para(text)
	case lvl > 0:
		if lvl == 1 && w.firstH1 == "" {
			w.firstH1 = cleanInline(text)
		}
		return w.b.heading(lvl, text, "")
	}
	return w.b.para(text)
}

// level is the heading level of a paragraph: its own outline level, else
// its style's (following basedOn), else a guess from the style id.
func (w *docxWalker) level(p *docxPara) int {
	if p.outline >= 0 && p.outline < 9 {
		return p.outline + 1
	}
	id := p.style
	for range 10 { // basedOn chains are short; cycles are cut off
		st, ok := w.styles[id]
		if !ok {
			break
		}
		if st.level >= 0 {
			return st.level
		}
		id = st.basedOn
	}
	return levelFromName(p.style)
}
