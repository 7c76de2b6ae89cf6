// Package account owns workspaces (customer accounts), their sign-in with
// e-mail and password, one-time codes for e-mail verification and password
// reset, and the workspace API key.
package account

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/apperr"
	"concierge/internal/clock"
	"concierge/internal/coalesce"
	"concierge/internal/jobs"
	"concierge/internal/mail"
	"concierge/internal/outbox"
	"concierge/internal/ratelimit"
	"concierge/internal/secret"
	"concierge/internal/store"
)

// Code purposes.
const (
	PurposeVerifyEmail   = "verify_email"
	PurposeResetPassword = "reset_password"
)

// KeyPrefix starts every workspace API key, so a leaked key is recognisable
// (secret scanners) and a wrong header is rejected without a lookup.
const KeyPrefix = "cnc_ws_"

// sealPurpose names the subkey that seals workspace keys.
const sealPurpose = "workspace-api-key"

// Options are the account rules. Zero values get the defaults in brackets.
type Options struct {
	CodeTTL         time.Duration   // lifetime of a one-time code [10m]
	CodeGuesses     int             // wrong guesses that burn one code [5]
	AddressGuesses  ratelimit.Limit // wrong guesses per client address, across accounts [30 per hour]
	LockFailures    int             // consecutive wrong guesses that lock code verification [100]
	CodesPerHour    int             // codes sent per account and purpose per hour [5]
	LoginAccount    ratelimit.Limit // sign-in attempts per account [10 per 15m]
	ProductName     string          // in e-mails ["Concierge"]
	SendCodeTimeout time.Duration   // per attempt of the send-code job [1m]
}

func (o *Options) defaults() {
	if o.CodeTTL <= 0 {
		o.CodeTTL = 10 * time.Minute
	}
	if o.CodeGuesses <= 0 {
		o.CodeGuesses = 5
	}
	if o.AddressGuesses.IsZero() {
		o.AddressGuesses = ratelimit.PerHour(30)
	}
	if o.LockFailures <= 0 {
		o.LockFailures = 100
	}
	if o.CodesPerHour <= 0 {
		o.CodesPerHour = 5
	}
	if o.LoginAccount.IsZero() {
		o.LoginAccount = ratelimit.Limit{Rate: 10, Burst: 10, Period: 15 * time.Minute}
	}
	if o.ProductName == "" {
		o.ProductName = "Concierge"
	}
	if o.SendCodeTimeout <= 0 {
		o.SendCodeTimeout = time.Minute
	}
}

// Service implements the account rules.
type Service struct {
	db      *store.DB
	keys    *secret.Keyring
	hasher  *Hasher
	limiter ratelimit.Limiter
	queue   *jobs.Queue
	mailer  mail.Mailer
	clock   clock.Clock
	log     *slog.Logger
	opts    Options
	// keyBatch coalesces concurrent key lookups on PostgreSQL (nil on
	// SQLite, where a lookup is a call into the same process). Nothing is
	// cached: each lookup is answered by a query that starts after its
	// request arrived (coalesce.Lookup).
	keyBatch *coalesce.Lookup[string, Workspace]

	onCreate func(ctx context.Context, tx store.Q, workspaceID int64, now time.Time) error
}

// Deps are the collaborators of a Service.
type Deps struct {
	DB      *store.DB
	Keys    *secret.Keyring
	Hasher  *Hasher
	Limiter ratelimit.Limiter
	Queue   *jobs.Queue
	Mailer  mail.Mailer
	Clock   clock.Clock
	Logger  *slog.Logger
	// OnCreate runs inside the sign-up transaction, after the workspace row
	// exists (billing starts the trial there). Nil means nothing to do.
	OnCreate func(ctx context.Context, tx store.Q, workspaceID int64, now time.Time) error
}

// NewService returns the account service.
func NewService(d Deps, opts Options) *Service {
	opts.defaults()
	if d.Clock == nil {
		d.Clock = clock.Real{}
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Service{db: d.DB, keys: d.Keys, hasher: d.Hasher, limiter: d.Limiter, queue: d.Queue,
		mailer: d.Mailer, clock: d.Clock, log: d.Logger.With("component", "account"), opts: opts, onCreate: d.OnCreate}
	if d.DB != nil && d.DB.Dialect() == store.Postgres {
		s.keyBatch = coalesce.NewLookup(2, 128, 30*time.Second, func(ctx context.Context, hashes []string) (map[string]Workspace, error) {
			return workspacesByKeyHashes(ctx, s.db, hashes)
		})
	}
	return s
}

// RegisterJobs registers the account's job handlers on pool.
func (s *Service) RegisterJobs(pool *jobs.Pool) {
	pool.Handle(jobSendCode, s.sendCodeJob, jobs.KindOptions{Timeout: s.opts.SendCodeTimeout})
}

// RegisterInput is a sign-up request.
type RegisterInput struct {
	Email          string
	Password       string
	Name           string
	BillingCountry string
}

// Registered is the result of a sign-up.
type Registered struct {
	APIKey    string
	Workspace *Workspace
}

// Register creates a workspace and its API key and sends a verification code.
func (s *Service) Register(ctx context.Context, in RegisterInput) (*Registered, error) {
	email, err := NormalizeEmail(in.Email)
	if err != nil {
		return nil, apperr.Invalid("body.email", err.Error(), "value_error")
	}
	if err := CheckPassword(in.Password); err != nil {
		return nil, apperr.Invalid("body.password", err.Error(), "value_error")
	}
	name := strings.TrimSpace(in.Name)
	var country *string
	if c := strings.ToUpper(strings.TrimSpace(in.BillingCountry)); c != "" {
		if !IsCountryCode(c) {
			return nil, apperr.Invalid("body.billing_country", "must be an ISO 3166-1 alpha-2 code", "value_error")
		}
		country = &c
	}
	hash, err := s.hasher.Hash(ctx, in.Password)
	if err != nil {
		return nil, err
	}
	key, sealed, err := s.newKey()
	if err != nil {
		return nil, err
	}
	now := s.clock.Now()
	w := &Workspace{Email: email, Name: name, PasswordHash: hash, BillingCountry: country, CreatedAt: now, UpdatedAt: now}
	err = s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		if err := insertWorkspace(ctx, tx, w); err != nil {
			if store.IsConflict(err) {
				return apperr.Conflict("an account with this e-mail address already exists")
			}
			return err
		}
		if err := upsertWorkspaceKey(ctx, tx, w.ID, sealed, now); err != nil {
			return err
		}
		if s.onCreate != nil {
			if err := s.onCreate(ctx, tx, w.ID, now); err != nil {
				return err
			}
		}
		if err := s.enqueueSendCode(ctx, tx, email, PurposeVerifyEmail); err != nil {
			return err
		}
		_, err := outbox.Add(ctx, tx, now, outbox.Event{WorkspaceID: w.ID, Type: "workspace.created",
			Data: map[string]any{"workspace_id": w.ID}})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("account: register: %w", err)
	}
	s.queue.Wake()
	return &Registered{APIKey: key, Workspace: w}, nil
}

// newKey makes a workspace key and its stored form.
func (s *Service) newKey() (string, sealedKey, error) {
	key := secret.Token(KeyPrefix, 32)
	ct, err := s.keys.Seal(sealPurpose, key)
	if err != nil {
		return "", sealedKey{}, err
	}
	return key, sealedKey{Hash: secret.Hash(key), Ciphertext: ct, Hint: key[len(key)-4:]}, nil
}

// Authenticate resolves a workspace API key. Anything else is unauthorized.
// The workspace holds the profile columns only (no password hash).
func (s *Service) Authenticate(ctx context.Context, key string) (*Workspace, error) {
	if !strings.HasPrefix(key, KeyPrefix) || len(key) > 128 {
		return nil, apperr.ErrUnauthorized
	}
	hash := secret.Hash(key)
	var (
		w      *Workspace
		stored string
		err    error
	)
	if s.keyBatch != nil {
		var found bool
		var ws Workspace
		ws, found, err = s.keyBatch.Get(ctx, hash)
		if err == nil && !found {
			return nil, apperr.ErrUnauthorized
		}
		w, stored = &ws, hash
	} else {
		w, stored, err = workspaceByKeyHash(ctx, s.db.Reader(), hash)
	}
	if store.IsNotFound(err) {
		return nil, apperr.ErrUnauthorized
	}
	if err != nil {
		return nil, fmt.Errorf("account: authenticate: %w", err)
	}
	if !secret.Equal(stored, hash) {
		return nil, apperr.ErrUnauthorized
	}
	return w, nil
}

// Profile returns a workspace's profile columns.
func (s *Service) Profile(ctx context.Context, workspaceID int64) (*Workspace, error) {
	var w Workspace
	if err := store.Get(ctx, s.db.Reader(), &w, `SELECT `+profileColumns+` FROM workspaces w WHERE w.id = ?`, workspaceID); err != nil {
		return nil, fmt.Errorf("account: profile: %w", err)
	}
	return &w, nil
}

// Login checks e-mail and password and returns the workspace's permanent
// API key. The per-account ceiling is taken before the password is compared,
// so guesses spread over many addresses cannot exceed it, and a correct
// password is refused too once it is spent.
func (s *Service) Login(ctx context.Context, emailIn, password string) (string, error) {
	email, err := NormalizeEmail(emailIn)
	if err != nil {
		return "", apperr.Invalid("body.email", err.Error(), "value_error")
	}
	bucket := "login-account:" + secret.Hash(email)
	res, err := ratelimit.Allow(ctx, s.limiter, bucket, s.opts.LoginAccount)
	if err != nil {
		// Fail closed: without the ceiling, guessing would be unbounded.
		return "", apperr.Unavailable("sign-in is temporarily unavailable", 5*time.Second, err)
	}
	if !res.Allowed {
		return "", &apperr.RateLimited{RetryAfter: res.RetryAfter}
	}
	invalid := apperr.Unauthorized("invalid e-mail or password")
	w, err := workspaceByEmail(ctx, s.db.Reader(), email)
	if store.IsNotFound(err) {
		if err := s.hasher.VerifyDummy(ctx, password); err != nil {
			return "", err
		}
		return "", invalid
	}
	if err != nil {
		return "", fmt.Errorf("account: login: %w", err)
	}
	if w.PasswordHash == "" {
		// Created through an identity provider: no password until one is
		// set through the reset flow. Same time and answer as a wrong one.
		if err := s.hasher.VerifyDummy(ctx, password); err != nil {
			return "", err
		}
		return "", invalid
	}
	ok, err := s.hasher.Verify(ctx, password, w.PasswordHash)
	if err != nil {
		return "", fmt.Errorf("account: login: %w", err)
	}
	if !ok {
		return "", invalid
	}
	// A successful sign-in proves the owner; their own attempts should not
	// lock them out later, and it lifts a code lock (another path proved
	// the account, as NIST 800-63B asks before unlocking).
	if err := s.limiter.Reset(ctx, bucket); err != nil {
		s.log.WarnContext(ctx, "reset sign-in ceiling", "err", err)
	}
	if w.CodeLockFailures > 0 {
		if _, err := store.Exec(ctx, s.db.Writer(), `UPDATE workspaces SET code_lock_failures = 0 WHERE id = ?`, w.ID); err != nil {
			return "", fmt.Errorf("account: login: %w", err)
		}
	}
	return s.APIKey(ctx, w.ID)
}

// APIKey returns the workspace's current key in clear.
func (s *Service) APIKey(ctx context.Context, workspaceID int64) (string, error) {
	k, err := workspaceKey(ctx, s.db.Reader(), workspaceID)
	if err != nil {
		return "", fmt.Errorf("account: read key: %w", err)
	}
	key, err := s.keys.Open(sealPurpose, k.Ciphertext)
	if err != nil {
		return "", fmt.Errorf("account: read key: %w", err)
	}
	return key, nil
}

// RegenerateKey replaces the workspace key. The old key stops working on the
// very next request: every request looks the key up, nothing caches it (on
// PostgreSQL concurrent lookups share a query, but each is answered by one
// that starts after its request arrived; see coalesce.Lookup).
func (s *Service) RegenerateKey(ctx context.Context, workspaceID int64) (string, error) {
	key, sealed, err := s.newKey()
	if err != nil {
		return "", err
	}
	now := s.clock.Now()
	err = s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		if err := upsertWorkspaceKey(ctx, tx, workspaceID, sealed, now); err != nil {
			return err
		}
		_, err := outbox.Add(ctx, tx, now, outbox.Event{WorkspaceID: workspaceID, Type: "workspace.api_key_rotated",
			Data: map[string]any{"workspace_id": workspaceID}})
		return err
	})
	if err != nil {
		return "", fmt.Errorf("account: regenerate key: %w", err)
	}
	return key, nil
}

// CompleteOnboarding records that onboarding is done; calling it again
// changes nothing and returns the first time.
func (s *Service) CompleteOnboarding(ctx context.Context, workspaceID int64) (time.Time, error) {
	now := s.clock.Now()
	var at time.Time
	err := s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		n, err := store.Exec(ctx, tx, `UPDATE workspaces SET onboarding_completed_at = ?, updated_at = ?
			WHERE id = ? AND onboarding_completed_at IS NULL`, now, now, workspaceID)
		if err != nil {
			return err
		}
		if n == 1 {
			if _, err := outbox.Add(ctx, tx, now, outbox.Event{WorkspaceID: workspaceID, Type: "workspace.onboarding_completed",
				Data: map[string]any{"workspace_id": workspaceID}}); err != nil {
				return err
			}
		}
		w, err := workspaceByID(ctx, tx, workspaceID)
		if err != nil {
			return err
		}
		at = *w.OnboardingCompletedAt
		return nil
	})
	if err != nil {
		return time.Time{}, fmt.Errorf("account: complete onboarding: %w", err)
	}
	return at, nil
}

var errPasswordShort = errors.New("must be at least 8 characters")

// CheckPassword applies the password rules (8 to 256 bytes, not blank).
func CheckPassword(p string) error {
	n := len([]rune(p))
	switch {
	case n < 8:
		return errPasswordShort
	case len(p) > 256:
		return errors.New("must be at most 256 bytes")
	case strings.TrimSpace(p) == "":
		return errors.New("must not be blank")
	}
	return nil
}
