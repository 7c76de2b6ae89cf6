package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/analytics"
	"concierge/internal/apperr"
	"concierge/internal/jobs"
	"concierge/internal/llm"
	"concierge/internal/outbox"
	"concierge/internal/secret"
	"concierge/internal/store"
)

const jobSettle = "chat.settle"

type sessionRow struct {
	ID       int64  `db:"id"`
	PublicID string `db:"public_id"`
	Mode     string `db:"mode"`
}

// session finds a session of this bot; any other (another bot's, another
// workspace's, unknown) is the same 404.
func (s *Service) session(ctx context.Context, workspaceID, botID int64, publicID string) (*sessionRow, error) {
	var r sessionRow
	err := store.Get(ctx, s.db.Reader(), &r, `SELECT id, public_id, mode FROM chat_sessions
		WHERE public_id = ? AND bot_id = ? AND workspace_id = ?`, publicID, botID, workspaceID)
	if store.IsNotFound(err) {
		return nil, apperr.NotFound("session not found")
	}
	if err != nil {
		return nil, fmt.Errorf("chat: session: %w", err)
	}
	return &r, nil
}

func (s *Service) recentTurns(ctx context.Context, workspaceID, sessionID int64, n int) ([]Turn, error) {
	var rows []struct {
		Role string `db:"role"`
		Text string `db:"text"`
	}
	err := store.Select(ctx, s.db.Reader(), &rows, `SELECT role, text FROM chat_messages
		WHERE session_id = ? AND workspace_id = ? AND status = 'completed' ORDER BY id DESC LIMIT ?`, sessionID, workspaceID, n)
	if err != nil {
		return nil, fmt.Errorf("chat: history: %w", err)
	}
	out := make([]Turn, len(rows))
	for i, r := range rows {
		out[len(rows)-1-i] = Turn{Role: r.Role, Text: r.Text}
	}
	return out, nil
}

// newSessionTx creates the session when the request has none.
func (s *Service) newSessionTx(ctx context.Context, tx store.Q, p *pending, now time.Time) error {
	if p.sessionID != 0 {
		return nil
	}
	b := p.req.Bot.Bot
	p.publicID = secret.OrderedToken("cs_", 16)
	var origin any
	if p.req.Origin != "" {
		origin = p.req.Origin
	}
	if err := store.Get(ctx, tx, &p.sessionID, `INSERT INTO chat_sessions (public_id, workspace_id, bot_id, preview, origin,
		created_at, last_message_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		p.publicID, b.WorkspaceID, b.ID, p.req.Preview, origin, now, now); err != nil {
		return err
	}
	if p.req.Preview {
		return nil
	}
	_, err := outbox.Add(ctx, tx, now, outbox.Event{WorkspaceID: b.WorkspaceID, BotID: b.ID, Type: "conversation.started",
		Data: map[string]any{"bot_id": b.ID, "session_id": p.publicID}})
	return err
}

// openSession records an offline exchange's session and question (no
// reply is generated, so nothing is reserved).
func (s *Service) openSession(ctx context.Context, p *pending) error {
	now := s.clock.Now()
	return s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		if err := s.newSessionTx(ctx, tx, p, now); err != nil {
			return err
		}
		d, err := s.addUserMessageTx(ctx, tx, p, now, 1)
		if err != nil {
			return err
		}
		return analytics.Record(ctx, tx, d...)
	})
}

// addUserMessageTx writes the visitor's message and counts it on the
// session; it returns the analytics deltas the caller records last.
func (s *Service) addUserMessageTx(ctx context.Context, tx store.Q, p *pending, now time.Time, added int) ([]analytics.Delta, error) {
	b := p.req.Bot.Bot
	topic := questionTopic(p)
	if err := store.Get(ctx, tx, &p.questionID, `INSERT INTO chat_messages (public_id, session_id, workspace_id, bot_id, role,
		status, text, topic, created_at, completed_at) VALUES (?, ?, ?, ?, 'user', 'completed', ?, ?, ?, ?) RETURNING id`,
		secret.OrderedToken("msg_", 12), p.sessionID, b.WorkspaceID, b.ID, p.req.Message, topic, now, now); err != nil {
		return nil, err
	}
	var c analytics.Counted
	if err := store.Get(ctx, tx, &c, `UPDATE chat_sessions SET messages = messages + ?, visitor_messages = visitor_messages + 1,
		last_message_at = ? WHERE id = ? RETURNING `+analytics.CountedColumns, added, now, p.sessionID); err != nil {
		return nil, err
	}
	d := []analytics.Delta{c.Delta(b.ID)}
	if topic != nil {
		d = append(d, analytics.Delta{BotID: b.ID, At: now, VisitorMessages: 1})
	}
	return d, nil
}

// questionTopic is the analytics topic of the visitor's message, kept in
// p for the question's count; none for a preview (the owner's test chats
// are not counted).
func questionTopic(p *pending) any {
	if p.req.Preview {
		return nil
	}
	prepareTopic(p)
	return p.topic
}

// prepareTopic computes the question's topic once. The batched writer's
// callers do it before queueing, so the single writer's transaction does
// not spend its time analysing text.
func prepareTopic(p *pending) {
	if !p.topicSet && !p.req.Preview {
		p.topic, p.topicSet = analytics.Topic(p.req.Message), true
	}
}

// reserve writes the question and a pending reply, and takes the reply's
// credit, in one transaction: either the visitor's turn exists with its
// credit held, or nothing happened and the caller gets the 402.
func (s *Service) reserve(ctx context.Context, p *pending) error {
	b := p.req.Bot.Bot
	if err := s.checkBalance(p); err != nil {
		return err
	}
	now := s.clock.Now()
	p.msgPublic = secret.OrderedToken("msg_", 12)
	p.creditKey = "chat-reply:" + p.msgPublic
	p.askedAt = now
	fresh := p.sessionID == 0
	err := s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		if err := s.newSessionTx(ctx, tx, p, now); err != nil {
			return err
		}
		deltas, err := s.addUserMessageTx(ctx, tx, p, now, 2)
		if err != nil {
			return err
		}
		if err := store.Get(ctx, tx, &p.msgID, `INSERT INTO chat_messages (public_id, session_id, workspace_id, bot_id, role,
			status, credits, answerer, created_at) VALUES (?, ?, ?, ?, 'assistant', 'pending', ?, ?, ?) RETURNING id`,
			p.msgPublic, p.sessionID, b.WorkspaceID, b.ID, p.cost, s.answerer.Name(), now); err != nil {
			return err
		}
		if p.cost > 0 {
			if _, err := s.billing.DebitTx(ctx, tx, b.WorkspaceID, p.cost, p.creditKey, "chat reply"); err != nil {
				return err
			}
			// Should this process die mid-reply, the job gives the credit
			// back; the reply's end (completed or failed here) drops it.
			if p.settleJob, err = s.queue.EnqueueTx(ctx, tx, jobs.NewJob{Kind: jobSettle, WorkspaceID: b.WorkspaceID, BotID: b.ID,
				Payload: map[string]int64{"message_id": p.msgID}, RunAt: now.Add(s.opts.SettleAfter), MaxAttempts: 10}); err != nil {
				return err
			}
		}
		return analytics.Record(ctx, tx, deltas...)
	})
	if err != nil {
		if fresh {
			p.sessionID, p.publicID = 0, ""
		}
		return err
	}
	return nil
}

// checkBalance refuses a reply the balance cannot pay for, before any
// answering, from the balance read with the bot's view in this request:
// under a burst most requests are refusals, and none of them queues for
// the writer. The debit re-checks under the write lock.
func (s *Service) checkBalance(p *pending) error {
	if p.cost == 0 {
		return nil
	}
	if bal := p.req.Bot.Balance; bal < p.cost {
		return &apperr.InsufficientCredits{Required: p.cost, Available: bal}
	}
	return nil
}

// recordWrite writes a composed reply's whole exchange in one transaction: the
// session (new, or its counters), the question and the completed reply,
// and the reply's debit. Either all of it exists, charged once, or none of
// it does and the caller gets the error (402 when the balance went short
// since Begin checked it). It is recordBatchTx for one reply: replyBatcher
// writes the replies that arrive together in shared statements, and recordWrite
// writes a reply alone (prepared by newReplyWrite).
func (s *Service) recordWrite(ctx context.Context, w *replyWrite) error {
	// Replies arriving together share one commit on SQLite (TxGroup).
	// The statements run on a context of their own: a visitor leaving
	// while they run must not interrupt the shared transaction. ctx
	// bounds the wait for the writer only.
	wait := ctx
	ctx = context.WithoutCancel(ctx)
	err := s.db.TxGroup(wait, func(tx *sqlx.Tx) error {
		if err := s.recordBatchTx(ctx, tx, []*replyWrite{w}); err != nil {
			return err
		}
		return w.err // refused (402): nothing of it was written
	})
	if err != nil && w.fresh {
		w.p.sessionID = 0
	}
	return err
}

// undeliver gives back the credit of a recorded reply that could not be
// delivered (the stream broke while it was sent): the reply becomes a
// failed one, refunded once, as a model reply cut short would be.
func (s *Service) undeliver(p *pending, cause error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		var gone []struct {
			BotID     int64     `db:"bot_id"`
			CreatedAt time.Time `db:"created_at"`
			Credits   int64     `db:"credits"`
			Rating    *int      `db:"rating"`
		}
		if err := store.Select(ctx, tx, &gone, `UPDATE chat_messages SET status = 'failed', error = ? WHERE public_id = ?
			AND status = 'completed' RETURNING bot_id, created_at, credits, rating`, failureKind(cause), p.msgPublic); err != nil {
			return err
		}
		if len(gone) == 0 {
			return nil
		}
		if p.cost > 0 {
			if _, err := s.billing.RefundTx(ctx, tx, p.req.Bot.Bot.WorkspaceID, p.cost, "chat-refund:"+p.msgPublic,
				"chat reply not delivered"); err != nil {
				return err
			}
		}
		// No longer a delivered reply: its credits and rating leave the figures.
		g := gone[0]
		d := analytics.Delta{BotID: g.BotID, At: g.CreatedAt, Replies: -1, ReplyCredits: -g.Credits}
		if g.Rating != nil {
			d.RatingsUp, d.RatingsDown = -int64(b2i(*g.Rating == 1)), -int64(b2i(*g.Rating == -1))
		}
		return analytics.Record(ctx, tx, d)
	})
	if err != nil {
		s.log.Warn("chat: refund of an undelivered reply", "message_id", p.msgPublic, "err", err)
	}
}

// complete charges the reply for good: the pending message becomes the
// delivered reply. The credit was taken by reserve; completing it means
// the settle job will find nothing to refund. An abstained reply (an "I
// don't know" before any model call) gets its credit back instead.
func (s *Service) complete(ctx context.Context, p *pending, ans Answer, sources []Source) error {
	b := p.req.Bot.Bot
	now := s.clock.Now()
	src, err := json.Marshal(sources)
	if err != nil {
		return err
	}
	// The reply is delivered even if the client has gone: finish the
	// bookkeeping on a context of its own.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	return s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		n, err := store.Exec(ctx, tx, `UPDATE chat_messages SET status = 'completed', text = ?, sources = ?, answered = ?,
			completed_at = ? WHERE id = ? AND status = 'pending'`, ans.Text, string(src), ans.Answered, now, p.msgID)
		if err != nil {
			return err
		}
		if n == 0 {
			return apperr.Conflict("the reply was settled before it completed")
		}
		if err := dropSettleJob(ctx, tx, p.settleJob); err != nil {
			return err
		}
		if _, err = store.Exec(ctx, tx, `UPDATE chat_sessions SET last_message_at = ?, answered_replies = answered_replies + ?,
			unanswered_replies = unanswered_replies + ? WHERE id = ?`, now, b2i(ans.Answered), b2i(!ans.Answered), p.sessionID); err != nil {
			return err
		}
		if p.questionID != 0 && !p.req.Preview {
			if _, err = store.Exec(ctx, tx, `UPDATE chat_messages SET reply_answered = ? WHERE id = ?`, ans.Answered,
				p.questionID); err != nil {
				return err
			}
		}
		d := analytics.Delta{BotID: b.ID, At: p.askedAt, Replies: 1, ReplyCredits: p.cost}
		if p.questionID != 0 && !p.req.Preview {
			d.Questions, d.Answered = 1, int64(b2i(ans.Answered))
		}
		if ans.Abstained && p.cost > 0 {
			// "I don't know" before any model call: the reservation goes back.
			d.ReplyCredits = 0
			if _, err := store.Exec(ctx, tx, `UPDATE chat_messages SET credits = 0 WHERE id = ?`, p.msgID); err != nil {
				return err
			}
			if _, err = s.billing.RefundTx(ctx, tx, b.WorkspaceID, p.cost, "chat-refund:"+p.msgPublic, "no answer: not charged"); err != nil {
				return err
			}
		}
		return analytics.Record(ctx, tx, d)
	})
}

// fail marks a pending reply failed and gives its credit back.
func (s *Service) fail(p *pending, cause error) {
	if p.msgID == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.settle(ctx, p.msgID, failureKind(cause), p.settleJob); err != nil {
		// The settle job retries later.
		s.log.Warn("chat: refund of a failed reply", "message_id", p.msgID, "err", err)
	}
}

// settle turns a pending reply into a failed one and refunds its credit,
// once: the status guard makes a second call (the job after an in-process
// failure) a no-op.
func (s *Service) settle(ctx context.Context, msgID int64, reason string, settleJob int64) error {
	return s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		if err := dropSettleJob(ctx, tx, settleJob); err != nil {
			return err
		}
		var m struct {
			WorkspaceID int64  `db:"workspace_id"`
			PublicID    string `db:"public_id"`
			Credits     int64  `db:"credits"`
		}
		err := store.Get(ctx, tx, &m, `SELECT workspace_id, public_id, credits FROM chat_messages WHERE id = ? AND status = 'pending'`, msgID)
		if store.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := store.Exec(ctx, tx, `UPDATE chat_messages SET status = 'failed', error = ?, completed_at = ?
			WHERE id = ? AND status = 'pending'`, reason, s.clock.Now(), msgID); err != nil {
			return err
		}
		if m.Credits == 0 {
			return nil
		}
		_, err = s.billing.RefundTx(ctx, tx, m.WorkspaceID, m.Credits, "chat-refund:"+m.PublicID, "chat reply not delivered")
		return err
	})
}

// settleJob refunds a reservation whose reply never finished.
func (s *Service) settleJob(ctx context.Context, j *jobs.Job) error {
	var p struct {
		MessageID int64 `json:"message_id"`
	}
	if err := j.Decode(&p); err != nil {
		return err
	}
	return s.settle(ctx, p.MessageID, "abandoned", 0)
}

// dropSettleJob deletes a reply's settle job once the reply has ended in
// this process (completed or failed): at one job per model reply, leaving
// them to run for nothing ten minutes later doubled the job queue's work.
// A job already claimed stays, and finds the reply settled.
func dropSettleJob(ctx context.Context, tx *sqlx.Tx, id int64) error {
	if id == 0 {
		return nil
	}
	_, err := store.Exec(ctx, tx, `DELETE FROM jobs WHERE id = ? AND status = 'queued'`, id)
	return err
}

// RegisterJobs installs the chat job handlers.
func (s *Service) RegisterJobs(pool *jobs.Pool) {
	pool.Handle(jobSettle, s.settleJob, jobs.KindOptions{Timeout: time.Minute})
}

func failureKind(err error) string {
	if e, ok := llm.AsError(err); ok {
		return e.Kind.String()
	}
	switch {
	case errors.Is(err, context.Canceled):
		return "client_gone"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	return "failed"
}

// Message is one message of a session's history.
type Message struct {
	MessageID string    `json:"message_id"`
	Role      string    `json:"role"`
	Text      string    `json:"text"`
	Sources   []Source  `json:"sources"`
	Answered  *bool     `json:"answered,omitempty"`
	Rating    *string   `json:"rating,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// History returns a session's delivered messages, oldest first: the
// question and its reply, never a reply still being written or one that
// failed.
func (s *Service) History(ctx context.Context, workspaceID, botID int64, sessionID string) ([]Message, error) {
	sess, err := s.session(ctx, workspaceID, botID, sessionID)
	if err != nil {
		return nil, err
	}
	var rows []struct {
		PublicID  string    `db:"public_id"`
		Role      string    `db:"role"`
		Text      string    `db:"text"`
		Sources   string    `db:"sources"`
		Answered  *bool     `db:"answered"`
		Rating    *int      `db:"rating"`
		CreatedAt time.Time `db:"created_at"`
	}
	err = store.Select(ctx, s.db.Reader(), &rows, `SELECT public_id, role, text, sources, answered, rating, created_at
		FROM chat_messages WHERE session_id = ? AND workspace_id = ? AND status = 'completed' ORDER BY id DESC LIMIT ?`,
		sess.ID, workspaceID, maxHistory)
	if err != nil {
		return nil, fmt.Errorf("chat: history: %w", err)
	}
	out := make([]Message, len(rows))
	for i, r := range rows {
		m := Message{MessageID: r.PublicID, Role: r.Role, Text: r.Text, Sources: []Source{}, Answered: r.Answered,
			CreatedAt: r.CreatedAt.UTC()}
		_ = json.Unmarshal([]byte(r.Sources), &m.Sources)
		if r.Rating != nil {
			v := "down"
			if *r.Rating > 0 {
				v = "up"
			}
			m.Rating = &v
		}
		out[len(rows)-1-i] = m
	}
	return out, nil
}

// Rate records a visitor's rating of a reply ("up" or "down"); rating
// again replaces it.
func (s *Service) Rate(ctx context.Context, workspaceID, botID int64, sessionID, messageID, rating string) error {
	v := map[string]int{"up": 1, "down": -1}[rating]
	if v == 0 {
		return apperr.Invalid("body.rating", `must be "up" or "down"`, "value_error")
	}
	sess, err := s.session(ctx, workspaceID, botID, sessionID)
	if err != nil {
		return err
	}
	// The figures move by what the rating was before: each update applies
	// only from one known previous value (another, NULL), so that two
	// ratings at once each count their own change.
	const rate = `UPDATE chat_messages SET rating = ? WHERE public_id = ? AND session_id = ? AND workspace_id = ?
		AND role = 'assistant' AND status = 'completed' AND `
	err = s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		var rated []struct {
			BotID     int64     `db:"bot_id"`
			CreatedAt time.Time `db:"created_at"`
		}
		for _, from := range []int{-v, 0} {
			cond := "rating = ?"
			args := []any{v, messageID, sess.ID, workspaceID, from}
			if from == 0 {
				cond, args = "rating IS NULL", args[:4]
			}
			if err := store.Select(ctx, tx, &rated, rate+cond+` RETURNING bot_id, created_at`, args...); err != nil {
				return err
			}
			if len(rated) == 0 {
				continue
			}
			d := analytics.Delta{BotID: rated[0].BotID, At: rated[0].CreatedAt}
			up, down := &d.RatingsUp, &d.RatingsDown
			if v < 0 {
				up, down = down, up
			}
			*up = 1
			if from != 0 {
				*down = -1
			}
			return analytics.Record(ctx, tx, d)
		}
		// Unchanged (rated so already), or no such reply.
		var n int
		if err := store.Get(ctx, tx, &n, `SELECT COUNT(*) FROM chat_messages WHERE public_id = ? AND session_id = ?
			AND workspace_id = ? AND role = 'assistant' AND status = 'completed'`, messageID, sess.ID, workspaceID); err != nil {
			return err
		}
		if n == 0 {
			return apperr.NotFound("message not found")
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("chat: rate: %w", err)
	}
	return nil
}
