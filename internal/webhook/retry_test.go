package webhook_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"concierge/internal/mail"
	"concierge/internal/store"
	"concierge/internal/testkit"
)

// nextDue is the earliest pending attempt, if any.
func (w *world) nextDue(t *testing.T) (time.Time, bool) {
	t.Helper()
	var at []time.Time
	if err := store.Select(context.Background(), w.a.DB.Reader(), &at, `SELECT m.next_attempt_at FROM webhook_messages m
		JOIN webhooks h ON h.id = m.webhook_id WHERE m.status = 'pending' AND h.active = TRUE
		ORDER BY m.next_attempt_at LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	if len(at) == 0 {
		return time.Time{}, false
	}
	return at[0], true
}

// runUntil delivers everything due up to end, moving the fake clock from
// one due time to the next, and leaves the clock at end.
func (w *world) runUntil(t *testing.T, end time.Time) {
	t.Helper()
	for {
		w.pump(t)
		next, ok := w.nextDue(t)
		if !ok || next.After(end) {
			break
		}
		if next.After(w.a.Clock.Now()) {
			w.a.Clock.Set(next)
		}
	}
	if end.After(w.a.Clock.Now()) {
		w.a.Clock.Set(end)
		w.pump(t)
	}
}

// disabledMail waits for the owner's e-mail about a disabled endpoint.
func (w *world) disabledMail(t *testing.T) mail.Message {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, m := range w.a.Mailbox.Messages(w.ownerEmail) {
			if m.Headers["X-Concierge-Kind"] == "webhook-disabled" {
				return m
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("no e-mail about the disabled endpoint")
	return mail.Message{}
}

func (w *world) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := store.Get(context.Background(), w.a.DB.Reader(), &n, query, args...); err != nil {
		t.Fatal(err)
	}
	return n
}

func (w *world) endpointState(t *testing.T, id string) map[string]any {
	t.Helper()
	r := w.a.Do(t, "GET", fmt.Sprintf("/webhooks?bot_id=%d", w.bot), nil, "X-API-Key", w.key)
	var out struct {
		Items []map[string]any `json:"items"`
	}
	r.Decode(t, &out)
	for _, it := range out.Items {
		if it["webhook_id"] == id {
			return it
		}
	}
	t.Fatalf("endpoint %s not listed: %s", id, r.Body)
	return nil
}

// G9: the receiver is down for the first hour; attempts follow the
// schedule, the same webhook-id every time, and all arrive once it is back.
func TestReceiverDownForAnHourG9(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		w := newWorld(t, e, manual())
		t0 := w.a.Clock.Now()
		up := t0.Add(time.Hour)
		rc := newReceiver(t, func(r *http.Request) (int, http.Header) {
			if w.a.Clock.Now().Before(up) {
				return 503, nil
			}
			return 204, nil
		})
		ep := w.createEndpoint(t, w.bot, rc.srv.URL+"/in", "lead.captured")
		events := 1000 // as G9 asks; PostgreSQL commits each attempt on its own, so fewer there
		if e == testkit.Postgres {
			events = 200
		}
		w.emit(t, w.ws, w.bot, "lead.captured", events)
		w.runUntil(t, t0.Add(4*time.Hour))

		byID := map[string][]request{}
		for _, q := range rc.requests() {
			id := q.Header.Get("webhook-id")
			byID[id] = append(byID[id], q)
		}
		if len(byID) != events {
			t.Fatalf("%d distinct webhook-ids, want %d", len(byID), events)
		}
		bounds := [][2]time.Duration{{4 * time.Second, 6 * time.Second}, {4 * time.Minute, 6 * time.Minute},
			{24 * time.Minute, 36 * time.Minute}, {96 * time.Minute, 144 * time.Minute}}
		for id, qs := range byID {
			if len(qs) != 5 {
				t.Fatalf("%s: %d attempts, want 5 (4 failures, then success)", id, len(qs))
			}
			for i := 1; i < len(qs); i++ {
				d := qs[i].At.Sub(qs[i-1].At)
				lo, hi := bounds[i-1][0]-time.Second, bounds[i-1][1]+time.Second // timestamps are whole seconds
				if d < lo || d > hi {
					t.Fatalf("%s: attempt %d came %s after the previous, want %s..%s", id, i+1, d, lo, hi)
				}
			}
			if qs[3].At.After(up) || qs[4].At.Before(up) {
				t.Fatalf("%s: attempt 4 at %s, 5 at %s; receiver up at %s", id, qs[3].At, qs[4].At, up)
			}
		}
		if n := w.count(t, `SELECT COUNT(*) FROM webhook_attempts`); n != 5*events {
			t.Fatalf("%d attempt rows, want %d", n, 5*events)
		}
		if n := w.count(t, `SELECT COUNT(*) FROM webhook_messages WHERE status = 'succeeded'`); n != events {
			t.Fatalf("%d messages delivered, want %d", n, events)
		}
		r := w.a.Do(t, "GET", "/webhooks/"+ep.ID+"/deliveries?status=failed&limit=1", nil, "X-API-Key", w.key)
		if !strings.Contains(string(r.Body), fmt.Sprintf(`"total":%d`, 4*events)) || !strings.Contains(string(r.Body), `"status_code":503`) ||
			!strings.Contains(string(r.Body), `"response_body":"{\"ok\":false}"`) {
			t.Fatalf("failed deliveries: %s", r.Body)
		}
		if st := w.endpointState(t, ep.ID); st["active"] != true || st["failing_since"] != nil {
			t.Fatalf("endpoint after recovery: %v", st)
		}
	})
}

func TestRetryVariantsG9(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		t.Run("302 is a failure and never followed", func(t *testing.T) {
			w := newWorld(t, e, manual())
			target := newReceiver(t, nil)
			rc := newReceiver(t, func(*http.Request) (int, http.Header) {
				return 302, http.Header{"Location": {target.srv.URL + "/elsewhere"}}
			})
			ep := w.createEndpoint(t, w.bot, rc.srv.URL+"/in", "lead.captured")
			w.emit(t, w.ws, w.bot, "lead.captured", 1)
			w.runUntil(t, w.a.Clock.Now().Add(10*time.Minute))
			if n := len(target.requests()); n != 0 {
				t.Fatalf("redirect target got %d requests", n)
			}
			if n := len(rc.requests()); n != 3 {
				t.Fatalf("%d attempts in 10 minutes, want 3 (0, 5 s, 5 min)", n)
			}
			r := w.a.Do(t, "GET", "/webhooks/"+ep.ID+"/deliveries", nil, "X-API-Key", w.key)
			if !strings.Contains(string(r.Body), `"status_code":302`) || !strings.Contains(string(r.Body), "redirects are not followed") ||
				strings.Contains(string(r.Body), `"status":"succeeded"`) {
				t.Fatalf("deliveries: %s", r.Body)
			}
		})

		t.Run("410 disables at once and tells the owner; replay after re-enabling", func(t *testing.T) {
			w := newWorld(t, e, manual())
			var gone atomic.Bool
			gone.Store(true)
			rc := newReceiver(t, func(*http.Request) (int, http.Header) {
				if gone.Load() {
					return 410, nil
				}
				return 200, nil
			})
			ep := w.createEndpoint(t, w.bot, rc.srv.URL+"/in", "lead.captured")
			w.emit(t, w.ws, w.bot, "lead.captured", 3)
			w.runUntil(t, w.a.Clock.Now().Add(time.Hour))
			if n := len(rc.requests()); n != 1 && n != 2 && n != 3 {
				t.Fatalf("%d requests", n)
			}
			first := len(rc.requests())
			st := w.endpointState(t, ep.ID)
			if st["active"] != false || !strings.Contains(fmt.Sprint(st["disabled_reason"]), "410") {
				t.Fatalf("endpoint after 410: %v", st)
			}
			m := w.disabledMail(t)
			if !strings.Contains(m.Text, ep.ID) || strings.Contains(m.Text, "whsec_") {
				t.Fatalf("mail: %q", m.Text)
			}
			w.emit(t, w.ws, w.bot, "lead.captured", 2)
			w.runUntil(t, w.a.Clock.Now().Add(48*time.Hour))
			if n := len(rc.requests()); n != first {
				t.Fatalf("a disabled endpoint got %d more requests", n-first)
			}
			if n := w.count(t, `SELECT COUNT(*) FROM webhook_messages WHERE status = 'failed'`); n != 3 {
				t.Fatalf("%d failed messages, want 3", n)
			}

			// Manual replay: one message, then every failed one since t.
			gone.Store(false)
			r := w.a.Do(t, "PATCH", "/webhooks/"+ep.ID, map[string]any{"active": true}, "X-API-Key", w.key)
			if r.Status != 200 || !strings.Contains(string(r.Body), `"disabled_reason":null`) {
				t.Fatalf("re-enable: %d %s", r.Status, r.Body)
			}
			var failedID string
			if err := store.Get(context.Background(), w.a.DB.Reader(), &failedID, `SELECT public_id FROM webhook_messages
				WHERE status = 'failed' ORDER BY id LIMIT 1`); err != nil {
				t.Fatal(err)
			}
			r = w.a.Do(t, "POST", "/webhooks/"+ep.ID+"/replay", map[string]any{"message_id": failedID}, "X-API-Key", w.key)
			if r.Status != 200 || !strings.Contains(string(r.Body), `"replayed":1`) {
				t.Fatalf("replay: %d %s", r.Status, r.Body)
			}
			w.pump(t)
			got := rc.requests()
			if last := got[len(got)-1]; last.Header.Get("webhook-id") != failedID {
				t.Fatalf("replayed webhook-id %q, want %q", last.Header.Get("webhook-id"), failedID)
			}
			r = w.a.Do(t, "POST", "/webhooks/"+ep.ID+"/replay", map[string]any{"message_id": failedID}, "X-API-Key", w.key)
			if r.Status != 409 {
				t.Fatalf("replay of a delivered message: %d %s", r.Status, r.Body)
			}
			r = w.a.Do(t, "POST", "/webhooks/"+ep.ID+"/replay", map[string]any{"since": w.a.Clock.Now().Add(-72 * time.Hour)}, "X-API-Key", w.key)
			if r.Status != 200 || !strings.Contains(string(r.Body), `"replayed":2`) {
				t.Fatalf("replay since: %d %s", r.Status, r.Body)
			}
			w.pump(t)
			if n := w.count(t, `SELECT COUNT(*) FROM webhook_messages WHERE status = 'succeeded'`); n != 3 {
				t.Fatalf("%d delivered after replay, want 3", n)
			}
		})

		t.Run("429 with Retry-After waits at least that long", func(t *testing.T) {
			w := newWorld(t, e, manual())
			var calls atomic.Int32
			rc := newReceiver(t, func(*http.Request) (int, http.Header) {
				if calls.Add(1) == 1 {
					return 429, http.Header{"Retry-After": {"120"}}
				}
				return 200, nil
			})
			ep := w.createEndpoint(t, w.bot, rc.srv.URL+"/in", "lead.captured")
			w.emit(t, w.ws, w.bot, "lead.captured", 1)
			t0 := w.a.Clock.Now()
			w.runUntil(t, t0.Add(119*time.Second))
			if n := len(rc.requests()); n != 1 {
				t.Fatalf("%d requests before Retry-After passed", n)
			}
			w.runUntil(t, t0.Add(10*time.Minute))
			got := rc.requests()
			if len(got) != 2 || got[1].At.Sub(got[0].At) < 120*time.Second {
				t.Fatalf("%d requests; second after %s", len(got), got[len(got)-1].At.Sub(got[0].At))
			}
			r := w.a.Do(t, "GET", "/webhooks/"+ep.ID+"/deliveries?status=failed", nil, "X-API-Key", w.key)
			var out struct {
				Items []struct {
					CreatedAt   time.Time `json:"created_at"`
					NextRetryAt time.Time `json:"next_retry_at"`
					StatusCode  int       `json:"status_code"`
				} `json:"items"`
			}
			if err := json.Unmarshal(r.Body, &out); err != nil || len(out.Items) != 1 || out.Items[0].StatusCode != 429 ||
				out.Items[0].NextRetryAt.Sub(out.Items[0].CreatedAt) < 120*time.Second {
				t.Fatalf("deliveries: %s", r.Body)
			}
		})

		t.Run("five days of failures disable the endpoint and tell the owner", func(t *testing.T) {
			w := newWorld(t, e, manual())
			rc := newReceiver(t, func(*http.Request) (int, http.Header) { return 500, nil })
			ep := w.createEndpoint(t, w.bot, rc.srv.URL+"/in", "lead.captured")
			t0 := w.a.Clock.Now()
			for w.a.Clock.Now().Before(t0.Add(5*24*time.Hour + 12*time.Hour)) {
				w.emit(t, w.ws, w.bot, "lead.captured", 1)
				w.runUntil(t, w.a.Clock.Now().Add(6*time.Hour))
			}
			st := w.endpointState(t, ep.ID)
			if st["active"] != false || !strings.Contains(fmt.Sprint(st["disabled_reason"]), "120h0m0s") {
				t.Fatalf("endpoint after five days: %v", st)
			}
			w.disabledMail(t)
			before := len(rc.requests())
			for i := 0; i < 4; i++ {
				w.emit(t, w.ws, w.bot, "lead.captured", 1)
				w.runUntil(t, w.a.Clock.Now().Add(12*time.Hour))
			}
			if n := len(rc.requests()); n != before {
				t.Fatalf("%d attempts after disabling", n-before)
			}
		})
	})
}

// CONCIERGE_WEBHOOK_RETRY_SCHEDULE replaces the default schedule: its
// attempts at its delays, then the message has failed.
func TestConfiguredSchedule(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		w := newWorld(t, e, manual(), testkit.WithEnv("CONCIERGE_WEBHOOK_RETRY_SCHEDULE", "0s,1m,10m"))
		t0 := w.a.Clock.Now()
		rc := newReceiver(t, func(r *http.Request) (int, http.Header) { return 503, nil })
		w.createEndpoint(t, w.bot, rc.srv.URL+"/in", "lead.captured")
		w.emit(t, w.ws, w.bot, "lead.captured", 3)
		w.runUntil(t, t0.Add(2*time.Hour))

		byID := map[string][]request{}
		for _, q := range rc.requests() {
			byID[q.Header.Get("webhook-id")] = append(byID[q.Header.Get("webhook-id")], q)
		}
		if len(byID) != 3 {
			t.Fatalf("%d distinct webhook-ids, want 3", len(byID))
		}
		bounds := [][2]time.Duration{{48 * time.Second, 72 * time.Second}, {8 * time.Minute, 12 * time.Minute}}
		for id, qs := range byID {
			if len(qs) != 3 {
				t.Fatalf("%s: %d attempts, want the schedule's 3", id, len(qs))
			}
			for i := 1; i < len(qs); i++ {
				d := qs[i].At.Sub(qs[i-1].At)
				if lo, hi := bounds[i-1][0]-time.Second, bounds[i-1][1]+time.Second; d < lo || d > hi {
					t.Fatalf("%s: attempt %d came %s after the previous, want %s..%s", id, i+1, d, lo, hi)
				}
			}
		}
		if n := w.count(t, `SELECT COUNT(*) FROM webhook_messages WHERE status = 'failed'`); n != 3 {
			t.Fatalf("%d messages failed after the last attempt, want 3", n)
		}
	})
}
