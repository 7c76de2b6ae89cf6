package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"concierge/internal/apperr"
	"concierge/internal/bot"
)

// BotView is the full configuration of a bot.
type BotView struct {
	BotID             int64             `json:"bot_id"`
	BotKey            string            `json:"bot_key" doc:"Public embed key (data-bot-key); identifies the bot on widget endpoints."`
	Name              string            `json:"name"`
	Greeting          string            `json:"greeting"`
	Prompt            string            `json:"prompt" doc:"Instructions added to every answer's prompt."`
	Tone              ToneView          `json:"tone"`
	Appearance        bot.Appearance    `json:"appearance"`
	Copy              bot.Copy          `json:"copy"`
	LiveChat          bot.LiveChat      `json:"live_chat"`
	Qualification     bot.Qualification `json:"qualification"`
	AllowedOrigins    []string          `json:"allowed_origins" doc:"Origins allowed to embed the widget."`
	NotificationEmail *string           `json:"notification_email"`
	ReplyToEmail      *string           `json:"reply_to_email"`
	OfflineMessage    string            `json:"offline_message"`
	IsOffline         bool              `json:"is_offline" doc:"True when the workspace is not serving or the bot's own subscription is not active: visitors then get only offline_message."`
	SubscriptionID    *string           `json:"subscription_id" doc:"The payment provider's id of the bot's own subscription, if it has one."`
	AutoRecrawl       BotRecrawlView    `json:"auto_recrawl" doc:"Details and plan availability: GET /bots/{bot_id}/recrawl."`
	DemoShareClicks   int               `json:"demo_share_clicks"`
	CreatedAt         string            `json:"created_at"`
	UpdatedAt         string            `json:"updated_at"`
}

// ToneView is the bot's voice.
type ToneView struct {
	Preset    string `json:"preset" doc:"Key of a brand-tone preset (GET /bots/brand-tone-presets)."`
	BrandTone string `json:"brand_tone" doc:"The tone instructions used when answering."`
	// Locked: the customer set the tone, so crawls leave it alone.
	Locked bool `json:"brand_tone_locked"`
}

// BotRecrawlView is the auto-recrawl part of a bot's configuration.
type BotRecrawlView struct {
	Enabled   bool            `json:"enabled"`
	NextRunAt *string         `json:"next_run_at"`
	LastRun   *bot.RecrawlRun `json:"last_run"`
}

// RecrawlView is the auto-recrawl state and last run.
type RecrawlView struct {
	Enabled       bool            `json:"enabled"`
	Available     bool            `json:"available" doc:"The plan has the auto_recrawl feature."`
	IntervalHours int             `json:"interval_hours"`
	NextRunAt     *string         `json:"next_run_at"`
	LastRun       *bot.RecrawlRun `json:"last_run" doc:"Summary of the last run, or null."`
}

func botView(v *bot.View) BotView {
	b := v.Bot
	return BotView{
		BotID: b.ID, BotKey: b.Key, Name: b.Name, Greeting: b.Greeting, Prompt: b.Prompt,
		Tone:       ToneView{Preset: b.TonePreset, BrandTone: b.BrandTone, Locked: b.BrandToneLocked},
		Appearance: b.Appearance(), Copy: b.Copy(), LiveChat: b.LiveChat(), Qualification: b.Qualification(),
		AllowedOrigins: b.AllowedOrigins(), NotificationEmail: b.NotificationEmail, ReplyToEmail: b.ReplyToEmail,
		OfflineMessage: b.OfflineMessage, IsOffline: v.IsOffline, SubscriptionID: v.SubscriptionRef,
		AutoRecrawl:     BotRecrawlView{Enabled: b.RecrawlEnabled, NextRunAt: optTime(b.RecrawlNextAt), LastRun: b.RecrawlLastRunSummary()},
		DemoShareClicks: b.DemoShareClicks, CreatedAt: timestamp(b.CreatedAt), UpdatedAt: timestamp(b.UpdatedAt),
	}
}

func optTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := timestamp(*t)
	return &s
}

// BotSettings are the writable field groups; every one is optional, and
// object groups are merged (RFC 7396) into what is stored. Unknown fields
// (ids, keys, is_offline, subscription references) are ignored.
type BotSettings struct {
	Greeting          *string             `json:"greeting,omitempty" maxLength:"1000"`
	Prompt            *string             `json:"prompt,omitempty" maxLength:"8000"`
	Tone              *toneInput          `json:"tone,omitempty"`
	Appearance        *bot.Appearance     `json:"appearance,omitempty"`
	Copy              *bot.Copy           `json:"copy,omitempty"`
	LiveChat          *liveChatPatch      `json:"live_chat,omitempty"`
	Qualification     *qualificationPatch `json:"qualification,omitempty"`
	AllowedOrigins    []string            `json:"allowed_origins,omitempty" maxItems:"50" doc:"Replaces the list. Not writable under an impersonation session."`
	NotificationEmail *string             `json:"notification_email,omitempty" nullable:"true" maxLength:"254" doc:"Not writable under an impersonation session."`
	ReplyToEmail      *string             `json:"reply_to_email,omitempty" nullable:"true" maxLength:"254" doc:"Not writable under an impersonation session."`
	OfflineMessage    *string             `json:"offline_message,omitempty" maxLength:"1000"`
}

type toneInput struct {
	Preset    *string `json:"preset,omitempty" doc:"A brand-tone preset key; its text becomes brand_tone unless brand_tone is also sent."`
	BrandTone *string `json:"brand_tone,omitempty" maxLength:"2000"`
}

type createBotInput struct {
	Body struct {
		Name string `json:"name" minLength:"1" maxLength:"100"`
		BotSettings
	}
}

type updateBotInput struct {
	BotID int64 `path:"bot_id" minimum:"1"`
	Body  struct {
		Name *string `json:"name,omitempty" minLength:"1" maxLength:"100"`
		BotSettings
	}
}

type botOutput struct {
	Body BotView
}

type botCreatedOutput struct {
	Status int
	Body   BotView
}

type listBotsInput struct {
	ActingRole  string `header:"X-Acting-Role" enum:"owner,operator" doc:"operator: an owner sees only their self-operator bot (all bots when they have none)."`
	WorkspaceID int64  `header:"X-Workspace-Id" minimum:"1" doc:"A linked operator acting in another workspace: only the bot they operate there."`
}

type listBotsOutput struct {
	Body []BotView
}

type botIDInput struct {
	BotID int64 `path:"bot_id" minimum:"1"`
}

type deletedOutput struct {
	Body struct {
		Deleted bool  `json:"deleted"`
		BotID   int64 `json:"bot_id"`
	}
}

// rawFields splits the request's JSON object body into its top-level
// fields, so partial updates can tell an absent field from a zero one.
func rawFields(ctx context.Context) (map[string]json.RawMessage, error) {
	raw := rawBody(ctx)
	fields := map[string]json.RawMessage{}
	if len(raw) == 0 {
		return fields, nil
	}
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, apperr.BadRequest("malformed request body: " + err.Error())
	}
	return fields, nil
}

func (s *Server) botRoutes() {
	tags := []string{"Chatbots"}
	register(s, route{id: "list-bots", method: http.MethodGet, path: "/bots", tags: tags,
		creds: credWorkspace | credOperator, limit: limitRead, summary: "List chatbots",
		desc: "An owner sees every bot of the workspace; an operator key sees only its bot; an owner with " +
			"X-Workspace-Id of another workspace where they are a linked operator sees only that bot (403 when not " +
			"linked); an owner with X-Acting-Role: operator sees only their self-operator bot, or every bot when " +
			"they have none.", errors: []int{http.StatusForbidden}},
		func(ctx context.Context, in *listBotsInput) (*listBotsOutput, error) {
			p := principal(ctx)
			c := bot.Caller{WorkspaceID: p.WorkspaceID()}
			if p.Operator != nil {
				c.OperatorBotID = p.Operator.BotID
			} else {
				c.ActingAsOperator = in.ActingRole == "operator"
				c.TargetWorkspaceID = in.WorkspaceID
			}
			views, err := s.bots.ListFor(ctx, c)
			if err != nil {
				return nil, err
			}
			out := &listBotsOutput{Body: make([]BotView, len(views))}
			for i := range views {
				out.Body[i] = botView(&views[i])
			}
			return out, nil
		})

	register(s, route{id: "create-bot", method: http.MethodPost, path: "/bots", tags: tags, creds: credWorkspace,
		limit: limitWrite, status: http.StatusCreated, rawBody: true, summary: "Create a chatbot",
		desc: "201 with the bot. 403 with detail.error subscription_required when the workspace is not serving " +
			"(trial over, no active subscription); 403 with detail.error plan_limit_reached when the plan's " +
			"chatbots are used up (add a bot with its own subscription via POST /bots/checkout; " +
			"GET /auth/me/entitlements tells which path applies).",
		errors: []int{http.StatusForbidden, http.StatusUnprocessableEntity}},
		func(ctx context.Context, in *createBotInput) (*botCreatedOutput, error) {
			fields, err := rawFields(ctx)
			if err != nil {
				return nil, err
			}
			v, err := s.bots.Create(ctx, principal(ctx).WorkspaceID(), fields)
			if err != nil {
				return nil, err
			}
			return &botCreatedOutput{Status: http.StatusCreated, Body: botView(v)}, nil
		})

	register(s, route{id: "get-bot", method: http.MethodGet, path: "/bots/{bot_id}", tags: tags, creds: credWorkspace,
		limit: limitRead, summary: "Full configuration of one chatbot",
		desc: "403 for a bot of another workspace.", errors: []int{http.StatusForbidden, http.StatusNotFound}},
		func(ctx context.Context, in *botIDInput) (*botOutput, error) {
			v, err := s.bots.Get(ctx, principal(ctx).WorkspaceID(), in.BotID)
			if err != nil {
				return nil, err
			}
			return &botOutput{Body: botView(v)}, nil
		})

	register(s, route{id: "update-bot", method: http.MethodPatch, path: "/bots/{bot_id}", tags: tags, creds: credWorkspace,
		limit: limitWrite, impersonation: true, rawBody: true, summary: "Change a chatbot's settings",
		desc: "Partial update: only the fields sent change; object groups (appearance, copy, live_chat, " +
			"qualification) are merged into what is stored. Under a super-admin impersonation session " +
			"(X-Impersonation-Token) allowed_origins, notification_email and reply_to_email are refused with 403. " +
			"Hiding branding needs the custom_branding feature, enabling live chat the live_chat feature.",
		errors: []int{http.StatusForbidden, http.StatusNotFound, http.StatusUnprocessableEntity}},
		func(ctx context.Context, in *updateBotInput) (*botOutput, error) {
			fields, err := rawFields(ctx)
			if err != nil {
				return nil, err
			}
			p := principal(ctx)
			v, err := s.bots.Update(ctx, p.WorkspaceID(), in.BotID, fields, p.Impersonation != nil)
			if err != nil {
				return nil, err
			}
			return &botOutput{Body: botView(v)}, nil
		})

	register(s, route{id: "delete-bot", method: http.MethodDelete, path: "/bots/{bot_id}", tags: tags, creds: credWorkspace,
		limit: limitWrite, summary: "Delete a chatbot and everything it owns",
		desc: "Deletes the bot, its documents, conversations, leads, operators, jobs and webhooks. A bot with its " +
			"own subscription has it cancelled with the payment provider first; if that fails the bot is kept and " +
			"the answer is 503 (retry later).",
		errors: []int{http.StatusForbidden, http.StatusNotFound, http.StatusServiceUnavailable}},
		func(ctx context.Context, in *botIDInput) (*deletedOutput, error) {
			if err := s.bots.Delete(ctx, principal(ctx).WorkspaceID(), in.BotID); err != nil {
				return nil, err
			}
			out := &deletedOutput{}
			out.Body.Deleted, out.Body.BotID = true, in.BotID
			return out, nil
		})

	s.botSettingRoutes(tags)
}
