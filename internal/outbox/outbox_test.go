package outbox_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"concierge/internal/jobs"
	"concierge/internal/store"
	"concierge/internal/testkit"
)

// TestDispatchedEventsArePurged: the app's hourly purge job deletes the
// events the webhook dispatcher made into messages more than a week ago;
// newer ones and those not dispatched yet stay.
func TestDispatchedEventsArePurged(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		ctx := context.Background()
		a := testkit.NewApp(t, e)
		_, ws := a.Register(t, "events@acme-corp.io")
		now := a.Clock.Now()
		rows := []struct {
			name       string
			dispatched any
			kept       bool
		}{
			{"dispatched 8 days ago", now.Add(-8 * 24 * time.Hour), false},
			{"dispatched 6 days ago", now.Add(-6 * 24 * time.Hour), true},
			{"not dispatched, 30 days old", nil, true},
		}
		for i, r := range rows {
			if _, err := store.Exec(ctx, a.DB.Writer(), `INSERT INTO events (public_id, workspace_id, type, payload, created_at,
				dispatched_at) VALUES (?, ?, 'lead.captured', '{}', ?, ?)`, fmt.Sprintf("evt_purge%d", i), ws,
				now.Add(-30*24*time.Hour), r.dispatched); err != nil {
				t.Fatal(err)
			}
		}
		a.Clock.Advance(jobs.PurgeEvery)
		a.Queue.Wake()
		time.Sleep(50 * time.Millisecond)
		a.Settle(t)
		for i, r := range rows {
			var n int
			if err := store.Get(ctx, a.DB.Reader(), &n, `SELECT COUNT(*) FROM events WHERE public_id = ?`,
				fmt.Sprintf("evt_purge%d", i)); err != nil {
				t.Fatal(err)
			}
			if (n == 1) != r.kept {
				t.Errorf("%s: kept %v, want %v", r.name, n == 1, r.kept)
			}
		}
	})
}
