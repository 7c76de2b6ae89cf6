package operator_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"concierge/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func TestOperatorAccounts(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		key, wsID := a.Register(t, "owner@example.com")
		auth := []string{"X-API-Key", key}
		bot := func(name string) int64 {
			r := a.Do(t, "POST", "/bots", map[string]any{"name": name}, auth...)
			return int64(r.JSON(t)["bot_id"].(float64))
		}
		b1, b2 := bot("one"), bot("two")
		r := a.Do(t, "POST", "/operators", map[string]any{"email": "Agent@Example.com", "password": "agent password",
			"name": "Agent", "bot_id": b1}, auth...)
		if r.Status != 201 {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		created := r.JSON(t)
		opKey := created["operator_key"].(string)
		opID := int64(created["operator_id"].(float64))
		if !strings.HasPrefix(opKey, "cnc_op_") || created["email"] != "agent@example.com" || created["linked"] != false {
			t.Fatalf("created: %s", r.Body)
		}
		path := fmt.Sprintf("/operators/%d", opID)
		opAuth := []string{"X-Operator-Key", opKey}
		a.Run(t,
			testkit.Scenario{Name: "list", Method: "GET", Path: "/operators", Headers: auth, Status: 200,
				Contains: []string{`"total":1`, `"email":"agent@example.com"`}, Absent: []string{"password", "cnc_op_"}},
			testkit.Scenario{Name: "get", Method: "GET", Path: path, Headers: auth, Status: 200, Absent: []string{"password_hash"}},
			testkit.Scenario{Name: "duplicate e-mail", Method: "POST", Path: "/operators", Headers: auth, Status: 409,
				Body: map[string]any{"email": "agent@example.com", "password": "agent password", "bot_id": b2}},
			testkit.Scenario{Name: "unknown bot", Method: "POST", Path: "/operators", Headers: auth, Status: 422,
				Body: map[string]any{"email": "x@example.com", "password": "agent password", "bot_id": 99999}},
			testkit.Scenario{Name: "short password", Method: "POST", Path: "/operators", Headers: auth, Status: 422,
				Body: map[string]any{"email": "y@example.com", "password": "short", "bot_id": b1}},
			testkit.Scenario{Name: "operator sign-in", Method: "POST", Path: "/auth/operator-login", Status: 200,
				Body: map[string]any{"email": "agent@example.com", "password": "agent password"}, Contains: []string{opKey}},
			testkit.Scenario{Name: "wrong password", Method: "POST", Path: "/auth/operator-login", Status: 401,
				Body: map[string]any{"email": "agent@example.com", "password": "nope nope nope"}},
			testkit.Scenario{Name: "a workspace key is not an operator sign-in", Method: "POST", Path: "/auth/login", Status: 401,
				Body: map[string]any{"email": "agent@example.com", "password": "agent password"}},
			testkit.Scenario{Name: "operator me", Method: "GET", Path: "/auth/me", Headers: opAuth, Status: 200,
				Contains: []string{`"role":"operator"`, `"bot_count":2`, fmt.Sprintf(`"bot_id":%d`, b1), fmt.Sprintf(`"id":%d`, wsID)}},
			testkit.Scenario{Name: "operator sees only its bot", Method: "GET", Path: "/bots", Headers: opAuth, Status: 200,
				Contains: []string{fmt.Sprintf(`"bot_id":%d`, b1)}, Absent: []string{fmt.Sprintf(`"bot_id":%d`, b2)}},
			testkit.Scenario{Name: "operator cannot manage operators", Method: "GET", Path: "/operators", Headers: opAuth, Status: 401},
			testkit.Scenario{Name: "change password: wrong current", Method: "POST", Path: "/auth/operator-change-password", Headers: opAuth,
				Body: map[string]any{"current_password": "wrong password", "new_password": "brand new pass"}, Status: 422},
			testkit.Scenario{Name: "change password", Method: "POST", Path: "/auth/operator-change-password", Headers: opAuth,
				Body: map[string]any{"current_password": "agent password", "new_password": "brand new pass"}, Status: 200},
			testkit.Scenario{Name: "change password needs an operator key", Method: "POST", Path: "/auth/operator-change-password",
				Headers: auth, Body: map[string]any{"current_password": "x", "new_password": "brand new pass"}, Status: 401},
			testkit.Scenario{Name: "new password signs in", Method: "POST", Path: "/auth/operator-login", Status: 200,
				Body: map[string]any{"email": "agent@example.com", "password": "brand new pass"}, Contains: []string{opKey}},
			testkit.Scenario{Name: "move to bot two", Method: "PATCH", Path: path, Headers: auth, Status: 200,
				Body: map[string]any{"bot_id": b2, "name": "Renamed"}, Contains: []string{fmt.Sprintf(`"bot_id":%d`, b2), `"name":"Renamed"`}},
			testkit.Scenario{Name: "now it sees bot two", Method: "GET", Path: "/bots", Headers: opAuth, Status: 200,
				Contains: []string{fmt.Sprintf(`"bot_id":%d`, b2)}},
			testkit.Scenario{Name: "delete", Method: "DELETE", Path: path, Headers: auth, Status: 200},
			testkit.Scenario{Name: "its key is dead", Method: "GET", Path: "/auth/me", Headers: opAuth, Status: 401},
			testkit.Scenario{Name: "gone", Method: "GET", Path: path, Headers: auth, Status: 404},
		)
		// Another workspace cannot see or touch this workspace's operators.
		other, _ := a.Register(t, "other@example.com")
		r = a.Do(t, "POST", "/operators", map[string]any{"email": "agent2@example.com", "password": "agent password", "bot_id": b1}, auth...)
		id2 := int64(r.JSON(t)["operator_id"].(float64))
		for _, m := range []string{"GET", "PATCH", "DELETE"} {
			if r := a.Do(t, m, fmt.Sprintf("/operators/%d", id2), map[string]any{"name": "x"}, "X-API-Key", other); r.Status != 404 {
				t.Errorf("%s another workspace's operator: %d", m, r.Status)
			}
		}
		if r := a.Do(t, "PATCH", fmt.Sprintf("/operators/%d", id2), map[string]any{"bot_id": 424242}, auth...); r.Status != 422 {
			t.Errorf("moving to a missing bot: %d", r.Status)
		}
	})
}

func TestOperatorAllowance(t *testing.T) {
	a := testkit.NewApp(t, testkit.SQLite)
	key, wsID := a.Register(t, "small@example.com")
	if err := a.Billing.SetPlan(context.Background(), wsID, "starter"); err != nil {
		t.Fatal(err)
	}
	r := a.Do(t, "POST", "/bots", map[string]any{"name": "only"}, "X-API-Key", key)
	bot := int64(r.JSON(t)["bot_id"].(float64))
	ent := a.Do(t, "GET", "/auth/me/entitlements", nil, "X-API-Key", key).JSON(t)
	max := int(ent["limits"].(map[string]any)["operators"].(float64))
	for i := 0; i < max; i++ {
		if r := a.Do(t, "POST", "/operators", map[string]any{"email": fmt.Sprintf("op%d@example.com", i), "password": "agent password",
			"bot_id": bot}, "X-API-Key", key); r.Status != 201 {
			t.Fatalf("operator %d: %d %s", i, r.Status, r.Body)
		}
	}
	r = a.Do(t, "POST", "/operators", map[string]any{"email": "extra@example.com", "password": "agent password", "bot_id": bot}, "X-API-Key", key)
	if r.Status != 403 || !strings.Contains(string(r.Body), `"limit":"operators"`) {
		t.Fatalf("over the allowance: %d %s", r.Status, r.Body)
	}
}

// TestCreateRevealsNothingAboutTheAddress: a workspace creating an operator
// gets the same answer whether the address is new, an operator of another
// workspace or an owner of another workspace; nothing is linked until the
// operator signs in, and sign-in tells same-address operators apart by
// their passwords.
func TestCreateRevealsNothingAboutTheAddress(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		newBot := func(key string) int64 {
			return int64(a.Do(t, "POST", "/bots", map[string]any{"name": "b"}, "X-API-Key", key).JSON(t)["bot_id"].(float64))
		}
		otherKey, _ := a.Register(t, "other-owner@example.com")
		a.Do(t, "POST", "/auth/verify-email", map[string]any{"email": "other-owner@example.com", "code": a.Mailbox.Code(t, "other-owner@example.com", 1)})
		if r := a.Do(t, "POST", "/operators", map[string]any{"email": "shared@example.com", "password": "password of B",
			"bot_id": newBot(otherKey)}, "X-API-Key", otherKey); r.Status != 201 {
			t.Fatalf("operator elsewhere: %d %s", r.Status, r.Body)
		}
		key, _ := a.Register(t, "prober@example.com")
		bot := newBot(key)
		shape := func(r *testkit.Response) string {
			m := r.JSON(t)
			return fmt.Sprintf("%d linked=%v keys=%d", r.Status, m["linked"], len(m))
		}
		var answers []string
		for _, email := range []string{"fresh@example.com", "shared@example.com", "other-owner@example.com"} {
			r := a.Do(t, "POST", "/operators", map[string]any{"email": email, "password": "password of A", "bot_id": bot}, "X-API-Key", key)
			answers = append(answers, shape(r))
		}
		if answers[0] != answers[1] || answers[0] != answers[2] || !strings.HasPrefix(answers[0], "201 linked=false") {
			t.Fatalf("answers differ or fail: %v", answers)
		}
		// Two operators share an address; each password opens its own.
		for _, pw := range []string{"password of A", "password of B"} {
			if r := a.Do(t, "POST", "/auth/operator-login", map[string]any{"email": "shared@example.com", "password": pw}); r.Status != 200 {
				t.Errorf("sign-in with %q: %d %s", pw, r.Status, r.Body)
			}
		}
		if r := a.Do(t, "POST", "/auth/operator-login", map[string]any{"email": "shared@example.com", "password": "neither one"}); r.Status != 401 {
			t.Errorf("a wrong password: %d", r.Status)
		}
		// The owner's address is linked once that operator signs in.
		a.Do(t, "POST", "/auth/operator-login", map[string]any{"email": "other-owner@example.com", "password": "password of A"})
		if r := a.Do(t, "GET", "/operators", nil, "X-API-Key", key); !strings.Contains(string(r.Body), `"email":"other-owner@example.com"`) ||
			strings.Count(string(r.Body), `"linked":true`) != 1 {
			t.Errorf("after sign-in: %s", r.Body)
		}
	})
}
