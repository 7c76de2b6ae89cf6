package chat

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/analytics"
	"concierge/internal/billing"
	"concierge/internal/coalesce"
	"concierge/internal/outbox"
	"concierge/internal/secret"
	"concierge/internal/store"
)

// replyBatcher writes the composed replies that arrive together in one
// transaction with multi-row statements: one balance update and one
// ledger insert per workspace, one insert each for the new sessions, their
// conversation.started events and the messages, where one reply alone
// runs five statements. Under load the database's writer spends its time
// on the rows rather than on statements (on SQLite it is serial, and it is
// what bounds the replies per second).
//
// The queue is a coalesce.Batcher: no timer, a lone reply is written at
// once, and the replies that arrive while a batch is written go together in
// the next one; one batch in flight on SQLite, four on PostgreSQL.
//
// The outcome of every reply is the one recordWrite would give it alone: the
// debits of a batch are taken in order, each paid or refused (402) as the
// balance left by the ones before allows. Should the batch's transaction
// fail as a whole (a statement error, say), nothing of it stays and each
// reply is written on its own with recordWrite.
type replyBatcher struct {
	s       *Service
	timeout time.Duration
	queue   *coalesce.Batcher[*replyWrite]
}

type replyWrite struct {
	ctx   context.Context
	p     *pending
	ans   Answer
	src   string // sources as JSON
	fresh bool   // the session is new: written with the reply
	err   error
	done  chan struct{}
}

// newReplyWrite is a reply to write. What depends on the reply alone (the
// question's topic, the sources' JSON) is computed here, in the caller's
// goroutine: the writer's transaction is the one serial step.
func newReplyWrite(p *pending, ans Answer, sources []Source) (*replyWrite, error) {
	prepareTopic(p)
	src, err := json.Marshal(sources)
	if err != nil {
		return nil, err
	}
	return &replyWrite{p: p, ans: ans, src: string(src), fresh: p.sessionID == 0}, nil
}

func newReplyBatcher(s *Service) *replyBatcher {
	inFlight := 1 // SQLite has one writer: more batches would only queue for it
	if s.db.Dialect() == store.Postgres {
		inFlight = 4
	}
	b := &replyBatcher{s: s, timeout: 30 * time.Second}
	b.queue = coalesce.New(inFlight, 64, b.writeBatch)
	return b
}

// batchFault, when set (tests), fails a batch's transaction after its
// statements ran, to exercise the one-by-one fallback.
var batchFault func() error

// write records a composed reply (see record) and returns its outcome.
// ctx bounds the wait until a batch takes the reply; once taken, the reply
// is written (and charged) whatever ctx does, so the caller always learns
// the outcome.
func (b *replyBatcher) write(ctx context.Context, p *pending, ans Answer, sources []Source) error {
	w, err := newReplyWrite(p, ans, sources)
	if err != nil {
		return err
	}
	w.ctx, w.done = ctx, make(chan struct{})
	b.queue.Add(w)
	<-w.done
	return w.err
}

func (b *replyBatcher) writeBatch(batch []*replyWrite) {
	live := make([]*replyWrite, 0, len(batch))
	for _, w := range batch {
		if err := w.ctx.Err(); err != nil {
			w.err = err // gone before anything was written: nothing charged
			close(w.done)
			continue
		}
		live = append(live, w)
	}
	switch len(live) {
	case 0:
		return
	case 1:
		w := live[0]
		w.err = b.s.safely(func() error { return b.s.recordWrite(w.ctx, w) })
		close(w.done)
		return
	}
	// The transaction serves every reply of the batch, so no single
	// visitor's departure may cancel it; it has its own deadline.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(live[0].ctx), b.timeout)
	err := b.s.safely(func() error {
		return b.s.db.TxGroup(ctx, func(tx *sqlx.Tx) error {
			if err := b.s.recordBatchTx(ctx, tx, live); err != nil {
				return err
			}
			if batchFault != nil {
				return batchFault()
			}
			return nil
		})
	})
	cancel()
	if err == nil {
		for _, w := range live {
			close(w.done)
		}
		return
	}
	// Nothing of the batch was written: each reply on its own (they still
	// share commits through TxGroup).
	b.s.log.Warn("chat: a batch of replies failed; writing them one by one", "replies", len(live), "err", err)
	var wg sync.WaitGroup
	for _, w := range live {
		w.err = nil
		if w.fresh {
			w.p.sessionID = 0
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.err = b.s.safely(func() error { return b.s.recordWrite(w.ctx, w) })
			close(w.done)
		}()
	}
	wg.Wait()
}

// safely runs fn on a batch goroutine, where a panic would end the
// process (and leave the batcher stuck): it becomes an error, logged with
// its stack, that the request answers with a 500.
func (s *Service) safely(fn func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			s.log.Error("chat: panic while writing replies", "panic", v, "stack", string(debug.Stack()))
			err = fmt.Errorf("chat: panic while writing replies: %v", v)
		}
	}()
	return fn()
}

// recordBatchTx writes the replies of ws as record writes one, inside tx:
// the debits first (per workspace, in order; a refused one gets its 402 in
// its err and nothing else of it is written), then the new sessions, their
// events, and the messages. An error fails the whole batch.
func (s *Service) recordBatchTx(ctx context.Context, tx *sqlx.Tx, ws []*replyWrite) error {
	// Debits, per workspace (the first one seen first).
	var order []int64
	byWorkspace := map[int64][]*replyWrite{}
	for _, w := range ws {
		if w.p.cost == 0 {
			continue
		}
		id := w.p.req.Bot.WorkspaceID
		if _, ok := byWorkspace[id]; !ok {
			order = append(order, id)
		}
		byWorkspace[id] = append(byWorkspace[id], w)
	}
	// The debits first. On PostgreSQL each locks its workspace row until
	// the commit, so the replies of one workspace write one after the
	// other and the foreign-key checks of the rows below find the
	// workspace (and bot) row locked by their own transaction only: no
	// shared lock of many transactions (a MultiXact) that every read of
	// those rows must resolve. Workspace rows are locked in id order, so
	// that two batches in flight never wait for each other crosswise.
	slices.Sort(order)
	for _, id := range order {
		members := byWorkspace[id]
		debits := make([]billing.BatchDebit, len(members))
		for i, w := range members {
			debits[i] = billing.BatchDebit{Amount: w.p.cost, Key: w.p.creditKey, Reason: "chat reply"}
		}
		_, errs, err := s.billing.DebitBatchTx(ctx, tx, id, debits)
		if err != nil {
			return err
		}
		for i, w := range members {
			w.err = errs[i]
		}
	}
	now := s.clock.Now()
	var fresh, ok, continued []*replyWrite
	for _, w := range ws {
		if w.err != nil {
			continue
		}
		ok = append(ok, w)
		if w.fresh {
			fresh = append(fresh, w)
		} else {
			continued = append(continued, w)
		}
	}
	// Existing sessions, in id order for the same reason.
	slices.SortStableFunc(continued, func(a, b *replyWrite) int { return cmp.Compare(a.p.sessionID, b.p.sessionID) })
	var deltas []analytics.Delta
	for _, w := range continued {
		var c analytics.Counted
		if err := store.Get(ctx, tx, &c, `UPDATE chat_sessions SET messages = messages + 2,
			visitor_messages = visitor_messages + 1, answered_replies = answered_replies + ?,
			unanswered_replies = unanswered_replies + ?, last_message_at = ? WHERE id = ?
			RETURNING `+analytics.CountedColumns, b2i(w.ans.Answered), b2i(!w.ans.Answered), now, w.p.sessionID); err != nil {
			return err
		}
		deltas = append(deltas, c.Delta(w.p.req.Bot.ID))
	}
	if err := s.insertSessions(ctx, tx, fresh, now); err != nil {
		return err
	}
	var events []outbox.Event
	for _, w := range fresh {
		if !w.p.req.Preview {
			b := w.p.req.Bot.Bot
			events = append(events, outbox.Event{WorkspaceID: b.WorkspaceID, BotID: b.ID, Type: "conversation.started",
				Data: map[string]any{"bot_id": b.ID, "session_id": w.p.publicID}})
		}
	}
	if len(events) > 0 {
		if err := outbox.AddMany(ctx, tx, now, events); err != nil {
			return err
		}
	}
	if err := s.insertExchanges(ctx, tx, ok, now); err != nil {
		return err
	}
	for _, w := range ok {
		d := analytics.Delta{BotID: w.p.req.Bot.ID, At: now, Replies: 1, ReplyCredits: w.p.cost}
		if !w.p.req.Preview {
			d.VisitorMessages, d.Questions, d.Answered = 1, 1, int64(b2i(w.ans.Answered))
			if w.fresh {
				d.Conversations = 1
			}
		}
		deltas = append(deltas, d)
	}
	return analytics.Record(ctx, tx, deltas...)
}

// insertSessions creates the sessions of replies that start one.
func (s *Service) insertSessions(ctx context.Context, tx *sqlx.Tx, ws []*replyWrite, now time.Time) error {
	for _, n := range store.PowerChunks(len(ws), 64) {
		chunk := ws[:n]
		ws = ws[n:]
		args := make([]any, 0, 11*n)
		byPublic := make(map[string]*pending, n)
		for _, w := range chunk {
			p := w.p
			b := p.req.Bot.Bot
			var origin any
			if p.req.Origin != "" {
				origin = p.req.Origin
			}
			args = append(args, p.publicID, b.WorkspaceID, b.ID, p.req.Preview, origin, 2, 1, b2i(w.ans.Answered),
				b2i(!w.ans.Answered), now, now)
			byPublic[p.publicID] = p
		}
		var got []sessionRow
		if err := store.Select(ctx, tx, &got, `INSERT INTO chat_sessions (public_id, workspace_id, bot_id, preview,
			origin, messages, visitor_messages, answered_replies, unanswered_replies, created_at, last_message_at)
			VALUES `+store.Rows(n, 11)+` RETURNING id, public_id`,
			args...); err != nil {
			return err
		}
		if len(got) != n {
			return fmt.Errorf("chat: %d sessions inserted of %d", len(got), n)
		}
		for _, g := range got {
			byPublic[g.PublicID].sessionID = g.ID
		}
	}
	return nil
}

// insertExchanges writes each reply's question and the completed reply
// (ids in this order: history sorts by id).
func (s *Service) insertExchanges(ctx context.Context, tx *sqlx.Tx, ws []*replyWrite, now time.Time) error {
	name := s.answerer.Name()
	for _, n := range store.PowerChunks(len(ws), 32) {
		chunk := ws[:n]
		ws = ws[n:]
		args := make([]any, 0, 30*n)
		for _, w := range chunk {
			p := w.p
			b := p.req.Bot.Bot
			var answered any
			if !p.req.Preview {
				answered = w.ans.Answered
			}
			args = append(args,
				secret.OrderedToken("msg_", 12), p.sessionID, b.WorkspaceID, b.ID, "user", "completed", p.req.Message,
				"[]", nil, 0, "", questionTopic(p), answered, now, now,
				p.msgPublic, p.sessionID, b.WorkspaceID, b.ID, "assistant", "completed", w.ans.Text,
				w.src, w.ans.Answered, p.cost, name, nil, nil, now, now)
		}
		if _, err := store.Exec(ctx, tx, `INSERT INTO chat_messages (public_id, session_id, workspace_id, bot_id, role,
			status, text, sources, answered, credits, answerer, topic, reply_answered, created_at, completed_at)
			VALUES `+store.Rows(2*n, 15), args...); err != nil {
			return err
		}
	}
	return nil
}

// b2i is 1 for true.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
