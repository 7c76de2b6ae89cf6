package analytics

import (
	"context"
	"fmt"
	"sort"

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
	// Page views exist only for non-preview conversations (the widget's
	// signals endpoint refuses previews).
	// Sessions, entry pages, chat starts and sources: from the conversations'
	// entry pages (the first page view of each, kept on the conversation).
	if j.Sessions, err = s.both(ctx, sc, cur, prev, "COUNT(*)", "chat_sessions s", "s", "s.entry_at", ""); err != nil {
		return nil, err
	}
	scond, sargs := sc.in("p")
	tcond, targs := between("p.created_at", cur)
	args := append(sargs, targs...)
	where := ` WHERE ` + scond + ` AND ` + tcond
	// The first page of each session with where it came from: entry pages,
	// chat starts, referrers and UTM sources in one read.
	var firsts []struct {
		URL   string  `db:"url"`
		Ref   *string `db:"referrer_host"`
		UTM   *string `db:"utm_source"`
		Wrote bool    `db:"wrote"`
		N     int64   `db:"n"`
	}
	escond, esargs := sc.in("s")
	etcond, etargs := between("s.entry_at", cur)
	if err := store.Select(ctx, s.db.Reader(), &firsts, `SELECT s.entry_url AS url, s.referrer_host, s.utm_source,
		CASE WHEN s.visitor_messages > 0 THEN TRUE ELSE FALSE END AS wrote, COUNT(*) AS n
		FROM chat_sessions s WHERE `+escond+` AND `+etcond+`
		GROUP BY s.entry_url, s.referrer_host, s.utm_source, CASE WHEN s.visitor_messages > 0 THEN TRUE ELSE FALSE END`,
		append(esargs, etargs...)...); err != nil {
		return nil, fmt.Errorf("analytics: entry pages: %w", err)
	}
	entry, starts, refs, utms := map[string]int64{}, map[string]int64{}, map[string]int64{}, map[string]int64{}
	for _, f := range firsts {
		entry[f.URL] += f.N
		if f.Wrote {
			starts[f.URL] += f.N
		}
		ref := "direct"
		if f.Ref != nil && *f.Ref != "" {
			ref = *f.Ref
		}
		refs[ref] += f.N
		if f.UTM != nil && *f.UTM != "" {
			utms[*f.UTM] += f.N
		}
	}
	j.EntryPages, j.ChatStartPages = top(entry, pageCount), top(starts, pageCount)
	j.Referrers, j.UTMSources = top(refs, sourceCount), top(utms, sourceCount)
	// Every page seen: sessions and time on page.
	var seen []struct {
		URL      string `db:"url"`
		Sessions int64  `db:"sessions"`
		Seconds  int64  `db:"seconds"`
		Timed    int64  `db:"timed"`
	}
	if err := store.Select(ctx, s.db.Reader(), &seen, `SELECT p.url, COUNT(*) AS sessions, SUM(p.seconds) AS seconds,
		SUM(CASE WHEN p.seconds > 0 THEN 1 ELSE 0 END) AS timed FROM page_views p`+where+` GROUP BY p.url`, args...); err != nil {
		return nil, fmt.Errorf("analytics: pages: %w", err)
	}
	var secs, timed int64
	for _, p := range seen {
		secs += p.Seconds
		timed += p.Timed
	}
	if timed > 0 {
		j.AverageTimeOnPage = round1(float64(secs) / float64(timed))
	}
	// What converting sessions saw, read from the leads (far fewer).
	// The pages of the sessions that left a lead form or booked a meeting,
	// one row per page seen in the window.
	lcond, largs := sc.in("l")
	var pages []struct {
		Session int64  `db:"session_id"`
		URL     string `db:"url"`
		Lead    int    `db:"lead"`
		Meeting int    `db:"meeting"`
	}
	if err := store.Select(ctx, s.db.Reader(), &pages, `SELECT l.session_id, p.url,
		CASE WHEN l.captured_at IS NOT NULL THEN 1 ELSE 0 END AS lead,
		CASE WHEN l.meeting_booked_at IS NOT NULL THEN 1 ELSE 0 END AS meeting
		FROM leads l JOIN page_views p ON p.session_id = l.session_id
		WHERE `+lcond+` AND l.updated_at >= ? AND (l.captured_at IS NOT NULL OR l.meeting_booked_at IS NOT NULL) AND `+tcond,
		append(append(largs, cur.Start), targs...)...); err != nil {
		return nil, fmt.Errorf("analytics: page conversions: %w", err)
	}
	type converted struct{ leads, meetings, either int64 }
	byURL := map[string]*converted{}
	var before struct{ leadPages, leadSessions, meetPages, meetSessions int64 }
	counted := map[int64]bool{}
	for _, p := range pages {
		c := byURL[p.URL]
		if c == nil {
			c = &converted{}
			byURL[p.URL] = c
		}
		c.leads += int64(p.Lead)
		c.meetings += int64(p.Meeting)
		c.either++
		before.leadPages += int64(p.Lead)
		before.meetPages += int64(p.Meeting)
		if !counted[p.Session] {
			counted[p.Session] = true
			before.leadSessions += int64(p.Lead)
			before.meetSessions += int64(p.Meeting)
		}
	}
	if before.leadSessions > 0 {
		j.PagesBeforeLead = round1(float64(before.leadPages) / float64(before.leadSessions))
	}
	if before.meetSessions > 0 {
		j.PagesBeforeMeeting = round1(float64(before.meetPages) / float64(before.meetSessions))
	}
	sort.Slice(seen, func(a, b int) bool {
		if seen[a].Sessions != seen[b].Sessions {
			return seen[a].Sessions > seen[b].Sessions
		}
		return seen[a].URL < seen[b].URL
	})
	j.PageConversionRates = []PageConvert{}
	for _, p := range seen[:min(len(seen), journeyTop)] {
		pc := PageConvert{URL: p.URL, Sessions: p.Sessions}
		if c, ok := byURL[p.URL]; ok {
			pc.Leads, pc.Meetings = c.leads, c.meetings
			pc.ConversionRate = rate(int(c.either), int(p.Sessions))
		}
		j.PageConversionRates = append(j.PageConversionRates, pc)
	}
	return j, nil
}

// top orders counts most first (then by key) and keeps journeyTop of them.
func top[T any](m map[string]int64, mk func(key string, n int64) T) []T {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		if m[keys[a]] != m[keys[b]] {
			return m[keys[a]] > m[keys[b]]
		}
		return keys[a] < keys[b]
	})
	out := make([]T, 0, min(len(keys), journeyTop))
	for _, k := range keys[:min(len(keys), journeyTop)] {
		out = append(out, mk(k, m[k]))
	}
	return out
}

func pageCount(url string, n int64) PageCount     { return PageCount{URL: url, Sessions: n} }
func sourceCount(src string, n int64) SourceCount { return SourceCount{Source: src, Sessions: n} }

func round1(v float64) float64 { return float64(int(v*10+0.5)) / 10 }
