package analytics

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"concierge/internal/lead/score"
	"concierge/internal/store"
)

// Funnel is the qualification funnel of the window's conversations.
type Funnel struct {
	Window   Window         `json:"window"`
	Previous Window         `json:"previous_window"`
	Stages   []FunnelStage  `json:"stages" doc:"conversations → engaged (2+ visitor messages) → contact captured (a lead form) → mql or better → sql → meeting booked; each stage a subset of the one before."`
	Tiers    map[string]int `json:"tiers" doc:"Current tier of the window's conversations."`
	// MedianSecondsToQualify is the median time from a conversation's
	// start to its first move to mql or sql; null when none qualified.
	MedianSecondsToQualify *int64 `json:"median_seconds_to_qualify" doc:"Median seconds from the conversation's start to its first tier change to mql or sql; null when none qualified."`
}

// FunnelStage is one stage with its conversion from the stage before.
type FunnelStage struct {
	Stage            string  `json:"stage"`
	Count            int64   `json:"count"`
	Previous         int64   `json:"previous" doc:"The same count in the previous window."`
	ConversionRate   float64 `json:"conversion_rate" doc:"count / the previous stage's count (1 for the first stage when it is not empty)."`
	ShareOfFirstStep float64 `json:"share_of_conversations" doc:"count / conversations."`
}

// Funnel answers GET /analytics/qualification-funnel.
func (s *Service) Funnel(ctx context.Context, workspaceID int64, q Query) (*Funnel, error) {
	sc, cur, prev, err := s.prepare(ctx, workspaceID, q)
	if err != nil {
		return nil, err
	}
	f := &Funnel{Window: cur, Previous: prev, Tiers: map[string]int{}}
	sess, err := s.quarterPass(ctx, sc, cur, prev, "conversations", "engaged")
	if err != nil {
		return nil, err
	}
	leads, err := s.conversationLeads(ctx, sc, cur, prev)
	if err != nil {
		return nil, err
	}
	// Each stage is a subset of the one before.
	stage := func(cur bool, in func(l convLead) bool) int64 {
		var n int64
		for _, l := range leads {
			if l.Cur == cur && l.Visitor >= 2 && l.Captured == 1 && in(l) {
				n++
			}
		}
		return n
	}
	counts := []Compared{sess.compared(0, cur, prev), sess.compared(1, cur, prev)}
	for _, in := range []func(l convLead) bool{
		func(convLead) bool { return true },
		func(l convLead) bool { return l.Tier == score.TierMQL || l.Tier == score.TierSQL },
		func(l convLead) bool { return l.Tier == score.TierSQL },
		func(l convLead) bool { return l.Tier == score.TierSQL && l.Meeting == 1 },
	} {
		counts = append(counts, Compared{stage(true, in), stage(false, in)})
	}
	for i, name := range []string{"conversations", "engaged", "contact_captured", "mql_or_better", "sql", "meeting_booked"} {
		c := counts[i]
		fs := FunnelStage{Stage: name, Count: c.Value, Previous: c.Previous, ShareOfFirstStep: rate(int(c.Value), int(counts[0].Value))}
		if i == 0 {
			fs.ConversionRate = rate(int(c.Value), int(c.Value))
		} else {
			fs.ConversionRate = rate(int(c.Value), int(counts[i-1].Value))
		}
		f.Stages = append(f.Stages, fs)
	}
	for k, v := range leads.tiers(counts[0].Value) {
		f.Tiers[k] = int(v)
	}
	// Time to qualify: the first change to mql or sql of each conversation
	// (read from the changes, which come after the conversation started).
	scond, sargs := sc.in("c")
	tcond, targs := between("s.created_at", cur)
	var rows []struct {
		Start dbTime `db:"started"`
		At    dbTime `db:"at"`
	}
	if err := store.Select(ctx, s.db.Reader(), &rows, `SELECT MIN(s.created_at) AS started, MIN(c.created_at) AS at
		FROM lead_tier_changes c JOIN chat_sessions s ON s.id = c.session_id
		WHERE `+scond+` AND c.created_at >= ? AND c.to_tier IN ('mql', 'sql') AND `+tcond+` AND `+convCond+`
		GROUP BY c.session_id`, append(append(sargs, cur.Start), targs...)...); err != nil {
		return nil, fmt.Errorf("analytics: time to qualify: %w", err)
	}
	if len(rows) > 0 {
		secs := make([]int64, len(rows))
		for i, r := range rows {
			secs[i] = max(0, int64(r.At.Sub(r.Start.Time)/time.Second))
		}
		m := median(secs)
		f.MedianSecondsToQualify = &m
	}
	return f, nil
}

// median of integers (the lower middle of an even count).
func median(v []int64) int64 {
	sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
	return v[(len(v)-1)/2]
}

// Ratings is the visitors' ratings of replies given in the window.
type Ratings struct {
	Window       Window         `json:"window"`
	Previous     Window         `json:"previous_window"`
	Up           Compared       `json:"up"`
	Down         Compared       `json:"down"`
	Rated        Compared       `json:"rated" doc:"Replies rated."`
	RatedShare   float64        `json:"rated_share" doc:"rated / replies given in the window."`
	Satisfaction RateCompared   `json:"satisfaction" doc:"up / (up + down); 0 when nothing was rated."`
	Average      float64        `json:"average" doc:"Mean rating with up = +1, down = −1 (−1 to 1)."`
	Series       []RatingDay    `json:"series"`
	LowestRated  []RatedAnswer  `json:"lowest_rated" doc:"Replies rated down, latest first (at most 10), with the question they answered."`
	Distribution map[string]int `json:"distribution"`
}

// RatingDay is one day of ratings.
type RatingDay struct {
	Date string `json:"date"`
	Up   int64  `json:"up"`
	Down int64  `json:"down"`
}

// RatedAnswer is a reply rated down.
type RatedAnswer struct {
	SessionID string    `json:"session_id"`
	MessageID string    `json:"message_id"`
	Question  string    `json:"question"`
	Answer    string    `json:"answer"`
	Answered  bool      `json:"answered"`
	At        time.Time `json:"created_at"`
}

// Ratings answers GET /analytics/ratings-summary.
func (s *Service) Ratings(ctx context.Context, workspaceID int64, q Query) (*Ratings, error) {
	sc, cur, prev, err := s.prepare(ctx, workspaceID, q)
	if err != nil {
		return nil, err
	}
	r := &Ratings{Window: cur, Previous: prev}
	p, err := s.quarterPass(ctx, sc, cur, prev, "ratings_up", "ratings_down", "replies")
	if err != nil {
		return nil, err
	}
	r.Up, r.Down = p.compared(0, cur, prev), p.compared(1, cur, prev)
	r.Rated = Compared{r.Up.Value + r.Down.Value, r.Up.Previous + r.Down.Previous}
	r.RatedShare = rate(int(r.Rated.Value), int(p.total(2, cur)))
	r.Satisfaction = RateCompared{rate(int(r.Up.Value), int(r.Rated.Value)), rate(int(r.Up.Previous), int(r.Rated.Previous))}
	if r.Rated.Value > 0 {
		r.Average = float64(int(float64(r.Up.Value-r.Down.Value)/float64(r.Rated.Value)*10000)) / 10000
	}
	r.Distribution = map[string]int{"up": int(r.Up.Value), "down": int(r.Down.Value)}
	up, down := p.daily(0, cur), p.daily(1, cur)
	for i, d := range cur.dates() {
		r.Series = append(r.Series, RatingDay{Date: d, Up: up[i], Down: down[i]})
	}
	scond, sargs := sc.in("m")
	tcond, targs := between("m.created_at", cur)
	var rows []struct {
		Session  string    `db:"session"`
		ID       string    `db:"public_id"`
		Question *string   `db:"question"`
		Answer   string    `db:"text"`
		Answered *bool     `db:"answered"`
		At       time.Time `db:"created_at"`
	}
	if err := store.Select(ctx, s.db.Reader(), &rows, `SELECT s.public_id AS session, m.public_id, m.text, m.answered, m.created_at,
		(SELECT u.text FROM chat_messages u WHERE u.session_id = m.session_id AND u.role = 'user' AND u.id < m.id
		 ORDER BY u.id DESC LIMIT 1) AS question
		FROM chat_messages m JOIN chat_sessions s ON s.id = m.session_id
		WHERE `+scond+` AND `+tcond+` AND m.rating = -1 AND `+replyCond+` ORDER BY m.created_at DESC, m.id DESC LIMIT 10`,
		append(sargs, targs...)...); err != nil {
		return nil, fmt.Errorf("analytics: lowest rated: %w", err)
	}
	r.LowestRated = []RatedAnswer{}
	for _, x := range rows {
		a := RatedAnswer{SessionID: x.Session, MessageID: x.ID, Answer: x.Answer, At: x.At.UTC(), Answered: x.Answered != nil && *x.Answered}
		if x.Question != nil {
			a.Question = *x.Question
		}
		r.LowestRated = append(r.LowestRated, a)
	}
	return r, nil
}

// Resolution is how the window's conversations ended.
type Resolution struct {
	Window   Window                  `json:"window"`
	Previous Window                  `json:"previous_window"`
	Total    Compared                `json:"conversations"`
	Outcomes map[string]OutcomeCount `json:"outcomes" doc:"resolved_by_bot: every question answered, no hand-off; unanswered: at least one question the bot could not answer, no hand-off; handed_off: a person was asked for and the conversation is waiting, with an operator, or went back to the bot after one took part; resolved_by_operator: an operator closed it; abandoned: a hand-off nobody claimed in time (the conversation went back to the bot); no_question: the visitor wrote only to an operator or to an offline bot. Every conversation has exactly one."`
	// MedianFirstReplySeconds: from the hand-off request to the first
	// operator message.
	MedianFirstReplySeconds *int64   `json:"median_first_operator_reply_seconds" doc:"Median seconds from a hand-off request to the first operator message; null without one."`
	HandoffTimeouts         Compared `json:"handoff_timeouts" doc:"Hand-offs that went back to the bot because nobody claimed them within the bot's hand-off timeout."`
}

// OutcomeCount is one outcome's count and share.
type OutcomeCount struct {
	Count    int64   `json:"count"`
	Previous int64   `json:"previous"`
	Rate     float64 `json:"rate" doc:"count / conversations."`
}

// outcomeConds classify a conversation s: the first that holds is its
// outcome (live chat's outcome column, then the bot's replies).
var outcomeConds = []struct{ name, cond string }{
	{"resolved_by_operator", "s.outcome = 'resolved'"},
	{"abandoned", "s.outcome = 'abandoned'"},
	{"handed_off", "(s.outcome = 'handed_off' OR s.handoff_requested_at IS NOT NULL)"},
	{"unanswered", "s.unanswered_replies > 0"},
	{"resolved_by_bot", "s.answered_replies > 0"},
	{"no_question", "1 = 1"},
}

// Resolution answers GET /analytics/resolution-summary.
func (s *Service) Resolution(ctx context.Context, workspaceID int64, q Query) (*Resolution, error) {
	sc, cur, prev, err := s.prepare(ctx, workspaceID, q)
	if err != nil {
		return nil, err
	}
	r := &Resolution{Window: cur, Previous: prev, Outcomes: map[string]OutcomeCount{}}
	// Each window's conversations counted by outcome (no day series here:
	// no per-row time arithmetic).
	var b strings.Builder
	b.WriteString("CASE")
	for i, o := range outcomeConds {
		fmt.Fprintf(&b, " WHEN %s THEN %d", o.cond, i)
	}
	b.WriteString(" END")
	scond, sargs := sc.in("s")
	byOutcome := make([]Compared, len(outcomeConds))
	for _, w := range []Window{cur, prev} {
		tcond, targs := between("s.created_at", w)
		var counts []struct {
			Outcome int   `db:"outcome"`
			N       int64 `db:"n"`
		}
		if err := store.Select(ctx, s.db.Reader(), &counts, `SELECT `+b.String()+` AS outcome, COUNT(*) AS n FROM chat_sessions s
			WHERE `+scond+` AND `+tcond+` AND `+convCond+` GROUP BY 1`, append(sargs, targs...)...); err != nil {
			return nil, fmt.Errorf("analytics: outcomes: %w", err)
		}
		for _, c := range counts {
			if w == cur {
				byOutcome[c.Outcome].Value += c.N
			} else {
				byOutcome[c.Outcome].Previous += c.N
			}
		}
	}
	for _, c := range byOutcome {
		r.Total.Value += c.Value
		r.Total.Previous += c.Previous
	}
	for i, o := range outcomeConds {
		c := byOutcome[i]
		r.Outcomes[o.name] = OutcomeCount{Count: c.Value, Previous: c.Previous, Rate: rate(int(c.Value), int(r.Total.Value))}
	}
	r.HandoffTimeouts = byOutcome[1]
	tcond, targs := between("s.created_at", cur)
	var secs []int64
	if err := store.Select(ctx, s.db.Reader(), &secs, `SELECT s.first_operator_reply_seconds FROM chat_sessions s
		WHERE `+scond+` AND `+tcond+` AND s.handoff_requested_at IS NOT NULL AND s.first_operator_reply_seconds IS NOT NULL`,
		append(sargs, targs...)...); err != nil {
		return nil, fmt.Errorf("analytics: first reply: %w", err)
	}
	if len(secs) > 0 {
		m := median(secs)
		r.MedianFirstReplySeconds = &m
	}
	return r, nil
}
