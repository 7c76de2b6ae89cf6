package chat

import (
	"context"
	"slices"
	"strings"
	"unicode"

	"concierge/internal/bot"
	"concierge/internal/retrieval"
)

// Extractive is the default answerer: offline and deterministic. It
// composes a reply from the sentences of the best passages that share the
// most terms with the question, and cites those passages. When the
// passages cover too little of the question, it says it does not know,
// in the bot's voice, offering a human or a contact form when the bot has
// one. It never invents a word: every sentence of an answer is quoted.
type Extractive struct{}

// Name implements Answerer.
func (Extractive) Name() string { return "extractive" }

const (
	extractivePassages  = 3    // passages (with a ranking: pages) whose sentences compete
	extractiveSentences = 3    // sentences in an answer at most
	extractiveMaxRunes  = 700  // answer length at most (a last sentence may cross it)
	extractiveKeep      = 0.75 // other pages quoted only within this share of the best passage's score
	extractiveReads     = 12   // ranked passages looked at for other pages to draw on
)

// Answer implements Answerer.
func (Extractive) Answer(ctx context.Context, p Prompt, emit func(string) error) (Answer, error) {
	ans := composeExtractive(p)
	if err := ctx.Err(); err != nil {
		return Answer{}, err
	}
	for _, part := range streamParts(ans.Text) {
		if err := emit(part); err != nil {
			return Answer{}, err
		}
	}
	return ans, nil
}

func (Extractive) compose(p Prompt) Answer { return composeExtractive(p) }

type candidate struct {
	passage, order int
	text           string
	score          float64
}

func composeExtractive(p Prompt) Answer {
	qterms := uniq(retrieval.Terms(p.Question))
	if len(qterms) == 0 || len(p.Passages) == 0 {
		return Answer{Text: dontKnow(p.Bot), Abstained: true}
	}
	want := map[string]bool{}
	for _, t := range qterms {
		want[t] = true
	}
	// Grounded when the second stage says the best page answers
	// (retrieval.AnswerThreshold). Passages it did not read (built by
	// hand) are grounded when one covers half the question's terms.
	need := max(1, (len(qterms)+1)/2)
	ranked := p.Passages[0].Evidence.Ranked
	grounded := ranked && p.Passages[0].Evidence.Answers()
	var cands []candidate
	// The passages the reply may draw on: with a ranking, those within
	// extractiveKeep of the best one's score (one far behind is another
	// subject, and quoting it would make the sources lie), the first
	// passage of each page before a second passage of any, so that the
	// sources span pages when the answer does.
	var use []int
	if ranked {
		pages := map[int64]bool{}
		var later []int
		for pi := range p.Passages[:min(len(p.Passages), extractiveReads)] {
			h := &p.Passages[pi]
			if pi > 0 && h.Evidence.Score < p.Passages[0].Evidence.Score*extractiveKeep {
				continue
			}
			if pages[h.DocumentID] {
				later = append(later, pi)
				continue
			}
			pages[h.DocumentID] = true
			use = append(use, pi)
		}
		use = append(use, later...)
		use = use[:min(len(use), extractivePassages)]
		slices.Sort(use)
	} else {
		for pi := range p.Passages[:min(len(p.Passages), extractivePassages)] {
			use = append(use, pi)
		}
	}
	for _, pi := range use {
		h := &p.Passages[pi]
		a := analyse(h)
		if !ranked {
			cover := 0
			for _, t := range a.terms {
				if want[t] {
					cover++
				}
			}
			grounded = grounded || cover >= need
		}
		weights, total := h.Evidence.Weights, 0.0
		for _, w := range weights {
			total += w
		}
		// The question's terms with their weights in this passage's
		// reading: one lookup per sentence term instead of two.
		wanted := make(map[string]float64, len(qterms))
		for _, t := range qterms {
			wanted[t] = weights[t]
		}
		for si, sent := range a.sentences {
			hit, weighed := 0, 0.0
			for _, t := range sent.terms {
				if w, ok := wanted[t]; ok {
					hit++
					weighed += w
				}
			}
			if hit == 0 {
				continue
			}
			// Earlier passages rank better; a sentence that matches many
			// question terms (the rarer, the more) beats a long one that
			// matches one.
			match := float64(hit) / float64(len(qterms))
			if total > 0 {
				match = weighed / total
			}
			score := match + 1/float64(pi+1) - float64(si)*0.01
			cands = append(cands, candidate{passage: pi, order: si, text: sent.text, score: score})
		}
	}
	if !grounded || len(cands) == 0 {
		return Answer{Text: dontKnow(p.Bot), Abstained: true}
	}
	slices.SortStableFunc(cands, func(a, b candidate) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	// First the best sentence of each passage drawn on (so that each
	// source is quoted), then the best of the rest.
	var picked []candidate
	runes := 0
	take := func(c candidate) bool {
		if len(picked) == extractiveSentences || runes >= extractiveMaxRunes {
			return false
		}
		if slices.ContainsFunc(picked, func(o candidate) bool { return o.text == c.text }) {
			return true
		}
		picked = append(picked, c)
		runes += len([]rune(c.text))
		return true
	}
	firstOf := map[int]bool{}
	for _, c := range cands {
		if ranked && !firstOf[c.passage] {
			firstOf[c.passage] = true
			if !take(c) {
				break
			}
		}
	}
	for _, c := range cands {
		if !take(c) {
			break
		}
	}
	// Read in the order the source wrote them: passage by passage, then
	// sentence order.
	slices.SortStableFunc(picked, func(a, b candidate) int {
		if a.passage != b.passage {
			return a.passage - b.passage
		}
		return a.order - b.order
	})
	var b strings.Builder
	var cited []int
	for i, c := range picked {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(c.text)
		if !slices.Contains(cited, c.passage) {
			cited = append(cited, c.passage)
		}
	}
	return Answer{Text: b.String(), Answered: true, Cited: cited}
}

// analysed is a passage as the extractive answerer reads it: its distinct
// terms (title, headings and text, as indexed) and its sentences with
// their distinct terms, analysed in the passage's language. It depends on
// the passage alone, so it is computed once per cached passage (Hit.Memo)
// and shared: never modified.
type analysed struct {
	terms     []string
	sentences []analysedSentence
}

type analysedSentence struct {
	text  string
	terms []string
}

type analysedKey struct{}

func analyse(h *retrieval.Hit) *analysed {
	return h.Memo(analysedKey{}, func() any {
		a := &analysed{terms: uniq(h.PassageTerms())}
		for _, sent := range sentences(h.Text) {
			a.sentences = append(a.sentences, analysedSentence{text: sent, terms: uniq(h.TermsOf(sent))})
		}
		return a
	}).(*analysed)
}

// dontKnow is the honest answer when the knowledge has none, in the bot's
// voice, with the way forward the bot offers.
func dontKnow(b *bot.Bot) string {
	var msg string
	switch b.TonePreset {
	case "friendly", "enthusiastic", "playful":
		msg = "Hmm, I couldn't find that in what I know so far."
	case "casual":
		msg = "I'm not sure about that one, it isn't in what I know."
	default:
		msg = "I'm sorry, I don't have information about that."
	}
	c, lc := b.Copy(), b.LiveChat()
	switch {
	case lc.Enabled && c.HandoffPrompt != "":
		return msg + " " + c.HandoffPrompt
	case lc.Enabled:
		return msg + " Would you like to talk to someone from our team?"
	case lc.OfferContactForm && c.ContactFormPrompt != "":
		return msg + " " + c.ContactFormPrompt
	case lc.OfferContactForm:
		return msg + " Leave your contact details and we will get back to you."
	}
	return msg
}

// sentences splits text at sentence ends and line breaks, keeping each
// sentence's punctuation; fragments of a few characters are dropped.
func sentences(text string) []string {
	var out []string
	add := func(s string) {
		s = strings.Join(strings.Fields(s), " ")
		if len([]rune(s)) >= 12 {
			out = append(out, s)
		}
	}
	start := 0
	rs := []rune(text)
	for i, r := range rs {
		switch {
		case r == '\n':
			add(string(rs[start:i]))
			start = i + 1
		case r == '.' || r == '!' || r == '?' || r == '。' || r == '！' || r == '？' || r == '।':
			next := i + 1
			if next < len(rs) && !unicode.IsSpace(rs[next]) && r == '.' {
				continue // 3.5, e.g, example.com
			}
			if r == '.' && i > 0 && isAbbreviation(rs[start:i]) {
				continue
			}
			add(string(rs[start:next]))
			start = next
		}
	}
	add(string(rs[start:]))
	return out
}

func isAbbreviation(before []rune) bool {
	j := len(before)
	for j > 0 && unicode.IsLetter(before[j-1]) {
		j--
	}
	w := strings.ToLower(string(before[j:]))
	switch w {
	case "mr", "mrs", "ms", "dr", "st", "vs", "etc", "inc", "ltd", "no", "jr", "sr", "e.g", "i.e":
		return true
	}
	return len([]rune(w)) == 1 && unicode.IsUpper(before[len(before)-1])
}

// streamParts cuts text into word groups, the pace a model would stream.
func streamParts(text string) []string {
	var out []string
	words := 0
	start := 0
	for i, r := range text {
		if r == ' ' {
			words++
			if words%4 == 0 {
				out = append(out, text[start:i+1])
				start = i + 1
			}
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

func uniq(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
