package analytics

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/jobs"
	"concierge/internal/store"
)

// The questions per topic and day are not counted by the chat writers
// (an upsert per reply cost the write path about 6% on PostgreSQL): the
// fold job counts each UTC day once it is closed, from the messages, into
// analytics_topic_days, and moves analytics_folds' until_day past it. The
// reports read the folded days from the table and every later instant
// from the messages (at most a day or two, on the bot's index).
const (
	jobFold  = "analytics.fold"
	foldName = "topic_days"
	// foldEvery is how often the job looks for closed days.
	foldEvery = time.Hour
	// DefaultFoldLag is how long after its end a day is folded: longer than
	// a question's reply can take to complete or be settled (the question
	// counts once its reply has completed), with room for clocks that
	// differ between replicas.
	DefaultFoldLag = time.Hour
	// foldBatch bounds the days one run folds (after a long stop); the job
	// runs again at once when it had more.
	foldBatch = 400
)

// RegisterJobs installs the fold job's handler.
func (s *Service) RegisterJobs(pool *jobs.Pool) {
	pool.Handle(jobFold, s.foldJob, jobs.KindOptions{Timeout: 10 * time.Minute})
}

// EnsureScheduled queues the fold job unless a copy already waits (every
// replica calls it at start; the unique key keeps one).
func (s *Service) EnsureScheduled(ctx context.Context) error {
	if s.queue == nil {
		return fmt.Errorf("analytics: no job queue")
	}
	_, err := s.queue.Enqueue(ctx, jobs.NewJob{Kind: jobFold, UniqueKey: jobFold, MaxAttempts: 3})
	return err
}

func (s *Service) foldJob(ctx context.Context, _ *jobs.Job) error {
	n, err := s.FoldTopicDays(ctx)
	if err != nil {
		return err
	}
	now := s.clock.Now()
	next := jobs.NewJob{Kind: jobFold, UniqueKey: jobFold, MaxAttempts: 3, RunAt: now.Add(foldEvery)}
	if n == foldBatch {
		next.RunAt = now // more to do
	}
	if _, err := s.queue.Enqueue(ctx, next); err != nil {
		return err
	}
	// Keep a day of the job's history.
	_, err = store.Exec(ctx, s.db.Writer(), `DELETE FROM jobs WHERE kind = ? AND status = 'succeeded' AND finished_at < ?`,
		jobFold, now.Add(-24*time.Hour))
	return err
}

// foldedUntil is the first day not folded yet; ok is false before the
// first fold.
func foldedUntil(ctx context.Context, q store.Q) (day int64, ok bool, err error) {
	var until sql.NullInt64
	if err := store.Get(ctx, q, &until, `SELECT until_day FROM analytics_folds WHERE name = ?`, foldName); err != nil {
		return 0, false, fmt.Errorf("analytics: fold state: %w", err)
	}
	return until.Int64, until.Valid, nil
}

// closedDay is the first day that may not be folded yet at now: every
// day before it ended at least the fold lag ago.
func (s *Service) closedDay() int64 { return dayOf(s.clock.Now().Add(-s.foldLag)) }

// FoldTopicDays folds every closed day after the last folded one, one
// transaction per day, and returns how many days it folded (at most
// foldBatch). Two replicas folding at once never fold a day twice: each
// day's transaction first moves until_day from that day to the next,
// conditionally.
func (s *Service) FoldTopicDays(ctx context.Context) (int, error) {
	target := s.closedDay()
	folded := 0
	for folded < foldBatch {
		until, ok, err := foldedUntil(ctx, s.db.Writer())
		if err != nil {
			return folded, err
		}
		if !ok {
			if started, err := s.startFolds(ctx, target); err != nil || !started {
				return folded, err
			}
			continue
		}
		if until >= target {
			return folded, nil
		}
		if err := s.db.Tx(ctx, func(tx *sqlx.Tx) error { return s.foldDay(ctx, tx, until) }); err != nil {
			return folded, err
		}
		folded++
	}
	return folded, nil
}

// startFolds sets the first day to fold: the day of the oldest message
// (each bot's first on its index). Without messages nothing is folded
// yet (started is false), and the reports read the messages.
func (s *Service) startFolds(ctx context.Context, target int64) (started bool, err error) {
	var first dbTime
	if err := store.Get(ctx, s.db.Writer(), &first, `SELECT MIN((SELECT MIN(m.created_at) FROM chat_messages m
		WHERE m.bot_id = b.id)) FROM bots b`); err != nil {
		return false, fmt.Errorf("analytics: first message: %w", err)
	}
	if first.IsZero() {
		return false, nil
	}
	_, err = store.Exec(ctx, s.db.Writer(), `UPDATE analytics_folds SET until_day = ? WHERE name = ? AND until_day IS NULL`,
		min(target, dayOf(first.Time)), foldName)
	return err == nil, err
}

// foldDay counts day's questions into analytics_topic_days and moves
// until_day past it; nothing when another fold moved it first.
func (s *Service) foldDay(ctx context.Context, tx *sqlx.Tx, day int64) error {
	n, err := store.Exec(ctx, tx, `UPDATE analytics_folds SET until_day = ? WHERE name = ? AND until_day = ?`,
		day+1, foldName, day)
	if err != nil || n == 0 {
		return err
	}
	// Rows of a day not folded yet come only from a replica of the release
	// before the fold (a rolling upgrade); the messages replace them.
	if _, err := store.Exec(ctx, tx, `DELETE FROM analytics_topic_days WHERE day = ?`, day); err != nil {
		return err
	}
	start, end := time.Unix(day*daySeconds, 0).UTC(), time.Unix((day+1)*daySeconds, 0).UTC()
	// Bot by bot on chat_messages_bot (bot_id, created_at, …): the
	// CROSS JOIN keeps SQLite from scanning every message.
	_, err = store.Exec(ctx, tx, `INSERT INTO analytics_topic_days (bot_id, day, topic, questions, answered, last_at,
		last_unanswered_at) SELECT m.bot_id, CAST(? AS BIGINT), m.topic, COUNT(*),
		SUM(CASE WHEN m.reply_answered = TRUE THEN 1 ELSE 0 END), MAX(m.created_at),
		MAX(CASE WHEN m.reply_answered = FALSE THEN m.created_at END)
	FROM bots b CROSS JOIN chat_messages m WHERE m.bot_id = b.id AND m.created_at >= ? AND m.created_at < ?
		AND `+questionCond+` AND m.topic <> '' GROUP BY m.bot_id, m.topic`, day, start, end)
	if err != nil {
		return fmt.Errorf("analytics: fold day %d: %w", day, err)
	}
	return nil
}
