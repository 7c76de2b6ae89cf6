package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"concierge/internal/store"
	"concierge/internal/testkit"
)

// TestKillDuringWebhookDelivery (G11): bot changes emit events while the
// server is SIGKILLed at 10 points and restarted; in the end every event is
// delivered at least once, and every request the receiver saw carries the
// webhook-id of one of the event's messages (a repeat is a retry of the
// same message, never a new id for the same event).
func TestKillDuringWebhookDelivery(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		var mu sync.Mutex
		seen := map[string]int{}
		rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen[r.Header.Get("webhook-id")]++
			mu.Unlock()
			time.Sleep(2 * time.Millisecond) // so that kills find attempts in flight
		}))
		defer rc.Close()

		dir := t.TempDir()
		env := []string{"CONCIERGE_DATA_DIR=" + dir, "CONCIERGE_RATE_LIMITS=off", "CONCIERGE_ARGON2_MEMORY_KIB=1024",
			"CONCIERGE_ARGON2_ITERATIONS=1", "CONCIERGE_ACCESS_LOG=false", "CONCIERGE_OUTBOUND_ALLOW=127.0.0.1/32"}
		dbURL := ""
		if e == testkit.Postgres {
			dbURL = testkit.NewPostgresURL(t)
			env = append(env, "DATABASE_URL="+dbURL)
		}
		srv := startServer(t, env)
		reg := srv.do(t, "POST", "/auth/register", "", strings.NewReader(`{"email":"hooks@example.com","password":"correct horse battery"}`), "application/json")
		key := reg["api_key"].(string)
		botID := int64(srv.do(t, "POST", "/bots", key, strings.NewReader(`{"name":"hooks"}`), "application/json")["bot_id"].(float64))
		srv.do(t, "POST", "/webhooks", key, strings.NewReader(fmt.Sprintf(`{"bot_id":%d,"url":%q,"events":["bot.updated"]}`,
			botID, rc.URL+"/in")), "application/json")

		const changes, kills = 1000, 10
		ok := 0
		client := &http.Client{Timeout: 5 * time.Second}
		for i := 0; i < changes; i++ {
			if i%(changes/kills) == changes/kills/2 {
				srv.kill()
				srv = startServer(t, env)
			}
			req, _ := http.NewRequest("PATCH", fmt.Sprintf("%s/bots/%d", srv.url, botID),
				strings.NewReader(fmt.Sprintf(`{"name":"hooks %d"}`, i)))
			req.Header.Set("X-API-Key", key)
			req.Header.Set("Content-Type", "application/json")
			if res, err := client.Do(req); err == nil {
				if res.StatusCode == 200 {
					ok++
				}
				res.Body.Close()
			}
		}

		opts := store.Options{SQLitePath: filepath.Join(dir, "concierge.db")}
		if dbURL != "" {
			opts = store.Options{DatabaseURL: dbURL}
		}
		db, err := store.Open(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		ctx := context.Background()
		deadline := time.Now().Add(90 * time.Second)
		var events, undelivered int
		for {
			if err := store.Get(ctx, db.Reader(), &events, `SELECT COUNT(*) FROM events WHERE type = 'bot.updated'`); err != nil {
				t.Fatal(err)
			}
			if err := store.Get(ctx, db.Reader(), &undelivered, `SELECT COUNT(*) FROM events e WHERE e.type = 'bot.updated'
				AND NOT EXISTS (SELECT 1 FROM webhook_messages m WHERE m.event_id = e.id AND m.status = 'succeeded')`); err != nil {
				t.Fatal(err)
			}
			if undelivered == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d of %d events not delivered", undelivered, events)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if events < ok {
			t.Fatalf("%d events for %d acknowledged changes", events, ok)
		}
		var ids []string
		if err := store.Select(ctx, db.Reader(), &ids, `SELECT public_id FROM webhook_messages`); err != nil {
			t.Fatal(err)
		}
		if len(ids) != events {
			t.Fatalf("%d messages for %d events (one endpoint)", len(ids), events)
		}
		known := map[string]bool{}
		for _, id := range ids {
			known[id] = true
		}
		mu.Lock()
		defer mu.Unlock()
		dups := 0
		for id, n := range seen {
			if !known[id] {
				t.Fatalf("the receiver got webhook-id %q, which is no message's", id)
			}
			dups += n - 1
		}
		for _, id := range ids {
			if seen[id] == 0 {
				t.Fatalf("message %s marked delivered but never received", id)
			}
		}
		t.Logf("%d changes acknowledged, %d events, all delivered; %d duplicate requests (same webhook-id)", ok, events, dups)
	})
}
