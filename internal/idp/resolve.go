package idp

import (
	"context"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"

	"concierge/internal/account"
	"concierge/internal/apperr"
	"concierge/internal/outbox"
	"concierge/internal/store"
)

var (
	errUnverified = errors.New("idp: the provider has not verified the e-mail address")
	errNoEmail    = errors.New("idp: the token carries no usable e-mail address")
)

// signup is what a sign-up through the web flow carried.
type signup struct {
	Promo, Referral string
}

type resolved struct {
	WorkspaceID int64
	APIKey      string
	Created     bool // layer 3
	Linked      bool // layer 2 or 3: the identity was linked now
}

// resolve finds or creates the identity's workspace (see the package
// comment). Everything happens in one transaction: linking, marking the
// address verified, creating the workspace and the outbox events commit
// together or not at all. Two first sign-ins racing for the same identity
// or address: the loser's insert conflicts, and resolving again finds what
// the winner committed.
func (s *Service) resolve(ctx context.Context, id *identity, su signup) (*resolved, error) {
	var (
		res *resolved
		err error
	)
	for attempt := 0; attempt < 3; attempt++ {
		res, err = s.resolveOnce(ctx, id, su)
		if err == nil || !store.IsConflict(err) {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	if res.APIKey == "" {
		if res.APIKey, err = s.accounts.APIKey(ctx, res.WorkspaceID); err != nil {
			return nil, err
		}
	}
	return res, nil
}

func (s *Service) resolveOnce(ctx context.Context, id *identity, su signup) (*resolved, error) {
	var res resolved
	now := s.clock.Now()
	err := s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		// Layer 1: the identity is already linked. The subject is the
		// identity, so the address's current state does not matter.
		var wid int64
		err := store.Get(ctx, tx, &wid, `SELECT workspace_id FROM workspace_identities WHERE issuer = ? AND subject = ?`,
			id.issuer, id.subject)
		if err == nil {
			res.WorkspaceID = wid
			_, err = store.Exec(ctx, tx, `UPDATE workspace_identities SET last_login_at = ? WHERE issuer = ? AND subject = ?`,
				now, id.issuer, id.subject)
			return err
		}
		if !store.IsNotFound(err) {
			return err
		}
		// Layers 2 and 3 trust the address, so only a verified one.
		if !id.emailVerified {
			return errUnverified
		}
		email, nerr := account.NormalizeEmail(id.email)
		if nerr != nil {
			return errNoEmail
		}
		method := "email_match"
		wid, err = account.WorkspaceIDByEmailTx(ctx, tx, email)
		switch {
		case err == nil: // layer 2
			if err := account.MarkEmailVerifiedTx(ctx, tx, wid, now); err != nil {
				return err
			}
		case store.IsNotFound(err): // layer 3
			method = "signup"
			data := map[string]any{"source": "identity_provider", "issuer": id.issuer}
			if su.Promo != "" {
				data["promo_code"] = su.Promo
			}
			if su.Referral != "" {
				data["referral_code"] = su.Referral
			}
			reg, err := s.accounts.CreateExternalTx(ctx, tx, account.ExternalSignup{Email: email, Name: id.name, EventData: data}, now)
			if err != nil {
				return err
			}
			wid, res.APIKey, res.Created = reg.Workspace.ID, reg.APIKey, true
		default:
			return err
		}
		n, err := store.Exec(ctx, tx, `INSERT INTO workspace_identities
			(workspace_id, issuer, subject, email, promo_code, referral_code, created_at, last_login_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (issuer, subject) DO NOTHING`,
			wid, id.issuer, id.subject, email, nullable(su.Promo), nullable(su.Referral), now, now)
		if err != nil {
			return err
		}
		if n == 0 {
			// Linked by a concurrent sign-in since our read: resolve again.
			return fmt.Errorf("idp: identity linked concurrently: %w", apperr.ErrConflict)
		}
		res.WorkspaceID, res.Linked = wid, true
		_, err = outbox.Add(ctx, tx, now, outbox.Event{WorkspaceID: wid, Type: "workspace.identity_linked",
			Data: map[string]any{"workspace_id": wid, "issuer": id.issuer, "method": method}})
		return err
	})
	if err != nil {
		return nil, err
	}
	return &res, nil
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
