package webhook_test

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"concierge/internal/testkit"
)

var secretRE = regexp.MustCompile(`^whsec_[A-Za-z0-9+/=]+$`)

func TestEndpointsAPI(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		w := newWorld(t, e)
		a := w.a
		rc := newReceiver(t, nil)
		auth := []string{"X-API-Key", w.key}
		bot := fmt.Sprint(w.bot)
		var created endpoint

		a.Run(t,
			testkit.Scenario{Name: "create", Method: "POST", Path: "/webhooks", Headers: auth, Status: 201,
				Body: map[string]any{"bot_id": w.bot, "url": rc.srv.URL + "/hook", "events": []string{"lead.captured", "bot.updated"},
					"description": "CRM sync"},
				Check: func(t *testing.T, r *testkit.Response) {
					r.Decode(t, &created)
					if !secretRE.MatchString(created.Secret) {
						t.Fatalf("secret %q", created.Secret)
					}
					raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(created.Secret, "whsec_"))
					if err != nil || len(raw) != 32 {
						t.Fatalf("secret decodes to %d bytes (%v)", len(raw), err)
					}
					if !strings.HasPrefix(created.ID, "wh_") || !created.Active {
						t.Fatalf("created %+v", created)
					}
				}},
			testkit.Scenario{Name: "list needs bot_id", Method: "GET", Path: "/webhooks", Headers: auth, Status: 422},
			testkit.Scenario{Name: "list another workspace's bot", Method: "GET", Path: "/webhooks?bot_id=" + fmt.Sprint(w.otherBot),
				Headers: auth, Status: 403},
			testkit.Scenario{Name: "list an unknown bot", Method: "GET", Path: "/webhooks?bot_id=999999", Headers: auth, Status: 404},
			testkit.Scenario{Name: "create for another workspace's bot", Method: "POST", Path: "/webhooks", Headers: auth, Status: 403,
				Body: map[string]any{"bot_id": w.otherBot, "url": rc.srv.URL, "events": []string{"lead.captured"}}},
			testkit.Scenario{Name: "create without credentials", Method: "POST", Path: "/webhooks", Status: 401,
				Body: map[string]any{"bot_id": w.bot, "url": rc.srv.URL, "events": []string{"lead.captured"}}},
		)
		a.Run(t,
			testkit.Scenario{Name: "list masks the secret", Method: "GET", Path: "/webhooks?bot_id=" + bot, Headers: auth, Status: 200,
				Contains: []string{created.ID, `"whsec_****`, "CRM sync"}, Absent: []string{created.Secret}},
			testkit.Scenario{Name: "patch", Method: "PATCH", Path: "/webhooks/" + created.ID, Headers: auth, Status: 200,
				Body:     map[string]any{"events": []string{"meeting.booked"}, "active": false},
				Contains: []string{`"events":["meeting.booked"]`, `"active":false`}, Absent: []string{created.Secret}},
			testkit.Scenario{Name: "patch another workspace's webhook", Method: "PATCH", Path: "/webhooks/" + created.ID,
				Headers: []string{"X-API-Key", w.otherKey}, Body: map[string]any{"active": true}, Status: 404},
			testkit.Scenario{Name: "delete another workspace's webhook", Method: "DELETE", Path: "/webhooks/" + created.ID,
				Headers: []string{"X-API-Key", w.otherKey}, Status: 404},
			testkit.Scenario{Name: "deliveries of another workspace's webhook", Method: "GET",
				Path: "/webhooks/" + created.ID + "/deliveries", Headers: []string{"X-API-Key", w.otherKey}, Status: 404},
			testkit.Scenario{Name: "test another workspace's webhook", Method: "POST", Path: "/webhooks/" + created.ID + "/test",
				Headers: []string{"X-API-Key", w.otherKey}, Status: 404},
			testkit.Scenario{Name: "rotate another workspace's webhook", Method: "POST", Path: "/webhooks/" + created.ID + "/rotate-secret",
				Headers: []string{"X-API-Key", w.otherKey}, Status: 404},
			testkit.Scenario{Name: "event types", Method: "GET", Path: "/webhooks/event-types", Headers: auth, Status: 200,
				Contains: []string{`"type":"lead.captured"`, `"type":"webhook.test"`, `"sample":{`, `"data":{`}},
			testkit.Scenario{Name: "replay needs message_id or since", Method: "POST", Path: "/webhooks/" + created.ID + "/replay",
				Headers: auth, Body: map[string]any{}, Status: 422},
			testkit.Scenario{Name: "replay an unknown message", Method: "POST", Path: "/webhooks/" + created.ID + "/replay",
				Headers: auth, Body: map[string]any{"message_id": "msg_nope"}, Status: 404},
		)

		// Field rules at create and PATCH.
		bad := []struct {
			name string
			url  string
		}{
			{"plain http to a public host", "http://example.com/hook"},
			{"credentials in the URL", "https://user:pass@example.com/hook"},
			{"public name at a loopback address", "https://public@127.0.0.1/hook"},
			{"ftp", "ftp://example.com/hook"},
			{"javascript", "javascript:alert(1)"},
			{"metadata address", "https://169.254.169.254/latest"},
			{"private address", "https://10.0.0.1/hook"},
			{"localhost", "https://localhost/hook"},
			{"decimal private address", "https://167772161/hook"},
			{"too long", "https://example.com/" + strings.Repeat("a", 2100)},
			{"not a URL", "not a url"},
		}
		for _, b := range bad {
			t.Run("create refuses "+b.name, func(t *testing.T) {
				r := a.Do(t, "POST", "/webhooks", map[string]any{"bot_id": w.bot, "url": b.url, "events": []string{"lead.captured"}}, auth...)
				if r.Status != 422 {
					t.Fatalf("status %d %s", r.Status, r.Body)
				}
			})
			t.Run("patch refuses "+b.name, func(t *testing.T) {
				r := a.Do(t, "PATCH", "/webhooks/"+created.ID, map[string]any{"url": b.url}, auth...)
				if r.Status != 422 {
					t.Fatalf("status %d %s", r.Status, r.Body)
				}
			})
		}
		a.Run(t,
			testkit.Scenario{Name: "https to a public host is fine", Method: "PATCH", Path: "/webhooks/" + created.ID, Headers: auth,
				Body: map[string]any{"url": "https://hooks.example.com/in"}, Status: 200, Contains: []string{"https://hooks.example.com/in"}},
			testkit.Scenario{Name: "unknown event type", Method: "POST", Path: "/webhooks", Headers: auth, Status: 422,
				Body: map[string]any{"bot_id": w.bot, "url": rc.srv.URL, "events": []string{"lead.exploded"}}},
			testkit.Scenario{Name: "no events", Method: "POST", Path: "/webhooks", Headers: auth, Status: 422,
				Body: map[string]any{"bot_id": w.bot, "url": rc.srv.URL, "events": []string{}}},
			testkit.Scenario{Name: "description too long", Method: "POST", Path: "/webhooks", Headers: auth, Status: 422,
				Body: map[string]any{"bot_id": w.bot, "url": rc.srv.URL, "events": []string{"lead.captured"}, "description": strings.Repeat("d", 501)}},
		)

		// The plan's limit of endpoints per bot (the trial allows 10).
		for i := 1; i < 10; i++ {
			w.createEndpoint(t, w.bot, fmt.Sprintf("%s/%d", rc.srv.URL, i), "lead.captured")
		}
		a.Run(t, testkit.Scenario{Name: "limit per bot", Method: "POST", Path: "/webhooks", Headers: auth, Status: 403,
			Body:     map[string]any{"bot_id": w.bot, "url": rc.srv.URL, "events": []string{"lead.captured"}},
			Contains: []string{"webhooks_per_bot"}})

		a.Run(t,
			testkit.Scenario{Name: "delete", Method: "DELETE", Path: "/webhooks/" + created.ID, Headers: auth, Status: 200,
				Contains: []string{`"deleted":true`}},
			testkit.Scenario{Name: "delete again", Method: "DELETE", Path: "/webhooks/" + created.ID, Headers: auth, Status: 404},
		)
		if strings.Contains(a.Logs.String(), created.Secret) {
			t.Error("the secret appears in the logs")
		}
	})
}
