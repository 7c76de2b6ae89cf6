package analytics_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"concierge/internal/analytics"
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

// TestUpgradeFillsQuarters: the migration that made analytics_quarters
// filled it from the conversations already there, as the writers would
// have kept it, and gave each conversation its entry page.
func TestUpgradeFillsQuarters(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		ctx := context.Background()
		db := testkit.OpenDB(t, e, testkit.DatabaseURL(t, e))
		if err := db.MigrateTo(ctx, 15); err != nil {
			t.Fatal(err)
		}
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		now := time.Date(2026, 5, 1, 10, 7, 0, 0, time.UTC)
		var ws, bot int64
		must(store.Get(ctx, db.Writer(), &ws, `INSERT INTO workspaces (email, password_hash, created_at, updated_at)
			VALUES ('old@example.com', 'x', ?, ?) RETURNING id`, now, now))
		must(store.Get(ctx, db.Writer(), &bot, `INSERT INTO bots (workspace_id, bot_key, name, created_at, updated_at)
			VALUES (?, 'bk_old', 'old', ?, ?) RETURNING id`, ws, now, now))
		for i, sess := range []struct {
			visitor int
			preview bool
			handoff any
		}{{2, false, now}, {1, false, nil}, {1, true, nil}, {0, false, nil}} {
			at := now.Add(time.Duration(i) * 20 * time.Minute)
			var sid int64
			must(store.Get(ctx, db.Writer(), &sid, `INSERT INTO chat_sessions (public_id, workspace_id, bot_id, preview, messages,
				visitor_messages, handoff_requested_at, created_at, last_message_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
				fmt.Sprintf("ses_%d", i), ws, bot, sess.preview, 2*sess.visitor, sess.visitor, sess.handoff, at, at))
			for k := range sess.visitor {
				var topic any = "price"
				if sess.preview {
					topic = nil
				}
				_, err := store.Exec(ctx, db.Writer(), `INSERT INTO chat_messages (public_id, session_id, workspace_id, bot_id, role,
					status, text, topic, reply_answered, created_at) VALUES (?, ?, ?, ?, 'user', 'completed', 'x', ?, ?, ?)`,
					fmt.Sprintf("u%d-%d", i, k), sid, ws, bot, topic, k == 0, at)
				must(err)
				_, err = store.Exec(ctx, db.Writer(), `INSERT INTO chat_messages (public_id, session_id, workspace_id, bot_id, role,
					status, text, answered, credits, rating, created_at) VALUES (?, ?, ?, ?, 'assistant', 'completed', 'y', ?, 1, ?, ?)`,
					fmt.Sprintf("a%d-%d", i, k), sid, ws, bot, k == 0, []any{1, -1, nil}[k%3], at)
				must(err)
			}
			for pos, url := range []string{"https://old.example/", "https://old.example/pricing"}[:min(2, i+1)] {
				_, err := store.Exec(ctx, db.Writer(), `INSERT INTO page_views (session_id, url, workspace_id, bot_id, position,
					created_at) VALUES (?, ?, ?, ?, ?, ?)`, sid, url, ws, bot, pos, at.Add(time.Duration(pos)*time.Minute))
				must(err)
			}
		}
		if _, err := db.Migrate(ctx, nil); err != nil {
			t.Fatal(err)
		}
		svc := analytics.New(analytics.Deps{DB: db})
		if err := svc.VerifyQuarters(ctx); err != nil {
			t.Error(err)
		}
		rows, err := svc.Quarters(ctx, false)
		must(err)
		var convs, handoffs, engaged, up, down int64
		for _, r := range rows {
			convs, handoffs, up, down, engaged = convs+r.Figures[0], handoffs+r.Figures[1], up+r.Figures[5], down+r.Figures[6], engaged+r.Figures[9]
		}
		if convs != 2 || handoffs != 1 || engaged != 1 || up != 3 || down != 1 {
			t.Errorf("quarters after the upgrade: %d conversations, %d hand-offs, %d engaged, %d up, %d down; want 2, 1, 1, 3, 1",
				convs, handoffs, engaged, up, down)
		}
		var entries int
		must(store.Get(ctx, db.Reader(), &entries, `SELECT COUNT(*) FROM chat_sessions WHERE entry_url = 'https://old.example/'
			AND entry_at IS NOT NULL`))
		if entries != 4 {
			t.Errorf("%d conversations with their entry page, want 4", entries)
		}
	})
}
