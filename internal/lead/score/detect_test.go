package score

import (
	"strings"
	"testing"
	"time"
)

// dimWant is the expected reading of one facet after a message.
type dimWant struct {
	f      facet
	score  int
	status string // "" to ignore
}

func checkFacets(t *testing.T, bot, visitor string, wants ...dimWant) {
	t.Helper()
	a := read(bot, visitor)
	for _, w := range wants {
		d := facetDim(a, w.f)
		if d.Score != w.score || (w.status != "" && d.Status != w.status) {
			t.Errorf("%q: %s = %d %s, want %d %s; evidence %+v", visitor, w.f, d.Score, d.Status, w.score, w.status, d.Evidence)
		}
	}
}

func TestNegation(t *testing.T) {
	cases := []struct {
		bot, visitor string
		want         dimWant
	}{
		{"", "We have a budget for this.", dimWant{fBudget, 75, StatusConfirmed}},
		{"", "We don't have budget allocated for this yet.", dimWant{fBudget, 0, StatusNegative}},
		{"", "No budget this year, sorry.", dimWant{fBudget, 0, StatusNegative}},
		{"", "Budget nahi hai abhi.", dimWant{fBudget, 0, StatusNegative}},
		{"", "That's too expensive for us.", dimWant{fBudget, 0, StatusNegative}},
		{"", "Money is not an issue.", dimWant{fBudget, 80, StatusConfirmed}},
		{"", "No, we have a budget of 5 lakh.", dimWant{fBudget, 90, StatusConfirmed}},
		{"", "I am the decision maker.", dimWant{fAuthority, 95, StatusConfirmed}},
		{"", "I'm not the decision maker.", dimWant{fAuthority, 25, StatusWeak}},
		{"", "This is urgent for us.", dimWant{fTimeline, 95, StatusConfirmed}},
		{"", "It's not urgent.", dimWant{fTimeline, 0, StatusNegative}},
		{"", "No rush at all.", dimWant{fTimeline, 0, StatusNegative}},
		{"", "We are looking for a chatbot.", dimWant{fNeed, 70, StatusConfirmed}},
		{"", "We're not looking for a chatbot.", dimWant{fNeed, 0, StatusNegative}},
		{"", "Just browsing.", dimWant{fNeed, 0, StatusNegative}},
		{"", "We don't have a tool and need one by next month.", dimWant{fNeed, 70, StatusConfirmed}},
		{"", "No problem, we need it next month.", dimWant{fNeed, 70, StatusConfirmed}},
		{"Is there a problem you're trying to solve?", "Not really.", dimWant{fNeed, 0, StatusNegative}},
		{"Do you have a budget?", "No.", dimWant{fBudget, 0, StatusNegative}},
		{"Do you have a budget?", "Yes.", dimWant{fBudget, 60, StatusPartial}},
		{"Do you have a budget?", "Not sure yet.", dimWant{fBudget, 15, StatusWeak}},
		// The latest word wins: a denial after interest, interest after a denial.
		{"", "How much is it? Hmm, that's a lot for me right now.", dimWant{fBudget, 20, StatusNegative}},
		{"", "We had no budget last year. Now we have 10 lakh approved.", dimWant{fBudget, 90, StatusConfirmed}},
	}
	for _, c := range cases {
		checkFacets(t, c.bot, c.visitor, c.want)
	}
}

func TestHedges(t *testing.T) {
	checkFacets(t, "", "Next month.", dimWant{fTimeline, 80, ""})
	checkFacets(t, "", "Maybe next month.", dimWant{fTimeline, 60, ""})
	checkFacets(t, "", "Probably next quarter.", dimWant{fTimeline, 41, ""})
	checkFacets(t, "", "By the end of this month if possible.", dimWant{fTimeline, 90, ""})
}

func TestTimelines(t *testing.T) {
	cases := []struct {
		text  string
		level int
	}{
		{"ASAP please", 95},
		{"we need it immediately", 95},
		{"Can I come this Saturday?", 95},
		{"send the quotation by Friday", 95},
		{"we want to start in 2 weeks", 90},
		{"in 10 days", 90},
		{"within 6 weeks", 80},
		{"2 hafte mein chahiye", 90},
		{"Next month se start karna hai", 80},
		{"Admission isi mahine karna hai", 90},
		{"sometime this quarter", 56},
		{"next quarter", 55},
		{"maybe in 2-3 months", 49},
		{"next year", 25},
		{"in 2-3 years", 10},
		{"launch is on the 15th", 85},
		{"by March", 70},
		{"decision by end of Q2", 65},
		{"before our holiday peak", 70},
		{"no rush", 0},
		{"not now", 0},
	}
	for _, c := range cases {
		if got := facetDim(read("", c.text), fTimeline).Score; got != c.level {
			t.Errorf("%q: timeline %d, want %d", c.text, got, c.level)
		}
	}
}

// TestTimelinesWithReferenceDate: with a date for the conversation, named
// months and quarters are scored by how far away they are.
func TestTimelinesWithReferenceDate(t *testing.T) {
	now := time.Date(2025, time.January, 10, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		text  string
		level int
	}{
		{"on 15 January", 95},
		{"by 31 January", 90},
		{"by March", 65},
		{"before June", 50},
		{"in December", 30},
		{"by end of Q1", 65},
		{"by 2027", 10},
		{"in November 2024", 95}, // a past date: as soon as possible
	}
	for _, c := range cases {
		a := analyse(Input{Transcript: []Turn{{Role: RoleVisitor, Text: c.text}}, Now: now})
		if got := facetDim(a, fTimeline).Score; got != c.level {
			t.Errorf("%q: timeline %d, want %d", c.text, got, c.level)
		}
	}
}

func TestRoles(t *testing.T) {
	cases := []struct {
		bot, text           string
		authority, economic int
	}{
		{"", "I'm the CEO of a 200-person logistics company.", 95, 90},
		{"", "I'm the Head of Support, so we can move fast.", 85, 75},
		{"", "I'm a marketing manager at a payroll software company.", 60, 40},
		{"", "I'm a procurement officer at Bharat Steel Works.", 70, 55},
		{"", "I'm one of the two partners of the agency.", 85, 80},
		{"", "I'm VP of Customer Success.", 85, 75},
		{"", "I am the managing director.", 95, 90},
		{"", "I'm the general manager of a dealer group.", 80, 70},
		{"", "Main hi owner hoon.", 95, 90},
		{"", "CEO here.", 95, 90},
		{"", "Hi, this is Priya, founder of Acme.", 95, 90},
		{"", "I run a CA firm in Ahmedabad.", 90, 90},
		{"", "I'm a final year student.", 10, 5},
		{"", "I'm not the owner.", 25, 25},
		{"", "I'm looking for a manager for my shop.", 0, 0},
		{"", "Our CEO reviews churn every week.", 0, 0},
		{"", "I'll need to check with my VP before anything.", 35, 45},
		{"", "My boss decides on tools.", 35, 50},
		{"", "I'm the e-commerce manager, but my boss approves anything we pay for.", 45, 50},
		{"", "My wife and I will decide together.", 95, 90}, // a couple buying for themselves decides
		{"", "Nobody else, I sign the contracts.", 95, 95},
		{"Who else needs to sign off?", "Nobody.", 85, 80},
		{"", "I own the support tooling budget.", 95, 95},
	}
	for _, c := range cases {
		a := read(c.bot, c.text)
		au, ec := facetDim(a, fAuthority).Score, facetDim(a, fEconomic).Score
		if au != c.authority || ec != c.economic {
			t.Errorf("%q: authority %d economic %d, want %d %d", c.text, au, ec, c.authority, c.economic)
		}
	}
}

func TestTokenize(t *testing.T) {
	text := "Hi, I'm the CEO. We don't have Rs.50,000 - maybe 1.5cr?! Call me at 9am…ok"
	toks, sents := tokenize(text, lex)
	var norms []string
	for _, tk := range toks {
		norms = append(norms, tk.norm)
		if got := text[tk.start:tk.end]; got == "" {
			t.Errorf("token %q has an empty span", tk.norm)
		}
	}
	want := "hi i am the ceo we do not have rs 50000 maybe 1.5 call me at 9am ok"
	if got := strings.Join(norms, " "); got != want {
		t.Errorf("tokens\n got %s\nwant %s", got, want)
	}
	var spans []string
	for _, s := range sents {
		spans = append(spans, text[s.start:s.end])
	}
	wantSents := []string{"Hi, I'm the CEO.", "We don't have Rs.50,000 - maybe 1.5cr?!", "Call me at 9am…", "ok"}
	if strings.Join(spans, "|") != strings.Join(wantSents, "|") {
		t.Errorf("sentences\n got %q\nwant %q", spans, wantSents)
	}
	if !sents[1].question || sents[0].question {
		t.Errorf("question flags wrong: %+v", sents)
	}
}

func TestTypos(t *testing.T) {
	cases := map[string]string{
		"bugdet":   "budget",
		"budjet":   "budget",
		"pricng":   "pricing",
		"urgnet":   "urgent",
		"decison":  "decision",
		"quotaton": "quotation",
		"manages":  "manages", // a real word near "manager" is left alone
		"founded":  "founded",
	}
	for in, want := range cases {
		toks, _ := tokenize(in, lex)
		if len(toks) != 1 || toks[0].norm != want {
			t.Errorf("%q → %+v, want %q", in, toks, want)
		}
	}
	checkFacets(t, "", "wat is teh pricng for basic plan??", dimWant{fBudget, 35, ""})
	checkFacets(t, "", "we r a small shop, mayb later", dimWant{fTimeline, 11, ""})
}

// TestBotTurnsAreNeverEvidence: what the bot says only gives context.
func TestBotTurnsAreNeverEvidence(t *testing.T) {
	tr := []Turn{
		{Role: RoleBot, Text: "Our budget is 5 lakh, we need this urgently, I'm the CEO and we are drowning in tickets."},
		{Role: RoleVisitor, Text: "hmm"},
	}
	r := Score(qual("bant"), Input{Transcript: tr})
	for _, d := range r.Dimensions {
		if d.Score != 0 || len(d.Evidence) != 0 {
			t.Errorf("%s scored %d from a bot turn: %+v", d.Name, d.Score, d.Evidence)
		}
	}
	if r.Tier != TierUnqualified {
		t.Errorf("tier %s, want unqualified", r.Tier)
	}
}
