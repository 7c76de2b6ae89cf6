package store

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"

	"github.com/jmoiron/sqlx"
)

// maxCachedStatements bounds the cache: queries are static strings in the
// code, so the number of distinct texts is small; anything beyond the bound
// (a query built with a varying IN list, say) just runs unprepared.
const maxCachedStatements = 512

// cachedHandle keeps one prepared statement per query text. SQLite spends
// most of a small query's time parsing and planning it; a prepared
// statement skips both (database/sql prepares it once per pooled
// connection). PostgreSQL does not need this: pgx caches statements itself.
type cachedHandle struct {
	*sqlx.DB
	stmts sync.Map // query text (already rebound) → *sqlx.Stmt
	count atomic.Int32
	mu    sync.Mutex // serialises Prepare so a text is prepared once
}

func (h *cachedHandle) prepared(ctx context.Context, query string) *sqlx.Stmt {
	if st, ok := h.stmts.Load(query); ok {
		return st.(*sqlx.Stmt)
	}
	if h.count.Load() >= maxCachedStatements {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if st, ok := h.stmts.Load(query); ok {
		return st.(*sqlx.Stmt)
	}
	st, err := h.DB.PreparexContext(ctx, query)
	if err != nil {
		return nil // the unprepared call reports the error
	}
	h.stmts.Store(query, st)
	h.count.Add(1)
	return st
}

func (h *cachedHandle) GetContext(ctx context.Context, dest any, query string, args ...any) error {
	if st := h.prepared(ctx, query); st != nil {
		return st.GetContext(ctx, dest, args...)
	}
	return h.DB.GetContext(ctx, dest, query, args...)
}

func (h *cachedHandle) SelectContext(ctx context.Context, dest any, query string, args ...any) error {
	if st := h.prepared(ctx, query); st != nil {
		return st.SelectContext(ctx, dest, args...)
	}
	return h.DB.SelectContext(ctx, dest, query, args...)
}

func (h *cachedHandle) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := h.prepared(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return h.DB.ExecContext(ctx, query, args...)
}

func (h *cachedHandle) QueryxContext(ctx context.Context, query string, args ...any) (*sqlx.Rows, error) {
	if st := h.prepared(ctx, query); st != nil {
		return st.QueryxContext(ctx, args...)
	}
	return h.DB.QueryxContext(ctx, query, args...)
}

func (h *cachedHandle) close() {
	h.stmts.Range(func(_, v any) bool {
		_ = v.(*sqlx.Stmt).Close()
		return true
	})
}
