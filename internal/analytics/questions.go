package analytics

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"concierge/internal/apperr"
	"concierge/internal/store"
)

// QuestionGroups is a report of visitor questions grouped by meaning.
type QuestionGroups struct {
	Window   Window          `json:"window"`
	Previous Window          `json:"previous_window"`
	Total    Compared        `json:"questions" doc:"Questions counted (of the report's kind: all, or unanswered)."`
	Groups   []QuestionGroup `json:"groups"`
}

// QuestionGroup is questions that ask the same thing.
type QuestionGroup struct {
	GroupID        string    `json:"group_id" doc:"Stable while the group's leading wording leads it; dismiss an unanswered group with it."`
	Representative string    `json:"representative" doc:"The group's most asked wording."`
	Count          int64     `json:"count"`
	Answered       int64     `json:"answered"`
	AnsweredRate   float64   `json:"answered_rate"`
	Variants       []string  `json:"variants" doc:"Other wordings asked (at most 10)."`
	LastAsked      time.Time `json:"last_asked"`
	SessionIDs     []string  `json:"session_ids" doc:"Some conversations that asked it, latest first (at most 5)."`
	// Closest is, for an unanswered group, the passage the knowledge base
	// came closest with: what is there, so the owner sees what is missing.
	Closest *ClosestPassage `json:"closest_passage,omitempty" doc:"Unanswered groups only: the passage of the latest asking bot's knowledge closest to the representative question, with how much of the question its page covers; absent when the knowledge base has nothing near."`
	botID   int64
}

// ClosestPassage is the knowledge nearest to an unanswered question.
type ClosestPassage struct {
	Title    string   `json:"title"`
	URL      string   `json:"url,omitempty"`
	Heading  []string `json:"heading_path"`
	Text     string   `json:"text" doc:"The passage's first 300 characters."`
	Coverage float64  `json:"coverage" doc:"Share of the question (terms weighted by rarity) the passage's page covers; below the answer threshold, hence not answered."`
}

// MaxGroups bounds limit.
const MaxGroups = 100

// maxTopics bounds the distinct topics read for grouping: the most asked.
const maxTopics = 5000

// TopQuestions answers GET /analytics/top-questions.
func (s *Service) TopQuestions(ctx context.Context, workspaceID int64, q Query, limit int) (*QuestionGroups, error) {
	return s.questionGroups(ctx, workspaceID, q, limit, false)
}

// UnansweredQuestions answers GET /analytics/unanswered-questions: the
// groups of questions the bot could not answer, not dismissed since they
// were last asked.
func (s *Service) UnansweredQuestions(ctx context.Context, workspaceID int64, q Query, limit int) (*QuestionGroups, error) {
	return s.questionGroups(ctx, workspaceID, q, limit, true)
}

func (s *Service) questionGroups(ctx context.Context, workspaceID int64, q Query, limit int, unanswered bool) (*QuestionGroups, error) {
	if limit < 1 || limit > MaxGroups {
		return nil, apperr.Invalid("query.limit", fmt.Sprintf("must be between 1 and %d", MaxGroups), "value_error")
	}
	sc, cur, prev, err := s.prepare(ctx, workspaceID, q)
	if err != nil {
		return nil, err
	}
	cond := questionCond
	if unanswered {
		cond += " AND m.reply_answered = FALSE"
	}
	out := &QuestionGroups{Window: cur, Previous: prev, Groups: []QuestionGroup{}}
	qs, err := s.quarterPass(ctx, sc, cur, prev, "questions", "answered")
	if err != nil {
		return nil, err
	}
	out.Total = qs.compared(0, cur, prev)
	if unanswered {
		a := qs.compared(1, cur, prev)
		out.Total = Compared{out.Total.Value - a.Value, out.Total.Previous - a.Previous}
	}
	rows, err := s.topicCounts(ctx, sc, cur, unanswered)
	if err != nil {
		return nil, err
	}
	topics := make([]topicSet, len(rows))
	for i, r := range rows {
		topics[i] = topicSet{topic: r.Topic, terms: splitTopic(r.Topic), count: int(r.N)}
	}
	of := groupTopics(topics)
	type agg struct {
		QuestionGroup
		topics []string
	}
	byLeader := map[int]*agg{}
	var order []int
	for i, r := range rows {
		l := of[i]
		g := byLeader[l]
		if g == nil {
			g = &agg{QuestionGroup: QuestionGroup{GroupID: groupID(rows[l].Topic)}}
			byLeader[l] = g
			order = append(order, l)
		}
		g.Count += r.N
		g.Answered += r.Answered
		if r.Last.After(g.LastAsked) {
			g.LastAsked = r.Last
		}
		g.topics = append(g.topics, r.Topic)
	}
	var dismissed map[string]time.Time
	if unanswered {
		if dismissed, err = s.dismissals(ctx, workspaceID); err != nil {
			return nil, err
		}
	}
	groups := make([]*agg, 0, len(order))
	for _, l := range order {
		g := byLeader[l]
		if at, ok := dismissed[g.GroupID]; ok && !g.LastAsked.After(at) {
			continue
		}
		groups = append(groups, g)
	}
	sort.SliceStable(groups, func(i, j int) bool {
		if groups[i].Count != groups[j].Count {
			return groups[i].Count > groups[j].Count
		}
		return groups[i].LastAsked.After(groups[j].LastAsked)
	})
	if len(groups) > limit {
		groups = groups[:limit]
	}
	for _, g := range groups {
		if err := s.fillWordings(ctx, sc, cur, cond, &g.QuestionGroup, g.topics); err != nil {
			return nil, err
		}
		g.AnsweredRate = rate(int(g.Answered), int(g.Count))
		g.LastAsked = g.LastAsked.UTC()
		if unanswered && s.search != nil && g.botID != 0 && g.Representative != "" {
			hits, err := s.search.Search(ctx, workspaceID, g.botID, g.Representative, 1)
			if err != nil {
				return nil, fmt.Errorf("analytics: closest passage: %w", err)
			}
			if len(hits) > 0 {
				h := hits[0]
				g.Closest = &ClosestPassage{Title: h.Title, URL: h.URL, Heading: h.HeadingPath, Text: normaliseWording(h.Text),
					Coverage: float64(int(h.Evidence.Page*100+0.5)) / 100}
				if g.Closest.Heading == nil {
					g.Closest.Heading = []string{}
				}
			}
		}
		out.Groups = append(out.Groups, g.QuestionGroup)
	}
	return out, nil
}

// maxWordingRows bounds the questions read to show a group's wordings.
const maxWordingRows = 200

// fillWordings reads a group's wordings: the most asked is its
// representative, the others its variants; and its latest conversations.
func (s *Service) fillWordings(ctx context.Context, sc scope, w Window, cond string, g *QuestionGroup, topics []string) error {
	scond, sargs := sc.in("m")
	if len(topics) > 64 {
		topics = topics[:64]
	}
	vals := make([]any, len(topics))
	for i, t := range topics {
		vals[i] = t
	}
	list, padded := store.InList(vals)
	var rows []struct {
		Text    string `db:"text"`
		Session string `db:"session"`
		Bot     int64  `db:"bot_id"`
	}
	read := func(w Window) error {
		rows = rows[:0]
		tcond, targs := between("m.created_at", w)
		args := append(append(append([]any{}, sargs...), targs...), padded...)
		if err := store.Select(ctx, s.db.Reader(), &rows, `SELECT m.text, s.public_id AS session, m.bot_id FROM chat_messages m
			JOIN chat_sessions s ON s.id = m.session_id
			WHERE `+scond+` AND `+tcond+` AND `+cond+` AND m.topic IN (`+list+`)
			ORDER BY m.created_at DESC, m.id DESC LIMIT `+fmt.Sprint(maxWordingRows), args...); err != nil {
			return fmt.Errorf("analytics: wordings: %w", err)
		}
		return nil
	}
	// The latest askings are what is shown: read the day up to the last
	// one first (a popular group fills it), then the week, and the whole
	// window only when those hold few.
	for _, span := range []time.Duration{24 * time.Hour, 7 * 24 * time.Hour, 0} {
		recent := w
		if last := g.LastAsked; span > 0 && !last.IsZero() {
			recent.Start = maxTime(w.Start, last.Add(-span))
			recent.End = minTime(w.End, last.Add(time.Nanosecond))
		}
		if err := read(recent); err != nil {
			return err
		}
		if len(rows) >= maxWordingRows/4 || (recent.Start == w.Start && recent.End == w.End) {
			break
		}
	}
	count := map[string]int{}
	var wordings []string
	g.SessionIDs = []string{}
	if len(rows) > 0 {
		g.botID = rows[0].Bot // the latest asking bot
	}
	for _, r := range rows {
		t := normaliseWording(r.Text)
		if count[t] == 0 {
			wordings = append(wordings, t)
		}
		count[t]++
		if len(g.SessionIDs) < 5 && !slices.Contains(g.SessionIDs, r.Session) {
			g.SessionIDs = append(g.SessionIDs, r.Session)
		}
	}
	sort.SliceStable(wordings, func(i, j int) bool { return count[wordings[i]] > count[wordings[j]] })
	g.Variants = []string{}
	if len(wordings) > 0 {
		g.Representative = wordings[0]
		for _, v := range wordings[1:] {
			if len(g.Variants) == 10 {
				break
			}
			g.Variants = append(g.Variants, v)
		}
	}
	return nil
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// normaliseWording cuts a question at 300 characters.
func normaliseWording(t string) string {
	r := []rune(t)
	if len(r) > 300 {
		r = append(r[:299], '…')
	}
	return string(r)
}

// dismissals are the workspace's dismissed unanswered groups.
func (s *Service) dismissals(ctx context.Context, workspaceID int64) (map[string]time.Time, error) {
	var rows []struct {
		ID string    `db:"group_id"`
		At time.Time `db:"dismissed_at"`
	}
	if err := store.Select(ctx, s.db.Reader(), &rows, `SELECT group_id, dismissed_at FROM analytics_dismissals WHERE workspace_id = ?`,
		workspaceID); err != nil {
		return nil, fmt.Errorf("analytics: dismissals: %w", err)
	}
	out := make(map[string]time.Time, len(rows))
	for _, r := range rows {
		out[r.ID] = r.At
	}
	return out, nil
}

// Dismiss hides an unanswered group until one of its questions is asked
// again. An id that is not of the shape of a group id is 404; any
// well-formed id is accepted (a group may be dismissed before it shows in
// a window).
func (s *Service) Dismiss(ctx context.Context, workspaceID int64, groupID string) (time.Time, error) {
	if len(groupID) != len("grp_")+16 || groupID[:4] != "grp_" {
		return time.Time{}, apperr.NotFound("question group not found")
	}
	now := s.clock.Now().UTC()
	if _, err := store.Exec(ctx, s.db.Writer(), `INSERT INTO analytics_dismissals (workspace_id, group_id, dismissed_at)
		VALUES (?, ?, ?) ON CONFLICT (workspace_id, group_id) DO UPDATE SET dismissed_at = excluded.dismissed_at`,
		workspaceID, groupID, now); err != nil {
		return time.Time{}, fmt.Errorf("analytics: dismiss: %w", err)
	}
	return now, nil
}
