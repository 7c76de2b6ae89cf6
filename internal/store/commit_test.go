package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/apperr"
)

// TestCommitAfterTheClientLeft: a request whose context ends between its
// last statement and the commit gets its context's error (499, nothing
// written), not the driver's "transaction has already been committed or
// rolled back" (a 500 for nobody).
func TestCommitAfterTheClientLeft(t *testing.T) {
	db := openTestSQLite(t)
	ctx, cancel := context.WithCancel(context.Background())
	err := db.Tx(ctx, func(tx *sqlx.Tx) error {
		if _, err := Exec(ctx, tx, `UPDATE t SET n = n + 1 WHERE k = 'counter'`); err != nil {
			return err
		}
		cancel()
		time.Sleep(50 * time.Millisecond) // database/sql rolls back on its own
		return nil
	})
	var ae *apperr.Error
	if !errors.Is(err, context.Canceled) || (errors.As(err, &ae) && ae.Kind == apperr.KindInternal) {
		t.Fatalf("commit after the context ended: %v, want context.Canceled", err)
	}
	var n int
	if err := Get(context.Background(), db.Reader(), &n, `SELECT n FROM t WHERE k = 'counter'`); err != nil || n != 0 {
		t.Fatalf("counter %d (%v): the update must not have stayed", n, err)
	}
}

// TestStatementAfterTheDeadline: a transaction whose context reaches its
// deadline between two statements (a chat reply out of time) fails with
// the deadline (504), not with "transaction has already been committed or
// rolled back" (a 500), and leaves nothing written.
func TestStatementAfterTheDeadline(t *testing.T) {
	db := openTestSQLite(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	err := db.Tx(ctx, func(tx *sqlx.Tx) error {
		if _, err := Exec(ctx, tx, `UPDATE t SET n = n + 1 WHERE k = 'counter'`); err != nil {
			return err
		}
		<-ctx.Done()
		time.Sleep(50 * time.Millisecond) // database/sql rolls back on its own
		// Statements of a group run on a context that is never cancelled
		// (TxGroup's rule); the transaction itself ended with ctx.
		_, err := Exec(context.WithoutCancel(ctx), tx, `UPDATE t SET n = n + 1 WHERE k = 'counter'`)
		return err
	})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a statement after the deadline: %v, want context.DeadlineExceeded", err)
	}
	var n int
	if err := Get(context.Background(), db.Reader(), &n, `SELECT n FROM t WHERE k = 'counter'`); err != nil || n != 0 {
		t.Fatalf("counter %d (%v): the update must not have stayed", n, err)
	}
}
