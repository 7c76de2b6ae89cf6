// Command analyticsbench measures the analytics reports at size: one
// workspace with a year of traffic (by default 200,000 conversations,
// 1,000,000 messages, 50,000 leads and 500,000 page views) and a second
// workspace of the same size beside it, written straight into a fresh
// database of the real schema. It then times every report for a 30-day
// and a 365-day window (-reps runs each, after one warm-up) and prints
// p50 and p95 per report. It is not part of go test.
//
//	go run ./cmd/analyticsbench -engines sqlite,postgres
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/account"
	"concierge/internal/analytics"
	"concierge/internal/app"
	"concierge/internal/config"
	"concierge/internal/store"
	"concierge/internal/testkit"
)

// dataDir, when set, holds a SQLite database kept between runs.
var dataDir string

// only, when set, picks the reports timed; profile receives a CPU profile
// of the timed runs.
var (
	only    string
	profile *os.File
)

type sizes struct {
	conversations, messages, leads, pageViews int
}

func main() {
	engines := flag.String("engines", "sqlite,postgres", "engines to measure")
	conv := flag.Int("conversations", 200000, "conversations per workspace")
	msgs := flag.Int("messages", 1000000, "messages per workspace")
	leads := flag.Int("leads", 50000, "leads per workspace")
	pv := flag.Int("page-views", 500000, "page views per workspace")
	reps := flag.Int("reps", 20, "timed runs of each report and window")
	dbURL := flag.String("database-url", "", "PostgreSQL server to use instead of a throwaway cluster")
	flag.StringVar(&dataDir, "data", "", "SQLite: keep the generated database in this directory, and reuse it when it is already there")
	flag.StringVar(&only, "only", "", "time only the reports whose names contain this")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the timed runs to this file")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "analyticsbench:", err)
			os.Exit(1)
		}
		defer f.Close()
		profile = f
	}
	sz := sizes{*conv, *msgs, *leads, *pv}
	fmt.Printf("Analytics reports: two workspaces, each %d conversations, %d messages, %d leads, %d page views over a year\n\n",
		sz.conversations, sz.messages, sz.leads, sz.pageViews)
	fmt.Println("| engine | report | 30 days p50 | 30 days p95 | 365 days p50 | 365 days p95 |")
	fmt.Println("|---|---|---:|---:|---:|---:|")
	for _, e := range strings.Split(*engines, ",") {
		if err := run(strings.TrimSpace(e), *dbURL, sz, *reps); err != nil {
			fmt.Fprintln(os.Stderr, "analyticsbench:", err)
			os.Exit(1)
		}
	}
}

func run(engine, databaseURL string, sz sizes, reps int) error {
	ctx := context.Background()
	dir, reuse := dataDir, false
	if engine == "sqlite" && dir != "" {
		_, err := os.Stat(filepath.Join(dir, "concierge.db"))
		reuse = err == nil
	} else {
		var err error
		if dir, err = os.MkdirTemp("", "analyticsbench-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	vars := map[string]string{"CONCIERGE_RATE_LIMITS": "off", "CONCIERGE_DATA_DIR": dir, "CONCIERGE_LOG_LEVEL": "warn",
		"CONCIERGE_ARGON2_MEMORY_KIB": "1024", "CONCIERGE_ARGON2_ITERATIONS": "1"}
	if engine == "postgres" {
		if databaseURL == "" {
			c, err := testkit.StartPostgres()
			if err != nil {
				return err
			}
			defer c.Stop()
			if databaseURL, err = c.CreateDatabase(ctx, "analyticsbench"); err != nil {
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
	defer a.Close()
	now := time.Now().UTC()
	var first int64
	if reuse {
		if err := store.Get(ctx, a.DB.Reader(), &first, `SELECT MIN(id) FROM workspaces`); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "analyticsbench: %s: reusing %s\n", engine, dir)
	}
	for i, email := range []string{"bench@example.com", "other@example.com"} {
		if reuse {
			break
		}
		reg, err := a.Accounts.Register(ctx, account.RegisterInput{Email: email, Password: "benchmark password"})
		if err != nil {
			return err
		}
		ws := reg.Workspace.ID
		if err := a.Billing.SetPlan(ctx, ws, "pro"); err != nil {
			return err
		}
		var bots []int64
		for b := range 3 {
			v, err := a.Bots.Create(ctx, ws, map[string]json.RawMessage{"name": json.RawMessage(fmt.Sprintf(`"bot %d"`, b))})
			if err != nil {
				return err
			}
			bots = append(bots, v.ID)
		}
		began := time.Now()
		if err := generate(ctx, a.DB, ws, bots, sz, now, int64(i)); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "analyticsbench: %s: workspace %d written in %s\n", engine, ws, time.Since(began).Round(time.Millisecond))
		if i == 0 {
			first = ws
		}
	}
	if !reuse {
		// The rows were written straight into the tables: the
		// conversations' entry pages and the quarters from them, as the
		// migration that made them does.
		began := time.Now()
		if _, err := a.DB.Writer().ExecContext(ctx, `UPDATE chat_sessions SET
			entry_url = (SELECT p.url FROM page_views p WHERE p.session_id = chat_sessions.id AND p.position = 0),
			entry_at = (SELECT p.created_at FROM page_views p WHERE p.session_id = chat_sessions.id AND p.position = 0)
			WHERE EXISTS (SELECT 1 FROM page_views p WHERE p.session_id = chat_sessions.id AND p.position = 0)`); err != nil {
			return err
		}
		if err := a.Analytics.Rebuild(ctx); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "analyticsbench: %s: quarters rebuilt in %s\n", engine, time.Since(began).Round(time.Millisecond))
	}
	if engine == "postgres" {
		for _, t := range []string{"chat_sessions", "chat_messages", "lead_tier_changes", "lead_follow_ups"} {
			if _, err := a.DB.Writer().ExecContext(ctx, fmt.Sprintf(`SELECT setval(pg_get_serial_sequence('%s', 'id'), (SELECT MAX(id) FROM %s))`, t, t)); err != nil {
				return err
			}
		}
		if _, err := a.DB.Writer().ExecContext(ctx, `ANALYZE`); err != nil {
			return err
		}
	}
	reports := []struct {
		name string
		fn   func(q analytics.Query) error
	}{
		{"dashboard", func(q analytics.Query) error { _, err := a.Analytics.Dashboard(ctx, first, q); return err }},
		{"qualification-funnel", func(q analytics.Query) error { _, err := a.Analytics.Funnel(ctx, first, q); return err }},
		{"top-questions", func(q analytics.Query) error { _, err := a.Analytics.TopQuestions(ctx, first, q, 20); return err }},
		{"unanswered-questions", func(q analytics.Query) error {
			_, err := a.Analytics.UnansweredQuestions(ctx, first, q, 20)
			return err
		}},
		{"ratings-summary", func(q analytics.Query) error { _, err := a.Analytics.Ratings(ctx, first, q); return err }},
		{"resolution-summary", func(q analytics.Query) error { _, err := a.Analytics.Resolution(ctx, first, q); return err }},
		{"journey/summary", func(q analytics.Query) error { _, err := a.Analytics.Journey(ctx, first, q); return err }},
	}
	if profile != nil {
		if err := pprof.StartCPUProfile(profile); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	for _, r := range reports {
		if !strings.Contains(r.name, only) {
			continue
		}
		var cells []string
		for _, days := range []int{30, 365} {
			q := analytics.Query{Days: days, TZ: "Europe/Berlin"}
			if err := r.fn(q); err != nil { // warm-up
				return fmt.Errorf("%s: %w", r.name, err)
			}
			var took []time.Duration
			for range reps {
				t0 := time.Now()
				if err := r.fn(q); err != nil {
					return err
				}
				took = append(took, time.Since(t0))
			}
			slices.Sort(took)
			cells = append(cells, ms(took[len(took)/2]), ms(took[min(len(took)-1, len(took)*95/100)]))
		}
		fmt.Printf("| %s | %s | %s |\n", engine, r.name, strings.Join(cells, " | "))
	}
	return nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

// questions visitors ask, in several wordings each; a fifth are not
// answered by the knowledge base.
var subjects = []string{"price of the pro plan", "shipping to canada", "refund for my order", "opening hours on sunday",
	"the api rate limits", "a free trial", "cancel my subscription", "reset my password", "integration with slack",
	"data retention", "invoice with vat", "discount for students", "delivery time to berlin", "phone number of support",
	"gift cards", "team seats", "single sign-on", "export to csv", "warranty on the device", "parking near the office"}
var frames = []string{"how much is %s?", "tell me about %s", "%s?", "what about %s", "do you have %s", "question on %s",
	"can you explain %s", "i need info on %s"}

type generator struct {
	db   *store.DB
	rng  *rand.Rand
	ws   int64
	bots []int64
	now  time.Time
}

// generate writes one workspace's year of traffic in batched multi-row
// inserts with explicit ids (offset per workspace).
func generate(ctx context.Context, db *store.DB, ws int64, bots []int64, sz sizes, now time.Time, seed int64) error {
	g := &generator{db: db, rng: rand.New(rand.NewPCG(uint64(seed)+1, 7)), ws: ws, bots: bots, now: now}
	base := seed * 10_000_000
	type sess struct {
		id      int64
		bot     int64
		at      time.Time
		msgs    int
		lead    bool
		tier    string
		meeting bool
		asks    []int // the subject of each question
	}
	sessions := make([]sess, sz.conversations)
	perConv := float64(sz.messages) / float64(sz.conversations) // messages per conversation on average
	for i := range sessions {
		at := now.Add(-time.Duration(g.rng.Float64() * 365 * 24 * float64(time.Hour)))
		n := 2 * max(1, int(g.rng.ExpFloat64()*perConv/2+0.5))
		sessions[i] = sess{id: base + int64(i) + 1, bot: bots[i%len(bots)], at: at, msgs: n}
	}
	written := 0
	for i := range sessions {
		s := &sessions[i]
		for k := 0; k < s.msgs && written < sz.messages; k += 2 {
			s.asks = append(s.asks, g.rng.IntN(len(subjects)))
			written += 2
		}
		s.msgs = 2 * len(s.asks)
	}
	leadEvery := max(1, sz.conversations/max(1, sz.leads))
	for i := range sessions {
		if i%leadEvery == 0 && i/leadEvery < sz.leads {
			s := &sessions[i]
			s.lead = true
			s.tier = []string{"sql", "mql", "mql", "nurture", "nurture", "unqualified"}[g.rng.IntN(6)]
			s.meeting = s.tier == "sql" && g.rng.IntN(3) == 0
		}
	}
	// Sessions.
	rows := make([][]any, 0, len(sessions))
	for _, s := range sessions {
		outcome, handoff := "answered_by_bot", any(nil)
		var firstReply any
		switch g.rng.IntN(20) {
		case 0:
			outcome, handoff, firstReply = "resolved", s.at.Add(time.Minute), 30+g.rng.IntN(300)
		case 1:
			outcome, handoff = "abandoned", s.at.Add(time.Minute)
		}
		ref := []any{nil, "google.com", "bing.com", "news.example.org", "linkedin.com"}[g.rng.IntN(5)]
		utm := []any{nil, nil, "newsletter", "ads"}[g.rng.IntN(4)]
		answered := 0
		for _, subj := range s.asks {
			if subj%5 != 4 {
				answered++
			}
		}
		rows = append(rows, []any{s.id, fmt.Sprintf("ses_bench_%d", s.id), ws, s.bot, false, s.msgs, len(s.asks), answered,
			len(s.asks) - answered, s.at, s.at.Add(time.Duration(s.msgs) * time.Minute), outcome, handoff, firstReply, ref, utm})
	}
	if err := g.insert(ctx, `chat_sessions (id, public_id, workspace_id, bot_id, preview, messages, visitor_messages,
		answered_replies, unanswered_replies, created_at, last_message_at, outcome, handoff_requested_at,
		first_operator_reply_seconds, referrer_host, utm_source)`, rows); err != nil {
		return err
	}
	// Messages: a visitor question and the bot's reply per pair.
	topics := map[string]string{}
	rows = rows[:0]
	var mid int64 = base * 10
	for _, s := range sessions {
		for k, subj := range s.asks {
			q := fmt.Sprintf(frames[g.rng.IntN(len(frames))], subjects[subj])
			t, ok := topics[q]
			if !ok {
				t = analytics.Topic(q)
				topics[q] = t
			}
			answered := subj%5 != 4
			at := s.at.Add(time.Duration(2*k) * time.Minute)
			var rating any
			if g.rng.IntN(20) == 0 {
				rating = []int{1, 1, 1, -1}[g.rng.IntN(4)]
			}
			mid++
			rows = append(rows, []any{mid, fmt.Sprintf("msg_b_%d", mid), s.id, ws, s.bot, "user", q, nil, 0, nil, t, answered, at})
			mid++
			rows = append(rows, []any{mid, fmt.Sprintf("msg_b_%d", mid), s.id, ws, s.bot, "assistant", "A reply.", answered, 1, rating, nil, nil, at})
			if len(rows) >= 20000 {
				if err := g.insertMessages(ctx, rows); err != nil {
					return err
				}
				rows = rows[:0]
			}
		}
	}
	if err := g.insertMessages(ctx, rows); err != nil {
		return err
	}
	// Leads and their tier changes.
	rows = rows[:0]
	var changes [][]any
	var cid int64 = base
	for _, s := range sessions {
		if !s.lead {
			continue
		}
		captured := s.at.Add(3 * time.Minute)
		var meeting any
		if s.meeting {
			meeting = s.at.Add(time.Hour)
		}
		rows = append(rows, []any{s.id, ws, s.bot, fmt.Sprintf("lead%d@example.com", s.id), captured, s.tier, 50, meeting, s.at, captured})
		if s.tier == "sql" || s.tier == "mql" {
			cid++
			changes = append(changes, []any{cid, s.id, ws, s.bot, "nurture", s.tier, 60, "rules", s.at.Add(2 * time.Minute)})
		}
	}
	if err := g.insert(ctx, `leads (session_id, workspace_id, bot_id, email, captured_at, tier, score, meeting_booked_at,
		created_at, updated_at)`, rows); err != nil {
		return err
	}
	if err := g.insert(ctx, `lead_tier_changes (id, session_id, workspace_id, bot_id, from_tier, to_tier, score, scorer,
		created_at)`, changes); err != nil {
		return err
	}
	// Page views.
	rows = rows[:0]
	pages := []string{"/", "/pricing", "/features", "/docs", "/blog/launch", "/contact", "/about", "/integrations"}
	left := sz.pageViews
	for i := 0; left > 0; i = (i + 1) % len(sessions) {
		s := sessions[i]
		n := min(left, 1+g.rng.IntN(4))
		perm := g.rng.Perm(len(pages))
		for p := 0; p < n; p++ {
			rows = append(rows, []any{s.id, "https://site.example" + pages[perm[p]], ws, s.bot, p, g.rng.IntN(300), s.at})
		}
		left -= n
		if len(rows) >= 20000 {
			if err := g.insert(ctx, `page_views (session_id, url, workspace_id, bot_id, position, seconds, created_at)`, rows); err != nil {
				return err
			}
			rows = rows[:0]
		}
		if i == len(sessions)-1 && left > 0 {
			break // every session has its pages
		}
	}
	return g.insert(ctx, `page_views (session_id, url, workspace_id, bot_id, position, seconds, created_at)`, rows)
}

func (g *generator) insertMessages(ctx context.Context, rows [][]any) error {
	return g.insert(ctx, `chat_messages (id, public_id, session_id, workspace_id, bot_id, role, text, answered, credits,
		rating, topic, reply_answered, created_at)`, rows)
}

// insert writes rows into "table (columns)" in transactions of multi-row
// INSERTs.
func (g *generator) insert(ctx context.Context, into string, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	width := len(rows[0])
	per := max(1, 30000/width/4)
	return g.db.Tx(ctx, func(tx *sqlx.Tx) error {
		for len(rows) > 0 {
			n := min(per, len(rows))
			args := make([]any, 0, n*width)
			for _, r := range rows[:n] {
				args = append(args, r...)
			}
			if _, err := store.Exec(ctx, tx, `INSERT INTO `+into+` VALUES `+store.Rows(n, width), args...); err != nil {
				return fmt.Errorf("insert %s: %w", strings.Fields(into)[0], err)
			}
			rows = rows[n:]
		}
		return nil
	})
}
