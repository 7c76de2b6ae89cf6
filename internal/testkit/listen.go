package testkit

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"concierge/internal/store"
)

var listeners atomic.Int64

// Listen gives the bot an active webhook endpoint subscribed to no real
// event (so nothing is ever delivered), so that the outbox records the
// bot's events and the workspace's: it records only events owed to an
// active endpoint. Tests that check which events a change emits call it
// first. botID 0 adds a bot to the workspace for the endpoint (for
// workspace-wide events, owed to every endpoint of the workspace).
func Listen(t testing.TB, db *store.DB, workspaceID, botID int64) {
	t.Helper()
	ctx, now := context.Background(), time.Now().UTC()
	n := listeners.Add(1)
	if botID == 0 {
		if err := store.Get(ctx, db.Writer(), &botID, `INSERT INTO bots (workspace_id, bot_key, name, created_at, updated_at)
			VALUES (?, ?, 'listener', ?, ?) RETURNING id`, workspaceID, fmt.Sprintf("bk_testkit_listener_%d_%d", now.UnixNano(), n),
			now, now); err != nil {
			t.Fatalf("listen: bot: %v", err)
		}
	}
	if _, err := store.Exec(ctx, db.Writer(), `INSERT INTO webhooks (public_id, workspace_id, bot_id, url, events,
		secret_sealed, secret_hint, created_at, updated_at)
		VALUES (?, ?, ?, 'https://listener.invalid/', '["testkit.listen"]', 'unused', 'unused', ?, ?)`,
		fmt.Sprintf("wh_testkit_%d_%d", now.UnixNano(), n), workspaceID, botID, now, now); err != nil {
		t.Fatalf("listen: %v", err)
	}
}

// Listen is testkit.Listen on the app's database.
func (a *TestApp) Listen(t testing.TB, workspaceID, botID int64) { Listen(t, a.DB, workspaceID, botID) }
