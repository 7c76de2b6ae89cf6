package httpapi

import (
	"context"
	"net/http"

	"concierge/internal/billing"
)

type entitlementsOutput struct {
	Body *billing.Entitlements
}

type balanceOutput struct {
	Body struct {
		Balance      int64   `json:"balance" doc:"Credits available now; never negative."`
		CurrencyUnit string  `json:"currency_unit" enum:"credit" doc:"Always credit: balances are counted in credits, not money."`
		UpdatedAt    *string `json:"updated_at" doc:"When the balance last changed (RFC 3339), or null before the first ledger entry."`
	}
}

type historyInput struct {
	Page  int `query:"page" default:"1" minimum:"1" doc:"Page number, from 1."`
	Limit int `query:"limit" default:"50" minimum:"1" maximum:"200" doc:"Entries per page, at most 200."`
}

// ledgerItem is one ledger entry as the API shows it.
type ledgerItem struct {
	ID             int64  `json:"id"`
	Delta          int64  `json:"delta" doc:"Change of the balance: positive for grants, negative for debits."`
	BalanceAfter   int64  `json:"balance_after" doc:"Balance right after this entry."`
	Kind           string `json:"kind" enum:"grant,debit,adjustment"`
	Reason         string `json:"reason"`
	IdempotencyKey string `json:"idempotency_key" doc:"What the entry is for (e.g. grant:monthly:2025-07); one entry per key and workspace."`
	CreatedAt      string `json:"created_at"`
}

type historyOutput struct {
	Body struct {
		Items []ledgerItem `json:"items"`
		Total int          `json:"total"`
		Page  int          `json:"page"`
		Limit int          `json:"limit"`
	}
}

type usageOutput struct {
	Body *billing.UsageReport
}

func (s *Server) billingRoutes() {
	tags := []string{"Billing"}
	register(s, route{id: "get-entitlements", method: http.MethodGet, path: "/auth/me/entitlements", tags: tags,
		creds: credWorkspace, limit: limitRead, summary: "Plan limits, features, usage and what the workspace may do now",
		desc: "The source of truth for every gate: branch on limits, features and the derived booleans, never on " +
			"the plan name. serving is false when the trial has ended (14 days after sign-up) or a paid period " +
			"lapsed beyond a 3-day grace; bots are then offline and every feature reads false. can_create_bot " +
			"says POST /bots will succeed; when the allowance is used and next_bot_requires_checkout is true, a " +
			"further bot is bought with its own subscription through POST /bots/checkout. credit_costs are the " +
			"catalogue's prices in credits of each metered action (a chat reply, a lead follow-up, an ingested " +
			"page, a crawled page); they are data and may change without an API change. Credits used count " +
			"from the start of the calendar month (UTC)."},
		func(ctx context.Context, _ *noInput) (*entitlementsOutput, error) {
			e, err := s.billing.Entitlements(ctx, principal(ctx).WorkspaceID())
			if err != nil {
				return nil, err
			}
			return &entitlementsOutput{Body: e}, nil
		})

	register(s, route{id: "get-credit-balance", method: http.MethodGet, path: "/credits/balance", tags: tags,
		creds: credWorkspace, limit: limitRead, summary: "Current credit balance",
		desc: "Credits are spent by metered actions at the costs listed in credit_costs of GET /auth/me/entitlements. " +
			"At the start of each calendar month (UTC) the balance is topped up to the plan's monthly_credits; " +
			"credits above that (bought or granted) are kept, and unused allowance does not accumulate beyond it. " +
			"An action the balance cannot cover answers 402 insufficient_credits; the balance never goes negative."},
		func(ctx context.Context, _ *noInput) (*balanceOutput, error) {
			b, err := s.billing.BalanceDetail(ctx, principal(ctx).WorkspaceID())
			if err != nil {
				return nil, err
			}
			out := &balanceOutput{}
			out.Body.Balance = b.Balance
			out.Body.CurrencyUnit = "credit"
			if b.UpdatedAt != nil {
				at := timestamp(*b.UpdatedAt)
				out.Body.UpdatedAt = &at
			}
			return out, nil
		})

	register(s, route{id: "get-credit-history", method: http.MethodGet, path: "/credits/history", tags: tags,
		creds: credWorkspace, limit: limitRead, summary: "Credit ledger entries, newest first",
		desc: "Every change of the balance is one append-only entry: grants (trial, monthly allowance, plan " +
			"change, purchases, operator grants) and debits (metered actions). Each carries the balance right " +
			"after it. Paginated with page (from 1) and limit (default 50, at most 200; more is a 422).",
		errors: []int{http.StatusUnprocessableEntity}},
		func(ctx context.Context, in *historyInput) (*historyOutput, error) {
			items, total, err := s.billing.History(ctx, principal(ctx).WorkspaceID(), in.Page, in.Limit)
			if err != nil {
				return nil, err
			}
			out := &historyOutput{}
			out.Body.Items = make([]ledgerItem, len(items))
			for i, e := range items {
				out.Body.Items[i] = ledgerItem{ID: e.ID, Delta: e.Delta, BalanceAfter: e.BalanceAfter, Kind: e.Kind,
					Reason: e.Reason, IdempotencyKey: e.IdempotencyKey, CreatedAt: timestamp(e.CreatedAt)}
			}
			out.Body.Total, out.Body.Page, out.Body.Limit = total, in.Page, in.Limit
			return out, nil
		})

	register(s, route{id: "get-subscription-usage", method: http.MethodGet, path: "/subscriptions/usage", tags: tags,
		creds: credWorkspace, limit: limitRead, summary: "Usage against the plan's limits for the current period",
		desc: "The period is the calendar month in UTC (period_start inclusive, period_end exclusive), the same " +
			"period the monthly credit allowance follows. chatbots, operators and credits are live counts. " +
			"documents counts documents and crawled pages in the knowledge base; it reads 0 until the knowledge " +
			"base is available on this server."},
		func(ctx context.Context, _ *noInput) (*usageOutput, error) {
			u, err := s.billing.Usage(ctx, principal(ctx).WorkspaceID())
			if err != nil {
				return nil, err
			}
			return &usageOutput{Body: u}, nil
		})
}
