package refine

import (
	"fmt"
	"math"
	"strings"

	"concierge/internal/bot"
	"concierge/internal/lead/score"
)

// apply validates the proposal against the conversation and the
// deterministic result and builds the refined result. It returns how many
// dimensions changed score.
func apply(q bot.Qualification, in score.Input, turns []turn, base score.Result, p proposal) (score.Result, int) {
	dims := make([]score.Dimension, len(base.Dimensions))
	changed := 0
	noRise := injected(turns)
	for i, d := range base.Dimensions {
		dims[i] = refineDimension(d, p, turns, noRise)
		if dims[i].Score != d.Score {
			changed++
		}
	}
	res := base
	res.Version = strings.TrimSuffix(base.Version, VersionSuffix) + VersionSuffix
	if changed == 0 {
		// Nothing moved: the deterministic result stands exactly, marked as
		// reviewed.
		res.Summary = base.Summary + " Reviewed by a language model, which changed nothing."
		return res, 0
	}
	res.Dimensions = dims
	rescore(&res, q, in, base)
	res.Summary = summarise(&res) + fmt.Sprintf(" Refined by a language model from %s, score %d.", strings.ToUpper(base.Tier), base.Score)
	return res, changed
}

// refineDimension applies the model's proposal for one dimension within
// its bounds: a rise needs a verbatim visitor quote (for a denied
// dimension, one later than the denial) and no dimension moves more than
// MaxShift points. With noRise, no dimension rises at all.
func refineDimension(d score.Dimension, p proposal, turns []turn, noRise bool) score.Dimension {
	pd, ok := p.find(d)
	if !ok || !pd.hasScore {
		return d
	}
	var quotes []located
	seen := map[string]bool{}
	for _, e := range pd.evidence {
		if len(quotes) == maxQuotes {
			break
		}
		l, ok := locate(e, turns)
		if !ok || seen[fmt.Sprint(l.turn, l.quote)] {
			continue
		}
		seen[fmt.Sprint(l.turn, l.quote)] = true
		quotes = append(quotes, l)
	}
	denied := d.Status == score.StatusNegative
	denialTurn := -1
	if denied && len(d.Evidence) > 0 {
		denialTurn = d.Evidence[0].Turn
	}
	backed := false
	for _, l := range quotes {
		if !denied || l.turn > denialTurn {
			backed = true
		}
	}
	s := clamp(pd.score, 0, 100)
	if s > d.Score && (!backed || noRise) {
		s = d.Score
	}
	s = clamp(s, d.Score-MaxShift, d.Score+MaxShift)
	if s == d.Score {
		return d
	}

	out := d
	out.Score = s
	stillDenied := denied && s <= d.Score
	switch {
	case stillDenied && s < 40:
		out.Status = score.StatusNegative
	case s >= 70:
		out.Status = score.StatusConfirmed
	case s >= 40:
		out.Status = score.StatusPartial
	case s > 0:
		out.Status = score.StatusWeak
	default:
		out.Status = score.StatusUnknown
	}
	ev := make([]score.Evidence, 0, 5)
	have := map[string]bool{}
	for _, l := range quotes {
		reading := "model"
		if l.reading != "" {
			reading = "model: " + l.reading
		}
		have[fmt.Sprint(l.turn, l.quote)] = true
		ev = append(ev, score.Evidence{Quote: l.quote, Source: score.SourceVisitor, Reading: reading, Strength: s, Turn: l.turn})
	}
	if s < d.Score {
		// A lowered score keeps the deterministic evidence first: the model
		// weighed it differently, it did not find other words.
		ev = ev[:0]
		clear(have)
	}
	for _, e := range d.Evidence {
		if len(ev) == 5 {
			break
		}
		if !have[fmt.Sprint(e.Turn, e.Quote)] {
			ev = append(ev, e)
		}
	}
	if s < d.Score {
		for _, l := range quotes {
			if len(ev) == 5 {
				break
			}
			if !have[fmt.Sprint(l.turn, l.quote)] {
				reading := "model"
				if l.reading != "" {
					reading = "model: " + l.reading
				}
				ev = append(ev, score.Evidence{Quote: l.quote, Source: score.SourceVisitor, Reading: reading, Strength: s, Turn: l.turn})
			}
		}
	}
	out.Evidence = ev
	out.Summary = dimensionSummary(out) + fmt.Sprintf(" (Model: %d → %d.)", d.Score, s)
	return out
}

func clamp(v, lo, hi int) int { return max(lo, min(hi, v)) }

// dimensionSummary is score's wording of a dimension's summary.
func dimensionSummary(d score.Dimension) string {
	if len(d.Evidence) == 0 || d.Status == score.StatusUnknown {
		return "No evidence in the conversation."
	}
	top := d.Evidence[0]
	switch d.Status {
	case score.StatusNegative:
		return fmt.Sprintf("Denied: “%s”", top.Quote)
	case score.StatusConfirmed:
		return fmt.Sprintf("Confirmed (%s): “%s”", top.Reading, top.Quote)
	case score.StatusPartial:
		return fmt.Sprintf("Partly shown (%s): “%s”", top.Reading, top.Quote)
	}
	return fmt.Sprintf("Only a hint (%s): “%s”", top.Reading, top.Quote)
}

// summarise is score's summary paragraph.
func summarise(r *score.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, score %d.", strings.ToUpper(r.Tier), r.Score)
	var parts []string
	for _, d := range r.Dimensions {
		if d.Weight == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s (%d)", d.Label, d.Status, d.Score))
	}
	if len(parts) > 0 {
		b.WriteString(" " + strings.Join(parts, ", ") + ".")
	}
	if r.Adjustment != 0 {
		var sig []string
		for _, s := range r.Signals {
			sig = append(sig, s.Signal)
		}
		fmt.Fprintf(&b, " Behaviour %+d (%s).", r.Adjustment, strings.Join(sig, ", "))
	}
	for _, o := range r.Overrides {
		b.WriteString(" " + o.Reason)
	}
	return b.String()
}

// thresholds are score's: the bot's, or the defaults when unset or out of
// order.
func thresholds(q bot.Qualification) bot.Thresholds {
	if t := q.Thresholds; t != nil && t.SQL > t.MQL && t.MQL > t.Nurture && t.Nurture >= 0 && t.SQL <= 100 {
		return *t
	}
	return bot.DefaultThresholds
}

// weights are score's exact dimension weights (fractions summing to 1),
// aligned with dims: the preset's (or a custom framework's equal) weights,
// replaced by the bot's where it set them, normalised. Should the
// dimensions not be the ones q describes, their rounded percentages are
// used instead.
func weights(q bot.Qualification, dims []score.Dimension) []float64 {
	preset, ok := bot.FrameworkPreset(q.Framework)
	if !ok {
		preset, _ = bot.FrameworkPreset("bant")
	}
	var keys []string
	var raw []float64
	if preset.Key == "custom" && len(q.Dimensions) > 0 {
		seen := map[string]bool{}
		for _, d := range q.Dimensions {
			key := strings.TrimSpace(d.Key)
			if key == "" || seen[key] {
				continue
			}
			seen[key] = true
			keys = append(keys, key)
		}
		for range keys {
			raw = append(raw, 100/float64(len(keys)))
		}
	} else {
		for _, d := range preset.Dimensions {
			keys = append(keys, d.Key)
			raw = append(raw, float64(d.DefaultWeight))
		}
	}
	for i, k := range keys {
		if w, ok := q.Weights[k]; ok {
			raw[i] = math.Max(0, float64(w))
		}
	}
	match := len(keys) == len(dims)
	for i := 0; match && i < len(keys); i++ {
		match = keys[i] == dims[i].Name
	}
	if !match {
		raw = raw[:0]
		for _, d := range dims {
			raw = append(raw, math.Max(0, float64(d.Weight)))
		}
	}
	total := 0.0
	for _, w := range raw {
		total += w
	}
	if total == 0 {
		for i := range raw {
			raw[i] = 1
		}
		total = float64(len(raw))
	}
	out := make([]float64, len(raw))
	for i, w := range raw {
		out[i] = w / total
	}
	return out
}

// total is score's weighted sum plus the behavioural adjustment, before
// overrides.
func total(ws []float64, dims []score.Dimension, adjustment int) int {
	sum := 0.0
	for i, d := range dims {
		sum += ws[i] * float64(d.Score)
	}
	return clamp(int(math.Round(sum))+adjustment, 0, 100)
}

// Rules of score's overrides (override.go) that this package re-applies.
const (
	ruleBrowsing    = "browsing"
	ruleFreePlan    = "free_plan"
	ruleNoNeed      = "no_stated_need"
	ruleEngaged     = "engaged"
	ruleSubstantive = "substantive"
	ruleMeeting     = "meeting_booked"
)

// disqualifiers are score's rules that make a lead unqualified whatever
// its score.
var disqualifiers = map[string]bool{
	"spam": true, "job_seeker": true, "student": true, "competitor": true,
	"no_intent": true, "existing_customer": true, "out_of_scope": true, "injection": true, "declined": true,
}

var conditional = map[string]bool{
	ruleBrowsing: true, ruleFreePlan: true, ruleNoNeed: true, ruleEngaged: true, ruleSubstantive: true, ruleMeeting: true,
	score.RuleBuyingSignals: true, score.RuleEvaluating: true, score.RuleNotNow: true, score.RuleDeferred: true,
	score.RuleConflictRouted: true,
}

// onlyWhereFired is the test of a cap that refinement cannot make: the cap
// applies again where the rules fired it, and nowhere else.
func onlyWhereFired() (bool, []score.Evidence) { return false, nil }

// unknownOverride reports a rule in base that refinement cannot honour.
// A rule that made the lead unqualified is honoured as a disqualifier even
// when this package does not know its name.
func unknownOverride(base score.Result) (string, bool) {
	for _, o := range base.Overrides {
		if !conditional[o.Rule] && !disqualifiers[o.Rule] && o.Rule != score.RuleConflict && o.Tier != score.TierUnqualified {
			return o.Rule, true
		}
	}
	return "", false
}

// The dimension keys that carry a need or a pain (score's fNeed and
// fPain), money, and a sized workload.
var (
	needKeys     = map[string]bool{"need": true, "challenges": true, "identify_pain": true}
	moneyKeys    = map[string]bool{"budget": true, "money": true}
	metricsKeys  = map[string]bool{"metrics": true}
	timelineKeys = map[string]bool{"timeline": true, "prioritization": true}
)

// Reasons of the overrides this package may have to apply although the
// deterministic result did not (score's wording).
const (
	reasonBrowsing = "The visitor's latest word on their need is a denial, so at most nurture."
	reasonFreePlan = "The visitor's latest word on money is that they want the free plan, so at most nurture (a product-led sign-up, not a sales lead yet)."
	reasonNoNeed   = "No need or problem was stated, so at most mql."
	reasonEngaged  = "The visitor engaged with the offering, so at least nurture."
	reasonMeeting  = "The visitor booked a meeting: they asked for sales time, so at least mql."
	reasonNotNow   = "The visitor's latest word on timing is that it is not now (no rush, next year): at most mql."
	reasonDeferred = score.ReasonDeferred
)

// rescore recomputes Score, Tier and Overrides of r, whose dimensions were
// refined, from base.
//
// Overrides are facts about the visitor's words, which only the
// deterministic scorer reads, so they are replayed in score's order: a
// disqualifier always applies; a cap or floor that fired on base applies
// again when the refined score is on the wrong side of it; a meeting
// booked is a signal and applies whenever the score is below mql. A
// conditional rule that did not fire on base only because base's score
// was on the safe side of its threshold is decided from the refined
// breakdown instead: a need dimension still denied (browsing), a timeline
// at 25 or less that still cites the visitor's "not now" (deferred), a
// free-plan wish among the money evidence the model did not overrule
// (free plan), no need dimension at 40 or more and no metrics at 65
// (no stated need), and positive visitor evidence (engaged). With base's
// own dimensions this reproduces base exactly.
func rescore(r *score.Result, q bot.Qualification, in score.Input, base score.Result) {
	th := thresholds(q)
	ws := weights(q, base.Dimensions)
	b := total(ws, base.Dimensions, base.Adjustment) // base's running score
	s := total(ws, r.Dimensions, r.Adjustment)       // the refined one
	r.Overrides = []score.Override{}
	set := func(rule, reason string, to int, ev []score.Evidence) {
		from := score.TierFor(s, th)
		s = clamp(to, 0, 100)
		r.Overrides = append(r.Overrides, score.Override{Rule: rule, From: from, Tier: score.TierFor(s, th), Reason: reason, Evidence: ev})
	}
	fired := map[string]score.Override{}
	for _, o := range base.Overrides {
		if o.Rule == score.RuleConflict {
			// A disqualifier and an evaluation both read in the
			// visitor's words: nurture, whatever the refined score.
			from := score.TierFor(s, th)
			r.Score = th.Nurture
			r.Tier = score.TierFor(r.Score, th)
			r.Overrides = append(r.Overrides, score.Override{Rule: o.Rule, From: from, Tier: r.Tier, Reason: o.Reason, Evidence: o.Evidence})
			return
		}
		if !conditional[o.Rule] {
			from := score.TierFor(s, th)
			r.Score = clamp(min(s, th.Nurture-1), 0, 100)
			r.Tier = score.TierUnqualified
			r.Overrides = append(r.Overrides, score.Override{Rule: o.Rule, From: from, Tier: r.Tier, Reason: o.Reason, Evidence: o.Evidence})
			return
		}
		fired[o.Rule] = o
	}

	// The stage floors (buying signals: sql, evaluating: mql) read the
	// visitor's words, which only score reads: one that fired on base
	// applies again wherever the refined score is below it.
	for _, fl := range []struct {
		rule string
		to   int
	}{{score.RuleBuyingSignals, th.SQL}, {score.RuleEvaluating, th.MQL}} {
		if o, ok := fired[fl.rule]; ok {
			if s < fl.to {
				set(o.Rule, o.Reason, fl.to, o.Evidence)
			}
			b = max(b, fl.to)
		}
	}

	// A cap: at most limit-1 once the score reaches limit.
	capRule := func(rule, reason string, limit int, holds func() (bool, []score.Evidence)) {
		if o, ok := fired[rule]; ok {
			if s >= limit {
				set(rule, o.Reason, limit-1, o.Evidence)
			}
			b = limit - 1
			return
		}
		if b >= limit || s < limit {
			return // base's score tested the rule and it did not hold, or the cap would not bite
		}
		if ok, ev := holds(); ok {
			set(rule, reason, limit-1, ev)
		}
	}
	// The conflict rule's cap reads the bot's routing and the visitor's
	// words, which only score reads: it applies again where it fired, and
	// refinement never fires it anew.
	capRule(score.RuleConflictRouted, "", th.MQL, onlyWhereFired)
	capRule(score.RuleNotNow, reasonNotNow, th.SQL, func() (bool, []score.Evidence) {
		for _, d := range r.Dimensions {
			if d.Name == "timeline" && d.Status == score.StatusNegative {
				return true, firstEvidence(d)
			}
		}
		return false, nil
	})
	capRule(ruleBrowsing, reasonBrowsing, th.MQL, func() (bool, []score.Evidence) {
		for _, d := range r.Dimensions {
			if needKeys[d.Name] && d.Status == score.StatusNegative {
				return true, firstEvidence(d)
			}
		}
		return false, nil
	})
	capRule(score.RuleDeferred, reasonDeferred, th.MQL, func() (bool, []score.Evidence) {
		// The timeline the model left weak or denied still holds the
		// visitor's "not now" beside a far-off date.
		for _, d := range r.Dimensions {
			if !timelineKeys[d.Name] || d.Score > 25 {
				continue
			}
			for _, e := range d.Evidence {
				if strings.Contains(e.Reading, "not now") {
					return true, []score.Evidence{e}
				}
			}
		}
		return false, nil
	})
	capRule(ruleFreePlan, reasonFreePlan, th.MQL, func() (bool, []score.Evidence) {
		for i, d := range r.Dimensions {
			if !moneyKeys[d.Name] || d.Score > base.Dimensions[i].Score {
				continue
			}
			for _, e := range base.Dimensions[i].Evidence {
				if strings.Contains(e.Reading, "free plan") {
					return true, []score.Evidence{e}
				}
			}
		}
		return false, nil
	})
	capRule(ruleNoNeed, reasonNoNeed, th.SQL, func() (bool, []score.Evidence) {
		for _, d := range r.Dimensions {
			if (needKeys[d.Name] && d.Score >= 40) || (metricsKeys[d.Name] && d.Score >= 65) {
				return false, nil
			}
		}
		return true, nil
	})

	// Floors: at least nurture for an engaged visitor.
	floored := false
	for _, rule := range []string{ruleEngaged, ruleSubstantive} {
		if o, ok := fired[rule]; ok && !floored {
			floored = true
			if s < th.Nurture {
				set(rule, o.Reason, th.Nurture, o.Evidence)
			}
			b = th.Nurture
		}
	}
	if !floored && b >= th.Nurture && s < th.Nurture {
		if e, ok := strongestVisitorEvidence(base.Dimensions); ok {
			set(ruleEngaged, reasonEngaged, th.Nurture, []score.Evidence{e})
		}
	}

	if in.Signals.MeetingBooked && s < th.MQL {
		ev := []score.Evidence{{Source: score.SourceSignal, Signal: "meeting booked", Turn: -1}}
		reason := reasonMeeting
		if o, ok := fired[ruleMeeting]; ok {
			ev, reason = o.Evidence, o.Reason
		}
		set(ruleMeeting, reason, th.MQL, ev)
	}
	r.Score = s
	r.Tier = score.TierFor(s, th)
}

func firstEvidence(d score.Dimension) []score.Evidence {
	if len(d.Evidence) == 0 {
		return nil
	}
	return []score.Evidence{d.Evidence[0]}
}

// strongestVisitorEvidence is base's strongest positive visitor quote.
func strongestVisitorEvidence(dims []score.Dimension) (score.Evidence, bool) {
	var best score.Evidence
	ok := false
	for _, d := range dims {
		for _, e := range d.Evidence {
			if e.Source == score.SourceVisitor && !e.Negative && e.Strength >= 15 && (!ok || e.Strength > best.Strength) {
				best, ok = e, true
			}
		}
	}
	return best, ok
}
