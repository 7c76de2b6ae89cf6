package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The live-chat scenario (issue 13): visitor streams and operator streams
// held open, messages both ways at a fixed rate, on one SQLite server or on
// two PostgreSQL replicas (operators on one, visitors on the other, so
// every message crosses replicas). It reports the delivery latency from the
// POST to the event on the other side's stream, messages lost and
// duplicated, and the servers' memory per 1,000 idle streams.
const (
	lcOperators         = 10 // the pro plan's operator seats
	lcStreamsPerOp      = 5  // the per-credential stream cap
	lcGrace             = 10 * time.Second
	lcIdleSettle        = 3 * time.Second
	lcSenders           = 32
	lcMessageCreditsPad = 100
)

type lcSent struct {
	at     time.Time
	stream int // index of the stream that must show it
	conv   int // the conversation it belongs to
}

type lcStream struct {
	seen map[int64]bool // event ids (duplicates)
	mu   sync.Mutex
}

// lcState is what senders and stream readers share.
type lcState struct {
	mu      sync.Mutex
	sent    map[string]lcSent
	got     map[string]bool
	lat     []time.Duration
	dups    atomic.Int64
	wrong   atomic.Int64 // a message on a stream that must not show it
	events  atomic.Int64
	streams []*lcStream
	conv    []int // per stream: its conversation, -1 for an operator stream
}

func runLiveChat(ctx context.Context, o options, target, tmp string, logf func(string, ...any)) (result, error) {
	dir, err := os.MkdirTemp(tmp, target+"-")
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(dir)
	keyBytes := make([]byte, 32)
	if _, err := rand.Read(keyBytes); err != nil {
		return result{}, err
	}
	// Cheap password hashes: eleven sign-ups' argon2 memory would otherwise
	// sit in the servers' RSS while it is being measured.
	env := append(serverEnv(o), "CONCIERGE_SECRET_KEY="+hex.EncodeToString(keyBytes), "CONCIERGE_ARGON2_MEMORY_KIB=1024",
		"CONCIERGE_ARGON2_ITERATIONS=1")
	replicas := 1
	if target == "postgres" {
		replicas = 2
		u, cleanup, err := postgresDatabase(ctx, o.databaseURL, logf)
		if err != nil {
			return result{}, err
		}
		defer cleanup()
		env = append(env, "DATABASE_URL="+u)
	}
	var servers []*server
	for i := 0; i < replicas; i++ {
		sdir := filepath.Join(dir, fmt.Sprint("replica", i))
		if err := os.MkdirAll(sdir, 0o700); err != nil {
			return result{}, err
		}
		senv := append(append([]string(nil), env...), "CONCIERGE_DATA_DIR="+filepath.Join(sdir, "data"))
		srv, err := startServer(ctx, fmt.Sprint(target, i), o.bin, func(string) []string { return []string{"serve"} }, senv, sdir)
		if err != nil {
			return result{}, err
		}
		defer srv.stop(logf)
		if err := srv.waitReady(ctx, 30*time.Second); err != nil {
			return result{}, err
		}
		servers = append(servers, srv)
		if i == 0 {
			env = senv // the CLI below opens replica 0's database
		}
	}
	opSrv, visSrv := servers[0], servers[len(servers)-1]
	base := opSrv.base()
	logf("%s: %d replica(s); operators on %s, visitors on %s", target, replicas, opSrv.addr, visSrv.addr)

	// Workspace on the pro plan (10 operator seats), credits for the
	// visitors' first messages, a live-chat bot.
	key, email, err := register(ctx, base)
	if err != nil {
		return result{}, opSrv.withLog(err)
	}
	for _, args := range [][]string{
		{"workspace", "set-plan", "--email", email, "--plan", "pro"},
		{"credits", "grant", "--email", email, "--credits", fmt.Sprint(o.visitors + lcMessageCreditsPad), "--reason", "loadbench"},
	} {
		cmd := exec.CommandContext(ctx, o.bin, args...)
		cmd.Env, cmd.Dir = env, dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return result{}, fmt.Errorf("concierge %s: %v\n%s", args[0], err, out)
		}
	}
	var bot struct {
		BotID  int64  `json:"bot_id"`
		BotKey string `json:"bot_key"`
	}
	if err := call(ctx, "POST", base+"/bots", "X-API-Key", key,
		[]byte(`{"name":"Support","live_chat":{"enabled":true}}`), http.StatusCreated, &bot); err != nil {
		return result{}, fmt.Errorf("create bot: %w", err)
	}
	opKeys := make([]string, lcOperators)
	for i := range opKeys {
		var op struct {
			Key string `json:"operator_key"`
		}
		body, _ := json.Marshal(map[string]any{"email": fmt.Sprintf("agent%d@example.com", i), "password": "agent password",
			"name": fmt.Sprint("Agent ", i), "bot_id": bot.BotID})
		if err := call(ctx, "POST", base+"/operators", "X-API-Key", key, body, http.StatusCreated, &op); err != nil {
			return result{}, fmt.Errorf("create operator: %w", err)
		}
		opKeys[i] = op.Key
		if err := call(ctx, "PUT", base+"/operators/me/status", "X-Operator-Key", op.Key, []byte(`{"status":"online"}`),
			http.StatusOK, nil); err != nil {
			return result{}, fmt.Errorf("operator status: %w", err)
		}
	}

	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 4 * lcSenders, MaxIdleConnsPerHost: 2 * lcSenders,
		IdleConnTimeout: time.Minute}}
	st := &lcState{sent: map[string]lcSent{}, got: map[string]bool{}}
	sctx, stopStreams := context.WithCancel(ctx)
	defer stopStreams()
	var readers sync.WaitGroup
	open := func(url, header, value string, conv int) (int, error) {
		idx := len(st.streams)
		st.streams = append(st.streams, &lcStream{seen: map[int64]bool{}})
		st.conv = append(st.conv, conv)
		req, err := http.NewRequestWithContext(sctx, "GET", url, nil)
		if err != nil {
			return 0, err
		}
		req.Header.Set(header, value)
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
			resp.Body.Close()
			return 0, fmt.Errorf("GET %s: %s %s", req.URL.Path, resp.Status, b)
		}
		readers.Add(1)
		go func() {
			defer readers.Done()
			defer resp.Body.Close()
			st.read(idx, resp.Body)
		}()
		return idx, nil
	}

	// Operator streams on the operators' replica.
	opStream := make([]int, lcOperators*lcStreamsPerOp)
	for s := range opStream {
		if opStream[s], err = open(opSrv.base()+"/operators/events", "X-Operator-Key", opKeys[s%lcOperators], -1); err != nil {
			return result{}, opSrv.withLog(err)
		}
	}

	// Conversations: a first message (answered by the bot), a hand-off,
	// a claim by operator i%10. The visitors' streams (on the other
	// replica) are opened after all of them, between two RSS readings.
	type conv struct {
		sid       string
		op        int
		visStream int
		opStream  int
	}
	convs := make([]conv, o.visitors)
	t0 := time.Now()
	for i := range convs {
		var rep struct {
			SessionID string `json:"session_id"`
		}
		if err := call(ctx, "POST", visSrv.base()+"/chat", "X-Bot-Key", bot.BotKey, []byte(`{"message":"hello, I need a person"}`),
			http.StatusOK, &rep); err != nil {
			return result{}, visSrv.withLog(err)
		}
		// The designated operator stream belongs to the claiming operator.
		c := conv{sid: rep.SessionID, op: i % lcOperators, opStream: opStream[i%len(opStream)]}
		body, _ := json.Marshal(map[string]any{"session_id": c.sid})
		if err := call(ctx, "POST", visSrv.base()+"/operators/handoff", "X-Bot-Key", bot.BotKey, body, http.StatusOK, nil); err != nil {
			return result{}, visSrv.withLog(err)
		}
		if err := call(ctx, "POST", opSrv.base()+"/operators/conversations/"+c.sid+"/claim", "X-Operator-Key", opKeys[c.op], nil,
			http.StatusOK, nil); err != nil {
			return result{}, opSrv.withLog(err)
		}
		convs[i] = c
	}
	rssBefore := make([]int64, len(servers))
	time.Sleep(lcIdleSettle)
	for i, srv := range servers {
		rssBefore[i] = rssKB(srv.cmd.Process.Pid)
	}
	for i := range convs {
		if convs[i].visStream, err = open(visSrv.base()+"/chat/events/"+convs[i].sid, "X-Bot-Key", bot.BotKey, i); err != nil {
			return result{}, visSrv.withLog(err)
		}
	}
	logf("%s: %d conversations handed off, claimed and streaming in %s; %d operator streams",
		target, len(convs), time.Since(t0).Round(time.Millisecond), len(opStream))
	time.Sleep(lcIdleSettle)
	var rssAfter, rssDelta int64
	for i, srv := range servers {
		now := rssKB(srv.cmd.Process.Pid)
		rssAfter += now
		rssDelta += now - rssBefore[i]
	}
	perThousand := float64(rssDelta) / 1024 * 1000 / float64(o.visitors)
	logf("%s: server RSS %d MB with %d idle visitor streams: %.1f MB per 1,000 idle streams",
		target, rssAfter/1024, o.visitors, perThousand)

	// Messages both ways at o.rate per second, round robin over the
	// conversations: operator -> visitor, then visitor -> operator.
	jobs := make(chan int, 1024)
	var posted, failed atomic.Int64
	var firstErr atomic.Value
	var senders sync.WaitGroup
	for w := 0; w < lcSenders; w++ {
		senders.Add(1)
		go func() {
			defer senders.Done()
			for n := range jobs {
				ci := (n / 2) % len(convs)
				c := convs[ci]
				tok := fmt.Sprintf("lcb-%d", n)
				var url, header, value string
				var body []byte
				dest := c.opStream
				if n%2 == 0 {
					url, header, value = opSrv.base()+"/operators/conversations/"+c.sid+"/messages", "X-Operator-Key", opKeys[c.op]
					body, _ = json.Marshal(map[string]any{"text": tok})
					dest = c.visStream
				} else {
					url, header, value = visSrv.base()+"/chat", "X-Bot-Key", bot.BotKey
					body, _ = json.Marshal(map[string]any{"message": tok, "session_id": c.sid})
				}
				st.mu.Lock()
				st.sent[tok] = lcSent{at: time.Now(), stream: dest, conv: ci}
				st.mu.Unlock()
				if err := post(ctx, client, url, header, value, body); err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err)
					st.mu.Lock()
					delete(st.sent, tok)
					st.mu.Unlock()
					continue
				}
				posted.Add(1)
			}
		}()
	}
	logf("%s: sending %d messages/s for %s", target, o.rate, o.duration)
	interval := time.Second / time.Duration(o.rate)
	start := time.Now()
	total := int(o.duration.Seconds() * float64(o.rate))
	for n := 0; n < total; n++ {
		if d := time.Until(start.Add(time.Duration(n) * interval)); d > 0 {
			time.Sleep(d)
		}
		jobs <- n
	}
	close(jobs)
	senders.Wait()
	took := time.Since(start)
	// Wait for stragglers, then stop the streams.
	deadline := time.Now().Add(lcGrace)
	for time.Now().Before(deadline) {
		st.mu.Lock()
		missing := len(st.sent) - len(st.got)
		st.mu.Unlock()
		if missing <= 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	stopStreams()
	readers.Wait()

	st.mu.Lock()
	defer st.mu.Unlock()
	lost := 0
	for tok := range st.sent {
		if !st.got[tok] {
			lost++
		}
	}
	slices.Sort(st.lat)
	r := result{target: target, measured: took, ok: int(posted.Load())}
	if len(st.lat) > 0 {
		r.p50, r.p99 = percentile(st.lat, 50), percentile(st.lat, 99)
	}
	r.live = &liveStats{replicas: replicas, visitors: o.visitors, operatorStreams: len(opStream), posted: posted.Load(),
		failed: failed.Load(), lost: lost, dups: st.dups.Load(), wrong: st.wrong.Load(), events: st.events.Load(),
		rssMB: float64(rssAfter) / 1024, perThousandMB: perThousand}
	if e, ok := firstErr.Load().(error); ok {
		logf("%s: first failed POST: %v", target, e)
	}
	logf("%s: %d messages in %s (%.0f/s), delivery p50 %s p99 %s, lost %d, duplicated %d, wrong stream %d, %d events read",
		target, posted.Load(), took.Round(time.Millisecond), float64(posted.Load())/took.Seconds(), fmtDur(r.p50), fmtDur(r.p99),
		lost, st.dups.Load(), st.wrong.Load(), st.events.Load())
	return r, nil
}

// read parses one SSE stream and records the benchmark's messages.
func (st *lcState) read(idx int, body io.Reader) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	s := st.streams[idx]
	var id int64
	var kind, data string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if kind == "message" && data != "" {
				st.message(idx, s, id, data)
			}
			id, kind, data = 0, "", ""
		case strings.HasPrefix(line, "id: "):
			id, _ = strconv.ParseInt(line[4:], 10, 64)
		case strings.HasPrefix(line, "event: "):
			kind = line[7:]
		case strings.HasPrefix(line, "data: "):
			data = line[6:]
		}
	}
}

func (st *lcState) message(idx int, s *lcStream, id int64, data string) {
	now := time.Now()
	st.events.Add(1)
	var m struct {
		Text string `json:"text"`
	}
	if json.Unmarshal([]byte(data), &m) != nil || !strings.HasPrefix(m.Text, "lcb-") {
		return
	}
	s.mu.Lock()
	dup := s.seen[id]
	s.seen[id] = true
	s.mu.Unlock()
	if dup {
		st.dups.Add(1)
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	sent, ok := st.sent[m.Text]
	if !ok || sent.stream != idx {
		// Operator streams show every conversation of the bot; only the
		// designated one counts. A visitor stream must never show another
		// conversation's message.
		if ok && st.conv[idx] >= 0 && st.conv[idx] != sent.conv {
			st.wrong.Add(1)
		}
		return
	}
	if st.got[m.Text] {
		st.dups.Add(1)
		return
	}
	st.got[m.Text] = true
	st.lat = append(st.lat, now.Sub(sent.at))
}

// post sends a JSON body with one credential header and wants 200.
func post(ctx context.Context, client *http.Client, url, header, value string, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "POST", url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(header, value)
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: %s: %s", req.URL.Path, resp.Status, excerpt(string(b), 300))
	}
	return nil
}

// rssKB is a process's resident set size in KiB (0 when unreadable).
func rssKB(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// liveStats are the live-chat scenario's figures.
type liveStats struct {
	replicas, visitors, operatorStreams int
	posted, failed                      int64
	lost                                int
	dups, wrong, events                 int64
	rssMB, perThousandMB                float64
}

func printLiveChat(w io.Writer, o options, results []result) {
	fmt.Fprintf(w, "\nLive chat: %d visitor streams + %d operator streams held, %d messages/s both ways for %s\n\n",
		o.visitors, lcOperators*lcStreamsPerOp, o.rate, o.duration)
	fmt.Fprintln(w, "| target | replicas | messages | rate/s | delivery p50 | p99 | lost | duplicated | wrong stream | failed POSTs | server RSS | RSS per 1,000 idle streams |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range results {
		l := r.live
		if l == nil {
			continue
		}
		fmt.Fprintf(w, "| %s | %d | %d | %.0f | %s | %s | %d | %d | %d | %d | %.0f MB | %.1f MB |\n", r.target, l.replicas, l.posted,
			float64(l.posted)/r.measured.Seconds(), fmtDur(r.p50), fmtDur(r.p99), l.lost, l.dups, l.wrong, l.failed, l.rssMB,
			l.perThousandMB)
	}
}
