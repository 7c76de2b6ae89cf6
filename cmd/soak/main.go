// Command soak runs the whole service as in production, on loopback only,
// under a mixed load with faults injected on a schedule, then checks the
// invariants that must survive them (issue 18): PostgreSQL, Redis, several
// "concierge serve" replicas behind a round-robin proxy, a fake model
// server, a local website to crawl, a webhook receiver and an SMTP server;
// sign-ups, bots, uploads, crawls, chats, leads, follow-ups, hand-offs,
// webhooks, analytics reads, key rotations and bot deletions; kill -9 of
// replicas, a PostgreSQL restart, Redis stopped, the model, the webhook
// receiver and the SMTP server failing for a while. It prints the requests
// by kind with their latency outside and during faults, the faults, the
// recovery times and the invariants, and exits 1 when one does not hold.
//
//	go run ./cmd/soak -d 10m
package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"
)

type options struct {
	duration time.Duration
	seed     uint64
	replicas int
	users    int
	drain    time.Duration
	verbose  bool
	keep     bool
	noFaults bool
	noReuse  bool
}

func main() {
	var o options
	flag.DurationVar(&o.duration, "d", 10*time.Minute, "how long the load runs (faults are scheduled over it)")
	flag.Uint64Var(&o.seed, "seed", uint64(time.Now().UnixNano()), "seed of the load's and the faults' choices")
	flag.IntVar(&o.replicas, "replicas", 3, "concierge serve replicas behind the proxy")
	flag.IntVar(&o.users, "users", 8, "concurrent virtual users")
	flag.DurationVar(&o.drain, "drain", 2*time.Minute, "longest wait after the load for jobs and deliveries to finish")
	flag.BoolVar(&o.verbose, "v", false, "log progress and faults as they happen")
	flag.BoolVar(&o.keep, "keep", false, "keep the working directory (logs of every process)")
	flag.BoolVar(&o.noFaults, "no-faults", false, "run the load without faults (a baseline)")
	flag.BoolVar(&o.noReuse, "proxy-no-keepalive", false, "the proxy opens a new connection to a replica for every request")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ok, err := run(ctx, o, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(2)
	}
	if !ok {
		os.Exit(1)
	}
}

// run sets everything up, drives the load with its faults, checks the
// invariants and prints the report. ok is false when an invariant failed.
func run(ctx context.Context, o options, out io.Writer) (ok bool, err error) {
	if o.replicas < 1 || o.duration <= 0 || o.users < 1 {
		return false, errors.New("need -replicas ≥ 1, -users ≥ 1 and -d > 0")
	}
	logf := func(format string, a ...any) {
		if o.verbose {
			fmt.Fprintf(os.Stderr, "%s soak: %s\n", time.Now().Format("15:04:05.000"), fmt.Sprintf(format, a...))
		}
	}
	dir, err := os.MkdirTemp("", "concierge-soak-")
	if err != nil {
		return false, err
	}
	if err := os.Chmod(dir, 0o755); err != nil { // the postgres user enters it
		return false, err
	}
	var cleanups []func()
	defer func() {
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
		if o.keep || !ok {
			fmt.Fprintf(out, "logs kept in %s\n", dir)
		} else {
			os.RemoveAll(dir)
		}
	}()

	// Build while PostgreSQL starts.
	type built struct {
		bin string
		err error
	}
	bc := make(chan built, 1)
	go func() { bin, err := buildConcierge(dir); bc <- built{bin, err} }()
	logf("starting PostgreSQL and Redis in %s", dir)
	pg, err := startPostgres(dir)
	if err != nil {
		<-bc
		return false, err
	}
	cleanups = append(cleanups, pg.close)
	dbURL, err := pg.createDatabase("soak")
	if err != nil {
		<-bc
		return false, err
	}
	rd, err := startRedis(dir)
	if err != nil {
		<-bc
		return false, err
	}
	cleanups = append(cleanups, rd.stop)
	b := <-bc
	if b.err != nil {
		return false, b.err
	}

	tb := &fakeTB{}
	cleanups = append(cleanups, tb.close)
	mdl := startModel(tb)
	smtpSrv, err := startSMTP()
	if err != nil {
		return false, err
	}
	cleanups = append(cleanups, smtpSrv.close)
	hooks, err := startReceiver()
	if err != nil {
		return false, err
	}
	cleanups = append(cleanups, hooks.close)
	dns, err := startDNS()
	if err != nil {
		return false, err
	}
	cleanups = append(cleanups, dns.close)
	web, err := startSite()
	if err != nil {
		return false, err
	}
	cleanups = append(cleanups, web.close)

	key := make([]byte, 32)
	_, _ = rand.Read(key)
	base := append(os.Environ(),
		"DATABASE_URL="+dbURL, "REDIS_URL="+rd.url(), "CONCIERGE_SECRET_KEY="+hex.EncodeToString(key),
		"CONCIERGE_SMTP_URL="+smtpSrv.url(), "CONCIERGE_OUTBOUND_ALLOW=127.0.0.1/32", "CONCIERGE_TRUSTED_PROXIES=127.0.0.1/32",
		"CONCIERGE_LOG_LEVEL=warn", "CONCIERGE_ARGON2_MEMORY_KIB=1024", "CONCIERGE_ARGON2_ITERATIONS=1",
		"CONCIERGE_JOB_LEASE=10s", "CONCIERGE_SHUTDOWN_TIMEOUT=5s", "CONCIERGE_DB_MAX_CONNS=10", "CONCIERGE_WORKERS=3",
		"CONCIERGE_LLM_TIMEOUT=8s", "CONCIERGE_DNS_SERVER="+dns.addr(),
		// Time compressed so that every retry and every settle job falls
		// within the run: webhook attempts 0, 1, 2, 4, 8, 15, 30 s apart
		// (a 3 s receiver outage costs two), a reply bounded to 20 s and
		// settled 30 s after it began when its process died.
		"CONCIERGE_WEBHOOK_RETRY_SCHEDULE=0s,1s,2s,4s,8s,15s,30s,30s", "CONCIERGE_REPLY_TIMEOUT=20s",
		"CONCIERGE_SETTLE_AFTER=30s")
	// Rate limits stay on (counted in Redis), high enough for one client
	// address to drive the whole load.
	for _, class := range []string{"READ", "WRITE", "CHAT", "INGEST", "PREVIEW_COST", "CRAWL", "DISCOVER", "AUTH", "SIGNUP",
		"BILLING", "PUBLIC", "LOGIN_ACCOUNT"} {
		base = append(base, "CONCIERGE_RATE_LIMIT_"+class+"=1000000/m")
	}
	// Replica 0 answers with the extractive answerer, the others with the
	// fake model: chats go through both.
	modelEnv := []string{"CONCIERGE_LLM_PROVIDER=openai", "CONCIERGE_LLM_BASE_URL=" + mdl.srv.URL,
		"CONCIERGE_LLM_API_KEY=" + mdl.srv.APIKey, "CONCIERGE_LLM_MODEL=fake-model"}
	var reps []*replica
	var addrs []string
	for i := range o.replicas {
		port, err := freePort()
		if err != nil {
			return false, err
		}
		rp := &replica{idx: i, addr: fmt.Sprintf("127.0.0.1:%d", port), bin: b.bin, env: base, dir: filepath.Join(dir, fmt.Sprintf("replica%d", i))}
		if i > 0 {
			rp.env = append(append([]string(nil), base...), modelEnv...)
		}
		if err := os.MkdirAll(rp.dir, 0o755); err != nil {
			return false, err
		}
		reps = append(reps, rp)
		addrs = append(addrs, rp.addr)
	}
	cleanups = append(cleanups, func() {
		var wg sync.WaitGroup
		for _, rp := range reps {
			if p := rp.proc(); p != nil {
				wg.Add(1)
				go func() { defer wg.Done(); p.stop(syscall.SIGTERM, 15*time.Second) }()
			}
		}
		wg.Wait()
	})
	// The first replica migrates the database; the others start after it.
	logf("starting %d replicas: %s", len(reps), strings.Join(addrs, " "))
	if err := reps[0].start(ctx); err != nil {
		return false, err
	}
	var wg sync.WaitGroup
	errs := make([]error, len(reps))
	for i, rp := range reps[1:] {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i+1] = rp.start(ctx) }()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return false, err
	}
	rr, handler := newProxy(addrs, !o.noReuse)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return false, err
	}
	psrv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = psrv.Serve(ln) }()
	cleanups = append(cleanups, func() { _ = psrv.Close() })
	proxyURL := "http://" + ln.Addr().String()

	rec := &recorder{}
	c := &client{base: proxyURL, http: &http.Client{Timeout: 60 * time.Second}, rec: rec}
	// The probe's workspace, also used to read the event types.
	res := c.do(ctx, call{kind: "setup", method: "POST", path: "/auth/register", ws: -1,
		body: mustJSON(map[string]string{"email": "probe@gmail.com", "password": password})})
	var reg struct {
		APIKey string `json:"api_key"`
	}
	if !res.ok() || !decode(res.body, &reg) {
		return false, fmt.Errorf("register the probe workspace: %d %s %v", res.status, res.body, res.err)
	}
	res = c.do(ctx, call{kind: "setup", method: "GET", path: "/webhooks/event-types", cred: "X-API-Key", value: reg.APIKey, ws: -1})
	var et struct {
		Items []struct {
			Type string `json:"type"`
		} `json:"items"`
	}
	if !res.ok() || !decode(res.body, &et) {
		return false, fmt.Errorf("event types: %d %s", res.status, res.body)
	}
	var events []string
	for _, it := range et.Items {
		if it.Type != "webhook.test" {
			events = append(events, it.Type)
		}
	}

	l := &load{c: c, site: web.url(), hooks: hooks.base(), events: events, acks: &acks{charged: map[int]int64{}}}
	fs := &faults{}
	var probes []probeSample
	var pmu sync.Mutex
	lctx, cancel := context.WithTimeout(ctx, o.duration)
	defer cancel()
	pctx, pcancel := context.WithCancel(ctx)
	defer pcancel()
	var pwg sync.WaitGroup
	pwg.Add(1)
	go func() { defer pwg.Done(); runProbe(pctx, proxyURL, reg.APIKey, &probes, &pmu) }()
	logf("load: %d users for %s through %s (seed %d)", o.users, o.duration, proxyURL, o.seed)
	loadStart := time.Now()
	fdone := make(chan struct{})
	e := &env{pg: pg, redis: rd, replicas: reps, model: mdl, smtp: smtpSrv, hooks: hooks}
	go func() {
		defer close(fdone)
		if !o.noFaults {
			schedule(lctx, e, o.duration, o.seed, fs, logf)
		}
	}()
	l.run(lctx, o.users, o.seed)
	loadEnd := time.Now()
	<-fdone
	// Whatever a cancelled fault left down comes back before the checks.
	for _, rp := range reps {
		if p := rp.proc(); p == nil || !p.running() {
			_ = rp.start(context.WithoutCancel(ctx))
		}
	}
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	logf("load over after %s; draining", loadEnd.Sub(loadStart).Round(time.Second))
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		return false, err
	}
	defer db.Close()
	// Bots whose deletion answer was lost are deleted again (idempotent).
	l.acks.mu.Lock()
	deleted := append([]int64(nil), l.acks.deleted...)
	l.acks.mu.Unlock()
	for _, id := range deleted {
		for _, bt := range l.acks.bots {
			if bt.id == id {
				bt.ws.mu.RLock()
				c.do(ctx, call{kind: "check", method: "DELETE", path: fmt.Sprintf("/bots/%d", id), cred: "X-API-Key", value: bt.ws.key, ws: bt.ws.idx})
				bt.ws.mu.RUnlock()
			}
		}
	}
	drained := drain(ctx, db, o.drain, logf)
	pcancel()
	pwg.Wait()

	writeSamples(filepath.Join(dir, "samples.csv"), rec.snapshot())
	ck := &checker{db: db, c: c, acks: l.acks, rec: rec, hook: hooks, smtp: smtpSrv, dbURL: dbURL}
	invs := ck.all(ctx, l)
	windows := fs.list()
	invs = append(invs, recoveryInvariant(windows, probes))
	ok = report(out, o, rec, windows, probes, invs, rr, mdl, loadEnd.Sub(loadStart), drained, len(l.wss))
	return ok, nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// normalLatency is the probe's p99 outside faults, with a floor.
func normalLatency(ws []window, probes []probeSample) time.Duration {
	var d []time.Duration
	f := &faults{}
	for _, p := range probes {
		if p.status == http.StatusOK && !f.during(ws, p.at, p.at.Add(p.lat)) {
			d = append(d, p.lat)
		}
	}
	return max(2*percentile(d, 0.99), 50*time.Millisecond)
}

func recoveryInvariant(ws []window, probes []probeSample) *invariant {
	iv := &invariant{name: "recovery to normal latency within 10 s of PostgreSQL coming back"}
	normal := normalLatency(ws, probes)
	for _, w := range ws {
		if !strings.HasPrefix(w.name, "PostgreSQL") {
			continue
		}
		iv.checked++
		if w.err != nil {
			iv.fail("PostgreSQL did not come back: %v", w.err)
			continue
		}
		d, ok := recovery(w, probes, normal)
		if !ok || d > 10*time.Second {
			iv.fail("not recovered within 10 s (normal ≤ %s)", normal.Round(time.Millisecond))
		}
		// During the outage the probe must see 503 with Retry-After (or
		// 200 from a cached path), never another status.
		for _, p := range probes {
			if p.at.After(w.start) && p.at.Before(w.end) && p.status != 200 && !(p.status == 503 && p.retry) && p.status != 502 {
				iv.fail("during the restart the probe got %d (Retry-After %v)", p.status, p.retry)
			}
		}
	}
	return iv
}

func report(out io.Writer, o options, rec *recorder, ws []window, probes []probeSample, invs []*invariant, rr *roundRobin,
	mdl *model, loadTook, drained time.Duration, workspaces int) bool {
	samples := rec.snapshot()
	f := &faults{}
	fmt.Fprintf(out, "\nsoak: %d replicas, %d users, load %s (seed %d), drain %s, %d workspaces, %d requests (%.1f/s)\n\n",
		o.replicas, o.users, loadTook.Round(time.Second), o.seed, drained.Round(time.Second), workspaces, len(samples),
		float64(len(samples))/loadTook.Seconds())

	type agg struct {
		n, ok, c4, c5, proxy, errs int
		out, in                    []time.Duration
		statuses                   map[int]int
	}
	by := map[string]*agg{}
	for _, s := range samples {
		a := by[s.kind]
		if a == nil {
			a = &agg{statuses: map[int]int{}}
			by[s.kind] = a
		}
		a.n++
		switch {
		case s.proxy:
			a.proxy++
		case s.status == 0:
			a.errs++
		case s.status < 300:
			a.ok++
		case s.status < 500:
			a.c4++
			a.statuses[s.status]++
		default:
			a.c5++
			a.statuses[s.status]++
		}
		if s.status > 0 && !s.proxy {
			if f.during(ws, s.start, s.start.Add(s.lat)) {
				a.in = append(a.in, s.lat)
			} else {
				a.out = append(a.out, s.lat)
			}
		}
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kind\trequests\t2xx\t4xx\t5xx\tcut/proxy\tno answer\tp50 out\tp99 out\tp50 faults\tp99 faults\tother statuses\t")
	kinds := sortedKeys(by)
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000) }
	for _, k := range kinds {
		a := by[k]
		var st []string
		for code, n := range a.statuses {
			st = append(st, fmt.Sprintf("%d×%d", n, code))
		}
		sort.Strings(st)
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t\n", k, a.n, a.ok, a.c4, a.c5, a.proxy, a.errs,
			ms(percentile(a.out, 0.5)), ms(percentile(a.out, 0.99)), ms(percentile(a.in, 0.5)), ms(percentile(a.in, 0.99)),
			strings.Join(st, " "))
	}
	tw.Flush()

	fmt.Fprintf(out, "\nfaults injected (%d; requests rerouted by the proxy after a refused connection: %d; model faults: "+
		"500×%d 429×%d hang×%d cut×%d)\n", len(ws), rr.rerouted.Load(), mdl.faults[0].Load(), mdl.faults[1].Load(),
		mdl.faults[2].Load(), mdl.faults[3].Load())
	normal := normalLatency(ws, probes)
	sort.Slice(ws, func(i, j int) bool { return ws[i].start.Before(ws[j].start) })
	var t0 time.Time
	if len(samples) > 0 {
		t0 = samples[0].start
	}
	tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  at\tfault\tlasted\trecovered after\t")
	for _, w := range ws {
		rec := "-"
		if d, ok := recovery(w, probes, normal); ok {
			rec = d.Round(time.Millisecond).String()
		}
		if w.err != nil {
			rec = "DID NOT COME BACK: " + excerpt(w.err.Error(), 200)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t\n", w.start.Sub(t0).Round(time.Second), w.name, w.end.Sub(w.start).Round(time.Millisecond), rec)
	}
	tw.Flush()
	fmt.Fprintf(out, "  (recovered: first of three probe answers in a row that are 200 within %s, the probe's normal p99 ×2)\n",
		normal.Round(time.Millisecond))

	fmt.Fprintln(out, "\ninvariants")
	ok := true
	tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	for _, iv := range invs {
		verdict := "PASS"
		if iv.failed > 0 {
			verdict, ok = "FAIL", false
		}
		fmt.Fprintf(tw, "  %s\t%s\tchecked %d\tfailed %d\t\n", verdict, iv.name, iv.checked, iv.failed)
	}
	tw.Flush()
	for _, iv := range invs {
		if len(iv.notes) == 0 {
			continue
		}
		fmt.Fprintf(out, "  %s:\n", iv.name)
		for _, n := range iv.notes {
			fmt.Fprintf(out, "    %s\n", n)
		}
	}
	if ok {
		fmt.Fprintln(out, "\nsoak: every invariant holds")
	} else {
		fmt.Fprintln(out, "\nsoak: INVARIANTS BROKEN")
	}
	return ok
}

// writeSamples keeps every request's outcome for a closer look (-keep).
func writeSamples(path string, samples []sample) {
	f, err := os.Create(path)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintln(f, "start_unix_ms,kind,status,proxy,replica,latency_ms")
	for _, s := range samples {
		fmt.Fprintf(f, "%d,%s,%d,%v,%d,%.1f\n", s.start.UnixMilli(), s.kind, s.status, s.proxy, s.replica, float64(s.lat.Microseconds())/1000)
	}
}
