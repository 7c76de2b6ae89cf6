package bot_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"concierge/internal/jobs"
	"concierge/internal/store"
	"concierge/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// createBot makes a bot through the API and returns its id and key.
func createBot(t *testing.T, a *testkit.TestApp, key, name string) (int64, string) {
	t.Helper()
	r := a.Do(t, "POST", "/bots", map[string]any{"name": name}, "X-API-Key", key)
	if r.Status != http.StatusCreated {
		t.Fatalf("create bot: %d %s", r.Status, r.Body)
	}
	var b struct {
		BotID  int64  `json:"bot_id"`
		BotKey string `json:"bot_key"`
	}
	r.Decode(t, &b)
	return b.BotID, b.BotKey
}

func TestBotLifecycle(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		key, _ := a.Register(t, "owner@example.com")
		auth := []string{"X-API-Key", key}
		r := a.Do(t, "POST", "/bots", map[string]any{"name": "  Support  ", "greeting": "Hello!", "bot_id": 999,
			"bot_key": "mine", "is_offline": true, "workspace_id": 42}, auth...)
		if r.Status != 201 {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		var b map[string]any
		r.Decode(t, &b)
		id := int64(b["bot_id"].(float64))
		botKey := b["bot_key"].(string)
		if b["name"] != "Support" || b["greeting"] != "Hello!" || id == 999 || botKey == "mine" || b["is_offline"] != false {
			t.Fatalf("created bot: %s", r.Body)
		}
		if len(botKey) < 4 || len(botKey) > 64 || strings.Trim(botKey, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") != "" {
			t.Errorf("bot key %q breaks the 4-64 [A-Za-z0-9_-] rule", botKey)
		}
		path := fmt.Sprintf("/bots/%d", id)
		a.Run(t,
			testkit.Scenario{Name: "list", Method: "GET", Path: "/bots", Headers: auth, Status: 200,
				Check: func(t *testing.T, r *testkit.Response) {
					var list []map[string]any
					r.Decode(t, &list)
					if len(list) != 1 || int64(list[0]["bot_id"].(float64)) != id {
						t.Fatalf("list: %s", r.Body)
					}
				}},
			testkit.Scenario{Name: "me counts the bot", Method: "GET", Path: "/auth/me", Headers: auth, Status: 200,
				Contains: []string{`"bot_count":1`}},
			testkit.Scenario{Name: "partial update merges groups", Method: "PATCH", Path: path, Headers: auth, Status: 200,
				Body: map[string]any{"appearance": map[string]any{"primary_color": "#FF0000"}, "tone": map[string]any{"preset": "friendly"},
					"copy": map[string]any{"title": "Ask us"}, "offline_message": "Back soon", "bot_key": "stolen"},
				Check: func(t *testing.T, r *testkit.Response) {
					var v map[string]any
					r.Decode(t, &v)
					ap := v["appearance"].(map[string]any)
					tone := v["tone"].(map[string]any)
					if ap["primary_color"] != "#FF0000" || ap["position"] != "bottom-right" || tone["preset"] != "friendly" ||
						!strings.Contains(tone["brand_tone"].(string), "warm") || tone["brand_tone_locked"] != true ||
						v["offline_message"] != "Back soon" || v["bot_key"] != botKey || v["greeting"] != "Hello!" {
						t.Errorf("after patch: %s", r.Body)
					}
				}},
			testkit.Scenario{Name: "qualification with weights", Method: "PATCH", Path: path, Headers: auth, Status: 200,
				Body:     map[string]any{"qualification": map[string]any{"framework": "meddic", "weights": map[string]int{"metrics": 30, "champion": 10}}},
				Contains: []string{`"framework":"meddic"`, `"metrics":30`}},
			testkit.Scenario{Name: "a weight of another framework is 422", Method: "PATCH", Path: path, Headers: auth, Status: 422,
				Body:     map[string]any{"qualification": map[string]any{"framework": "bant", "weights": map[string]int{"champion": 10}}},
				Contains: []string{`"loc":["body","qualification","weights","champion"]`}},
			testkit.Scenario{Name: "origins are canonicalised", Method: "PATCH", Path: path, Headers: auth, Status: 200,
				Body:     map[string]any{"allowed_origins": []string{"https://WWW.Example.com/", "https://www.example.com", "http://localhost:3000"}},
				Contains: []string{`"allowed_origins":["https://www.example.com","http://localhost:3000"]`}},
			testkit.Scenario{Name: "a path in an origin is 422", Method: "PATCH", Path: path, Headers: auth, Status: 422,
				Body: map[string]any{"allowed_origins": []string{"https://example.com/page"}}},
			testkit.Scenario{Name: "notification addresses", Method: "PATCH", Path: path, Headers: auth, Status: 200,
				Body:     map[string]any{"notification_email": "Sales@Example.com", "reply_to_email": "hello@example.com"},
				Contains: []string{`"notification_email":"sales@example.com"`, `"reply_to_email":"hello@example.com"`}},
			testkit.Scenario{Name: "null clears an address", Method: "PATCH", Path: path, Headers: auth, Status: 200,
				Body: json.RawMessage(`{"reply_to_email": null}`), Contains: []string{`"reply_to_email":null`, `"notification_email":"sales@example.com"`}},
			testkit.Scenario{Name: "a bad colour is 422", Method: "PATCH", Path: path, Headers: auth, Status: 422,
				Body: map[string]any{"appearance": map[string]any{"primary_color": "red"}}},
			testkit.Scenario{Name: "an http avatar is 422", Method: "PATCH", Path: path, Headers: auth, Status: 422,
				Body: map[string]any{"appearance": map[string]any{"avatar_url": "http://example.com/a.png"}}},
			testkit.Scenario{Name: "an unknown tone preset is 422", Method: "PATCH", Path: path, Headers: auth, Status: 422,
				Body: map[string]any{"tone": map[string]any{"preset": "sarcastic"}}},
			testkit.Scenario{Name: "empty name is 422", Method: "PATCH", Path: path, Headers: auth, Status: 422,
				Body: map[string]any{"name": ""}},
			testkit.Scenario{Name: "missing name on create is 422", Method: "POST", Path: "/bots", Headers: auth, Status: 422,
				Body: map[string]any{"greeting": "x"}},
			testkit.Scenario{Name: "non-numeric id is 422", Method: "GET", Path: "/bots/abc", Headers: auth, Status: 422},
			testkit.Scenario{Name: "missing bot is 404", Method: "GET", Path: "/bots/987654", Headers: auth, Status: 404},
			testkit.Scenario{Name: "framework presets", Method: "GET", Path: path + "/framework-presets", Headers: auth, Status: 200,
				Contains: []string{`"key":"bant"`, `"key":"champ"`, `"key":"meddic"`, `"key":"custom"`, `"default_weight"`, `"current"`}},
			testkit.Scenario{Name: "brand tone presets", Method: "GET", Path: "/bots/brand-tone-presets", Headers: auth, Status: 200,
				Contains: []string{`"key":"professional"`, `"key":"friendly"`}},
			testkit.Scenario{Name: "demo share click", Method: "POST", Path: path + "/demo-share-click", Headers: auth, Status: 200,
				Contains: []string{`"demo_share_clicks":1`}},
			testkit.Scenario{Name: "public settings by bot key", Method: "GET", Path: "/bots/settings/public",
				Headers: []string{"X-Bot-Key", botKey}, Status: 200,
				Contains: []string{`"is_offline":false`, `"greeting":"Hello!"`, `"primary_color":"#FF0000"`},
				Absent:   []string{"sales@example.com", "allowed_origins", "prompt"}},
			testkit.Scenario{Name: "public settings by API key (default bot)", Method: "GET", Path: "/bots/settings/public",
				Headers: auth, Status: 200, Contains: []string{`"bot_key":"` + botKey + `"`}},
			testkit.Scenario{Name: "an unknown bot key is 401", Method: "GET", Path: "/bots/settings/public",
				Headers: []string{"X-Bot-Key", "bk_nope"}, Status: 401},
			testkit.Scenario{Name: "a bot key is not a workspace key", Method: "GET", Path: path,
				Headers: []string{"X-Bot-Key", botKey}, Status: 401},
			testkit.Scenario{Name: "recrawl status", Method: "GET", Path: path + "/recrawl", Headers: auth, Status: 200,
				Contains: []string{`"enabled":false`}},
			testkit.Scenario{Name: "enable recrawl on the trial", Method: "PATCH", Path: path + "/recrawl", Headers: auth, Status: 200,
				Body: map[string]any{"enabled": true}, Contains: []string{`"enabled":true`, `"next_run_at":"`}},
			testkit.Scenario{Name: "delete", Method: "DELETE", Path: path, Headers: auth, Status: 200, Contains: []string{`"deleted":true`}},
			testkit.Scenario{Name: "gone", Method: "GET", Path: path, Headers: auth, Status: 404},
			testkit.Scenario{Name: "its key is dead", Method: "GET", Path: "/bots/settings/public", Headers: []string{"X-Bot-Key", botKey}, Status: 401},
			testkit.Scenario{Name: "delete again", Method: "DELETE", Path: path, Headers: auth, Status: 404},
		)
	})
}

func TestPlanGatesOnBots(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		key, wsID := a.Register(t, "gates@example.com")
		auth := []string{"X-API-Key", key}
		ent := a.Do(t, "GET", "/auth/me/entitlements", nil, auth...).JSON(t)
		max := int(ent["limits"].(map[string]any)["chatbots"].(float64))
		var id int64
		for i := 0; i < max; i++ {
			id, _ = createBot(t, a, key, fmt.Sprintf("bot %d", i))
		}
		r := a.Do(t, "POST", "/bots", map[string]any{"name": "one too many"}, auth...)
		if r.Status != 403 || !strings.Contains(string(r.Body), `"error":"plan_limit_reached"`) || !strings.Contains(string(r.Body), `"limit":"chatbots"`) {
			t.Fatalf("over the allowance: %d %s", r.Status, r.Body)
		}
		// The trial ends with no subscription: not serving.
		a.Clock.Advance(15 * 24 * time.Hour)
		r = a.Do(t, "POST", "/bots", map[string]any{"name": "late"}, auth...)
		if r.Status != 403 || !strings.Contains(string(r.Body), `"error":"subscription_required"`) {
			t.Fatalf("after the trial: %d %s", r.Status, r.Body)
		}
		path := fmt.Sprintf("/bots/%d", id)
		a.Run(t,
			testkit.Scenario{Name: "bots are offline", Method: "GET", Path: path, Headers: auth, Status: 200, Contains: []string{`"is_offline":true`}},
			testkit.Scenario{Name: "visitors get only the offline message", Method: "GET", Path: "/bots/settings/public", Headers: auth,
				Status: 200, Contains: []string{`"is_offline":true`, `"offline_message"`}, Absent: []string{`"greeting"`, `"copy"`}},
			testkit.Scenario{Name: "disabling recrawl always works", Method: "PATCH", Path: path + "/recrawl", Headers: auth,
				Body: map[string]any{"enabled": false}, Status: 200},
		)
		if err := a.Billing.SetPlan(context.Background(), wsID, "free"); err != nil {
			t.Fatal(err)
		}
		a.Run(t,
			testkit.Scenario{Name: "free plan serves again", Method: "GET", Path: path, Headers: auth, Status: 200, Contains: []string{`"is_offline":false`}},
			testkit.Scenario{Name: "recrawl needs the feature", Method: "PATCH", Path: path + "/recrawl", Headers: auth,
				Body: map[string]any{"enabled": true}, Status: 403,
				Contains: []string{`"error":"feature_not_available"`, `"feature":"auto_recrawl"`}},
			testkit.Scenario{Name: "disabling still works", Method: "PATCH", Path: path + "/recrawl", Headers: auth,
				Body: map[string]any{"enabled": false}, Status: 200},
			testkit.Scenario{Name: "hiding branding needs the feature", Method: "PATCH", Path: path, Headers: auth,
				Body: map[string]any{"appearance": map[string]any{"show_branding": false}}, Status: 403,
				Contains: []string{`"feature":"custom_branding"`}},
		)
	})
}

// TestDeleteLeavesNothingBehind: every table with a bot_id column holds no
// row of a deleted bot; another workspace's data is untouched.
func TestDeleteLeavesNothingBehind(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e, testkit.WithEnv("CONCIERGE_OUTBOUND_ALLOW", "127.0.0.1/32"))
		key, wsID := a.Register(t, "cascade@example.com")
		other, _ := a.Register(t, "bystander@example.com")
		id, _ := createBot(t, a, key, "doomed")
		keep, _ := createBot(t, a, other, "kept")
		ctx := context.Background()
		// A webhook endpoint with a message and its attempt (they refer to
		// the endpoint, not the bot), first: the bot's events are recorded
		// only while an endpoint listens.
		hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(500) }))
		defer hook.Close()
		wh := a.Do(t, "POST", "/webhooks", map[string]any{"bot_id": id, "url": hook.URL, "events": []string{"lead.captured"}},
			"X-API-Key", key)
		if wh.Status != 201 {
			t.Fatalf("webhook: %d %s", wh.Status, wh.Body)
		}
		if r := a.Do(t, "POST", "/webhooks/"+wh.JSON(t)["webhook_id"].(string)+"/test", nil, "X-API-Key", key); r.Status != 200 {
			t.Fatalf("webhook test: %d %s", r.Status, r.Body)
		}
		for i := 0; i < 3; i++ {
			if _, err := a.Queue.Enqueue(ctx, jobs.NewJob{Kind: "test.noop", WorkspaceID: wsID, BotID: id}); err != nil {
				t.Fatal(err)
			}
		}
		a.Do(t, "POST", "/operators", map[string]any{"email": "op@example.com", "password": "operator pass", "bot_id": id}, "X-API-Key", key)
		a.Do(t, "POST", fmt.Sprintf("/bots/%d/demo-share-click", id), nil, "X-API-Key", key)
		// Knowledge and a conversation (spec 3: documents, sessions, messages).
		up := a.Upload(t, "/ingest", key, id, testkit.File{Name: "faq.txt", Data: []byte("Orders ship from Pune within two days.")})
		if up.Status != 202 {
			t.Fatalf("ingest: %d %s", up.Status, up.Body)
		}
		deadline := time.Now().Add(30 * time.Second)
		for a.Do(t, "GET", "/ingest/status/"+up.JSON(t)["job_id"].(string), nil, "X-API-Key", key).JSON(t)["status"] != "completed" {
			if time.Now().After(deadline) {
				t.Fatal("ingestion did not complete")
			}
			time.Sleep(20 * time.Millisecond)
		}
		if r := a.Do(t, "POST", fmt.Sprintf("/chat?preview=true&bot_id=%d", id), map[string]any{"message": "Where do orders ship from?"},
			"X-API-Key", key); r.Status != 200 {
			t.Fatalf("chat: %d %s", r.Status, r.Body)
		}
		bk := a.Do(t, "GET", fmt.Sprintf("/bots/%d", id), nil, "X-API-Key", key).JSON(t)["bot_key"].(string)
		lead := a.Do(t, "POST", "/chat/lead-capture", map[string]any{"name": "Lead", "email": "lead@buyer.io"}, "X-Bot-Key", bk)
		if lead.Status != 200 {
			t.Fatalf("lead: %d %s", lead.Status, lead.Body)
		}
		if r := a.Do(t, "POST", "/leads/"+lead.JSON(t)["session_id"].(string)+"/follow-up",
			map[string]any{"subject": "Hello", "body": "Thanks for visiting."}, "X-API-Key", key); r.Status != 202 {
			t.Fatalf("follow-up: %d %s", r.Status, r.Body)
		}
		webhookRows := func() (n int) {
			if err := store.Get(ctx, a.DB.Reader(), &n, `SELECT (SELECT COUNT(*) FROM webhook_messages m JOIN webhooks w ON w.id = m.webhook_id
				WHERE w.bot_id = ?) + (SELECT COUNT(*) FROM webhook_attempts a JOIN webhooks w ON w.id = a.webhook_id WHERE w.bot_id = ?)
				+ (SELECT COUNT(*) FROM webhook_messages WHERE webhook_id NOT IN (SELECT id FROM webhooks))
				+ (SELECT COUNT(*) FROM webhook_attempts WHERE webhook_id NOT IN (SELECT id FROM webhooks))`, id, id); err != nil {
				t.Fatal(err)
			}
			return n
		}
		if n := webhookRows(); n < 2 { // the test message and its attempt, and perhaps lead.captured's
			t.Fatalf("webhook message and attempt: %d rows", n)
		}
		before := testkit.RowsReferencing(t, a.DB, "bot_id", id)
		if before["jobs"] < 3 || before["operators"] != 1 || before["events"] == 0 || before["documents"] != 1 ||
			before["passages"] == 0 || before["chat_sessions"] != 2 || before["chat_messages"] != 2 || before["ingestions"] != 1 ||
			before["leads"] != 1 || before["lead_follow_ups"] != 1 || before["lead_tier_changes"] != 1 {
			t.Fatalf("setup did not create the dependants: %v", before)
		}
		otherBefore := testkit.RowsReferencing(t, a.DB, "bot_id", keep)
		if r := a.Do(t, "DELETE", fmt.Sprintf("/bots/%d", id), nil, "X-API-Key", key); r.Status != 200 {
			t.Fatalf("delete: %d %s", r.Status, r.Body)
		}
		if left := testkit.RowsReferencing(t, a.DB, "bot_id", id); len(left) != 0 {
			t.Fatalf("rows left behind: %v", left)
		}
		if n := webhookRows(); n != 0 {
			t.Fatalf("webhook messages and attempts left behind: %d", n)
		}
		if after := testkit.RowsReferencing(t, a.DB, "bot_id", keep); fmt.Sprint(after) != fmt.Sprint(otherBefore) {
			t.Fatalf("another workspace changed: %v → %v", otherBefore, after)
		}
		var n int
		if err := store.Get(ctx, a.DB.Reader(), &n, `SELECT COUNT(*) FROM bots WHERE id = ?`, keep); err != nil || n != 1 {
			t.Fatalf("the other bot: %d %v", n, err)
		}
	})
}

// Every settings group takes any subset of its fields (RFC 7396).
func TestSettingsGroupsTakeAnySubset(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		key, _ := a.Register(t, "owner@example.com")
		id, _ := createBot(t, a, key, "Support")
		auth := []string{"X-API-Key", key}
		path := fmt.Sprintf("/bots/%d", id)
		lc := func(r *testkit.Response) map[string]any { return r.JSON(t)["live_chat"].(map[string]any) }
		a.Run(t,
			testkit.Scenario{Name: "enabled alone", Method: "PATCH", Path: path, Headers: auth, Status: 200,
				Body: map[string]any{"live_chat": map[string]any{"enabled": true}},
				Check: func(t *testing.T, r *testkit.Response) {
					if l := lc(r); l["enabled"] != true || l["offer_contact_form"] != false || l["handoff_timeout_seconds"] != 120.0 {
						t.Errorf("live_chat: %v", l)
					}
				}},
			testkit.Scenario{Name: "timeout alone keeps enabled", Method: "PATCH", Path: path, Headers: auth, Status: 200,
				Body: map[string]any{"live_chat": map[string]any{"handoff_timeout_seconds": 300, "offer_contact_form": true}},
				Check: func(t *testing.T, r *testkit.Response) {
					if l := lc(r); l["enabled"] != true || l["offer_contact_form"] != true || l["handoff_timeout_seconds"] != 300.0 {
						t.Errorf("live_chat: %v", l)
					}
				}},
			testkit.Scenario{Name: "timeout too short", Method: "PATCH", Path: path, Headers: auth, Status: 422,
				Body: map[string]any{"live_chat": map[string]any{"handoff_timeout_seconds": 5}}, Contains: []string{"handoff_timeout_seconds"}},
			testkit.Scenario{Name: "one threshold", Method: "PATCH", Path: path, Headers: auth, Status: 200,
				Body: map[string]any{"qualification": map[string]any{"thresholds": map[string]any{"sql": 80}}},
				Check: func(t *testing.T, r *testkit.Response) {
					q := r.JSON(t)["qualification"].(map[string]any)
					if th := q["thresholds"].(map[string]any); th["sql"] != 80.0 || q["framework"] != "bant" {
						t.Errorf("qualification: %v", q)
					}
				}},
			testkit.Scenario{Name: "weights alone", Method: "PATCH", Path: path, Headers: auth, Status: 200,
				Body: map[string]any{"qualification": map[string]any{"weights": map[string]any{"budget": 10}}}},
		)
	})
}

// TestConcurrentKeyLookupsGetTheirOwnBot: widget requests for many bots at
// once share their reads of bots by key (coalesce.Lookup); each still gets
// its own bot, an unknown key 401, and a change committed before a request
// (a greeting saved, a bot deleted) is seen by it.
func TestConcurrentKeyLookupsGetTheirOwnBot(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		names := map[string]string{} // bot key -> name
		type owned struct {
			id   int64
			auth string
		}
		owners := map[string]owned{} // bot key -> its id and its workspace's key
		for w := range 2 {
			key, _ := a.Register(t, fmt.Sprintf("owner%d@example.com", w))
			for b := range 2 {
				name := fmt.Sprintf("Bot %d-%d", w, b)
				id, bk := createBot(t, a, key, name)
				names[bk] = name
				owners[bk] = owned{id, key}
			}
		}
		var keys []string
		for k := range names {
			keys = append(keys, k)
		}
		keys = append(keys, "bk_unknown_key")
		get := func(k string) (int, string, error) {
			req, err := http.NewRequest("GET", a.URL+"/bots/settings/public", nil)
			if err != nil {
				return 0, "", err
			}
			req.Header.Set("X-Bot-Key", k)
			res, err := a.Client.Do(req)
			if err != nil {
				return 0, "", err
			}
			defer res.Body.Close()
			var v struct {
				Name     string `json:"name"`
				BotKey   string `json:"bot_key"`
				Greeting string `json:"greeting"`
			}
			if res.StatusCode == 200 {
				if err := json.NewDecoder(res.Body).Decode(&v); err != nil {
					return 0, "", err
				}
				if v.BotKey != k {
					return 0, "", fmt.Errorf("asked for %s, got the settings of %s", k, v.BotKey)
				}
			}
			return res.StatusCode, v.Name + "|" + v.Greeting, nil
		}
		errs := make(chan error, 400)
		var wg sync.WaitGroup
		for g := range 40 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 10 {
					k := keys[(g+i)%len(keys)]
					status, got, err := get(k)
					switch {
					case err != nil:
						errs <- err
					case k == "bk_unknown_key" && status != 401:
						errs <- fmt.Errorf("unknown key: %d", status)
					case k != "bk_unknown_key" && (status != 200 || !strings.HasPrefix(got, names[k]+"|")):
						errs <- fmt.Errorf("%s: %d %q, want %q", k, status, got, names[k])
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		// Changes committed before a request are seen by it.
		bk := keys[0]
		id, auth := owners[bk].id, owners[bk].auth
		if r := a.Do(t, "PATCH", fmt.Sprintf("/bots/%d", id), map[string]any{"greeting": "Changed just now"}, "X-API-Key", auth); r.Status != 200 {
			t.Fatalf("patch: %d %s", r.Status, r.Body)
		}
		if status, got, err := get(bk); err != nil || status != 200 || !strings.HasSuffix(got, "|Changed just now") {
			t.Errorf("after the change: %d %q %v", status, got, err)
		}
		if r := a.Do(t, "DELETE", fmt.Sprintf("/bots/%d", id), nil, "X-API-Key", auth); r.Status != 200 {
			t.Fatalf("delete: %d %s", r.Status, r.Body)
		}
		if status, _, err := get(bk); err != nil || status != 401 {
			t.Errorf("deleted bot's key: %d %v", status, err)
		}
	})
}
