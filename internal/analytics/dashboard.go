package analytics

import (
	"context"
	"fmt"

	"concierge/internal/lead/score"
	"concierge/internal/store"
)

// Conditions shared by the reports.
const (
	// A conversation: a non-preview session in which the visitor wrote.
	convCond = "s.preview = FALSE AND s.messages > 0"
	// A visitor message of a non-preview conversation carries a topic.
	visitorCond = "m.role = 'user' AND m.topic IS NOT NULL"
	// A question put to the bot (not to an operator, not while offline).
	questionCond = visitorCond + " AND m.reply_answered IS NOT NULL"
)

// Dashboard is the window's totals and day series.
type Dashboard struct {
	Window              Window           `json:"window"`
	Previous            Window           `json:"previous_window"`
	Conversations       Compared         `json:"conversations" doc:"Conversations started in the window in which the visitor wrote (preview chats excluded)."`
	VisitorMessages     Compared         `json:"visitor_messages"`
	UniqueVisitors      Compared         `json:"unique_visitors" doc:"Distinct visitors of those conversations: one per e-mail address left, each anonymous conversation one."`
	Questions           Compared         `json:"questions" doc:"Visitor messages the bot replied to (messages to an operator and to an offline bot excluded)."`
	Answered            Compared         `json:"answered" doc:"Of questions, those the bot answered from the knowledge base."`
	AnsweredRate        RateCompared     `json:"answered_rate" doc:"answered / questions (0 when there were none)."`
	UnansweredQuestions Compared         `json:"unanswered_questions" doc:"questions − answered: the bot said it did not know."`
	Handoffs            Compared         `json:"handoffs" doc:"Conversations handed to a person (hand-off requested in the window)."`
	LeadsCaptured       Compared         `json:"leads_captured" doc:"Lead forms submitted in the window."`
	LeadsByTier         map[string]int64 `json:"leads_by_tier" doc:"The current tier of the window's conversations (every conversation is scored)."`
	MeetingsBooked      Compared         `json:"meetings_booked"`
	FollowUpsSent       Compared         `json:"follow_ups_sent"`
	RatingsUp           Compared         `json:"ratings_up"`
	RatingsDown         Compared         `json:"ratings_down"`
	Satisfaction        RateCompared     `json:"satisfaction" doc:"ratings_up / (ratings_up + ratings_down) of the replies given in the window."`
	CreditsSpent        Compared         `json:"credits_spent" doc:"Credits charged for replies, follow-ups and pages indexed in the window (pages of documents since removed are not counted)."`
	Series              []DayPoint       `json:"series" doc:"Per day of the window, zero-filled."`
}

// DayPoint is one day of the dashboard's series.
type DayPoint struct {
	Date          string `json:"date"`
	Conversations int64  `json:"conversations"`
	Leads         int64  `json:"leads"`
	Credits       int64  `json:"credits"`
}

// Dashboard answers GET /analytics/dashboard.
func (s *Service) Dashboard(ctx context.Context, workspaceID int64, q Query) (*Dashboard, error) {
	sc, cur, prev, err := s.prepare(ctx, workspaceID, q)
	if err != nil {
		return nil, err
	}
	d := &Dashboard{Window: cur, Previous: prev}
	type metric struct {
		dst                          *Compared
		expr, from, alias, col, cond string
	}
	for _, m := range []metric{
		{&d.Conversations, "COUNT(*)", "chat_sessions s", "s", "s.created_at", convCond},
		{&d.VisitorMessages, "COUNT(*)", "chat_messages m", "m", "m.created_at", visitorCond},
		{&d.UniqueVisitors, "COUNT(DISTINCT COALESCE(LOWER(l.email), s.public_id))",
			"chat_sessions s LEFT JOIN leads l ON l.session_id = s.id", "s", "s.created_at", convCond},
		{&d.Questions, "COUNT(*)", "chat_messages m", "m", "m.created_at", questionCond},
		{&d.Answered, "COUNT(*)", "chat_messages m", "m", "m.created_at", questionCond + " AND m.reply_answered = TRUE"},
		{&d.Handoffs, "COUNT(*)", "chat_sessions s", "s", "s.handoff_requested_at", "s.preview = FALSE"},
		{&d.LeadsCaptured, "COUNT(*)", "leads l", "l", "l.captured_at", ""},
		{&d.MeetingsBooked, "COUNT(*)", "leads l", "l", "l.meeting_booked_at", ""},
		{&d.FollowUpsSent, "COUNT(*)", "lead_follow_ups f", "f", "f.created_at", ""},
		{&d.RatingsUp, "COUNT(*)", "chat_messages m", "m", "m.created_at", "m.role = 'assistant' AND m.rating = 1"},
		{&d.RatingsDown, "COUNT(*)", "chat_messages m", "m", "m.created_at", "m.role = 'assistant' AND m.rating = -1"},
	} {
		if *m.dst, err = s.both(ctx, sc, cur, prev, m.expr, m.from, m.alias, m.col, m.cond); err != nil {
			return nil, err
		}
	}
	d.UnansweredQuestions = Compared{d.Questions.Value - d.Answered.Value, d.Questions.Previous - d.Answered.Previous}
	d.AnsweredRate = RateCompared{rate(int(d.Answered.Value), int(d.Questions.Value)), rate(int(d.Answered.Previous), int(d.Questions.Previous))}
	d.Satisfaction = RateCompared{rate(int(d.RatingsUp.Value), int(d.RatingsUp.Value+d.RatingsDown.Value)),
		rate(int(d.RatingsUp.Previous), int(d.RatingsUp.Previous+d.RatingsDown.Previous))}

	credits := func(w Window) ([]int64, int64, error) {
		var total int64
		sum := make([]int64, w.Days)
		for _, c := range []struct{ from, alias, col, cond string }{
			{"chat_messages m", "m", "m.created_at", "m.role = 'assistant' AND m.status = 'completed'"},
			{"lead_follow_ups m", "m", "m.created_at", ""},
			{"documents m", "m", "m.created_at", "m.status = 'ready'"},
		} {
			ser, err := s.daily(ctx, sc, w, "SUM(m.credits)", c.from, c.alias, c.col, c.cond)
			if err != nil {
				return nil, 0, err
			}
			for i, v := range ser {
				sum[i] += v
				total += v
			}
		}
		return sum, total, nil
	}
	credCur, totCur, err := credits(cur)
	if err != nil {
		return nil, err
	}
	_, totPrev, err := credits(prev)
	if err != nil {
		return nil, err
	}
	d.CreditsSpent = Compared{totCur, totPrev}
	convs, err := s.daily(ctx, sc, cur, "COUNT(*)", "chat_sessions s", "s", "s.created_at", convCond)
	if err != nil {
		return nil, err
	}
	leads, err := s.daily(ctx, sc, cur, "COUNT(*)", "leads l", "l", "l.captured_at", "")
	if err != nil {
		return nil, err
	}
	for i, day := range cur.dates() {
		d.Series = append(d.Series, DayPoint{Date: day, Conversations: convs[i], Leads: leads[i], Credits: credCur[i]})
	}
	if d.LeadsByTier, err = s.tiers(ctx, sc, cur); err != nil {
		return nil, err
	}
	return d, nil
}

// tiers counts the current tier of the window's conversations; a
// conversation not scored yet counts as unqualified.
func (s *Service) tiers(ctx context.Context, sc scope, w Window) (map[string]int64, error) {
	scond, sargs := sc.in("s")
	tcond, targs := between("s.created_at", w)
	var rows []struct {
		Tier string `db:"tier"`
		N    int64  `db:"n"`
	}
	if err := store.Select(ctx, s.db.Reader(), &rows, `SELECT COALESCE(l.tier, 'unqualified') AS tier, COUNT(*) AS n
		FROM chat_sessions s LEFT JOIN leads l ON l.session_id = s.id
		WHERE `+scond+` AND `+tcond+` AND `+convCond+` GROUP BY 1`, append(sargs, targs...)...); err != nil {
		return nil, fmt.Errorf("analytics: tiers: %w", err)
	}
	out := map[string]int64{score.TierSQL: 0, score.TierMQL: 0, score.TierNurture: 0, score.TierUnqualified: 0}
	for _, r := range rows {
		out[r.Tier] += r.N
	}
	return out, nil
}
