package main

import (
	"fmt"
	"strings"
	"testing"

	"concierge/internal/testkit"
)

// TestAdminImpersonation issues a session from the command line, uses it on
// the owner-facing bot update, then turns it off with the kill switch and
// with revocation.
func TestAdminImpersonation(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		a := testkit.NewApp(t, e)
		key, _ := a.Register(t, "owner@example.com")
		r := a.Do(t, "POST", "/bots", map[string]any{"name": "bot"}, "X-API-Key", key)
		path := fmt.Sprintf("/bots/%d", int64(r.JSON(t)["bot_id"].(float64)))
		cli := cliAgainst(a)
		out, err := cli("admin", "impersonate", "--email", "owner@example.com", "--admin", "support@concierge", "--reason", "T-1")
		if err != nil {
			t.Fatal(err)
		}
		token := strings.Fields(out)[0]
		patch := func() int {
			return a.Do(t, "PATCH", path, map[string]any{"greeting": "hi"}, "X-API-Key", key, "X-Impersonation-Token", token).Status
		}
		if s := patch(); s != 200 {
			t.Fatalf("with the session: %d", s)
		}
		// flags come before positional arguments for the flag package
		if _, err := cli("admin", "kill-switch", "-data-dir", a.DataDir, "on"); err != nil {
			t.Fatal(err)
		}
		if s := patch(); s != 401 {
			t.Fatalf("kill switch on: %d", s)
		}
		if _, err := cli("admin", "kill-switch", "-data-dir", a.DataDir, "off"); err != nil {
			t.Fatal(err)
		}
		if s := patch(); s != 200 {
			t.Fatalf("kill switch off: %d", s)
		}
		if _, err := cli("admin", "revoke", "--token", token); err != nil {
			t.Fatal(err)
		}
		if s := patch(); s != 401 {
			t.Fatalf("revoked: %d", s)
		}
		if _, err := cli("admin", "impersonate", "--email", "owner@example.com"); err == nil {
			t.Error("a session without an admin name was issued")
		}
	})
}
