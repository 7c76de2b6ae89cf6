package lead

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/apperr"
	"concierge/internal/lead/score"
	"concierge/internal/store"
)

// session is the conversation a lead belongs to.
type session struct {
	ID            int64     `db:"id"`
	PublicID      string    `db:"public_id"`
	WorkspaceID   int64     `db:"workspace_id"`
	BotID         int64     `db:"bot_id"`
	Messages      int       `db:"messages"`
	Preview       bool      `db:"preview"`
	CreatedAt     time.Time `db:"created_at"`
	LastMessageAt time.Time `db:"last_message_at"`
}

const sessionColumns = `id, public_id, workspace_id, bot_id, messages, preview, created_at, last_message_at`

var errNoSession = apperr.NotFound("session not found")

// botSession finds a session of this bot (the widget's view); any other is
// the same 404.
func (s *Service) botSession(ctx context.Context, q store.Q, workspaceID, botID int64, publicID string) (*session, error) {
	var r session
	err := store.Get(ctx, q, &r, `SELECT `+sessionColumns+` FROM chat_sessions
		WHERE public_id = ? AND bot_id = ? AND workspace_id = ? AND preview = FALSE`, publicID, botID, workspaceID)
	if store.IsNotFound(err) {
		return nil, errNoSession
	}
	if err != nil {
		return nil, fmt.Errorf("lead: session: %w", err)
	}
	return &r, nil
}

// workspaceSession finds a session of any of the workspace's bots (the
// owner's view); another workspace's is the same 404 as an unknown one.
func (s *Service) workspaceSession(ctx context.Context, q store.Q, workspaceID int64, publicID string) (*session, error) {
	var r session
	err := store.Get(ctx, q, &r, `SELECT `+sessionColumns+` FROM chat_sessions
		WHERE public_id = ? AND workspace_id = ? AND preview = FALSE`, publicID, workspaceID)
	if store.IsNotFound(err) {
		return nil, errNoSession
	}
	if err != nil {
		return nil, fmt.Errorf("lead: session: %w", err)
	}
	return &r, nil
}

// row is a lead as stored.
type row struct {
	SessionID       int64      `db:"session_id"`
	WorkspaceID     int64      `db:"workspace_id"`
	BotID           int64      `db:"bot_id"`
	Name            *string    `db:"name"`
	Email           *string    `db:"email"`
	Phone           *string    `db:"phone"`
	Company         *string    `db:"company"`
	Fields          string     `db:"fields"`
	CaptureSource   *string    `db:"capture_source"`
	CapturedAt      *time.Time `db:"captured_at"`
	EmailStatus     string     `db:"email_status"`
	EmailVerdict    *string    `db:"email_verdict"`
	EmailReason     *string    `db:"email_reason"`
	EmailSuggestion *string    `db:"email_suggestion"`
	EmailCheckedAt  *time.Time `db:"email_checked_at"`
	Signals         string     `db:"signals"`
	Meeting         *string    `db:"meeting"`
	MeetingBookedAt *time.Time `db:"meeting_booked_at"`
	Score           int        `db:"score"`
	Tier            string     `db:"tier"`
	Breakdown       string     `db:"breakdown"`
	Scorer          string     `db:"scorer"`
	ScoredMessages  int        `db:"scored_messages"`
	ScoredAt        *time.Time `db:"scored_at"`
	CreatedAt       time.Time  `db:"created_at"`
	UpdatedAt       time.Time  `db:"updated_at"`
}

const rowColumns = `l.session_id, l.workspace_id, l.bot_id, l.name, l.email, l.phone, l.company, l.fields, l.capture_source,
	l.captured_at, l.email_status, l.email_verdict, l.email_reason, l.email_suggestion, l.email_checked_at, l.signals,
	l.meeting, l.meeting_booked_at, l.score, l.tier, l.breakdown, l.scorer, l.scored_messages, l.scored_at,
	l.created_at, l.updated_at`

// listed is a lead row with its session's public id and activity.
type listed struct {
	row
	PublicID      string    `db:"public_id"`
	Messages      int       `db:"messages"`
	LastMessageAt time.Time `db:"last_message_at"`
}

// observed is what the widget reported, as stored in leads.signals.
type observed struct {
	Pages    []score.PageView `json:"pages,omitempty"`
	Referrer string           `json:"referrer,omitempty"`
	Sessions int              `json:"sessions,omitempty"`
}

func (r *row) observed() observed {
	var o observed
	_ = json.Unmarshal([]byte(r.Signals), &o) // written by us
	return o
}

// scoreSignals are the scorer's inputs besides the words.
func (r *row) scoreSignals() score.Signals {
	o := r.observed()
	sig := score.Signals{Pages: o.Pages, Referrer: o.Referrer, Sessions: o.Sessions, MeetingBooked: r.MeetingBookedAt != nil}
	if r.Email != nil || r.Phone != nil || r.Company != nil {
		sig.Form = &score.Form{Email: r.Email != nil, Phone: r.Phone != nil, Company: r.Company != nil}
	}
	return sig
}

// ensureRow creates the session's lead row if it has none, and locks it
// for the rest of tx on PostgreSQL (SQLite transactions are serial), so
// two writers of one lead never interleave.
func (s *Service) ensureRow(ctx context.Context, tx *sqlx.Tx, sess *session, now time.Time) (*row, error) {
	if _, err := store.Exec(ctx, tx, `INSERT INTO leads (session_id, workspace_id, bot_id, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (session_id) DO NOTHING`, sess.ID, sess.WorkspaceID, sess.BotID, now, now); err != nil {
		return nil, fmt.Errorf("lead: create: %w", err)
	}
	lock := ""
	if s.db.Dialect() == store.Postgres {
		lock = " FOR UPDATE"
	}
	var r row
	if err := store.Get(ctx, tx, &r, `SELECT `+rowColumns+` FROM leads l WHERE l.session_id = ? AND l.workspace_id = ?`+lock,
		sess.ID, sess.WorkspaceID); err != nil {
		return nil, fmt.Errorf("lead: read: %w", err)
	}
	return &r, nil
}

// readRow reads a lead row; nil when the session has none yet.
func (s *Service) readRow(ctx context.Context, q store.Q, sess *session) (*row, error) {
	var r row
	err := store.Get(ctx, q, &r, `SELECT `+rowColumns+` FROM leads l WHERE l.session_id = ? AND l.workspace_id = ?`,
		sess.ID, sess.WorkspaceID)
	if store.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("lead: read: %w", err)
	}
	return &r, nil
}

// transcript reads the conversation's delivered messages, oldest first,
// the latest max of them.
func (s *Service) transcript(ctx context.Context, q store.Q, sess *session, max int) ([]Turn, error) {
	var rows []Turn
	err := store.Select(ctx, q, &rows, `SELECT role, text, created_at FROM chat_messages
		WHERE session_id = ? AND workspace_id = ? AND status = 'completed' ORDER BY id DESC LIMIT ?`,
		sess.ID, sess.WorkspaceID, max)
	if err != nil {
		return nil, fmt.Errorf("lead: transcript: %w", err)
	}
	for i, j := 0, len(rows)-1; i < j; i, j = i+1, j-1 {
		rows[i], rows[j] = rows[j], rows[i]
	}
	for i := range rows {
		rows[i].CreatedAt = rows[i].CreatedAt.UTC()
	}
	return rows, nil
}

// stored is the part of a score.Result kept in leads.breakdown.
type stored struct {
	Dimensions []score.Dimension `json:"dimensions"`
	Signals    []score.Evidence  `json:"signals"`
	Adjustment int               `json:"adjustment"`
	Overrides  []score.Override  `json:"overrides"`
	Summary    string            `json:"summary"`
	Language   string            `json:"language,omitempty"`
}

// view builds the API's lead from a row.
func view(r *row, publicID string, messages int, lastActive time.Time) *Lead {
	l := &Lead{SessionID: publicID, BotID: r.BotID, Tier: r.Tier, Score: r.Score, Scorer: r.Scorer,
		Name: r.Name, Email: r.Email, Phone: r.Phone, Company: r.Company, Fields: map[string]string{},
		EmailStatus: r.EmailStatus, EmailReason: r.EmailReason, EmailSuggestion: r.EmailSuggestion,
		Messages: messages, CapturedAt: utc(r.CapturedAt), ScoredAt: utc(r.ScoredAt), CreatedAt: r.CreatedAt.UTC(),
		LastActive: lastActive.UTC()}
	if r.UpdatedAt.After(lastActive) {
		l.LastActive = r.UpdatedAt.UTC()
	}
	_ = json.Unmarshal([]byte(r.Fields), &l.Fields)
	var b stored
	_ = json.Unmarshal([]byte(r.Breakdown), &b)
	l.Signals, l.BehavioralScore, l.Overrides, l.Summary, l.Language = b.Signals, b.Adjustment, b.Overrides, b.Summary, b.Language
	l.Dimensions = make([]ScoredDimension, len(b.Dimensions))
	for i, d := range b.Dimensions {
		l.Dimensions[i] = ScoredDimension(d)
	}
	if l.Signals == nil {
		l.Signals = []score.Evidence{}
	}
	if l.Overrides == nil {
		l.Overrides = []score.Override{}
	}
	if r.Meeting != nil {
		var m Meeting
		if json.Unmarshal([]byte(*r.Meeting), &m) == nil {
			l.Meeting = &m
		}
	}
	return l
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
