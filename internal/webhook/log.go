package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/apperr"
	"concierge/internal/secret"
	"concierge/internal/store"
)

// Delivery is one attempt as the delivery log shows it.
type Delivery struct {
	MessageID    string     `json:"message_id" doc:"The webhook-id header, the same on every attempt of a message."`
	EventType    string     `json:"event_type"`
	Attempt      int        `json:"attempt"`
	Status       string     `json:"status" enum:"succeeded,failed"`
	StatusCode   *int       `json:"status_code" doc:"null when no response came (refused, timed out, blocked address)."`
	DurationMS   int64      `json:"duration_ms"`
	ResponseBody string     `json:"response_body" doc:"The first 4 KiB of the response body."`
	Error        *string    `json:"error"`
	CreatedAt    time.Time  `json:"created_at" doc:"When the attempt was made."`
	NextRetryAt  *time.Time `json:"next_retry_at" doc:"When the message's next attempt is due; null when none followed this one."`
}

// DeliveryFilter narrows the delivery log.
type DeliveryFilter struct {
	Status    string // succeeded | failed | ""
	EventType string
	Page      int
	Limit     int
}

// Deliveries returns an endpoint's attempts, newest first, and their count.
func (s *Service) Deliveries(ctx context.Context, workspaceID int64, id string, f DeliveryFilter) ([]Delivery, int, error) {
	w, err := s.get(ctx, s.db.Reader(), workspaceID, id)
	if err != nil {
		return nil, 0, err
	}
	where, args := ` WHERE a.webhook_id = ?`, []any{w.ID}
	switch f.Status {
	case "succeeded":
		where += ` AND a.succeeded = TRUE`
	case "failed":
		where += ` AND a.succeeded = FALSE`
	}
	if f.EventType != "" {
		where += ` AND m.event_type = ?`
		args = append(args, f.EventType)
	}
	from := ` FROM webhook_attempts a JOIN webhook_messages m ON m.id = a.message_id`
	var total int
	if err := store.Get(ctx, s.db.Reader(), &total, `SELECT COUNT(*)`+from+where, args...); err != nil {
		return nil, 0, fmt.Errorf("webhook: count deliveries: %w", err)
	}
	var rows []struct {
		MessageID    string     `db:"public_id"`
		EventType    string     `db:"event_type"`
		Attempt      int        `db:"attempt"`
		Succeeded    bool       `db:"succeeded"`
		StatusCode   *int       `db:"status_code"`
		DurationMS   int64      `db:"duration_ms"`
		ResponseBody string     `db:"response_body"`
		Error        *string    `db:"error"`
		CreatedAt    time.Time  `db:"created_at"`
		NextRetryAt  *time.Time `db:"next_retry_at"`
	}
	if f.Limit <= 0 {
		f.Limit = 50
	}
	if f.Page <= 0 {
		f.Page = 1
	}
	if err := store.Select(ctx, s.db.Reader(), &rows, `SELECT m.public_id, m.event_type, a.attempt, a.succeeded, a.status_code,
		a.duration_ms, a.response_body, a.error, a.created_at, a.next_retry_at`+from+where+` ORDER BY a.id DESC LIMIT ? OFFSET ?`,
		append(args, f.Limit, (f.Page-1)*f.Limit)...); err != nil {
		return nil, 0, fmt.Errorf("webhook: deliveries: %w", err)
	}
	out := make([]Delivery, 0, len(rows))
	for _, r := range rows {
		st := "failed"
		if r.Succeeded {
			st = "succeeded"
		}
		out = append(out, Delivery{MessageID: r.MessageID, EventType: r.EventType, Attempt: r.Attempt, Status: st,
			StatusCode: r.StatusCode, DurationMS: r.DurationMS, ResponseBody: r.ResponseBody, Error: r.Error,
			CreatedAt: r.CreatedAt, NextRetryAt: r.NextRetryAt})
	}
	return out, total, nil
}

// Test sends a webhook.test message to the endpoint now, whatever it
// subscribes to and even while it is inactive, and answers the attempt's
// outcome. A failed test is retried on the schedule like any message.
func (s *Service) Test(ctx context.Context, workspaceID int64, id string) (*Outcome, error) {
	w, err := s.get(ctx, s.db.Reader(), workspaceID, id)
	if err != nil {
		return nil, err
	}
	now := s.clock.Now()
	data, _ := json.Marshal(map[string]any{"webhook_id": w.PublicID, "bot_id": w.BotID,
		"message": "This is a test delivery from Concierge."})
	payload, err := body(TestEvent, now, data)
	if err != nil {
		return nil, err
	}
	token := secret.Token("", 12)
	var msgID int64
	err = s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		return store.Get(ctx, tx, &msgID, `INSERT INTO webhook_messages (public_id, webhook_id, event_type, payload, status,
			attempts, next_attempt_at, lease_token, lease_expires_at, created_at, updated_at)
			VALUES (?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?, ?) RETURNING id`, secret.OrderedToken("msg_", 16), w.ID, TestEvent,
			payload, now, token, now.Add(s.opts.Timeout+10*time.Second), now, now)
	})
	if err != nil {
		return nil, fmt.Errorf("webhook: test: %w", err)
	}
	out, err := s.attempt(ctx, msgID, token)
	if err != nil {
		return nil, err
	}
	if out == nil {
		return nil, apperr.NotFound("webhook not found")
	}
	return out, nil
}

// ReplayInput names what to send again: one failed message, or every failed
// message created since a time.
type ReplayInput struct {
	MessageID string
	Since     *time.Time
}

// Replay makes failed messages due now, with a fresh schedule. It answers
// how many were queued.
func (s *Service) Replay(ctx context.Context, workspaceID int64, id string, in ReplayInput) (int64, error) {
	if (in.MessageID == "") == (in.Since == nil) {
		return 0, apperr.Invalid("body", "give either message_id or since", "value_error")
	}
	w, err := s.get(ctx, s.db.Reader(), workspaceID, id)
	if err != nil {
		return 0, err
	}
	now := s.clock.Now()
	var n int64
	if in.MessageID != "" {
		var status string
		err := store.Get(ctx, s.db.Reader(), &status, `SELECT status FROM webhook_messages WHERE public_id = ? AND webhook_id = ?`,
			in.MessageID, w.ID)
		if store.IsNotFound(err) {
			return 0, apperr.NotFound("message not found")
		}
		if err != nil {
			return 0, err
		}
		if status != "failed" {
			return 0, &apperr.Refused{Code: "not_failed", Message: "only a failed message can be replayed; this one is " + status}
		}
		n, err = store.Exec(ctx, s.db.Writer(), `UPDATE webhook_messages SET status = 'pending', attempts = 0, next_attempt_at = ?,
			updated_at = ? WHERE public_id = ? AND webhook_id = ? AND status = 'failed'`, now, now, in.MessageID, w.ID)
		if err != nil {
			return 0, err
		}
	} else {
		n, err = store.Exec(ctx, s.db.Writer(), `UPDATE webhook_messages SET status = 'pending', attempts = 0, next_attempt_at = ?,
			updated_at = ? WHERE webhook_id = ? AND status = 'failed' AND created_at >= ?`, now, now, w.ID, in.Since.UTC())
		if err != nil {
			return 0, err
		}
	}
	s.Wake()
	return n, nil
}
