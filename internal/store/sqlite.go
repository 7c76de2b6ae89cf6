package store

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"

	"github.com/jmoiron/sqlx"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// sqlitePragmas apply to every connection: WAL so readers never block the
// writer, a busy timeout for other processes (the CLI) holding the lock,
// foreign keys (off by default and per connection in SQLite), NORMAL
// synchronous, which in WAL mode loses nothing on an application crash, and
// temporary files in memory: a transaction of DB.TxGroup keeps each member
// in a savepoint, whose journal would otherwise spill to a temporary file
// past 64 KiB and cost a write(2) per page for the rest of the transaction.
var sqlitePragmas = []string{
	"journal_mode(WAL)",
	"busy_timeout(5000)",
	"foreign_keys(1)",
	"synchronous(NORMAL)",
	"temp_store(MEMORY)",
}

func sqliteDSN(path string, writer bool) string {
	q := url.Values{}
	for _, p := range sqlitePragmas {
		q.Add("_pragma", p)
	}
	q.Set("_time_format", "sqlite")
	if writer {
		q.Set("_txlock", "immediate")
	} else {
		q.Add("_pragma", "query_only(1)")
	}
	return "file:" + path + "?" + q.Encode()
}

func openSQLite(opts Options) (*DB, error) {
	path := opts.SQLitePath
	if path == "" {
		return nil, fmt.Errorf("store: no database: set DATABASE_URL or a SQLite path")
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("store: create database directory: %w", err)
		}
	}
	if err := restrictFiles(path); err != nil {
		return nil, err
	}
	w, err := sqlx.Open("sqlite", sqliteDSN(path, true))
	if err != nil {
		return nil, fmt.Errorf("store: open sqlite: %w", err)
	}
	// One writer connection: SQLite allows one writer at a time, and
	// queueing writers in Go (context-aware) beats SQLITE_BUSY retries.
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	// The writer must exist first: it switches the file to WAL, which the
	// query-only readers cannot do.
	if _, err := w.Exec("SELECT 1"); err != nil {
		w.Close()
		return nil, fmt.Errorf("store: open sqlite: %w", err)
	}
	r, err := sqlx.Open("sqlite", sqliteDSN(path, false))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("store: open sqlite: %w", err)
	}
	r.SetMaxOpenConns(opts.MaxOpenConns)
	r.SetMaxIdleConns(opts.MaxOpenConns)
	r.SetConnMaxLifetime(0)
	return &DB{dialect: SQLite, w: w, r: r, wq: &cachedHandle{DB: w}, rq: &cachedHandle{DB: r}}, nil
}

// restrictFiles makes the database readable by its owner only. SQLite
// creates the -wal and -shm files with the mode of the database file, so a
// database created 0600 here keeps all three private; files left by an
// older version are narrowed too.
func restrictFiles(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("store: create database file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("store: create database file: %w", err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		if err := os.Chmod(p, 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("store: restrict database file: %w", err)
		}
	}
	return nil
}
