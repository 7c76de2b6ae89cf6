package score

// Leave-one-set-out cross-validation (testdata/README.md). The labelled
// conversations come in independent sets, each from its own writers: the
// existing set, and the blind sets A to F, each split into a development
// half and a test half (set F's test half is kept outside the repository,
// so its fold holds the development half only). Hand-written rules cannot be refitted
// per fold, so for them the protocol is a ledger (README): every change
// records which test halves' misses it was derived from and its effect on
// each set, and is kept only if it helps sets it was not derived from.
//
// A fitted decision can be refitted per fold, and TestCrossValidation does
// that: an ordinal model over the rules' tier and the evidence (the
// facets' strongest levels, the disqualifying hints that did not reach a
// rule, the rules' own verdicts), fitted on three sets and scored on the
// fourth, for a small grid of settings, beside the rules alone. On the
// sets as they are it does not beat the rules (see README), so the scorer
// does not use it; the test stays so that the next set can be checked the
// same way.

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"testing"
)

// A labelled case as the decision sees it.
type sample struct {
	c    evalCase
	x    [nFeatures]float64
	rule int // the rules' tier rank (0 unqualified … 3 sql)
	y    int // the label's
	dq   bool
	set  string // the cross-validation fold: existing, A … E
	test bool   // a test half
}

// readiness is the decision's order: 0 unqualified … 3 sql.
func readiness(tier string) int { return 3 - tierRank(tier) }

func foldOf(c evalCase) (string, bool) {
	switch evalSet(c) {
	case setDev:
		return "A", false
	case setTest:
		return "A", true
	case setDevB:
		return "B", false
	case setTestB:
		return "B", true
	case setDevC:
		return "C", false
	case setTestC:
		return "C", true
	case setDevD:
		return "D", false
	case setTestD:
		return "D", true
	case setDevE:
		return "E", false
	case setTestE:
		return "E", true
	case setDevF:
		return "F", false
	case setTestF:
		return "F", true
	case setDevG:
		return "G", false
	case setTestG:
		return "G", true
	case setDevH:
		return "H", false
	case setTestH:
		return "H", true
	case setDevI:
		return "I", false
	case setTestI:
		return "I", true
	case setDevJ:
		return "J", false
	case setTestJ:
		return "J", true
	case setDevK:
		return "K", false
	case setTestK:
		return "K", true
	}
	return "existing", false
}

func samples(t testing.TB) []sample {
	var out []sample
	for _, c := range loadCases(t) {
		r, a := scoreRules(c.qualification(), c.input())
		s := sample{c: c, x: features(a, &r), rule: readiness(r.Tier), y: readiness(c.Expected)}
		_, s.dq = r.disqualifier()
		s.set, s.test = foldOf(c)
		out = append(out, s)
	}
	return out
}

// fitConfig is how one decision is fitted.
type fitConfig struct {
	lambda  float64 // L2 penalty on the weights
	inDev   float64 // weight of cases the lexicon was tuned on (existing, dev halves)
	maxMove int     // the decision moves the rules' tier at most this far (0: any)
}

// fitDecision minimises the all-threshold ordinal loss (a logistic loss at every
// cut, so a prediction two tiers off costs twice) plus λ‖w‖², by full-batch
// gradient descent from zero: deterministic.
func fitDecision(train []sample, cfg fitConfig) ([nFeatures]float64, [3]float64) {
	var w [nFeatures]float64
	cuts := [3]float64{-1, 0, 1}
	const steps, rate = 4000, 0.5
	total := 0.0
	for _, s := range train {
		total += weightOf(s, cfg)
	}
	for it := 0; it < steps; it++ {
		var gw [nFeatures]float64
		var gc [3]float64
		for _, s := range train {
			sw := weightOf(s, cfg) / total
			if sw == 0 {
				continue
			}
			z := 0.0
			for i := range w {
				z += w[i] * s.x[i]
			}
			for k := 0; k < 3; k++ {
				sign := -1.0
				if s.y > k {
					sign = 1
				}
				m := sign * (z - cuts[k])
				g := -sign / (1 + math.Exp(m)) * sw // d loss / d z
				for i := range w {
					gw[i] += g * s.x[i]
				}
				gc[k] -= g
			}
		}
		for i := range w {
			w[i] -= rate * (gw[i] + 2*cfg.lambda*w[i])
		}
		for k := range cuts {
			cuts[k] -= rate * gc[k]
		}
	}
	sort.Float64s(cuts[:])
	return w, cuts
}

func weightOf(s sample, cfg fitConfig) float64 {
	if s.dq {
		return 0 // a disqualifier decides alone
	}
	if s.test {
		return 1
	}
	return cfg.inDev
}

// predict is the decided tier rank of s.
func predict(s sample, w *[nFeatures]float64, cuts *[3]float64, maxMove int) int {
	if s.dq {
		return 0
	}
	_, k := decide(s.x, w, cuts)
	if maxMove > 0 {
		k = max(s.rule-maxMove, min(s.rule+maxMove, k))
	}
	return k
}

type cvTally struct {
	ok, n, two int
	lang       map[string]*tally
}

func (t *cvTally) add(s sample, got int) {
	t.n++
	if got == s.y {
		t.ok++
	}
	if d := got - s.y; d > 1 || d < -1 {
		t.two++
	}
	if t.lang == nil {
		t.lang = map[string]*tally{}
	}
	l := s.c.Language
	if l == "" {
		l = "en"
	}
	if t.lang[l] == nil {
		t.lang[l] = &tally{}
	}
	t.lang[l].add(got == s.y)
}

func (t *cvTally) String() string {
	return fmt.Sprintf("%3d/%3d %5.1f%% two-off %2d", t.ok, t.n, 100*float64(t.ok)/float64(max(1, t.n)), t.two)
}

func (t *cvTally) langs() string {
	var ks []string
	for k := range t.lang {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var b strings.Builder
	for _, k := range ks {
		fmt.Fprintf(&b, " %s %d/%d", k, t.lang[k].ok, t.lang[k].n)
	}
	return b.String()
}

var folds = []string{"existing", "A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K"}

// crossValidate holds out each fold in turn, fits on the others and
// tallies the held-out fold's dev and test halves.
func crossValidate(all []sample, cfg fitConfig) map[string]*cvTally {
	out := map[string]*cvTally{}
	for _, held := range folds {
		var train []sample
		for _, s := range all {
			if s.set != held {
				train = append(train, s)
			}
		}
		w, cuts := fitDecision(train, cfg)
		for _, s := range all {
			if s.set != held {
				continue
			}
			key := s.set + half(s)
			if out[key] == nil {
				out[key] = &cvTally{}
			}
			out[key].add(s, predict(s, &w, &cuts, cfg.maxMove))
		}
	}
	return out
}

func half(s sample) string {
	switch {
	case s.set == "existing":
		return ""
	case s.test:
		return " test"
	}
	return " dev"
}

// TestCrossValidation prints, per set and half, the rules' accuracy and
// two-tiers-off count, per language, and the leave-one-set-out results of
// the fitted decision for a small grid. Run with LEAD_CV=1 (10 to 30 s):
//
//	LEAD_CV=1 go test ./internal/lead/score -run TestCrossValidation -v
func TestCrossValidation(t *testing.T) {
	if os.Getenv("LEAD_CV") == "" {
		t.Skip("set LEAD_CV=1")
	}
	all := samples(t)
	base := map[string]*cvTally{}
	for _, s := range all {
		key := s.set + half(s)
		if base[key] == nil {
			base[key] = &cvTally{}
		}
		base[key].add(s, s.rule)
	}
	keys := []string{"existing", "A dev", "A test", "B dev", "B test", "C dev", "C test", "D dev", "D test", "E dev", "E test", "F dev"}
	line := func(name string, m map[string]*cvTally) {
		var b strings.Builder
		ok, n, two := 0, 0, 0
		for _, k := range keys {
			fmt.Fprintf(&b, " | %s %s", k, m[k])
			if strings.HasSuffix(k, "test") {
				ok, n, two = ok+m[k].ok, n+m[k].n, two+m[k].two
			}
		}
		t.Logf("%-28s tests %d/%d %.1f%% two-off %d%s", name, ok, n, 100*float64(ok)/float64(n), two, b.String())
	}
	line("rules", base)
	for _, k := range keys {
		t.Logf("rules, %-8s by language:%s", k, base[k].langs())
	}
	for _, lam := range []float64{0.003, 0.03} {
		for _, in := range []float64{0, 1} {
			for _, mm := range []int{0, 1} {
				cfg := fitConfig{lambda: lam, inDev: in, maxMove: mm}
				line(fmt.Sprintf("λ=%g in=%g move=%d", lam, in, mm), crossValidate(all, cfg))
			}
		}
	}
	// What the decision leans on, fitted on every set: mostly the rules'
	// own tier.
	w, cuts := fitDecision(all, fitConfig{lambda: 0.03, inDev: 1})
	var b strings.Builder
	for i, x := range w {
		fmt.Fprintf(&b, " %s %+.2f", featureNames[i], x)
	}
	t.Logf("fitted on all sets: cuts %.2f;%s", cuts, b.String())
}

// The calibrated decision: the tier the rules give is one reading of the
// evidence among several, and on conversations the rules were not tuned to
// it misleads in the same ways (an unqualified visitor with one support or
// vendor sentence lifted by a floor, a buyer whose request to buy the
// buying-signal rule did not see). The decision weighs the rule tier
// together with how strong each kind of evidence is (the facets'
// strongest levels, the disqualifying hints that did not reach a rule,
// the rules' own verdicts) in one ordinal model: z = Σ w·x, and the tier is
// how many of three cuts z passes. Evaluated by leave-one-set-out
// cross-validation only (TestCrossValidation); not used by Score.

// Features of the decision, each in [0, 1].
const (
	xRuleSQL = iota // the rules' tier
	xRuleMQL
	xRuleNurture
	xBudget // facets' strongest positive level / 100
	xAuthority
	xEconomic
	xNeed
	xPain
	xTimeline
	xPriority
	xMetrics
	xCriteria
	xProcess
	xChampion
	xSize
	xIntent
	xEval
	xFit
	xSupport // disqualifying hints present (not necessarily enough for a rule)
	xProblem
	xSpamWeak
	xFishing
	xStudentMe
	xBuying // the rules' verdicts
	xEvaluating
	xNotNow
	xNeedDenied
	xYearAway
	xSoon
	xRole
	xFloorOnly // nurture only by the engaged or substantive floor
	xNoBuyingFacet
	xLongTalk // log of the visitor's words, scaled
	xBehaviour
	nFeatures
)

var featureNames = [nFeatures]string{
	"rule sql", "rule mql", "rule nurture",
	"budget", "authority", "economic buyer", "need", "pain", "timeline", "priority", "metrics", "criteria",
	"process", "champion", "size", "intent", "evaluation", "fit",
	"support hint", "problem hint", "vendor hint", "fishing hint", "student hint",
	"buying signals", "evaluating", "not now", "need denied", "a year away", "soon", "gave a title",
	"floor only", "no buying facet", "long conversation", "behaviour",
}

// features reads the decision's inputs from the analysis and the rules'
// result.
func features(a *analysis, r *Result) [nFeatures]float64 {
	var x [nFeatures]float64
	switch r.Tier {
	case TierSQL:
		x[xRuleSQL] = 1
	case TierMQL:
		x[xRuleMQL] = 1
	case TierNurture:
		x[xRuleNurture] = 1
	}
	fb := bestOf(a)
	for f, i := range map[facet]int{fBudget: xBudget, fAuthority: xAuthority, fEconomic: xEconomic, fNeed: xNeed, fPain: xPain,
		fTimeline: xTimeline, fPriority: xPriority, fMetrics: xMetrics, fCriteria: xCriteria, fProcess: xProcess,
		fChampion: xChampion, fSize: xSize, fIntent: xIntent, fEval: xEval, fFit: xFit} {
		x[i] = float64(fb.level(f)) / 100
	}
	for f, i := range map[facet]int{fSupport: xSupport, fProblem: xProblem, fSpamWeak: xSpamWeak, fFishing: xFishing, fStudentMe: xStudentMe} {
		if fb.has[f] {
			x[i] = 1
		}
	}
	flag := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	_, buying := buyingSignals(a)
	_, eval := evaluating(a)
	_, nn := notNow(a)
	x[xBuying], x[xEvaluating], x[xNotNow] = flag(buying), flag(eval), flag(nn)
	x[xNeedDenied] = flag(latestNeedDenied(a))
	x[xYearAway] = flag(fb.yearAway())
	x[xSoon] = flag(fb.level(fTimeline) >= 80 && !fb.farOff())
	x[xRole] = flag(fb.role)
	for _, o := range r.Overrides {
		if o.Rule == "engaged" || o.Rule == "substantive" {
			x[xFloorOnly] = 1
		}
	}
	anyFacet := false
	for _, f := range []facet{fBudget, fNeed, fPain, fTimeline, fIntent, fEval, fCriteria, fMetrics, fProcess, fPriority} {
		anyFacet = anyFacet || fb.has[f]
	}
	x[xNoBuyingFacet] = flag(!anyFacet)
	words := 0
	for _, t := range a.turns {
		words += len(t.toks)
	}
	x[xLongTalk] = math.Min(1, math.Log1p(float64(words))/math.Log1p(200))
	x[xBehaviour] = float64(r.Adjustment) / 15
	return x
}

// decide is the ordinal model: z and the tier rank it gives (0
// unqualified, 1 nurture, 2 mql, 3 sql).
func decide(x [nFeatures]float64, w *[nFeatures]float64, cuts *[3]float64) (float64, int) {
	z := 0.0
	for i := range x {
		z += w[i] * x[i]
	}
	k := 0
	for _, c := range cuts {
		if z > c {
			k++
		}
	}
	return z, k
}

// disqualifyingRules are the overrides that end the rules' list (see
// applyOverrides): the decision leaves their verdict alone.
var disqualifyingRules = map[string]bool{
	"job_seeker": true, "student": true, "competitor": true, "spam": true, "existing_customer": true,
	"no_intent": true, "injection": true, "declined": true, "out_of_scope": true,
}

// disqualifier is the disqualifying override of r, if any.
func (r *Result) disqualifier() (Override, bool) {
	for _, o := range r.Overrides {
		if disqualifyingRules[o.Rule] {
			return o, true
		}
	}
	return Override{}, false
}
