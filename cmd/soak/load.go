package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"mime/multipart"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The load: virtual users each pick a kind of work by weight and do it
// through the proxy, as customers, visitors and operators would. Every
// write the service acknowledged (a 2xx with an id) is remembered for the
// end checks.

const password = "soak-password-123"

type workspace struct {
	idx   int
	email string
	// mu is held shared by every request with the key and exclusively by
	// a rotation, so that no request races a rotation: a 401 is then
	// always a bug.
	mu  sync.RWMutex
	key string

	bmu  sync.Mutex
	bots []*bot
}

type bot struct {
	id  int64
	key string
	ws  *workspace
	// mu is held shared by every request on the bot and exclusively by
	// its deletion.
	mu      sync.RWMutex
	deleted bool
	created time.Time

	smu      sync.Mutex
	sessions []string // chat sessions with at least one delivered reply
	leads    []string // sessions whose lead left an e-mail address
	crawled  bool

	hmu      sync.Mutex // one hand-off at a time per bot
	liveChat bool
	opKey    string
}

// acks are the writes the service acknowledged.
type acks struct {
	mu        sync.Mutex
	bots      []*bot
	docs      []docAck
	leads     []leadAck
	replies   []replyAck
	webhooks  []webhookAck
	livechat  []liveAck
	deleted   []int64
	followUps int64 // credits charged by acknowledged follow-ups
	// charged is the credits the delivered replies said they cost, by
	// workspace: the service must have charged at least that.
	charged map[int]int64
}

type docAck struct {
	b     *bot
	name  string
	jobID string
}
type leadAck struct {
	b   *bot
	sid string
}
type replyAck struct {
	b        *bot
	sid, mid string
}
type webhookAck struct {
	b      *bot
	id     string
	path   string
	secret string
	at     time.Time // when the creation was acknowledged
}
type liveAck struct {
	b     *bot
	sid   string
	texts []string // messages that must each appear exactly once in the transcript
}

type load struct {
	c      *client
	site   string
	hooks  string // receiver base URL
	events []string
	acks   *acks

	mu    sync.Mutex
	wss   []*workspace
	nextW atomic.Int64
	nextN atomic.Int64 // unique numbers for names
}

type kind struct {
	name   string
	weight int
	run    func(l *load, ctx context.Context, r *rand.Rand)
}

var kinds = []kind{
	{"signup", 3, (*load).signup},
	{"upload", 5, (*load).upload},
	{"crawl", 2, (*load).crawl},
	{"chat", 25, (*load).chat},
	{"lead", 8, (*load).lead},
	{"follow-up", 3, (*load).followUp},
	{"analytics", 6, (*load).analytics},
	{"reads", 6, (*load).reads},
	{"webhook", 3, (*load).webhook},
	{"rotate-key", 2, (*load).rotate},
	{"delete-bot", 1, (*load).deleteBot},
	{"handoff", 4, (*load).handoff},
}

func pickKind(r *rand.Rand) kind {
	total := 0
	for _, k := range kinds {
		total += k.weight
	}
	n := r.IntN(total)
	for _, k := range kinds {
		if n < k.weight {
			return k
		}
		n -= k.weight
	}
	return kinds[0]
}

// run drives users virtual users until ctx ends.
func (l *load) run(ctx context.Context, users int, seed uint64) {
	var wg sync.WaitGroup
	for u := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(u)))
			for ctx.Err() == nil {
				if l.workspaceCount() < 2 {
					l.signup(ctx, r)
					continue
				}
				pickKind(r).run(l, ctx, r)
			}
		}()
	}
	wg.Wait()
}

func (l *load) workspaceCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.wss)
}

func (l *load) pickWorkspace(r *rand.Rand) *workspace {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.wss) == 0 {
		return nil
	}
	// Recent workspaces still have credits: favour them.
	n := len(l.wss)
	if n > 6 && r.IntN(4) != 0 {
		return l.wss[n-1-r.IntN(6)]
	}
	return l.wss[r.IntN(n)]
}

// withBot runs fn on a live bot, holding it against deletion, and the
// workspace key against rotation.
func (l *load) withBot(r *rand.Rand, fn func(ws *workspace, key string, b *bot)) {
	ws := l.pickWorkspace(r)
	if ws == nil {
		return
	}
	ws.bmu.Lock()
	live := append([]*bot(nil), ws.bots...)
	ws.bmu.Unlock()
	if len(live) == 0 {
		return
	}
	b := live[r.IntN(len(live))]
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.deleted {
		return
	}
	ws.mu.RLock()
	defer ws.mu.RUnlock()
	fn(ws, ws.key, b)
}

func (l *load) signup(ctx context.Context, r *rand.Rand) {
	idx := int(l.nextW.Add(1))
	ws := &workspace{idx: idx, email: fmt.Sprintf("owner%d-%d@gmail.com", idx, r.IntN(1e6))}
	res := l.c.do(ctx, call{kind: "signup", method: "POST", path: "/auth/register", ws: -1,
		body: mustJSON(map[string]string{"email": ws.email, "password": password})})
	var reg struct {
		APIKey string `json:"api_key"`
	}
	if !res.ok() || !decode(res.body, &reg) || reg.APIKey == "" {
		return
	}
	ws.key = reg.APIKey
	b := l.createBot(ctx, ws)
	if b == nil {
		return
	}
	l.mu.Lock()
	l.wss = append(l.wss, ws)
	l.mu.Unlock()
	b.mu.RLock()
	ws.mu.RLock()
	l.uploadTo(ctx, ws, ws.key, b)
	ws.mu.RUnlock()
	b.mu.RUnlock()
}

func (l *load) createBot(ctx context.Context, ws *workspace) *bot {
	res := l.c.do(ctx, call{kind: "create-bot", method: "POST", path: "/bots", cred: "X-API-Key", value: ws.key, ws: ws.idx,
		body: mustJSON(map[string]string{"name": "Shop " + marker(ws.idx)})})
	var v struct {
		BotID  int64  `json:"bot_id"`
		BotKey string `json:"bot_key"`
	}
	if !res.ok() || !decode(res.body, &v) || v.BotID == 0 {
		return nil
	}
	b := &bot{id: v.BotID, key: v.BotKey, ws: ws, created: time.Now()}
	ws.bmu.Lock()
	ws.bots = append(ws.bots, b)
	ws.bmu.Unlock()
	l.acks.mu.Lock()
	l.acks.bots = append(l.acks.bots, b)
	l.acks.mu.Unlock()
	return b
}

func (l *load) upload(ctx context.Context, r *rand.Rand) {
	l.withBot(r, func(ws *workspace, key string, b *bot) { l.uploadTo(ctx, ws, key, b) })
}

func (l *load) uploadTo(ctx context.Context, ws *workspace, key string, b *bot) {
	n := l.nextN.Add(1)
	name := fmt.Sprintf("handbook-%d.txt", n)
	var text strings.Builder
	fmt.Fprintf(&text, "Handbook %d of %s.\n\n", n, marker(ws.idx))
	for i := range 8 {
		fmt.Fprintf(&text, "%s The %s desk of %s is open on weekdays.\n\n", siteFact(int(n)+i), siteTopics[i%len(siteTopics)], marker(ws.idx))
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("bot_id", fmt.Sprint(b.id))
	part, _ := mw.CreateFormFile("files", name)
	_, _ = part.Write([]byte(text.String()))
	_ = mw.Close()
	res := l.c.do(ctx, call{kind: "upload", method: "POST", path: "/ingest", cred: "X-API-Key", value: key, ws: ws.idx,
		ctype: mw.FormDataContentType(), body: body.Bytes()})
	var out struct {
		JobID string `json:"job_id"`
	}
	if res.ok() && decode(res.body, &out) && out.JobID != "" {
		l.acks.mu.Lock()
		l.acks.docs = append(l.acks.docs, docAck{b: b, name: name, jobID: out.JobID})
		l.acks.mu.Unlock()
	}
}

func (l *load) crawl(ctx context.Context, r *rand.Rand) {
	l.withBot(r, func(ws *workspace, key string, b *bot) {
		b.smu.Lock()
		done := b.crawled
		b.crawled = true
		b.smu.Unlock()
		if done {
			return
		}
		l.c.do(ctx, call{kind: "crawl", method: "POST", path: "/crawl", cred: "X-API-Key", value: key, ws: ws.idx,
			body: mustJSON(map[string]any{"bot_id": b.id, "url": l.site, "max_pages": 40})})
	})
}

var questions = []string{"How long does shipping take for the Model %d lamp?", "What is the warranty of Model %d?",
	"Who answers questions about returns for Model %d?", "Tell me about pricing of the Model %d lamp",
	"Does the Model %d have a linen shade?", "What are your support hours for Model %d?"}

// ask posts one question (streamed or not) and returns the session id when
// a reply was delivered.
func (l *load) ask(ctx context.Context, r *rand.Rand, ws *workspace, b *bot, sid, text string) string {
	stream := r.IntN(2) == 0
	body := map[string]string{"message": text}
	if sid != "" {
		body["session_id"] = sid
	}
	cl := call{kind: "chat", method: "POST", path: "/chat", cred: "X-Bot-Key", value: b.key, ws: ws.idx, body: mustJSON(body)}
	if stream {
		cl.kind, cl.path = "chat-stream", "/chat/stream"
	}
	res := l.c.do(ctx, cl)
	if !res.ok() {
		return ""
	}
	var rep struct {
		SessionID string `json:"session_id"`
		MessageID string `json:"message_id"`
		Credits   int64  `json:"credits_charged"`
		Mode      string `json:"mode"`
		Error     any    `json:"error"`
	}
	if stream {
		i := bytes.LastIndex(res.body, []byte("FINAL_METADATA: "))
		if i < 0 || !decode(bytes.TrimSpace(res.body[i+len("FINAL_METADATA: "):]), &rep) || rep.Error != nil {
			return "" // the reply broke off: not delivered
		}
	} else if !decode(res.body, &rep) {
		return ""
	}
	if rep.MessageID != "" {
		l.acks.mu.Lock()
		l.acks.replies = append(l.acks.replies, replyAck{b: b, sid: rep.SessionID, mid: rep.MessageID})
		l.acks.charged[ws.idx] += rep.Credits
		l.acks.mu.Unlock()
	}
	return rep.SessionID
}

func (l *load) chat(ctx context.Context, r *rand.Rand) {
	l.withBot(r, func(ws *workspace, key string, b *bot) {
		b.smu.Lock()
		sid := ""
		if len(b.sessions) > 0 && r.IntN(3) == 0 {
			sid = b.sessions[r.IntN(len(b.sessions))]
		}
		b.smu.Unlock()
		q := fmt.Sprintf(questions[r.IntN(len(questions))], r.IntN(sitePages))
		if got := l.ask(ctx, r, ws, b, sid, q); got != "" && sid == "" {
			b.smu.Lock()
			b.sessions = append(b.sessions, got)
			b.smu.Unlock()
		}
	})
}

func (l *load) lead(ctx context.Context, r *rand.Rand) {
	l.withBot(r, func(ws *workspace, key string, b *bot) {
		sid := l.ask(ctx, r, ws, b, "", "We are a team of 20 and need lamps for our office next month; what does it cost?")
		if sid == "" {
			return
		}
		n := l.nextN.Add(1)
		res := l.c.do(ctx, call{kind: "lead", method: "POST", path: "/chat/lead-capture", cred: "X-Bot-Key", value: b.key,
			ws: ws.idx, body: mustJSON(map[string]string{"session_id": sid, "name": fmt.Sprintf("Visitor %d", n),
				"email": fmt.Sprintf("visitor%d@gmail.com", n), "company": "Acme", "source": "pre_chat"})})
		if !res.ok() {
			return
		}
		l.acks.mu.Lock()
		l.acks.leads = append(l.acks.leads, leadAck{b: b, sid: sid})
		l.acks.mu.Unlock()
		b.smu.Lock()
		b.leads = append(b.leads, sid)
		b.smu.Unlock()
		tp := 30 + r.IntN(300)
		l.c.do(ctx, call{kind: "signals", method: "POST", path: "/chat/behavioral-signals", cred: "X-Bot-Key", value: b.key,
			ws: ws.idx, body: mustJSON(map[string]any{"session_id": sid, "page_url": l.site + "p/3", "page_title": "Pricing",
				"utm_source": "soak", "visits": 1 + r.IntN(4), "time_on_page_seconds": tp})})
	})
}

func (l *load) followUp(ctx context.Context, r *rand.Rand) {
	l.withBot(r, func(ws *workspace, key string, b *bot) {
		b.smu.Lock()
		sid := ""
		if len(b.leads) > 0 {
			sid = b.leads[r.IntN(len(b.leads))]
		}
		b.smu.Unlock()
		if sid == "" {
			return
		}
		res := l.c.do(ctx, call{kind: "follow-up", method: "POST", path: "/leads/" + sid + "/follow-up", cred: "X-API-Key",
			value: key, ws: ws.idx, body: mustJSON(map[string]string{"subject": "Your lamp order",
				"body": fmt.Sprintf("Hello, following up (%d).", l.nextN.Add(1))})})
		var out struct {
			Credits int64 `json:"credits_charged"`
		}
		if res.ok() && decode(res.body, &out) {
			l.acks.mu.Lock()
			l.acks.followUps += out.Credits
			l.acks.mu.Unlock()
		}
	})
}

func (l *load) analytics(ctx context.Context, r *rand.Rand) {
	l.withBot(r, func(ws *workspace, key string, b *bot) {
		paths := []string{"/analytics/dashboard?days=7&bot_id=%d", "/analytics/top-questions?bot_id=%d",
			"/analytics/resolution-summary?bot_id=%d", "/analytics/qualification-funnel?bot_id=%d"}
		l.c.do(ctx, call{kind: "analytics", method: "GET", path: fmt.Sprintf(paths[r.IntN(len(paths))], b.id),
			cred: "X-API-Key", value: key, ws: ws.idx})
	})
}

func (l *load) reads(ctx context.Context, r *rand.Rand) {
	l.withBot(r, func(ws *workspace, key string, b *bot) {
		paths := []string{"/documents?bot_id=%d", "/leads?bot_id=%d", "/bots/%d", "/credits/history?x=%d", "/webhooks?bot_id=%d"}
		l.c.do(ctx, call{kind: "reads", method: "GET", path: fmt.Sprintf(paths[r.IntN(len(paths))], b.id),
			cred: "X-API-Key", value: key, ws: ws.idx})
	})
}

func (l *load) webhook(ctx context.Context, r *rand.Rand) {
	l.withBot(r, func(ws *workspace, key string, b *bot) {
		path := fmt.Sprintf("/hook/%d", l.nextN.Add(1))
		res := l.c.do(ctx, call{kind: "webhook", method: "POST", path: "/webhooks", cred: "X-API-Key", value: key, ws: ws.idx,
			body: mustJSON(map[string]any{"bot_id": b.id, "url": l.hooks + path, "events": l.events})})
		var out struct {
			ID     string `json:"webhook_id"`
			Secret string `json:"secret"`
		}
		if res.ok() && decode(res.body, &out) && out.ID != "" {
			l.acks.mu.Lock()
			l.acks.webhooks = append(l.acks.webhooks, webhookAck{b: b, id: out.ID, path: path, secret: out.Secret, at: time.Now()})
			l.acks.mu.Unlock()
		}
	})
}

func (l *load) rotate(ctx context.Context, r *rand.Rand) {
	ws := l.pickWorkspace(r)
	if ws == nil {
		return
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	res := l.c.do(ctx, call{kind: "rotate-key", method: "POST", path: "/client/api-key/regenerate", cred: "X-API-Key",
		value: ws.key, ws: ws.idx})
	var out struct {
		APIKey string `json:"api_key"`
	}
	if res.ok() && decode(res.body, &out) && out.APIKey != "" {
		ws.key = out.APIKey
		return
	}
	// The answer was lost (a replica died mid-request): whether the key
	// changed is unknown, so sign in again, as a customer would.
	for range 5 {
		res := l.c.do(ctx, call{kind: "login", method: "POST", path: "/auth/login", ws: ws.idx,
			body: mustJSON(map[string]string{"email": ws.email, "password": password})})
		if res.ok() && decode(res.body, &out) && out.APIKey != "" {
			ws.key = out.APIKey
			return
		}
		if ctx.Err() != nil {
			return
		}
		time.Sleep(time.Second)
	}
}

func (l *load) deleteBot(ctx context.Context, r *rand.Rand) {
	ws := l.pickWorkspace(r)
	if ws == nil {
		return
	}
	ws.bmu.Lock()
	var b *bot
	for _, c := range ws.bots {
		if time.Since(c.created) > 5*time.Second {
			b = c
			break
		}
	}
	ws.bmu.Unlock()
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.deleted {
		return
	}
	ws.mu.RLock()
	res := l.c.do(ctx, call{kind: "delete-bot", method: "DELETE", path: fmt.Sprintf("/bots/%d", b.id), cred: "X-API-Key",
		value: ws.key, ws: ws.idx})
	ws.mu.RUnlock()
	// A lost answer leaves the bot in doubt: treat it as deleted, and
	// delete it again at the end (idempotent) before checking.
	b.deleted = res.ok() || res.status == 0 || res.proxy
	if !b.deleted {
		return
	}
	ws.bmu.Lock()
	for i, c := range ws.bots {
		if c == b {
			ws.bots = append(ws.bots[:i], ws.bots[i+1:]...)
			break
		}
	}
	ws.bmu.Unlock()
	l.acks.mu.Lock()
	l.acks.deleted = append(l.acks.deleted, b.id)
	l.acks.mu.Unlock()
	// Keep the workspace busy with a fresh bot.
	ws.mu.RLock()
	nb := l.createBot(ctx, ws)
	if nb != nil {
		l.uploadTo(ctx, ws, ws.key, nb)
	}
	ws.mu.RUnlock()
}

// handoff: a visitor asks for a person, the bot's operator claims the
// conversation and answers, the visitor writes again, the operator closes.
func (l *load) handoff(ctx context.Context, r *rand.Rand) {
	l.withBot(r, func(ws *workspace, key string, b *bot) {
		b.hmu.Lock()
		defer b.hmu.Unlock()
		if !b.liveChat {
			res := l.c.do(ctx, call{kind: "handoff-setup", method: "PATCH", path: fmt.Sprintf("/bots/%d", b.id), cred: "X-API-Key",
				value: key, ws: ws.idx, body: []byte(`{"live_chat":{"enabled":true,"handoff_timeout_seconds":20}}`)})
			if !res.ok() {
				return
			}
			res = l.c.do(ctx, call{kind: "handoff-setup", method: "POST", path: "/operators", cred: "X-API-Key", value: key,
				ws: ws.idx, body: mustJSON(map[string]any{"email": fmt.Sprintf("agent%d-%d@gmail.com", b.id, l.nextN.Add(1)),
					"password": password, "name": "Agent", "bot_id": b.id})})
			var op struct {
				Key string `json:"operator_key"`
			}
			if !res.ok() || !decode(res.body, &op) {
				return
			}
			b.opKey, b.liveChat = op.Key, true
		}
		l.c.do(ctx, call{kind: "handoff-op", method: "PUT", path: "/operators/me/status", cred: "X-Operator-Key", value: b.opKey,
			ws: ws.idx, body: []byte(`{"status":"online"}`)})
		sid := l.ask(ctx, r, ws, b, "", "Can I talk to a person about a bulk order?")
		if sid == "" {
			return
		}
		res := l.c.do(ctx, call{kind: "handoff", method: "POST", path: "/operators/handoff", cred: "X-Bot-Key", value: b.key,
			ws: ws.idx, body: mustJSON(map[string]string{"session_id": sid, "message": "I need a person"})})
		if !res.ok() {
			return
		}
		op := func(action string, body []byte) result {
			return l.c.do(ctx, call{kind: "handoff-op", method: "POST", path: "/operators/conversations/" + sid + action,
				cred: "X-Operator-Key", value: b.opKey, ws: ws.idx, body: body})
		}
		if res := op("/claim", nil); !res.ok() {
			return
		}
		live := liveAck{b: b, sid: sid}
		n := l.nextN.Add(1)
		text := fmt.Sprintf("Operator here, reply %d", n)
		if res := op("/messages", mustJSON(map[string]string{"text": text})); res.ok() {
			live.texts = append(live.texts, text)
		}
		vtext := fmt.Sprintf("Thanks, visitor message %d", n)
		res = l.c.do(ctx, call{kind: "handoff-visitor", method: "POST", path: "/chat", cred: "X-Bot-Key", value: b.key,
			ws: ws.idx, body: mustJSON(map[string]string{"session_id": sid, "message": vtext})})
		var rep struct {
			Mode string `json:"mode"`
		}
		if res.ok() && decode(res.body, &rep) && rep.Mode == "human" {
			live.texts = append(live.texts, vtext)
		}
		op("/close", nil)
		if len(live.texts) > 0 {
			l.acks.mu.Lock()
			l.acks.livechat = append(l.acks.livechat, live)
			l.acks.mu.Unlock()
		}
	})
}
