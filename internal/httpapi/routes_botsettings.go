package httpapi

import (
	"context"
	"net/http"

	"concierge/internal/bot"
)

// PublicSettingsView is what the widget may know about a bot.
type PublicSettingsView struct {
	BotKey         string          `json:"bot_key"`
	Name           string          `json:"name"`
	IsOffline      bool            `json:"is_offline"`
	OfflineMessage string          `json:"offline_message"`
	Appearance     bot.Appearance  `json:"appearance"`
	Greeting       *string         `json:"greeting,omitempty" doc:"Absent while offline."`
	Copy           *bot.Copy       `json:"copy,omitempty" doc:"Absent while offline."`
	LiveChat       *PublicLiveChat `json:"live_chat,omitempty" doc:"Absent while offline."`
}

// PublicLiveChat is the visitor-facing part of the live-chat settings.
type PublicLiveChat struct {
	Enabled          bool   `json:"enabled"`
	OfferContactForm bool   `json:"offer_contact_form"`
	AwayMessage      string `json:"away_message,omitempty"`
	// Available: a hand-off would reach a person now (an operator online,
	// within business hours); the widget then offers "talk to a person".
	Available   bool `json:"available" doc:"A hand-off (POST /operators/handoff) would reach a person now."`
	PreChatForm bool `json:"pre_chat_form" doc:"Ask for name and e-mail before the first message."`
}

func publicSettings(v *bot.View) PublicSettingsView {
	b := v.Bot
	out := PublicSettingsView{BotKey: b.Key, Name: b.Name, IsOffline: v.IsOffline, OfflineMessage: b.OfflineMessage,
		Appearance: b.Appearance()}
	if v.IsOffline {
		return out // spec 4.2 rule 7: only the offline message reaches visitors
	}
	c, lc := b.Copy(), b.LiveChat()
	out.Greeting, out.Copy = &b.Greeting, &c
	out.LiveChat = &PublicLiveChat{Enabled: lc.Enabled, OfferContactForm: lc.OfferContactForm, AwayMessage: lc.AwayMessage}
	return out
}

type publicSettingsOutput struct {
	Body PublicSettingsView
}

type frameworksOutput struct {
	Body struct {
		Presets []bot.Framework   `json:"presets"`
		Current bot.Qualification `json:"current" doc:"The bot's qualification settings."`
	}
}

type tonePresetsOutput struct {
	Body struct {
		Presets []bot.TonePreset `json:"presets"`
	}
}

type demoShareOutput struct {
	Body struct {
		Recorded        bool `json:"recorded"`
		DemoShareClicks int  `json:"demo_share_clicks"`
	}
}

type recrawlOutput struct {
	Body RecrawlView
}

type recrawlInput struct {
	BotID int64 `path:"bot_id" minimum:"1"`
	Body  struct {
		Enabled bool `json:"enabled" doc:"true needs the auto_recrawl feature (403 feature_not_available otherwise); false always works."`
	}
}

func recrawlView(st *bot.RecrawlStatus) RecrawlView {
	return RecrawlView{Enabled: st.Enabled, Available: st.Available, IntervalHours: st.IntervalHours,
		NextRunAt: optTime(st.NextRunAt), LastRun: st.LastRun}
}

func (s *Server) botSettingRoutes(tags []string) {
	register(s, route{id: "public-bot-settings", method: http.MethodGet, path: "/bots/settings/public", tags: []string{"Widget"},
		creds: credBot | credWorkspace, limit: limitPublic, summary: "Public appearance and behaviour of a bot",
		desc: "For the widget (X-Bot-Key), or with X-API-Key for the workspace's default (oldest) bot. While the bot " +
			"is offline only the offline message, name and appearance are given."},
		func(ctx context.Context, _ *noInput) (*publicSettingsOutput, error) {
			p := principal(ctx)
			var (
				v   *bot.View
				err error
			)
			if p.Bot != nil {
				v = p.BotView
			} else {
				v, err = s.bots.Default(ctx, p.WorkspaceID())
			}
			if err != nil {
				return nil, err
			}
			out := publicSettings(v)
			if out.LiveChat != nil {
				out.LiveChat.PreChatForm = v.Bot.LiveChat().PreChatForm
				if s.livechat != nil {
					out.LiveChat.Available = s.livechat.Available(ctx, v)
				}
			}
			return &publicSettingsOutput{Body: out}, nil
		})

	register(s, route{id: "framework-presets", method: http.MethodGet, path: "/bots/{bot_id}/framework-presets", tags: tags,
		creds: credWorkspace, limit: limitRead, summary: "Qualification framework presets and default weights",
		errors: []int{http.StatusForbidden, http.StatusNotFound}},
		func(ctx context.Context, in *botIDInput) (*frameworksOutput, error) {
			v, err := s.bots.Get(ctx, principal(ctx).WorkspaceID(), in.BotID)
			if err != nil {
				return nil, err
			}
			out := &frameworksOutput{}
			out.Body.Presets, out.Body.Current = bot.Frameworks, v.Qualification()
			return out, nil
		})

	register(s, route{id: "brand-tone-presets", method: http.MethodGet, path: "/bots/brand-tone-presets", tags: tags,
		creds: credWorkspace, limit: limitRead, summary: "Catalogue of brand-tone presets"},
		func(ctx context.Context, _ *noInput) (*tonePresetsOutput, error) {
			out := &tonePresetsOutput{}
			out.Body.Presets = bot.TonePresets
			return out, nil
		})

	register(s, route{id: "demo-share-click", method: http.MethodPost, path: "/bots/{bot_id}/demo-share-click", tags: tags,
		creds: credWorkspace, limit: limitWrite, summary: "Record that the demo link was copied",
		errors: []int{http.StatusForbidden, http.StatusNotFound}},
		func(ctx context.Context, in *botIDInput) (*demoShareOutput, error) {
			n, err := s.bots.RecordDemoShare(ctx, principal(ctx).WorkspaceID(), in.BotID)
			if err != nil {
				return nil, err
			}
			out := &demoShareOutput{}
			out.Body.Recorded, out.Body.DemoShareClicks = true, n
			return out, nil
		})

	register(s, route{id: "get-recrawl", method: http.MethodGet, path: "/bots/{bot_id}/recrawl", tags: tags,
		creds: credWorkspace, limit: limitRead, summary: "Auto-recrawl state and last run",
		errors: []int{http.StatusForbidden, http.StatusNotFound}},
		func(ctx context.Context, in *botIDInput) (*recrawlOutput, error) {
			st, err := s.bots.Recrawl(ctx, principal(ctx).WorkspaceID(), in.BotID)
			if err != nil {
				return nil, err
			}
			return &recrawlOutput{Body: recrawlView(st)}, nil
		})

	register(s, route{id: "set-recrawl", method: http.MethodPatch, path: "/bots/{bot_id}/recrawl", tags: tags,
		creds: credWorkspace, limit: limitWrite, summary: "Turn auto-recrawl on or off",
		desc:   "Enabling needs the auto_recrawl feature (403 feature_not_available); disabling always succeeds.",
		errors: []int{http.StatusForbidden, http.StatusNotFound, http.StatusUnprocessableEntity}},
		func(ctx context.Context, in *recrawlInput) (*recrawlOutput, error) {
			st, err := s.bots.SetRecrawl(ctx, principal(ctx).WorkspaceID(), in.BotID, in.Body.Enabled)
			if err != nil {
				return nil, err
			}
			return &recrawlOutput{Body: recrawlView(st)}, nil
		})
}
