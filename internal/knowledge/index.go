package knowledge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync"
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
	// Published, when set, runs inside the transaction that makes the
	// document ready and charges it, so whatever it records (an upload's
	// progress row) can never disagree with the ledger, crash or not.
	Published func(ctx context.Context, tx *sqlx.Tx, res *indexed) error
}

// indexed is what indexing produced.
type indexed struct {
	DocumentID int64
	Passages   int
	Pages      int
	Credits    int64
	Unchanged  bool // same content as the ready document of that name: nothing done, nothing charged
}

// parsed is the half of indexing that needs no database: the text, the
// passages and their index terms. It can run ahead of the writes of the
// previous file.
type parsed struct {
	doc      *extract.Document
	passages []chunk.Passage
	terms    []string
	err      error
}

// parse extracts, chunks and analyses src. A panic anywhere in it (a
// parser on hostile input) is a failed file, never a crashed worker.
func (s *Service) parse(ctx context.Context, src source) (p *parsed) {
	defer func() {
		if r := recover(); r != nil {
			s.log.ErrorContext(ctx, "indexing panicked", "document", src.Name, "panic", r)
			p = &parsed{err: apperr.Invalid("files", src.Name+": the file could not be read", "value_error")}
		}
	}()
	fileName := src.FileName
	if fileName == "" {
		fileName = src.Name
	}
	doc, err := extract.Extract(ctx, fileName, src.Data, s.opts.Extract)
	if err != nil {
		return &parsed{err: extractError(err)}
	}
	passages := chunk.Split(doc, s.opts.Chunk)
	if len(passages) == 0 {
		return &parsed{err: apperr.Invalid("files", src.Name+": no text could be extracted", "value_error")}
	}
	return &parsed{doc: doc, passages: passages, terms: analyzePassages(passages, doc.Title)}
}

// index extracts, chunks and writes src as a document, then in one short
// transaction charges its credits, retires the ready document of the same
// name, makes the new one ready and bumps the bot's knowledge version. Any
// failure before that leaves nothing retrievable and charges nothing.
// ahead, when not nil, delivers parse(src) computed in advance; it is
// not waited for when the content is unchanged.
func (s *Service) index(ctx context.Context, src source, ahead <-chan *parsed) (*indexed, error) {
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

	var p *parsed
	if ahead != nil {
		select {
		case p = <-ahead:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	} else {
		p = s.parse(ctx, src)
	}
	if p.err != nil {
		return nil, p.err
	}
	doc, passages := p.doc, p.passages
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
		content_type, bytes, content_hash, status, pages, etag, last_modified, last_fetched_at, listing, embedding_model,
		created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'indexing', ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		src.WorkspaceID, src.BotID, src.Name, src.Kind, url, doc.Title, doc.Format, len(src.Data), hash, doc.Pages,
		nullable(src.ETag), nullable(src.LastModified), fetchedAt(src, now), doc.Listing, s.embeddingModel(), now, now)
	if err != nil {
		return nil, fmt.Errorf("knowledge: create document: %w", err)
	}
	if src.Started != nil {
		if err := src.Started(docID); err != nil {
			s.discard(docID)
			return nil, err
		}
	}
	res, err := s.fill(ctx, src, docID, doc, passages, p.terms, cost)
	if err != nil {
		s.discard(docID)
		return nil, err
	}
	return res, nil
}

// fill writes the passages in short transactions (SQLite has one writer;
// a long transaction would stall every other write), then publishes.
func (s *Service) fill(ctx context.Context, src source, docID int64, doc *extract.Document, passages []chunk.Passage, terms []string, cost int64) (*indexed, error) {
	tokens := 0
	for start := 0; start < len(passages); start += s.opts.BatchSize {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		end := min(start+s.opts.BatchSize, len(passages))
		vecs, err := s.embed(ctx, passages[start:end], doc.Title)
		if err != nil {
			return nil, err
		}
		err = s.db.Tx(ctx, func(tx *sqlx.Tx) error {
			return insertPassages(ctx, tx, src, docID, doc.Title, passages[start:end], terms[start:end], vecs)
		})
		if err != nil {
			return nil, fmt.Errorf("knowledge: write passages: %w", err)
		}
		for _, p := range passages[start:end] {
			tokens += p.Tokens
		}
	}
	now := s.clock.Now()
	res := &indexed{DocumentID: docID, Passages: len(passages), Pages: doc.Pages, Credits: cost}
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
		if src.Published != nil {
			if err := src.Published(ctx, tx, res); err != nil {
				return err
			}
		}
		_, err = outbox.Add(ctx, tx, now, outbox.Event{WorkspaceID: src.WorkspaceID, BotID: src.BotID, Type: "document.ingested",
			Data: map[string]any{"bot_id": src.BotID, "document_name": src.Name, "passages": len(passages), "credits": cost}})
		return err
	})
	if err != nil {
		return nil, err
	}
	s.retrieval.Invalidate(src.BotID)
	return res, nil
}

// passageColumns are written per passage (the embedding an eleventh when
// there is one); rowsPerInsert rows go in one multi-row INSERT (one
// statement to parse and, on PostgreSQL, one round trip instead of one per
// passage), well under both engines' limits on host parameters.
const (
	passageColumns = 10
	rowsPerInsert  = 100
)

// analyzePassages computes the index terms of every passage (the most
// expensive step of indexing after extraction) on all cores.
func analyzePassages(passages []chunk.Passage, docTitle string) []string {
	terms := make([]string, len(passages))
	workers := min(runtime.GOMAXPROCS(0), max(len(passages)/16, 1))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(passages); i += workers {
				p := passages[i]
				terms[i] = retrieval.Analyze(passageTitle(p, docTitle), p.HeadingPath, p.Text)
			}
		})
	}
	wg.Wait()
	return terms
}

func passageTitle(p chunk.Passage, docTitle string) string {
	if p.Title != "" {
		return p.Title
	}
	return docTitle
}

// deepLink is the passage's URL: the page's, with the fragment of its
// section when the page has one (a source then opens at the section).
func deepLink(pageURL any, anchor string) any {
	u, ok := pageURL.(string)
	if !ok || anchor == "" {
		return pageURL
	}
	if i := strings.IndexByte(u, '#'); i >= 0 {
		u = u[:i]
	}
	return u + "#" + (&url.URL{Fragment: anchor}).EscapedFragment()
}

// insertPassages writes passages with their index terms and, when vecs is
// not nil, their encoded embeddings (one per passage).
func insertPassages(ctx context.Context, tx *sqlx.Tx, src source, docID int64, docTitle string, passages []chunk.Passage, terms []string, vecs [][]byte) error {
	var url any
	if src.URL != "" {
		url = src.URL
	}
	cols, embedding := passageColumns, ""
	if vecs != nil {
		cols, embedding = passageColumns+1, ", embedding"
	}
	row := "(" + store.Placeholders(cols) + ")"
	for batch := range slices.Chunk(passages, rowsPerInsert) {
		var q strings.Builder
		q.WriteString(`INSERT INTO passages (workspace_id, bot_id, document_id, ordinal, title, url, heading_path, text,
			tokens, terms` + embedding + `) VALUES `)
		args := make([]any, 0, len(batch)*cols)
		for i, p := range batch {
			if i > 0 {
				q.WriteByte(',')
			}
			q.WriteString(row)
			args = append(args, src.WorkspaceID, src.BotID, docID, p.Ordinal, passageTitle(p, docTitle), deepLink(url, p.Anchor),
				strings.Join(p.HeadingPath, " › "), p.Text, p.Tokens, terms[0])
			terms = terms[1:]
			if vecs != nil {
				args = append(args, vecs[0])
				vecs = vecs[1:]
			}
		}
		if _, err := store.Exec(ctx, tx, q.String(), args...); err != nil {
			return err
		}
	}
	return nil
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
