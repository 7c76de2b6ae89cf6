// Package impersonation owns super-admin impersonation sessions: issued
// from the command line for one workspace, short-lived, audited on every
// use, and all refused at once by a kill switch. The HTTP layer accepts a
// session token (X-Impersonation-Token) only where the spec allows it.
package impersonation

import (
	"context"
	"fmt"
	"time"

	"concierge/internal/apperr"
	"concierge/internal/clock"
	"concierge/internal/secret"
	"concierge/internal/store"
)

// TokenPrefix starts every impersonation token.
const TokenPrefix = "cnc_imp_"

// MaxTTL bounds a session's life.
const MaxTTL = 2 * time.Hour

const killSwitchKey = "impersonation_disabled"

// Session is a live impersonation session.
type Session struct {
	ID          int64     `db:"id"`
	WorkspaceID int64     `db:"workspace_id"`
	Admin       string    `db:"admin"`
	Reason      string    `db:"reason"`
	ExpiresAt   time.Time `db:"expires_at"`
}

// Service issues and checks sessions.
type Service struct {
	db    *store.DB
	clock clock.Clock
}

// NewService returns the impersonation service.
func NewService(db *store.DB, clk clock.Clock) *Service {
	if clk == nil {
		clk = clock.Real{}
	}
	return &Service{db: db, clock: clk}
}

// Issue starts a session for the workspace of ownerEmail and returns its
// token (shown once; only its hash is stored).
func (s *Service) Issue(ctx context.Context, ownerEmail, admin, reason string, ttl time.Duration) (string, *Session, error) {
	if admin == "" {
		return "", nil, fmt.Errorf("impersonation: the admin's name is required (it is audited)")
	}
	if ttl <= 0 || ttl > MaxTTL {
		return "", nil, fmt.Errorf("impersonation: ttl must be between 1s and %s", MaxTTL)
	}
	var wsID int64
	if err := store.Get(ctx, s.db.Reader(), &wsID, `SELECT id FROM workspaces WHERE email = ?`, ownerEmail); err != nil {
		return "", nil, fmt.Errorf("impersonation: workspace %s: %w", ownerEmail, err)
	}
	token := secret.Token(TokenPrefix, 32)
	now := s.clock.Now()
	sess := &Session{WorkspaceID: wsID, Admin: admin, Reason: reason, ExpiresAt: now.Add(ttl)}
	err := store.Get(ctx, s.db.Writer(), &sess.ID, `INSERT INTO impersonation_sessions
		(workspace_id, token_hash, admin, reason, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
		wsID, secret.Hash(token), admin, reason, now, sess.ExpiresAt)
	if err != nil {
		return "", nil, fmt.Errorf("impersonation: issue: %w", err)
	}
	return token, sess, nil
}

// Check validates a token for workspaceID and audits the use. Every failure
// is the same 401, so a caller learns nothing about why.
func (s *Service) Check(ctx context.Context, token string, workspaceID int64, action string) (*Session, error) {
	denied := apperr.Unauthorized("invalid or expired impersonation session")
	if len(token) > 128 {
		return nil, denied
	}
	if off, err := s.KillSwitch(ctx); err != nil {
		return nil, err
	} else if off {
		return nil, denied
	}
	now := s.clock.Now()
	var sess Session
	err := store.Get(ctx, s.db.Reader(), &sess, `SELECT id, workspace_id, admin, reason, expires_at FROM impersonation_sessions
		WHERE token_hash = ? AND revoked_at IS NULL AND expires_at > ?`, secret.Hash(token), now)
	if store.IsNotFound(err) || (err == nil && sess.WorkspaceID != workspaceID) {
		return nil, denied
	}
	if err != nil {
		return nil, fmt.Errorf("impersonation: check: %w", err)
	}
	if _, err := store.Exec(ctx, s.db.Writer(), `INSERT INTO impersonation_audit (session_id, workspace_id, action, created_at)
		VALUES (?, ?, ?, ?)`, sess.ID, workspaceID, action, now); err != nil {
		return nil, fmt.Errorf("impersonation: audit: %w", err)
	}
	return &sess, nil
}

// Revoke ends a session now.
func (s *Service) Revoke(ctx context.Context, token string) error {
	n, err := store.Exec(ctx, s.db.Writer(), `UPDATE impersonation_sessions SET revoked_at = ? WHERE token_hash = ? AND revoked_at IS NULL`,
		s.clock.Now(), secret.Hash(token))
	if err != nil {
		return fmt.Errorf("impersonation: revoke: %w", err)
	}
	if n == 0 {
		return apperr.NotFound("no live session with this token")
	}
	return nil
}

// SetKillSwitch disables (true) or re-enables every impersonation session.
// It is read on every use, so it takes effect on the next request.
func (s *Service) SetKillSwitch(ctx context.Context, disabled bool) error {
	v := "false"
	if disabled {
		v = "true"
	}
	_, err := store.Exec(ctx, s.db.Writer(), `INSERT INTO admin_settings (key, value, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`, killSwitchKey, v, s.clock.Now())
	return err
}

// KillSwitch reports whether impersonation is disabled.
func (s *Service) KillSwitch(ctx context.Context) (bool, error) {
	var v string
	err := store.Get(ctx, s.db.Reader(), &v, `SELECT value FROM admin_settings WHERE key = ?`, killSwitchKey)
	if store.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("impersonation: kill switch: %w", err)
	}
	return v == "true", nil
}
