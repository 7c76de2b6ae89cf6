package lead_test

import (
	"context"
	"testing"
	"time"

	"concierge/internal/store"
	"concierge/internal/testkit"
)

// BenchmarkSweep times the lead sweep rescoring 500 conversations that
// moved (each a visitor's question and the bot's extractive reply, made
// through POST /chat), per conversation: the reads, the rules and the
// writes, as the sweep job runs them behind the chat replies.
//
//	go test -run '^$' -bench Sweep -benchtime 20x ./internal/lead/
func BenchmarkSweep(b *testing.B) {
	const n = 500
	for _, e := range testkit.Engines() {
		b.Run(string(e), func(b *testing.B) {
			ctx := context.Background()
			a, key, ws, botID, botKey := benchBot(b, e, "sweep@acme-corp.io", "Sweep")
			if _, err := a.Billing.Grant(ctx, ws, 2*n, "bench-grant", "bench"); err != nil {
				b.Fatal(err)
			}
			if r := a.Upload(b, "/ingest", key, botID, testkit.File{Name: "product.md", Data: []byte(product)}); r.Status != 202 {
				b.Fatalf("ingest: %d %s", r.Status, r.Body)
			}
			a.Settle(b)
			questions := []string{"how much does it cost for 50 agents?", "can we go live in two weeks?",
				"do you have live chat and a knowledge base?", "we are drowning in tickets, what do you do?"}
			for i := range n {
				r := a.Do(b, "POST", "/chat", map[string]any{"message": questions[i%len(questions)]}, "X-Bot-Key", botKey)
				if r.Status != 200 {
					b.Fatalf("chat: %d %s", r.Status, r.Body)
				}
			}
			if _, err := a.Leads.Sweep(ctx, time.Time{}); err != nil { // every conversation has its lead row
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				if _, err := store.Exec(ctx, a.DB.Writer(), `UPDATE leads SET scored_messages = 0`); err != nil {
					b.Fatal(err)
				}
				a.Clock.Advance(time.Second)
				b.StartTimer()
				got, err := a.Leads.Sweep(ctx, time.Time{})
				if err != nil || got == 0 {
					b.Fatalf("sweep: %d %v", got, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/conversation")
		})
	}
}
