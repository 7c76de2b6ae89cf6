package analytics

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"concierge/internal/store"
)

const daySeconds = 86400

// dayOf is the UTC day of an instant, as the day expression computes it.
func dayOf(t time.Time) int64 { return epochSlot(t, daySeconds) }

// day is the SQL expression of the UTC day of a timestamp column.
func (s *Service) day(col string) string {
	if s.db.Dialect() == store.Postgres {
		return fmt.Sprintf("CAST(FLOOR(EXTRACT(EPOCH FROM %s) / %d) AS BIGINT)", col, daySeconds)
	}
	return fmt.Sprintf("(CAST(strftime('%%s', %s) AS INTEGER) / %d)", col, daySeconds)
}

// topicDaysFrom is the SELECT of analytics_topic_days computed from the
// messages before its one parameter (an instant).
func (s *Service) topicDaysFrom() string {
	return `SELECT m.bot_id, ` + s.day("m.created_at") + ` AS day, m.topic, COUNT(*) AS questions,
		SUM(CASE WHEN m.reply_answered = TRUE THEN 1 ELSE 0 END) AS answered, MAX(m.created_at) AS last_at,
		MAX(CASE WHEN m.reply_answered = FALSE THEN m.created_at END) AS last_unanswered_at
	FROM chat_messages m WHERE ` + questionCond + ` AND m.topic <> '' AND m.created_at < ?
	GROUP BY m.bot_id, ` + s.day("m.created_at") + `, m.topic`
}

// dayStart is the first instant of a UTC day.
func dayStart(day int64) time.Time { return time.Unix(day*daySeconds, 0).UTC() }

// topicDayRow is one row of analytics_topic_days.
type topicDayRow struct {
	BotID          int64  `db:"bot_id"`
	Day            int64  `db:"day"`
	Topic          string `db:"topic"`
	Questions      int64  `db:"questions"`
	Answered       int64  `db:"answered"`
	Last           dbTime `db:"last_at"`
	LastUnanswered dbTime `db:"last_unanswered_at"`
}

func (r topicDayRow) same(o topicDayRow) bool {
	return r.BotID == o.BotID && r.Day == o.Day && r.Topic == o.Topic && r.Questions == o.Questions &&
		r.Answered == o.Answered && r.Last.Equal(o.Last.Time) && r.LastUnanswered.Equal(o.LastUnanswered.Time)
}

// verifyTopicDays compares the folded days of analytics_topic_days with
// the messages.
func (s *Service) verifyTopicDays(ctx context.Context) error {
	until, ok, err := foldedUntil(ctx, s.db.Reader())
	if err != nil || !ok {
		return err
	}
	var kept, computed []topicDayRow
	const order = ` ORDER BY bot_id, day, topic`
	if err := store.Select(ctx, s.db.Reader(), &kept, `SELECT bot_id, day, topic, questions, answered, last_at,
		last_unanswered_at FROM analytics_topic_days WHERE day < ?`+order, until); err != nil {
		return fmt.Errorf("analytics: topic days: %w", err)
	}
	if err := store.Select(ctx, s.db.Reader(), &computed, `SELECT * FROM (`+s.topicDaysFrom()+`) x`+order,
		dayStart(until)); err != nil {
		return fmt.Errorf("analytics: topic days: %w", err)
	}
	if k, c, drifted := firstDrift(kept, computed, topicDayRow.same); drifted {
		return fmt.Errorf("analytics: topic days drifted: kept %+v, the messages say %+v", k, c)
	}
	return nil
}

// topicCount is a topic's questions in a window.
type topicCount struct {
	Topic    string
	N        int64
	Answered int64
	Last     time.Time
}

// topicCounts counts the questions of w per topic (unanswered ones only
// when unanswered): the whole UTC days folded into analytics_topic_days
// from the table, the rest (the partial days at either end, the days not
// folded yet) from the messages.
func (s *Service) topicCounts(ctx context.Context, sc scope, w Window, unanswered bool) ([]topicCount, error) {
	byTopic := map[string]*topicCount{}
	add := func(topic string, n, answered int64, last time.Time) {
		if n <= 0 {
			return
		}
		t := byTopic[topic]
		if t == nil {
			t = &topicCount{Topic: topic}
			byTopic[topic] = t
		}
		t.N += n
		t.Answered += answered
		if last.After(t.Last) {
			t.Last = last
		}
	}
	until, folded, err := foldedUntil(ctx, s.db.Reader())
	if err != nil {
		return nil, err
	}
	first, last := (w.Start.Unix()+daySeconds-1)/daySeconds, w.End.Unix()/daySeconds // whole days [first, last)
	if !folded {
		last = first
	} else {
		last = min(last, until)
	}
	edges := []Window{w}
	if first < last {
		edges = []Window{{Start: w.Start, End: dayStart(first)}, {Start: dayStart(last), End: w.End}}
		scond, sargs := sc.in("t")
		var rows []topicDayRow
		if err := store.Select(ctx, s.db.Reader(), &rows, `SELECT t.topic, SUM(t.questions) AS questions,
			SUM(t.answered) AS answered, MAX(t.last_at) AS last_at, MAX(t.last_unanswered_at) AS last_unanswered_at
			FROM analytics_topic_days t WHERE `+scond+` AND t.day >= ? AND t.day < ? GROUP BY t.topic`,
			append(sargs, first, last)...); err != nil {
			return nil, fmt.Errorf("analytics: topic days: %w", err)
		}
		for _, r := range rows {
			if unanswered {
				add(r.Topic, r.Questions-r.Answered, 0, r.LastUnanswered.Time)
			} else {
				add(r.Topic, r.Questions, r.Answered, r.Last.Time)
			}
		}
	}
	cond := questionCond
	if unanswered {
		cond += " AND m.reply_answered = FALSE"
	}
	scond, sargs := sc.in("m")
	for _, e := range edges {
		if !e.Start.Before(e.End) {
			continue
		}
		tcond, targs := between("m.created_at", e)
		var rows []struct {
			Topic    string `db:"topic"`
			N        int64  `db:"n"`
			Answered int64  `db:"answered"`
			Last     dbTime `db:"last"`
		}
		if err := store.Select(ctx, s.db.Reader(), &rows, `SELECT m.topic, COUNT(*) AS n,
			SUM(CASE WHEN m.reply_answered = TRUE THEN 1 ELSE 0 END) AS answered, MAX(m.created_at) AS last
			FROM chat_messages m WHERE `+scond+` AND `+tcond+` AND `+cond+` AND m.topic <> ''
			GROUP BY m.topic`, append(sargs, targs...)...); err != nil {
			return nil, fmt.Errorf("analytics: topics: %w", err)
		}
		for _, r := range rows {
			add(r.Topic, r.N, r.Answered, r.Last.Time)
		}
	}
	out := make([]topicCount, 0, len(byTopic))
	for _, t := range byTopic {
		out = append(out, *t)
	}
	slices.SortFunc(out, func(a, b topicCount) int { return cmp.Or(cmp.Compare(b.N, a.N), cmp.Compare(a.Topic, b.Topic)) })
	return out[:min(len(out), maxTopics)], nil
}
