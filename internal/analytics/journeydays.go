package analytics

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"concierge/internal/store"
)

// The kinds of analytics_journey_days' rows.
const (
	kindPage     = "page"     // key: the page's URL, by the page view's first report
	kindEntry    = "entry"    // key: the conversation's entry page, by its entry_at
	kindReferrer = "referrer" // key: its referrer host ('' for none), by its entry_at
	kindUTM      = "utm"      // key: its UTM source (only when it has one), by its entry_at
)

// JourneyDelta is a change to one bot's journey figures on the UTC day of
// At. The writers of page views, entry pages, lead forms and meetings
// (package lead) record them in the transaction of the change
// (RecordJourney), so that analytics_journey_days always says what the
// rows say.
type JourneyDelta struct {
	BotID                                         int64
	At                                            time.Time
	kind, key                                     string
	n, seconds, timed, leads, meetings, converted int64
}

func (d JourneyDelta) zero() bool {
	return d.n == 0 && d.seconds == 0 && d.timed == 0 && d.leads == 0 && d.meetings == 0 && d.converted == 0
}

func (d *JourneyDelta) add(o JourneyDelta) {
	d.n += o.n
	d.seconds += o.seconds
	d.timed += o.timed
	d.leads += o.leads
	d.meetings += o.meetings
	d.converted += o.converted
}

// Converted is what a page view of a session counts of its lead: whether
// the lead left a lead form, and whether it booked a meeting.
type Converted struct{ Lead, Meeting bool }

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// PageView is the delta of a page view reported at (its created_at) with
// seconds on the page, when oldSeconds is nil (a new page view), or of
// its time going from *oldSeconds to seconds.
func PageView(botID int64, url string, at time.Time, oldSeconds *int, seconds int, c Converted) JourneyDelta {
	d := JourneyDelta{BotID: botID, At: at, kind: kindPage, key: url, seconds: int64(seconds), timed: b2i(seconds > 0)}
	if oldSeconds == nil {
		d.n, d.leads, d.meetings, d.converted = 1, b2i(c.Lead), b2i(c.Meeting), b2i(c.Lead || c.Meeting)
		return d
	}
	d.seconds -= int64(*oldSeconds)
	d.timed -= b2i(*oldSeconds > 0)
	return d
}

// SeenPage is a page view of a session: its URL and its created_at.
type SeenPage struct {
	URL string    `db:"url"`
	At  time.Time `db:"created_at"`
}

// Conversion is the delta of a session's page views when its lead goes
// from before to after (a first lead form, a first meeting).
func Conversion(botID int64, pages []SeenPage, before, after Converted) []JourneyDelta {
	dl, dm, dc := b2i(after.Lead)-b2i(before.Lead), b2i(after.Meeting)-b2i(before.Meeting),
		b2i(after.Lead || after.Meeting)-b2i(before.Lead || before.Meeting)
	if dl == 0 && dm == 0 && dc == 0 {
		return nil
	}
	out := make([]JourneyDelta, 0, len(pages))
	for _, p := range pages {
		out = append(out, JourneyDelta{BotID: botID, At: p.At, kind: kindPage, key: p.URL, leads: dl, meetings: dm, converted: dc})
	}
	return out
}

// Entry is what the journey reads of a conversation: its entry page and
// when it was reported (nil: none yet), its referrer host and UTM source.
type Entry struct {
	At       *time.Time `db:"entry_at"`
	URL      *string    `db:"entry_url"`
	Referrer *string    `db:"referrer_host"`
	UTM      *string    `db:"utm_source"`
}

// EntryColumns are Entry's columns of chat_sessions.
const EntryColumns = "entry_at, entry_url, referrer_host, utm_source"

func (e Entry) deltas(botID int64, sign int64) []JourneyDelta {
	if e.At == nil {
		return nil
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	out := []JourneyDelta{
		{BotID: botID, At: *e.At, kind: kindEntry, key: str(e.URL), n: sign},
		{BotID: botID, At: *e.At, kind: kindReferrer, key: str(e.Referrer), n: sign},
	}
	if u := str(e.UTM); u != "" {
		out = append(out, JourneyDelta{BotID: botID, At: *e.At, kind: kindUTM, key: u, n: sign})
	}
	return out
}

// EntryChange is the delta of a conversation whose entry went from before
// to after.
func EntryChange(botID int64, before, after Entry) []JourneyDelta {
	return append(before.deltas(botID, -1), after.deltas(botID, 1)...)
}

// journeyColumns are analytics_journey_days' figures.
const journeyColumns = "n, seconds, timed, leads, meetings, converted"

// RecordJourney adds deltas to their bots' journey days inside tx. Like
// Record, it must be the last statement of the writer's transaction (the
// rows of a busy page's day are shared by every session of the bot), and
// takes them in key order.
func RecordJourney(ctx context.Context, tx store.Q, deltas ...JourneyDelta) error {
	type key struct {
		bot, day  int64
		kind, key string
	}
	merged := map[key]*JourneyDelta{}
	var keys []key
	for _, d := range deltas {
		k := key{d.BotID, dayOf(d.At), d.kind, d.key}
		if m, ok := merged[k]; ok {
			m.add(d)
			continue
		}
		c := d
		merged[k] = &c
		keys = append(keys, k)
	}
	keys = slices.DeleteFunc(keys, func(k key) bool { return merged[k].zero() })
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.bot, b.bot), cmp.Compare(a.day, b.day), cmp.Compare(a.kind, b.kind), cmp.Compare(a.key, b.key))
	})
	const width = 10
	if len(keys) == 0 {
		return nil
	}
	chunks := []int{len(keys)} // a signal's few rows in one statement
	if len(keys) > 8 {
		chunks = store.PowerChunks(len(keys), 32)
	}
	for _, n := range chunks {
		chunk := keys[:n]
		keys = keys[n:]
		args := make([]any, 0, width*n)
		for _, k := range chunk {
			d := merged[k]
			args = append(args, k.bot, k.day, k.kind, k.key, d.n, d.seconds, d.timed, d.leads, d.meetings, d.converted)
		}
		if _, err := store.Exec(ctx, tx, `INSERT INTO analytics_journey_days (bot_id, day, kind, key, `+journeyColumns+`)
			VALUES `+store.Rows(n, width)+` ON CONFLICT (bot_id, day, kind, key) DO UPDATE SET
			n = analytics_journey_days.n + excluded.n, seconds = analytics_journey_days.seconds + excluded.seconds,
			timed = analytics_journey_days.timed + excluded.timed, leads = analytics_journey_days.leads + excluded.leads,
			meetings = analytics_journey_days.meetings + excluded.meetings,
			converted = analytics_journey_days.converted + excluded.converted`, args...); err != nil {
			return fmt.Errorf("analytics: journey days: %w", err)
		}
	}
	return nil
}

// journeyDaysFrom is the SELECT of every bot's journey days computed from
// the page views, leads and conversations (what migration 00019 filled
// the table with).
func (s *Service) journeyDaysFrom() string {
	return `SELECT bot_id, day, kind, key, SUM(n) AS n, SUM(seconds) AS seconds, SUM(timed) AS timed, SUM(leads) AS leads,
		SUM(meetings) AS meetings, SUM(converted) AS converted
	FROM (
		SELECT p.bot_id, ` + s.day("p.created_at") + ` AS day, 'page' AS kind, p.url AS key, 1 AS n, p.seconds AS seconds,
			CASE WHEN p.seconds > 0 THEN 1 ELSE 0 END AS timed,
			CASE WHEN l.captured_at IS NOT NULL THEN 1 ELSE 0 END AS leads,
			CASE WHEN l.meeting_booked_at IS NOT NULL THEN 1 ELSE 0 END AS meetings,
			CASE WHEN l.captured_at IS NOT NULL OR l.meeting_booked_at IS NOT NULL THEN 1 ELSE 0 END AS converted
		FROM page_views p LEFT JOIN leads l ON l.session_id = p.session_id
		UNION ALL
		SELECT s.bot_id, ` + s.day("s.entry_at") + `, 'entry', COALESCE(s.entry_url, ''), 1, 0, 0, 0, 0, 0
		FROM chat_sessions s WHERE s.entry_at IS NOT NULL
		UNION ALL
		SELECT s.bot_id, ` + s.day("s.entry_at") + `, 'referrer', COALESCE(s.referrer_host, ''), 1, 0, 0, 0, 0, 0
		FROM chat_sessions s WHERE s.entry_at IS NOT NULL
		UNION ALL
		SELECT s.bot_id, ` + s.day("s.entry_at") + `, 'utm', s.utm_source, 1, 0, 0, 0, 0, 0
		FROM chat_sessions s WHERE s.entry_at IS NOT NULL AND s.utm_source IS NOT NULL AND s.utm_source <> ''
	) t GROUP BY bot_id, day, kind, key`
}

// journeyDayRow is one row of analytics_journey_days.
type journeyDayRow struct {
	BotID     int64  `db:"bot_id"`
	Day       int64  `db:"day"`
	Kind      string `db:"kind"`
	Key       string `db:"key"`
	N         int64  `db:"n"`
	Seconds   int64  `db:"seconds"`
	Timed     int64  `db:"timed"`
	Leads     int64  `db:"leads"`
	Meetings  int64  `db:"meetings"`
	Converted int64  `db:"converted"`
}

func (r journeyDayRow) zero() bool {
	return r.N == 0 && r.Seconds == 0 && r.Timed == 0 && r.Leads == 0 && r.Meetings == 0 && r.Converted == 0
}

// verifyJourneyDays compares analytics_journey_days with the rows (rows
// the writers brought back to zero are as good as none).
func (s *Service) verifyJourneyDays(ctx context.Context) error {
	var kept, computed []journeyDayRow
	const order = ` ORDER BY bot_id, day, kind, key`
	if err := store.Select(ctx, s.db.Reader(), &kept, `SELECT bot_id, day, kind, key, `+journeyColumns+`
		FROM analytics_journey_days`+order); err != nil {
		return fmt.Errorf("analytics: journey days: %w", err)
	}
	if err := store.Select(ctx, s.db.Reader(), &computed, `SELECT * FROM (`+s.journeyDaysFrom()+`) x`+order); err != nil {
		return fmt.Errorf("analytics: journey days: %w", err)
	}
	kept = slices.DeleteFunc(kept, journeyDayRow.zero)
	if k, c, drifted := firstDrift(kept, computed, equal); drifted {
		return fmt.Errorf("analytics: journey days drifted: kept %+v, the rows say %+v", k, c)
	}
	return nil
}
