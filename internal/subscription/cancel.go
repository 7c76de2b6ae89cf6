package subscription

import (
	"context"
	"fmt"

	"concierge/internal/apperr"
	"concierge/internal/store"
)

// CancelBotSubscription cancels a bot's own subscription with the provider
// and then records it, before the bot is deleted. If the provider cannot be
// reached the error says so and nothing changes here: the bot must stay.
func (s *Service) CancelBotSubscription(ctx context.Context, workspaceID, botID, subscriptionID int64) error {
	var sub Subscription
	err := store.Get(ctx, s.db.Reader(), &sub, `SELECT `+columns+` FROM subscriptions WHERE id = ? AND workspace_id = ?`,
		subscriptionID, workspaceID)
	if store.IsNotFound(err) {
		return nil // nothing to cancel
	}
	if err != nil {
		return fmt.Errorf("subscription: cancel: %w", err)
	}
	if final(sub.Status) {
		return nil
	}
	if sub.Provider != s.provider.Name() {
		return apperr.Conflict("the bot's subscription is with another payment provider; cancel it there first")
	}
	if _, err := s.provider.CancelSubscription(ctx, sub.ProviderID, false); err != nil {
		return providerError("cancel the bot's subscription, so the bot was not deleted", err)
	}
	return s.setStatus(ctx, sub.ProviderID, StatusCancelled, nil)
}
