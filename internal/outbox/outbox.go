// Package outbox records domain events in the events table, inside the same
// transaction as the change that caused them, so an event exists if and only
// if its change committed. Webhook delivery reads the table later.
//
// An event is owed to the webhook endpoints that are active when it is
// recorded (as with Stripe's: an endpoint receives what happens after it
// exists), and only an event owed to some endpoint is recorded: one of a
// bot with no active endpoint (a workspace-wide one: of a workspace with
// none) has nobody to go to, and the events table is the webhooks' outbox,
// not a log. Most events of most workspaces (every chat's
// conversation.started) are of that kind; writing them cost about 3% of a
// chat reply's CPU and grew the table without end. The lookup reads
// the endpoints as of its statement, after the event's time was taken, so
// an endpoint whose creation was acknowledged before the event happened is
// always seen.
package outbox

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
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

// Add writes ev through tx (the caller's transaction) when an active
// endpoint may be owed it, and returns its public id ("evt_" + the time +
// 128 random bits), which later becomes the webhook message id; "" when
// nobody listens and nothing was written.
func Add(ctx context.Context, tx store.Q, now time.Time, ev Event) (string, error) {
	owed, err := listened(ctx, tx, []Event{ev})
	if err != nil || !owed.has(ev) {
		return "", err
	}
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
	owed, err := listened(ctx, tx, evs)
	if err != nil {
		return err
	}
	evs = slices.DeleteFunc(slices.Clone(evs), func(ev Event) bool { return !owed.has(ev) })
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

// listeners are the workspaces and bots that have an active webhook
// endpoint; a workspace-wide event (no bot) is owed to every endpoint of
// its workspace.
type listeners map[[2]int64]bool

func (l listeners) has(ev Event) bool {
	if ev.BotID == 0 {
		return l[[2]int64{ev.WorkspaceID, 0}]
	}
	return l[[2]int64{ev.WorkspaceID, ev.BotID}]
}

// listened reads which of the events' workspaces and bots have an active
// endpoint, in one statement through tx.
func listened(ctx context.Context, tx store.Q, evs []Event) (listeners, error) {
	var ws []any
	seen := map[int64]bool{}
	for _, ev := range evs {
		if !seen[ev.WorkspaceID] {
			seen[ev.WorkspaceID] = true
			ws = append(ws, ev.WorkspaceID)
		}
	}
	in, args := store.InList(ws)
	var rows []struct {
		WorkspaceID int64 `db:"workspace_id"`
		BotID       int64 `db:"bot_id"`
	}
	if err := store.Select(ctx, tx, &rows, `SELECT DISTINCT workspace_id, bot_id FROM webhooks
		WHERE active = TRUE AND workspace_id IN (`+in+`)`, args...); err != nil {
		return nil, fmt.Errorf("outbox: endpoints: %w", err)
	}
	l := listeners{}
	for _, r := range rows {
		l[[2]int64{r.WorkspaceID, r.BotID}] = true
		l[[2]int64{r.WorkspaceID, 0}] = true
	}
	return l, nil
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

// KeepDispatched is how long an event stays once the webhook dispatcher
// has made it into messages, which carry their own copy of the payload.
const KeepDispatched = 7 * 24 * time.Hour

// Purger deletes up to limit events dispatched longer than KeepDispatched
// before now (for the jobs package's purge job): without it the table
// grows with every event of every workspace that listens.
func Purger(db *store.DB, limit int) func(ctx context.Context, now time.Time) (int64, error) {
	return func(ctx context.Context, now time.Time) (int64, error) {
		n, err := store.Exec(ctx, db.Writer(), `DELETE FROM events WHERE id IN (SELECT id FROM events
			WHERE dispatched_at IS NOT NULL AND dispatched_at < ? LIMIT ?)`, now.Add(-KeepDispatched), limit)
		if err != nil {
			return 0, fmt.Errorf("outbox: purge: %w", err)
		}
		return n, nil
	}
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
