package mail

import (
	"context"
	"errors"

	"concierge/internal/jobs"
	"concierge/internal/store"
)

// JobKind is the job that sends one message.
const JobKind = "mail.send"

// Enqueue schedules m for sending inside the caller's transaction, so the
// mail goes out if and only if the change that caused it commits, and a
// failed send is retried with backoff. uniqueKey, when set, drops a second
// identical request while the first still waits. The message is stored in
// the jobs table until sent: never put a secret (a one-time code) in it.
func Enqueue(ctx context.Context, q *jobs.Queue, tx store.Q, workspaceID int64, m Message, uniqueKey string) (int64, error) {
	if err := m.Validate(); err != nil {
		return 0, err
	}
	return q.EnqueueTx(ctx, tx, jobs.NewJob{Kind: JobKind, WorkspaceID: workspaceID, Payload: m,
		MaxAttempts: 8, UniqueKey: uniqueKey})
}

// RegisterJobs registers the sender of JobKind on pool.
func RegisterJobs(pool *jobs.Pool, m Mailer) {
	pool.Handle(JobKind, func(ctx context.Context, j *jobs.Job) error {
		var msg Message
		if err := j.Decode(&msg); err != nil {
			return err
		}
		err := m.Send(ctx, msg)
		if IsPermanent(err) || errors.Is(err, ErrInvalidMessage) {
			return jobs.Permanent(err)
		}
		return err
	}, jobs.KindOptions{})
}
