package chunk

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// unit is the smallest piece a passage is built from: a sentence, or a
// fragment of a sentence too long to keep whole. Offsets index the
// section text; lead..start is the separator (spaces, paragraph breaks)
// in front of it, counted with it so that the token counts of adjacent
// units add up to about the count of their concatenation.
type unit struct {
	lead, start, end int
	tokens           int
	para             bool // first unit of a paragraph
}

// fullStops end a sentence without a following space: CJK, Devanagari,
// Arabic script and their full-width forms do not put spaces after them.
func isFullStop(r rune) bool {
	switch r {
	case '。', '！', '？', '．', '｡', '।', '॥', '؟', '۔', '՝', '።':
		return true
	}
	return false
}

// closers may follow a sentence's final punctuation and belong to it.
func isCloser(r rune) bool {
	switch r {
	case '"', '\'', ')', ']', '}', '»', '”', '’', '」', '』', '）', '】', '〉', '》', '〕':
		return true
	}
	return false
}

// abbreviations do not end a sentence ("e.g. this", "Dr. Rao").
var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "sr": true, "jr": true,
	"st": true, "vs": true, "etc": true, "e.g": true, "i.e": true, "inc": true, "ltd": true,
	"co": true, "no": true, "nos": true, "fig": true, "approx": true, "dept": true, "est": true,
	"u.s": true, "u.k": true, "cf": true, "al": true, "ca": true, "p": true, "pp": true,
}

// sentenceSpans returns [start, end) of each sentence, trimmed, and
// whether it opens a paragraph. Paragraphs ("\n\n") always end a sentence.
func sentenceSpans(text string) (spans [][2]int, paraStart []bool) {
	start := -1
	newPara := true
	emit := func(end int) {
		if start < 0 {
			return
		}
		e := end
		for e > start {
			r, n := utf8.DecodeLastRuneInString(text[:e])
			if !unicode.IsSpace(r) {
				break
			}
			e -= n
		}
		if e > start {
			spans = append(spans, [2]int{start, e})
			paraStart = append(paraStart, newPara)
			newPara = false
		}
		start = -1
	}
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if r == '\n' && i+1 < len(text) && text[i+1] == '\n' {
			emit(i)
			newPara = true
			i += 2
			continue
		}
		if unicode.IsSpace(r) {
			i += n
			continue
		}
		if start < 0 {
			start = i
		}
		i += n
		switch {
		case isFullStop(r):
			i = skipClosers(text, i)
			emit(i)
		case r == '.' || r == '!' || r == '?' || r == '…':
			j := i
			for j < len(text) {
				r2, n2 := utf8.DecodeRuneInString(text[j:])
				if r2 != '.' && r2 != '!' && r2 != '?' && r2 != '…' {
					break
				}
				j += n2
			}
			j = skipClosers(text, j)
			if j < len(text) {
				r2, _ := utf8.DecodeRuneInString(text[j:])
				if !unicode.IsSpace(r2) {
					continue
				}
			}
			if r == '.' && j == i && (isAbbreviation(text[start:i-1]) || nextIsLower(text, j)) {
				continue
			}
			i = j
			emit(i)
		}
	}
	emit(len(text))
	return spans, paraStart
}

func skipClosers(text string, i int) int {
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !isCloser(r) {
			break
		}
		i += n
	}
	return i
}

// isAbbreviation looks at the word before a period.
func isAbbreviation(before string) bool {
	k := strings.LastIndexFunc(before, func(r rune) bool { return !unicode.IsLetter(r) && r != '.' })
	word := strings.ToLower(before[k+1:])
	return utf8.RuneCountInString(word) == 1 || abbreviations[word]
}

// nextIsLower reports whether the next word starts in lower case, which a
// new sentence does not ("approx. ten days").
func nextIsLower(text string, i int) bool {
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsSpace(r) {
			return unicode.IsLower(r)
		}
		i += n
	}
	return false
}

// segment cuts a section into units of at most budget tokens: whole
// sentences, except that a sentence over max is cut at line breaks, then
// words, then runes, into pieces of at most budget.
func segment(text string, budget, maxTokens int) []unit {
	spans, paras := sentenceSpans(text)
	units := make([]unit, 0, len(spans))
	prevEnd := 0
	for i, sp := range spans {
		u := unit{lead: prevEnd, start: sp[0], end: sp[1], para: paras[i]}
		u.tokens = CountTokens(text[u.lead:u.end])
		if u.tokens <= maxTokens {
			units = append(units, u)
		} else {
			pieces := splitLong(text, u.lead, u.start, u.end, budget)
			pieces[0].para = u.para
			units = append(units, pieces...)
		}
		prevEnd = sp[1]
	}
	return units
}

// splitLong packs the lines of text[start:end] into units of at most
// budget tokens, cutting lines that are too long on their own by words.
func splitLong(text string, lead, start, end, budget int) []unit {
	return pack(text, lead, start, end, budget, "\n", func(l, s, e int) []unit {
		return pack(text, l, s, e, budget, " \t", func(l, s, e int) []unit {
			return splitRunes(text, l, s, e, budget)
		})
	})
}

// pack splits text[start:end] at any byte of seps and greedily joins
// consecutive parts while their summed counts fit in budget; a part that
// does not fit alone goes to tooBig. Each joined piece is counted once
// more as a whole, and handed to tooBig too should the sum have been
// optimistic, so every unit returned is within budget.
func pack(text string, lead, start, end, budget int, seps string, tooBig func(l, s, e int) []unit) []unit {
	var out []unit
	var cur unit
	curTokens, empty := 0, true
	flush := func() {
		if empty {
			return
		}
		cur.tokens = CountTokens(text[cur.lead:cur.end])
		if cur.tokens <= budget {
			out = append(out, cur)
		} else {
			out = append(out, tooBig(cur.lead, cur.start, cur.end)...)
		}
		empty = true
	}
	pos, partLead := start, lead
	for pos < end {
		partEnd := end
		if i := strings.IndexAny(text[pos:end], seps); i >= 0 {
			partEnd = pos + i
		}
		if partEnd > pos {
			n := CountTokens(text[partLead:partEnd])
			switch {
			case !empty && curTokens+n <= budget:
				cur.end, curTokens = partEnd, curTokens+n
			case n <= budget:
				flush()
				cur, curTokens, empty = unit{lead: partLead, start: pos, end: partEnd}, n, false
			default:
				flush()
				out = append(out, tooBig(partLead, pos, partEnd)...)
			}
			partLead = partEnd
		}
		pos = partEnd + 1
	}
	flush()
	return out
}

// splitRunes cuts a run without separators (a URL, base64, CJK text
// without punctuation) into pieces of at most budget tokens, on rune
// boundaries. The cut is guessed from the run's token density and
// shrunk until the piece fits.
func splitRunes(text string, lead, start, end, budget int) []unit {
	var out []unit
	total := max(CountTokens(text[start:end]), 1)
	step := max((end-start)*budget/total, 1)
	l := lead
	for start < end {
		cut := runeCut(text, start, min(start+step, end))
		t := CountTokens(text[l:cut])
		for t > budget && cut-start > utf8.UTFMax {
			cut = runeCut(text, start, start+(cut-start)*3/4)
			t = CountTokens(text[l:cut])
		}
		out = append(out, unit{lead: l, start: start, end: cut, tokens: t})
		l, start = cut, cut
	}
	return out
}

// runeCut moves i back to a rune boundary, at least one rune past start.
func runeCut(text string, start, i int) int {
	if i >= len(text) {
		return len(text)
	}
	for i > start && !utf8.RuneStart(text[i]) {
		i--
	}
	if i <= start {
		_, n := utf8.DecodeRuneInString(text[start:])
		return start + n
	}
	return i
}
