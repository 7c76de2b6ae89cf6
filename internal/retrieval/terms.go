package retrieval

import (
	"encoding/json"
	"strings"
)

// termsVersion starts every value Analyze writes. A different analyser
// (new stemming rules, new fields) gets a new version, so an index can tell
// rows that must be re-analysed from rows it understands.
const termsVersion = "v1"

// Field tags of the terms column.
const (
	fieldTitle   = 't'
	fieldHeading = 'h'
	fieldBody    = 'b'
)

// Analyze prepares the terms column of a passage. The value is text, one
// line per non-empty field, each line a tag and the field's terms in order,
// separated by single spaces (terms never contain whitespace):
//
//	v1 en
//	t <title terms>
//	h <heading path terms, all levels>
//	b <passage text terms>
//
// The first line is the format version and the language the Latin words were
// stemmed as. Keeping the fields apart, rather than repeating title words,
// lets the index weight them at query time (BM25F-style, Options.TitleBoost
// and HeadingBoost) and lets the weights change without re-analysing
// anything; keeping the terms in order leaves room for phrase and proximity
// scoring later. The language of all three fields is detected together, so
// one passage is stemmed one way. Deterministic: the same input always gives
// the same string.
func Analyze(title string, headingPath []string, text string) string {
	tt := segment(title)
	ht := segment(strings.Join(headingPath, "\n"))
	bt := segment(text)
	all := make([]token, 0, len(tt)+len(ht)+len(bt))
	all = append(append(append(all, tt...), ht...), bt...)
	l := detectLanguage(all)
	if l == langUnknown {
		l = langEnglish
	}
	var b strings.Builder
	b.WriteString(termsVersion)
	b.WriteByte(' ')
	b.WriteString(l.String())
	for _, f := range []struct {
		tag  byte
		toks []token
	}{{fieldTitle, tt}, {fieldHeading, ht}, {fieldBody, bt}} {
		terms := emitTerms(f.toks, l, nil)
		if len(terms) == 0 {
			continue
		}
		b.WriteByte('\n')
		b.WriteByte(f.tag)
		for _, t := range terms {
			b.WriteByte(' ')
			b.WriteString(t)
		}
	}
	return b.String()
}

// fieldTerms is a parsed terms column. The slices point into the column
// value; anything kept longer than the parse must be cloned.
type fieldTerms struct {
	lang                 lang
	title, heading, body []string
}

// parseTerms reads what Analyze wrote.
func parseTerms(s string) fieldTerms {
	var ft fieldTerms
	ft.lang = scanTerms(s, func(f int, t string) {
		switch f {
		case 0:
			ft.title = append(ft.title, t)
		case 1:
			ft.heading = append(ft.heading, t)
		default:
			ft.body = append(ft.body, t)
		}
	})
	return ft
}

// scanTerms calls fn with each term of a terms column value and its field
// (0 title, 1 heading, 2 body) and returns the value's language. A value
// without the version line (written by hand or by an older tool) is read as
// body terms, so a passage is never silently unsearchable. It splits on
// single bytes rather than calling strings.Fields: loading an index is
// mostly this loop.
func scanTerms(s string, fn func(field int, term string)) lang {
	l := langUnknown
	rest, tagged := strings.CutPrefix(s, termsVersion+" ")
	if tagged {
		var code string
		code, s, _ = strings.Cut(rest, "\n")
		l = parseLang(code)
	} else {
		s = strings.Join(strings.Fields(s), " ") // any whitespace, one line
	}
	for len(s) > 0 {
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		field := 2
		if tagged {
			if len(line) < 2 || line[1] != ' ' {
				continue
			}
			switch line[0] {
			case fieldTitle:
				field = 0
			case fieldHeading:
				field = 1
			case fieldBody:
				field = 2
			default:
				continue // a field a later version added
			}
			line = line[2:]
		}
		for len(line) > 0 {
			t := line
			if i := strings.IndexByte(line, ' '); i >= 0 {
				t, line = line[:i], line[i+1:]
			} else {
				line = ""
			}
			if t != "" {
				fn(field, t)
			}
		}
	}
	return l
}

// headingSep joins the levels of passages.heading_path. The column is
// shown to people (sources of an answer), so it is plain text rather than
// JSON; a heading that itself contains " › " would read back as two levels.
const headingSep = " › "

// EncodeHeadingPath is the passages.heading_path column format: the
// headings from the outermost in, joined by " › "; "" for none.
func EncodeHeadingPath(path []string) string {
	return strings.Join(path, headingSep)
}

// DecodeHeadingPath reads EncodeHeadingPath's format. A JSON array of
// strings is accepted too.
func DecodeHeadingPath(s string) []string {
	if s == "" {
		return nil
	}
	var path []string
	if strings.HasPrefix(s, "[") && json.Unmarshal([]byte(s), &path) == nil {
		return path
	}
	return strings.Split(s, headingSep)
}
