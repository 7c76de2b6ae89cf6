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
	convCond = "s.preview = FALSE AND s.visitor_messages > 0"
	// A visitor message of a non-preview conversation carries a topic.
	visitorCond = "m.role = 'user' AND m.topic IS NOT NULL"
	// A question put to the bot (not to an operator, not while offline).
	questionCond = visitorCond + " AND m.reply_answered IS NOT NULL"
	// A reply the bot delivered (its credits and rating count).
	replyCond = "m.role = 'assistant' AND m.status = 'completed'"
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

// Dashboard answers GET /analytics/dashboard. Each table is read once
// for both windows (a pass of per-quarter-hour sums).
func (s *Service) Dashboard(ctx context.Context, workspaceID int64, q Query) (*Dashboard, error) {
	sc, cur, prev, err := s.prepare(ctx, workspaceID, q)
	if err != nil {
		return nil, err
	}
	d := &Dashboard{Window: cur, Previous: prev}
	// Conversations, messages and leads from their quarters (analytics_quarters).
	qs, err := s.quarterPass(ctx, sc, cur, prev, quarterColumns...)
	if err != nil {
		return nil, err
	}
	d.Conversations, d.Handoffs = qs.compared(0, cur, prev), qs.compared(1, cur, prev)
	d.VisitorMessages, d.Questions, d.Answered = qs.compared(2, cur, prev), qs.compared(3, cur, prev), qs.compared(4, cur, prev)
	d.RatingsUp, d.RatingsDown = qs.compared(5, cur, prev), qs.compared(6, cur, prev)
	d.LeadsCaptured, d.MeetingsBooked = qs.compared(10, cur, prev), qs.compared(11, cur, prev)
	follow, err := s.pass(ctx, sc, cur, prev, "lead_follow_ups f", "f", "f.created_at", "", "COUNT(*)", "SUM(f.credits)")
	if err != nil {
		return nil, err
	}
	d.FollowUpsSent = follow.compared(0, cur, prev)
	docs, err := s.pass(ctx, sc, cur, prev, "documents m", "m", "m.created_at", "m.status = 'ready'", "SUM(m.credits)")
	if err != nil {
		return nil, err
	}
	credits := func(w Window) int64 { return qs.total(7, w) + follow.total(1, w) + docs.total(0, w) }
	d.CreditsSpent = Compared{credits(cur), credits(prev)}
	d.UnansweredQuestions = Compared{d.Questions.Value - d.Answered.Value, d.Questions.Previous - d.Answered.Previous}
	d.AnsweredRate = RateCompared{rate(int(d.Answered.Value), int(d.Questions.Value)), rate(int(d.Answered.Previous), int(d.Questions.Previous))}
	d.Satisfaction = RateCompared{rate(int(d.RatingsUp.Value), int(d.RatingsUp.Value+d.RatingsDown.Value)),
		rate(int(d.RatingsUp.Previous), int(d.RatingsUp.Previous+d.RatingsDown.Previous))}
	convs, leads := qs.daily(0, cur), qs.daily(10, cur)
	cm, cf, cd := qs.daily(7, cur), follow.daily(1, cur), docs.daily(0, cur)
	for i, day := range cur.dates() {
		d.Series = append(d.Series, DayPoint{Date: day, Conversations: convs[i], Leads: leads[i], Credits: cm[i] + cf[i] + cd[i]})
	}
	cl, err := s.conversationLeads(ctx, sc, cur, prev)
	if err != nil {
		return nil, err
	}
	d.LeadsByTier = cl.tiers(d.Conversations.Value)
	// Unique visitors: each anonymous conversation one, each e-mail one.
	for _, w := range []struct {
		cur  bool
		conv int64
		dst  *int64
	}{{true, d.Conversations.Value, &d.UniqueVisitors.Value}, {false, d.Conversations.Previous, &d.UniqueVisitors.Previous}} {
		with, emails := 0, map[string]bool{}
		for _, l := range cl {
			if l.Cur == w.cur && l.Email != nil {
				with++
				emails[*l.Email] = true
			}
		}
		*w.dst = w.conv - int64(with) + int64(len(emails))
	}
	return d, nil
}

// convLead is a lead of a conversation of the span read, with what the
// reports count of it.
type convLead struct {
	Cur      bool    `db:"cur"` // the conversation started in the window, not in the previous one
	Visitor  int64   `db:"visitor_messages"`
	Tier     string  `db:"tier"`
	Captured int     `db:"captured"`
	Meeting  int     `db:"meeting"`
	Email    *string `db:"email"`
}

type convLeads []convLead

// conversationLeads reads, in one pass for both windows, the lead of every
// conversation started in them (a lead is written after its conversation
// starts: leads last updated before the span are skipped by index, which
// holds what is read of them). The leads are taken in the order of their
// conversations, so that each page of conversations is read once.
func (s *Service) conversationLeads(ctx context.Context, sc scope, cur, prev Window) (convLeads, error) {
	scond, sargs := sc.in("l")
	tcond, targs := between("s.created_at", span(cur, prev))
	var out convLeads
	if err := store.Select(ctx, s.db.Reader(), &out, `WITH l AS MATERIALIZED (SELECT l.session_id, l.tier,
			CASE WHEN l.captured_at IS NOT NULL THEN 1 ELSE 0 END AS captured,
			CASE WHEN l.meeting_booked_at IS NOT NULL THEN 1 ELSE 0 END AS meeting, LOWER(l.email) AS email
			FROM leads l WHERE `+scond+` AND l.updated_at >= ? ORDER BY l.session_id)
		SELECT CASE WHEN s.created_at >= ? THEN TRUE ELSE FALSE END AS cur, s.visitor_messages, l.tier, l.captured,
			l.meeting, l.email
		FROM l CROSS JOIN chat_sessions s WHERE s.id = l.session_id AND `+tcond+` AND `+convCond,
		append(append(append(sargs, prev.Start), cur.Start), targs...)...); err != nil {
		return nil, fmt.Errorf("analytics: leads of conversations: %w", err)
	}
	return out, nil
}

// tiers counts the current tier of the window's conv conversations; a
// conversation not scored yet counts as unqualified.
func (ls convLeads) tiers(conv int64) map[string]int64 {
	out := map[string]int64{score.TierSQL: 0, score.TierMQL: 0, score.TierNurture: 0, score.TierUnqualified: 0}
	var scored int64
	for _, l := range ls {
		if l.Cur {
			out[l.Tier]++
			scored++
		}
	}
	out[score.TierUnqualified] += conv - scored
	return out
}
