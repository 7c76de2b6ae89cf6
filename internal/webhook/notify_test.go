package webhook_test

import (
	"fmt"
	"testing"
	"time"

	"concierge/internal/app"
	"concierge/internal/testkit"
)

// TestCommitWakesDelivery: with the poll as good as off (an hour), events
// still reach the receiver, so it is the commit of the change that woke
// the sender. On PostgreSQL the change is made through a second replica
// that does not deliver: the NOTIFY of its transaction wakes the first.
func TestCommitWakesDelivery(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		noPoll := testkit.WithOptions(func(o *app.Options) { o.Webhooks.Poll = time.Hour })
		w := newWorld(t, e, noPoll)
		rc := newReceiver(t, nil)
		w.createEndpoint(t, w.bot, rc.srv.URL+"/in", "bot.updated")
		writer := w.a
		if e == testkit.Postgres {
			writer = testkit.NewApp(t, e, allowLoopback(), testkit.ReplicaOf(w.a), manual())
		}
		for i := 1; i <= 3; i++ {
			r := writer.Do(t, "PATCH", fmt.Sprintf("/bots/%d", w.bot), map[string]any{"name": fmt.Sprintf("Renamed %d", i)},
				"X-API-Key", w.key)
			if r.Status != 200 {
				t.Fatalf("patch bot: %d %s", r.Status, r.Body)
			}
			// Without the wake nothing would come for an hour.
			rc.waitFor(t, i, 30*time.Second)
		}
	})
}
