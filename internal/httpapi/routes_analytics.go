package httpapi

import (
	"context"
	"net/http"
	"time"

	"concierge/internal/analytics"
)

// AnalyticsWindow is the window every analytics report takes.
type AnalyticsWindow struct {
	BotID int64  `query:"bot_id" minimum:"1" doc:"Only this bot; every bot of the workspace when omitted. Another workspace's bot is 403."`
	Days  int    `query:"days" minimum:"1" maximum:"365" doc:"The last this many days including today (default 30). Not with from/to."`
	From  string `query:"from" maxLength:"10" doc:"First day (YYYY-MM-DD, in tz), with to; at most 365 days."`
	To    string `query:"to" maxLength:"10" doc:"Last day, inclusive (YYYY-MM-DD, in tz)."`
	TZ    string `query:"tz" maxLength:"64" doc:"IANA time zone of the days (default UTC); an unknown zone is 422."`
}

func (w *AnalyticsWindow) query() analytics.Query {
	return analytics.Query{BotID: w.BotID, Days: w.Days, From: w.From, To: w.To, TZ: w.TZ}
}

type groupsInput struct {
	AnalyticsWindow
	Limit int `query:"limit" minimum:"1" maximum:"100" default:"20"`
}

type dismissInput struct {
	GroupID string `path:"group_id" maxLength:"40"`
}

type dismissOutput struct {
	Body struct {
		GroupID     string    `json:"group_id"`
		DismissedAt time.Time `json:"dismissed_at"`
	}
}

type body[T any] struct{ Body *T }

func (s *Server) analyticsRoutes() {
	tags := []string{"Analytics"}
	errs := []int{http.StatusForbidden, http.StatusNotFound}
	const window = " Every report covers whole days in tz ([window.start, window.end)) and gives, beside each total, the " +
		"same total for the previous window of equal length. Preview conversations are never counted."

	register(s, route{id: "analytics-dashboard", method: http.MethodGet, path: "/analytics/dashboard", tags: tags,
		creds: credWorkspace, limit: limitRead, summary: "Aggregate counts for a window",
		desc: "Conversations, visitor messages, unique visitors, questions and the answered rate (answered / questions), " +
			"unanswered questions, hand-offs, leads captured and by tier, meetings booked, follow-ups sent, ratings and " +
			"satisfaction (up / rated), credits spent; a per-day series." + window, errors: errs},
		func(ctx context.Context, in *AnalyticsWindow) (*body[analytics.Dashboard], error) {
			return run(ctx, in, s.analytics.Dashboard)
		})
	register(s, route{id: "analytics-funnel", method: http.MethodGet, path: "/analytics/qualification-funnel", tags: tags,
		creds: credWorkspace, limit: limitRead, summary: "Tier distribution and stage conversion",
		desc: "Stages conversations → engaged → contact captured → mql or better → sql → meeting booked, each with its " +
			"conversion from the stage before; the tier distribution; the median time to qualify." + window, errors: errs},
		func(ctx context.Context, in *AnalyticsWindow) (*body[analytics.Funnel], error) {
			return run(ctx, in, s.analytics.Funnel)
		})
	register(s, route{id: "analytics-top-questions", method: http.MethodGet, path: "/analytics/top-questions", tags: tags,
		creds: credWorkspace, limit: limitRead, summary: "Most frequent visitor questions",
		desc: "Questions grouped by meaning (their content terms, stemmed and with common synonyms folded; near wordings " +
			"and typos merged), most asked first, with the answered rate (answered / asked) of each group." + window,
		errors: errs},
		func(ctx context.Context, in *groupsInput) (*body[analytics.QuestionGroups], error) {
			return run(ctx, &in.AnalyticsWindow, func(ctx context.Context, ws int64, q analytics.Query) (*analytics.QuestionGroups, error) {
				return s.analytics.TopQuestions(ctx, ws, q, in.Limit)
			})
		})
	register(s, route{id: "analytics-unanswered-questions", method: http.MethodGet, path: "/analytics/unanswered-questions",
		tags: tags, creds: credWorkspace, limit: limitRead, summary: "Questions the chatbot could not answer",
		desc: "Grouped as top-questions: what the knowledge base is missing. A dismissed group stays hidden until a question " +
			"of it is asked again." + window, errors: errs},
		func(ctx context.Context, in *groupsInput) (*body[analytics.QuestionGroups], error) {
			return run(ctx, &in.AnalyticsWindow, func(ctx context.Context, ws int64, q analytics.Query) (*analytics.QuestionGroups, error) {
				return s.analytics.UnansweredQuestions(ctx, ws, q, in.Limit)
			})
		})
	register(s, route{id: "analytics-dismiss-unanswered", method: http.MethodPost,
		path: "/analytics/unanswered-questions/{group_id}/dismiss", tags: tags, creds: credWorkspace, limit: limitWrite,
		summary: "Dismiss an unanswered question group", desc: "Until a question of the group is asked again.",
		errors: []int{http.StatusNotFound}},
		func(ctx context.Context, in *dismissInput) (*dismissOutput, error) {
			at, err := s.analytics.Dismiss(ctx, principal(ctx).WorkspaceID(), in.GroupID)
			if err != nil {
				return nil, err
			}
			out := &dismissOutput{}
			out.Body.GroupID, out.Body.DismissedAt = in.GroupID, at
			return out, nil
		})
	register(s, route{id: "analytics-ratings", method: http.MethodGet, path: "/analytics/ratings-summary", tags: tags,
		creds: credWorkspace, limit: limitRead, summary: "Visitor rating average and distribution",
		desc: "Up and down counts of the replies given in the window, satisfaction (up / rated), a per-day series and the " +
			"latest replies rated down with their questions." + window, errors: errs},
		func(ctx context.Context, in *AnalyticsWindow) (*body[analytics.Ratings], error) {
			return run(ctx, in, s.analytics.Ratings)
		})
	register(s, route{id: "analytics-resolution", method: http.MethodGet, path: "/analytics/resolution-summary", tags: tags,
		creds: credWorkspace, limit: limitRead, summary: "Resolution outcomes",
		desc: "Each conversation started in the window has one outcome (definitions on the outcomes field); rates are " +
			"count / conversations." + window, errors: errs},
		func(ctx context.Context, in *AnalyticsWindow) (*body[analytics.Resolution], error) {
			return run(ctx, in, s.analytics.Resolution)
		})
	register(s, route{id: "analytics-journey", method: http.MethodGet, path: "/analytics/journey/summary", tags: tags,
		creds: credWorkspace, limit: limitRead, summary: "Visitor journey overview",
		desc: "Plan Standard and above (feature journey_analytics), otherwise 403 feature_not_available. Entry pages, pages " +
			"where chats start, referrer hosts and UTM sources, time on page, pages seen before a lead or a meeting, and " +
			"each page's conversion rate (sessions that left a lead or booked a meeting / sessions that saw it)." + window,
		errors: errs},
		func(ctx context.Context, in *AnalyticsWindow) (*body[analytics.Journey], error) {
			return run(ctx, in, s.analytics.Journey)
		})
}

// run calls a report with the caller's workspace and window.
func run[T any](ctx context.Context, in *AnalyticsWindow, f func(context.Context, int64, analytics.Query) (*T, error)) (*body[T], error) {
	r, err := f(ctx, principal(ctx).WorkspaceID(), in.query())
	if err != nil {
		return nil, err
	}
	return &body[T]{Body: r}, nil
}
