// Package analytics reads what the other areas recorded (conversations,
// messages with answered, ratings, leads and tier changes, page views,
// hand-offs, follow-ups, credits spent) into the seven reports of spec
// 4.6. Every report covers a window of whole days in the caller's time
// zone and states it; totals come with the same total for the previous
// window of equal length. Preview conversations (the dashboard's test
// chats) are never counted.
package analytics

import (
	"context"
	"fmt"
	"strings"
	"time"

	"concierge/internal/apperr"
	"concierge/internal/billing"
	"concierge/internal/clock"
	"concierge/internal/jobs"
	"concierge/internal/retrieval"
	"concierge/internal/store"
)

// Billing gates the journey summary.
type Billing interface {
	Standing(ctx context.Context, workspaceID int64) (*billing.Entitlements, error)
}

// Searcher finds the passages closest to a question (retrieval.Service).
type Searcher interface {
	Search(ctx context.Context, workspaceID, botID int64, query string, k int) ([]retrieval.Hit, error)
}

// Deps are the collaborators of a Service.
type Deps struct {
	DB      *store.DB
	Billing Billing
	Clock   clock.Clock
	// Search, when set, shows beside each unanswered group the closest
	// passage the knowledge base has.
	Search Searcher
	// Queue runs the job that folds closed days into the topic days.
	Queue *jobs.Queue
	// FoldLag is how long after a day ends it is folded (DefaultFoldLag
	// when zero); longer than a reply can stay pending.
	FoldLag time.Duration
}

// Service answers the analytics endpoints.
type Service struct {
	db      *store.DB
	billing Billing
	clock   clock.Clock
	search  Searcher
	queue   *jobs.Queue
	foldLag time.Duration
	// journeyFromRows reads the journey from the page views and
	// conversations alone, as before analytics_journey_days (tests compare).
	journeyFromRows bool
}

// New builds the service.
func New(d Deps) *Service {
	if d.Clock == nil {
		d.Clock = clock.Real{}
	}
	if d.FoldLag <= 0 {
		d.FoldLag = DefaultFoldLag
	}
	return &Service{db: d.DB, billing: d.Billing, clock: d.Clock, search: d.Search, queue: d.Queue, foldLag: d.FoldLag}
}

// Query is what every report is asked with.
type Query struct {
	BotID int64  // 0: every bot of the workspace
	Days  int    // 1–365; 0 with From/To unset means 30
	From  string // YYYY-MM-DD, inclusive, in TZ
	To    string // YYYY-MM-DD, inclusive, in TZ
	TZ    string // IANA zone; "" is UTC
}

// Window is the span a report covers: whole days in TZ, [Start, End).
type Window struct {
	From  string    `json:"from" doc:"First day covered (YYYY-MM-DD, in tz)."`
	To    string    `json:"to" doc:"Last day covered, inclusive."`
	Days  int       `json:"days"`
	TZ    string    `json:"tz"`
	Start time.Time `json:"start" doc:"The window's first instant (RFC 3339, UTC)."`
	End   time.Time `json:"end" doc:"The instant after its last (exclusive)."`
	loc   *time.Location
}

// MaxDays is the longest window.
const MaxDays = 365

// window resolves a query's window and the previous one of equal length.
func (s *Service) window(q Query) (cur, prev Window, err error) {
	tz := q.TZ
	if tz == "" {
		tz = "UTC"
	}
	loc, lerr := time.LoadLocation(tz)
	if lerr != nil || strings.EqualFold(tz, "local") {
		return cur, prev, apperr.Invalid("query.tz", "must be an IANA time zone such as Europe/Berlin", "value_error")
	}
	day := func(field, v string) (time.Time, error) {
		t, err := time.ParseInLocation("2006-01-02", v, loc)
		if err != nil {
			return t, apperr.Invalid("query."+field, "must be a date as YYYY-MM-DD", "value_error")
		}
		return t, nil
	}
	var first time.Time
	days := q.Days
	switch {
	case q.From != "" || q.To != "":
		if q.Days != 0 {
			return cur, prev, apperr.Invalid("query.days", "give days or from/to, not both", "value_error")
		}
		if q.From == "" || q.To == "" {
			return cur, prev, apperr.Invalid("query.from", "from and to go together", "value_error")
		}
		f, err := day("from", q.From)
		if err != nil {
			return cur, prev, err
		}
		t, err := day("to", q.To)
		if err != nil {
			return cur, prev, err
		}
		if t.Before(f) {
			return cur, prev, apperr.Invalid("query.to", "must not be before from", "value_error")
		}
		days = dayCount(f, t) + 1
		if days > MaxDays {
			return cur, prev, apperr.Invalid("query.to", fmt.Sprintf("a window covers at most %d days", MaxDays), "value_error")
		}
		first = f
	default:
		if days == 0 {
			days = 30
		}
		if days < 1 || days > MaxDays {
			return cur, prev, apperr.Invalid("query.days", fmt.Sprintf("must be between 1 and %d", MaxDays), "value_error")
		}
		now := s.clock.Now().In(loc)
		today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
		first = today.AddDate(0, 0, -(days - 1))
	}
	mk := func(f time.Time) Window {
		end := f.AddDate(0, 0, days)
		return Window{From: f.Format("2006-01-02"), To: end.AddDate(0, 0, -1).Format("2006-01-02"), Days: days, TZ: tz,
			Start: f.UTC(), End: end.UTC(), loc: loc}
	}
	return mk(first), mk(first.AddDate(0, 0, -days)), nil
}

// dayCount is the number of calendar days from a to b (both midnights).
func dayCount(a, b time.Time) int {
	ua := time.Date(a.Year(), a.Month(), a.Day(), 0, 0, 0, 0, time.UTC)
	ub := time.Date(b.Year(), b.Month(), b.Day(), 0, 0, 0, 0, time.UTC)
	return int(ub.Sub(ua).Hours() / 24)
}

// dates lists the window's days.
func (w Window) dates() []string {
	f := w.Start.In(w.loc)
	out := make([]string, w.Days)
	for i := range out {
		out[i] = f.AddDate(0, 0, i).Format("2006-01-02")
	}
	return out
}

// scope is the bots a report reads: one, or every bot of the workspace.
type scope struct {
	workspaceID int64
	bots        []int64
}

// in is the condition and arguments selecting the scope's rows of a table
// with a bot_id column (alias a). The bots were read as the workspace's
// (resolve), and a bot belongs to one workspace for life, so the bot
// condition alone keeps other workspaces out, and lets the reports read
// the indexes on (bot_id, time, ...) without visiting the rows.
func (sc scope) in(a string) (string, []any) {
	if len(sc.bots) == 0 {
		return "1 = 0", nil
	}
	args := make([]any, 0, len(sc.bots))
	for _, b := range sc.bots {
		args = append(args, b)
	}
	return a + ".bot_id IN (" + store.Placeholders(len(sc.bots)) + ")", args
}

// resolve checks the bot filter: another workspace's bot is 403, an
// unknown one 404.
func (s *Service) resolve(ctx context.Context, workspaceID int64, q Query) (scope, error) {
	sc := scope{workspaceID: workspaceID}
	if q.BotID != 0 {
		var owner int64
		err := store.Get(ctx, s.db.Reader(), &owner, `SELECT workspace_id FROM bots WHERE id = ?`, q.BotID)
		if store.IsNotFound(err) {
			return sc, apperr.NotFound("bot not found")
		}
		if err != nil {
			return sc, fmt.Errorf("analytics: bot: %w", err)
		}
		if owner != workspaceID {
			return sc, apperr.Forbidden("this bot belongs to another workspace")
		}
		sc.bots = []int64{q.BotID}
		return sc, nil
	}
	if err := store.Select(ctx, s.db.Reader(), &sc.bots, `SELECT id FROM bots WHERE workspace_id = ? ORDER BY id`, workspaceID); err != nil {
		return sc, fmt.Errorf("analytics: bots: %w", err)
	}
	return sc, nil
}

// prepare resolves a query's scope and windows.
func (s *Service) prepare(ctx context.Context, workspaceID int64, q Query) (scope, Window, Window, error) {
	cur, prev, err := s.window(q)
	if err != nil {
		return scope{}, cur, prev, err
	}
	sc, err := s.resolve(ctx, workspaceID, q)
	return sc, cur, prev, err
}

// rate is part/whole rounded to four places; 0 when whole is 0.
func rate(part, whole int) float64 {
	if whole == 0 {
		return 0
	}
	return float64(int(float64(part)/float64(whole)*10000+0.5)) / 10000
}
