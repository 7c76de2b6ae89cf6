// Package store opens the database (SQLite by default, PostgreSQL when a URL
// is given), applies the migrations, runs transactions, and turns driver
// errors into the domain vocabulary of package apperr. Each area keeps its own
// SQL in its own package and runs it through the helpers here.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"
)

// Dialect names a database engine.
type Dialect string

// The supported engines.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// Options says what to open.
type Options struct {
	// DatabaseURL selects PostgreSQL when set (postgres://...).
	DatabaseURL string
	// SQLitePath is the database file used when DatabaseURL is empty.
	SQLitePath string
	// MaxOpenConns bounds the PostgreSQL pool and the SQLite reader pool.
	MaxOpenConns int
}

// DB is the shared database handle. On SQLite, writes go through a single
// connection (SQLite has one writer; serialising in Go avoids SQLITE_BUSY)
// and reads through a pool. On PostgreSQL both are the same pool.
type DB struct {
	dialect Dialect
	w       *sqlx.DB
	r       *sqlx.DB
	// wq and rq are what Writer and Reader hand out: on SQLite, handles
	// that reuse prepared statements.
	wq, rq Q
	// group runs TxGroup's transactions on SQLite (see group.go), made
	// on first use.
	groupOnce sync.Once
	group     *group
	// sig holds this process's subscribers to commit signals (signal.go).
	sig signals
}

// Open connects to the database described by opts. It does not migrate.
func Open(ctx context.Context, opts Options) (*DB, error) {
	if opts.MaxOpenConns <= 0 {
		opts.MaxOpenConns = 16
	}
	var (
		db  *DB
		err error
	)
	if opts.DatabaseURL != "" {
		db, err = openPostgres(opts)
	} else {
		db, err = openSQLite(opts)
	}
	if err != nil {
		return nil, err
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.Ping(pingCtx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: connect: %w", err)
	}
	return db, nil
}

// Dialect reports the engine.
func (db *DB) Dialect() Dialect { return db.dialect }

// Writer is the handle for writes outside a transaction.
func (db *DB) Writer() Q { return db.wq }

// Reader is the handle for reads outside a transaction.
func (db *DB) Reader() Q { return db.rq }

// Ping checks that both handles reach the database.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.w.PingContext(ctx); err != nil {
		return err
	}
	if db.r != db.w {
		return db.r.PingContext(ctx)
	}
	return nil
}

// Close closes every connection.
func (db *DB) Close() error {
	db.groupOnce.Do(func() {}) // no group from now on
	if db.group != nil {
		db.group.stop()
	}
	for _, q := range []Q{db.wq, db.rq} {
		if h, ok := q.(*cachedHandle); ok {
			h.close()
		}
	}
	err := db.w.Close()
	if db.r != db.w {
		err = errors.Join(err, db.r.Close())
	}
	return err
}

// Q is what store code runs SQL on: a database handle or a transaction. It is
// satisfied by *sqlx.DB and *sqlx.Tx. Queries are written with ? placeholders;
// the helpers below rebind them for the engine.
type Q interface {
	GetContext(ctx context.Context, dest any, query string, args ...any) error
	SelectContext(ctx context.Context, dest any, query string, args ...any) error
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryxContext(ctx context.Context, query string, args ...any) (*sqlx.Rows, error)
	Rebind(query string) string
}

// Get runs a query that returns one row into dest. No row is ErrNotFound.
func Get(ctx context.Context, q Q, dest any, query string, args ...any) error {
	query = q.Rebind(query)
	if st := txStmt(ctx, q, query); st != nil {
		return Normalize(st.GetContext(ctx, dest, args...))
	}
	return Normalize(q.GetContext(ctx, dest, query, args...))
}

// Select runs a query into a slice.
func Select(ctx context.Context, q Q, dest any, query string, args ...any) error {
	query = q.Rebind(query)
	if st := txStmt(ctx, q, query); st != nil {
		return Normalize(st.SelectContext(ctx, dest, args...))
	}
	return Normalize(q.SelectContext(ctx, dest, query, args...))
}

// Exec runs a statement and reports the number of rows it affected.
func Exec(ctx context.Context, q Q, query string, args ...any) (int64, error) {
	query = q.Rebind(query)
	var (
		res sql.Result
		err error
	)
	if st := txStmt(ctx, q, query); st != nil {
		res, err = st.ExecContext(ctx, args...)
	} else {
		res, err = q.ExecContext(ctx, query, args...)
	}
	if err != nil {
		return 0, Normalize(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, Normalize(err)
	}
	return n, nil
}

// Tx runs fn in a transaction and commits when fn returns nil. On SQLite the
// transaction starts with BEGIN IMMEDIATE (it takes the write lock up front,
// so two read-then-write transactions cannot deadlock); on PostgreSQL a
// serialization failure or deadlock is retried a few times.
func (db *DB) Tx(ctx context.Context, fn func(tx *sqlx.Tx) error) error {
	const attempts = 3
	var err error
	for i := 0; i < attempts; i++ {
		err = db.tx(ctx, fn)
		if err == nil || !isRetryable(err) || ctx.Err() != nil {
			return err
		}
		time.Sleep(time.Duration(i+1) * 5 * time.Millisecond)
	}
	return err
}

// TxGroup is Tx for small, frequent transactions (a chat reply's
// bookkeeping). On SQLite, transactions that arrive while the writer is
// busy run together in one transaction with one commit: each in a
// savepoint of its own, so that its error rolls back its changes only.
// TxGroup returns once the shared transaction has committed (or failed,
// which fails every transaction of the group that had not failed on its
// own). A transaction sees the changes of those before it in the group,
// as it would once they committed. On PostgreSQL it is Tx.
//
// fn must run its statements on a context that is not cancelled midway
// (context.WithoutCancel): on SQLite an interrupted write rolls back the
// whole shared transaction, failing the others of the group. ctx only
// bounds the wait for the writer.
func (db *DB) TxGroup(ctx context.Context, fn func(tx *sqlx.Tx) error) error {
	if db.dialect != SQLite {
		return db.Tx(ctx, fn)
	}
	db.groupOnce.Do(func() { db.group = newGroup(db) })
	if db.group == nil {
		return errClosed
	}
	return db.group.run(ctx, fn)
}

func (db *DB) tx(ctx context.Context, fn func(tx *sqlx.Tx) error) (err error) {
	tx, err := db.w.BeginTxx(ctx, nil)
	if err != nil {
		return Normalize(fmt.Errorf("store: begin: %w", err))
	}
	if h, ok := db.wq.(*cachedHandle); ok {
		// SQLite: statements of the transaction reuse the writer's
		// prepared statements (see txStmt). Texts met for the first time
		// are prepared once the transaction has given the writer's only
		// connection back: preparing through the pool now would wait for
		// it forever.
		st := &txState{h: h}
		txStates.Store(tx, st)
		defer func() {
			txStates.Delete(tx)
			st.prepareMissed(ctx)
		}()
	}
	topics := &txTopics{db: db}
	txSignals.Store(tx, topics)
	defer func() {
		txSignals.Delete(tx)
		if p := recover(); p != nil {
			_ = tx.Rollback()
			panic(p)
		}
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	if err = fn(tx); err != nil {
		return ended(ctx, err, "store: tx")
	}
	if err = tx.Commit(); err != nil {
		return Normalize(ended(ctx, err, "store: commit"))
	}
	db.committed(topics)
	return nil
}

// ended names the context's end as the error when the transaction failed
// because it ended: database/sql rolled the transaction back when ctx was
// cancelled or reached its deadline, and every later statement or the
// commit says only "transaction has already been committed or rolled
// back". Nothing was written, and the caller learns why (a client gone, a
// reply out of time), which is not a fault of the service.
func ended(ctx context.Context, err error, what string) error {
	if errors.Is(err, sql.ErrTxDone) && ctx.Err() != nil {
		return fmt.Errorf("%s: %w", what, ctx.Err())
	}
	if what == "store: commit" {
		return fmt.Errorf("%s: %w", what, err)
	}
	return err
}

// InList returns the placeholders of an IN list for vals, padded to a power
// of two by repeating the last value (which changes nothing an IN list
// matches), and the padded values: lists of varying length then share a
// handful of statement texts, each prepared once, instead of one each.
// vals must not be empty.
func InList(vals []any) (string, []any) {
	n := 1
	for n < len(vals) {
		n *= 2
	}
	padded := make([]any, n)
	copy(padded, vals)
	for i := len(vals); i < n; i++ {
		padded[i] = vals[len(vals)-1]
	}
	return Placeholders(n), padded
}

// Rows returns n parenthesised groups of width placeholders, for a
// multi-row INSERT: "(?, ?), (?, ?)".
func Rows(n, width int) string {
	if n <= 0 {
		return ""
	}
	row := "(" + Placeholders(width) + ")"
	return strings.Repeat(row+", ", n-1) + row
}

// PowerChunks cuts n items into chunks whose sizes are powers of two, at
// most maxChunk (itself a power of two), largest first: 23 is 16, 4, 2, 1.
// A multi-row statement then has a handful of texts, each prepared once,
// rather than one per row count.
func PowerChunks(n, maxChunk int) []int {
	var out []int
	for size := maxChunk; n > 0 && size > 0; size /= 2 {
		for n >= size {
			out = append(out, size)
			n -= size
		}
	}
	return out
}

// Placeholders returns "?, ?, ?" for n arguments.
func Placeholders(n int) string {
	if n <= 0 {
		return ""
	}
	return strings.Repeat("?, ", n-1) + "?"
}
