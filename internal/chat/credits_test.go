package chat_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"concierge/internal/app"
	"concierge/internal/chat"
	"concierge/internal/llm"
	"concierge/internal/store"
	"concierge/internal/testkit"
)

// setBalance makes the workspace hold exactly n credits.
func (w *world) setBalance(t *testing.T, n int64) {
	t.Helper()
	ctx := context.Background()
	bal := w.balance(t)
	var err error
	switch {
	case bal < n:
		_, err = w.a.Billing.Grant(ctx, w.ws, n-bal, "test-top-up", "test")
	case bal > n:
		_, err = w.a.Billing.Debit(ctx, w.ws, bal-n, "test-trim", "test")
	}
	if err != nil {
		t.Fatal(err)
	}
}

// ledger sums what chat replies took and gave back.
func (w *world) ledger(t *testing.T) (debited, refunded, completed int64) {
	t.Helper()
	ctx := context.Background()
	q := func(dest *int64, query string) {
		if err := store.Get(ctx, w.a.DB.Reader(), dest, query, w.ws); err != nil {
			t.Fatal(err)
		}
	}
	q(&debited, `SELECT COALESCE(-SUM(delta), 0) FROM credit_ledger WHERE workspace_id = ? AND idempotency_key LIKE 'chat-reply:%'`)
	q(&refunded, `SELECT COALESCE(SUM(delta), 0) FROM credit_ledger WHERE workspace_id = ? AND idempotency_key LIKE 'chat-refund:%'`)
	q(&completed, `SELECT COUNT(*) FROM chat_messages WHERE workspace_id = ? AND role = 'assistant' AND status = 'completed'`)
	return
}

// burst sends total copies of one question to POST /chat from workers
// goroutines and counts the answers: 200s, 402s, and anything else (the
// first few of which fail the test).
func (w *world) burst(t *testing.T, total, workers int) (ok, short, other int64) {
	t.Helper()
	var nOK, nShort, nOther atomic.Int64
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for range workers {
		wg.Go(func() {
			for next.Add(1) <= int64(total) {
				r := w.a.Do(t, "POST", "/chat", map[string]any{"message": "Where do orders ship from?"}, "X-Bot-Key", w.botKey)
				switch r.Status {
				case 200:
					nOK.Add(1)
				case 402:
					nShort.Add(1)
				default:
					if nOther.Add(1) < 5 {
						t.Errorf("status %d: %s", r.Status, r.Body)
					}
				}
			}
		})
	}
	wg.Wait()
	return nOK.Load(), nShort.Load(), nOther.Load()
}

// TestConcurrentChatsSpendExactly: 10,000 concurrent chats against 1,000
// credits give exactly 1,000 replies and 9,000 × 402, and the balance ends
// at zero.
func TestConcurrentChatsSpendExactly(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		w := newWorld(t, e, testkit.WithEnv("CONCIERGE_RATE_LIMITS", "off"))
		w.setBalance(t, 1000)
		ok, short, other := w.burst(t, 10_000, 48)
		if ok != 1000 || short != 9000 || other != 0 {
			t.Fatalf("replies %d, 402s %d, other %d", ok, short, other)
		}
		if bal := w.balance(t); bal != 0 {
			t.Fatalf("balance %d, want 0", bal)
		}
		if d, r, c := w.ledger(t); d-r != 1000 || c != 1000 {
			t.Fatalf("debited %d, refunded %d, completed %d", d, r, c)
		}
	})
}

// faulty fails some replies before the first word (a model that is down)
// and some halfway (a stream cut), like a model provider on a bad day.
type faulty struct {
	n atomic.Int64
}

func (f *faulty) Name() string { return "faulty" }

func (f *faulty) Answer(ctx context.Context, p chat.Prompt, emit func(string) error) (chat.Answer, error) {
	i := f.n.Add(1)
	switch {
	case i%3 == 0:
		return chat.Answer{}, &llm.Error{Kind: llm.KindUnavailable, Status: 503, Err: errors.New("upstream down")}
	case i%5 == 0:
		if err := emit("Half an ans"); err != nil {
			return chat.Answer{}, err
		}
		return chat.Answer{}, &llm.Error{Kind: llm.KindCut, Err: errors.New("stream cut")}
	}
	return chat.Extractive{}.Answer(ctx, p, emit)
}

// TestModelFaultsChargeOnlyCompletedReplies: whatever the model does,
// credits debited (net of refunds) equal replies completed, exactly.
func TestModelFaultsChargeOnlyCompletedReplies(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		f := &faulty{}
		w := newWorld(t, e, testkit.WithEnv("CONCIERGE_RATE_LIMITS", "off"),
			testkit.WithOptions(func(o *app.Options) { o.Answerer = f }))
		w.setBalance(t, 500)
		var delivered, failedEarly, cut atomic.Int64
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				for i := range 40 {
					path := "/chat"
					if (g+i)%2 == 0 {
						path = "/chat/stream"
					}
					r := w.a.Do(t, "POST", path, map[string]any{"message": "How long does delivery take?"}, "X-Bot-Key", w.botKey)
					switch {
					case r.Status == 200 && path == "/chat/stream":
						_, _, final := readStream(t, string(r.Body))
						if final["error"] != nil {
							cut.Add(1)
							if final["credits_charged"].(float64) != 0 {
								t.Errorf("a broken stream says it charged: %v", final)
							}
						} else {
							delivered.Add(1)
						}
					case r.Status == 200:
						delivered.Add(1)
					case r.Status == 503 && r.Header.Get("Retry-After") != "":
						failedEarly.Add(1)
					case r.Status == 502 && r.Header.Get("Retry-After") != "":
						failedEarly.Add(1) // a cut on /chat: nothing was shown
					default:
						t.Errorf("status %d: %s", r.Status, r.Body)
					}
				}
			})
		}
		wg.Wait()
		d, r, c := w.ledger(t)
		if d-r != c || c != delivered.Load() || failedEarly.Load() == 0 || cut.Load() == 0 {
			t.Fatalf("debited %d refunded %d completed %d; delivered %d, failed early %d, cut mid-stream %d",
				d, r, c, delivered.Load(), failedEarly.Load(), cut.Load())
		}
		if bal := w.balance(t); bal != 500-c {
			t.Fatalf("balance %d, want %d", bal, 500-c)
		}
		t.Logf("delivered %d, failed before the first word %d, cut mid-stream %d", delivered.Load(), failedEarly.Load(), cut.Load())
	})
}

// TestExtractiveReplyIsOneWrite: an extractive reply needs no reservation:
// no settle job, the reply written completed with its question, the
// session's counters and one conversation.started event per session.
func TestExtractiveReplyIsOneWrite(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		w := newWorld(t, e)
		w.a.Listen(t, w.ws, w.bot) // events are recorded only for an active endpoint
		_, rep := w.chat(t, "Where do orders ship from?", "")
		if r, _ := w.chat(t, "How long does delivery inside India take?", rep.SessionID); r.Status != 200 {
			t.Fatalf("follow-up: %d %s", r.Status, r.Body)
		}
		if n := w.count(t, `SELECT COUNT(*) FROM jobs WHERE kind = 'chat.settle'`); n != 0 {
			t.Errorf("%d settle jobs, want none", n)
		}
		if n := w.count(t, `SELECT messages FROM chat_sessions WHERE public_id = ?`, rep.SessionID); n != 4 {
			t.Errorf("session counts %d messages, want 4", n)
		}
		if n := w.count(t, `SELECT COUNT(*) FROM chat_messages WHERE status <> 'completed'`); n != 0 {
			t.Errorf("%d messages not completed", n)
		}
		if n := w.count(t, `SELECT COUNT(*) FROM events WHERE workspace_id = ? AND type = 'conversation.started'`, w.ws); n != 1 {
			t.Errorf("%d conversation.started events, want 1", n)
		}
		if d, r, c := w.ledger(t); d != 2 || r != 0 || c != 2 {
			t.Errorf("debited %d, refunded %d, completed %d; want 2, 0, 2", d, r, c)
		}
	})
}

// TestFailedBatchWritesEachReplyAlone: when a batch of replies fails as a
// whole, nothing of it stays and each reply is written on its own:
// credits still equal replies, one conversation.started per session.
func TestFailedBatchWritesEachReplyAlone(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		w := newWorld(t, e, testkit.WithEnv("CONCIERGE_RATE_LIMITS", "off"))
		w.a.Listen(t, w.ws, w.bot) // events are recorded only for an active endpoint
		w.setBalance(t, 300)
		var faults atomic.Int64
		chat.SetBatchFault(func() error { faults.Add(1); return errors.New("injected batch failure") })
		t.Cleanup(func() { chat.SetBatchFault(nil) })
		const total = 1200
		ok, short, other := w.burst(t, total, 48)
		if faults.Load() == 0 {
			t.Fatal("no batch of two or more replies formed: the fallback was not exercised")
		}
		if ok != 300 || short != total-300 || other != 0 {
			t.Fatalf("replies %d, 402s %d, other %d", ok, short, other)
		}
		if bal := w.balance(t); bal != 0 {
			t.Fatalf("balance %d, want 0", bal)
		}
		if d, r, c := w.ledger(t); d-r != 300 || c != 300 {
			t.Fatalf("debited %d, refunded %d, completed %d", d, r, c)
		}
		var sessions, events, msgs int64
		ctx := context.Background()
		for dest, q := range map[*int64]string{
			&sessions: `SELECT COUNT(*) FROM chat_sessions WHERE workspace_id = ?`,
			&events:   `SELECT COUNT(*) FROM events WHERE workspace_id = ? AND type = 'conversation.started'`,
			&msgs:     `SELECT COUNT(*) FROM chat_messages WHERE workspace_id = ?`,
		} {
			if err := store.Get(ctx, w.a.DB.Reader(), dest, q, w.ws); err != nil {
				t.Fatal(err)
			}
		}
		if sessions != 300 || events != 300 || msgs != 600 {
			t.Fatalf("sessions %d, events %d, messages %d; want 300, 300, 600", sessions, events, msgs)
		}
	})
}

// TestPanickingBatchIsContained: a panic while a batch is written (on the
// batcher's goroutine, not a request's) neither ends the process nor
// stalls later replies: the batch's replies are written one by one.
func TestPanickingBatchIsContained(t *testing.T) {
	w := newWorld(t, testkit.SQLite, testkit.WithEnv("CONCIERGE_RATE_LIMITS", "off"))
	w.setBalance(t, 100)
	var panics atomic.Int64
	chat.SetBatchFault(func() error { panics.Add(1); panic("injected") })
	t.Cleanup(func() { chat.SetBatchFault(nil) })
	ok, short, other := w.burst(t, 300, 32)
	if panics.Load() == 0 {
		t.Fatal("no batch of two or more replies formed: the panic path was not exercised")
	}
	if ok != 100 || short != 200 || other != 0 {
		t.Fatalf("replies %d, 402s %d, other %d", ok, short, other)
	}
	if d, r, c := w.ledger(t); d-r != 100 || c != 100 {
		t.Fatalf("debited %d, refunded %d, completed %d", d, r, c)
	}
}

// TestConcurrentFollowUpsKeepEachSession: follow-ups to many sessions at
// once (written in shared batches) each land in their own session, with
// its counters, and start no new conversation.
func TestConcurrentFollowUpsKeepEachSession(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		w := newWorld(t, e, testkit.WithEnv("CONCIERGE_RATE_LIMITS", "off"))
		w.a.Listen(t, w.ws, w.bot) // events are recorded only for an active endpoint
		const n = 40
		sessions := make([]string, n)
		for i := range sessions {
			r, rep := w.chat(t, "Where do orders ship from?", "")
			if r.Status != 200 {
				t.Fatalf("first message: %d %s", r.Status, r.Body)
			}
			sessions[i] = rep.SessionID
		}
		var wg sync.WaitGroup
		for round := range 3 {
			for _, sid := range sessions {
				wg.Go(func() {
					if r, rep := w.chat(t, "How long does delivery inside India take?", sid); r.Status != 200 || rep.SessionID != sid {
						t.Errorf("round %d, session %s: %d, session %q", round, sid, r.Status, rep.SessionID)
					}
				})
			}
			wg.Wait()
		}
		ctx := context.Background()
		for _, sid := range sessions {
			var counted, stored int64
			if err := store.Get(ctx, w.a.DB.Reader(), &counted, `SELECT messages FROM chat_sessions WHERE public_id = ?`, sid); err != nil {
				t.Fatal(err)
			}
			if err := store.Get(ctx, w.a.DB.Reader(), &stored, `SELECT COUNT(*) FROM chat_messages m
				JOIN chat_sessions s ON s.id = m.session_id WHERE s.public_id = ?`, sid); err != nil {
				t.Fatal(err)
			}
			if counted != 8 || stored != 8 {
				t.Fatalf("session %s: counted %d, stored %d messages; want 8", sid, counted, stored)
			}
		}
		var events int64
		if err := store.Get(ctx, w.a.DB.Reader(), &events, `SELECT COUNT(*) FROM events WHERE workspace_id = ?
			AND type = 'conversation.started'`, w.ws); err != nil {
			t.Fatal(err)
		}
		if events != n {
			t.Fatalf("%d conversation.started events, want %d", events, n)
		}
		if d, r, c := w.ledger(t); d-r != 4*n || c != 4*n {
			t.Fatalf("debited %d, refunded %d, completed %d; want %d", d, r, c, 4*n)
		}
	})
}

// stalled answers only once released, whatever its context says: a reply
// whose process died before it ended.
type stalled struct{ release chan struct{} }

func (s *stalled) Name() string { return "stalled" }

func (s *stalled) Answer(ctx context.Context, p chat.Prompt, emit func(string) error) (chat.Answer, error) {
	<-s.release
	return chat.Extractive{}.Answer(context.WithoutCancel(ctx), p, emit)
}

// TestSettleJobRefundsAnAbandonedReply: a reservation whose reply never
// ends is refunded by its settle job once SettleAfter has passed, and the
// reply ending later charges nothing; a reply that ends drops its settle
// job (one job per model reply left to run for nothing had doubled the
// queue's work; found by the soak).
func TestSettleJobRefundsAnAbandonedReply(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		s := &stalled{release: make(chan struct{})}
		w := newWorld(t, e, testkit.WithOptions(func(o *app.Options) { o.Answerer = s }))
		w.setBalance(t, 10)
		waitFor := func(what, query string) {
			t.Helper()
			deadline := time.Now().Add(20 * time.Second)
			for w.count(t, query) == 0 {
				if time.Now().After(deadline) {
					t.Fatalf("gave up waiting for %s", what)
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
		done := make(chan *testkit.Response, 1)
		go func() {
			done <- w.a.Do(t, "POST", "/chat", map[string]any{"message": "How long does delivery take?"}, "X-Bot-Key", w.botKey)
		}()
		waitFor("the reservation", `SELECT COUNT(*) FROM chat_messages WHERE role = 'assistant' AND status = 'pending'`)
		if n := w.count(t, `SELECT COUNT(*) FROM jobs WHERE kind = 'chat.settle' AND status = 'queued'`); n != 1 {
			t.Fatalf("%d settle jobs queued, want 1", n)
		}
		if bal := w.balance(t); bal != 9 {
			t.Fatalf("balance %d while the reply is reserved, want 9", bal)
		}
		w.a.Clock.Advance(11 * time.Minute) // past SettleAfter (10 minutes)
		waitFor("the settle job", `SELECT COUNT(*) FROM jobs WHERE kind = 'chat.settle' AND status = 'succeeded'`)
		if n := w.count(t, `SELECT COUNT(*) FROM chat_messages WHERE role = 'assistant' AND status = 'failed'`); n != 1 {
			t.Fatalf("%d failed replies after the settle job, want 1", n)
		}
		if bal := w.balance(t); bal != 10 {
			t.Fatalf("balance %d after the settle job, want 10", bal)
		}
		close(s.release) // the "dead" reply ends after all: nothing is charged again
		if r := <-done; r.Status == 200 {
			t.Fatalf("a reply settled before it ended was delivered: %s", r.Body)
		}
		if bal := w.balance(t); bal != 10 {
			t.Fatalf("balance %d after the late end, want 10", bal)
		}

		// A reply that ends here drops its settle job.
		if r, rep := w.chat(t, "Where do orders ship from?", ""); r.Status != 200 || rep.SessionID == "" {
			t.Fatalf("chat: %d %s", r.Status, r.Body)
		}
		if n := w.count(t, `SELECT COUNT(*) FROM jobs WHERE kind = 'chat.settle' AND status = 'queued'`); n != 0 {
			t.Fatalf("%d settle jobs left queued after a completed reply, want 0", n)
		}
		if bal := w.balance(t); bal != 9 {
			t.Fatalf("balance %d after one delivered reply, want 9", bal)
		}
	})
}

// count runs a COUNT query (or any single-integer query) on the world's database.
func (w *world) count(t *testing.T, query string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := store.Get(context.Background(), w.a.DB.Reader(), &n, query, args...); err != nil {
		t.Fatal(err)
	}
	return n
}
