package subscription

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/apperr"
	"concierge/internal/billing"
	"concierge/internal/outbox"
	"concierge/internal/payment"
	"concierge/internal/store"
)

// Purposes of a checkout.
const (
	// PurposeExtraBot buys one more bot on the plan the workspace is on, at
	// the plan's extra_bot price.
	PurposeExtraBot = "extra_bot"
	// PurposePlan buys a plan together with a new bot, at the plan's
	// monthly price; the workspace moves to that plan when it activates.
	PurposePlan = "plan"
)

// CheckoutInput asks for a new bot with its own subscription.
type CheckoutInput struct {
	Plan     string // "" means: an extra bot on the current plan, or starter when there is none to extend
	Currency string // "" means: INR for India, USD elsewhere
	// Bot holds the new bot's fields (name and any settings of POST /bots).
	Bot map[string]json.RawMessage
	// Prefill is shown on the payment form.
	Email, Name, Country string
}

// Checkout is the payload the browser hands to the provider's checkout.
type Checkout struct {
	Subscription *Subscription
	KeyID        string
	Description  string
	ShortURL     string
	// SandboxPaymentID and SandboxSignature let a local caller complete a
	// sandbox checkout with POST /bots/checkout/verify at once.
	SandboxPaymentID, SandboxSignature string
}

// Checkout creates the provider subscription for a new bot and records it;
// the bot is created when the payment is confirmed (Verify or the webhook).
func (s *Service) Checkout(ctx context.Context, workspaceID int64, in CheckoutInput) (*Checkout, error) {
	if _, ok := in.Bot["name"]; !ok {
		return nil, apperr.Invalid("body.name", "Field required", "missing")
	}
	ent, err := s.billing.Entitlements(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	if !ent.CanCheckout {
		return nil, apperr.Conflict("a payment is past due: settle it before adding a bot")
	}
	currency := strings.ToUpper(in.Currency)
	if currency == "" {
		currency = "USD"
		if strings.EqualFold(in.Country, "IN") {
			currency = "INR"
		}
	}
	plan, purpose, amount, err := s.price(ent, in.Plan, currency)
	if err != nil {
		return nil, err
	}
	planID, ok := s.planIDs(plan.Key, currency)
	if !ok {
		return nil, apperr.Unavailable(fmt.Sprintf("the %s plan is not available in %s yet", plan.Name, currency), time.Hour, nil)
	}
	request, err := json.Marshal(in.Bot)
	if err != nil {
		return nil, fmt.Errorf("subscription: checkout: %w", err)
	}
	ps, err := s.provider.CreateSubscription(ctx, payment.CreateSubscriptionRequest{PlanID: planID, Notes: map[string]string{
		"workspace_id": strconv.FormatInt(workspaceID, 10), "purpose": purpose, "plan": plan.Key}})
	if err != nil {
		return nil, providerError("start the checkout", err)
	}
	now := s.clock.Now()
	sub := &Subscription{WorkspaceID: workspaceID, Purpose: purpose, BotRequest: string(request), Provider: s.provider.Name(),
		ProviderID: ps.ID, ProviderPlanID: planID, Plan: plan.Key, Currency: currency, AmountMinor: amount,
		Status: StatusCreated, CreatedAt: now, UpdatedAt: now}
	err = store.Get(ctx, s.db.Writer(), &sub.ID, `INSERT INTO subscriptions (workspace_id, purpose, bot_request, provider,
		provider_subscription_id, provider_plan_id, plan, currency, amount_minor, status, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, sub.WorkspaceID, sub.Purpose, sub.BotRequest, sub.Provider,
		sub.ProviderID, sub.ProviderPlanID, sub.Plan, sub.Currency, sub.AmountMinor, sub.Status, now, now)
	if err != nil {
		return nil, fmt.Errorf("subscription: checkout: %w", err)
	}
	out := &Checkout{Subscription: sub, KeyID: s.provider.KeyID(), ShortURL: ps.ShortURL,
		Description: fmt.Sprintf("%s plan: one chatbot", plan.Name)}
	if purpose == PurposeExtraBot {
		out.Description = fmt.Sprintf("One more chatbot on the %s plan", plan.Name)
	}
	if sb, ok := s.provider.(*payment.Sandbox); ok {
		out.SandboxPaymentID = sb.NewPaymentID()
		out.SandboxSignature = sb.SignPayment(ps.ID, out.SandboxPaymentID)
	}
	return out, nil
}

// price decides what the checkout buys: one more bot on the plan the
// workspace already has (its extra_bot price), or the requested plan with
// a bot (its monthly price).
func (s *Service) price(ent *billing.Entitlements, planKey, currency string) (*billing.Plan, string, int64, error) {
	cat := s.billing.Catalogue()
	current := cat.Plan(ent.Plan)
	onPaidPlan := ent.Serving && ent.Status == billing.StatusActive && current != nil && len(current.Prices) > 0
	if planKey == "" {
		planKey = "starter"
		if onPaidPlan {
			planKey = current.Key
		}
	}
	plan := cat.Plan(planKey)
	if plan == nil || len(plan.Prices) == 0 {
		return nil, "", 0, apperr.Invalid("body.plan", "choose a paid plan: starter, standard or pro", "enum")
	}
	price, ok := plan.Prices[currency]
	if !ok {
		return nil, "", 0, apperr.Invalid("body.currency", "the plan is sold in INR and USD", "enum")
	}
	if onPaidPlan && plan.Key == current.Key && price.ExtraBot > 0 {
		return plan, PurposeExtraBot, price.ExtraBot, nil
	}
	return plan, PurposePlan, price.Monthly, nil
}

// Verify completes a checkout from the browser's callback. The signature is
// checked against the subscription id from our own records, never the one
// the caller sent, and the subscription must be the caller's. It returns the
// bot the subscription paid for, creating it unless the webhook already did.
func (s *Service) Verify(ctx context.Context, workspaceID int64, providerSubID, paymentID, signature string) (*Subscription, error) {
	sub, err := byProviderID(ctx, s.db.Reader(), s.provider.Name(), providerSubID, false)
	if store.IsNotFound(err) {
		return nil, apperr.NotFound("no checkout with this subscription id")
	}
	if err != nil {
		return nil, fmt.Errorf("subscription: verify: %w", err)
	}
	if sub.WorkspaceID != workspaceID {
		return nil, apperr.Forbidden("this subscription belongs to another workspace")
	}
	if !s.provider.VerifyPaymentSignature(sub.ProviderID, paymentID, signature) {
		return nil, apperr.BadRequest("invalid payment signature")
	}
	return s.activate(ctx, sub.ProviderID, nil, "verify")
}

// activate marks a subscription active and, the first time, creates the bot
// it paid for, in one transaction. Whichever of the verify callback and the
// activation webhook gets here second finds the bot and changes nothing; a
// cancelled (or completed, expired) subscription is never reactivated.
func (s *Service) activate(ctx context.Context, providerSubID string, ps *payment.Subscription, via string) (*Subscription, error) {
	var sub *Subscription
	err := s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		var err error
		sub, err = byProviderID(ctx, tx, s.provider.Name(), providerSubID, true)
		if err != nil {
			return err
		}
		if final(sub.Status) {
			return nil
		}
		now := s.clock.Now()
		changed := sub.Status != StatusActive
		if ps != nil && ps.CurrentEnd != nil && (sub.CurrentPeriodEnd == nil || !ps.CurrentEnd.Equal(*sub.CurrentPeriodEnd)) {
			sub.CurrentPeriodStart, sub.CurrentPeriodEnd = ps.CurrentStart, ps.CurrentEnd
			changed = true
		}
		if sub.BotID == nil {
			var fields map[string]json.RawMessage
			if err := json.Unmarshal([]byte(sub.BotRequest), &fields); err != nil {
				return fmt.Errorf("stored bot request: %w", err)
			}
			// The payment settles the bot: no allowance or feature check.
			b, err := s.bots.CreateTx(ctx, tx, sub.WorkspaceID, fields, &sub.ID, nil)
			if err != nil {
				return err
			}
			sub.BotID = &b.ID
			changed = true
		}
		if !changed {
			return nil
		}
		sub.Status, sub.UpdatedAt = StatusActive, now
		if _, err := store.Exec(ctx, tx, `UPDATE subscriptions SET status = ?, bot_id = ?, current_period_start = ?,
			current_period_end = ?, updated_at = ? WHERE id = ?`, sub.Status, sub.BotID, sub.CurrentPeriodStart,
			sub.CurrentPeriodEnd, now, sub.ID); err != nil {
			return err
		}
		if err := s.billing.SyncPlanTx(ctx, tx, sub.WorkspaceID); err != nil {
			return err
		}
		_, err = outbox.Add(ctx, tx, now, outbox.Event{WorkspaceID: sub.WorkspaceID, BotID: *sub.BotID,
			Type: "subscription.activated", Data: map[string]any{"subscription_id": sub.ProviderID, "bot_id": *sub.BotID,
				"plan": sub.Plan, "via": via}})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("subscription: activate: %w", err)
	}
	return sub, nil
}

// providerError turns a provider failure into what the caller should do:
// retry later for temporary failures, otherwise a plain failure.
func providerError(what string, err error) error {
	if payment.IsTemporary(err) {
		return apperr.Unavailable("the payment provider is unavailable; could not "+what+"; retry later", 30*time.Second, err)
	}
	return apperr.Wrap(apperr.KindUnavailable, "the payment provider refused to "+what, err)
}
