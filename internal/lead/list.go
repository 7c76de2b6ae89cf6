package lead

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"concierge/internal/apperr"
	"concierge/internal/billing"
	"concierge/internal/lead/score"
	"concierge/internal/store"
)

// Filter selects leads of a workspace.
type Filter struct {
	BotID    int64  // 0: every bot
	Tier     string // "": every tier
	MinScore int
	Days     int // 0: any time; else last activity within this many days
}

// where builds the filter's conditions on leads l.
func (s *Service) where(ctx context.Context, workspaceID int64, f Filter) (string, []any, error) {
	cond := []string{"l.workspace_id = ?"}
	args := []any{workspaceID}
	if f.BotID != 0 {
		if err := s.ownBot(ctx, workspaceID, f.BotID); err != nil {
			return "", nil, err
		}
		cond, args = append(cond, "l.bot_id = ?"), append(args, f.BotID)
	}
	if f.Tier != "" {
		if _, ok := tierRank[f.Tier]; !ok {
			return "", nil, apperr.Invalid("query.tier", "must be one of sql, mql, nurture, unqualified", "enum")
		}
		cond, args = append(cond, "l.tier = ?"), append(args, f.Tier)
	}
	if f.MinScore > 0 {
		cond, args = append(cond, "l.score >= ?"), append(args, f.MinScore)
	}
	if f.Days > 0 {
		cond, args = append(cond, "l.updated_at >= ?"), append(args, s.clock.Now().Add(-time.Duration(f.Days)*24*time.Hour))
	}
	return strings.Join(cond, " AND "), args, nil
}

// ownBot: another workspace's bot is 403, an unknown one 404.
func (s *Service) ownBot(ctx context.Context, workspaceID, botID int64) error {
	var owner int64
	err := store.Get(ctx, s.db.Reader(), &owner, `SELECT workspace_id FROM bots WHERE id = ?`, botID)
	if store.IsNotFound(err) {
		return apperr.NotFound("bot not found")
	}
	if err != nil {
		return fmt.Errorf("lead: bot: %w", err)
	}
	if owner != workspaceID {
		return apperr.Forbidden("this bot belongs to another workspace")
	}
	return nil
}

const listedFrom = ` FROM leads l JOIN chat_sessions s ON s.id = l.session_id `

// List returns one page of the workspace's leads, most recently active
// first.
func (s *Service) List(ctx context.Context, workspaceID int64, f Filter, page, limit int) ([]Lead, int, error) {
	where, args, err := s.where(ctx, workspaceID, f)
	if err != nil {
		return nil, 0, err
	}
	var total int
	if err := store.Get(ctx, s.db.Reader(), &total, `SELECT COUNT(*) FROM leads l WHERE `+where, args...); err != nil {
		return nil, 0, fmt.Errorf("lead: count: %w", err)
	}
	var rows []listed
	err = store.Select(ctx, s.db.Reader(), &rows, `SELECT `+rowColumns+`, s.public_id, s.messages, s.last_message_at`+listedFrom+
		`WHERE `+where+` ORDER BY l.updated_at DESC, l.session_id DESC LIMIT ? OFFSET ?`, append(args, limit, (page-1)*limit)...)
	if err != nil {
		return nil, 0, fmt.Errorf("lead: list: %w", err)
	}
	out := make([]Lead, len(rows))
	for i := range rows {
		out[i] = *view(&rows[i].row, rows[i].PublicID, rows[i].Messages, rows[i].LastMessageAt)
	}
	return out, total, nil
}

// Detail returns one lead with its transcript, tier history and follow-ups.
func (s *Service) Detail(ctx context.Context, workspaceID int64, sessionID string) (*Lead, error) {
	l, err := s.Info(ctx, workspaceID, sessionID)
	if err != nil {
		return nil, err
	}
	sess, err := s.workspaceSession(ctx, s.db.Reader(), workspaceID, sessionID)
	if err != nil {
		return nil, err
	}
	if l.Transcript, err = s.transcript(ctx, s.db.Reader(), sess, 5000); err != nil {
		return nil, err
	}
	var changes []struct {
		From   *string   `db:"from_tier"`
		To     string    `db:"to_tier"`
		Score  int       `db:"score"`
		Scorer string    `db:"scorer"`
		At     time.Time `db:"created_at"`
	}
	if err := store.Select(ctx, s.db.Reader(), &changes, `SELECT from_tier, to_tier, score, scorer, created_at FROM lead_tier_changes
		WHERE session_id = ? AND workspace_id = ? ORDER BY id`, sess.ID, workspaceID); err != nil {
		return nil, fmt.Errorf("lead: tier history: %w", err)
	}
	l.TierHistory = make([]TierChange, len(changes))
	for i, c := range changes {
		l.TierHistory[i] = TierChange{From: c.From, To: c.To, Score: c.Score, Scorer: c.Scorer, At: c.At.UTC()}
	}
	if l.FollowUps, err = s.followUps(ctx, sess); err != nil {
		return nil, err
	}
	return l, nil
}

// Stats counts a workspace's leads.
type Stats struct {
	Total          int            `json:"total"`
	ByTier         map[string]int `json:"by_tier" doc:"Counts for sql, mql, nurture and unqualified (every tier present, 0 when none)."`
	WithEmail      int            `json:"with_email"`
	MeetingsBooked int            `json:"meetings_booked"`
	AverageScore   float64        `json:"average_score"`
}

// Stats counts leads by tier, with the filter's bot and window.
func (s *Service) Stats(ctx context.Context, workspaceID int64, f Filter) (*Stats, error) {
	f.Tier, f.MinScore = "", 0
	where, args, err := s.where(ctx, workspaceID, f)
	if err != nil {
		return nil, err
	}
	var rows []struct {
		Tier     string `db:"tier"`
		N        int    `db:"n"`
		Email    int    `db:"with_email"`
		Meetings int    `db:"meetings"`
		ScoreSum int64  `db:"score_sum"`
	}
	if err := store.Select(ctx, s.db.Reader(), &rows, `SELECT l.tier, COUNT(*) AS n,
		COUNT(l.email) AS with_email, COUNT(l.meeting_booked_at) AS meetings, COALESCE(SUM(l.score), 0) AS score_sum
		FROM leads l WHERE `+where+` GROUP BY l.tier`, args...); err != nil {
		return nil, fmt.Errorf("lead: stats: %w", err)
	}
	st := &Stats{ByTier: map[string]int{score.TierSQL: 0, score.TierMQL: 0, score.TierNurture: 0, score.TierUnqualified: 0}}
	var sum int64
	for _, r := range rows {
		st.ByTier[r.Tier] += r.N
		st.Total += r.N
		st.WithEmail += r.Email
		st.MeetingsBooked += r.Meetings
		sum += r.ScoreSum
	}
	if st.Total > 0 {
		st.AverageScore = float64(sum*10/int64(st.Total)) / 10
	}
	return st, nil
}

// CheckExport refuses an export the workspace may not run; call it before
// streaming starts, so the refusal is an ordinary error response.
func (s *Service) CheckExport(ctx context.Context, workspaceID int64, f Filter) error {
	ent, err := s.billing.Standing(ctx, workspaceID)
	if err != nil {
		return err
	}
	if err := ent.Require(billing.FeatureLeadExport); err != nil {
		return err
	}
	_, _, err = s.where(ctx, workspaceID, f)
	return err
}

// exportBatch is how many leads are read at a time: memory stays flat
// however many leads there are.
const exportBatch = 500

// ExportColumns are the CSV's header.
var ExportColumns = []string{"session_id", "bot_id", "tier", "score", "name", "email", "email_status", "phone", "company",
	"fields", "dimensions", "summary", "meeting_booked_at", "messages", "captured_at", "created_at", "last_activity_at"}

// Export writes the filter's leads as CSV to w, in batches (keyset by
// session), oldest conversation first. Cells a spreadsheet would take for
// a formula are neutralised.
func (s *Service) Export(ctx context.Context, workspaceID int64, f Filter, w io.Writer) error {
	where, args, err := s.where(ctx, workspaceID, f)
	if err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(ExportColumns); err != nil {
		return err
	}
	rec := make([]string, len(ExportColumns))
	var after int64
	for {
		var rows []listed
		err := store.Select(ctx, s.db.Reader(), &rows, `SELECT `+rowColumns+`, s.public_id, s.messages, s.last_message_at`+
			listedFrom+`WHERE `+where+` AND l.session_id > ? ORDER BY l.session_id LIMIT ?`,
			append(append([]any{}, args...), after, exportBatch)...)
		if err != nil {
			return fmt.Errorf("lead: export: %w", err)
		}
		for i := range rows {
			exportRecord(rec, &rows[i])
			for k := range rec {
				rec[k] = neutralise(rec[k])
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
		if len(rows) < exportBatch {
			return nil
		}
		after = rows[len(rows)-1].SessionID
	}
}

// exportBreakdown is the part of the stored breakdown the CSV shows;
// decoding only it keeps the export cheap.
type exportBreakdown struct {
	Dimensions []struct {
		Name  string `json:"name"`
		Score int    `json:"score"`
	} `json:"dimensions"`
	Summary string `json:"summary"`
}

func exportRecord(rec []string, lr *listed) {
	r := &lr.row
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	ts := func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return t.UTC().Format(time.RFC3339)
	}
	var fm map[string]string
	_ = json.Unmarshal([]byte(r.Fields), &fm)
	keys := make([]string, 0, len(fm))
	for k := range fm {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fields := make([]string, len(keys))
	for i, k := range keys {
		fields[i] = k + ": " + fm[k]
	}
	var b exportBreakdown
	_ = json.Unmarshal([]byte(r.Breakdown), &b)
	dims := make([]string, len(b.Dimensions))
	for i, d := range b.Dimensions {
		dims[i] = d.Name + " " + strconv.Itoa(d.Score)
	}
	last := lr.LastMessageAt
	if r.UpdatedAt.After(last) {
		last = r.UpdatedAt
	}
	copy(rec, []string{lr.PublicID, strconv.FormatInt(r.BotID, 10), r.Tier, strconv.Itoa(r.Score), str(r.Name), str(r.Email),
		r.EmailStatus, str(r.Phone), str(r.Company), strings.Join(fields, "; "), strings.Join(dims, "; "), b.Summary,
		ts(r.MeetingBookedAt), strconv.Itoa(lr.Messages), ts(r.CapturedAt), ts(&r.CreatedAt), ts(&last)})
}

// neutralise keeps a spreadsheet from evaluating a cell: one that starts
// with = + - @ (or a tab or carriage return, which some spreadsheets skip
// before them) gets a leading apostrophe, as OWASP recommends.
func neutralise(v string) string {
	if v == "" {
		return v
	}
	switch v[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + v
	}
	return v
}
