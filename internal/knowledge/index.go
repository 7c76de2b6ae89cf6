package knowledge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/apperr"
	"concierge/internal/knowledge/chunk"
	"concierge/internal/knowledge/extract"
	"concierge/internal/outbox"
	"concierge/internal/retrieval"
	"concierge/internal/store"
)

// Document statuses.
const (
	DocIndexing = "indexing"
	DocReady    = "ready"
	DocFailed   = "failed"
)

// source is one file or page to turn into a document.
type source struct {
	WorkspaceID, BotID int64
	Name               string // document_name: the file name, or the page's normalised URL
	FileName           string // what the extractor sees (its extension helps detection); defaults to Name
	Kind               string // "upload" or "crawl"
	URL                string
	Data               []byte
	ETag, LastModified string
	CostPerPage        int64
	// PerDocument charges CostPerPage once for the whole document (a
	// crawled page is one page, however long) instead of per page.
	PerDocument bool
	CreditKey   string // idempotency key of the debit: charged once however often the job retries
	// Started receives the new document's id as soon as it exists, so a
	// retry after a crash can remove what the crash left.
	Started func(documentID int64) error
}

// indexed is what indexing produced.
type indexed struct {
	DocumentID int64
	Passages   int
	Pages      int
	Credits    int64
	Unchanged  bool // same content as the ready document of that name: nothing done, nothing charged
}

// index extracts, chunks and writes src as a document, then in one short
// transaction charges its credits, retires the ready document of the same
// name, makes the new one ready and bumps the bot's knowledge version. Any
// failure before that leaves nothing retrievable and charges nothing.
func (s *Service) index(ctx context.Context, src source) (*indexed, error) {
	sum := sha256.Sum256(src.Data)
	hash := hex.EncodeToString(sum[:])
	var prior struct {
		ID   int64  `db:"id"`
		Hash string `db:"content_hash"`
	}
	err := store.Get(ctx, s.db.Reader(), &prior, `SELECT id, content_hash FROM documents
		WHERE bot_id = ? AND workspace_id = ? AND name = ? AND status = 'ready'`, src.BotID, src.WorkspaceID, src.Name)
	switch {
	case err == nil && prior.Hash == hash:
		return &indexed{DocumentID: prior.ID, Unchanged: true}, nil
	case err != nil && !store.IsNotFound(err):
		return nil, fmt.Errorf("knowledge: prior document: %w", err)
	}

	fileName := src.FileName
	if fileName == "" {
		fileName = src.Name
	}
	doc, err := extract.Extract(ctx, fileName, src.Data, s.opts.Extract)
	if err != nil {
		return nil, extractError(err)
	}
	passages := chunk.Split(doc, s.opts.Chunk)
	if len(passages) == 0 {
		return nil, apperr.Invalid("files", src.Name+": no text could be extracted", "value_error")
	}
	cost := int64(doc.Pages) * src.CostPerPage
	if src.PerDocument {
		cost = src.CostPerPage
	}
	ent, err := s.billing.Entitlements(ctx, src.WorkspaceID)
	if err != nil {
		return nil, err
	}
	if !ent.Serving {
		return nil, &apperr.SubscriptionRequired{Message: "the workspace is not serving: choose a plan to add knowledge"}
	}
	if cost > ent.Usage.CreditsBalance {
		return nil, &apperr.InsufficientCredits{Required: cost, Available: ent.Usage.CreditsBalance}
	}
	if err := s.checkDocumentLimit(ctx, src, ent.Limit("documents"), prior.ID != 0); err != nil {
		return nil, err
	}

	now := s.clock.Now()
	var url any
	if src.URL != "" {
		url = src.URL
	}
	var docID int64
	err = store.Get(ctx, s.db.Writer(), &docID, `INSERT INTO documents (workspace_id, bot_id, name, source, url, title,
		content_type, bytes, content_hash, status, pages, etag, last_modified, last_fetched_at, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'indexing', ?, ?, ?, ?, ?, ?) RETURNING id`,
		src.WorkspaceID, src.BotID, src.Name, src.Kind, url, doc.Title, doc.Format, len(src.Data), hash, doc.Pages,
		nullable(src.ETag), nullable(src.LastModified), fetchedAt(src, now), now, now)
	if err != nil {
		return nil, fmt.Errorf("knowledge: create document: %w", err)
	}
	if src.Started != nil {
		if err := src.Started(docID); err != nil {
			s.discard(docID)
			return nil, err
		}
	}
	res, err := s.fill(ctx, src, docID, doc, passages, cost)
	if err != nil {
		s.discard(docID)
		return nil, err
	}
	return res, nil
}

// fill writes the passages in short transactions (SQLite has one writer;
// a long transaction would stall every other write), then publishes.
func (s *Service) fill(ctx context.Context, src source, docID int64, doc *extract.Document, passages []chunk.Passage, cost int64) (*indexed, error) {
	tokens := 0
	for start := 0; start < len(passages); start += s.opts.BatchSize {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		end := min(start+s.opts.BatchSize, len(passages))
		err := s.db.Tx(ctx, func(tx *sqlx.Tx) error {
			for _, p := range passages[start:end] {
				heading := strings.Join(p.HeadingPath, " › ")
				title := p.Title
				if title == "" {
					title = doc.Title
				}
				var url any
				if src.URL != "" {
					url = src.URL
				}
				if _, err := store.Exec(ctx, tx, `INSERT INTO passages (workspace_id, bot_id, document_id, ordinal, title,
					url, heading_path, text, tokens, terms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
					src.WorkspaceID, src.BotID, docID, p.Ordinal, title, url, heading, p.Text, p.Tokens,
					retrieval.Analyze(title, p.HeadingPath, p.Text)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("knowledge: write passages: %w", err)
		}
		for _, p := range passages[start:end] {
			tokens += p.Tokens
		}
	}
	now := s.clock.Now()
	err := s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		if cost > 0 {
			if _, err := s.billing.DebitTx(ctx, tx, src.WorkspaceID, cost, src.CreditKey,
				fmt.Sprintf("indexing %s (%d pages)", truncate(src.Name, 120), doc.Pages)); err != nil {
				return err
			}
		}
		if _, err := store.Exec(ctx, tx, `DELETE FROM documents WHERE bot_id = ? AND workspace_id = ? AND name = ?
			AND status = 'ready'`, src.BotID, src.WorkspaceID, src.Name); err != nil {
			return err
		}
		n, err := store.Exec(ctx, tx, `UPDATE documents SET status = 'ready', passages = ?, tokens = ?, credits = ?,
			updated_at = ? WHERE id = ? AND status = 'indexing'`, len(passages), tokens, cost, now, docID)
		if err != nil {
			return err
		}
		if n == 0 {
			return apperr.Conflict("the document was removed while it was being indexed")
		}
		if err := bumpKnowledge(ctx, tx, src.BotID); err != nil {
			return err
		}
		_, err = outbox.Add(ctx, tx, now, outbox.Event{WorkspaceID: src.WorkspaceID, BotID: src.BotID, Type: "document.ingested",
			Data: map[string]any{"bot_id": src.BotID, "document_name": src.Name, "passages": len(passages), "credits": cost}})
		return err
	})
	if err != nil {
		return nil, err
	}
	s.retrieval.Invalidate(src.BotID)
	return &indexed{DocumentID: docID, Passages: len(passages), Pages: doc.Pages, Credits: cost}, nil
}

func (s *Service) checkDocumentLimit(ctx context.Context, src source, max int64, replaces bool) error {
	if replaces || max <= 0 {
		return nil
	}
	var n int64
	if err := store.Get(ctx, s.db.Reader(), &n, `SELECT COUNT(*) FROM documents WHERE workspace_id = ? AND status = 'ready'`,
		src.WorkspaceID); err != nil {
		return fmt.Errorf("knowledge: count documents: %w", err)
	}
	if n >= max {
		return &apperr.LimitReached{Limit: "documents", Max: max,
			Message: fmt.Sprintf("the knowledge base holds %d documents, the plan's limit", max)}
	}
	return nil
}

// discard removes a document that never became ready (its passages go with
// it); best effort, a later clean-up finds leftovers by status.
func (s *Service) discard(docID int64) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := store.Exec(ctx, s.db.Writer(), `DELETE FROM documents WHERE id = ? AND status = 'indexing'`, docID); err != nil {
		s.log.Warn("discard unfinished document", "document_id", docID, "err", err)
	}
}

// bumpKnowledge tells every replica's retrieval index that the bot's
// passages changed.
func bumpKnowledge(ctx context.Context, tx store.Q, botID int64) error {
	_, err := store.Exec(ctx, tx, `UPDATE bots SET knowledge_version = knowledge_version + 1 WHERE id = ?`, botID)
	return err
}

func extractError(err error) error {
	switch {
	case errors.Is(err, extract.ErrUnsupported), errors.Is(err, extract.ErrEmpty), errors.Is(err, extract.ErrMalformed):
		return apperr.Invalid("files", err.Error(), "value_error")
	case errors.Is(err, extract.ErrTooLarge):
		return apperr.New(apperr.KindTooLarge, err.Error())
	}
	return err
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func fetchedAt(src source, now time.Time) any {
	if src.Kind == "crawl" {
		return now
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
