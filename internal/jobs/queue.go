// Package jobs is the durable job queue every area uses for work that
// outlives a request: a row in the jobs table, enqueued inside the caller's
// transaction, claimed with a lease (SKIP LOCKED on PostgreSQL, the single
// writer on SQLite), kept alive by heartbeats, retried with exponential
// backoff and jitter, and ending succeeded, dead (with its last error) or
// cancelled. Several processes on one PostgreSQL database share the work and
// each job runs once at a time; a job whose worker vanished is rescued when
// its lease expires, so handlers must be idempotent.
package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/clock"
	"concierge/internal/store"
)

// Status values of a job row.
const (
	StatusQueued    = "queued"
	StatusRunning   = "running"
	StatusSucceeded = "succeeded"
	StatusDead      = "dead"
	StatusCancelled = "cancelled"
)

// DefaultMaxAttempts is used when an enqueued job does not say.
const DefaultMaxAttempts = 10

// NewJob describes a job to enqueue.
type NewJob struct {
	Kind        string
	WorkspaceID int64 // 0 when the job belongs to no workspace
	BotID       int64 // 0 when the job belongs to no bot; deleting the bot deletes the job
	Payload     any   // marshalled to JSON; nil means {}
	RunAt       time.Time
	MaxAttempts int
	// UniqueKey de-duplicates: while a job with the same key is waiting to
	// run, enqueueing another returns the waiting job's id. Once it has
	// started, a new job is queued (the request may carry newer work).
	UniqueKey string
}

// Job is a job row as handlers and status readers see it.
type Job struct {
	ID              int64          `db:"id"`
	Kind            string         `db:"kind"`
	WorkspaceID     sql.NullInt64  `db:"workspace_id"`
	BotID           sql.NullInt64  `db:"bot_id"`
	Payload         string         `db:"payload"`
	Status          string         `db:"status"`
	Priority        int            `db:"priority"`
	Attempts        int            `db:"attempts"`
	MaxAttempts     int            `db:"max_attempts"`
	RunAt           time.Time      `db:"run_at"`
	UniqueKey       sql.NullString `db:"unique_key"`
	LeaseToken      sql.NullString `db:"lease_token"`
	LeaseExpiresAt  sql.NullTime   `db:"lease_expires_at"`
	CancelRequested bool           `db:"cancel_requested"`
	LastError       sql.NullString `db:"last_error"`
	CreatedAt       time.Time      `db:"created_at"`
	UpdatedAt       time.Time      `db:"updated_at"`
	FinishedAt      sql.NullTime   `db:"finished_at"`
}

// Decode unmarshals the payload into v.
func (j *Job) Decode(v any) error {
	if err := json.Unmarshal([]byte(j.Payload), v); err != nil {
		return Permanent(fmt.Errorf("jobs: decode %s payload: %w", j.Kind, err))
	}
	return nil
}

const jobColumns = `id, kind, workspace_id, bot_id, payload, status, priority, attempts, max_attempts, run_at,
	unique_key, lease_token, lease_expires_at, cancel_requested, last_error, created_at, updated_at, finished_at`

// Queue enqueues, reads and cancels jobs.
type Queue struct {
	db    *store.DB
	clock clock.Clock
	wake  chan struct{}
}

// NewQueue returns a queue on db.
func NewQueue(db *store.DB, clk clock.Clock) *Queue {
	if clk == nil {
		clk = clock.Real{}
	}
	return &Queue{db: db, clock: clk, wake: make(chan struct{}, 1)}
}

// Enqueue inserts a job in its own transaction and wakes local workers.
func (q *Queue) Enqueue(ctx context.Context, j NewJob) (int64, error) {
	var id int64
	err := q.db.Tx(ctx, func(tx *sqlx.Tx) error {
		var err error
		id, err = q.EnqueueTx(ctx, tx, j)
		return err
	})
	if err == nil {
		q.Wake()
	}
	return id, err
}

// Wake tells this process's workers to look for work now rather than at the
// next poll. Callers that enqueue inside their own transaction call it after
// committing.
func (q *Queue) Wake() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// EnqueueTx inserts a job inside the caller's transaction, so the job exists
// if and only if the caller's change commits.
func (q *Queue) EnqueueTx(ctx context.Context, tx store.Q, j NewJob) (int64, error) {
	if j.Kind == "" {
		return 0, errors.New("jobs: enqueue: empty kind")
	}
	payload := []byte("{}")
	if j.Payload != nil {
		var err error
		if payload, err = json.Marshal(j.Payload); err != nil {
			return 0, fmt.Errorf("jobs: enqueue %s: marshal payload: %w", j.Kind, err)
		}
	}
	now := q.clock.Now()
	runAt := j.RunAt
	if runAt.IsZero() || runAt.Before(now) {
		runAt = now
	}
	if j.MaxAttempts <= 0 {
		j.MaxAttempts = DefaultMaxAttempts
	}
	var ws, bot, key any
	if j.WorkspaceID != 0 {
		ws = j.WorkspaceID
	}
	if j.BotID != 0 {
		bot = j.BotID
	}
	if j.UniqueKey != "" {
		key = j.UniqueKey
	}
	var id int64
	err := store.Get(ctx, tx, &id, `INSERT INTO jobs
		(kind, workspace_id, bot_id, payload, status, priority, attempts, max_attempts, run_at, unique_key, cancel_requested, created_at, updated_at)
		VALUES (?, ?, ?, ?, 'queued', 0, 0, ?, ?, ?, FALSE, ?, ?)
		ON CONFLICT (unique_key) WHERE unique_key IS NOT NULL AND status = 'queued' DO NOTHING
		RETURNING id`,
		j.Kind, ws, bot, string(payload), j.MaxAttempts, runAt.UTC(), key, now, now)
	if store.IsNotFound(err) && j.UniqueKey != "" {
		err = store.Get(ctx, tx, &id, `SELECT id FROM jobs WHERE unique_key = ? AND status = 'queued'`, j.UniqueKey)
	}
	if err != nil {
		return 0, fmt.Errorf("jobs: enqueue %s: %w", j.Kind, err)
	}
	return id, nil
}

// Get reads one job.
func (q *Queue) Get(ctx context.Context, id int64) (*Job, error) {
	var j Job
	if err := store.Get(ctx, q.db.Reader(), &j, `SELECT `+jobColumns+` FROM jobs WHERE id = ?`, id); err != nil {
		return nil, fmt.Errorf("jobs: get %d: %w", id, err)
	}
	return &j, nil
}

// Cancel stops a job: a queued job is cancelled at once; a running job is
// asked to stop (its handler's context is cancelled at the next heartbeat)
// and ends cancelled when the handler returns. Finished jobs are left alone.
// workspaceID scopes the call; 0 means any workspace (operators only).
func (q *Queue) Cancel(ctx context.Context, id, workspaceID int64) error {
	now := q.clock.Now()
	scope, args := "", []any{}
	if workspaceID != 0 {
		scope, args = " AND workspace_id = ?", []any{workspaceID}
	}
	return q.db.Tx(ctx, func(tx *sqlx.Tx) error {
		n, err := store.Exec(ctx, tx, `UPDATE jobs SET status = 'cancelled', finished_at = ?, updated_at = ?,
			last_error = 'cancelled' WHERE id = ? AND status = 'queued'`+scope, append([]any{now, now, id}, args...)...)
		if err != nil || n > 0 {
			return err
		}
		n, err = store.Exec(ctx, tx, `UPDATE jobs SET cancel_requested = TRUE, updated_at = ?
			WHERE id = ? AND status = 'running'`+scope, append([]any{now, id}, args...)...)
		if err != nil || n > 0 {
			return err
		}
		var status string
		err = store.Get(ctx, tx, &status, `SELECT status FROM jobs WHERE id = ?`+scope, append([]any{id}, args...)...)
		if err != nil {
			return fmt.Errorf("jobs: cancel %d: %w", id, err)
		}
		return nil
	})
}

// ErrCancelled is the cause of a handler context cancelled by Cancel.
var ErrCancelled = errors.New("jobs: cancelled")

// errShutdown is the cause of a handler context cancelled because the pool
// is stopping; the job is released for another worker, not failed.
var errShutdown = errors.New("jobs: worker shutting down")

// ErrLeaseLost is the cause of a handler context cancelled because another
// worker took the job over after this worker's lease expired.
var ErrLeaseLost = errors.New("jobs: lease lost")

// permanentError marks a failure that retrying cannot fix.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// Permanent wraps err so the job goes dead at once instead of retrying.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err: err}
}

// retryAfterError asks for the next attempt no sooner than after.
type retryAfterError struct {
	err   error
	after time.Duration
}

func (e *retryAfterError) Error() string { return e.err.Error() }
func (e *retryAfterError) Unwrap() error { return e.err }

// RetryAfter wraps err so the next attempt waits at least d.
func RetryAfter(d time.Duration, err error) error {
	return &retryAfterError{err: err, after: d}
}
