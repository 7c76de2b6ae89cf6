package webhook_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/app"
	"concierge/internal/outbox"
	"concierge/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// world: a workspace with a bot, and another workspace with its own bot.
type world struct {
	a          *testkit.TestApp
	key        string
	ws, bot    int64
	otherKey   string
	otherWS    int64
	otherBot   int64
	ownerEmail string
}

func allowLoopback() testkit.Option {
	return testkit.WithEnv("CONCIERGE_OUTBOUND_ALLOW", "127.0.0.1/32")
}

// manual: delivery runs only when the test pumps it, on the fake clock.
func manual() testkit.Option {
	return testkit.WithOptions(func(o *app.Options) { o.Webhooks.Manual = true })
}

func newWorld(t *testing.T, e testkit.Engine, opts ...testkit.Option) *world {
	t.Helper()
	a := testkit.NewApp(t, e, append([]testkit.Option{allowLoopback()}, opts...)...)
	w := &world{a: a, ownerEmail: "owner@acme-corp.io"}
	w.key, w.ws = a.Register(t, w.ownerEmail)
	w.bot = w.createBot(t, w.key, "Sales helper")
	w.otherKey, w.otherWS = a.Register(t, "other@rival.io")
	w.otherBot = w.createBot(t, w.otherKey, "Rival")
	return w
}

func (w *world) createBot(t *testing.T, key, name string) int64 {
	t.Helper()
	r := w.a.Do(t, "POST", "/bots", map[string]any{"name": name}, "X-API-Key", key)
	if r.Status != 201 {
		t.Fatalf("bot: %d %s", r.Status, r.Body)
	}
	return int64(r.JSON(t)["bot_id"].(float64))
}

type endpoint struct {
	ID     string `json:"webhook_id"`
	Secret string `json:"secret"`
	URL    string `json:"url"`
	Active bool   `json:"active"`
}

func (w *world) createEndpoint(t *testing.T, bot int64, url string, events ...string) endpoint {
	t.Helper()
	r := w.a.Do(t, "POST", "/webhooks", map[string]any{"bot_id": bot, "url": url, "events": events}, "X-API-Key", w.key)
	if r.Status != 201 {
		t.Fatalf("create webhook: %d %s", r.Status, r.Body)
	}
	var e endpoint
	r.Decode(t, &e)
	return e
}

// emit records n events of typ for the bot (0: no bot) as a domain change
// would, in one transaction.
func (w *world) emit(t *testing.T, ws, bot int64, typ string, n int) {
	t.Helper()
	evs := make([]outbox.Event, n)
	for i := range evs {
		evs[i] = outbox.Event{WorkspaceID: ws, BotID: bot, Type: typ, Data: map[string]any{"bot_id": bot, "seq": i}}
	}
	err := w.a.DB.Tx(context.Background(), func(tx *sqlx.Tx) error {
		return outbox.AddMany(context.Background(), tx, w.a.Clock.Now(), evs)
	})
	if err != nil {
		t.Fatalf("emit: %v", err)
	}
}

func (w *world) pump(t *testing.T) {
	t.Helper()
	if err := w.a.Webhooks.Pump(context.Background()); err != nil {
		t.Fatalf("pump: %v", err)
	}
}

// request is one delivery as the receiver saw it.
type request struct {
	Header http.Header
	Body   []byte
	At     time.Time // webhook-timestamp
}

// receiver records requests and answers with respond (default 200).
type receiver struct {
	srv     *httptest.Server
	mu      sync.Mutex
	reqs    []request
	respond func(r *http.Request) (int, http.Header)
}

func newReceiver(t *testing.T, respond func(r *http.Request) (int, http.Header)) *receiver {
	rc := &receiver{respond: respond}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		ts, _ := strconv.ParseInt(r.Header.Get("webhook-timestamp"), 10, 64)
		rc.mu.Lock()
		rc.reqs = append(rc.reqs, request{Header: r.Header.Clone(), Body: b, At: time.Unix(ts, 0)})
		rc.mu.Unlock()
		code, h := 200, http.Header(nil)
		if rc.respond != nil {
			code, h = rc.respond(r)
		}
		for k, v := range h {
			rw.Header()[k] = v
		}
		rw.WriteHeader(code)
		fmt.Fprintf(rw, `{"ok":%v}`, code < 300)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) requests() []request {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]request(nil), rc.reqs...)
}

func (rc *receiver) waitFor(t *testing.T, n int, within time.Duration) []request {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		got := rc.requests()
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("receiver: %d requests after %s, want %d", len(got), within, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
