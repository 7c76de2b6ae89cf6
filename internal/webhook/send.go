package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"

	"concierge/internal/mail"
	"concierge/internal/outbox"
	"concierge/internal/safehttp"
	"concierge/internal/secret"
	"concierge/internal/store"
)

// DefaultSchedule is the delay before each attempt of a message: the
// first at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h after the
// previous one, each delay varied by ±20 %.
var DefaultSchedule = []time.Duration{0, 5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour,
	10 * time.Hour, 10 * time.Hour}

// Options tune delivery. Zero values get the defaults.
type Options struct {
	Timeout       time.Duration // one attempt (default 15 s)
	PerEndpoint   int           // attempts in flight per endpoint in this process (default 16)
	MaxInFlight   int           // attempts in flight in this process (default 256)
	Poll          time.Duration // how often to look for events and due messages (default 100 ms)
	RetryAfterCap time.Duration // longest Retry-After honoured (default 1 h)
	DisableAfter  time.Duration // failing this long disables the endpoint (default 5 days)
	// Schedule is the delay before each attempt, the first included
	// (default DefaultSchedule); after the last, a message has failed.
	Schedule []time.Duration
	// Manual: no background loop; tests drive delivery with Pump.
	Manual bool
}

func (o *Options) defaults() {
	if o.Timeout <= 0 {
		o.Timeout = 15 * time.Second
	}
	if o.PerEndpoint <= 0 {
		o.PerEndpoint = 16
	}
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = 256
	}
	if o.Poll <= 0 {
		o.Poll = 100 * time.Millisecond
	}
	if o.RetryAfterCap <= 0 {
		o.RetryAfterCap = time.Hour
	}
	if o.DisableAfter <= 0 {
		o.DisableAfter = 5 * 24 * time.Hour
	}
	if len(o.Schedule) == 0 {
		o.Schedule = DefaultSchedule
	}
}

// MaxResponseBody is how much of a response the delivery log keeps.
const MaxResponseBody = 4096

type sender struct {
	s *Service
	// wake asks for a full round: new events, a replay, the poll.
	wake chan struct{}
	// room asks for a top-up: endpoints in freed finished attempts.
	room chan struct{}

	mu       sync.Mutex
	inflight map[int64]int // endpoint id → attempts in flight
	total    int
	freed    map[int64]bool // endpoints with room back since the last top-up
	// cursor is the last endpoint id a round started by discovery
	// (spread): the next round goes on after it, so every endpoint with
	// due messages gets its turn. Touched by the loop only.
	cursor int64
	wg     sync.WaitGroup

	rec recorder

	stop     context.CancelFunc
	done     chan struct{}
	listener sync.WaitGroup
}

func newSender(s *Service) *sender {
	d := &sender{s: s, wake: make(chan struct{}, 1), room: make(chan struct{}, 1), inflight: map[int64]int{},
		freed: map[int64]bool{}}
	d.rec.s = s
	return d
}

// Wake makes the background loop look for events and due messages now.
func (s *Service) Wake() {
	select {
	case s.sender.wake <- struct{}{}:
	default:
	}
}

// Start runs the dispatcher and sender in the background until Stop. New
// events wake it as their transaction commits: in this process through the
// store's commit signal, from other replicas through PostgreSQL's NOTIFY.
func (s *Service) Start() {
	if s.opts.Manual {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.sender.stop, s.sender.done = cancel, make(chan struct{})
	local := s.db.Subscribe(outbox.Topic)
	if s.dbURL != "" && s.db.Dialect() == store.Postgres {
		ready := make(chan struct{})
		s.sender.listener.Add(1)
		go func() {
			defer s.sender.listener.Done()
			store.ListenSignals(ctx, s.dbURL, outbox.Topic, s.Wake, func() { close(ready) }, func(err error) {
				s.log.Warn("webhook listener", "err", err)
			})
		}()
		select { // bounded: the poll delivers without it
		case <-ready:
		case <-time.After(5 * time.Second):
		}
	}
	go s.sender.loop(ctx, local)
}

// Stop ends the background loop and waits for attempts in flight (each is
// bounded by the timeout); an interrupted attempt is released for a retry.
func (s *Service) Stop() {
	if s.sender.stop == nil {
		return
	}
	s.sender.stop()
	<-s.sender.done
	s.sender.wg.Wait()
	s.sender.listener.Wait()
}

func (d *sender) loop(ctx context.Context, events <-chan struct{}) {
	defer close(d.done)
	t := time.NewTicker(d.s.opts.Poll)
	defer t.Stop()
	d.round(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			d.round(ctx)
		case <-d.wake:
			d.round(ctx)
		case <-events:
			d.round(ctx)
		case <-d.room:
			d.topUp(ctx)
		}
	}
}

// round dispatches new events and starts every due attempt it has room for.
func (d *sender) round(ctx context.Context) int {
	if _, err := d.s.Dispatch(ctx); err != nil && ctx.Err() == nil {
		d.s.log.Warn("webhook dispatch", "err", err)
	}
	n, err := d.claimAndRun(ctx)
	if err != nil && ctx.Err() == nil {
		d.s.log.Warn("webhook claim", "err", err)
	}
	return n
}

// Pump dispatches and delivers everything due on the service clock and
// waits for the attempts to finish, until nothing is due (tests).
func (s *Service) Pump(ctx context.Context) error {
	for {
		made, err := s.Dispatch(ctx)
		if err != nil {
			return err
		}
		n, err := s.sender.claimAndRun(ctx)
		if err != nil {
			return err
		}
		s.sender.wg.Wait()
		if n == 0 && made == 0 {
			// Another replica (or the background loop) may hold events
			// locked mid-dispatch: done only once none is left.
			var left []int64
			if err := store.Select(ctx, s.db.Reader(), &left, `SELECT id FROM events WHERE dispatched_at IS NULL LIMIT 1`); err != nil {
				return err
			}
			if len(left) == 0 {
				return nil
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
}

type due struct {
	ID        int64 `db:"id"`
	WebhookID int64 `db:"webhook_id"`
}

// claimAndRun leases due messages of endpoints with room in this process
// and starts their attempts. A lease is taken with a conditional update, so
// each attempt is made by exactly one replica.
func (d *sender) claimAndRun(ctx context.Context) (int, error) {
	s := d.s
	d.mu.Lock()
	room := s.opts.MaxInFlight - d.total
	var full []any
	for id, n := range d.inflight {
		if n >= s.opts.PerEndpoint {
			full = append(full, id)
		}
	}
	d.mu.Unlock()
	if room <= 0 {
		return 0, nil
	}
	now := s.clock.Now()
	exclude := ""
	if len(full) > 0 {
		var in string
		in, full = store.InList(full)
		exclude = ` AND m.webhook_id NOT IN (` + in + `)`
	}
	var cands []due
	args := append([]any{now, now}, full...)
	args = append(args, min(room, 64))
	// CROSS JOIN keeps SQLite walking the due index of messages first (a
	// plain join may start from the endpoints and sort every pending
	// message); ordering by the indexed column alone lets it stop at LIMIT.
	if err := store.Select(ctx, s.db.Reader(), &cands, `SELECT m.id, m.webhook_id FROM webhook_messages m
		CROSS JOIN webhooks w
		WHERE w.id = m.webhook_id AND m.status = 'pending' AND m.next_attempt_at <= ?
		AND (m.lease_expires_at IS NULL OR m.lease_expires_at <= ?)
		AND w.active = TRUE`+exclude+` ORDER BY m.next_attempt_at LIMIT ?`, args...); err != nil {
		return 0, fmt.Errorf("webhook: due messages: %w", err)
	}
	started, err := d.run(ctx, cands)
	if err != nil || len(cands) < min(room, 64) {
		return started, err
	}
	// The oldest due messages may all be one endpoint's (a burst's
	// messages share their due time): the others would wait for the
	// endpoints already running to drain. Start every endpoint that has
	// due messages and room.
	more, err := d.spread(ctx)
	return started + more, err
}

// endpointWant is how many due messages to lease for one endpoint.
type endpointWant struct {
	id int64
	n  int
}

// spread starts the endpoints with due messages and room in this process,
// from the one after the cursor, each from its own index walk.
func (d *sender) spread(ctx context.Context) (int, error) {
	s := d.s
	d.mu.Lock()
	room := s.opts.MaxInFlight - d.total
	d.mu.Unlock()
	if room <= 0 {
		return 0, nil
	}
	now := s.clock.Now()
	const probe = `SELECT w.id FROM webhooks w WHERE w.active = TRUE AND w.id > ? AND EXISTS (SELECT 1 FROM webhook_messages m
		WHERE m.webhook_id = w.id AND m.status = 'pending' AND m.next_attempt_at <= ?
		AND (m.lease_expires_at IS NULL OR m.lease_expires_at <= ?)) ORDER BY w.id LIMIT ?`
	var ids []int64
	limit := min(room, 256)
	if err := store.Select(ctx, s.db.Reader(), &ids, probe, d.cursor, now, now, limit); err != nil {
		return 0, fmt.Errorf("webhook: endpoints with due messages: %w", err)
	}
	if len(ids) < limit && d.cursor > 0 { // wrap around
		var again []int64
		if err := store.Select(ctx, s.db.Reader(), &again, probe, 0, now, now, limit-len(ids)); err != nil {
			return 0, fmt.Errorf("webhook: endpoints with due messages: %w", err)
		}
		for _, id := range again {
			if id > d.cursor {
				break
			}
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return 0, nil
	}
	d.cursor = ids[len(ids)-1]
	d.mu.Lock()
	var ws []endpointWant
	left := room
	for _, id := range ids {
		if n := min(s.opts.PerEndpoint-d.inflight[id], left); n > 0 {
			ws = append(ws, endpointWant{id, n})
			left -= n
		}
	}
	d.mu.Unlock()
	cands, err := d.fetch(ctx, ws)
	if err != nil {
		return 0, err
	}
	return d.run(ctx, cands)
}

// topUp refills the endpoints whose attempts finished since the last call,
// each from its own due messages (the per-endpoint index): a full round's
// scan is not needed to keep a busy endpoint busy.
func (d *sender) topUp(ctx context.Context) {
	s := d.s
	d.mu.Lock()
	var ws []endpointWant
	for id := range d.freed {
		if n := min(s.opts.PerEndpoint-d.inflight[id], s.opts.MaxInFlight-d.total); n > 0 {
			ws = append(ws, endpointWant{id, n})
		}
	}
	clear(d.freed)
	d.mu.Unlock()
	cands, err := d.fetch(ctx, ws)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("webhook top-up", "err", err)
		}
		return
	}
	if _, err := d.run(ctx, cands); err != nil && ctx.Err() == nil {
		s.log.Warn("webhook claim", "err", err)
	}
}

// fetch reads up to n due messages of each endpoint: one statement for up
// to 16 endpoints, a UNION ALL of each one's own index walk (a round trip
// per endpoint would serialise the loop on PostgreSQL).
func (d *sender) fetch(ctx context.Context, ws []endpointWant) ([]due, error) {
	s := d.s
	now := s.clock.Now()
	var cands []due
	for _, n := range store.PowerChunks(len(ws), 16) {
		parts := make([]string, n)
		args := make([]any, 0, 4*n)
		for i, w := range ws[:n] {
			parts[i] = fmt.Sprintf(`SELECT id, webhook_id FROM (SELECT m.id, m.webhook_id FROM webhook_messages m
				WHERE m.webhook_id = ? AND m.status = 'pending' AND m.next_attempt_at <= ?
				AND (m.lease_expires_at IS NULL OR m.lease_expires_at <= ?)
				AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = m.webhook_id AND w.active = TRUE)
				ORDER BY m.next_attempt_at LIMIT ?) AS e%d`, i)
			args = append(args, w.id, now, now, w.n)
		}
		ws = ws[n:]
		var c []due
		if err := store.Select(ctx, s.db.Reader(), &c, strings.Join(parts, " UNION ALL "), args...); err != nil {
			return nil, err
		}
		cands = append(cands, c...)
	}
	return cands, nil
}

// messageColumns are what an attempt needs of its message.
const messageColumns = `id, public_id, webhook_id, event_type, payload, attempts`

// run leases the candidates that fit in their endpoints' room and starts
// their attempts.
func (d *sender) run(ctx context.Context, cands []due) (int, error) {
	s := d.s
	now := s.clock.Now()
	// Pick within each endpoint's room, reserving the slots now.
	d.mu.Lock()
	var pick []any
	owner := map[int64]int64{}
	for _, c := range cands {
		if d.total >= s.opts.MaxInFlight || d.inflight[c.WebhookID] >= s.opts.PerEndpoint {
			continue
		}
		d.inflight[c.WebhookID]++
		d.total++
		pick = append(pick, c.ID)
		owner[c.ID] = c.WebhookID
	}
	d.mu.Unlock()
	if len(pick) == 0 {
		return 0, nil
	}
	token := secret.Token("", 12)
	lease := now.Add(s.opts.Timeout + 10*time.Second)
	var got []message
	in, inArgs := store.InList(pick)
	err := s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		return store.Select(ctx, tx, &got, `UPDATE webhook_messages SET lease_token = ?, lease_expires_at = ?
			WHERE id IN (`+in+`) AND status = 'pending'
			AND (lease_expires_at IS NULL OR lease_expires_at <= ?) RETURNING `+messageColumns,
			append(append([]any{token, lease}, inArgs...), now)...)
	})
	var endpoints map[int64]*row
	if err == nil && len(got) > 0 {
		endpoints, err = s.endpoints(ctx, got)
	}
	claimed := map[int64]bool{}
	if err == nil {
		for _, m := range got {
			if endpoints[m.WebhookID] != nil {
				claimed[m.ID] = true
			}
		}
	}
	d.mu.Lock()
	for _, p := range pick {
		id := p.(int64)
		if !claimed[id] {
			d.release(owner[id])
		}
	}
	d.mu.Unlock()
	if err != nil {
		// Claimed but not started: the leases expire and another round
		// takes the messages again.
		return 0, fmt.Errorf("webhook: claim: %w", err)
	}
	for i := range got {
		m := &got[i]
		w := endpoints[m.WebhookID]
		if w == nil {
			continue // deleted meanwhile, with its messages
		}
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			defer func() {
				d.mu.Lock()
				d.release(w.ID)
				// Refill an endpoint a few slots at a time (or once it
				// is idle): one claim for several messages.
				if n := d.inflight[w.ID]; n == 0 || s.opts.PerEndpoint-n >= max(1, s.opts.PerEndpoint/4) {
					d.freed[w.ID] = true
				}
				d.mu.Unlock()
				select { // the endpoint has room again
				case d.room <- struct{}{}:
				default:
				}
			}()
			if _, err := s.deliverAndRecord(ctx, w, m, token); err != nil && ctx.Err() == nil {
				s.log.Warn("webhook attempt", "message", m.ID, "err", err)
			}
		}()
	}
	return len(claimed), nil
}

// endpoints reads the endpoints of the messages, once each.
func (s *Service) endpoints(ctx context.Context, msgs []message) (map[int64]*row, error) {
	seen := map[int64]bool{}
	var ids []any
	for _, m := range msgs {
		if !seen[m.WebhookID] {
			seen[m.WebhookID] = true
			ids = append(ids, m.WebhookID)
		}
	}
	var rows []row
	in, inArgs := store.InList(ids)
	if err := store.Select(ctx, s.db.Reader(), &rows, `SELECT `+columns+` FROM webhooks WHERE id IN (`+in+`)`,
		inArgs...); err != nil {
		return nil, err
	}
	out := make(map[int64]*row, len(rows))
	for i := range rows {
		out[rows[i].ID] = &rows[i]
	}
	return out, nil
}

// release gives back one slot; d.mu is held.
func (d *sender) release(wh int64) {
	d.total--
	if d.inflight[wh]--; d.inflight[wh] <= 0 {
		delete(d.inflight, wh)
	}
}

type message struct {
	ID        int64  `db:"id"`
	PublicID  string `db:"public_id"`
	WebhookID int64  `db:"webhook_id"`
	EventType string `db:"event_type"`
	Payload   string `db:"payload"`
	Attempts  int    `db:"attempts"`

	retryAfter time.Duration // from a 429 or 503 answer
}

// Outcome is what one attempt did.
type Outcome struct {
	MessageID    string     `json:"message_id" doc:"The webhook-id header of the message."`
	Attempt      int        `json:"attempt"`
	Succeeded    bool       `json:"succeeded"`
	StatusCode   *int       `json:"status_code" doc:"The receiver's status; null when no response came."`
	DurationMS   int64      `json:"duration_ms"`
	ResponseBody string     `json:"response_body" doc:"The first 4 KiB of the response body."`
	Error        *string    `json:"error"`
	NextRetryAt  *time.Time `json:"next_retry_at" doc:"When the next attempt is due; null when none is scheduled."`
}

// Sign returns the webhook-signature header value for the secrets.
func Sign(secrets [][]byte, msgID string, ts int64, payload []byte) string {
	parts := make([]string, 0, len(secrets))
	for _, k := range secrets {
		m := hmac.New(sha256.New, k)
		fmt.Fprintf(m, "%s.%d.", msgID, ts)
		m.Write(payload)
		parts = append(parts, "v1,"+base64.StdEncoding.EncodeToString(m.Sum(nil)))
	}
	return strings.Join(parts, " ")
}

// attempt makes one attempt of a leased message and records it (Test).
func (s *Service) attempt(ctx context.Context, id int64, token string) (*Outcome, error) {
	var m message
	if err := store.Get(ctx, s.db.Reader(), &m, `SELECT `+messageColumns+`
		FROM webhook_messages WHERE id = ? AND lease_token = ?`, id, token); err != nil {
		if store.IsNotFound(err) {
			return nil, nil // deleted, or taken over
		}
		return nil, err
	}
	var w row
	if err := store.Get(ctx, s.db.Reader(), &w, `SELECT `+columns+` FROM webhooks WHERE id = ?`, m.WebhookID); err != nil {
		if store.IsNotFound(err) {
			return nil, nil
		}
		return nil, err
	}
	return s.deliverAndRecord(ctx, &w, &m, token)
}

// deliverAndRecord sends the leased message m to w and records the attempt.
func (s *Service) deliverAndRecord(ctx context.Context, w *row, m *message, token string) (*Outcome, error) {
	start := s.clock.Now()
	secrets, err := s.secrets(w, start)
	if err != nil {
		return nil, err
	}
	out := &Outcome{MessageID: m.PublicID, Attempt: m.Attempts + 1}
	began := time.Now() // durations are measured, not read off the service clock
	code, respBody, sendErr := s.send(ctx, w, m, secrets, start)
	out.DurationMS = time.Since(began).Milliseconds()
	if ctx.Err() != nil && sendErr != nil {
		// Shutting down: give the message back without counting it.
		_, _ = store.Exec(context.WithoutCancel(ctx), s.db.Writer(), `UPDATE webhook_messages SET lease_token = NULL,
			lease_expires_at = NULL WHERE id = ? AND lease_token = ?`, m.ID, token)
		return nil, ctx.Err()
	}
	end := s.clock.Now()
	if code != 0 {
		out.StatusCode = &code
	}
	out.ResponseBody = respBody
	out.Succeeded = sendErr == nil && code >= 200 && code < 300
	if sendErr != nil {
		e := sendErr.Error()
		out.Error = &e
	} else if !out.Succeeded {
		e := fmt.Sprintf("status %d", code)
		if code >= 300 && code < 400 {
			e += " (redirects are not followed)"
		}
		out.Error = &e
	}
	return out, s.sender.rec.submit(&recordReq{w: w, m: m, token: token, out: out, at: end})
}

type sendError struct{ msg string }

func (e *sendError) Error() string { return e.msg }

// send posts the message and returns the status code and the start of the
// body. Errors name what happened without repeating the URL.
func (s *Service) send(ctx context.Context, w *row, m *message, secrets [][]byte, now time.Time) (int, string, error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader([]byte(m.Payload)))
	if err != nil {
		return 0, "", &sendError{"invalid URL"}
	}
	ts := now.Unix()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("webhook-id", m.PublicID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("webhook-signature", Sign(secrets, m.PublicID, ts, []byte(m.Payload)))
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, "", classify(err, s.opts.Timeout)
	}
	defer resp.Body.Close()
	b, rerr := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBody))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // let the connection be reused
	text := cleanText(b)
	// A body cut short (rerr) does not change the outcome: the status is in.
	_ = rerr
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		m.retryAfter = retryAfter(resp.Header.Get("Retry-After"), now)
	}
	return resp.StatusCode, text, nil
}

func classify(err error, timeout time.Duration) error {
	var ne net.Error
	switch {
	case errors.Is(err, safehttp.ErrBlocked):
		return &sendError{"blocked address"}
	case errors.Is(err, safehttp.ErrInvalidURL):
		return &sendError{"invalid URL"}
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return &sendError{fmt.Sprintf("timed out after %s", timeout)}
	case errors.Is(err, context.Canceled):
		return &sendError{"cancelled"}
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "connection refused"):
		return &sendError{"connection refused"}
	case strings.Contains(msg, "no such host"):
		return &sendError{"host not found"}
	case strings.Contains(msg, "tls") || strings.Contains(msg, "x509") || strings.Contains(msg, "certificate"):
		return &sendError{"TLS handshake failed"}
	case strings.Contains(msg, "EOF") || strings.Contains(msg, "reset"):
		return &sendError{"connection closed by the receiver"}
	}
	return &sendError{"request failed"}
}

// cleanText makes a response body storable as text in both engines.
func cleanText(b []byte) string {
	s := string(b)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return strings.ReplaceAll(s, "\x00", "")
}

// retryAfter parses Retry-After (seconds or an HTTP date).
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

func jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}

// recordReq is one finished attempt waiting to be recorded.
type recordReq struct {
	w     *row
	m     *message
	token string
	out   *Outcome
	at    time.Time

	err  error
	done chan struct{}
}

// maxRecordBatch bounds the attempts one transaction records.
const maxRecordBatch = 128

// recorder records finished attempts in batches: the attempts that finish
// while a batch is being written share the next transaction, so a busy
// sender pays one commit for many attempts on either engine. Nothing
// waits to fill a batch, and no goroutine runs while there is nothing to
// record.
type recorder struct {
	s     *Service
	mu    sync.Mutex
	queue []*recordReq
	busy  bool
}

// submit queues r and waits until it is recorded (or failed to be).
func (rc *recorder) submit(r *recordReq) error {
	r.done = make(chan struct{})
	rc.mu.Lock()
	rc.queue = append(rc.queue, r)
	if !rc.busy {
		rc.busy = true
		go rc.drain()
	}
	rc.mu.Unlock()
	<-r.done
	return r.err
}

func (rc *recorder) drain() {
	for {
		rc.mu.Lock()
		n := min(len(rc.queue), maxRecordBatch)
		if n == 0 {
			rc.busy = false
			rc.queue = nil
			rc.mu.Unlock()
			return
		}
		batch := make([]*recordReq, n)
		copy(batch, rc.queue)
		rc.queue = rc.queue[n:]
		rc.mu.Unlock()
		rc.flush(batch)
	}
}

func (rc *recorder) flush(batch []*recordReq) {
	ctx := context.Background() // a finished attempt is recorded whatever its caller does
	err := rc.s.db.Tx(ctx, func(tx *sqlx.Tx) error { return rc.s.record(ctx, tx, batch) })
	if err != nil && len(batch) > 1 {
		// One attempt's failure must not cost the others theirs.
		for _, r := range batch {
			r.err = rc.s.db.Tx(ctx, func(tx *sqlx.Tx) error { return rc.s.record(ctx, tx, []*recordReq{r}) })
			close(r.done)
		}
		return
	}
	for _, r := range batch {
		r.err = err
		close(r.done)
	}
}

// record stores the attempts of batch, schedules each message's next
// attempt or ends it, and updates the endpoints' failure runs (disabling an
// endpoint on 410 or after DisableAfter of failures, and telling the
// owner). An attempt whose lease was lost meanwhile (message deleted, or
// taken over by another replica) is not recorded.
func (s *Service) record(ctx context.Context, tx *sqlx.Tx, batch []*recordReq) error {
	if err := s.lockBatch(ctx, tx, batch); err != nil {
		return err
	}
	var attempts [][]any
	recovered := map[int64]bool{} // endpoints with a success not yet written
	clearFailing := func() error {
		if len(recovered) == 0 {
			return nil
		}
		ids := make([]any, 0, len(recovered))
		for id := range recovered {
			ids = append(ids, id)
		}
		clear(recovered)
		in, inArgs := store.InList(ids)
		_, err := store.Exec(ctx, tx, `UPDATE webhooks SET failing_since = NULL WHERE id IN (`+in+`)
			AND failing_since IS NOT NULL`, inArgs...)
		return err
	}
	// Successes end their messages in one statement per lease token (a
	// claim's messages share one); the rest one by one, in order.
	type success struct {
		r   *recordReq
		row []any
	}
	succeeded := map[string]map[int64]success{}
	for _, r := range batch {
		w, m, out, now := r.w, r.m, r.out, r.at
		if out.Succeeded {
			if succeeded[r.token] == nil {
				succeeded[r.token] = map[int64]success{}
			}
			succeeded[r.token][m.ID] = success{r, []any{m.ID, w.ID, out.Attempt, true, out.StatusCode, out.DurationMS,
				out.ResponseBody, out.Error, nil, now}}
			recovered[w.ID] = true
			continue
		}
		status, next := "failed", (*time.Time)(nil)
		disable := ""
		if out.Attempt < len(s.opts.Schedule) {
			delay := jitter(s.opts.Schedule[out.Attempt])
			if ra := m.retryAfter; ra > 0 {
				ra = min(ra, s.opts.RetryAfterCap)
				delay = max(delay, ra)
			}
			t := now.Add(delay)
			next, status = &t, "pending"
		}
		if out.StatusCode != nil && *out.StatusCode == http.StatusGone {
			disable = "the endpoint answered 410 Gone"
			status, next = "failed", nil
		} else if w.FailingSince != nil && now.Sub(*w.FailingSince) >= s.opts.DisableAfter {
			disable = fmt.Sprintf("every attempt failed for %s", s.opts.DisableAfter)
			status, next = "failed", nil
		}
		n, err := store.Exec(ctx, tx, `UPDATE webhook_messages SET status = ?, attempts = ?, next_attempt_at = ?,
			lease_token = NULL, lease_expires_at = NULL, updated_at = ? WHERE id = ? AND lease_token = ?`,
			status, out.Attempt, next, now, m.ID, r.token)
		if err != nil {
			return err
		}
		if n == 0 {
			continue // deleted meanwhile, or taken over by another replica
		}
		out.NextRetryAt = next
		attempts = append(attempts, []any{m.ID, w.ID, out.Attempt, out.Succeeded, out.StatusCode, out.DurationMS,
			out.ResponseBody, out.Error, next, now})
		if recovered[w.ID] { // keep the order of a success then a failure
			if err := clearFailing(); err != nil {
				return err
			}
		}
		if _, err := store.Exec(ctx, tx, `UPDATE webhooks SET failing_since = ? WHERE id = ? AND failing_since IS NULL`, now, w.ID); err != nil {
			return err
		}
		if disable != "" {
			if err := s.disable(ctx, tx, w, disable, now); err != nil {
				return err
			}
		}
	}
	for token, byID := range succeeded {
		ids := make([]any, 0, len(byID))
		var at time.Time
		for id, sc := range byID {
			ids = append(ids, id)
			at = sc.r.at
		}
		var ended []int64
		for _, n := range store.PowerChunks(len(ids), 64) {
			var got []int64
			// attempts + 1 is the attempt made: the lease kept the row as
			// the claim read it.
			if err := store.Select(ctx, tx, &got, `UPDATE webhook_messages SET status = 'succeeded', attempts = attempts + 1,
				next_attempt_at = NULL, lease_token = NULL, lease_expires_at = NULL, updated_at = ?
				WHERE lease_token = ? AND id IN (`+store.Placeholders(n)+`) RETURNING id`,
				append([]any{at, token}, ids[:n]...)...); err != nil {
				return err
			}
			ids = ids[n:]
			ended = append(ended, got...)
		}
		for _, id := range ended {
			attempts = append(attempts, byID[id].row)
		}
	}
	for _, n := range store.PowerChunks(len(attempts), 32) {
		args := make([]any, 0, 10*n)
		for _, a := range attempts[:n] {
			args = append(args, a...)
		}
		attempts = attempts[n:]
		if _, err := store.Exec(ctx, tx, `INSERT INTO webhook_attempts (message_id, webhook_id, attempt, succeeded, status_code,
			duration_ms, response_body, error, next_retry_at, created_at) VALUES `+store.Rows(n, 10), args...); err != nil {
			return err
		}
	}
	return clearFailing()
}

// lockBatch locks the messages of batch in id order before anything else
// (PostgreSQL): the statements below touch them in another order, and a
// transaction deleting endpoints locks them in id order first
// (LockMessages), so neither can hold one the other waits for while
// waiting for one it holds.
func (s *Service) lockBatch(ctx context.Context, tx *sqlx.Tx, batch []*recordReq) error {
	if s.db.Dialect() != store.Postgres {
		return nil
	}
	ids := make([]int64, 0, len(batch))
	for _, r := range batch {
		ids = append(ids, r.m.ID)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	for _, n := range store.PowerChunks(len(ids), 64) {
		args := make([]any, n)
		for i, id := range ids[:n] {
			args[i] = id
		}
		ids = ids[n:]
		if _, err := store.Exec(ctx, tx, `SELECT id FROM webhook_messages WHERE id IN (`+store.Placeholders(n)+`)
			ORDER BY id FOR UPDATE`, args...); err != nil {
			return err
		}
	}
	return nil
}

// disable turns an endpoint off, ends its pending messages as failed (they
// can be replayed) and e-mails the workspace owner.
func (s *Service) disable(ctx context.Context, tx *sqlx.Tx, w *row, reason string, now time.Time) error {
	n, err := store.Exec(ctx, tx, `UPDATE webhooks SET active = FALSE, disabled_reason = ?, updated_at = ? WHERE id = ? AND active = TRUE`,
		reason, now, w.ID)
	if err != nil || n == 0 {
		return err
	}
	if _, err := store.Exec(ctx, tx, `UPDATE webhook_messages SET status = 'failed', next_attempt_at = NULL, updated_at = ?
		WHERE webhook_id = ? AND status = 'pending' AND lease_token IS NULL`, now, w.ID); err != nil {
		return err
	}
	s.log.Info("webhook endpoint disabled", "webhook_id", w.PublicID, "reason", reason)
	if s.queue == nil {
		return nil
	}
	var email string
	if err := store.Get(ctx, tx, &email, `SELECT email FROM workspaces WHERE id = ?`, w.WorkspaceID); err != nil {
		return err
	}
	text := fmt.Sprintf("Concierge stopped delivering webhooks to your endpoint %s (%s) of bot %d: %s.\n\n"+
		"Fix the receiver, then turn the endpoint back on (PATCH /webhooks/%s with {\"active\": true}) and replay "+
		"the failed messages (POST /webhooks/%s/replay).\n", w.PublicID, w.URL, w.BotID, reason, w.PublicID, w.PublicID)
	_, err = mail.Enqueue(ctx, s.queue, tx, w.WorkspaceID, mail.Message{To: []string{email},
		Subject: "A webhook endpoint was disabled", Text: text, Headers: map[string]string{"X-Concierge-Kind": "webhook-disabled"}},
		"webhook-disabled:"+w.PublicID+":"+strconv.FormatInt(now.Unix(), 10))
	return err
}
