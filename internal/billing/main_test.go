package billing_test

import (
	"context"
	"testing"
	"time"

	"concierge/internal/billing"
	"concierge/internal/clock"
	"concierge/internal/store"
	"concierge/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// newService returns a billing service on a fresh database of engine e,
// with a fake clock at start.
func newService(t *testing.T, e testkit.Engine, start time.Time) (*billing.Service, *store.DB, *clock.Fake) {
	t.Helper()
	db := testkit.NewDB(t, e)
	clk := clock.NewFake(start)
	svc, err := billing.NewService(billing.Deps{DB: db, Clock: clk, Logger: testkit.TLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	return svc, db, clk
}

// newWorkspace inserts a bare workspace row (sign-up's other work is not
// billing's concern) and returns its id.
func newWorkspace(t *testing.T, db *store.DB, email string, now time.Time) int64 {
	t.Helper()
	var id int64
	err := store.Get(context.Background(), db.Writer(), &id, `INSERT INTO workspaces
		(email, password_hash, created_at, updated_at) VALUES (?, 'x', ?, ?) RETURNING id`, email, now.UTC(), now.UTC())
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// ledgerSummary counts a workspace's entries of kind and sums their deltas.
func ledgerSummary(t *testing.T, db *store.DB, wsID int64, kind string) (n, sum int64) {
	t.Helper()
	var row struct {
		N   int64 `db:"n"`
		Sum int64 `db:"s"`
	}
	err := store.Get(context.Background(), db.Reader(), &row, `SELECT COUNT(*) AS n,
		CAST(COALESCE(SUM(delta), 0) AS BIGINT) AS s FROM credit_ledger WHERE workspace_id = ? AND kind = ?`, wsID, kind)
	if err != nil {
		t.Fatal(err)
	}
	return row.N, row.Sum
}
