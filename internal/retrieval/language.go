package retrieval

import (
	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/french"
	"github.com/kljensen/snowball/hungarian"
	"github.com/kljensen/snowball/norwegian"
	"github.com/kljensen/snowball/russian"
	"github.com/kljensen/snowball/spanish"
	"github.com/kljensen/snowball/swedish"

	"concierge/internal/memo"
)

// lang is the language used for Latin-script words. Its string code is
// stored in the terms column, so codes must never change meaning.
type lang uint8

const (
	langUnknown lang = iota
	langEnglish
	langFrench
	langSpanish
	langSwedish
	langNorwegian
	langHungarian
	langGerman
	langItalian
	langPortuguese
	langDutch
	langRussian // Cyrillic words only; never detected from Latin text
	numLangs
)

var langCodes = [numLangs]string{"", "en", "fr", "es", "sv", "no", "hu", "de", "it", "pt", "nl", "ru"}

func (l lang) String() string { return langCodes[l] }

func parseLang(code string) lang {
	for i, c := range langCodes {
		if c == code && c != "" {
			return lang(i)
		}
	}
	return langUnknown
}

// detectable are the languages a Latin text can be detected as, in the
// order that breaks ties (none: a tie means "not sure").
var detectable = []lang{langEnglish, langFrench, langSpanish, langSwedish, langNorwegian,
	langHungarian, langGerman, langItalian, langPortuguese, langDutch}

// detectLanguage counts each language's stop words among the Latin words.
// The winner must beat every other language outright: short queries such as
// "de la" or "pricing for teams" are ambiguous, and a wrong guess would stem
// the query differently from the passages. Inconclusive is langUnknown, and
// the caller picks the fallback (English for passages, the bot's majority
// language for queries).
func detectLanguage(toks []token) lang {
	const detectWords = 200
	var counts [numLangs]int
	seen := 0
	for _, t := range toks {
		if t.kind != kindWord || scriptOf(t.text) != scriptLatin {
			continue
		}
		// The first couple of hundred words decide as well as all of them,
		// and the stop-word tests are a third of the cost of analysis.
		if seen++; seen > detectWords {
			break
		}
		mask := stopLanguages.Get(t.text)
		for _, l := range detectable {
			if mask&(1<<l) != 0 {
				counts[l]++
			}
		}
	}
	best, second := langUnknown, 0
	for _, l := range detectable {
		switch c := counts[l]; {
		case c > counts[best]:
			second = counts[best]
			best = l
		case c > second:
			second = c
		}
	}
	if counts[best] == 0 || counts[best] == second {
		return langUnknown
	}
	return best
}

// stopLanguages maps a word to the set (bit 1<<lang) of detectable
// languages that have it as a stop word; remembered, because detection
// asks every language about the same common words over and over.
var stopLanguages = memo.New(1<<16, func(w string) uint32 {
	var mask uint32
	for _, l := range detectable {
		if l.isStop(w) {
			mask |= 1 << l
		}
	}
	return mask
})

func (l lang) isStop(w string) bool {
	switch l {
	case langEnglish:
		return english.IsStopWord(w)
	case langFrench:
		return french.IsStopWord(w)
	case langSpanish:
		return spanish.IsStopWord(w)
	case langSwedish:
		return swedish.IsStopWord(w)
	case langNorwegian:
		return norwegian.IsStopWord(w)
	case langHungarian:
		return hungarian.IsStopWord(w)
	case langRussian:
		return russian.IsStopWord(w)
	case langGerman, langItalian, langPortuguese, langDutch:
		_, ok := extraStopWords[l][w]
		return ok
	}
	return false
}

// stem applies the Snowball stemmer of l; languages the library lacks keep
// their words as they are (a wrong stemmer does more harm than none).
// Results are cached: the library converts every suffix it tries to runes,
// which made stemming three quarters of analysis time, and word frequencies
// are Zipfian, so a small cache answers most lookups.
func (l lang) stem(w string) string {
	if !l.stems() {
		return w
	}
	return stemCaches[l].Get(w)
}

// stemCaches hold up to 64k words per language.
var stemCaches = func() (c [numLangs]*memo.Map[string]) {
	for l := range numLangs {
		c[l] = memo.New(1<<16, l.stemUncached)
	}
	return c
}()

func (l lang) stems() bool {
	switch l {
	case langEnglish, langFrench, langSpanish, langSwedish, langNorwegian, langHungarian, langRussian:
		return true
	}
	return false
}

func (l lang) stemUncached(w string) string {
	switch l {
	case langEnglish:
		return english.Stem(w, true)
	case langFrench:
		return french.Stem(w, true)
	case langSpanish:
		return spanish.Stem(w, true)
	case langSwedish:
		return swedish.Stem(w, true)
	case langNorwegian:
		return norwegian.Stem(w, true)
	case langHungarian:
		return hungarian.Stem(w, true)
	case langRussian:
		return russian.Stem(w, true)
	}
	return w
}

// extraStopWords are the most frequent function words of languages the
// stemming library has no list for: enough to recognise the language and to
// keep these words out of the index.
var extraStopWords = map[lang]map[string]struct{}{
	langGerman: set("der die das den dem des ein eine einer eines einem einen und oder aber ist sind war " +
		"waren wird werden wurde nicht mit von zu zum zur im in auf für bei aus nach über unter ich du er sie " +
		"es wir ihr auch als wie wenn dass sich noch nur schon so kann können muss hat haben hatte mein dein " +
		"sein unser euer diese dieser dieses bis durch gegen ohne um"),
	langItalian: set("il lo la i gli le un uno una di del della dei delle dello degli da dal dalla in nel " +
		"nella con su sul sulla per tra fra e ed o ma che chi non è sono era erano sia essere ha hanno ho " +
		"come anche più questo questa questi quello quella io tu lui lei noi voi loro mi ti si ci vi al alla " +
		"ai alle"),
	langPortuguese: set("o a os as um uma uns umas de do da dos das em no na nos nas por pelo pela para " +
		"com sem e ou mas que se não é são foi era ser estar está estão tem têm ao aos à às eu tu ele ela " +
		"nós vós eles elas seu sua seus suas este esta isso isto mais como também já muito"),
	langDutch: set("de het een en of maar is zijn was waren wordt worden werd niet met van te tot in op " +
		"voor bij uit naar over onder ik jij je hij zij ze wij we jullie ook als dan dat die dit deze er " +
		"nog al wel kan kunnen moet heeft hebben had mijn jouw zijn haar ons onze hun door om aan"),
}

func set(words string) map[string]struct{} {
	m := map[string]struct{}{}
	start := -1
	for i := 0; i <= len(words); i++ {
		if i == len(words) || words[i] == ' ' {
			if start >= 0 {
				m[words[start:i]] = struct{}{}
			}
			start = -1
		} else if start < 0 {
			start = i
		}
	}
	return m
}
