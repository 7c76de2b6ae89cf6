package webhook_test

import (
	"context"
	"testing"
	"time"

	"concierge/internal/outbox"
	"concierge/internal/testkit"
)

// TestEventsOwedToEndpointsActiveWhenRecorded: an event is owed to the
// endpoints active when it is recorded, and only an owed event is recorded.
// One of a bot without an active endpoint (none yet, another bot's only,
// another workspace's, or a paused one) is not recorded and never
// delivered, not even to an endpoint created or re-activated later; one of
// a bot with an active endpoint, or a workspace-wide one of a workspace
// with any, is recorded and waits for the dispatcher.
func TestEventsOwedToEndpointsActiveWhenRecorded(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		w := newWorld(t, e, manual())
		ctx := context.Background()
		rc := newReceiver(t, nil)
		count := func(ws int64) (owed, done int) {
			t.Helper()
			evs, err := outbox.List(ctx, w.a.DB.Reader(), ws, 1000)
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range evs {
				if ev.DispatchedAt == nil {
					owed++
				} else {
					done++
				}
			}
			return owed, done
		}
		// emit records n events and checks how many of them were recorded,
		// all owed.
		emit := func(ws, bot int64, typ string, n, wantOwed int) {
			t.Helper()
			owed0, done0 := count(ws)
			w.emit(t, ws, bot, typ, n)
			owed, done := count(ws)
			if owed-owed0 != wantOwed || done != done0 {
				t.Fatalf("%s of bot %d: %d of %d events recorded owed, %d recorded dispatched; want %d owed, none dispatched",
					typ, bot, owed-owed0, n, done-done0, wantOwed)
			}
		}

		if owed, _ := count(w.ws); owed != 0 {
			t.Fatalf("setting up recorded %d events with no endpoint", owed)
		}
		// Nobody listens yet.
		emit(w.ws, w.bot, "bot.updated", 2, 0)
		emit(w.ws, 0, "credits.low", 1, 0)

		ep := w.createEndpoint(t, w.bot, rc.srv.URL+"/in", "bot.updated", "credits.low")
		second := w.createBot(t, w.key, "Support helper")
		emit(w.ws, w.bot, "bot.updated", 1, 1)
		emit(w.ws, 0, "credits.low", 1, 1)               // workspace-wide: every endpoint of it
		emit(w.ws, second, "bot.updated", 3, 0)          // only another bot has an endpoint
		emit(w.otherWS, w.otherBot, "bot.updated", 1, 0) // another workspace's

		// Paused: not owed, and not delivered once active again.
		setActive := func(active bool) {
			t.Helper()
			r := w.a.Do(t, "PATCH", "/webhooks/"+ep.ID, map[string]any{"active": active}, "X-API-Key", w.key)
			if r.Status != 200 {
				t.Fatalf("patch webhook: %d %s", r.Status, r.Body)
			}
		}
		setActive(false)
		emit(w.ws, w.bot, "bot.updated", 1, 0)
		setActive(true)
		w.pump(t)
		rc.waitFor(t, 2, 30*time.Second)
		w.pump(t)
		if got := rc.requests(); len(got) != 2 {
			t.Fatalf("receiver got %d deliveries, want the 2 events recorded while it was active", len(got))
		}
		if owed, _ := count(w.ws); owed != 0 {
			t.Fatalf("after the pump %d events still owed", owed)
		}
	})
}
