package account

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"concierge/internal/store"
)

// Workspace is a customer account: the owner's sign-in and the tenant that
// owns bots, knowledge, leads and billing.
type Workspace struct {
	ID                    int64      `db:"id"`
	Email                 string     `db:"email"`
	Name                  string     `db:"name"`
	PasswordHash          string     `db:"password_hash"`
	EmailVerifiedAt       *time.Time `db:"email_verified_at"`
	OnboardingCompletedAt *time.Time `db:"onboarding_completed_at"`
	BillingCountry        *string    `db:"billing_country"`
	CodeLockFailures      int        `db:"code_lock_failures"`
	BotCount              int        `db:"bot_count"`
	CreatedAt             time.Time  `db:"created_at"`
	UpdatedAt             time.Time  `db:"updated_at"`
}

const workspaceColumns = `w.id, w.email, w.name, w.password_hash, w.email_verified_at, w.onboarding_completed_at,
	w.billing_country, w.code_lock_failures, w.bot_count, w.created_at, w.updated_at`

// profileColumns is what a request's caller needs: every authenticated
// request reads it, so it leaves out the password hash (no reason to load a
// secret per request) and bookkeeping columns.
const profileColumns = `w.id, w.email, w.name, w.email_verified_at, w.onboarding_completed_at,
	w.billing_country, w.bot_count, w.created_at`

func workspaceByEmail(ctx context.Context, q store.Q, email string) (*Workspace, error) {
	var w Workspace
	if err := store.Get(ctx, q, &w, `SELECT `+workspaceColumns+` FROM workspaces w WHERE w.email = ?`, email); err != nil {
		return nil, err
	}
	return &w, nil
}

func workspaceByID(ctx context.Context, q store.Q, id int64) (*Workspace, error) {
	var w Workspace
	if err := store.Get(ctx, q, &w, `SELECT `+workspaceColumns+` FROM workspaces w WHERE w.id = ?`, id); err != nil {
		return nil, err
	}
	return &w, nil
}

func workspaceByKeyHash(ctx context.Context, q store.Q, hash string) (*Workspace, string, error) {
	var row struct {
		Workspace
		KeyHash string `db:"key_hash"`
	}
	err := store.Get(ctx, q, &row, `SELECT `+profileColumns+`, k.key_hash FROM workspace_keys k
		JOIN workspaces w ON w.id = k.workspace_id WHERE k.key_hash = ?`, hash)
	if err != nil {
		return nil, "", err
	}
	return &row.Workspace, row.KeyHash, nil
}

// workspacesByKeyHashes is workspaceByKeyHash for many hashes in one
// statement, on PostgreSQL's native interface: one array parameter, so one
// prepared statement whatever the count, and columns scanned without
// reflection (every authenticated request goes through here).
func workspacesByKeyHashes(ctx context.Context, db *store.DB, hashes []string) (map[string]Workspace, error) {
	out := make(map[string]Workspace, len(hashes))
	err := db.Pgx(ctx, func(conn *pgx.Conn) error {
		rows, err := conn.Query(ctx, `SELECT `+profileColumns+`, k.key_hash FROM workspace_keys k
			JOIN workspaces w ON w.id = k.workspace_id WHERE k.key_hash = ANY($1)`, hashes)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var (
				w    Workspace
				hash string
			)
			if err := rows.Scan(&w.ID, &w.Email, &w.Name, &w.EmailVerifiedAt, &w.OnboardingCompletedAt,
				&w.BillingCountry, &w.BotCount, &w.CreatedAt, &hash); err != nil {
				return err
			}
			out[hash] = w
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func insertWorkspace(ctx context.Context, q store.Q, w *Workspace) error {
	return store.Get(ctx, q, &w.ID, `INSERT INTO workspaces
		(email, name, password_hash, billing_country, code_lock_failures, created_at, updated_at)
		VALUES (?, ?, ?, ?, 0, ?, ?) RETURNING id`,
		w.Email, w.Name, w.PasswordHash, w.BillingCountry, w.CreatedAt, w.UpdatedAt)
}

// sealedKey is a workspace key as stored: its lookup hash, the key sealed
// with the server secret, and the last characters for display.
type sealedKey struct {
	Hash       string `db:"key_hash"`
	Ciphertext string `db:"key_ciphertext"`
	Hint       string `db:"key_hint"`
}

func upsertWorkspaceKey(ctx context.Context, q store.Q, workspaceID int64, k sealedKey, now time.Time) error {
	_, err := store.Exec(ctx, q, `INSERT INTO workspace_keys (workspace_id, key_hash, key_ciphertext, key_hint, created_at)
		VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (workspace_id) DO UPDATE SET key_hash = excluded.key_hash,
			key_ciphertext = excluded.key_ciphertext, key_hint = excluded.key_hint, created_at = excluded.created_at`,
		workspaceID, k.Hash, k.Ciphertext, k.Hint, now)
	return err
}

func workspaceKey(ctx context.Context, q store.Q, workspaceID int64) (*sealedKey, error) {
	var k sealedKey
	err := store.Get(ctx, q, &k, `SELECT key_hash, key_ciphertext, key_hint FROM workspace_keys WHERE workspace_id = ?`, workspaceID)
	if err != nil {
		return nil, err
	}
	return &k, nil
}

// code is a live one-time code.
type code struct {
	ID        int64     `db:"id"`
	Hash      string    `db:"code_hash"`
	Attempts  int       `db:"attempts"`
	ExpiresAt time.Time `db:"expires_at"`
}

func putCode(ctx context.Context, q store.Q, workspaceID int64, purpose, hash string, expires, now time.Time) error {
	_, err := store.Exec(ctx, q, `INSERT INTO one_time_codes (workspace_id, purpose, code_hash, attempts, expires_at, created_at)
		VALUES (?, ?, ?, 0, ?, ?)
		ON CONFLICT (workspace_id, purpose) DO UPDATE SET code_hash = excluded.code_hash, attempts = 0,
			expires_at = excluded.expires_at, created_at = excluded.created_at`,
		workspaceID, purpose, hash, expires, now)
	return err
}

func liveCode(ctx context.Context, q store.Q, workspaceID int64, purpose string) (*code, error) {
	var c code
	err := store.Get(ctx, q, &c, `SELECT id, code_hash, attempts, expires_at FROM one_time_codes
		WHERE workspace_id = ? AND purpose = ?`, workspaceID, purpose)
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// reserveGuess takes one guess from the code's budget atomically and reports
// whether one was left: concurrent guesses can never evaluate more than the
// budget.
func reserveGuess(ctx context.Context, q store.Q, codeID int64, budget int) (bool, error) {
	n, err := store.Exec(ctx, q, `UPDATE one_time_codes SET attempts = attempts + 1 WHERE id = ? AND attempts < ?`, codeID, budget)
	return n == 1, err
}

func deleteCode(ctx context.Context, q store.Q, codeID int64) error {
	_, err := store.Exec(ctx, q, `DELETE FROM one_time_codes WHERE id = ?`, codeID)
	return err
}

func addCodeEvent(ctx context.Context, q store.Q, workspaceID int64, purpose, kind string, now time.Time) error {
	_, err := store.Exec(ctx, q, `INSERT INTO code_events (workspace_id, purpose, kind, created_at) VALUES (?, ?, ?, ?)`,
		workspaceID, purpose, kind, now)
	return err
}

func countCodeEvents(ctx context.Context, q store.Q, workspaceID int64, purpose, kind string, since time.Time) (int, error) {
	var n int
	query := `SELECT COUNT(*) FROM code_events WHERE workspace_id = ? AND kind = ? AND created_at >= ?`
	args := []any{workspaceID, kind, since}
	if purpose != "" {
		query += ` AND purpose = ?`
		args = append(args, purpose)
	}
	err := store.Get(ctx, q, &n, query, args...)
	if err != nil {
		return 0, fmt.Errorf("account: count code events: %w", err)
	}
	return n, nil
}

func pruneCodeEvents(ctx context.Context, q store.Q, workspaceID int64, before time.Time) error {
	_, err := store.Exec(ctx, q, `DELETE FROM code_events WHERE workspace_id = ? AND created_at < ?`, workspaceID, before)
	return err
}
