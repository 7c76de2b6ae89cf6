package mail_test

import (
	"context"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/jobs"
	"concierge/internal/mail"
	"concierge/internal/mail/mailtest"
	"concierge/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// TestMailJobRetriesUntilDelivered: a temporary SMTP failure is retried and
// the message arrives exactly once; a permanent one ends the job dead.
func TestMailJobRetriesUntilDelivered(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		srv := mailtest.NewServer(t)
		m, err := mail.NewSMTP(srv.URL(), "", nil)
		if err != nil {
			t.Fatal(err)
		}
		db := testkit.NewDB(t, e)
		q := jobs.NewQueue(db, nil)
		pool := jobs.NewPool(q, jobs.Options{PollInterval: 10 * time.Millisecond, BackoffBase: 20 * time.Millisecond,
			Logger: testkit.TLogger(t)})
		mail.RegisterJobs(pool, m)
		pool.Start()
		t.Cleanup(func() { pool.Stop(context.Background()) })

		srv.FailNext(451, "try again later")
		var ok, bad int64
		err = db.Tx(context.Background(), func(tx *sqlx.Tx) error {
			var err error
			if ok, err = mail.Enqueue(context.Background(), q, tx, 0, mail.Message{To: []string{"lead@example.com"},
				Subject: "Hello", Text: "Thanks for your interest."}, ""); err != nil {
				return err
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		q.Wake()
		msgs, err := srv.WaitForMessages(1, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if msgs[0].Subject != "Hello" || msgs[0].To[0] != "lead@example.com" {
			t.Fatalf("received %+v", msgs[0])
		}
		testkit.WaitJob(t, q, ok, jobs.StatusSucceeded)
		j, _ := q.Get(context.Background(), ok)
		if j.Attempts != 2 {
			t.Errorf("attempts = %d, want 2 (one 451, one success)", j.Attempts)
		}

		srv.FailNext(550, "no such user")
		_ = db.Tx(context.Background(), func(tx *sqlx.Tx) error {
			bad, err = mail.Enqueue(context.Background(), q, tx, 0, mail.Message{To: []string{"gone@example.com"},
				Subject: "Hi", Text: "x"}, "")
			return err
		})
		j = testkit.WaitJob(t, q, bad, jobs.StatusDead)
		if j.Attempts != 1 {
			t.Errorf("permanent failure retried: %d attempts", j.Attempts)
		}
		time.Sleep(50 * time.Millisecond)
		if n := len(srv.Messages()); n != 1 {
			t.Errorf("%d messages delivered, want exactly 1", n)
		}
	})
}

func TestEnqueueRejectsInvalidMessages(t *testing.T) {
	db := testkit.NewDB(t, testkit.SQLite)
	q := jobs.NewQueue(db, nil)
	_, err := mail.Enqueue(context.Background(), q, db.Writer(), 0, mail.Message{To: []string{"a@b.co\r\nBcc: x@y.z"}, Text: "x"}, "")
	if err == nil {
		t.Fatal("header injection enqueued")
	}
}
