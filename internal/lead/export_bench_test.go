package lead_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/bot"
	"concierge/internal/lead/score"
	"concierge/internal/store"
	"concierge/internal/testkit"
)

// BenchmarkLeadExport streams GET /leads/export of 100,000 leads (set
// LEAD_EXPORT_N to change it) through the real router and HTTP client, and
// reports how far the process's live heap rose above its level before the
// request (sampled every millisecond), with the export's rows, bytes and
// time. Server and client are this process, so the figure covers both.
//
//	go test -run '^$' -bench LeadExport -benchtime 1x ./internal/lead/
func BenchmarkLeadExport(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("LEAD_EXPORT_N")); err == nil && v > 0 {
		n = v
	}
	for _, e := range testkit.Engines() {
		b.Run(string(e), func(b *testing.B) {
			if e == testkit.Postgres && testkit.PostgresAvailable() != nil {
				b.Skip("PostgreSQL not available")
			}
			a := testkit.NewApp(b, e)
			key, ws := a.Register(b, "exporter@acme-corp.io")
			r := a.Do(b, "POST", "/bots", map[string]any{"name": "Export"}, "X-API-Key", key)
			if r.Status != 201 {
				b.Fatalf("bot: %d %s", r.Status, r.Body)
			}
			botID := int64(r.JSON(b)["bot_id"].(float64))
			start := time.Now()
			seedLeads(b, a, ws, botID, n)
			b.Logf("%s: seeded %d leads in %s", e, n, time.Since(start).Round(time.Millisecond))

			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				rows, bytes, growth, took := exportOnce(b, a, key)
				if rows != n {
					b.Fatalf("exported %d rows, want %d", rows, n)
				}
				b.ReportMetric(float64(growth)/(1<<20), "heap-growth-MB")
				b.ReportMetric(float64(bytes)/(1<<20), "csv-MB")
				b.ReportMetric(float64(n)/took.Seconds(), "leads/s")
			}
		})
	}
}

// exportOnce downloads the export while sampling the heap.
func exportOnce(b *testing.B, a *testkit.TestApp, key string) (rows int, bytes int64, growth uint64, took time.Duration) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	peak.Store(base)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				if m.HeapInuse > peak.Load() {
					peak.Store(m.HeapInuse)
				}
			}
		}
	}()
	begin := time.Now()
	req, _ := http.NewRequest("GET", a.URL+"/leads/export", nil)
	req.Header.Set("X-API-Key", key)
	client := &http.Client{Timeout: 10 * time.Minute}
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		body, _ := io.ReadAll(resp.Body)
		b.Fatalf("export: %d %s", resp.StatusCode, body)
	}
	lines := &lineCounter{}
	bytes, err = io.Copy(lines, resp.Body)
	if err != nil {
		b.Fatal(err)
	}
	took = time.Since(begin)
	close(stop)
	<-done
	return lines.n - 1, bytes, peak.Load() - base, took
}

// lineCounter counts newlines (no cell of the seeded data holds one).
type lineCounter struct{ n int }

func (c *lineCounter) Write(p []byte) (int, error) {
	for _, x := range p {
		if x == '\n' {
			c.n++
		}
	}
	return len(p), nil
}

// seedLeads writes n conversations with a scored lead each, in batches,
// straight into the database: realistic rows (contact fields, a full BANT
// breakdown with evidence) without n chats.
func seedLeads(b *testing.B, a *testkit.TestApp, ws, botID int64, n int) {
	res := score.Score(bot.Qualification{}, score.Input{Transcript: []score.Turn{
		{Role: "user", Text: "I'm the VP of Operations and I sign off on tooling for our 40-agent support team."},
		{Role: "assistant", Text: "Thanks! What budget do you have in mind?"},
		{Role: "user", Text: "About $60,000 a year, approved; we need to go live next month because tickets are piling up."},
	}})
	breakdown, _ := json.Marshal(map[string]any{"dimensions": res.Dimensions, "signals": res.Signals,
		"adjustment": res.Adjustment, "overrides": res.Overrides, "summary": res.Summary})
	ctx := context.Background()
	now := time.Now().UTC()
	const batch = 2000
	for from := 0; from < n; from += batch {
		err := a.DB.Tx(ctx, func(tx *sqlx.Tx) error {
			for i := from; i < min(from+batch, n); i++ {
				var id int64
				if err := store.Get(ctx, tx, &id, `INSERT INTO chat_sessions (public_id, workspace_id, bot_id, preview, messages,
					created_at, last_message_at) VALUES (?, ?, ?, FALSE, 6, ?, ?) RETURNING id`,
					fmt.Sprintf("cs_bench%012d", i), ws, botID, now, now); err != nil {
					return err
				}
				if _, err := store.Exec(ctx, tx, `INSERT INTO leads (session_id, workspace_id, bot_id, name, email, phone, company,
					fields, email_status, score, tier, breakdown, scorer, scored_messages, scored_at, captured_at, created_at,
					updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'valid', ?, ?, ?, 'rules/bench', 6, ?, ?, ?, ?)`,
					id, ws, botID, fmt.Sprintf("Visitor %d", i), fmt.Sprintf("visitor%d@buyer-%d.io", i, i%977),
					"+91 98450 "+strconv.Itoa(10000+i%90000), fmt.Sprintf("Company %d Pvt Ltd", i%5000),
					`{"team_size":"40","source":"pricing page"}`, res.Score, res.Tier, string(breakdown), now, now, now, now); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatalf("seed: %v", err)
		}
	}
}
