// Package outbox records domain events in the events table, inside the same
// transaction as the change that caused them, so an event exists if and only
// if its change committed. Webhook delivery reads the table later.
package outbox

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"concierge/internal/secret"
	"concierge/internal/store"
)

// Event is a domain event. Type is dotted resource.action, e.g.
// "lead.captured".
type Event struct {
	WorkspaceID int64
	BotID       int64 // 0 when the event concerns no bot
	Type        string
	Data        any
}

// Record is one stored event.
type Record struct {
	ID           int64      `db:"id"`
	PublicID     string     `db:"public_id"`
	WorkspaceID  int64      `db:"workspace_id"`
	BotID        *int64     `db:"bot_id"`
	Type         string     `db:"type"`
	Payload      string     `db:"payload"`
	CreatedAt    time.Time  `db:"created_at"`
	DispatchedAt *time.Time `db:"dispatched_at"`
}

// Add writes ev through tx (the caller's transaction) and returns its public
// id ("evt_" + 128 random bits), which later becomes the webhook message id.
func Add(ctx context.Context, tx store.Q, now time.Time, ev Event) (string, error) {
	if ev.WorkspaceID == 0 || ev.Type == "" {
		return "", fmt.Errorf("outbox: event needs a workspace and a type")
	}
	data := ev.Data
	if data == nil {
		data = struct{}{}
	}
	payload, err := json.Marshal(data)
	if err != nil {
		return "", fmt.Errorf("outbox: marshal %s: %w", ev.Type, err)
	}
	var bot any
	if ev.BotID != 0 {
		bot = ev.BotID
	}
	id := secret.OrderedToken("evt_", 16)
	_, err = store.Exec(ctx, tx, `INSERT INTO events (public_id, workspace_id, bot_id, type, payload, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`, id, ev.WorkspaceID, bot, ev.Type, string(payload), now.UTC())
	if err != nil {
		return "", fmt.Errorf("outbox: record %s: %w", ev.Type, err)
	}
	return id, nil
}

// AddMany writes several events through tx, as Add would one by one, in
// multi-row statements.
func AddMany(ctx context.Context, tx store.Q, now time.Time, evs []Event) error {
	type row struct {
		ev      Event
		bot     any
		payload string
	}
	rows := make([]row, 0, len(evs))
	for _, ev := range evs {
		if ev.WorkspaceID == 0 || ev.Type == "" {
			return fmt.Errorf("outbox: event needs a workspace and a type")
		}
		data := ev.Data
		if data == nil {
			data = struct{}{}
		}
		payload, err := json.Marshal(data)
		if err != nil {
			return fmt.Errorf("outbox: marshal %s: %w", ev.Type, err)
		}
		var bot any
		if ev.BotID != 0 {
			bot = ev.BotID
		}
		rows = append(rows, row{ev: ev, bot: bot, payload: string(payload)})
	}
	for _, n := range store.PowerChunks(len(rows), 64) {
		args := make([]any, 0, 6*n)
		for _, r := range rows[:n] {
			args = append(args, secret.OrderedToken("evt_", 16), r.ev.WorkspaceID, r.bot, r.ev.Type, r.payload, now.UTC())
		}
		rows = rows[n:]
		if _, err := store.Exec(ctx, tx, `INSERT INTO events (public_id, workspace_id, bot_id, type, payload, created_at)
			VALUES `+store.Rows(n, 6), args...); err != nil {
			return fmt.Errorf("outbox: record events: %w", err)
		}
	}
	return nil
}

// List returns a workspace's events, newest first (for tests and, later,
// the webhook dispatcher's catch-up).
func List(ctx context.Context, q store.Q, workspaceID int64, limit int) ([]Record, error) {
	var out []Record
	err := store.Select(ctx, q, &out, `SELECT id, public_id, workspace_id, bot_id, type, payload, created_at, dispatched_at
		FROM events WHERE workspace_id = ? ORDER BY id DESC LIMIT ?`, workspaceID, limit)
	if err != nil {
		return nil, fmt.Errorf("outbox: list: %w", err)
	}
	return out, nil
}
