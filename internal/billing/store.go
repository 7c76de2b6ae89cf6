package billing

import (
	"context"
	"fmt"
	"time"

	"concierge/internal/store"
)

// wsRow is the billing view of a workspace row.
type wsRow struct {
	ID          int64      `db:"id"`
	Plan        string     `db:"plan"`
	Status      string     `db:"plan_status"`
	TrialEndsAt *time.Time `db:"trial_ends_at"`
	PeriodEnd   *time.Time `db:"plan_period_end"`
	Balance     int64      `db:"credit_balance"`
	BotCount    int64      `db:"bot_count"`
	CreatedAt   time.Time  `db:"created_at"`
}

const wsColumns = `w.id, w.plan, w.plan_status, w.trial_ends_at, w.plan_period_end, w.credit_balance, w.bot_count, w.created_at`

// StandingColumns selects the columns Standing reads from a workspaces row
// aliased w, named "ws.<column>", for another package's query that joins
// the workspace and scans them into a StandingRow field tagged db:"ws"
// (StandingOf then resolves it): the workspace's standing read with that
// query rather than by one more.
const StandingColumns = `w.id AS "ws.id", w.plan AS "ws.plan", w.plan_status AS "ws.plan_status",
	w.trial_ends_at AS "ws.trial_ends_at", w.plan_period_end AS "ws.plan_period_end",
	w.credit_balance AS "ws.credit_balance", w.bot_count AS "ws.bot_count", w.created_at AS "ws.created_at"`

// StandingRow holds the columns of StandingColumns.
type StandingRow struct {
	wsRow
}

// readWorkspace reads the billing columns. With lock on PostgreSQL the row
// stays locked until the transaction ends, so a decision taken on it (one
// more bot, a top-up to the allowance) cannot race another; SQLite's
// BEGIN IMMEDIATE already holds the database's write lock.
//
// The lock is FOR NO KEY UPDATE, what an UPDATE of non-key columns takes:
// it serialises against every other change of the row (debits, the bot
// counter trigger) but not against the KEY SHARE locks that inserts into
// tables referencing workspaces take. FOR UPDATE would conflict with those
// and deadlock against a transaction that inserted a bot (KEY SHARE) and
// then waits for the bot counter.
func readWorkspace(ctx context.Context, q store.Q, d store.Dialect, id int64, lock bool) (*wsRow, error) {
	suffix := ""
	if lock && d == store.Postgres {
		suffix = " FOR NO KEY UPDATE"
	}
	var w wsRow
	if err := store.Get(ctx, q, &w, `SELECT `+wsColumns+` FROM workspaces w WHERE w.id = ?`+suffix, id); err != nil {
		return nil, err
	}
	return &w, nil
}

// usageRow is a workspace row with the counts entitlements show, read in
// one statement.
type usageRow struct {
	wsRow
	Operators   int64 `db:"operators"`
	CreditsUsed int64 `db:"credits_used"`
}

func readUsage(ctx context.Context, q store.Q, id int64, since time.Time) (*usageRow, error) {
	var u usageRow
	err := store.Get(ctx, q, &u, `SELECT `+wsColumns+`,
		(SELECT COUNT(*) FROM operators o WHERE o.workspace_id = w.id) AS operators,
		(SELECT CAST(COALESCE(SUM(-l.delta), 0) AS BIGINT) FROM credit_ledger l
			WHERE l.workspace_id = w.id AND l.kind = 'debit' AND l.created_at >= ?) AS credits_used
		FROM workspaces w WHERE w.id = ?`, since.UTC(), id)
	if err != nil {
		return nil, err
	}
	return &u, nil
}

// workspacesAfter pages through every workspace in id order.
func workspacesAfter(ctx context.Context, q store.Q, afterID int64, limit int) ([]wsRow, error) {
	var out []wsRow
	err := store.Select(ctx, q, &out, `SELECT `+wsColumns+` FROM workspaces w WHERE w.id > ? ORDER BY w.id LIMIT ?`,
		afterID, limit)
	return out, err
}

func workspaceIDByEmail(ctx context.Context, q store.Q, email string) (int64, error) {
	var id int64
	err := store.Get(ctx, q, &id, `SELECT id FROM workspaces WHERE email = ?`, email)
	return id, err
}

func setTrial(ctx context.Context, q store.Q, id int64, ends, now time.Time) (int64, error) {
	return store.Exec(ctx, q, `UPDATE workspaces SET plan = ?, plan_status = 'trialing', trial_ends_at = ?,
		plan_period_end = NULL, updated_at = ? WHERE id = ?`, PlanTrial, ends.UTC(), now.UTC(), id)
}

func setPlan(ctx context.Context, q store.Q, id int64, plan, status string, periodEnd *time.Time, now time.Time) (int64, error) {
	return store.Exec(ctx, q, `UPDATE workspaces SET plan = ?, plan_status = ?, trial_ends_at = NULL,
		plan_period_end = ?, updated_at = ? WHERE id = ?`, plan, status, periodEnd, now.UTC(), id)
}

// planSub is the part of a plan subscription that decides the workspace's
// plan. The subscriptions table belongs to package subscription; billing
// only reads it.
type planSub struct {
	ID        int64      `db:"id"`
	Plan      string     `db:"plan"`
	Status    string     `db:"status"`
	PeriodEnd *time.Time `db:"current_period_end"`
}

func planSubscriptions(ctx context.Context, q store.Q, workspaceID int64) ([]planSub, error) {
	var out []planSub
	err := store.Select(ctx, q, &out, `SELECT id, plan, status, current_period_end FROM subscriptions
		WHERE workspace_id = ? AND purpose = 'plan' ORDER BY id`, workspaceID)
	return out, err
}

const entryColumns = `id, delta, balance_after, kind, reason, idempotency_key, created_at`

func entryByKey(ctx context.Context, q store.Q, workspaceID int64, key string) (*LedgerEntry, error) {
	var e LedgerEntry
	err := store.Get(ctx, q, &e, `SELECT `+entryColumns+` FROM credit_ledger WHERE workspace_id = ? AND idempotency_key = ?`,
		workspaceID, key)
	if err != nil {
		return nil, err
	}
	return &e, nil
}

func entryByID(ctx context.Context, q store.Q, workspaceID, id int64) (*LedgerEntry, error) {
	var e LedgerEntry
	err := store.Get(ctx, q, &e, `SELECT `+entryColumns+` FROM credit_ledger WHERE workspace_id = ? AND id = ?`,
		workspaceID, id)
	if err != nil {
		return nil, err
	}
	return &e, nil
}

// preDebit reads the balance and whether key was used, in one statement and
// so from one snapshot.
func preDebit(ctx context.Context, q store.Q, workspaceID int64, key string) (balance, entryID int64, err error) {
	var row struct {
		Balance int64 `db:"credit_balance"`
		EntryID int64 `db:"entry_id"`
	}
	err = store.Get(ctx, q, &row, `SELECT w.credit_balance, COALESCE(l.id, 0) AS entry_id FROM workspaces w
		LEFT JOIN credit_ledger l ON l.workspace_id = w.id AND l.idempotency_key = ?
		WHERE w.id = ?`, key, workspaceID)
	return row.Balance, row.EntryID, err
}

// addBalance moves the balance by delta and returns the new balance. A
// negative delta only applies when the balance covers it; otherwise no row
// matches and the result is not found. The CHECK constraint on the column is
// the last line of defence, never the mechanism.
func addBalance(ctx context.Context, q store.Q, workspaceID, delta int64) (int64, error) {
	var bal int64
	var err error
	if delta < 0 {
		err = store.Get(ctx, q, &bal, `UPDATE workspaces SET credit_balance = credit_balance - ?
			WHERE id = ? AND credit_balance >= ? RETURNING credit_balance`, -delta, workspaceID, -delta)
	} else {
		err = store.Get(ctx, q, &bal, `UPDATE workspaces SET credit_balance = credit_balance + ?
			WHERE id = ? RETURNING credit_balance`, delta, workspaceID)
	}
	return bal, err
}

func balanceOf(ctx context.Context, q store.Q, workspaceID int64) (int64, error) {
	var bal int64
	err := store.Get(ctx, q, &bal, `SELECT credit_balance FROM workspaces WHERE id = ?`, workspaceID)
	return bal, err
}

// insertEntry appends e unless the workspace already has an entry with its
// key; then it reports not found and writes nothing.
func insertEntry(ctx context.Context, q store.Q, workspaceID int64, e *LedgerEntry) error {
	return store.Get(ctx, q, &e.ID, `INSERT INTO credit_ledger
		(workspace_id, delta, balance_after, kind, reason, idempotency_key, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (workspace_id, idempotency_key) DO NOTHING RETURNING id`,
		workspaceID, e.Delta, e.BalanceAfter, e.Kind, e.Reason, e.IdempotencyKey, e.CreatedAt)
}

// insertEntries appends entries, whose keys must all be new (otherwise
// ErrBatchKeyUsed), in multi-row statements; it sets their ids.
func insertEntries(ctx context.Context, q store.Q, workspaceID int64, entries []*LedgerEntry) error {
	rest := entries
	for _, n := range store.PowerChunks(len(entries), 64) {
		chunk := rest[:n]
		rest = rest[n:]
		args := make([]any, 0, 7*n)
		byKey := make(map[string]*LedgerEntry, n)
		for _, e := range chunk {
			args = append(args, workspaceID, e.Delta, e.BalanceAfter, e.Kind, e.Reason, e.IdempotencyKey, e.CreatedAt)
			byKey[e.IdempotencyKey] = e
		}
		var got []struct {
			ID  int64  `db:"id"`
			Key string `db:"idempotency_key"`
		}
		if err := store.Select(ctx, q, &got, `INSERT INTO credit_ledger
			(workspace_id, delta, balance_after, kind, reason, idempotency_key, created_at)
			VALUES `+store.Rows(n, 7)+`
			ON CONFLICT (workspace_id, idempotency_key) DO NOTHING RETURNING id, idempotency_key`, args...); err != nil {
			return fmt.Errorf("billing: append ledger: %w", err)
		}
		if len(got) != n || len(byKey) != n {
			return ErrBatchKeyUsed
		}
		for _, g := range got {
			byKey[g.Key].ID = g.ID
		}
	}
	return nil
}

// balanceWithTime reads the balance and when it last changed (nil before
// the first ledger entry).
func balanceWithTime(ctx context.Context, q store.Q, workspaceID int64) (int64, *time.Time, error) {
	var row struct {
		Balance   int64      `db:"credit_balance"`
		UpdatedAt *time.Time `db:"created_at"`
	}
	// A plain column (not MAX(created_at)) so SQLite returns a typed time.
	err := store.Get(ctx, q, &row, `SELECT w.credit_balance, l.created_at FROM workspaces w
		LEFT JOIN credit_ledger l ON l.id = (SELECT MAX(id) FROM credit_ledger WHERE workspace_id = w.id)
		WHERE w.id = ?`, workspaceID)
	return row.Balance, row.UpdatedAt, err
}

func ledgerPage(ctx context.Context, q store.Q, workspaceID int64, limit, offset int) ([]LedgerEntry, int, error) {
	var total int
	if err := store.Get(ctx, q, &total, `SELECT COUNT(*) FROM credit_ledger WHERE workspace_id = ?`, workspaceID); err != nil {
		return nil, 0, err
	}
	items := []LedgerEntry{}
	if offset >= total {
		return items, total, nil
	}
	err := store.Select(ctx, q, &items, `SELECT `+entryColumns+` FROM credit_ledger WHERE workspace_id = ?
		ORDER BY id DESC LIMIT ? OFFSET ?`, workspaceID, limit, offset)
	return items, total, err
}
