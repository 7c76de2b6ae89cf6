package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"concierge/internal/analytics"
	"concierge/internal/mail"
	"concierge/internal/store"
)

// invariant is one end check: what it checked, how many items, and the
// failures (at most a few shown).
type invariant struct {
	name    string
	checked int
	failed  int
	notes   []string
}

func (iv *invariant) fail(format string, a ...any) {
	iv.failed++
	if len(iv.notes) < 8 {
		iv.notes = append(iv.notes, fmt.Sprintf(format, a...))
	}
}

func (iv *invariant) info(format string, a ...any) {
	iv.notes = append(iv.notes, "("+fmt.Sprintf(format, a...)+")")
}

// recurring job kinds schedule their next run whenever they run: never
// terminal by design. Every other job is one-shot and must end.
var recurring = []string{"lead.sweep", "billing.monthly_grants", "knowledge.recrawl_scheduler", "analytics.fold", "jobs.purge"}

// oneShot is the SQL condition of one-shot jobs.
var oneShot = `kind NOT IN ('` + strings.Join(recurring, "', '") + `')`

// drain waits until every one-shot job is terminal (due or not: the soak
// compresses settle delays and hand-off timeouts to fall within it) and
// every webhook message is settled, up to limit.
func drain(ctx context.Context, db *sql.DB, limit time.Duration, logf func(string, ...any)) time.Duration {
	start := time.Now()
	for {
		var open, pending int
		_ = db.QueryRowContext(ctx, `SELECT COUNT(*) FROM jobs WHERE status IN ('queued','running') AND `+oneShot).Scan(&open)
		_ = db.QueryRowContext(ctx, `SELECT COUNT(*) FROM webhook_messages WHERE status <> 'succeeded'`).Scan(&pending)
		if open == 0 && pending == 0 {
			return time.Since(start)
		}
		if time.Since(start) > limit || ctx.Err() != nil {
			logf("drain: still %d open jobs and %d unsettled webhook messages after %s", open, pending, limit)
			return time.Since(start)
		}
		time.Sleep(time.Second)
	}
}

type checker struct {
	db   *sql.DB
	c    *client
	acks *acks
	rec  *recorder
	hook *receiver
	smtp *smtpServer
	// dbURL opens the service's own store for the analytics check.
	dbURL string
}

func (ck *checker) all(ctx context.Context, l *load) []*invariant {
	return []*invariant{ck.no500(), ck.ledger(ctx), ck.credits(ctx, l), ck.acked(ctx), ck.jobs(ctx), ck.webhooks(ctx),
		ck.mail(ctx), ck.livechat(ctx), ck.deletedBots(ctx), ck.isolation(), ck.analytics(ctx)}
}

// analytics: the rollups the writers keep (quarters, topic days) equal
// what the conversations and messages say, after every fault.
func (ck *checker) analytics(ctx context.Context) *invariant {
	iv := &invariant{name: "analytics rollups equal the rows (quarters, topic days)"}
	sdb, err := store.Open(ctx, store.Options{DatabaseURL: ck.dbURL, MaxOpenConns: 2})
	if err != nil {
		iv.fail("open: %v", err)
		return iv
	}
	defer sdb.Close()
	kept, err := analytics.New(analytics.Deps{DB: sdb}).Quarters(ctx, false)
	if err != nil {
		iv.fail("quarters: %v", err)
		return iv
	}
	iv.checked = len(kept)
	if err := analytics.New(analytics.Deps{DB: sdb}).VerifyQuarters(ctx); err != nil {
		iv.fail("%v", err)
	}
	return iv
}

func (ck *checker) no500() *invariant {
	iv := &invariant{name: "no 500; every 503 has Retry-After"}
	ck.rec.mu.Lock()
	defer ck.rec.mu.Unlock()
	iv.checked = len(ck.rec.samples)
	iv.failed = ck.rec.n500 + ck.rec.n503bad
	iv.notes = append(iv.notes, ck.rec.errs5xx[:min(8, len(ck.rec.errs5xx))]...)
	return iv
}

func (ck *checker) ledger(ctx context.Context) *invariant {
	iv := &invariant{name: "ledger sums to the balance (every workspace)"}
	rows, err := ck.db.QueryContext(ctx, `SELECT w.id, w.credit_balance, COALESCE(SUM(l.delta), 0),
		COALESCE((SELECT balance_after FROM credit_ledger x WHERE x.workspace_id = w.id ORDER BY x.id DESC LIMIT 1), 0),
		COALESCE(MIN(l.balance_after), 0)
		FROM workspaces w LEFT JOIN credit_ledger l ON l.workspace_id = w.id GROUP BY w.id ORDER BY w.id`)
	if err != nil {
		iv.fail("query: %v", err)
		return iv
	}
	defer rows.Close()
	for rows.Next() {
		var id, bal, sum, last, minAfter int64
		if err := rows.Scan(&id, &bal, &sum, &last, &minAfter); err != nil {
			iv.fail("scan: %v", err)
			return iv
		}
		iv.checked++
		if sum != bal || last != bal || minAfter < 0 {
			iv.fail("workspace %d: balance %d, ledger sum %d, last balance_after %d, lowest %d", id, bal, sum, last, minAfter)
		}
	}
	return iv
}

// credits: what the ledger charged equals what was delivered, by item
// kind, for every workspace none of whose bots was deleted (a deleted
// bot's replies and documents are gone, its charges stay).
func (ck *checker) credits(ctx context.Context, l *load) *invariant {
	iv := &invariant{name: "credits charged = replies + pages + follow-ups"}
	q := `SELECT w.id, w.email,
		COALESCE((SELECT -SUM(delta) FROM credit_ledger x WHERE x.workspace_id = w.id AND x.idempotency_key LIKE 'chat-%'), 0),
		COALESCE((SELECT SUM(credits) FROM chat_messages m WHERE m.workspace_id = w.id AND m.role = 'assistant' AND m.status = 'completed'), 0),
		COALESCE((SELECT SUM(credits) FROM chat_messages m WHERE m.workspace_id = w.id AND m.role = 'assistant' AND m.status = 'pending'), 0),
		COALESCE((SELECT -SUM(delta) FROM credit_ledger x WHERE x.workspace_id = w.id AND (x.idempotency_key LIKE 'ingest-file:%' OR x.idempotency_key LIKE 'crawl:%')), 0),
		COALESCE((SELECT SUM(credits) FROM documents d WHERE d.workspace_id = w.id), 0),
		COALESCE((SELECT -SUM(delta) FROM credit_ledger x WHERE x.workspace_id = w.id AND x.idempotency_key LIKE 'lead-follow-up:%'), 0),
		COALESCE((SELECT SUM(credits) FROM lead_follow_ups f WHERE f.workspace_id = w.id), 0),
		COALESCE((SELECT COUNT(*) FROM credit_ledger x WHERE x.workspace_id = w.id AND x.kind <> 'grant' AND NOT (
			x.idempotency_key LIKE 'chat-%' OR x.idempotency_key LIKE 'ingest-file:%' OR x.idempotency_key LIKE 'crawl:%'
			OR x.idempotency_key LIKE 'lead-follow-up:%')), 0)
		FROM workspaces w ORDER BY w.id`
	rows, err := ck.db.QueryContext(ctx, q)
	if err != nil {
		iv.fail("query: %v", err)
		return iv
	}
	defer rows.Close()
	deletedWS := map[string]bool{}
	ck.acks.mu.Lock()
	for _, b := range ck.acks.bots {
		if slices.Contains(ck.acks.deleted, b.id) {
			deletedWS[b.ws.email] = true
		}
	}
	charged := map[string]int64{}
	for _, ws := range l.wss {
		charged[ws.email] = ck.acks.charged[ws.idx]
	}
	ck.acks.mu.Unlock()
	var skipped, pendingTotal, undelivered int64
	for rows.Next() {
		var id, chatNet, chatDone, chatPending, docNet, docs, fuNet, fu, other int64
		var email string
		if err := rows.Scan(&id, &email, &chatNet, &chatDone, &chatPending, &docNet, &docs, &fuNet, &fu, &other); err != nil {
			iv.fail("scan: %v", err)
			return iv
		}
		if deletedWS[email] {
			skipped++
			continue
		}
		iv.checked++
		pendingTotal += chatPending
		if chatNet != chatDone+chatPending {
			iv.fail("workspace %d: chat charged %d, replies delivered %d + held %d", id, chatNet, chatDone, chatPending)
		}
		if docNet != docs {
			iv.fail("workspace %d: knowledge charged %d, documents' credits %d", id, docNet, docs)
		}
		if fuNet != fu {
			iv.fail("workspace %d: follow-ups charged %d, follow-ups' credits %d", id, fuNet, fu)
		}
		if other != 0 {
			iv.fail("workspace %d: %d charges of no known kind", id, other)
		}
		if c := charged[email]; c > chatDone {
			iv.fail("workspace %d: clients received replies worth %d credits, the service counts %d delivered", id, c, chatDone)
		} else {
			undelivered += chatDone - c
		}
	}
	iv.info("%d workspaces with a deleted bot not compared; %d credits held by replies whose settle job is not due yet; "+
		"%d credits of replies the service completed that no client received whole (cut by a fault)", skipped, pendingTotal, undelivered)
	return iv
}

// acked: every acknowledged bot, document, lead, reply and webhook of a
// bot that was not deleted is there, read back through the API.
func (ck *checker) acked(ctx context.Context) *invariant {
	iv := &invariant{name: "acknowledged writes present (bot, document, lead, reply, webhook)"}
	ck.acks.mu.Lock()
	a := struct {
		bots     []*bot
		docs     []docAck
		leads    []leadAck
		replies  []replyAck
		webhooks []webhookAck
	}{ck.acks.bots, ck.acks.docs, ck.acks.leads, ck.acks.replies, ck.acks.webhooks}
	ck.acks.mu.Unlock()
	get := func(b *bot, path string, bot bool) result {
		b.ws.mu.RLock()
		defer b.ws.mu.RUnlock()
		cl := call{kind: "check", method: "GET", path: path, cred: "X-API-Key", value: b.ws.key, ws: b.ws.idx}
		if bot {
			cl.cred, cl.value = "X-Bot-Key", b.key
		}
		for range 2 {
			res := ck.c.do(ctx, cl)
			if res.status != 0 && !res.proxy && res.status != 503 {
				return res
			}
			time.Sleep(500 * time.Millisecond)
		}
		return ck.c.do(ctx, cl)
	}
	live := func(b *bot) bool { return !b.deleted }
	for _, b := range a.bots {
		if !live(b) {
			continue
		}
		iv.checked++
		if res := get(b, fmt.Sprintf("/bots/%d", b.id), false); res.status != 200 {
			iv.fail("bot %d: GET → %d %s", b.id, res.status, excerpt(string(res.body), 120))
		}
	}
	docNames := map[int64]map[string]bool{}
	for _, d := range a.docs {
		if !live(d.b) {
			continue
		}
		iv.checked++
		res := get(d.b, "/ingest/status/"+d.jobID, false)
		var st struct {
			Status string `json:"status"`
		}
		if res.status != 200 || !decode(res.body, &st) {
			iv.fail("upload %s (job %s): status → %d", d.name, d.jobID, res.status)
			continue
		}
		if st.Status != "completed" {
			iv.fail("upload %s (job %s) ended %q", d.name, d.jobID, st.Status)
			continue
		}
		names, ok := docNames[d.b.id]
		if !ok {
			names = map[string]bool{}
			for page := 1; ; page++ {
				var list struct {
					Items []struct {
						Name string `json:"document_name"`
					} `json:"items"`
					Total int `json:"total"`
				}
				res := get(d.b, fmt.Sprintf("/documents?bot_id=%d&limit=200&page=%d", d.b.id, page), false)
				if !decode(res.body, &list) || len(list.Items) == 0 {
					break
				}
				for _, it := range list.Items {
					names[it.Name] = true
				}
			}
			docNames[d.b.id] = names
		}
		if !names[d.name] {
			iv.fail("document %s of bot %d: completed but not listed", d.name, d.b.id)
		}
	}
	for _, ld := range a.leads {
		if !live(ld.b) {
			continue
		}
		iv.checked++
		if res := get(ld.b, "/leads/"+ld.sid, false); res.status != 200 {
			iv.fail("lead %s of bot %d: GET → %d", ld.sid, ld.b.id, res.status)
		}
	}
	hist := map[string][]string{}
	history := func(b *bot, sid string) ([]string, int) {
		if h, ok := hist[sid]; ok {
			return h, 200
		}
		res := get(b, "/chat/history/"+url.PathEscape(sid), true)
		var out struct {
			Messages []struct {
				ID   string `json:"message_id"`
				Text string `json:"text"`
			} `json:"messages"`
		}
		if res.status != 200 || !decode(res.body, &out) {
			return nil, res.status
		}
		var h []string
		for _, m := range out.Messages {
			h = append(h, m.ID+"\x00"+m.Text)
		}
		hist[sid] = h
		return h, 200
	}
	for _, r := range a.replies {
		if !live(r.b) {
			continue
		}
		iv.checked++
		h, st := history(r.b, r.sid)
		if st != 200 {
			iv.fail("session %s: history → %d", r.sid, st)
			continue
		}
		if !slices.ContainsFunc(h, func(s string) bool { return strings.HasPrefix(s, r.mid+"\x00") }) {
			iv.fail("reply %s of session %s delivered but not in the history", r.mid, r.sid)
		}
	}
	hooks := map[int64][]string{}
	for _, w := range a.webhooks {
		if !live(w.b) {
			continue
		}
		iv.checked++
		ids, ok := hooks[w.b.id]
		if !ok {
			var list struct {
				Items []struct {
					ID string `json:"webhook_id"`
				} `json:"items"`
			}
			res := get(w.b, fmt.Sprintf("/webhooks?bot_id=%d", w.b.id), false)
			decode(res.body, &list)
			for _, it := range list.Items {
				ids = append(ids, it.ID)
			}
			hooks[w.b.id] = ids
		}
		if !slices.Contains(ids, w.id) {
			iv.fail("webhook %s of bot %d not listed", w.id, w.b.id)
		}
	}
	return iv
}

func (ck *checker) jobs(ctx context.Context) *invariant {
	iv := &invariant{name: "every job terminal after the drain (recurring schedulers aside)"}
	rows, err := ck.db.QueryContext(ctx, `SELECT kind, status, COUNT(*) FROM jobs GROUP BY 1, 2 ORDER BY 1, 2`)
	if err != nil {
		iv.fail("query: %v", err)
		return iv
	}
	defer rows.Close()
	dead := map[string]int{}
	for rows.Next() {
		var kind, status string
		var n int
		if err := rows.Scan(&kind, &status, &n); err != nil {
			iv.fail("scan: %v", err)
			return iv
		}
		if slices.Contains(recurring, kind) {
			continue
		}
		iv.checked += n
		switch status {
		case "queued", "running":
			iv.failed += n
			iv.notes = append(iv.notes, fmt.Sprintf("%d %s jobs still %s", n, kind, status))
		case "dead":
			dead[kind] += n
		}
	}
	for k, n := range dead {
		iv.info("%d %s jobs dead", n, k)
	}
	return iv
}

// webhooks: every event of a bot with an endpoint subscribed to it (and
// acknowledged before it) was delivered to that endpoint, and the receiver got
// that message's webhook-id with a valid signature.
func (ck *checker) webhooks(ctx context.Context) *invariant {
	iv := &invariant{name: "every event delivered to each subscribed endpoint (signed, one webhook-id)"}
	type hook struct {
		id     int64
		public string
		bot    int64
		events []string
		path   string
		since  time.Time
	}
	var hooks []hook
	rows, err := ck.db.QueryContext(ctx, `SELECT id, public_id, bot_id, events, url, created_at FROM webhooks`)
	if err != nil {
		iv.fail("query: %v", err)
		return iv
	}
	for rows.Next() {
		var h hook
		var events, u string
		if err := rows.Scan(&h.id, &h.public, &h.bot, &events, &u, &h.since); err != nil {
			iv.fail("scan: %v", err)
			rows.Close()
			return iv
		}
		_ = json.Unmarshal([]byte(events), &h.events)
		if pu, err := url.Parse(u); err == nil {
			h.path = pu.Path
		}
		hooks = append(hooks, h)
	}
	rows.Close()
	secrets := map[string]string{}
	acked := map[string]time.Time{}
	ck.acks.mu.Lock()
	for _, w := range ck.acks.webhooks {
		secrets[w.path] = w.secret
		acked[w.id] = w.at
	}
	ck.acks.mu.Unlock()
	// The promise starts when the endpoint's creation was acknowledged:
	// an event of the moments between its row's timestamp and its commit
	// may have been dispatched before the endpoint existed for others.
	for i := range hooks {
		if at, ok := acked[hooks[i].public]; ok && at.After(hooks[i].since) {
			hooks[i].since = at
		}
	}
	// The messages first, then what the receiver holds: deliveries go on
	// while the check runs, and a message that succeeded after a snapshot
	// of the receiver would look lost.
	type owed struct{ ev, typ, endpoint, path, msg, status string }
	var all []owed
	for _, h := range hooks {
		rows, err := ck.db.QueryContext(ctx, `SELECT e.public_id, e.type, m.public_id, m.status FROM events e
			LEFT JOIN webhook_messages m ON m.event_id = e.id AND m.webhook_id = $1
			WHERE e.bot_id = $2 AND e.created_at >= $3`, h.id, h.bot, h.since)
		if err != nil {
			iv.fail("query: %v", err)
			return iv
		}
		for rows.Next() {
			var ev, typ string
			var msg, status sql.NullString
			if err := rows.Scan(&ev, &typ, &msg, &status); err != nil {
				iv.fail("scan: %v", err)
				break
			}
			if slices.Contains(h.events, typ) {
				all = append(all, owed{ev, typ, h.public, h.path, msg.String, status.String})
			}
		}
		rows.Close()
	}
	got := map[string]map[string]int{} // path → webhook-id → deliveries
	badSig := 0
	for _, d := range ck.hook.deliveries() {
		if got[d.Path] == nil {
			got[d.Path] = map[string]int{}
		}
		got[d.Path][d.ID]++
		if s, ok := secrets[d.Path]; ok && !verifySignature(s, d) {
			badSig++
		}
	}
	if badSig > 0 {
		iv.fail("%d deliveries with a signature that does not verify", badSig)
	}
	dups := 0
	for _, ids := range got {
		for _, n := range ids {
			dups += n - 1
		}
	}
	for _, o := range all {
		iv.checked++
		switch {
		case o.msg == "":
			iv.fail("event %s (%s): no message for endpoint %s", o.ev, o.typ, o.endpoint)
		case o.status != "succeeded":
			iv.fail("event %s (%s) to endpoint %s: message %s is %s", o.ev, o.typ, o.endpoint, o.msg, o.status)
		case got[o.path][o.msg] == 0:
			iv.fail("event %s (%s) to endpoint %s: message %s succeeded but the receiver never accepted it", o.ev, o.typ, o.endpoint, o.msg)
		}
	}
	iv.info("%d deliveries accepted, %d repeats of a webhook-id (at-least-once retries), %d attempts refused while down",
		len(ck.hook.deliveries()), dups, ck.hook.refused.Load())
	return iv
}

func (ck *checker) mail(ctx context.Context) *invariant {
	iv := &invariant{name: "every queued e-mail sent"}
	rows, err := ck.db.QueryContext(ctx, `SELECT status, COUNT(*) FROM jobs WHERE kind IN ($1, 'account.send_code') GROUP BY status`, mail.JobKind)
	if err != nil {
		iv.fail("query: %v", err)
		return iv
	}
	defer rows.Close()
	sent := 0
	for rows.Next() {
		var status string
		var n int
		if err := rows.Scan(&status, &n); err != nil {
			iv.fail("scan: %v", err)
			return iv
		}
		iv.checked += n
		if status == "succeeded" {
			sent += n
		} else {
			iv.failed += n
			iv.notes = append(iv.notes, fmt.Sprintf("%d mail jobs %s", n, status))
		}
	}
	msgs := ck.smtp.messages()
	if len(msgs) < sent {
		iv.fail("%d mail jobs succeeded, the SMTP server accepted %d messages", sent, len(msgs))
	}
	seen := map[string]int{}
	dups := 0
	for _, m := range msgs {
		if m.MessageID != "" {
			seen[m.MessageID]++
			if seen[m.MessageID] == 2 {
				dups++
			}
		}
	}
	iv.info("%d messages accepted by SMTP, %d sent twice, %d transactions refused while refusing", len(msgs), dups, ck.smtp.refused.Load())
	return iv
}

func (ck *checker) livechat(ctx context.Context) *invariant {
	iv := &invariant{name: "live chat: every message once in the transcript"}
	ck.acks.mu.Lock()
	lives := append([]liveAck(nil), ck.acks.livechat...)
	ck.acks.mu.Unlock()
	for _, lv := range lives {
		if lv.b.deleted {
			continue
		}
		lv.b.ws.mu.RLock()
		res := ck.c.do(ctx, call{kind: "check", method: "GET", path: "/chat/history/" + url.PathEscape(lv.sid), cred: "X-Bot-Key",
			value: lv.b.key, ws: lv.b.ws.idx})
		lv.b.ws.mu.RUnlock()
		var out struct {
			Messages []struct {
				Text string `json:"text"`
			} `json:"messages"`
		}
		if res.status != 200 || !decode(res.body, &out) {
			iv.fail("session %s: history → %d", lv.sid, res.status)
			continue
		}
		for _, t := range lv.texts {
			iv.checked++
			n := 0
			for _, m := range out.Messages {
				if m.Text == t {
					n++
				}
			}
			if n != 1 {
				iv.fail("session %s: %q appears %d times", lv.sid, t, n)
			}
		}
	}
	return iv
}

func (ck *checker) deletedBots(ctx context.Context) *invariant {
	iv := &invariant{name: "nothing of a deleted bot remains"}
	ck.acks.mu.Lock()
	deleted := append([]int64(nil), ck.acks.deleted...)
	ck.acks.mu.Unlock()
	rows, err := ck.db.QueryContext(ctx, `SELECT table_name FROM information_schema.columns
		WHERE table_schema = 'public' AND column_name = 'bot_id' ORDER BY table_name`)
	if err != nil {
		iv.fail("query: %v", err)
		return iv
	}
	var tables []string
	for rows.Next() {
		var t string
		_ = rows.Scan(&t)
		tables = append(tables, t)
	}
	rows.Close()
	tables = append(tables, "bots")
	for _, id := range deleted {
		for _, t := range tables {
			col := "bot_id"
			if t == "bots" {
				col = "id"
			}
			iv.checked++
			var n int
			if err := ck.db.QueryRowContext(ctx, fmt.Sprintf(`SELECT COUNT(*) FROM %q WHERE %s = $1`, t, col), id).Scan(&n); err != nil {
				iv.fail("%s: %v", t, err)
				continue
			}
			if n > 0 {
				iv.fail("bot %d: %d rows left in %s", id, n, t)
			}
		}
	}
	iv.info("%d bots deleted, %d tables with a bot_id", len(deleted), len(tables)-1)
	return iv
}

func (ck *checker) isolation() *invariant {
	iv := &invariant{name: "no response carried another workspace's data"}
	ck.rec.mu.Lock()
	defer ck.rec.mu.Unlock()
	iv.checked = len(ck.rec.samples)
	for _, l := range ck.rec.leaks {
		iv.fail("%s", l)
	}
	iv.failed = len(ck.rec.leaks)
	return iv
}

func sortedKeys[M ~map[string]V, V any](m M) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
