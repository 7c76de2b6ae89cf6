package jobs

import (
	"context"
	"fmt"
	"time"

	"concierge/internal/store"
)

// Finished jobs are kept for a while, then purged by a job of their own:
// the table would otherwise grow with every conversation scored, e-mail
// sent and file ingested. A succeeded job's row says little after a week;
// a dead or cancelled one keeps its last error for a month, for operators.
const (
	KindPurge     = "jobs.purge"
	PurgeEvery    = time.Hour
	KeepSucceeded = 7 * 24 * time.Hour
	KeepFailed    = 30 * 24 * time.Hour // dead and cancelled

	// PurgeBatch bounds one DELETE, so that SQLite's single writer is never
	// held long; PurgeBatches bounds one run, which goes on at once when
	// more is left.
	PurgeBatch   = 5000
	PurgeBatches = 20
)

// A Purger deletes up to one batch (at most PurgeBatch rows) of another
// table's rows kept past their time as of now, and returns how many it
// deleted: the purge job runs it beside its own.
type Purger func(ctx context.Context, now time.Time) (int64, error)

// RegisterPurge makes the pool run the purge job, for finished jobs and
// what more purges; EnsurePurgeScheduled queues its first run.
func RegisterPurge(p *Pool, more ...Purger) {
	purgers := append([]Purger{p.queue.Purge}, more...)
	p.Handle(KindPurge, func(ctx context.Context, _ *Job) error { return p.queue.purgeJob(ctx, purgers) },
		KindOptions{Timeout: 5 * time.Minute})
}

// EnsurePurgeScheduled queues the purge unless a copy already waits (every
// replica calls it at start; the unique key keeps one).
func (q *Queue) EnsurePurgeScheduled(ctx context.Context) error {
	_, err := q.Enqueue(ctx, NewJob{Kind: KindPurge, UniqueKey: KindPurge, MaxAttempts: 3,
		RunAt: q.clock.Now().Add(PurgeEvery)})
	return err
}

func (q *Queue) purgeJob(ctx context.Context, purgers []Purger) error {
	now := q.clock.Now()
	next := now.Add(PurgeEvery)
	for _, purge := range purgers {
		for i := 0; ; i++ {
			n, err := purge(ctx, now)
			if err != nil {
				return err
			}
			if n < PurgeBatch {
				break
			}
			if i+1 == PurgeBatches {
				next = now // more left: the next run follows at once
				break
			}
		}
	}
	_, err := q.Enqueue(ctx, NewJob{Kind: KindPurge, UniqueKey: KindPurge, MaxAttempts: 3, RunAt: next})
	return err
}

// Purge deletes up to one batch of jobs finished longer ago than they are
// kept (as of now) and returns how many it deleted.
func (q *Queue) Purge(ctx context.Context, now time.Time) (int64, error) {
	n, err := store.Exec(ctx, q.db.Writer(), `DELETE FROM jobs WHERE id IN (SELECT id FROM jobs
		WHERE (status = ? AND finished_at < ?) OR (status IN (?, ?) AND finished_at < ?) LIMIT ?)`,
		StatusSucceeded, now.Add(-KeepSucceeded), StatusDead, StatusCancelled, now.Add(-KeepFailed), PurgeBatch)
	if err != nil {
		return 0, fmt.Errorf("jobs: purge: %w", err)
	}
	return n, nil
}
