// Package billing owns plans (a catalogue kept as data), entitlements (what
// a workspace may do and how much of it it uses), the credit ledger, and
// subscriptions with the payment provider. Every gate in the code asks
// Entitlements; nothing compares plan names.
package billing

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"concierge/internal/account"
	"concierge/internal/apperr"
	"concierge/internal/clock"
	"concierge/internal/jobs"
	"concierge/internal/store"
)

// Deps are the collaborators of a Service.
type Deps struct {
	DB     *store.DB
	Queue  *jobs.Queue // nil in one-shot tools (the operator CLI): no jobs then
	Clock  clock.Clock
	Logger *slog.Logger
	// Catalogue overrides the embedded plans.json (tests).
	Catalogue *Catalogue
	// GrantBatch is how many workspaces one run of the monthly grant job
	// looks at before it hands the rest to a follow-up job [500].
	GrantBatch int
}

// DocumentCounter reports how many documents and pages a workspace's
// knowledge base holds. The knowledge area provides it; until then usage
// shows 0.
type DocumentCounter interface {
	CountDocuments(ctx context.Context, workspaceID int64) (int64, error)
}

// Service implements plans, entitlements and credits.
type Service struct {
	db         *store.DB
	queue      *jobs.Queue
	clock      clock.Clock
	log        *slog.Logger
	cat        *Catalogue
	grantBatch int
	// lowMax is the highest credits-low mark of any plan: a debit that
	// leaves more than this cannot have crossed one.
	lowMax int64

	docsMu sync.RWMutex
	docs   DocumentCounter
}

// NewService returns the billing service. It fails when the plan catalogue
// is invalid, so a bad plans.json stops the process at start-up.
func NewService(d Deps) (*Service, error) {
	if d.Clock == nil {
		d.Clock = clock.Real{}
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	cat := d.Catalogue
	if cat == nil {
		var err error
		if cat, err = DefaultCatalogue(); err != nil {
			return nil, err
		}
	}
	if d.GrantBatch <= 0 {
		d.GrantBatch = 500
	}
	s := &Service{db: d.DB, queue: d.Queue, clock: d.Clock, log: d.Logger.With("component", "billing"),
		cat: cat, grantBatch: d.GrantBatch}
	for _, k := range cat.Keys() {
		s.lowMax = max(s.lowMax, lowMark(cat.Plan(k)))
	}
	return s, nil
}

// Catalogue returns the plan catalogue (prices for checkout, costs for
// metering).
func (s *Service) Catalogue() *Catalogue { return s.cat }

// Costs returns the credit cost of each metered action.
func (s *Service) Costs() CreditCosts { return s.cat.CreditCosts }

// SetDocumentCounter plugs in the knowledge base's document count, shown in
// usage. Call it while wiring, before serving.
func (s *Service) SetDocumentCounter(c DocumentCounter) {
	s.docsMu.Lock()
	s.docs = c
	s.docsMu.Unlock()
}

func (s *Service) countDocuments(ctx context.Context, workspaceID int64) (int64, error) {
	s.docsMu.RLock()
	c := s.docs
	s.docsMu.RUnlock()
	if c == nil {
		return 0, nil
	}
	return c.CountDocuments(ctx, workspaceID)
}

// now is the service time, truncated to what PostgreSQL stores, so that an
// entry returned when written equals the same entry read back later.
func (s *Service) now() time.Time { return s.clock.Now().UTC().Truncate(time.Microsecond) }

// WorkspaceByEmail finds a workspace id by its owner's e-mail address, for
// operator commands that name workspaces by e-mail.
func (s *Service) WorkspaceByEmail(ctx context.Context, email string) (int64, error) {
	norm, err := account.NormalizeEmail(email)
	if err != nil {
		return 0, apperr.Invalid("email", err.Error(), "value_error")
	}
	id, err := workspaceIDByEmail(ctx, s.db.Reader(), norm)
	if store.IsNotFound(err) {
		return 0, apperr.NotFound(fmt.Sprintf("no workspace with e-mail address %s", norm))
	}
	if err != nil {
		return 0, fmt.Errorf("billing: find workspace: %w", err)
	}
	return id, nil
}

// monthStart is the first instant of t's calendar month in UTC: credit
// allowances and "used this period" follow calendar months.
func monthStart(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// monthKey names t's calendar month in idempotency keys, e.g. 2025-07.
func monthKey(t time.Time) string { return t.UTC().Format("2006-01") }

// planList is the catalogue's plan keys for messages.
func (s *Service) planList(skipTrial bool) string {
	var keys []string
	for _, p := range s.cat.Plans {
		if skipTrial && p.IsTrial() {
			continue
		}
		keys = append(keys, p.Key)
	}
	return strings.Join(keys, ", ")
}
