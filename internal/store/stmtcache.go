package store

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
	"time"

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

// cached returns the statement prepared for query, or nil.
func (h *cachedHandle) cached(query string) *sqlx.Stmt {
	if st, ok := h.stmts.Load(query); ok {
		return st.(*sqlx.Stmt)
	}
	return nil
}

// txStates maps a SQLite write transaction that DB.Tx runs to the writer's
// statement cache. An entry lives from BEGIN to the end of the transaction.
var txStates sync.Map // *sqlx.Tx → *txState

type txState struct {
	h      *cachedHandle
	mu     sync.Mutex
	missed []string // texts run unprepared, to prepare after the transaction
}

// txStmt returns the writer's cached statement for query bound to q when q
// is a SQLite transaction of DB.Tx: database/sql reuses the statement
// already prepared on the writer's single connection instead of preparing
// and finalising the text again. It returns nil otherwise (not such a
// transaction, or a text not prepared yet, which is then noted so that it
// is prepared when the transaction ends).
func txStmt(ctx context.Context, q Q, query string) *sqlx.Stmt {
	tx, ok := q.(*sqlx.Tx)
	if !ok {
		return nil
	}
	v, ok := txStates.Load(tx)
	if !ok {
		return nil
	}
	s := v.(*txState)
	if st := s.h.cached(query); st != nil {
		return tx.StmtxContext(ctx, st)
	}
	if s.h.count.Load() < maxCachedStatements {
		s.mu.Lock()
		s.missed = append(s.missed, query)
		s.mu.Unlock()
	}
	return nil
}

// prepareMissed prepares, on the writer handle, the texts the transaction
// ran unprepared. It runs after the transaction released the connection.
func (s *txState) prepareMissed(ctx context.Context) {
	s.mu.Lock()
	missed := s.missed
	s.missed = nil
	s.mu.Unlock()
	if len(missed) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	for _, q := range missed {
		s.h.prepared(ctx, q)
	}
}

func (h *cachedHandle) close() {
	h.stmts.Range(func(_, v any) bool {
		_ = v.(*sqlx.Stmt).Close()
		return true
	})
}
