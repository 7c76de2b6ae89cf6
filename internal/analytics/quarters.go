package analytics

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/store"
)

// Delta is a change to one bot's conversation figures, at the instant the
// rows it comes from are dated by (a message's created_at; a
// conversation's start for Conversations and Handoffs; a lead's
// captured_at and meeting_booked_at for LeadsCaptured and MeetingsBooked).
// The writers of messages, conversations and leads record one in the
// transaction of the change (Record), so that analytics_quarters always
// says what the rows say.
type Delta struct {
	BotID           int64
	At              time.Time
	Conversations   int64
	Handoffs        int64
	VisitorMessages int64
	Questions       int64
	Answered        int64
	RatingsUp       int64
	RatingsDown     int64
	ReplyCredits    int64
	Replies         int64
	Engaged         int64
	LeadsCaptured   int64
	MeetingsBooked  int64
}

func (d Delta) zero() bool {
	return d.Conversations == 0 && d.Handoffs == 0 && d.VisitorMessages == 0 && d.Questions == 0 && d.Answered == 0 &&
		d.RatingsUp == 0 && d.RatingsDown == 0 && d.ReplyCredits == 0 && d.Replies == 0 && d.Engaged == 0 &&
		d.LeadsCaptured == 0 && d.MeetingsBooked == 0
}

func (d *Delta) add(o Delta) {
	d.Conversations += o.Conversations
	d.Handoffs += o.Handoffs
	d.VisitorMessages += o.VisitorMessages
	d.Questions += o.Questions
	d.Answered += o.Answered
	d.RatingsUp += o.RatingsUp
	d.RatingsDown += o.RatingsDown
	d.ReplyCredits += o.ReplyCredits
	d.Replies += o.Replies
	d.Engaged += o.Engaged
	d.LeadsCaptured += o.LeadsCaptured
	d.MeetingsBooked += o.MeetingsBooked
}

// quarterColumns are analytics_quarters' figures, in Delta's order.
var quarterColumns = []string{"conversations", "handoffs", "visitor_messages", "questions", "answered", "ratings_up",
	"ratings_down", "reply_credits", "replies", "engaged", "leads_captured", "meetings_booked"}

func (d Delta) values() []any {
	return []any{d.Conversations, d.Handoffs, d.VisitorMessages, d.Questions, d.Answered, d.RatingsUp, d.RatingsDown,
		d.ReplyCredits, d.Replies, d.Engaged, d.LeadsCaptured, d.MeetingsBooked}
}

// quarterOf is the quarter hour of an instant (seconds since the epoch /
// 900), as the reports' bucket expression computes it in SQL.
func quarterOf(t time.Time) int64 { return epochSlot(t, bucketSeconds) }

// epochSlot is seconds since the epoch / size, rounded down.
func epochSlot(t time.Time, size int64) int64 {
	s := t.Unix()
	q := s / size
	if s%size < 0 {
		q--
	}
	return q
}

// Record adds deltas to their bots' quarters inside tx. It must be the
// last statement of the writer's transaction: on PostgreSQL the quarter's
// row stays locked until the commit, and taking it last (rows in (bot,
// quarter) order) means a transaction holding it waits for nothing else,
// so two writers never wait for each other crosswise.
func Record(ctx context.Context, tx store.Q, deltas ...Delta) error {
	type key struct{ bot, q int64 }
	merged := map[key]*Delta{}
	var keys []key
	for _, d := range deltas {
		if d.zero() {
			continue
		}
		k := key{d.BotID, quarterOf(d.At)}
		if m, ok := merged[k]; ok {
			m.add(d)
			continue
		}
		c := d
		merged[k] = &c
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int { return cmp.Or(cmp.Compare(a.bot, b.bot), cmp.Compare(a.q, b.q)) })
	var sets []string
	for _, c := range quarterColumns {
		sets = append(sets, c+" = analytics_quarters."+c+" + excluded."+c)
	}
	width := 2 + len(quarterColumns)
	for _, n := range store.PowerChunks(len(keys), 32) {
		chunk := keys[:n]
		keys = keys[n:]
		args := make([]any, 0, width*n)
		for _, k := range chunk {
			if d := merged[k]; !d.zero() {
				args = append(append(args, k.bot, k.q), d.values()...)
			}
		}
		if len(args) == 0 {
			continue
		}
		rows := len(args) / width
		if _, err := store.Exec(ctx, tx, `INSERT INTO analytics_quarters (bot_id, quarter, `+strings.Join(quarterColumns, ", ")+`)
			VALUES `+store.Rows(rows, width)+` ON CONFLICT (bot_id, quarter) DO UPDATE SET `+strings.Join(sets, ", "),
			args...); err != nil {
			return fmt.Errorf("analytics: quarters: %w", err)
		}
	}
	return nil
}

// quartersFrom is the SELECT of every bot's quarters computed from the
// messages and conversations themselves (what the migration that made
// the table filled it with).
func (s *Service) quartersFrom() string {
	return `SELECT bot_id, q AS quarter, SUM(c) AS conversations, SUM(h) AS handoffs, SUM(v) AS visitor_messages,
		SUM(qs) AS questions, SUM(a) AS answered, SUM(u) AS ratings_up, SUM(d) AS ratings_down, SUM(cr) AS reply_credits,
		SUM(r) AS replies, SUM(e) AS engaged, SUM(lc) AS leads_captured, SUM(mb) AS meetings_booked
	FROM (
		SELECT m.bot_id, ` + s.bucket("m.created_at") + ` AS q, 0 AS c, 0 AS h,
			CASE WHEN ` + visitorCond + ` THEN 1 ELSE 0 END AS v,
			CASE WHEN ` + questionCond + ` THEN 1 ELSE 0 END AS qs,
			CASE WHEN ` + questionCond + ` AND m.reply_answered = TRUE THEN 1 ELSE 0 END AS a,
			CASE WHEN ` + replyCond + ` AND m.rating = 1 THEN 1 ELSE 0 END AS u,
			CASE WHEN ` + replyCond + ` AND m.rating = -1 THEN 1 ELSE 0 END AS d,
			CASE WHEN ` + replyCond + ` THEN m.credits ELSE 0 END AS cr,
			CASE WHEN ` + replyCond + ` THEN 1 ELSE 0 END AS r, 0 AS e, 0 AS lc, 0 AS mb
		FROM chat_messages m
		UNION ALL
		SELECT s.bot_id, ` + s.bucket("s.created_at") + `, 1, CASE WHEN s.handoff_requested_at IS NOT NULL THEN 1 ELSE 0 END,
			0, 0, 0, 0, 0, 0, 0, CASE WHEN s.visitor_messages >= 2 THEN 1 ELSE 0 END, 0, 0
		FROM chat_sessions s WHERE ` + convCond + `
		UNION ALL
		SELECT l.bot_id, ` + s.bucket("l.captured_at") + `, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0
		FROM leads l WHERE l.captured_at IS NOT NULL
		UNION ALL
		SELECT l.bot_id, ` + s.bucket("l.meeting_booked_at") + `, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1
		FROM leads l WHERE l.meeting_booked_at IS NOT NULL
	) t GROUP BY bot_id, q`
}

// Rebuild recomputes every bot's quarters, its journey days and the topic
// days of every closed day (see FoldTopicDays) from the messages,
// conversations, page views and leads: for data written straight into
// the tables (benchmarks, fixtures), and to repair them should they ever
// drift.
func (s *Service) Rebuild(ctx context.Context) error {
	return s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		if _, err := store.Exec(ctx, tx, `DELETE FROM analytics_quarters`); err != nil {
			return err
		}
		if _, err := store.Exec(ctx, tx, `INSERT INTO analytics_quarters (bot_id, quarter, `+strings.Join(quarterColumns, ", ")+`) `+
			s.quartersFrom()); err != nil {
			return err
		}
		if _, err := store.Exec(ctx, tx, `DELETE FROM analytics_journey_days`); err != nil {
			return err
		}
		if _, err := store.Exec(ctx, tx, `INSERT INTO analytics_journey_days (bot_id, day, kind, key, `+journeyColumns+`) `+
			s.journeyDaysFrom()); err != nil {
			return err
		}
		if _, err := store.Exec(ctx, tx, `DELETE FROM analytics_topic_days`); err != nil {
			return err
		}
		// Every closed day folded at once.
		until := s.closedDay()
		if _, err := store.Exec(ctx, tx, `INSERT INTO analytics_topic_days (bot_id, day, topic, questions, answered, last_at,
			last_unanswered_at) `+s.topicDaysFrom(), dayStart(until)); err != nil {
			return err
		}
		_, err := store.Exec(ctx, tx, `UPDATE analytics_folds SET until_day = ? WHERE name = ?`, until, foldName)
		return err
	})
}

// QuarterRow is one bot's quarter hour of figures.
type QuarterRow struct {
	BotID   int64 `db:"bot_id"`
	Quarter int64 `db:"quarter"`
	Figures [12]int64
}

// Quarters lists the non-zero quarters of every bot, from the table
// (computed false) or from the rows themselves (computed true): equal
// whenever the writers kept the table current.
func (s *Service) Quarters(ctx context.Context, computed bool) ([]QuarterRow, error) {
	from := "analytics_quarters"
	if computed {
		from = "(" + s.quartersFrom() + ")"
	}
	rows, err := s.db.Reader().QueryxContext(ctx, `SELECT bot_id, quarter, `+strings.Join(quarterColumns, ", ")+` FROM `+from+
		` x ORDER BY bot_id, quarter`)
	if err != nil {
		return nil, fmt.Errorf("analytics: quarters: %w", store.Normalize(err))
	}
	defer rows.Close()
	var out []QuarterRow
	for rows.Next() {
		var r QuarterRow
		dst := []any{&r.BotID, &r.Quarter}
		for i := range r.Figures {
			dst = append(dst, &r.Figures[i])
		}
		if err := rows.Scan(dst...); err != nil {
			return nil, fmt.Errorf("analytics: quarters: %w", store.Normalize(err))
		}
		if r.Figures != [12]int64{} {
			out = append(out, r)
		}
	}
	return out, store.Normalize(rows.Err())
}

// quarterPass reads the per-day sums of some of analytics_quarters'
// columns for both windows (prev then cur, one span), as pass reads them
// from a table's rows: summed into days in SQL, so that a year is 730
// rows to scan and not 70,000 quarters.
func (s *Service) quarterPass(ctx context.Context, sc scope, cur, prev Window, cols ...string) (*sums, error) {
	scond, sargs := sc.in("a")
	exprs := make([]string, len(cols))
	for i, c := range cols {
		exprs[i] = "SUM(a." + c + ")"
	}
	sp := span(cur, prev)
	day, _ := daysCase("a.quarter", sp, quarterBefore("a.quarter"))
	q := `SELECT ` + day + ` AS d, ` + strings.Join(exprs, ", ") + ` FROM analytics_quarters a WHERE ` + scond +
		` AND a.quarter >= ? AND a.quarter < ? GROUP BY 1`
	args := append(sargs, quarterOf(prev.Start), quarterOf(cur.End))
	rows, err := s.db.Reader().QueryxContext(ctx, s.db.Reader().Rebind(q), args...)
	if err != nil {
		return nil, fmt.Errorf("analytics: quarters: %w", store.Normalize(err))
	}
	return scanSums(rows, sp, len(cols))
}

// Counted is what a conversation's figures depend on, as the update of
// its visitor messages returns it (RETURNING CountedColumns).
type Counted struct {
	VisitorMessages int        `db:"visitor_messages"`
	Preview         bool       `db:"preview"`
	CreatedAt       time.Time  `db:"created_at"`
	HandoffAt       *time.Time `db:"handoff_requested_at"`
}

// CountedColumns are Counted's columns of chat_sessions.
const CountedColumns = "visitor_messages, preview, created_at, handoff_requested_at"

// Delta of a conversation whose visitor messages just went up by one: it
// counts from its first visitor message on (with its hand-off, if one
// was asked for before), and is engaged from its second, by the time it
// started.
func (c Counted) Delta(botID int64) Delta {
	d := Delta{BotID: botID, At: c.CreatedAt}
	switch {
	case c.Preview:
	case c.VisitorMessages == 1:
		d.Conversations = 1
		if c.HandoffAt != nil {
			d.Handoffs = 1
		}
	case c.VisitorMessages == 2:
		d.Engaged = 1
	}
	return d
}

// VerifyQuarters compares analytics_quarters, analytics_journey_days and
// analytics_topic_days with the figures computed from the messages,
// conversations, page views and leads, and names the first difference:
// nil means every writer kept them current.
func (s *Service) VerifyQuarters(ctx context.Context) error {
	kept, err := s.Quarters(ctx, false)
	if err != nil {
		return err
	}
	computed, err := s.Quarters(ctx, true)
	if err != nil {
		return err
	}
	if k, c, drifted := firstDrift(kept, computed, equal); drifted {
		return fmt.Errorf("analytics: quarters drifted: kept %+v, the rows say %+v (columns %v)", k, c, quarterColumns)
	}
	if err := s.verifyJourneyDays(ctx); err != nil {
		return err
	}
	return s.verifyTopicDays(ctx)
}

// firstDrift compares a rollup's kept rows with the rows computed from the
// source, both in the same order, and returns the first pair that differs
// (a missing row is the zero value).
func firstDrift[T any](kept, computed []T, same func(a, b T) bool) (k, c T, drifted bool) {
	for i := range max(len(kept), len(computed)) {
		var k, c T
		if i < len(kept) {
			k = kept[i]
		}
		if i < len(computed) {
			c = computed[i]
		}
		if !same(k, c) {
			return k, c, true
		}
	}
	return k, c, false
}

// equal is == for firstDrift.
func equal[T comparable](a, b T) bool { return a == b }
