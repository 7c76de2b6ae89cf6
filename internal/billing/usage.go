package billing

import (
	"context"
	"fmt"
	"time"

	"concierge/internal/apperr"
	"concierge/internal/store"
)

// UsageReport is usage against the plan's limits for the current period,
// the body of GET /subscriptions/usage.
type UsageReport struct {
	Plan        string       `json:"plan"`
	PlanName    string       `json:"plan_name"`
	Status      string       `json:"status" enum:"trialing,active,past_due,canceled,expired"`
	PeriodStart time.Time    `json:"period_start" doc:"Start of the current credit period: the first instant of the calendar month, UTC."`
	PeriodEnd   time.Time    `json:"period_end" doc:"End of the current credit period (exclusive): the first instant of next month, UTC, when the monthly allowance is topped up again."`
	Chatbots    UsedOf       `json:"chatbots"`
	Credits     CreditsUsage `json:"credits"`
	Documents   UsedOf       `json:"documents" doc:"Documents and crawled pages in the knowledge base."`
	Operators   UsedOf       `json:"operators"`
}

// UsedOf is a count against its limit.
type UsedOf struct {
	Used  int64 `json:"used"`
	Limit int64 `json:"limit"`
}

// CreditsUsage is the credit side of the period.
type CreditsUsage struct {
	Used             int64 `json:"used" doc:"Credits debited in the current period."`
	Balance          int64 `json:"balance"`
	MonthlyAllowance int64 `json:"monthly_allowance" doc:"What the balance is topped up to at the start of each period (trial: granted once)."`
}

// Usage reports usage against the plan's limits for the current calendar
// month.
func (s *Service) Usage(ctx context.Context, workspaceID int64) (*UsageReport, error) {
	now := s.clock.Now()
	start := monthStart(now)
	u, err := readUsage(ctx, s.db.Reader(), workspaceID, start)
	if store.IsNotFound(err) {
		return nil, apperr.NotFound("workspace not found")
	}
	if err != nil {
		return nil, fmt.Errorf("billing: usage: %w", err)
	}
	docs, err := s.countDocuments(ctx, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("billing: usage: %w", err)
	}
	e := s.resolve(&u.wsRow, now)
	return &UsageReport{
		Plan: e.Plan, PlanName: e.PlanName, Status: e.Status,
		PeriodStart: start, PeriodEnd: start.AddDate(0, 1, 0),
		Chatbots:  UsedOf{Used: u.BotCount, Limit: e.Limits.Chatbots},
		Credits:   CreditsUsage{Used: u.CreditsUsed, Balance: u.Balance, MonthlyAllowance: e.Limits.MonthlyCredits},
		Documents: UsedOf{Used: docs, Limit: e.Limits.Documents},
		Operators: UsedOf{Used: u.Operators, Limit: e.Limits.Operators},
	}, nil
}
