package livechat_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"concierge/internal/store"
	"concierge/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// world is a workspace with a live-chat bot, two operators of it, and a
// second bot with its own operator.
type world struct {
	a               *testkit.TestApp
	key             string
	ws              int64
	bot, bot2       int64
	botKey, botKey2 string
	op1, op2, opB   []string // credential headers
	op1ID           int64
}

func newWorld(t testing.TB, e testkit.Engine) *world {
	t.Helper()
	a := testkit.NewApp(t, e)
	w := &world{a: a}
	w.key, w.ws = a.Register(t, "owner@example.com")
	mk := func(name string) (int64, string) {
		r := a.Do(t, "POST", "/bots", map[string]any{"name": name, "notification_email": "alerts@example.com",
			"live_chat": map[string]any{"enabled": true}}, "X-API-Key", w.key)
		if r.Status != 201 {
			t.Fatalf("bot: %d %s", r.Status, r.Body)
		}
		v := r.JSON(t)
		return int64(v["bot_id"].(float64)), v["bot_key"].(string)
	}
	w.bot, w.botKey = mk("Support")
	w.bot2, w.botKey2 = mk("Sales")
	op := func(email string, botID int64) ([]string, int64) {
		r := a.Do(t, "POST", "/operators", map[string]any{"email": email, "password": "agent password", "name": "Agent " + email,
			"bot_id": botID}, "X-API-Key", w.key)
		if r.Status != 201 {
			t.Fatalf("operator: %d %s", r.Status, r.Body)
		}
		v := r.JSON(t)
		return []string{"X-Operator-Key", v["operator_key"].(string)}, int64(v["operator_id"].(float64))
	}
	w.op1, w.op1ID = op("one@example.com", w.bot)
	w.op2, _ = op("two@example.com", w.bot)
	w.opB, _ = op("b@example.com", w.bot2)
	return w
}

// chat sends a visitor message and returns the decoded reply.
func (w *world) chat(t testing.TB, botKey, msg, session string) map[string]any {
	t.Helper()
	body := map[string]any{"message": msg}
	if session != "" {
		body["session_id"] = session
	}
	r := w.a.Do(t, "POST", "/chat", body, "X-Bot-Key", botKey)
	if r.Status != 200 {
		t.Fatalf("chat: %d %s", r.Status, r.Body)
	}
	return r.JSON(t)
}

func (w *world) online(t testing.TB, op []string) {
	t.Helper()
	if r := w.a.Do(t, "PUT", "/operators/me/status", map[string]any{"status": "online"}, op...); r.Status != 200 {
		t.Fatalf("status: %d %s", r.Status, r.Body)
	}
}

func (w *world) balance(t *testing.T) float64 {
	t.Helper()
	r := w.a.Do(t, "GET", "/credits/balance", nil, "X-API-Key", w.key)
	return r.JSON(t)["balance"].(float64)
}

func (w *world) handoff(t testing.TB, botKey, session string, extra map[string]any) map[string]any {
	t.Helper()
	body := map[string]any{"session_id": session}
	for k, v := range extra {
		body[k] = v
	}
	r := w.a.Do(t, "POST", "/operators/handoff", body, "X-Bot-Key", botKey)
	if r.Status != 200 {
		t.Fatalf("handoff: %d %s", r.Status, r.Body)
	}
	return r.JSON(t)
}

func (w *world) sessionRow(t *testing.T, public string) (mode, outcome string, firstReply *int64) {
	t.Helper()
	var row struct {
		Mode    string `db:"mode"`
		Outcome string `db:"outcome"`
		First   *int64 `db:"first_operator_reply_seconds"`
	}
	if err := store.Get(context.Background(), w.a.DB.Reader(), &row, `SELECT mode, outcome, first_operator_reply_seconds
		FROM chat_sessions WHERE public_id = ?`, public); err != nil {
		t.Fatal(err)
	}
	return row.Mode, row.Outcome, row.First
}

func outboxTypes(t *testing.T, w *world) string {
	t.Helper()
	var types []string
	if err := store.Select(context.Background(), w.a.DB.Reader(), &types, `SELECT type FROM events ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	return strings.Join(types, ",")
}

func TestHandoffAndOperatorFlow(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		w := newWorld(t, e)
		a := w.a
		a.Listen(t, w.ws, w.bot) // events are recorded only for an active endpoint
		rep := w.chat(t, w.botKey, "Do you sell helicopter spare parts?", "")
		sid := rep["session_id"].(string)
		if rep["mode"] != "bot" || rep["handoff_available"] != true {
			t.Fatalf("unanswered reply offers a person: %v", rep)
		}

		// Nobody online: unavailable, the bot keeps answering, one notice per 10 minutes.
		h := w.handoff(t, w.botKey, sid, nil)
		if h["status"] != "unavailable" || h["mode"] != "bot" || h["away_message"] == "" {
			t.Fatalf("nobody online: %v", h)
		}
		w.handoff(t, w.botKey, sid, nil)
		a.Mailbox.WaitFor(t, "alerts@example.com", 1)
		a.Settle(t)
		if n := len(a.Mailbox.Messages("alerts@example.com")); n != 1 {
			t.Fatalf("nobody-online notices: %d, want 1", n)
		}

		a.Run(t, testkit.Scenario{Name: "nobody available", Method: "GET", Path: "/bots/settings/public",
			Headers: []string{"X-Bot-Key", w.botKey}, Status: 200, Contains: []string{`"available":false`}})
		w.online(t, w.op1)
		a.Run(t, testkit.Scenario{Name: "available", Method: "GET", Path: "/bots/settings/public",
			Headers: []string{"X-Bot-Key", w.botKey}, Status: 200, Contains: []string{`"available":true`, `"pre_chat_form":false`}})
		h = w.handoff(t, w.botKey, sid, map[string]any{"message": "I need a human", "name": "Vis <b>itor</b>", "email": "Visitor@Example.com"})
		if h["status"] != "waiting" || h["queue_position"] != 1.0 || h["timeout_seconds"] != 120.0 {
			t.Fatalf("handoff: %v", h)
		}

		// While waiting the visitor's messages go to the operators, free.
		before := w.balance(t)
		rep = w.chat(t, w.botKey, "Hello? anyone?", sid)
		if rep["mode"] != "waiting" || rep["reply"] != "" || rep["credits_charged"] != 0.0 {
			t.Fatalf("waiting chat: %v", rep)
		}
		r := a.Do(t, "POST", "/chat/stream", map[string]any{"message": "still here", "session_id": sid}, "X-Bot-Key", w.botKey)
		if r.Status != 200 || !strings.Contains(string(r.Body), `"mode":"waiting"`) || !strings.Contains(string(r.Body), "FINAL_METADATA") {
			t.Fatalf("waiting stream: %d %s", r.Status, r.Body)
		}

		conv := "/operators/conversations/" + sid
		a.Run(t,
			testkit.Scenario{Name: "queue waiting", Method: "GET", Path: "/operators/conversations?queue=waiting", Headers: w.op1, Status: 200,
				Contains: []string{`"total":1`, sid, `"visitor_email":"visitor@example.com"`, `"unread_count":4`, `"text":"still here"`}},
			testkit.Scenario{Name: "other bot's operator sees nothing", Method: "GET", Path: "/operators/conversations?queue=waiting",
				Headers: w.opB, Status: 200, Contains: []string{`"total":0`}, Absent: []string{sid}},
			testkit.Scenario{Name: "other bot's operator: 404", Method: "GET", Path: conv, Headers: w.opB, Status: 404, Absent: []string{"helicopter"}},
			testkit.Scenario{Name: "other bot's operator cannot claim", Method: "POST", Path: conv + "/claim", Headers: w.opB, Status: 404},
			testkit.Scenario{Name: "transcript", Method: "GET", Path: conv, Headers: w.op1, Status: 200,
				Contains: []string{"helicopter", "I need a human", `"mode":"waiting"`}},
			testkit.Scenario{Name: "reply before claiming", Method: "POST", Path: conv + "/messages", Headers: w.op1, Status: 409,
				Body: map[string]any{"text": "hi"}},
			testkit.Scenario{Name: "claim", Method: "POST", Path: conv + "/claim", Headers: w.op1, Status: 200,
				Contains: []string{`"mode":"human"`, fmt.Sprintf(`"operator_id":%d`, w.op1ID)}},
			testkit.Scenario{Name: "second claim", Method: "POST", Path: conv + "/claim", Headers: w.op2, Status: 409},
			testkit.Scenario{Name: "other operator cannot reply", Method: "POST", Path: conv + "/messages", Headers: w.op2, Status: 409,
				Body: map[string]any{"text": "hi"}},
			testkit.Scenario{Name: "empty reply", Method: "POST", Path: conv + "/messages", Headers: w.op1, Status: 422,
				Body: map[string]any{"text": "   "}},
			testkit.Scenario{Name: "over-long reply", Method: "POST", Path: conv + "/messages", Headers: w.op1, Status: 422,
				Body: map[string]any{"text": strings.Repeat("é", 4001)}},
			testkit.Scenario{Name: "reply", Method: "POST", Path: conv + "/messages", Headers: w.op1, Status: 200,
				Body: map[string]any{"text": "Hi, I am <script>x</script> here"}, Contains: []string{`"message_id":"msg_`}},
			testkit.Scenario{Name: "typing", Method: "POST", Path: conv + "/typing", Headers: w.op1, Status: 200},
			testkit.Scenario{Name: "read", Method: "POST", Path: conv + "/read", Headers: w.op1, Status: 200},
			testkit.Scenario{Name: "mine", Method: "GET", Path: "/operators/conversations?queue=mine", Headers: w.op1, Status: 200,
				Contains: []string{`"total":1`, `"unread_count":0`}},
			testkit.Scenario{Name: "visitor history holds the operator's reply", Method: "GET", Path: "/chat/history/" + sid,
				Headers: []string{"X-Bot-Key", w.botKey}, Status: 200, Contains: []string{`"role":"operator"`}},
		)
		rep = w.chat(t, w.botKey, "thanks", sid)
		if rep["mode"] != "human" || rep["credits_charged"] != 0.0 {
			t.Fatalf("human chat: %v", rep)
		}
		if after := w.balance(t); after != before {
			t.Fatalf("credits moved while with a person: %v → %v", before, after)
		}
		if _, _, first := w.sessionRow(t, sid); first == nil {
			t.Fatal("time to first operator reply not recorded")
		}

		// Release: the bot answers again (and charges).
		a.Run(t,
			testkit.Scenario{Name: "other operator cannot release", Method: "POST", Path: conv + "/release", Headers: w.op2, Status: 409},
			testkit.Scenario{Name: "release", Method: "POST", Path: conv + "/release", Headers: w.op1, Status: 200, Contains: []string{`"mode":"bot"`}},
		)
		if rep = w.chat(t, w.botKey, "what are your hours?", sid); rep["mode"] != "bot" {
			t.Fatalf("after release: %v", rep)
		}
		// Hand-off again, claim and close: the transcript goes to the visitor.
		if h = w.handoff(t, w.botKey, sid, nil); h["status"] != "waiting" {
			t.Fatalf("second handoff: %v", h)
		}
		a.Run(t,
			testkit.Scenario{Name: "claim again", Method: "POST", Path: conv + "/claim", Headers: w.op2, Status: 200},
			testkit.Scenario{Name: "close", Method: "POST", Path: conv + "/close", Headers: w.op2, Status: 200,
				Contains: []string{`"mode":"closed"`, `"outcome":"resolved"`}},
			testkit.Scenario{Name: "close twice", Method: "POST", Path: conv + "/close", Headers: w.op2, Status: 409},
			testkit.Scenario{Name: "closed queue", Method: "GET", Path: "/operators/conversations?queue=closed", Headers: w.op1, Status: 200,
				Contains: []string{`"total":1`}},
		)
		mails := a.Mailbox.WaitFor(t, "visitor@example.com", 1)
		if !strings.Contains(mails[0].Text, "helicopter") || !strings.Contains(mails[0].Text, "Our team: Hi, I am") {
			t.Fatalf("transcript: %s", mails[0].Text)
		}
		if mode, outcome, _ := w.sessionRow(t, sid); mode != "closed" || outcome != "resolved" {
			t.Fatalf("closed session: %s %s", mode, outcome)
		}
		got := outboxTypes(t, w)
		for _, want := range []string{"handoff.requested", "handoff.claimed", "handoff.released", "conversation.closed"} {
			if !strings.Contains(got, want) {
				t.Errorf("outbox lacks %s: %s", want, got)
			}
		}
	})
}

func TestHandoffTimeoutOnFakeClock(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		w := newWorld(t, e)
		w.a.Listen(t, w.ws, w.bot) // events are recorded only for an active endpoint
		w.online(t, w.op1)
		sid := w.chat(t, w.botKey, "hello", "")["session_id"].(string)
		if h := w.handoff(t, w.botKey, sid, nil); h["status"] != "waiting" {
			t.Fatalf("handoff: %v", h)
		}
		w.a.Clock.Advance(119 * time.Second)
		w.a.Settle(t)
		if mode, _, _ := w.sessionRow(t, sid); mode != "waiting" {
			t.Fatalf("before the timeout: %s", mode)
		}
		w.a.Clock.Advance(2 * time.Second)
		deadline := time.Now().Add(20 * time.Second)
		for {
			mode, outcome, _ := w.sessionRow(t, sid)
			if mode == "bot" && outcome == "abandoned" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no timeout: %s %s", mode, outcome)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if got := outboxTypes(t, w); !strings.Contains(got, "handoff.timed_out") {
			t.Fatalf("outbox: %s", got)
		}
		if r := w.a.Do(t, "POST", "/operators/conversations/"+sid+"/claim", nil, w.op1...); r.Status != 409 {
			t.Fatalf("claim after timeout: %d", r.Status)
		}
		// A claimed hand-off is not timed out.
		w.handoff(t, w.botKey, sid, nil)
		if r := w.a.Do(t, "POST", "/operators/conversations/"+sid+"/claim", nil, w.op1...); r.Status != 200 {
			t.Fatalf("claim: %d %s", r.Status, r.Body)
		}
		w.a.Clock.Advance(10 * time.Minute)
		w.a.Settle(t)
		if mode, _, _ := w.sessionRow(t, sid); mode != "human" {
			t.Fatalf("claimed conversation timed out: %s", mode)
		}
	})
}

func TestClaimRace(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		w := newWorld(t, e)
		w.online(t, w.op1)
		for i := 0; i < 100; i++ {
			sid := w.chat(t, w.botKey, "hello", "")["session_id"].(string)
			if h := w.handoff(t, w.botKey, sid, nil); h["status"] != "waiting" {
				t.Fatalf("handoff: %v", h)
			}
			var wg sync.WaitGroup
			start := make(chan struct{})
			codes := make([]int, 2)
			for j, op := range [][]string{w.op1, w.op2} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					req, _ := http.NewRequest("POST", w.a.URL+"/operators/conversations/"+sid+"/claim", nil)
					req.Header.Set(op[0], op[1])
					resp, err := w.a.Client.Do(req)
					if err != nil {
						t.Error(err)
						return
					}
					resp.Body.Close()
					codes[j] = resp.StatusCode
				}()
			}
			close(start)
			wg.Wait()
			if !(codes[0] == 200 && codes[1] == 409 || codes[0] == 409 && codes[1] == 200) {
				t.Fatalf("trial %d: %v", i, codes)
			}
		}
	})
}

func TestLiveChatScope(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		w := newWorld(t, e)
		a := w.a
		w.online(t, w.op1)
		sid := w.chat(t, w.botKey, "hello", "")["session_id"].(string)
		otherKey, otherWS := a.Register(t, "other@example.com")
		conv := "/operators/conversations/" + sid
		if err := a.Billing.SetPlan(context.Background(), w.ws, "pro"); err != nil {
			t.Fatal(err)
		}
		// The owner acts as operator: self-operator (an operator with the owner's e-mail).
		if r := a.Do(t, "POST", "/operators", map[string]any{"email": "owner@example.com", "password": "agent password",
			"bot_id": w.bot}, "X-API-Key", w.key); r.Status != 201 {
			t.Fatalf("self operator: %d %s", r.Status, r.Body)
		}
		w.handoff(t, w.botKey, sid, nil)
		a.Run(t,
			testkit.Scenario{Name: "visitor key of another bot: handoff", Method: "POST", Path: "/operators/handoff",
				Headers: []string{"X-Bot-Key", w.botKey2}, Body: map[string]any{"session_id": sid}, Status: 404},
			testkit.Scenario{Name: "visitor key of another bot: events", Method: "GET", Path: "/chat/events/" + sid,
				Headers: []string{"X-Bot-Key", w.botKey2}, Status: 404},
			testkit.Scenario{Name: "unknown session", Method: "POST", Path: "/operators/handoff",
				Headers: []string{"X-Bot-Key", w.botKey}, Body: map[string]any{"session_id": "cs_nope"}, Status: 404},
			testkit.Scenario{Name: "operator of another bot", Method: "POST", Path: conv + "/claim", Headers: w.opB, Status: 404},
			testkit.Scenario{Name: "no credential", Method: "GET", Path: "/operators/conversations", Status: 401},
			testkit.Scenario{Name: "bot key is not an operator", Method: "GET", Path: "/operators/conversations",
				Headers: []string{"X-Bot-Key", w.botKey}, Status: 401},
			testkit.Scenario{Name: "owner without acting role", Method: "GET", Path: "/operators/conversations",
				Headers: []string{"X-API-Key", w.key}, Status: 403},
			testkit.Scenario{Name: "owner as self-operator", Method: "GET", Path: "/operators/conversations?queue=waiting",
				Headers: []string{"X-API-Key", w.key, "X-Acting-Role", "operator"}, Status: 200, Contains: []string{sid}},
			testkit.Scenario{Name: "another workspace as operator", Method: "GET", Path: conv,
				Headers: []string{"X-API-Key", otherKey, "X-Acting-Role", "operator"}, Status: 403, Absent: []string{"hello"}},
			testkit.Scenario{Name: "another workspace by id, not linked", Method: "GET", Path: conv,
				Headers: []string{"X-API-Key", otherKey, "X-Workspace-Id", fmt.Sprint(w.ws)}, Status: 403},
			testkit.Scenario{Name: "unlinked workspace id", Method: "GET", Path: "/operators/conversations",
				Headers: []string{"X-API-Key", w.key, "X-Workspace-Id", fmt.Sprint(otherWS)}, Status: 403},
			testkit.Scenario{Name: "owner claims as self-operator", Method: "POST", Path: conv + "/claim",
				Headers: []string{"X-API-Key", w.key, "X-Acting-Role", "operator"}, Status: 200},
		)
		// A linked operator: the other workspace's owner (address verified)
		// is made an operator here; the link is made at its first sign-in.
		a.Do(t, "POST", "/auth/verify-email", map[string]any{"email": "other@example.com", "code": a.Mailbox.Code(t, "other@example.com", 1)})
		if r := a.Do(t, "POST", "/operators", map[string]any{"email": "other@example.com", "password": "agent password",
			"bot_id": w.bot2}, "X-API-Key", w.key); r.Status != 201 {
			t.Fatalf("linked operator: %d %s", r.Status, r.Body)
		}
		if r := a.Do(t, "POST", "/auth/operator-login", map[string]any{"email": "other@example.com", "password": "agent password"}); r.Status != 200 {
			t.Fatalf("linked operator sign-in: %d %s", r.Status, r.Body)
		}
		a.Run(t,
			testkit.Scenario{Name: "linked operator sees its bot's queue only", Method: "GET", Path: "/operators/conversations?queue=all",
				Headers: []string{"X-API-Key", otherKey, "X-Workspace-Id", fmt.Sprint(w.ws)}, Status: 200, Absent: []string{sid}},
			testkit.Scenario{Name: "linked operator: other bot's conversation", Method: "GET", Path: conv,
				Headers: []string{"X-API-Key", otherKey, "X-Workspace-Id", fmt.Sprint(w.ws)}, Status: 404},
		)
		// A plan without live chat: 403 feature_not_available.
		if err := a.Billing.SetPlan(context.Background(), w.ws, "free"); err != nil {
			t.Fatal(err)
		}
		a.Run(t, testkit.Scenario{Name: "plan without live chat", Method: "POST", Path: "/operators/handoff",
			Headers: []string{"X-Bot-Key", w.botKey}, Body: map[string]any{"session_id": sid}, Status: 403,
			Contains: []string{"feature_not_available", "live_chat"}})
	})
}
