package livechat

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/bot"
	"concierge/internal/chat"
	"concierge/internal/jobs"
	"concierge/internal/mail"
	"concierge/internal/outbox"
	"concierge/internal/store"
)

type timeoutPayload struct {
	SessionID int64 `json:"session_id"`
	EventID   int64 `json:"event_id"` // the hand-off request this timer belongs to
}

// RegisterJobs registers the hand-off timeout.
func (s *Service) RegisterJobs(pool *jobs.Pool) {
	pool.Handle(jobTimeout, s.timeoutJob, jobs.KindOptions{})
}

// timeoutJob sends a hand-off nobody claimed back to the bot. It runs at
// the bot's timeout on the injected clock; a claim, release or a newer
// request since (any later mode event) makes it a no-op.
func (s *Service) timeoutJob(ctx context.Context, j *jobs.Job) error {
	var p timeoutPayload
	if err := j.Decode(&p); err != nil {
		return jobs.Permanent(err)
	}
	now := s.clock.Now()
	var ids []int64
	err := s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		n, err := store.Exec(ctx, tx, `UPDATE chat_sessions SET mode = 'bot', outcome = ? WHERE id = ? AND mode = 'waiting'
			AND NOT EXISTS (SELECT 1 FROM livechat_events e WHERE e.session_id = ? AND e.kind = 'mode' AND e.id > ?)`,
			OutcomeAbandoned, p.SessionID, p.SessionID, p.EventID)
		if err != nil || n == 0 {
			return err
		}
		var sess session
		if err := store.Get(ctx, tx, &sess, `SELECT `+sessionColumns+` FROM chat_sessions WHERE id = ?`, p.SessionID); err != nil {
			return err
		}
		id, err := s.eventTx(ctx, tx, &sess, kindMode, modeData(sess.PublicID, chat.ModeBot, "timed_out", nil, now), now)
		if err != nil {
			return err
		}
		ids = append(ids, id)
		_, err = outbox.Add(ctx, tx, now, outbox.Event{WorkspaceID: sess.WorkspaceID, BotID: sess.BotID, Type: "handoff.timed_out",
			Data: map[string]any{"bot_id": sess.BotID, "session_id": sess.PublicID}})
		return err
	})
	if err != nil {
		return fmt.Errorf("livechat: timeout: %w", err)
	}
	s.hub.published(ids)
	return nil
}

// noticeNobodyOnline e-mails the bot's notification address that a
// visitor asked for a person and nobody was online: at most one e-mail
// per bot every ten minutes, across replicas (a conditional upsert).
func (s *Service) noticeNobodyOnline(ctx context.Context, b *bot.Bot, sess *session, now time.Time) {
	if b.NotificationEmail == nil || *b.NotificationEmail == "" {
		return
	}
	err := s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		n, err := store.Exec(ctx, tx, `INSERT INTO livechat_notices (bot_id, notified_at) VALUES (?, ?)
			ON CONFLICT (bot_id) DO UPDATE SET notified_at = excluded.notified_at
			WHERE livechat_notices.notified_at <= ?`, b.ID, now, now.Add(-noticeEvery))
		if err != nil || n == 0 {
			return err
		}
		_, err = mail.Enqueue(ctx, s.queue, tx, b.WorkspaceID, mail.Message{
			To:      []string{*b.NotificationEmail},
			Subject: "A visitor asked for a person on " + oneLine(b.Name),
			Text: "A visitor of " + b.Name + " asked to talk to a person, and no operator was online.\n\n" +
				"Conversation: " + sess.PublicID + "\n\nSign in to the operator inbox to follow up.\n",
			Headers: map[string]string{"X-Concierge-Kind": "livechat-nobody-online"},
		}, "")
		return err
	})
	if err != nil {
		s.log.Warn("nobody-online notice", "bot_id", b.ID, "err", err)
	}
}

// transcriptTx queues the conversation's transcript to the visitor's
// address, if they left one.
func (s *Service) transcriptTx(ctx context.Context, tx store.Q, sess *session, now time.Time) error {
	if sess.VisitorEmail == nil || *sess.VisitorEmail == "" {
		return nil
	}
	var rows []struct {
		Role string    `db:"role"`
		Text string    `db:"text"`
		At   time.Time `db:"created_at"`
	}
	if err := store.Select(ctx, tx, &rows, `SELECT role, text, created_at FROM chat_messages WHERE session_id = ?
		AND status = 'completed' ORDER BY id LIMIT 500`, sess.ID); err != nil {
		return err
	}
	var name string
	if err := store.Get(ctx, tx, &name, `SELECT name FROM bots WHERE id = ?`, sess.BotID); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("Here is the transcript of your conversation with " + name + ".\n\n")
	for _, r := range rows {
		who := map[string]string{chat.RoleUser: "You", chat.RoleAssistant: "Assistant", chat.RoleOperator: "Our team"}[r.Role]
		if who == "" {
			who = r.Role
		}
		fmt.Fprintf(&b, "[%s] %s: %s\n", r.At.UTC().Format("2006-01-02 15:04 UTC"), who, r.Text)
	}
	_, err := mail.Enqueue(ctx, s.queue, tx, sess.WorkspaceID, mail.Message{
		To: []string{*sess.VisitorEmail}, Subject: "Your conversation with " + oneLine(name),
		Text: b.String(), Headers: map[string]string{"X-Concierge-Kind": "livechat-transcript"},
	}, "transcript:"+sess.PublicID+":"+now.UTC().Format(time.RFC3339Nano))
	return err
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
