package bot_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"concierge/internal/impersonation"
	"concierge/internal/store"
	"concierge/internal/testkit"
)

// TestAuthorizationMatrix: every bot-scoped endpoint called on a victim's
// bot with another workspace's key, an operator key bound to another bot,
// and a bot key is refused as the spec says, and the database is
// byte-for-byte the same afterwards.
func TestAuthorizationMatrix(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		victimKey, _ := a.Register(t, "victim@example.com")
		victimBot, victimBotKey := createBot(t, a, victimKey, "victim bot")
		a.Do(t, "PATCH", fmt.Sprintf("/bots/%d", victimBot), map[string]any{"greeting": "CANARY-greeting-7731"}, "X-API-Key", victimKey)
		attackerKey, _ := a.Register(t, "attacker@example.com")
		attackerBot, attackerBotKey := createBot(t, a, attackerKey, "attacker bot")
		r := a.Do(t, "POST", "/operators", map[string]any{"email": "attacker-op@example.com", "password": "operator pass",
			"bot_id": attackerBot}, "X-API-Key", attackerKey)
		if r.Status != 201 {
			t.Fatalf("operator: %d %s", r.Status, r.Body)
		}
		opKey := r.JSON(t)["operator_key"].(string)
		// An operator of the victim's own workspace, bound to another of its bots.
		victimBot2, _ := createBot(t, a, victimKey, "victim bot 2")
		r = a.Do(t, "POST", "/operators", map[string]any{"email": "victim-op@example.com", "password": "operator pass",
			"bot_id": victimBot2}, "X-API-Key", victimKey)
		sameWorkspaceOpKey := r.JSON(t)["operator_key"].(string)

		id := fmt.Sprint(victimBot)
		calls := []struct{ method, path string }{
			{"GET", "/bots/" + id}, {"PATCH", "/bots/" + id}, {"DELETE", "/bots/" + id},
			{"GET", "/bots/" + id + "/framework-presets"}, {"POST", "/bots/" + id + "/demo-share-click"},
			{"GET", "/bots/" + id + "/recrawl"}, {"PATCH", "/bots/" + id + "/recrawl"},
		}
		creds := []struct {
			name    string
			headers []string
			want    int
		}{
			{"another workspace's key", []string{"X-API-Key", attackerKey}, 403},
			{"an operator of another workspace", []string{"X-Operator-Key", opKey}, 401},
			{"an operator of another bot in the same workspace", []string{"X-Operator-Key", sameWorkspaceOpKey}, 401},
			{"the victim's bot key", []string{"X-Bot-Key", victimBotKey}, 401},
			{"another bot's key", []string{"X-Bot-Key", attackerBotKey}, 401},
			{"no credential", nil, 401},
		}
		body := map[string]any{"name": "pwned", "greeting": "pwned", "enabled": true, "allowed_origins": []string{"https://evil.example"}}
		a.Settle(t) // the sign-ups' mail jobs finish before the snapshot
		before := testkit.Dump(t, a.DB)
		for _, c := range calls {
			for _, cr := range creds {
				r := a.Do(t, c.method, c.path, body, cr.headers...)
				if r.Status != cr.want {
					t.Errorf("%s %s with %s: %d, want %d (%s)", c.method, c.path, cr.name, r.Status, cr.want, r.Body)
				}
				if strings.Contains(string(r.Body), "CANARY") {
					t.Errorf("%s %s with %s leaks victim data: %s", c.method, c.path, cr.name, r.Body)
				}
			}
		}
		// Lists never show another workspace's bot.
		for _, h := range [][]string{{"X-API-Key", attackerKey}, {"X-Operator-Key", opKey}} {
			if r := a.Do(t, "GET", "/bots", nil, h...); strings.Contains(string(r.Body), "CANARY") || strings.Contains(string(r.Body), "victim bot") {
				t.Errorf("GET /bots with %s shows the victim's bot: %s", h[0], r.Body)
			}
		}
		// X-Workspace-Id of a workspace where the caller is not an operator.
		var victimWS int64
		_ = store.Get(context.Background(), a.DB.Reader(), &victimWS, `SELECT id FROM workspaces WHERE email = 'victim@example.com'`)
		if r := a.Do(t, "GET", "/bots", nil, "X-API-Key", attackerKey, "X-Workspace-Id", fmt.Sprint(victimWS)); r.Status != 403 {
			t.Errorf("X-Workspace-Id of an unlinked workspace: %d %s", r.Status, r.Body)
		}
		// Operator creation against another workspace's bot.
		if r := a.Do(t, "POST", "/operators", map[string]any{"email": "sneaky@example.com", "password": "operator pass",
			"bot_id": victimBot}, "X-API-Key", attackerKey); r.Status != 403 {
			t.Errorf("operator on another workspace's bot: %d %s", r.Status, r.Body)
		}
		if after := testkit.Dump(t, a.DB); after != before {
			t.Errorf("the database changed during refused calls:\n%s", testkit.DumpDiff(before, after))
		}
	})
}

func TestListScopes(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		ownerKey, ownerWS := a.Register(t, "owner@example.com")
		b1, _ := createBot(t, a, ownerKey, "one")
		b2, _ := createBot(t, a, ownerKey, "two")
		helperKey, _ := a.Register(t, "helper@example.com")
		helperBot, _ := createBot(t, a, helperKey, "helper's own")

		ids := func(r *testkit.Response) string {
			var list []struct {
				BotID int64 `json:"bot_id"`
			}
			r.Decode(t, &list)
			var s []string
			for _, b := range list {
				s = append(s, fmt.Sprint(b.BotID))
			}
			return strings.Join(s, ",")
		}
		all := fmt.Sprintf("%d,%d", b1, b2)
		if got := ids(a.Do(t, "GET", "/bots", nil, "X-API-Key", ownerKey)); got != all {
			t.Errorf("owner sees %s, want %s", got, all)
		}
		// X-Acting-Role operator without a self-operator: everything.
		if got := ids(a.Do(t, "GET", "/bots", nil, "X-API-Key", ownerKey, "X-Acting-Role", "operator")); got != all {
			t.Errorf("acting as operator without a self-operator: %s, want %s", got, all)
		}
		// The owner makes themselves operator of bot two.
		a.Do(t, "POST", "/operators", map[string]any{"email": "owner@example.com", "password": "operator pass", "bot_id": b2}, "X-API-Key", ownerKey)
		if got := ids(a.Do(t, "GET", "/bots", nil, "X-API-Key", ownerKey, "X-Acting-Role", "operator")); got != fmt.Sprint(b2) {
			t.Errorf("acting as operator: %s, want %d", got, b2)
		}
		// helper@ (a workspace owner elsewhere, address verified) becomes
		// operator of bot one. The answer does not tell the owner that the
		// address is an owner's: it is linked when the operator signs in.
		a.Do(t, "POST", "/auth/verify-email", map[string]any{"email": "helper@example.com", "code": a.Mailbox.Code(t, "helper@example.com", 1)})
		r := a.Do(t, "POST", "/operators", map[string]any{"email": "helper@example.com", "password": "operator pass", "bot_id": b1}, "X-API-Key", ownerKey)
		if r.Status != 201 || r.JSON(t)["linked"] != false {
			t.Fatalf("operator with an owner's address: %d %s", r.Status, r.Body)
		}
		opKey := r.JSON(t)["operator_key"].(string)
		if r := a.Do(t, "GET", "/bots", nil, "X-API-Key", helperKey, "X-Workspace-Id", fmt.Sprint(ownerWS)); r.Status != 403 {
			t.Errorf("X-Workspace-Id before the operator signed in: %d %s", r.Status, r.Body)
		}
		if r := a.Do(t, "POST", "/auth/operator-login", map[string]any{"email": "helper@example.com", "password": "operator pass"}); r.Status != 200 {
			t.Fatalf("operator sign-in: %d %s", r.Status, r.Body)
		}
		if got := ids(a.Do(t, "GET", "/bots", nil, "X-API-Key", helperKey, "X-Workspace-Id", fmt.Sprint(ownerWS))); got != fmt.Sprint(b1) {
			t.Errorf("linked operator with X-Workspace-Id: %s, want %d", got, b1)
		}
		if got := ids(a.Do(t, "GET", "/bots", nil, "X-API-Key", helperKey)); got != fmt.Sprint(helperBot) {
			t.Errorf("the helper in their own workspace: %s", got)
		}
		if got := ids(a.Do(t, "GET", "/bots", nil, "X-Operator-Key", opKey)); got != fmt.Sprint(b1) {
			t.Errorf("operator key: %s, want %d", got, b1)
		}
		a.Run(t,
			testkit.Scenario{Name: "operator me", Method: "GET", Path: "/auth/me", Headers: []string{"X-Operator-Key", opKey}, Status: 200,
				Contains: []string{`"role":"operator"`, `"bot_count":2`, fmt.Sprintf(`"bot_id":%d`, b1), `"email":"helper@example.com"`}},
			testkit.Scenario{Name: "bad acting role", Method: "GET", Path: "/bots", Headers: []string{"X-API-Key", ownerKey, "X-Acting-Role", "admin"}, Status: 422},
			testkit.Scenario{Name: "operator key on a workspace-only route", Method: "GET", Path: "/client/api-key",
				Headers: []string{"X-Operator-Key", opKey}, Status: 401},
		)
	})
}

func TestImpersonation(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		key, _ := a.Register(t, "imp@example.com")
		id, _ := createBot(t, a, key, "bot")
		other, _ := a.Register(t, "someone@example.com")
		imp := impersonation.NewService(a.DB, a.Clock)
		ctx := context.Background()
		token, _, err := imp.Issue(ctx, "imp@example.com", "support@concierge", "ticket 42", 30*time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		path := fmt.Sprintf("/bots/%d", id)
		h := []string{"X-API-Key", key, "X-Impersonation-Token", token}
		a.Run(t,
			testkit.Scenario{Name: "ordinary fields are writable", Method: "PATCH", Path: path, Headers: h, Status: 200,
				Body: map[string]any{"greeting": "set by support"}, Contains: []string{"set by support"}},
			testkit.Scenario{Name: "the allowlist is not", Method: "PATCH", Path: path, Headers: h, Status: 403,
				Body: map[string]any{"allowed_origins": []string{"https://example.com"}}, Contains: []string{"allowed_origins"}},
			testkit.Scenario{Name: "nor the notification address", Method: "PATCH", Path: path, Headers: h, Status: 403,
				Body: map[string]any{"notification_email": "x@example.com", "greeting": "ignored"}},
			testkit.Scenario{Name: "nor reply-to", Method: "PATCH", Path: path, Headers: h, Status: 403,
				Body: map[string]any{"reply_to_email": "x@example.com"}},
			testkit.Scenario{Name: "the token is refused elsewhere", Method: "GET", Path: path, Headers: h, Status: 401},
			testkit.Scenario{Name: "and on lists", Method: "GET", Path: "/bots", Headers: h, Status: 401},
			testkit.Scenario{Name: "a token for another workspace", Method: "PATCH", Path: path,
				Headers: []string{"X-API-Key", other, "X-Impersonation-Token", token}, Status: 401},
			testkit.Scenario{Name: "a bogus token", Method: "PATCH", Path: path,
				Headers: []string{"X-API-Key", key, "X-Impersonation-Token", "cnc_imp_bogus"}, Status: 401},
			testkit.Scenario{Name: "without a token the owner may", Method: "PATCH", Path: path, Headers: []string{"X-API-Key", key},
				Status: 200, Body: map[string]any{"allowed_origins": []string{"https://example.com"}}},
		)
		var audited int
		_ = store.Get(ctx, a.DB.Reader(), &audited, `SELECT COUNT(*) FROM impersonation_audit`)
		if audited < 4 {
			t.Errorf("%d audited uses, want every accepted one", audited)
		}
		if err := imp.SetKillSwitch(ctx, true); err != nil {
			t.Fatal(err)
		}
		if r := a.Do(t, "PATCH", path, map[string]any{"greeting": "x"}, h...); r.Status != 401 {
			t.Errorf("after the kill switch: %d", r.Status)
		}
		_ = imp.SetKillSwitch(ctx, false)
		if r := a.Do(t, "PATCH", path, map[string]any{"greeting": "y"}, h...); r.Status != 200 {
			t.Errorf("after the kill switch is lifted: %d", r.Status)
		}
		a.Clock.Advance(31 * time.Minute)
		if r := a.Do(t, "PATCH", path, map[string]any{"greeting": "z"}, h...); r.Status != 401 {
			t.Errorf("expired session: %d", r.Status)
		}
	})
}
