package score

import (
	"fmt"

	"concierge/internal/bot"
)

// Overrides move the tier where the weighted score would mislead, and say
// so. Each moves the score with the tier (a cap to just below a threshold,
// a floor to it) so that Score and Tier agree and filters such as
// min_score keep working. They apply in this order:
//
//  1. Disqualifiers, whatever else the visitor says: a job seeker, a student
//     doing coursework, a competitor, spam, a vendor pitch or a partnership
//     request is not a buyer, and their words about "budget" or "urgency"
//     are about something else. Also unqualified: an existing customer with
//     a problem (an order, a claim) who shows no intent to buy, someone who
//     asks to be left alone ("signed up by mistake"), and a request the bot
//     answered is not offered ("sorry, we only sell apartments") when the
//     visitor states no other need. The bot's own handling of the request
//     is read too (routing.go): handed to support or claims, a refusal to
//     share internal data, a pointer to the vendor inbox. An instruction
//     to the bot or the scorer disqualifies whatever else is said. These
//     cap the score below the nurture threshold and end the list.
//  2. Buying signals: a stated need, authority or a budget, and a near-term
//     date or a request to buy, meet or get a quote make the lead at least
//     sql, the way a sales team defines it, even where the weighted sum
//     spreads the evidence thin. A booking, or a quote asked for a near
//     date, stands for the need and the authority of a visitor buying for
//     themselves.
//  3. Evaluating: a visitor evaluating the offering (comparing vendors,
//     asking for a trial or pilot, asking what a plan includes, whether it
//     integrates, what it costs, or asking for a demo) who also says who
//     they are or what they need (their business, team size, volume, the
//     tool they use, a need or a problem) is at least mql, as is a visitor
//     who states a need and asks about the offering in two or more turns,
//     unless they say
//     it is a year or more away (next year, someday: "no rush" only says
//     it is not urgent) or their latest word is "just browsing".
//  4. Browsing: when the visitor's latest word on their need is a denial
//     ("just browsing", "no real challenge"), the lead is at most nurture,
//     however senior they are; sales does not call someone who said they
//     are not buying.
//  5. Free plan: when the visitor's latest word on money is that they want
//     the free plan ("I'll start with free"), the lead is at most nurture:
//     a product-led sign-up, not a sales conversation yet. A plain "no
//     budget yet" does not trigger it; that visitor may still be worth a
//     call.
//  6. No stated need: without any positive need or pain (or at least a
//     sizeable workload such as "900 emails a week", a concrete request
//     to book or buy, or a quote asked for a near date, which state the
//     need by themselves, as they do for the buying signals), the lead is at most
//     mql; budget, authority and timeline without a problem to solve give
//     sales nothing to sell into.
//  7. Engaged: a visitor who engaged with the offering at all (asked a
//     price or a feature, stated a need, even "just browsing" or "not this
//     year") is at least nurture. That is what nurture is for; unqualified
//     is for no fit or no interest. A single curious question would
//     otherwise fall below the nurture threshold because the weighted sum
//     spreads it thin.
//  8. Substantive: a visitor who wrote a real message (a sentence of five
//     words or more, eight in all) that the lexicon could not read, and who
//     did not say no, is at least nurture too. Unqualified has to be
//     established, not assumed: a lead wrongly marked unqualified is lost,
//     one wrongly kept in nurture costs an e-mail.
//  9. Meeting booked: the visitor asked for sales time and sales will take
//     the call, so the lead is at least mql even if they said little.
func applyOverrides(r *Result, a *analysis, sig Signals, th bot.Thresholds) {
	set := func(rule, reason string, score int, ev []Evidence) {
		from := r.Tier
		r.Score = clamp(score, 0, 100)
		r.Tier = TierFor(r.Score, th)
		r.Overrides = append(r.Overrides, Override{Rule: rule, From: from, Tier: r.Tier, Reason: reason, Evidence: ev})
	}
	if rule, reason, ev, ok := disqualified(a); ok {
		if cev, conflict := conflictingEvaluation(a, rule, ev); conflict {
			// Both readings in the visitor's own words (conflict.go).
			from := r.Tier
			r.Score = th.Nurture
			r.Tier = TierFor(r.Score, th)
			r.Overrides = append(r.Overrides, Override{Rule: RuleConflict, From: from, Tier: r.Tier,
				Reason: fmt.Sprintf(ReasonConflictDisqualified, conflictReading(rule)), Evidence: append(append([]Evidence{}, ev...), cev...)})
			return
		}
		from := r.Tier
		r.Score = clamp(min(r.Score, th.Nurture-1), 0, 100)
		r.Tier = TierUnqualified
		r.Overrides = append(r.Overrides, Override{Rule: rule, From: from, Tier: r.Tier, Reason: reason, Evidence: ev})
		return
	}
	bookedEv, _ := bookedByBot(a)
	buyEv, buying := buyingSignals(a)
	if buying && r.Score < th.SQL {
		set(RuleBuyingSignals, "A stated need, authority or a budget, and a near-term date or a request to buy, meet or get a quote: at least sql.", th.SQL, buyEv)
	}
	evaluatingNow := false
	if ev, ok := evaluating(a); ok {
		evaluatingNow = true
		if r.Score < th.MQL {
			set(RuleEvaluating, "The visitor is evaluating the offering for a stated need or business of their own: at least mql.", th.MQL, ev)
		}
	}
	if r.Score >= th.MQL && (evaluatingNow || buying) {
		if rev, ok := routedAway(a); ok {
			set(RuleConflictRouted, ReasonConflictRouted, th.MQL-1, append(rev, buyEv...))
		}
	}
	if f, ok := notNow(a); ok && r.Score >= th.SQL {
		set(RuleNotNow, "The visitor's latest word on timing is that it is not now (no rush, next year): at most mql.", th.SQL-1, []Evidence{quoteEvidence(f)})
	}
	latestNeed, bestNeed := -1, -1
	for i, f := range a.findings {
		if f.f != fNeed && f.f != fPain {
			continue
		}
		if latestNeed < 0 || f.order > a.findings[latestNeed].order || (f.order == a.findings[latestNeed].order && f.deny) {
			latestNeed = i
		}
		if !f.deny && f.level >= 40 && (bestNeed < 0 || f.level > a.findings[bestNeed].level) {
			bestNeed = i
		}
	}
	if latestNeed >= 0 && a.findings[latestNeed].deny && r.Score >= th.MQL && !evaluatingNow && !(buying && actedAfter(buyEv, a.findings[latestNeed].turn)) {
		f := a.findings[latestNeed]
		set("browsing", "The visitor's latest word on their need is a denial, so at most nurture.", th.MQL-1, []Evidence{quoteEvidence(f)})
	}
	if f, ok := deferred(a); ok && r.Score >= th.MQL {
		set(RuleDeferred, ReasonDeferred, th.MQL-1, []Evidence{quoteEvidence(f)})
	}
	if f, ok := freePlanOnly(a); ok && r.Score >= th.MQL {
		set("free_plan", "The visitor's latest word on money is that they want the free plan, so at most nurture (a product-led sign-up, not a sales lead yet).", th.MQL-1, []Evidence{quoteEvidence(f)})
	}
	fb := bestOf(a)
	if bestNeed < 0 && r.Score >= th.SQL && !quantifiedWorkload(a) && !strongIntent(a) && len(bookedEv) == 0 && !quoteSoon(a, &fb) {
		set("no_stated_need", "No need or problem was stated, so at most mql.", th.SQL-1, nil)
	}
	if r.Score < th.Nurture {
		if f, ok := engagement(a); ok {
			set("engaged", "The visitor engaged with the offering, so at least nurture.", th.Nurture, []Evidence{quoteEvidence(f)})
		} else if q, turn, ok := substantive(a); ok {
			set("substantive", "The visitor described their situation in their own words and nothing disqualifies them, so at least nurture: unknown is not unqualified.", th.Nurture,
				[]Evidence{{Quote: q, Source: SourceVisitor, Turn: turn}})
		}
	}
	if sig.MeetingBooked && r.Score < th.MQL {
		ev := []Evidence{{Source: SourceSignal, Signal: "meeting booked", Turn: -1}}
		if bestNeed >= 0 {
			ev = append(ev, quoteEvidence(a.findings[bestNeed]))
		}
		set("meeting_booked", "The visitor booked a meeting: they asked for sales time, so at least mql.", th.MQL, ev)
	}
}

// disqualified finds the first disqualifier that applies.
func disqualified(a *analysis) (rule, reason string, ev []Evidence, ok bool) {
	var by [nFacets][]finding
	intent, buying := false, false
	serviceQuote := map[string]bool{} // sentences about an order, a claim, a fault
	for _, f := range a.findings {
		if !f.deny && (f.f == fSupport || f.f == fProblem) {
			serviceQuote[f.quote] = true
		}
	}
	for _, f := range a.findings {
		if f.deny {
			continue
		}
		by[f.f] = append(by[f.f], f)
		if f.f == fIntent && f.level >= 50 {
			intent = true
			// Buying intent, for the support rule: not "call me back"
			// and not a sentence about the order or the fault itself.
			if f.reading != "asks to be contacted" && !serviceQuote[f.quote] {
				buying = true
			}
		}
	}
	quotes := func(fs ...[]finding) []Evidence {
		var out []Evidence
		seen := map[string]bool{}
		for _, list := range fs {
			for _, f := range list {
				if len(out) < 3 && !seen[f.quote] {
					seen[f.quote] = true
					out = append(out, quoteEvidence(f))
				}
			}
		}
		return out
	}
	distinct := func(fs []finding) int {
		seen := map[int]bool{}
		for _, f := range fs {
			seen[f.order] = true
		}
		return len(seen)
	}
	evaluatingNow := false
	for _, f := range by[fEval] {
		if f.level >= 55 {
			evaluatingNow = true
		}
	}
	studentWork := len(by[fStudent]) > 0
	if !studentWork && len(by[fStudentMe]) > 0 {
		for _, t := range a.turns {
			for _, tk := range t.toks {
				if courseworkWords[tk.norm] {
					studentWork = true
				}
			}
		}
	}
	switch {
	case len(by[fSpam]) > 0:
		// First: a recruiter asking "are you hiring?" is selling, not
		// looking for a job.
		return "spam", "Spam, a vendor pitch or a partnership request, not a buyer: unqualified.", quotes(by[fSpam], by[fSpamWeak]), true
	case len(by[fJob]) > 0:
		return "job_seeker", "The visitor is looking for a job, not buying: unqualified.", quotes(by[fJob]), true
	case studentWork:
		return "student", "A student asking for help with coursework, not a buyer: unqualified.", quotes(by[fStudent], by[fStudentMe]), true
	case len(by[fCompetitor]) > 0 || distinct(by[fFishing]) >= 2:
		return "competitor", "A competitor fishing for information: unqualified.", quotes(by[fCompetitor], by[fFishing]), true
	case len(by[fSpam]) > 0 || distinct(by[fSpamWeak]) >= 2:
		return "spam", "Spam, a vendor pitch or a partnership request, not a buyer: unqualified.", quotes(by[fSpam], by[fSpamWeak]), true
	case len(by[fNoIntent]) > 0 && !intent:
		return "no_intent", "The visitor asked to be left alone: unqualified.", quotes(by[fNoIntent]), true
	case len(by[fSupport]) > 0 && (len(by[fProblem]) > 0 || distinct(by[fSupport]) >= 2) && !buying && !evaluatingNow && !pricesMore(a):
		return "existing_customer", "An existing customer with a service problem and no intent to buy: unqualified (route to support).", quotes(by[fSupport], by[fProblem]), true
	case holdsReference(by[fSupport]) && !evaluatingNow && !buyingBeyondOffer(a, serviceQuote):
		// The visitor named the number of their order, invoice or claim:
		// they came about something already bought. A yes to what the
		// bot offers in return (a reprint, a delivery day) buys nothing.
		return "existing_customer", "The visitor gave the number of something already bought (an order, an invoice, a claim) and asked to buy nothing new: unqualified (route to support).", quotes(by[fSupport], by[fProblem]), true
	case len(by[fInjection]) > 0:
		// Whatever business words come with it: a visitor who instructs
		// the bot or the scorer is testing or abusing it, and the claims
		// written next to the instruction were written for it.
		return "injection", "The visitor tried to instruct the bot or the scorer: unqualified, whatever buying words came with it.", quotes(by[fInjection]), true
	}
	if rule, ev, ok := serviceOnly(a, by); ok {
		if rule == "spam" {
			return rule, "The visitor's only business is a vendor pitch, and nothing they said outside it shows a need to buy: unqualified.", ev, true
		}
		return rule, "The visitor came about something already bought (an order, a fault, an invoice), and nothing they said outside it shows a need to buy: unqualified (route to support).", ev, true
	}
	// Routed: how the bot handled the request is structural evidence of
	// what the visitor came for, whatever business words they used
	// (routing.go). Handed to support or claims: an existing customer.
	// Refused internal or private data: fishing (or an injection attempt).
	// Sent to the vendor inbox: selling to the business.
	var routed route
	var routedEv []Evidence
	for _, m := range a.routes {
		m.kind &^= routeBooked // a booking disqualifies nobody
		if routed&m.kind == m.kind {
			continue
		}
		routed |= m.kind
		if q, turn, ok := longestSentence(a.turns[m.visit]); ok && len(routedEv) < 3 {
			routedEv = append(routedEv, Evidence{Quote: q, Source: SourceVisitor, Reading: "the request the bot " + routeReading(m.kind), Turn: turn})
		}
	}
	switch {
	case routed&routeRefuse != 0 && len(by[fInjection]) > 0:
		return "injection", "The visitor tried to instruct the bot to reveal what it may not share: unqualified, whatever buying words came with it.", append(quotes(by[fInjection]), routedEv...), true
	case routed&routeRefuse != 0 && !buyingAfter(a, routeRefuse):
		return "competitor", "The visitor asked for internal or other customers' information the bot would not share: fishing, not buying: unqualified.", append(routedEv, quotes(by[fFishing], by[fCompetitor])...), true
	case routed&routeNoOrders != 0 && !buyingAfter(a, routeNoOrders):
		// The bot refused to change a setting, a classification or a
		// rating, or to act on a command: the visitor gave it an order.
		return "injection", "The bot refused to act on the visitor's instruction (to change its settings, a classification or a rating): an attempt to steer it, not a purchase: unqualified.", append(routedEv, quotes(by[fInjection])...), true
	case routed&routeVendor != 0 && !evaluatingNow:
		return "spam", "The bot sent the visitor to its vendor or partnership inbox: they are selling to the business, not buying: unqualified.", append(routedEv, quotes(by[fSpamWeak])...), true
	case routed&routeNotForYou != 0 && !evaluatingNow && !buyingAfter(a, routeNotForYou):
		// The bot told the visitor its chat is for its customers, or that
		// the business is not buying what they offer: it took them for a
		// seller, a rival or an applicant, not a customer.
		return "spam", "The bot told the visitor its chat is for customers, or that the business is not buying what they offer: they are not a buyer: unqualified.", append(routedEv, quotes(by[fSpamWeak])...), true
	case routed&routeJobs != 0 && !intentAfter(a, routeJobs):
		// The bot read the visitor as an applicant and sent them to its
		// hiring process; "I can start Monday" and "how much do you pay"
		// are about the job.
		return "job_seeker", "The bot sent the visitor to its careers page or hiring process: looking for work, not buying: unqualified.", append(routedEv, quotes(by[fJob])...), true
	case routed&routeSupport != 0 && !evaluatingNow && !buysMore(a, serviceQuote),
		// A support case opened: an existing customer's request, unless
		// they went on to ask to buy something more (a customer with a
		// billing ticket who then weighs moving three more apps is a
		// lead again), or asked, before or after, for a quote, a meeting
		// or a contract for something new (buysMore).
		routed&routeTicket != 0 && !evaluatingNow && !buyingAfterTicket(a) && !buysMore(a, serviceQuote):
		return "existing_customer", "The bot handed the visitor's request to its support or claims team: an existing customer's service request, not a purchase: unqualified (route to support).", append(routedEv, quotes(by[fSupport], by[fProblem])...), true
	}
	// Declined: the visitor said no to the bot's offer (to book, call,
	// quote) and showed no need, problem or buying interest of their own.
	if f, ok := declined(a); ok {
		return "declined", "The visitor declined the offer and stated no need of their own: unqualified.", []Evidence{quoteEvidence(f)}, true
	}
	// Out of scope: every stated need was answered with "we don't offer that".
	inScope, outScope := 0, []finding{}
	for _, f := range a.findings {
		if (f.f == fNeed || f.f == fPain) && !f.deny && f.level >= 30 {
			if f.offScope {
				outScope = append(outScope, f)
			} else {
				inScope++
			}
		}
	}
	if len(outScope) > 0 && inScope == 0 {
		return "out_of_scope", "The bot answered that what the visitor wants is not offered, and no other need was stated: unqualified.", quotes(outScope), true
	}
	return "", "", nil, false
}

// declined finds the visitor's latest answer to an offer when it is a
// flat no and nothing else in the conversation shows interest ("just
// looking" is interest: not yet, rather than no).
func declined(a *analysis) (finding, bool) {
	var last *finding
	for i := range a.findings {
		f := &a.findings[i]
		if f.f == fIntent && (last == nil || f.order > last.order) {
			last = f
		}
	}
	if last == nil || !last.deny {
		return finding{}, false
	}
	for _, f := range a.findings {
		if f.deny && f.engage {
			return finding{}, false
		}
		if f.deny || f.level < 40 {
			continue
		}
		switch f.f {
		case fNeed, fPain, fIntent, fEval, fBudget, fTimeline:
			return finding{}, false
		}
	}
	return *last, true
}

// courseworkWords make "I'm a student" a disqualifier; without them the
// student may be enrolling, which is a sale.
var courseworkWords = setOfWords([]string{"project", "assignment", "research", "internship", "certificate", "thesis", "homework", "dissertation", "report",
	"proyecto", "tesis", "tarea", "tfg", "tfm", "practicas", "projeto", "tese", "tcc", "trabalho", "estagio", "projet", "memoire",
	"these", "stage", "devoir", "projekt", "bachelorarbeit", "masterarbeit", "hausarbeit", "praktikum", "studienarbeit",
	"expose", "rapport", "referat", "fragebogen", "umfrage", "informe", "exposicion", "questionnaire", "survey", "encuesta", "pesquisa"})

// intentAfter: a concrete request to buy, book or sign in a visitor turn
// after the bot routed the visitor with kind k (an applicant sent to the
// careers page who then books a service is a customer too; "I could start
// right away" before it was about the job).
func intentAfter(a *analysis, k route) bool {
	first := -1
	for _, m := range a.routes {
		if m.kind&k != 0 {
			first = a.turns[m.visit].index
			break
		}
	}
	for _, f := range a.findings {
		if f.turn > first && f.f == fIntent && !f.deny && f.level >= 75 && f.reading != "asks to be contacted" {
			return true
		}
	}
	return false
}

// buyingAfter: after the bot first routed the visitor with kind k, the
// visitor showed interest of their own: a request for a quote, a booking
// or a demo, an evaluation, a stated need. A buyer whose question the bot
// refused goes on to buy; a visitor fishing for internal information
// leaves or keeps fishing, and a bare price question is part of fishing.
func buyingAfter(a *analysis, k route) bool {
	first := -1
	for _, m := range a.routes {
		if m.kind&k != 0 {
			first = a.turns[m.visit].index
			break
		}
	}
	for _, f := range a.findings {
		if f.turn <= first || f.deny || f.offScope {
			continue
		}
		switch {
		case f.f == fIntent && f.level >= 55 && f.reading != "asks to be contacted",
			f.f == fEval && f.level >= 55,
			(f.f == fNeed || f.f == fPain) && f.level >= 60:
			return true
		}
	}
	return false
}

// buyingAfterTicket is buyingAfter for a support case the bot opened,
// where a yes to what the bot offers next ("plz jaldi", "ok, Thursday")
// answers the support team's offer, not one to buy.
func buyingAfterTicket(a *analysis) bool {
	b := *a
	b.findings = nil
	for _, f := range a.findings {
		if f.f == fIntent && (f.reading == "takes the offer with a time" || f.reading == "confirms when asked") {
			continue
		}
		b.findings = append(b.findings, f)
	}
	return buyingAfter(&b, routeTicket)
}

// strongIntent: a concrete request to buy, book or sign (not "call me
// back").
func strongIntent(a *analysis) bool {
	for _, f := range a.findings {
		if f.f == fIntent && !f.deny && f.level >= 75 && f.reading != "asks to be contacted" {
			return true
		}
	}
	return false
}

// routeReading says what the bot did, for the evidence's reading.
func routeReading(k route) string {
	switch {
	case k&routeJobs != 0:
		return "sent to its careers page"
	case k&routeRefuse != 0:
		return "refused to share"
	case k&routeNoOrders != 0:
		return "refused to act on"
	case k&routeVendor != 0:
		return "sent to its vendor inbox"
	case k&routeNotForYou != 0:
		return "turned away"
	case k&routeTicket != 0 && k&routeSupport == 0:
		return "opened a support case for"
	}
	return "handed to support"
}

// longestSentence is a turn's longest sentence, verbatim, and its turn.
func longestSentence(t *turnText) (string, int, bool) {
	longest := ""
	for _, s := range t.sents {
		if q := t.text[s.start:s.end]; len(q) > len(longest) {
			longest = q
		}
	}
	return longest, t.index, longest != ""
}

// serviceOnly is the single-hint version of the support and vendor rules:
// one sentence about an order, a fault or a vendor pitch is not enough for
// those rules, but when nothing the visitor said outside such sentences
// shows a purchase of their own (a need, a problem to solve, a request to
// buy, a quote asked for in a conversation that pitches nothing, or an
// evaluation), the conversation was about that sentence, and the
// money, titles and dates around it belong to it ("I'm the purchasing
// manager and need the corrected invoice by the end of the month"; "I paid
// 7,000 € for this and now it doesn't work, fix it urgently").
//
// Scope: evidence in a sentence that holds a fault or a pitch is read with
// it, unless the sentence also asks a price or weighs the offering (a
// buyer's sentence with a misread hint). After such a sentence, a bare
// need ("I need it corrected by Friday", "necesito que venga alguien hoy")
// is the fault's too; a need that says who the visitor is or what they
// would buy (their business, size, volume, requirements) is not. A sentence
// that only says "we are customers" taints nothing, so an existing
// customer who asks for more is still a buyer.
func serviceOnly(a *analysis, by [nFacets][]finding) (string, []Evidence, bool) {
	type sentence struct {
		turn  int
		quote string
	}
	context := map[sentence]bool{} // sentences that say who the visitor is or what they would buy
	buyerSentence := map[sentence]bool{}
	for _, f := range a.findings {
		if f.deny {
			continue
		}
		k := sentence{f.turn, f.quote}
		switch {
		case f.f == fFit && f.level >= 55, f.f == fSize, f.f == fMetrics && f.level >= 65, f.f == fCriteria && f.level >= 55:
			context[k] = true
		case f.f == fEval && f.level >= 45, f.f == fIntent && f.level >= 40 && f.reading == "asks the price":
			buyerSentence[k] = true
		}
	}
	tainted := map[sentence]bool{}
	firstTaint := -1
	for _, f := range append(append([]finding{}, by[fProblem]...), by[fSpamWeak]...) {
		k := sentence{f.turn, f.quote}
		if buyerSentence[k] {
			continue
		}
		tainted[k] = true
		if firstTaint < 0 || f.order < firstTaint {
			firstTaint = f.order
		}
	}
	if len(tainted) == 0 && len(by[fSupport]) == 0 {
		return "", nil, false
	}
	for _, f := range a.findings {
		k := sentence{f.turn, f.quote}
		if f.deny || f.offScope || tainted[k] {
			continue
		}
		switch {
		case (f.f == fNeed || f.f == fPain) && f.level >= 60:
			if firstTaint >= 0 && f.order > firstTaint && !context[k] {
				continue // a bare need after the fault is the fault's
			}
			return "", nil, false
		case f.f == fIntent && f.level >= 75 && f.reading != "asks to be contacted",
			f.f == fIntent && f.reading == "asks for a quote" && len(by[fSpamWeak]) == 0,
			f.f == fEval && f.level >= 45,
			f.f == fProcess && f.level >= 60:
			return "", nil, false
		}
	}
	if pricesMore(a) {
		return "", nil, false
	}
	var ev []Evidence
	for _, fs := range [][]finding{by[fSpamWeak], by[fSupport], by[fProblem]} {
		for _, f := range fs {
			if len(ev) < 3 {
				ev = append(ev, quoteEvidence(f))
			}
		}
	}
	if len(by[fSpamWeak]) > 0 {
		return "spam", ev, true
	}
	return "existing_customer", ev, true
}

// pricesMore: a customer asks what more would cost, in a turn that gives
// the size or volume to be bought and says nothing about an order or a
// fault ("40 camions de plus ... ça coûterait combien de tout mettre chez
// vous?", "compramos otra empresa con 30 camiones, ¿cuánto costaría?"):
// they weigh buying more, which is no support request.
func pricesMore(a *analysis) bool {
	sized, service := map[int]bool{}, map[int]bool{}
	for _, f := range a.findings {
		switch {
		case f.deny:
		case f.f == fSize, f.f == fMetrics && f.level >= 65:
			sized[f.turn] = true
		case f.f == fSupport, f.f == fProblem, f.f == fSpamWeak:
			service[f.turn] = true
		}
	}
	for _, f := range a.findings {
		if f.f == fIntent && !f.deny && f.reading == "asks the price" && sized[f.turn] && !service[f.turn] {
			return true
		}
	}
	return false
}

// actedAfter: some evidence of the buying signals comes from a visitor turn
// after turn. "Just looking" said first and a booking, a quote asked for
// or a yes to the bot's offer after it: the visitor's later act is their
// latest word, and the browsing cap no longer holds.
func actedAfter(ev []Evidence, turn int) bool {
	for _, e := range ev {
		if e.Source == SourceVisitor && e.Turn > turn {
			return true
		}
	}
	return false
}

// holdsReference: a support finding is the number of an order, invoice or
// claim the visitor holds.
func holdsReference(fs []finding) bool {
	for _, f := range fs {
		if f.reading == readReference {
			return true
		}
	}
	return false
}

// buyingBeyondOffer: buying intent that is neither about the order itself
// nor a yes to the bot's offer ("reprint please", "friday??").
func buyingBeyondOffer(a *analysis, serviceQuote map[string]bool) bool {
	for _, f := range a.findings {
		if f.f != fIntent || f.deny || f.level < 50 || serviceQuote[f.quote] {
			continue
		}
		switch f.reading {
		case "asks to be contacted", "takes the offer with a time", "confirms when asked", "takes the offer":
			continue
		}
		return true
	}
	return false
}

// buysMore: besides the request the bot handed to support, the visitor
// asked for a quote or to buy, book or sign, in a sentence of its own
// (not about the order or the fault): a customer who also buys more
// ("necesito el presupuesto para 20 licencias más", "quote is week bhej
// do, PO nikalna hai") is a lead, whichever came first.
func buysMore(a *analysis, serviceQuote map[string]bool) bool {
	for _, f := range a.findings {
		if f.f == fIntent && !f.deny && !f.offScope && !serviceQuote[f.quote] && purchaseReadings[f.reading] {
			return true
		}
	}
	return false
}

// purchaseReadings ask to buy something new: a quote, a meeting with
// sales, a trial, a contract. A yes to the support team's offer ("plz
// jaldi", a slot for the technician), what they already pay, or a call
// back are not among them.
var purchaseReadings = map[string]bool{
	"asks for a quote": true, "asks for the quote": true, "wants to buy": true, "commits to buy": true, "will sign": true,
	"asks for sales": true, "asks for the contract": true, "wants to close": true, "asks to meet": true, "asks to test it": true,
}
