package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"concierge/internal/apperr"
)

// unavailableRetry is what a caller is told to wait when the database is
// unreachable or locked.
const unavailableRetry = 2 * time.Second

// Normalize turns driver errors into apperr kinds so that areas never look at
// driver types: no rows is not found; unique and foreign-key violations are
// conflicts; a database that cannot be reached is unavailable (503 with
// Retry-After, never a 500 after a partial write). Other errors pass through.
func Normalize(err error) error {
	if err == nil {
		return nil
	}
	var ae *apperr.Error
	if errors.As(err, &ae) {
		return err
	}
	if errors.Is(err, sql.ErrNoRows) {
		return &apperr.Error{Kind: apperr.KindNotFound, Message: "not found", Err: err}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return &apperr.Error{Kind: apperr.KindConflict, Message: "already exists", Err: err}
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY, sqlite3.SQLITE_CONSTRAINT_CHECK:
			return &apperr.Error{Kind: apperr.KindConflict, Message: "conflicts with current state", Err: err}
		}
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return apperr.Unavailable("database busy", unavailableRetry, err)
		}
		return err
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "23505":
			return &apperr.Error{Kind: apperr.KindConflict, Message: "already exists", Err: err}
		case pe.Code == "23503", pe.Code == "23514":
			return &apperr.Error{Kind: apperr.KindConflict, Message: "conflicts with current state", Err: err}
		case strings.HasPrefix(pe.Code, "08"), // connection exception
			pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03", // shutting down, crash, starting
			pe.Code == "53300": // too many connections
			return apperr.Unavailable("database unavailable", unavailableRetry, err)
		}
		return err
	}
	if isConnectionError(err) {
		return apperr.Unavailable("database unavailable", unavailableRetry, err)
	}
	return err
}

func isConnectionError(err error) bool {
	if errors.Is(err, driver.ErrBadConn) {
		return true
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	var oe *net.OpError
	return errors.As(err, &oe) || pgconn.SafeToRetry(err)
}

// isRetryable reports a transaction failure that running it again can fix.
func isRetryable(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "40001" || pe.Code == "40P01"
	}
	return false
}

// IsNotFound reports a missing row.
func IsNotFound(err error) bool { return errors.Is(err, apperr.ErrNotFound) }

// IsConflict reports a uniqueness or foreign-key violation.
func IsConflict(err error) bool { return errors.Is(err, apperr.ErrConflict) }
