package retrieval

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// maxTokenBytes bounds one term: a base64 blob or a URL-sized "word" would
// otherwise become a huge, useless dictionary key. Lucene's limit is 255;
// real words are far shorter than 64 bytes.
const maxTokenBytes = 64

// Terms analyses text the way passages and queries are indexed:
//
//   - NFKC-normalised (full-width Latin and half-width Katakana fold to their
//     usual forms, ligatures split) and lower-cased;
//   - split into words on anything that is not a letter, digit or combining
//     mark; combining marks stay with their base (Devanagari vowel signs,
//     decomposed accents), ZWJ/ZWNJ and soft hyphens are dropped without
//     splitting, and a '.' between two letters or digits joins ("3.5", "e.g");
//   - Latin words: stop words of the text's language removed, then Snowball
//     stemming where the library has the language (English, French, Spanish,
//     Swedish, Norwegian, Hungarian); German, Italian, Portuguese and Dutch are
//     recognised (so they are not mangled by the English stemmer) and kept
//     unstemmed. The language is detected from stop-word counts; text that
//     gives no clear answer is treated as English;
//   - Cyrillic words: Russian stop words removed, Russian stemming;
//   - Han, Hiragana, Katakana and Hangul runs: overlapping character bigrams
//     (a single character stays a unigram), the usual CJK indexing without a
//     dictionary;
//   - Thai, Lao, Khmer and Myanmar runs (no spaces between words): bigrams of
//     grapheme clusters (a base with its marks);
//   - pictographic symbols (emoji) are terms of their own;
//   - an identifier is a term and so are its words: with underscores
//     (work_mem → work_mem, work, mem) or in camel case (KeyError →
//     keyerror, key, error).
//
// So the only non-empty texts with no terms are those made of stop words,
// punctuation, whitespace and modifiers alone.
//
// Search analyses queries the same way, except that a query whose language
// cannot be told is analysed in each of the bot's main languages.
func Terms(text string) []string {
	toks := segment(text)
	l := detectLanguage(toks)
	if l == langUnknown {
		l = langEnglish
	}
	return emitTerms(toks, l, nil)
}

type tokenKind uint8

const (
	kindWord    tokenKind = iota // letters/digits of a script with spaces between words
	kindCJK                      // a run of Han, Kana or Hangul
	kindCluster                  // a run of Thai, Lao, Khmer or Myanmar
	kindSymbol                   // one pictograph
	kindDropped                  // a word of a question's frame (dropQuestionFrame): no term
	kindIdent                    // an identifier with underscores (pg_dump, __slots__), before its parts
)

type token struct {
	text string
	kind tokenKind
}

// class is what one rune contributes to segmentation.
type class uint8

const (
	clsSep     class = iota // ends the current token
	clsWord                 // letter or digit of a spaced script
	clsCJK                  // Han, Kana, Hangul
	clsCluster              // letter of an unspaced script
	clsMark                 // combining mark: belongs to the current token
	clsJoin                 // ZWJ, ZWNJ, soft hyphen: dropped, never splits
	clsDot                  // '.': joins only between two word characters
	clsSymbol               // pictograph
)

func classify(r rune) class {
	switch {
	case r < utf8.RuneSelf:
		switch {
		case 'a' <= r && r <= 'z', '0' <= r && r <= '9', 'A' <= r && r <= 'Z':
			return clsWord
		case r == '.':
			return clsDot
		}
		return clsSep
	case r == 0x200C || r == 0x200D || r == 0x00AD:
		return clsJoin
	case r == 0x30FC: // Katakana-Hiragana prolonged sound mark (script Common)
		return clsCJK
	case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
		return clsCJK
	case unicode.In(r, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar):
		if unicode.IsMark(r) {
			return clsMark
		}
		if unicode.IsLetter(r) {
			return clsCluster
		}
		if unicode.IsNumber(r) {
			return clsWord
		}
		return clsSep
	case unicode.IsMark(r):
		return clsMark
	case unicode.IsLetter(r), unicode.IsNumber(r):
		return clsWord
	case r == utf8.RuneError:
		return clsSep
	case unicode.Is(unicode.So, r):
		return clsSymbol
	}
	return clsSep
}

// segment splits normalised, lower-cased text into tokens. A token is a
// slice of the text unless a dropped rune (a joiner, a stray mark) falls
// inside it; then it is copied.
func segment(text string) []token {
	orig := norm.NFKC.String(text)
	text = strings.ToLower(orig)
	// The original case tells the words of a camel-case identifier apart;
	// its offsets match the lower-cased text's when lower-casing kept every
	// byte length (always for ASCII).
	cased := len(orig) == len(text)
	var (
		toks       []token
		start, end int    // the token is text[start:end] while !copied
		buf        []byte // the token once copied
		copied     bool
		kind       tokenKind
		open       bool // a token is in progress
		dot        bool // a '.' is pending after a word character
		dotAt      int  // where that '.' is
		// An ASCII run of letters, digits and '_' (identStart ≥ 0): with an
		// underscore and a letter, it is also a term of its own, put before
		// the words it splits into (at identAt in toks).
		identStart, identAt               = -1, 0
		identUnder, identLetter, identBad bool
	)
	endIdent := func(i int) {
		if identStart >= 0 && identUnder && identLetter && !identBad && i-identStart >= 3 && i-identStart <= maxTokenBytes {
			toks = slices.Insert(toks, identAt, token{text: text[identStart:i], kind: kindIdent})
		}
		identStart, identUnder, identLetter, identBad = -1, false, false, false
	}
	flush := func() {
		if open {
			switch {
			case copied && len(buf) > 0:
				toks = append(toks, token{text: string(buf), kind: kind})
			case !copied && end > start:
				toks = append(toks, token{text: text[start:end], kind: kind})
				if kind == kindWord && cased {
					toks = appendCamelParts(toks, orig[start:end], text[start:end])
				}
			}
		}
		buf, copied = buf[:0], false
		open, dot = false, false
	}
	begin := func(k tokenKind, i int) {
		flush()
		kind, open = k, true
		start, end = i, i
	}
	add := func(i, w int) {
		if !copied {
			if i == end {
				end = i + w
				return
			}
			buf = append(buf[:0], text[start:end]...)
			copied = true
		}
		buf = append(buf, text[i:i+w]...)
	}
	for i := 0; i < len(text); {
		r, w := utf8.DecodeRuneInString(text[i:])
		if r == '_' || (r < utf8.RuneSelf && classify(r) == clsWord) {
			if identStart < 0 {
				identStart, identAt = i, len(toks)
				// Only a whole word: not the ASCII tail of "naïve_x".
				identBad = open && kind == kindWord && !dot
			}
			identUnder = identUnder || r == '_'
			identLetter = identLetter || ('a' <= r && r <= 'z')
		} else if identStart >= 0 {
			if c := classify(r); c == clsWord || c == clsMark {
				identBad = true // the word goes on past the run
			}
			endIdent(i)
		}
		switch classify(r) {
		case clsWord:
			if !open || kind != kindWord {
				begin(kindWord, i)
			} else if dot {
				add(dotAt, 1)
				dot = false
			}
			add(i, w)
		case clsCJK:
			if !open || kind != kindCJK {
				begin(kindCJK, i)
			}
			add(i, w)
		case clsCluster:
			if !open || kind != kindCluster {
				begin(kindCluster, i)
			}
			add(i, w)
		case clsMark:
			// A mark with no base (text starting with one, or after a
			// separator) carries no meaning of its own.
			if open && !dot && kind != kindSymbol {
				add(i, w)
			}
		case clsJoin:
			// Dropped without ending the word (Indic conjunct control, soft
			// hyphen); joiners between emoji end up separating them.
		case clsDot:
			if open && kind == kindWord && !dot {
				dot, dotAt = true, i
			} else {
				flush()
			}
		case clsSymbol:
			begin(kindSymbol, i)
			add(i, w)
			flush()
		default:
			flush()
		}
		i += w
	}
	flush()
	endIdent(len(text))
	return toks
}

// appendCamelParts adds the words of a camel-case identifier
// (ThreadPoolExecutor, HttpResponseRedirect, KeyError, base64Encode) after
// the whole word, so that a visitor who writes "key error" or "pool of
// threads" finds it. word is the original spelling, lower its lower-cased
// form (the same length). A word splits where a lower-case letter or a
// digit meets an upper-case one, and before the last capital of a run of
// capitals followed by two lower-case letters (HTTPServer → HTTP, Server;
// IPv4Address → IPv4, Address). Only ASCII letters and digits, and only
// when at least two parts of two letters or more come out: "mRNA",
// "iPhone", "IPv4" stay whole.
func appendCamelParts(toks []token, word, lower string) []token {
	if len(word) < 4 || len(word) > maxTokenBytes {
		return toks
	}
	isUp := func(c byte) bool { return 'A' <= c && c <= 'Z' }
	isLow := func(c byte) bool { return 'a' <= c && c <= 'z' }
	isDigit := func(c byte) bool { return '0' <= c && c <= '9' }
	var cuts []int
	for i := 0; i < len(word); i++ {
		c := word[i]
		if !isUp(c) && !isLow(c) && !isDigit(c) {
			return toks
		}
		if i == 0 || !isUp(c) {
			continue
		}
		p := word[i-1]
		if isLow(p) || isDigit(p) || (isUp(p) && i+2 < len(word) && isLow(word[i+1]) && isLow(word[i+2])) {
			cuts = append(cuts, i)
		}
	}
	if len(cuts) == 0 {
		return toks
	}
	cuts = append(cuts, len(word))
	parts := make([]token, 0, len(cuts))
	from, long := 0, 0
	for _, to := range cuts {
		part := lower[from:to]
		letters := 0
		for j := 0; j < len(part); j++ {
			if isLow(part[j]) {
				letters++
			}
		}
		if letters >= 2 {
			long++
		}
		parts = append(parts, token{text: part, kind: kindWord})
		from = to
	}
	if long < 2 {
		return toks
	}
	return append(toks, parts...)
}

// emitTerms turns tokens into terms, appending to dst.
func emitTerms(toks []token, l lang, dst []string) []string {
	for _, t := range toks {
		switch t.kind {
		case kindWord:
			if w := wordTerm(t.text, l); w != "" {
				dst = append(dst, w)
			}
		case kindCJK:
			dst = appendBigrams(dst, runeUnits(t.text))
		case kindCluster:
			dst = appendBigrams(dst, clusterUnits(t.text))
		case kindSymbol, kindIdent:
			dst = append(dst, t.text)
		}
	}
	return dst
}

// wordTerm is the term for one word, or "" for a stop word.
func wordTerm(w string, l lang) string {
	w = truncate(w, maxTokenBytes)
	switch scriptOf(w) {
	case scriptLatin:
		if l.isStop(w) {
			return ""
		}
		return l.stem(w)
	case scriptCyrillic:
		if langRussian.isStop(w) {
			return ""
		}
		return langRussian.stem(w)
	}
	return w
}

type script uint8

const (
	scriptOther script = iota
	scriptLatin
	scriptCyrillic
)

// scriptOf is the script of a word's first letter; digits-only words are
// "other" and are never stemmed.
func scriptOf(w string) script {
	for _, r := range w {
		switch {
		case r < utf8.RuneSelf:
			if 'a' <= r && r <= 'z' {
				return scriptLatin
			}
		case unicode.Is(unicode.Latin, r):
			return scriptLatin
		case unicode.Is(unicode.Cyrillic, r):
			return scriptCyrillic
		case unicode.IsLetter(r):
			return scriptOther
		}
	}
	return scriptOther
}

// truncate cuts s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func runeUnits(s string) []string {
	units := make([]string, 0, utf8.RuneCountInString(s))
	for i, r := range s {
		units = append(units, s[i:i+utf8.RuneLen(r)])
	}
	return units
}

// clusterUnits splits a run into bases with their following marks, so a
// Thai vowel or tone mark is never separated from its consonant.
func clusterUnits(s string) []string {
	var units []string
	start := 0
	for i, r := range s {
		if i > start && !unicode.IsMark(r) {
			units = append(units, s[start:i])
			start = i
		}
	}
	return append(units, s[start:])
}

func appendBigrams(dst []string, units []string) []string {
	switch len(units) {
	case 0:
		return dst
	case 1:
		return append(dst, units[0])
	}
	for i := 0; i+1 < len(units); i++ {
		dst = append(dst, units[i]+units[i+1])
	}
	return dst
}
