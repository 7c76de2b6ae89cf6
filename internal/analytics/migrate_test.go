package analytics_test

import (
	"context"
	"testing"
	"time"

	"concierge/internal/store"
	"concierge/internal/testkit"
)

// TestUpgradeKeepsConversations: conversations written before the
// analytics migration keep counting after it: their visitor messages and
// answered/unanswered replies are counted from their messages.
func TestUpgradeKeepsConversations(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		ctx := context.Background()
		db := testkit.OpenDB(t, e, testkit.DatabaseURL(t, e))
		if err := db.MigrateTo(ctx, 14); err != nil {
			t.Fatal(err)
		}
		now := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
		var ws, bot, sid int64
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(store.Get(ctx, db.Writer(), &ws, `INSERT INTO workspaces (email, password_hash, created_at, updated_at)
			VALUES ('old@example.com', 'x', ?, ?) RETURNING id`, now, now))
		must(store.Get(ctx, db.Writer(), &bot, `INSERT INTO bots (workspace_id, bot_key, name, created_at, updated_at)
			VALUES (?, 'bk_old', 'old', ?, ?) RETURNING id`, ws, now, now))
		must(store.Get(ctx, db.Writer(), &sid, `INSERT INTO chat_sessions (public_id, workspace_id, bot_id, messages, created_at,
			last_message_at) VALUES ('ses_old', ?, ?, 4, ?, ?) RETURNING id`, ws, bot, now, now))
		for i, m := range []struct {
			role     string
			answered any
		}{{"user", nil}, {"assistant", true}, {"user", nil}, {"assistant", false}} {
			_, err := store.Exec(ctx, db.Writer(), `INSERT INTO chat_messages (public_id, session_id, workspace_id, bot_id, role,
				text, answered, created_at) VALUES (?, ?, ?, ?, ?, 'x', ?, ?)`, "m"+string(rune('a'+i)), sid, ws, bot, m.role, m.answered, now)
			must(err)
		}
		if _, err := db.Migrate(ctx, nil); err != nil {
			t.Fatal(err)
		}
		var got struct {
			Visitor    int `db:"visitor_messages"`
			Answered   int `db:"answered_replies"`
			Unanswered int `db:"unanswered_replies"`
		}
		must(store.Get(ctx, db.Reader(), &got, `SELECT visitor_messages, answered_replies, unanswered_replies FROM chat_sessions WHERE id = ?`, sid))
		if got.Visitor != 2 || got.Answered != 1 || got.Unanswered != 1 {
			t.Errorf("counters after the upgrade: %+v, want 2 visitor messages, 1 answered, 1 unanswered", got)
		}
		var topics int
		must(store.Get(ctx, db.Reader(), &topics, `SELECT COUNT(*) FROM chat_messages WHERE topic = '' AND role = 'user'`))
		if topics != 2 {
			t.Errorf("%d old visitor messages counted, want 2", topics)
		}
	})
}
