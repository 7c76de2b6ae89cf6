package lead

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/apperr"
	"concierge/internal/mail"
	"concierge/internal/outbox"
	"concierge/internal/secret"
	"concierge/internal/store"
)

// FollowUpInput is a follow-up e-mail to a lead.
type FollowUpInput struct {
	Subject string
	Body    string
}

type followUpRow struct {
	PublicID  string    `db:"public_id"`
	ToEmail   string    `db:"to_email"`
	Subject   string    `db:"subject"`
	Credits   int64     `db:"credits"`
	JobStatus *string   `db:"job_status"`
	CreatedAt time.Time `db:"created_at"`
}

func (r *followUpRow) view() FollowUp {
	status := "queued"
	if r.JobStatus != nil {
		switch *r.JobStatus {
		case "succeeded":
			status = "sent"
		case "dead", "cancelled":
			status = "failed"
		}
	}
	return FollowUp{FollowUpID: r.PublicID, To: r.ToEmail, Subject: r.Subject, Credits: r.Credits, Status: status,
		CreatedAt: r.CreatedAt.UTC()}
}

const followUpColumns = `f.public_id, f.to_email, f.subject, f.credits, j.status AS job_status, f.created_at`

func (s *Service) followUps(ctx context.Context, sess *session) ([]FollowUp, error) {
	var rows []followUpRow
	if err := store.Select(ctx, s.db.Reader(), &rows, `SELECT `+followUpColumns+` FROM lead_follow_ups f
		LEFT JOIN jobs j ON j.id = f.mail_job_id WHERE f.session_id = ? AND f.workspace_id = ? ORDER BY f.id`,
		sess.ID, sess.WorkspaceID); err != nil {
		return nil, fmt.Errorf("lead: follow-ups: %w", err)
	}
	out := make([]FollowUp, len(rows))
	for i := range rows {
		out[i] = rows[i].view()
	}
	return out, nil
}

// SendFollowUp sends a follow-up e-mail to the lead through the mail jobs,
// from the service's address with the bot's reply-to address, and debits
// its credits in the same transaction. The same message to the same lead
// within the follow-up window is sent and charged once: the second call
// returns the first (duplicate true). An address that validation found to
// be junk is refused (409 email_undeliverable), as is a lead without one.
func (s *Service) SendFollowUp(ctx context.Context, workspaceID int64, sessionID string, in FollowUpInput) (*FollowUp, bool, error) {
	if strings.ContainsAny(in.Subject, "\r\n") {
		return nil, false, apperr.Invalid("body.subject", "must be one line", "value_error")
	}
	if strings.TrimSpace(in.Subject) == "" || strings.TrimSpace(in.Body) == "" {
		return nil, false, apperr.Invalid("body", "subject and body must not be blank", "value_error")
	}
	sess, err := s.workspaceSession(ctx, s.db.Reader(), workspaceID, sessionID)
	if err != nil {
		return nil, false, err
	}
	r, err := s.readRow(ctx, s.db.Reader(), sess)
	if err != nil {
		return nil, false, err
	}
	if r == nil || r.Email == nil {
		return nil, false, &apperr.Refused{Code: "no_email_address", Message: "this lead left no e-mail address"}
	}
	to, status := *r.Email, r.EmailStatus
	if status == EmailPending || status == EmailNone {
		// Not checked yet (the job may be behind): check now, so a junk
		// address is never mailed.
		if status, err = s.storeCheck(ctx, s.db.Writer(), sess.ID, to, s.checker.Check(ctx, to)); err != nil {
			return nil, false, err
		}
		if r, err = s.readRow(ctx, s.db.Reader(), sess); err != nil {
			return nil, false, err
		}
	}
	if status == EmailInvalid {
		reason := "validation found it undeliverable"
		if r.EmailReason != nil {
			reason = *r.EmailReason
		}
		return nil, false, &apperr.Refused{Code: "email_undeliverable",
			Message: "the lead's e-mail address is not deliverable (" + reason + "): no e-mail was sent and nothing was charged",
			Extra:   map[string]any{"email_status": status, "verdict": r.EmailVerdict}}
	}
	var b struct {
		Name    string  `db:"name"`
		ReplyTo *string `db:"reply_to_email"`
		Notify  *string `db:"notification_email"`
	}
	if err := store.Get(ctx, s.db.Reader(), &b, `SELECT name, reply_to_email, notification_email FROM bots
		WHERE id = ? AND workspace_id = ?`, sess.BotID, workspaceID); err != nil {
		return nil, false, fmt.Errorf("lead: bot: %w", err)
	}
	replyTo := b.ReplyTo
	if replyTo == nil {
		replyTo = b.Notify
	}
	sum := sha256.Sum256([]byte(to + "\x00" + in.Subject + "\x00" + in.Body))
	hash := hex.EncodeToString(sum[:])
	cost := s.billing.Costs().LeadFollowUp

	var (
		out FollowUp
		dup bool
	)
	err = s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		now := s.clock.Now()
		if _, err := s.ensureRow(ctx, tx, sess, now); err != nil { // serialises follow-ups of this lead
			return err
		}
		var prev followUpRow
		err := store.Get(ctx, tx, &prev, `SELECT `+followUpColumns+` FROM lead_follow_ups f LEFT JOIN jobs j ON j.id = f.mail_job_id
			WHERE f.session_id = ? AND f.content_hash = ? AND f.created_at > ? ORDER BY f.id DESC LIMIT 1`,
			sess.ID, hash, now.Add(-s.opts.FollowUpWindow))
		if err == nil {
			out, dup = prev.view(), true
			return nil
		}
		if !store.IsNotFound(err) {
			return err
		}
		public := secret.Token("fu_", 12)
		if cost > 0 {
			if _, err := s.billing.DebitTx(ctx, tx, workspaceID, cost, "lead-follow-up:"+public, "lead follow-up e-mail"); err != nil {
				return err
			}
		}
		msg := mail.Message{To: []string{to}, Subject: in.Subject, Text: in.Body,
			Headers: map[string]string{"X-Concierge-Kind": "lead-follow-up"}}
		if replyTo != nil {
			msg.ReplyTo = *replyTo
		}
		jobID, err := mail.Enqueue(ctx, s.queue, tx, workspaceID, msg, "")
		if err != nil {
			return apperr.Invalid("body", "the e-mail cannot be sent: "+err.Error(), "value_error")
		}
		var rt any
		if replyTo != nil {
			rt = *replyTo
		}
		if _, err := store.Exec(ctx, tx, `INSERT INTO lead_follow_ups (public_id, session_id, workspace_id, bot_id, content_hash,
			to_email, reply_to, subject, credits, mail_job_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			public, sess.ID, workspaceID, sess.BotID, hash, to, rt, in.Subject, cost, jobID, now); err != nil {
			return fmt.Errorf("lead: follow-up: %w", err)
		}
		if _, err := outbox.Add(ctx, tx, now, outbox.Event{WorkspaceID: workspaceID, BotID: sess.BotID, Type: "lead.follow_up_sent",
			Data: map[string]any{"session_id": sess.PublicID, "bot_id": sess.BotID, "follow_up_id": public,
				"subject": in.Subject}}); err != nil {
			return err
		}
		out = FollowUp{FollowUpID: public, To: to, Subject: in.Subject, Credits: cost, Status: "queued", CreatedAt: now.UTC()}
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return &out, dup, nil
}
