package score

import (
	"math"
	"sort"
	"strings"
)

// compiled is the lexicon ready for matching. It is built once and only
// read afterwards, so concurrent Score calls share it safely.
type compiled struct {
	rules []rule
	ix    index
	ids   map[string]int32 // vocabulary: every word the lexicon names
	kinds []wordKind       // by id: the word classes each word belongs to
	// words answers the tokenizer's question about a word in one lookup:
	// its id, or its shorthand expansion ("im" is "i am").
	words map[string]wordInfo
}

type wordInfo struct {
	id     int32
	expand string
}

// wordKind is a bitmask of the word classes the code detectors ask about.
type wordKind uint32

const (
	kMonth wordKind = 1 << iota
	kCurrency
	kScale
	kLeadIn
	kFiller
	kDuration
	kTravel
	kBudgetCue
	kCostCue
	kNotBudgetCue
	kTarget
	kWait
)

// wordKinds are the classes and their words.
var wordKinds = []struct {
	kind  wordKind
	words func() []string
}{
	{kMonth, func() []string { return classes["month"] }},
	{kCurrency, func() []string { return keys(currencyWords) }},
	{kScale, func() []string { return keys(scaleWords) }},
	{kLeadIn, func() []string { return keys(leadIn) }},
	{kFiller, func() []string { return keys(fillers) }},
	{kDuration, func() []string { return keys(durationUnits) }},
	{kTravel, func() []string { return keys(travelWords) }},
	{kBudgetCue, func() []string { return keys(budgetCues) }},
	{kCostCue, func() []string { return keys(costCues) }},
	{kNotBudgetCue, func() []string { return keys(notBudgetCues) }},
	{kTarget, func() []string { return keys(targetVerbs) }},
	{kWait, func() []string { return keys(waitWords) }},
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (c *compiled) kindOf(id int32) wordKind {
	if id < 0 {
		return 0
	}
	return c.kinds[id]
}

var lex = buildLexicon()

func buildLexicon() *compiled {
	c := &compiled{rules: allRules, ids: map[string]int32{}}
	add := func(w string) {
		if _, ok := c.ids[w]; !ok {
			c.ids[w] = int32(len(c.ids))
		}
	}
	phrases := make([][]phrase, len(c.rules))
	for id := range c.rules {
		phrases[id] = compile(c.rules[id].pattern)
		for _, p := range phrases[id] {
			for _, e := range p {
				for _, w := range e.words {
					add(w)
				}
			}
		}
	}
	for _, k := range keys(shorthand) { // sorted: ids do not depend on map order
		for _, w := range strings.Fields(shorthand[k]) {
			add(w)
		}
	}
	for _, words := range [][]string{sizeNouns, roleWords, stopScan} {
		for _, w := range words {
			add(w)
		}
	}
	for _, k := range wordKinds {
		for _, w := range k.words() {
			add(w)
		}
	}
	c.kinds = make([]wordKind, len(c.ids))
	for _, k := range wordKinds {
		for _, w := range k.words() {
			c.kinds[c.ids[w]] |= k.kind
		}
	}
	words := int32(len(c.ids))
	c.words = make(map[string]wordInfo, len(c.ids)+len(shorthand))
	for w, id := range c.ids {
		c.words[w] = wordInfo{id: id}
	}
	for w, v := range shorthand {
		c.words[w] = wordInfo{id: -1, expand: v}
	}
	c.ix = index{byID: make([][]entry, words), byPrefix: map[string][]entry{}}
	for id := range c.rules {
		for _, p := range phrases[id] {
			for k := range p {
				e := &p[k]
				for _, w := range e.words {
					e.ids = append(e.ids, c.ids[w])
				}
				if len(e.ids) > 6 {
					e.set = make([]uint64, (words+63)/64)
					for _, x := range e.ids {
						e.set[x>>6] |= 1 << (uint(x) & 63)
					}
				}
			}
		}
		c.ix.add(id, phrases[id])
	}
	return c
}

// id is a word's vocabulary id, -1 if the lexicon does not name it.
func (c *compiled) id(w string) int32 {
	if id, ok := c.ids[w]; ok {
		return id
	}
	return -1
}

// finding is one piece of evidence for a facet.
type finding struct {
	f        facet
	level    int  // 0-100 strength; 0 with deny
	deny     bool // the visitor said it is absent
	capLevel int
	reading  string
	turn     int // transcript index
	order    int // position in the conversation, for "latest wins"
	quote    string
	offScope bool // the bot said this request is not offered
	engage   bool // a denial that still shows interest ("just browsing")
	free     bool // a wish for the free plan
}

// hit is one rule matched in a visitor sentence.
type hit struct {
	rule       int
	start, end int // token range
}

// matchTurn runs the lexicon over one visitor turn.
func (c *compiled) matchTurn(t *turnText, out []finding) []finding {
	var hits []hit
	for si := range t.sents {
		s := &t.sents[si]
		hits = hits[:0]
		for i := s.tokStart; i < s.tokEnd; i++ {
			var next *token
			if i+1 < s.tokEnd {
				next = &t.toks[i+1]
			}
			c.ix.candidates(&t.toks[i], next, func(e entry) {
				end := e.phrase.matchAt(t.toks, i, s.tokEnd)
				if end < 0 {
					return
				}
				ru := &c.rules[e.rule]
				if ru.qOnly && !s.question {
					return
				}
				if ru.askedSet && !t.asked.has(ru.asked) && !(ru.asked == fBudget && t.priced) {
					return
				}
				if ru.statement && s.question {
					return
				}
				if ru.hasFacet(fJob) && countedBefore(t.toks, i, s.tokStart) {
					return // "20 freshers", "50 open roles": the visitor's own headcount
				}
				for k := i; k < end && len(ru.exclude) > 0; k++ {
					if contains(ru.exclude, t.toks[k].norm) {
						return
					}
				}
				hits = append(hits, hit{rule: e.rule, start: i, end: end})
			})
		}
		hits = dedupeHits(hits)
		hits = c.suppressHits(hits)
		for _, h := range hits {
			out = c.findingsOf(t, s, h, out)
		}
	}
	return out
}

// dedupeHits keeps one hit per rule and start (the longest), in order.
func dedupeHits(hits []hit) []hit {
	sort.Slice(hits, func(a, b int) bool {
		if hits[a].start != hits[b].start {
			return hits[a].start < hits[b].start
		}
		if hits[a].rule != hits[b].rule {
			return hits[a].rule < hits[b].rule
		}
		return hits[a].end > hits[b].end
	})
	out := hits[:0]
	for i, h := range hits {
		if i > 0 && h.rule == hits[i-1].rule && h.start == hits[i-1].start {
			continue
		}
		out = append(out, h)
	}
	return out
}

// suppressHits removes hits of the facets a suppress rule names where they
// overlap it ("no problem" is courtesy, not a denied pain), unless the hit
// is a longer phrase that holds the suppress rule's words, and hits
// contained in a longer hit of the same facet ("not a priority" over
// "priority").
func (c *compiled) suppressHits(hits []hit) []hit {
	out := hits[:0:0]
	for i, h := range hits {
		ru := &c.rules[h.rule]
		if ru.kind == kindSuppress {
			continue
		}
		drop := false
		for j, g := range hits {
			if i == j || g.start >= h.end || h.start >= g.end {
				continue
			}
			gr := &c.rules[g.rule]
			if gr.kind == kindSuppress {
				if h.start <= g.start && h.end >= g.end && h.end-h.start > g.end-g.start {
					// A longer phrase holding the suppressed words reads
					// them in its own sense ("só queria saber" is just
					// browsing, though "queria saber" alone is no need).
					continue
				}
				for _, o := range gr.outs {
					if ru.hasFacet(o.f) {
						drop = true
					}
				}
				continue
			}
			// Strictly contained in a longer hit sharing a facet.
			if g.start <= h.start && g.end >= h.end && (g.end-g.start) > (h.end-h.start) && sharesFacet(ru, gr) {
				drop = true
			}
		}
		if !drop {
			out = append(out, h)
		}
	}
	return out
}

// onlyFacets: every facet the rule supports is in fs.
func (x *rule) onlyFacets(fs facetSet) bool {
	for _, o := range x.outs {
		if !fs.has(o.f) {
			return false
		}
	}
	return len(x.outs) > 0
}

func (x *rule) hasFacet(f facet) bool {
	for _, o := range x.outs {
		if o.f == f {
			return true
		}
	}
	return false
}

func sharesFacet(a, b *rule) bool {
	for _, o := range a.outs {
		if b.hasFacet(o.f) {
			return true
		}
	}
	return false
}

// findingsOf turns a hit into findings, applying negation and hedges.
func (c *compiled) findingsOf(t *turnText, s *sentence, h hit, out []finding) []finding {
	ru := &c.rules[h.rule]
	negated := false
	switch {
	case ru.kind == kindPlain && ru.onlyFacets(setOf(fSupport, fProblem)):
		// "Meine Bestellung ist nicht angekommen", "mera order deliver
		// nahi hua": a negation after the order negates what happened to
		// it, not the order.
		negated = isNegatedBefore(t.toks, h.start, h.end)
	case ru.kind == kindPlain:
		negated = isNegated(t.toks, h.start, h.end)
	}
	hedged := isHedged(t.toks, h.start, h.end)
	quote := quoteOf(t, s, h.start, h.end)
	for _, o := range ru.outs {
		f := finding{
			f: o.f, level: o.level, reading: ru.reading, turn: t.index,
			order: orderOf(t.index, h.start), quote: quote, offScope: t.offScope, engage: ru.engage,
			free: ru.free && !negated,
		}
		if o.f == fAuthority {
			// "My boss approves" limits the visitor's own authority; for
			// the economic buyer it is the buyer identified, which is good.
			f.capLevel = ru.capLevel
		}
		switch {
		case ru.kind == kindDeny:
			f.level, f.deny = 0, true
		case negated && ru.negLevel > 0:
			f.level = ru.negLevel
			f.reading = "negated: " + ru.reading
		case negated:
			f.level, f.deny = 0, true
			f.reading = "denies: " + ru.reading
		case hedged:
			f.level = hedge(f.level)
			f.reading = "hedged: " + ru.reading
		}
		if f.f == fProblem && !f.deny && currentProvider(t.toks, s) {
			// "O nosso contabilista atual não responde a nada", "our
			// current agency never answers": the fault is the provider
			// the visitor wants to leave, a reason to buy, not a request
			// about something bought here.
			f.f, f.level, f.reading = fPain, 65, "a problem with their current provider"
		}
		if (f.f == fNeed || f.f == fPain) && !f.deny && hasNumber(t.toks, s) {
			// A need with a quantity ("500 units", "1 crore cover", "4
			// people, 6 nights") is specific enough to act on.
			f.level = min(100, f.level+10)
		}
		if f.deny && f.f >= fJob {
			continue // "I'm not looking for a job" disqualifies nobody
		}
		if s.question && (f.f == fCriteria || f.f == fProcess) && !ru.qOnly {
			// Asking whether something is supported is not yet requiring it.
			f.level = f.level / 2
		}
		out = append(out, f)
	}
	return out
}

func hasNumber(toks []token, s *sentence) bool {
	for i := s.tokStart; i < s.tokEnd; i++ {
		if toks[i].isNum {
			return true
		}
	}
	return false
}

// hedge softens a level said with "maybe", "probably", "hopefully".
func hedge(level int) int { return int(math.Round(float64(level) * 0.75)) }

func orderOf(turn, tok int) int { return turn<<20 | tok }

// scopeBreakers end a negation's reach: a new clause starts after them.
var scopeBreakers = map[string]bool{
	"and": true, "but": true, "so": true, "because": true, "while": true, "although": true,
	"though": true, "however": true, "then": true, "lekin": true, "aur": true, "par": true, "or": true,
	"y": true, "pero": true, "porque": true, "aunque": true, "e": true, "mas": true, "porem": true,
	"et": true, "mais": true, "car": true, "und": true, "aber": true, "weil": true, "denn": true,
	"sondern": true, "o": true, "ou": true, "oder": true,
}

// isNegated looks for a negator inside the match or shortly before it in
// the same clause ("we don't have budget", "not the decision maker"), and
// for a Hindi negator right after it ("budget nahi hai").
func isNegated(toks []token, start, end int) bool {
	if isNegatedBefore(toks, start, end) {
		return true
	}
	for i := end; i < len(toks) && i < end+3; i++ {
		if toks[i].clause != toks[end-1].clause || scopeBreakers[toks[i].norm] {
			break
		}
		if postNegators[toks[i].norm] {
			return true
		}
	}
	return false
}

// isNegatedBefore is isNegated without the negators that follow the
// phrase (Hindi and German word order).
func isNegatedBefore(toks []token, start, end int) bool {
	for i := start; i < end; i++ {
		if negators[toks[i].norm] && !emphatic(toks, i) && !ergativeNe(toks, i) {
			return true
		}
	}
	// Hindi puts its negator just before the verb: "abhi koi demo nahi
	// chahiye", "abhi nahi lena".
	if start > 0 && hindiNegators[toks[start-1].norm] && toks[start-1].clause == toks[start].clause {
		return true
	}
	clause := toks[start].clause
	for i, n := start-1, 0; i >= 0 && n < 5; i, n = i-1, n+1 {
		t := &toks[i]
		if t.clause != clause || scopeBreakers[t.norm] {
			break
		}
		if negators[t.norm] && !emphatic(toks, i) && !ergativeNe(toks, i) {
			// A bare "no" reaches only the next two words: "no budget",
			// not "no we have budget".
			if t.norm == "no" && n > 1 {
				continue
			}
			// "Without", "sin", "sem", "sans", "ohne" govern the
			// noun after them ("sin internet", "without a budget"),
			// not the rest of the clause: "que funcione sin internet es lo
			// que necesito" states a need.
			if prepositionNegators[t.norm] && n > 1 {
				continue
			}
			return true
		}
	}
	return false
}

// hindiNegators deny the word right after them.
var hindiNegators = map[string]bool{"nahi": true, "nahin": true, "nai": true}

// ergativeNe: a "ne" that is not French "ne ... pas". Hindi's "ne" marks
// who did something ("finance ne approve kar diya", "boss ne bola"), and
// French "ne" always comes with its second word (pas, plus, jamais, rien,
// personne, aucun) in the same clause.
func ergativeNe(toks []token, i int) bool {
	if toks[i].norm != "ne" {
		return false
	}
	for k := i + 1; k < len(toks) && k <= i+5 && toks[k].clause == toks[i].clause; k++ {
		switch toks[k].norm {
		case "pas", "plus", "jamais", "rien", "personne", "aucun", "aucune", "guere", "ni", "point":
			return false
		}
	}
	return true
}

// emphatic: "not only", "not just", "no doubt" do not negate.
func emphatic(toks []token, i int) bool {
	if i+1 >= len(toks) {
		return false
	}
	switch toks[i+1].norm {
	case "only", "just", "doubt", "sure", "problem", "worries":
		return true
	}
	return false
}

// isHedged looks for a hedge anywhere in the match's clause.
func isHedged(toks []token, start, end int) bool {
	clause := toks[start].clause
	for i := start - 1; i >= 0 && toks[i].clause == clause; i-- {
		if hedgeAt(toks, i) || (toks[i].norm == "sure" && i > 0 && toks[i-1].norm == "not") {
			return true
		}
	}
	for i := start; i < len(toks) && toks[i].clause == clause; i++ {
		if hedgeAt(toks, i) {
			return true
		}
	}
	return false
}

// hedgeAt: toks[i] softens its clause. French "peut" hedges only in "peut-
// être" ("on peut venir samedi ?" asks, it does not doubt), and "may I",
// "may we" ask permission.
func hedgeAt(toks []token, i int) bool {
	n := toks[i].norm
	if !hedges[n] {
		return false
	}
	next := ""
	if i+1 < len(toks) {
		next = toks[i+1].norm
	}
	switch n {
	case "peut":
		return next == "etre"
	case "may":
		return next != "i" && next != "we"
	}
	return true
}

// maxQuote is the longest quote, in bytes, before it is cut to a clause.
const maxQuote = 180

// quoteOf returns the visitor's own words around a match: the sentence, or
// if that is long, the clause holding the match. It is always a substring
// of the turn's text.
func quoteOf(t *turnText, s *sentence, start, end int) string {
	q := t.text[s.start:s.end]
	if len(q) <= maxQuote {
		return strings.TrimSpace(q)
	}
	// Widen from the match to its clause boundaries.
	lo, hi := start, end-1
	clause := t.toks[start].clause
	for lo > s.tokStart && t.toks[lo-1].clause == clause {
		lo--
	}
	clause = t.toks[end-1].clause
	for hi+1 < s.tokEnd && t.toks[hi+1].clause == clause {
		hi++
	}
	a, b := t.toks[lo].start, t.toks[hi].end
	if b-a > maxQuote {
		// A very long clause: a window of words around the match.
		lo, hi = start, end-1
		for lo > s.tokStart && t.toks[hi].end-t.toks[lo-1].start <= maxQuote/2 {
			lo--
		}
		for hi+1 < s.tokEnd && t.toks[hi+1].end-t.toks[lo].start <= maxQuote {
			hi++
		}
		a, b = t.toks[lo].start, t.toks[hi].end
	}
	return strings.TrimSpace(t.text[a:b])
}

// currentWords mark the provider or tool the visitor has today.
var currentWords = setOfWords([]string{"current", "currently", "present", "existing", "actual", "actuales", "atual", "atuais",
	"actuel", "actuelle", "actuels", "actuelles", "aktuell", "aktuelle", "aktuellen", "aktueller", "jetzige", "jetzigen", "jetziger",
	"bisherige", "bisherigen", "bisheriger", "abhi", "mevcut"})

// ownPurchaseWords name what the visitor may have bought here: a fault
// with "my current plan" or "the current invoice" is still a support
// request.
var ownPurchaseWords = setOfWords([]string{"plan", "plano", "plans", "subscription", "suscripcion", "assinatura", "abonnement", "abo",
	"tarif", "tarifa", "package", "paquete", "pacote", "forfait", "paket", "version", "versao", "update", "app", "widget", "bot", "chatbot"})

// currentProvider: the sentence's fault belongs to a provider or tool the
// visitor has today (a "current" word before a noun), not to an order,
// account, plan or contract of their own.
func currentProvider(toks []token, s *sentence) bool {
	cur := false
	for i := s.tokStart; i < s.tokEnd; i++ {
		n := toks[i].norm
		if refNouns[n] || ownPurchaseWords[n] || refCompounds[n] {
			return false
		}
		if currentWords[n] && !(n == "abhi" && i+1 < s.tokEnd && toks[i+1].norm != "wala" && toks[i+1].norm != "wale") {
			cur = true
		}
	}
	return cur
}

// countedBefore: the word at i is counted, a number right before it, with
// at most an approximation between ("20 freshers", "around 50 open roles",
// "6 recruiters"). Jobs counted are the visitor's own hires and openings,
// an employer's headcount: a job seeker asks for one job and counts years,
// salaries and notice days, never the jobs.
func countedBefore(toks []token, i, start int) bool {
	j := i - 1
	if j >= start && approxWords[toks[j].norm] {
		j--
	}
	return j >= start && toks[j].isNum && !toks[j].year && toks[j].num >= 2
}

var approxWords = map[string]bool{"around": true, "about": true, "some": true, "over": true, "approx": true, "roughly": true,
	"unos": true, "unas": true, "uns": true, "umas": true, "environ": true, "etwa": true, "ca": true, "rund": true, "lagbhag": true, "almost": true}
