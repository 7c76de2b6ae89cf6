package store_test

import (
	"context"
	"errors"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jmoiron/sqlx"

	"concierge/internal/apperr"
	"concierge/internal/store"
	"concierge/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// columns lists table.column of every table of the schema.
func columns(t *testing.T, db *store.DB) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	switch db.Dialect() {
	case store.SQLite:
		var tables []string
		if err := store.Select(ctx, db.Reader(), &tables, `SELECT name FROM sqlite_master WHERE type = 'table'
			AND name NOT LIKE 'sqlite_%' AND name <> 'goose_db_version'`); err != nil {
			t.Fatal(err)
		}
		for _, tb := range tables {
			var cols []string
			if err := store.Select(ctx, db.Reader(), &cols, `SELECT name FROM pragma_table_info(?)`, tb); err != nil {
				t.Fatal(err)
			}
			for _, c := range cols {
				out = append(out, tb+"."+c)
			}
		}
	case store.Postgres:
		if err := store.Select(ctx, db.Reader(), &out, `SELECT table_name || '.' || column_name FROM information_schema.columns
			WHERE table_schema = 'public' AND table_name <> 'goose_db_version'`); err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(out)
	return out
}

func TestBothDialectsHaveTheSameSchema(t *testing.T) {
	got := map[testkit.Engine][]string{}
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		got[e] = columns(t, testkit.NewDB(t, e))
		if len(got[e]) < 10 {
			t.Fatalf("%s: suspiciously few columns: %v", e, got[e])
		}
	})
	if len(got) == 2 {
		if diff := cmp.Diff(got[testkit.SQLite], got[testkit.Postgres]); diff != "" {
			t.Errorf("schemas differ (-sqlite +postgres):\n%s", diff)
		}
	}
}

func TestMigrateIsIdempotent(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		db := testkit.NewDB(t, e)
		n, err := db.Migrate(context.Background(), nil)
		if err != nil || n != 0 {
			t.Fatalf("second migrate: applied %d, err %v", n, err)
		}
		cur, latest, err := db.MigrationVersion(context.Background())
		if err != nil || cur != latest || cur == 0 {
			t.Fatalf("version %d/%d err %v", cur, latest, err)
		}
	})
}

func insertWorkspace(t *testing.T, q store.Q, email string) int64 {
	t.Helper()
	var id int64
	now := time.Now().UTC()
	err := store.Get(context.Background(), q, &id, `INSERT INTO workspaces (email, password_hash, created_at, updated_at)
		VALUES (?, 'x', ?, ?) RETURNING id`, email, now, now)
	if err != nil {
		t.Fatalf("insert workspace: %v", err)
	}
	return id
}

func TestErrorsAreNormalised(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		db := testkit.NewDB(t, e)
		ctx := context.Background()
		insertWorkspace(t, db.Writer(), "a@example.com")

		now := time.Now().UTC()
		_, err := store.Exec(ctx, db.Writer(), `INSERT INTO workspaces (email, password_hash, created_at, updated_at)
			VALUES (?, 'x', ?, ?)`, "a@example.com", now, now)
		if !store.IsConflict(err) || !errors.Is(err, apperr.ErrConflict) {
			t.Errorf("duplicate e-mail: got %v, want a conflict", err)
		}

		var id int64
		err = store.Get(ctx, db.Reader(), &id, `SELECT id FROM workspaces WHERE email = ?`, "nobody@example.com")
		if !store.IsNotFound(err) {
			t.Errorf("missing row: got %v, want not found", err)
		}

		_, err = store.Exec(ctx, db.Writer(), `INSERT INTO bots (workspace_id, bot_key, name, created_at, updated_at)
			VALUES (?, 'k1', 'b', ?, ?)`, 999999, now, now)
		if !store.IsConflict(err) {
			t.Errorf("foreign key violation: got %v, want a conflict (foreign keys must be on)", err)
		}
	})
}

func TestTransactionsRollBack(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		db := testkit.NewDB(t, e)
		ctx := context.Background()
		boom := errors.New("boom")
		err := db.Tx(ctx, func(tx *sqlx.Tx) error {
			insertWorkspace(t, tx, "rollback@example.com")
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("tx error = %v", err)
		}
		var n int
		if err := store.Get(ctx, db.Reader(), &n, `SELECT COUNT(*) FROM workspaces`); err != nil || n != 0 {
			t.Fatalf("after rollback: %d rows, err %v", n, err)
		}
	})
}

// TestTimesRoundTripAndCompare checks that timestamps written from Go come
// back as the same instant and compare chronologically in SQL on both
// engines (SQLite stores text, so the format must sort).
func TestTimesRoundTripAndCompare(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		db := testkit.NewDB(t, e)
		ctx := context.Background()
		base := time.Date(2026, 11, 21, 23, 0, 0, 0, time.UTC)
		offsets := []time.Duration{0, 500 * time.Millisecond, 450 * time.Millisecond, time.Microsecond, 2 * time.Second}
		for i, off := range offsets {
			at := base.Add(off)
			_, err := store.Exec(ctx, db.Writer(), `INSERT INTO workspaces (email, password_hash, created_at, updated_at)
				VALUES (?, 'x', ?, ?)`, strings.Repeat("a", i+1)+"@example.com", at, at)
			if err != nil {
				t.Fatal(err)
			}
		}
		var n int
		if err := store.Get(ctx, db.Reader(), &n, `SELECT COUNT(*) FROM workspaces WHERE created_at > ?`,
			base.Add(450*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		if n != 2 {
			t.Errorf("rows after +450ms: %d, want 2", n)
		}
		var got time.Time
		if err := store.Get(ctx, db.Reader(), &got, `SELECT created_at FROM workspaces WHERE email = 'aa@example.com'`); err != nil {
			t.Fatal(err)
		}
		if !got.Equal(base.Add(500 * time.Millisecond)) {
			t.Errorf("round trip: got %v", got)
		}
	})
}

// TestSQLiteConnectionSettings checks every pooled connection, not just the
// first: SQLite's foreign_keys pragma is per connection.
func TestSQLiteConnectionSettings(t *testing.T) {
	db := testkit.NewDB(t, testkit.SQLite)
	ctx := context.Background()
	for _, q := range []store.Q{db.Writer(), db.Reader()} {
		var wg sync.WaitGroup
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var fk, busy int
				var mode, sync string
				if err := store.Get(ctx, q, &fk, `PRAGMA foreign_keys`); err != nil || fk != 1 {
					t.Errorf("foreign_keys = %d (%v)", fk, err)
				}
				if err := store.Get(ctx, q, &mode, `PRAGMA journal_mode`); err != nil || mode != "wal" {
					t.Errorf("journal_mode = %q (%v)", mode, err)
				}
				if err := store.Get(ctx, q, &busy, `PRAGMA busy_timeout`); err != nil || busy < 5000 {
					t.Errorf("busy_timeout = %d (%v)", busy, err)
				}
				if err := store.Get(ctx, q, &sync, `PRAGMA synchronous`); err != nil || sync != "1" {
					t.Errorf("synchronous = %q, want 1 (NORMAL) (%v)", sync, err)
				}
			}()
		}
		wg.Wait()
	}
	// The reader pool refuses writes: they must go through the single writer.
	_, err := store.Exec(ctx, db.Reader(), `DELETE FROM workspaces`)
	if err == nil {
		t.Error("a write through the reader pool succeeded")
	}
}

// TestSQLiteConcurrentWriters: many read-then-write transactions at once
// never surface SQLITE_BUSY (G16a).
func TestSQLiteConcurrentWriters(t *testing.T) {
	db := testkit.NewDB(t, testkit.SQLite)
	ctx := context.Background()
	id := insertWorkspace(t, db.Writer(), "counter@example.com")
	var wg sync.WaitGroup
	errs := make(chan error, 50*40)
	for w := 0; w < 50; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 40; i++ {
				errs <- db.Tx(ctx, func(tx *sqlx.Tx) error {
					var n int
					if err := store.Get(ctx, tx, &n, `SELECT code_lock_failures FROM workspaces WHERE id = ?`, id); err != nil {
						return err
					}
					_, err := store.Exec(ctx, tx, `UPDATE workspaces SET code_lock_failures = ? WHERE id = ?`, n+1, id)
					return err
				})
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("transaction failed: %v", err)
		}
	}
	var n int
	if err := store.Get(ctx, db.Reader(), &n, `SELECT code_lock_failures FROM workspaces WHERE id = ?`, id); err != nil {
		t.Fatal(err)
	}
	if n != 50*40 {
		t.Fatalf("counter = %d, want %d (lost updates)", n, 50*40)
	}
}

// TestBotCountFollowsBots: the database keeps workspaces.bot_count in step
// with the bots table, in the same transaction.
func TestBotCountFollowsBots(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		db := testkit.NewDB(t, e)
		ctx := context.Background()
		a := insertWorkspace(t, db.Writer(), "a@example.com")
		b := insertWorkspace(t, db.Writer(), "b@example.com")
		now := time.Now().UTC()
		for i, ws := range []int64{a, a, a, b} {
			if _, err := store.Exec(ctx, db.Writer(), `INSERT INTO bots (workspace_id, bot_key, name, created_at, updated_at)
				VALUES (?, ?, 'bot', ?, ?)`, ws, "key"+strings.Repeat("x", i+4), now, now); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := store.Exec(ctx, db.Writer(), `DELETE FROM bots WHERE bot_key = 'keyxxxx'`); err != nil {
			t.Fatal(err)
		}
		boom := errors.New("rolled back")
		_ = db.Tx(ctx, func(tx *sqlx.Tx) error {
			_, _ = store.Exec(ctx, tx, `INSERT INTO bots (workspace_id, bot_key, name, created_at, updated_at)
				VALUES (?, 'rolled', 'bot', ?, ?)`, b, now, now)
			return boom
		})
		for ws, want := range map[int64]int{a: 2, b: 1} {
			var n int
			if err := store.Get(ctx, db.Reader(), &n, `SELECT bot_count FROM workspaces WHERE id = ?`, ws); err != nil {
				t.Fatal(err)
			}
			if n != want {
				t.Errorf("workspace %d: bot_count %d, want %d", ws, n, want)
			}
		}
	})
}
