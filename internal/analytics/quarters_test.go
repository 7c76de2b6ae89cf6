package analytics_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"concierge/internal/testkit"
)

// TestQuartersFollowTheWriters: every change the writers make to what the
// dashboard counts (a conversation's first message, however it started;
// ratings given, changed and repeated; preview chats) moves
// analytics_quarters with it, so the dashboard reads from them what the
// rows say.
func TestQuartersFollowTheWriters(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		a.Clock.Set(time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC))
		ctx := context.Background()
		key, _ := a.Register(t, "owner@bakery.example")
		bot, botKey := createBot(t, a, key, "Bakery")
		if r := a.Upload(t, "/ingest", key, bot, testkit.File{Name: "help.md", Data: []byte(knowledge)}); r.Status != 202 {
			t.Fatalf("ingest: %d %s", r.Status, r.Body)
		}
		a.Settle(t)
		verify := func(step string) {
			t.Helper()
			if err := a.Analytics.VerifyQuarters(ctx); err != nil {
				t.Fatalf("after %s: %v", step, err)
			}
		}
		rate := func(session, msg, rating string, want int) {
			t.Helper()
			r := a.Do(t, "POST", "/chat/feedback", map[string]any{"session_id": session, "message_id": msg, "rating": rating},
				"X-Bot-Key", botKey)
			if r.Status != want {
				t.Fatalf("feedback %s: %d %s", rating, r.Status, r.Body)
			}
			verify("rating " + rating)
		}

		r1 := chat(t, a, botKey, "", "how much does a sourdough loaf cost?")
		verify("a new conversation")
		r2 := chat(t, a, botKey, r1.SessionID, "and the croissants?")
		verify("a second message")
		rate(r1.SessionID, r1.MessageID, "up", 200)
		rate(r1.SessionID, r1.MessageID, "down", 200)
		rate(r1.SessionID, r1.MessageID, "down", 200)
		rate(r1.SessionID, r2.MessageID, "down", 200)
		rate(r1.SessionID, r2.MessageID, "up", 200)
		rate(r1.SessionID, "msg_unknown", "up", 404)

		// A conversation that began with the lead form counts from its
		// first message, by the time it began.
		lr := a.Do(t, "POST", "/chat/lead-capture", map[string]any{"name": "Ana", "email": "ana@example.org"}, "X-Bot-Key", botKey)
		if lr.Status != 200 && lr.Status != 201 {
			t.Fatalf("lead: %d %s", lr.Status, lr.Body)
		}
		session, _ := lr.JSON(t)["session_id"].(string)
		if session == "" {
			t.Fatalf("lead capture gave no session: %s", lr.Body)
		}
		verify("a lead without a message")
		a.Clock.Advance(20 * time.Minute) // the message lands in a later quarter hour
		chat(t, a, botKey, session, "do you deliver parcels?")
		verify("the lead's first message")

		// The owner's preview chats count nowhere.
		if r := a.Do(t, "POST", fmt.Sprintf("/chat?preview=true&bot_id=%d", bot), map[string]any{"message": "price of a loaf?"},
			"X-API-Key", key); r.Status != 200 {
			t.Fatalf("preview: %d %s", r.Status, r.Body)
		}
		verify("a preview")

		d := get(t, a, key, "/analytics/dashboard?days=1", 200)
		for path, want := range map[string]float64{"conversations.value": 2, "visitor_messages.value": 3,
			"questions.value": 3, "ratings_up.value": 1, "ratings_down.value": 1} {
			if got := num(t, d, path); got != want {
				t.Errorf("dashboard %s = %v, want %v", path, got, want)
			}
		}
		rt := get(t, a, key, "/analytics/ratings-summary?days=1", 200)
		if num(t, rt, "up.value") != 1 || num(t, rt, "down.value") != 1 {
			t.Errorf("ratings: %v", rt)
		}
	})
}
