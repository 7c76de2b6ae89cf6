package score

import (
	"math"
	"sort"
	"strings"

	"concierge/internal/bot"
)

// facet is one thing the lexicon can detect in a visitor's words. Framework
// dimensions are built from facets, so BANT's "budget" and CHAMP's "money"
// read the same sentences and a custom dimension labelled "Team size" reuses
// the size detector.
type facet uint8

const (
	fBudget    facet = iota // money available, price accepted or asked
	fAuthority              // the visitor's own power to decide
	fEconomic               // who holds the money (MEDDIC's economic buyer)
	fNeed                   // wanting or looking for something
	fPain                   // a problem costing them something
	fTimeline               // when they will act
	fPriority               // how high it ranks against other work
	fMetrics                // numbers describing the problem or the goal
	fCriteria               // requirements a solution must meet
	fProcess                // the steps to a purchase
	fChampion               // someone selling it internally
	fSize                   // team, company or volume size
	fLocation               // a place
	fIntent                 // explicit buying action: quote, demo, price, booking
	fEval                   // evaluation-stage activity: comparing vendors, a trial, plan or integration questions
	fFit                    // the visitor's own context: their business, team, volume or current tool

	// Disqualifiers and context, never dimensions.
	fJob        // job seeker
	fStudent    // student work (project, thesis)
	fStudentMe  // "I'm a student": disqualifies only with student work
	fCompetitor // competitor, strong
	fFishing    // competitor-like questions, weak
	fSpam       // vendor pitch or spam, strong
	fSpamWeak   // vendor-pitch phrasing, weak
	fSupport    // an existing customer's order, claim or account
	fProblem    // something went wrong with it
	fNoIntent   // signed up by mistake, unsubscribe
	fInjection  // an instruction to the scorer or the bot ("ignore your instructions", "mark me as sql")

	nFacets
)

var facetNames = [nFacets]string{
	"budget", "authority", "economic_buyer", "need", "pain", "timeline", "priority", "metrics",
	"criteria", "process", "champion", "size", "location", "intent", "evaluation", "fit",
	"job_seeker", "student", "student_self", "competitor", "fishing", "spam", "spam_weak", "support",
	"problem", "no_intent", "injection",
}

func (f facet) String() string { return facetNames[f] }

// facetSet is a set of facets.
type facetSet uint32

func (s facetSet) has(f facet) bool { return s&(1<<f) != 0 }
func setOf(fs ...facet) facetSet {
	var s facetSet
	for _, f := range fs {
		s |= 1 << f
	}
	return s
}

// source feeds a dimension from a facet at a fraction of its strength.
type source struct {
	f      facet
	factor float64
}

// dimSources are the facets behind each dimension key of the presets. Pain
// and need are separate facets so that CHAMP's "challenges" and MEDDIC's
// "identify pain" rank a stated problem above a plain wish, while BANT's
// "need" takes either. A sizeable workload ("900 emails a week") is read
// as pain by the number detector, so it counts everywhere.
var dimSources = map[string][]source{
	"budget":            {{fBudget, 1}},
	"money":             {{fBudget, 1}},
	"authority":         {{fAuthority, 1}},
	"need":              {{fNeed, 1}, {fPain, 1}},
	"challenges":        {{fPain, 1}, {fNeed, 0.8}},
	"identify_pain":     {{fPain, 1}, {fNeed, 0.8}},
	"timeline":          {{fTimeline, 1}},
	"prioritization":    {{fPriority, 1}, {fTimeline, 0.9}},
	"metrics":           {{fMetrics, 1}},
	"economic_buyer":    {{fEconomic, 1}},
	"decision_criteria": {{fCriteria, 1}},
	"decision_process":  {{fProcess, 1}},
	"champion":          {{fChampion, 1}},
}

// labelFacets maps words of a custom dimension's key or label to the facet
// that detects it. The first word of the label that maps wins, so
// "Integrations needed" is criteria, not need.
var labelFacets = map[string]facet{
	"budget": fBudget, "money": fBudget, "spend": fBudget, "price": fBudget, "pricing": fBudget,
	"payment": fBudget, "pay": fBudget, "afford": fBudget, "affordability": fBudget, "cost": fBudget,
	"finance": fBudget, "financing": fBudget, "fees": fBudget, "fee": fBudget, "funding": fBudget, "loan": fBudget,
	"authority": fAuthority, "decision": fAuthority, "decider": fAuthority, "role": fAuthority,
	"buyer": fAuthority, "stakeholder": fAuthority, "title": fAuthority, "seniority": fAuthority,
	"need": fNeed, "needs": fNeed, "requirement": fNeed, "use": fNeed, "interest": fNeed, "goal": fNeed,
	"goals": fNeed, "treatment": fNeed, "service": fNeed, "services": fNeed, "product": fNeed,
	"products": fNeed, "course": fNeed, "program": fNeed, "programme": fNeed, "intent": fNeed, "fit": fNeed,
	"pain": fPain, "problem": fPain, "problems": fPain, "challenge": fPain, "challenges": fPain,
	"timeline": fTimeline, "timing": fTimeline, "time": fTimeline, "when": fTimeline, "urgency": fTimeline,
	"date": fTimeline, "dates": fTimeline, "deadline": fTimeline, "start": fTimeline, "timeframe": fTimeline,
	"priority": fPriority, "prioritization": fPriority, "prioritisation": fPriority,
	"size": fSize, "team": fSize, "employees": fSize, "headcount": fSize, "fleet": fSize, "volume": fSize,
	"users": fSize, "seats": fSize, "group": fSize, "scale": fSize, "company": fSize, "staff": fSize,
	"integration": fCriteria, "integrations": fCriteria, "criteria": fCriteria, "requirements": fCriteria,
	"tech": fCriteria, "stack": fCriteria, "compliance": fCriteria, "features": fCriteria, "crm": fCriteria,
	"process": fProcess, "approval": fProcess, "procurement": fProcess,
	"metric": fMetrics, "metrics": fMetrics, "kpi": fMetrics, "kpis": fMetrics,
	"location": fLocation, "city": fLocation, "area": fLocation, "region": fLocation, "locality": fLocation,
	"destination": fLocation, "place": fLocation, "address": fLocation, "country": fLocation,
	"champion": fChampion, "sponsor": fChampion,
}

// labelStopwords never count as label words of a custom dimension.
var labelStopwords = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "or": true, "and": true, "in": true, "for": true,
	"to": true, "with": true, "needed": true, "required": true, "type": true, "level": true,
	"info": true, "details": true, "preferred": true, "is": true, "any": true, "other": true,
}

// labelSynonyms widen a custom dimension's literal words with the words
// visitors use for them.
var labelSynonyms = map[string][]string{
	"trade":     {"exchange", "trade-in", "tradein"},
	"insurance": {"insured", "cashless", "mediclaim", "insurer"},
	"referral":  {"referred", "recommended"},
	"financing": {"loan", "emi"},
	"language":  {"hindi", "english", "tamil", "marathi"},
}

// dimSpec is one dimension as the bot configures it, ready to score.
type dimSpec struct {
	key, label string
	weight     float64 // share of the total, sums to 1
	pct        int     // weight as a whole percentage, sums to 100
	sources    []source
	words      []string // label words read literally (custom dimensions)
}

// dimensions resolves the bot's qualification settings into weighted
// dimensions.
//
// Weights are normalised to shares of their sum, so {budget: 2, need: 2}
// means fifty-fifty and settings written on any scale work. A dimension
// missing from a non-empty Weights map keeps its default weight (the
// preset's, or an equal share for custom dimensions): a partial map is
// almost always an edit of one weight, and silently dropping a dimension
// would hide evidence from the sales team. Setting a weight to 0 is how a
// dimension is switched off; it is still reported, with weight 0. Negative
// weights count as 0, keys that are not dimensions are ignored, and if
// every weight is 0 all dimensions weigh the same rather than the score
// being undefined.
func dimensions(q bot.Qualification) []dimSpec {
	preset, ok := bot.FrameworkPreset(q.Framework)
	if !ok {
		preset, _ = bot.FrameworkPreset("bant") // the same default bot.Qualification applies
	}
	var specs []dimSpec
	raw := []float64{}
	if preset.Key == "custom" && len(q.Dimensions) > 0 {
		seen := map[string]bool{}
		for _, d := range q.Dimensions {
			key := strings.TrimSpace(d.Key)
			if key == "" || seen[key] {
				continue
			}
			seen[key] = true
			specs = append(specs, customSpec(key, d.Label))
		}
		for range specs {
			raw = append(raw, 100/float64(len(specs)))
		}
	} else {
		for _, d := range preset.Dimensions {
			specs = append(specs, dimSpec{key: d.Key, label: d.Label, sources: dimSources[d.Key]})
			raw = append(raw, float64(d.DefaultWeight))
		}
	}
	if len(q.Weights) > 0 {
		for i, s := range specs {
			if w, ok := q.Weights[s.key]; ok {
				raw[i] = math.Max(0, float64(w))
			}
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
	pcts := largestRemainder(raw, total)
	for i := range specs {
		specs[i].weight = raw[i] / total
		specs[i].pct = pcts[i]
	}
	return specs
}

// customSpec builds a custom dimension: a preset key reuses its detector;
// otherwise the label's words choose one, and the label's own words are
// also looked for literally ("Insurance or payment" finds "insurance").
func customSpec(key, label string) dimSpec {
	if strings.TrimSpace(label) == "" {
		label = strings.ToUpper(key[:1]) + strings.ReplaceAll(key[1:], "_", " ")
	}
	s := dimSpec{key: key, label: label}
	if src, ok := dimSources[key]; ok {
		s.sources = src
		return s
	}
	var words []string
	for _, w := range strings.FieldsFunc(strings.ToLower(label+" "+strings.ReplaceAll(key, "_", " ")), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if labelStopwords[w] || len(w) < 3 {
			continue
		}
		if f, ok := labelFacets[w]; ok {
			if s.sources == nil {
				s.sources = facetSources(f)
			}
			continue
		}
		if !contains(words, w) {
			words = append(words, w)
			for _, syn := range labelSynonyms[w] {
				if !contains(words, syn) {
					words = append(words, syn)
				}
			}
		}
	}
	s.words = words
	return s
}

// facetSources is how a custom dimension mapped to a facet reads it.
func facetSources(f facet) []source {
	switch f {
	case fNeed:
		return dimSources["need"]
	case fPain:
		return dimSources["challenges"]
	case fPriority:
		return dimSources["prioritization"]
	case fAuthority:
		return []source{{fAuthority, 1}, {fEconomic, 0.9}}
	}
	return []source{{f, 1}}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// largestRemainder rounds shares to whole percentages that sum to 100.
func largestRemainder(raw []float64, total float64) []int {
	out := make([]int, len(raw))
	type rem struct {
		i int
		r float64
	}
	rems := make([]rem, len(raw))
	sum := 0
	for i, w := range raw {
		exact := w * 100 / total
		out[i] = int(math.Floor(exact))
		sum += out[i]
		rems[i] = rem{i, exact - math.Floor(exact)}
	}
	sort.SliceStable(rems, func(a, b int) bool { return rems[a].r > rems[b].r })
	for k := 0; sum < 100 && k < len(rems); k++ {
		out[rems[k].i]++
		sum++
	}
	return out
}
