package webhook_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/app"
	"concierge/internal/outbox"
	"concierge/internal/testkit"
)

// G10: one endpoint hangs, 99 answer at once; events fan out to all 100.
// Every healthy delivery arrives while the hanging endpoint still holds its
// first attempts (so none waited for it), and no more of those are in
// flight than the per-endpoint bound. Latencies are logged, not asserted
// (no timed assertions in unit tests); the timeout has its own tests.
func TestSlowReceiverIsolationG10(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		const perEndpoint = 4
		events := 100
		if raceEnabled {
			events = 20
		}
		w := newWorld(t, e, testkit.WithOptions(func(o *app.Options) {
			o.Webhooks.Timeout = time.Minute
			o.Webhooks.PerEndpoint = perEndpoint
		}))
		if err := w.a.Billing.SetPlan(context.Background(), w.ws, "pro"); err != nil {
			t.Fatal(err)
		}
		release := make(chan struct{})
		// Attempts at the hanging endpoint: in flight now, and the most at
		// once. (Under the race detector a run outlasts the transport's
		// 15 s response-header timeout, and timed-out attempts are retried:
		// the bound is on attempts at once, not in total.)
		var hangingNow, hangingMax, hangingTotal atomic.Int32
		slow := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			hangingTotal.Add(1)
			n := hangingNow.Add(1)
			defer hangingNow.Add(-1)
			for {
				m := hangingMax.Load()
				if n <= m || hangingMax.CompareAndSwap(m, n) {
					break
				}
			}
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}))
		defer slow.Close()
		defer close(release)

		var mu sync.Mutex
		var lat []time.Duration
		emitted := map[string]time.Time{}
		healthy := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			id := r.Header.Get("webhook-id")
			_ = id
			mu.Lock()
			lat = append(lat, time.Since(emitted["start"]))
			mu.Unlock()
		}))
		defer healthy.Close()

		bot := w.bot
		for i := 0; i < 100; i++ {
			if i > 0 && i%25 == 0 {
				bot = w.createBot(t, w.key, fmt.Sprintf("bot %d", i))
			}
			url := fmt.Sprintf("%s/h/%d", healthy.URL, i)
			if i == 0 {
				url = slow.URL + "/hang"
			}
			w.createEndpoint(t, bot, url, "subscription.cancelled")
		}
		baseG := runtime.NumGoroutine()
		mu.Lock()
		now := time.Now()
		emitted["start"] = now
		mu.Unlock()
		// Workspace-level events reach every endpoint of the workspace.
		w.emit(t, w.ws, 0, "subscription.cancelled", events)
		want := 99 * events
		deadline := time.Now().Add(60 * time.Second)
		maxG := 0
		for {
			mu.Lock()
			n := len(lat)
			mu.Unlock()
			maxG = max(maxG, runtime.NumGoroutine())
			if n >= want {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d of %d healthy deliveries after 60 s", n, want)
			}
			time.Sleep(5 * time.Millisecond)
		}
		mu.Lock()
		slices.Sort(lat)
		p50, p99 := lat[len(lat)/2], lat[len(lat)*99/100]
		t.Logf("first delivery after %s, 10%% after %s", lat[0], lat[len(lat)/10])
		mu.Unlock()
		t.Logf("%d healthy deliveries: event-to-delivery p50 %s, p99 %s; hanging endpoint: %d attempts, at most %d at once; goroutines %d → max %d",
			want, p50, p99, hangingTotal.Load(), hangingMax.Load(), baseG, maxG)
		if n := hangingMax.Load(); n != perEndpoint {
			t.Errorf("at most %d attempts at once reached the hanging endpoint while the healthy ones were served, want the bound %d", n, perEndpoint)
		}
	})
}

// The hanging endpoint's attempt ends at the timeout, logged as such.
func TestHangingEndpointTimesOut(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		hangingEndpointTimesOut(t, e, time.Second)
	})
}

// The real 15 s timeout, once.
func TestHangingEndpointRealTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("15 s")
	}
	hangingEndpointTimesOut(t, testkit.SQLite, 0)
}

func hangingEndpointTimesOut(t *testing.T, e testkit.Engine, timeout time.Duration) {
	w := newWorld(t, e, manual(), testkit.WithOptions(func(o *app.Options) { o.Webhooks.Timeout = timeout }))
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer slow.Close()
	defer close(release)
	ep := w.createEndpoint(t, w.bot, slow.URL+"/hang", "lead.captured")
	r := w.a.Do(t, "POST", "/webhooks/"+ep.ID+"/test", nil, "X-API-Key", w.key)
	var out struct {
		DurationMS int64   `json:"duration_ms"`
		Error      *string `json:"error"`
		Succeeded  bool    `json:"succeeded"`
	}
	r.Decode(t, &out)
	want := timeout
	if want == 0 {
		want = 15 * time.Second
	}
	if out.Succeeded || out.Error == nil || *out.Error != "timed out after "+want.String() || out.DurationMS < want.Milliseconds() {
		t.Fatalf("test of a hanging endpoint: %s", r.Body)
	}
	t.Logf("attempt ended after %d ms (timeout %s)", out.DurationMS, want)
}

// A burst whose oldest due messages are all one endpoint's: the claim that
// leases that endpoint's few slots also starts every other endpoint with
// due messages, instead of leaving them for the busy one to drain (here it
// never does: it hangs, and there is no poll).
func TestBurstStartsEveryEndpoint(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		w := newWorld(t, e, testkit.WithOptions(func(o *app.Options) {
			o.Webhooks.Timeout = time.Minute
			o.Webhooks.PerEndpoint = 4
			o.Webhooks.Poll = time.Hour
		}))
		release := make(chan struct{})
		slow := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}))
		defer slow.Close()
		defer close(release)
		got := make(chan string, 10)
		fast := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			got <- r.Header.Get("webhook-id")
		}))
		defer fast.Close()
		other := w.createBot(t, w.key, "other bot")
		w.createEndpoint(t, w.bot, slow.URL+"/hang", "lead.captured")
		w.createEndpoint(t, other, fast.URL+"/ok", "lead.captured")
		// One transaction: the busy bot's 100 events first, then the other's.
		evs := make([]outbox.Event, 0, 101)
		for i := range 100 {
			evs = append(evs, outbox.Event{WorkspaceID: w.ws, BotID: w.bot, Type: "lead.captured", Data: map[string]any{"bot_id": w.bot, "seq": i}})
		}
		evs = append(evs, outbox.Event{WorkspaceID: w.ws, BotID: other, Type: "lead.captured", Data: map[string]any{"bot_id": other}})
		if err := w.a.DB.Tx(context.Background(), func(tx *sqlx.Tx) error {
			return outbox.AddMany(context.Background(), tx, w.a.Clock.Now(), evs)
		}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-got:
		case <-time.After(10 * time.Second):
			t.Fatal("the other endpoint's message waited behind the busy endpoint's backlog")
		}
	})
}
