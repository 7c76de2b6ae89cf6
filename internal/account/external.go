package account

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/outbox"
	"concierge/internal/store"
)

// ExternalSignup is a workspace created through an identity provider that
// vouched for the e-mail address: it starts verified, without a password
// (the owner sets one through the reset flow if they want one), and with
// the trial, as Register does.
type ExternalSignup struct {
	Email string // already normalised (NormalizeEmail)
	Name  string
	// EventData is added to the workspace.created event (provider,
	// promo and referral codes).
	EventData map[string]any
}

// CreateExternalTx creates the workspace inside the caller's transaction:
// the caller links the identity in the same commit. A conflict on the
// e-mail address is returned as the store's conflict error, so the caller
// can resolve again (someone created it a moment ago).
func (s *Service) CreateExternalTx(ctx context.Context, tx *sqlx.Tx, in ExternalSignup, now time.Time) (*Registered, error) {
	key, sealed, err := s.newKey()
	if err != nil {
		return nil, err
	}
	w := &Workspace{Email: in.Email, Name: in.Name, CreatedAt: now, UpdatedAt: now}
	if err := insertWorkspace(ctx, tx, w); err != nil {
		return nil, err
	}
	if _, err := store.Exec(ctx, tx, `UPDATE workspaces SET email_verified_at = ? WHERE id = ?`, now, w.ID); err != nil {
		return nil, err
	}
	w.EmailVerifiedAt = &now
	if err := upsertWorkspaceKey(ctx, tx, w.ID, sealed, now); err != nil {
		return nil, err
	}
	if s.onCreate != nil {
		if err := s.onCreate(ctx, tx, w.ID, now); err != nil {
			return nil, err
		}
	}
	data := map[string]any{"workspace_id": w.ID}
	for k, v := range in.EventData {
		data[k] = v
	}
	if _, err := outbox.Add(ctx, tx, now, outbox.Event{WorkspaceID: w.ID, Type: "workspace.created", Data: data}); err != nil {
		return nil, err
	}
	return &Registered{APIKey: key, Workspace: w}, nil
}

// WorkspaceIDByEmailTx returns the id of the workspace with this
// (normalised) address, or store's not-found error.
func WorkspaceIDByEmailTx(ctx context.Context, q store.Q, email string) (int64, error) {
	var id int64
	err := store.Get(ctx, q, &id, `SELECT id FROM workspaces WHERE email = ?`, email)
	return id, err
}

// MarkEmailVerifiedTx records that the address is verified (an identity
// provider vouched for it); an earlier verification time is kept.
func MarkEmailVerifiedTx(ctx context.Context, q store.Q, workspaceID int64, now time.Time) error {
	_, err := store.Exec(ctx, q, `UPDATE workspaces SET email_verified_at = ?, updated_at = ?
		WHERE id = ? AND email_verified_at IS NULL`, now, now, workspaceID)
	if err != nil {
		return fmt.Errorf("account: mark verified: %w", err)
	}
	return nil
}
