package knowledge

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/apperr"
	"concierge/internal/outbox"
	"concierge/internal/store"
)

// Document is a document of the knowledge base.
type Document struct {
	ID          int64      `db:"id"`
	BotID       int64      `db:"bot_id"`
	Name        string     `db:"name"`
	Source      string     `db:"source"`
	URL         *string    `db:"url"`
	Title       string     `db:"title"`
	ContentType string     `db:"content_type"`
	Bytes       int64      `db:"bytes"`
	Status      string     `db:"status"`
	Passages    int        `db:"passages"`
	Tokens      int64      `db:"tokens"`
	Pages       int        `db:"pages"`
	Credits     int64      `db:"credits"`
	FetchedAt   *time.Time `db:"last_fetched_at"`
	CreatedAt   time.Time  `db:"created_at"`
	UpdatedAt   time.Time  `db:"updated_at"`
}

const documentColumns = `id, bot_id, name, source, url, title, content_type, bytes, status, passages, tokens, pages,
	credits, last_fetched_at, created_at, updated_at`

// Documents lists a bot's ready documents, newest first.
func (s *Service) Documents(ctx context.Context, workspaceID, botID int64, page, limit int) ([]Document, int, error) {
	if err := s.ownBot(ctx, s.db.Reader(), workspaceID, botID); err != nil {
		return nil, 0, err
	}
	var total int
	if err := store.Get(ctx, s.db.Reader(), &total, `SELECT COUNT(*) FROM documents WHERE bot_id = ? AND workspace_id = ?
		AND status = 'ready'`, botID, workspaceID); err != nil {
		return nil, 0, fmt.Errorf("knowledge: count documents: %w", err)
	}
	out := []Document{}
	err := store.Select(ctx, s.db.Reader(), &out, `SELECT `+documentColumns+` FROM documents WHERE bot_id = ? AND workspace_id = ?
		AND status = 'ready' ORDER BY updated_at DESC, id DESC LIMIT ? OFFSET ?`, botID, workspaceID, limit, (page-1)*limit)
	if err != nil {
		return nil, 0, fmt.Errorf("knowledge: list documents: %w", err)
	}
	return out, total, nil
}

// State says whether a bot is trained, and on how much.
type State struct {
	Trained        bool
	Documents      int
	Files          int
	Pages          int
	Passages       int
	Tokens         int64
	LastUpdatedAt  *time.Time
	Indexing       int // documents being indexed now
	CrawlRunning   bool
	RecrawlEnabled bool
}

// KnowledgeState summarises a bot's knowledge base.
func (s *Service) KnowledgeState(ctx context.Context, workspaceID, botID int64) (*State, error) {
	if err := s.ownBot(ctx, s.db.Reader(), workspaceID, botID); err != nil {
		return nil, err
	}
	var row struct {
		Documents int        `db:"documents"`
		Files     int        `db:"files"`
		Passages  int        `db:"passages"`
		Tokens    int64      `db:"tokens"`
		Last      *time.Time `db:"last"`
		Indexing  int        `db:"indexing"`
		Crawls    int        `db:"crawls"`
		Recrawl   bool       `db:"recrawl_enabled"`
	}
	// A plain correlated column for "last" rather than MAX(), so SQLite
	// returns a typed time.
	err := store.Get(ctx, s.db.Reader(), &row, `SELECT
		(SELECT COUNT(*) FROM documents d WHERE d.bot_id = b.id AND d.status = 'ready') AS documents,
		(SELECT COUNT(*) FROM documents d WHERE d.bot_id = b.id AND d.status = 'ready' AND d.source = 'upload') AS files,
		(SELECT COALESCE(SUM(d.passages), 0) FROM documents d WHERE d.bot_id = b.id AND d.status = 'ready') AS passages,
		(SELECT COALESCE(SUM(d.tokens), 0) FROM documents d WHERE d.bot_id = b.id AND d.status = 'ready') AS tokens,
		(SELECT d.updated_at FROM documents d WHERE d.bot_id = b.id AND d.status = 'ready' ORDER BY d.updated_at DESC LIMIT 1) AS last,
		(SELECT COUNT(*) FROM documents d WHERE d.bot_id = b.id AND d.status = 'indexing') AS indexing,
		(SELECT COUNT(*) FROM crawls c WHERE c.bot_id = b.id AND c.status IN ('queued', 'running')) AS crawls,
		b.recrawl_enabled
		FROM bots b WHERE b.id = ? AND b.workspace_id = ?`, botID, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("knowledge: state: %w", err)
	}
	return &State{Trained: row.Documents > 0, Documents: row.Documents, Files: row.Files, Pages: row.Documents - row.Files,
		Passages: row.Passages, Tokens: row.Tokens, LastUpdatedAt: row.Last, Indexing: row.Indexing,
		CrawlRunning: row.Crawls > 0, RecrawlEnabled: row.Recrawl}, nil
}

// DeleteDocument removes a document and its passages. With botID 0 the name
// is looked up across the workspace's bots and must be unambiguous.
func (s *Service) DeleteDocument(ctx context.Context, workspaceID, botID int64, name string) error {
	if botID != 0 {
		if err := s.ownBot(ctx, s.db.Reader(), workspaceID, botID); err != nil {
			return err
		}
	}
	var deletedBot int64
	now := s.clock.Now()
	err := s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		var docs []struct {
			ID    int64 `db:"id"`
			BotID int64 `db:"bot_id"`
		}
		q, args := `SELECT id, bot_id FROM documents WHERE workspace_id = ? AND name = ? AND status = 'ready'`, []any{workspaceID, name}
		if botID != 0 {
			q, args = q+` AND bot_id = ?`, append(args, botID)
		}
		if err := store.Select(ctx, tx, &docs, q, args...); err != nil {
			return err
		}
		switch {
		case len(docs) == 0:
			return apperr.NotFound("no document with this name")
		case len(docs) > 1:
			return apperr.Conflict("several bots have a document with this name: add ?bot_id=")
		}
		deletedBot = docs[0].BotID
		if _, err := store.Exec(ctx, tx, `DELETE FROM documents WHERE id = ? AND workspace_id = ?`, docs[0].ID, workspaceID); err != nil {
			return err
		}
		if err := bumpKnowledge(ctx, tx, deletedBot); err != nil {
			return err
		}
		_, err := outbox.Add(ctx, tx, now, outbox.Event{WorkspaceID: workspaceID, BotID: deletedBot, Type: "document.deleted",
			Data: map[string]any{"bot_id": deletedBot, "document_name": name}})
		return err
	})
	if err != nil {
		return err
	}
	s.retrieval.Invalidate(deletedBot)
	return nil
}

// CountDocuments is the workspace's ready documents and pages, for the
// plan's documents limit in entitlements.
func (s *Service) CountDocuments(ctx context.Context, workspaceID int64) (int64, error) {
	var n int64
	err := store.Get(ctx, s.db.Reader(), &n, `SELECT COUNT(*) FROM documents WHERE workspace_id = ? AND status = 'ready'`, workspaceID)
	return n, err
}
