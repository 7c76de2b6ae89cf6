package lead_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"concierge/internal/app"
	"concierge/internal/lead"
	"concierge/internal/lead/emailcheck"
	"concierge/internal/llm/llmtest"
	"concierge/internal/mail/mailtest"
	"concierge/internal/store"
	"concierge/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// world: a workspace with a bot, and another workspace with its own bot.
type world struct {
	a                   *testkit.TestApp
	key, botKey         string
	ws, bot             int64
	otherKey, otherBKey string
	otherBot            int64
}

func newWorld(t *testing.T, e testkit.Engine, opts ...testkit.Option) *world {
	t.Helper()
	a := testkit.NewApp(t, e, opts...)
	w := &world{a: a}
	w.key, w.ws = a.Register(t, "owner@acme-corp.io")
	w.bot, w.botKey = createBot(t, a, w.key, "Sales helper")
	a.Listen(t, w.ws, w.bot) // the tests read the lead events: recorded for an active endpoint only
	w.otherKey, _ = a.Register(t, "other@rival.io")
	w.otherBot, w.otherBKey = createBot(t, a, w.otherKey, "Rival")
	r := a.Upload(t, "/ingest", w.key, w.bot, testkit.File{Name: "product.md", Data: []byte(product)})
	if r.Status != 202 {
		t.Fatalf("ingest: %d %s", r.Status, r.Body)
	}
	a.Settle(t)
	return w
}

// product is what the bot knows: enough for it to answer the visitors of
// these tests, so its replies read as a real conversation.
const product = `# Acme Support Platform

Acme Support Platform is a help desk for support teams: shared inbox for tickets, live chat, a knowledge base
and reporting. Teams go live in two weeks with our onboarding team. Plans start at $20,000 per year for 50 agents.

## Tooling and operations

Operations and support leaders use Acme to cut ticket backlogs, reduce churn and automate tooling decisions.
We help teams drowning in tickets: automatic routing, macros and SLAs. Budget approval is simple with our
annual plans, and the platform can launch within weeks.

## What we do

We build customer support software: ticketing, chat, knowledge base and analytics for support teams.
`

func createBot(t *testing.T, a *testkit.TestApp, key, name string) (int64, string) {
	t.Helper()
	r := a.Do(t, "POST", "/bots", map[string]any{"name": name}, "X-API-Key", key)
	if r.Status != 201 {
		t.Fatalf("bot: %d %s", r.Status, r.Body)
	}
	m := r.JSON(t)
	return int64(m["bot_id"].(float64)), m["bot_key"].(string)
}

func (w *world) chat(t *testing.T, session, msg string) string {
	t.Helper()
	body := map[string]any{"message": msg}
	if session != "" {
		body["session_id"] = session
	}
	r := w.a.Do(t, "POST", "/chat", body, "X-Bot-Key", w.botKey)
	if r.Status != 200 {
		t.Fatalf("chat: %d %s", r.Status, r.Body)
	}
	return r.JSON(t)["session_id"].(string)
}

func (w *world) capture(t *testing.T, body map[string]any) map[string]any {
	t.Helper()
	r := w.a.Do(t, "POST", "/chat/lead-capture", body, "X-Bot-Key", w.botKey)
	if r.Status != 200 {
		t.Fatalf("capture: %d %s", r.Status, r.Body)
	}
	return r.JSON(t)
}

func (w *world) info(t *testing.T, session string) map[string]any {
	t.Helper()
	r := w.a.Do(t, "GET", "/chat/lead-info/"+session, nil, "X-API-Key", w.key)
	if r.Status != 200 {
		t.Fatalf("lead-info: %d %s", r.Status, r.Body)
	}
	return r.JSON(t)
}

func (w *world) events(t *testing.T, typ string) int {
	t.Helper()
	var n int
	if err := store.Get(context.Background(), w.a.DB.Reader(), &n, `SELECT COUNT(*) FROM events WHERE workspace_id = ? AND type = ?`,
		w.ws, typ); err != nil {
		t.Fatal(err)
	}
	return n
}

func (w *world) balance(t *testing.T) int64 {
	t.Helper()
	b, err := w.a.Billing.Balance(context.Background(), w.ws)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLeadLifecycle: capture before the first question, the conversation,
// signals and a booked meeting move the score; every endpoint shows the
// lead to its workspace and to nobody else.
func TestLeadLifecycle(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		w := newWorld(t, e)
		// Pre-chat form: no session yet, a possibly bad address is kept.
		c := w.capture(t, map[string]any{"name": "Priya Raman", "email": "priya@@acme", "company": "Acme Logistics",
			"source": "pre_chat", "fields": map[string]any{"team_size": "40"}})
		sid, _ := c["session_id"].(string)
		if !strings.HasPrefix(sid, "cs_") || c["email_status"] != "pending" {
			t.Fatalf("capture: %v", c)
		}
		w.a.Settle(t) // the background check runs
		if got := w.info(t, sid); got["email"] != "priya@@acme" || got["email_status"] != "invalid" || got["name"] != "Priya Raman" {
			t.Fatalf("after check: %v", got)
		}
		// The right address replaces it and is checked again.
		w.capture(t, map[string]any{"session_id": sid, "email": "priya@acme-logistics.in"})
		w.a.Settle(t)
		info := w.info(t, sid)
		if info["email_status"] != "valid" || info["company"] != "Acme Logistics" {
			t.Fatalf("after second capture: %v", info)
		}
		if f, _ := info["fields"].(map[string]any); f["team_size"] != "40" {
			t.Fatalf("fields: %v", info["fields"])
		}
		startTier := info["tier"]

		// The conversation qualifies them; lead-info scores up to the latest message.
		w.chat(t, sid, "Hi, I'm the VP of Operations at Acme Logistics and I make the final call on tooling.")
		w.chat(t, sid, "We have a budget of about $60,000 approved for this year for a new support platform.")
		w.chat(t, sid, "Our support team is drowning in tickets and we need to go live by next month.")
		info = w.info(t, sid)
		if info["tier"] != "sql" || info["score"].(float64) < 70 {
			t.Fatalf("after qualifying chat: tier %v score %v (started %v): %v", info["tier"], info["score"], startTier, info["summary"])
		}
		dims, _ := info["dimensions"].([]any)
		if len(dims) != 4 {
			t.Fatalf("dimensions: %v", info["dimensions"])
		}
		quoted := false
		for _, d := range dims {
			dm := d.(map[string]any)
			for _, ev := range dm["evidence"].([]any) {
				if q, _ := ev.(map[string]any)["quote"].(string); strings.Contains(q, "$60,000") && dm["name"] == "budget" {
					quoted = true
				}
			}
		}
		if !quoted {
			t.Fatalf("budget evidence does not quote the visitor: %v", dims)
		}
		if w.events(t, "lead.captured") != 2 || w.events(t, "lead.qualified") < 1 || w.events(t, "lead.tier_changed") < 1 {
			t.Fatalf("events: captured %d qualified %d changed %d", w.events(t, "lead.captured"), w.events(t, "lead.qualified"),
				w.events(t, "lead.tier_changed"))
		}

		// Behavioural signals.
		r := w.a.Do(t, "POST", "/chat/behavioral-signals", map[string]any{"session_id": sid, "page_url": "https://acme.io/pricing",
			"page_title": "Pricing", "referrer": "https://www.google.com/"}, "X-Bot-Key", w.botKey)
		if r.Status != 200 || r.JSON(t)["behavioral_score"].(float64) <= 0 {
			t.Fatalf("signals: %d %s", r.Status, r.Body)
		}
		r = w.a.Do(t, "POST", "/chat/behavioral-signals", map[string]any{"session_id": sid, "time_on_page_seconds": 240},
			"X-Bot-Key", w.botKey)
		if r.Status != 200 || !strings.Contains(string(r.Body), "pricing") {
			t.Fatalf("time on page: %d %s", r.Status, r.Body)
		}

		// A meeting.
		r = w.a.Do(t, "POST", "/chat/meeting-booked", map[string]any{"session_id": sid, "source": "calendly",
			"scheduled_at": "2026-12-01T10:00:00+05:30"}, "X-API-Key", w.key)
		if r.Status != 200 || r.JSON(t)["meeting"] == nil || w.events(t, "meeting.booked") != 1 {
			t.Fatalf("meeting: %d %s", r.Status, r.Body)
		}

		// Lists, detail, stats.
		r = w.a.Do(t, "GET", fmt.Sprintf("/leads?bot_id=%d&tier=sql&min_score=50", w.bot), nil, "X-API-Key", w.key)
		list := r.JSON(t)
		if r.Status != 200 || list["total"].(float64) != 1 || list["items"].([]any)[0].(map[string]any)["session_id"] != sid {
			t.Fatalf("list: %d %s", r.Status, r.Body)
		}
		if r := w.a.Do(t, "GET", "/leads?tier=nurture", nil, "X-API-Key", w.key); r.JSON(t)["total"].(float64) != 0 {
			t.Fatalf("tier filter: %s", r.Body)
		}
		if r := w.a.Do(t, "GET", "/leads?limit=201", nil, "X-API-Key", w.key); r.Status != 422 {
			t.Fatalf("limit 201: %d", r.Status)
		}
		if r := w.a.Do(t, "GET", fmt.Sprintf("/leads?bot_id=%d", w.otherBot), nil, "X-API-Key", w.key); r.Status != 403 {
			t.Fatalf("another workspace's bot: %d", r.Status)
		}
		r = w.a.Do(t, "GET", "/leads/"+sid, nil, "X-API-Key", w.key)
		detail := r.JSON(t)
		if tr, _ := detail["transcript"].([]any); r.Status != 200 || len(tr) != 6 {
			t.Fatalf("detail transcript: %d %s", r.Status, r.Body)
		}
		if h, _ := detail["tier_history"].([]any); len(h) < 2 || h[len(h)-1].(map[string]any)["to"] != "sql" {
			t.Fatalf("tier history: %v", detail["tier_history"])
		}
		r = w.a.Do(t, "GET", "/leads/stats", nil, "X-API-Key", w.key)
		st := r.JSON(t)
		if byTier := st["by_tier"].(map[string]any); r.Status != 200 || byTier["sql"].(float64) != 1 || byTier["mql"].(float64) != 0 ||
			st["meetings_booked"].(float64) != 1 || st["with_email"].(float64) != 1 {
			t.Fatalf("stats: %d %s", r.Status, r.Body)
		}

		// Nobody else sees it.
		for _, c := range []struct{ method, path, keyHeader, key string }{
			{"GET", "/leads/" + sid, "X-API-Key", w.otherKey},
			{"GET", "/chat/lead-info/" + sid, "X-API-Key", w.otherKey},
			{"POST", "/leads/" + sid + "/follow-up", "X-API-Key", w.otherKey},
			{"POST", "/chat/meeting-booked", "X-API-Key", w.otherKey},
			{"POST", "/chat/behavioral-signals", "X-Bot-Key", w.otherBKey},
			{"POST", "/chat/lead-capture", "X-Bot-Key", w.otherBKey},
			{"GET", "/leads/cs_unknown", "X-API-Key", w.key},
		} {
			body := map[string]any{"session_id": sid, "name": "x", "subject": "Hi", "body": "Hello"}
			if c.method == "GET" {
				body = nil
			}
			if r := w.a.Do(t, c.method, c.path, body, c.keyHeader, c.key); r.Status != 404 {
				t.Errorf("%s %s as another tenant: %d %s", c.method, c.path, r.Status, r.Body)
			}
		}
		if r := w.a.Do(t, "GET", "/leads", nil, "X-API-Key", w.otherKey); r.JSON(t)["total"].(float64) != 0 {
			t.Fatalf("other workspace lists: %s", r.Body)
		}
		if r := w.a.Do(t, "POST", "/chat/lead-capture", map[string]any{"session_id": sid}, "X-Bot-Key", w.botKey); r.Status != 422 {
			t.Fatalf("empty capture: %d", r.Status)
		}
	})
}

// TestSweepRescoresWhatMovedMeanwhile: the sweep scores conversations from
// the readers and stores the results afterwards; a conversation that got a
// message, or a lead form, between the two is scored again from what it
// is now, never stored with the stale result.
func TestSweepRescoresWhatMovedMeanwhile(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		w := newWorld(t, e, testkit.WithOptions(func(o *app.Options) { o.Leads.SweepEvery = time.Minute }))
		sweep := func() {
			w.a.Clock.Advance(time.Minute)
			w.a.Queue.Wake()
			time.Sleep(50 * time.Millisecond)
			w.a.Settle(t)
		}
		moved := w.chat(t, "", "hello there")
		formed := w.chat(t, "", "hi, just looking around")
		still := w.chat(t, "", "hello, what is this?")
		sweep() // every conversation has a scored lead row now
		for _, sid := range []string{moved, formed, still} {
			w.chat(t, sid, "ok, thanks")
		}
		var hookErr error
		var once sync.Once
		lead.SetSweepBetween(func() {
			once.Do(func() {
				req := func(path, body string) {
					r, _ := http.NewRequest("POST", w.a.URL+path, strings.NewReader(body))
					r.Header.Set("Content-Type", "application/json")
					r.Header.Set("X-Bot-Key", w.botKey)
					res, err := w.a.Client.Do(r)
					if err == nil {
						res.Body.Close()
						if res.StatusCode != 200 {
							err = fmt.Errorf("%s: %d", path, res.StatusCode)
						}
					}
					if err != nil && hookErr == nil {
						hookErr = err
					}
				}
				req("/chat", `{"session_id":"`+moved+`","message":"I'm the CEO. We have $80k budget approved and must launch within 2 weeks; our churn problem is urgent."}`)
				req("/chat/lead-capture", `{"session_id":"`+formed+`","email":"ana@northwind.example","company":"Northwind"}`)
			})
		})
		t.Cleanup(func() { lead.SetSweepBetween(nil) })
		sweep()
		if hookErr != nil {
			t.Fatal(hookErr)
		}
		leads := map[string]map[string]any{}
		for _, it := range w.a.Do(t, "GET", "/leads", nil, "X-API-Key", w.key).JSON(t)["items"].([]any) {
			l := it.(map[string]any)
			leads[l["session_id"].(string)] = l
		}
		if l := leads[moved]; l == nil || l["tier"] != "sql" {
			t.Fatalf("the conversation that got a qualifying message meanwhile: %v", l)
		}
		if l := leads[still]; l == nil || l["tier"] != "unqualified" || l["messages"].(float64) != 4 {
			t.Fatalf("the conversation nothing moved: %v", l)
		}
		// Every conversation's score is of all its messages: nothing is
		// left for the next sweep.
		var stale int
		if err := store.Get(context.Background(), w.a.DB.Reader(), &stale, `SELECT COUNT(*) FROM chat_sessions s
			JOIN leads l ON l.session_id = s.id WHERE l.scored_messages <> s.messages`); err != nil || stale != 0 {
			t.Fatalf("leads scored on fewer messages than they have: %d %v", stale, err)
		}
		// The form counts in the score stored last, not the reading before it.
		if r := w.a.Do(t, "GET", "/leads/"+formed, nil, "X-API-Key", w.key); !strings.Contains(string(r.Body), "lead form submitted") {
			t.Fatalf("the conversation that filled the form meanwhile: %s", r.Body)
		}
	})
}

// TestScoresFollowTheConversation: without anyone asking, the sweep
// rescores a conversation after each message and records the tier change.
func TestScoresFollowTheConversation(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		w := newWorld(t, e, testkit.WithOptions(func(o *app.Options) { o.Leads.SweepEvery = time.Minute }))
		sid := w.chat(t, "", "hello there")
		sweep := func() {
			w.a.Clock.Advance(time.Minute)
			w.a.Queue.Wake()
			time.Sleep(50 * time.Millisecond)
			w.a.Settle(t)
		}
		sweep()
		list := func() map[string]any {
			r := w.a.Do(t, "GET", "/leads", nil, "X-API-Key", w.key).JSON(t)
			if r["total"].(float64) != 1 {
				t.Fatalf("leads: %v", r)
			}
			return r["items"].([]any)[0].(map[string]any)
		}
		if l := list(); l["session_id"] != sid || l["tier"] != "unqualified" {
			t.Fatalf("first: %v", l)
		}
		w.chat(t, sid, "I'm the CEO. We have $80k budget approved and must launch within 2 weeks; our churn problem is urgent.")
		sweep()
		if l := list(); l["tier"] != "sql" {
			t.Fatalf("after the qualifying message: %v %v", l["tier"], l["summary"])
		}
		if n := w.events(t, "lead.tier_changed"); n != 1 {
			t.Fatalf("tier_changed events: %d", n)
		}
		var sweeps int
		if err := store.Get(context.Background(), w.a.DB.Reader(), &sweeps, `SELECT COUNT(*) FROM jobs WHERE kind = 'lead.sweep'
			AND status = 'queued'`); err != nil || sweeps != 1 {
			t.Fatalf("queued sweeps: %d %v", sweeps, err)
		}
	})
}

type fakeProvider struct{}

func (fakeProvider) Verify(_ context.Context, addr string) (emailcheck.ProviderResult, error) {
	switch {
	case strings.HasSuffix(addr, "@catchall.io"):
		return emailcheck.ProviderResult{Verdict: emailcheck.ProviderCatchAll}, nil
	case strings.HasSuffix(addr, "@dns-down.io"):
		return emailcheck.ProviderResult{Verdict: emailcheck.ProviderUnknown}, nil
	case strings.HasSuffix(addr, "@provider-down.io"):
		return emailcheck.ProviderResult{}, errors.New("connection refused")
	case strings.HasPrefix(addr, "ghost@"):
		return emailcheck.ProviderResult{Verdict: emailcheck.ProviderUndeliverable, Reason: "mailbox does not exist"}, nil
	}
	return emailcheck.ProviderResult{Verdict: emailcheck.ProviderDeliverable}, nil
}

// TestValidateEmail: the live check blocks only junk, fails open, and is
// a paid-plan feature (valid=true, checked=false on Free).
func TestValidateEmail(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		w := newWorld(t, e, testkit.WithOptions(func(o *app.Options) { o.EmailProvider = fakeProvider{} }))
		for _, c := range []struct {
			email   string
			valid   bool
			verdict string
		}{
			{"ana@acme-corp.io", true, "valid"},
			{"ana@@acme-corp.io", false, "invalid_syntax"},
			{"temp@mailinator.com", false, "disposable"},
			{"ana@no-mx.io", false, "no_mail_server"},
			{"abuse@acme-corp.io", false, "spamtrap"},
			{"ghost@acme-corp.io", false, "undeliverable"},
			{"ana@catchall.io", true, "catch_all"},
			{"ana@provider-down.io", true, "unknown"},
			{"ana@dns-down.io", true, "unknown"},
		} {
			r := w.a.Do(t, "POST", "/chat/validate-email", map[string]any{"email": c.email}, "X-Bot-Key", w.botKey)
			m := r.JSON(t)
			if r.Status != 200 || m["valid"] != c.valid || m["verdict"] != c.verdict || m["checked"] != true {
				t.Errorf("%s: %d %s", c.email, r.Status, r.Body)
			}
		}
		if err := w.a.Billing.SetPlan(context.Background(), w.ws, "free"); err != nil {
			t.Fatal(err)
		}
		r := w.a.Do(t, "POST", "/chat/validate-email", map[string]any{"email": "temp@mailinator.com"}, "X-Bot-Key", w.botKey)
		if m := r.JSON(t); r.Status != 200 || m["valid"] != true || m["checked"] != false {
			t.Fatalf("free plan: %d %s", r.Status, r.Body)
		}
	})
}

// TestExport: CSV for plans with lead_export, neutralised formulas, 403
// feature_not_available otherwise.
func TestExport(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		w := newWorld(t, e)
		evil := w.capture(t, map[string]any{"name": "=HYPERLINK(\"http://evil.example\",\"click\")", "company": "+1 Corp",
			"email": "eve@acme-corp.io", "fields": map[string]any{"note": "-2+3"}})["session_id"].(string)
		plain := w.capture(t, map[string]any{"name": "Bob, \"the builder\"", "phone": "@home 555"})["session_id"].(string)
		w.capture(t, map[string]any{"name": "Other bot's lead"}) // same bot; filtered below by tier
		r := w.a.Do(t, "GET", "/leads/export", nil, "X-API-Key", w.key)
		if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/csv") ||
			!strings.Contains(r.Header.Get("Content-Disposition"), "attachment") {
			t.Fatalf("export: %d %v %s", r.Status, r.Header, r.Body)
		}
		recs, err := csv.NewReader(strings.NewReader(string(r.Body))).ReadAll()
		if err != nil || len(recs) != 4 || recs[0][0] != "session_id" {
			t.Fatalf("csv: %v %q", err, r.Body)
		}
		col := map[string]int{}
		for i, h := range recs[0] {
			col[h] = i
		}
		byID := map[string][]string{}
		for _, rec := range recs[1:] {
			byID[rec[0]] = rec
		}
		if got := byID[evil][col["name"]]; got != `'=HYPERLINK("http://evil.example","click")` {
			t.Errorf("formula name: %q", got)
		}
		if got := byID[evil][col["company"]]; got != "'+1 Corp" {
			t.Errorf("company: %q", got)
		}
		if got := byID[plain][col["phone"]]; got != "'@home 555" {
			t.Errorf("phone: %q", got)
		}
		if got := byID[plain][col["name"]]; got != `Bob, "the builder"` {
			t.Errorf("quoted name: %q", got)
		}
		if r := w.a.Do(t, "GET", fmt.Sprintf("/leads/export?bot_id=%d", w.otherBot), nil, "X-API-Key", w.key); r.Status != 403 {
			t.Fatalf("another workspace's bot: %d", r.Status)
		}
		if r := w.a.Do(t, "GET", "/leads/export", nil, "X-API-Key", w.otherKey); r.Status != 200 || strings.Count(string(r.Body), "\n") != 1 {
			t.Fatalf("other workspace's export: %d %s", r.Status, r.Body)
		}
		if err := w.a.Billing.SetPlan(context.Background(), w.ws, "free"); err != nil {
			t.Fatal(err)
		}
		r = w.a.Do(t, "GET", "/leads/export", nil, "X-API-Key", w.key)
		if r.Status != 403 || !strings.Contains(string(r.Body), `"feature_not_available"`) || !strings.Contains(string(r.Body), "lead_export") {
			t.Fatalf("free plan export: %d %s", r.Status, r.Body)
		}
	})
}

// TestFollowUp: one e-mail through real SMTP and one credit per distinct
// follow-up, with the bot's reply-to; a repeat within the window is free
// and not sent; junk addresses and empty balances are refused.
func TestFollowUp(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		smtp := testkitSMTP(t)
		w := newWorld(t, e, testkit.WithEnv("CONCIERGE_SMTP_URL", smtp.URL()),
			testkit.WithOptions(func(o *app.Options) { o.Mailer = nil }))
		if r := w.a.Do(t, "PATCH", fmt.Sprintf("/bots/%d", w.bot), map[string]any{"reply_to_email": "sales@acme-corp.io"},
			"X-API-Key", w.key); r.Status != 200 {
			t.Fatalf("reply-to: %d %s", r.Status, r.Body)
		}
		sid := w.capture(t, map[string]any{"name": "Dana", "email": "dana@buyer.io"})["session_id"].(string)
		w.a.Settle(t)
		before := smtpCount(smtp, "dana@buyer.io")
		bal := w.balance(t)
		send := func(body string) (int, map[string]any) {
			r := w.a.Do(t, "POST", "/leads/"+sid+"/follow-up", map[string]any{"subject": "Your demo", "body": body}, "X-API-Key", w.key)
			return r.Status, r.JSON(t)
		}
		st, m := send("Hi Dana, here is the recording.")
		if st != 202 || m["credits_charged"].(float64) != 1 || m["duplicate"] != false {
			t.Fatalf("follow-up: %d %v", st, m)
		}
		st, m2 := send("Hi Dana, here is the recording.")
		if st != 200 || m2["duplicate"] != true || m2["follow_up_id"] != m["follow_up_id"] {
			t.Fatalf("repeat: %d %v", st, m2)
		}
		if st, _ := send("Hi Dana, one more thing."); st != 202 {
			t.Fatalf("second follow-up: %d", st)
		}
		w.a.Settle(t)
		deadline := time.Now().Add(10 * time.Second)
		for smtpCount(smtp, "dana@buyer.io")-before < 2 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		msgs := smtpMessages(smtp, "dana@buyer.io")[before:]
		if len(msgs) != 2 || msgs[0].Subject != "Your demo" || !strings.Contains(string(msgs[0].Data), "Reply-To: <sales@acme-corp.io>") {
			t.Fatalf("mails: %d %+v", len(msgs), msgs)
		}
		if got := w.balance(t); got != bal-2 {
			t.Fatalf("balance %d → %d, want two credits", bal, got)
		}
		detail := w.a.Do(t, "GET", "/leads/"+sid, nil, "X-API-Key", w.key).JSON(t)
		if fu, _ := detail["follow_ups"].([]any); len(fu) != 2 || fu[0].(map[string]any)["status"] != "sent" {
			t.Fatalf("follow-ups in detail: %v", detail["follow_ups"])
		}

		// Junk: refused, nothing sent or charged (checked at once even if the job has not run).
		junk := w.capture(t, map[string]any{"email": "temp@mailinator.com"})["session_id"].(string)
		r := w.a.Do(t, "POST", "/leads/"+junk+"/follow-up", map[string]any{"subject": "Hi", "body": "Hello"}, "X-API-Key", w.key)
		if r.Status != 409 || !strings.Contains(string(r.Body), `"email_undeliverable"`) {
			t.Fatalf("junk: %d %s", r.Status, r.Body)
		}
		noEmail := w.capture(t, map[string]any{"phone": "+91 98450 00000"})["session_id"].(string)
		if r := w.a.Do(t, "POST", "/leads/"+noEmail+"/follow-up", map[string]any{"subject": "Hi", "body": "Hello"}, "X-API-Key", w.key); r.Status != 409 {
			t.Fatalf("no address: %d %s", r.Status, r.Body)
		}
		if got := w.balance(t); got != bal-2 {
			t.Fatalf("refusals charged: %d → %d", bal, got)
		}

		// Out of credits: 402, nothing sent.
		if _, err := w.a.Billing.Debit(context.Background(), w.ws, w.balance(t), "drain", "test"); err != nil {
			t.Fatal(err)
		}
		r = w.a.Do(t, "POST", "/leads/"+sid+"/follow-up", map[string]any{"subject": "Again", "body": "Third"}, "X-API-Key", w.key)
		if r.Status != 402 || !strings.Contains(string(r.Body), `"insufficient_credits"`) {
			t.Fatalf("no credits: %d %s", r.Status, r.Body)
		}
		w.a.Settle(t)
		if n := smtpCount(smtp, "dana@buyer.io") - before; n != 2 {
			t.Fatalf("mails after refusals: %d", n)
		}
		if r := w.a.Do(t, "POST", "/leads/"+sid+"/follow-up", map[string]any{"subject": "a\r\nBcc: x@y.io", "body": "b"},
			"X-API-Key", w.key); r.Status != 422 {
			t.Fatalf("header injection: %d %s", r.Status, r.Body)
		}
	})
}

func testkitSMTP(t *testing.T) *mailtest.Server { return mailtest.NewServer(t) }

func smtpMessages(s *mailtest.Server, to string) []mailtest.Received {
	var out []mailtest.Received
	for _, m := range s.Messages() {
		if slices.Contains(m.To, to) {
			out = append(out, m)
		}
	}
	return out
}

func smtpCount(s *mailtest.Server, to string) int { return len(smtpMessages(s, to)) }

// TestConfiguredVerificationProvider: CONCIERGE_EMAIL_VERIFY_URL wires the
// HTTP provider (bearer token, JSON both ways); a provider that breaks
// lets the address through.
func TestConfiguredVerificationProvider(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var in struct {
			Email string `json:"email"`
		}
		if r.Header.Get("Authorization") != "Bearer tok-123" || json.NewDecoder(r.Body).Decode(&in) != nil {
			http.Error(w, "unauthorised", http.StatusUnauthorized)
			return
		}
		if strings.HasPrefix(in.Email, "broken@") {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		fmt.Fprint(w, `{"result":"undeliverable","reason":"mailbox unavailable"}`)
	}))
	defer srv.Close()
	w := newWorld(t, testkit.SQLite, testkit.WithEnv("CONCIERGE_EMAIL_VERIFY_URL", srv.URL, "CONCIERGE_EMAIL_VERIFY_TOKEN", "tok-123"))
	r := w.a.Do(t, "POST", "/chat/validate-email", map[string]any{"email": "ghost@acme-corp.io"}, "X-Bot-Key", w.botKey)
	if m := r.JSON(t); m["valid"] != false || m["verdict"] != "undeliverable" {
		t.Fatalf("undeliverable: %s", r.Body)
	}
	r = w.a.Do(t, "POST", "/chat/validate-email", map[string]any{"email": "broken@acme-corp.io"}, "X-Bot-Key", w.botKey)
	if m := r.JSON(t); m["valid"] != true || m["verdict"] != "unknown" {
		t.Fatalf("provider failure: %s", r.Body)
	}
	if calls.Load() < 2 {
		t.Fatalf("provider called %d times", calls.Load())
	}
}

// TestModelRefinesScores: with lead_intelligence and a configured model
// (the fake OpenAI server), a job refines the rules' score with quotes the
// visitor wrote; a model failure keeps the rules' score; without the
// feature the model is not asked.
func TestModelRefinesScores(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		srv := llmtest.NewOpenAI(t)
		var fail atomic.Bool
		srv.Handle(func(rec llmtest.Received) llmtest.Reply {
			if !strings.Contains(rec.System, "qualified as a sales lead") {
				return llmtest.Reply{Text: "Acme Support Platform helps support teams with tickets, chat and reporting."}
			}
			if fail.Load() {
				return llmtest.Reply{Status: http.StatusInternalServerError}
			}
			return llmtest.Reply{Text: `{"dimensions":[
				{"name":"authority","score":80,"evidence":[{"quote":"software purchases go through me","reading":"buys the software"}]},
				{"name":"timeline","score":75,"evidence":[{"quote":"Ideally before the new year","reading":"date named"}]},
				{"name":"budget","score":95,"evidence":[{"quote":"a budget of a million dollars"}]}]}`}
		})
		w := newWorld(t, e, testkit.WithEnv("CONCIERGE_LLM_PROVIDER", "openai", "CONCIERGE_LLM_BASE_URL", srv.URL,
			"CONCIERGE_LLM_API_KEY", srv.APIKey, "CONCIERGE_LLM_MODEL", llmtest.DefaultModel, "CONCIERGE_LLM_MAX_ATTEMPTS", "1"))
		conversation := func() string {
			sid := w.chat(t, "", "We run a chain of 12 dental clinics and our front desk misses a lot of calls after hours.")
			w.chat(t, sid, "I run operations and the clinics' software purchases go through me.")
			w.chat(t, sid, "Ideally before the new year.")
			return sid
		}
		refineCalls := func() int {
			n := 0
			for _, r := range srv.Requests() {
				if strings.Contains(r.System, "qualified as a sales lead") {
					n++
				}
			}
			return n
		}

		// Trial plan: no lead_intelligence, no model call.
		sid := conversation()
		base := w.info(t, sid)
		w.a.Settle(t)
		if refineCalls() != 0 || !strings.HasPrefix(w.info(t, sid)["scorer"].(string), "rules/") {
			t.Fatalf("refined without the feature: %d calls", refineCalls())
		}

		if err := w.a.Billing.SetPlan(context.Background(), w.ws, "pro"); err != nil {
			t.Fatal(err)
		}
		sid = conversation()
		w.info(t, sid) // scores and queues the refinement
		w.a.Settle(t)
		got := w.info(t, sid)
		if refineCalls() != 1 || !strings.HasSuffix(got["scorer"].(string), "+model") {
			t.Fatalf("not refined: %d calls, %v", refineCalls(), got["scorer"])
		}
		if got["score"].(float64) <= base["score"].(float64) || got["tier"] == base["tier"] {
			t.Fatalf("refinement did not raise it: %v %v → %v %v", base["tier"], base["score"], got["tier"], got["score"])
		}
		for _, d := range got["dimensions"].([]any) {
			dm := d.(map[string]any)
			if dm["name"] == "budget" && dm["score"].(float64) > 0 {
				t.Fatalf("a quote the visitor never wrote raised the budget: %v", dm)
			}
		}
		detail := w.a.Do(t, "GET", "/leads/"+sid, nil, "X-API-Key", w.key).JSON(t)
		if h := detail["tier_history"].([]any); !strings.HasSuffix(h[len(h)-1].(map[string]any)["scorer"].(string), "+model") {
			t.Fatalf("tier history: %v", h)
		}

		// The model fails: the rules' score stands.
		fail.Store(true)
		sid = conversation()
		w.info(t, sid)
		w.a.Settle(t)
		if got := w.info(t, sid); !strings.HasPrefix(got["scorer"].(string), "rules/") || strings.HasSuffix(got["scorer"].(string), "+model") ||
			got["score"] != base["score"] {
			t.Fatalf("after a model failure: %v %v (rules gave %v)", got["scorer"], got["score"], base["score"])
		}
	})
}
