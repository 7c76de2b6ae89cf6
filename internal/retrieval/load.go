package retrieval

import (
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"concierge/internal/store"
)

// inChunk bounds the ids of one IN (...) list: SQLite allows 32,766 host
// parameters and PostgreSQL 65,535, and short lists plan better.
const inChunk = 500

// version reads the bot's knowledge_version: one primary-key read per
// search, and the check that the bot belongs to the workspace.
func (s *Service) version(ctx context.Context, key botKey) (int64, bool, error) {
	var v int64
	err := store.Get(ctx, s.db.Reader(), &v,
		`SELECT knowledge_version FROM bots WHERE id = ? AND workspace_id = ?`, key.bot, key.workspace)
	if store.IsNotFound(err) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("retrieval: read knowledge version: %w", err)
	}
	return v, true, nil
}

type readyDoc struct {
	ID      int64     `db:"id"`
	Updated time.Time `db:"updated_at"`
}

// update brings prev up to date with the database. The ready documents
// (one indexed query) are compared with the index's: documents that are no
// longer ready, or changed since they were loaded, are dropped; only the
// documents the index lacks are read. A document changed between the two
// queries is caught up on the next version change.
func (s *Service) update(ctx context.Context, key botKey, prev *snapshot, version int64) (*snapshot, error) {
	began := s.opts.Clock()
	var ready []readyDoc
	if err := store.Select(ctx, s.db.Reader(), &ready,
		`SELECT id, updated_at FROM documents WHERE bot_id = ? AND workspace_id = ? AND status = 'ready'`,
		key.bot, key.workspace); err != nil {
		return nil, fmt.Errorf("retrieval: read ready documents: %w", err)
	}
	readySet := make(map[int64]time.Time, len(ready))
	for _, d := range ready {
		readySet[d.ID] = d.Updated
	}
	var removed, added []int64
	for id, d := range prev.docs {
		if u, ok := readySet[id]; !ok || !u.Equal(d.updated) {
			removed = append(removed, id)
		}
	}
	for _, d := range ready {
		if e, ok := prev.docs[d.ID]; !ok || !d.Updated.Equal(e.updated) {
			added = append(added, d.ID)
		}
	}
	if len(removed) == 0 && len(added) == 0 {
		next := *prev // snapshots are immutable: sharing everything is safe
		next.version = version
		return &next, nil
	}
	slices.Sort(removed)
	slices.Sort(added)
	b := prev.builder()
	b.remove(removed)
	for _, id := range added {
		b.addDoc(id, readySet[id])
	}
	if err := s.loadPassages(ctx, key, added, len(added)*2 > len(ready), b); err != nil {
		return nil, err
	}
	next := b.finish(version)
	s.log.DebugContext(ctx, "retrieval: index updated", "bot_id", key.bot, "version", version,
		"documents_added", len(added), "documents_removed", len(removed), "passages", next.live,
		"duration", s.opts.Clock().Sub(began))
	return next, nil
}

// loadPassages streams the passages of the given ready documents into b.
// When most of the bot is wanted (a first build) one query reads all of its
// ready passages and the rest are skipped in Go; otherwise the documents are
// read in IN-lists.
// Only vectors of the configured embedding model are read (a document
// records its model): another model's are not comparable, and without an
// embedder none is needed.
func (s *Service) loadPassages(ctx context.Context, key botKey, docs []int64, all bool, b *builder) error {
	const q = `SELECT p.id, p.document_id, p.terms, CASE WHEN d.embedding_model = ? THEN p.embedding END
FROM passages p JOIN documents d ON d.id = p.document_id
WHERE p.bot_id = ? AND p.workspace_id = ? AND d.bot_id = ? AND d.workspace_id = ? AND d.status = 'ready'`
	model := "" // matches no document with vectors: embedding_model is '' without them
	if s.opts.Embedder != nil {
		model = s.opts.Embedder.Model()
	}
	args := []any{model, key.bot, key.workspace, key.bot, key.workspace}
	if all {
		want := make(map[int64]bool, len(docs))
		for _, id := range docs {
			want[id] = true
		}
		return s.scanPassages(ctx, q, args, func(doc int64) bool { return want[doc] }, b)
	}
	for chunk := range slices.Chunk(docs, inChunk) {
		a := append(slices.Clone(args), int64sToAny(chunk)...)
		if err := s.scanPassages(ctx, q+` AND p.document_id IN (`+store.Placeholders(len(chunk))+`)`, a,
			func(int64) bool { return true }, b); err != nil {
			return err
		}
	}
	return nil
}

// scanPassages reads passages into b. The rows are counted on a few
// goroutines (counting terms is most of the work of a first load) while
// this one reads the next rows and one more adds the counted passages to
// the builder, which is not safe for concurrent use.
func (s *Service) scanPassages(ctx context.Context, q string, args []any, want func(int64) bool, b *builder) error {
	r := s.db.Reader()
	rows, err := r.QueryxContext(ctx, r.Rebind(q), args...)
	if err != nil {
		return fmt.Errorf("retrieval: read passages: %w", store.Normalize(err))
	}
	defer rows.Close()

	type raw struct {
		id, doc int64
		terms   string
		emb     []byte
	}
	raws := make(chan raw, 256)
	out := make(chan *counted, 256)
	var workers sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), 4)) {
		workers.Go(func() {
			c := newCounter()
			for r := range raws {
				var vec []float32
				if len(r.emb) > 0 {
					// A malformed embedding makes the passage keyword-only
					// rather than failing every search of the bot.
					if v, err := DecodeVector(r.emb); err == nil {
						vec = normalize(v)
					}
				}
				out <- c.count(r.id, r.doc, r.terms, vec)
			}
		})
	}
	added := make(chan struct{})
	go func() {
		defer close(added)
		for p := range out {
			b.add(p)
		}
	}()
	err = func() error {
		defer close(raws)
		for rows.Next() {
			var r raw
			if err := rows.Scan(&r.id, &r.doc, &r.terms, &r.emb); err != nil {
				return err
			}
			if want(r.doc) {
				raws <- r
			}
		}
		return rows.Err()
	}()
	workers.Wait()
	close(out)
	<-added
	if err != nil {
		return fmt.Errorf("retrieval: read passages: %w", store.Normalize(err))
	}
	return nil
}

type hitRow struct {
	ID          int64          `db:"id"`
	DocumentID  int64          `db:"document_id"`
	Title       string         `db:"title"`
	URL         sql.NullString `db:"url"`
	HeadingPath string         `db:"heading_path"`
	Text        string         `db:"text"`
	Terms       string         `db:"terms"`
	Name        string         `db:"name"`
	Listing     bool           `db:"listing"`
}

// hydrate reads what the hits show. The index holds no texts (they would
// triple its memory): passages found recently come from the passage cache
// (see passageCache), the others from the database, which also drops any of
// them whose document stopped being ready since the snapshot was built.
func (s *Service) hydrate(ctx context.Context, key botKey, cands []scored) ([]Hit, error) {
	if len(cands) == 0 {
		return nil, nil
	}
	ids := make([]int64, len(cands))
	for i, c := range cands {
		ids[i] = c.id
	}
	found := s.passages.get(ids) // by candidate
	var missing []int64
	at := map[int64]int{} // missing id → its candidate
	for i, id := range ids {
		if found[i] == nil {
			missing = append(missing, id)
			at[id] = i
		}
	}
	for chunk := range slices.Chunk(missing, inChunk) {
		args := []any{key.bot, key.workspace}
		for _, id := range chunk {
			args = append(args, id)
		}
		var got []hitRow
		// "+ 0" keeps both planners off the (bot_id, document_id) index:
		// without it, SQLite (no statistics) and PostgreSQL (stale ones after
		// a bulk load) walk every passage of the bot instead of fetching ten
		// rows by primary key, 50 times slower on a 20,000-passage bot. The
		// filter still applies to every row. The passages are fetched first
		// (a materialised CTE), then their documents: with stale statistics
		// PostgreSQL's generic plan otherwise started from the bot's ready
		// documents and, for each, intersected the passages of the document
		// with the wanted ids (a BitmapAnd per document: a quarter of
		// PostgreSQL's CPU under the chat load on a bot of 50 documents).
		if err := store.Select(ctx, s.db.Reader(), &got,
			`WITH p AS MATERIALIZED (SELECT id, document_id, title, url, heading_path, text, terms FROM passages
WHERE bot_id + 0 = ? AND workspace_id + 0 = ? AND id IN (`+store.Placeholders(len(chunk))+`))
SELECT p.id, p.document_id, p.title, p.url, p.heading_path, p.text, p.terms, d.name, d.listing
FROM p JOIN documents d ON d.id = p.document_id WHERE d.status = 'ready'`,
			args...); err != nil {
			return nil, fmt.Errorf("retrieval: read hits: %w", err)
		}
		for _, r := range got {
			p := &cachedPassage{id: r.ID, doc: r.DocumentID, title: r.Title, url: r.URL.String,
				text: r.Text, terms: r.Terms, docName: r.Name, heading: DecodeHeadingPath(r.HeadingPath), listing: r.Listing}
			p.index = passageIndex(p.terms, p.title, p.heading, p.text)
			if i, ok := at[r.ID]; ok {
				found[i] = s.passages.put(p)
			}
		}
	}
	hits := make([]Hit, 0, len(cands))
	for i, c := range cands {
		p := found[i]
		if p == nil {
			continue
		}
		hits = append(hits, Hit{
			PassageID: p.id, DocumentID: p.doc, Score: c.score,
			Title: p.title, URL: p.url, Text: p.text,
			HeadingPath: p.heading, DocumentName: p.docName, Terms: p.terms,
			cached: p,
		})
	}
	return hits, nil
}

func int64sToAny(ids []int64) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}
