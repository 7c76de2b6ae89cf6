package subscription

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"

	"concierge/internal/apperr"
	"concierge/internal/outbox"
	"concierge/internal/payment"
	"concierge/internal/store"
)

// WebhookResult says what a provider webhook did.
type WebhookResult struct {
	Duplicate bool
	Ignored   bool
	Type      string
}

// HandleWebhook verifies and applies one provider webhook. The signature is
// over the raw body; an event seen before (same event id, or the same signed
// body under a new id) changes nothing. Events arrive at least once and in
// any order: charged before activated activates; anything after a cancel
// leaves it cancelled.
func (s *Service) HandleWebhook(ctx context.Context, body []byte, signature, eventID string) (*WebhookResult, error) {
	if !s.provider.VerifyWebhook(body, signature) {
		return nil, apperr.BadRequest("invalid webhook signature")
	}
	ev, err := s.provider.ParseWebhook(body, eventID)
	if err != nil {
		return nil, apperr.BadRequest("malformed webhook: " + err.Error())
	}
	res := &WebhookResult{Type: ev.Type}
	fresh, err := s.remember(ctx, ev)
	if err != nil {
		return nil, err
	}
	if !fresh {
		res.Duplicate = true
		return res, nil
	}
	if ev.SubscriptionID == "" {
		res.Ignored = true
		return res, nil
	}
	if _, err := byProviderID(ctx, s.db.Reader(), s.provider.Name(), ev.SubscriptionID, false); store.IsNotFound(err) {
		s.log.InfoContext(ctx, "webhook for an unknown subscription ignored", "type", ev.Type)
		res.Ignored = true
		return res, nil
	} else if err != nil {
		return nil, err
	}
	switch ev.Type {
	case "subscription.activated", "subscription.charged", "subscription.resumed":
		_, err = s.activate(ctx, ev.SubscriptionID, ev.Subscription, "webhook")
	case "subscription.authenticated":
		err = s.setStatus(ctx, ev.SubscriptionID, StatusAuthenticated, ev.Subscription)
	case "subscription.pending":
		err = s.setStatus(ctx, ev.SubscriptionID, StatusPending, ev.Subscription)
	case "subscription.halted":
		err = s.setStatus(ctx, ev.SubscriptionID, StatusHalted, ev.Subscription)
	case "subscription.cancelled":
		err = s.setStatus(ctx, ev.SubscriptionID, StatusCancelled, ev.Subscription)
	case "subscription.completed":
		err = s.setStatus(ctx, ev.SubscriptionID, StatusCompleted, ev.Subscription)
	case "subscription.expired":
		err = s.setStatus(ctx, ev.SubscriptionID, StatusExpired, ev.Subscription)
	default:
		res.Ignored = true
	}
	if err != nil {
		// Forget the event so the provider's retry is processed.
		s.forget(ev)
		return nil, err
	}
	return res, nil
}

// remember records the event (by id and by body hash) and reports whether
// it is new. The table keeps events for good, well beyond the provider's
// retry window.
func (s *Service) remember(ctx context.Context, ev *payment.WebhookEvent) (bool, error) {
	fresh := true
	err := s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		fresh = true
		for _, id := range []string{ev.ID, "body:" + ev.BodyHash} {
			if id == "" || id == "body:" {
				continue
			}
			n, err := store.Exec(ctx, tx, `INSERT INTO payment_events (provider, event_id, event_type, received_at)
				VALUES (?, ?, ?, ?) ON CONFLICT (provider, event_id) DO NOTHING`, s.provider.Name(), id, ev.Type, s.clock.Now())
			if err != nil {
				return err
			}
			if n == 0 {
				fresh = false
			}
		}
		if !fresh {
			return errDuplicate
		}
		return nil
	})
	if err == errDuplicate {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("subscription: webhook dedupe: %w", err)
	}
	return true, nil
}

var errDuplicate = apperr.Conflict("duplicate event")

func (s *Service) forget(ev *payment.WebhookEvent) {
	ctx := context.Background()
	for _, id := range []string{ev.ID, "body:" + ev.BodyHash} {
		if _, err := store.Exec(ctx, s.db.Writer(), `DELETE FROM payment_events WHERE provider = ? AND event_id = ?`,
			s.provider.Name(), id); err != nil {
			s.log.Warn("forget webhook event", "err", err)
		}
	}
}

// setStatus moves a subscription to status unless it already ended.
func (s *Service) setStatus(ctx context.Context, providerSubID, status string, ps *payment.Subscription) error {
	return s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		sub, err := byProviderID(ctx, tx, s.provider.Name(), providerSubID, true)
		if err != nil {
			return err
		}
		if final(sub.Status) || sub.Status == status {
			return nil
		}
		now := s.clock.Now()
		var cancelled any
		if status == StatusCancelled {
			cancelled = now
		}
		if ps != nil && ps.CurrentEnd != nil {
			sub.CurrentPeriodStart, sub.CurrentPeriodEnd = ps.CurrentStart, ps.CurrentEnd
		}
		if _, err := store.Exec(ctx, tx, `UPDATE subscriptions SET status = ?, cancelled_at = COALESCE(cancelled_at, ?),
			current_period_start = ?, current_period_end = ?, updated_at = ? WHERE id = ?`,
			status, cancelled, sub.CurrentPeriodStart, sub.CurrentPeriodEnd, now, sub.ID); err != nil {
			return err
		}
		if err := s.billing.SyncPlanTx(ctx, tx, sub.WorkspaceID); err != nil {
			return err
		}
		var botID int64
		if sub.BotID != nil {
			botID = *sub.BotID
		}
		_, err = outbox.Add(ctx, tx, now, outbox.Event{WorkspaceID: sub.WorkspaceID, BotID: botID, Type: "subscription." + status,
			Data: map[string]any{"subscription_id": sub.ProviderID, "status": status}})
		return err
	})
}
