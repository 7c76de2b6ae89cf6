package analytics_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"concierge/internal/analytics"
	"concierge/internal/store"
	"concierge/internal/testkit"
)

// TestFoldKeepsQuestionReports: the question reports say the same before
// a day is folded into the topic days (read from the messages) and after
// (read from the table), in any time zone; a day is folded once, even by
// two folds at once; traffic after a fold counts at once; a folded day
// that drifts from its messages is caught and rebuilt.
func TestFoldKeepsQuestionReports(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		ctx := context.Background()
		a := testkit.NewApp(t, e)
		a.Clock.Set(time.Date(2026, 6, 8, 22, 30, 0, 0, time.UTC))
		own, other := twoBakeries(t, a, "owner@fold.example", "owner@other-fold.example")
		key, bot, botKey, otherBotKey := own.key, own.bot, own.botKey, other.botKey

		// Questions on three UTC days, answered and not, near midnight.
		traffic := []struct {
			at  time.Time
			msg string
		}{
			{time.Date(2026, 6, 8, 22, 30, 0, 0, time.UTC), "how much does a sourdough loaf cost?"},
			{time.Date(2026, 6, 8, 23, 59, 0, 0, time.UTC), "what is the phone number of the bakery?"},
			{time.Date(2026, 6, 9, 3, 0, 0, 0, time.UTC), "price of the sourdough loaf?"},
			{time.Date(2026, 6, 9, 23, 50, 0, 0, time.UTC), "phone number of your bakery"},
			{time.Date(2026, 6, 10, 0, 0, 0, 0, time.UTC), "how long does delivery of parcels take?"}, // a day's first instant
			{time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC), "how much does a sourdough loaf cost?"},
		}
		for _, m := range traffic {
			a.Clock.Set(m.at)
			chat(t, a, botKey, "", m.msg)
			chat(t, a, otherBotKey, "", m.msg)
		}
		windows := []string{
			"from=2026-06-08&to=2026-06-10",
			"from=2026-06-09&to=2026-06-09",
			"from=2026-06-08&to=2026-06-10&tz=America/New_York",
			"from=2026-06-09&to=2026-06-10&tz=Asia/Kathmandu",
			fmt.Sprintf("from=2026-06-01&to=2026-06-30&bot_id=%d", bot),
		}
		reports := func() map[string]string {
			out := map[string]string{}
			for _, w := range windows {
				for _, p := range []string{"top-questions", "unanswered-questions"} {
					b, err := json.Marshal(get(t, a, key, "/analytics/"+p+"?"+w, 200))
					if err != nil {
						t.Fatal(err)
					}
					out[p+"?"+w] = string(b)
				}
			}
			return out
		}
		same := func(when string, before, after map[string]string) {
			t.Helper()
			for k, v := range before {
				if after[k] != v {
					t.Errorf("%s, %s:\n%s\nbefore:\n%s", when, k, after[k], v)
				}
			}
		}
		unfolded := reports()
		if g := get(t, a, key, "/analytics/top-questions?"+windows[0], 200); num(t, g, "questions.value") != 6 {
			t.Fatalf("6 questions in the window: %v", g)
		}

		// The next night every day before it is closed and folded (the
		// fold job may have folded some already as the clock moved on).
		a.Clock.Set(time.Date(2026, 6, 11, 2, 0, 0, 0, time.UTC))
		if _, err := a.Analytics.FoldTopicDays(ctx); err != nil {
			t.Fatal(err)
		}
		foldedUntil(t, a, time.Date(2026, 6, 11, 0, 0, 0, 0, time.UTC))
		var rows int
		if err := store.Get(ctx, a.DB.Reader(), &rows, `SELECT COUNT(*) FROM analytics_topic_days`); err != nil || rows == 0 {
			t.Fatalf("topic days after the fold: %d, %v", rows, err)
		}
		same("after the fold", unfolded, reports())
		if n, err := a.Analytics.FoldTopicDays(ctx); err != nil || n != 0 {
			t.Fatalf("second fold: %d days, %v; want none", n, err)
		}

		// Questions after the fold count at once, from the messages.
		a.Clock.Set(time.Date(2026, 6, 11, 9, 0, 0, 0, time.UTC))
		chat(t, a, botKey, "", "what is the phone number of the bakery?")
		if g := get(t, a, key, "/analytics/unanswered-questions?from=2026-06-08&to=2026-06-11", 200); num(t, g, "questions.value") != 3 ||
			len(g["groups"].([]any)) != 1 || g["groups"].([]any)[0].(map[string]any)["count"].(float64) != 3 {
			t.Errorf("the phone number asked three times, once after the fold: %v", g)
		}
		windows = append(windows, "from=2026-06-08&to=2026-06-11", "from=2026-06-11&to=2026-06-11&tz=Pacific/Auckland")
		unfolded = reports()

		// Two folds at once after everything is unfolded: each day once.
		a.Clock.Set(time.Date(2026, 6, 12, 3, 0, 0, 0, time.UTC))
		for _, q := range []string{`DELETE FROM analytics_topic_days`, `UPDATE analytics_folds SET until_day = NULL`} {
			if _, err := store.Exec(ctx, a.DB.Writer(), q); err != nil {
				t.Fatal(err)
			}
		}
		same("unfolded", unfolded, reports())
		var wg sync.WaitGroup
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := a.Analytics.FoldTopicDays(ctx); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		foldedUntil(t, a, time.Date(2026, 6, 12, 0, 0, 0, 0, time.UTC))
		if err := a.Analytics.VerifyQuarters(ctx); err != nil {
			t.Fatal(err)
		}
		same("after two folds", unfolded, reports())

		// A folded day that no longer matches its messages is caught.
		if _, err := store.Exec(ctx, a.DB.Writer(), `UPDATE analytics_topic_days SET questions = questions + 1 WHERE bot_id = ?`, bot); err != nil {
			t.Fatal(err)
		}
		if err := a.Analytics.VerifyQuarters(ctx); err == nil {
			t.Fatal("a folded day changed: VerifyQuarters saw no difference")
		}
		if err := a.Analytics.Rebuild(ctx); err != nil {
			t.Fatal(err)
		}
		same("after a rebuild", unfolded, reports())
	})
}

// TestUpgradeStartsTheFold: the migration that took the topic days out of
// the writers keeps the days before the upgrade's day folded and gives
// that day back to the messages; the fold job takes it from there.
func TestUpgradeStartsTheFold(t *testing.T) {
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
		now := time.Now().UTC()
		today := now.Truncate(24 * time.Hour)
		var ws, bot, sid int64
		must(store.Get(ctx, db.Writer(), &ws, `INSERT INTO workspaces (email, password_hash, created_at, updated_at)
			VALUES ('old@example.com', 'x', ?, ?) RETURNING id`, now, now))
		must(store.Get(ctx, db.Writer(), &bot, `INSERT INTO bots (workspace_id, bot_key, name, created_at, updated_at)
			VALUES (?, 'bk_old', 'old', ?, ?) RETURNING id`, ws, now, now))
		must(store.Get(ctx, db.Writer(), &sid, `INSERT INTO chat_sessions (public_id, workspace_id, bot_id, messages,
			visitor_messages, created_at, last_message_at) VALUES ('ses_old', ?, ?, 2, 2, ?, ?) RETURNING id`, ws, bot, now, now))
		for i, at := range []time.Time{today.Add(-12 * time.Hour), today} { // yesterday noon, today's first second
			_, err := store.Exec(ctx, db.Writer(), `INSERT INTO chat_messages (public_id, session_id, workspace_id, bot_id, role,
				status, text, topic, reply_answered, created_at) VALUES (?, ?, ?, ?, 'user', 'completed', 'x', 'price', TRUE, ?)`,
				fmt.Sprintf("u%d", i), sid, ws, bot, at)
			must(err)
		}
		// Up to the release whose writers kept every day current.
		must(db.MigrateTo(ctx, 17))
		var days []int64
		must(store.Select(ctx, db.Reader(), &days, `SELECT day FROM analytics_topic_days ORDER BY day`))
		todayN := today.Unix() / 86400
		if len(days) != 2 || days[1] != todayN {
			t.Fatalf("topic days before the upgrade: %v, want yesterday and today (%d)", days, todayN)
		}
		if _, err := db.Migrate(ctx, nil); err != nil {
			t.Fatal(err)
		}
		var until *int64
		must(store.Get(ctx, db.Reader(), &until, `SELECT until_day FROM analytics_folds WHERE name = 'topic_days'`))
		days = nil
		must(store.Select(ctx, db.Reader(), &days, `SELECT day FROM analytics_topic_days ORDER BY day`))
		// (Run across midnight, the migration's today is tomorrow: both days stay.)
		if until == nil || *until < todayN || len(days) != 1+int(min(*until-todayN, 1)) {
			t.Fatalf("after the upgrade: folded until %v, days %v; want until today (%d), yesterday kept", until, days, todayN)
		}
		svc := analytics.New(analytics.Deps{DB: db})
		must(svc.VerifyQuarters(ctx))
	})
}

// foldedUntil checks the first day not folded.
func foldedUntil(t *testing.T, a *testkit.TestApp, want time.Time) {
	t.Helper()
	var until *int64
	if err := store.Get(context.Background(), a.DB.Reader(), &until, `SELECT until_day FROM analytics_folds`); err != nil {
		t.Fatal(err)
	}
	if until == nil || *until != want.Unix()/86400 {
		t.Fatalf("folded until day %v, want %d (%s)", until, want.Unix()/86400, want.Format(time.DateOnly))
	}
}
