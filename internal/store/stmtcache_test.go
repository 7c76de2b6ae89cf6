package store

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/jmoiron/sqlx"
)

// TestSQLiteTxReusesPreparedStatements: a statement run inside a SQLite
// transaction is prepared once, after the transaction that first ran it,
// and later transactions run the cached statement.
func TestSQLiteTxReusesPreparedStatements(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, Options{SQLitePath: filepath.Join(t.TempDir(), "c.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := Exec(ctx, db.Writer(), `CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	const ins = `INSERT INTO t (v) VALUES (?) RETURNING id`
	const sum = `SELECT COALESCE(SUM(v), 0) FROM t`
	h := db.wq.(*cachedHandle)
	var used []*sqlx.Stmt
	for i := 1; i <= 3; i++ {
		err := db.Tx(ctx, func(tx *sqlx.Tx) error {
			used = append(used, txStmt(ctx, tx, ins))
			var id int64
			if err := Get(ctx, tx, &id, ins, i); err != nil {
				return err
			}
			var s int64
			if err := Get(ctx, tx, &s, sum); err != nil {
				return err
			}
			if want := int64(i * (i + 1) / 2); s != want {
				t.Errorf("tx %d: sum %d, want %d", i, s, want)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("tx %d: %v", i, err)
		}
		if h.cached(ins) == nil || h.cached(sum) == nil {
			t.Fatalf("after tx %d: statements not cached", i)
		}
	}
	if used[0] != nil || used[1] == nil || used[2] == nil {
		t.Errorf("cached statement in tx 1, 2, 3: %v, %v, %v; want none, then one", used[0] != nil, used[1] != nil, used[2] != nil)
	}
	n := 0
	txStates.Range(func(any, any) bool { n++; return true })
	if n != 0 {
		t.Errorf("%d transaction states left behind", n)
	}
	// A rolled-back transaction leaves the cache usable.
	_ = db.Tx(ctx, func(tx *sqlx.Tx) error {
		_, _ = Exec(ctx, tx, `INSERT INTO t (v) VALUES (?)`, 100)
		return context.Canceled
	})
	var s int64
	if err := Get(ctx, db.Reader(), &s, sum); err != nil || s != 6 {
		t.Fatalf("after rollback: sum %d err %v, want 6", s, err)
	}
}
