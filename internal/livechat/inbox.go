package livechat

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"concierge/internal/apperr"
	"concierge/internal/operator"
	"concierge/internal/store"
)

// Conversation is one conversation in an operator's inbox.
type Conversation struct {
	SessionID     string       `json:"session_id"`
	BotID         int64        `json:"bot_id"`
	Mode          string       `json:"mode" enum:"bot,waiting,human,closed"`
	Outcome       string       `json:"outcome" enum:"answered_by_bot,handed_off,resolved,abandoned"`
	OperatorID    *int64       `json:"operator_id" doc:"The operator who claimed it, if any."`
	VisitorName   *string      `json:"visitor_name"`
	VisitorEmail  *string      `json:"visitor_email"`
	LeadTier      *string      `json:"lead_tier" doc:"sql, mql, nurture or unqualified; null without a lead."`
	LeadScore     *int         `json:"lead_score"`
	WaitingSince  *string      `json:"waiting_since" doc:"When the current hand-off was requested."`
	ClaimedAt     *string      `json:"claimed_at"`
	ClosedAt      *string      `json:"closed_at"`
	LastMessage   *LastMessage `json:"last_message"`
	UnreadCount   int          `json:"unread_count" doc:"Visitor messages after the operators last read the conversation."`
	CreatedAt     string       `json:"created_at"`
	LastMessageAt string       `json:"last_message_at"`
}

// LastMessage is the newest message of a conversation.
type LastMessage struct {
	Role      string `json:"role"`
	Text      string `json:"text"`
	CreatedAt string `json:"created_at"`
}

// Inbox is one page of the inbox.
type Inbox struct {
	Items []Conversation `json:"items"`
	Total int            `json:"total"`
	Page  int            `json:"page"`
	Limit int            `json:"limit"`
}

// Queues of the inbox.
var queues = map[string]string{
	"waiting": `s.mode = 'waiting'`,
	"mine":    `s.mode = 'human' AND s.operator_id = ?`,
	"active":  `s.mode IN ('waiting', 'human')`,
	"closed":  `s.mode = 'closed'`,
	"all":     `s.handoff_requested_at IS NOT NULL`,
}

type convRow struct {
	session
	LeadTier  *string    `db:"lead_tier"`
	LeadScore *int       `db:"lead_score"`
	LastRole  *string    `db:"last_role"`
	LastText  *string    `db:"last_text"`
	LastAt    *time.Time `db:"last_at"`
	Unread    int        `db:"unread"`
}

const convSelect = `SELECT s.id, s.public_id, s.workspace_id, s.bot_id, s.mode, s.outcome, s.operator_id, s.visitor_name,
	s.visitor_email, s.handoff_requested_at, s.claimed_at, s.first_operator_reply_at, s.first_operator_reply_seconds,
	s.closed_at, s.operator_read_message_id, s.created_at, s.last_message_at,
	l.tier AS lead_tier, l.score AS lead_score,
	(SELECT m.role FROM chat_messages m WHERE m.session_id = s.id AND m.status = 'completed' ORDER BY m.id DESC LIMIT 1) AS last_role,
	(SELECT m.text FROM chat_messages m WHERE m.session_id = s.id AND m.status = 'completed' ORDER BY m.id DESC LIMIT 1) AS last_text,
	(SELECT m.created_at FROM chat_messages m WHERE m.session_id = s.id AND m.status = 'completed' ORDER BY m.id DESC LIMIT 1) AS last_at,
	(SELECT COUNT(*) FROM chat_messages m WHERE m.session_id = s.id AND m.role = 'user' AND m.id > s.operator_read_message_id) AS unread
	FROM chat_sessions s LEFT JOIN leads l ON l.session_id = s.id`

// List returns a page of the operator's inbox: queue waiting, mine,
// active (waiting or with a person), closed or all (every handed-off one).
func (s *Service) List(ctx context.Context, op *operator.Operator, queue string, page, limit int) (*Inbox, error) {
	cond, ok := queues[queue]
	if !ok {
		return nil, apperr.Invalid("query.queue", "waiting, mine, active, closed or all", "enum")
	}
	args := []any{op.WorkspaceID, op.BotID}
	if queue == "mine" {
		args = append(args, op.ID)
	}
	where := ` WHERE s.workspace_id = ? AND s.bot_id = ? AND s.preview = ? AND ` + cond
	countArgs := append([]any{op.WorkspaceID, op.BotID, false}, args[2:]...)
	out := &Inbox{Items: []Conversation{}, Page: page, Limit: limit}
	if err := store.Get(ctx, s.db.Reader(), &out.Total, `SELECT COUNT(*) FROM chat_sessions s`+where, countArgs...); err != nil {
		return nil, fmt.Errorf("livechat: list: %w", err)
	}
	order := ` ORDER BY s.last_message_at DESC, s.id DESC`
	if queue == "waiting" {
		order = ` ORDER BY s.handoff_requested_at, s.id`
	}
	var rows []convRow
	if err := store.Select(ctx, s.db.Reader(), &rows, convSelect+where+order+` LIMIT ? OFFSET ?`,
		append(countArgs, limit, (page-1)*limit)...); err != nil {
		return nil, fmt.Errorf("livechat: list: %w", err)
	}
	for i := range rows {
		out.Items = append(out.Items, conversation(&rows[i]))
	}
	return out, nil
}

func ts(t *time.Time) *string {
	if t == nil {
		return nil
	}
	v := t.UTC().Format(time.RFC3339Nano)
	return &v
}

func conversation(r *convRow) Conversation {
	c := Conversation{SessionID: r.PublicID, BotID: r.BotID, Mode: r.Mode, Outcome: r.Outcome, OperatorID: r.OperatorID,
		VisitorName: r.VisitorName, VisitorEmail: r.VisitorEmail, LeadTier: r.LeadTier, LeadScore: r.LeadScore,
		WaitingSince: ts(r.HandoffRequestedAt), ClaimedAt: ts(r.ClaimedAt), ClosedAt: ts(r.ClosedAt), UnreadCount: r.Unread,
		CreatedAt: *ts(&r.CreatedAt), LastMessageAt: *ts(&r.LastMessageAt)}
	if r.LastRole != nil && r.LastText != nil && r.LastAt != nil {
		c.LastMessage = &LastMessage{Role: *r.LastRole, Text: *r.LastText, CreatedAt: *ts(r.LastAt)}
	}
	return c
}

// TranscriptMessage is one message of a transcript.
type TranscriptMessage struct {
	MessageID string `json:"message_id"`
	Role      string `json:"role" enum:"user,assistant,operator"`
	Text      string `json:"text"`
	CreatedAt string `json:"created_at"`
}

// ConversationDetail is one conversation with its transcript and lead.
type ConversationDetail struct {
	Conversation
	Messages     []TranscriptMessage `json:"messages" doc:"Oldest first (the last 500)."`
	OperatorLead *OperatorLead       `json:"lead" doc:"The lead's qualification and the pages the visitor saw; null without a lead."`
}

// OperatorLead is the lead summary an operator sees.
type OperatorLead struct {
	Tier      string          `json:"tier"`
	Score     int             `json:"score"`
	Name      *string         `json:"name"`
	Email     *string         `json:"email"`
	Company   *string         `json:"company"`
	Breakdown json.RawMessage `json:"breakdown" doc:"Per-dimension scores and evidence."`
	Signals   json.RawMessage `json:"signals" doc:"Behavioural signals, among them the pages the visitor saw."`
}

// Get returns one conversation of the operator's bot.
func (s *Service) Get(ctx context.Context, op *operator.Operator, publicID string) (*ConversationDetail, error) {
	var r convRow
	err := store.Get(ctx, s.db.Reader(), &r, convSelect+` WHERE s.workspace_id = ? AND s.bot_id = ? AND s.public_id = ? AND s.preview = ?`,
		op.WorkspaceID, op.BotID, publicID, false)
	if store.IsNotFound(err) {
		return nil, apperr.NotFound("conversation not found")
	}
	if err != nil {
		return nil, fmt.Errorf("livechat: conversation: %w", err)
	}
	d := &ConversationDetail{Conversation: conversation(&r), Messages: []TranscriptMessage{}}
	var msgs []struct {
		PublicID  string    `db:"public_id"`
		Role      string    `db:"role"`
		Text      string    `db:"text"`
		CreatedAt time.Time `db:"created_at"`
	}
	if err := store.Select(ctx, s.db.Reader(), &msgs, `SELECT public_id, role, text, created_at FROM (SELECT id, public_id, role, text,
		created_at FROM chat_messages WHERE session_id = ? AND status = 'completed' ORDER BY id DESC LIMIT 500) t ORDER BY id`, r.ID); err != nil {
		return nil, fmt.Errorf("livechat: transcript: %w", err)
	}
	for _, m := range msgs {
		d.Messages = append(d.Messages, TranscriptMessage{MessageID: m.PublicID, Role: m.Role, Text: m.Text, CreatedAt: *ts(&m.CreatedAt)})
	}
	var l struct {
		Tier      string  `db:"tier"`
		Score     int     `db:"score"`
		Name      *string `db:"name"`
		Email     *string `db:"email"`
		Company   *string `db:"company"`
		Breakdown string  `db:"breakdown"`
		Signals   string  `db:"signals"`
	}
	err = store.Get(ctx, s.db.Reader(), &l, `SELECT tier, score, name, email, company, breakdown, signals FROM leads
		WHERE session_id = ? AND workspace_id = ?`, r.ID, op.WorkspaceID)
	switch {
	case err == nil:
		d.OperatorLead = &OperatorLead{Tier: l.Tier, Score: l.Score, Name: l.Name, Email: l.Email, Company: l.Company,
			Breakdown: rawOr(l.Breakdown), Signals: rawOr(l.Signals)}
	case !store.IsNotFound(err):
		return nil, fmt.Errorf("livechat: lead: %w", err)
	}
	return d, nil
}

func rawOr(s string) json.RawMessage {
	if !json.Valid([]byte(s)) {
		return json.RawMessage("{}")
	}
	return json.RawMessage(s)
}

// SessionID resolves a visitor stream's conversation (its bot's only).
func (s *Service) SessionID(ctx context.Context, workspaceID, botID int64, publicID string) (int64, error) {
	sess, err := s.sessionOf(ctx, s.db.Reader(), workspaceID, botID, publicID)
	if err != nil {
		return 0, err
	}
	return sess.ID, nil
}

// StreamSeen marks an operator's stream open (presence).
func (s *Service) StreamSeen(ctx context.Context, op *operator.Operator) { s.streamSeen(ctx, op.ID) }

// ConversationOf returns the conversation after a transition.
func (s *Service) ConversationOf(ctx context.Context, op *operator.Operator, publicID string) (*Conversation, error) {
	d, err := s.Get(ctx, op, publicID)
	if err != nil {
		return nil, err
	}
	return &d.Conversation, nil
}
