package billing

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/apperr"
	"concierge/internal/store"
)

// Plan statuses as shown to clients. The stored plan_status is one of
// trialing, active, past_due, canceled, expired; the shown status also
// depends on the clock (a trial past its end is expired).
const (
	StatusTrialing = "trialing"
	StatusActive   = "active"
	StatusPastDue  = "past_due"
	StatusCanceled = "canceled"
	StatusExpired  = "expired"
)

// PaymentGrace is how long a paid period that ended without a renewal
// keeps serving (shown as past_due) before the workspace stops serving.
// Renewals arrive by payment webhook; the grace absorbs a late one and a
// retried card payment.
const PaymentGrace = 3 * 24 * time.Hour

// Entitlements is what a workspace may do now, resolved from its plan, its
// status and the clock. It is exactly the body of GET /auth/me/entitlements.
type Entitlements struct {
	Plan                    string           `json:"plan" doc:"Plan key: trial, free, starter, standard or pro. Branch on limits and features, not on this."`
	PlanName                string           `json:"plan_name"`
	Status                  string           `json:"status" enum:"trialing,active,past_due,canceled,expired" doc:"trialing: in the free trial; active: paid or free plan in good standing; past_due: a paid period ended without renewal, still serving for a 3-day grace; canceled: cancelled, serving until period_end; expired: trial over or grace spent, not serving."`
	TrialEndsAt             *time.Time       `json:"trial_ends_at" doc:"End of the trial (RFC 3339), or null when not on the trial."`
	PeriodEnd               *time.Time       `json:"period_end" doc:"End of the paid period (RFC 3339), or null when the plan has none (trial, free, plans set by an operator)."`
	Limits                  Limits           `json:"limits"`
	Features                map[string]bool  `json:"features" doc:"Every known feature (auto_recrawl, lead_intelligence, lead_export, journey_analytics, email_validation, live_chat, custom_branding) with whether the workspace has it now. All false while not serving."`
	Usage                   EntitlementUsage `json:"usage"`
	CreditCosts             CreditCosts      `json:"credit_costs" doc:"What metered actions cost, from the plan catalogue."`
	RecrawlIntervalHours    int              `json:"recrawl_interval_hours" doc:"How often auto-recrawl runs on this plan; 0 when the plan has none."`
	Serving                 bool             `json:"serving" doc:"Whether the workspace's bots answer visitors. False for an expired trial or a lapsed subscription: bots are then offline."`
	CanCreateBot            bool             `json:"can_create_bot" doc:"POST /bots will succeed: serving and fewer bots than limits.chatbots."`
	NextBotRequiresCheckout bool             `json:"next_bot_requires_checkout" doc:"The allowance is used and the plan sells extra bots: add one through POST /bots/checkout."`
	CanCheckout             bool             `json:"can_checkout" doc:"A checkout (a plan, or an extra bot) may be started now; false while a payment is past due."`

	cat    *Catalogue
	reason string // why the workspace is not serving
}

// EntitlementUsage is current usage against the limits.
type EntitlementUsage struct {
	Chatbots              int64 `json:"chatbots" doc:"Bots in the workspace."`
	CreditsBalance        int64 `json:"credits_balance"`
	CreditsUsedThisPeriod int64 `json:"credits_used_this_period" doc:"Credits debited since the start of the current calendar month (UTC)."`
	Operators             int64 `json:"operators" doc:"Live-chat operator accounts."`
}

// Require returns nil when the workspace has feature now, or a
// *apperr.FeatureError (403 feature_not_available) saying why not.
func (e *Entitlements) Require(feature string) error {
	if e.Features[feature] {
		return nil
	}
	msg := fmt.Sprintf("%s is not included in the %s plan", featureTitle(feature), e.PlanName)
	switch {
	case !e.Serving:
		msg = fmt.Sprintf("%s is unavailable: %s", featureTitle(feature), e.reason)
	case e.cat != nil:
		var on []string
		for _, p := range e.cat.Plans {
			if p.Has(feature) && !p.IsTrial() {
				on = append(on, p.Name)
			}
		}
		if len(on) > 0 {
			msg += "; it is available on " + strings.Join(on, ", ")
		}
	}
	return &apperr.FeatureError{Feature: feature, Message: msg}
}

// Limit returns the plan's limit called name (chatbots, monthly_credits,
// documents, upload_bytes, crawl_pages, operators), 0 for unknown names.
func (e *Entitlements) Limit(name string) int64 {
	if f := limitNames[name]; f != nil {
		return f(e.Limits)
	}
	return 0
}

func featureTitle(f string) string {
	s := strings.ReplaceAll(f, "_", " ")
	return strings.ToUpper(s[:1]) + s[1:]
}

// Entitlements resolves what a workspace may do now, on the service clock.
func (s *Service) Entitlements(ctx context.Context, workspaceID int64) (*Entitlements, error) {
	now := s.clock.Now()
	u, err := readUsage(ctx, s.db.Reader(), workspaceID, monthStart(now))
	if store.IsNotFound(err) {
		return nil, apperr.NotFound("workspace not found")
	}
	if err != nil {
		return nil, fmt.Errorf("billing: entitlements: %w", err)
	}
	e := s.resolve(&u.wsRow, now)
	e.Usage.Operators = u.Operators
	e.Usage.CreditsUsedThisPeriod = u.CreditsUsed
	return e, nil
}

// Standing is Entitlements without the usage counts: one row read, for
// callers that need only the plan and whether the workspace is serving.
func (s *Service) Standing(ctx context.Context, workspaceID int64) (*Entitlements, error) {
	w, err := readWorkspace(ctx, s.db.Reader(), s.db.Dialect(), workspaceID, false)
	if store.IsNotFound(err) {
		return nil, apperr.NotFound("workspace not found")
	}
	if err != nil {
		return nil, fmt.Errorf("billing: standing: %w", err)
	}
	return s.resolve(w, s.clock.Now()), nil
}

// StandingOf is Standing for a workspace row another query read
// (StandingColumns).
func (s *Service) StandingOf(r *StandingRow) *Entitlements {
	return s.resolve(&r.wsRow, s.clock.Now())
}

// CheckBotCreation reports whether the workspace may create one more bot
// with POST /bots, inside the caller's transaction: nil, or
// *apperr.SubscriptionRequired when not serving, or *apperr.LimitReached
// when the plan's chatbot allowance is used up. On PostgreSQL it locks the
// workspace row until the caller commits, so two concurrent creations
// cannot both take the last free slot.
func (s *Service) CheckBotCreation(ctx context.Context, tx *sqlx.Tx, workspaceID int64) error {
	w, err := readWorkspace(ctx, tx, s.db.Dialect(), workspaceID, true)
	if store.IsNotFound(err) {
		return apperr.NotFound("workspace not found")
	}
	if err != nil {
		return fmt.Errorf("billing: check bot creation: %w", err)
	}
	e := s.resolve(w, s.clock.Now())
	if !e.Serving {
		return &apperr.SubscriptionRequired{Message: e.reason}
	}
	if e.CanCreateBot {
		return nil
	}
	msg := fmt.Sprintf("the %s plan includes %d bot(s) and all are in use; ", e.PlanName, e.Limits.Chatbots)
	if e.NextBotRequiresCheckout {
		msg += "add a bot with its own subscription via POST /bots/checkout"
	} else {
		msg += "upgrade the plan to add more"
	}
	return &apperr.LimitReached{Limit: "chatbots", Max: e.Limits.Chatbots, Message: msg}
}

// resolve turns a workspace row into entitlements (usage counts other than
// bots and balance are left to the caller).
func (s *Service) resolve(w *wsRow, now time.Time) *Entitlements {
	p := s.cat.Plan(w.Plan)
	if p == nil {
		// A plan removed from the catalogue while workspaces still use it
		// is an operator mistake; serve them as Free rather than fail
		// every request, and say so loudly.
		s.log.Error("workspace on a plan missing from the catalogue; treated as free",
			"workspace_id", w.ID, "plan", w.Plan)
		p = s.cat.Plan(PlanFree)
	}
	e := &Entitlements{
		Plan: p.Key, PlanName: p.Name, Limits: p.Limits, CreditCosts: s.cat.CreditCosts,
		RecrawlIntervalHours: p.RecrawlIntervalHours, Features: map[string]bool{},
		Usage: EntitlementUsage{Chatbots: w.BotCount, CreditsBalance: w.Balance},
		cat:   s.cat,
	}
	if w.PeriodEnd != nil {
		e.PeriodEnd = seconds(*w.PeriodEnd)
	}
	e.Status, e.Serving, e.reason = status(p, w, now)
	if w.Status == StatusTrialing {
		ends := trialEnd(p, w)
		e.TrialEndsAt = seconds(ends)
	}
	for _, f := range KnownFeatures {
		e.Features[f] = e.Serving && p.Has(f)
	}
	e.CanCreateBot = e.Serving && w.BotCount < p.Limits.Chatbots
	e.NextBotRequiresCheckout = e.Serving && w.BotCount >= p.Limits.Chatbots && p.ExtraBotPrice()
	e.CanCheckout = e.Status != StatusPastDue
	return e
}

// status derives the shown status and whether the workspace is serving,
// with the reason when it is not.
func status(p *Plan, w *wsRow, now time.Time) (shown string, serving bool, reason string) {
	if p.IsFree() {
		return StatusActive, true, ""
	}
	lapsed := "the subscription is not active; choose a plan to continue"
	switch w.Status {
	case StatusTrialing:
		ends := trialEnd(p, w)
		if now.Before(ends) {
			return StatusTrialing, true, ""
		}
		return StatusExpired, false, fmt.Sprintf("the free trial ended on %s; choose a plan to continue", ends.Format("2006-01-02"))
	case StatusActive, StatusPastDue:
		if w.PeriodEnd == nil {
			return w.Status, true, ""
		}
		switch {
		case w.Status == StatusActive && now.Before(*w.PeriodEnd):
			return StatusActive, true, ""
		case now.Before(w.PeriodEnd.Add(PaymentGrace)):
			return StatusPastDue, true, ""
		}
		return StatusExpired, false, "the last payment did not arrive; renew the subscription to continue"
	case StatusCanceled:
		if w.PeriodEnd != nil && now.Before(*w.PeriodEnd) {
			return StatusCanceled, true, ""
		}
		return StatusCanceled, false, lapsed
	}
	return StatusExpired, false, lapsed
}

// trialEnd is when the trial ends. Rows from before trials were recorded
// have no end; their trial runs from sign-up.
func trialEnd(p *Plan, w *wsRow) time.Time {
	if w.TrialEndsAt != nil {
		return *w.TrialEndsAt
	}
	days := p.TrialDays
	if days == 0 {
		days = 14
	}
	return w.CreatedAt.AddDate(0, 0, days)
}

// seconds is t in UTC at the precision every API timestamp has.
func seconds(t time.Time) *time.Time {
	t = t.UTC().Truncate(time.Second)
	return &t
}
