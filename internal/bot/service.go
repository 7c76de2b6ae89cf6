package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/apperr"
	"concierge/internal/billing"
	"concierge/internal/clock"
	"concierge/internal/coalesce"
	"concierge/internal/outbox"
	"concierge/internal/secret"
	"concierge/internal/store"
	"concierge/internal/webhook"
)

// Billing is what the bot service asks of billing.
type Billing interface {
	Entitlements(ctx context.Context, workspaceID int64) (*billing.Entitlements, error)
	Standing(ctx context.Context, workspaceID int64) (*billing.Entitlements, error)
	StandingOf(r *billing.StandingRow) *billing.Entitlements
	CheckBotCreation(ctx context.Context, tx *sqlx.Tx, workspaceID int64) error
}

// SubscriptionCanceller cancels a bot's own subscription with the payment
// provider and records it, before the bot is deleted.
type SubscriptionCanceller interface {
	CancelBotSubscription(ctx context.Context, workspaceID, botID, subscriptionID int64) error
}

// Service implements the bot rules.
type Service struct {
	db      *store.DB
	billing Billing
	subs    SubscriptionCanceller
	clock   clock.Clock
	log     *slog.Logger
	// byKey shares the read of bots by key between concurrent requests
	// (every widget request makes one); nothing is cached. One query at a
	// time: a lone request starts its own at once, and under load each
	// query takes every read queued while the previous one ran (with two
	// in flight, half as many shared one: the read was 8.6% of a loaded
	// server's CPU against 6.5% with one, 12.8% before any sharing).
	byKey *coalesce.Lookup[string, keyRow]
}

// Deps are the collaborators of a Service.
type Deps struct {
	DB      *store.DB
	Billing Billing
	Clock   clock.Clock
	Logger  *slog.Logger
}

// NewService returns the bot service.
func NewService(d Deps) *Service {
	if d.Clock == nil {
		d.Clock = clock.Real{}
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Service{db: d.DB, billing: d.Billing, clock: d.Clock, log: d.Logger.With("component", "bot")}
	s.byKey = coalesce.NewLookup(1, 64, 30*time.Second, func(ctx context.Context, keys []string) (map[string]keyRow, error) {
		return botsByKeys(ctx, s.db.Reader(), keys)
	})
	return s
}

// SetSubscriptionCanceller wires the subscription side (it depends on bots
// too, so it is set after both exist).
func (s *Service) SetSubscriptionCanceller(c SubscriptionCanceller) { s.subs = c }

// View is a bot with its derived state.
type View struct {
	*Bot
	// IsOffline: the workspace is not serving, or the bot's own
	// subscription is not active. Visitors then get only the offline message.
	IsOffline bool
	// SubscriptionRef is the provider's id of the bot's own subscription.
	SubscriptionRef *string
	// Balance is the workspace's credit balance when the view was read:
	// a chat refuses a reply it cannot pay for (402) before answering
	// without reading it again; the debit itself checks the balance anew.
	Balance int64
}

var keyPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{4,64}$`)

// ValidKey reports whether s has the shape of a bot key.
func ValidKey(s string) bool { return keyPattern.MatchString(s) }

func newKey() string { return secret.Token("bk_", 18) }

func defaults(workspaceID int64, now time.Time) *Bot {
	tone, _ := TonePresetByKey("professional")
	return &Bot{
		WorkspaceID:       workspaceID,
		Key:               newKey(),
		Greeting:          "Hi! How can I help you today?",
		TonePreset:        tone.Key,
		BrandTone:         tone.Text,
		AppearanceJSON:    encode(Appearance{PrimaryColor: "#2563EB", Theme: "light", Position: "bottom-right", LauncherIcon: "chat"}),
		CopyJSON:          encode(Copy{Title: "Chat with us", InputPlaceholder: "Type your question…"}),
		LiveChatJSON:      encode(LiveChat{}),
		QualificationJSON: encode(Qualification{Framework: "bant"}),
		OriginsJSON:       "[]",
		OfflineMessage:    "We're offline right now. Please leave your e-mail and we'll get back to you.",
		CreatedAt:         now,
		UpdatedAt:         now,
	}
}

// Create makes a bot with POST /bots, within the plan's allowance.
func (s *Service) Create(ctx context.Context, workspaceID int64, fields map[string]json.RawMessage) (*View, error) {
	ent, err := s.billing.Entitlements(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	var b *Bot
	err = s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		if err := s.billing.CheckBotCreation(ctx, tx, workspaceID); err != nil {
			return err
		}
		var err error
		b, err = s.CreateTx(ctx, tx, workspaceID, fields, nil, ent)
		return err
	})
	if err != nil {
		return nil, err
	}
	return s.view(ctx, &row{Bot: *b}, ent), nil
}

// CreateTx inserts a bot inside the caller's transaction: POST /bots after
// its checks, or a paid checkout (subscriptionID set) whose own subscription
// pays for the bot. gate may be nil when features were already settled.
func (s *Service) CreateTx(ctx context.Context, tx *sqlx.Tx, workspaceID int64, fields map[string]json.RawMessage,
	subscriptionID *int64, gate Gate) (*Bot, error) {
	if _, ok := fields["name"]; !ok {
		return nil, apperr.Invalid("body.name", "Field required", "missing")
	}
	now := s.clock.Now()
	b := defaults(workspaceID, now)
	b.SubscriptionID = subscriptionID
	if err := apply(b, fields, false, gate); err != nil {
		return nil, err
	}
	if err := insertBot(ctx, tx, b); err != nil {
		return nil, fmt.Errorf("bot: create: %w", err)
	}
	if _, err := outbox.Add(ctx, tx, now, outbox.Event{WorkspaceID: workspaceID, BotID: b.ID, Type: "bot.created",
		Data: map[string]any{"bot_id": b.ID, "name": b.Name}}); err != nil {
		return nil, err
	}
	return b, nil
}

// List returns every bot of the workspace.
func (s *Service) List(ctx context.Context, workspaceID int64) ([]View, error) {
	rows, err := botsOfWorkspace(ctx, s.db.Reader(), workspaceID)
	if err != nil {
		return nil, fmt.Errorf("bot: list: %w", err)
	}
	if len(rows) == 0 {
		return []View{}, nil
	}
	ent, err := s.billing.Entitlements(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	out := make([]View, len(rows))
	for i := range rows {
		out[i] = *s.view(ctx, &rows[i], ent)
	}
	return out, nil
}

// Get returns one bot of the workspace. Another workspace's bot is 403 (spec
// 4.2 rule 3); a bot that does not exist is 404.
func (s *Service) Get(ctx context.Context, workspaceID, botID int64) (*View, error) {
	r, err := s.owned(ctx, s.db.Reader(), workspaceID, botID)
	if err != nil {
		return nil, err
	}
	ent, err := s.billing.Standing(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	return s.view(ctx, r, ent), nil
}

// ErrOtherWorkspace is the answer for another workspace's bot.
var ErrOtherWorkspace = apperr.Forbidden("this bot belongs to another workspace")

func (s *Service) owned(ctx context.Context, q store.Q, workspaceID, botID int64) (*row, error) {
	r, err := botByID(ctx, q, botID)
	if store.IsNotFound(err) {
		return nil, apperr.NotFound("bot not found")
	}
	if err != nil {
		return nil, fmt.Errorf("bot: get: %w", err)
	}
	if r.WorkspaceID != workspaceID {
		return nil, ErrOtherWorkspace
	}
	return r, nil
}

func (s *Service) view(_ context.Context, r *row, ent *billing.Entitlements) *View {
	offline := !ent.Serving
	if r.SubscriptionID != nil && (r.SubscriptionStatus == nil || !billing.SubscriptionServes(*r.SubscriptionStatus)) {
		offline = true
	}
	return &View{Bot: &r.Bot, IsOffline: offline, SubscriptionRef: r.SubscriptionRef, Balance: ent.Usage.CreditsBalance}
}

// Update applies a partial update. impersonated marks a super-admin
// impersonation session, under which the origin allowlist and the
// notification and reply-to addresses are refused.
func (s *Service) Update(ctx context.Context, workspaceID, botID int64, fields map[string]json.RawMessage, impersonated bool) (*View, error) {
	ent, err := s.billing.Entitlements(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	var r *row
	err = s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		var err error
		if r, err = s.owned(ctx, tx, workspaceID, botID); err != nil {
			return err
		}
		if err := apply(&r.Bot, fields, impersonated, ent); err != nil {
			return err
		}
		r.UpdatedAt = s.clock.Now()
		if err := saveSettings(ctx, tx, &r.Bot); err != nil {
			return fmt.Errorf("bot: update: %w", err)
		}
		keys := make([]string, 0, len(fields))
		for k := range fields {
			keys = append(keys, k)
		}
		_, err = outbox.Add(ctx, tx, r.UpdatedAt, outbox.Event{WorkspaceID: workspaceID, BotID: botID, Type: "bot.updated",
			Data: map[string]any{"bot_id": botID, "fields": keys}})
		return err
	})
	if err != nil {
		return nil, err
	}
	return s.view(ctx, r, ent), nil
}

// Delete removes a bot and everything it owns (the schema cascades). A bot
// with its own subscription has it cancelled with the provider first; if
// that fails, the bot stays and the caller may retry.
func (s *Service) Delete(ctx context.Context, workspaceID, botID int64) error {
	r, err := s.owned(ctx, s.db.Reader(), workspaceID, botID)
	if err != nil {
		return err
	}
	if r.SubscriptionID != nil && s.subs != nil {
		if err := s.subs.CancelBotSubscription(ctx, workspaceID, botID, *r.SubscriptionID); err != nil {
			return err
		}
	}
	now := s.clock.Now()
	err = s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		// The bot's webhook endpoints go with it, and their messages: locked
		// in id order first, as the delivery recorder locks them.
		if err := webhook.LockMessages(ctx, tx, s.db.Dialect(), `SELECT id FROM webhooks WHERE bot_id = ? AND workspace_id = ?`,
			botID, workspaceID); err != nil {
			return err
		}
		n, err := store.Exec(ctx, tx, `DELETE FROM bots WHERE id = ? AND workspace_id = ?`, botID, workspaceID)
		if err != nil {
			return err
		}
		if n == 0 {
			return apperr.NotFound("bot not found")
		}
		// The billing record stays (invoices refer to it); only its link
		// to the bot goes.
		if _, err := store.Exec(ctx, tx, `UPDATE subscriptions SET bot_id = NULL WHERE bot_id = ? AND workspace_id = ?`, botID, workspaceID); err != nil {
			return err
		}
		_, err = outbox.Add(ctx, tx, now, outbox.Event{WorkspaceID: workspaceID, Type: "bot.deleted",
			Data: map[string]any{"bot_id": botID}})
		return err
	})
	if err != nil {
		return fmt.Errorf("bot: delete: %w", err)
	}
	return nil
}

// ByKey resolves a public bot key (X-Bot-Key). Unknown keys are
// unauthorized. Concurrent requests share the read (coalesce.Lookup), each
// answered by a query that starts after it asked: a bot deleted, a setting
// changed or a balance spent before the request arrived is seen by it.
func (s *Service) ByKey(ctx context.Context, key string) (*View, error) {
	if !ValidKey(key) {
		return nil, apperr.ErrUnauthorized
	}
	r, found, err := s.byKey.Get(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("bot: by key: %w", err)
	}
	if !found {
		return nil, apperr.ErrUnauthorized
	}
	return s.view(ctx, &r.row, s.billing.StandingOf(&r.Workspace)), nil
}

// Default returns the workspace's default bot (its oldest), which an
// X-API-Key resolves to on widget endpoints.
func (s *Service) Default(ctx context.Context, workspaceID int64) (*View, error) {
	rows, err := botsOfWorkspace(ctx, s.db.Reader(), workspaceID)
	if err != nil {
		return nil, fmt.Errorf("bot: default: %w", err)
	}
	if len(rows) == 0 {
		return nil, apperr.NotFound("the workspace has no bot yet; create one with POST /bots")
	}
	ent, err := s.billing.Standing(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	return s.view(ctx, &rows[0], ent), nil
}

// RecordDemoShare counts a copy of the demo link.
func (s *Service) RecordDemoShare(ctx context.Context, workspaceID, botID int64) (int, error) {
	now := s.clock.Now()
	var n int
	err := s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		if _, err := s.owned(ctx, tx, workspaceID, botID); err != nil {
			return err
		}
		if err := store.Get(ctx, tx, &n, `UPDATE bots SET demo_share_clicks = demo_share_clicks + 1, last_demo_share_at = ?
			WHERE id = ? AND workspace_id = ? RETURNING demo_share_clicks`, now, botID, workspaceID); err != nil {
			return err
		}
		_, err := outbox.Add(ctx, tx, now, outbox.Event{WorkspaceID: workspaceID, BotID: botID, Type: "bot.demo_link_copied",
			Data: map[string]any{"bot_id": botID}})
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("bot: demo share: %w", err)
	}
	return n, nil
}

// RecrawlStatus is what GET/PATCH /bots/{bot_id}/recrawl show.
type RecrawlStatus struct {
	Enabled       bool
	Available     bool // the plan has auto_recrawl
	IntervalHours int
	NextRunAt     *time.Time
	LastRun       *RecrawlRun
}

// Recrawl returns the auto-recrawl status of a bot.
func (s *Service) Recrawl(ctx context.Context, workspaceID, botID int64) (*RecrawlStatus, error) {
	r, err := s.owned(ctx, s.db.Reader(), workspaceID, botID)
	if err != nil {
		return nil, err
	}
	ent, err := s.billing.Entitlements(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	return recrawlStatus(&r.Bot, ent), nil
}

func recrawlStatus(b *Bot, ent *billing.Entitlements) *RecrawlStatus {
	return &RecrawlStatus{Enabled: b.RecrawlEnabled, Available: ent.Require("auto_recrawl") == nil,
		IntervalHours: recrawlIntervalHours(ent), NextRunAt: b.RecrawlNextAt, LastRun: b.RecrawlLastRunSummary()}
}

// SetRecrawl turns auto-recrawl on (needs the auto_recrawl feature) or off
// (always allowed, also after a downgrade).
func (s *Service) SetRecrawl(ctx context.Context, workspaceID, botID int64, enabled bool) (*RecrawlStatus, error) {
	ent, err := s.billing.Entitlements(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	if enabled {
		if err := ent.Require("auto_recrawl"); err != nil {
			return nil, err
		}
	}
	now := s.clock.Now()
	var r *row
	err = s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		var err error
		if r, err = s.owned(ctx, tx, workspaceID, botID); err != nil {
			return err
		}
		var next *time.Time
		if enabled {
			at := now.Add(time.Duration(recrawlIntervalHours(ent)) * time.Hour)
			if r.RecrawlEnabled && r.RecrawlNextAt != nil {
				at = *r.RecrawlNextAt
			}
			next = &at
		}
		if err := setRecrawl(ctx, tx, workspaceID, botID, enabled, next, now); err != nil {
			return err
		}
		r.RecrawlEnabled, r.RecrawlNextAt = enabled, next
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("bot: set recrawl: %w", errors.Join(err))
	}
	return recrawlStatus(&r.Bot, ent), nil
}

// recrawlIntervalHours is the plan's auto-recrawl interval; a plan without
// one (the feature is off) still shows a day, the interval it would use.
func recrawlIntervalHours(e *billing.Entitlements) int {
	if e.RecrawlIntervalHours > 0 {
		return e.RecrawlIntervalHours
	}
	return 24
}

// Caller describes who asks for GET /bots (spec 4.2 rule 1).
type Caller struct {
	// WorkspaceID is the caller's own workspace (the key's owner, or the
	// operator's workspace).
	WorkspaceID int64
	// OperatorBotID is set for an operator key: the bot it is bound to.
	OperatorBotID int64
	// ActingAsOperator is an owner sending X-Acting-Role: operator.
	ActingAsOperator bool
	// TargetWorkspaceID is X-Workspace-Id from an owner acting as a linked
	// operator in another workspace (0 when absent).
	TargetWorkspaceID int64
}

// ListFor applies the scope rules of GET /bots: an operator sees only its
// bot; an owner acting in another workspace sees only the bot they operate
// there (and nothing when not linked: 403); an owner acting as operator sees
// their self-operator bot, or everything when they have none; an owner sees
// every bot.
func (s *Service) ListFor(ctx context.Context, c Caller) ([]View, error) {
	one := func(botID int64, workspaceID int64) ([]View, error) {
		v, err := s.Get(ctx, workspaceID, botID)
		if err != nil {
			return nil, err
		}
		return []View{*v}, nil
	}
	switch {
	case c.OperatorBotID != 0:
		return one(c.OperatorBotID, c.WorkspaceID)
	case c.TargetWorkspaceID != 0 && c.TargetWorkspaceID != c.WorkspaceID:
		var botID int64
		err := store.Get(ctx, s.db.Reader(), &botID, `SELECT bot_id FROM operators
			WHERE workspace_id = ? AND linked_workspace_id = ? ORDER BY id LIMIT 1`, c.TargetWorkspaceID, c.WorkspaceID)
		if store.IsNotFound(err) {
			return nil, apperr.Forbidden("you are not an operator of that workspace")
		}
		if err != nil {
			return nil, fmt.Errorf("bot: linked operator: %w", err)
		}
		return one(botID, c.TargetWorkspaceID)
	case c.ActingAsOperator:
		var botID int64
		err := store.Get(ctx, s.db.Reader(), &botID, `SELECT bot_id FROM operators
			WHERE workspace_id = ? AND linked_workspace_id = ? ORDER BY id LIMIT 1`, c.WorkspaceID, c.WorkspaceID)
		if err == nil {
			return one(botID, c.WorkspaceID)
		}
		if !store.IsNotFound(err) {
			return nil, fmt.Errorf("bot: self operator: %w", err)
		}
	}
	return s.List(ctx, c.WorkspaceID)
}
