package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"concierge/internal/testkit"
)

// TestKillReplicaDuringLiveChat: two replicas of the real binary on one
// PostgreSQL; the visitor talks to replica A, the operator to replica B.
// Half-way through the conversation A is killed with SIGKILL; the visitor,
// who had not read the last 20 operator messages, comes back on B with
// Last-Event-ID after 10 more were sent, and goes on there. Every message each
// side sent arrives on the other side's stream exactly once, in order.
func TestKillReplicaDuringLiveChat(t *testing.T) {
	dbURL := testkit.NewPostgresURL(t)
	secret := hex.EncodeToString([]byte(strings.Repeat("k", 32)))
	base := []string{"DATABASE_URL=" + dbURL, "CONCIERGE_SECRET_KEY=" + secret, "CONCIERGE_RATE_LIMITS=off",
		"CONCIERGE_ARGON2_MEMORY_KIB=1024", "CONCIERGE_ARGON2_ITERATIONS=1", "CONCIERGE_ACCESS_LOG=false"}
	replica := func(name string) *server {
		return startServer(t, append([]string{"CONCIERGE_DATA_DIR=" + filepath.Join(t.TempDir(), name)}, base...))
	}
	a, b := replica("a"), replica("b")

	key := a.do(t, "POST", "/auth/register", "", strings.NewReader(`{"email":"live@example.com","password":"correct horse battery"}`),
		"application/json")["api_key"].(string)
	vars := map[string]string{"DATABASE_URL": dbURL, "CONCIERGE_SECRET_KEY": secret}
	if err := run(context.Background(), []string{"workspace", "set-plan", "--email", "live@example.com", "--plan", "pro"},
		env0(vars), io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	bot := a.do(t, "POST", "/bots", key, strings.NewReader(`{"name":"Support","live_chat":{"enabled":true}}`), "application/json")
	botKey := bot["bot_key"].(string)
	op := b.do(t, "POST", "/operators", key, strings.NewReader(fmt.Sprintf(
		`{"email":"agent@example.com","password":"agent password","name":"Agent","bot_id":%d}`, int64(bot["bot_id"].(float64)))),
		"application/json")
	opKey := op["operator_key"].(string)
	call := func(s *server, method, path, header, value, body string) map[string]any {
		t.Helper()
		req, _ := http.NewRequest(method, s.url+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(header, value)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, raw)
		}
		var out map[string]any
		_ = json.Unmarshal(raw, &out)
		return out
	}
	call(b, "PUT", "/operators/me/status", "X-Operator-Key", opKey, `{"status":"online"}`)
	sid := call(a, "POST", "/chat", "X-Bot-Key", botKey, `{"message":"hello"}`)["session_id"].(string)
	call(a, "POST", "/operators/handoff", "X-Bot-Key", botKey, fmt.Sprintf(`{"session_id":%q}`, sid))
	call(b, "POST", "/operators/conversations/"+sid+"/claim", "X-Operator-Key", opKey, "")

	ops := testkit.OpenSSE(t, b.url+"/operators/events", 0, "X-Operator-Key", opKey)
	vis := testkit.OpenSSE(t, a.url+"/chat/events/"+sid, 0, "X-Bot-Key", botKey)
	n := 1000
	if testing.Short() {
		n = 200
	}
	var lastSeen int64
	visGot := 0
	seen := map[int64]bool{}
	// readVisitor reads the operator's messages on the visitor's stream up
	// to the count given, checking order and duplicates.
	readVisitor := func(upto int) {
		t.Helper()
		for visGot < upto {
			ev := vis.Next(t, "message")
			if ev.Data["role"] != "operator" {
				continue
			}
			if seen[ev.ID] {
				t.Fatalf("event %d twice on the visitor's stream", ev.ID)
			}
			seen[ev.ID] = true
			if want := fmt.Sprintf("op %d", visGot); ev.Data["text"] != want {
				t.Fatalf("visitor got %v, want %q", ev.Data["text"], want)
			}
			visGot++
			lastSeen = ev.ID
		}
	}
	visitorReplica := a
	for i := 0; i < n; i++ {
		switch i {
		case n / 2:
			// The visitor has read all but the last 20 operator messages;
			// those are in flight or unread when A dies.
			readVisitor(n/2 - 20)
			a.kill() // SIGKILL: no shutdown, no goodbye to the stream
			<-vis.Done()
			visitorReplica = b
		case n/2 + 10:
			// Ten more operator messages were sent while the visitor was
			// away; it comes back on B with the last id it saw.
			vis = testkit.OpenSSE(t, b.url+"/chat/events/"+sid, lastSeen, "X-Bot-Key", botKey)
			if vis.Status != 200 {
				t.Fatalf("reconnect to B: %d", vis.Status)
			}
		}
		call(b, "POST", "/operators/conversations/"+sid+"/messages", "X-Operator-Key", opKey, fmt.Sprintf(`{"text":"op %d"}`, i))
		call(visitorReplica, "POST", "/chat", "X-Bot-Key", botKey, fmt.Sprintf(`{"message":"vis %d","session_id":%q}`, i, sid))
	}
	readVisitor(n)
	opSeen := map[int64]bool{}
	for got := 0; got < n; {
		ev := ops.Next(t, "message")
		text, _ := ev.Data["text"].(string)
		if ev.Data["role"] != "user" || !strings.HasPrefix(text, "vis ") {
			continue
		}
		if opSeen[ev.ID] {
			t.Fatalf("event %d twice on the operator's stream", ev.ID)
		}
		opSeen[ev.ID] = true
		if want := fmt.Sprintf("vis %d", got); text != want {
			t.Fatalf("operator got %q, want %q", text, want)
		}
		got++
	}
}
