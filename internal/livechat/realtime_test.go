package livechat_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"concierge/internal/config"
	"concierge/internal/testkit"
)

// The stream helpers are testkit's.
type (
	stream = testkit.SSEStream
)

func openStream(t testing.TB, url string, lastID int64, headers ...string) *stream {
	t.Helper()
	return testkit.OpenSSE(t, url, lastID, headers...)
}

func TestRealtimeEvents(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		w := newWorld(t, e)
		a := w.a
		sid := w.chat(t, w.botKey, "hello", "")["session_id"].(string)
		ops := openStream(t, a.URL+"/operators/events", 0, w.op1...)
		vis := openStream(t, a.URL+"/chat/events/"+sid, 0, "X-Bot-Key", w.botKey)
		if ops.Status != 200 || vis.Status != 200 {
			t.Fatalf("streams: %d %d", ops.Status, vis.Status)
		}
		// An open stream makes the operator available.
		if h := w.handoff(t, w.botKey, sid, map[string]any{"message": "a person please"}); h["status"] != "waiting" {
			t.Fatalf("handoff with a stream open: %v", h)
		}
		if ev := ops.Next(t, "mode"); ev.Data["mode"] != "waiting" || ev.Data["session_id"] != sid {
			t.Fatalf("operator hand-off event: %v", ev)
		}
		if r := a.Do(t, "POST", "/operators/conversations/"+sid+"/claim", nil, w.op1...); r.Status != 200 {
			t.Fatal(r.Status)
		}
		if ev := vis.Next(t, "mode"); ev.Data["mode"] != "waiting" {
			t.Fatalf("visitor: %v", ev)
		}
		if ev := vis.Next(t, "mode"); ev.Data["mode"] != "human" {
			t.Fatalf("visitor claim: %v", ev)
		}
		a.Do(t, "POST", "/operators/conversations/"+sid+"/typing", nil, w.op1...)
		if ev := vis.Next(t, "typing"); ev.Data["role"] != "operator" {
			t.Fatalf("typing: %v", ev)
		}
		a.Do(t, "POST", "/operators/conversations/"+sid+"/messages", map[string]any{"text": "hi from a person"}, w.op1...)
		got := vis.Next(t, "message")
		if got.Data["text"] != "hi from a person" || got.Data["role"] != "operator" {
			t.Fatalf("visitor message: %v", got)
		}
		w.chat(t, w.botKey, "thanks!", sid)
		for {
			ev := ops.Next(t, "message")
			if ev.Data["text"] == "thanks!" && ev.Data["role"] == "user" {
				break
			}
		}
		// Reconnect with Last-Event-ID: what was missed is replayed, typing is not.
		vis.Close()
		a.Do(t, "POST", "/operators/conversations/"+sid+"/messages", map[string]any{"text": "missed one"}, w.op1...)
		a.Do(t, "POST", "/operators/conversations/"+sid+"/close", nil, w.op1...)
		vis2 := openStream(t, a.URL+"/chat/events/"+sid, got.ID, "X-Bot-Key", w.botKey)
		var kinds []string
		for len(kinds) < 3 {
			select {
			case ev := <-vis2.C:
				if ev.ID <= got.ID {
					t.Fatalf("replayed an old event: %v", ev)
				}
				kinds = append(kinds, ev.Kind+":"+fmt.Sprint(ev.Data["text"], ev.Data["mode"]))
			case <-time.After(20 * time.Second):
				t.Fatalf("replay: %v", kinds)
			}
		}
		if want := "message:thanks!<nil>,message:missed one<nil>,mode:<nil>closed"; strings.Join(kinds, ",") != want {
			t.Fatalf("replay: %v, want %s", kinds, want)
		}
		// Caps per credential.
		var open []*stream
		for i := 0; i < 5; i++ {
			open = append(open, openStream(t, a.URL+"/operators/events", 0, w.op2...))
		}
		if s := openStream(t, a.URL+"/operators/events", 0, w.op2...); s.Status != 429 {
			t.Fatalf("sixth stream: %d", s.Status)
		}
		for _, s := range open {
			s.Close()
		}
	})
}

// Replicas on one PostgreSQL: the visitor streams from and posts to C,
// the operator streams from B, and each side's messages go to the other's
// replica. Half-way C is taken down without warning (its listener and
// every open stream cut); the visitor comes back ten operator messages
// later on B with Last-Event-ID and carries on there. None lost, none duplicated,
// order kept, both ways.
func TestTwoReplicas(t *testing.T) {
	w := newWorld(t, testkit.Postgres)
	a := w.a
	b := testkit.NewApp(t, testkit.Postgres, testkit.WithConfig(func(c *config.Config) { c.DatabaseURL = a.Config.DatabaseURL }))
	n := 1000
	if testing.Short() {
		n = 100
	}
	sid := w.chat(t, w.botKey, "hello", "")["session_id"].(string)
	ops := openStream(t, b.URL+"/operators/events", 0, w.op1...)
	if h := w.handoff(t, w.botKey, sid, nil); h["status"] != "waiting" {
		t.Fatalf("handoff: %v", h)
	}
	if r := b.Do(t, "POST", "/operators/conversations/"+sid+"/claim", nil, w.op1...); r.Status != 200 {
		t.Fatal(r.Status)
	}
	c := testkit.NewApp(t, testkit.Postgres, testkit.WithConfig(func(cf *config.Config) { cf.DatabaseURL = a.Config.DatabaseURL }))
	visRep := c // the visitor's replica
	vis := openStream(t, c.URL+"/chat/events/"+sid, 0, "X-Bot-Key", w.botKey)
	var lastVisitorID int64
	seenVis := map[int64]bool{}
	seenOps := map[int64]bool{}
	visTexts, opsTexts := 0, 0
	// take checks one event of the visitor's stream: operator messages
	// arrive once each, in order.
	take := func(ev testkit.SSEEvent) {
		if ev.Kind != "message" || ev.Data["role"] != "operator" {
			return
		}
		if seenVis[ev.ID] {
			t.Fatalf("duplicate event %d", ev.ID)
		}
		seenVis[ev.ID] = true
		if want := fmt.Sprintf("op %d", visTexts); ev.Data["text"] != want {
			t.Fatalf("visitor got %v, want %q", ev.Data["text"], want)
		}
		visTexts++
		lastVisitorID = ev.ID
	}
	readVisitor := func(s *stream, upto int) {
		for visTexts < upto {
			take(s.Next(t, "message"))
		}
	}
	for i := 0; i < n; i++ {
		if i == n/2 {
			// The visitor's replica dies mid-stream: whatever had not reached
			// the visitor yet is lost with the connection.
			visRep.Stop()
			<-vis.Done()
			for drained := false; !drained; {
				select {
				case ev := <-vis.C:
					take(ev)
				default:
					drained = true
				}
			}
			t.Logf("visitor got %d of %d on C before it died (last event %d)", visTexts, i, lastVisitorID)
			visRep = b
		}
		if i == n/2+10 {
			// Ten operator messages later the visitor is back, on B: those
			// ten reach it only by the replay from Last-Event-ID.
			vis = openStream(t, b.URL+"/chat/events/"+sid, lastVisitorID, "X-Bot-Key", w.botKey)
		}
		if r := b.Do(t, "POST", "/operators/conversations/"+sid+"/messages", map[string]any{"text": fmt.Sprintf("op %d", i)}, w.op1...); r.Status != 200 {
			t.Fatalf("operator message: %d %s", r.Status, r.Body)
		}
		if r := visRep.Do(t, "POST", "/chat", map[string]any{"message": fmt.Sprintf("vis %d", i), "session_id": sid}, "X-Bot-Key", w.botKey); r.Status != 200 {
			t.Fatalf("visitor message: %d %s", r.Status, r.Body)
		}
	}
	t.Logf("posted %d each way", n)
	readVisitor(vis, n)
	t.Logf("visitor got %d", visTexts)
	for opsTexts < n {
		ev := ops.Next(t, "message")
		if ev.Data["role"] != "user" || !strings.HasPrefix(fmt.Sprint(ev.Data["text"]), "vis ") {
			continue
		}
		if seenOps[ev.ID] {
			t.Fatalf("duplicate event %d", ev.ID)
		}
		seenOps[ev.ID] = true
		if want := fmt.Sprintf("vis %d", opsTexts); ev.Data["text"] != want {
			t.Fatalf("operator got %v, want %q", ev.Data["text"], want)
		}
		opsTexts++
	}
}
