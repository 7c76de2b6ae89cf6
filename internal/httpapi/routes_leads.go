package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"concierge/internal/lead"
)

type leadCaptureInput struct {
	Origin string `header:"Origin" hidden:"true"`
	Body   struct {
		SessionID string            `json:"session_id,omitempty" maxLength:"100" doc:"The conversation; omit on a pre-chat form to start one (the answer carries it)."`
		Name      string            `json:"name,omitempty" maxLength:"200"`
		Email     string            `json:"email,omitempty" maxLength:"320" doc:"Stored as typed, even if it looks invalid; it is checked in the background."`
		Phone     string            `json:"phone,omitempty" maxLength:"50"`
		Company   string            `json:"company,omitempty" maxLength:"200"`
		Fields    map[string]string `json:"fields,omitempty" maxProperties:"30" doc:"Other fields the bot's form asks for (keys up to 64, values up to 1,000 characters)."`
		Source    string            `json:"source,omitempty" enum:"pre_chat,handoff,contact_form,offline" doc:"Which form the visitor filled in."`
	}
}

type leadCaptureOutput struct {
	Body lead.Captured
}

type validateEmailInput struct {
	Body struct {
		Email string `json:"email" minLength:"1" maxLength:"320"`
	}
}

type validateEmailOutput struct {
	Body lead.Validity
}

type signalsInput struct {
	Body struct {
		SessionID         string `json:"session_id" minLength:"1" maxLength:"100"`
		PageURL           string `json:"page_url,omitempty" maxLength:"2048" doc:"The page the conversation started on (without query or fragment)."`
		PageTitle         string `json:"page_title,omitempty" maxLength:"300"`
		Referrer          string `json:"referrer,omitempty" maxLength:"2048"`
		TimeOnPageSeconds *int   `json:"time_on_page_seconds,omitempty" minimum:"0" maximum:"86400" doc:"Sent at page unload."`
		Visits            int    `json:"visits,omitempty" minimum:"0" maximum:"100000" doc:"Visits of this visitor including this one, when the page knows."`
		UTMSource         string `json:"utm_source,omitempty" maxLength:"100" doc:"The campaign source of the visit (utm_source of the landing page), for the journey summary."`
	}
}

type signalsOutput struct {
	Body lead.Behaviour
}

type meetingInput struct {
	Body struct {
		SessionID   string     `json:"session_id" minLength:"1" maxLength:"100"`
		ScheduledAt *time.Time `json:"scheduled_at,omitempty" doc:"When the meeting takes place (ISO 8601 with offset)."`
		Source      string     `json:"source,omitempty" maxLength:"64" doc:"The scheduling tool, e.g. calendly."`
		URL         string     `json:"url,omitempty" maxLength:"2048"`
		Notes       string     `json:"notes,omitempty" maxLength:"2000"`
	}
}

type leadOutput struct {
	Body *lead.Lead
}

type leadPathInput struct {
	SessionID string `path:"session_id" maxLength:"100"`
}

type leadFilterInput struct {
	BotID    int64  `query:"bot_id" minimum:"1" doc:"Only this bot's leads."`
	Tier     string `query:"tier" enum:"sql,mql,nurture,unqualified"`
	MinScore int    `query:"min_score" minimum:"0" maximum:"100"`
	Days     int    `query:"days" minimum:"0" maximum:"3650" doc:"Only leads active within this many days; 0 for all."`
}

func (f *leadFilterInput) filter() lead.Filter {
	return lead.Filter{BotID: f.BotID, Tier: f.Tier, MinScore: f.MinScore, Days: f.Days}
}

// leadsInput repeats the filter's fields: huma reads parameters of
// embedded structs only when they are exported.
type leadsInput struct {
	BotID    int64  `query:"bot_id" minimum:"1" doc:"Only this bot's leads."`
	Tier     string `query:"tier" enum:"sql,mql,nurture,unqualified"`
	MinScore int    `query:"min_score" minimum:"0" maximum:"100"`
	Days     int    `query:"days" minimum:"0" maximum:"3650" doc:"Only leads active within this many days; 0 for all."`
	Page     int    `query:"page" minimum:"1" default:"1"`
	Limit    int    `query:"limit" minimum:"1" maximum:"200" default:"50"`
}

type leadsOutput struct {
	Body struct {
		Items []lead.Lead `json:"items"`
		Total int         `json:"total"`
		Page  int         `json:"page"`
		Limit int         `json:"limit"`
	}
}

type leadStatsInput struct {
	BotID int64 `query:"bot_id" minimum:"1"`
	Days  int   `query:"days" minimum:"0" maximum:"3650"`
}

type leadStatsOutput struct {
	Body *lead.Stats
}

type followUpInput struct {
	SessionID string `path:"session_id" maxLength:"100"`
	Body      struct {
		Subject string `json:"subject" minLength:"1" maxLength:"200"`
		Body    string `json:"body" minLength:"1" maxLength:"20000" doc:"Plain text."`
	}
}

type followUpOutput struct {
	Status int
	Body   struct {
		lead.FollowUp
		Duplicate      bool  `json:"duplicate" doc:"The same message was sent to this lead moments ago: not sent or charged again."`
		CreditsCharged int64 `json:"credits_charged"`
	}
}

func (s *Server) leadRoutes() {
	chatTags, tags := []string{"Chat"}, []string{"Leads"}
	notFound := []int{http.StatusNotFound}

	register(s, route{id: "lead-capture", method: http.MethodPost, path: "/chat/lead-capture", tags: chatTags, creds: credBot,
		limit: limitChat, summary: "Store a lead form (pre-chat, hand-off or contact form)",
		desc: "Never waits for e-mail validation: the address is stored as typed and checked in the background; the " +
			"verdict later gates follow-ups. Without session_id a conversation is started. Works while the bot is offline.",
		errors: notFound},
		func(ctx context.Context, in *leadCaptureInput) (*leadCaptureOutput, error) {
			b := principal(ctx).Bot
			c, err := s.leads.Capture(ctx, b.WorkspaceID, b.ID, lead.CaptureInput{SessionID: in.Body.SessionID, Name: in.Body.Name,
				Email: in.Body.Email, Phone: in.Body.Phone, Company: in.Body.Company, Fields: in.Body.Fields,
				Source: in.Body.Source, Origin: in.Origin})
			if err != nil {
				return nil, err
			}
			return &leadCaptureOutput{Body: *c}, nil
		})

	register(s, route{id: "validate-email", method: http.MethodPost, path: "/chat/validate-email", tags: chatTags, creds: credBot,
		limit: limitChat, summary: "Check an e-mail address a visitor typed",
		desc: "Plans above Free (feature email_validation). Blocks only unambiguous junk: bad syntax, disposable " +
			"domains, spamtraps, reserved domains, domains without a working mail server, and addresses the verification " +
			"provider reports undeliverable. Catch-all and unknown results pass. valid is true (fail open) when the " +
			"provider is unreachable or not configured, or when the plan lacks the feature (checked false)."},
		func(ctx context.Context, in *validateEmailInput) (*validateEmailOutput, error) {
			b := principal(ctx).Bot
			v, err := s.leads.ValidateEmail(ctx, b.WorkspaceID, in.Body.Email)
			if err != nil {
				return nil, err
			}
			return &validateEmailOutput{Body: *v}, nil
		})

	register(s, route{id: "behavioral-signals", method: http.MethodPost, path: "/chat/behavioral-signals", tags: chatTags,
		creds: credBot, limit: limitPublic, summary: "Report what the widget observed",
		desc: "Page context at session start (page_url, page_title, referrer) and time on page at unload. Each page is " +
			"kept once (at most 50). Returns the behavioural score: the points the signals add to or take from the lead score.",
		errors: notFound},
		func(ctx context.Context, in *signalsInput) (*signalsOutput, error) {
			b := principal(ctx).Bot
			res, err := s.leads.RecordSignals(ctx, b.WorkspaceID, b.ID, lead.SignalsInput{SessionID: in.Body.SessionID,
				PageURL: in.Body.PageURL, PageTitle: in.Body.PageTitle, Referrer: in.Body.Referrer,
				TimeOnPageSeconds: in.Body.TimeOnPageSeconds, Visits: in.Body.Visits, UTMSource: in.Body.UTMSource})
			if err != nil {
				return nil, err
			}
			return &signalsOutput{Body: *res}, nil
		})

	register(s, route{id: "meeting-booked", method: http.MethodPost, path: "/chat/meeting-booked", tags: chatTags,
		creds: credWorkspace, limit: limitWrite, summary: "Record a meeting booked with a conversation's visitor",
		desc: "For scheduling integrations. Recording it again updates the details. A booked meeting makes the lead at " +
			"least mql. Answers the lead.", errors: notFound},
		func(ctx context.Context, in *meetingInput) (*leadOutput, error) {
			l, err := s.leads.BookMeeting(ctx, principal(ctx).WorkspaceID(), lead.MeetingInput{SessionID: in.Body.SessionID,
				ScheduledAt: in.Body.ScheduledAt, Source: in.Body.Source, URL: in.Body.URL, Notes: in.Body.Notes})
			if err != nil {
				return nil, err
			}
			return &leadOutput{Body: l}, nil
		})

	register(s, route{id: "lead-info", method: http.MethodGet, path: "/chat/lead-info/{session_id}", tags: chatTags,
		creds: credWorkspace, limit: limitRead, summary: "The lead of a conversation (without its transcript)",
		desc: "Any session of another workspace is 404.", errors: notFound},
		func(ctx context.Context, in *leadPathInput) (*leadOutput, error) {
			l, err := s.leads.Info(ctx, principal(ctx).WorkspaceID(), in.SessionID)
			if err != nil {
				return nil, err
			}
			return &leadOutput{Body: l}, nil
		})

	register(s, route{id: "list-leads", method: http.MethodGet, path: "/leads", tags: tags, creds: credWorkspace,
		limit: limitRead, summary: "List leads, most recently active first",
		desc: "Every conversation is a lead once scored (within seconds of its latest message). Another workspace's " +
			"bot_id is 403.", errors: []int{http.StatusForbidden, http.StatusNotFound}},
		func(ctx context.Context, in *leadsInput) (*leadsOutput, error) {
			f := lead.Filter{BotID: in.BotID, Tier: in.Tier, MinScore: in.MinScore, Days: in.Days}
			items, total, err := s.leads.List(ctx, principal(ctx).WorkspaceID(), f, in.Page, in.Limit)
			if err != nil {
				return nil, err
			}
			out := &leadsOutput{}
			out.Body.Items, out.Body.Total, out.Body.Page, out.Body.Limit = items, total, in.Page, in.Limit
			return out, nil
		})

	register(s, route{id: "lead-stats", method: http.MethodGet, path: "/leads/stats", tags: tags, creds: credWorkspace,
		limit: limitRead, summary: "Lead counts by tier", errors: []int{http.StatusForbidden, http.StatusNotFound}},
		func(ctx context.Context, in *leadStatsInput) (*leadStatsOutput, error) {
			st, err := s.leads.Stats(ctx, principal(ctx).WorkspaceID(), lead.Filter{BotID: in.BotID, Days: in.Days})
			if err != nil {
				return nil, err
			}
			return &leadStatsOutput{Body: st}, nil
		})

	register(s, route{id: "export-leads", method: http.MethodGet, path: "/leads/export", tags: tags, creds: credWorkspace,
		limit: limitRead, summary: "Export leads as CSV",
		desc: fmt.Sprintf("Plan Starter and above (feature lead_export), otherwise 403 feature_not_available. The body "+
			"is text/csv, streamed, with the columns %v; cells starting with = + - @ (or a tab or carriage return) get a "+
			"leading apostrophe so spreadsheets do not evaluate them.", lead.ExportColumns),
		errors: []int{http.StatusForbidden, http.StatusNotFound}},
		func(ctx context.Context, in *leadFilterInput) (*huma.StreamResponse, error) {
			ws, f := principal(ctx).WorkspaceID(), in.filter()
			if err := s.leads.CheckExport(ctx, ws, f); err != nil {
				return nil, err
			}
			return &huma.StreamResponse{Body: func(hctx huma.Context) {
				hctx.SetHeader("Content-Type", "text/csv; charset=utf-8")
				hctx.SetHeader("Content-Disposition", fmt.Sprintf(`attachment; filename="leads-%s.csv"`, time.Now().UTC().Format("20060102")))
				hctx.SetHeader("Cache-Control", "no-store")
				hctx.SetStatus(http.StatusOK)
				w := hctx.BodyWriter()
				if rw, ok := w.(http.ResponseWriter); ok {
					_ = http.NewResponseController(rw).SetWriteDeadline(time.Time{}) // a large export is not a slow client
				}
				if err := s.leads.Export(ctx, ws, f, w); err != nil {
					// Headers are gone: cut the stream so the client sees an incomplete body.
					s.log.ErrorContext(ctx, "lead export failed", "err", err)
					panic(http.ErrAbortHandler)
				}
			}}, nil
		})

	register(s, route{id: "get-lead", method: http.MethodGet, path: "/leads/{session_id}", tags: tags, creds: credWorkspace,
		limit: limitRead, summary: "One lead with its transcript, dimension breakdown, tier history and follow-ups",
		errors: notFound},
		func(ctx context.Context, in *leadPathInput) (*leadOutput, error) {
			l, err := s.leads.Detail(ctx, principal(ctx).WorkspaceID(), in.SessionID)
			if err != nil {
				return nil, err
			}
			return &leadOutput{Body: l}, nil
		})

	register(s, route{id: "lead-follow-up", method: http.MethodPost, path: "/leads/{session_id}/follow-up", tags: tags,
		creds: credWorkspace, limit: limitWrite, status: http.StatusAccepted, summary: "E-mail the lead",
		desc: "Costs the plan's lead_follow_up credits (1): 402 insufficient_credits when short. Sent through the mail " +
			"queue from the service's address with the bot's reply-to address (else its notification address). The same " +
			"subject and body sent again to the same lead within 10 minutes is not sent or charged again (duplicate true, " +
			"200). 409 email_undeliverable when validation found the address to be junk; 409 no_email_address when the " +
			"lead left none.",
		errors: []int{http.StatusPaymentRequired, http.StatusNotFound, http.StatusConflict}},
		func(ctx context.Context, in *followUpInput) (*followUpOutput, error) {
			f, dup, err := s.leads.SendFollowUp(ctx, principal(ctx).WorkspaceID(), in.SessionID,
				lead.FollowUpInput{Subject: in.Body.Subject, Body: in.Body.Body})
			if err != nil {
				return nil, err
			}
			out := &followUpOutput{Status: http.StatusAccepted}
			out.Body.FollowUp, out.Body.Duplicate = *f, dup
			if dup {
				out.Status = http.StatusOK
			} else {
				out.Body.CreditsCharged = f.Credits
			}
			return out, nil
		})
}
