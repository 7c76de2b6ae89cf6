package lead

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/billing"
	"concierge/internal/bot"
	"concierge/internal/jobs"
	"concierge/internal/lead/score"
	"concierge/internal/outbox"
	"concierge/internal/store"
)

// tierRank orders tiers for "qualified" events.
var tierRank = map[string]int{score.TierUnqualified: 0, score.TierNurture: 1, score.TierMQL: 2, score.TierSQL: 3}

// qualification reads the bot's qualification settings.
func (s *Service) qualification(ctx context.Context, q store.Q, workspaceID, botID int64) (bot.Qualification, error) {
	var raw string
	if err := store.Get(ctx, q, &raw, `SELECT qualification FROM bots WHERE id = ? AND workspace_id = ?`, botID, workspaceID); err != nil {
		return bot.Qualification{}, fmt.Errorf("lead: bot qualification: %w", err)
	}
	return (&bot.Bot{QualificationJSON: raw}).Qualification(), nil
}

// input assembles what the scorer reads: the conversation (latest turns)
// and the signals stored on the row.
func (s *Service) input(ctx context.Context, q store.Q, sess *session, r *row, now time.Time) (score.Input, error) {
	turns, err := s.transcript(ctx, q, sess, s.opts.MaxTurns)
	if err != nil {
		return score.Input{}, err
	}
	in := score.Input{Transcript: make([]score.Turn, len(turns)), Signals: r.scoreSignals(), Now: now}
	for i, t := range turns {
		in.Transcript[i] = score.Turn{Role: t.Role, Text: t.Text}
	}
	return in, nil
}

// rescore scores the session's conversation now, in a transaction of its
// own.
func (s *Service) rescore(ctx context.Context, sess *session) (*row, error) {
	var out *row
	err := s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		now := s.clock.Now()
		r, err := s.ensureRow(ctx, tx, sess, now)
		if err != nil {
			return err
		}
		out, err = s.scoreTx(ctx, tx, sess, r, now)
		return err
	})
	return out, err
}

// scoreTx scores the conversation with the deterministic scorer, writes the
// result on r (locked by ensureRow) and records a tier change. When the
// workspace has lead_intelligence and a model is configured, a job refines
// the score afterwards.
func (s *Service) scoreTx(ctx context.Context, tx *sqlx.Tx, sess *session, r *row, now time.Time) (*row, error) {
	if err := store.Get(ctx, tx, &sess.Messages, `SELECT messages FROM chat_sessions WHERE id = ?`, sess.ID); err != nil {
		return nil, fmt.Errorf("lead: session: %w", err)
	}
	q, err := s.qualification(ctx, tx, sess.WorkspaceID, sess.BotID)
	if err != nil {
		return nil, err
	}
	in, err := s.input(ctx, tx, sess, r, now)
	if err != nil {
		return nil, err
	}
	res := score.Score(q, in)
	if err := s.writeScore(ctx, tx, sess, r, res, scorerRules+"/"+res.Version, sess.Messages, now); err != nil {
		return nil, err
	}
	if s.refiner != nil {
		ent, err := s.billing.Standing(ctx, sess.WorkspaceID)
		if err != nil {
			return nil, err
		}
		if ent.Require(billing.FeatureLeadIntelligence) == nil {
			if _, err := s.queue.EnqueueTx(ctx, tx, jobs.NewJob{Kind: jobRefine, WorkspaceID: sess.WorkspaceID, BotID: sess.BotID,
				Payload: refinePayload{SessionID: sess.ID, Messages: sess.Messages}, MaxAttempts: 2,
				UniqueKey: fmt.Sprintf("%s:%d", jobRefine, sess.ID)}); err != nil {
				return nil, err
			}
		}
	}
	return r, nil
}

// writeScore stores a result on r and records the tier change, if any,
// with its events.
func (s *Service) writeScore(ctx context.Context, tx *sqlx.Tx, sess *session, r *row, res score.Result, scorer string,
	messages int, now time.Time) error {
	b, err := json.Marshal(stored{Dimensions: res.Dimensions, Signals: res.Signals, Adjustment: res.Adjustment,
		Overrides: res.Overrides, Summary: res.Summary, Language: res.Language})
	if err != nil {
		return err
	}
	if _, err := store.Exec(ctx, tx, `UPDATE leads SET score = ?, tier = ?, breakdown = ?, scorer = ?, scored_messages = ?,
		scored_at = ?, updated_at = ? WHERE session_id = ?`, res.Score, res.Tier, string(b), scorer, messages, now, now,
		sess.ID); err != nil {
		return fmt.Errorf("lead: write score: %w", err)
	}
	prev := r.Tier
	if r.ScoredAt == nil {
		prev = "" // never scored
	}
	r.Score, r.Tier, r.Breakdown, r.Scorer, r.ScoredMessages, r.ScoredAt, r.UpdatedAt = res.Score, res.Tier, string(b), scorer, messages, &now, now
	if prev == res.Tier {
		return nil
	}
	var from any
	if prev != "" {
		from = prev
	}
	if _, err := store.Exec(ctx, tx, `INSERT INTO lead_tier_changes (session_id, workspace_id, bot_id, from_tier, to_tier,
		score, scorer, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, sess.ID, sess.WorkspaceID, sess.BotID, from, res.Tier,
		res.Score, scorer, now); err != nil {
		return fmt.Errorf("lead: tier change: %w", err)
	}
	if prev == "" && res.Tier == score.TierUnqualified {
		return nil // a new conversation is unqualified until it says more: no event
	}
	data := map[string]any{"session_id": sess.PublicID, "bot_id": sess.BotID, "from": from, "tier": res.Tier, "score": res.Score}
	if _, err := outbox.Add(ctx, tx, now, outbox.Event{WorkspaceID: sess.WorkspaceID, BotID: sess.BotID,
		Type: "lead.tier_changed", Data: data}); err != nil {
		return err
	}
	if tierRank[res.Tier] > tierRank[prev] && tierRank[res.Tier] >= tierRank[score.TierMQL] {
		_, err = outbox.Add(ctx, tx, now, outbox.Event{WorkspaceID: sess.WorkspaceID, BotID: sess.BotID,
			Type: "lead.qualified", Data: data})
	}
	return err
}

type refinePayload struct {
	SessionID int64 `json:"session_id"`
	Messages  int   `json:"messages"`
}

// refineJob asks the model to refine the rules' score of a conversation.
// A model failure keeps the rules' score; a conversation that moved on
// meanwhile is left to the next scoring, which queues its own refinement.
func (s *Service) refineJob(ctx context.Context, j *jobs.Job) error {
	if s.refiner == nil {
		return nil
	}
	var p refinePayload
	if err := j.Decode(&p); err != nil {
		return err
	}
	var sess session
	err := store.Get(ctx, s.db.Reader(), &sess, `SELECT `+sessionColumns+` FROM chat_sessions WHERE id = ?`, p.SessionID)
	if store.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	r, err := s.readRow(ctx, s.db.Reader(), &sess)
	if err != nil || r == nil || r.ScoredMessages != p.Messages || sess.Messages != p.Messages {
		return err
	}
	q, err := s.qualification(ctx, s.db.Reader(), sess.WorkspaceID, sess.BotID)
	if err != nil {
		return err
	}
	now := s.clock.Now()
	in, err := s.input(ctx, s.db.Reader(), &sess, r, now)
	if err != nil {
		return err
	}
	base := score.Score(q, in)
	res, err := s.refiner.Refine(ctx, q, in, base)
	if err != nil {
		s.log.WarnContext(ctx, "lead: model refinement failed; the rules' score stands", "session", sess.ID, "err", err)
		return nil
	}
	return s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		cur, err := s.ensureRow(ctx, tx, &sess, now)
		if err != nil {
			return err
		}
		if cur.ScoredMessages != p.Messages || !cur.UpdatedAt.Equal(r.UpdatedAt) {
			return nil // moved on: the next scoring refines again
		}
		r = cur
		return s.writeScore(ctx, tx, &sess, r, res, scorerRules+"/"+res.Version, p.Messages, now)
	})
}

type sweepPayload struct {
	Since time.Time `json:"since"`
}

const (
	sweepBatch = 500
	// sweepOverlap looks back past the last run, for conversations whose
	// transaction committed after it looked.
	sweepOverlap = 5 * time.Minute
)

// sweepJob rescores the conversations whose message count moved since they
// were last scored, then queues its next run.
func (s *Service) sweepJob(ctx context.Context, j *jobs.Job) error {
	var p sweepPayload
	if err := j.Decode(&p); err != nil {
		return err
	}
	now := s.clock.Now()
	n, err := s.Sweep(ctx, p.Since)
	if err != nil {
		return err
	}
	next := jobs.NewJob{Kind: jobSweep, UniqueKey: jobSweep, MaxAttempts: 3, RunAt: now.Add(s.opts.SweepEvery),
		Payload: sweepPayload{Since: now.Add(-sweepOverlap)}}
	if n == sweepBatch {
		next.RunAt, next.Payload = now, p // more to do
	}
	if _, err := s.queue.Enqueue(ctx, next); err != nil {
		return err
	}
	// The sweep runs every few seconds: keep only its recent history.
	_, err = store.Exec(ctx, s.db.Writer(), `DELETE FROM jobs WHERE kind = ? AND status = 'succeeded' AND finished_at < ?`,
		jobSweep, now.Add(-time.Hour))
	return err
}

// Sweep rescores up to one batch of conversations active since since whose
// messages moved since they were last scored; it returns how many it
// looked at.
func (s *Service) Sweep(ctx context.Context, since time.Time) (int, error) {
	var due []session
	err := store.Select(ctx, s.db.Reader(), &due, `SELECT s.id, s.public_id, s.workspace_id, s.bot_id, s.messages, s.preview,
		s.created_at, s.last_message_at FROM chat_sessions s LEFT JOIN leads l ON l.session_id = s.id
		WHERE s.last_message_at >= ? AND s.preview = FALSE AND s.messages > 0
		AND (l.session_id IS NULL OR l.scored_messages <> s.messages)
		ORDER BY s.last_message_at LIMIT ?`, since, sweepBatch)
	if err != nil {
		return 0, fmt.Errorf("lead: sweep: %w", err)
	}
	for i := range due {
		if _, err := s.rescore(ctx, &due[i]); err != nil {
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			s.log.WarnContext(ctx, "lead: rescoring failed", "session", due[i].ID, "err", err)
		}
	}
	return len(due), nil
}
