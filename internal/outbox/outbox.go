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

// Topic is the commit signal (store.Signal) of a transaction that wrote
// events: the webhook dispatcher subscribes to it.
const Topic = "events"

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
// id ("evt_" + the time + 128 random bits), which later becomes the webhook
// message id.
func Add(ctx context.Context, tx store.Q, now time.Time, ev Event) (string, error) {
	args, err := eventArgs(ev, now)
	if err != nil {
		return "", err
	}
	if _, err := store.Exec(ctx, tx, `INSERT INTO events (public_id, workspace_id, bot_id, type, payload, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`, args...); err != nil {
		return "", fmt.Errorf("outbox: record %s: %w", ev.Type, err)
	}
	return args[0].(string), store.Signal(ctx, tx, Topic)
}

// AddMany writes several events through tx, as Add would one by one, in
// multi-row statements.
func AddMany(ctx context.Context, tx store.Q, now time.Time, evs []Event) error {
	if len(evs) == 0 {
		return nil
	}
	for _, n := range store.PowerChunks(len(evs), 64) {
		args := make([]any, 0, 6*n)
		for _, ev := range evs[:n] {
			row, err := eventArgs(ev, now)
			if err != nil {
				return err
			}
			args = append(args, row...)
		}
		evs = evs[n:]
		if _, err := store.Exec(ctx, tx, `INSERT INTO events (public_id, workspace_id, bot_id, type, payload, created_at)
			VALUES `+store.Rows(n, 6), args...); err != nil {
			return fmt.Errorf("outbox: record events: %w", err)
		}
	}
	return store.Signal(ctx, tx, Topic)
}

// eventArgs are the values of ev's row, a new public id first.
func eventArgs(ev Event, now time.Time) ([]any, error) {
	if ev.WorkspaceID == 0 || ev.Type == "" {
		return nil, fmt.Errorf("outbox: event needs a workspace and a type")
	}
	data := ev.Data
	if data == nil {
		data = struct{}{}
	}
	payload, err := json.Marshal(data)
	if err != nil {
		return nil, fmt.Errorf("outbox: marshal %s: %w", ev.Type, err)
	}
	var bot any
	if ev.BotID != 0 {
		bot = ev.BotID
	}
	return []any{secret.OrderedToken("evt_", 16), ev.WorkspaceID, bot, ev.Type, string(payload), now.UTC()}, nil
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
