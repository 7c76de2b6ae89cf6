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
	if err := s.applyScore(ctx, tx, sess, r, score.Score(q, in), now); err != nil {
		return nil, err
	}
	return r, nil
}

// applyScore writes the rules' result of sess.Messages messages on r and,
// when the workspace has lead_intelligence and a model is configured,
// queues its refinement.
func (s *Service) applyScore(ctx context.Context, tx *sqlx.Tx, sess *session, r *row, res score.Result, now time.Time) error {
	if err := s.writeScore(ctx, tx, sess, r, res, scorerRules+"/"+res.Version, sess.Messages, now); err != nil {
		return err
	}
	if s.refiner == nil {
		return nil
	}
	ent, err := s.billing.Standing(ctx, sess.WorkspaceID)
	if err != nil {
		return err
	}
	if ent.Require(billing.FeatureLeadIntelligence) != nil {
		return nil
	}
	_, err = s.queue.EnqueueTx(ctx, tx, jobs.NewJob{Kind: jobRefine, WorkspaceID: sess.WorkspaceID, BotID: sess.BotID,
		Payload: refinePayload{SessionID: sess.ID, Messages: sess.Messages}, MaxAttempts: 2,
		UniqueKey: fmt.Sprintf("%s:%d", jobRefine, sess.ID)})
	return err
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

// sweepWrite is how many conversations the sweep reads and stores
// together: enough to spare most of the statements and transaction per
// conversation, few enough that the replies' writer never waits long.
const sweepWrite = 64

// sweepBetween, set by tests only, runs between the sweep's reading and its
// writing of a chunk.
var sweepBetween func()

// swept is a conversation the sweep scored from what it read outside any
// transaction: the row as it was (nil: none yet) and the result.
type swept struct {
	sess *session
	seen *row
	res  score.Result
}

// Sweep rescores up to one batch of conversations active since since whose
// messages moved since they were last scored; it returns how many it
// looked at.
//
// It reads and scores them a chunk at a time from the readers (a query
// for the chunk's lead rows, one for their transcripts), then stores the
// chunk's results in one short write transaction: on SQLite the scoring
// never holds the single writer, and on PostgreSQL a conversation costs
// two statements instead of eight. A result is stored only if nothing it
// was computed from moved meanwhile (the message count and the row's
// signals); otherwise the conversation is scored again inside the write
// transaction, as a lone rescore would.
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
	quals := map[int64]bot.Qualification{}
	for start := 0; start < len(due); start += sweepWrite {
		chunk := due[start:min(start+sweepWrite, len(due))]
		done, err := s.sweepRead(ctx, chunk, quals)
		if err == nil {
			if sweepBetween != nil {
				sweepBetween()
			}
			err = s.sweepWriteTx(ctx, done)
		}
		if err == nil {
			continue
		}
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		// One conversation's failure must not cost the others theirs:
		// each on its own, as a lone rescore.
		s.log.WarnContext(ctx, "lead: sweep chunk failed; rescoring one by one", "err", err)
		for i := range chunk {
			if _, err := s.rescore(ctx, &chunk[i]); err != nil {
				if ctx.Err() != nil {
					return 0, ctx.Err()
				}
				s.log.WarnContext(ctx, "lead: rescoring failed", "session", chunk[i].ID, "err", err)
			}
		}
	}
	return len(due), nil
}

// sweptTurn is a message of one of the conversations the sweep reads.
type sweptTurn struct {
	SessionID int64 `db:"session_id"`
	Turn
}

// sweepRead scores a chunk of due conversations from the readers; quals
// caches the bots' qualification settings for the batch.
func (s *Service) sweepRead(ctx context.Context, chunk []session, quals map[int64]bot.Qualification) ([]swept, error) {
	ids := make([]any, len(chunk))
	for i := range chunk {
		ids[i] = chunk[i].ID
	}
	in, args := store.InList(ids)
	var rows []row
	if err := store.Select(ctx, s.db.Reader(), &rows, `SELECT `+rowColumns+` FROM leads l WHERE l.session_id IN (`+in+`)`,
		args...); err != nil {
		return nil, fmt.Errorf("lead: read: %w", err)
	}
	// The latest MaxTurns delivered messages of each, oldest first, as
	// transcript reads them one conversation at a time.
	var turns []sweptTurn
	if err := store.Select(ctx, s.db.Reader(), &turns, `SELECT session_id, role, text, created_at FROM (
		SELECT m.session_id, m.role, m.text, m.created_at, m.id,
			ROW_NUMBER() OVER (PARTITION BY m.session_id ORDER BY m.id DESC) AS latest
		FROM chat_messages m JOIN chat_sessions s ON s.id = m.session_id AND s.workspace_id = m.workspace_id
		WHERE m.session_id IN (`+in+`) AND m.status = 'completed') t
		WHERE latest <= ? ORDER BY session_id, id`, append(args, s.opts.MaxTurns)...); err != nil {
		return nil, fmt.Errorf("lead: transcript: %w", err)
	}
	byRow := make(map[int64]*row, len(rows))
	for i := range rows {
		byRow[rows[i].SessionID] = &rows[i]
	}
	byTurns := make(map[int64][]score.Turn, len(chunk))
	for _, t := range turns {
		byTurns[t.SessionID] = append(byTurns[t.SessionID], score.Turn{Role: t.Role, Text: t.Text})
	}
	now := s.clock.Now()
	out := make([]swept, 0, len(chunk))
	for i := range chunk {
		sess := &chunk[i]
		q, ok := quals[sess.BotID]
		if !ok {
			var err error
			if q, err = s.qualification(ctx, s.db.Reader(), sess.WorkspaceID, sess.BotID); err != nil {
				return nil, err
			}
			quals[sess.BotID] = q
		}
		seen := byRow[sess.ID]
		if seen != nil && seen.WorkspaceID != sess.WorkspaceID {
			return nil, fmt.Errorf("lead: session %d: lead row of another workspace", sess.ID)
		}
		r := seen
		if r == nil {
			r = &row{} // what ensureRow creates: no signals, no contact
		}
		res := score.Score(q, score.Input{Transcript: byTurns[sess.ID], Signals: r.scoreSignals(), Now: now})
		out = append(out, swept{sess: sess, seen: seen, res: res})
	}
	return out, nil
}

// sameInputs reports whether two readings of a lead row give the scorer
// the same signals: the widget's observations, the contact details it
// counts, and a booked meeting.
func sameInputs(a, b *row) bool {
	return a.Signals == b.Signals && (a.Email == nil) == (b.Email == nil) && (a.Phone == nil) == (b.Phone == nil) &&
		(a.Company == nil) == (b.Company == nil) && (a.MeetingBookedAt == nil) == (b.MeetingBookedAt == nil)
}

// sweepWriteTx stores a chunk's results in one transaction: it creates the
// lead rows still missing, locks and reads the chunk's rows and message
// counts in a statement each, and stores each result whose inputs did not
// move since they were read; one whose inputs moved is recomputed there.
func (s *Service) sweepWriteTx(ctx context.Context, done []swept) error {
	if len(done) == 0 {
		return nil
	}
	return s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		now := s.clock.Now()
		var missing []any
		for _, sw := range done {
			if sw.seen == nil {
				missing = append(missing, sw.sess.ID, sw.sess.WorkspaceID, sw.sess.BotID, now, now)
			}
		}
		// In chunks of a power of two rows: a handful of statement texts,
		// each prepared once, rather than one per count.
		created := map[int64]bool{}
		for _, n := range store.PowerChunks(len(missing)/5, sweepWrite) {
			var ids []int64
			if err := store.Select(ctx, tx, &ids, `INSERT INTO leads (session_id, workspace_id, bot_id, created_at, updated_at)
				VALUES `+store.Rows(n, 5)+` ON CONFLICT (session_id) DO NOTHING RETURNING session_id`,
				missing[:5*n]...); err != nil {
				return fmt.Errorf("lead: create: %w", err)
			}
			missing = missing[5*n:]
			for _, id := range ids {
				created[id] = true
			}
		}
		ids := make([]any, len(done))
		for i, sw := range done {
			ids[i] = sw.sess.ID
		}
		in, args := store.InList(ids)
		lock := ""
		if s.db.Dialect() == store.Postgres {
			lock = " FOR UPDATE"
		}
		var rows []row
		if err := store.Select(ctx, tx, &rows, `SELECT `+rowColumns+` FROM leads l WHERE l.session_id IN (`+in+`)
			ORDER BY l.session_id`+lock, args...); err != nil {
			return fmt.Errorf("lead: read: %w", err)
		}
		var counts []struct {
			ID       int64 `db:"id"`
			Messages int   `db:"messages"`
		}
		if err := store.Select(ctx, tx, &counts, `SELECT id, messages FROM chat_sessions WHERE id IN (`+in+`)`,
			args...); err != nil {
			return fmt.Errorf("lead: session: %w", err)
		}
		cur := make(map[int64]*row, len(rows))
		for i := range rows {
			cur[rows[i].SessionID] = &rows[i]
		}
		messages := make(map[int64]int, len(counts))
		for _, c := range counts {
			messages[c.ID] = c.Messages
		}
		for _, sw := range done {
			r := cur[sw.sess.ID]
			m, ok := messages[sw.sess.ID]
			if r == nil || !ok || r.WorkspaceID != sw.sess.WorkspaceID {
				continue // the conversation was deleted meanwhile
			}
			same := m == sw.sess.Messages
			if sw.seen == nil {
				same = same && created[sw.sess.ID]
			} else {
				same = same && sameInputs(r, sw.seen)
			}
			if !same {
				if _, err := s.scoreTx(ctx, tx, sw.sess, r, now); err != nil {
					return err
				}
				continue
			}
			if err := s.applyScore(ctx, tx, sw.sess, r, sw.res, now); err != nil {
				return err
			}
		}
		return nil
	})
}
