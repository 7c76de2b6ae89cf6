package store

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

//go:embed migrations/sqlite/*.sql migrations/postgres/*.sql
var migrations embed.FS

func (db *DB) provider(log *slog.Logger) (*goose.Provider, error) {
	dir := "migrations/sqlite"
	dialect := goose.DialectSQLite3
	var opts []goose.ProviderOption
	if db.dialect == Postgres {
		dir = "migrations/postgres"
		dialect = goose.DialectPostgres
		// Several replicas may start at once; an advisory lock makes one
		// of them migrate while the others wait.
		locker, err := lock.NewPostgresSessionLocker()
		if err != nil {
			return nil, fmt.Errorf("store: migration lock: %w", err)
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	if log != nil {
		opts = append(opts, goose.WithSlog(log))
	}
	sub, err := fs.Sub(migrations, dir)
	if err != nil {
		return nil, fmt.Errorf("store: migrations: %w", err)
	}
	opts = append(opts, goose.WithDisableGlobalRegistry(true))
	return goose.NewProvider(dialect, db.w.DB, sub, opts...)
}

// Migrate applies every pending migration and reports how many ran.
func (db *DB) Migrate(ctx context.Context, log *slog.Logger) (int, error) {
	p, err := db.provider(log)
	if err != nil {
		return 0, err
	}
	res, err := p.Up(ctx)
	if err != nil {
		return len(res), fmt.Errorf("store: migrate: %w", err)
	}
	return len(res), nil
}

// MigrateTo applies the pending migrations up to version (tests of a
// migration over data written before it).
func (db *DB) MigrateTo(ctx context.Context, version int64) error {
	p, err := db.provider(nil)
	if err != nil {
		return err
	}
	if _, err := p.UpTo(ctx, version); err != nil {
		return fmt.Errorf("store: migrate to %d: %w", version, err)
	}
	return nil
}

// MigrationVersion reports the applied and the latest known versions.
func (db *DB) MigrationVersion(ctx context.Context) (current, latest int64, err error) {
	p, err := db.provider(nil)
	if err != nil {
		return 0, 0, err
	}
	return p.GetVersions(ctx)
}
