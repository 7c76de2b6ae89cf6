package score

import (
	"math"
	"testing"
)

func TestParseAmounts(t *testing.T) {
	type want struct {
		value, high   float64
		currency, per string
	}
	cases := []struct {
		text string
		want []want
	}{
		{"Budget of $2,000 a month", []want{{2000, 0, "USD", "month"}}},
		{"We have ₹8,00,000 sanctioned", []want{{800000, 0, "INR", ""}}},
		{"Rs.50000 only", []want{{50000, 0, "INR", ""}}},
		{"Rs 50,000 per year", []want{{50000, 0, "INR", "year"}}},
		{"INR 1.5 lakh", []want{{150000, 0, "INR", ""}}},
		{"around 1.2 crore", []want{{12e6, 0, "INR", ""}}},
		{"Budget is 1.5 Cr", []want{{15e6, 0, "INR", ""}}},
		{"1.5cr", []want{{15e6, 0, "INR", ""}}},
		{"10l max", []want{{1e6, 0, "INR", ""}}},
		{"5 lakhs", []want{{5e5, 0, "INR", ""}}},
		{"50k tak", []want{{50000, 0, "", ""}}},
		{"$3k/month", []want{{3000, 0, "USD", "month"}}},
		{"70-80 lakh", []want{{7e6, 8e6, "INR", ""}}},
		{"10 to 15 lakh per year", []want{{1e6, 1.5e6, "INR", "year"}}},
		{"$2k-$3k", []want{{2000, 3000, "USD", ""}}},
		{"each costs us about 40 rupees", []want{{40, 0, "INR", ""}}},
		{"USD 5,000", []want{{5000, 0, "USD", ""}}},
		{"€1,200 a month", []want{{1200, 0, "EUR", "month"}}},
		{"2.5 million dollars", []want{{2.5e6, 0, "USD", ""}}},
		{"$15/hour", []want{{15, 0, "USD", "hour"}}},
		{"18k per head", []want{{18000, 0, "", "person"}}},
		{"between $500 and 2 lakh", []want{{500, 0, "USD", ""}, {2e5, 0, "INR", ""}}},
		// Not money.
		{"20 spindle assemblies", nil},
		{"2m downloads", nil},
		{"on 15th March", nil},
		{"a 3BHK flat", nil},
		{"24x7 support", nil},
		{"in 2026", nil},
	}
	for _, c := range cases {
		toks, sents := tokenize(c.text, lex)
		var got []amount
		for _, s := range sents {
			got = append(got, parseAmounts(toks, s.tokStart, s.tokEnd)...)
		}
		if len(got) != len(c.want) {
			t.Errorf("%q: got %d amounts %+v, want %d", c.text, len(got), got, len(c.want))
			continue
		}
		for i, w := range c.want {
			g := got[i]
			if math.Abs(g.value-w.value) > 1e-6 || math.Abs(g.high-w.high) > 1e-6 || g.currency != w.currency || g.per != w.per {
				t.Errorf("%q: got value %v high %v %q per %q, want %+v", c.text, g.value, g.high, g.currency, g.per, w)
			}
		}
	}
}

// TestMoneyContext checks that an amount is read as a budget only where the
// words around it say so.
func TestMoneyContext(t *testing.T) {
	cases := []struct {
		bot, visitor string
		budget       int // expected budget dimension score
		metrics      int // expected metrics score, -1 to ignore
	}{
		{"", "Our budget is around 1.2 crore, home loan is pre-approved.", 90, -1},
		{"", "We have ₹8,00,000 sanctioned for the spares.", 90, -1},
		{"What's your budget?", "50k", 90, -1},
		{"What's your budget?", "Somewhere around 70-80 lakh.", 90, -1},
		{"", "Budget 50k tak hai per year.", 90, -1},
		{"", "budget 6000 per month", 90, -1},
		{"", "Around 60-70 lakhs.", 90, -1},
		{"", "Will it be under 20 lakh?", 45, -1},
		{"", "Roughly 1,500 a day, and each costs us about 40 rupees.", 0, 80},
		{"", "I want a term plan with 1 crore cover.", 0, -1},
		{"", "We get 300% returns on savings of 2 lakh.", 0, -1},
		{"", "I can spend up to 25k per month if it saves time.", 90, -1},
	}
	for _, c := range cases {
		a := read(c.bot, c.visitor)
		if got := facetDim(a, fBudget).Score; got != c.budget {
			t.Errorf("%q: budget %d, want %d (%+v)", c.visitor, got, c.budget, facetDim(a, fBudget).Evidence)
		}
		if c.metrics >= 0 {
			if got := facetDim(a, fMetrics).Score; got != c.metrics {
				t.Errorf("%q: metrics %d, want %d", c.visitor, got, c.metrics)
			}
		}
	}
}

func TestSizesAndMetrics(t *testing.T) {
	cases := []struct {
		text          string
		size, metrics int
		pain          bool // a workload big enough to count as pain
	}{
		{"Our support team is 40 agents on Zendesk.", 75, 0, false},
		{"I'm the CEO of a 200-person logistics company.", 75, 0, false},
		{"We're a retail chain with 14 stores.", 75, 0, false},
		{"a team of 12 counsellors", 75, 0, false},
		{"We handle 20,000 tickets a month.", 0, 70, true},
		{"Our dealers raise about 2,000 warranty queries a month.", 0, 70, true},
		{"Roughly 1,500 a day.", 0, 65, true},
		{"I only get like 10 orders a week.", 0, 70, false},
		{"Our conversion is 1.2% and we want to get it to 2%.", 0, 90, false},
		{"Customers wait 20 minutes on hold.", 0, 70, false},
		{"I have 6 years of experience.", 0, 0, false},
	}
	for _, c := range cases {
		a := read("", c.text)
		if got := facetDim(a, fSize).Score; got != c.size {
			t.Errorf("%q: size %d, want %d", c.text, got, c.size)
		}
		if got := facetDim(a, fMetrics).Score; got != c.metrics {
			t.Errorf("%q: metrics %d, want %d", c.text, got, c.metrics)
		}
		workload := false
		for _, f := range a.findings {
			if f.f == fPain && len(f.reading) > 9 && f.reading[:9] == "workload:" {
				workload = true
			}
		}
		if workload != c.pain {
			t.Errorf("%q: workload pain %v, want %v", c.text, workload, c.pain)
		}
	}
}
