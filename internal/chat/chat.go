// Package chat owns conversations: sessions and their messages, answering
// a visitor's question from the bot's knowledge (retrieval, then an
// Answerer), streaming the reply, charging one credit per delivered reply
// exactly once, and the history the widget rehydrates from.
package chat

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"concierge/internal/apperr"
	"concierge/internal/billing"
	"concierge/internal/bot"
	"concierge/internal/clock"
	"concierge/internal/jobs"
	"concierge/internal/retrieval"
	"concierge/internal/secret"
	"concierge/internal/store"
)

// Limits of a chat request.
const (
	MaxMessageRunes = 4000
	historyTurns    = 6   // recent turns given to the answerer
	retrieveK       = 6   // passages retrieved per question
	maxSources      = 3   // sources shown with a reply
	maxHistory      = 200 // messages returned by History
)

// Roles and statuses of a message.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	// RoleOperator is a live-chat operator's message (written by livechat).
	RoleOperator = "operator"

	StatusPending   = "pending"
	StatusCompleted = "completed"
	StatusFailed    = "failed"
)

// Source is a passage a reply rests on.
type Source struct {
	Title        string  `json:"title"`
	Heading      string  `json:"heading,omitempty" doc:"The section of the page the passage is from (its heading path, joined with ' > ')."`
	URL          string  `json:"url,omitempty"`
	DocumentName string  `json:"document_name"`
	Snippet      string  `json:"snippet"`
	Score        float64 `json:"score" doc:"How well the passage matches the question, as the ranking weighed it (higher is better; comparable within one reply, not across bots or questions)."`
}

// Turn is one earlier message of the conversation.
type Turn struct {
	Role string
	Text string
}

// Prompt is everything an Answerer may use. Passages are data to quote,
// never instructions to follow.
type Prompt struct {
	Bot      *bot.Bot
	Question string
	History  []Turn
	Passages []retrieval.Hit
}

// Answer is what an Answerer produced.
type Answer struct {
	Text string
	// Answered is false when the knowledge held no answer: the text is
	// then the bot's honest "I don't know".
	Answered bool
	// Cited are indexes into Prompt.Passages of the passages the reply
	// used, best first.
	Cited []int
	// Abstained: the answerer said "I don't know" before doing any paid
	// work (no passage worth reading, so no model call). Such a reply is
	// not charged.
	Abstained bool
}

// Answerer writes a reply. emit receives the text as it is produced, in
// order; its concatenation equals Answer.Text. An error from emit stops
// the answer and is returned.
type Answerer interface {
	Name() string
	Answer(ctx context.Context, p Prompt, emit func(string) error) (Answer, error)
}

// Options configure a Service.
type Options struct {
	// ReplyTimeout bounds one reply, model retries included (default 90s).
	ReplyTimeout time.Duration
	// SettleAfter is when a reservation whose reply never finished (the
	// process died mid-reply) is refunded (default 10 minutes).
	SettleAfter time.Duration
}

// Service answers visitors.
type Service struct {
	db        *store.DB
	bots      *bot.Service
	billing   *billing.Service
	retrieval *retrieval.Service
	answerer  Answerer
	queue     *jobs.Queue
	clock     clock.Clock
	log       *slog.Logger
	opts      Options
	replies   *replyBatcher // writes composed replies
	relay     Relay         // live chat: takes messages while a person handles the conversation
}

// Conversation modes (live chat). In ModeWaiting and ModeHuman the
// visitor's messages go to the operators through the Relay: no retrieval,
// no answerer, no credit.
const (
	ModeBot     = "bot"
	ModeWaiting = "waiting"
	ModeHuman   = "human"
	ModeClosed  = "closed"
)

// Relay delivers a visitor's message to the live-chat operators. It is
// declared here, where it is used; the livechat package implements it.
type Relay interface {
	// VisitorMessage stores text as a visitor message of the session and
	// tells the operators. It returns the message's public id and the
	// conversation's mode after it.
	VisitorMessage(ctx context.Context, workspaceID, botID, sessionID int64, text string) (messageID, mode string, err error)
}

// SetRelay installs the live-chat relay (wiring; before serving).
func (s *Service) SetRelay(r Relay) { s.relay = r }

// New returns a Service.
func New(db *store.DB, bots *bot.Service, bill *billing.Service, ret *retrieval.Service, answerer Answerer,
	queue *jobs.Queue, clk clock.Clock, log *slog.Logger, opts Options) *Service {
	if opts.ReplyTimeout <= 0 {
		opts.ReplyTimeout = 90 * time.Second
	}
	if opts.SettleAfter <= 0 {
		opts.SettleAfter = 10 * time.Minute
	}
	if answerer == nil {
		answerer = Extractive{}
	}
	s := &Service{db: db, bots: bots, billing: bill, retrieval: ret, answerer: answerer, queue: queue,
		clock: clk, log: log.With("component", "chat"), opts: opts}
	s.replies = newReplyBatcher(s)
	return s
}

// Request is one visitor message.
type Request struct {
	Bot       *bot.View
	Message   string
	SessionID string // empty: a new session
	Preview   bool   // owner preview: no credits
	Origin    string
}

// Reply is the outcome of a chat request.
type Reply struct {
	SessionID string   `json:"session_id"`
	MessageID string   `json:"message_id,omitempty"`
	Reply     string   `json:"reply"`
	Sources   []Source `json:"sources"`
	Answered  bool     `json:"answered"`
	Offline   bool     `json:"offline,omitempty"`
	Preview   bool     `json:"preview,omitempty"`
	Credits   int64    `json:"credits_charged" doc:"Credits this reply cost: 0 for an \"I don't know\" decided before any model call (answered false, nothing worth reading in the knowledge), for a preview, offline or live-chat message."`
	// Mode is the conversation's mode after this message: bot, or
	// waiting/human when the message went to a person (reply is then empty).
	Mode string `json:"mode" enum:"bot,waiting,human,closed" doc:"bot: the bot answered. waiting/human: the message went to a live-chat operator; no reply text, nothing charged."`
	// HandoffAvailable: the bot offers a person (live chat is on and the
	// bot had no answer); the widget may then call POST /operators/handoff.
	HandoffAvailable bool `json:"handoff_available" doc:"The reply offers a person: POST /operators/handoff may follow."`
}

// Turn state between Begin and Finish.
type pending struct {
	req       Request
	sessionID int64
	publicID  string
	msgID     int64
	// settleJob is the job that refunds the reservation should this
	// process die mid-reply (0: none).
	settleJob int64
	msgPublic string
	cost      int64
	history   []Turn
	hits      []retrieval.Hit
	creditKey string
	// questionID is the visitor's message of a reserved reply: completing
	// the reply records on it whether it was answered (analytics).
	questionID int64
	// askedAt is when reserve wrote the question and the pending reply
	// (both are dated by it, and so are their analytics figures).
	askedAt time.Time
	// topic is the question's analytics topic (none for a preview);
	// topicSet once it was computed (prepareTopic).
	topic    string
	topicSet bool
	// oneShot: the answerer composes the whole reply at once and cannot
	// fail midway, so nothing is reserved: the exchange is written in one
	// transaction once the reply exists (see recordWrite).
	oneShot bool
}

// composer is an Answerer that composes its whole reply at once, without
// I/O, and cannot fail once it has: the extractive answerer. Its replies
// need no reservation and no settle job.
type composer interface {
	compose(p Prompt) Answer
}

// Exchange is one reply being produced: Begin has checked everything (and,
// for a model answerer, reserved the credit), Run produces the text, and
// the reply is charged only when Run completes.
type Exchange struct {
	s *Service
	p *pending
	// Metadata is known before the first word: the session (and, from
	// Sources, the candidate sources).
	SessionID string
	Offline   bool
	// Mode is bot, or waiting/human when the message goes to a person.
	Mode string
}

// Begin validates a request, opens or continues its session, and checks
// the balance (402 before any answer when it is short). With a model
// answerer it also writes the question and reserves the reply's credit;
// with the extractive answerer (a composer) nothing is written before Run,
// which records the whole exchange in one transaction. The returned
// Exchange must be Run.
func (s *Service) Begin(ctx context.Context, req Request) (*Exchange, error) {
	msg := strings.TrimSpace(req.Message)
	if msg == "" {
		return nil, apperr.Invalid("body.message", "must not be empty", "value_error.missing")
	}
	if utf8.RuneCountInString(msg) > MaxMessageRunes {
		return nil, apperr.Invalid("body.message", fmt.Sprintf("at most %d characters", MaxMessageRunes), "value_error.any_str.max_length")
	}
	if !utf8.ValidString(msg) {
		return nil, apperr.Invalid("body.message", "must be valid UTF-8 text", "value_error")
	}
	req.Message = msg
	b := req.Bot.Bot
	p := &pending{req: req}
	if req.SessionID != "" {
		sess, err := s.session(ctx, b.WorkspaceID, b.ID, req.SessionID)
		if err != nil {
			return nil, err
		}
		p.sessionID, p.publicID = sess.ID, sess.PublicID
		if (sess.Mode == ModeWaiting || sess.Mode == ModeHuman) && !req.Bot.IsOffline && !req.Preview && s.relay != nil {
			// A person handles this conversation: no retrieval, no
			// answerer, no credit.
			return &Exchange{s: s, p: p, SessionID: sess.PublicID, Mode: sess.Mode}, nil
		}
		if p.history, err = s.recentTurns(ctx, b.WorkspaceID, sess.ID, historyTurns); err != nil {
			return nil, err
		}
	}
	ex := &Exchange{s: s, p: p, Mode: ModeBot}
	if req.Bot.IsOffline {
		// Spec section 3: no retrieval, no model, no charge.
		if err := s.openSession(ctx, p); err != nil {
			return nil, err
		}
		ex.SessionID, ex.Offline = p.publicID, true
		return ex, nil
	}
	if !req.Preview {
		p.cost = s.billing.Costs().ChatReply
	}
	if _, ok := s.answerer.(composer); ok {
		// 402 before answering; the debit itself is taken with the reply.
		if err := s.checkBalance(p); err != nil {
			return nil, err
		}
		p.oneShot = true
		if p.sessionID == 0 {
			p.publicID = secret.OrderedToken("cs_", 16)
		}
		p.msgPublic = secret.OrderedToken("msg_", 12)
		p.creditKey = "chat-reply:" + p.msgPublic
	} else if err := s.reserve(ctx, p); err != nil {
		return nil, err
	}
	hits, err := s.retrieval.Search(ctx, b.WorkspaceID, b.ID, retrievalQuery(msg, p.history), retrieveK)
	if err != nil {
		s.fail(p, err)
		return nil, err
	}
	p.hits = hits
	ex.SessionID = p.publicID
	return ex, nil
}

// Sources are the candidate sources known before the reply: the best
// hits, one per page (none when the message goes to a person or the bot is
// offline). Computed when asked: only a streamed reply announces them.
func (ex *Exchange) Sources() []Source { return sourcesOf(ex.p.hits, nil) }

// retrievalQuery adds the previous visitor question to a short follow-up
// ("and the price?"), which alone retrieves nothing useful.
func retrievalQuery(msg string, history []Turn) string {
	if len(strings.Fields(msg)) > 4 {
		return msg
	}
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Role == RoleUser {
			return history[i].Text + " " + msg
		}
	}
	return msg
}

// Run produces the reply, passing its text to emit as it comes, and
// settles the credit: charged when the reply completed, refunded
// otherwise. A failure before the first emitted text is returned as the
// error with nothing charged. While a person handles the conversation the
// message goes to them instead, and the reply is empty.
func (ex *Exchange) Run(ctx context.Context, emit func(string) error) (*Reply, error) {
	if ex.Mode == ModeWaiting || ex.Mode == ModeHuman {
		b := ex.p.req.Bot.Bot
		id, mode, err := ex.s.relay.VisitorMessage(ctx, b.WorkspaceID, b.ID, ex.p.sessionID, ex.p.req.Message)
		if err != nil {
			return nil, err
		}
		ex.p.msgPublic, ex.Mode = id, mode
		return &Reply{SessionID: ex.SessionID, MessageID: id, Sources: []Source{}, Mode: mode}, nil
	}
	r, err := ex.run(ctx, emit)
	if r != nil {
		r.Mode = ModeBot
		r.HandoffAvailable = !r.Answered && !r.Offline && !r.Preview && ex.p.req.Bot.Bot.LiveChat().Enabled
	}
	return r, err
}

func (ex *Exchange) run(ctx context.Context, emit func(string) error) (*Reply, error) {
	s, p := ex.s, ex.p
	b := p.req.Bot.Bot
	if ex.Offline {
		msg := offlineMessage(b)
		if err := emit(msg); err != nil {
			return nil, err
		}
		return &Reply{SessionID: p.publicID, Reply: msg, Sources: []Source{}, Offline: true}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.ReplyTimeout)
	defer cancel()
	if p.oneShot {
		return s.runOneShot(ctx, p, emit)
	}
	ans, err := s.answerer.Answer(ctx, Prompt{Bot: b, Question: p.req.Message, History: p.history, Passages: p.hits}, emit)
	if err != nil {
		s.fail(p, err)
		return nil, err
	}
	sources := sourcesOf(p.hits, ans.Cited)
	if !ans.Answered {
		sources = []Source{}
	}
	if err := s.complete(ctx, p, ans, sources); err != nil {
		return nil, err
	}
	if ans.Abstained {
		p.cost = 0 // complete gave the reserved credit back
	}
	return &Reply{SessionID: p.publicID, MessageID: p.msgPublic, Reply: ans.Text, Sources: sources,
		Answered: ans.Answered, Preview: p.req.Preview, Credits: p.cost}, nil
}

// runOneShot answers with a composer: the reply is composed, then the
// whole exchange is written and charged in one transaction (402 if the
// balance went short meanwhile: nothing was said yet), then the text is
// emitted. Should emitting fail (the client went away mid-stream), the
// reply was not delivered and its credit is given back, as for a model
// reply cut short.
func (s *Service) runOneShot(ctx context.Context, p *pending, emit func(string) error) (*Reply, error) {
	b := p.req.Bot.Bot
	ans := s.answerer.(composer).compose(Prompt{Bot: b, Question: p.req.Message, History: p.history, Passages: p.hits})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if ans.Abstained {
		p.cost = 0 // an "I don't know" from nothing worth reading is not charged
	}
	sources := sourcesOf(p.hits, ans.Cited)
	if !ans.Answered {
		sources = []Source{}
	}
	if err := s.replies.write(ctx, p, ans, sources); err != nil {
		return nil, err
	}
	for _, part := range streamParts(ans.Text) {
		if err := emit(part); err != nil {
			s.undeliver(p, err)
			return nil, err
		}
	}
	return &Reply{SessionID: p.publicID, MessageID: p.msgPublic, Reply: ans.Text, Sources: sources,
		Answered: ans.Answered, Preview: p.req.Preview, Credits: p.cost}, nil
}

// MessageID is the assistant message's id, known before the reply.
func (ex *Exchange) MessageID() string { return ex.p.msgPublic }

func offlineMessage(b *bot.Bot) string {
	if strings.TrimSpace(b.OfflineMessage) != "" {
		return b.OfflineMessage
	}
	return "This assistant is not available right now. Please try again later."
}

// sourcesOf turns hits into sources: the cited ones in citation order, or
// the best hits when cited is nil.
func sourcesOf(hits []retrieval.Hit, cited []int) []Source {
	idx := cited
	if idx == nil {
		for i := range hits {
			idx = append(idx, i)
		}
	}
	out := []Source{}
	seen := map[string]bool{}
	for _, i := range idx {
		if i < 0 || i >= len(hits) || len(out) == maxSources {
			continue
		}
		h := hits[i]
		// One source per page: its passages' URLs differ by fragment.
		key := h.DocumentName + "\x00" + pageOf(h.URL)
		if h.DocumentID != 0 {
			key = strconv.FormatInt(h.DocumentID, 10)
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, Source{Title: h.Title, Heading: strings.Join(h.HeadingPath, " > "), URL: h.URL, DocumentName: h.DocumentName,
			Snippet: snippet(h.Text, 240), Score: roundScore(sourceScore(h))})
	}
	return out
}

// sourceScore is what ranked the hit: the second stage's score when it
// read the hit (so the sources' scores fall in the order they are listed,
// and a passage only the embedding found does not show 0), BM25's
// otherwise.
func sourceScore(h retrieval.Hit) float64 {
	if h.Evidence.Ranked {
		return h.Evidence.Score
	}
	return h.Score
}

// pageOf is a URL without its fragment.
func pageOf(u string) string {
	if i := strings.IndexByte(u, '#'); i >= 0 {
		return u[:i]
	}
	return u
}

// snippet is the start of s with its whitespace collapsed, at most n
// runes, cut after a word when one ends in the second half, with "…" when
// s is longer. It reads only as much of s as it shows.
func snippet(s string, n int) string {
	var b strings.Builder
	count, cut, space := 0, false, false
	add := func(r rune) bool {
		if count == n {
			cut = true
			return false
		}
		b.WriteRune(r)
		count++
		return true
	}
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = count > 0
			continue
		}
		if space {
			space = false
			if !add(' ') {
				break
			}
		}
		if !add(r) {
			break
		}
	}
	t := b.String()
	if !cut {
		return t
	}
	if i := strings.LastIndexByte(t, ' '); i > n/2 {
		return t[:i] + "…"
	}
	return t + "…"
}

func roundScore(f float64) float64 { return float64(int64(f*1e4+0.5)) / 1e4 }
