package billing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/jobs"
	"concierge/internal/store"
)

// JobMonthlyGrants is the kind of the job that tops balances up to the
// plan's monthly allowance at the start of each calendar month (UTC).
//
// Scheduling: one job per month, enqueued for the first instant of the month
// with the unique key billing.monthly_grants:YYYY-MM, so replicas that all
// call EnsureScheduled at start-up leave one queued copy. A run looks at
// GrantBatch workspaces, then enqueues a follow-up (same month, after the
// last id it saw) and returns, so one run stays short and a crash repeats at
// most one batch. The run that reaches the end enqueues next month's job.
// Grants are keyed grant:monthly:YYYY-MM per workspace, so a repeated batch
// or a second run in the same month grants nothing twice.
const JobMonthlyGrants = "billing.monthly_grants"

// grantRun is the payload of a monthly grants job. Month is fixed by the
// first run of a pass and carried by its follow-ups; the scheduled job
// leaves it empty and takes the month it actually runs in (a job delayed by
// downtime grants for the month it runs in, not for one already past).
type grantRun struct {
	Month   string `json:"month,omitempty"`
	AfterID int64  `json:"after_id,omitempty"`
}

// RegisterJobs registers billing's job handlers (monthly credit grants).
func (s *Service) RegisterJobs(pool *jobs.Pool) {
	pool.Handle(JobMonthlyGrants, s.monthlyGrantsJob, jobs.KindOptions{Timeout: 5 * time.Minute})
}

// EnsureScheduled makes sure next month's grant job is queued. Call it once
// at start-up on every replica (after the pool is running or before, either
// works); repeated calls and concurrent replicas leave a single job.
func (s *Service) EnsureScheduled(ctx context.Context) error {
	return s.scheduleMonth(ctx, monthStart(s.clock.Now()).AddDate(0, 1, 0))
}

func (s *Service) scheduleMonth(ctx context.Context, start time.Time) error {
	if s.queue == nil {
		return errors.New("billing: no job queue")
	}
	_, err := s.queue.Enqueue(ctx, jobs.NewJob{
		Kind: JobMonthlyGrants, RunAt: start, MaxAttempts: 20,
		UniqueKey: JobMonthlyGrants + ":" + monthKey(start),
	})
	if err != nil {
		return fmt.Errorf("billing: schedule monthly grants: %w", err)
	}
	return nil
}

func (s *Service) monthlyGrantsJob(ctx context.Context, j *jobs.Job) error {
	var run grantRun
	if err := j.Decode(&run); err != nil {
		return err
	}
	now := s.clock.Now()
	if run.Month == "" {
		run.Month = monthKey(now)
	}
	month, err := time.Parse("2006-01", run.Month)
	if err != nil {
		return jobs.Permanent(fmt.Errorf("billing: monthly grants: bad month %q", run.Month))
	}
	last, seen, granted, err := s.grantPass(ctx, run.Month, run.AfterID)
	if err != nil {
		return err
	}
	if granted > 0 {
		s.log.Info("monthly credits granted", "month", run.Month, "workspaces", granted, "after_id", run.AfterID)
	}
	if seen == s.grantBatch {
		// The key keeps a re-run of this batch (after a lost lease) from
		// starting a second chain for the rest.
		next := grantRun{Month: run.Month, AfterID: last}
		_, err := s.queue.Enqueue(ctx, jobs.NewJob{Kind: JobMonthlyGrants, Payload: next, MaxAttempts: 20,
			UniqueKey: fmt.Sprintf("%s:%s:after:%d", JobMonthlyGrants, run.Month, last)})
		return err
	}
	return s.scheduleMonth(ctx, month.AddDate(0, 1, 0))
}

// grantPass tops up the next batch of workspaces after afterID. It reports
// the last id looked at, how many rows it looked at and how many got credits.
func (s *Service) grantPass(ctx context.Context, month string, afterID int64) (last int64, seen, granted int, err error) {
	rows, err := workspacesAfter(ctx, s.db.Reader(), afterID, s.grantBatch)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("billing: monthly grants: %w", err)
	}
	last = afterID
	key := "grant:monthly:" + month
	for i := range rows {
		if err := ctx.Err(); err != nil {
			return 0, 0, 0, err
		}
		last = rows[i].ID
		// The reader's row only rules out the clearly ineligible without a
		// transaction; the decision is taken again on the locked row.
		if _, ok := s.monthlyAllowance(&rows[i]); !ok {
			continue
		}
		var entry *LedgerEntry
		err := s.db.Tx(ctx, func(tx *sqlx.Tx) error {
			w, err := readWorkspace(ctx, tx, s.db.Dialect(), rows[i].ID, true)
			if store.IsNotFound(err) {
				return nil // deleted meanwhile
			}
			if err != nil {
				return err
			}
			p, ok := s.monthlyAllowance(w)
			if !ok {
				return nil
			}
			entry, err = s.topUp(ctx, tx, w.ID, p.Limits.MonthlyCredits, key,
				fmt.Sprintf("%s plan allowance for %s", p.Name, month))
			return err
		})
		if err != nil {
			return 0, 0, 0, fmt.Errorf("billing: monthly grant for workspace %d: %w", rows[i].ID, err)
		}
		if entry != nil {
			granted++
		}
	}
	return last, len(rows), granted, nil
}

// monthlyAllowance returns the plan whose allowance w gets this month, and
// false when it gets none: trials get their credits once, at sign-up, and
// workspaces that are not serving get nothing until they pay again.
func (s *Service) monthlyAllowance(w *wsRow) (*Plan, bool) {
	e := s.resolve(w, s.clock.Now())
	p := s.cat.Plan(e.Plan)
	if !e.Serving || p.IsTrial() || p.Limits.MonthlyCredits <= 0 {
		return nil, false
	}
	return p, true
}
