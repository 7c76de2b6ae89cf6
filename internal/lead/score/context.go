package score

import "strings"

// Bot turns are context, never evidence: they tell what a short visitor
// answer ("yes", "next month", "50k") replies to, and whether the bot told
// the visitor that what they asked for is not offered. Every quote still
// comes from the visitor's own turn.

// askCue is a word sequence in a bot question that shows what it asks.
type askCue struct {
	f   facet
	seq []string
}

var askCues = []askCue{
	{fBudget, []string{"budget"}}, {fBudget, []string{"spend"}}, {fBudget, []string{"afford"}},
	{fBudget, []string{"invest"}}, {fBudget, []string{"price", "range"}}, {fBudget, []string{"comfortable"}},
	{fAuthority, []string{"decision"}}, {fAuthority, []string{"decide"}}, {fAuthority, []string{"decides"}},
	{fAuthority, []string{"sign", "off"}}, {fAuthority, []string{"approve"}}, {fAuthority, []string{"approves"}},
	{fAuthority, []string{"who", "else"}}, {fAuthority, []string{"involved"}}, {fAuthority, []string{"your", "role"}},
	{fAuthority, []string{"signs"}}, {fEconomic, []string{"signs"}}, {fEconomic, []string{"sign", "off"}},
	{fEconomic, []string{"approves"}}, {fEconomic, []string{"budget"}},
	{fTimeline, []string{"when"}}, {fTimeline, []string{"timeline"}}, {fTimeline, []string{"how", "soon"}},
	{fTimeline, []string{"soon"}}, {fTimeline, []string{"go", "live"}}, {fTimeline, []string{"by", "when"}},
	{fNeed, []string{"what", "brings"}}, {fNeed, []string{"challenge"}}, {fNeed, []string{"problem"}},
	{fNeed, []string{"looking", "for"}}, {fNeed, []string{"trying", "to", "solve"}}, {fNeed, []string{"hoping"}},
	{fNeed, []string{"driving"}}, {fNeed, []string{"stopping"}}, {fNeed, []string{"improve"}},
	{fNeed, []string{"interested", "in"}}, {fNeed, []string{"what", "made", "you"}}, {fNeed, []string{"what", "kind", "of"}}, {fNeed, []string{"which", "kind", "of"}},
	{fPain, []string{"challenge"}}, {fPain, []string{"problem"}},
	{fPriority, []string{"urgent"}}, {fPriority, []string{"priority"}}, {fPriority, []string{"prioritise"}},
	{fPriority, []string{"prioritize"}}, {fPriority, []string{"how", "high"}}, {fPriority, []string{"important"}},
	{fChampion, []string{"leading"}}, {fChampion, []string{"internally"}}, {fChampion, []string{"champion"}},
	{fProcess, []string{"process"}}, {fProcess, []string{"how", "will", "you", "decide"}},
	{fProcess, []string{"next", "steps"}}, {fProcess, []string{"usually", "buy"}}, {fProcess, []string{"buying"}},
	{fCriteria, []string{"requirements"}}, {fCriteria, []string{"require"}}, {fCriteria, []string{"matters"}},
	{fCriteria, []string{"criteria"}}, {fCriteria, []string{"winning"}},
	{fSize, []string{"how", "many"}}, {fSize, []string{"team", "size"}}, {fSize, []string{"how", "big"}},
	// Spanish, Portuguese, French, German, Hinglish.
	{fBudget, []string{"presupuesto"}}, {fBudget, []string{"orcamento"}}, {fBudget, []string{"verba"}},
	{fBudget, []string{"invertir"}}, {fBudget, []string{"investir"}}, {fBudget, []string{"investieren"}},
	{fEconomic, []string{"presupuesto"}}, {fEconomic, []string{"orcamento"}},
	{fAuthority, []string{"decide"}}, {fAuthority, []string{"decision"}}, {fAuthority, []string{"decisao"}},
	{fAuthority, []string{"decisiones"}}, {fAuthority, []string{"decident"}}, {fAuthority, []string{"decideur"}},
	{fAuthority, []string{"entscheidet"}}, {fAuthority, []string{"entscheidung"}}, {fAuthority, []string{"aprueba"}},
	{fAuthority, []string{"aprova"}}, {fAuthority, []string{"valide"}}, {fAuthority, []string{"freigabe"}},
	{fAuthority, []string{"su", "rol"}}, {fAuthority, []string{"seu", "cargo"}}, {fAuthority, []string{"votre", "role"}},
	{fAuthority, []string{"ihre", "rolle"}}, {fAuthority, []string{"cargo"}}, {fAuthority, []string{"funcion"}},
	{fTimeline, []string{"cuando"}}, {fTimeline, []string{"quando"}}, {fTimeline, []string{"quand"}},
	{fTimeline, []string{"wann"}}, {fTimeline, []string{"kab"}}, {fTimeline, []string{"plazo"}},
	{fTimeline, []string{"prazo"}}, {fTimeline, []string{"delai"}}, {fTimeline, []string{"zeitrahmen"}},
	{fTimeline, []string{"zeitplan"}}, {fTimeline, []string{"bis", "wann"}},
	{fNeed, []string{"necesitan"}}, {fNeed, []string{"necesita"}}, {fNeed, []string{"buscan"}},
	{fNeed, []string{"precisam"}}, {fNeed, []string{"procuram"}}, {fNeed, []string{"besoin"}},
	{fNeed, []string{"cherchez"}}, {fNeed, []string{"brauchen"}}, {fNeed, []string{"suchen"}},
	{fNeed, []string{"bedarf"}}, {fNeed, []string{"problema"}}, {fNeed, []string{"probleme"}},
	{fNeed, []string{"reto"}}, {fNeed, []string{"desafio"}}, {fNeed, []string{"defi"}},
	{fNeed, []string{"herausforderung"}}, {fNeed, []string{"chahiye"}}, {fNeed, []string{"interesa"}},
	{fNeed, []string{"interessa"}}, {fNeed, []string{"interesse"}}, {fNeed, []string{"interessiert"}},
	{fNeed, []string{"buscas"}}, {fNeed, []string{"busca"}}, {fNeed, []string{"procura"}}, {fNeed, []string{"cherchez"}},
	{fNeed, []string{"interested"}},
	{fPain, []string{"problema"}}, {fPain, []string{"probleme"}}, {fPain, []string{"herausforderung"}},
	{fPriority, []string{"urgente"}}, {fPriority, []string{"prioridad"}}, {fPriority, []string{"prioridade"}},
	{fPriority, []string{"priorite"}}, {fPriority, []string{"dringend"}}, {fPriority, []string{"prioritat"}},
	{fSize, []string{"cuantos"}}, {fSize, []string{"cuantas"}}, {fSize, []string{"quantos"}},
	{fSize, []string{"quantas"}}, {fSize, []string{"combien"}}, {fSize, []string{"wie", "viele"}},
	{fSize, []string{"kitne"}},
	// An offer to book, visit, call or quote: a yes (or a time) takes it.
	{fIntent, []string{"book"}}, {fIntent, []string{"schedule"}}, {fIntent, []string{"appointment"}},
	{fIntent, []string{"visit"}}, {fIntent, []string{"tour"}}, {fIntent, []string{"demo"}},
	{fIntent, []string{"call"}}, {fIntent, []string{"quote"}}, {fIntent, []string{"reserve"}},
	{fIntent, []string{"consultation"}}, {fIntent, []string{"slot"}}, {fIntent, []string{"order"}},
	{fIntent, []string{"agendar"}}, {fIntent, []string{"agende"}}, {fIntent, []string{"reservar"}},
	{fIntent, []string{"reserva"}}, {fIntent, []string{"cita"}}, {fIntent, []string{"visita"}},
	{fIntent, []string{"llamada"}}, {fIntent, []string{"cotizar"}}, {fIntent, []string{"cotizacion"}},
	{fIntent, []string{"reunion"}}, {fIntent, []string{"marcar"}}, {fIntent, []string{"consulta"}},
	{fIntent, []string{"cotar"}}, {fIntent, []string{"cotacao"}}, {fIntent, []string{"reuniao"}},
	{fIntent, []string{"ligacao"}}, {fIntent, []string{"rendez"}}, {fIntent, []string{"rdv"}},
	{fIntent, []string{"reserver"}}, {fIntent, []string{"devis"}}, {fIntent, []string{"appel"}},
	{fIntent, []string{"termin"}}, {fIntent, []string{"besichtigung"}}, {fIntent, []string{"angebot"}},
	{fIntent, []string{"buchen"}}, {fIntent, []string{"vereinbaren"}}, {fIntent, []string{"proposal"}},
	{fIntent, []string{"propuesta"}}, {fIntent, []string{"proposta"}}, {fIntent, []string{"pedido"}},
	{fIntent, []string{"vaga"}}, {fIntent, []string{"vagas"}}, {fIntent, []string{"hueco"}}, {fIntent, []string{"huecos"}},
	{fIntent, []string{"disponibilidad"}}, {fIntent, []string{"availability"}}, {fIntent, []string{"available"}},
	{fIntent, []string{"creneau"}}, {fIntent, []string{"creneaux"}}, {fIntent, []string{"termine"}},
	{fIntent, []string{"frei"}}, {fIntent, []string{"site", "visit"}}, {fNeed, []string{"dekh", "rahe"}},
	{fNeed, []string{"chahte"}}, {fNeed, []string{"chahiye"}},
	// "Are you an existing customer?": a yes makes the visitor one.
	{fSupport, []string{"existing", "customer"}}, {fSupport, []string{"existing", "client"}},
	{fSupport, []string{"already", "a", "customer"}}, {fSupport, []string{"current", "customer"}},
	{fSupport, []string{"ya", "es", "cliente"}}, {fSupport, []string{"ya", "eres", "cliente"}},
	{fSupport, []string{"ya", "son", "clientes"}}, {fSupport, []string{"ja", "e", "cliente"}},
	{fSupport, []string{"ja", "sao", "clientes"}}, {fSupport, []string{"deja", "client"}},
	{fSupport, []string{"deja", "cliente"}}, {fSupport, []string{"deja", "clients"}},
	{fSupport, []string{"bereits", "kunde"}}, {fSupport, []string{"schon", "kunde"}},
	{fSupport, []string{"bestandskunde"}}, {fSupport, []string{"bestandskundin"}},
}

// askIndex finds the cues that can start at a word.
var askIndex = func() map[string][]askCue {
	m := map[string][]askCue{}
	for _, c := range askCues {
		m[c.seq[0]] = append(m[c.seq[0]], c)
	}
	return m
}()

// botContext is what one bot turn tells about the visitor's next turn.
type botContext struct {
	asked    facetSet
	priced   bool     // it stated a price
	words    []string // words of its questions, for custom dimensions
	offScope bool     // "sorry, we don't offer that"
	// offersTrial: it offered a free trial, study or evaluation ("Je peux
	// vous envoyer une étude de préfaisabilité gratuite", "free profile
	// evaluation karwa sakte ho", "¿quiere una semana de prueba?").
	offersTrial bool
}

// asks reports whether the bot's questions used a word.
func (c *botContext) asks(w string) bool { return contains(c.words, w) }

// readBotTurnToks reads one bot turn: what its questions ask, whether it
// stated a price, whether it turned something down and whether it offered a
// trial. all and allSents are the whole turn's tokens, which the scorer's
// other readings of a bot turn share.
func readBotTurnToks(text, lang string, all []token, allSents []sentence) botContext {
	var ctx botContext
	ctx.offersTrial = offersTrialToks(all, allSents)
	text = contextSentences(text)
	if text == "" {
		return ctx // nothing asked, no price, no apology: no context
	}
	toks, sents := tokenizeLang(text, lex, lang)
	for si := range sents {
		s := &sents[si]
		if !ctx.priced && len(parseAmounts(toks, s.tokStart, s.tokEnd)) > 0 {
			ctx.priced = true
		}
		if !s.question {
			// An offer stated rather than asked ("We have Thursday at 10
			// or Friday at 4."): a time in the reply takes it.
			for i := s.tokStart; i < s.tokEnd; i++ {
				for _, c := range askIndex[toks[i].norm] {
					if c.f == fIntent && hasSeqAt(toks, i, s.tokEnd, c.seq) {
						ctx.asked |= setOf(fIntent)
					}
				}
			}
			continue
		}
		for i := s.tokStart; i < s.tokEnd; i++ {
			ctx.words = append(ctx.words, toks[i].norm)
			for _, c := range askIndex[toks[i].norm] {
				if c.f == fTimeline && len(c.seq) == 1 && whenWords[c.seq[0]] && !asksWhen(toks, i, s) {
					continue // "a reminder when we run promotions?" does not ask when
				}
				if hasSeqAt(toks, i, s.tokEnd, c.seq) {
					ctx.asked |= setOf(c.f)
				}
			}
		}
	}
	ctx.offScope = saysNotOffered(toks)
	return ctx
}

// proposalVerbs offer something in a statement: "Je vous propose une
// démo personnalisée", "Le propongo una visita", "Ich schlage einen
// Termin vor", "I suggest a short call": a yes to it takes the offer.
var proposalVerbs = []string{"propose", "proposons", "propongo", "proponemos", "proponho", "propomos", "schlage", "schlagen", "suggest"}

func offersByProposal(s string) bool {
	for _, v := range proposalVerbs {
		if hasFoldASCII(s, v) {
			return true
		}
	}
	return false
}

// trialWords name what a business lets a prospect try or have assessed
// before buying; freeWords make a statement of it an offer.
var (
	trialWords = setOfWords([]string{"trial", "pilot", "evaluation", "assessment", "audit", "study", "sample", "samples",
		"prueba", "evaluacion", "estudio", "auditoria", "diagnostico", "muestra", "muestras", "piloto",
		"teste", "avaliacao", "estudo", "amostra", "amostras",
		"essai", "etude", "diagnostic", "echantillon", "echantillons", "pilote",
		"probetraining", "probestunde", "probemonat", "testzugang", "probe", "muster", "einschatzung", "analyse", "potenzialanalyse"})
	freeWords = setOfWords([]string{"free", "gratis", "gratuito", "gratuita", "gratuit", "gratuite", "gratuitement", "gratuitamente",
		"kostenlos", "kostenlose", "kostenlosen", "kostenloses", "unverbindlich", "unverbindliche", "unverbindlichen", "muft"})
)

// conditionWords put an offer off until something happens.
var conditionWords = setOfWords([]string{"if", "once", "when", "cuando", "quando", "si", "wenn", "sobald", "falls", "lorsque", "quand", "jab", "agar"})

// offersTrial: a sentence of the bot turn offers something to try or to
// have assessed, free or asked as a question.
func offersTrialToks(toks []token, sents []sentence) bool {
	for _, s := range sents {
		trial, free, conditional := false, false, false
		for i := s.tokStart; i < s.tokEnd; i++ {
			// "Cuando lo tengas claro, te hacemos una prueba de nivel
			// gratis": an offer for later, not one to take now.
			conditional = conditional || conditionWords[toks[i].norm]
			// A case study ("estudio de caso", "étude de cas") is content
			// to read, not a study of the visitor's own case.
			caseStudy := (i > s.tokStart && toks[i-1].norm == "case") ||
				(i+2 < s.tokEnd && toks[i+1].norm == "de" && (toks[i+2].norm == "caso" || toks[i+2].norm == "cas" || toks[i+2].norm == "casos"))
			trial = trial || (trialWords[toks[i].norm] && !caseStudy)
			free = free || freeWords[toks[i].norm]
		}
		if trial && (free || s.question) && !conditional {
			return true
		}
	}
	return false
}

var whenWords = setOfWords([]string{"when", "cuando", "quando", "quand", "wann", "kab"})

// asksWhen: "when" opens the question or a verb follows it ("when would
// you", "cuándo quieren"), rather than starting a clause of an offer.
func asksWhen(toks []token, i int, s *sentence) bool {
	if i-s.tokStart <= 2 {
		return true
	}
	if i+1 < s.tokEnd {
		switch toks[i+1].norm {
		case "do", "does", "are", "is", "would", "will", "can", "could", "should", "did", "you", "quieren", "quiere",
			"pueden", "querem", "podem", "voulez", "souhaitez", "mochten", "wollen", "konnen":
			return true
		}
	}
	return false
}

// contextSentences keeps the sentences of a bot turn that can give
// context: questions, prices (digits) and apologies. Bot answers are often
// long and the rest of them is never read.
func contextSentences(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	start := 0
	for i := 0; i <= len(text); i++ {
		if i < len(text) && text[i] != '.' && text[i] != '?' && text[i] != '!' && text[i] != '\n' {
			continue
		}
		end := min(i+1, len(text))
		s := text[start:end]
		if strings.ContainsAny(s, "?0123456789") || hasFoldASCII(s, "sorry") || hasFoldASCII(s, "unfortunately") || hasFoldASCII(s, "only") || hasFoldASCII(s, "don't") || hasFoldASCII(s, "do not") ||
			offersByProposal(s) {
			if b.Len() == 0 && end-start == len(text) {
				return text
			}
			b.WriteString(s)
			b.WriteByte(' ')
		}
		start = end
	}
	return b.String()
}

// hasFoldASCII is a case-insensitive strings.Contains for an ASCII
// lower-case needle, without allocating.
func hasFoldASCII(s, needle string) bool {
	for i := 0; i+len(needle) <= len(s); i++ {
		k := 0
		for k < len(needle) {
			c := s[i+k]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != needle[k] {
				break
			}
			k++
		}
		if k == len(needle) {
			return true
		}
	}
	return false
}

func hasSeqAt(toks []token, i, hi int, seq []string) bool {
	if i+len(seq) > hi {
		return false
	}
	for k, w := range seq {
		if toks[i+k].norm != w {
			return false
		}
	}
	return true
}

// saysNotOffered recognises a bot apologising that the business does not
// offer what was asked: "Sorry, we sell apartments; we don't offer rentals".
func saysNotOffered(toks []token) bool {
	sorry, not := false, false
	for i := range toks {
		switch toks[i].norm {
		case "sorry", "unfortunately", "apologies":
			sorry = true
		case "not":
			// The business must be the subject ("we don't offer"): "I'm
			// sorry, I don't have information about that" is a bot that
			// does not know, not a refusal.
			if i > 0 && (toks[i-1].norm == "do" || toks[i-1].norm == "does" || toks[i-1].norm == "can") &&
				i+1 < len(toks) && notOffered[toks[i+1].norm] && weBefore(toks, i) {
				not = true
			}
		case "only":
			if i > 0 && toks[i-1].norm == "we" {
				not = true
			}
		}
	}
	return sorry && not
}

// weBefore reports whether "we" is among the three words before toks[i].
func weBefore(toks []token, i int) bool {
	for k := max(0, i-3); k < i; k++ {
		if toks[k].norm == "we" {
			return true
		}
	}
	return false
}

var notOffered = setOfWords([]string{
	"offer", "sell", "provide", "do", "repair", "have", "deal", "build", "serve", "handle", "support",
	"rent", "stock", "carry", "service", "cover", "ship", "deliver",
})

var (
	affirmWords = setOfWords([]string{"yes", "yeah", "yep", "yup", "yess", "sure", "correct", "right", "definitely", "absolutely", "haan", "han", "ha", "ji", "exactly", "indeed", "certainly", "affirmative",
		"si", "claro", "exacto", "correcto", "sim", "exato", "oui", "exactement", "absolument", "bien", "ja", "genau", "richtig", "jawohl", "klar",
		"passt", "perfekt", "parfait", "perfecto", "perfeito", "perfect", "great", "vale", "dale", "bilkul", "theek"})
	denyWords   = setOfWords([]string{"no", "nope", "nah", "nahi", "never", "none", "nao", "non", "nein", "nee"})
	meWords     = setOfWords([]string{"me", "myself", "mine"})
	nobodyWords = setOfWords([]string{"nobody", "noone"})
)

// readReference is the reading of an order, policy or claim number the
// visitor gave.
const readReference = "gives the reference of an existing order, policy or claim"

// affirmLevel is what "yes" to a question about a facet is worth: less
// than saying it outright, because the bot chose the words.
var affirmLevel = map[facet]int{
	fBudget: 60, fAuthority: 75, fEconomic: 70, fNeed: 60, fPain: 55, fTimeline: 65, fPriority: 70,
	fChampion: 70, fProcess: 45, fCriteria: 40, fIntent: 80,
	// Yes to "are you an existing customer?" is a fact, not a level of
	// interest; it disqualifies only with a problem and no buying intent.
	fSupport: 100,
}

// answerFindings reads a short reply to the bot's question. found is the
// number of findings the rest of the analysis made so far, to tell whether
// the reply's first sentence already said something.
func answerFindings(t *turnText, out []finding, found int) []finding {
	if t.refAsked {
		// "Your policy number?" "AU-4451298": the visitor holds one.
		if q, ok := referenceGiven(t); ok {
			out = append(out, finding{f: fSupport, level: 100, reading: readReference,
				turn: t.index, order: orderOf(t.index, 0), quote: q, offScope: t.offScope})
		}
	} else if q, ok := referenceNamed(t); ok {
		// "order #PH-48213", "pedido 55821", "Rechnungsnummer RE-118734":
		// unasked, the same.
		out = append(out, finding{f: fSupport, level: 100, reading: readReference,
			turn: t.index, order: orderOf(t.index, 0), quote: q, offScope: t.offScope})
	}
	if t.trialOffered && len(t.sents) > 0 && !t.sents[0].question {
		// "Oui, ça m'aiderait", "haan evaluation kar do": the visitor takes
		// the trial or the study the bot offered, a step of evaluation.
		s := &t.sents[0]
		if s.tokStart < s.tokEnd && affirmWords[t.toks[s.tokStart].norm] {
			out = append(out, finding{f: fEval, level: 60, reading: "takes the trial or study offered", turn: t.index,
				order: orderOf(t.index, s.tokStart), quote: quoteOf(t, s, s.tokStart, s.tokEnd), offScope: t.offScope})
		}
	}
	if t.asked == 0 || len(t.sents) == 0 {
		return out
	}
	s := &t.sents[0]
	toks := t.toks
	i := s.tokStart
	if i >= s.tokEnd {
		return out
	}
	first := toks[i].norm
	second := ""
	if i+1 < s.tokEnd {
		second = toks[i+1].norm
	}
	// The answer is the first clause; quote it.
	end := i + 1
	for end < s.tokEnd && toks[end].clause == toks[i].clause {
		end++
	}
	quote := quoteOf(t, s, i, end)
	emit := func(f facet, level int, deny bool, reading string) {
		out = append(out, finding{f: f, level: level, deny: deny, reading: reading, turn: t.index,
			order: orderOf(t.index, i), quote: quote, offScope: t.offScope})
	}
	switch {
	case (first == "not" && (second == "sure" || second == "decided")) || (first == "no" && second == "idea") ||
		(first == "do" && second == "not") || first == "undecided" || first == "depends" || first == "maybe" ||
		unsureStarts[first+" "+second] || unsureWords[first]:
		for f := facet(0); f < fIntent; f++ {
			if t.asked.has(f) && f != fSize {
				emit(f, 15, false, "unsure when asked")
			}
		}
	case nobodyWords[first] || (first == "no" && second == "one"):
		if t.asked.has(fAuthority) {
			emit(fAuthority, 85, false, "no one else decides")
			emit(fEconomic, 80, false, "no one else decides")
		}
	case meWords[first] || (first == "i" && (second == "am" || second == "do") && end-i <= 2):
		for _, f := range []facet{fAuthority, fChampion, fEconomic} {
			if t.asked.has(f) {
				emit(f, 85, false, "says it is them when asked")
			}
		}
	case affirmWords[first] && !(first == "right" && second != "") && !(first == "si" && end-i > 1):
		for f, level := range affirmLevel {
			if t.asked.has(f) {
				emit(f, level, false, "confirms when asked")
			}
		}
	case (denyWords[first] && second != "problem" && second != "worries") || (first == "not" && (second == "really" || second == "yet" || second == "at")):
		for f := range affirmLevel {
			if t.asked.has(f) {
				emit(f, 0, true, "denies when asked")
			}
		}
	case t.asked.has(fIntent) && !t.refAsked && proposesTime(out[found:], t.index, s):
		// "Would you like to book?" "Thursday at 10, please."
		emit(fIntent, 80, false, "takes the offer with a time")
	case t.asked.has(fNeed) && !s.question && !greetings[first] && !saidAnything(out[found:], t.index, s):
		// "Which program are you interested in?" "The weekend executive
		// MBA." A direct answer names what they want.
		emit(fNeed, 55, false, "names what they want when asked")
	}
	return out
}

// proposesTime reports a date or time among the findings of a sentence.
func proposesTime(fs []finding, turn int, s *sentence) bool {
	lo, hi := orderOf(turn, s.tokStart), orderOf(turn, s.tokEnd)
	for _, f := range fs {
		if f.f == fTimeline && !f.deny && f.level >= 70 && f.order >= lo && f.order < hi {
			return true
		}
	}
	return false
}

// saidAnything reports whether a sentence already said something else:
// a need of its own, a denial, a job title or a disqualifier ("I'm the
// plant manager" answers "what brings you?" with who, not what).
func saidAnything(fs []finding, turn int, s *sentence) bool {
	lo, hi := orderOf(turn, s.tokStart), orderOf(turn, s.tokEnd)
	for _, f := range fs {
		if f.order < lo || f.order >= hi {
			continue
		}
		if f.deny || f.f == fNeed || f.f == fPain || f.f >= fJob || f.f == fSize || strings.HasPrefix(f.reading, "role: ") {
			return true
		}
	}
	return false
}

// unsureStarts and unsureWords open an unsure answer in the other
// languages: "no sé", "não sei", "je ne sais pas", "weiß nicht".
var (
	unsureStarts = setOfWords([]string{"no se", "no sabemos", "todavia no", "aun no", "nao sei", "ainda nao",
		"je ne", "pas encore", "on ne", "weiss nicht", "keine ahnung", "noch nicht", "pata nahi", "abhi pata"})
	unsureWords = setOfWords([]string{"depende", "quizas", "quiza", "talvez", "vielleicht", "kommt", "shayad", "peut"})
)

var greetings = setOfWords([]string{"hi", "hello", "hey", "namaste", "hii", "hiya", "thanks", "thank", "ok", "okay", "good", "morning", "evening",
	"hola", "buenas", "buenos", "gracias", "ola", "oi", "obrigado", "obrigada", "bom", "boa", "bonjour", "salut", "merci", "hallo", "guten", "danke", "servus", "moin"})

// locationFindings reads places: "in Whitefield", "near Hinjewadi", "trip
// to Kerala". A place is a capitalised word after a place preposition
// that is not a month, a weekday, a language or a product name.
func locationFindings(t *turnText, s *sentence, out []finding) []finding {
	toks := t.toks
	travel := false
	for i := s.tokStart; i < s.tokEnd; i++ {
		if toks[i].kind&kTravel != 0 {
			travel = true
		}
	}
	for i := s.tokStart; i+1 < s.tokEnd; i++ {
		n := toks[i].norm
		if !(n == "in" || n == "near" || n == "around" || (n == "to" && travel)) {
			continue
		}
		j := i + 1
		if toks[j].norm == "the" && j+1 < s.tokEnd {
			j++
		}
		if !toks[j].upper || toks[j].isNum || notPlace(toks[j].norm) {
			continue
		}
		end := j + 1
		for end < s.tokEnd && toks[end].upper && !notPlace(toks[end].norm) && toks[end].clause == toks[j].clause {
			end++
		}
		out = append(out, finding{f: fLocation, level: 75, reading: "location: " + t.text[toks[j].start:toks[end-1].end],
			turn: t.index, order: orderOf(t.index, i), quote: quoteOf(t, s, i, end), offScope: t.offScope})
		i = end - 1
	}
	return out
}

var travelWords = setOfWords([]string{"trip", "travel", "travelling", "traveling", "honeymoon", "go", "going", "visit", "move", "moving", "relocate", "relocating", "shift", "shifting", "fly", "flight", "flights", "tour", "holiday", "vacation", "vacations", "cruise"})

var notPlaceWords = setOfWords([]string{
	"i", "hindi", "english", "q1", "q2", "q3", "q4", "tamil", "telugu", "marathi", "bengali", "gujarati",
	"kannada", "malayalam", "arabic", "spanish", "french", "inr", "usd", "ai", "it", "hr", "crm", "erp",
})

func notPlace(w string) bool {
	return notPlaceWords[w] || classSet("month")[w] || classSet("weekday")[w] || classSet("system")[w]
}
