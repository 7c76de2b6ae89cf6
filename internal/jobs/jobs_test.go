package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"concierge/internal/clock"
	"concierge/internal/jobs"
	"concierge/internal/store"
	"concierge/internal/testkit"
)

func TestMain(m *testing.M) {
	if os.Getenv("JOBS_TEST_WORKER") != "" {
		crashWorker()
		return
	}
	testkit.Main(m)
}

func fastOptions(t testing.TB) jobs.Options {
	o := jobs.Options{Workers: 4, PollInterval: 10 * time.Millisecond, BackoffBase: 20 * time.Millisecond,
		Lease: 2 * time.Second, Heartbeat: 100 * time.Millisecond}
	if t != nil {
		o.Logger = testkit.TLogger(t)
	}
	return o
}

func startPool(t *testing.T, q *jobs.Queue, opts jobs.Options, handlers map[string]jobs.Handler) *jobs.Pool {
	t.Helper()
	p := jobs.NewPool(q, opts)
	for k, h := range handlers {
		p.Handle(k, h, jobs.KindOptions{})
	}
	p.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		p.Stop(ctx)
	})
	return p
}

func TestJobSucceedsWithPayload(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		db := testkit.NewDB(t, e)
		q := jobs.NewQueue(db, nil)
		got := make(chan string, 1)
		startPool(t, q, fastOptions(t), map[string]jobs.Handler{"greet": func(ctx context.Context, j *jobs.Job) error {
			var p struct{ Name string }
			if err := j.Decode(&p); err != nil {
				return err
			}
			got <- p.Name
			return nil
		}})
		id, err := q.Enqueue(context.Background(), jobs.NewJob{Kind: "greet", Payload: map[string]string{"Name": "ada"}})
		if err != nil {
			t.Fatal(err)
		}
		j := testkit.WaitJob(t, q, id, jobs.StatusSucceeded)
		if name := <-got; name != "ada" || j.Attempts != 1 || !j.FinishedAt.Valid {
			t.Fatalf("name %q attempts %d finished %v", name, j.Attempts, j.FinishedAt)
		}
	})
}

func TestUniqueKeyDeduplicatesActiveJobs(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		db := testkit.NewDB(t, e)
		q := jobs.NewQueue(db, nil)
		ctx := context.Background()
		a, err := q.Enqueue(ctx, jobs.NewJob{Kind: "k", UniqueKey: "same"})
		if err != nil {
			t.Fatal(err)
		}
		b, err := q.Enqueue(ctx, jobs.NewJob{Kind: "k", UniqueKey: "same"})
		if err != nil || a != b {
			t.Fatalf("second enqueue: id %d (first %d), err %v", b, a, err)
		}
		c, _ := q.Enqueue(ctx, jobs.NewJob{Kind: "k", UniqueKey: "other"})
		if c == a {
			t.Fatal("different keys shared a job")
		}
		// Once the first finishes, the key is free again.
		startPool(t, q, fastOptions(t), map[string]jobs.Handler{"k": func(context.Context, *jobs.Job) error { return nil }})
		testkit.WaitJob(t, q, a, jobs.StatusSucceeded)
		d, err := q.Enqueue(ctx, jobs.NewJob{Kind: "k", UniqueKey: "same"})
		if err != nil || d == a {
			t.Fatalf("after completion: id %d err %v", d, err)
		}
	})
}

func TestFailingJobRetriesThenDies(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		db := testkit.NewDB(t, e)
		q := jobs.NewQueue(db, nil)
		var calls atomic.Int32
		startPool(t, q, fastOptions(t), map[string]jobs.Handler{
			"flaky": func(context.Context, *jobs.Job) error {
				calls.Add(1)
				return fmt.Errorf("upstream said no (%d)", calls.Load())
			},
			"fatal":  func(context.Context, *jobs.Job) error { return jobs.Permanent(errors.New("bad input")) },
			"panics": func(context.Context, *jobs.Job) error { panic("kaboom") },
		})
		ctx := context.Background()
		flaky, _ := q.Enqueue(ctx, jobs.NewJob{Kind: "flaky", MaxAttempts: 3})
		fatal, _ := q.Enqueue(ctx, jobs.NewJob{Kind: "fatal", MaxAttempts: 5})
		panics, _ := q.Enqueue(ctx, jobs.NewJob{Kind: "panics", MaxAttempts: 2})

		j := testkit.WaitJob(t, q, flaky, jobs.StatusDead)
		if j.Attempts != 3 || calls.Load() != 3 || j.LastError.String != "upstream said no (3)" {
			t.Errorf("flaky: attempts %d calls %d last error %q", j.Attempts, calls.Load(), j.LastError.String)
		}
		j = testkit.WaitJob(t, q, fatal, jobs.StatusDead)
		if j.Attempts != 1 || j.LastError.String != "bad input" {
			t.Errorf("permanent: attempts %d last error %q", j.Attempts, j.LastError.String)
		}
		j = testkit.WaitJob(t, q, panics, jobs.StatusDead)
		if j.Attempts != 2 || j.LastError.String != "handler panicked: kaboom" {
			t.Errorf("panic: attempts %d last error %q", j.Attempts, j.LastError.String)
		}
	})
}

func TestBackoffSchedulesTheRetry(t *testing.T) {
	db := testkit.NewDB(t, testkit.SQLite)
	fake := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	q := jobs.NewQueue(db, fake)
	opts := fastOptions(t)
	opts.Clock = fake
	opts.BackoffBase = time.Minute
	var calls atomic.Int32
	startPool(t, q, opts, map[string]jobs.Handler{"k": func(context.Context, *jobs.Job) error {
		calls.Add(1)
		return errors.New("again")
	}})
	id, _ := q.Enqueue(context.Background(), jobs.NewJob{Kind: "k", MaxAttempts: 5})
	for calls.Load() < 1 {
		time.Sleep(5 * time.Millisecond)
	}
	j := testkit.WaitJob(t, q, id, jobs.StatusQueued)
	delay := j.RunAt.Sub(fake.Now())
	if delay < 48*time.Second || delay > 72*time.Second {
		t.Fatalf("first retry in %v, want 1m ± 20%%", delay)
	}
	time.Sleep(100 * time.Millisecond)
	if calls.Load() != 1 {
		t.Fatalf("retried before its time: %d calls", calls.Load())
	}
	fake.Advance(80 * time.Second)
	for calls.Load() < 2 {
		time.Sleep(5 * time.Millisecond)
	}
	j = testkit.WaitJob(t, q, id, jobs.StatusQueued)
	if delay := j.RunAt.Sub(fake.Now()); delay < 96*time.Second || delay > 144*time.Second {
		t.Fatalf("second retry in %v, want 2m ± 20%%", delay)
	}
}

func TestRunAtDelaysAJob(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		db := testkit.NewDB(t, e)
		fake := clock.NewFake(time.Now())
		q := jobs.NewQueue(db, fake)
		opts := fastOptions(t)
		opts.Clock = fake
		var ran atomic.Bool
		startPool(t, q, opts, map[string]jobs.Handler{"later": func(context.Context, *jobs.Job) error { ran.Store(true); return nil }})
		id, _ := q.Enqueue(context.Background(), jobs.NewJob{Kind: "later", RunAt: fake.Now().Add(time.Hour)})
		time.Sleep(150 * time.Millisecond)
		if ran.Load() {
			t.Fatal("job ran before run_at")
		}
		fake.Advance(time.Hour)
		testkit.WaitJob(t, q, id, jobs.StatusSucceeded)
	})
}

func TestCancel(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		db := testkit.NewDB(t, e)
		q := jobs.NewQueue(db, nil)
		ctx := context.Background()
		started := make(chan struct{})
		var sawCause atomic.Value
		startPool(t, q, fastOptions(t), map[string]jobs.Handler{"long": func(ctx context.Context, j *jobs.Job) error {
			close(started)
			<-ctx.Done()
			sawCause.Store(context.Cause(ctx))
			return ctx.Err()
		}})
		queued, _ := q.Enqueue(ctx, jobs.NewJob{Kind: "idle-kind-nobody-runs"})
		if err := q.Cancel(ctx, queued, 0); err != nil {
			t.Fatal(err)
		}
		testkit.WaitJob(t, q, queued, jobs.StatusCancelled)

		running, _ := q.Enqueue(ctx, jobs.NewJob{Kind: "long"})
		<-started
		t0 := time.Now()
		if err := q.Cancel(ctx, running, 0); err != nil {
			t.Fatal(err)
		}
		testkit.WaitJob(t, q, running, jobs.StatusCancelled)
		if took := time.Since(t0); took > 5*time.Second {
			t.Errorf("cancellation took %v", took)
		}
		if c, _ := sawCause.Load().(error); !errors.Is(c, jobs.ErrCancelled) {
			t.Errorf("handler saw cause %v, want ErrCancelled", c)
		}
		if err := q.Cancel(ctx, 999999, 0); !store.IsNotFound(err) {
			t.Errorf("cancel of a missing job: %v, want not found", err)
		}
	})
}

func TestStopReleasesLeasedJobs(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		db := testkit.NewDB(t, e)
		q := jobs.NewQueue(db, nil)
		started := make(chan struct{})
		p := jobs.NewPool(q, fastOptions(t))
		p.Handle("long", func(ctx context.Context, j *jobs.Job) error {
			close(started)
			<-ctx.Done()
			return ctx.Err()
		}, jobs.KindOptions{})
		p.Start()
		id, _ := q.Enqueue(context.Background(), jobs.NewJob{Kind: "long"})
		<-started
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		p.Stop(ctx)
		j := testkit.WaitJob(t, q, id, jobs.StatusQueued)
		if j.Attempts != 0 || j.LeaseToken.Valid {
			t.Fatalf("released job: attempts %d, lease %v; want 0 and none", j.Attempts, j.LeaseToken)
		}
	})
}

// TestTwoPoolsRunEachJobOnce: 1,000 jobs, two worker pools with their own
// connection pools on one database; every job runs exactly once.
func TestTwoPoolsRunEachJobOnce(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		url := testkit.DatabaseURL(t, e)
		dbA := testkit.OpenDB(t, e, url)
		if _, err := dbA.Migrate(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		dbB := testkit.OpenDB(t, e, url)
		qa, qb := jobs.NewQueue(dbA, nil), jobs.NewQueue(dbB, nil)

		const n = 1000
		var mu sync.Mutex
		runs := map[int64]int{}
		byPool := map[string]int{}
		var done sync.WaitGroup
		done.Add(n)
		handler := func(pool string) jobs.Handler {
			return func(ctx context.Context, j *jobs.Job) error {
				mu.Lock()
				runs[j.ID]++
				byPool[pool]++
				first := runs[j.ID] == 1
				mu.Unlock()
				if first {
					done.Done()
				}
				return nil
			}
		}
		// Enqueue first so both pools compete for a full queue.
		ctx := context.Background()
		for i := 0; i < n; i++ {
			if _, err := qa.Enqueue(ctx, jobs.NewJob{Kind: "count", Payload: map[string]int{"i": i}}); err != nil {
				t.Fatal(err)
			}
		}
		// A lease long enough that slow bookkeeping under -race (two
		// handles contending for one SQLite file) never expires it: this
		// test is about claiming, not rescue.
		opts := fastOptions(t)
		opts.Lease = 30 * time.Second
		startPool(t, qa, opts, map[string]jobs.Handler{"count": handler("a")})
		startPool(t, qb, opts, map[string]jobs.Handler{"count": handler("b")})
		wait := make(chan struct{})
		go func() { done.Wait(); close(wait) }()
		select {
		case <-wait:
		case <-time.After(60 * time.Second):
			t.Fatalf("only %d of %d jobs ran", len(runs), n)
		}
		time.Sleep(50 * time.Millisecond)
		mu.Lock()
		defer mu.Unlock()
		for id, c := range runs {
			if c != 1 {
				t.Errorf("job %d ran %d times", id, c)
			}
		}
		if byPool["a"] == 0 || byPool["b"] == 0 {
			t.Errorf("work not shared: %v", byPool)
		}
		var left int
		if err := store.Get(ctx, dbA.Reader(), &left, `SELECT COUNT(*) FROM jobs WHERE status <> 'succeeded'`); err != nil {
			t.Fatal(err)
		}
		// Bookkeeping may lag the handler by a moment.
		deadline := time.Now().Add(10 * time.Second)
		for left != 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
			_ = store.Get(ctx, dbA.Reader(), &left, `SELECT COUNT(*) FROM jobs WHERE status <> 'succeeded'`)
		}
		if left != 0 {
			t.Errorf("%d jobs not succeeded", left)
		}
		t.Logf("%s: pool a ran %d, pool b ran %d", e, byPool["a"], byPool["b"])
	})
}

// TestCrashedWorkerIsRescued: a worker process claims a job and is killed
// with SIGKILL mid-job; once its lease expires another pool runs the job,
// which completes exactly once.
func TestCrashedWorkerIsRescued(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		url := testkit.DatabaseURL(t, e)
		db := testkit.OpenDB(t, e, url)
		if _, err := db.Migrate(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		q := jobs.NewQueue(db, nil)
		id, err := q.Enqueue(context.Background(), jobs.NewJob{Kind: "crashy", MaxAttempts: 3})
		if err != nil {
			t.Fatal(err)
		}
		marker := t.TempDir() + "/claimed"
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "JOBS_TEST_WORKER=1", "JOBS_TEST_ENGINE="+string(e),
			"JOBS_TEST_URL="+url, "JOBS_TEST_MARKER="+marker)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			if _, err := os.Stat(marker); err == nil {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatal("worker process never claimed the job")
			}
			time.Sleep(10 * time.Millisecond)
		}
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		j, _ := q.Get(context.Background(), id)
		if j.Status != jobs.StatusRunning || j.Attempts != 1 {
			t.Fatalf("after the crash: status %s attempts %d, want running 1", j.Status, j.Attempts)
		}

		var runs atomic.Int32
		startPool(t, q, fastOptions(t), map[string]jobs.Handler{"crashy": func(context.Context, *jobs.Job) error {
			runs.Add(1)
			return nil
		}})
		j = testkit.WaitJob(t, q, id, jobs.StatusSucceeded)
		if runs.Load() != 1 || j.Attempts != 2 {
			t.Fatalf("rescued job ran %d times over %d attempts; want once, on attempt 2", runs.Load(), j.Attempts)
		}
	})
}

// crashWorker is the body of the child process of TestCrashedWorkerIsRescued:
// it claims the job, says so, and hangs until killed.
func crashWorker() {
	e := testkit.Engine(os.Getenv("JOBS_TEST_ENGINE"))
	opts := store.Options{SQLitePath: os.Getenv("JOBS_TEST_URL")}
	if e == testkit.Postgres {
		opts = store.Options{DatabaseURL: os.Getenv("JOBS_TEST_URL")}
	}
	db, err := store.Open(context.Background(), opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(2)
	}
	q := jobs.NewQueue(db, nil)
	o := fastOptions(nil)
	o.Lease = time.Second
	p := jobs.NewPool(q, o)
	p.Handle("crashy", func(ctx context.Context, j *jobs.Job) error {
		_ = os.WriteFile(os.Getenv("JOBS_TEST_MARKER"), []byte(strconv.FormatInt(j.ID, 10)), 0o600)
		select {} // hang until SIGKILL
	}, jobs.KindOptions{})
	p.Start()
	select {}
}

// TestRetryDoesNotCollideWithANewerUniqueJob: a job that fails and goes back
// to the queue must not clash with a job queued meanwhile under its key.
func TestRetryDoesNotCollideWithANewerUniqueJob(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		db := testkit.NewDB(t, e)
		q := jobs.NewQueue(db, nil)
		ctx := context.Background()
		release := make(chan struct{})
		var calls atomic.Int32
		startPool(t, q, fastOptions(t), map[string]jobs.Handler{"k": func(ctx context.Context, j *jobs.Job) error {
			if calls.Add(1) == 1 {
				<-release
				return errors.New("first attempt fails")
			}
			return nil
		}})
		first, _ := q.Enqueue(ctx, jobs.NewJob{Kind: "k", UniqueKey: "same", MaxAttempts: 3})
		for calls.Load() == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		second, err := q.Enqueue(ctx, jobs.NewJob{Kind: "k", UniqueKey: "same"})
		if err != nil || second == first {
			t.Fatalf("enqueue while the first runs: id %d err %v", second, err)
		}
		close(release)
		testkit.WaitJob(t, q, first, jobs.StatusSucceeded)
		testkit.WaitJob(t, q, second, jobs.StatusSucceeded)
	})
}

// TestOldestDueFirstBehindABacklog: with one worker, due jobs run oldest
// run_at first (whatever order they were queued in), jobs scheduled for
// later wait, and a claim on PostgreSQL reads the claim-order index
// rather than sorting the whole backlog.
func TestOldestDueFirstBehindABacklog(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		db := testkit.NewDB(t, e)
		fake := clock.NewFake(time.Now())
		q := jobs.NewQueue(db, fake)
		ctx := context.Background()
		now := fake.Now()
		// Queued in another order than they fall due (Enqueue moves a past
		// run_at to now, so they are scheduled ahead and the clock moves).
		for i, at := range []time.Duration{3 * time.Minute, time.Minute, 2 * time.Hour, 2 * time.Minute} {
			if _, err := q.Enqueue(ctx, jobs.NewJob{Kind: "work", Payload: map[string]int{"n": i}, RunAt: now.Add(at)}); err != nil {
				t.Fatal(err)
			}
		}
		if e == testkit.Postgres {
			var plan []string
			if err := store.Select(ctx, db.Reader(), &plan, `EXPLAIN SELECT id FROM jobs WHERE status = 'queued'
				AND run_at <= now() AND kind IN ('work') ORDER BY run_at, id LIMIT 3 FOR UPDATE SKIP LOCKED`); err != nil {
				t.Fatal(err)
			}
			if s := fmt.Sprint(plan); !strings.Contains(s, "jobs_due") || strings.Contains(s, "Sort") {
				t.Fatalf("the claim does not read jobs_due in order: %s", s)
			}
		}
		fake.Advance(5 * time.Minute)
		var mu sync.Mutex
		var order []int
		opts := fastOptions(t)
		opts.Clock, opts.Workers = fake, 1
		startPool(t, q, opts, map[string]jobs.Handler{"work": func(_ context.Context, j *jobs.Job) error {
			var p struct{ N int }
			if err := j.Decode(&p); err != nil {
				return err
			}
			mu.Lock()
			order = append(order, p.N)
			mu.Unlock()
			return nil
		}})
		deadline := time.Now().Add(10 * time.Second)
		for {
			mu.Lock()
			n := len(order)
			mu.Unlock()
			if n >= 3 || time.Now().After(deadline) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond) // the job of later must not run
		mu.Lock()
		defer mu.Unlock()
		// 1 was due at +1 min, 3 at +2 min, 0 at +3 min; 2 (+2 h) waits.
		if fmt.Sprint(order) != "[1 3 0]" {
			t.Fatalf("ran %v, want [1 3 0] (oldest due first, the later one waiting)", order)
		}
	})
}
