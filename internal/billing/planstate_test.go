package billing_test

import (
	"context"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/billing"
	"concierge/internal/outbox"
	"concierge/internal/store"
	"concierge/internal/testkit"
)

// TestSyncPlanFromSubscriptions: the workspace's plan follows its best plan
// subscription; a bot's own subscription and unpaid checkouts change nothing.
func TestSyncPlanFromSubscriptions(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		ctx := context.Background()
		now := time.Date(2030, 6, 10, 9, 0, 0, 0, time.UTC)
		svc, db, clk := newService(t, e, now)
		ws := newWorkspace(t, db, "subs@example.com", now)
		testkit.Listen(t, db, ws, 0) // events are recorded only for an active endpoint
		if err := db.Tx(ctx, func(tx *sqlx.Tx) error { return svc.StartTrial(ctx, tx, ws, now) }); err != nil {
			t.Fatal(err)
		}
		periodEnd := now.AddDate(0, 1, 0)
		seq := 0
		addSub := func(purpose, plan, status string) int64 {
			seq++
			var id int64
			err := store.Get(ctx, db.Writer(), &id, `INSERT INTO subscriptions (workspace_id, purpose, provider,
				provider_subscription_id, plan, currency, amount_minor, status, current_period_end, created_at, updated_at)
				VALUES (?, ?, 'sandbox', ?, ?, 'USD', 100, ?, ?, ?, ?) RETURNING id`,
				ws, purpose, "sub_"+string(rune('a'+seq)), plan, status, periodEnd, now, now)
			if err != nil {
				t.Fatal(err)
			}
			return id
		}
		setSub := func(id int64, status string) {
			if _, err := store.Exec(ctx, db.Writer(), `UPDATE subscriptions SET status = ? WHERE id = ?`, status, id); err != nil {
				t.Fatal(err)
			}
		}
		sync := func() *billing.Entitlements {
			t.Helper()
			if err := db.Tx(ctx, func(tx *sqlx.Tx) error { return svc.SyncPlanTx(ctx, tx, ws) }); err != nil {
				t.Fatal(err)
			}
			ent, err := svc.Entitlements(ctx, ws)
			if err != nil {
				t.Fatal(err)
			}
			return ent
		}

		addSub("extra_bot", "pro", "active")
		plan := addSub("plan", "standard", "created")
		if ent := sync(); ent.Plan != "trial" || ent.Status != "trialing" {
			t.Fatalf("unpaid checkout changed the plan: %s %s", ent.Plan, ent.Status)
		}
		setSub(plan, "active")
		ent := sync()
		if ent.Plan != "standard" || ent.Status != "active" || !ent.Serving || ent.TrialEndsAt != nil ||
			ent.PeriodEnd == nil || !ent.PeriodEnd.Equal(periodEnd) || ent.Usage.CreditsBalance != 5000 {
			t.Fatalf("activated: %+v", ent)
		}
		// A renewal (same plan, still serving) refills nothing mid-month.
		if _, err := svc.Debit(ctx, ws, 100, "reply:1", ""); err != nil {
			t.Fatal(err)
		}
		if ent := sync(); ent.Usage.CreditsBalance != 4900 {
			t.Errorf("re-sync refilled: %d", ent.Usage.CreditsBalance)
		}
		setSub(plan, "pending")
		if ent := sync(); ent.Status != "past_due" || !ent.Serving || ent.CanCheckout {
			t.Errorf("pending: %s serving %v can_checkout %v", ent.Status, ent.Serving, ent.CanCheckout)
		}
		setSub(plan, "cancelled")
		if ent := sync(); ent.Status != "canceled" || !ent.Serving {
			t.Errorf("cancelled within the paid period: %s serving %v", ent.Status, ent.Serving)
		}
		clk.Set(periodEnd.Add(time.Hour))
		if ent := sync(); ent.Status != "canceled" || ent.Serving {
			t.Errorf("cancelled after the paid period: %s serving %v", ent.Status, ent.Serving)
		}
		// A new plan subscription wins over the old cancelled one, and
		// coming back after a lapse refills to the allowance.
		periodEnd = clk.Now().AddDate(0, 1, 0)
		addSub("plan", "pro", "active")
		if ent := sync(); ent.Plan != "pro" || ent.Status != "active" || ent.Usage.CreditsBalance != 20000 {
			t.Errorf("new subscription: %s %s balance %d", ent.Plan, ent.Status, ent.Usage.CreditsBalance)
		}
		events, _ := outbox.List(ctx, db.Reader(), ws, 20)
		var changes int
		for _, ev := range events {
			if ev.Type == "workspace.plan_changed" {
				changes++
			}
		}
		// The lapse at the period end is the clock's doing, not a change.
		if changes != 4 {
			t.Errorf("%d plan_changed events, want 4 (active, pending, cancelled, pro)", changes)
		}
		checkLedgerChain(t, db, ws)
	})
}
