package jobs_test

import (
	"context"
	"testing"
	"time"

	"concierge/internal/clock"
	"concierge/internal/jobs"
	"concierge/internal/store"
	"concierge/internal/testkit"
)

// TestPurgeKeepsWhatIsStillUseful: finished jobs go after their keeping
// (succeeded a week, dead and cancelled a month); queued and running jobs,
// and finished ones still within it, stay. The purge job deletes them on
// its own schedule and queues its next run.
func TestPurgeKeepsWhatIsStillUseful(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		ctx := context.Background()
		db := testkit.NewDB(t, e)
		clk := clock.NewFake(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
		q := jobs.NewQueue(db, clk)
		now := clk.Now()
		rows := []struct {
			name   string
			status string
			ago    time.Duration
			kept   bool
		}{
			{"succeeded 8 days ago", jobs.StatusSucceeded, 8 * 24 * time.Hour, false},
			{"succeeded 6 days ago", jobs.StatusSucceeded, 6 * 24 * time.Hour, true},
			{"dead 31 days ago", jobs.StatusDead, 31 * 24 * time.Hour, false},
			{"dead 8 days ago", jobs.StatusDead, 8 * 24 * time.Hour, true},
			{"cancelled 31 days ago", jobs.StatusCancelled, 31 * 24 * time.Hour, false},
			{"queued for 40 days", jobs.StatusQueued, 40 * 24 * time.Hour, true},
			{"running, claimed 40 days ago", jobs.StatusRunning, 40 * 24 * time.Hour, true},
		}
		ids := make([]int64, len(rows))
		for i, r := range rows {
			id, err := q.Enqueue(ctx, jobs.NewJob{Kind: "work", Payload: map[string]string{"n": r.name}})
			if err != nil {
				t.Fatal(err)
			}
			ids[i] = id
			var finished any
			if r.status != jobs.StatusQueued && r.status != jobs.StatusRunning {
				finished = now.Add(-r.ago)
			}
			if _, err := store.Exec(ctx, db.Writer(), `UPDATE jobs SET status = ?, finished_at = ?, created_at = ?, run_at = ?
				WHERE id = ?`, r.status, finished, now.Add(-r.ago), now.Add(-r.ago), id); err != nil {
				t.Fatal(err)
			}
		}
		exists := func(id int64) bool {
			var n int
			if err := store.Get(ctx, db.Reader(), &n, `SELECT COUNT(*) FROM jobs WHERE id = ?`, id); err != nil {
				t.Fatal(err)
			}
			return n == 1
		}
		// The purge runs as a job of its own, an hour after it is scheduled.
		opts := fastOptions(t)
		opts.Clock = clk
		p := jobs.NewPool(q, opts)
		jobs.RegisterPurge(p)
		if err := q.EnsurePurgeScheduled(ctx); err != nil {
			t.Fatal(err)
		}
		p.Start()
		t.Cleanup(func() {
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			p.Stop(sctx)
		})
		time.Sleep(100 * time.Millisecond)
		if !exists(ids[0]) {
			t.Fatal("purged before the purge job was due")
		}
		clk.Advance(jobs.PurgeEvery)
		q.Wake()
		deadline := time.Now().Add(20 * time.Second)
		for exists(ids[0]) {
			if time.Now().After(deadline) {
				t.Fatal("the purge job did not run")
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond) // the run queues its next one
		for i, r := range rows {
			if got := exists(ids[i]); got != r.kept {
				t.Errorf("%s: kept %v, want %v", r.name, got, r.kept)
			}
		}
		var next int
		if err := store.Get(ctx, db.Reader(), &next, `SELECT COUNT(*) FROM jobs WHERE kind = ? AND status = 'queued'
			AND run_at > ?`, jobs.KindPurge, clk.Now()); err != nil || next != 1 {
			t.Fatalf("next purge queued: %d %v", next, err)
		}
	})
}
