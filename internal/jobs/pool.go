package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"runtime/debug"
	"sort"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/prometheus/client_golang/prometheus"

	"concierge/internal/clock"
	"concierge/internal/secret"
	"concierge/internal/store"
)

// Handler runs one job. Returning nil marks it succeeded; Permanent(err)
// sends it dead at once; any other error schedules a retry with backoff
// until MaxAttempts is reached. The context is cancelled when the job is
// cancelled (cause ErrCancelled), its lease is lost, it times out, or the
// pool stops; handlers check it at safe points.
type Handler func(ctx context.Context, j *Job) error

// KindOptions tune one kind of job.
type KindOptions struct {
	// Timeout bounds one attempt; zero means Options.DefaultTimeout.
	Timeout time.Duration
}

// Options configure a Pool. Zero values get sensible defaults.
type Options struct {
	Workers        int           // concurrent handlers (default 4)
	Lease          time.Duration // how long a claim lasts without a heartbeat (default 30s)
	Heartbeat      time.Duration // how often a running job renews its lease and checks for cancellation (default 2s)
	PollInterval   time.Duration // how often to look for work when idle (default 500ms)
	BackoffBase    time.Duration // first retry delay (default 2s)
	BackoffMax     time.Duration // largest retry delay (default 1h)
	DefaultTimeout time.Duration // per attempt (default 10m)
	Clock          clock.Clock
	Logger         *slog.Logger
	Registerer     prometheus.Registerer // nil: no metrics
}

func (o *Options) defaults() {
	if o.Workers <= 0 {
		o.Workers = 4
	}
	if o.Lease <= 0 {
		o.Lease = 30 * time.Second
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = 2 * time.Second
	}
	if o.Heartbeat > o.Lease/3 {
		o.Heartbeat = o.Lease / 3
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 500 * time.Millisecond
	}
	if o.BackoffBase <= 0 {
		o.BackoffBase = 2 * time.Second
	}
	if o.BackoffMax <= 0 {
		o.BackoffMax = time.Hour
	}
	if o.DefaultTimeout <= 0 {
		o.DefaultTimeout = 10 * time.Minute
	}
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

type kindEntry struct {
	handler Handler
	opts    KindOptions
}

// Pool runs handlers for claimed jobs. Register every kind before Start.
type Pool struct {
	db    *store.DB
	queue *Queue
	opts  Options
	kinds map[string]kindEntry
	names []string
	log   *slog.Logger

	metrics *metrics

	mu      sync.Mutex
	running map[int64]*runningJob
	stop    context.CancelFunc
	loopWG  sync.WaitGroup
	jobWG   sync.WaitGroup
	slots   chan struct{}
	started bool
}

type runningJob struct {
	job    *Job
	cancel context.CancelCauseFunc
	done   chan struct{}
}

// NewPool returns a pool that claims jobs from queue's database.
func NewPool(queue *Queue, opts Options) *Pool {
	opts.defaults()
	p := &Pool{
		db:      queue.db,
		queue:   queue,
		opts:    opts,
		kinds:   map[string]kindEntry{},
		log:     opts.Logger.With("component", "jobs"),
		running: map[int64]*runningJob{},
		slots:   make(chan struct{}, opts.Workers),
	}
	p.metrics = newMetrics(opts.Registerer)
	return p
}

// Handle registers the handler of a kind.
func (p *Pool) Handle(kind string, h Handler, opts KindOptions) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started {
		panic("jobs: Handle after Start")
	}
	if _, dup := p.kinds[kind]; dup {
		panic("jobs: kind registered twice: " + kind)
	}
	p.kinds[kind] = kindEntry{handler: h, opts: opts}
	p.names = append(p.names, kind)
	sort.Strings(p.names)
}

// Start begins claiming jobs until Stop.
func (p *Pool) Start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started || len(p.kinds) == 0 {
		p.started = true
		return
	}
	p.started = true
	ctx, cancel := context.WithCancel(context.Background())
	p.stop = cancel
	p.loopWG.Add(1)
	go p.loop(ctx)
}

// Stop stops claiming, lets running handlers finish until ctx is done, then
// cancels the rest and releases their jobs so another worker picks them up at
// once (the attempt does not count).
func (p *Pool) Stop(ctx context.Context) {
	p.mu.Lock()
	stop := p.stop
	p.mu.Unlock()
	if stop == nil {
		return
	}
	stop()
	p.loopWG.Wait()

	done := make(chan struct{})
	go func() { p.jobWG.Wait(); close(done) }()
	select {
	case <-done:
		return
	case <-ctx.Done():
	}
	p.mu.Lock()
	left := make([]*runningJob, 0, len(p.running))
	for _, r := range p.running {
		left = append(left, r)
		r.cancel(errShutdown)
	}
	p.mu.Unlock()
	// Give cancelled handlers a moment to return, then release whatever
	// is still leased by this pool regardless.
	select {
	case <-done:
	case <-time.After(2 * time.Second):
	}
	for _, r := range left {
		p.release(r.job)
	}
}

func (p *Pool) loop(ctx context.Context) {
	defer p.loopWG.Done()
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-p.queue.wake:
		}
		claimed := p.poll(ctx)
		wait := p.opts.PollInterval
		if claimed > 0 {
			wait = 0 // there may be more; look again at once
		}
		// Jitter spreads replicas' polls apart.
		wait += time.Duration(rand.Int64N(int64(p.opts.PollInterval)/5 + 1))
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(wait)
	}
}

// poll rescues expired leases and claims as many jobs as there are free
// workers. It reports how many it claimed.
func (p *Pool) poll(ctx context.Context) int {
	free := cap(p.slots) - len(p.slots)
	if free <= 0 {
		return 0
	}
	if err := p.rescue(ctx); err != nil && ctx.Err() == nil {
		p.log.Warn("rescue expired leases", "err", err)
	}
	jobs, err := p.claim(ctx, free)
	if err != nil {
		if ctx.Err() == nil {
			p.log.Warn("claim jobs", "err", err)
		}
		return 0
	}
	for _, j := range jobs {
		p.slots <- struct{}{}
		p.start(j)
	}
	return len(jobs)
}

// rescue returns jobs whose worker stopped heartbeating to the queue, or
// sends them dead when their attempts are spent. Jobs this pool is running
// are never rescued by it, even when a slow database delayed their
// heartbeat past the lease: they are not lost, and running them again here
// would only duplicate the work.
func (p *Pool) rescue(ctx context.Context) error {
	now := p.opts.Clock.Now()
	const lost = "lease expired: the worker stopped before finishing"
	mine, tokens := "", p.runningTokens()
	if len(tokens) > 0 {
		mine = " AND lease_token NOT IN (" + store.Placeholders(len(tokens)) + ")"
	}
	// Two statements rather than a CASE: PostgreSQL cannot infer the type
	// of a parameter that only appears in a CASE branch.
	_, err := store.Exec(ctx, p.db.Writer(), `UPDATE jobs SET status = 'dead', finished_at = ?, last_error = ?,
		lease_token = NULL, lease_expires_at = NULL, updated_at = ?
		WHERE status = 'running' AND lease_expires_at < ? AND attempts >= max_attempts`+mine,
		append([]any{now, lost, now, now}, tokens...)...)
	if err != nil {
		return err
	}
	_, err = store.Exec(ctx, p.db.Writer(), `UPDATE jobs SET status = 'queued', run_at = ?, last_error = ?,
		lease_token = NULL, lease_expires_at = NULL, updated_at = ?
		WHERE status = 'running' AND lease_expires_at < ?`+mine,
		append([]any{now, lost, now, now}, tokens...)...)
	return err
}

// runningTokens lists the distinct lease tokens of the jobs running here.
func (p *Pool) runningTokens() []any {
	p.mu.Lock()
	defer p.mu.Unlock()
	seen := map[string]bool{}
	var out []any
	for _, r := range p.running {
		if t := r.job.LeaseToken.String; !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

func (p *Pool) claim(ctx context.Context, n int) ([]*Job, error) {
	now := p.opts.Clock.Now()
	token := secret.Token("", 16)
	lock := ""
	if p.db.Dialect() == store.Postgres {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	kinds := make([]any, len(p.names))
	for i, k := range p.names {
		kinds[i] = k
	}
	// The oldest due jobs first, read in the order of jobs_due (queued
	// jobs by run_at): a claim reads the rows it takes, however many jobs
	// wait behind them or are scheduled for later.
	// A claimed job gives up its unique key: the key only de-duplicates
	// work that has not started, and a retried or released job must never
	// collide with a newer job queued under the same key.
	query := `UPDATE jobs SET status = 'running', lease_token = ?, lease_expires_at = ?,
		attempts = attempts + 1, updated_at = ?, unique_key = NULL
		WHERE id IN (SELECT id FROM jobs WHERE status = 'queued' AND run_at <= ?
			AND kind IN (` + store.Placeholders(len(kinds)) + `)
			ORDER BY run_at, id LIMIT ?` + lock + `)
		RETURNING ` + jobColumns
	args := append([]any{token, now.Add(p.opts.Lease), now, now}, kinds...)
	args = append(args, n)
	var jobs []*Job
	err := p.db.Tx(ctx, func(tx *sqlx.Tx) error {
		jobs = jobs[:0]
		return store.Select(ctx, tx, &jobs, query, args...)
	})
	return jobs, err
}

func (p *Pool) start(j *Job) {
	entry := p.kinds[j.Kind]
	timeout := entry.opts.Timeout
	if timeout <= 0 {
		timeout = p.opts.DefaultTimeout
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	r := &runningJob{job: j, cancel: cancel, done: make(chan struct{})}
	p.mu.Lock()
	p.running[j.ID] = r
	p.mu.Unlock()
	p.jobWG.Add(1)
	go p.heartbeat(ctx, r)
	go func() {
		defer p.jobWG.Done()
		defer func() { <-p.slots }()
		defer func() {
			p.mu.Lock()
			delete(p.running, j.ID)
			p.mu.Unlock()
			close(r.done)
			cancel(nil)
		}()
		tctx, tcancel := context.WithTimeout(ctx, timeout)
		started := time.Now()
		err := p.run(tctx, entry.handler, j)
		tcancel()
		p.finish(ctx, j, err, context.Cause(ctx), time.Since(started))
	}()
}

func (p *Pool) run(ctx context.Context, h Handler, j *Job) (err error) {
	defer func() {
		if r := recover(); r != nil {
			p.log.Error("job handler panicked", "kind", j.Kind, "job_id", j.ID, "panic", r, "stack", string(debug.Stack()))
			err = fmt.Errorf("handler panicked: %v", r)
		}
	}()
	return h(ctx, j)
}

// heartbeat renews the lease and turns a cancellation request or a lost
// lease into a cancelled handler context.
func (p *Pool) heartbeat(ctx context.Context, r *runningJob) {
	t := time.NewTicker(p.opts.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-r.done:
			return
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := p.opts.Clock.Now()
		var cancelRequested []bool
		err := store.Select(ctx, p.db.Writer(), &cancelRequested, `UPDATE jobs SET lease_expires_at = ?, updated_at = ?
			WHERE id = ? AND lease_token = ? AND status = 'running' RETURNING cancel_requested`,
			now.Add(p.opts.Lease), now, r.job.ID, r.job.LeaseToken.String)
		switch {
		case err != nil:
			if ctx.Err() == nil {
				p.log.Warn("job heartbeat", "kind", r.job.Kind, "job_id", r.job.ID, "err", err)
			}
		case len(cancelRequested) == 0:
			r.cancel(ErrLeaseLost)
			return
		case cancelRequested[0]:
			r.cancel(ErrCancelled)
			return
		}
	}
}

// finish records the outcome of one attempt. Every update is fenced by the
// lease token, so a worker that lost its lease changes nothing.
func (p *Pool) finish(ctx context.Context, j *Job, err, cause error, took time.Duration) {
	// The handler's context may be cancelled; the bookkeeping must still
	// reach the database.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	now := p.opts.Clock.Now()
	var (
		outcome string
		q       string
		args    []any
	)
	switch {
	case errors.Is(cause, ErrLeaseLost):
		p.metrics.observe(j.Kind, "lease_lost", took)
		return
	case errors.Is(cause, errShutdown):
		p.release(j)
		p.metrics.observe(j.Kind, "released", took)
		return
	case err == nil:
		outcome = StatusSucceeded
		q = `UPDATE jobs SET status = 'succeeded', finished_at = ?, updated_at = ?, lease_token = NULL,
			lease_expires_at = NULL, last_error = NULL WHERE id = ? AND lease_token = ?`
		args = []any{now, now, j.ID, j.LeaseToken.String}
	case errors.Is(cause, ErrCancelled) || errors.Is(err, ErrCancelled):
		outcome = StatusCancelled
		q = `UPDATE jobs SET status = 'cancelled', finished_at = ?, updated_at = ?, lease_token = NULL,
			lease_expires_at = NULL, last_error = 'cancelled' WHERE id = ? AND lease_token = ?`
		args = []any{now, now, j.ID, j.LeaseToken.String}
	default:
		msg := truncate(err.Error(), 2000)
		var perm *permanentError
		if errors.As(err, &perm) || j.Attempts >= j.MaxAttempts {
			outcome = StatusDead
			q = `UPDATE jobs SET status = 'dead', finished_at = ?, updated_at = ?, lease_token = NULL,
				lease_expires_at = NULL, last_error = ? WHERE id = ? AND lease_token = ?`
			args = []any{now, now, msg, j.ID, j.LeaseToken.String}
			p.log.Error("job failed permanently", "kind", j.Kind, "job_id", j.ID, "attempts", j.Attempts, "err", msg)
		} else {
			outcome = "retry"
			delay := p.backoff(j.Attempts)
			var ra *retryAfterError
			if errors.As(err, &ra) && ra.after > delay {
				delay = ra.after
			}
			q = `UPDATE jobs SET status = 'queued', run_at = ?, updated_at = ?, lease_token = NULL,
				lease_expires_at = NULL, last_error = ? WHERE id = ? AND lease_token = ?`
			args = []any{now.Add(delay), now, msg, j.ID, j.LeaseToken.String}
			p.log.Warn("job failed, will retry", "kind", j.Kind, "job_id", j.ID, "attempt", j.Attempts, "retry_in", delay, "err", msg)
		}
	}
	if _, uerr := store.Exec(wctx, p.db.Writer(), q, args...); uerr != nil {
		p.log.Error("record job outcome", "kind", j.Kind, "job_id", j.ID, "err", uerr)
	}
	p.metrics.observe(j.Kind, outcome, took)
}

// release gives a job back to the queue without counting the attempt.
func (p *Pool) release(j *Job) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	now := p.opts.Clock.Now()
	_, err := store.Exec(ctx, p.db.Writer(), `UPDATE jobs SET status = 'queued', attempts = attempts - 1,
		run_at = ?, updated_at = ?, lease_token = NULL, lease_expires_at = NULL
		WHERE id = ? AND lease_token = ? AND status = 'running'`, now, now, j.ID, j.LeaseToken.String)
	if err != nil {
		p.log.Error("release job", "kind", j.Kind, "job_id", j.ID, "err", err)
	}
}

// backoff is exponential from BackoffBase, capped at BackoffMax, with ±20%
// jitter so that jobs failing together do not retry together.
func (p *Pool) backoff(attempt int) time.Duration {
	d := p.opts.BackoffBase
	for i := 1; i < attempt && d < p.opts.BackoffMax; i++ {
		d *= 2
	}
	if d > p.opts.BackoffMax {
		d = p.opts.BackoffMax
	}
	jitter := 0.8 + 0.4*rand.Float64()
	return time.Duration(float64(d) * jitter)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
