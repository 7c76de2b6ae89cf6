// Package billing owns plans (a catalogue kept as data), entitlements (what
// a workspace may do and how much of it it uses), the credit ledger, and
// subscriptions with the payment provider. Every gate in the code asks
// Entitlements; nothing compares plan names.
package billing

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/clock"
	"concierge/internal/jobs"
	"concierge/internal/store"
)

// Deps are the collaborators of a Service.
type Deps struct {
	DB     *store.DB
	Queue  *jobs.Queue
	Clock  clock.Clock
	Logger *slog.Logger
}

// Service implements plans, entitlements and credits.
type Service struct {
	db    *store.DB
	queue *jobs.Queue
	clock clock.Clock
	log   *slog.Logger
}

// NewService returns the billing service.
func NewService(d Deps) (*Service, error) {
	if d.Clock == nil {
		d.Clock = clock.Real{}
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	return &Service{db: d.DB, queue: d.Queue, clock: d.Clock, log: d.Logger.With("component", "billing")}, nil
}

var errTODO = errors.New("billing: not implemented yet")

// RegisterJobs registers billing's job handlers (monthly credit grants).
func (s *Service) RegisterJobs(pool *jobs.Pool) {}

// StartTrial puts a new workspace on the trial plan and grants its credits.
// It runs inside the sign-up transaction.
func (s *Service) StartTrial(ctx context.Context, tx store.Q, workspaceID int64, now time.Time) error {
	return nil
}

// Entitlements resolves what a workspace may do now.
func (s *Service) Entitlements(ctx context.Context, workspaceID int64) (*Entitlements, error) {
	return nil, errTODO
}

// CheckBotCreation reports whether the workspace may create one more bot
// with POST /bots, inside the caller's transaction: nil, or
// *apperr.SubscriptionRequired when not serving, or *apperr.LimitReached
// when the plan's chatbot allowance is used up.
func (s *Service) CheckBotCreation(ctx context.Context, tx *sqlx.Tx, workspaceID int64) error {
	return errTODO
}

// Entitlements is what GET /auth/me/entitlements shows.
type Entitlements struct {
	Plan     string          `json:"plan"`
	Features map[string]bool `json:"features"`
	Serving  bool            `json:"serving"`
}

// Require returns *apperr.FeatureError unless feature is on.
func (e *Entitlements) Require(feature string) error { return errTODO }
