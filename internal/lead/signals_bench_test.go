package lead_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/lead"
	"concierge/internal/store"
	"concierge/internal/testkit"
)

// BenchmarkRecordSignals times the widget's page signals, the write path
// of the journey (RecordSignals: the lead's signals, the page view, the
// entry page and referrer, the rescore, and the journey days), on 500
// conversations in turn: each gets its entry page with a referrer, then a
// second page with a time, then a longer time on it.
//
//	go test -run '^$' -bench RecordSignals -benchtime 3000x ./internal/lead/
func BenchmarkRecordSignals(b *testing.B) {
	const n = 500
	for _, e := range testkit.Engines() {
		b.Run(string(e), func(b *testing.B) {
			ctx := context.Background()
			a, _, ws, botID, _ := benchBot(b, e, "signals@acme-corp.io", "Signals")
			now := a.Clock.Now()
			if err := a.DB.Tx(ctx, func(tx *sqlx.Tx) error {
				for i := range n {
					if _, err := store.Exec(ctx, tx, `INSERT INTO chat_sessions (public_id, workspace_id, bot_id, preview, messages,
						visitor_messages, created_at, last_message_at) VALUES (?, ?, ?, FALSE, 2, 1, ?, ?)`,
						fmt.Sprintf("cs_signals%06d", i), ws, botID, now, now); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				b.Fatal(err)
			}
			if err := a.Analytics.Rebuild(ctx); err != nil { // the conversations written around the writers
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := range b.N {
				a.Clock.Advance(time.Second)
				in := lead.SignalsInput{SessionID: fmt.Sprintf("cs_signals%06d", i%n)}
				switch secs := 10 + i/n; (i / n) % 3 {
				case 0:
					in.PageURL, in.Referrer = "https://shop.example/", "https://www.google.com/search?q=shoes"
				case 1:
					in.PageURL, in.TimeOnPageSeconds = fmt.Sprintf("https://shop.example/p/%d", i/n), &secs
				default:
					in.TimeOnPageSeconds = &secs
				}
				if _, err := a.Leads.RecordSignals(ctx, ws, botID, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchBot is a benchmark's app on engine e (skipped when PostgreSQL is
// missing outside CI) with a workspace and one bot: the workspace's key and
// id, the bot's id and key.
func benchBot(b *testing.B, e testkit.Engine, email, name string) (*testkit.TestApp, string, int64, int64, string) {
	b.Helper()
	if e == testkit.Postgres && testkit.PostgresAvailable() != nil {
		b.Skip("PostgreSQL not available")
	}
	a := testkit.NewApp(b, e)
	key, ws := a.Register(b, email)
	r := a.Do(b, "POST", "/bots", map[string]any{"name": name}, "X-API-Key", key)
	if r.Status != 201 {
		b.Fatalf("bot: %d %s", r.Status, r.Body)
	}
	out := r.JSON(b)
	return a, key, ws, int64(out["bot_id"].(float64)), out["bot_key"].(string)
}
