package analytics

import (
	"context"
	"fmt"
	"maps"
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
	fc, err := s.journeyFigures(ctx, sc, cur, false)
	if err != nil {
		return nil, err
	}
	fp, err := s.journeyFigures(ctx, sc, prev, true)
	if err != nil {
		return nil, err
	}
	j.Sessions = Compared{fc.sessions, fp.sessions}
	// Chat starts: the entry pages of the conversations in which the
	// visitor wrote, that is all of them but the few without a message
	// (begun with a lead form), read from the conversations.
	escond, esargs := sc.in("s")
	etcond, etargs := between("s.entry_at", cur)
	var silent []struct {
		URL string `db:"url"`
		N   int64  `db:"n"`
	}
	if err := store.Select(ctx, s.db.Reader(), &silent, `SELECT s.entry_url AS url, COUNT(*) AS n FROM chat_sessions s
		WHERE `+escond+` AND `+etcond+` AND s.visitor_messages = 0 GROUP BY s.entry_url`, append(esargs, etargs...)...); err != nil {
		return nil, fmt.Errorf("analytics: chat starts: %w", err)
	}
	starts := maps.Clone(fc.entry)
	for _, r := range silent {
		starts[r.URL] -= r.N
	}
	maps.DeleteFunc(starts, func(_ string, n int64) bool { return n <= 0 })
	j.EntryPages, j.ChatStartPages = top(fc.entry, pageCount), top(starts, pageCount)
	j.Referrers, j.UTMSources = top(fc.refs, sourceCount), top(fc.utms, sourceCount)
	seen := make([]pageFigures, 0, len(fc.pages))
	var secs, timed, leadPages, meetPages int64
	for _, p := range fc.pages {
		seen = append(seen, *p)
		secs += p.Seconds
		timed += p.Timed
		leadPages += p.Leads
		meetPages += p.Meetings
	}
	if timed > 0 {
		j.AverageTimeOnPage = round1(float64(secs) / float64(timed))
	}
	// The sessions that left a lead form or booked a meeting and saw a
	// page in the window (their leads were updated when the page was
	// reported: leads last updated before the window are skipped by index).
	lcond, largs := sc.in("l")
	var conv struct {
		Leads    int64 `db:"leads"`
		Meetings int64 `db:"meetings"`
	}
	if err := store.Get(ctx, s.db.Reader(), &conv, `SELECT
		COALESCE(SUM(CASE WHEN l.captured_at IS NOT NULL THEN 1 ELSE 0 END), 0) AS leads,
		COALESCE(SUM(CASE WHEN l.meeting_booked_at IS NOT NULL THEN 1 ELSE 0 END), 0) AS meetings
		FROM leads l WHERE `+lcond+` AND l.updated_at >= ? AND (l.captured_at IS NOT NULL OR l.meeting_booked_at IS NOT NULL)
		AND EXISTS (SELECT 1 FROM page_views p WHERE p.session_id = l.session_id AND p.created_at >= ? AND p.created_at < ?)`,
		append(largs, cur.Start, cur.Start, cur.End)...); err != nil {
		return nil, fmt.Errorf("analytics: page conversions: %w", err)
	}
	if conv.Leads > 0 {
		j.PagesBeforeLead = round1(float64(leadPages) / float64(conv.Leads))
	}
	if conv.Meetings > 0 {
		j.PagesBeforeMeeting = round1(float64(meetPages) / float64(conv.Meetings))
	}
	sort.Slice(seen, func(a, b int) bool {
		if seen[a].N != seen[b].N {
			return seen[a].N > seen[b].N
		}
		return seen[a].URL < seen[b].URL
	})
	j.PageConversionRates = []PageConvert{}
	for _, p := range seen[:min(len(seen), journeyTop)] {
		j.PageConversionRates = append(j.PageConversionRates, PageConvert{URL: p.URL, Sessions: p.N, Leads: p.Leads,
			Meetings: p.Meetings, ConversionRate: rate(int(p.Converted), int(p.N))})
	}
	return j, nil
}

// pageFigures are a page's figures in a window.
type pageFigures struct {
	URL       string `db:"url"`
	N         int64  `db:"n"` // page views (one per session)
	Seconds   int64  `db:"seconds"`
	Timed     int64  `db:"timed"`
	Leads     int64  `db:"leads"`
	Meetings  int64  `db:"meetings"`
	Converted int64  `db:"converted"`
}

func (p *pageFigures) add(o pageFigures) {
	p.N += o.N
	p.Seconds += o.Seconds
	p.Timed += o.Timed
	p.Leads += o.Leads
	p.Meetings += o.Meetings
	p.Converted += o.Converted
}

// journeyFigures are a window's conversations by entry page, referrer and
// UTM source, and its page views by page.
type journeyFigures struct {
	sessions          int64
	entry, refs, utms map[string]int64
	pages             map[string]*pageFigures
}

// journeyFigures reads a window's figures (only the conversations when
// sessionsOnly): the whole UTC days from analytics_journey_days, the
// partial days at either end from the conversations and page views.
func (s *Service) journeyFigures(ctx context.Context, sc scope, w Window, sessionsOnly bool) (*journeyFigures, error) {
	f := &journeyFigures{entry: map[string]int64{}, refs: map[string]int64{}, utms: map[string]int64{}, pages: map[string]*pageFigures{}}
	page := func(p pageFigures) {
		if f.pages[p.URL] == nil {
			f.pages[p.URL] = &pageFigures{URL: p.URL}
		}
		f.pages[p.URL].add(p)
	}
	entry := func(url string, ref, utm *string, n int64) {
		f.sessions += n
		f.entry[url] += n
		r := "direct"
		if ref != nil && *ref != "" {
			r = *ref
		}
		f.refs[r] += n
		if utm != nil && *utm != "" {
			f.utms[*utm] += n
		}
	}
	first, last := (w.Start.Unix()+daySeconds-1)/daySeconds, w.End.Unix()/daySeconds // whole days [first, last)
	edges := []Window{w}
	if first < last && !s.journeyFromRows {
		edges = []Window{{Start: w.Start, End: dayStart(first)}, {Start: dayStart(last), End: w.End}}
		scond, sargs := sc.in("t")
		kinds := ""
		if sessionsOnly {
			kinds = ` AND t.kind = '` + kindEntry + `'`
		}
		var rows []journeyDayRow
		if err := store.Select(ctx, s.db.Reader(), &rows, `SELECT t.kind, t.key, SUM(t.n) AS n, SUM(t.seconds) AS seconds,
			SUM(t.timed) AS timed, SUM(t.leads) AS leads, SUM(t.meetings) AS meetings, SUM(t.converted) AS converted
			FROM analytics_journey_days t WHERE `+scond+` AND t.day >= ? AND t.day < ?`+kinds+` GROUP BY t.kind, t.key`,
			append(sargs, first, last)...); err != nil {
			return nil, fmt.Errorf("analytics: journey days: %w", err)
		}
		for _, r := range rows {
			switch {
			case r.Kind == kindPage && r.N > 0:
				page(pageFigures{URL: r.Key, N: r.N, Seconds: r.Seconds, Timed: r.Timed, Leads: r.Leads, Meetings: r.Meetings,
					Converted: r.Converted})
			case r.Kind == kindEntry:
				f.sessions += r.N
				f.entry[r.Key] += r.N
			case r.Kind == kindReferrer:
				ref := r.Key
				if ref == "" {
					ref = "direct"
				}
				f.refs[ref] += r.N
			case r.Kind == kindUTM:
				f.utms[r.Key] += r.N
			}
		}
	}
	for _, e := range edges {
		if !e.Start.Before(e.End) {
			continue
		}
		escond, esargs := sc.in("s")
		etcond, etargs := between("s.entry_at", e)
		var firsts []struct {
			URL string  `db:"url"`
			Ref *string `db:"referrer_host"`
			UTM *string `db:"utm_source"`
			N   int64   `db:"n"`
		}
		if err := store.Select(ctx, s.db.Reader(), &firsts, `SELECT s.entry_url AS url, s.referrer_host, s.utm_source, COUNT(*) AS n
			FROM chat_sessions s WHERE `+escond+` AND `+etcond+` GROUP BY s.entry_url, s.referrer_host, s.utm_source`,
			append(esargs, etargs...)...); err != nil {
			return nil, fmt.Errorf("analytics: entry pages: %w", err)
		}
		for _, r := range firsts {
			entry(r.URL, r.Ref, r.UTM, r.N)
		}
		if sessionsOnly {
			continue
		}
		pcond, pargs := sc.in("p")
		ptcond, ptargs := between("p.created_at", e)
		var pages []pageFigures
		if err := store.Select(ctx, s.db.Reader(), &pages, `SELECT p.url, COUNT(*) AS n, SUM(p.seconds) AS seconds,
			SUM(CASE WHEN p.seconds > 0 THEN 1 ELSE 0 END) AS timed,
			SUM(CASE WHEN l.captured_at IS NOT NULL THEN 1 ELSE 0 END) AS leads,
			SUM(CASE WHEN l.meeting_booked_at IS NOT NULL THEN 1 ELSE 0 END) AS meetings,
			SUM(CASE WHEN l.captured_at IS NOT NULL OR l.meeting_booked_at IS NOT NULL THEN 1 ELSE 0 END) AS converted
			FROM page_views p LEFT JOIN leads l ON l.session_id = p.session_id
			WHERE `+pcond+` AND `+ptcond+` GROUP BY p.url`, append(pargs, ptargs...)...); err != nil {
			return nil, fmt.Errorf("analytics: pages: %w", err)
		}
		for _, p := range pages {
			page(p)
		}
	}
	for _, m := range []map[string]int64{f.entry, f.refs, f.utms} {
		maps.DeleteFunc(m, func(_ string, n int64) bool { return n == 0 })
	}
	return f, nil
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
