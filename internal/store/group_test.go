package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/jmoiron/sqlx"
)

func openTestSQLite(t *testing.T) *DB {
	t.Helper()
	ctx := context.Background()
	db, err := Open(ctx, Options{SQLitePath: filepath.Join(t.TempDir(), "g.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := Exec(ctx, db.Writer(), `CREATE TABLE t (id INTEGER PRIMARY KEY, k TEXT NOT NULL UNIQUE, n INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	if _, err := Exec(ctx, db.Writer(), `INSERT INTO t (k, n) VALUES ('counter', 0)`); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestTxGroupSharesCommitsAndIsolatesFailures: transactions queued while
// the writer is busy share one commit; one that fails or panics undoes its
// own changes only, and its caller alone sees the error or the panic.
func TestTxGroupSharesCommitsAndIsolatesFailures(t *testing.T) {
	db := openTestSQLite(t)
	ctx := context.Background()
	// Hold the writer so that the next ones queue up and form one group.
	release := make(chan struct{})
	first := make(chan error, 1)
	entered := make(chan struct{})
	go func() {
		first <- db.TxGroup(ctx, func(tx *sqlx.Tx) error {
			close(entered)
			<-release
			_, err := Exec(ctx, tx, `INSERT INTO t (k, n) VALUES ('first', 1)`)
			return err
		})
	}()
	<-entered
	boom := errors.New("boom")
	const n = 30
	errs := make([]error, n)
	panics := make([]any, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			defer func() { panics[i] = recover() }()
			errs[i] = db.TxGroup(ctx, func(tx *sqlx.Tx) error {
				if _, err := Exec(ctx, tx, `UPDATE t SET n = n + 1 WHERE k = 'counter'`); err != nil {
					return err
				}
				if _, err := Exec(ctx, tx, `INSERT INTO t (k, n) VALUES (?, ?)`, fmt.Sprint("row", i), i); err != nil {
					return err
				}
				switch i % 10 {
				case 3:
					return boom
				case 7:
					panic("kaboom")
				case 9:
					// A statement error (a duplicate key) mid-transaction.
					_, err := Exec(ctx, tx, `INSERT INTO t (k, n) VALUES ('first', 0)`)
					return err
				}
				return nil
			})
		})
	}
	// Wait until every goroutine is queued (blocked in the send), then let
	// the writer go.
	for db.group.waiting() < n {
		runtime.Gosched()
	}
	before := db.group.commits.Load()
	close(release)
	wg.Wait()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	ok := 0
	for i := range n {
		switch i % 10 {
		case 3:
			if !errors.Is(errs[i], boom) {
				t.Errorf("tx %d: err %v, want boom", i, errs[i])
			}
		case 7:
			if panics[i] != "kaboom" {
				t.Errorf("tx %d: panic %v, want kaboom", i, panics[i])
			}
		case 9:
			if !IsConflict(errs[i]) {
				t.Errorf("tx %d: err %v, want a conflict", i, errs[i])
			}
		default:
			ok++
			if errs[i] != nil || panics[i] != nil {
				t.Errorf("tx %d: err %v panic %v", i, errs[i], panics[i])
			}
		}
	}
	var counter, rows int
	if err := Get(ctx, db.Reader(), &counter, `SELECT n FROM t WHERE k = 'counter'`); err != nil {
		t.Fatal(err)
	}
	if err := Get(ctx, db.Reader(), &rows, `SELECT COUNT(*) FROM t WHERE k LIKE 'row%'`); err != nil {
		t.Fatal(err)
	}
	if counter != ok || rows != ok {
		t.Errorf("counter %d, rows %d, want %d each", counter, rows, ok)
	}
	if c := db.group.commits.Load() - before; c >= n/2 {
		t.Errorf("%d transactions took %d commits: not grouped", n, c)
	}
}

// TestTxGroupAfterClose fails instead of waiting forever.
func TestTxGroupAfterClose(t *testing.T) {
	db := openTestSQLite(t)
	ctx := context.Background()
	if err := db.TxGroup(ctx, func(tx *sqlx.Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if err := db.TxGroup(ctx, func(tx *sqlx.Tx) error { return nil }); !errors.Is(err, errClosed) {
		t.Fatalf("after close: %v", err)
	}
}

// TestSQLiteTempStoreInMemory: savepoint journals of a group never spill
// to temporary files.
func TestSQLiteTempStoreInMemory(t *testing.T) {
	db := openTestSQLite(t)
	for _, q := range []Q{db.Writer(), db.Reader()} {
		var v int
		if err := Get(context.Background(), q, &v, `PRAGMA temp_store`); err != nil || v != 2 {
			t.Errorf("temp_store = %d (%v), want 2 (memory)", v, err)
		}
	}
}
