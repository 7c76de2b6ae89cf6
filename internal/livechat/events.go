package livechat

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jmoiron/sqlx"

	"concierge/internal/apperr"
	"concierge/internal/store"
)

// Event kinds (the SSE event names).
const (
	kindMessage = "message" // a visitor, operator (or bot) message
	kindMode    = "mode"    // hand-off requested, claimed, released, timed out, closed
	kindTyping  = "typing"  // an operator is writing (not replayed)
	kindRead    = "read"    // the operators read the conversation (operators only)
)

// notifyChannel is the PostgreSQL channel; payloads are event ids only.
const notifyChannel = "livechat_events"

// Event is one realtime event as stored.
type Event struct {
	ID          int64     `db:"id"`
	WorkspaceID int64     `db:"workspace_id"`
	BotID       int64     `db:"bot_id"`
	SessionID   *int64    `db:"session_id"`
	Kind        string    `db:"kind"`
	Data        string    `db:"data"`
	CreatedAt   time.Time `db:"created_at"`
}

const eventColumns = `id, workspace_id, bot_id, session_id, kind, data, created_at`

// eventTx writes an event in the caller's transaction; on PostgreSQL the
// NOTIFY is part of it, so it is sent if and only if the change commits.
func (s *Service) eventTx(ctx context.Context, tx store.Q, sess *session, kind string, data any, now time.Time) (int64, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return 0, err
	}
	var id int64
	if err := store.Get(ctx, tx, &id, `INSERT INTO livechat_events (workspace_id, bot_id, session_id, kind, data, created_at)
		VALUES (?, ?, ?, ?, ?, ?) RETURNING id`, sess.WorkspaceID, sess.BotID, sess.ID, kind, string(raw), now); err != nil {
		return 0, err
	}
	if s.db.Dialect() == store.Postgres {
		if _, err := store.Exec(ctx, tx, `SELECT pg_notify(?, ?)`, notifyChannel, strconv.FormatInt(id, 10)); err != nil {
			return 0, err
		}
	}
	return id, nil
}

// Replay returns the events after afterID that a reconnecting stream
// missed (typing is not replayed), oldest first. sessionID 0: every
// conversation of the bot.
func (s *Service) Replay(ctx context.Context, workspaceID, botID, sessionID, afterID int64, limit int) ([]Event, error) {
	q := `SELECT ` + eventColumns + ` FROM livechat_events WHERE workspace_id = ? AND bot_id = ? AND id > ? AND kind <> 'typing'`
	args := []any{workspaceID, botID, afterID}
	if sessionID != 0 {
		q += ` AND session_id = ?`
		args = append(args, sessionID)
	}
	var out []Event
	if err := store.Select(ctx, s.db.Reader(), &out, q+` ORDER BY id LIMIT ?`, append(args, limit)...); err != nil {
		return nil, fmt.Errorf("livechat: replay: %w", err)
	}
	return out, nil
}

func (s *Service) loadEvents(ctx context.Context, ids []int64) ([]Event, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	q, args, err := sqlxIn(`SELECT `+eventColumns+` FROM livechat_events WHERE id IN (?) ORDER BY id`, ids)
	if err != nil {
		return nil, err
	}
	var out []Event
	err = store.Select(ctx, s.db.Reader(), &out, q, args...)
	return out, err
}

// Subscriber is one open event stream. The hub appends to its queue
// without ever waiting on it; the stream's writer takes the queue whenever
// Ready fires. A reader that falls maxBacklog events behind is dropped
// (Gone closes): it reconnects with Last-Event-ID and replays, so nothing
// is lost and no stream is ever held up by another.
type Subscriber struct {
	Ready     chan struct{} // signalled (capacity 1) when the queue is not empty
	Gone      chan struct{} // closed when the hub dropped a slow reader
	key       string
	botID     int64
	sessionID int64 // 0: every conversation of the bot (an operator)
	visitor   bool
	once      sync.Once
	qmu       sync.Mutex
	queue     []Event
}

// maxBacklog is how many events a stream may have waiting to be written.
const maxBacklog = 1024

// offer queues ev; false when the reader is too far behind.
func (sub *Subscriber) offer(ev *Event) bool {
	sub.qmu.Lock()
	if len(sub.queue) >= maxBacklog {
		sub.qmu.Unlock()
		return false
	}
	sub.queue = append(sub.queue, *ev)
	sub.qmu.Unlock()
	select {
	case sub.Ready <- struct{}{}:
	default:
	}
	return true
}

// Take returns the queued events, oldest first, and empties the queue.
func (sub *Subscriber) Take() []Event {
	sub.qmu.Lock()
	defer sub.qmu.Unlock()
	q := sub.queue
	sub.queue = nil
	return q
}

// Hub fans events out to this process's streams.
type Hub struct {
	s      *Service
	url    string
	cap    int
	mu     sync.Mutex
	subs   map[int64]map[*Subscriber]struct{}
	counts map[string]int
	seen   *idRing // ids already dispatched (a listener catch-up may repeat some)
	dmu    sync.Mutex
	local  int64 // SQLite: the last event id dispatched
}

func newHub(s *Service, url string, cap int) *Hub {
	if cap <= 0 {
		cap = 5
	}
	return &Hub{s: s, url: url, cap: cap, subs: map[int64]map[*Subscriber]struct{}{}, counts: map[string]int{},
		seen: newIDRing(8192)}
}

// Subscribe opens a stream for credential key on a bot (sessionID 0: all
// its conversations). More than the cap of open streams per credential is
// 429.
func (h *Hub) Subscribe(key string, botID, sessionID int64, visitor bool) (*Subscriber, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.counts[key] >= h.cap {
		return nil, &apperr.RateLimited{RetryAfter: 5 * time.Second}
	}
	h.counts[key]++
	sub := &Subscriber{Ready: make(chan struct{}, 1), Gone: make(chan struct{}), key: key, botID: botID,
		sessionID: sessionID, visitor: visitor}
	if h.subs[botID] == nil {
		h.subs[botID] = map[*Subscriber]struct{}{}
	}
	h.subs[botID][sub] = struct{}{}
	return sub, nil
}

// Unsubscribe closes a stream's subscription.
func (h *Hub) Unsubscribe(sub *Subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.removeLocked(sub)
}

func (h *Hub) removeLocked(sub *Subscriber) {
	if _, ok := h.subs[sub.botID][sub]; !ok {
		return
	}
	delete(h.subs[sub.botID], sub)
	if len(h.subs[sub.botID]) == 0 {
		delete(h.subs, sub.botID)
	}
	if h.counts[sub.key]--; h.counts[sub.key] <= 0 {
		delete(h.counts, sub.key)
	}
}

// Open counts this process's open streams.
func (h *Hub) Open() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, m := range h.subs {
		n += len(m)
	}
	return n
}

// Visible reports whether a stream shows ev.
func (sub *Subscriber) Visible(ev *Event) bool {
	if sub.sessionID != 0 && (ev.SessionID == nil || *ev.SessionID != sub.sessionID) {
		return false
	}
	if sub.visitor {
		switch ev.Kind {
		case kindRead:
			return false
		case kindTyping:
			return true // only operators type through the API
		}
	}
	return true
}

// dispatch hands events to the streams that show them, in id order. It
// never waits on a stream: one that has fallen maxBacklog events behind is
// dropped, not buffered without bound.
func (h *Hub) dispatch(evs []Event) {
	h.dmu.Lock()
	defer h.dmu.Unlock()
	h.dispatchLocked(evs)
}

func (h *Hub) dispatchLocked(evs []Event) {
	for i := range evs {
		ev := &evs[i]
		h.mu.Lock()
		fresh := h.seen.add(ev.ID)
		var targets []*Subscriber
		if fresh {
			for sub := range h.subs[ev.BotID] {
				if sub.Visible(ev) {
					targets = append(targets, sub)
				}
			}
		}
		h.mu.Unlock()
		for _, sub := range targets {
			if !sub.offer(ev) {
				h.drop(sub)
			}
		}
	}
}

func (h *Hub) drop(sub *Subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.removeLocked(sub)
	sub.once.Do(func() { close(sub.Gone) })
}

// published hands committed events to this process's streams. On
// PostgreSQL the listener does it for every replica (NOTIFY was part of
// the transaction). On SQLite there is one process and one writer, so ids
// commit in order: everything after the last dispatched id is read, in
// order, under the dispatch lock.
func (h *Hub) published(ids []int64) {
	if len(ids) == 0 || h.s.db.Dialect() == store.Postgres {
		return
	}
	h.dmu.Lock()
	defer h.dmu.Unlock()
	for {
		evs, err := h.s.eventsAfter(context.Background(), h.local, 500)
		if err != nil {
			h.s.log.Warn("load events", "err", err)
			return
		}
		if len(evs) == 0 {
			return
		}
		h.local = evs[len(evs)-1].ID
		h.dispatchLocked(evs)
		if len(evs) < 500 {
			return
		}
	}
}

// start runs the PostgreSQL listener, reconnecting after failures and
// catching up from the last dispatched id.
func (h *Hub) start(ctx context.Context) {
	if h.s.db.Dialect() != store.Postgres {
		h.dmu.Lock()
		defer h.dmu.Unlock()
		if err := store.Get(ctx, h.s.db.Reader(), &h.local, `SELECT COALESCE(MAX(id), 0) FROM livechat_events`); err != nil {
			h.s.log.Warn("livechat: last event", "err", err)
		}
		return
	}
	if h.url == "" {
		return
	}
	ready := make(chan struct{})
	go func() {
		var last int64
		first := true
		for ctx.Err() == nil {
			err := h.listen(ctx, &last, func() {
				if first {
					first = false
					close(ready)
				}
			})
			if ctx.Err() != nil {
				break
			}
			h.s.log.Warn("livechat listener", "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
		if first {
			close(ready)
		}
	}()
	select { // serve only once events can flow (bounded wait)
	case <-ready:
	case <-time.After(10 * time.Second):
	}
}

func (h *Hub) listen(ctx context.Context, last *int64, ready func()) error {
	conn, err := pgx.Connect(ctx, h.url)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+notifyChannel); err != nil {
		return err
	}
	if *last == 0 {
		if err := conn.QueryRow(ctx, `SELECT COALESCE(MAX(id), 0) FROM livechat_events`).Scan(last); err != nil {
			return err
		}
	} else {
		// Catch up on what was committed while disconnected.
		for {
			evs, err := h.s.eventsAfter(ctx, *last, 1000)
			if err != nil {
				return err
			}
			h.dispatch(evs)
			if len(evs) > 0 {
				*last = evs[len(evs)-1].ID
			}
			if len(evs) < 1000 {
				break
			}
		}
	}
	ready()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		ids := parseIDs(n.Payload)
		// Take every notification already queued, to read their rows at once.
		for len(ids) < 100 {
			wctx, cancel := context.WithTimeout(ctx, time.Millisecond)
			m, err := conn.WaitForNotification(wctx)
			cancel()
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if wctx.Err() == nil {
					return err
				}
				break
			}
			ids = append(ids, parseIDs(m.Payload)...)
		}
		evs, err := h.s.loadEvents(ctx, ids)
		if err != nil {
			return err
		}
		h.dispatch(evs)
		for _, id := range ids {
			*last = max(*last, id)
		}
	}
}

func (s *Service) eventsAfter(ctx context.Context, after int64, limit int) ([]Event, error) {
	var out []Event
	err := store.Select(ctx, s.db.Reader(), &out, `SELECT `+eventColumns+` FROM livechat_events WHERE id > ? ORDER BY id LIMIT ?`,
		after, limit)
	return out, err
}

func parseIDs(p string) []int64 {
	var out []int64
	for _, f := range strings.Split(p, ",") {
		if id, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64); err == nil {
			out = append(out, id)
		}
	}
	return out
}

// idRing remembers the last n ids added.
type idRing struct {
	set  map[int64]struct{}
	ring []int64
	next int
}

func newIDRing(n int) *idRing {
	return &idRing{set: make(map[int64]struct{}, n), ring: make([]int64, n)}
}

// add reports whether id is new.
func (r *idRing) add(id int64) bool {
	if _, ok := r.set[id]; ok {
		return false
	}
	if old := r.ring[r.next]; old != 0 {
		delete(r.set, old)
	}
	r.ring[r.next] = id
	r.set[id] = struct{}{}
	r.next = (r.next + 1) % len(r.ring)
	return true
}

func sqlxIn(q string, ids []int64) (string, []any, error) { return sqlx.In(q, ids) }

// CloseAll ends every open stream of this process (shutdown).
func (h *Hub) CloseAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, m := range h.subs {
		for sub := range m {
			h.removeLocked(sub)
			sub.once.Do(func() { close(sub.Gone) })
		}
	}
}
