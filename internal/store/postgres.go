package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	"github.com/jmoiron/sqlx"
)

func openPostgres(opts Options) (*DB, error) {
	db, err := sqlx.Open("pgx", opts.DatabaseURL)
	if err != nil {
		return nil, fmt.Errorf("store: open postgres: %w", err)
	}
	db.SetMaxOpenConns(opts.MaxOpenConns)
	db.SetMaxIdleConns(opts.MaxOpenConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	db.SetConnMaxLifetime(time.Hour)
	return &DB{dialect: Postgres, w: db, r: db, wq: db, rq: db}, nil
}

// Pgx runs fn on the native pgx connection under one connection of the
// reader pool (PostgreSQL only), for hot reads that should skip
// database/sql's row machinery and sqlx's reflection. The connection goes
// back to the pool when fn returns; fn must not keep it. Errors are
// normalized as Get's are (pgx.ErrNoRows is not found).
func (db *DB) Pgx(ctx context.Context, fn func(conn *pgx.Conn) error) error {
	if db.dialect != Postgres {
		return fmt.Errorf("store: Pgx on %s", db.dialect)
	}
	c, err := db.r.Conn(ctx)
	if err != nil {
		return Normalize(err)
	}
	defer c.Close()
	return Normalize(c.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("store: driver connection is %T, not pgx", dc)
		}
		return fn(sc.Conn())
	}))
}
