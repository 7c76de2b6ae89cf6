package webhook_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"concierge/internal/testkit"
)

// G8: deliveries verified by the Standard Webhooks reference library
// against the secret shown at creation.
func TestSignedDeliveriesG8(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		w := newWorld(t, e)
		rc := newReceiver(t, nil)
		ep := w.createEndpoint(t, w.bot, rc.srv.URL+"/in", "bot.updated", "lead.captured")
		other := newReceiver(t, nil)
		w.createEndpoint(t, w.bot, other.srv.URL+"/in", "meeting.booked") // not subscribed

		// A real domain change, then 999 more events of the bot.
		r := w.a.Do(t, "PATCH", fmt.Sprintf("/bots/%d", w.bot), map[string]any{"name": "Renamed"}, "X-API-Key", w.key)
		if r.Status != 200 {
			t.Fatalf("patch bot: %d %s", r.Status, r.Body)
		}
		w.emit(t, w.ws, w.bot, "lead.captured", 999)
		w.emit(t, w.otherWS, w.otherBot, "lead.captured", 5) // another workspace's events stay there

		got := rc.waitFor(t, 1000, 60*time.Second)
		wh, err := standardwebhooks.NewWebhook(ep.Secret)
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]bool{}
		types := map[string]int{}
		for _, q := range got {
			if err := wh.Verify(q.Body, q.Header); err != nil {
				t.Fatalf("verify: %v (headers %v)", err, q.Header)
			}
			id := q.Header.Get("webhook-id")
			if !strings.HasPrefix(id, "msg_") || len(id) < 4+22 || ids[id] {
				t.Fatalf("webhook-id %q (seen before: %v)", id, ids[id])
			}
			ids[id] = true
			if d := q.At.Sub(w.a.Clock.Now()); d > 5*time.Minute || d < -5*time.Minute {
				t.Fatalf("webhook-timestamp %v, clock %v", q.At, w.a.Clock.Now())
			}
			if sig := q.Header.Get("webhook-signature"); !strings.HasPrefix(sig, "v1,") || strings.Contains(sig, " ") {
				t.Fatalf("webhook-signature %q", sig)
			}
			var p struct {
				Type      string         `json:"type"`
				Timestamp time.Time      `json:"timestamp"`
				Data      map[string]any `json:"data"`
			}
			if err := json.Unmarshal(q.Body, &p); err != nil || p.Timestamp.IsZero() || p.Data["bot_id"] != float64(w.bot) {
				t.Fatalf("payload %s (%v)", q.Body, err)
			}
			types[p.Type]++
		}
		if types["bot.updated"] != 1 || types["lead.captured"] != 999 {
			t.Fatalf("types %v", types)
		}
		time.Sleep(200 * time.Millisecond)
		if n := len(other.requests()); n != 0 {
			t.Fatalf("an endpoint not subscribed got %d requests", n)
		}
		if n := len(rc.requests()); n != 1000 {
			t.Fatalf("%d requests, want 1000", n)
		}
		// The log: 1,000 successful attempts.
		r = w.a.Do(t, "GET", "/webhooks/"+ep.ID+"/deliveries?status=succeeded&limit=10", nil, "X-API-Key", w.key)
		if r.Status != 200 || !strings.Contains(string(r.Body), `"total":1000`) || !strings.Contains(string(r.Body), `"status_code":200`) {
			t.Fatalf("deliveries: %d %s", r.Status, r.Body)
		}
		r = w.a.Do(t, "GET", "/webhooks/"+ep.ID+"/deliveries?event_type=bot.updated", nil, "X-API-Key", w.key)
		if !strings.Contains(string(r.Body), `"total":1`) {
			t.Fatalf("deliveries by type: %s", r.Body)
		}
		// The secret is never shown again: 100 reads and patches.
		for i := 0; i < 50; i++ {
			for _, r := range []*testkit.Response{
				w.a.Do(t, "GET", fmt.Sprintf("/webhooks?bot_id=%d", w.bot), nil, "X-API-Key", w.key),
				w.a.Do(t, "PATCH", "/webhooks/"+ep.ID, map[string]any{"description": fmt.Sprint(i)}, "X-API-Key", w.key),
			} {
				if r.Status != 200 || strings.Contains(string(r.Body), ep.Secret) {
					t.Fatalf("read %d: %d, holds the secret: %v", i, r.Status, strings.Contains(string(r.Body), ep.Secret))
				}
			}
		}
		if strings.Contains(w.a.Logs.String(), ep.Secret) {
			t.Fatal("the secret appears in the logs")
		}
	})
}

func TestTestDeliveryAndRotation(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		w := newWorld(t, e, manual())
		status := 200
		rc := newReceiver(t, func(*http.Request) (int, http.Header) { return status, nil })
		ep := w.createEndpoint(t, w.bot, rc.srv.URL+"/in", "lead.captured")
		auth := []string{"X-API-Key", w.key}

		r := w.a.Do(t, "POST", "/webhooks/"+ep.ID+"/test", nil, auth...)
		if r.Status != 200 || !strings.Contains(string(r.Body), `"succeeded":true`) || !strings.Contains(string(r.Body), `"status_code":200`) {
			t.Fatalf("test: %d %s", r.Status, r.Body)
		}
		got := rc.requests()
		if len(got) != 1 || !strings.Contains(string(got[0].Body), `"type":"webhook.test"`) {
			t.Fatalf("receiver got %v", got)
		}
		status = 500
		r = w.a.Do(t, "POST", "/webhooks/"+ep.ID+"/test", nil, auth...)
		if r.Status != 200 || !strings.Contains(string(r.Body), `"succeeded":false`) || !strings.Contains(string(r.Body), `"status_code":500`) ||
			!strings.Contains(string(r.Body), `"next_retry_at":"`) {
			t.Fatalf("failed test: %d %s", r.Status, r.Body)
		}
		status = 200

		// Rotation: both secrets sign for 24 hours, then only the new one.
		r = w.a.Do(t, "POST", "/webhooks/"+ep.ID+"/rotate-secret", nil, auth...)
		var rot endpoint
		r.Decode(t, &rot)
		if r.Status != 200 || !secretRE.MatchString(rot.Secret) || rot.Secret == ep.Secret {
			t.Fatalf("rotate: %d %s", r.Status, r.Body)
		}
		oldV, _ := standardwebhooks.NewWebhook(ep.Secret)
		newV, _ := standardwebhooks.NewWebhook(rot.Secret)
		w.emit(t, w.ws, w.bot, "lead.captured", 1)
		w.pump(t)
		// The failed test message is not due yet (5 s): one request.
		got = rc.requests()
		last := got[len(got)-1]
		if n := len(strings.Fields(last.Header.Get("webhook-signature"))); n != 2 {
			t.Fatalf("during the overlap: %d signatures", n)
		}
		if err := oldV.VerifyIgnoringTimestamp(last.Body, last.Header); err != nil {
			t.Fatalf("old secret: %v", err)
		}
		if err := newV.VerifyIgnoringTimestamp(last.Body, last.Header); err != nil {
			t.Fatalf("new secret: %v", err)
		}
		w.a.Clock.Advance(24*time.Hour + time.Minute)
		w.emit(t, w.ws, w.bot, "lead.captured", 1)
		w.pump(t)
		got = rc.requests()
		last = got[len(got)-1]
		if n := len(strings.Fields(last.Header.Get("webhook-signature"))); n != 1 {
			t.Fatalf("after the overlap: %d signatures", n)
		}
		if err := oldV.VerifyIgnoringTimestamp(last.Body, last.Header); err == nil {
			t.Fatal("the old secret still verifies after the overlap")
		}
		if err := newV.VerifyIgnoringTimestamp(last.Body, last.Header); err != nil {
			t.Fatalf("new secret: %v", err)
		}
	})
}

// TestLiveChatEventsDelivered: a hand-off, its claim and its close reach an
// endpoint subscribed to them, through the real live-chat routes.
func TestLiveChatEventsDelivered(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		w := newWorld(t, e)
		a := w.a
		r := a.Do(t, "POST", "/bots", map[string]any{"name": "Live", "live_chat": map[string]any{"enabled": true}}, "X-API-Key", w.key)
		if r.Status != 201 {
			t.Fatalf("bot: %d %s", r.Status, r.Body)
		}
		bot, botKey := int64(r.JSON(t)["bot_id"].(float64)), r.JSON(t)["bot_key"].(string)
		r = a.Do(t, "POST", "/operators", map[string]any{"email": "agent@acme-corp.io", "password": "agent password", "bot_id": bot}, "X-API-Key", w.key)
		if r.Status != 201 {
			t.Fatalf("operator: %d %s", r.Status, r.Body)
		}
		op := []string{"X-Operator-Key", r.JSON(t)["operator_key"].(string)}
		if r := a.Do(t, "PUT", "/operators/me/status", map[string]any{"status": "online"}, op...); r.Status != 200 {
			t.Fatalf("online: %d %s", r.Status, r.Body)
		}
		rc := newReceiver(t, nil)
		w.createEndpoint(t, bot, rc.srv.URL+"/hook", "handoff.requested", "handoff.claimed", "conversation.closed")

		sid := a.Do(t, "POST", "/chat", map[string]any{"message": "hello"}, "X-Bot-Key", botKey).JSON(t)["session_id"].(string)
		if r := a.Do(t, "POST", "/operators/handoff", map[string]any{"session_id": sid}, "X-Bot-Key", botKey); r.Status != 200 {
			t.Fatalf("handoff: %d %s", r.Status, r.Body)
		}
		conv := "/operators/conversations/" + sid
		for _, step := range []string{"/claim", "/close"} {
			if r := a.Do(t, "POST", conv+step, nil, op...); r.Status != 200 {
				t.Fatalf("%s: %d %s", step, r.Status, r.Body)
			}
		}
		var types []string
		for _, req := range rc.waitFor(t, 3, 20*time.Second) {
			var body struct {
				Type string `json:"type"`
				Data struct {
					SessionID string `json:"session_id"`
				} `json:"data"`
			}
			if err := json.Unmarshal(req.Body, &body); err != nil || body.Data.SessionID != sid {
				t.Errorf("delivery %s: %v", req.Body, err)
			}
			types = append(types, body.Type)
		}
		sort.Strings(types)
		if strings.Join(types, ",") != "conversation.closed,handoff.claimed,handoff.requested" {
			t.Errorf("delivered %v", types)
		}
	})
}
