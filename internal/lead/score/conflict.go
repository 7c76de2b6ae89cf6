package score

// The conflict rule (issue 17, against conversations two tiers off). Every
// unseen half so far had conversations two tiers off, and most were a
// conflict between two readings of the visitor's own words: a disqualifier
// (an existing customer's request, a job seeker, a seller or a rival the bot
// turned away) and an evaluation or a purchase. Whichever reading won, the
// loser was two tiers away. Where the rules find both readings and no
// explicit escape settles it, the conversation lands in nurture, one tier
// from unqualified and from mql, and the summary says why.
//
// Two directions:
//
//   - A disqualifier that won (conflictingEvaluation): an existing customer
//     who, in a turn of their own that carries no support or problem
//     reading, said what they buy for (a head count, a volume, their
//     business) and asked about the offering (a plan, a feature, a price,
//     a comparison); or a job seeker who, in a turn of their own, compares
//     vendors or asks for a trial. The other disqualifiers (a vendor
//     pitch, a student, a competitor, an instruction to the scorer, a
//     declined offer) stay unqualified: measured, they lost more sellers
//     and students than they saved buyers.
//   - An evaluation or purchase that won (routedAway): the bot refused to
//     share internal data, sent the visitor to its vendor inbox, told them
//     its chat is for customers or pointed them to its hiring process, and
//     the visitor's later interest (buyingAfter, evaluatingNow) lifted them
//     to mql or sql. Only a concrete request to buy or book after the
//     routing (intentAfter) still settles it as a purchase.
//
// Existing escapes that settle a conflict before it reaches here (buysMore,
// buyingAfterTicket, pricesMore, a buying intent against a support request)
// are kept: this rule only reads conversations the rules disqualified, or
// lifted past a routing.

// Rules of the conflict rule's overrides: RuleConflict sets a lead the
// rules disqualified to nurture and ends the list, as a disqualifier does;
// RuleConflictRouted caps at nurture a lead lifted past a routing.
const (
	RuleConflict       = "conflict"
	RuleConflictRouted = "conflict_routed"
)

// Summary lines of the conflict rule.
const (
	ReasonConflictDisqualified = "Two readings conflict: the visitor's words read as %s, and, in a turn of their own, as evaluating the offering for their own need: nurture, one tier from either."
	ReasonConflictRouted       = "Two readings conflict: the bot turned the visitor away (refused internal data, sent them to the vendor inbox, told them the chat is for customers or pointed them to its hiring process), yet their words read as evaluating or buying, and they asked to buy nothing concrete after it: nurture, one tier from either."
)

// conflictReading says, for the summary, what the disqualifier read.
func conflictReading(rule string) string {
	if rule == "job_seeker" {
		return "a job seeker's"
	}
	return "an existing customer's request"
}

// disqualifierReading is a finding that, by itself, reads the visitor as
// not buying: a turn holding one is not where an evaluation reading may be
// taken from.
func disqualifierReading(f facet) bool {
	switch f {
	case fSupport, fProblem, fJob, fSpam, fSpamWeak, fStudent, fStudentMe, fInjection, fCompetitor, fFishing, fNoIntent:
		return true
	}
	return false
}

// conflictingEvaluation: the rules disqualified the visitor by rule, but the
// visitor's own words, in a turn other than those holding a disqualifier
// reading or the disqualifier's evidence, read as evaluating. For an
// existing customer: a fit of their own (a head count, a volume of 65 or
// more, their business) and a question about the offering (criteria, a
// price or plan question, a comparison or a trial). For a job seeker: a
// comparison or a trial (evaluation 55 or more). The evidence is those
// turns' quotes.
func conflictingEvaluation(a *analysis, rule string, dqEv []Evidence) ([]Evidence, bool) {
	if rule != "existing_customer" && rule != "job_seeker" {
		return nil, false
	}
	dq := map[int]bool{}
	for _, e := range dqEv {
		if e.Source == SourceVisitor {
			dq[e.Turn] = true
		}
	}
	fitted := false
	for _, f := range a.findings {
		if f.deny {
			continue
		}
		if disqualifierReading(f.f) {
			dq[f.turn] = true
		}
		if f.f == fSize || (f.f == fMetrics && f.level >= 65) || (f.f == fFit && f.level >= 55) {
			fitted = true
		}
	}
	var ev []Evidence
	seen := map[string]bool{}
	for _, f := range a.findings {
		if f.deny || f.offScope || dq[f.turn] || seen[f.quote] {
			continue
		}
		evaluates := f.f == fEval && f.level >= 55
		if rule == "existing_customer" && fitted && (f.f == fCriteria || (f.f == fIntent && f.level >= 40 && f.reading != "asks to be contacted")) {
			evaluates = true
		}
		if evaluates && len(ev) < 3 {
			seen[f.quote] = true
			ev = append(ev, quoteEvidence(f))
		}
	}
	return ev, len(ev) > 0
}

// routedAway: the bot turned the visitor away (refused internal data, the
// vendor inbox, a chat for customers only, its hiring process) and the
// visitor asked to buy or book nothing concrete after it. The evidence is
// the visitor turn the bot answered so.
func routedAway(a *analysis) ([]Evidence, bool) {
	const away = routeRefuse | routeVendor | routeNotForYou | routeJobs
	var kinds route
	var ev []Evidence
	for _, m := range a.routes {
		if m.kind&away == 0 {
			continue
		}
		kinds |= m.kind & away
		if q, turn, ok := longestSentence(a.turns[m.visit]); ok && len(ev) < 2 {
			ev = append(ev, Evidence{Quote: q, Source: SourceVisitor, Reading: "the request the bot " + routeReading(m.kind&away), Turn: turn})
		}
	}
	if kinds == 0 || intentAfter(a, kinds) {
		return nil, false
	}
	return ev, true
}
