package billing

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// The plan features the code knows. A gate names one of these; the
// catalogue says which plans include it. A name in plans.json that is not
// here is a start-up error, so a typo cannot silently switch a gate off.
const (
	FeatureAutoRecrawl      = "auto_recrawl"
	FeatureLeadIntelligence = "lead_intelligence"
	FeatureLeadExport       = "lead_export"
	FeatureJourneyAnalytics = "journey_analytics"
	FeatureEmailValidation  = "email_validation"
	FeatureLiveChat         = "live_chat"
	FeatureCustomBranding   = "custom_branding"
)

// KnownFeatures lists every feature name, in display order.
var KnownFeatures = []string{
	FeatureAutoRecrawl, FeatureLeadIntelligence, FeatureLeadExport, FeatureJourneyAnalytics,
	FeatureEmailValidation, FeatureLiveChat, FeatureCustomBranding,
}

// Plan keys the code itself depends on: sign-up starts the trial (also the
// column default of workspaces.plan), and the free plan never lapses.
const (
	PlanTrial = "trial"
	PlanFree  = "free"
)

// Currencies a priced plan must quote, in integer minor units.
var Currencies = []string{"INR", "USD"}

// Limits are a plan's numeric allowances.
type Limits struct {
	Chatbots       int64 `json:"chatbots" doc:"Bots included in the plan; more need their own subscription (POST /bots/checkout) where the plan prices an extra bot."`
	MonthlyCredits int64 `json:"monthly_credits" doc:"Credits the balance is topped up to at the start of each calendar month (UTC); for the trial, the credits granted once at sign-up."`
	Documents      int64 `json:"documents" doc:"Documents and crawled pages in the knowledge base."`
	UploadBytes    int64 `json:"upload_bytes" doc:"Largest file accepted by POST /ingest, in bytes."`
	CrawlPages     int64 `json:"crawl_pages" doc:"Pages one crawl may index."`
	Operators      int64 `json:"operators" doc:"Live-chat operator accounts."`
	WebhooksPerBot int64 `json:"webhooks_per_bot,omitempty" doc:"Webhook endpoints one bot may have."`
}

// limitNames maps the names used by Entitlements.Limit and LimitReached.
var limitNames = map[string]func(Limits) int64{
	"chatbots":         func(l Limits) int64 { return l.Chatbots },
	"monthly_credits":  func(l Limits) int64 { return l.MonthlyCredits },
	"documents":        func(l Limits) int64 { return l.Documents },
	"upload_bytes":     func(l Limits) int64 { return l.UploadBytes },
	"crawl_pages":      func(l Limits) int64 { return l.CrawlPages },
	"operators":        func(l Limits) int64 { return l.Operators },
	"webhooks_per_bot": func(l Limits) int64 { return l.WebhooksPerBot },
}

// Price is what a plan costs in one currency, in minor units (paise, cents).
type Price struct {
	Monthly  int64 `json:"monthly"`
	ExtraBot int64 `json:"extra_bot"`
}

// CreditCosts are what metered actions debit. They are data so that pricing
// changes are a catalogue edit, not a code change.
type CreditCosts struct {
	ChatReply     int64 `json:"chat_reply" doc:"Credits one delivered chat reply costs (owner previews are free)."`
	LeadFollowUp  int64 `json:"lead_follow_up" doc:"Credits one lead follow-up e-mail costs."`
	IngestPerPage int64 `json:"ingest_per_page" doc:"Credits per page (or page-equivalent) of an uploaded file."`
	CrawlPage     int64 `json:"crawl_page" doc:"Credits per crawled page that is indexed."`
}

// Plan is one entry of the catalogue.
type Plan struct {
	Key                  string           `json:"key"`
	Name                 string           `json:"name"`
	TrialDays            int              `json:"trial_days"`
	Limits               Limits           `json:"limits"`
	Features             []string         `json:"features"`
	Prices               map[string]Price `json:"prices"`
	RecrawlIntervalHours int              `json:"recrawl_interval_hours"`

	has map[string]bool
}

// Has reports whether the plan includes feature.
func (p *Plan) Has(feature string) bool { return p.has[feature] }

// IsTrial reports whether the plan is a time-boxed trial: its credits are
// granted once when it starts, never monthly.
func (p *Plan) IsTrial() bool { return p.TrialDays > 0 }

// IsFree reports whether the plan costs nothing and never lapses.
func (p *Plan) IsFree() bool { return !p.IsTrial() && len(p.Prices) == 0 }

// ExtraBotPrice reports whether one more bot can be bought on this plan.
func (p *Plan) ExtraBotPrice() bool {
	for _, pr := range p.Prices {
		if pr.ExtraBot > 0 {
			return true
		}
	}
	return false
}

// Catalogue is the validated plan list.
type Catalogue struct {
	CreditCosts CreditCosts `json:"credit_costs"`
	Plans       []*Plan     `json:"plans"`

	byKey map[string]*Plan
}

// Plan returns the plan with key, or nil.
func (c *Catalogue) Plan(key string) *Plan { return c.byKey[key] }

// Keys lists the plan keys in catalogue order.
func (c *Catalogue) Keys() []string {
	out := make([]string, len(c.Plans))
	for i, p := range c.Plans {
		out[i] = p.Key
	}
	return out
}

//go:embed plans.json
var plansJSON []byte

// DefaultCatalogue parses the embedded plans.json.
func DefaultCatalogue() (*Catalogue, error) { return ParseCatalogue(plansJSON) }

// ParseCatalogue decodes and validates a catalogue. Unknown fields are
// errors too: a misspelt limit would otherwise read as zero.
func ParseCatalogue(raw []byte) (*Catalogue, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var c Catalogue
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("billing: plan catalogue: %w", err)
	}
	if err := c.validate(); err != nil {
		return nil, fmt.Errorf("billing: plan catalogue: %w", err)
	}
	return &c, nil
}

func (c *Catalogue) validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	cc := c.CreditCosts
	for name, v := range map[string]int64{"chat_reply": cc.ChatReply, "lead_follow_up": cc.LeadFollowUp,
		"ingest_per_page": cc.IngestPerPage, "crawl_page": cc.CrawlPage} {
		if v <= 0 {
			bad("credit_costs.%s must be a positive integer", name)
		}
	}
	if len(c.Plans) == 0 {
		bad("no plans")
	}
	c.byKey = map[string]*Plan{}
	for i, p := range c.Plans {
		if p == nil || p.Key == "" || p.Name == "" {
			bad("plans[%d]: key and name are required", i)
			continue
		}
		if c.byKey[p.Key] != nil {
			bad("plan %q listed twice", p.Key)
		}
		c.byKey[p.Key] = p
		errs = append(errs, p.validate()...)
	}
	for _, key := range []string{PlanTrial, PlanFree} {
		if c.byKey[key] == nil {
			bad("plan %q is required", key)
		}
	}
	if t := c.byKey[PlanTrial]; t != nil && !t.IsTrial() {
		bad("plan %q needs trial_days > 0", PlanTrial)
	}
	if f := c.byKey[PlanFree]; f != nil && !f.IsFree() {
		bad("plan %q must have no prices and no trial", PlanFree)
	}
	return errors.Join(errs...)
}

func (p *Plan) validate() []error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("plan %q: "+format, append([]any{p.Key}, args...)...))
	}
	l := p.Limits
	if l.Chatbots < 1 || l.Documents < 1 || l.UploadBytes < 1 || l.CrawlPages < 1 {
		bad("limits chatbots, documents, upload_bytes and crawl_pages must be at least 1")
	}
	if l.MonthlyCredits < 0 || l.Operators < 0 {
		bad("limits monthly_credits and operators must not be negative")
	}
	if p.TrialDays < 0 || p.RecrawlIntervalHours < 0 {
		bad("trial_days and recrawl_interval_hours must not be negative")
	}
	p.has = map[string]bool{}
	for _, f := range p.Features {
		if !slices.Contains(KnownFeatures, f) {
			bad("unknown feature %q (known: %s)", f, strings.Join(KnownFeatures, ", "))
		}
		p.has[f] = true
	}
	if p.Has(FeatureAutoRecrawl) != (p.RecrawlIntervalHours > 0) {
		bad("recrawl_interval_hours must be set exactly when the plan has %s", FeatureAutoRecrawl)
	}
	if p.IsTrial() && len(p.Prices) > 0 {
		bad("a trial has no prices")
	}
	if len(p.Prices) > 0 {
		for cur, pr := range p.Prices {
			if !slices.Contains(Currencies, cur) {
				bad("unknown currency %q", cur)
			}
			if pr.Monthly <= 0 || pr.ExtraBot < 0 {
				bad("%s: monthly must be positive and extra_bot not negative", cur)
			}
		}
		for _, cur := range Currencies {
			if _, ok := p.Prices[cur]; !ok {
				bad("no %s price", cur)
			}
		}
	}
	return errs
}
