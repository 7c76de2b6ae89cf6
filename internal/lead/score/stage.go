package score

import "strings"

// The floors and caps of applyOverrides that read the buying stage: the
// buying signals (sql), evaluation (mql), "not now" and a purchase
// deferred (caps), and the engaged and substantive floors (nurture).
// applyOverrides (override.go) decides the order in which they apply.

// Rules of the floors that read the buying stage.
const (
	RuleBuyingSignals = "buying_signals"
	RuleEvaluating    = "evaluating"
	RuleNotNow        = "not_now"
	RuleDeferred      = "deferred"
)

// ReasonDeferred is the override reason of RuleDeferred: a purchase put
// off a year or more, or until something still to happen (savings, money
// coming in, coming back once a step is done).
const ReasonDeferred = "The visitor put the purchase off: a year or more away, or until something still to happen (saving up, coming back later): at most nurture."

// readNotNow is the reading of "not now", "agora não dá", "wir warten bis".
const readNotNow = "not now"

// deferred finds the visitor's latest word on timing when it puts the
// purchase a year or more away, or later, and the visitor also refused the
// present ("not now", "agora não dá", "nahi abhi nahi", "wir warten doch
// bis nächstes Jahr"), with no request to buy, book or meet after it. A
// far-off date alone is not enough: writers label "we'll see next year"
// mql as often as nurture, but a visitor who said not now and named a
// later time has deferred the purchase.
func deferred(a *analysis) (finding, bool) {
	fb := bestOf(a)
	t := fb.timeline
	if t == nil || !(refusesNow(t) || !t.deny && (t.level <= 25 || strings.HasSuffix(t.reading, "later"))) {
		return finding{}, false
	}
	refused, far := false, false
	for _, f := range a.findings {
		if f.f != fTimeline {
			continue
		}
		refused = refused || refusesNow(&f)
		far = far || (!f.deny && (f.level <= 25 || strings.HasSuffix(f.reading, "later")))
	}
	// A date or a span of well over a year ("in zwei jahren", "a few
	// years", "daqui a dois anos") defers the purchase without a refusal
	// of the present; "eventually" and "someday" name no time.
	if (!refused || !far) && !yearsAway(t) && t.reading != readReturnWhen && t.reading != readSaving && t.reading != readForLater {
		return finding{}, false
	}
	for _, f := range a.findings {
		if f.f == fIntent && !f.deny && f.level >= 75 && f.order > t.order && f.reading != "asks to be contacted" {
			return finding{}, false
		}
	}
	return *t, true
}

// readSaving is the reading of a visitor still saving for the purchase.
const readSaving = "still saving for it, later"

// readForLater is the reading of interest kept for later ("good to know
// for later", "pour plus tard", "für später").
const readForLater = "for later"

// yearsAway: the finding puts the purchase well over a year away, by a
// span or a date. A hedge does not bring it nearer ("peut-être qu'on en
// reparlera dans 18 mois", "maybe in two years"): uncertain and far is
// still far.
func yearsAway(t *finding) bool {
	r := strings.TrimPrefix(t.reading, "hedged: ")
	return !t.deny && t.level <= 10 && (r == "years away" || strings.HasPrefix(r, "timeline: ") || strings.HasPrefix(r, "date: "))
}

// refusesNow: a timeline finding that refuses the present: "not now", or
// the current period denied ("this isn't a project for this year", "no es
// para este mes", "nicht dieses Quartal"). "No rush" only says it is not
// urgent, and "no deadline" that there is no date yet.
func refusesNow(f *finding) bool {
	if !f.deny {
		return false
	}
	switch f.reading {
	case readNotNow, "denies: this year", "denies: this quarter", "denies: this month", "denies: this week":
		return true
	}
	return false
}

// notNow finds the visitor's latest word on timing when it says not now
// (a denial of any hurry, or a year or more away), unless a concrete
// request to buy, book or meet came after it.
func notNow(a *analysis) (finding, bool) {
	fb := bestOf(a)
	if fb.timeline == nil {
		return finding{}, false
	}
	t := *fb.timeline
	// "No rush", "next year", "someday", "later this year", "towards the
	// end of the year" say the purchase waits.
	if !(t.deny || t.level <= 35 || strings.HasSuffix(t.reading, "next year") || strings.HasSuffix(t.reading, "later")) {
		return finding{}, false
	}
	for _, f := range a.findings {
		if f.f == fIntent && !f.deny && f.level >= 75 && f.order > t.order {
			return finding{}, false
		}
	}
	return t, true
}

// facetBest is the strongest positive finding of each facet, and the
// latest timeline finding.
type facetBest struct {
	best     [nFacets]finding
	has      [nFacets]bool
	timeline *finding // the latest word on when
	role     bool     // the visitor gave their title
}

func bestOf(a *analysis) facetBest {
	var fb facetBest
	for i := range a.findings {
		f := &a.findings[i]
		if f.f == fTimeline && (fb.timeline == nil || f.order > fb.timeline.order) {
			fb.timeline = f
		}
		if f.deny || f.offScope || f.level <= 0 {
			continue
		}
		if f.f == fAuthority && strings.HasPrefix(f.reading, "role: ") {
			fb.role = true
		}
		if !fb.has[f.f] || f.level > fb.best[f.f].level {
			fb.best[f.f], fb.has[f.f] = *f, true
		}
	}
	return fb
}

// level is the strongest positive level of facet f, 0 if none.
func (fb *facetBest) level(f facet) int {
	if !fb.has[f] {
		return 0
	}
	return fb.best[f].level
}

// farOff: the visitor's latest word on timing puts it a year away or
// denies any hurry.
func (fb *facetBest) farOff() bool {
	t := fb.timeline
	return t != nil && (t.deny || t.level <= 25)
}

// yearAway: the visitor's latest word on timing puts it a year or more
// away ("next year", "someday"); "no rush" is not that, it only says the
// purchase is not urgent.
func (fb *facetBest) yearAway() bool {
	t := fb.timeline
	return t != nil && !t.deny && t.level <= 25
}

// buyingSignals applies the sales definition of sql: a need, authority
// or budget, and a near-term date or a request to buy, meet or quote.
// Authority, budget and timeline are read as their dimensions would be:
// "my boss approves" caps authority, and a later denial wins.
func buyingSignals(a *analysis) ([]Evidence, bool) {
	if ev, ok := bookedByBot(a); ok {
		return ev, true
	}
	fb := bestOf(a)
	need := max(fb.level(fNeed), fb.level(fPain))
	// A concrete request to book, visit, reserve or buy (level 75 or
	// more) states the need by itself: nobody reserves a wedding venue or
	// books a consultation they have no use for.
	requested := fb.level(fIntent) >= 75 || quoteSoon(a, &fb)
	if need < 60 && !(fb.level(fEval) >= 55 && fit(&fb)) && !requested {
		return nil, false
	}
	var ev []Evidence
	top := func(f facet) (int, Evidence) {
		d := scoreDimension(dimSpec{key: f.String(), label: f.String(), sources: []source{{f, 1}}}, a)
		if len(d.Evidence) == 0 || d.Status == StatusNegative {
			return 0, Evidence{}
		}
		return d.Score, d.Evidence[0]
	}
	auth, authEv := top(fAuthority)
	budget, budgetEv := top(fBudget)
	when, whenEv := top(fTimeline)
	soon := when >= 80 && !fb.farOff()
	switch {
	case auth >= 70:
		ev = append(ev, authEv)
	case budget >= 70:
		ev = append(ev, budgetEv)
	case soon && requested:
		// A concrete request (book, visit, quote, pay) for a near date:
		// the visitor is buying for themselves.
		ev = append(ev, quoteEvidence(fb.best[fIntent]))
	default:
		return nil, false
	}
	switch {
	case soon:
		ev = append(ev, whenEv)
	case fb.level(fIntent) >= 70:
		ev = append(ev, quoteEvidence(fb.best[fIntent]))
	default:
		return nil, false
	}
	needF := fNeed
	if fb.level(fPain) > fb.level(fNeed) {
		needF = fPain
	}
	if need < 60 {
		needF = fEval
		if !fb.has[fEval] || (requested && !(fb.level(fEval) >= 55 && fit(&fb))) {
			needF = fIntent
		}
	}
	return append([]Evidence{quoteEvidence(fb.best[needF])}, ev...), true
}

// bookedByBot: the bot confirmed a booking the visitor made ("you're
// booked for Thursday at 5:15", "Sie sind für morgen 8:30 eingetragen"):
// the visitor asked for the service and took a slot, which is what sql
// means for a visitor buying for themselves. The evidence is the visitor
// turn the bot confirmed, never the bot's words.
func bookedByBot(a *analysis) ([]Evidence, bool) {
	for _, m := range a.routes {
		if m.kind&routeBooked == 0 {
			continue
		}
		if q, turn, ok := longestSentence(a.turns[m.visit]); ok {
			return []Evidence{{Quote: q, Source: SourceVisitor, Reading: "booked it: the bot confirmed the booking", Strength: 90, Turn: turn}}, true
		}
	}
	return nil, false
}

// quoteSoon: a request for a quote or an estimate (not "call me") with a
// near date: "can someone come out next week and give us a quote", "einen
// verbindlichen Kostenvoranschlag, wir wollen diese Woche buchen". Like a
// booking, it states the need by itself.
func quoteSoon(a *analysis, fb *facetBest) bool {
	if fb.level(fTimeline) < 80 || fb.farOff() {
		return false
	}
	for _, f := range a.findings {
		if f.f == fIntent && !f.deny && f.level >= 70 && f.reading != "asks to be contacted" {
			return true
		}
	}
	return false
}

// fit: the visitor said who they are or what their workload is.
func fit(fb *facetBest) bool {
	return fb.level(fFit) >= 55 || fb.has[fSize] || fb.level(fMetrics) >= 65 || fb.role ||
		max(fb.level(fNeed), fb.level(fPain)) >= 65
}

// latestNeedDenied: the visitor's latest word on their need is a denial
// ("just browsing", "out of curiosity", "we'll do it ourselves for now").
func latestNeedDenied(a *analysis) bool {
	latest := -1
	for i, f := range a.findings {
		if (f.f == fNeed || f.f == fPain) && (latest < 0 || f.order > a.findings[latest].order || (f.order == a.findings[latest].order && f.deny)) {
			latest = i
		}
	}
	return latest >= 0 && a.findings[latest].deny
}

// ownContext: the visitor gave the size or nature of what they buy for
// (a head count, a volume, their business or their title).
func ownContext(fb *facetBest) bool {
	return fb.has[fSize] || fb.level(fFit) >= 55 || fb.level(fMetrics) >= 65 || fb.role
}

// evaluating: evaluation-stage interest with a fit, or a buying question
// (price, demo, quote) tied to a stated need; not far off.
func evaluating(a *analysis) ([]Evidence, bool) {
	fb := bestOf(a)
	need := max(fb.level(fNeed), fb.level(fPain))
	var interest facet
	switch {
	case fb.level(fEval) >= 45 && fit(&fb):
		interest = fEval
	case fb.level(fEval) >= 60 && need >= 60:
		interest = fEval
	case fb.level(fIntent) >= 45 && need >= 60 && !fb.yearAway():
		interest = fIntent
	case fb.level(fEval) >= 55 && fb.level(fIntent) >= 40 && !fb.yearAway() && len(a.turns) >= 2 && !latestNeedDenied(a):
		// Comparing offers (or having asked elsewhere) and asking this
		// business's price, plan or financing: shopping for it now.
		interest = fEval
	case fb.level(fIntent) >= 40 && ownContext(&fb) && !fb.yearAway() && len(a.turns) >= 2 && !latestNeedDenied(a):
		// A price, plan or financing question from a visitor who said
		// what they are buying for (a team of 20, 3,000 orders a month,
		// a family of four, their business) and kept the conversation
		// going: evaluation at their size, even without hurry ("no rush"),
		// unless it is a year away. A one-line price question is
		// curiosity.
		interest = fIntent
	case fb.level(fEval) >= 60 && askingTurns(a) >= 2 && !fb.yearAway() && !latestNeedDenied(a):
		// Comparing vendors or asking for a trial, and asking about the
		// offering in two or more turns ("comparing you with GEMS and
		// Dubai College" and then fees, transport, support): weighing it,
		// whatever need was put in words.
		interest = fEval
	case need >= 60 && askingTurns(a) >= 2 && !fb.yearAway() && !latestNeedDenied(a):
		// A stated need and questions about the offering in two or more
		// turns ("gibt es Abendkurse?", "isso cobre?", "se pagan
		// aparte?"): weighing it for that need, whatever the questions
		// are about.
		if fb.level(fNeed) >= fb.level(fPain) {
			interest = fNeed
		} else {
			interest = fPain
		}
	default:
		return nil, false
	}
	ev := []Evidence{quoteEvidence(fb.best[interest])}
	for _, f := range []facet{fPain, fNeed, fFit, fSize, fMetrics, fAuthority} {
		if fb.has[f] && fb.best[f].quote != ev[0].Quote {
			ev = append(ev, quoteEvidence(fb.best[f]))
			break
		}
	}
	return ev, true
}

// askingTurns counts the visitor turns that ask something.
func askingTurns(a *analysis) int {
	n := 0
	for _, t := range a.turns {
		for _, s := range t.sents {
			if s.question {
				n++
				break
			}
		}
	}
	return n
}

// freePlanOnly finds a latest budget word that is a free-plan wish.
func freePlanOnly(a *analysis) (finding, bool) {
	latest := -1
	for i, f := range a.findings {
		if f.f == fBudget && (latest < 0 || f.order > a.findings[latest].order) {
			latest = i
		}
	}
	if latest < 0 || !a.findings[latest].free {
		return finding{}, false
	}
	return a.findings[latest], true
}

// quantifiedWorkload reports a volume the visitor gave for their own work
// ("900 emails a week"), which states the problem's size if not its name.
func quantifiedWorkload(a *analysis) bool {
	for _, f := range a.findings {
		if f.f == fMetrics && !f.deny && f.level >= 65 {
			return true
		}
	}
	return false
}

// engagementFacets are the facets that show interest in the offering.
var engagementFacets = setOf(fNeed, fPain, fBudget, fTimeline, fPriority, fIntent, fCriteria, fMetrics, fProcess, fEval)

// engagement finds the strongest sign of interest: a positive finding on a
// buying facet, or a "not yet" denial.
func engagement(a *analysis) (finding, bool) {
	best, ok := finding{}, false
	for _, f := range a.findings {
		if !engagementFacets.has(f.f) || (f.deny && !f.engage) || (!f.deny && f.level < 15) || f.offScope {
			continue
		}
		if !ok || f.level > best.level {
			best, ok = f, true
		}
	}
	return best, ok
}

// substantive returns the visitor's longest sentence and its turn if they
// wrote enough to be a real conversation and never flatly said no.
func substantive(a *analysis) (string, int, bool) {
	for _, f := range a.findings {
		if f.deny && !f.engage && (f.f == fNeed || f.f == fPain) {
			return "", 0, false
		}
	}
	words, longest, turn := 0, "", -1
	for _, t := range a.turns {
		for _, s := range t.sents {
			n := s.tokEnd - s.tokStart
			words += n
			if q := t.text[s.start:s.end]; n >= 5 && len(q) > len(longest) {
				longest, turn = q, t.index
			}
		}
	}
	if words < 8 || turn < 0 {
		return "", 0, false
	}
	return longest, turn, true
}

func quoteEvidence(f finding) Evidence {
	return Evidence{Quote: f.quote, Source: SourceVisitor, Reading: f.reading, Strength: f.level, Negative: f.deny, Turn: f.turn}
}
