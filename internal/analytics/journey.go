package analytics

import (
	"context"
	"fmt"

	"concierge/internal/billing"
	"concierge/internal/store"
)

// Journey is where the window's visitors came from and what they saw.
type Journey struct {
	Window   Window `json:"window"`
	Previous Window `json:"previous_window"`
	// Sessions with page signals in the window.
	Sessions            Compared      `json:"sessions" doc:"Conversations (preview excluded) whose widget reported a page in the window."`
	EntryPages          []PageCount   `json:"entry_pages" doc:"The first page reported of each of those sessions (at most 20, most first)."`
	ChatStartPages      []PageCount   `json:"chat_start_pages" doc:"The first page of the sessions in which the visitor wrote."`
	Referrers           []SourceCount `json:"referrers" doc:"Referrer hosts (without www.); direct when none was reported."`
	UTMSources          []SourceCount `json:"utm_sources" doc:"utm_source of the visit, when reported."`
	AverageTimeOnPage   float64       `json:"average_seconds_on_page" doc:"Mean of the times on page reported (pages without a time are left out)."`
	PagesBeforeLead     float64       `json:"average_pages_before_lead" doc:"Mean number of pages seen in sessions that left a lead form."`
	PagesBeforeMeeting  float64       `json:"average_pages_before_meeting" doc:"Mean number of pages seen in sessions that booked a meeting."`
	PageConversionRates []PageConvert `json:"page_conversions" doc:"Per page seen (at most 20, most seen first): sessions that saw it and the share that left a lead or booked a meeting."`
}

// PageCount is a page with how many sessions it counts for.
type PageCount struct {
	URL      string `json:"url"`
	Sessions int64  `json:"sessions"`
}

// SourceCount is a traffic source with its sessions.
type SourceCount struct {
	Source   string `json:"source"`
	Sessions int64  `json:"sessions"`
}

// PageConvert is a page's conversion.
type PageConvert struct {
	URL            string  `json:"url"`
	Sessions       int64   `json:"sessions"`
	Leads          int64   `json:"leads"`
	Meetings       int64   `json:"meetings"`
	ConversionRate float64 `json:"conversion_rate" doc:"Sessions that left a lead form or booked a meeting / sessions that saw the page."`
}

const journeyTop = 20

// Journey answers GET /analytics/journey/summary (feature
// journey_analytics).
func (s *Service) Journey(ctx context.Context, workspaceID int64, q Query) (*Journey, error) {
	sc, cur, prev, err := s.prepare(ctx, workspaceID, q)
	if err != nil {
		return nil, err
	}
	ent, err := s.billing.Standing(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	if err := ent.Require(billing.FeatureJourneyAnalytics); err != nil {
		return nil, err
	}
	j := &Journey{Window: cur, Previous: prev}
	const first = "page_views p JOIN chat_sessions s ON s.id = p.session_id"
	if j.Sessions, err = s.both(ctx, sc, cur, prev, "COUNT(*)", first, "p", "p.created_at", "p.position = 0 AND s.preview = FALSE"); err != nil {
		return nil, err
	}
	scond, sargs := sc.in("p")
	tcond, targs := between("p.created_at", cur)
	args := append(sargs, targs...)
	base := ` WHERE ` + scond + ` AND ` + tcond + ` AND s.preview = FALSE`
	pages := func(extra string) ([]PageCount, error) {
		out := []PageCount{}
		err := store.Select(ctx, s.db.Reader(), &out, `SELECT p.url, COUNT(*) AS sessions FROM `+first+base+
			` AND p.position = 0`+extra+` GROUP BY p.url ORDER BY sessions DESC, p.url LIMIT `+fmt.Sprint(journeyTop), args...)
		return out, err
	}
	if j.EntryPages, err = pages(""); err != nil {
		return nil, fmt.Errorf("analytics: entry pages: %w", err)
	}
	if j.ChatStartPages, err = pages(" AND s.messages > 0 AND EXISTS (SELECT 1 FROM chat_messages m WHERE m.session_id = s.id AND m.role = 'user')"); err != nil {
		return nil, fmt.Errorf("analytics: chat start pages: %w", err)
	}
	sources := func(col string, fallback bool) ([]SourceCount, error) {
		expr, cond := col, " AND "+col+" IS NOT NULL"
		if fallback {
			expr, cond = "COALESCE("+col+", 'direct')", ""
		}
		out := []SourceCount{}
		err := store.Select(ctx, s.db.Reader(), &out, `SELECT `+expr+` AS source, COUNT(*) AS sessions FROM `+first+base+
			` AND p.position = 0`+cond+` GROUP BY 1 ORDER BY sessions DESC, source LIMIT `+fmt.Sprint(journeyTop), args...)
		return out, err
	}
	if j.Referrers, err = sources("s.referrer_host", true); err != nil {
		return nil, fmt.Errorf("analytics: referrers: %w", err)
	}
	if j.UTMSources, err = sources("s.utm_source", false); err != nil {
		return nil, fmt.Errorf("analytics: utm: %w", err)
	}
	var avg struct {
		Sum int64 `db:"sum"`
		N   int64 `db:"n"`
	}
	if err := store.Get(ctx, s.db.Reader(), &avg, `SELECT COALESCE(SUM(p.seconds), 0) AS sum, COUNT(*) AS n FROM `+first+base+
		` AND p.seconds > 0`, args...); err != nil {
		return nil, fmt.Errorf("analytics: time on page: %w", err)
	}
	if avg.N > 0 {
		j.AverageTimeOnPage = round1(float64(avg.Sum) / float64(avg.N))
	}
	before := func(col string) (float64, error) {
		var r struct {
			Pages    int64 `db:"pages"`
			Sessions int64 `db:"sessions"`
		}
		err := store.Get(ctx, s.db.Reader(), &r, `SELECT COUNT(*) AS pages, COUNT(DISTINCT p.session_id) AS sessions
			FROM `+first+` JOIN leads l ON l.session_id = p.session_id`+base+` AND l.`+col+` IS NOT NULL`, args...)
		if err != nil || r.Sessions == 0 {
			return 0, err
		}
		return round1(float64(r.Pages) / float64(r.Sessions)), nil
	}
	if j.PagesBeforeLead, err = before("captured_at"); err != nil {
		return nil, fmt.Errorf("analytics: pages before lead: %w", err)
	}
	if j.PagesBeforeMeeting, err = before("meeting_booked_at"); err != nil {
		return nil, fmt.Errorf("analytics: pages before meeting: %w", err)
	}
	var conv []struct {
		URL      string `db:"url"`
		Sessions int64  `db:"sessions"`
		Leads    int64  `db:"leads"`
		Meetings int64  `db:"meetings"`
		Either   int64  `db:"either"`
	}
	if err := store.Select(ctx, s.db.Reader(), &conv, `SELECT p.url, COUNT(*) AS sessions,
		COUNT(l.captured_at) AS leads, COUNT(l.meeting_booked_at) AS meetings,
		SUM(CASE WHEN l.captured_at IS NOT NULL OR l.meeting_booked_at IS NOT NULL THEN 1 ELSE 0 END) AS either
		FROM `+first+` LEFT JOIN leads l ON l.session_id = p.session_id`+base+`
		GROUP BY p.url ORDER BY sessions DESC, p.url LIMIT `+fmt.Sprint(journeyTop), args...); err != nil {
		return nil, fmt.Errorf("analytics: page conversions: %w", err)
	}
	j.PageConversionRates = []PageConvert{}
	for _, c := range conv {
		j.PageConversionRates = append(j.PageConversionRates, PageConvert{URL: c.URL, Sessions: c.Sessions, Leads: c.Leads,
			Meetings: c.Meetings, ConversionRate: rate(int(c.Either), int(c.Sessions))})
	}
	return j, nil
}

func round1(v float64) float64 { return float64(int(v*10+0.5)) / 10 }
