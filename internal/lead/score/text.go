package score

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is one normalised word of a turn. Offsets point into the turn's
// original text, so any run of tokens maps back to a verbatim quote. A
// contraction expands into several tokens sharing one span ("I'm" → i, am).
type token struct {
	norm       string   // lower-case, shorthand and typos corrected
	id         int32    // vocabulary id of norm, -1 when the lexicon does not know it
	kind       wordKind // word classes of norm, so detectors test a bit, not a map
	start, end int      // byte span in the original text
	num        float64  // value when isNum
	isNum      bool
	mult       string // unit glued to a number: "k", "lakh", "crore", "m"
	ordinal    bool   // "15th"
	year       bool   // four digits from 1900 to 2100 without separators: "2026", not "2,000"
	upper      bool   // original word began with an upper-case letter
	clause     int    // clause index within the turn: the scope of a negation or hedge
}

// sentence is a span of a turn ending at . ! ? or a line break.
type sentence struct {
	start, end       int // byte span in the original text, trimmed
	tokStart, tokEnd int // token range [tokStart, tokEnd)
	question         bool
}

// turnText is one visitor turn prepared for matching.
type turnText struct {
	index int // position in the transcript
	text  string
	toks  []token
	sents []sentence
	// asked is what the preceding bot turn asked about, so a bare "yes" or
	// "50k" can be read as an answer. It is context only: the quote is
	// always the visitor's own words.
	asked facetSet
	// priced: the preceding bot turn stated a price, so "that's fine"
	// accepts it (but "sure" to "shall I send the brochure?" does not).
	priced bool
	// trialOffered: the preceding bot turn offered a free trial, study or
	// evaluation.
	trialOffered bool
	// offScope: the bot's next turn said the request is not something the
	// business offers.
	offScope bool
	// refAsked: the preceding bot turn asked for the number of an order,
	// policy, claim or contract.
	refAsked bool
	// slots: the days and hours the preceding bot turn offered to choose
	// from (slot.go).
	slots map[string]bool
	// oneSlot: the preceding bot turn offered one slot, in a question or
	// as free ("Thursday 11 AM theek hai?", "Freitag 9:30 ist noch frei").
	oneSlot bool
}

// ptShorthand maps Brazilian chat spellings to the words the lexicon
// holds, in Portuguese conversations only ("to" is English elsewhere).
var ptShorthand = map[string]string{
	"to": "estou", "tô": "estou", "ta": "esta", "tá": "esta", "tao": "estao", "tão": "estao", "tamo": "estamos", "tamos": "estamos", "pra": "para",
	"vc": "voce", "vcs": "voces", "bora": "vamos", "q": "que", "tb": "tambem", "tbm": "tambem", "hj": "hoje",
	"pq": "porque", "mt": "muito", "mto": "muito", "qnd": "quando", "msm": "mesmo", "vdd": "verdade",
}

// shorthand maps chat spellings and frequent typos to the lexicon's words.
// Values with a space expand into several tokens.
var shorthand = map[string]string{
	"im": "i am", "dont": "do not", "doesnt": "does not", "didnt": "did not", "cant": "can not",
	"cannot": "can not", "wont": "will not", "isnt": "is not", "arent": "are not", "wasnt": "was not",
	"werent": "were not", "havent": "have not", "hasnt": "has not", "hadnt": "had not",
	"couldnt": "could not", "shouldnt": "should not", "wouldnt": "would not", "ive": "i have",
	"youre": "you are", "theyre": "they are", "thats": "that is", "whats": "what is", "ain't": "is not",
	"u": "you", "r": "are", "ur": "your", "pls": "please", "plz": "please", "pleas": "please",
	"thx": "thanks", "thnx": "thanks", "tks": "thanks", "wat": "what", "wht": "what", "hw": "how",
	"mayb": "maybe", "maybee": "maybe", "wen": "when", "abt": "about", "bcoz": "because", "bcz": "because",
	"coz": "because", "cuz": "because", "ppl": "people", "approx": "approximately", "reqd": "required",
	"mgr": "manager", "mgmt": "management", "dept": "department", "yr": "year", "yrs": "years",
	"tmrw": "tomorrow", "tmr": "tomorrow", "tomo": "tomorrow", "wk": "week", "wks": "weeks",
	"mnth": "month", "mth": "month", "mnths": "months", "teh": "the", "ned": "need", "nd": "need",
	"budjet": "budget", "bugdet": "budget", "buget": "budget", "budgt": "budget", "pricng": "pricing",
	"prcing": "pricing", "urgnt": "urgent", "decison": "decision", "descision": "decision",
	"desicion": "decision", "intrested": "interested", "intersted": "interested", "rqd": "required",
	"nahin": "nahi", "nhi": "nahi", "nai": "nahi", "hain": "hai",
	"chaiye": "chahiye", "chahie": "chahiye", "chahiya": "chahiye", "cheye": "chahiye",
}

// fuzzyAnchors are lexicon words long and distinctive enough that a token
// one edit away (insertion, deletion, substitution or transposition) is a
// typo of them rather than another English word. Short or common words
// ("manager", "director", "founder") are left out on purpose: they have
// real neighbours ("manages", "directory", "founded").
var fuzzyAnchors = []string{
	"budget", "pricing", "decision", "urgent", "urgently", "quotation", "interested", "immediately",
	"expensive", "requirement", "requirements", "approved", "sanctioned", "procurement", "struggling",
	"deadline", "integration", "integrate",
}

// tokenize splits text into normalised tokens, sentences and clauses, with
// the lexicon's vocabulary ids; unknown words of five or more letters are
// checked against fuzzyAnchors.
func tokenize(text string, lx *compiled) ([]token, []sentence) {
	return tokenizeLang(text, lx, LangEnglish)
}

// tokenizeLang is tokenize for a conversation in lang, which decides how
// numbers are written: "1.500 €" and "10 000 €" are thousands in
// continental languages.
func tokenizeLang(text string, lx *compiled, lang string) ([]token, []sentence) {
	cont := continental(lang)
	toks := make([]token, 0, len(text)/5+4)
	sents := make([]sentence, 0, len(text)/40+2)
	clause := 0
	sentStart := -1 // byte offset of the first token of the current sentence
	sentTok := 0
	lastEnd := 0
	endSentence := func(q bool) {
		if sentStart >= 0 && len(toks) > sentTok {
			sents = append(sents, sentence{start: sentStart, end: lastEnd, tokStart: sentTok, tokEnd: len(toks), question: q})
			clause++
		}
		sentStart, sentTok = -1, len(toks)
	}
	emit := func(t token) {
		t.clause, t.id = clause, lx.id(t.norm)
		t.kind = lx.kindOf(t.id)
		if sentStart < 0 {
			sentStart = t.start
		}
		if t.end > lastEnd {
			lastEnd = t.end
		}
		toks = append(toks, t)
	}
	i := 0
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case isWordRune(r):
			j := scanWord(text, i, cont)
			word := text[i:j]
			if (word == "R" || word == "r" || word == "US" || word == "us") && j < len(text) && text[j] == '$' {
				// "R$ 3 mil", "US$ 500": the currency, not "are" and a dollar.
				norm := "brl"
				if len(word) == 2 {
					norm = "usd"
				}
				emit(token{norm: norm, start: i, end: j + 1})
				i = j + 1
				continue
			}
			if lang == LangEnglish && len(word) > 1 && word[0] == 'R' && isDigit(word[1]) {
				// South African rand: "R1.2 million", "R850 000".
				emit(token{norm: "zar", start: i, end: i + 1})
				i++
				continue
			}
			first, _ := utf8.DecodeRuneInString(word)
			n := len(toks)
			toks = appendWordTokens(toks, word, i, lx, lang)
			upper := unicode.IsUpper(first)
			for k := n; k < len(toks); k++ {
				toks[k].upper = upper
				toks[k].clause = clause
				toks[k].kind = lx.kindOf(toks[k].id)
			}
			if sentStart < 0 {
				sentStart = i
			}
			lastEnd = max(lastEnd, j)
			i = j
			continue
		case r == '.' && !sentenceDot(text, i, toks):
			// "Rs.500", "e.g.", "Dr. Mehta": not the end of a sentence.
		case r == '.' || r == '!' || r == '?' || r == '…' || r == '\n' || r == '।':
			// A run of terminators ends the sentence; "?" anywhere in it
			// makes it a question.
			q := false
			j := i
			for j < len(text) {
				r2, s2 := utf8.DecodeRuneInString(text[j:])
				if r2 != '.' && r2 != '!' && r2 != '?' && r2 != '…' && r2 != '\n' && r2 != '\r' && r2 != '।' {
					break
				}
				if r2 == '?' {
					q = true
				}
				if r2 != '\n' && r2 != '\r' && j+s2 > lastEnd && sentStart >= 0 {
					lastEnd = j + s2
				}
				j += s2
			}
			endSentence(q)
			i = j
			continue
		case r == ',' || r == ';' || r == ':' || r == '(' || r == ')' || r == '"' || r == '“' || r == '”':
			clause++
		case r == '₹':
			emit(token{norm: "inr", start: i, end: i + size})
		case r == '$':
			emit(token{norm: "usd", start: i, end: i + size})
		case r == '€':
			emit(token{norm: "eur", start: i, end: i + size})
		case r == '£':
			emit(token{norm: "gbp", start: i, end: i + size})
		case r == '%':
			emit(token{norm: "%", start: i, end: i + size})
		case r == '/':
			emit(token{norm: "per", start: i, end: i + size})
		case r == '+':
			emit(token{norm: "+", start: i, end: i + size})
		case r == '#':
			emit(token{norm: "#", start: i, end: i + size})
		case r == '&':
			emit(token{norm: "and", start: i, end: i + size})
		case r == '-' || r == '–' || r == '—':
			// Between numbers a dash is a range ("70-80 lakh"); a spaced
			// dash separates clauses; inside words it only splits them.
			if len(toks) > 0 && toks[len(toks)-1].isNum && i+size < len(text) && startsAmount(text[i+size:]) {
				emit(token{norm: "to", start: i, end: i + size})
			} else if (i > 0 && text[i-1] == ' ') || (i+size < len(text) && text[i+size] == ' ') {
				clause++
			}
		}
		i += size
	}
	endSentence(false)
	return toks, sents
}

// abbreviations end with a dot that does not end the sentence.
var abbreviations = map[string]bool{
	"dr": true, "mr": true, "mrs": true, "ms": true, "rs": true, "inr": true, "st": true,
	"vs": true, "etc": true, "approx": true, "approximately": true, "sr": true, "jr": true, "e": true, "g": true,
	"pvt": true, "ltd": true, "inc": true,
}

// sentenceDot reports whether the dot at i ends a sentence.
func sentenceDot(text string, i int, toks []token) bool {
	if i+1 < len(text) && text[i+1] != ' ' && text[i+1] != '\n' && text[i+1] != '\r' && text[i+1] != '\t' && text[i+1] != '.' {
		return false // "rs.500", "site.com"
	}
	if n := len(toks); n > 0 && toks[n-1].end == i && abbreviations[strings.ToLower(text[toks[n-1].start:toks[n-1].end])] {
		return false
	}
	return true
}

// isWordRune: letters, digits and combining marks (the vowel signs of
// Devanagari are marks; without them a Hindi word would fall apart).
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// startsAmount: a digit, or a currency symbol before one ("$3k").
func startsAmount(s string) bool {
	if s == "" {
		return false
	}
	if isDigit(s[0]) {
		return true
	}
	for _, sym := range []string{"$", "₹", "€", "£"} {
		if len(s) > len(sym) && s[:len(sym)] == sym && isDigit(s[len(sym)]) {
			return true
		}
	}
	return false
}

// scanWord returns the end of the word starting at i: letters and digits,
// apostrophes inside a word, and "," or "." between digits ("1,50,000",
// "1.5").
//
// With cont (a continental language) a space between digit groups is a
// thousands separator: "10 000 €", "1 500 euros".
func scanWord(text string, i int, cont bool) int {
	j := i
	for j < len(text) {
		r, size := utf8.DecodeRuneInString(text[j:])
		switch {
		case isWordRune(r):
			j += size
		case (r == '\'' || r == '’') && j > i && j+size < len(text) && !(isDigit(text[j-1]) && allDigits(text[i:j]) && digitGroup(text[j+size:])):
			next, _ := utf8.DecodeRuneInString(text[j+size:])
			if !unicode.IsLetter(next) {
				return j
			}
			j += size
		case (r == ',' || r == '.') && j > i && isDigit(text[j-1]) && j+1 < len(text) && isDigit(text[j+1]):
			j += size
		case (r == '\'' || r == '’') && j > i && isDigit(text[j-1]) && allDigits(text[i:j]) && digitGroup(text[j+size:]):
			// Swiss thousands: "CHF 40'000", "1’200’000".
			j += size
		case cont && (r == ' ' || r == '\u00a0' || r == '\u202f') && j > i && isDigit(text[j-1]) && allDigits(text[i:j]) && digitGroup(text[j+size:]):
			j += size
		default:
			return j
		}
	}
	return j
}

// allDigits: only digits and spaces (a number being scanned).
func allDigits(s string) bool {
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r == ' ' || r == '\u00a0' || r == '\u202f') {
			return false
		}
	}
	return true
}

// digitGroup: exactly three digits, then no further digit or letter.
func digitGroup(s string) bool {
	if len(s) < 3 || !isDigit(s[0]) || !isDigit(s[1]) || !isDigit(s[2]) {
		return false
	}
	if len(s) == 3 {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s[3:])
	return !isWordRune(r) || r == 'k' || r == 'K'
}

// numberSuffixes are units glued to a number ("50k", "1.5cr", "10l").
var numberSuffixes = map[string]string{
	"k": "k", "m": "m", "mn": "m", "l": "lakh", "lac": "lakh", "lacs": "lakh", "lakh": "lakh",
	"lakhs": "lakh", "cr": "crore", "crore": "crore", "crores": "crore", "bn": "b", "b": "b",
	"tsd": "k", "mio": "m",
}

// appendWordTokens normalises one word (numbers, contractions, shorthand,
// typos) and appends its tokens with their vocabulary ids.
func appendWordTokens(dst []token, word string, start int, lx *compiled, lang string) []token {
	cont := continental(lang)
	end := start + len(word)
	lw := lower(word)
	n := len(dst)
	switch info, ok := lx.words[lw]; {
	case isDigit(lw[0]):
		if t, ok := numberToken(lw, start, end, cont); ok {
			dst = append(dst, t)
		} else {
			dst = append(dst, token{norm: lw, start: start, end: end})
		}
	case lang == LangPortuguese && ptShorthand[lw] != "":
		// Brazilian chat spellings: "só to olhando", "bora marcar", "vcs".
		dst = split(dst, ptShorthand[lw], start, end)
	case lw == "no" && lang == LangPortuguese:
		// Portuguese "no" is "in the" ("no site", "no próximo mês"), not a
		// negation.
		return append(dst, token{norm: "em", id: lx.id("em"), start: start, end: end})
	case (lw == "nem" || lw == "nen") && lang == LangGerman:
		// Spoken German "von nem anderen Anbieter", "hab nen Termin": the
		// article (einem, einen), not Portuguese "nem".
		w := "ein" + lw[1:]
		return append(dst, token{norm: w, id: lx.id(w), start: start, end: end})
	case lw == "dont" && lang == LangFrench:
		// French "ce dont on a besoin" ("what we need"), not English "don't"
		// written without its apostrophe.
		return append(dst, token{norm: lw, id: lx.id(lw), start: start, end: end})
	case lw == "mil":
		// "3 mil": a thousand in Spanish and Portuguese, a million in
		// English chat.
		w := "million"
		if cont {
			w = "thousand"
		}
		return append(dst, token{norm: w, id: lx.id(w), start: start, end: end})
	case ok && info.expand == "":
		return append(dst, token{norm: lw, id: info.id, start: start, end: end})
	case ok:
		dst = split(dst, info.expand, start, end)
	case strings.IndexByte(lw, '\'') > 0:
		dst = contraction(dst, lw, strings.IndexByte(lw, '\''), start, end)
	default:
		if len(lw) >= 5 {
			if a, ok := fuzzy(lw); ok {
				return append(dst, token{norm: a, id: lx.id(a), start: start, end: end})
			}
		}
		return append(dst, token{norm: lw, id: -1, start: start, end: end})
	}
	for k := n; k < len(dst); k++ {
		dst[k].id = lx.id(dst[k].norm)
	}
	return dst
}

// lower lower-cases a word and turns a typographic apostrophe into "'",
// without allocating when there is nothing to change.
func lower(word string) string {
	plain := true
	for i := 0; i < len(word); i++ {
		c := word[i]
		if c >= 'A' && c <= 'Z' || c >= 0x80 {
			plain = false
			break
		}
	}
	if plain {
		return word
	}
	return fold(strings.ToLower(word))
}

func split(dst []token, v string, start, end int) []token {
	for len(v) > 0 {
		w := v
		if k := strings.IndexByte(v, ' '); k >= 0 {
			w, v = v[:k], v[k+1:]
		} else {
			v = ""
		}
		dst = append(dst, token{norm: w, start: start, end: end})
	}
	return dst
}

// contraction expands "i'm", "don't", "we'll"; possessive "'s" is dropped
// except after pronouns, where it is "is".
func contraction(dst []token, lw string, k, start, end int) []token {
	base, suf := lw[:k], lw[k+1:]
	two := func(a, b string) []token {
		return append(dst, token{norm: a, start: start, end: end}, token{norm: b, start: start, end: end})
	}
	if full, ok := elisions[base]; ok && !englishSuffix[suf] {
		// French: "j'ai" is je ai, "d'ici" de ici, "n'avons" ne avons.
		return two(full, suf)
	}
	switch suf {
	case "t":
		switch base {
		case "can", "ca":
			return two("can", "not")
		case "won", "wo":
			return two("will", "not")
		case "ain":
			return two("is", "not")
		}
		return two(strings.TrimSuffix(base, "n"), "not")
	case "m":
		return two(base, "am")
	case "re":
		return two(base, "are")
	case "ll":
		return two(base, "will")
	case "ve":
		return two(base, "have")
	case "d":
		return two(base, "would")
	case "s":
		switch base {
		case "it", "that", "what", "there", "here", "he", "she", "who", "where", "how", "this":
			return two(base, "is")
		case "let":
			return two("let", "us")
		}
		return append(dst, token{norm: base, start: start, end: end})
	}
	return append(dst, token{norm: lw, start: start, end: end})
}

// elisions are the French words that drop their vowel before another.
var elisions = map[string]string{
	"l": "le", "d": "de", "j": "je", "n": "ne", "qu": "que", "c": "ce", "s": "se", "m": "me",
	"t": "te", "jusqu": "jusque", "lorsqu": "lorsque", "puisqu": "puisque",
}

var englishSuffix = setOfWords([]string{"t", "m", "re", "ll", "ve", "d", "s"})

// numberToken parses "3,000", "1.5", "50k", "1.5cr", "15th", "q2" stays a word.
// With cont (a continental language) "1.500" and "10 000" are thousands and
// "2,5" is two and a half.
func numberToken(lw string, start, end int, cont bool) (token, bool) {
	j := 0
	for j < len(lw) && (isDigit(lw[j]) || lw[j] == ',' || lw[j] == '.' || lw[j] == ' ' || lw[j] == '\'' || lw[j] == 0xc2 || lw[j] == 0xa0 || lw[j] == 0xe2 || lw[j] == 0x80 || lw[j] == 0xaf || lw[j] == 0x99) {
		j++
	}
	digits, rest := numberDigits(lw[:j], cont), lw[j:]
	v, err := strconv.ParseFloat(digits, 64)
	if err != nil {
		return token{}, false
	}
	t := token{norm: digits, start: start, end: end, num: v, isNum: true}
	t.year = rest == "" && j == 4 && v >= 1900 && v <= 2100
	switch rest {
	case "":
	case "st", "nd", "rd", "th", "er", "re", "eme", "e", "º", "ª":
		t.ordinal = true
	case "mil":
		// "5mil": thousands in Spanish and Portuguese, millions in English.
		t.mult = "m"
		if cont {
			t.mult = "k"
		}
	default:
		m, ok := numberSuffixes[rest]
		if !ok {
			return token{}, false // "24x7", "3bhk": a word, not a number
		}
		t.mult = m
	}
	return t, true
}

// numberDigits turns a written number into ParseFloat's form. The last
// separator is the decimal one when both kinds appear ("1.500,50",
// "1,500.50"); a lone separator is a thousands separator when three digits
// follow it (and, for a dot, when the language writes thousands that way
// or it repeats: "1.500.000"), a decimal one otherwise, except that
// commas in English group digits ("1,50,000").
func numberDigits(raw string, cont bool) string {
	raw = digitGroupMarks.Replace(raw)
	dot, comma := strings.LastIndexByte(raw, '.'), strings.LastIndexByte(raw, ',')
	switch {
	case dot >= 0 && comma >= 0:
		if dot > comma {
			return strings.ReplaceAll(raw, ",", "")
		}
		return strings.ReplaceAll(strings.ReplaceAll(raw, ".", ""), ",", ".")
	case comma >= 0:
		if cont && strings.Count(raw, ",") == 1 && len(raw)-comma-1 != 3 {
			return strings.Replace(raw, ",", ".", 1)
		}
		return strings.ReplaceAll(raw, ",", "")
	case dot >= 0:
		if strings.Count(raw, ".") > 1 || (cont && len(raw)-dot-1 == 3) {
			return strings.ReplaceAll(raw, ".", "")
		}
	}
	return raw
}

// digitGroupMarks are the thousands separators numberDigits drops: spaces
// (plain, no-break, narrow no-break) and apostrophes.
var digitGroupMarks = strings.NewReplacer(" ", "", "\u00a0", "", "\u202f", "", "'", "", "’", "")

// fuzzy corrects a token one edit away from a fuzzy anchor.
func fuzzy(w string) (string, bool) {
	for _, a := range fuzzyAnchors {
		if d := len(a) - len(w); d > 1 || d < -1 {
			continue
		}
		if a[0] != w[0] && a[1] != w[1] {
			continue
		}
		if oneEdit(w, a) {
			return a, true
		}
	}
	return "", false
}

// oneEdit reports whether a and b differ by exactly one insertion,
// deletion, substitution or adjacent transposition (ASCII only).
func oneEdit(a, b string) bool {
	if a == b {
		return false
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	switch len(b) - len(a) {
	case 1:
		return a[i:] == b[i+1:]
	case 0:
		if a[i+1:] == b[i+1:] {
			return true
		}
		return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
	}
	return false
}
