package billing_test

import (
	"context"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/billing"
	"concierge/internal/clock"
	"concierge/internal/jobs"
	"concierge/internal/store"
	"concierge/internal/testkit"
)

// TestMonthlyGrants runs the grant job on the fake clock with batches of
// two, so one month's pass takes several runs.
func TestMonthlyGrants(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		ctx := context.Background()
		db := testkit.NewDB(t, e)
		clk := clock.NewFake(time.Date(2030, 1, 15, 12, 0, 0, 0, time.UTC))
		q := jobs.NewQueue(db, clk)
		svc, err := billing.NewService(billing.Deps{DB: db, Queue: q, Clock: clk, Logger: testkit.TLogger(t), GrantBatch: 2})
		if err != nil {
			t.Fatal(err)
		}
		pool := jobs.NewPool(q, jobs.Options{PollInterval: 10 * time.Millisecond, Clock: clk, Logger: testkit.TLogger(t)})
		svc.RegisterJobs(pool)
		pool.Start()
		t.Cleanup(func() { pool.Stop(context.Background()) })

		now := clk.Now()
		plan := func(email, p string) int64 {
			ws := newWorkspace(t, db, email, now)
			if err := svc.SetPlan(ctx, ws, p); err != nil {
				t.Fatal(err)
			}
			return ws
		}
		spender := plan("spender@example.com", "starter") // 1,000, spends 400
		if _, err := svc.Debit(ctx, spender, 400, "reply:1", ""); err != nil {
			t.Fatal(err)
		}
		buyer := plan("buyer@example.com", "starter") // 1,000 plus 1,500 bought
		if _, err := svc.Grant(ctx, buyer, 1500, "purchase:1", "credit pack"); err != nil {
			t.Fatal(err)
		}
		free := plan("free@example.com", "free") // 50, spends 10
		if _, err := svc.Debit(ctx, free, 10, "reply:1", ""); err != nil {
			t.Fatal(err)
		}
		trial := newWorkspace(t, db, "trial@example.com", now) // 200 once, spends 150
		if err := db.Tx(ctx, func(tx *sqlx.Tx) error { return svc.StartTrial(ctx, tx, trial, now) }); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Debit(ctx, trial, 150, "reply:1", ""); err != nil {
			t.Fatal(err)
		}
		lapsed := plan("lapsed@example.com", "pro") // paid period ended long ago: not serving
		if _, err := svc.Debit(ctx, lapsed, 19000, "reply:1", ""); err != nil {
			t.Fatal(err)
		}
		if _, err := store.Exec(ctx, db.Writer(), `UPDATE workspaces SET plan_period_end = ? WHERE id = ?`,
			now.AddDate(0, 0, -10), lapsed); err != nil {
			t.Fatal(err)
		}

		// Every replica calls EnsureScheduled at start; one job results.
		for i := 0; i < 3; i++ {
			if err := svc.EnsureScheduled(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if n := queuedGrantJobs(t, db, "2030-02"); n != 1 {
			t.Fatalf("%d jobs queued for February, want 1", n)
		}
		time.Sleep(50 * time.Millisecond) // a few polls: nothing may run before February
		if n, _ := ledgerSummary(t, db, spender, billing.KindGrant); n != 1 {
			t.Fatalf("grant ran early: %d grants", n)
		}

		clk.Set(time.Date(2030, 2, 1, 0, 5, 0, 0, time.UTC))
		q.Wake()
		waitFor(t, "March's job", func() bool { return queuedGrantJobs(t, db, "2030-03") == 1 })

		want := map[int64]int64{spender: 1000, buyer: 2500, free: 50, trial: 50, lapsed: 1000}
		for ws, bal := range want {
			if got, _ := svc.Balance(ctx, ws); got != bal {
				t.Errorf("workspace %d: balance %d, want %d", ws, got, bal)
			}
		}
		monthly := func(ws int64) int { return countKey(t, db, ws, "grant:monthly:2030-02") }
		if monthly(spender) != 1 || monthly(free) != 1 || monthly(buyer) != 0 || monthly(trial) != 0 || monthly(lapsed) != 0 {
			t.Errorf("February grants: spender %d free %d buyer %d trial %d lapsed %d",
				monthly(spender), monthly(free), monthly(buyer), monthly(trial), monthly(lapsed))
		}

		// The job running again in the same month (a second chain, a retry)
		// grants nothing more, even to a workspace that spent meanwhile.
		if _, err := svc.Debit(ctx, spender, 100, "reply:2", ""); err != nil {
			t.Fatal(err)
		}
		id, err := q.Enqueue(ctx, jobs.NewJob{Kind: billing.JobMonthlyGrants, Payload: map[string]string{"month": "2030-02"}})
		if err != nil {
			t.Fatal(err)
		}
		testkit.WaitJob(t, q, id, jobs.StatusSucceeded)
		if got, _ := svc.Balance(ctx, spender); got != 900 || monthly(spender) != 1 {
			t.Errorf("after a second run: balance %d, %d February grants", got, monthly(spender))
		}
		if n := queuedGrantJobs(t, db, "2030-03"); n != 1 {
			t.Errorf("%d jobs queued for March after the second run, want 1", n)
		}

		// March tops up again.
		clk.Set(time.Date(2030, 3, 1, 0, 1, 0, 0, time.UTC))
		q.Wake()
		waitFor(t, "April's job", func() bool { return queuedGrantJobs(t, db, "2030-04") == 1 })
		if got, _ := svc.Balance(ctx, spender); got != 1000 || countKey(t, db, spender, "grant:monthly:2030-03") != 1 {
			t.Errorf("March: spender balance %d", got)
		}
		for _, ws := range []int64{spender, buyer, free, trial, lapsed} {
			checkLedgerChain(t, db, ws)
		}
	})
}

func queuedGrantJobs(t *testing.T, db *store.DB, month string) int {
	t.Helper()
	var n int
	if err := store.Get(context.Background(), db.Reader(), &n, `SELECT COUNT(*) FROM jobs WHERE kind = ? AND status = 'queued'
		AND unique_key = ?`, billing.JobMonthlyGrants, billing.JobMonthlyGrants+":"+month); err != nil {
		t.Fatal(err)
	}
	return n
}

func countKey(t *testing.T, db *store.DB, ws int64, key string) int {
	t.Helper()
	var n int
	if err := store.Get(context.Background(), db.Reader(), &n, `SELECT COUNT(*) FROM credit_ledger
		WHERE workspace_id = ? AND idempotency_key = ?`, ws, key); err != nil {
		t.Fatal(err)
	}
	return n
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
