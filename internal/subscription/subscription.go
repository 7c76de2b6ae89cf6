// Package subscription owns paid subscriptions with the payment provider:
// checkout for a new bot with its own subscription, the verify callback and
// the provider's webhooks (whichever arrives first creates the bot, the
// second changes nothing), status changes, cancellation before a bot is
// deleted, and invoice history. The plan a workspace is on follows from its
// active subscriptions (billing decides how).
package subscription

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/billing"
	"concierge/internal/bot"
	"concierge/internal/clock"
	"concierge/internal/payment"
	"concierge/internal/store"
)

// Billing is what subscriptions ask of billing.
type Billing interface {
	Entitlements(ctx context.Context, workspaceID int64) (*billing.Entitlements, error)
	Catalogue() *billing.Catalogue
	// SyncPlanTx sets the workspace's plan and status from its
	// subscriptions, inside the caller's transaction.
	SyncPlanTx(ctx context.Context, tx *sqlx.Tx, workspaceID int64) error
}

// Bots creates the bot a paid checkout was for.
type Bots interface {
	CreateTx(ctx context.Context, tx *sqlx.Tx, workspaceID int64, fields map[string]json.RawMessage,
		subscriptionID *int64, gate bot.Gate) (*bot.Bot, error)
}

// PlanIDs maps plan key and currency to the provider's plan id. Razorpay
// bills a subscription against a plan created in its dashboard.
type PlanIDs func(plan, currency string) (string, bool)

// Service implements the subscription rules.
type Service struct {
	db       *store.DB
	provider payment.Provider
	billing  Billing
	bots     Bots
	planIDs  PlanIDs
	clock    clock.Clock
	log      *slog.Logger
}

// Deps are the collaborators of a Service.
type Deps struct {
	DB       *store.DB
	Provider payment.Provider
	Billing  Billing
	Bots     Bots
	PlanIDs  PlanIDs
	Clock    clock.Clock
	Logger   *slog.Logger
}

// NewService returns the subscription service.
func NewService(d Deps) *Service {
	if d.Clock == nil {
		d.Clock = clock.Real{}
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if d.PlanIDs == nil {
		d.PlanIDs = func(plan, currency string) (string, bool) { return "plan_" + plan + "_" + currency, true }
	}
	return &Service{db: d.DB, provider: d.Provider, billing: d.Billing, bots: d.Bots, planIDs: d.PlanIDs,
		clock: d.Clock, log: d.Logger.With("component", "subscription")}
}

// Provider returns the payment provider in use.
func (s *Service) Provider() payment.Provider { return s.provider }

// Subscription is a subscription row.
type Subscription struct {
	ID                 int64      `db:"id"`
	WorkspaceID        int64      `db:"workspace_id"`
	Purpose            string     `db:"purpose"`
	BotID              *int64     `db:"bot_id"`
	BotRequest         string     `db:"bot_request"`
	Provider           string     `db:"provider"`
	ProviderID         string     `db:"provider_subscription_id"`
	ProviderPlanID     string     `db:"provider_plan_id"`
	Plan               string     `db:"plan"`
	Currency           string     `db:"currency"`
	AmountMinor        int64      `db:"amount_minor"`
	Status             string     `db:"status"`
	CurrentPeriodStart *time.Time `db:"current_period_start"`
	CurrentPeriodEnd   *time.Time `db:"current_period_end"`
	CancelledAt        *time.Time `db:"cancelled_at"`
	CreatedAt          time.Time  `db:"created_at"`
	UpdatedAt          time.Time  `db:"updated_at"`
}

const columns = `id, workspace_id, purpose, bot_id, bot_request, provider, provider_subscription_id, provider_plan_id,
	plan, currency, amount_minor, status, current_period_start, current_period_end, cancelled_at, created_at, updated_at`

// Statuses, as the provider names them.
const (
	StatusCreated       = "created"
	StatusAuthenticated = "authenticated"
	StatusActive        = "active"
	StatusPending       = "pending"
	StatusHalted        = "halted"
	StatusCancelled     = "cancelled"
	StatusCompleted     = "completed"
	StatusExpired       = "expired"
)

// final statuses never change again: a cancelled subscription is never
// reactivated by a late or replayed event.
func final(status string) bool {
	return status == StatusCancelled || status == StatusCompleted || status == StatusExpired
}

func byProviderID(ctx context.Context, q store.Q, provider, id string, lock bool) (*Subscription, error) {
	query := `SELECT ` + columns + ` FROM subscriptions WHERE provider = ? AND provider_subscription_id = ?`
	if lock {
		query += forUpdate(q)
	}
	var sub Subscription
	if err := store.Get(ctx, q, &sub, query, provider, id); err != nil {
		return nil, err
	}
	return &sub, nil
}

// forUpdate locks the row on PostgreSQL; SQLite transactions already hold
// the database's write lock from BEGIN IMMEDIATE.
func forUpdate(q store.Q) string {
	if q.Rebind("?") == "$1" {
		return " FOR UPDATE"
	}
	return ""
}

// List returns a workspace's subscriptions, newest first.
func (s *Service) List(ctx context.Context, workspaceID int64) ([]Subscription, error) {
	out := []Subscription{}
	err := store.Select(ctx, s.db.Reader(), &out, `SELECT `+columns+` FROM subscriptions WHERE workspace_id = ?
		ORDER BY id DESC`, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("subscription: list: %w", err)
	}
	return out, nil
}
