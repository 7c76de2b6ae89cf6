package billing_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/apperr"
	"concierge/internal/billing"
	"concierge/internal/outbox"
	"concierge/internal/store"
	"concierge/internal/testkit"
)

// entitlementsView is the body of GET /auth/me/entitlements as a client
// reads it.
type entitlementsView struct {
	Plan        string           `json:"plan"`
	PlanName    string           `json:"plan_name"`
	Status      string           `json:"status"`
	TrialEndsAt *time.Time       `json:"trial_ends_at"`
	PeriodEnd   *time.Time       `json:"period_end"`
	Limits      map[string]int64 `json:"limits"`
	Features    map[string]bool  `json:"features"`
	Usage       map[string]int64 `json:"usage"`
	CreditCosts map[string]int64 `json:"credit_costs"`
	Serving     bool             `json:"serving"`
	CanCreate   bool             `json:"can_create_bot"`
	NeedsCheck  bool             `json:"next_bot_requires_checkout"`
	CanCheckout bool             `json:"can_checkout"`
}

func getEntitlements(t *testing.T, a *testkit.TestApp, key string) entitlementsView {
	t.Helper()
	r := a.Do(t, "GET", "/auth/me/entitlements", nil, "X-API-Key", key)
	if r.Status != 200 {
		t.Fatalf("entitlements: %d %s", r.Status, r.Body)
	}
	var v entitlementsView
	r.Decode(t, &v)
	return v
}

func TestEntitlementsOverTheTrial(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		ctx := context.Background()
		a := testkit.NewApp(t, e)
		signup := a.Clock.Now()
		key, ws := a.Register(t, "trial@example.com")

		v := getEntitlements(t, a, key)
		if v.Plan != "trial" || v.PlanName != "Trial" || v.Status != "trialing" || !v.Serving || !v.CanCreate || v.NeedsCheck || !v.CanCheckout {
			t.Fatalf("new workspace: %+v", v)
		}
		if v.TrialEndsAt == nil || v.TrialEndsAt.Sub(signup.Add(14*24*time.Hour)).Abs() > 2*time.Second || v.PeriodEnd != nil {
			t.Errorf("trial ends %v (signed up %v), period end %v", v.TrialEndsAt, signup, v.PeriodEnd)
		}
		if v.Limits["chatbots"] != 3 || v.Limits["monthly_credits"] != 200 || v.Usage["credits_balance"] != 200 || v.Usage["chatbots"] != 0 {
			t.Errorf("limits %v usage %v", v.Limits, v.Usage)
		}
		if len(v.Features) != len(billing.KnownFeatures) || !v.Features["auto_recrawl"] || !v.Features["journey_analytics"] || v.Features["lead_intelligence"] {
			t.Errorf("features %v", v.Features)
		}
		if v.CreditCosts["chat_reply"] != 1 || v.CreditCosts["lead_follow_up"] != 1 {
			t.Errorf("credit costs %v", v.CreditCosts)
		}
		if err := a.DB.Tx(ctx, func(tx *sqlx.Tx) error { return a.Billing.CheckBotCreation(ctx, tx, ws) }); err != nil {
			t.Errorf("bot creation during the trial: %v", err)
		}

		a.Clock.Advance(14*24*time.Hour + time.Minute)
		v = getEntitlements(t, a, key)
		if v.Status != "expired" || v.Serving || v.CanCreate || v.NeedsCheck || !v.CanCheckout {
			t.Fatalf("after the trial: %+v", v)
		}
		for f, on := range v.Features {
			if on {
				t.Errorf("feature %s still on after the trial", f)
			}
		}
		var sr *apperr.SubscriptionRequired
		err := a.DB.Tx(ctx, func(tx *sqlx.Tx) error { return a.Billing.CheckBotCreation(ctx, tx, ws) })
		if !errors.As(err, &sr) || !strings.Contains(sr.Message, "trial ended") {
			t.Errorf("bot creation after the trial: %v", err)
		}
		ent, err := a.Billing.Entitlements(ctx, ws)
		if err != nil {
			t.Fatal(err)
		}
		var fe *apperr.FeatureError
		if err := ent.Require("auto_recrawl"); !errors.As(err, &fe) || fe.Feature != "auto_recrawl" || !strings.Contains(fe.Message, "trial ended") {
			t.Errorf("require after the trial: %v", err)
		}

		if err := a.Billing.SetPlan(ctx, ws, "starter"); err != nil {
			t.Fatal(err)
		}
		v = getEntitlements(t, a, key)
		if v.Plan != "starter" || v.Status != "active" || !v.Serving || !v.CanCreate || v.TrialEndsAt != nil {
			t.Fatalf("after set-plan: %+v", v)
		}
		// The month's allowance is topped up: 200 trial credits become 1,000.
		if v.Usage["credits_balance"] != 1000 || v.Features["auto_recrawl"] || !v.Features["lead_export"] {
			t.Errorf("starter: usage %v features %v", v.Usage, v.Features)
		}
		// Setting the same plan again in the same month grants nothing more.
		if err := a.Billing.SetPlan(ctx, ws, "starter"); err != nil {
			t.Fatal(err)
		}
		if b, _ := a.Billing.Balance(ctx, ws); b != 1000 {
			t.Errorf("balance after setting the plan twice: %d", b)
		}
		// A plan change is an event (recorded once an endpoint listens: its
		// bot counts as one of the workspace's, hence last).
		a.Listen(t, ws, 0)
		if err := a.Billing.SetPlan(ctx, ws, "standard"); err != nil {
			t.Fatal(err)
		}
		events, err := outbox.List(ctx, a.DB.Reader(), ws, 10)
		if err != nil || len(events) != 1 || events[0].Type != "workspace.plan_changed" || !strings.Contains(events[0].Payload, `"plan":"standard"`) {
			t.Errorf("plan change event: %+v %v", events, err)
		}
	})
}

func TestBotAllowance(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		ctx := context.Background()
		a := testkit.NewApp(t, e)
		key, ws := a.Register(t, "bots@example.com")
		if err := a.Billing.SetPlan(ctx, ws, "starter"); err != nil {
			t.Fatal(err)
		}
		if _, err := store.Exec(ctx, a.DB.Writer(), `INSERT INTO bots (workspace_id, bot_key, name, created_at, updated_at)
			VALUES (?, 'allowance-bot-1', 'One', ?, ?)`, ws, a.Clock.Now(), a.Clock.Now()); err != nil {
			t.Fatal(err)
		}
		v := getEntitlements(t, a, key)
		if v.Usage["chatbots"] != 1 || v.CanCreate || !v.NeedsCheck {
			t.Fatalf("starter with its one bot: %+v", v)
		}
		var lr *apperr.LimitReached
		err := a.DB.Tx(ctx, func(tx *sqlx.Tx) error { return a.Billing.CheckBotCreation(ctx, tx, ws) })
		if !errors.As(err, &lr) || lr.Limit != "chatbots" || lr.Max != 1 || !strings.Contains(lr.Message, "POST /bots/checkout") {
			t.Fatalf("second bot on starter: %v", err)
		}
		// Free sells no extra bots: the way forward is an upgrade.
		if err := a.Billing.SetPlan(ctx, ws, "free"); err != nil {
			t.Fatal(err)
		}
		v = getEntitlements(t, a, key)
		if v.CanCreate || v.NeedsCheck || !v.Serving {
			t.Fatalf("free with one bot: %+v", v)
		}
		err = a.DB.Tx(ctx, func(tx *sqlx.Tx) error { return a.Billing.CheckBotCreation(ctx, tx, ws) })
		if !errors.As(err, &lr) || !strings.Contains(lr.Message, "upgrade") {
			t.Fatalf("second bot on free: %v", err)
		}
		ent, _ := a.Billing.Entitlements(ctx, ws)
		var fe *apperr.FeatureError
		if err := ent.Require("lead_export"); !errors.As(err, &fe) || !strings.Contains(fe.Message, "Starter") {
			t.Errorf("lead export on free: %v", err)
		}
		if err := ent.Require("no_such_feature"); !errors.As(err, &fe) {
			t.Errorf("unknown feature: %v", err)
		}

		var inv *apperr.Validation
		for _, plan := range []string{"platinum", "trial", ""} {
			if err := a.Billing.SetPlan(ctx, ws, plan); !errors.As(err, &inv) {
				t.Errorf("set plan %q: %v", plan, err)
			}
		}
		if err := a.Billing.SetPlan(ctx, 999999, "pro"); !errors.Is(err, apperr.ErrNotFound) {
			t.Errorf("set plan of a missing workspace: %v", err)
		}
	})
}

// TestStatusFromPeriods: the shown status and serving follow the stored
// status and the paid period on the service clock.
func TestStatusFromPeriods(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		ctx := context.Background()
		now := time.Date(2030, 5, 10, 12, 0, 0, 0, time.UTC)
		svc, db, _ := newService(t, e, now)
		day := 24 * time.Hour
		cases := []struct {
			plan, stored string
			periodEnd    *time.Time
			status       string
			serving      bool
		}{
			{"standard", "active", nil, "active", true},
			{"standard", "active", ptr(now.Add(day)), "active", true},
			{"standard", "active", ptr(now.Add(-day)), "past_due", true},
			{"standard", "past_due", ptr(now.Add(-2 * day)), "past_due", true},
			{"standard", "past_due", ptr(now.Add(-4 * day)), "expired", false},
			{"standard", "canceled", ptr(now.Add(day)), "canceled", true},
			{"standard", "canceled", ptr(now.Add(-day)), "canceled", false},
			{"standard", "expired", nil, "expired", false},
			{"free", "expired", nil, "active", true},
			{"no-longer-sold", "active", nil, "active", true},
		}
		for i, c := range cases {
			ws := newWorkspace(t, db, strings.Repeat("s", i+1)+"@example.com", now)
			if _, err := store.Exec(ctx, db.Writer(), `UPDATE workspaces SET plan = ?, plan_status = ?, plan_period_end = ?
				WHERE id = ?`, c.plan, c.stored, c.periodEnd, ws); err != nil {
				t.Fatal(err)
			}
			ent, err := svc.Entitlements(ctx, ws)
			if err != nil {
				t.Fatal(err)
			}
			if ent.Status != c.status || ent.Serving != c.serving {
				t.Errorf("%s/%s ending %v: status %s serving %v, want %s %v", c.plan, c.stored, c.periodEnd,
					ent.Status, ent.Serving, c.status, c.serving)
			}
			if c.periodEnd != nil && (ent.PeriodEnd == nil || !ent.PeriodEnd.Equal(*c.periodEnd)) {
				t.Errorf("period end %v, want %v", ent.PeriodEnd, c.periodEnd)
			}
		}
		// A trialing row without an end (older rows) runs its trial from
		// sign-up.
		old := newWorkspace(t, db, "old@example.com", now.Add(-20*day))
		if ent, _ := svc.Entitlements(ctx, old); ent.Status != "expired" || ent.Serving || ent.TrialEndsAt == nil {
			t.Errorf("old trial: %+v", ent)
		}
	})
}

func TestUsageThisPeriod(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		ctx := context.Background()
		start := time.Date(2030, 1, 30, 12, 0, 0, 0, time.UTC)
		svc, db, clk := newService(t, e, start)
		ws := newWorkspace(t, db, "usage@example.com", start)
		if err := db.Tx(ctx, func(tx *sqlx.Tx) error { return svc.StartTrial(ctx, tx, ws, clk.Now()) }); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"a", "b", "c"} {
			if _, err := svc.Debit(ctx, ws, 2, "reply:"+k, ""); err != nil {
				t.Fatal(err)
			}
		}
		u, err := svc.Usage(ctx, ws)
		if err != nil {
			t.Fatal(err)
		}
		if u.Credits.Used != 6 || u.Credits.Balance != 194 || u.Credits.MonthlyAllowance != 200 ||
			u.Chatbots != (billing.UsedOf{Used: 0, Limit: 3}) || u.Documents.Used != 0 || u.Documents.Limit != 500 ||
			!u.PeriodStart.Equal(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)) ||
			!u.PeriodEnd.Equal(time.Date(2030, 2, 1, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("usage: %+v", u)
		}
		clk.Advance(3 * 24 * time.Hour) // into February
		ent, _ := svc.Entitlements(ctx, ws)
		if ent.Usage.CreditsUsedThisPeriod != 0 || ent.Usage.CreditsBalance != 194 {
			t.Errorf("next month: %+v", ent.Usage)
		}
		if _, err := svc.Debit(ctx, ws, 5, "reply:d", ""); err != nil {
			t.Fatal(err)
		}
		if ent, _ := svc.Entitlements(ctx, ws); ent.Usage.CreditsUsedThisPeriod != 5 {
			t.Errorf("used in February: %d", ent.Usage.CreditsUsedThisPeriod)
		}
		// Sign-up runs StartTrial once; a second call (a retried sign-up
		// transaction) grants nothing twice.
		if err := db.Tx(ctx, func(tx *sqlx.Tx) error { return svc.StartTrial(ctx, tx, ws, clk.Now()) }); err != nil {
			t.Fatal(err)
		}
		if n, sum := ledgerSummary(t, db, ws, billing.KindGrant); n != 1 || sum != 200 {
			t.Errorf("trial grants: %d summing to %d", n, sum)
		}
	})
}

func ptr[T any](v T) *T { return &v }
