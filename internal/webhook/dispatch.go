package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/secret"
	"concierge/internal/store"
)

// dispatchBatch is how many events one dispatch transaction takes.
const dispatchBatch = 256

type pendingEvent struct {
	ID          int64     `db:"id"`
	WorkspaceID int64     `db:"workspace_id"`
	BotID       *int64    `db:"bot_id"`
	Type        string    `db:"type"`
	Payload     string    `db:"payload"`
	CreatedAt   time.Time `db:"created_at"`
}

type target struct {
	ID          int64  `db:"id"`
	WorkspaceID int64  `db:"workspace_id"`
	BotID       int64  `db:"bot_id"`
	Events      string `db:"events"`
}

// envelope is the Standard Webhooks payload.
type envelope struct {
	Type      string          `json:"type"`
	Timestamp string          `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
}

func body(typ string, at time.Time, data json.RawMessage) (string, error) {
	b, err := json.Marshal(envelope{Type: typ, Timestamp: at.UTC().Format(time.RFC3339Nano), Data: data})
	return string(b), err
}

// Dispatch turns events not yet dispatched into messages, one per active
// endpoint of the event's bot (of the workspace, for an event of no bot)
// subscribed to its type, and marks them dispatched in the same
// transaction. A unique (endpoint, event) index makes a repeat harmless, so
// replicas may race. It returns the number of messages made.
func (s *Service) Dispatch(ctx context.Context) (int, error) {
	total := 0
	for {
		n, events, err := s.dispatchOnce(ctx)
		total += n
		if err != nil || events < dispatchBatch {
			return total, err
		}
	}
}

func (s *Service) dispatchOnce(ctx context.Context) (made, seen int, err error) {
	// A read first: most rounds find nothing, and need no write lock.
	var pending []int64
	if err := store.Select(ctx, s.db.Reader(), &pending, `SELECT id FROM events WHERE dispatched_at IS NULL LIMIT 1`); err != nil {
		return 0, 0, fmt.Errorf("webhook: pending events: %w", err)
	}
	if len(pending) == 0 {
		return 0, 0, nil
	}
	lock := ""
	if s.db.Dialect() == store.Postgres {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	err = s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		var evs []pendingEvent
		if err := store.Select(ctx, tx, &evs, `SELECT id, workspace_id, bot_id, type, payload, created_at FROM events
			WHERE dispatched_at IS NULL ORDER BY id LIMIT ?`+lock, dispatchBatch); err != nil {
			return fmt.Errorf("webhook: pending events: %w", err)
		}
		seen = len(evs)
		if seen == 0 {
			return nil
		}
		ws := map[int64]bool{}
		ids := make([]any, 0, len(evs))
		wsArgs := []any{}
		for _, e := range evs {
			ids = append(ids, e.ID)
			if Known(e.Type) && !ws[e.WorkspaceID] {
				ws[e.WorkspaceID] = true
				wsArgs = append(wsArgs, e.WorkspaceID)
			}
		}
		var targets []target
		if len(wsArgs) > 0 {
			in, inArgs := store.InList(wsArgs)
			if err := store.Select(ctx, tx, &targets, `SELECT id, workspace_id, bot_id, events FROM webhooks
				WHERE active = TRUE AND workspace_id IN (`+in+`)`, inArgs...); err != nil {
				return fmt.Errorf("webhook: endpoints: %w", err)
			}
		}
		now := s.clock.Now()
		var rows [][]any
		for _, e := range evs {
			if !Known(e.Type) {
				continue
			}
			var payload string
			for i := range targets {
				t := &targets[i]
				if t.WorkspaceID != e.WorkspaceID || (e.BotID != nil && t.BotID != *e.BotID) || !subscribed(t.Events, e.Type) {
					continue
				}
				if payload == "" {
					if payload, err = body(e.Type, e.CreatedAt, json.RawMessage(e.Payload)); err != nil {
						return fmt.Errorf("webhook: payload of event %d: %w", e.ID, err)
					}
				}
				rows = append(rows, []any{secret.OrderedToken("msg_", 16), t.ID, e.ID, e.Type, payload, "pending", 0, now, now, now})
			}
		}
		if err := insertMessages(ctx, tx, rows, true); err != nil {
			return err
		}
		made = len(rows)
		in, inArgs := store.InList(ids)
		_, err := store.Exec(ctx, tx, `UPDATE events SET dispatched_at = ? WHERE id IN (`+in+`)
			AND dispatched_at IS NULL`,
			append([]any{now}, inArgs...)...)
		return err
	})
	return made, seen, err
}

func subscribed(events, typ string) bool {
	// events is a JSON array of plain dotted names: a quoted match is exact.
	return strings.Contains(events, `"`+typ+`"`)
}

func insertMessages(ctx context.Context, tx store.Q, rows [][]any, ignoreDup bool) error {
	conflict := ""
	if ignoreDup {
		conflict = " ON CONFLICT (webhook_id, event_id) DO NOTHING"
	}
	for _, n := range store.PowerChunks(len(rows), 256) {
		args := make([]any, 0, 10*n)
		for _, r := range rows[:n] {
			args = append(args, r...)
		}
		rows = rows[n:]
		if _, err := store.Exec(ctx, tx, `INSERT INTO webhook_messages (public_id, webhook_id, event_id, event_type, payload,
			status, attempts, next_attempt_at, created_at, updated_at) VALUES `+store.Rows(n, 10)+conflict, args...); err != nil {
			return fmt.Errorf("webhook: insert messages: %w", err)
		}
	}
	return nil
}
