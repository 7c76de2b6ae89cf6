package subscription_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"concierge/internal/app"
	"concierge/internal/payment"
	"concierge/internal/payment/razorpaytest"
	"concierge/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

type checkout struct {
	SubscriptionID string `json:"subscription_id"`
	KeyID          string `json:"key_id"`
	Purpose        string `json:"purpose"`
	Plan           string `json:"plan"`
	Currency       string `json:"currency"`
	AmountMinor    int64  `json:"amount_minor"`
	Sandbox        *struct {
		PaymentID string `json:"razorpay_payment_id"`
		Signature string `json:"razorpay_signature"`
	} `json:"sandbox"`
}

func startCheckout(t *testing.T, a *testkit.TestApp, key string, body map[string]any) checkout {
	t.Helper()
	r := a.Do(t, "POST", "/bots/checkout", body, "X-API-Key", key)
	if r.Status != 200 {
		t.Fatalf("checkout: %d %s", r.Status, r.Body)
	}
	var c checkout
	r.Decode(t, &c)
	return c
}

func countBots(t *testing.T, a *testkit.TestApp, key string) int {
	t.Helper()
	var list []map[string]any
	a.Do(t, "GET", "/bots", nil, "X-API-Key", key).Decode(t, &list)
	return len(list)
}

func TestSandboxCheckout(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		key, _ := a.Register(t, "buyer@example.com")
		other, _ := a.Register(t, "other@example.com")
		c := startCheckout(t, a, key, map[string]any{"name": "Paid bot", "greeting": "Welcome", "currency": "INR"})
		if c.KeyID != "rzp_sandbox" || c.Purpose != "plan" || c.Plan != "starter" || c.Currency != "INR" || c.AmountMinor <= 0 || c.Sandbox == nil {
			t.Fatalf("checkout payload: %+v", c)
		}
		verify := map[string]any{"razorpay_payment_id": c.Sandbox.PaymentID, "razorpay_subscription_id": c.SubscriptionID,
			"razorpay_signature": c.Sandbox.Signature}
		tampered := map[string]any{"razorpay_payment_id": c.Sandbox.PaymentID, "razorpay_subscription_id": c.SubscriptionID,
			"razorpay_signature": flip(c.Sandbox.Signature)}
		a.Run(t,
			testkit.Scenario{Name: "checkout needs a name", Method: "POST", Path: "/bots/checkout",
				Headers: []string{"X-API-Key", key}, Body: map[string]any{"plan": "pro"}, Status: 422},
			testkit.Scenario{Name: "checkout sells paid plans only", Method: "POST", Path: "/bots/checkout",
				Headers: []string{"X-API-Key", key}, Body: map[string]any{"name": "x", "plan": "free"}, Status: 422},
			testkit.Scenario{Name: "checkout currencies are INR and USD", Method: "POST", Path: "/bots/checkout",
				Headers: []string{"X-API-Key", key}, Body: map[string]any{"name": "x", "currency": "EUR"}, Status: 422},
			testkit.Scenario{Name: "checkout needs the workspace key", Method: "POST", Path: "/bots/checkout",
				Body: map[string]any{"name": "x"}, Status: 401},
			testkit.Scenario{Name: "a tampered signature is 400", Method: "POST", Path: "/bots/checkout/verify",
				Headers: []string{"X-API-Key", key}, Body: tampered, Status: 400},
			testkit.Scenario{Name: "another workspace cannot verify it", Method: "POST", Path: "/bots/checkout/verify",
				Headers: []string{"X-API-Key", other}, Body: verify, Status: 403},
			testkit.Scenario{Name: "an unknown subscription is 404", Method: "POST", Path: "/bots/checkout/verify",
				Headers: []string{"X-API-Key", key}, Body: map[string]any{"razorpay_payment_id": "pay_x",
					"razorpay_subscription_id": "sub_unknown", "razorpay_signature": "00"}, Status: 404},
		)
		if n := countBots(t, a, key); n != 0 {
			t.Fatalf("%d bots before a valid verify", n)
		}
		first := a.Do(t, "POST", "/bots/checkout/verify", verify, "X-API-Key", key)
		if first.Status != 200 || !strings.Contains(string(first.Body), `"name":"Paid bot"`) || !strings.Contains(string(first.Body), `"status":"active"`) {
			t.Fatalf("verify: %d %s", first.Status, first.Body)
		}
		again := a.Do(t, "POST", "/bots/checkout/verify", verify, "X-API-Key", key)
		if again.Status != 200 || botID(t, again) != botID(t, first) {
			t.Fatalf("second verify: %d %s", again.Status, again.Body)
		}
		if n := countBots(t, a, key); n != 1 {
			t.Fatalf("%d bots after two verifies", n)
		}
		a.Run(t,
			testkit.Scenario{Name: "the plan is active", Method: "GET", Path: "/auth/me/entitlements", Headers: []string{"X-API-Key", key},
				Status: 200, Contains: []string{`"plan":"starter"`, `"status":"active"`, `"serving":true`}},
			testkit.Scenario{Name: "current subscription", Method: "GET", Path: "/subscriptions/current", Headers: []string{"X-API-Key", key},
				Status: 200, Contains: []string{`"subscription_id":"` + c.SubscriptionID + `"`, `"status":"active"`}},
			testkit.Scenario{Name: "invoices with PDF links", Method: "GET", Path: "/subscriptions/invoices", Headers: []string{"X-API-Key", key},
				Status: 200, Contains: []string{`"pdf_url":"https://`, `"currency":"INR"`}},
			testkit.Scenario{Name: "another workspace sees none of it", Method: "GET", Path: "/subscriptions/current",
				Headers: []string{"X-API-Key", other}, Status: 200, Absent: []string{c.SubscriptionID}},
		)
	})
}

func botID(t *testing.T, r *testkit.Response) float64 {
	t.Helper()
	var v struct {
		Bot struct {
			BotID float64 `json:"bot_id"`
		} `json:"bot"`
	}
	r.Decode(t, &v)
	return v.Bot.BotID
}

func flip(s string) string {
	if s[0] == 'a' {
		return "b" + s[1:]
	}
	return "a" + s[1:]
}

// razorpayApp runs the service against the wire-level Razorpay fake.
func razorpayApp(t *testing.T, e testkit.Engine) (*testkit.TestApp, *razorpaytest.Server) {
	t.Helper()
	fake := razorpaytest.NewServer(t)
	rp, err := payment.NewRazorpay(fake.Config())
	if err != nil {
		t.Fatal(err)
	}
	return testkit.NewApp(t, e, testkit.WithOptions(func(o *app.Options) { o.Payments = rp })), fake
}

func webhook(t *testing.T, a *testkit.TestApp, fake *razorpaytest.Server, body []byte, eventID string) *testkit.Response {
	t.Helper()
	return a.Do(t, "POST", "/payments/razorpay/webhook", body, "X-Razorpay-Signature", fake.SignWebhook(body),
		"X-Razorpay-Event-Id", eventID)
}

func TestRazorpayWebhooks(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a, fake := razorpayApp(t, e)
		key, _ := a.Register(t, "rp@example.com")
		c := startCheckout(t, a, key, map[string]any{"name": "From webhook"})
		if fake.Calls("POST", "/subscriptions") != 1 || c.Sandbox != nil {
			t.Fatalf("checkout did not create the subscription at the provider: %+v", c)
		}
		fake.Activate(c.SubscriptionID)
		body, id := fake.Event("subscription.activated", c.SubscriptionID)

		bad := a.Do(t, "POST", "/payments/razorpay/webhook", body, "X-Razorpay-Signature", flip(fake.SignWebhook(body)), "X-Razorpay-Event-Id", id)
		var reserialised bytes.Buffer
		_ = json.Indent(&reserialised, body, "", "  ")
		resig := a.Do(t, "POST", "/payments/razorpay/webhook", reserialised.Bytes(), "X-Razorpay-Signature", fake.SignWebhook(body),
			"X-Razorpay-Event-Id", id)
		if bad.Status != 400 || resig.Status != 400 || countBots(t, a, key) != 0 {
			t.Fatalf("bad signatures: %d %d, bots %d", bad.Status, resig.Status, countBots(t, a, key))
		}
		for i := 0; i < 3; i++ {
			if r := webhook(t, a, fake, body, id); r.Status != 200 {
				t.Fatalf("delivery %d: %d %s", i+1, r.Status, r.Body)
			}
		}
		// A replay of the same signed body under a fresh event id changes nothing either.
		webhook(t, a, fake, body, "evt_replayed")
		if n := countBots(t, a, key); n != 1 {
			t.Fatalf("%d bots after three deliveries and a replay", n)
		}
		// The browser's verify after the webhook finds the bot.
		pay := "pay_" + strings.Repeat("A", 14)
		r := a.Do(t, "POST", "/bots/checkout/verify", map[string]any{"razorpay_payment_id": pay,
			"razorpay_subscription_id": c.SubscriptionID, "razorpay_signature": fake.SignPayment(c.SubscriptionID, pay)}, "X-API-Key", key)
		if r.Status != 200 || countBots(t, a, key) != 1 {
			t.Fatalf("verify after the webhook: %d %s", r.Status, r.Body)
		}

		// Out of order: charged before activated activates once.
		c2 := startCheckout(t, a, key, map[string]any{"name": "Charged first"})
		fake.Activate(c2.SubscriptionID)
		charged, cid := fake.Event("subscription.charged", c2.SubscriptionID)
		webhook(t, a, fake, charged, cid)
		activated, aid := fake.Event("subscription.activated", c2.SubscriptionID)
		webhook(t, a, fake, activated, aid)
		if n := countBots(t, a, key); n != 2 {
			t.Fatalf("%d bots after charged-then-activated, want 2", n)
		}

		// Cancelled is final: a late activation does not bring it back.
		c3 := startCheckout(t, a, key, map[string]any{"name": "Never"})
		fake.SetStatus(c3.SubscriptionID, "cancelled")
		cancelled, xid := fake.Event("subscription.cancelled", c3.SubscriptionID)
		webhook(t, a, fake, cancelled, xid)
		late, lid := fake.Event("subscription.activated", c3.SubscriptionID)
		webhook(t, a, fake, late, lid)
		if n := countBots(t, a, key); n != 2 {
			t.Fatalf("a cancelled subscription made a bot: %d bots", n)
		}
		cur := a.Do(t, "GET", "/subscriptions/current", nil, "X-API-Key", key)
		if !strings.Contains(string(cur.Body), `"status":"cancelled"`) {
			t.Fatalf("current: %s", cur.Body)
		}
	})
}

// TestCheckoutRace: for each of verify first, webhook first, and both at
// once, 100 checkouts each end with exactly one bot.
func TestCheckoutRace(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a, fake := razorpayApp(t, e)
		key, _ := a.Register(t, "race@example.com")
		const trials = 100
		modes := []string{"verify-first", "webhook-first", "together"}
		subs := map[string][]string{}
		for _, mode := range modes {
			for i := 0; i < trials; i++ {
				c := startCheckout(t, a, key, map[string]any{"name": fmt.Sprintf("%s %d", mode, i)})
				fake.Activate(c.SubscriptionID)
				subs[mode] = append(subs[mode], c.SubscriptionID)
			}
		}
		for _, mode := range modes {
			var wg sync.WaitGroup
			sem := make(chan struct{}, 8)
			for _, sub := range subs[mode] {
				wg.Add(1)
				sem <- struct{}{}
				go func() {
					defer wg.Done()
					defer func() { <-sem }()
					pay := "pay_" + strings.Repeat("B", 14)
					verify := func() {
						a.Do(t, "POST", "/bots/checkout/verify", map[string]any{"razorpay_payment_id": pay,
							"razorpay_subscription_id": sub, "razorpay_signature": fake.SignPayment(sub, pay)}, "X-API-Key", key)
					}
					body, id := fake.Event("subscription.activated", sub)
					hook := func() { webhook(t, a, fake, body, id) }
					switch mode {
					case "verify-first":
						verify()
						hook()
					case "webhook-first":
						hook()
						verify()
					default:
						start := make(chan struct{})
						var both sync.WaitGroup
						both.Add(2)
						go func() { defer both.Done(); <-start; verify() }()
						go func() { defer both.Done(); <-start; hook() }()
						close(start)
						both.Wait()
					}
					hook() // a redelivery on top
				}()
			}
			wg.Wait()
		}
		var cur struct {
			Subscriptions []struct {
				SubscriptionID string `json:"subscription_id"`
				BotID          *int64 `json:"bot_id"`
			} `json:"subscriptions"`
		}
		a.Do(t, "GET", "/subscriptions/current", nil, "X-API-Key", key).Decode(t, &cur)
		seen := map[int64]bool{}
		for _, s := range cur.Subscriptions {
			if s.BotID == nil {
				t.Errorf("subscription %s has no bot", s.SubscriptionID)
				continue
			}
			if seen[*s.BotID] {
				t.Errorf("bot %d paid twice", *s.BotID)
			}
			seen[*s.BotID] = true
		}
		if n := countBots(t, a, key); n != trials*len(modes) {
			t.Fatalf("%d bots for %d subscriptions", n, trials*len(modes))
		}
	})
}

func TestDeletingAPaidBotCancelsFirst(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a, fake := razorpayApp(t, e)
		key, _ := a.Register(t, "cancel@example.com")
		c := startCheckout(t, a, key, map[string]any{"name": "Paid"})
		fake.Activate(c.SubscriptionID)
		body, id := fake.Event("subscription.activated", c.SubscriptionID)
		webhook(t, a, fake, body, id)
		var list []struct {
			BotID int64 `json:"bot_id"`
		}
		a.Do(t, "GET", "/bots", nil, "X-API-Key", key).Decode(t, &list)
		path := fmt.Sprintf("/bots/%d", list[0].BotID)

		fake.FailNext("POST", "/subscriptions/"+c.SubscriptionID+"/cancel", 503)
		if r := a.Do(t, "DELETE", path, nil, "X-API-Key", key); r.Status != 503 || r.Header.Get("Retry-After") == "" {
			t.Fatalf("delete while the provider fails: %d %s", r.Status, r.Body)
		}
		if r := a.Do(t, "GET", path, nil, "X-API-Key", key); r.Status != 200 {
			t.Fatalf("the bot is gone although its subscription was not cancelled: %d", r.Status)
		}
		if r := a.Do(t, "DELETE", path, nil, "X-API-Key", key); r.Status != 200 {
			t.Fatalf("retry: %d %s", r.Status, r.Body)
		}
		if n := fake.Calls("POST", "/subscriptions/"+c.SubscriptionID+"/cancel"); n != 2 {
			t.Errorf("%d cancel calls, want 2 (one failed, one succeeded)", n)
		}
		if fake.Status(c.SubscriptionID) != "cancelled" {
			t.Errorf("provider status %s", fake.Status(c.SubscriptionID))
		}
		cur := a.Do(t, "GET", "/subscriptions/current", nil, "X-API-Key", key)
		if !strings.Contains(string(cur.Body), `"status":"cancelled"`) {
			t.Errorf("local subscription: %s", cur.Body)
		}
		if left := testkit.RowsReferencing(t, a.DB, "bot_id", list[0].BotID); len(left) != 0 {
			t.Errorf("rows left: %v", left)
		}
	})
}

func TestInvoicesFromTheProvider(t *testing.T) {
	a, fake := razorpayApp(t, testkit.SQLite)
	key, _ := a.Register(t, "inv@example.com")
	c := startCheckout(t, a, key, map[string]any{"name": "Invoiced", "currency": "USD"})
	fake.Activate(c.SubscriptionID)
	body, id := fake.Event("subscription.activated", c.SubscriptionID)
	webhook(t, a, fake, body, id)
	paid := time.Now().UTC().Truncate(time.Second)
	fake.AddInvoice(c.SubscriptionID, payment.Invoice{ID: "inv_ABCDEFGHIJ0001", Status: "paid", Currency: "USD", AmountMinor: 1900,
		PDFURL: "https://rzp.io/i/abc", IssuedAt: paid, PaidAt: &paid})
	r := a.Do(t, "GET", "/subscriptions/invoices", nil, "X-API-Key", key)
	if r.Status != 200 || !strings.Contains(string(r.Body), `"invoice_id":"inv_ABCDEFGHIJ0001"`) ||
		!strings.Contains(string(r.Body), `"amount_minor":1900`) || !strings.Contains(string(r.Body), `"pdf_url":"https://rzp.io/i/abc"`) {
		t.Fatalf("invoices: %d %s", r.Status, r.Body)
	}
}
