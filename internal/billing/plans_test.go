package billing_test

import (
	"slices"
	"strings"
	"testing"

	"concierge/internal/billing"
)

func TestCatalogueLoadsAndFollowsTheSpec(t *testing.T) {
	cat, err := billing.DefaultCatalogue()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cat.Keys(), []string{"trial", "free", "starter", "standard", "pro"}; !slices.Equal(got, want) {
		t.Fatalf("plans %v, want %v", got, want)
	}
	// Spec section 8: lead export Starter and above; journey Standard and
	// above; e-mail validation on every plan above Free.
	rules := []struct {
		feature string
		on      []string
	}{
		{billing.FeatureLeadExport, []string{"trial", "starter", "standard", "pro"}},
		{billing.FeatureJourneyAnalytics, []string{"trial", "standard", "pro"}},
		{billing.FeatureEmailValidation, []string{"trial", "starter", "standard", "pro"}},
		{billing.FeatureAutoRecrawl, []string{"trial", "standard", "pro"}},
		{billing.FeatureLeadIntelligence, []string{"pro"}},
	}
	for _, r := range rules {
		for _, p := range cat.Plans {
			if got, want := p.Has(r.feature), slices.Contains(r.on, p.Key); got != want {
				t.Errorf("%s on %s = %v, want %v", r.feature, p.Key, got, want)
			}
		}
	}
	free := cat.Plan("free")
	if len(free.Features) != 0 || free.Limits.Chatbots != 1 || len(free.Prices) != 0 {
		t.Errorf("free plan: %+v", free)
	}
	trial, standard := cat.Plan("trial"), cat.Plan("standard")
	if trial.TrialDays != 14 || len(trial.Prices) != 0 || trial.Limits.MonthlyCredits != 200 {
		t.Errorf("trial plan: %+v", trial)
	}
	if !slices.Equal(trial.Features, standard.Features) || trial.Limits.Chatbots != standard.Limits.Chatbots {
		t.Errorf("the trial should have standard's features and bots")
	}
	var prev int64
	for _, key := range []string{"starter", "standard", "pro"} {
		p := cat.Plan(key)
		for _, cur := range billing.Currencies {
			if p.Prices[cur].Monthly <= 0 || p.Prices[cur].ExtraBot <= 0 {
				t.Errorf("%s: %s prices %+v", key, cur, p.Prices[cur])
			}
		}
		if p.Limits.MonthlyCredits <= prev {
			t.Errorf("%s: monthly credits %d not above the plan below", key, p.Limits.MonthlyCredits)
		}
		prev = p.Limits.MonthlyCredits
	}
	c := cat.CreditCosts
	if c.ChatReply != 1 || c.LeadFollowUp != 1 || c.IngestPerPage != 1 || c.CrawlPage != 1 {
		t.Errorf("credit costs %+v", c)
	}
}

func TestCatalogueRejectsMistakes(t *testing.T) {
	base := `{"credit_costs": {"chat_reply": 1, "lead_follow_up": 1, "ingest_per_page": 1, "crawl_page": 1},
	"plans": [
	 {"key": "trial", "name": "Trial", "trial_days": 14, "limits": {"chatbots": 1, "monthly_credits": 10, "documents": 1,
	  "upload_bytes": 1, "crawl_pages": 1, "operators": 0}, "features": [], "prices": {}},
	 {"key": "free", "name": "Free", "limits": {"chatbots": 1, "monthly_credits": 10, "documents": 1,
	  "upload_bytes": 1, "crawl_pages": 1, "operators": 0}, "features": [], "prices": {}},
	 {"key": "paid", "name": "Paid", "limits": {"chatbots": 2, "monthly_credits": 10, "documents": 1,
	  "upload_bytes": 1, "crawl_pages": 1, "operators": 0}, "features": ["lead_export"],
	  "prices": {"INR": {"monthly": 100, "extra_bot": 50}, "USD": {"monthly": 2, "extra_bot": 1}}}
	]}`
	if _, err := billing.ParseCatalogue([]byte(base)); err != nil {
		t.Fatalf("base catalogue: %v", err)
	}
	cases := []struct{ name, from, to, want string }{
		{"unknown feature", `["lead_export"]`, `["lead_exprot"]`, `unknown feature "lead_exprot"`},
		{"fractional price", `"monthly": 100`, `"monthly": 99.5`, "cannot unmarshal number 99.5"},
		{"misspelt limit", `"chatbots": 2`, `"chatbot": 2`, `unknown field "chatbot"`},
		{"missing currency", `, "USD": {"monthly": 2, "extra_bot": 1}`, ``, "no USD price"},
		{"unknown currency", `"USD": {`, `"EUR": {`, `unknown currency "EUR"`},
		{"zero credit cost", `"chat_reply": 1`, `"chat_reply": 0`, "credit_costs.chat_reply"},
		{"no free plan", `"key": "free"`, `"key": "gratis"`, `plan "free" is required`},
		{"priced trial", `"trial_days": 14, "limits": {"chatbots": 1, "monthly_credits": 10, "documents": 1,
	  "upload_bytes": 1, "crawl_pages": 1, "operators": 0}, "features": [], "prices": {}`,
			`"trial_days": 14, "limits": {"chatbots": 1, "monthly_credits": 10, "documents": 1,
	  "upload_bytes": 1, "crawl_pages": 1, "operators": 0}, "features": [], "prices": {"USD": {"monthly": 1, "extra_bot": 0}}`,
			"a trial has no prices"},
		{"recrawl without interval", `["lead_export"]`, `["auto_recrawl"]`, "recrawl_interval_hours"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw := strings.Replace(base, c.from, c.to, 1)
			if raw == base {
				t.Fatalf("replacement %q did not apply", c.from)
			}
			_, err := billing.ParseCatalogue([]byte(raw))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to mention %q", err, c.want)
			}
		})
	}
}

func TestRequireAndLimit(t *testing.T) {
	e := &billing.Entitlements{Features: map[string]bool{"lead_export": true}, Limits: billing.Limits{Chatbots: 3}}
	if err := e.Require("lead_export"); err != nil {
		t.Errorf("lead_export: %v", err)
	}
	if e.Limit("chatbots") != 3 || e.Limit("nonsense") != 0 {
		t.Errorf("Limit: %d %d", e.Limit("chatbots"), e.Limit("nonsense"))
	}
}
