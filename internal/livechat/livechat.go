// Package livechat owns hand-off to human operators: a conversation's mode
// (bot → waiting → human → bot or closed) with atomic transitions, the
// operator's inbox (queue, transcript, claim, reply, typing, read, release,
// close), presence, the realtime events of both sides (rows in
// livechat_events, fanned out across replicas by PostgreSQL LISTEN/NOTIFY
// or in process on SQLite), the hand-off timeout back to the bot, and the
// records analytics reads (chat_sessions.outcome and
// chat_sessions.first_operator_reply_seconds).
package livechat

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"

	"concierge/internal/analytics"
	"concierge/internal/apperr"
	"concierge/internal/billing"
	"concierge/internal/bot"
	"concierge/internal/chat"
	"concierge/internal/clock"
	"concierge/internal/jobs"
	"concierge/internal/operator"
	"concierge/internal/outbox"
	"concierge/internal/secret"
	"concierge/internal/store"
)

// Outcomes of a conversation (chat_sessions.outcome).
const (
	OutcomeBot       = "answered_by_bot"
	OutcomeHandedOff = "handed_off"
	OutcomeResolved  = "resolved"
	OutcomeAbandoned = "abandoned"
)

// Limits.
const (
	MaxMessageRunes = 4000
	noticeEvery     = 10 * time.Minute // nobody-online e-mails per bot
	presenceTTL     = 90 * time.Second // a stream refreshes stream_seen_at more often than this
	jobTimeout      = "livechat.timeout"
)

// Billing answers what the workspace's plan allows.
type Billing interface {
	Entitlements(ctx context.Context, workspaceID int64) (*billing.Entitlements, error)
}

// Deps are the collaborators of a Service.
type Deps struct {
	DB      *store.DB
	Billing Billing
	Queue   *jobs.Queue
	Clock   clock.Clock
	Logger  *slog.Logger
	// DatabaseURL is the PostgreSQL address the event listener connects
	// to (empty on SQLite).
	DatabaseURL string
	// StreamCap bounds the open event streams per credential (default 5).
	StreamCap int
}

// Service implements live chat.
type Service struct {
	db      *store.DB
	billing Billing
	queue   *jobs.Queue
	clock   clock.Clock
	log     *slog.Logger
	hub     *Hub
}

// New returns the live-chat service; Start begins the event fan-out.
func New(d Deps) *Service {
	if d.Clock == nil {
		d.Clock = clock.Real{}
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Service{db: d.DB, billing: d.Billing, queue: d.Queue, clock: d.Clock, log: d.Logger.With("component", "livechat")}
	s.hub = newHub(s, d.DatabaseURL, d.StreamCap)
	return s
}

// Start runs the cross-replica listener until ctx ends (PostgreSQL only).
func (s *Service) Start(ctx context.Context) { s.hub.start(ctx) }

// Hub is the event fan-out of this process.
func (s *Service) Hub() *Hub { return s.hub }

// session is a conversation as live chat sees it.
type session struct {
	ID                 int64      `db:"id"`
	PublicID           string     `db:"public_id"`
	WorkspaceID        int64      `db:"workspace_id"`
	BotID              int64      `db:"bot_id"`
	Mode               string     `db:"mode"`
	Outcome            string     `db:"outcome"`
	OperatorID         *int64     `db:"operator_id"`
	VisitorName        *string    `db:"visitor_name"`
	VisitorEmail       *string    `db:"visitor_email"`
	HandoffRequestedAt *time.Time `db:"handoff_requested_at"`
	ClaimedAt          *time.Time `db:"claimed_at"`
	FirstReplyAt       *time.Time `db:"first_operator_reply_at"`
	FirstReplySeconds  *int64     `db:"first_operator_reply_seconds"`
	ClosedAt           *time.Time `db:"closed_at"`
	ReadMessageID      int64      `db:"operator_read_message_id"`
	CreatedAt          time.Time  `db:"created_at"`
	LastMessageAt      time.Time  `db:"last_message_at"`
}

const sessionColumns = `id, public_id, workspace_id, bot_id, mode, outcome, operator_id, visitor_name, visitor_email,
	handoff_requested_at, claimed_at, first_operator_reply_at, first_operator_reply_seconds, closed_at,
	operator_read_message_id, created_at, last_message_at`

// sessionOf finds a conversation of one bot; any other is 404.
func (s *Service) sessionOf(ctx context.Context, q store.Q, workspaceID, botID int64, publicID string) (*session, error) {
	var r session
	err := store.Get(ctx, q, &r, `SELECT `+sessionColumns+` FROM chat_sessions
		WHERE public_id = ? AND bot_id = ? AND workspace_id = ? AND preview = ?`, publicID, botID, workspaceID, false)
	if store.IsNotFound(err) {
		return nil, apperr.NotFound("conversation not found")
	}
	if err != nil {
		return nil, fmt.Errorf("livechat: session: %w", err)
	}
	return &r, nil
}

// HandoffInput is a visitor's request for a person.
type HandoffInput struct {
	SessionID string
	Message   string
	Name      string
	Email     string
}

// HandoffResult answers a hand-off request.
type HandoffResult struct {
	Status           string `json:"status" enum:"waiting,human,unavailable" doc:"waiting: queued for an operator; human: an operator already has it; unavailable: nobody can take it now (the bot keeps answering)."`
	SessionID        string `json:"session_id"`
	Mode             string `json:"mode" enum:"bot,waiting,human,closed"`
	QueuePosition    int    `json:"queue_position,omitempty" doc:"1 = next to be claimed (status waiting)."`
	TimeoutSeconds   int    `json:"timeout_seconds,omitempty" doc:"Seconds until an unclaimed hand-off goes back to the bot."`
	AwayMessage      string `json:"away_message,omitempty" doc:"status unavailable: the bot's away message."`
	OfferContactForm bool   `json:"offer_contact_form" doc:"status unavailable: the widget may offer the contact form (POST /chat/lead-capture)."`
}

// Handoff asks for a person in the visitor's conversation (POST
// /operators/handoff).
func (s *Service) Handoff(ctx context.Context, v *bot.View, in HandoffInput) (*HandoffResult, error) {
	b := v.Bot
	ent, err := s.billing.Entitlements(ctx, b.WorkspaceID)
	if err != nil {
		return nil, err
	}
	if err := ent.Require(billing.FeatureLiveChat); err != nil {
		return nil, err
	}
	msg := strings.TrimSpace(in.Message)
	if utf8.RuneCountInString(msg) > MaxMessageRunes {
		return nil, apperr.Invalid("body.message", fmt.Sprintf("at most %d characters", MaxMessageRunes), "value_error.any_str.max_length")
	}
	sess, err := s.sessionOf(ctx, s.db.Reader(), b.WorkspaceID, b.ID, in.SessionID)
	if err != nil {
		return nil, err
	}
	lc := b.LiveChat()
	res := &HandoffResult{SessionID: sess.PublicID, Mode: sess.Mode}
	if sess.Mode == chat.ModeWaiting || sess.Mode == chat.ModeHuman {
		res.Status = sess.Mode
		if sess.Mode == chat.ModeWaiting {
			res.QueuePosition, res.TimeoutSeconds = s.queuePosition(ctx, sess), int(lc.HandoffTimeout()/time.Second)
		}
		return res, nil
	}
	now := s.clock.Now()
	available := false
	if lc.Enabled && !v.IsOffline && withinHours(lc, now) {
		if available, err = s.anyoneOnline(ctx, b.WorkspaceID, b.ID, now); err != nil {
			return nil, err
		}
	}
	if !available {
		if lc.Enabled && !v.IsOffline {
			s.noticeNobodyOnline(ctx, b, sess, now)
		}
		res.Status, res.Mode = "unavailable", sess.Mode
		res.AwayMessage, res.OfferContactForm = awayMessage(lc), lc.OfferContactForm
		return res, nil
	}
	name, email := optional(in.Name, 100), optional(strings.ToLower(in.Email), 254)
	var ids []int64
	won := false
	err = s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		ids = ids[:0]
		// The first hand-off of a conversation counts in analytics.
		var first []analytics.Counted
		if err := store.Select(ctx, tx, &first, `UPDATE chat_sessions SET handoff_requested_at = ?
			WHERE id = ? AND mode IN ('bot', 'closed') AND handoff_requested_at IS NULL RETURNING `+analytics.CountedColumns,
			now, sess.ID); err != nil {
			return err
		}
		n, err := store.Exec(ctx, tx, `UPDATE chat_sessions SET mode = 'waiting', outcome = ?, operator_id = NULL,
			handoff_requested_at = ?, claimed_at = NULL, closed_at = NULL,
			visitor_name = COALESCE(?, visitor_name), visitor_email = COALESCE(?, visitor_email)
			WHERE id = ? AND mode IN ('bot', 'closed')`, OutcomeHandedOff, now, name, email, sess.ID)
		if err != nil || n == 0 {
			return err
		}
		won = true
		if len(first) > 0 && first[0].VisitorMessages > 0 && !first[0].Preview {
			if err := analytics.Record(ctx, tx, analytics.Delta{BotID: sess.BotID, At: first[0].CreatedAt, Handoffs: 1}); err != nil {
				return err
			}
		}
		if msg != "" {
			m, err := s.addMessageTx(ctx, tx, sess, chat.RoleUser, msg, nil, now)
			if err != nil {
				return err
			}
			ids = append(ids, m)
		}
		id, err := s.eventTx(ctx, tx, sess, kindMode, modeData(sess.PublicID, chat.ModeWaiting, "handoff_requested", nil, now), now)
		if err != nil {
			return err
		}
		ids = append(ids, id)
		if _, err := outbox.Add(ctx, tx, now, outbox.Event{WorkspaceID: b.WorkspaceID, BotID: b.ID, Type: "handoff.requested",
			Data: map[string]any{"bot_id": b.ID, "session_id": sess.PublicID, "name": name, "email": email}}); err != nil {
			return err
		}
		_, err = s.queue.EnqueueTx(ctx, tx, jobs.NewJob{Kind: jobTimeout, WorkspaceID: b.WorkspaceID, BotID: b.ID,
			Payload: timeoutPayload{SessionID: sess.ID, EventID: id}, RunAt: now.Add(lc.HandoffTimeout()), MaxAttempts: 10})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("livechat: handoff: %w", err)
	}
	s.hub.published(ids)
	if !won { // a concurrent request changed the mode first: report it
		return s.Handoff(ctx, v, HandoffInput{SessionID: in.SessionID})
	}
	sess.Mode, sess.HandoffRequestedAt = chat.ModeWaiting, &now
	res.Status, res.Mode = chat.ModeWaiting, chat.ModeWaiting
	res.QueuePosition, res.TimeoutSeconds = s.queuePosition(ctx, sess), int(lc.HandoffTimeout()/time.Second)
	return res, nil
}

func awayMessage(lc bot.LiveChat) string {
	if strings.TrimSpace(lc.AwayMessage) != "" {
		return lc.AwayMessage
	}
	return "Nobody from our team is available right now."
}

func optional(s string, max int) *string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max])
	}
	return &s
}

func (s *Service) queuePosition(ctx context.Context, sess *session) int {
	if sess.HandoffRequestedAt == nil {
		return 1
	}
	var n int
	if err := store.Get(ctx, s.db.Reader(), &n, `SELECT COUNT(*) FROM chat_sessions WHERE bot_id = ? AND workspace_id = ?
		AND mode = 'waiting' AND (handoff_requested_at < ? OR (handoff_requested_at = ? AND id < ?))`,
		sess.BotID, sess.WorkspaceID, *sess.HandoffRequestedAt, *sess.HandoffRequestedAt, sess.ID); err != nil {
		return 1
	}
	return n + 1
}

// withinHours reports whether now falls in the bot's business hours (no
// hours set: always).
func withinHours(lc bot.LiveChat, now time.Time) bool {
	if len(lc.BusinessHours) == 0 {
		return true
	}
	loc := time.UTC
	if lc.Timezone != "" {
		if l, err := time.LoadLocation(lc.Timezone); err == nil {
			loc = l
		}
	}
	t := now.In(loc)
	day := strings.ToLower(t.Weekday().String()[:3])
	hm := t.Format("15:04")
	for _, h := range lc.BusinessHours {
		if h.Day == day && hm >= h.Open && hm < h.Close {
			return true
		}
	}
	return false
}

// anyoneOnline: an operator of the bot is online (status online, or an
// event stream open and not set away).
func (s *Service) anyoneOnline(ctx context.Context, workspaceID, botID int64, now time.Time) (bool, error) {
	var n int
	err := store.Get(ctx, s.db.Reader(), &n, `SELECT COUNT(*) FROM operators o JOIN livechat_presence p ON p.operator_id = o.id
		WHERE o.bot_id = ? AND o.workspace_id = ? AND (p.status = 'online' OR (p.status IS NULL AND p.stream_seen_at > ?))`,
		botID, workspaceID, now.Add(-presenceTTL))
	if err != nil {
		return false, fmt.Errorf("livechat: presence: %w", err)
	}
	return n > 0, nil
}

// SetStatus sets an operator's presence (PUT /operators/me/status).
func (s *Service) SetStatus(ctx context.Context, op *operator.Operator, status string) error {
	if status != "online" && status != "away" {
		return apperr.Invalid("body.status", "online or away", "enum")
	}
	now := s.clock.Now()
	_, err := store.Exec(ctx, s.db.Writer(), `INSERT INTO livechat_presence (operator_id, status, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (operator_id) DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at`, op.ID, status, now)
	if err != nil {
		return fmt.Errorf("livechat: status: %w", err)
	}
	return nil
}

// streamSeen marks an operator's event stream as open now.
func (s *Service) streamSeen(ctx context.Context, operatorID int64) {
	now := s.clock.Now()
	if _, err := store.Exec(ctx, s.db.Writer(), `INSERT INTO livechat_presence (operator_id, stream_seen_at, updated_at)
		VALUES (?, ?, ?) ON CONFLICT (operator_id) DO UPDATE SET stream_seen_at = excluded.stream_seen_at`,
		operatorID, now, now); err != nil {
		s.log.Warn("presence", "err", err)
	}
}

// addMessageTx writes a message of the conversation and its event; it
// returns the event id.
func (s *Service) addMessageTx(ctx context.Context, tx store.Q, sess *session, role, text string, op *operator.Operator, now time.Time) (int64, error) {
	pub := secret.OrderedToken("msg_", 12)
	var msgID int64
	var topic any // a visitor's message counts in analytics (as a message, not a question to the bot)
	if role == "user" {
		topic = analytics.Topic(text)
	}
	if err := store.Get(ctx, tx, &msgID, `INSERT INTO chat_messages (public_id, session_id, workspace_id, bot_id, role, status,
		text, topic, created_at, completed_at) VALUES (?, ?, ?, ?, ?, 'completed', ?, ?, ?, ?) RETURNING id`,
		pub, sess.ID, sess.WorkspaceID, sess.BotID, role, text, topic, now, now); err != nil {
		return 0, err
	}
	visitor := 0
	if role == "user" {
		visitor = 1
	}
	var c analytics.Counted
	if err := store.Get(ctx, tx, &c, `UPDATE chat_sessions SET messages = messages + 1, visitor_messages = visitor_messages + ?,
		last_message_at = ? WHERE id = ? RETURNING `+analytics.CountedColumns, visitor, now, sess.ID); err != nil {
		return 0, err
	}
	if visitor == 1 {
		if err := analytics.Record(ctx, tx, c.Delta(sess.BotID), analytics.Delta{BotID: sess.BotID, At: now, VisitorMessages: 1}); err != nil {
			return 0, err
		}
	}
	d := map[string]any{"session_id": sess.PublicID, "message_id": pub, "role": role, "text": text,
		"created_at": now.UTC().Format(time.RFC3339Nano)}
	if op != nil {
		d["operator_id"], d["operator_name"] = op.ID, op.Name
	}
	return s.eventTx(ctx, tx, sess, kindMessage, d, now)
}

// VisitorMessage is chat.Relay: a visitor's message while a person has the
// conversation. No retrieval, no answerer, no credit.
func (s *Service) VisitorMessage(ctx context.Context, workspaceID, botID, sessionID int64, text string) (string, string, error) {
	now := s.clock.Now()
	var (
		eventID int64
		pub     string
		mode    string
	)
	err := s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		var sess session
		if err := store.Get(ctx, tx, &sess, `SELECT `+sessionColumns+` FROM chat_sessions WHERE id = ? AND workspace_id = ? AND bot_id = ?`,
			sessionID, workspaceID, botID); err != nil {
			return err
		}
		mode = sess.Mode
		id, err := s.addMessageTx(ctx, tx, &sess, chat.RoleUser, text, nil, now)
		if err != nil {
			return err
		}
		eventID = id
		return store.Get(ctx, tx, &pub, `SELECT public_id FROM chat_messages WHERE session_id = ? ORDER BY id DESC LIMIT 1`, sessionID)
	})
	if err != nil {
		return "", "", fmt.Errorf("livechat: visitor message: %w", err)
	}
	s.hub.published([]int64{eventID})
	return pub, mode, nil
}

// Available reports whether a hand-off would reach a person now: live chat
// on, the bot serving, within business hours and an operator online.
func (s *Service) Available(ctx context.Context, v *bot.View) bool {
	lc := v.Bot.LiveChat()
	if !lc.Enabled || v.IsOffline {
		return false
	}
	now := s.clock.Now()
	if !withinHours(lc, now) {
		return false
	}
	ok, err := s.anyoneOnline(ctx, v.Bot.WorkspaceID, v.Bot.ID, now)
	return err == nil && ok
}
