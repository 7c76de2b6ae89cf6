package analytics

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"concierge/internal/retrieval"
)

// lexIndex is the lexicon (topic_lexicon.go) ready for matching.
type lexIndex struct {
	// phrases by their first word, longest first: a phrase or single
	// word as written, matched on whole words before stemming.
	phrases map[string][]lexPhrase
	// stems: a lexicon word's stem (retrieval.QuestionTerms) → its
	// concepts, for inflections and for topics stored by older versions.
	stems map[string][]string
	// near finds a stem within one or two edits of a misspelt term;
	// nearGeneric a generic word.
	near, nearGeneric *nearIndex
	// weight of each concept name; generic stems weigh wGeneric.
	weight  map[string]float64
	generic map[string]bool
	// conceptID numbers the concepts, in lexicon order; related lists,
	// by concept id, the concepts related to it (relatedConcepts).
	conceptID map[string]int32
	related   [][]relation
}

type relation struct {
	id int32
	f  float32
}

type lexPhrase struct {
	words    []string
	concepts []string
}

var (
	lexOnce sync.Once
	lex     *lexIndex
)

func lexicalIndex() *lexIndex {
	lexOnce.Do(func() {
		x := &lexIndex{phrases: map[string][]lexPhrase{}, stems: map[string][]string{},
			weight: map[string]float64{}, generic: map[string]bool{}, conceptID: map[string]int32{}}
		seen := map[string]bool{}
		var multi []lexPhrase // phrases of more than one word, in the order added
		add := func(phrase string, concepts []string) {
			words := phraseWords(phrase)
			key := strings.Join(words, " ")
			if len(words) == 0 || seen[key] {
				return // a word belongs to its first concept only
			}
			seen[key] = true
			if len(words) > 1 {
				multi = append(multi, lexPhrase{words: words, concepts: concepts})
			}
			x.phrases[words[0]] = append(x.phrases[words[0]], lexPhrase{words: words, concepts: concepts})
			if len(words) == 1 {
				if ts := retrieval.QuestionTerms(words[0]); len(ts) == 1 {
					if _, taken := x.stems[ts[0]]; !taken {
						x.stems[ts[0]] = concepts
					}
				}
			}
		}
		concepts := slices.Concat(lexicon, domainConcepts, moreConcepts)
		for i, c := range concepts {
			x.weight[c.name] = c.weight
			x.conceptID[c.name] = int32(i)
		}
		x.related = make([][]relation, len(concepts))
		for _, r := range slices.Concat(relatedConcepts, moreRelated) {
			a, b := x.conceptID[r.a], x.conceptID[r.b]
			x.related[a] = append(x.related[a], relation{b, float32(r.f)})
			x.related[b] = append(x.related[b], relation{a, float32(r.f)})
		}
		// compounds: phrase → its concepts; words: concept → its wordings.
		addCompounds := func(compounds map[string][]string) {
			for _, phrase := range slices.Sorted(mapKeys(compounds)) {
				add(phrase, compounds[phrase])
			}
		}
		addWords := func(words map[string][]string) {
			for _, name := range slices.Sorted(mapKeys(words)) {
				for _, w := range words[name] {
					add(w, []string{name})
				}
			}
		}
		addConcepts := func(cs []concept) {
			for _, c := range cs {
				for _, w := range c.words {
					add(w, []string{c.name})
				}
			}
		}
		addCompounds(compounds)
		addCompounds(moreCompounds)
		addConcepts(lexicon)
		// Further wordings and concepts come after, so they never take a
		// word the first lexicon has.
		addWords(domainWords)
		addConcepts(domainConcepts)
		addWords(moreWords)
		addConcepts(moreConcepts)
		// Last, a phrase's inflections ("sending money", "parking
		// spaces"), where no phrase has them already.
		for _, p := range multi {
			last := len(p.words) - 1
			if v := ingForm(p.words[0]); v != "" {
				add(v+" "+strings.Join(p.words[1:], " "), p.concepts)
			}
			if v := plural(p.words[last]); v != "" {
				add(strings.Join(p.words[:last], " ")+" "+v, p.concepts)
			}
		}
		for _, w := range slices.Concat(generic, domainGeneric, moreGeneric) {
			for _, t := range retrieval.QuestionTerms(w) {
				if _, known := x.stems[t]; !known {
					x.generic[t] = true
				}
			}
			if ws := phraseWords(w); len(ws) == 1 {
				x.generic[ws[0]] = true
			}
		}
		for _, ps := range x.phrases {
			slices.SortStableFunc(ps, func(a, b lexPhrase) int { return len(b.words) - len(a.words) })
		}
		// Concept names are topic terms too: a stored topic's term maps to
		// itself.
		for name := range x.weight {
			x.stems[name] = []string{name}
		}
		x.near = newNearIndex(slices.Sorted(mapKeys(x.stems)))
		x.nearGeneric = newNearIndex(slices.Sorted(mapKeys(x.generic)))
		lex = x
	})
	return lex
}

// ingForm is the -ing form of a verb opening a phrase ("send money" →
// "sending money"), by the common spelling rules; "" for words of three
// letters or fewer but the few listed. Only this form: a past form tells
// what happened more often than what is asked ("seen the" is not "see
// the"), and an -s form is as often a plural noun's ("slots available").
func ingForm(w string) string {
	n := len(w)
	if ing, ok := shortVerbs[w]; ok {
		return ing
	}
	if n <= 3 || strings.HasSuffix(w, "ing") || strings.HasSuffix(w, "ed") || !isASCIILetters(w) {
		return ""
	}
	if w[n-1] == 'e' && w[n-2] != 'e' {
		return w[:n-1] + "ing"
	}
	return w + "ing"
}

// shortVerbs are short verbs that open phrases, with their -ing form.
var shortVerbs = map[string]string{"pay": "paying", "get": "getting", "buy": "buying", "put": "putting",
	"set": "setting", "cut": "cutting", "run": "running", "see": "seeing", "say": "saying", "log": "logging",
	"top": "topping", "add": "adding", "fix": "fixing", "opt": "opting", "sit": "sitting"}

// plural of a noun closing a phrase: "parking space" → "parking spaces";
// "" for short words, words ending in s and words not in plain letters.
func plural(w string) string {
	n := len(w)
	if n <= 3 || w[n-1] == 's' || !isASCIILetters(w) {
		return ""
	}
	switch {
	case strings.HasSuffix(w, "sh") || strings.HasSuffix(w, "ch") || w[n-1] == 'x':
		return w + "es"
	case w[n-1] == 'y' && !strings.ContainsRune("aeiou", rune(w[n-2])):
		return w[:n-1] + "ies"
	}
	return w + "s"
}

func isASCIILetters(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// phraseWords splits lower-cased text into words: letters and digits,
// apostrophes dropped ("doesn't" → "doesnt"), anything else a separator.
func phraseWords(s string) []string {
	words, _ := splitWords(s)
	return words
}

// splitWords is phraseWords and the same words as typed, apostrophes
// kept, for the analyser ("i'd" is a stop word and a suffix, "id" is not).
func splitWords(s string) (words, raw []string) {
	var b, r strings.Builder
	flush := func() {
		if b.Len() > 0 {
			words, raw = append(words, b.String()), append(raw, r.String())
		}
		b.Reset()
		r.Reset()
	}
	for _, c := range strings.ToLower(s) {
		switch {
		case c == '\'' || c == '’':
			if b.Len() > 0 {
				r.WriteRune(c)
			}
		case unicode.IsLetter(c) || unicode.IsNumber(c) || unicode.IsMark(c):
			b.WriteRune(c)
			r.WriteRune(c)
		default:
			flush()
		}
	}
	flush()
	return words, raw
}

// concepts of one analysed term: by stem, else by near spelling (typos:
// "shiping", "pasword") for terms of five or more bytes.
func (x *lexIndex) conceptsOf(term string) ([]string, bool) {
	if cs, ok := x.stems[term]; ok {
		return cs, true
	}
	if x.generic[term] || len(term) < 5 {
		return nil, false
	}
	if s, ok := x.near.find(term); ok {
		return x.stems[s], true
	}
	return nil, false
}

// nearGenericOf is the generic word a term of five or more bytes
// misspells, if any.
func (x *lexIndex) nearGenericOf(term string) (string, bool) {
	if len(term) < 5 || x.generic[term] {
		return "", false
	}
	return x.nearGeneric.find(term)
}

// maxTopicTerms bounds a topic: the first terms of a long message say
// what it is about.
const maxTopicTerms = 8

// maxTopicBytes and maxTopicWords bound what is read of a message for its
// topic, so a pasted page costs the write path no more than a question
// does.
const (
	maxTopicBytes = 240
	maxTopicWords = 40
)

// Topic is the grouping key of a visitor's question: the customer-service
// concepts it asks about (topic_lexicon.go: "how much does it cost?",
// "pricing?" and "what's the price" are all "price"; "check in" and
// "check out" are not the same) and, for its other words, their content
// terms (retrieval.QuestionTerms: stop words and question frames dropped,
// stemmed), distinct and sorted, joined by spaces, at most 8. Phrases are
// found on the words as typed, single words also by stem and by near
// spelling. The writer's greeting and self-introduction are left out
// (topic_intro.go), and a concept a narrower one of the question makes
// redundant ("unsubscribe from your emails" is about the newsletter, not a
// subscription). Near questions are merged when read (grouping). "" for a
// message without content ("hi", "thanks").
func Topic(question string) string {
	x := lexicalIndex()
	if len(question) > maxTopicBytes {
		cut := maxTopicBytes
		for cut > 0 && !utf8.RuneStart(question[cut]) {
			cut--
		}
		question = question[:cut]
	}
	words, raw := splitWords(dropIdentifiers(question))
	if len(words) > maxTopicWords {
		words, raw = words[:maxTopicWords], raw[:maxTopicWords]
	}
	var out []string
	addTerm := func(t string) {
		if len(out) < maxTopicTerms && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	var rest []string
	intro := x.introduced(words)
	for i := 0; i < len(words); {
		if intro != nil && intro[i] {
			i++
			continue
		}
		if i > 0 && personTitles[words[i-1]] && !x.known(words[i]) {
			i++ // a name ("dr lee", "mrs patel"): who, not what
			continue
		}
		n, cs := x.match(words[i:])
		if n == 0 {
			rest = append(rest, raw[i])
			i++
			continue
		}
		for _, c := range cs {
			addTerm(c)
		}
		i += n
	}
	// The other words are analysed together, so the question's frame is
	// dropped as a whole ("how long does it take").
	for _, t := range retrieval.QuestionTerms(strings.Join(rest, " ")) {
		if hasDigit(t) {
			continue // an order number, a date, a size, a time: not what is asked
		}
		if cs, ok := x.conceptsOf(t); ok {
			for _, c := range cs {
				addTerm(c)
			}
		} else if g, ok := x.nearGenericOf(t); ok {
			addTerm(g) // "tomorow", "recieved": as light as the word meant
		} else {
			addTerm(t)
		}
	}
	var broader []string
	for _, t := range out {
		broader = append(broader, narrower[t]...)
	}
	if broader != nil {
		out = slices.DeleteFunc(out, func(s string) bool { return slices.Contains(broader, s) })
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

// match is the longest lexicon phrase starting the words: its length and
// concepts, or 0.
func (x *lexIndex) match(words []string) (int, []string) {
	for _, p := range x.phrases[words[0]] {
		if len(p.words) <= len(words) && slices.Equal(p.words, words[:len(p.words)]) {
			return len(p.words), p.concepts
		}
	}
	return 0, nil
}

// known: a word of the lexicon, as typed or by its stem.
func (x *lexIndex) known(w string) bool {
	if _, ok := x.phrases[w]; ok {
		return true
	}
	ts := retrieval.QuestionTerms(w)
	if len(ts) != 1 {
		return len(ts) == 0 // a stop word is not a name
	}
	_, ok := x.stems[ts[0]]
	return ok || x.generic[ts[0]]
}

// personTitles come before a name.
var personTitles = map[string]bool{"dr": true, "doctor": true, "mr": true, "mrs": true, "ms": true,
	"miss": true, "mister": true, "prof": true, "professor": true, "sr": true, "sra": true, "herr": true,
	"frau": true, "mme": true, "madame": true, "monsieur": true}

func hasDigit(s string) bool {
	return strings.IndexFunc(s, unicode.IsDigit) >= 0
}

// dropIdentifiers blanks the email addresses, links and order or booking
// references ("#4521", "ABC-123") of a message: they name one case, not
// what is asked, and would keep two askings of the same thing apart.
func dropIdentifiers(s string) string {
	if !strings.ContainsAny(s, "@#/.") {
		return s
	}
	fields := strings.Fields(s)
	kept := fields[:0]
	for _, f := range fields {
		l := strings.ToLower(f)
		if strings.Contains(l, "@") || strings.HasPrefix(l, "#") || strings.Contains(l, "://") ||
			strings.HasPrefix(l, "www.") || strings.Contains(l, ".com") {
			continue
		}
		kept = append(kept, f)
	}
	return strings.Join(kept, " ")
}
