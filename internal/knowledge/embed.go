package knowledge

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/apperr"
	"concierge/internal/jobs"
	"concierge/internal/knowledge/chunk"
	"concierge/internal/retrieval"
	"concierge/internal/store"
)

// Dense retrieval (CONCIERGE_EMBEDDINGS_*): every passage is embedded as
// it is indexed, and each document records the model of its vectors
// (documents.embedding_model; retrieval reads only the configured model's).
// Knowledge indexed before embeddings were configured, or under another
// model, is embedded again in the background by the backfill job, without
// charging anything: its content did not change.

const (
	jobEmbedBackfill = "knowledge.embed_backfill"
	// embedTries: embedding a batch of passages is tried this often,
	// Options.EmbedRetryWait apart (doubling), before the document fails: a
	// blip of the embeddings server costs a moment, not the file; an outage
	// fails it as unavailable, which retries an upload's job and counts a
	// crawled page failed.
	embedTries = 3
	// backfillBatch is the documents one backfill query picks.
	backfillBatch = 20
)

// embeddingModel is the model this service embeds with, "" for none.
func (s *Service) embeddingModel() string {
	if s.embedder == nil {
		return ""
	}
	return s.embedder.Model()
}

// embedText is what is embedded of a passage: it as a reader meets it,
// under its title and heading path.
func embedText(title, headingPath, text string) string {
	head := title
	if strings.TrimSpace(headingPath) != "" {
		if strings.TrimSpace(head) != "" {
			head += " › "
		}
		head += headingPath
	}
	return head + "\n\n" + text
}

// embed returns the dense vectors of passages, encoded for the embedding
// column, or nil without an embedder.
func (s *Service) embed(ctx context.Context, passages []chunk.Passage, docTitle string) ([][]byte, error) {
	if s.embedder == nil || len(passages) == 0 {
		return nil, nil
	}
	texts := make([]string, len(passages))
	for i, p := range passages {
		texts[i] = embedText(passageTitle(p, docTitle), strings.Join(p.HeadingPath, " › "), p.Text)
	}
	return s.embedTexts(ctx, texts)
}

// embedTexts embeds texts with retries and encodes the vectors.
func (s *Service) embedTexts(ctx context.Context, texts []string) ([][]byte, error) {
	var vecs [][]float32
	var err error
	wait := s.opts.EmbedRetryWait
	for try := 1; ; try++ {
		if vecs, err = s.embedder.Embed(ctx, texts); err == nil {
			break
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if try == embedTries {
			s.log.WarnContext(ctx, "knowledge: embedding passages failed", "passages", len(texts), "tries", try, "err", err)
			return nil, apperr.Unavailable("the embeddings server did not answer; the document will be indexed when it does", 0, err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		wait *= 2
	}
	if len(vecs) != len(texts) {
		return nil, apperr.Unavailable("the embeddings server answered with the wrong number of vectors", 0,
			fmt.Errorf("knowledge: %d vectors for %d passages", len(vecs), len(texts)))
	}
	out := make([][]byte, len(vecs))
	for i, v := range vecs {
		out[i] = retrieval.EncodeVector(v)
	}
	return out, nil
}

// ensureBackfill queues the backfill unless a copy already waits (every
// replica calls it at start); nothing without an embedder.
func (s *Service) ensureBackfill(ctx context.Context) error {
	if s.embedder == nil {
		return nil
	}
	_, err := s.queue.Enqueue(ctx, jobs.NewJob{Kind: jobEmbedBackfill, UniqueKey: jobEmbedBackfill, MaxAttempts: 5})
	return err
}

// embedBackfillJob embeds the passages of every ready document whose
// vectors are not the configured model's, a document at a time, until none
// is left. A failing server fails the attempt (the job retries with
// backoff; the next start queues it again).
func (s *Service) embedBackfillJob(ctx context.Context, _ *jobs.Job) error {
	if s.embedder == nil {
		return nil
	}
	model := s.embedder.Model()
	var after int64
	for {
		var docs []backfillDoc
		if err := store.Select(ctx, s.db.Reader(), &docs, `SELECT id, workspace_id, bot_id, updated_at FROM documents
			WHERE status = 'ready' AND embedding_model <> ? AND id > ? ORDER BY id LIMIT ?`, model, after, backfillBatch); err != nil {
			return err
		}
		if len(docs) == 0 {
			return nil
		}
		for _, d := range docs {
			if err := s.backfillDocument(ctx, d, model); err != nil {
				return err
			}
			after = d.ID
		}
	}
}

type backfillDoc struct {
	ID          int64     `db:"id"`
	WorkspaceID int64     `db:"workspace_id"`
	BotID       int64     `db:"bot_id"`
	Updated     time.Time `db:"updated_at"`
}

// backfillDocument embeds one document's passages and records the model.
// The passages' vectors are written in short transactions (retrieval reads
// them only once the document names the model), then the document is
// switched in one more, only if it is still ready (a document is replaced
// by a new row, never rewritten in place); the bot's
// knowledge version moves so that every replica reloads it.
func (s *Service) backfillDocument(ctx context.Context, d backfillDoc, model string) error {
	var ps []struct {
		ID      int64  `db:"id"`
		Title   string `db:"title"`
		Heading string `db:"heading_path"`
		Text    string `db:"text"`
	}
	if err := store.Select(ctx, s.db.Reader(), &ps, `SELECT id, title, heading_path, text FROM passages
		WHERE document_id = ? AND bot_id = ? AND workspace_id = ? ORDER BY ordinal`, d.ID, d.BotID, d.WorkspaceID); err != nil {
		return err
	}
	for start := 0; start < len(ps); start += s.opts.BatchSize {
		batch := ps[start:min(start+s.opts.BatchSize, len(ps))]
		texts := make([]string, len(batch))
		for i, p := range batch {
			texts[i] = embedText(p.Title, p.Heading, p.Text)
		}
		vecs, err := s.embedTexts(ctx, texts)
		if err != nil {
			return err
		}
		if err := s.db.Tx(ctx, func(tx *sqlx.Tx) error {
			for i, p := range batch {
				if _, err := store.Exec(ctx, tx, `UPDATE passages SET embedding = ? WHERE id = ?`, vecs[i], p.ID); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return fmt.Errorf("knowledge: write embeddings: %w", err)
		}
	}
	// A new updated_at is what makes the replicas' indexes reload the
	// document: later than the old one by more than the column's precision
	// (PostgreSQL keeps microseconds), whatever the clock says.
	updated := s.clock.Now()
	if least := d.Updated.Add(time.Millisecond); updated.Before(least) {
		updated = least
	}
	err := s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		n, err := store.Exec(ctx, tx, `UPDATE documents SET embedding_model = ?, updated_at = ?
			WHERE id = ? AND status = 'ready' AND embedding_model <> ?`, model, updated, d.ID, model)
		if err != nil || n == 0 {
			return err // changed meanwhile (replaced, removed): its successor has its own vectors
		}
		return bumpKnowledge(ctx, tx, d.BotID)
	})
	if err == nil {
		s.retrieval.Invalidate(d.BotID)
	}
	return err
}
