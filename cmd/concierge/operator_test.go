package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"concierge/internal/billing"
	"concierge/internal/store"
	"concierge/internal/testkit"
)

func TestMain(m *testing.M) {
	if maybeChild() {
		return
	}
	testkit.Main(m)
}

// TestOperatorCommands runs the CLI against the database of a running
// service, as an operator would while `serve` runs.
func TestOperatorCommands(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		ctx := context.Background()
		a := testkit.NewApp(t, e)
		_, ws := a.Register(t, "owner@example.com")
		cli := cliAgainst(a)

		out, err := cli("workspace", "set-plan", "--email", " Owner@Example.com ", "--plan", "pro")
		if err != nil {
			t.Fatalf("set-plan: %v", err)
		}
		if !strings.Contains(out, "plan pro, status active, balance 20000 credits") {
			t.Errorf("set-plan printed %q", out)
		}
		ent, err := a.Billing.Entitlements(ctx, ws)
		if err != nil || ent.Plan != "pro" || ent.Status != billing.StatusActive || !ent.Features["lead_intelligence"] {
			t.Fatalf("after set-plan: %+v %v", ent, err)
		}

		for i, want := range []string{"balance 20050 credits", "balance 20100 credits"} {
			out, err := cli("credits", "grant", "--email", "owner@example.com", "--credits", "50", "--reason", "goodwill")
			if err != nil {
				t.Fatalf("grant %d: %v", i, err)
			}
			if !strings.Contains(out, "granted 50 credits, "+want) {
				t.Errorf("grant %d printed %q", i, out)
			}
		}
		var manual int
		if err := store.Get(ctx, a.DB.Reader(), &manual, `SELECT COUNT(*) FROM credit_ledger WHERE workspace_id = ?
			AND idempotency_key LIKE 'manual:%' AND reason = 'goodwill' AND delta = 50`, ws); err != nil || manual != 2 {
			t.Errorf("manual grants in the ledger: %d %v", manual, err)
		}

		failures := []struct {
			args []string
			want string
		}{
			{[]string{"workspace", "set-plan", "--email", "nobody@example.com", "--plan", "pro"}, "no workspace with e-mail address nobody@example.com"},
			{[]string{"workspace", "set-plan", "--email", "owner@example.com", "--plan", "platinum"}, `unknown plan "platinum"; choose one of: free, starter, standard, pro`},
			{[]string{"workspace", "set-plan", "--email", "owner@example.com", "--plan", "trial"}, "starts only at sign-up"},
			{[]string{"workspace", "set-plan", "--email", "owner@example.com"}, "--email and --plan are required"},
			{[]string{"workspace", "rename"}, "usage: concierge workspace set-plan"},
			{[]string{"credits", "grant", "--email", "nobody@example.com", "--credits", "5"}, "no workspace with e-mail address"},
			{[]string{"credits", "grant", "--email", "owner@example.com", "--credits", "-5"}, "--credits must be a positive integer"},
			{[]string{"credits", "grant", "--email", "owner@example.com", "--credits", "lots"}, "--credits must be a positive integer"},
			{[]string{"credits", "grant", "--email", "not-an-address", "--credits", "5"}, "e-mail"},
			{[]string{"credits", "take"}, "usage: concierge credits grant"},
		}
		for _, f := range failures {
			_, err := cli(f.args...)
			if err == nil || !strings.Contains(err.Error(), f.want) {
				t.Errorf("%v: err = %v, want it to say %q", f.args, err, f.want)
			}
		}
		if b, _ := a.Billing.Balance(ctx, ws); b != 20100 {
			t.Errorf("failed commands changed the balance: %d", b)
		}
	})
}

// TestOperatorCommandNeedsADatabase: pointed at the wrong place, the CLI
// says what to do instead of creating an empty database or failing on a
// missing table.
func TestOperatorCommandNeedsADatabase(t *testing.T) {
	dir := t.TempDir()
	grant := []string{"credits", "grant", "--email", "a@example.com", "--credits", "1", "-data-dir", dir}
	var out, errs bytes.Buffer
	if err := run(context.Background(), grant, env(nil), &out, &errs); err == nil || !strings.Contains(err.Error(), "no database at") {
		t.Fatalf("empty data dir: err = %v", err)
	}
	db := testkit.OpenDB(t, testkit.SQLite, filepath.Join(dir, "concierge.db")) // exists, not migrated
	db.Close()
	if err := run(context.Background(), grant, env(nil), &out, &errs); err == nil || !strings.Contains(err.Error(), "concierge migrate") {
		t.Fatalf("unmigrated database: err = %v", err)
	}
}

// cliAgainst runs the binary's commands against a running test app's
// database (its data directory, or its PostgreSQL URL), returning stdout.
func cliAgainst(a *testkit.TestApp) func(args ...string) (string, error) {
	vars := map[string]string{}
	if a.Engine == testkit.Postgres {
		vars["DATABASE_URL"] = a.Config.DatabaseURL.Reveal()
	}
	return func(args ...string) (string, error) {
		var out, errs bytes.Buffer
		err := run(context.Background(), append(args, "-data-dir", a.DataDir), env(vars), &out, &errs)
		return out.String(), err
	}
}
