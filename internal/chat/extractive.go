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
	extractivePassages  = 4   // passages whose sentences compete
	extractiveSentences = 3   // sentences in an answer at most
	extractiveMaxRunes  = 700 // answer length at most (a last sentence may cross it)
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
		return Answer{Text: dontKnow(p.Bot)}
	}
	want := map[string]bool{}
	for _, t := range qterms {
		want[t] = true
	}
	// Grounded when one passage (with its title and headings) covers
	// enough of the question: half its terms, and at least one.
	need := max(1, (len(qterms)+1)/2)
	grounded := false
	var cands []candidate
	for pi := range p.Passages[:min(len(p.Passages), extractivePassages)] {
		a := analyse(&p.Passages[pi])
		cover := 0
		for _, t := range a.terms {
			if want[t] {
				cover++
			}
		}
		if cover >= need {
			grounded = true
		}
		for si, sent := range a.sentences {
			hit := 0
			for _, t := range sent.terms {
				if want[t] {
					hit++
				}
			}
			if hit == 0 {
				continue
			}
			// Earlier passages rank better; a sentence that matches many
			// question terms beats a long one that matches one.
			score := float64(hit)/float64(len(qterms)) + 0.5/float64(pi+1) - float64(si)*0.01
			cands = append(cands, candidate{passage: pi, order: si, text: sent.text, score: score})
		}
	}
	if !grounded || len(cands) == 0 {
		return Answer{Text: dontKnow(p.Bot)}
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
	var picked []candidate
	runes := 0
	for _, c := range cands {
		if len(picked) == extractiveSentences || runes >= extractiveMaxRunes {
			break
		}
		if slices.ContainsFunc(picked, func(o candidate) bool { return o.text == c.text }) {
			continue
		}
		picked = append(picked, c)
		runes += len([]rune(c.text))
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
