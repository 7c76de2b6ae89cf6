// Package webhook is outbound webhooks: endpoints that belong to a bot, the
// dispatcher that turns the events outbox into one message per subscribed
// endpoint, and the sender that signs each message the Standard Webhooks
// way and delivers it through the SSRF-guarded client, retrying on a fixed
// schedule and logging every attempt.
package webhook

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/apperr"
	"concierge/internal/billing"
	"concierge/internal/clock"
	"concierge/internal/jobs"
	"concierge/internal/safehttp"
	"concierge/internal/secret"
	"concierge/internal/store"
)

// Limits on endpoint fields.
const (
	MaxURLLength         = 2048
	MaxDescriptionLength = 500
	MaxEvents            = 64
	// DefaultEndpointsPerBot applies when the plan names no limit.
	DefaultEndpointsPerBot = 10
	sealPurpose            = "webhook-secret"
	// maxOpenedSecrets bounds the cache of opened secrets.
	maxOpenedSecrets = 4096
	// RotationOverlap is how long the previous secret keeps signing.
	RotationOverlap = 24 * time.Hour
)

// BotChecker says whether a bot belongs to a workspace (403 for another
// workspace's bot, 404 for none).
type BotChecker func(ctx context.Context, workspaceID, botID int64) error

// Deps are the service's collaborators.
type Deps struct {
	DB       *store.DB
	Keys     *secret.Keyring
	Billing  *billing.Service
	CheckBot BotChecker
	Queue    *jobs.Queue
	// Client is the guarded client every delivery goes through; built
	// with Allow from CONCIERGE_OUTBOUND_ALLOW.
	Client *safehttp.Client
	Allow  []netip.Prefix
	Clock  clock.Clock
	Logger *slog.Logger
	// DatabaseURL is the PostgreSQL address the new-events listener
	// connects to (empty on SQLite: one process, woken in memory).
	DatabaseURL string
}

// Service manages endpoints and delivers messages.
type Service struct {
	db      *store.DB
	keys    *secret.Keyring
	billing *billing.Service
	bots    BotChecker
	queue   *jobs.Queue
	client  *safehttp.Client
	allow   []netip.Prefix
	clock   clock.Clock
	log     *slog.Logger
	opts    Options
	dbURL   string

	sender *sender

	// opened caches endpoints' secrets by their sealed form (unique per
	// secret), so a busy endpoint's attempts do not each decrypt it.
	openMu sync.Mutex
	opened map[string][]byte
}

// New returns the service; Start runs its background dispatcher.
func New(d Deps, opts Options) *Service {
	opts.defaults()
	if d.Clock == nil {
		d.Clock = clock.Real{}
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Service{db: d.DB, keys: d.Keys, billing: d.Billing, bots: d.CheckBot, queue: d.Queue, client: d.Client,
		allow: d.Allow, clock: d.Clock, log: d.Logger.With("component", "webhook"), opts: opts, dbURL: d.DatabaseURL,
		opened: map[string][]byte{}}
	s.sender = newSender(s)
	return s
}

// Endpoint is a webhook endpoint as the API shows it; the secret is masked.
type Endpoint struct {
	ID             string     `json:"webhook_id" doc:"The endpoint's id (wh_...)."`
	BotID          int64      `json:"bot_id"`
	URL            string     `json:"url"`
	Events         []string   `json:"events" doc:"Subscribed event types (see GET /webhooks/event-types). The endpoint receives the events that happen while it exists and is active, none from before."`
	Active         bool       `json:"active"`
	Description    string     `json:"description"`
	Secret         string     `json:"secret" doc:"Masked on every read: only POST /webhooks (and rotate-secret) show it in full."`
	DisabledReason *string    `json:"disabled_reason" doc:"Why delivery disabled the endpoint (410 Gone, five days of failures); null otherwise."`
	FailingSince   *time.Time `json:"failing_since" doc:"Start of the current run of failed attempts; null when the last attempt succeeded."`
	CreatedAt      time.Time  `json:"created_at"`
	UpdatedAt      time.Time  `json:"updated_at"`
}

type row struct {
	ID               int64      `db:"id"`
	PublicID         string     `db:"public_id"`
	WorkspaceID      int64      `db:"workspace_id"`
	BotID            int64      `db:"bot_id"`
	URL              string     `db:"url"`
	Events           string     `db:"events"`
	Description      string     `db:"description"`
	Active           bool       `db:"active"`
	DisabledReason   *string    `db:"disabled_reason"`
	SecretSealed     string     `db:"secret_sealed"`
	SecretHint       string     `db:"secret_hint"`
	PrevSecretSealed *string    `db:"prev_secret_sealed"`
	PrevSecretUntil  *time.Time `db:"prev_secret_until"`
	FailingSince     *time.Time `db:"failing_since"`
	CreatedAt        time.Time  `db:"created_at"`
	UpdatedAt        time.Time  `db:"updated_at"`
}

const columns = `id, public_id, workspace_id, bot_id, url, events, description, active, disabled_reason, secret_sealed,
	secret_hint, prev_secret_sealed, prev_secret_until, failing_since, created_at, updated_at`

func (r *row) view() *Endpoint {
	var evs []string
	_ = json.Unmarshal([]byte(r.Events), &evs)
	if evs == nil {
		evs = []string{}
	}
	return &Endpoint{ID: r.PublicID, BotID: r.BotID, URL: r.URL, Events: evs, Active: r.Active, Description: r.Description,
		Secret: "whsec_****" + r.SecretHint, DisabledReason: r.DisabledReason, FailingSince: r.FailingSince,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

// NewSecret returns a signing secret: whsec_ and base64 of 32 random bytes.
func NewSecret() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("webhook: crypto/rand: " + err.Error())
	}
	return "whsec_" + base64.StdEncoding.EncodeToString(b)
}

// CreateInput is POST /webhooks.
type CreateInput struct {
	BotID       int64
	URL         string
	Events      []string
	Active      *bool
	Description string
}

// Created is the create (and rotate) answer: the only time the secret is
// shown in full.
type Created struct {
	*Endpoint
}

// CheckURL applies the endpoint URL rules: http or https, no userinfo, at
// most MaxURLLength, no blocked address (safehttp), and https unless the
// host is a literal address inside CONCIERGE_OUTBOUND_ALLOW.
func (s *Service) CheckURL(raw string) (string, error) {
	if len(raw) > MaxURLLength {
		return "", apperr.Invalid("body.url", fmt.Sprintf("at most %d characters", MaxURLLength), "value_error")
	}
	u, err := safehttp.CheckURL(raw, s.allow)
	if errors.Is(err, safehttp.ErrBlocked) {
		return "", apperr.Invalid("body.url", "the URL points at a blocked address", "value_error")
	}
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), safehttp.ErrInvalidURL.Error()+": ")
		return "", apperr.Invalid("body.url", msg, "value_error")
	}
	if u.Scheme != "https" && !s.allowedHost(u) {
		return "", apperr.Invalid("body.url", "the URL must use https", "value_error")
	}
	return u.String(), nil
}

func (s *Service) allowedHost(u *url.URL) bool {
	a, err := netip.ParseAddr(strings.Trim(u.Hostname(), "[]"))
	if err != nil {
		return false
	}
	for _, p := range s.allow {
		if p.Contains(a.Unmap()) {
			return true
		}
	}
	return false
}

func checkEvents(evs []string) (string, error) {
	if len(evs) == 0 {
		return "", apperr.Invalid("body.events", "subscribe to at least one event type", "value_error")
	}
	if len(evs) > MaxEvents {
		return "", apperr.Invalid("body.events", fmt.Sprintf("at most %d event types", MaxEvents), "value_error")
	}
	seen := map[string]bool{}
	out := []string{}
	for _, e := range evs {
		if !Known(e) || e == TestEvent {
			return "", apperr.Invalid("body.events", fmt.Sprintf("unknown event type %q (see GET /webhooks/event-types)", e), "value_error")
		}
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	b, _ := json.Marshal(out)
	return string(b), nil
}

// Create adds an endpoint to a bot of the workspace.
func (s *Service) Create(ctx context.Context, workspaceID int64, in CreateInput) (*Created, error) {
	if err := s.bots(ctx, workspaceID, in.BotID); err != nil {
		return nil, err
	}
	u, err := s.CheckURL(in.URL)
	if err != nil {
		return nil, err
	}
	evs, err := checkEvents(in.Events)
	if err != nil {
		return nil, err
	}
	if len(in.Description) > MaxDescriptionLength {
		return nil, apperr.Invalid("body.description", fmt.Sprintf("at most %d characters", MaxDescriptionLength), "value_error")
	}
	limit := int64(DefaultEndpointsPerBot)
	if s.billing != nil {
		ent, err := s.billing.Entitlements(ctx, workspaceID)
		if err != nil {
			return nil, err
		}
		if l := ent.Limit("webhooks_per_bot"); l > 0 {
			limit = l
		}
	}
	active := in.Active == nil || *in.Active
	sec := NewSecret()
	sealed, err := s.keys.Seal(sealPurpose, sec)
	if err != nil {
		return nil, err
	}
	now := s.clock.Now()
	r := &row{PublicID: secret.OrderedToken("wh_", 12), WorkspaceID: workspaceID, BotID: in.BotID, URL: u, Events: evs,
		Description: in.Description, Active: active, SecretSealed: sealed, SecretHint: sec[len(sec)-4:],
		CreatedAt: now, UpdatedAt: now}
	err = s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		var n int64
		if err := store.Get(ctx, tx, &n, `SELECT COUNT(*) FROM webhooks WHERE bot_id = ?`, in.BotID); err != nil {
			return err
		}
		if n >= limit {
			return &apperr.LimitReached{Limit: "webhooks_per_bot", Max: limit,
				Message: fmt.Sprintf("this bot already has %d webhook endpoints, the plan's limit", n)}
		}
		return store.Get(ctx, tx, &r.ID, `INSERT INTO webhooks (public_id, workspace_id, bot_id, url, events, description, active,
			secret_sealed, secret_hint, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			r.PublicID, r.WorkspaceID, r.BotID, r.URL, r.Events, r.Description, r.Active, r.SecretSealed, r.SecretHint, now, now)
	})
	if err != nil {
		return nil, err
	}
	v := r.view()
	v.Secret = sec
	return &Created{Endpoint: v}, nil
}

// List returns a bot's endpoints.
func (s *Service) List(ctx context.Context, workspaceID, botID int64) ([]Endpoint, error) {
	if err := s.bots(ctx, workspaceID, botID); err != nil {
		return nil, err
	}
	var rows []row
	if err := store.Select(ctx, s.db.Reader(), &rows, `SELECT `+columns+` FROM webhooks WHERE bot_id = ? AND workspace_id = ?
		ORDER BY id`, botID, workspaceID); err != nil {
		return nil, fmt.Errorf("webhook: list: %w", err)
	}
	out := make([]Endpoint, 0, len(rows))
	for i := range rows {
		out = append(out, *rows[i].view())
	}
	return out, nil
}

// get reads an endpoint of the workspace; any other is 404.
func (s *Service) get(ctx context.Context, q store.Q, workspaceID int64, publicID string) (*row, error) {
	var r row
	err := store.Get(ctx, q, &r, `SELECT `+columns+` FROM webhooks WHERE public_id = ? AND workspace_id = ?`, publicID, workspaceID)
	if store.IsNotFound(err) {
		return nil, apperr.NotFound("webhook not found")
	}
	if err != nil {
		return nil, fmt.Errorf("webhook: get: %w", err)
	}
	return &r, nil
}

// Get returns one endpoint.
func (s *Service) Get(ctx context.Context, workspaceID int64, id string) (*Endpoint, error) {
	r, err := s.get(ctx, s.db.Reader(), workspaceID, id)
	if err != nil {
		return nil, err
	}
	return r.view(), nil
}

// UpdateInput is PATCH /webhooks/{webhook_id}; nil fields stay.
type UpdateInput struct {
	URL         *string
	Events      []string
	Active      *bool
	Description *string
}

// Update changes an endpoint. Turning it active again clears the disabled
// reason and the failure run.
func (s *Service) Update(ctx context.Context, workspaceID int64, id string, in UpdateInput) (*Endpoint, error) {
	var (
		u, evs string
		err    error
	)
	if in.URL != nil {
		if u, err = s.CheckURL(*in.URL); err != nil {
			return nil, err
		}
	}
	if in.Events != nil {
		if evs, err = checkEvents(in.Events); err != nil {
			return nil, err
		}
	}
	if in.Description != nil && len(*in.Description) > MaxDescriptionLength {
		return nil, apperr.Invalid("body.description", fmt.Sprintf("at most %d characters", MaxDescriptionLength), "value_error")
	}
	var r *row
	err = s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		if r, err = s.get(ctx, tx, workspaceID, id); err != nil {
			return err
		}
		if in.URL != nil {
			r.URL = u
		}
		if in.Events != nil {
			r.Events = evs
		}
		if in.Description != nil {
			r.Description = *in.Description
		}
		if in.Active != nil {
			if *in.Active && !r.Active {
				r.DisabledReason, r.FailingSince = nil, nil
			}
			r.Active = *in.Active
		}
		r.UpdatedAt = s.clock.Now()
		_, err := store.Exec(ctx, tx, `UPDATE webhooks SET url = ?, events = ?, description = ?, active = ?, disabled_reason = ?,
			failing_since = ?, updated_at = ? WHERE id = ?`, r.URL, r.Events, r.Description, r.Active, r.DisabledReason,
			r.FailingSince, r.UpdatedAt, r.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return r.view(), nil
}

// Delete removes an endpoint with its messages and attempts.
func (s *Service) Delete(ctx context.Context, workspaceID int64, id string) error {
	err := s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		if err := LockMessages(ctx, tx, s.db.Dialect(), `SELECT id FROM webhooks WHERE public_id = ? AND workspace_id = ?`,
			id, workspaceID); err != nil {
			return err
		}
		n, err := store.Exec(ctx, tx, `DELETE FROM webhooks WHERE public_id = ? AND workspace_id = ?`, id, workspaceID)
		if err != nil {
			return err
		}
		if n == 0 {
			return apperr.NotFound("webhook not found")
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("webhook: delete: %w", err)
	}
	return nil
}

// LockMessages locks, in id order, the messages of the endpoints that
// endpoints (a query of webhook ids, with args) selects, on PostgreSQL
// (SQLite's one writer needs no row locks). A transaction that deletes
// endpoints (and with them, by cascade, their messages) calls it first:
// the cascade would lock the messages in its own order while the attempt
// recorder holds some of them and waits for others (a deadlock, seen in
// the soak when a bot was deleted under delivery); both lock in id order
// instead, so one waits for the other.
func LockMessages(ctx context.Context, tx *sqlx.Tx, d store.Dialect, endpoints string, args ...any) error {
	if d != store.Postgres {
		return nil
	}
	_, err := store.Exec(ctx, tx, `SELECT id FROM webhook_messages WHERE webhook_id IN (`+endpoints+`)
		ORDER BY id FOR UPDATE`, args...)
	return err
}

// RotateSecret makes a new secret; the previous one keeps signing for
// RotationOverlap. The answer shows the new secret, once.
func (s *Service) RotateSecret(ctx context.Context, workspaceID int64, id string) (*Created, error) {
	sec := NewSecret()
	sealed, err := s.keys.Seal(sealPurpose, sec)
	if err != nil {
		return nil, err
	}
	var r *row
	err = s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		if r, err = s.get(ctx, tx, workspaceID, id); err != nil {
			return err
		}
		now := s.clock.Now()
		until := now.Add(RotationOverlap)
		prev := r.SecretSealed
		r.PrevSecretSealed, r.PrevSecretUntil = &prev, &until
		r.SecretSealed, r.SecretHint, r.UpdatedAt = sealed, sec[len(sec)-4:], now
		_, err := store.Exec(ctx, tx, `UPDATE webhooks SET secret_sealed = ?, secret_hint = ?, prev_secret_sealed = ?,
			prev_secret_until = ?, updated_at = ? WHERE id = ?`, r.SecretSealed, r.SecretHint, prev, until, now, r.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	v := r.view()
	v.Secret = sec
	return &Created{Endpoint: v}, nil
}

// secrets returns the raw signing keys of r at now: the current one, then
// the previous one while the rotation overlap lasts.
func (s *Service) secrets(r *row, now time.Time) ([][]byte, error) {
	var out [][]byte
	add := func(sealed string) error {
		s.openMu.Lock()
		raw, ok := s.opened[sealed]
		s.openMu.Unlock()
		if !ok {
			sec, err := s.keys.Open(sealPurpose, sealed)
			if err != nil {
				return err
			}
			if raw, err = base64.StdEncoding.DecodeString(strings.TrimPrefix(sec, "whsec_")); err != nil {
				return fmt.Errorf("webhook: stored secret: %w", err)
			}
			s.openMu.Lock()
			if len(s.opened) >= maxOpenedSecrets {
				clear(s.opened)
			}
			s.opened[sealed] = raw
			s.openMu.Unlock()
		}
		out = append(out, raw)
		return nil
	}
	if err := add(r.SecretSealed); err != nil {
		return nil, err
	}
	if r.PrevSecretSealed != nil && r.PrevSecretUntil != nil && now.Before(*r.PrevSecretUntil) {
		if err := add(*r.PrevSecretSealed); err != nil {
			return nil, err
		}
	}
	return out, nil
}
