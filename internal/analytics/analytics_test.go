package analytics_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"concierge/internal/store"
	"concierge/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const knowledge = `# Bakery help

## Prices
A sourdough loaf costs four euros; a box of twelve croissants costs fifteen euros.

## Delivery
Parcels leave the bakery every morning and reach most cities within two days.
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

type reply struct {
	SessionID string `json:"session_id"`
	MessageID string `json:"message_id"`
	Answered  bool   `json:"answered"`
}

// bakery is a workspace whose bot was fed the bakery's help page.
type bakery struct {
	key, botKey string
	bot         int64
}

// twoBakeries registers two workspaces, each with a bot that knows the
// help page, and waits until both are indexed.
func twoBakeries(t *testing.T, a *testkit.TestApp, owner, otherOwner string) (bakery, bakery) {
	t.Helper()
	var out [2]bakery
	for i, email := range []string{owner, otherOwner} {
		b := &out[i]
		b.key, _ = a.Register(t, email)
		b.bot, b.botKey = createBot(t, a, b.key, []string{"Bakery", "Rival"}[i])
		if r := a.Upload(t, "/ingest", b.key, b.bot, testkit.File{Name: "help.md", Data: []byte(knowledge)}); r.Status != 202 {
			t.Fatalf("ingest: %d %s", r.Status, r.Body)
		}
	}
	a.Settle(t)
	return out[0], out[1]
}

func chat(t *testing.T, a *testkit.TestApp, botKey, session, msg string) reply {
	t.Helper()
	body := map[string]any{"message": msg}
	if session != "" {
		body["session_id"] = session
	}
	r := a.Do(t, "POST", "/chat", body, "X-Bot-Key", botKey)
	if r.Status != 200 {
		t.Fatalf("chat: %d %s", r.Status, r.Body)
	}
	var out reply
	r.Decode(t, &out)
	return out
}

func get(t *testing.T, a *testkit.TestApp, key, path string, want int) map[string]any {
	t.Helper()
	r := a.Do(t, "GET", path, nil, "X-API-Key", key)
	if r.Status != want {
		t.Fatalf("GET %s: %d, want %d: %s\n%s", path, r.Status, want, r.Body, lastLines(a.Logs.String(), 5))
	}
	if want != 200 {
		return nil
	}
	return r.JSON(t)
}

// num reads a number at a dotted path ("conversations.value").
func num(t *testing.T, m map[string]any, path string) float64 {
	t.Helper()
	var cur any = m
	for _, k := range strings.Split(path, ".") {
		mm, ok := cur.(map[string]any)
		if !ok {
			t.Fatalf("%s: not an object at %q in %v", path, k, cur)
		}
		cur = mm[k]
	}
	f, ok := cur.(float64)
	if !ok {
		t.Fatalf("%s: %v is not a number", path, cur)
	}
	return f
}

// TestReportsFromRealTraffic: conversations through the real chat, lead
// and signal endpoints show in every report with the counts they made;
// another workspace's traffic never does; a dismissed unanswered group
// comes back when asked again.
func TestReportsFromRealTraffic(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		a.Clock.Set(time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC))
		own, other := twoBakeries(t, a, "owner@bakery.example", "owner@rival.example")
		key, botKey, otherKey, otherBot, otherBotKey := own.key, own.botKey, other.key, other.bot, other.botKey

		// Visitor 1: two answered questions, rates the second down, leaves an e-mail.
		r1 := chat(t, a, botKey, "", "how much does a sourdough loaf cost?")
		r2 := chat(t, a, botKey, r1.SessionID, "how long does delivery of parcels take?")
		if !r1.Answered || !r2.Answered {
			t.Fatalf("the knowledge answers both: %+v %+v", r1, r2)
		}
		if r := a.Do(t, "POST", "/chat/feedback", map[string]any{"session_id": r1.SessionID, "message_id": r2.MessageID,
			"rating": "down"}, "X-Bot-Key", botKey); r.Status != 200 {
			t.Fatalf("feedback: %d %s", r.Status, r.Body)
		}
		if r := a.Do(t, "POST", "/chat/behavioral-signals", map[string]any{"session_id": r1.SessionID,
			"page_url": "https://bakery.example/pricing", "referrer": "https://www.google.com/search?q=bread",
			"utm_source": "Newsletter"}, "X-Bot-Key", botKey); r.Status != 200 {
			t.Fatalf("signals: %d %s", r.Status, r.Body)
		}
		if r := a.Do(t, "POST", "/chat/lead-capture", map[string]any{"session_id": r1.SessionID, "name": "Ana",
			"email": "ana@example.org"}, "X-Bot-Key", botKey); r.Status != 200 && r.Status != 201 {
			t.Fatalf("lead: %d %s", r.Status, r.Body)
		}
		// Visitor 2 and 3: the same unanswerable question in other words.
		r3 := chat(t, a, botKey, "", "what is the phone number of the bakery?")
		a.Clock.Advance(time.Minute)
		r4 := chat(t, a, botKey, "", "phone number of your bakery")
		if r3.Answered || r4.Answered {
			t.Fatalf("nothing says the phone number: %+v %+v", r3, r4)
		}
		// The other workspace's traffic.
		for range 3 {
			chat(t, a, otherBotKey, "", "how much does a sourdough loaf cost?")
		}
		a.Settle(t)

		d := get(t, a, key, "/analytics/dashboard", 200)
		for path, want := range map[string]float64{
			"conversations.value": 3, "visitor_messages.value": 4, "questions.value": 4, "answered.value": 2,
			"unanswered_questions.value": 2, "answered_rate.value": 0.5, "leads_captured.value": 1, "ratings_down.value": 1,
			"ratings_up.value": 0, "satisfaction.value": 0, "unique_visitors.value": 3, "conversations.previous": 0,
			"window.days": 30,
		} {
			if got := num(t, d, path); got != want {
				t.Errorf("dashboard %s = %v, want %v", path, got, want)
			}
		}
		series := d["series"].([]any)
		if len(series) != 30 {
			t.Fatalf("series of %d days", len(series))
		}
		last := series[29].(map[string]any)
		if last["date"] != "2026-06-10" || last["conversations"].(float64) != 3 || last["leads"].(float64) != 1 {
			t.Errorf("today's point: %v", last)
		}
		if od := get(t, a, otherKey, "/analytics/dashboard", 200); num(t, od, "conversations.value") != 3 || num(t, od, "questions.value") != 3 {
			t.Errorf("the other workspace sees %v", od)
		}
		get(t, a, key, fmt.Sprintf("/analytics/dashboard?bot_id=%d", otherBot), 403)

		un := get(t, a, key, "/analytics/unanswered-questions", 200)
		groups := un["groups"].([]any)
		if len(groups) != 1 {
			t.Fatalf("unanswered groups: %v", un)
		}
		g := groups[0].(map[string]any)
		if g["count"].(float64) != 2 || len(g["session_ids"].([]any)) != 2 || len(g["variants"].([]any)) != 1 {
			t.Errorf("unanswered group: %v", g)
		}
		cp, ok := g["closest_passage"].(map[string]any)
		if !ok || !strings.Contains(cp["text"].(string), "bakery") || cp["coverage"].(float64) >= 0.65 {
			t.Errorf("closest passage of the unanswered group: %v", g["closest_passage"])
		}
		top := get(t, a, key, "/analytics/top-questions?limit=10", 200)
		if n := len(top["groups"].([]any)); n != 3 {
			t.Errorf("top questions: %d groups, want 3 (price, delivery, phone): %v", n, top)
		}
		id := g["group_id"].(string)
		if r := a.Do(t, "POST", "/analytics/unanswered-questions/"+id+"/dismiss", nil, "X-API-Key", key); r.Status != 200 {
			t.Fatalf("dismiss: %d %s", r.Status, r.Body)
		}
		if un := get(t, a, key, "/analytics/unanswered-questions", 200); len(un["groups"].([]any)) != 0 {
			t.Errorf("a dismissed group still shows: %v", un)
		}
		a.Clock.Advance(time.Minute)
		chat(t, a, botKey, "", "bakery phone number?")
		if un := get(t, a, key, "/analytics/unanswered-questions", 200); len(un["groups"].([]any)) != 1 {
			t.Errorf("a dismissed group asked again does not come back: %v", un)
		}

		rt := get(t, a, key, "/analytics/ratings-summary", 200)
		low := rt["lowest_rated"].([]any)
		if num(t, rt, "down.value") != 1 || len(low) != 1 || !strings.Contains(low[0].(map[string]any)["question"].(string), "delivery") {
			t.Errorf("ratings: %v", rt)
		}
		res := get(t, a, key, "/analytics/resolution-summary", 200)
		for path, want := range map[string]float64{"conversations.value": 4, "outcomes.resolved_by_bot.count": 1,
			"outcomes.unanswered.count": 3, "outcomes.handed_off.count": 0} {
			if got := num(t, res, path); got != want {
				t.Errorf("resolution %s = %v, want %v", path, got, want)
			}
		}
		fn := get(t, a, key, "/analytics/qualification-funnel", 200)
		stages := fn["stages"].([]any)
		wantStages := []float64{4, 1, 1}
		for i, w := range wantStages {
			if got := stages[i].(map[string]any)["count"].(float64); got != w {
				t.Errorf("funnel stage %v = %v, want %v", stages[i], got, w)
			}
		}
		j := get(t, a, key, "/analytics/journey/summary", 200)
		entry := j["entry_pages"].([]any)
		refs := j["referrers"].([]any)
		utm := j["utm_sources"].([]any)
		if len(entry) != 1 || entry[0].(map[string]any)["url"] != "https://bakery.example/pricing" ||
			len(refs) != 1 || refs[0].(map[string]any)["source"] != "google.com" ||
			len(utm) != 1 || utm[0].(map[string]any)["source"] != "newsletter" {
			t.Errorf("journey: %v", j)
		}
		if num(t, j, "average_pages_before_lead") != 1 {
			t.Errorf("pages before lead: %v", j["average_pages_before_lead"])
		}
		if err := a.Analytics.VerifyQuarters(context.Background()); err != nil {
			t.Error(err)
		}
	})
}

// TestWindowsAndTimeZones: rows written at known instants fall on the day
// of the caller's time zone, across a daylight-saving change; the previous
// window is counted; empty windows are zeros; bad windows are 422.
func TestWindowsAndTimeZones(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		a.Clock.Set(time.Date(2026, 3, 12, 15, 0, 0, 0, time.UTC))
		key, ws := a.Register(t, "owner@tz.example")
		bot, _ := createBot(t, a, key, "TZ")
		// New York went from UTC−5 to UTC−4 at 2026-03-08 07:00 UTC.
		at := []time.Time{
			time.Date(2026, 3, 7, 4, 30, 0, 0, time.UTC),  // NY 03-06 23:30 (EST)
			time.Date(2026, 3, 7, 5, 30, 0, 0, time.UTC),  // NY 03-07 00:30
			time.Date(2026, 3, 8, 4, 59, 0, 0, time.UTC),  // NY 03-07 23:59
			time.Date(2026, 3, 8, 5, 0, 0, 0, time.UTC),   // NY 03-08 00:00
			time.Date(2026, 3, 9, 3, 30, 0, 0, time.UTC),  // NY 03-08 23:30 (EDT)
			time.Date(2026, 3, 9, 4, 30, 0, 0, time.UTC),  // NY 03-09 00:30
			time.Date(2026, 2, 20, 12, 0, 0, 0, time.UTC), // before both windows below
		}
		ctx := context.Background()
		for i, ts := range at {
			var sid int64
			if err := store.Get(ctx, a.DB.Writer(), &sid, `INSERT INTO chat_sessions (public_id, workspace_id, bot_id, messages, visitor_messages,
				created_at, last_message_at) VALUES (?, ?, ?, 1, 1, ?, ?) RETURNING id`, fmt.Sprintf("sess-%d", i), ws, bot, ts, ts); err != nil {
				t.Fatal(err)
			}
			if _, err := store.Exec(ctx, a.DB.Writer(), `INSERT INTO chat_messages (public_id, session_id, workspace_id, bot_id,
				role, text, topic, reply_answered, created_at) VALUES (?, ?, ?, ?, 'user', ?, 'price', ?, ?)`,
				fmt.Sprintf("m-%d", i), sid, ws, bot, "price?", i%2 == 0, ts); err != nil {
				t.Fatal(err)
			}
		}
		// Rows written straight into the tables: their quarters from them.
		if err := a.Analytics.VerifyQuarters(ctx); err == nil {
			t.Fatal("rows written around the writers: VerifyQuarters saw no difference")
		}
		if err := a.Analytics.Rebuild(ctx); err != nil {
			t.Fatal(err)
		}
		if err := a.Analytics.VerifyQuarters(ctx); err != nil {
			t.Fatal(err)
		}
		d := get(t, a, key, "/analytics/dashboard?from=2026-03-06&to=2026-03-09&tz=America/New_York", 200)
		want := map[string]float64{"2026-03-06": 1, "2026-03-07": 2, "2026-03-08": 2, "2026-03-09": 1}
		for _, p := range d["series"].([]any) {
			pt := p.(map[string]any)
			if pt["conversations"].(float64) != want[pt["date"].(string)] {
				t.Errorf("New York %s: %v conversations, want %v", pt["date"], pt["conversations"], want[pt["date"].(string)])
			}
		}
		if num(t, d, "conversations.value") != 6 || num(t, d, "window.days") != 4 || num(t, d, "questions.value") != 6 ||
			num(t, d, "answered.value") != 3 {
			t.Errorf("window totals: %v", d)
		}
		// The questions by topic: whole UTC days from the topic days, the
		// ends of the window from the messages.
		for _, c := range []struct {
			path       string
			count, all float64
		}{
			{"/analytics/top-questions?from=2026-03-06&to=2026-03-09&tz=America/New_York", 6, 6},
			{"/analytics/unanswered-questions?from=2026-03-06&to=2026-03-09&tz=America/New_York", 3, 3},
			{"/analytics/top-questions?from=2026-03-07&to=2026-03-07&tz=America/New_York", 2, 2},
			{"/analytics/top-questions?from=2026-03-07&to=2026-03-08", 4, 4},
			{"/analytics/unanswered-questions?from=2026-03-07&to=2026-03-08&tz=Asia/Kathmandu", 2, 2},
		} {
			q := get(t, a, key, c.path, 200)
			groups := q["groups"].([]any)
			if len(groups) != 1 || groups[0].(map[string]any)["count"].(float64) != c.count || num(t, q, "questions.value") != c.all {
				t.Errorf("%s: %v", c.path, q)
			}
		}
		// In UTC the same rows fall on other days.
		d = get(t, a, key, "/analytics/dashboard?from=2026-03-07&to=2026-03-08", 200)
		wantUTC := map[string]float64{"2026-03-07": 2, "2026-03-08": 2}
		for _, p := range d["series"].([]any) {
			pt := p.(map[string]any)
			if pt["conversations"].(float64) != wantUTC[pt["date"].(string)] {
				t.Errorf("UTC %s: %v, want %v", pt["date"], pt["conversations"], wantUTC[pt["date"].(string)])
			}
		}
		// Previous window of equal length: 02-17 … 02-23 holds the last row.
		d = get(t, a, key, "/analytics/dashboard?from=2026-02-24&to=2026-03-02", 200)
		if num(t, d, "conversations.value") != 0 || num(t, d, "conversations.previous") != 1 {
			t.Errorf("previous window: %v / %v", d["conversations"], d["previous_window"])
		}
		// Empty window: zeros everywhere, no error.
		for _, p := range []string{"dashboard", "qualification-funnel", "top-questions", "unanswered-questions",
			"ratings-summary", "resolution-summary", "journey/summary"} {
			get(t, a, key, "/analytics/"+p+"?from=2025-01-01&to=2025-01-31", 200)
		}
		for _, bad := range []string{"days=0", "days=366", "tz=Mars/Olympus", "from=2026-03-01", "from=2026-13-01&to=2026-12-01",
			"from=2026-03-05&to=2026-03-01", "from=2024-01-01&to=2026-01-01", "days=5&from=2026-03-01&to=2026-03-02", "limit=101"} {
			path := "/analytics/dashboard?" + bad
			if strings.HasPrefix(bad, "limit") {
				path = "/analytics/top-questions?" + bad
			}
			get(t, a, key, path, 422)
		}
	})
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(l[max(0, len(l)-n):], "\n")
}
