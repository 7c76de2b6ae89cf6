package chat_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"concierge/internal/chat"
	"concierge/internal/store"
	"concierge/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const handbook = `# Shipping and returns

Orders ship from our warehouse in Pune within two business days.
Delivery inside India takes three to five days; international delivery takes ten to fourteen days.

## Returns

Returns are accepted within thirty days of delivery, unused and in the original packaging.
Refunds reach the original payment method within seven days after we receive the parcel.

# Support hours

Our support team answers e-mail and chat from 9 am to 6 pm IST, Monday to Saturday.
`

// world is a workspace with one bot that knows the handbook.
type world struct {
	a           *testkit.TestApp
	key         string
	ws, bot     int64
	botKey      string
	otherKey    string
	otherBotKey string
	otherBotID  int64
	otherWS     int64
}

func newWorld(t *testing.T, e testkit.Engine, opts ...testkit.Option) *world {
	t.Helper()
	a := testkit.NewApp(t, e, opts...)
	w := &world{a: a}
	w.key, w.ws = a.Register(t, "owner@example.com")
	w.bot, w.botKey = createBot(t, a, w.key, "Shop helper")
	w.otherKey, w.otherWS = a.Register(t, "other@example.com")
	w.otherBotID, w.otherBotKey = createBot(t, a, w.otherKey, "Other")
	r := a.Upload(t, "/ingest", w.key, w.bot, testkit.File{Name: "handbook.md", Data: []byte(handbook)})
	if r.Status != 202 {
		t.Fatalf("ingest: %d %s", r.Status, r.Body)
	}
	waitJob(t, a, w.key, r.JSON(t)["job_id"].(string))
	return w
}

func createBot(t *testing.T, a *testkit.TestApp, key, name string) (int64, string) {
	t.Helper()
	r := a.Do(t, "POST", "/bots", map[string]any{"name": name}, "X-API-Key", key)
	if r.Status != 201 {
		t.Fatalf("bot: %d %s", r.Status, r.Body)
	}
	m := r.JSON(t)
	return int64(m["bot_id"].(float64)), m["bot_key"].(string)
}

func waitJob(t *testing.T, a *testkit.TestApp, key, jobID string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st := a.Do(t, "GET", "/ingest/status/"+jobID, nil, "X-API-Key", key).JSON(t)["status"]
		if st == "completed" {
			return
		}
		if st == "failed" || st == "partial" || time.Now().After(deadline) {
			t.Fatalf("ingestion %v", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (w *world) balance(t *testing.T) int64 {
	t.Helper()
	return int64(w.a.Do(t, "GET", "/credits/balance", nil, "X-API-Key", w.key).JSON(t)["balance"].(float64))
}

type reply struct {
	SessionID string        `json:"session_id"`
	MessageID string        `json:"message_id"`
	Reply     string        `json:"reply"`
	Answered  bool          `json:"answered"`
	Offline   bool          `json:"offline"`
	Credits   int64         `json:"credits_charged"`
	Sources   []chat.Source `json:"sources"`
}

func (w *world) chat(t *testing.T, msg, session string, headers ...string) (*testkit.Response, reply) {
	t.Helper()
	if len(headers) == 0 {
		headers = []string{"X-Bot-Key", w.botKey}
	}
	body := map[string]any{"message": msg}
	if session != "" {
		body["session_id"] = session
	}
	r := w.a.Do(t, "POST", "/chat", body, headers...)
	var out reply
	if r.Status == 200 {
		r.Decode(t, &out)
	}
	return r, out
}

func TestChatAnswersFromKnowledge(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		w := newWorld(t, e)
		before := w.balance(t)
		r, rep := w.chat(t, "How long do returns take to be refunded?", "")
		if r.Status != 200 || !rep.Answered || !strings.Contains(rep.Reply, "seven days") {
			t.Fatalf("answer: %d %s", r.Status, r.Body)
		}
		if len(rep.Sources) == 0 || rep.Sources[0].DocumentName != "handbook.md" || rep.Sources[0].Snippet == "" {
			t.Fatalf("sources: %+v", rep.Sources)
		}
		if !strings.HasPrefix(rep.SessionID, "cs_") || len(rep.SessionID) < 3+22 { // 128 bits in base64url
			t.Fatalf("session id %q", rep.SessionID)
		}
		if got := w.balance(t); got != before-1 || rep.Credits != 1 {
			t.Fatalf("balance %d → %d, credits_charged %d", before, got, rep.Credits)
		}

		// A follow-up in the same session, then the history.
		r, rep2 := w.chat(t, "And what are the support hours?", rep.SessionID)
		if r.Status != 200 || rep2.SessionID != rep.SessionID || !strings.Contains(rep2.Reply, "9 am") {
			t.Fatalf("follow-up: %d %s", r.Status, r.Body)
		}
		h := w.a.Do(t, "GET", "/chat/history/"+rep.SessionID, nil, "X-Bot-Key", w.botKey)
		var hist struct {
			Messages []chat.Message `json:"messages"`
		}
		h.Decode(t, &hist)
		if h.Status != 200 || len(hist.Messages) != 4 || hist.Messages[0].Role != "user" ||
			hist.Messages[1].Role != "assistant" || hist.Messages[1].Text != rep.Reply || len(hist.Messages[1].Sources) == 0 {
			t.Fatalf("history: %d %s", h.Status, h.Body)
		}

		// A visitor rates the reply.
		if r := w.a.Do(t, "POST", "/chat/feedback", map[string]any{"session_id": rep.SessionID, "message_id": rep.MessageID,
			"rating": "up"}, "X-Bot-Key", w.botKey); r.Status != 200 {
			t.Fatalf("feedback: %d %s", r.Status, r.Body)
		}

		w.a.Run(t,
			testkit.Scenario{Name: "another bot's key cannot read the session", Method: "GET", Path: "/chat/history/" + rep.SessionID,
				Headers: []string{"X-Bot-Key", w.otherBotKey}, Status: 404},
			testkit.Scenario{Name: "an unknown session", Method: "GET", Path: "/chat/history/cs_nope", Headers: []string{"X-Bot-Key", w.botKey}, Status: 404},
			testkit.Scenario{Name: "continuing another bot's session", Method: "POST", Path: "/chat",
				Body: map[string]any{"message": "hi there", "session_id": rep.SessionID}, Headers: []string{"X-Bot-Key", w.otherBotKey}, Status: 404},
			testkit.Scenario{Name: "rating another bot's message", Method: "POST", Path: "/chat/feedback",
				Body:    map[string]any{"session_id": rep.SessionID, "message_id": rep.MessageID, "rating": "down"},
				Headers: []string{"X-Bot-Key", w.otherBotKey}, Status: 404},
			testkit.Scenario{Name: "bad rating", Method: "POST", Path: "/chat/feedback",
				Body:    map[string]any{"session_id": rep.SessionID, "message_id": rep.MessageID, "rating": "meh"},
				Headers: []string{"X-Bot-Key", w.botKey}, Status: 422},
			testkit.Scenario{Name: "no key", Method: "POST", Path: "/chat", Body: map[string]any{"message": "hi"}, Status: 401},
			testkit.Scenario{Name: "empty message", Method: "POST", Path: "/chat", Body: map[string]any{"message": ""},
				Headers: []string{"X-Bot-Key", w.botKey}, Status: 422},
			testkit.Scenario{Name: "message too long", Method: "POST", Path: "/chat", Body: map[string]any{"message": strings.Repeat("a", 4001)},
				Headers: []string{"X-Bot-Key", w.botKey}, Status: 422},
			testkit.Scenario{Name: "history needs the bot key", Method: "GET", Path: "/chat/history/" + rep.SessionID,
				Headers: []string{"X-API-Key", w.key}, Status: 401},
		)

		// X-API-Key resolves the workspace's default bot.
		if r, rep := w.chat(t, "Where do orders ship from?", "", "X-API-Key", w.key); r.Status != 200 || !strings.Contains(rep.Reply, "Pune") {
			t.Fatalf("api key chat: %d %s", r.Status, r.Body)
		}
	})
}

func TestChatUnanswered(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		w := newWorld(t, e)
		before := w.balance(t)
		r, rep := w.chat(t, "Do you sell helicopter spare parts?", "")
		if r.Status != 200 || rep.Answered || len(rep.Sources) != 0 || !strings.Contains(rep.Reply, "don't have information") {
			t.Fatalf("unanswered: %d %s", r.Status, r.Body)
		}
		// Nothing worth reading, no answer: no credit.
		if got := w.balance(t); got != before || rep.Credits != 0 {
			t.Fatalf("an abstention charged: balance %d → %d, credits_charged %d", before, got, rep.Credits)
		}
		// Recorded as unanswered for analytics.
		var n int
		if err := store.Get(context.Background(), w.a.DB.Reader(), &n,
			`SELECT COUNT(*) FROM chat_messages WHERE role = 'assistant' AND answered = ? AND status = 'completed'`, false); err != nil || n != 1 {
			t.Fatalf("unanswered recorded: %d %v", n, err)
		}
		// A bot with live chat offers a human.
		if r := w.a.Do(t, "PATCH", fmt.Sprintf("/bots/%d", w.bot), map[string]any{"live_chat": map[string]any{"enabled": true, "offer_contact_form": false}},
			"X-API-Key", w.key); r.Status != 200 {
			t.Fatalf("live chat: %d %s", r.Status, r.Body)
		}
		if _, rep := w.chat(t, "Do you sell helicopter spare parts?", ""); !strings.Contains(rep.Reply, "someone from our team") {
			t.Fatalf("no handoff offer: %q", rep.Reply)
		}
	})
}

// readStream parses a /chat/stream body into its parts.
func readStream(t *testing.T, body string) (meta map[string]any, text string, final map[string]any) {
	t.Helper()
	first, rest, ok := strings.Cut(body, "\n")
	if !ok || !strings.HasPrefix(first, chat.MetadataPrefix) {
		t.Fatalf("no METADATA line: %q", body)
	}
	if err := json.Unmarshal([]byte(strings.TrimPrefix(first, chat.MetadataPrefix)), &meta); err != nil {
		t.Fatalf("METADATA json: %v", err)
	}
	i := strings.Index(rest, "\n"+chat.FinalMetadataPrefix)
	if i < 0 || !strings.HasSuffix(rest, "\n") {
		t.Fatalf("no FINAL_METADATA line: %q", body)
	}
	text = chat.Unescape(rest[:i])
	if err := json.Unmarshal([]byte(strings.TrimSpace(rest[i+1+len(chat.FinalMetadataPrefix):])), &final); err != nil {
		t.Fatalf("FINAL_METADATA json: %v in %q", err, body)
	}
	return meta, text, final
}

func TestChatStream(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		w := newWorld(t, e)
		before := w.balance(t)
		r := w.a.Do(t, "POST", "/chat/stream", map[string]any{"message": "How long does delivery inside India take?"}, "X-Bot-Key", w.botKey)
		if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/event-stream") {
			t.Fatalf("stream: %d %v %s", r.Status, r.Header, r.Body)
		}
		meta, text, final := readStream(t, string(r.Body))
		if cands, _ := meta["sources"].([]any); len(cands) == 0 {
			t.Errorf("no candidate sources announced before the reply: %v", meta)
		}
		if meta["session_id"] == "" || meta["session_id"] != final["session_id"] || !strings.Contains(text, "three to five days") ||
			final["answered"] != true || len(final["sources"].([]any)) == 0 || final["message_id"] == "" {
			t.Fatalf("stream parts: %v | %q | %v", meta, text, final)
		}
		if got := w.balance(t); got != before-1 {
			t.Fatalf("balance %d → %d", before, got)
		}
		// Errors before the first word are ordinary responses.
		if r := w.a.Do(t, "POST", "/chat/stream", map[string]any{"message": "x", "session_id": "cs_unknown"}, "X-Bot-Key", w.botKey); r.Status != 404 {
			t.Fatalf("unknown session on stream: %d %s", r.Status, r.Body)
		}
	})
}

func TestChatPreviewAndCredentials(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		w := newWorld(t, e)
		before := w.balance(t)
		q := fmt.Sprintf("/chat?preview=true&bot_id=%d", w.bot)
		r := w.a.Do(t, "POST", q, map[string]any{"message": "Where do orders ship from?"}, "X-API-Key", w.key)
		if r.Status != 200 || !strings.Contains(string(r.Body), "Pune") || r.JSON(t)["credits_charged"].(float64) != 0 {
			t.Fatalf("preview: %d %s", r.Status, r.Body)
		}
		if got := w.balance(t); got != before {
			t.Fatalf("preview charged: %d → %d", before, got)
		}
		msg := map[string]any{"message": "Where do orders ship from?"}
		w.a.Run(t,
			testkit.Scenario{Name: "preview of another workspace's bot", Method: "POST", Path: fmt.Sprintf("/chat?preview=true&bot_id=%d", w.otherBotID),
				Body: msg, Headers: []string{"X-API-Key", w.key}, Status: 403},
			testkit.Scenario{Name: "preview with a bot key", Method: "POST", Path: q, Body: msg, Headers: []string{"X-Bot-Key", w.botKey}, Status: 403},
			testkit.Scenario{Name: "bot_id without preview", Method: "POST", Path: fmt.Sprintf("/chat?bot_id=%d", w.bot), Body: msg,
				Headers: []string{"X-API-Key", w.key}, Status: 422},
			testkit.Scenario{Name: "preview without bot_id", Method: "POST", Path: "/chat?preview=true", Body: msg,
				Headers: []string{"X-API-Key", w.key}, Status: 422},
			testkit.Scenario{Name: "impersonation token off the preview path", Method: "POST", Path: "/chat", Body: msg,
				Headers: []string{"X-API-Key", w.key, "X-Impersonation-Token", "imp_whatever"}, Status: 401},
			testkit.Scenario{Name: "unknown impersonation token on the preview path", Method: "POST", Path: q, Body: msg,
				Headers: []string{"X-API-Key", w.key, "X-Impersonation-Token", "imp_whatever"}, Status: 401},
			testkit.Scenario{Name: "impersonation token elsewhere", Method: "GET", Path: "/chat/history/cs_x",
				Headers: []string{"X-Bot-Key", w.botKey, "X-Impersonation-Token", "imp_whatever"}, Status: 401},
		)
		if got := w.balance(t); got != before {
			t.Fatalf("refusals charged: %d → %d", before, got)
		}
	})
}

func TestChatOfflineAndOutOfCredits(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		w := newWorld(t, e)
		// Spend every credit: 402 before any answer, with the spec's body.
		bal := w.balance(t)
		if _, err := w.a.Billing.Debit(context.Background(), w.ws, bal, "drain", "test"); err != nil {
			t.Fatal(err)
		}
		r, _ := w.chat(t, "Where do orders ship from?", "")
		detail, _ := r.JSON(t)["detail"].(map[string]any)
		if r.Status != 402 || detail["error"] != "insufficient_credits" || detail["required"].(float64) != 1 || detail["available"].(float64) != 0 {
			t.Fatalf("out of credits: %d %s", r.Status, r.Body)
		}
		if r := w.a.Do(t, "POST", "/chat/stream", map[string]any{"message": "hello"}, "X-Bot-Key", w.botKey); r.Status != 402 {
			t.Fatalf("stream out of credits: %d %s", r.Status, r.Body)
		}

		// The trial ends without a subscription: the bot is offline.
		w.a.Do(t, "PATCH", fmt.Sprintf("/bots/%d", w.bot), map[string]any{"offline_message": "We are closed <b>today</b>."}, "X-API-Key", w.key)
		w.a.Clock.Advance(30 * 24 * time.Hour)
		r, rep := w.chat(t, "Where do orders ship from?", "")
		if r.Status != 200 || !rep.Offline || rep.Reply != "We are closed <b>today</b>." || rep.Answered || len(rep.Sources) != 0 {
			t.Fatalf("offline: %d %s", r.Status, r.Body)
		}
		s := w.a.Do(t, "POST", "/chat/stream", map[string]any{"message": "hi"}, "X-Bot-Key", w.botKey)
		_, text, final := readStream(t, string(s.Body))
		if text != "We are closed <b>today</b>." || final["offline"] != true {
			t.Fatalf("offline stream: %q %v", text, final)
		}
	})
}

func TestWidgetOrigins(t *testing.T) {
	w := newWorld(t, testkit.SQLite)
	if r := w.a.Do(t, "PATCH", fmt.Sprintf("/bots/%d", w.bot), map[string]any{"allowed_origins": []string{"https://shop.example"}},
		"X-API-Key", w.key); r.Status != 200 {
		t.Fatalf("allowlist: %d %s", r.Status, r.Body)
	}
	msg := map[string]any{"message": "Where do orders ship from?"}
	ok := w.a.Do(t, "POST", "/chat", msg, "X-Bot-Key", w.botKey, "Origin", "https://shop.example")
	if ok.Status != 200 || ok.Header.Get("Access-Control-Allow-Origin") != "https://shop.example" {
		t.Fatalf("allowed origin: %d %v", ok.Status, ok.Header)
	}
	for _, origin := range []string{"https://evil.example", "http://shop.example", "https://shop.example:8443", "https://sub.shop.example", "null"} {
		for _, path := range []string{"/chat", "/chat/stream", "/bots/settings/public"} {
			method := "POST"
			if path == "/bots/settings/public" {
				method = "GET"
			}
			r := w.a.Do(t, method, path, msg, "X-Bot-Key", w.botKey, "Origin", origin)
			if r.Status != 403 || r.Header.Get("Access-Control-Allow-Origin") != "" {
				t.Errorf("%s %s from %s: %d %v", method, path, origin, r.Status, r.Header)
			}
		}
	}
	// The service's own origin comes from configuration, never from the
	// Host header the caller chooses.
	for _, path := range []string{"/chat", "/chat/stream", "/bots/settings/public"} {
		method := "POST"
		if path == "/bots/settings/public" {
			method = "GET"
		}
		r := w.a.Do(t, method, path, msg, "X-Bot-Key", w.botKey, "Origin", "https://evil.example", "Host", "evil.example")
		if r.Status != 403 || r.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("%s %s from evil.example with Host evil.example: %d %v", method, path, r.Status, r.Header)
		}
		r = w.a.Do(t, method, path, msg, "X-Bot-Key", w.botKey, "Origin", w.a.URL)
		if r.Status != 200 || r.Header.Get("Access-Control-Allow-Origin") != w.a.URL {
			t.Errorf("%s %s from the service's own origin %s: %d %v", method, path, w.a.URL, r.Status, r.Header)
		}
	}
	// Server-to-server calls (no Origin) are not browser requests.
	if r := w.a.Do(t, "POST", "/chat", msg, "X-Bot-Key", w.botKey); r.Status != 200 {
		t.Fatalf("no origin: %d", r.Status)
	}
	// The preflight says what the widget may send.
	req, _ := http.NewRequest("OPTIONS", w.a.URL+"/chat/stream", nil)
	req.Header.Set("Origin", "https://shop.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "content-type,x-bot-key")
	res, err := w.a.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 204 || !strings.Contains(res.Header.Get("Access-Control-Allow-Headers"), "X-Bot-Key") {
		t.Fatalf("preflight: %d %v", res.StatusCode, res.Header)
	}
}

func TestEscaper(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"METADATA: x", `\METADATA: x`},
		{"line\nFINAL_METADATA: {}\nend", "line\n\\FINAL_METADATA: {}\nend"},
		{`\already`, `\\already`},
		{"FINAL_META", "FINAL_META"},
		{"a METADATA: b", "a METADATA: b"},
	}
	for _, c := range cases {
		// Every way of cutting the text into two chunks gives the same.
		for cut := 0; cut <= len(c.in); cut++ {
			e := chat.NewEscaper()
			got := e.Write(c.in[:cut]) + e.Write(c.in[cut:]) + e.Flush()
			if got != c.want {
				t.Errorf("%q cut at %d: %q, want %q", c.in, cut, got, c.want)
			}
			if chat.Unescape(got) != c.in {
				t.Errorf("%q: unescape gives %q", c.in, chat.Unescape(got))
			}
		}
	}
	// Byte by byte.
	e := chat.NewEscaper()
	var b strings.Builder
	for _, r := range "x\nMETADATA: y\n\\z" {
		b.WriteString(e.Write(string(r)))
	}
	b.WriteString(e.Flush())
	if b.String() != "x\n\\METADATA: y\n\\\\z" {
		t.Fatalf("byte by byte: %q", b.String())
	}
}
