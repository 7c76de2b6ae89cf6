package subscription

import (
	"context"
	"fmt"
	"sort"
	"time"

	"concierge/internal/store"
)

// Invoice is one entry of the invoice history.
type Invoice struct {
	ID                 int64      `db:"id"`
	SubscriptionID     *int64     `db:"subscription_id"`
	ProviderInvoiceID  string     `db:"provider_invoice_id"`
	ProviderSubscripID string     `db:"provider_subscription_id"`
	Status             string     `db:"status"`
	Currency           string     `db:"currency"`
	AmountMinor        int64      `db:"amount_minor"`
	PDFURL             string     `db:"pdf_url"`
	IssuedAt           time.Time  `db:"issued_at"`
	PaidAt             *time.Time `db:"paid_at"`
}

// Invoices refreshes the workspace's invoices from the provider (falling
// back to what is stored when it cannot be reached) and returns them,
// newest first.
func (s *Service) Invoices(ctx context.Context, workspaceID int64) ([]Invoice, error) {
	subs, err := s.List(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	for _, sub := range subs {
		if sub.Provider != s.provider.Name() || sub.Status == StatusCreated {
			continue
		}
		invs, err := s.provider.ListInvoices(ctx, sub.ProviderID)
		if err != nil {
			s.log.WarnContext(ctx, "list invoices from the provider; showing stored ones", "err", err)
			break
		}
		for _, inv := range invs {
			amount, currency := inv.AmountMinor, inv.Currency
			if currency == "" { // the sandbox knows no amounts: ours are the truth
				amount, currency = sub.AmountMinor, sub.Currency
			}
			_, err := store.Exec(ctx, s.db.Writer(), `INSERT INTO invoices (workspace_id, subscription_id, provider,
				provider_invoice_id, status, currency, amount_minor, pdf_url, issued_at, paid_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (provider, provider_invoice_id) DO UPDATE SET status = excluded.status,
					pdf_url = excluded.pdf_url, paid_at = excluded.paid_at`,
				workspaceID, sub.ID, sub.Provider, inv.ID, inv.Status, currency, amount, inv.PDFURL, inv.IssuedAt.UTC(), inv.PaidAt)
			if err != nil {
				return nil, fmt.Errorf("subscription: store invoice: %w", err)
			}
		}
	}
	out := []Invoice{}
	err = store.Select(ctx, s.db.Reader(), &out, `SELECT i.id, i.subscription_id, i.provider_invoice_id,
		COALESCE(s.provider_subscription_id, '') AS provider_subscription_id, i.status, i.currency, i.amount_minor,
		i.pdf_url, i.issued_at, i.paid_at
		FROM invoices i LEFT JOIN subscriptions s ON s.id = i.subscription_id WHERE i.workspace_id = ?`, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("subscription: invoices: %w", err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].IssuedAt.After(out[j].IssuedAt) })
	return out, nil
}
