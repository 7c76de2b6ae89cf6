// Command webhookbench measures outbound webhook delivery in process: N
// events of one bot fanned out to E endpoints on a loopback receiver that
// answers 204 at once. It reports the sustained deliveries per second (from
// the first event written to the last delivery received) and the latency
// from an event's commit to its first attempt reaching the receiver (p50,
// p99). It runs the real service (app.New, real clock) on a fresh SQLite
// database, or PostgreSQL (a throwaway cluster, or -database-url). It is not
// part of go test.
//
//	go run ./cmd/webhookbench -engines sqlite,postgres -events 10000 -endpoints 3
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/account"
	"concierge/internal/app"
	"concierge/internal/config"
	"concierge/internal/outbox"
	"concierge/internal/procstat"
	"concierge/internal/testkit"
	"concierge/internal/webhook"
)

func main() {
	engines := flag.String("engines", "sqlite,postgres", "engines to measure")
	events := flag.Int("events", 10000, "events to emit")
	endpoints := flag.Int("endpoints", 3, "endpoints subscribed to every event")
	batch := flag.Int("batch", 50, "events per transaction")
	rate := flag.Int("rate", 0, "events per second to emit (0: as fast as they can be written)")
	dbURL := flag.String("database-url", "", "PostgreSQL server to use instead of a throwaway cluster")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile to this file")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "webhookbench:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	for _, e := range strings.Split(*engines, ",") {
		if err := run(strings.TrimSpace(e), *dbURL, *events, *endpoints, *batch, *rate); err != nil {
			fmt.Fprintln(os.Stderr, "webhookbench:", err)
			pprof.StopCPUProfile()
			os.Exit(1)
		}
	}
}

type receiver struct {
	mu    sync.Mutex
	first map[string]time.Duration // webhook-id → event-to-first-arrival
	total int
	last  time.Time
	done  chan struct{}
	want  int
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	now := time.Now()
	var p struct {
		Data struct {
			T int64 `json:"t"`
		} `json:"data"`
	}
	_ = json.Unmarshal(body, &p)
	id := r.Header.Get("webhook-id")
	rc.mu.Lock()
	if _, seen := rc.first[id]; !seen {
		rc.first[id] = now.Sub(time.Unix(0, p.Data.T))
	}
	rc.total++
	rc.last = now
	if len(rc.first) == rc.want {
		select {
		case <-rc.done:
		default:
			close(rc.done)
		}
	}
	rc.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func run(engine, databaseURL string, events, endpoints, batch, rate int) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "webhookbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	vars := map[string]string{"CONCIERGE_RATE_LIMITS": "off", "CONCIERGE_DATA_DIR": dir, "CONCIERGE_LOG_LEVEL": "warn",
		"CONCIERGE_ARGON2_MEMORY_KIB": "1024", "CONCIERGE_ARGON2_ITERATIONS": "1", "CONCIERGE_OUTBOUND_ALLOW": "127.0.0.1/32"}
	if engine == "postgres" {
		if databaseURL == "" {
			c, err := testkit.StartPostgres()
			if err != nil {
				return err
			}
			defer c.Stop()
			if databaseURL, err = c.CreateDatabase(ctx, "webhookbench"); err != nil {
				return err
			}
		}
		vars["DATABASE_URL"] = databaseURL
	} else if engine != "sqlite" {
		return fmt.Errorf("unknown engine %q", engine)
	}
	cfg, err := config.Load(func(k string) string { return vars[k] })
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	a, err := app.New(ctx, cfg, app.Options{Logger: log})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	sctx, cancel := context.WithCancel(ctx)
	served := make(chan struct{})
	go func() { _ = a.Serve(sctx, ln); close(served) }()
	defer func() { cancel(); <-served; a.Close() }()

	rc := &receiver{first: map[string]time.Duration{}, done: make(chan struct{}), want: events * endpoints}
	rl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	rsrv := &http.Server{Handler: rc, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = rsrv.Serve(rl) }()
	defer rsrv.Close()

	reg, err := a.Accounts.Register(ctx, account.RegisterInput{Email: "bench@example.com", Password: "benchmark password"})
	if err != nil {
		return err
	}
	ws := reg.Workspace.ID
	if err := a.Billing.SetPlan(ctx, ws, "pro"); err != nil {
		return err
	}
	v, err := a.Bots.Create(ctx, ws, map[string]json.RawMessage{"name": json.RawMessage(`"bench"`)})
	if err != nil {
		return err
	}
	for i := 0; i < endpoints; i++ {
		if _, err := a.Webhooks.Create(ctx, ws, webhook.CreateInput{BotID: v.ID,
			URL: fmt.Sprintf("http://%s/hook/%d", rl.Addr(), i), Events: []string{"lead.captured"}}); err != nil {
			return err
		}
	}

	// CPU from here to the last delivery: this process (the service and
	// the receiver, which does little) and the database's backends.
	pgDatabase := ""
	if engine == "postgres" {
		if u, err := url.Parse(databaseURL); err == nil {
			pgDatabase = strings.TrimPrefix(u.Path, "/")
		}
	}
	cpu0, _ := procstat.Self()
	pg0, _ := procstat.PostgresBackends(pgDatabase)
	start := time.Now()
	for sent := 0; sent < events; {
		n := min(batch, events-sent)
		evs := make([]outbox.Event, n)
		for i := range evs {
			evs[i] = outbox.Event{WorkspaceID: ws, BotID: v.ID, Type: "lead.captured",
				Data: map[string]any{"bot_id": v.ID, "seq": sent + i, "t": time.Now().UnixNano()}}
		}
		if err := a.DB.Tx(ctx, func(tx *sqlx.Tx) error { return outbox.AddMany(ctx, tx, a.Clock.Now(), evs) }); err != nil {
			return err
		}
		sent += n
		if rate > 0 {
			if ahead := time.Duration(sent)*time.Second/time.Duration(rate) - time.Since(start); ahead > 0 {
				time.Sleep(ahead)
			}
		}
	}
	emitted := time.Since(start)
	select {
	case <-rc.done:
	case <-time.After(3 * time.Minute):
		rc.mu.Lock()
		got := len(rc.first)
		rc.mu.Unlock()
		return fmt.Errorf("%s: %d of %d messages delivered after 3 minutes", engine, got, events*endpoints)
	}
	cpu1, _ := procstat.Self()
	pg1, pgOK := procstat.PostgresBackends(pgDatabase)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	lat := make([]time.Duration, 0, len(rc.first))
	for _, d := range rc.first {
		lat = append(lat, d)
	}
	slices.Sort(lat)
	elapsed := rc.last.Sub(start)
	pace := "as fast as possible"
	if rate > 0 {
		pace = fmt.Sprintf("at %d events/s", rate)
	}
	fmt.Printf("%s, events %s: %d events × %d endpoints = %d deliveries (%d requests) in %s (events written in %s): %.0f deliveries/s; "+
		"event to first attempt p50 %s, p99 %s, max %s\n", engine, pace, events, endpoints, len(rc.first), rc.total,
		elapsed.Round(time.Millisecond), emitted.Round(time.Millisecond), float64(len(rc.first))/elapsed.Seconds(),
		lat[len(lat)/2].Round(time.Millisecond), lat[len(lat)*99/100].Round(time.Millisecond), lat[len(lat)-1].Round(time.Millisecond))
	if n := time.Duration(len(rc.first)); n > 0 && cpu1 > cpu0 {
		line := fmt.Sprintf("  CPU per delivery: service + receiver %s", ((cpu1 - cpu0) / n).Round(time.Microsecond))
		if pgDatabase != "" && pgOK {
			line += fmt.Sprintf(", PostgreSQL backends %s", ((pg1 - pg0) / n).Round(time.Microsecond))
		}
		fmt.Println(line + " (event writes included)")
	}
	return nil
}
