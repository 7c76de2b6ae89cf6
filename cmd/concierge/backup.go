package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"concierge/internal/store"
)

// backupCommand writes a consistent copy of the SQLite database while the
// server keeps running (VACUUM INTO reads one snapshot of the WAL
// database; writers are not blocked). PostgreSQL is backed up with its own
// tools (pg_dump, or base backups with WAL archiving): the command says so
// rather than doing half of it. The secret key is not part of the copy:
// it is backed up separately (it unseals the stored secrets).
func backupCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, dataDir := operatorFlags("backup", stderr)
	out := fs.String("out", "", "file to write the copy to (must not exist; default ./concierge-backup-<UTC time>.db)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	path := *out
	if path == "" {
		path = "concierge-backup-" + time.Now().UTC().Format("20060102T150405Z") + ".db"
	}
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("backup: %s exists; choose another --out", path)
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("backup: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	return withDB(ctx, *dataDir, getenv, stderr, func(db *store.DB, _ *slog.Logger) error {
		if db.Dialect() == store.Postgres {
			return errors.New("backup: the database is PostgreSQL; back it up with pg_dump (or base backups " +
				"and WAL archiving), see docs/deploy.md")
		}
		start := time.Now()
		if _, err := db.Writer().ExecContext(ctx, `VACUUM INTO ?`, abs); err != nil {
			_ = os.Remove(abs)
			return fmt.Errorf("backup: %w", err)
		}
		if err := os.Chmod(abs, 0o600); err != nil {
			return err
		}
		st, err := os.Stat(abs)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s (%d bytes, %d ms); keep the secret key (secret.key or CONCIERGE_SECRET_KEY) "+
			"backed up separately: the copy's sealed secrets need it\n", abs, st.Size(), time.Since(start).Milliseconds())
		return nil
	})
}
