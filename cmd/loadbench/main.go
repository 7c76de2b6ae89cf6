// Command loadbench measures authenticated GET /auth/me against concierge
// (on SQLite and on PostgreSQL) beside a bare net/http JSON handler, each
// server in its own process on loopback, and prints a Markdown table.
// With -scenario chat it measures POST /chat instead: the extractive
// answerer on a bot of -passages passages, beside a bare handler that
// decodes the question and encodes a canned reply of the same shape.
//
//	go run ./cmd/loadbench -c 64 -d 10s
//	go run ./cmd/loadbench -targets bare,sqlite -access-log
//	go run ./cmd/loadbench -scenario chat -passages 10000
//
// It is a tool, not a test: nothing here runs under go test.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// serveBareFlag re-execs this binary as the bare server; it is not a
// user-facing flag, so it is checked before flag parsing and not listed.
const serveBareFlag = "-serve-bare"

type options struct {
	conns       int
	duration    time.Duration
	warmup      time.Duration
	targets     []string
	bin         string
	databaseURL string
	accessLog   bool
	gomaxprocs  int
	waitQuiet   time.Duration
	scenario    string
	passages    int
	keys        int
	visitors    int
	rate        int
}

// Scenarios.
const (
	scenarioAuthMe = "auth-me"
	scenarioChat   = "chat"
	scenarioLive   = "livechat"
)

func main() {
	if len(os.Args) == 3 && os.Args[1] == serveBareFlag {
		if err := serveBare(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "loadbench bare server:", err)
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "loadbench:", err)
		}
		os.Exit(1)
	}
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("loadbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&o.conns, "c", 64, "concurrent connections (one goroutine each)")
	fs.DurationVar(&o.duration, "d", 10*time.Second, "measured duration per target")
	fs.DurationVar(&o.warmup, "warmup", 2*time.Second, "warm-up per target, discarded")
	targets := fs.String("targets", "bare,sqlite,postgres", "comma list of targets: bare, sqlite, postgres")
	fs.StringVar(&o.bin, "bin", "", "concierge binary (default: go build ./cmd/concierge into a temp dir)")
	fs.StringVar(&o.databaseURL, "database-url", "", "PostgreSQL server to use instead of a throwaway cluster")
	fs.BoolVar(&o.accessLog, "access-log", false, "keep concierge's per-request access log on (at level info)")
	fs.IntVar(&o.gomaxprocs, "gomaxprocs", 0, "GOMAXPROCS for the server processes (0: unset)")
	fs.DurationVar(&o.waitQuiet, "wait-quiet", 0, "before each target, wait up to this long for the machine to be idle (shared machines)")
	fs.StringVar(&o.scenario, "scenario", scenarioAuthMe, "what to load: auth-me (GET /auth/me), chat (POST /chat on a bot of -passages passages) "+
		"or livechat (-visitors visitor streams and 50 operator streams, -rate messages/s both ways; postgres: two replicas)")
	fs.IntVar(&o.visitors, "visitors", 1000, "livechat scenario: open visitor streams (one handed-off conversation each)")
	fs.IntVar(&o.rate, "rate", 200, "livechat scenario: messages per second, half each way")
	fs.IntVar(&o.passages, "passages", 10000, "chat scenario: passages in the bot's knowledge base")
	fs.IntVar(&o.keys, "keys", 1, "auth-me scenario: register this many workspaces and spread the connections over their keys")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	if o.conns < 1 || o.conns > 10000 {
		return o, fmt.Errorf("-c %d: want 1..10000", o.conns)
	}
	if o.duration <= 0 || o.warmup < 0 {
		return o, errors.New("-d must be positive and -warmup not negative")
	}
	if o.bin != "" {
		abs, err := filepath.Abs(o.bin) // servers run in their own directories
		if err != nil {
			return o, err
		}
		o.bin = abs
	}
	if o.gomaxprocs < 0 {
		return o, errors.New("-gomaxprocs must not be negative")
	}
	if o.scenario != scenarioAuthMe && o.scenario != scenarioChat && o.scenario != scenarioLive {
		return o, fmt.Errorf("-scenario %q: want %s, %s or %s", o.scenario, scenarioAuthMe, scenarioChat, scenarioLive)
	}
	if o.visitors < 1 || o.visitors > 20000 || o.rate < 1 || o.rate > 10000 {
		return o, errors.New("-visitors wants 1..20000 and -rate 1..10000")
	}
	if o.keys < 1 || o.keys > o.conns {
		return o, fmt.Errorf("-keys %d: want 1..-c", o.keys)
	}
	if o.passages < 1 || o.passages > 1_000_000 {
		return o, fmt.Errorf("-passages %d: want 1..1000000", o.passages)
	}
	seen := map[string]bool{}
	for _, t := range strings.Split(*targets, ",") {
		t = strings.TrimSpace(t)
		switch t {
		case "bare", "sqlite", "postgres":
			seen[t] = true
		case "":
		default:
			return o, fmt.Errorf("-targets: unknown target %q (want bare, sqlite, postgres)", t)
		}
	}
	for _, t := range []string{"bare", "sqlite", "postgres"} { // fixed run order
		if seen[t] {
			o.targets = append(o.targets, t)
		}
	}
	if len(o.targets) == 0 {
		return o, errors.New("-targets: nothing to run")
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	logf := func(format string, a ...any) {
		fmt.Fprintf(stderr, "loadbench: "+format+"\n", a...)
	}
	tmp, err := os.MkdirTemp("", "loadbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	needConcierge := len(o.targets) > 1 || o.targets[0] != "bare"
	serverVersion := ""
	if needConcierge {
		built := o.bin == ""
		if built {
			if o.bin, err = buildConcierge(ctx, tmp, logf); err != nil {
				return err
			}
		}
		serverVersion = conciergeVersion(ctx, o.bin, built)
	}

	var results []result
	for _, target := range o.targets {
		if o.waitQuiet > 0 {
			waitQuiet(ctx, o.waitQuiet, logf)
		}
		var r result
		if o.scenario == scenarioLive {
			if target == "bare" {
				continue // no bare live chat to compare with
			}
			r, err = runLiveChat(ctx, o, target, tmp, logf)
		} else {
			r, err = runTarget(ctx, o, target, tmp, logf)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", target, err)
		}
		results = append(results, r)
	}
	printReport(stdout, o, results, serverVersion)
	return nil
}

// runTarget starts the target's server, loads it and stops it again.
func runTarget(ctx context.Context, o options, target, tmp string, logf func(string, ...any)) (result, error) {
	dir, err := os.MkdirTemp(tmp, target+"-")
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(dir)
	env := serverEnv(o)
	var srv *server
	switch target {
	case "bare":
		self, err := os.Executable()
		if err != nil {
			return result{}, err
		}
		srv, err = startServer(ctx, "bare", self, func(addr string) []string { return []string{serveBareFlag, addr} },
			env, dir)
		if err != nil {
			return result{}, err
		}
	default:
		env = append(env, "CONCIERGE_DATA_DIR="+filepath.Join(dir, "data"))
		if target == "postgres" {
			url, cleanup, err := postgresDatabase(ctx, o.databaseURL, logf)
			if err != nil {
				return result{}, err
			}
			defer cleanup()
			env = append(env, "DATABASE_URL="+url)
		}
		srv, err = startServer(ctx, target, o.bin, func(string) []string { return []string{"serve"} }, env, dir)
		if err != nil {
			return result{}, err
		}
	}
	defer srv.stop(logf)
	logf("%s: server pid %d on %s", target, srv.cmd.Process.Pid, srv.addr)

	if err := srv.waitReady(ctx, 30*time.Second); err != nil {
		return result{}, err
	}
	pid := srv.cmd.Process.Pid
	pgDatabase := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "DATABASE_URL="); ok {
			if u, err := url.Parse(v); err == nil {
				pgDatabase = strings.TrimPrefix(u.Path, "/")
			}
		}
	}
	sample := func() cpuSnap { return snapCPU(pid, pgDatabase) }
	if o.scenario == scenarioChat {
		return runChat(ctx, o, target, srv, env, dir, logf, sample)
	}
	keys := make([]string, o.keys)
	n := 0
	for i := range keys {
		keys[i] = fmt.Sprintf("bare-key-%d", i)
		if target != "bare" {
			if keys[i], _, err = register(ctx, srv.base()); err != nil {
				return result{}, srv.withLog(err)
			}
		}
		if n, err = probe(ctx, srv.base(), keys[i]); err != nil {
			return result{}, srv.withLog(err)
		}
	}
	logf("%s: GET /auth/me answers 200 with %d body bytes; warm-up %s, then measuring %s at %d connections over %d keys",
		target, n, o.warmup, o.duration, o.conns, len(keys))
	r, err := load(ctx, getWorkload(srv.base()+"/auth/me", keys, o.conns), o.conns, o.warmup, o.duration, sample)
	if err != nil {
		return result{}, err
	}
	r.target, r.bodyBytes = target, n
	logf("%s: %.0f req/s, p50 %s, p99 %s, non-200 %d, errors %d",
		target, r.rps(), fmtDur(r.p50), fmtDur(r.p99), r.non200, r.errors)
	if r.errors > 0 {
		logf("%s: first transport error: %v", target, r.firstErr)
	}
	return r, nil
}

// runChat sets up the chat scenario on a started server and loads it.
func runChat(ctx context.Context, o options, target string, srv *server, env []string, dir string,
	logf func(string, ...any), sample func() cpuSnap) (result, error) {
	bodies := chatRequestBodies(o.passages)
	botKey := "bare-bot-key"
	var cs *chatSetup
	if target == "bare" {
		if err := call(ctx, http.MethodPost, srv.base()+"/chat", "X-Bot-Key", botKey, bodies[0], http.StatusOK, nil); err != nil {
			return result{}, srv.withLog(err)
		}
	} else {
		var err error
		if cs, err = setupChat(ctx, o, srv.base(), env, dir, logf); err != nil {
			return result{}, srv.withLog(err)
		}
		botKey = cs.botKey
	}
	logf("%s: POST /chat with %d rotating questions; warm-up %s, then measuring %s at %d connections",
		target, len(bodies), o.warmup, o.duration, o.conns)
	r, err := load(ctx, chatWorkload(srv.base()+"/chat", botKey, bodies, o.conns), o.conns, o.warmup, o.duration, sample)
	if err != nil {
		return result{}, err
	}
	r.target = target
	if cs != nil {
		after, err := balance(ctx, srv.base(), cs.apiKey)
		if err != nil {
			return result{}, srv.withLog(err)
		}
		r.chat = &chatStats{documents: cs.documents, passages: cs.passages, ingestTook: cs.ingestTook,
			creditsSpent: cs.balance - after}
	}
	logf("%s: %.0f req/s, p50 %s, p99 %s, non-200 %d, errors %d, answered %d of %d",
		target, r.rps(), fmtDur(r.p50), fmtDur(r.p99), r.non200, r.errors, r.answered, r.ok)
	if r.errors > 0 {
		logf("%s: first transport error: %v", target, r.firstErr)
	}
	if r.chat != nil {
		logf("%s: credits spent %d, answered replies in the whole run %d (of %d)", target, r.chat.creditsSpent, r.allAnswered, r.all200)
		if r.chat.creditsSpent != int64(r.allAnswered) {
			logf("%s: WARNING: the credits spent differ from the replies delivered", target)
		}
	}
	return r, nil
}

// serverEnv is the environment of every server process: ours minus any
// concierge or database settings, plus the benchmark's.
func serverEnv(o options) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "CONCIERGE_") || k == "DATABASE_URL" || k == "REDIS_URL" ||
			(k == "GOMAXPROCS" && o.gomaxprocs > 0) {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "CONCIERGE_RATE_LIMITS=off")
	if o.accessLog {
		// The access log writes at INFO; at warn it would be filtered out.
		env = append(env, "CONCIERGE_ACCESS_LOG=true", "CONCIERGE_LOG_LEVEL=info")
	} else {
		env = append(env, "CONCIERGE_ACCESS_LOG=false", "CONCIERGE_LOG_LEVEL=warn")
	}
	if o.gomaxprocs > 0 {
		env = append(env, fmt.Sprintf("GOMAXPROCS=%d", o.gomaxprocs))
	}
	return env
}

func printReport(w io.Writer, o options, results []result, serverVersion string) {
	if o.scenario == scenarioLive {
		printLiveChat(w, o, results)
		fmt.Fprintf(w, "\nMachine: NumCPU=%d, %s %s/%s, %s UTC; concierge %s\n", runtime.NumCPU(), runtime.Version(),
			runtime.GOOS, runtime.GOARCH, time.Now().UTC().Format("2006-01-02 15:04"), serverVersion)
		return
	}
	var bare *result
	for i := range results {
		if results[i].target == "bare" {
			bare = &results[i]
		}
	}
	chat := o.scenario == scenarioChat
	if chat {
		fmt.Fprintln(w, "| target | req/s | p50 | p99 | non-200 | errors | % of bare | answered | body |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	} else {
		fmt.Fprintln(w, "| target | req/s | p50 | p99 | non-200 | errors | % of bare |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|")
	}
	for _, r := range results {
		pct := "n/a"
		if bare != nil && bare.rps() > 0 {
			pct = fmt.Sprintf("%.1f%%", 100*r.rps()/bare.rps())
		}
		fmt.Fprintf(w, "| %s | %.0f | %s | %s | %d | %d | %s |",
			r.target, r.rps(), fmtDur(r.p50), fmtDur(r.p99), r.non200, r.errors, pct)
		if chat {
			answered, body := "n/a", "n/a"
			if r.ok > 0 {
				answered = fmt.Sprintf("%.1f%%", 100*float64(r.answered)/float64(r.ok))
				body = fmt.Sprintf("%d B", r.okBytes/int64(r.ok))
			}
			fmt.Fprintf(w, " %s | %s |", answered, body)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	printCPU(w, results)
	if chat {
		printChat(w, results)
	}
	srvProcs := "unset"
	if o.gomaxprocs > 0 {
		srvProcs = fmt.Sprint(o.gomaxprocs)
	}
	logSetting := "CONCIERGE_ACCESS_LOG=false"
	if o.accessLog {
		logSetting = "CONCIERGE_ACCESS_LOG=true (CONCIERGE_LOG_LEVEL=info)"
	}
	fmt.Fprintf(w, "Machine: generator GOMAXPROCS=%d, NumCPU=%d, %s %s/%s, %s UTC; server GOMAXPROCS %s; %s; "+
		"%d connections, warm-up %s, measured %s per target",
		runtime.GOMAXPROCS(0), runtime.NumCPU(), runtime.Version(), runtime.GOOS, runtime.GOARCH,
		time.Now().UTC().Format("2006-01-02 15:04"), srvProcs, logSetting, o.conns, o.warmup, o.duration)
	if !chat {
		fmt.Fprintf(w, "; %d workspace key(s) (-keys)", o.keys)
	}
	if chat {
		fmt.Fprintf(w, "; POST /chat, %d rotating questions, bot of %d passages (-passages), extractive answerer",
			chatQuestionCount, o.passages)
	}
	if serverVersion != "" {
		fmt.Fprintf(w, "; %s", serverVersion)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "\nCommand: `%s`\n", commandLine())
}

// commandLine is how this process was started, shown as `go run` when it
// runs from go run's build cache.
func commandLine() string {
	name := filepath.Base(os.Args[0])
	if exe, err := os.Executable(); err == nil && strings.Contains(exe, "go-build") {
		name = "go run ./cmd/loadbench"
	}
	parts := []string{name}
	for _, a := range os.Args[1:] {
		a = redactPassword(a)
		if a == "" || strings.ContainsAny(a, " \t\"'$`\\*?&;|<>()") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

// redactPassword hides the password of a URL argument (-database-url).
func redactPassword(arg string) string {
	prefix, rest := "", arg
	if k, v, ok := strings.Cut(arg, "="); ok && strings.HasPrefix(k, "-") {
		prefix, rest = k+"=", v
	}
	u, err := url.Parse(rest)
	if err != nil || u.User == nil {
		return arg
	}
	if _, ok := u.User.Password(); !ok {
		return arg
	}
	return prefix + u.Redacted()
}

// printChat shows each concierge target's knowledge base and checks that
// the credits spent equal the replies delivered.
func printChat(w io.Writer, results []result) {
	fmt.Fprintln(w, "| target | documents | passages | indexed in | credits spent | answered replies (whole run) | equal |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---|")
	for _, r := range results {
		c := r.chat
		if c == nil {
			continue
		}
		equal := "yes"
		if c.creditsSpent != int64(r.allAnswered) {
			equal = fmt.Sprintf("**no** (%+d)", c.creditsSpent-int64(r.allAnswered))
		}
		fmt.Fprintf(w, "| %s | %d | %d | %.1f s | %d | %d | %s |\n", r.target, c.documents, c.passages,
			c.ingestTook.Seconds(), c.creditsSpent, r.allAnswered, equal)
	}
	fmt.Fprintln(w, "\n(answered: share of the measured 200s whose reply was grounded in the knowledge, not \"I don't know\"; "+
		"body: mean 200 body size; credits: balance before the load minus after it, against every 200 of the load: "+
		"warm-up, measured period and the requests in flight at its end)")
	fmt.Fprintln(w)
}

// printCPU shows where the machine's CPU went during each measured period.
func printCPU(w io.Writer, results []result) {
	var bareOwn time.Duration
	for _, r := range results {
		if r.target == "bare" && r.cpu.ok {
			bareOwn = r.cpu.ownPerReq
		}
	}
	fmt.Fprintln(w, "| target | server cores | postgres cores | other cores | generator cores | server CPU/req | server+postgres CPU/req | server+other CPU/req | own CPU/req | % of bare by own CPU |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range results {
		c := r.cpu
		if !c.ok {
			fmt.Fprintf(w, "| %s | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a |\n", r.target)
			continue
		}
		pgCores, withPG := "-", "-"
		if c.pgOK {
			pgCores, withPG = fmtCores(c.pg), fmt.Sprintf("%d µs", c.withPG.Microseconds())
		}
		byCPU := "-"
		if bareOwn > 0 && c.ownPerReq > 0 {
			byCPU = fmt.Sprintf("%.1f%%", 100*bareOwn.Seconds()/c.ownPerReq.Seconds())
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %d µs | %s | %d µs | %d µs | %s |\n", r.target, fmtCores(c.server), pgCores,
			fmtCores(c.other), fmtCores(c.generator), c.serverPerReq.Microseconds(), withPG, c.withOther.Microseconds(),
			c.ownPerReq.Microseconds(), byCPU)
	}
	fmt.Fprintln(w, "\n(cores: CPU seconds per wall second during the measured period, from /proc; "+
		"postgres: the backends connected to the benchmark's database, found by process title; "+
		"other: every process but the server and the generator, e.g. PostgreSQL, other load, plus softirq; "+
		"own: server + generator + postgres backends per 200 response; '% of bare by own CPU' estimates the req/s "+
		"ratio on an otherwise idle machine, where req/s is about the cores divided by own CPU/req; it does not "+
		"count softirq or PostgreSQL's background processes)")
	for _, r := range results {
		// PostgreSQL's own CPU is "other" for the postgres target; beyond
		// it (or, without the backends' figure, for the other targets), a
		// lot of it means something else ran on the machine.
		other := r.cpu.other
		if r.cpu.pgOK {
			other = max(0, other-r.cpu.pg)
		}
		if r.cpu.ok && (r.target != "postgres" || r.cpu.pgOK) && other > 0.15 {
			fmt.Fprintf(w, "\nWarning: other processes used %s cores during the %s period; "+
				"the machine was not quiet, re-run for figures to rely on.\n", fmtCores(other), r.target)
		}
	}
	fmt.Fprintln(w)
}
