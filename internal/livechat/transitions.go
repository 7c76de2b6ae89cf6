package livechat

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"

	"concierge/internal/apperr"
	"concierge/internal/chat"
	"concierge/internal/operator"
	"concierge/internal/outbox"
	"concierge/internal/store"
)

// Every transition is one conditional UPDATE: of two operators claiming at
// once exactly one changes a row; the other finds the mode moved on (409).

// transition runs a conditional update of the operator's conversation and,
// when it changed the row, then(tx, sess) in the same transaction. A
// conversation of another bot is 404; one in the wrong state is 409.
func (s *Service) transition(ctx context.Context, op *operator.Operator, publicID, set, where string, args []any,
	conflict string, then func(tx *sqlx.Tx, sess *session, now time.Time) ([]int64, error)) (*session, error) {
	now := s.clock.Now()
	var (
		ids  []int64
		sess *session
	)
	err := s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		var err error
		if sess, err = s.sessionOf(ctx, tx, op.WorkspaceID, op.BotID, publicID); err != nil {
			return err
		}
		a := append([]any{}, args...)
		for i := range a {
			if a[i] == nowArg {
				a[i] = now
			}
		}
		a = append(a, sess.ID)
		n, err := store.Exec(ctx, tx, `UPDATE chat_sessions SET `+set+` WHERE `+where+` AND id = ?`, a...)
		if err != nil {
			return err
		}
		if n == 0 {
			return apperr.Conflict(conflict)
		}
		if sess, err = s.sessionOf(ctx, tx, op.WorkspaceID, op.BotID, publicID); err != nil {
			return err
		}
		ids, err = then(tx, sess, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.hub.published(ids)
	return sess, nil
}

type nowMarker struct{}

// nowArg in a transition's args stands for the transition's time.
var nowArg any = nowMarker{}

// Claim gives a waiting conversation to op.
func (s *Service) Claim(ctx context.Context, op *operator.Operator, publicID string) (*Conversation, error) {
	return s.after(ctx, op, publicID)(s.transition(ctx, op, publicID, `mode = 'human', operator_id = ?, claimed_at = ?`, `mode = 'waiting'`,
		[]any{op.ID, nowArg}, "the conversation is not waiting: another operator claimed it, or it went back to the bot",
		func(tx *sqlx.Tx, sess *session, now time.Time) ([]int64, error) {
			id, err := s.eventTx(ctx, tx, sess, kindMode, modeData(sess.PublicID, chat.ModeHuman, "claimed", op, now), now)
			if err != nil {
				return nil, err
			}
			_, err = outbox.Add(ctx, tx, now, outbox.Event{WorkspaceID: sess.WorkspaceID, BotID: sess.BotID, Type: "handoff.claimed",
				Data: map[string]any{"bot_id": sess.BotID, "session_id": sess.PublicID, "operator_id": op.ID}})
			return []int64{id}, err
		}))
}

// Release hands the conversation back to the bot.
func (s *Service) Release(ctx context.Context, op *operator.Operator, publicID string) (*Conversation, error) {
	return s.after(ctx, op, publicID)(s.transition(ctx, op, publicID, `mode = 'bot'`,
		`(mode = 'waiting' OR (mode = 'human' AND operator_id = ?))`, []any{op.ID},
		"only the operator who claimed the conversation can release it, and only while it is with a person",
		func(tx *sqlx.Tx, sess *session, now time.Time) ([]int64, error) {
			id, err := s.eventTx(ctx, tx, sess, kindMode, modeData(sess.PublicID, chat.ModeBot, "released", op, now), now)
			if err != nil {
				return nil, err
			}
			_, err = outbox.Add(ctx, tx, now, outbox.Event{WorkspaceID: sess.WorkspaceID, BotID: sess.BotID, Type: "handoff.released",
				Data: map[string]any{"bot_id": sess.BotID, "session_id": sess.PublicID, "operator_id": op.ID}})
			return []int64{id}, err
		}))
}

// Close resolves the conversation; when the visitor left an address the
// transcript is e-mailed to them.
func (s *Service) Close(ctx context.Context, op *operator.Operator, publicID string) (*Conversation, error) {
	return s.after(ctx, op, publicID)(s.transition(ctx, op, publicID, `mode = 'closed', outcome = ?, closed_at = ?`,
		`(mode = 'waiting' OR (mode = 'human' AND operator_id = ?))`, []any{OutcomeResolved, nowArg, op.ID},
		"only the operator who claimed the conversation can close it, and only while it is with a person",
		func(tx *sqlx.Tx, sess *session, now time.Time) ([]int64, error) {
			id, err := s.eventTx(ctx, tx, sess, kindMode, modeData(sess.PublicID, chat.ModeClosed, "closed", op, now), now)
			if err != nil {
				return nil, err
			}
			if _, err = outbox.Add(ctx, tx, now, outbox.Event{WorkspaceID: sess.WorkspaceID, BotID: sess.BotID, Type: "conversation.closed",
				Data: map[string]any{"bot_id": sess.BotID, "session_id": sess.PublicID, "operator_id": op.ID, "outcome": OutcomeResolved}}); err != nil {
				return nil, err
			}
			return []int64{id}, s.transcriptTx(ctx, tx, sess, now)
		}))
}

// after reads the conversation once a transition succeeded.
func (s *Service) after(ctx context.Context, op *operator.Operator, publicID string) func(*session, error) (*Conversation, error) {
	return func(_ *session, err error) (*Conversation, error) {
		if err != nil {
			return nil, err
		}
		return s.ConversationOf(ctx, op, publicID)
	}
}

// Send is an operator's reply in a conversation they claimed.
func (s *Service) Send(ctx context.Context, op *operator.Operator, publicID, text string) (string, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return "", apperr.Invalid("body.text", "must not be empty", "value_error.missing")
	}
	if utf8.RuneCountInString(text) > MaxMessageRunes {
		return "", apperr.Invalid("body.text", fmt.Sprintf("at most %d characters", MaxMessageRunes), "value_error.any_str.max_length")
	}
	var pub string
	_, err := s.transition(ctx, op, publicID,
		`mode = mode`, `mode = 'human' AND operator_id = ?`, []any{op.ID}, "claim the conversation before replying",
		func(tx *sqlx.Tx, sess *session, now time.Time) ([]int64, error) {
			if sess.FirstReplyAt == nil && sess.HandoffRequestedAt != nil {
				// For analytics: time from the hand-off request to the
				// first operator message.
				secs := int64(now.Sub(*sess.HandoffRequestedAt) / time.Second)
				if _, err := store.Exec(ctx, tx, `UPDATE chat_sessions SET first_operator_reply_at = ?,
					first_operator_reply_seconds = ? WHERE id = ?`, now, secs, sess.ID); err != nil {
					return nil, err
				}
			}
			id, err := s.addMessageTx(ctx, tx, sess, chat.RoleOperator, text, op, now)
			if err != nil {
				return nil, err
			}
			if err := store.Get(ctx, tx, &pub, `SELECT public_id FROM chat_messages WHERE session_id = ? ORDER BY id DESC LIMIT 1`, sess.ID); err != nil {
				return nil, err
			}
			// The operator has read everything up to their own reply.
			_, err = store.Exec(ctx, tx, `UPDATE chat_sessions SET operator_read_message_id = (SELECT MAX(id) FROM chat_messages
				WHERE session_id = ?) WHERE id = ?`, sess.ID, sess.ID)
			return []int64{id}, err
		})
	return pub, err
}

// Typing tells the visitor that op is writing.
func (s *Service) Typing(ctx context.Context, op *operator.Operator, publicID string) error {
	_, err := s.transition(ctx, op, publicID, `mode = mode`, `mode = 'human' AND operator_id = ?`, []any{op.ID},
		"claim the conversation first",
		func(tx *sqlx.Tx, sess *session, now time.Time) ([]int64, error) {
			id, err := s.eventTx(ctx, tx, sess, kindTyping, map[string]any{"session_id": sess.PublicID, "role": chat.RoleOperator,
				"operator_id": op.ID, "operator_name": op.Name}, now)
			return []int64{id}, err
		})
	return err
}

// Read marks every message of the conversation read by the operators.
func (s *Service) Read(ctx context.Context, op *operator.Operator, publicID string) error {
	_, err := s.transition(ctx, op, publicID,
		`operator_read_message_id = COALESCE((SELECT MAX(m.id) FROM chat_messages m WHERE m.session_id = chat_sessions.id), 0)`,
		`1 = 1`, nil, "",
		func(tx *sqlx.Tx, sess *session, now time.Time) ([]int64, error) {
			id, err := s.eventTx(ctx, tx, sess, kindRead, map[string]any{"session_id": sess.PublicID, "operator_id": op.ID}, now)
			return []int64{id}, err
		})
	return err
}

func modeData(sessionID, mode, reason string, op *operator.Operator, now time.Time) map[string]any {
	d := map[string]any{"session_id": sessionID, "mode": mode, "reason": reason, "at": now.UTC().Format(time.RFC3339Nano)}
	if op != nil {
		d["operator_id"], d["operator_name"] = op.ID, op.Name
	}
	return d
}
