package webhook_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"concierge/internal/billing"
	"concierge/internal/testkit"
)

// TestCreditsLowEvent: the debit that takes the balance below the plan's
// low mark (10% of its monthly credits) sends credits.low to the
// workspace's endpoints, once; later debits below the mark send nothing,
// and a grant above the mark arms it again.
func TestCreditsLowEvent(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		w := newWorld(t, e, manual())
		rc := newReceiver(t, nil)
		w.createEndpoint(t, w.bot, rc.srv.URL+"/in", "credits.low")
		ctx := context.Background()
		ent, err := w.a.Billing.Entitlements(ctx, w.ws)
		if err != nil {
			t.Fatal(err)
		}
		mark := ent.Limits.MonthlyCredits * billing.LowCreditsPercent / 100
		bal := ent.Usage.CreditsBalance
		if mark < 4 || bal < mark+2 {
			t.Fatalf("fixture: balance %d, mark %d", bal, mark)
		}
		n := 0
		debit := func(amount int64) {
			t.Helper()
			n++
			if _, err := w.a.Billing.Debit(ctx, w.ws, amount, fmt.Sprintf("test-debit-%d", n), "test"); err != nil {
				t.Fatal(err)
			}
			bal -= amount
		}
		debit(bal - mark)                                  // exactly at the mark: not low yet
		debit(1)                                           // below: the event
		debit(1)                                           // still below: nothing more
		w.emit(t, w.otherWS, w.otherBot, "credits.low", 1) // another workspace's: not ours
		w.pump(t)
		got := rc.requests()
		if len(got) != 1 {
			t.Fatalf("%d deliveries, want 1", len(got))
		}
		var p struct {
			Type string         `json:"type"`
			Data map[string]any `json:"data"`
		}
		if err := json.Unmarshal(got[0].Body, &p); err != nil {
			t.Fatal(err)
		}
		if p.Type != "credits.low" || int64(p.Data["balance"].(float64)) != mark-1 || int64(p.Data["threshold"].(float64)) != mark ||
			p.Data["plan"] != ent.Plan {
			t.Fatalf("payload %s", got[0].Body)
		}
		if _, err := w.a.Billing.Grant(ctx, w.ws, 10, "test-grant", "test"); err != nil {
			t.Fatal(err)
		}
		debit(bal + 10 - mark + 1) // below again after the top-up: a second event
		w.pump(t)
		if got := rc.requests(); len(got) != 2 {
			t.Fatalf("%d deliveries after the re-crossing, want 2", len(got))
		}
	})
}
