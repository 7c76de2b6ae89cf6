package livechat_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"concierge/internal/config"
	"concierge/internal/testkit"
)

// BenchmarkDelivery measures the delivery latency of live-chat messages:
// from an operator's POST on one replica to the event on a visitor's
// stream (on the other replica with PostgreSQL: NOTIFY, listener, row
// read, SSE write), while `idle` other visitor streams stay open. Each
// iteration is one message; p50 and p99 are reported.
//
//	go test -run '^$' -bench Delivery -benchtime 2000x ./internal/livechat/
func BenchmarkDelivery(b *testing.B) {
	idle := 200
	if v := os.Getenv("LIVECHAT_BENCH_IDLE"); v != "" {
		fmt.Sscan(v, &idle)
	}
	for _, e := range testkit.Engines() {
		b.Run(string(e), func(b *testing.B) {
			w := newWorld(b, e)
			a, other := w.a, w.a
			if e == testkit.Postgres {
				other = testkit.NewApp(b, e, testkit.WithConfig(func(c *config.Config) { c.DatabaseURL = a.Config.DatabaseURL }))
			}
			w.online(b, w.op1)
			if _, err := a.Billing.Grant(context.Background(), w.ws, int64(idle)+100, "bench", "benchmark"); err != nil {
				b.Fatal(err)
			}
			// Idle visitor streams on the visitor's replica.
			var wg sync.WaitGroup
			sids := make([]string, idle)
			for i := range sids {
				sids[i] = w.chat(b, w.botKey, "hello", "")["session_id"].(string)
			}
			for _, sid := range sids {
				if s := openStream(b, a.URL+"/chat/events/"+sid, 0, "X-Bot-Key", w.botKey); s.Status != http.StatusOK {
					b.Fatalf("idle stream: %d", s.Status)
				}
			}
			wg.Wait()
			sid := w.chat(b, w.botKey, "hello", "")["session_id"].(string)
			w.handoff(b, w.botKey, sid, nil)
			if r := other.Do(b, "POST", "/operators/conversations/"+sid+"/claim", nil, w.op1...); r.Status != 200 {
				b.Fatal(r.Status)
			}
			vis := openStream(b, a.URL+"/chat/events/"+sid, 0, "X-Bot-Key", w.botKey)
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				text := fmt.Sprintf("m %d", i)
				t0 := time.Now()
				if r := other.Do(b, "POST", "/operators/conversations/"+sid+"/messages", map[string]any{"text": text}, w.op1...); r.Status != 200 {
					b.Fatal(r.Status)
				}
				for {
					ev := vis.Next(b, "message")
					if ev.Data["text"] == text {
						break
					}
					if !strings.HasPrefix(fmt.Sprint(ev.Data["text"]), "m ") {
						continue
					}
				}
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
			b.ReportMetric(float64(a.LiveChat.Hub().Open()), "open-streams")
		})
	}
}
