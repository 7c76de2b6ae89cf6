package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"concierge/internal/apperr"
	"concierge/internal/livechat"
	"concierge/internal/operator"
	"concierge/internal/store"
	"concierge/web"
)

// Operator-facing live-chat routes. The operator is the X-Operator-Key's,
// an owner's self-operator (X-API-Key with X-Acting-Role: operator), or the
// owner's linked operator in another workspace (X-Workspace-Id). Every
// conversation outside the operator's one bot is 404.

// OperatorContext are the headers an owner acts as an operator with.
type OperatorContext struct {
	ActingRole  string `header:"X-Acting-Role" enum:"owner,operator" doc:"With X-API-Key: operator acts as the owner's self-operator."`
	WorkspaceID int64  `header:"X-Workspace-Id" minimum:"1" doc:"With X-API-Key: act as the owner's linked operator in that workspace."`
}

type handoffInput struct {
	Body struct {
		SessionID string `json:"session_id" maxLength:"100" doc:"The visitor's conversation (from POST /chat)."`
		Message   string `json:"message,omitempty" maxLength:"16000" doc:"What the visitor wants to say to the person (at most 4,000 characters)."`
		Name      string `json:"name,omitempty" maxLength:"100"`
		Email     string `json:"email,omitempty" maxLength:"254"`
	}
}

type handoffOutput struct {
	Body livechat.HandoffResult
}

type inboxInput struct {
	OperatorContext
	Queue string `query:"queue" enum:"waiting,mine,active,closed,all" default:"active" doc:"waiting: unclaimed hand-offs; mine: claimed by me; active: waiting or with a person; closed; all: every handed-off conversation."`
	BotID int64  `query:"bot_id" minimum:"0" doc:"Filter by bot: an operator has one bot, any other id gives an empty page."`
	Page  int    `query:"page" minimum:"1" default:"1"`
	Limit int    `query:"limit" minimum:"1" maximum:"100" default:"50"`
}

type inboxOutput struct {
	Body livechat.Inbox
}

type conversationInput struct {
	OperatorContext
	SessionID string `path:"session_id" maxLength:"100"`
}

type conversationOutput struct {
	Body livechat.ConversationDetail
}

type conversationStateOutput struct {
	Body livechat.Conversation
}

type operatorMessageInput struct {
	OperatorContext
	SessionID string `path:"session_id" maxLength:"100"`
	Body      struct {
		Text string `json:"text" maxLength:"16000" doc:"The reply, 1 to 4,000 characters."`
	}
}

type operatorMessageOutput struct {
	Body struct {
		MessageID string `json:"message_id"`
		SessionID string `json:"session_id"`
	}
}

type okOutput struct {
	Body struct {
		OK bool `json:"ok"`
	}
}

type statusInput struct {
	OperatorContext
	Body struct {
		Status string `json:"status" enum:"online,away"`
	}
}

type presenceOutput struct {
	Body struct {
		OperatorID int64  `json:"operator_id"`
		Status     string `json:"status"`
	}
}

type operatorEventsInput struct {
	OperatorContext
	LastEventID string `header:"Last-Event-ID" maxLength:"20" doc:"Replay the events after this id."`
}

type visitorEventsInput struct {
	SessionID   string `path:"session_id" maxLength:"100"`
	LastEventID string `header:"Last-Event-ID" maxLength:"20" doc:"Replay the events after this id."`
}

// actingOperator resolves the operator a request acts as.
func (s *Server) actingOperator(ctx context.Context, oc OperatorContext) (*operator.Operator, error) {
	p := principal(ctx)
	if p.Operator != nil {
		return p.Operator, nil
	}
	own := p.WorkspaceID()
	target := own
	if oc.WorkspaceID != 0 {
		target = oc.WorkspaceID
	} else if oc.ActingRole != "operator" {
		return nil, apperr.Forbidden("an owner acts as an operator with X-Acting-Role: operator or X-Workspace-Id")
	}
	op, err := s.operators.LinkedIn(ctx, own, target)
	if store.IsNotFound(err) {
		return nil, apperr.Forbidden("you are not an operator there")
	}
	return op, err
}

func (s *Server) livechatRoutes() {
	tags := []string{"Live chat"}
	for path, a := range map[string]struct {
		asset *web.Asset
		ctype string
	}{
		"/operator":     {&web.OperatorPage, "text/html; charset=utf-8"},
		"/operator.js":  {&web.OperatorScript, "application/javascript; charset=utf-8"},
		"/operator.css": {&web.OperatorStyle, "text/css; charset=utf-8"},
	} {
		s.router.Get(path, func(w http.ResponseWriter, r *http.Request) { serveOperatorAsset(w, r, a.asset, a.ctype) })
	}
	register(s, route{id: "handoff", method: http.MethodPost, path: "/operators/handoff", tags: []string{"Chat"}, creds: credBot,
		limit: limitChat, summary: "Ask for a person",
		desc: "When the bot has live chat enabled, the plan has live_chat and an operator of the bot is online within " +
			"the business hours, the conversation waits for an operator (status waiting, queue_position); it goes back " +
			"to the bot if nobody claims it within live_chat.handoff_timeout_seconds. Otherwise status unavailable with " +
			"the away message and whether to offer the contact form; the bot keeps answering. While waiting or with a " +
			"person, POST /chat and /chat/stream deliver the visitor's messages to the operator (mode in the reply, " +
			"nothing charged). 403 feature_not_available without the live_chat feature; 404 for a session of another bot.",
		errors: []int{http.StatusForbidden, http.StatusNotFound, http.StatusUnprocessableEntity}},
		func(ctx context.Context, in *handoffInput) (*handoffOutput, error) {
			p := principal(ctx)
			res, err := s.livechat.Handoff(ctx, p.BotView, livechat.HandoffInput{SessionID: in.Body.SessionID,
				Message: in.Body.Message, Name: in.Body.Name, Email: in.Body.Email})
			if err != nil {
				return nil, err
			}
			return &handoffOutput{Body: *res}, nil
		})

	opCreds := credOperator | credWorkspace
	register(s, route{id: "operator-conversations", method: http.MethodGet, path: "/operators/conversations", tags: tags,
		creds: opCreds, limit: limitRead, summary: "The operator's inbox",
		desc:   "Conversations of the operator's bot, newest activity first (queue waiting: oldest request first).",
		errors: []int{http.StatusForbidden}},
		func(ctx context.Context, in *inboxInput) (*inboxOutput, error) {
			op, err := s.actingOperator(ctx, in.OperatorContext)
			if err != nil {
				return nil, err
			}
			if in.BotID != 0 && in.BotID != op.BotID {
				return &inboxOutput{Body: livechat.Inbox{Items: []livechat.Conversation{}, Page: in.Page, Limit: in.Limit}}, nil
			}
			page, err := s.livechat.List(ctx, op, in.Queue, in.Page, in.Limit)
			if err != nil {
				return nil, err
			}
			return &inboxOutput{Body: *page}, nil
		})

	register(s, route{id: "operator-conversation", method: http.MethodGet, path: "/operators/conversations/{session_id}", tags: tags,
		creds: opCreds, limit: limitRead, summary: "One conversation: transcript, lead, pages seen",
		errors: []int{http.StatusForbidden, http.StatusNotFound}},
		func(ctx context.Context, in *conversationInput) (*conversationOutput, error) {
			op, err := s.actingOperator(ctx, in.OperatorContext)
			if err != nil {
				return nil, err
			}
			d, err := s.livechat.Get(ctx, op, in.SessionID)
			if err != nil {
				return nil, err
			}
			return &conversationOutput{Body: *d}, nil
		})

	transition := func(id, path, summary, desc string, fn func(context.Context, *operator.Operator, string) (*livechat.Conversation, error)) {
		register(s, route{id: id, method: http.MethodPost, path: path, tags: tags, creds: opCreds, limit: limitWrite,
			summary: summary, desc: desc, errors: []int{http.StatusForbidden, http.StatusNotFound, http.StatusConflict}},
			func(ctx context.Context, in *conversationInput) (*conversationStateOutput, error) {
				op, err := s.actingOperator(ctx, in.OperatorContext)
				if err != nil {
					return nil, err
				}
				c, err := fn(ctx, op, in.SessionID)
				if err != nil {
					return nil, err
				}
				return &conversationStateOutput{Body: *c}, nil
			})
	}
	transition("operator-claim", "/operators/conversations/{session_id}/claim", "Take a waiting conversation",
		"Exactly one of several operators claiming at once wins; the others get 409.", s.livechat.Claim)
	transition("operator-release", "/operators/conversations/{session_id}/release", "Give the conversation back to the bot",
		"By the operator who claimed it (or a waiting one); 409 otherwise.", s.livechat.Release)
	transition("operator-close", "/operators/conversations/{session_id}/close", "Resolve the conversation",
		"By the operator who claimed it (or a waiting one). When the visitor left an e-mail address the transcript is "+
			"e-mailed to them.", s.livechat.Close)

	register(s, route{id: "operator-message", method: http.MethodPost, path: "/operators/conversations/{session_id}/messages", tags: tags,
		creds: opCreds, limit: limitWrite, summary: "Reply to the visitor",
		desc:   "Only in a conversation the operator claimed (409 otherwise). 422 for an empty or over-long (> 4,000) text.",
		errors: []int{http.StatusForbidden, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity}},
		func(ctx context.Context, in *operatorMessageInput) (*operatorMessageOutput, error) {
			op, err := s.actingOperator(ctx, in.OperatorContext)
			if err != nil {
				return nil, err
			}
			id, err := s.livechat.Send(ctx, op, in.SessionID, in.Body.Text)
			if err != nil {
				return nil, err
			}
			out := &operatorMessageOutput{}
			out.Body.MessageID, out.Body.SessionID = id, in.SessionID
			return out, nil
		})

	simple := func(id, path, summary string, fn func(context.Context, *operator.Operator, string) error) {
		register(s, route{id: id, method: http.MethodPost, path: path, tags: tags, creds: opCreds, limit: limitWrite,
			summary: summary, errors: []int{http.StatusForbidden, http.StatusNotFound, http.StatusConflict}},
			func(ctx context.Context, in *conversationInput) (*okOutput, error) {
				op, err := s.actingOperator(ctx, in.OperatorContext)
				if err != nil {
					return nil, err
				}
				if err := fn(ctx, op, in.SessionID); err != nil {
					return nil, err
				}
				out := &okOutput{}
				out.Body.OK = true
				return out, nil
			})
	}
	simple("operator-typing", "/operators/conversations/{session_id}/typing", "Tell the visitor the operator is writing", s.livechat.Typing)
	simple("operator-read", "/operators/conversations/{session_id}/read", "Mark the conversation read", s.livechat.Read)

	register(s, route{id: "operator-status", method: http.MethodPut, path: "/operators/me/status", tags: tags,
		creds: opCreds, limit: limitWrite, summary: "Set presence: online or away",
		desc: "An operator is also online while one of its event streams (GET /operators/events) is open, unless set " +
			"away.", errors: []int{http.StatusForbidden}},
		func(ctx context.Context, in *statusInput) (*presenceOutput, error) {
			op, err := s.actingOperator(ctx, in.OperatorContext)
			if err != nil {
				return nil, err
			}
			if err := s.livechat.SetStatus(ctx, op, in.Body.Status); err != nil {
				return nil, err
			}
			out := &presenceOutput{}
			out.Body.OperatorID, out.Body.Status = op.ID, in.Body.Status
			return out, nil
		})

	register(s, route{id: "operator-events", method: http.MethodGet, path: "/operators/events", tags: tags,
		creds: opCreds, limit: limitRead, summary: "Server-sent events of the operator's bot",
		desc: "text/event-stream: events message, mode (handoff_requested, claimed, released, timed_out, closed), typing " +
			"and read, each with an id; a comment heartbeat every 15 s. Reconnect with Last-Event-ID to replay what was " +
			"missed. At most 5 open streams per credential (429); a reader that falls behind is disconnected.",
		errors: []int{http.StatusForbidden}},
		func(ctx context.Context, in *operatorEventsInput) (*huma.StreamResponse, error) {
			op, err := s.actingOperator(ctx, in.OperatorContext)
			if err != nil {
				return nil, err
			}
			after := lastEventID(in.LastEventID)
			sub, err := s.livechat.Hub().Subscribe("op:"+strconv.FormatInt(op.ID, 10), op.BotID, 0, false)
			if err != nil {
				return nil, err
			}
			s.livechat.StreamSeen(ctx, op)
			return &huma.StreamResponse{Body: func(hctx huma.Context) {
				s.streamEvents(ctx, hctx, sub, func(after int64) ([]livechat.Event, error) {
					return s.livechat.Replay(ctx, op.WorkspaceID, op.BotID, 0, after, replayPage)
				}, after, func() { s.livechat.StreamSeen(ctx, op) })
			}}, nil
		})

	register(s, route{id: "chat-events", method: http.MethodGet, path: "/chat/events/{session_id}", tags: []string{"Chat"},
		creds: credBot, limit: limitPublic, summary: "Server-sent events of one conversation (the widget)",
		desc: "text/event-stream of the visitor's conversation: message (operator replies), mode and typing, each with " +
			"an id; a heartbeat comment every 15 s; Last-Event-ID replays. Only sessions of the key's bot (404 otherwise).",
		errors: []int{http.StatusNotFound}},
		func(ctx context.Context, in *visitorEventsInput) (*huma.StreamResponse, error) {
			b := principal(ctx).Bot
			sid, err := s.livechat.SessionID(ctx, b.WorkspaceID, b.ID, in.SessionID)
			if err != nil {
				return nil, err
			}
			after := lastEventID(in.LastEventID)
			sub, err := s.livechat.Hub().Subscribe("session:"+in.SessionID, b.ID, sid, true)
			if err != nil {
				return nil, err
			}
			return &huma.StreamResponse{Body: func(hctx huma.Context) {
				s.streamEvents(ctx, hctx, sub, func(after int64) ([]livechat.Event, error) {
					return s.livechat.Replay(ctx, b.WorkspaceID, b.ID, sid, after, replayPage)
				}, after, nil)
			}}, nil
		})
}

// serveOperatorAsset serves a file of the operator inbox page, gzipped
// when the client takes it, with a strict CSP on the page.
func serveOperatorAsset(w http.ResponseWriter, r *http.Request, a *web.Asset, ctype string) {
	body, etag := a.Body, a.ETag
	h := w.Header()
	h.Add("Vary", "Accept-Encoding")
	if acceptsGzip(r.Header.Values("Accept-Encoding")) {
		body, etag = a.Gzip, a.GzipETag
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("Content-Type", ctype)
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", etag)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", web.OperatorCSP)
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	if etagMatches(r.Header.Values("If-None-Match"), etag) {
		h.Del("Content-Encoding")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

func lastEventID(s string) int64 {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id < 0 {
		return 0
	}
	return id
}

// replayPage is how many missed events one replay query reads.
const replayPage = 500

// heartbeat is the interval of the SSE comment that keeps proxies open.
var heartbeat = 15 * time.Second

// streamEvents writes an SSE stream: the replay (subscribed first, so
// nothing falls between), then live events, skipping what the replay
// already sent, with a heartbeat; it ends when the client leaves or the
// hub drops a slow reader.
func (s *Server) streamEvents(ctx context.Context, hctx huma.Context, sub *livechat.Subscriber,
	replay func(after int64) ([]livechat.Event, error), after int64, tick func()) {
	defer s.livechat.Hub().Unsubscribe(sub)
	w := hctx.BodyWriter()
	var rc *http.ResponseController
	if rw, ok := w.(http.ResponseWriter); ok {
		rc = http.NewResponseController(rw)
	}
	// Each write has its own deadline instead of the server's: a stream
	// lives long, but a reader that stops reading is cut off.
	arm := func() {
		if rc != nil {
			_ = rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		}
	}
	arm()
	flush := func() error {
		if rc == nil {
			return nil
		}
		return rc.Flush()
	}
	hctx.SetHeader("Content-Type", "text/event-stream; charset=utf-8")
	hctx.SetHeader("Cache-Control", "no-cache, no-transform")
	hctx.SetHeader("X-Accel-Buffering", "no")
	hctx.SetStatus(http.StatusOK)
	write := func(ev *livechat.Event) error {
		_, err := fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", ev.ID, ev.Kind, compactJSON(ev.Data))
		return err
	}
	if _, err := w.Write([]byte(": connected\nretry: 2000\n\n")); err != nil {
		return
	}
	sent := map[int64]bool{}
	for after > 0 { // replay page by page
		arm()
		evs, err := replay(after)
		if err != nil {
			s.log.Warn("replay", "err", err)
			return
		}
		for i := range evs {
			after = evs[i].ID
			if !sub.Visible(&evs[i]) {
				continue
			}
			sent[evs[i].ID] = true
			if write(&evs[i]) != nil {
				return
			}
		}
		if len(evs) < replayPage {
			break
		}
	}
	if flush() != nil {
		return
	}
	t := time.NewTicker(heartbeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-sub.Gone:
			return
		case <-t.C:
			if tick != nil {
				tick()
			}
			arm()
			if _, err := w.Write([]byte(": ping\n\n")); err != nil || flush() != nil {
				return
			}
		case <-sub.Ready:
			arm()
			for _, ev := range sub.Take() {
				if sent[ev.ID] {
					delete(sent, ev.ID)
					continue
				}
				if write(&ev) != nil {
					return
				}
			}
			if flush() != nil {
				return
			}
		}
	}
}

// streamWriteTimeout bounds one write (and flush) of an event stream.
const streamWriteTimeout = 15 * time.Second

func compactJSON(s string) string {
	var v json.RawMessage = []byte(s)
	if !json.Valid(v) {
		return "{}"
	}
	return s // written by us with json.Marshal: one line
}
