package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"concierge/internal/apperr"
	"concierge/internal/bot"
	"concierge/internal/chat"
)

type chatInput struct {
	Preview bool   `query:"preview" doc:"Owner preview (X-API-Key with bot_id): any owned bot, no credits charged."`
	BotID   int64  `query:"bot_id" minimum:"1" doc:"Owner preview only: the bot to preview."`
	Origin  string `header:"Origin" hidden:"true"`
	Body    struct {
		Message   string `json:"message" minLength:"1" maxLength:"16000" doc:"The visitor's question (at most 4,000 characters)."`
		SessionID string `json:"session_id,omitempty" maxLength:"100" doc:"Continue this conversation; omit to start one (the reply carries the new id)."`
	}
}

type chatOutput struct {
	Body chat.Reply
}

type chatHistoryInput struct {
	SessionID string `path:"session_id" maxLength:"100"`
}

type chatHistoryOutput struct {
	Body struct {
		SessionID string         `json:"session_id"`
		Messages  []chat.Message `json:"messages"`
	}
}

type feedbackInput struct {
	Body struct {
		SessionID string `json:"session_id" maxLength:"100"`
		MessageID string `json:"message_id" maxLength:"100"`
		Rating    string `json:"rating" enum:"up,down"`
	}
}

type feedbackOutput struct {
	Body struct {
		Recorded bool `json:"recorded"`
	}
}

const chatDesc = "Credentials: X-Bot-Key (the widget), or X-API-Key for the workspace's default bot. " +
	"With preview=true and bot_id an owner previews any of their bots without being charged; only there is " +
	"X-Impersonation-Token accepted. Each delivered reply costs the plan's chat_reply credits (402 " +
	"insufficient_credits before any model call when the balance is short; a reply that fails is not charged). " +
	"While the bot is offline the reply is its offline message only: no retrieval, no model, no charge."

func (s *Server) chatRoutes() {
	tags := []string{"Chat"}
	register(s, route{id: "chat", method: http.MethodPost, path: "/chat", tags: tags, creds: credBot | credWorkspace,
		limit: limitChat, impersonation: true, summary: "Ask the bot a question", desc: chatDesc,
		errors: []int{http.StatusPaymentRequired, http.StatusForbidden, http.StatusNotFound, http.StatusBadGateway,
			http.StatusServiceUnavailable, http.StatusGatewayTimeout}},
		func(ctx context.Context, in *chatInput) (*chatOutput, error) {
			ex, err := s.beginChat(ctx, in)
			if err != nil {
				return nil, err
			}
			reply, err := ex.Run(ctx, func(string) error { return nil })
			if err != nil {
				return nil, err
			}
			return &chatOutput{Body: *reply}, nil
		})

	register(s, route{id: "chat-stream", method: http.MethodPost, path: "/chat/stream", tags: tags, creds: credBot | credWorkspace,
		limit: limitChat, impersonation: true, summary: "Ask the bot a question; the reply streams",
		desc: chatDesc + " The body is text: a line `METADATA: {json}` (session_id, sources), the reply text as it is " +
			"written, then `\\nFINAL_METADATA: {json}` (session_id, message_id, answered, sources, credits_charged, and " +
			"error when the reply broke off). A reply line starting with METADATA:, FINAL_METADATA: or a backslash is " +
			"sent with one more backslash in front. A failure before the first word is an ordinary error response.",
		errors: []int{http.StatusPaymentRequired, http.StatusForbidden, http.StatusNotFound, http.StatusBadGateway,
			http.StatusServiceUnavailable, http.StatusGatewayTimeout}},
		func(ctx context.Context, in *chatInput) (*huma.StreamResponse, error) {
			ex, err := s.beginChat(ctx, in)
			if err != nil {
				return nil, err
			}
			return &huma.StreamResponse{Body: func(hctx huma.Context) { s.streamReply(ctx, hctx, ex) }}, nil
		})

	register(s, route{id: "chat-history", method: http.MethodGet, path: "/chat/history/{session_id}", tags: tags,
		creds: credBot, limit: limitPublic, summary: "A conversation, to rehydrate the widget after a reload",
		desc: "Only sessions of the bot whose key is sent; any other id is 404.", errors: []int{http.StatusNotFound}},
		func(ctx context.Context, in *chatHistoryInput) (*chatHistoryOutput, error) {
			b := principal(ctx).Bot
			msgs, err := s.chat.History(ctx, b.WorkspaceID, b.ID, in.SessionID)
			if err != nil {
				return nil, err
			}
			out := &chatHistoryOutput{}
			out.Body.SessionID, out.Body.Messages = in.SessionID, msgs
			return out, nil
		})

	register(s, route{id: "chat-feedback", method: http.MethodPost, path: "/chat/feedback", tags: tags,
		creds: credBot, limit: limitChat, summary: "A visitor's rating of a reply",
		desc:   "rating up or down; rating again replaces the earlier one. Analytics reads these.",
		errors: []int{http.StatusNotFound}},
		func(ctx context.Context, in *feedbackInput) (*feedbackOutput, error) {
			b := principal(ctx).Bot
			if err := s.chat.Rate(ctx, b.WorkspaceID, b.ID, in.Body.SessionID, in.Body.MessageID, in.Body.Rating); err != nil {
				return nil, err
			}
			out := &feedbackOutput{}
			out.Body.Recorded = true
			return out, nil
		})
}

// beginChat resolves the bot (spec 4.3 rules 2–4) and starts the
// exchange: everything that can be refused is refused here, before a
// stream starts.
func (s *Server) beginChat(ctx context.Context, in *chatInput) (*chat.Exchange, error) {
	p := principal(ctx)
	var (
		v   *bot.View
		err error
	)
	switch {
	case p.Impersonation != nil && !(in.Preview && in.BotID != 0):
		return nil, apperr.Unauthorized("X-Impersonation-Token is accepted only for an owner preview (preview=true with bot_id)")
	case p.Bot != nil && in.Preview:
		return nil, apperr.Forbidden("preview needs the workspace key (X-API-Key) and bot_id")
	case p.Bot != nil && in.BotID != 0:
		return nil, apperr.Invalid("query.bot_id", "only for an owner preview with X-API-Key", "value_error")
	case p.Bot != nil:
		v = p.BotView
	case in.Preview && in.BotID != 0:
		v, err = s.bots.Get(ctx, p.WorkspaceID(), in.BotID)
	case in.Preview:
		return nil, apperr.Invalid("query.bot_id", "an owner preview names the bot to preview", "value_error.missing")
	case in.BotID != 0:
		return nil, apperr.Invalid("query.bot_id", "only for an owner preview (preview=true)", "value_error")
	default:
		v, err = s.bots.Default(ctx, p.WorkspaceID())
	}
	if err != nil {
		return nil, err
	}
	return s.chat.Begin(ctx, chat.Request{Bot: v, Message: in.Body.Message, SessionID: in.Body.SessionID,
		Preview: in.Preview, Origin: in.Origin})
}

// streamReply writes the stream of spec 4.3 rule 1. Nothing is written
// until the first word (or the end): a model failure before it is still an
// ordinary error response with its status and Retry-After.
func (s *Server) streamReply(ctx context.Context, hctx huma.Context, ex *chat.Exchange) {
	w := hctx.BodyWriter()
	var rc *http.ResponseController
	if rw, ok := w.(http.ResponseWriter); ok {
		rc = http.NewResponseController(rw)
		_ = rc.SetWriteDeadline(time.Time{}) // a long answer is not a slow client
	}
	flush := func() error {
		if rc == nil {
			return nil
		}
		return rc.Flush()
	}
	started := false
	esc := chat.NewEscaper()
	start := func() error {
		if started {
			return nil
		}
		started = true
		hctx.SetHeader("Content-Type", "text/event-stream; charset=utf-8")
		hctx.SetHeader("Cache-Control", "no-cache, no-transform")
		hctx.SetHeader("X-Accel-Buffering", "no")
		hctx.SetStatus(http.StatusOK)
		meta, _ := json.Marshal(map[string]any{"session_id": ex.SessionID, "message_id": ex.MessageID(),
			"sources": ex.Sources(), "offline": ex.Offline, "mode": ex.Mode})
		if _, err := w.Write([]byte(chat.MetadataPrefix + string(meta) + "\n")); err != nil {
			return err
		}
		return nil
	}
	emit := func(text string) error {
		if err := start(); err != nil {
			return err
		}
		if out := esc.Write(text); out != "" {
			if _, err := w.Write([]byte(out)); err != nil {
				return err
			}
		}
		return flush()
	}
	reply, err := ex.Run(ctx, emit)
	if err != nil && !started {
		s.writeErr(hctx, err)
		return
	}
	final := map[string]any{"session_id": ex.SessionID, "message_id": ex.MessageID(), "mode": ex.Mode}
	if err != nil {
		herr := s.toHTTP(ctx, err)
		final["answered"], final["sources"], final["credits_charged"] = false, []chat.Source{}, 0
		final["error"] = map[string]any{"status": statusOf(herr), "detail": "the reply broke off; nothing was charged"}
	} else {
		final["answered"], final["sources"], final["credits_charged"] = reply.Answered, reply.Sources, reply.Credits
		final["offline"] = reply.Offline
		final["mode"], final["handoff_available"] = reply.Mode, reply.HandoffAvailable
		if reply.Preview {
			final["preview"] = true
		}
	}
	_ = start()
	tail, _ := json.Marshal(final)
	_, _ = w.Write([]byte(esc.Flush() + "\n" + chat.FinalMetadataPrefix + string(tail) + "\n"))
	_ = flush()
}

func statusOf(err error) int {
	if se, ok := err.(huma.StatusError); ok {
		return se.GetStatus()
	}
	return http.StatusInternalServerError
}

// Widget endpoints are called from customers' pages. The bot's origin
// allowlist decides: exact scheme://host[:port] matches get CORS headers,
// any other browser origin gets 403 and none. An empty allowlist admits
// every origin, so a new bot works before its owner lists their sites;
// the service's own origin (the demo page) is always admitted.

// widgetPaths are the routes the widget calls from other origins.
func isWidgetPath(p string) bool {
	return p == "/bots/settings/public" || strings.HasPrefix(p, "/chat/") || p == "/chat" || p == "/operators/handoff"
}

// preflight answers CORS preflights of widget endpoints. A preflight
// carries no credential (browsers never send X-Bot-Key with it), so the
// bot, and its allowlist, cannot be known here: it only states what the
// widget may send. The real request is checked against the allowlist and
// gets CORS headers only when admitted, so a page of another origin
// cannot read any answer.
func preflight(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if r.Method == http.MethodOptions && origin != "" && r.Header.Get("Access-Control-Request-Method") != "" &&
			isWidgetPath(r.URL.Path) {
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Add("Vary", "Origin")
			h.Set("Access-Control-Allow-Methods", "GET, POST")
			h.Set("Access-Control-Allow-Headers", "Content-Type, X-Bot-Key, Last-Event-ID")
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// checkOrigin runs after authentication on routes that accept a bot key.
func (s *Server) checkOrigin(ctx huma.Context, next func(huma.Context)) {
	origin := ctx.Header("Origin")
	p := principal(ctx.Context())
	if origin == "" || p == nil || p.Bot == nil {
		next(ctx)
		return
	}
	if !originAllowed(origin, s.publicOrigin, p.Bot) {
		s.writeErr(ctx, apperr.Forbidden("this site is not allowed to use this chatbot: add its origin to the bot's allowed_origins"))
		return
	}
	ctx.SetHeader("Access-Control-Allow-Origin", origin)
	ctx.AppendHeader("Vary", "Origin")
	ctx.SetHeader("Access-Control-Expose-Headers", "Retry-After")
	next(ctx)
}

// originAllowed decides for a browser origin. The service's own origin
// comes from configuration (self), never from the request's Host header,
// which the caller chooses.
func originAllowed(origin, self string, b *bot.Bot) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	if self != "" && strings.EqualFold(origin, self) {
		return true // the service's own pages (the demo page)
	}
	allowed := b.AllowedOrigins()
	if len(allowed) == 0 {
		return true
	}
	return slices.ContainsFunc(allowed, func(a string) bool { return strings.EqualFold(a, origin) })
}

type seedQuestionsInput struct {
	BotID int64 `path:"bot_id" minimum:"1"`
	Force bool  `query:"force" doc:"Recompute instead of answering from the cache."`
}

type seedQuestionsOutput struct {
	Body struct {
		Questions []string `json:"questions" maxItems:"3" doc:"0 to 3 questions the bot answers from its knowledge today."`
	}
}

type toneDetectOutput struct {
	Body chat.ToneResult
}

type tonePreviewInput struct {
	BotID int64 `path:"bot_id" minimum:"1"`
	Body  struct {
		TonePreset string `json:"tone_preset,omitempty" maxLength:"40" doc:"A key of GET /bots/brand-tone-presets; default: the bot's."`
		BrandTone  string `json:"brand_tone,omitempty" maxLength:"2000" doc:"Unsaved tone text; the default (extractive) answerer previews the preset's voice."`
	}
}

type tonePreviewOutput struct {
	Body struct {
		Question string `json:"question,omitempty" doc:"The visitor question the sample answers, when it answers one."`
		Sample   string `json:"sample" doc:"A sample reply of one or two sentences in that tone."`
	}
}

func (s *Server) assistRoutes() {
	tags := []string{"Chatbots"}
	register(s, route{id: "seed-questions", method: http.MethodPost, path: "/bots/{bot_id}/seed-questions", tags: tags,
		creds: credWorkspace, limit: limitWrite, summary: "Suggested first questions for the widget",
		desc: "Proposed from the bot's knowledge (its FAQ entries, the topics its headings name) and each kept only if " +
			"the live retrieval answers it. Cached on the bot; force=true recomputes. An empty list is a normal " +
			"outcome. Needs a verified e-mail address (403 email_not_verified).",
		errors: []int{http.StatusForbidden, http.StatusNotFound}},
		func(ctx context.Context, in *seedQuestionsInput) (*seedQuestionsOutput, error) {
			p := principal(ctx)
			if p.Workspace == nil || p.Workspace.EmailVerifiedAt == nil {
				return nil, &ErrorBody{status: http.StatusForbidden, Detail: map[string]any{"error": "email_not_verified",
					"message": "verify the workspace e-mail address first (POST /auth/verify-email)"}}
			}
			qs, err := s.chat.SeedQuestions(ctx, p.WorkspaceID(), in.BotID, in.Force)
			if err != nil {
				return nil, err
			}
			out := &seedQuestionsOutput{}
			out.Body.Questions = qs
			return out, nil
		})

	register(s, route{id: "brand-tone-detect", method: http.MethodPost, path: "/bots/{bot_id}/brand-tone/detect", tags: tags,
		creds: credWorkspace, limit: limitWrite, summary: "Detect the brand tone from the crawled content",
		desc: "Classifies the voice of the pages already crawled (uploads when there are none; nothing is fetched), " +
			"writes the preset's text and key on the bot and unlocks brand_tone so later crawls keep it fresh until " +
			"the owner edits it. 409 when the bot has no content yet.",
		errors: []int{http.StatusForbidden, http.StatusNotFound, http.StatusConflict}},
		func(ctx context.Context, in *botIDInput) (*toneDetectOutput, error) {
			res, err := s.chat.DetectTone(ctx, principal(ctx).WorkspaceID(), in.BotID)
			if err != nil {
				return nil, err
			}
			return &toneDetectOutput{Body: *res}, nil
		})

	register(s, route{id: "brand-tone-preview", method: http.MethodPost, path: "/bots/{bot_id}/brand-tone/preview", tags: tags,
		creds: credWorkspace, limit: limitWrite, summary: "A sample reply in an unsaved tone",
		desc: "One or two sentences answering one of the bot's own likely questions from its knowledge in the given " +
			"preset's voice, or the preset's sample when the knowledge answers none. Nothing is saved.",
		errors: []int{http.StatusForbidden, http.StatusNotFound}},
		func(ctx context.Context, in *tonePreviewInput) (*tonePreviewOutput, error) {
			q, sample, err := s.chat.PreviewTone(ctx, principal(ctx).WorkspaceID(), in.BotID, in.Body.TonePreset, in.Body.BrandTone)
			if err != nil {
				return nil, err
			}
			out := &tonePreviewOutput{}
			out.Body.Question, out.Body.Sample = q, sample
			return out, nil
		})
}
