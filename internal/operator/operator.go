// Package operator owns live-chat operator accounts: each belongs to one
// workspace and is bound to exactly one bot, signs in with e-mail and
// password, and carries an operator key (X-Operator-Key). An operator whose
// e-mail is also a workspace owner's is linked to that workspace, so its
// owner can act as the operator with their own key and X-Workspace-Id.
package operator

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/account"
	"concierge/internal/apperr"
	"concierge/internal/billing"
	"concierge/internal/clock"
	"concierge/internal/outbox"
	"concierge/internal/ratelimit"
	"concierge/internal/secret"
	"concierge/internal/store"
)

// KeyPrefix starts every operator key.
const KeyPrefix = "cnc_op_"

const sealPurpose = "operator-api-key"

// Operator is an operator account as stored.
type Operator struct {
	ID                int64     `db:"id"`
	WorkspaceID       int64     `db:"workspace_id"`
	BotID             int64     `db:"bot_id"`
	Email             string    `db:"email"`
	Name              string    `db:"name"`
	PasswordHash      string    `db:"password_hash"`
	LinkedWorkspaceID *int64    `db:"linked_workspace_id"`
	CreatedAt         time.Time `db:"created_at"`
	UpdatedAt         time.Time `db:"updated_at"`
}

// Billing answers what the workspace's plan allows.
type Billing interface {
	Entitlements(ctx context.Context, workspaceID int64) (*billing.Entitlements, error)
}

// Service implements the operator rules.
type Service struct {
	db      *store.DB
	keys    *secret.Keyring
	hasher  *account.Hasher
	limiter ratelimit.Limiter
	billing Billing
	clock   clock.Clock
	log     *slog.Logger
	login   ratelimit.Limit
}

// Deps are the collaborators of a Service.
type Deps struct {
	DB      *store.DB
	Keys    *secret.Keyring
	Hasher  *account.Hasher
	Limiter ratelimit.Limiter
	Billing Billing
	Clock   clock.Clock
	Logger  *slog.Logger
	// LoginAccount bounds sign-in attempts per operator account.
	LoginAccount ratelimit.Limit
}

// NewService returns the operator service.
func NewService(d Deps) *Service {
	if d.Clock == nil {
		d.Clock = clock.Real{}
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if d.LoginAccount.IsZero() {
		d.LoginAccount = ratelimit.Limit{Rate: 10, Burst: 10, Period: 15 * time.Minute}
	}
	return &Service{db: d.DB, keys: d.Keys, hasher: d.Hasher, limiter: d.Limiter, billing: d.Billing, clock: d.Clock,
		log: d.Logger.With("component", "operator"), login: d.LoginAccount}
}

const columns = `o.id, o.workspace_id, o.bot_id, o.email, o.name, o.password_hash, o.linked_workspace_id, o.created_at, o.updated_at`

// Input creates or changes an operator.
type Input struct {
	Email    *string
	Password *string
	Name     *string
	BotID    *int64
}

// Created is a new operator with its key, shown this once (and again at
// each operator sign-in).
type Created struct {
	Operator *Operator
	Key      string
}

// Create adds an operator bound to one of the workspace's bots.
func (s *Service) Create(ctx context.Context, workspaceID int64, in Input) (*Created, error) {
	if in.Email == nil || in.Password == nil || in.BotID == nil {
		return nil, apperr.Invalid("body", "email, password and bot_id are required", "missing")
	}
	email, err := account.NormalizeEmail(*in.Email)
	if err != nil {
		return nil, apperr.Invalid("body.email", err.Error(), "value_error")
	}
	if err := account.CheckPassword(*in.Password); err != nil {
		return nil, apperr.Invalid("body.password", err.Error(), "value_error")
	}
	hash, err := s.hasher.Hash(ctx, *in.Password)
	if err != nil {
		return nil, err
	}
	key := secret.Token(KeyPrefix, 32)
	sealed, err := s.keys.Seal(sealPurpose, key)
	if err != nil {
		return nil, err
	}
	ent, err := s.billing.Entitlements(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	now := s.clock.Now()
	op := &Operator{WorkspaceID: workspaceID, BotID: *in.BotID, Email: email, PasswordHash: hash, CreatedAt: now, UpdatedAt: now}
	if in.Name != nil {
		op.Name = strings.TrimSpace(*in.Name)
	}
	err = s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		if err := s.checkBot(ctx, tx, workspaceID, op.BotID); err != nil {
			return err
		}
		var n int64
		if err := store.Get(ctx, tx, &n, `SELECT COUNT(*) FROM operators WHERE workspace_id = ?`, workspaceID); err != nil {
			return err
		}
		if max := ent.Limit("operators"); n >= max {
			return &apperr.LimitReached{Limit: "operators", Max: max,
				Message: fmt.Sprintf("the %s plan includes %d operator accounts", ent.PlanName, max)}
		}
		// The owner's own address makes their self-operator, linked at once.
		// Another workspace's owner is not linked yet: the answer must not
		// tell this workspace that the address is theirs (Login links).
		var self int64
		switch err := store.Get(ctx, tx, &self, `SELECT id FROM workspaces WHERE id = ? AND email = ?`, workspaceID, email); {
		case err == nil:
			op.LinkedWorkspaceID = &self
		case !store.IsNotFound(err):
			return err
		}
		err := store.Get(ctx, tx, &op.ID, `INSERT INTO operators (workspace_id, bot_id, email, name, password_hash,
			key_hash, key_ciphertext, key_hint, linked_workspace_id, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			op.WorkspaceID, op.BotID, op.Email, op.Name, op.PasswordHash, secret.Hash(key), sealed, key[len(key)-4:],
			op.LinkedWorkspaceID, now, now)
		if store.IsConflict(err) {
			return apperr.Conflict("this workspace already has an operator with this e-mail address")
		}
		if err != nil {
			return err
		}
		_, err = outbox.Add(ctx, tx, now, outbox.Event{WorkspaceID: workspaceID, BotID: op.BotID, Type: "operator.created",
			Data: map[string]any{"operator_id": op.ID, "bot_id": op.BotID}})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("operator: create: %w", err)
	}
	return &Created{Operator: op, Key: key}, nil
}

// checkBot refuses a bot of another workspace (403) or none (422).
func (s *Service) checkBot(ctx context.Context, q store.Q, workspaceID, botID int64) error {
	var owner int64
	err := store.Get(ctx, q, &owner, `SELECT workspace_id FROM bots WHERE id = ?`, botID)
	if store.IsNotFound(err) {
		return apperr.Invalid("body.bot_id", "no such bot", "value_error")
	}
	if err != nil {
		return err
	}
	if owner != workspaceID {
		return apperr.Forbidden("this bot belongs to another workspace")
	}
	return nil
}

// List returns the workspace's operators.
func (s *Service) List(ctx context.Context, workspaceID int64) ([]Operator, error) {
	out := []Operator{}
	err := store.Select(ctx, s.db.Reader(), &out, `SELECT `+columns+` FROM operators o WHERE o.workspace_id = ? ORDER BY o.id`, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("operator: list: %w", err)
	}
	return out, nil
}

// Get returns one operator of the workspace; any other id is not found.
func (s *Service) Get(ctx context.Context, workspaceID, id int64) (*Operator, error) {
	return get(ctx, s.db.Reader(), workspaceID, id)
}

func get(ctx context.Context, q store.Q, workspaceID, id int64) (*Operator, error) {
	var op Operator
	err := store.Get(ctx, q, &op, `SELECT `+columns+` FROM operators o WHERE o.id = ? AND o.workspace_id = ?`, id, workspaceID)
	if store.IsNotFound(err) {
		return nil, apperr.NotFound("operator not found")
	}
	if err != nil {
		return nil, fmt.Errorf("operator: get: %w", err)
	}
	return &op, nil
}

// Update changes an operator's name, bot or password.
func (s *Service) Update(ctx context.Context, workspaceID, id int64, in Input) (*Operator, error) {
	var hash string
	if in.Password != nil {
		if err := account.CheckPassword(*in.Password); err != nil {
			return nil, apperr.Invalid("body.password", err.Error(), "value_error")
		}
		var err error
		if hash, err = s.hasher.Hash(ctx, *in.Password); err != nil {
			return nil, err
		}
	}
	var op *Operator
	err := s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		var err error
		if op, err = get(ctx, tx, workspaceID, id); err != nil {
			return err
		}
		if in.BotID != nil {
			if err := s.checkBot(ctx, tx, workspaceID, *in.BotID); err != nil {
				return err
			}
			op.BotID = *in.BotID
		}
		if in.Name != nil {
			op.Name = strings.TrimSpace(*in.Name)
		}
		if hash != "" {
			op.PasswordHash = hash
		}
		op.UpdatedAt = s.clock.Now()
		_, err = store.Exec(ctx, tx, `UPDATE operators SET bot_id = ?, name = ?, password_hash = ?, updated_at = ?
			WHERE id = ? AND workspace_id = ?`, op.BotID, op.Name, op.PasswordHash, op.UpdatedAt, id, workspaceID)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("operator: update: %w", err)
	}
	return op, nil
}

// Delete removes an operator; its key stops working at once.
func (s *Service) Delete(ctx context.Context, workspaceID, id int64) error {
	now := s.clock.Now()
	return s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		op, err := get(ctx, tx, workspaceID, id)
		if err != nil {
			return err
		}
		if _, err := store.Exec(ctx, tx, `DELETE FROM operators WHERE id = ? AND workspace_id = ?`, id, workspaceID); err != nil {
			return err
		}
		_, err = outbox.Add(ctx, tx, now, outbox.Event{WorkspaceID: workspaceID, BotID: op.BotID, Type: "operator.deleted",
			Data: map[string]any{"operator_id": id}})
		return err
	})
}

// Authenticate resolves an operator key.
func (s *Service) Authenticate(ctx context.Context, key string) (*Operator, error) {
	if !strings.HasPrefix(key, KeyPrefix) || len(key) > 128 {
		return nil, apperr.ErrUnauthorized
	}
	hash := secret.Hash(key)
	var row struct {
		Operator
		KeyHash string `db:"key_hash"`
	}
	err := store.Get(ctx, s.db.Reader(), &row, `SELECT `+columns+`, o.key_hash FROM operators o WHERE o.key_hash = ?`, hash)
	if store.IsNotFound(err) {
		return nil, apperr.ErrUnauthorized
	}
	if err != nil {
		return nil, fmt.Errorf("operator: authenticate: %w", err)
	}
	if !secret.Equal(row.KeyHash, hash) {
		return nil, apperr.ErrUnauthorized
	}
	return &row.Operator, nil
}

// Login checks an operator's e-mail and password and returns the operator
// key; the per-account ceiling is taken before the password is compared, as
// for workspace sign-in.
func (s *Service) Login(ctx context.Context, emailIn, password string) (string, error) {
	email, err := account.NormalizeEmail(emailIn)
	if err != nil {
		return "", apperr.Invalid("body.email", err.Error(), "value_error")
	}
	bucket := "login-operator:" + secret.Hash(email)
	res, err := ratelimit.Allow(ctx, s.limiter, bucket, s.login)
	if err != nil {
		return "", apperr.Unavailable("sign-in is temporarily unavailable", 5*time.Second, err)
	}
	if !res.Allowed {
		return "", &apperr.RateLimited{RetryAfter: res.RetryAfter}
	}
	invalid := apperr.Unauthorized("invalid e-mail or password")
	// The address may be an operator of several workspaces (e-mails are
	// unique per workspace): the password decides which.
	var rows []struct {
		Operator
		Ciphertext string `db:"key_ciphertext"`
	}
	err = store.Select(ctx, s.db.Reader(), &rows, `SELECT `+columns+`, o.key_ciphertext FROM operators o
		WHERE o.email = ? ORDER BY o.id LIMIT 10`, email)
	if err != nil {
		return "", fmt.Errorf("operator: login: %w", err)
	}
	if len(rows) == 0 {
		if err := s.hasher.VerifyDummy(ctx, password); err != nil {
			return "", err
		}
		return "", invalid
	}
	match := -1
	for i := range rows {
		ok, err := s.hasher.Verify(ctx, password, rows[i].PasswordHash)
		if err != nil {
			return "", fmt.Errorf("operator: login: %w", err)
		}
		if ok {
			match = i
			break
		}
	}
	if match < 0 {
		return "", invalid
	}
	row := rows[match]
	if err := s.limiter.Reset(ctx, bucket); err != nil {
		s.log.WarnContext(ctx, "reset sign-in ceiling", "err", err)
	}
	if row.LinkedWorkspaceID == nil {
		if err := s.link(ctx, &row.Operator); err != nil {
			return "", err
		}
	}
	key, err := s.keys.Open(sealPurpose, row.Ciphertext)
	if err != nil {
		return "", fmt.Errorf("operator: login: %w", err)
	}
	return key, nil
}

// link ties an operator to the workspace whose owner has the same verified
// e-mail address, at the operator's sign-in: that owner can then act as
// this operator with their own key and X-Workspace-Id. It happens only
// after the operator signed in, so creating an operator never tells the
// creating workspace whether the address belongs to an owner.
func (s *Service) link(ctx context.Context, op *Operator) error {
	var owner int64
	err := store.Get(ctx, s.db.Reader(), &owner, `SELECT id FROM workspaces WHERE email = ? AND email_verified_at IS NOT NULL`, op.Email)
	if store.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("operator: link: %w", err)
	}
	_, err = store.Exec(ctx, s.db.Writer(), `UPDATE operators SET linked_workspace_id = ?, updated_at = ?
		WHERE id = ? AND linked_workspace_id IS NULL`, owner, s.clock.Now(), op.ID)
	if err != nil {
		return fmt.Errorf("operator: link: %w", err)
	}
	return nil
}

// ChangePassword lets an operator change their own password.
func (s *Service) ChangePassword(ctx context.Context, op *Operator, current, next string) error {
	if err := account.CheckPassword(next); err != nil {
		return apperr.Invalid("body.new_password", err.Error(), "value_error")
	}
	var stored string
	if err := store.Get(ctx, s.db.Reader(), &stored, `SELECT password_hash FROM operators WHERE id = ?`, op.ID); err != nil {
		return fmt.Errorf("operator: change password: %w", err)
	}
	ok, err := s.hasher.Verify(ctx, current, stored)
	if err != nil {
		return fmt.Errorf("operator: change password: %w", err)
	}
	if !ok {
		return apperr.Invalid("body.current_password", "the current password is wrong", "value_error")
	}
	hash, err := s.hasher.Hash(ctx, next)
	if err != nil {
		return err
	}
	_, err = store.Exec(ctx, s.db.Writer(), `UPDATE operators SET password_hash = ?, updated_at = ? WHERE id = ?`, hash, s.clock.Now(), op.ID)
	return err
}

// LinkedIn returns the operator of workspace target that is linked to the
// caller's own workspace (a linked operator acting with X-Workspace-Id), or
// not found.
func (s *Service) LinkedIn(ctx context.Context, caller, target int64) (*Operator, error) {
	var op Operator
	err := store.Get(ctx, s.db.Reader(), &op, `SELECT `+columns+` FROM operators o
		WHERE o.workspace_id = ? AND o.linked_workspace_id = ?`, target, caller)
	if err != nil {
		return nil, err
	}
	return &op, nil
}
