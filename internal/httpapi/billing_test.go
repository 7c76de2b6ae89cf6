package httpapi_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"concierge/internal/testkit"
)

func TestBillingRoutes(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		ctx := context.Background()
		a := testkit.NewApp(t, e)
		key, ws := a.Register(t, "billing@example.com")
		auth := []string{"X-API-Key", key}
		for i := 1; i <= 7; i++ {
			if _, err := a.Billing.Debit(ctx, ws, 1, fmt.Sprintf("reply:%d", i), "chat reply"); err != nil {
				t.Fatal(err)
			}
		}
		type history struct {
			Items []struct {
				ID             int64  `json:"id"`
				Delta          int64  `json:"delta"`
				BalanceAfter   int64  `json:"balance_after"`
				Kind           string `json:"kind"`
				IdempotencyKey string `json:"idempotency_key"`
				CreatedAt      string `json:"created_at"`
			} `json:"items"`
			Total, Page, Limit int
		}
		scenarios := []testkit.Scenario{
			{Name: "balance", Method: "GET", Path: "/credits/balance", Headers: auth, Status: 200,
				Contains: []string{`"balance":193`, `"currency_unit":"credit"`},
				Check: func(t *testing.T, r *testkit.Response) {
					at, _ := r.JSON(t)["updated_at"].(string)
					if _, err := time.Parse(time.RFC3339, at); err != nil {
						t.Errorf("updated_at %q: %v", at, err)
					}
				}},
			{Name: "history first page", Method: "GET", Path: "/credits/history?limit=3", Headers: auth, Status: 200,
				Check: func(t *testing.T, r *testkit.Response) {
					var h history
					r.Decode(t, &h)
					if h.Total != 8 || h.Page != 1 || h.Limit != 3 || len(h.Items) != 3 {
						t.Fatalf("page: %s", r.Body)
					}
					first := h.Items[0]
					if first.IdempotencyKey != "reply:7" || first.Delta != -1 || first.BalanceAfter != 193 || first.Kind != "debit" {
						t.Errorf("newest entry: %+v", first)
					}
					if _, err := time.Parse(time.RFC3339, first.CreatedAt); err != nil {
						t.Errorf("created_at: %v", err)
					}
				}},
			{Name: "history last page", Method: "GET", Path: "/credits/history?page=3&limit=3", Headers: auth, Status: 200,
				Check: func(t *testing.T, r *testkit.Response) {
					var h history
					r.Decode(t, &h)
					if len(h.Items) != 2 || h.Items[1].IdempotencyKey != "grant:trial" || h.Items[1].Delta != 200 {
						t.Errorf("last page: %s", r.Body)
					}
				}},
			{Name: "history past the end is empty", Method: "GET", Path: "/credits/history?page=9", Headers: auth,
				Status: 200, Contains: []string{`"items":[]`, `"total":8`}},
			{Name: "history default page size", Method: "GET", Path: "/credits/history", Headers: auth, Status: 200,
				Contains: []string{`"page":1`, `"limit":50`}},
			{Name: "history limit above 200", Method: "GET", Path: "/credits/history?limit=201", Headers: auth,
				Status: 422, Contains: []string{`"loc":["query","limit"]`}},
			{Name: "history limit 0", Method: "GET", Path: "/credits/history?limit=0", Headers: auth, Status: 422},
			{Name: "history page 0", Method: "GET", Path: "/credits/history?page=0", Headers: auth, Status: 422},
			{Name: "usage", Method: "GET", Path: "/subscriptions/usage", Headers: auth, Status: 200,
				Contains: []string{`"chatbots":{"used":0,"limit":3}`, `"documents":{"used":0,"limit":500}`,
					`"credits":{"used":7,"balance":193,"monthly_allowance":200}`, `"status":"trialing"`},
				Check: func(t *testing.T, r *testkit.Response) {
					m := r.JSON(t)
					start, _ := time.Parse(time.RFC3339, m["period_start"].(string))
					end, _ := time.Parse(time.RFC3339, m["period_end"].(string))
					now := a.Clock.Now()
					if start.After(now) || !end.After(now) || start.Day() != 1 || end.Day() != 1 {
						t.Errorf("period %v to %v around %v", start, end, now)
					}
				}},
			{Name: "entitlements", Method: "GET", Path: "/auth/me/entitlements", Headers: auth, Status: 200,
				Contains: []string{`"plan":"trial"`, `"serving":true`, `"credit_costs":{"chat_reply":1`,
					`"credits_used_this_period":7`, `"lead_intelligence":false`}},
		}
		for _, path := range []string{"/auth/me/entitlements", "/credits/balance", "/credits/history", "/subscriptions/usage"} {
			scenarios = append(scenarios,
				testkit.Scenario{Name: "no key " + path, Method: "GET", Path: path, Status: 401},
				testkit.Scenario{Name: "bad key " + path, Method: "GET", Path: path, Status: 401,
					Headers: []string{"X-API-Key", "cnc_ws_nope"}})
		}
		a.Run(t, scenarios...)

		// Another workspace sees only its own ledger.
		other, _ := a.Register(t, "other@example.com")
		r := a.Do(t, "GET", "/credits/history", nil, "X-API-Key", other)
		if r.Status != 200 || !strings.Contains(string(r.Body), `"total":1`) || strings.Contains(string(r.Body), "reply:") {
			t.Errorf("other workspace's history: %s", r.Body)
		}
	})
}

func TestBillingRoutesAreDescribed(t *testing.T) {
	a := testkit.NewApp(t, testkit.SQLite)
	r := a.Do(t, "GET", "/openapi.json", nil)
	body := string(r.Body)
	for _, want := range []string{`"/auth/me/entitlements"`, `"/credits/balance"`, `"/credits/history"`,
		`"/subscriptions/usage"`, "credit_costs", "next_bot_requires_checkout", "reads 0 until"} {
		if !strings.Contains(body, want) {
			t.Errorf("the OpenAPI description lacks %s", want)
		}
	}
}
