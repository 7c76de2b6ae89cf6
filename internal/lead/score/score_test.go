package score

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"concierge/internal/bot"
)

func TestWeightsNormalisation(t *testing.T) {
	type dim struct {
		key string
		pct int
	}
	cases := []struct {
		name string
		q    bot.Qualification
		want []dim
	}{
		{"bant defaults", qual("bant"), []dim{{"budget", 25}, {"authority", 20}, {"need", 35}, {"timeline", 20}}},
		{"empty framework is bant", bot.Qualification{}, []dim{{"budget", 25}, {"authority", 20}, {"need", 35}, {"timeline", 20}}},
		{"unknown framework is bant", qual("spin"), []dim{{"budget", 25}, {"authority", 20}, {"need", 35}, {"timeline", 20}}},
		{"any scale", bot.Qualification{Framework: "bant", Weights: map[string]int{"budget": 2, "authority": 2, "need": 2, "timeline": 2}},
			[]dim{{"budget", 25}, {"authority", 25}, {"need", 25}, {"timeline", 25}}},
		{"zero switches a dimension off", bot.Qualification{Framework: "bant", Weights: map[string]int{"budget": 0, "authority": 20, "need": 35, "timeline": 20}},
			[]dim{{"budget", 0}, {"authority", 27}, {"need", 46}, {"timeline", 27}}},
		{"missing keys keep their default", bot.Qualification{Framework: "bant", Weights: map[string]int{"need": 50}},
			[]dim{{"budget", 22}, {"authority", 17}, {"need", 44}, {"timeline", 17}}},
		{"unknown keys are ignored", bot.Qualification{Framework: "champ", Weights: map[string]int{"budget": 90, "challenges": 35}},
			[]dim{{"challenges", 35}, {"authority", 20}, {"money", 25}, {"prioritization", 20}}},
		{"negative counts as zero", bot.Qualification{Framework: "bant", Weights: map[string]int{"budget": -10}},
			[]dim{{"budget", 0}, {"authority", 27}, {"need", 46}, {"timeline", 27}}},
		{"all zero means equal", bot.Qualification{Framework: "bant", Weights: map[string]int{"budget": 0, "authority": 0, "need": 0, "timeline": 0}},
			[]dim{{"budget", 25}, {"authority", 25}, {"need", 25}, {"timeline", 25}}},
		{"meddic rounding sums to 100", bot.Qualification{Framework: "meddic", Weights: map[string]int{"metrics": 1, "economic_buyer": 1, "decision_criteria": 1, "decision_process": 1, "identify_pain": 1, "champion": 1}},
			[]dim{{"metrics", 17}, {"economic_buyer", 17}, {"decision_criteria", 17}, {"decision_process", 17}, {"identify_pain", 16}, {"champion", 16}}},
		{"custom defaults", qual("custom"), []dim{{"need", 40}, {"budget", 30}, {"timeline", 30}}},
		{"custom dimensions weigh equally by default", bot.Qualification{Framework: "custom", Dimensions: []bot.Dimension{{Key: "team_size", Label: "Team size"}, {Key: "need"}, {Key: "team_size"}, {Key: "trade_in", Label: "Trade-in vehicle"}}},
			[]dim{{"team_size", 34}, {"need", 33}, {"trade_in", 33}}},
	}
	for _, c := range cases {
		var got []dim
		sum := 0.0
		for _, s := range dimensions(c.q) {
			got = append(got, dim{s.key, s.pct})
			sum += s.weight
		}
		if d := cmp.Diff(c.want, got, cmp.AllowUnexported(dim{})); d != "" {
			t.Errorf("%s: weights (-want +got)\n%s", c.name, d)
		}
		if sum < 0.999 || sum > 1.001 {
			t.Errorf("%s: shares sum to %v", c.name, sum)
		}
	}
}

func TestCustomDimensions(t *testing.T) {
	cases := []struct {
		dim          bot.Dimension
		bot, visitor string
		score        int
		reading      string
	}{
		{bot.Dimension{Key: "team_size", Label: "Team size"}, "", "We're a 120-person sales team.", 75, "size: 120-person"},
		{bot.Dimension{Key: "fleet_size", Label: "Fleet size"}, "", "We run 40 trucks across Gujarat.", 75, "size: 40 trucks"},
		{bot.Dimension{Key: "location", Label: "Preferred location"}, "", "Looking for a flat in Whitefield.", 75, "location: Whitefield"},
		{bot.Dimension{Key: "integration", Label: "Integrations needed"}, "", "It must push leads into HubSpot.", 75, "states a must-have"},
		{bot.Dimension{Key: "insurance", Label: "Insurance or payment"}, "Do you have health insurance?", "Yes, Star Health, cashless.", 65, "confirms when asked about insurance"},
		{bot.Dimension{Key: "trade_in", Label: "Trade-in vehicle"}, "", "I have an old Swift to exchange.", 50, "mentions exchange"},
		{bot.Dimension{Key: "urgency", Label: "Urgency"}, "", "We need it ASAP.", 95, "wants it immediately"},
		{bot.Dimension{Key: "authority"}, "", "I'm the founder.", 95, "role: founder"},
		// No detector and no label word: unknown, with no evidence.
		{bot.Dimension{Key: "favourite_colour", Label: "Favourite colour"}, "", "I like blue.", 0, ""},
		{bot.Dimension{Key: "favourite_colour", Label: "Favourite colour"}, "", "My favourite colour is blue.", 50, "mentions favourite"},
	}
	for _, c := range cases {
		q := bot.Qualification{Framework: "custom", Dimensions: []bot.Dimension{c.dim}}
		var tr []Turn
		if c.bot != "" {
			tr = append(tr, Turn{Role: RoleBot, Text: c.bot})
		}
		tr = append(tr, Turn{Role: RoleVisitor, Text: c.visitor})
		r := Score(q, Input{Transcript: tr})
		d := r.Dimensions[0]
		if d.Score != c.score {
			t.Errorf("%s %q: score %d, want %d (%+v)", c.dim.Key, c.visitor, d.Score, c.score, d.Evidence)
		}
		if c.reading == "" {
			if len(d.Evidence) != 0 || d.Status != StatusUnknown {
				t.Errorf("%s %q: want no evidence, got %s %+v", c.dim.Key, c.visitor, d.Status, d.Evidence)
			}
		} else if len(d.Evidence) == 0 || !strings.Contains(d.Evidence[0].Reading, c.reading) {
			t.Errorf("%s %q: reading %+v, want %q", c.dim.Key, c.visitor, d.Evidence, c.reading)
		}
		if d.Weight != 100 {
			t.Errorf("%s: a single dimension weighs %d, want 100", c.dim.Key, d.Weight)
		}
		if c.dim.Label == "" && d.Label == "" {
			t.Errorf("%s: no label derived from the key", c.dim.Key)
		}
	}
}

func TestTierFor(t *testing.T) {
	th := bot.DefaultThresholds
	for score, want := range map[int]string{100: TierSQL, 70: TierSQL, 69: TierMQL, 40: TierMQL, 39: TierNurture, 15: TierNurture, 14: TierUnqualified, 0: TierUnqualified} {
		if got := TierFor(score, th); got != want {
			t.Errorf("TierFor(%d) = %s, want %s", score, got, want)
		}
	}
	// Out-of-order stored thresholds fall back to the defaults.
	if got := thresholds(bot.Qualification{Thresholds: &bot.Thresholds{SQL: 30, MQL: 50, Nurture: 10}}); got != bot.DefaultThresholds {
		t.Errorf("invalid thresholds used: %+v", got)
	}
	custom := bot.Thresholds{SQL: 80, MQL: 50, Nurture: 20}
	if got := thresholds(bot.Qualification{Thresholds: &custom}); got != custom {
		t.Errorf("valid thresholds replaced: %+v", got)
	}
}

// TestCustomThresholds: the same conversation tiers differently under a
// stricter bot, and score and tier stay consistent.
func TestCustomThresholds(t *testing.T) {
	tr := []Turn{
		{Role: RoleVisitor, Text: "We need a chatbot for our 40-agent support team, we're drowning in tickets."},
		{Role: RoleBot, Text: "When would you like to start?"},
		{Role: RoleVisitor, Text: "Next month. I'm the support manager."},
	}
	lenient := Score(bot.Qualification{Framework: "bant", Thresholds: &bot.Thresholds{SQL: 40, MQL: 20, Nurture: 5}}, Input{Transcript: tr})
	strict := Score(bot.Qualification{Framework: "bant", Thresholds: &bot.Thresholds{SQL: 95, MQL: 80, Nurture: 50}}, Input{Transcript: tr})
	if lenient.Tier != TierSQL || strict.Tier != TierUnqualified && strict.Tier != TierNurture {
		t.Errorf("lenient %s (%d), strict %s (%d)", lenient.Tier, lenient.Score, strict.Tier, strict.Score)
	}
}

func TestOverrides(t *testing.T) {
	v := func(text string) Turn { return Turn{Role: RoleVisitor, Text: text} }
	b := func(text string) Turn { return Turn{Role: RoleBot, Text: text} }
	needLight := bot.Qualification{Framework: "bant", Weights: map[string]int{"need": 5}}
	cases := []struct {
		name string
		tr   []Turn
		sig  Signals
		tier string
		rule string // override expected, "" for none
		q    *bot.Qualification
	}{
		{"job seeker talking budget", []Turn{v("Are you hiring? My salary budget is 10 lakh and I can join immediately, it's urgent.")}, Signals{}, TierUnqualified, "job_seeker", nil},
		{"student coursework", []Turn{v("I'm a student, I need your pricing data for my college project urgently.")}, Signals{}, TierUnqualified, "student", nil},
		{"student enrolling is a customer", []Turn{v("I'm a student and I want to join your data science course next month, the fee of 60k is fine.")}, Signals{}, TierSQL, "", nil},
		{"competitor", []Turn{v("We're building a similar product. What do you charge enterprise customers?")}, Signals{}, TierUnqualified, "competitor", nil},
		{"spam", []Turn{v("We offer SEO services and backlinks for your website at low cost.")}, Signals{}, TierUnqualified, "spam", nil},
		{"existing customer", []Turn{v("My order #48213 hasn't arrived yet, where is it? I need it urgently.")}, Signals{}, TierUnqualified, "existing_customer", nil},
		{"out of scope", []Turn{v("I need a PG room near the IT park, budget 6000 per month, from next week."), b("Sorry, we sell apartments; we don't offer rentals."), v("ok")}, Signals{}, TierUnqualified, "out_of_scope", nil},
		{"browsing CEO", []Turn{v("I'm the CEO. We have budget approved and can decide this week, but honestly we're just browsing.")}, Signals{}, TierNurture, "browsing", nil},
		{"free plan", []Turn{v("We're drowning in support tickets, I'm the owner and need this next month. I'll start with the free plan.")}, Signals{}, TierNurture, "free_plan", nil},
		// Under BANT's defaults need weighs 35%, so the cap matters when a
		// bot turns need down.
		{"no stated need", []Turn{v("I'm the CEO, budget is 20 lakh and it's approved, and we can sign this week.")}, Signals{}, TierMQL, "no_stated_need", &needLight},
		{"engaged", []Turn{v("how much is it?")}, Signals{}, TierNurture, "engaged", nil},
		{"substantive", []Turn{v("We are a family-run pottery studio in Jaipur with a small online shop and a newsletter.")}, Signals{}, TierNurture, "substantive", nil},
		{"greeting only", []Turn{v("hi")}, Signals{Pages: []PageView{{URL: "/pricing", Seconds: 30}}}, TierUnqualified, "", nil},
		{"meeting booked says little", []Turn{v("book a call pls")}, Signals{MeetingBooked: true}, TierMQL, "meeting_booked", nil},
		{"meeting does not lift spam", []Turn{v("Buy 10k Instagram followers cheap!!")}, Signals{MeetingBooked: true}, TierUnqualified, "spam", nil},
	}
	for _, c := range cases {
		q := qual("bant")
		if c.q != nil {
			q = *c.q
		}
		r := Score(q, Input{Transcript: c.tr, Signals: c.sig})
		if r.Tier != c.tier {
			t.Errorf("%s: tier %s (%d), want %s\n%s", c.name, r.Tier, r.Score, c.tier, r.Summary)
		}
		var rules []string
		for _, o := range r.Overrides {
			rules = append(rules, o.Rule)
			if o.Reason == "" || o.Tier != r.Tier && o.Rule == rules[0] && len(r.Overrides) == 1 {
				t.Errorf("%s: override %+v incomplete or inconsistent", c.name, o)
			}
		}
		if c.rule == "" && len(rules) > 0 {
			t.Errorf("%s: unexpected overrides %v", c.name, rules)
		}
		if c.rule != "" && !contains(rules, c.rule) {
			t.Errorf("%s: overrides %v, want %s", c.name, rules, c.rule)
		}
		checkQuotes(t, c.name, c.tr, r)
	}
}

func TestSignals(t *testing.T) {
	all := Signals{
		Pages: []PageView{
			{URL: "https://example.com/pricing?x=1", Seconds: 400}, {URL: "/demo", Seconds: 300}, {URL: "/contact"},
			{URL: "/docs", Seconds: 100}, {URL: "/security"}, {URL: "/integrations/hubspot"},
		},
		Sessions: 6, Referrer: "https://www.g2.com/products/x", MeetingBooked: true,
		Form: &Form{Email: true, Phone: true, Company: true},
	}
	ev, adj := behaviour(all)
	if adj != maxBoost {
		t.Errorf("adjustment %d, want the %d cap", adj, maxBoost)
	}
	raw := 0
	for _, e := range ev {
		raw += e.Points
		if e.Source != SourceSignal || e.Signal == "" || e.Turn != -1 || e.Points == 0 {
			t.Errorf("bad signal evidence %+v", e)
		}
	}
	if raw <= maxBoost {
		t.Errorf("raw points %d should exceed the cap in this case", raw)
	}
	_, adj = behaviour(Signals{Pages: []PageView{{URL: "/careers"}, {URL: "/jobs/sales"}}, Referrer: "https://www.naukri.com/job/1"})
	if adj != -10 {
		t.Errorf("job-hunting signals: %d, want -10", adj)
	}
	if ev, adj := behaviour(Signals{}); adj != 0 || len(ev) != 0 {
		t.Errorf("no signals: %d %+v", adj, ev)
	}
	// Behaviour alone cannot make a silent visitor an mql.
	r := Score(qual("bant"), Input{Transcript: []Turn{{Role: RoleVisitor, Text: "hi"}}, Signals: all})
	if r.Score >= bot.DefaultThresholds.MQL && !contains(ruleNames(r), "meeting_booked") {
		t.Errorf("signals alone reached %d", r.Score)
	}
}

func ruleNames(r Result) []string {
	var out []string
	for _, o := range r.Overrides {
		out = append(out, o.Rule)
	}
	return out
}

func TestResultJSON(t *testing.T) {
	r := Score(qual("bant"), Input{Transcript: []Turn{{Role: RoleVisitor, Text: "We need this ASAP, budget is $2,000 a month."}}})
	raw, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"score", "tier", "dimensions", "signals", "adjustment", "overrides", "summary", "version"} {
		if _, ok := m[k]; !ok {
			t.Errorf("result JSON lacks %q: %s", k, raw)
		}
	}
	d := m["dimensions"].([]any)[0].(map[string]any)
	for _, k := range []string{"name", "label", "score", "weight", "status", "summary", "evidence"} {
		if _, ok := d[k]; !ok {
			t.Errorf("dimension JSON lacks %q", k)
		}
	}
	ev := d["evidence"].([]any)[0].(map[string]any)
	for _, k := range []string{"quote", "source", "reading", "strength", "turn"} {
		if _, ok := ev[k]; !ok {
			t.Errorf("evidence JSON lacks %q: %v", k, ev)
		}
	}
}

// TestDeterminism: the same input gives the same result, also when scored
// concurrently (run with -race).
func TestDeterminism(t *testing.T) {
	cases := loadCases(t)
	want := make([]Result, len(cases))
	for i, c := range cases {
		want[i] = Score(c.qualification(), c.input())
	}
	var wg sync.WaitGroup
	errs := make(chan string, len(cases))
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, c := range cases {
				if got := Score(c.qualification(), c.input()); !reflect.DeepEqual(got, want[i]) {
					errs <- c.ID
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for id := range errs {
		t.Errorf("%s: scored differently on a second run", id)
	}
}

// TestEvidenceQuotesAreVerbatim over the whole labelled set.
func TestEvidenceQuotesAreVerbatim(t *testing.T) {
	for _, c := range loadCases(t) {
		checkQuotes(t, c.ID, c.Transcript, Score(c.qualification(), c.input()))
	}
}

// fragments build random conversations for the property test.
var fragments = []string{
	"We need a chatbot ASAP.", "Budget is 5 lakh.", "I'm the CEO.", "not urgent", "just browsing",
	"Are you hiring?", "how much?", "We get 3,000 tickets a month.", "₹", "$", "-", "?!", "…", "  ",
	"Main owner hoon, budget 50k tak hai.", "I'm not the decision maker, my boss decides.", "by March",
	"in 2-3 weeks", "no budget", "We're building a similar product.", "ok", "😀 नमस्ते", "1,50,000",
	"It must integrate with SAP and be SOC 2 compliant.", "Security review, then a pilot.", "I'll champion it.",
	"Sorry, we don't offer that.", "yes", "no", "Me.", "we'r drowning, cant keep up", "I'm a student doing a college project",
	"\n\n", "'", "’s", "1.5cr", "Q2", "the 15th", strings.Repeat("very ", 40) + "long sentence without end",
}

func randomInput(rng *rand.Rand) (bot.Qualification, Input) {
	frameworks := []string{"bant", "champ", "meddic", "custom", "", "bogus"}
	q := bot.Qualification{Framework: frameworks[rng.Intn(len(frameworks))]}
	if rng.Intn(3) == 0 {
		q.Weights = map[string]int{"need": rng.Intn(5) - 1, "budget": rng.Intn(100), "champion": rng.Intn(50), "nope": 7}
	}
	if q.Framework == "custom" && rng.Intn(2) == 0 {
		q.Dimensions = []bot.Dimension{{Key: "team_size", Label: "Team size"}, {Key: "x_factor", Label: "X factor"}, {Key: "need"}}
	}
	if rng.Intn(3) == 0 {
		q.Thresholds = &bot.Thresholds{SQL: rng.Intn(101), MQL: rng.Intn(101), Nurture: rng.Intn(101)}
	}
	var in Input
	for n := rng.Intn(12); n >= 0; n-- {
		var b strings.Builder
		for k := rng.Intn(4); k >= 0; k-- {
			b.WriteString(fragments[rng.Intn(len(fragments))])
			b.WriteString(" ")
		}
		role := RoleVisitor
		if rng.Intn(2) == 0 {
			role = RoleBot
		}
		in.Transcript = append(in.Transcript, Turn{Role: role, Text: b.String()})
	}
	in.Signals = Signals{MeetingBooked: rng.Intn(4) == 0, Sessions: rng.Intn(6), Pages: []PageView{{URL: "/pricing", Seconds: rng.Intn(900)}}}
	return q, in
}

// TestProperties: for random conversations every score is within 0-100,
// weights sum to 100, the tier matches the score, and quotes are verbatim.
func TestProperties(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 2000; i++ {
		q, in := randomInput(rng)
		r := Score(q, in)
		checkResult(t, fmt.Sprintf("case %d", i), q, in, r)
	}
}

func checkResult(t *testing.T, id string, q bot.Qualification, in Input, r Result) {
	t.Helper()
	if r.Score < 0 || r.Score > 100 {
		t.Errorf("%s: score %d", id, r.Score)
	}
	sum := 0
	for _, d := range r.Dimensions {
		if d.Score < 0 || d.Score > 100 {
			t.Errorf("%s: %s score %d", id, d.Name, d.Score)
		}
		for _, e := range d.Evidence {
			if e.Strength < 0 || e.Strength > 100 {
				t.Errorf("%s: %s evidence strength %d", id, d.Name, e.Strength)
			}
		}
		sum += d.Weight
	}
	if len(r.Dimensions) > 0 && sum != 100 {
		t.Errorf("%s: weights sum to %d", id, sum)
	}
	th := thresholds(q)
	if got := TierFor(r.Score, th); got != r.Tier && !(r.Tier == TierUnqualified && th.Nurture == 0) {
		t.Errorf("%s: tier %s but score %d gives %s", id, r.Tier, r.Score, got)
	}
	if r.Adjustment < maxPenalty || r.Adjustment > maxBoost {
		t.Errorf("%s: adjustment %d out of bounds", id, r.Adjustment)
	}
	if r.Version != Version {
		t.Errorf("%s: version %q", id, r.Version)
	}
	checkQuotes(t, id, in.Transcript, r)
}

// FuzzScore checks the same invariants on arbitrary text.
func FuzzScore(f *testing.F) {
	for _, s := range fragments {
		f.Add(s, "What's your budget?")
	}
	f.Fuzz(func(t *testing.T, visitor, botText string) {
		in := Input{Transcript: []Turn{{Role: RoleBot, Text: botText}, {Role: RoleVisitor, Text: visitor}, {Role: RoleVisitor, Text: visitor + " " + visitor}}}
		for _, fw := range []string{"bant", "meddic"} {
			q := qual(fw)
			checkResult(t, "fuzz", q, in, Score(q, in))
		}
	})
}

// TestLongConversationIsBounded: only the last maxTurns turns are read.
func TestLongConversationIsBounded(t *testing.T) {
	var tr []Turn
	tr = append(tr, Turn{Role: RoleVisitor, Text: "Are you hiring? Here is my resume."})
	for i := 0; i < 999; i++ {
		tr = append(tr, Turn{Role: RoleBot, Text: "What else would you like to know?"},
			Turn{Role: RoleVisitor, Text: "We need a chatbot for our 40-agent support team next month."})
	}
	r := Score(qual("bant"), Input{Transcript: tr})
	checkResult(t, "long", qual("bant"), Input{Transcript: tr}, r)
	if r.Tier == TierUnqualified {
		t.Errorf("the first turn, beyond the window, disqualified the lead: %s", r.Summary)
	}
	for _, d := range r.Dimensions {
		for _, e := range d.Evidence {
			if e.Turn < len(tr)-maxTurns {
				t.Errorf("evidence from turn %d, outside the last %d", e.Turn, maxTurns)
			}
		}
	}
}

func TestDevanagariStaysWhole(t *testing.T) {
	text := "नमस्ते, मुझे चैटबॉट चाहिए"
	toks, _ := tokenize(text, lex)
	if len(toks) != 4 {
		var words []string
		for _, tk := range toks {
			words = append(words, text[tk.start:tk.end])
		}
		t.Errorf("got %d tokens %q, want 4 whole words", len(toks), words)
	}
}

// TestBotNotKnowingIsNotOutOfScope: the chat's own "I don't know" reply
// ("I'm sorry, I don't have information about that.") is a bot without
// the answer, not the business refusing the request; only "we don't
// offer ..." is.
func TestBotNotKnowingIsNotOutOfScope(t *testing.T) {
	visitor := "I'm the CEO. We have $80k budget approved and must launch within 2 weeks; our churn problem is urgent."
	for _, c := range []struct {
		reply    string
		outScope bool
	}{
		{"I'm sorry, I don't have information about that.", false},
		{"Sorry, we don't offer churn analytics; we only sell help desk software.", true},
		{"Unfortunately we do not provide that service.", true},
	} {
		res := Score(bot.Qualification{}, Input{Transcript: []Turn{{Role: "user", Text: visitor}, {Role: "assistant", Text: c.reply}}})
		got := false
		for _, o := range res.Overrides {
			got = got || o.Rule == "out_of_scope"
		}
		if got != c.outScope {
			t.Errorf("%q: out_of_scope %v, want %v (%s)", c.reply, got, c.outScope, res.Summary)
		}
	}
}
