package score

import (
	"strings"
	"unicode/utf8"
)

// Languages the lexicon reads, as reported in Result.Language. The lexicon
// holds every language's phrases at once (their words rarely collide), so a
// conversation that switches language is still read; the detected language
// decides what only the language can: whether "1.500" is one and a half or
// fifteen hundred, and whether "2 mil" is two thousand (es, pt) or two
// million (en).
const (
	LangEnglish    = "en"
	LangSpanish    = "es"
	LangPortuguese = "pt"
	LangFrench     = "fr"
	LangGerman     = "de"
	LangHinglish   = "hi-en" // Hindi written in Latin script, mixed with English
)

// langFunctionWords are frequent words that tell the languages apart,
// folded (no accents). Words shared by several languages count for each.
// The retrieval analyser detects languages the same way (stop words), but
// knows no Hinglish, which is what visitors in India write.
var langFunctionWords = map[string][]string{
	LangEnglish: strings.Fields(`the and is are we i you to of for our with have has do does it this that
		what my can be not will how need want our us your they was would could should there here which just
		about from get looking any`),
	LangSpanish: strings.Fields(`el los las y es una del al pero muy hay somos tenemos nuestro nuestra nuestros
		necesitamos necesito estamos quiero queremos cuanto cuesta gracias hola usted ustedes lo su sus esto
		eso tiene tienen puedo podemos como mas hacer tambien donde cuando ya este esta mes precio buenas
		buenos nos les son con para por`),
	LangPortuguese: strings.Fields(`o os e um em nao com do da dos das na nas mas ja voce voces nosso nossa
		temos precisamos preciso muito isso tambem obrigado obrigada ola quanto custa estamos queremos quero
		tem sao ele ela seu sua pelo pela mais fazer onde quando uma para por este esta mes`),
	LangFrench: strings.Fields(`le la les des du et un une pour avec est sommes nous avons notre nos je mon
		ma mes pas ne qui mais tres ce cette vous votre bonjour merci combien au aux sur dans il on ai suis
		sont c j d l n qu etre faire aussi plus`),
	LangGerman: strings.Fields(`der die das den dem des ein eine einen einer und ist sind wir ich unser
		unsere unseren mit fur nicht kein keine auf zu im von haben brauchen wie viel was es auch aber bei
		sie hallo danke bitte mochten konnen wird werden noch schon uns ihr ihre ihnen gibt`),
	LangHinglish: strings.Fields(`hai hain ka ki ke ko se hum humein hume mujhe mera meri mere hamara hamari
		hamare kya nahi nahin chahiye karna karni kar raha rahe rahi hoga hogi kaise kitna kitne aap aapka
		aapki bhi toh liye abhi tak wala wali kuch bahut sab agle hafte hoon hu ho gaya thoda matlab lekin
		aur karte karta krna kro karo batao bataiye ji yeh ye woh haan`),
}

var langOrder = []string{LangEnglish, LangSpanish, LangPortuguese, LangFrench, LangGerman, LangHinglish}

// langMask maps a function word to the languages it belongs to (bit i for
// langOrder[i]).
var langMask = func() map[string]uint8 {
	m := map[string]uint8{}
	for i, l := range langOrder {
		for _, w := range langFunctionWords[l] {
			m[w] |= 1 << i
		}
	}
	return m
}()

// detectLanguage names the language of a conversation from the visitor's
// turns: the language with the most function words, English when none
// stands out. Hinglish wins over English when its particles are at least
// as frequent: Hinglish speakers write English nouns and verbs but Hindi
// grammar words.
func detectLanguage(texts []string) string {
	var counts [6]int
	words := 0
	for _, text := range texts {
		forEachWord(text, func(w string) {
			words++
			mask := langMask[w]
			for i := range langOrder {
				if mask&(1<<i) != 0 {
					counts[i]++
				}
			}
		})
		if words > 400 {
			break
		}
	}
	best := 0
	for i := 1; i < len(counts); i++ {
		if counts[i] > counts[best] {
			best = i
		}
	}
	// A tie with English, or no function word at all, is English; a tie
	// between two other languages goes to the first (Spanish before
	// Portuguese: both write numbers the same way).
	if best == 0 {
		return LangEnglish
	}
	return langOrder[best]
}

// forEachWord calls fn with each word of text, lower-cased and folded;
// French elisions ("j'ai", "d'ici") give their first letter as a word.
func forEachWord(text string, fn func(string)) {
	start := -1
	for i := 0; i <= len(text); {
		r, size := rune(0), 1
		if i < len(text) {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		if i < len(text) && isWordRune(r) {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			fn(fold(strings.ToLower(text[start:i])))
			start = -1
		}
		i += size
	}
}

// continental reports a language that writes "1.500,50" for 1500.50.
func continental(lang string) bool {
	switch lang {
	case LangSpanish, LangPortuguese, LangFrench, LangGerman:
		return true
	}
	return false
}

// foldMap strips the diacritics of Latin letters, so the lexicon is written
// once without accents and matches "presupuesto aprobado", "orçamento",
// "décideur" and "Geschäftsführer" however they are typed.
var foldMap = map[rune]string{
	'á': "a", 'à': "a", 'â': "a", 'ä': "a", 'ã': "a", 'å': "a",
	'é': "e", 'è': "e", 'ê': "e", 'ë': "e",
	'í': "i", 'ì': "i", 'î': "i", 'ï': "i",
	'ó': "o", 'ò': "o", 'ô': "o", 'ö': "o", 'õ': "o",
	'ú': "u", 'ù': "u", 'û': "u", 'ü': "u",
	'ñ': "n", 'ç': "c", 'ß': "ss", 'œ': "oe", 'æ': "ae", 'ÿ': "y",
	'’': "'", 'ʼ': "'",
}

// fold removes diacritics from a lower-case word.
func fold(w string) string {
	ascii := true
	for i := 0; i < len(w); i++ {
		if w[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return w
	}
	var b strings.Builder
	b.Grow(len(w))
	for _, r := range w {
		if s, ok := foldMap[r]; ok {
			b.WriteString(s)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}
