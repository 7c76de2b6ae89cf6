package retrieval_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"concierge/internal/llm/llmtest"
	"concierge/internal/retrieval"
	"concierge/internal/store"
	"concierge/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// The ingestion service does not exist yet, so tests write documents and
// passages with plain SQL, the way it is expected to: passages first while
// the document is 'indexing', terms from Analyze, then status 'ready' and a
// knowledge_version bump in one transaction.

type fixture struct {
	t  testing.TB
	db *store.DB
}

func newFixture(t testing.TB, e testkit.Engine) *fixture {
	return &fixture{t: t, db: testkit.NewDB(t, e)}
}

var seq atomic.Int64

// now is distinct on every call (and survives PostgreSQL's microsecond
// precision), so updated_at always moves when a document changes.
func now() time.Time {
	return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(seq.Add(1)) * time.Millisecond)
}

func (f *fixture) insert(q string, args ...any) int64 {
	f.t.Helper()
	var id int64
	if err := store.Get(context.Background(), f.db.Writer(), &id, q+" RETURNING id", args...); err != nil {
		f.t.Fatalf("insert: %v", err)
	}
	return id
}

func (f *fixture) exec(q string, args ...any) {
	f.t.Helper()
	if _, err := store.Exec(context.Background(), f.db.Writer(), q, args...); err != nil {
		f.t.Fatalf("exec %q: %v", q, err)
	}
}

func (f *fixture) workspace() int64 {
	f.t.Helper()
	n := seq.Add(1)
	return f.insert(`INSERT INTO workspaces (email, password_hash, created_at, updated_at) VALUES (?, 'x', ?, ?)`,
		fmt.Sprintf("w%d@example.com", n), now(), now())
}

func (f *fixture) bot(ws int64) int64 {
	f.t.Helper()
	return f.insert(`INSERT INTO bots (workspace_id, bot_key, name, created_at, updated_at) VALUES (?, ?, 'bot', ?, ?)`,
		ws, fmt.Sprintf("key%d", seq.Add(1)), now(), now())
}

type passage struct {
	Title   string
	Heading []string
	Text    string
	URL     string
	Vec     []float32
}

// document writes a document in status with its passages and, when status
// is 'ready', bumps the bot's knowledge_version. It returns the document id
// and the passage ids in order.
func (f *fixture) document(ws, bot int64, name, status string, ps ...passage) (int64, []int64) {
	f.t.Helper()
	model := "" // the model of the document's vectors: the fake embeddings server's when it has any
	for _, p := range ps {
		if p.Vec != nil {
			model = llmtest.DefaultEmbeddingModel
		}
	}
	doc := f.insert(`INSERT INTO documents (workspace_id, bot_id, name, source, status, embedding_model, created_at, updated_at)
VALUES (?, ?, ?, 'upload', 'indexing', ?, ?, ?)`, ws, bot, name, model, now(), now())
	ids := make([]int64, len(ps))
	for i, p := range ps {
		var emb []byte
		if p.Vec != nil {
			emb = retrieval.EncodeVector(p.Vec)
		}
		var url any
		if p.URL != "" {
			url = p.URL
		}
		ids[i] = f.insert(`INSERT INTO passages (workspace_id, bot_id, document_id, ordinal, title, url, heading_path, text, terms, embedding)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, ws, bot, doc, i, p.Title, url, retrieval.EncodeHeadingPath(p.Heading), p.Text,
			retrieval.Analyze(p.Title, p.Heading, p.Text), emb)
	}
	if status != "indexing" {
		f.setStatus(bot, doc, status)
	}
	return doc, ids
}

func (f *fixture) setStatus(bot, doc int64, status string) {
	f.t.Helper()
	f.exec(`UPDATE documents SET status = ?, updated_at = ? WHERE id = ?`, status, now(), doc)
	f.bump(bot)
}

func (f *fixture) bump(bot int64) {
	f.t.Helper()
	f.exec(`UPDATE bots SET knowledge_version = knowledge_version + 1 WHERE id = ?`, bot)
}

func (f *fixture) deleteDocument(bot, doc int64) {
	f.t.Helper()
	f.exec(`DELETE FROM passages WHERE document_id = ?`, doc)
	f.exec(`DELETE FROM documents WHERE id = ?`, doc)
	f.bump(bot)
}

func (f *fixture) service(opts retrieval.Options) *retrieval.Service {
	if opts.Logger == nil {
		opts.Logger = testkit.TLogger(f.t)
	}
	if opts.VersionCheck == 0 {
		// The tests change the database behind the Service's back and
		// look at once; TestVersionCheckInterval covers the default.
		opts.VersionCheck = retrieval.EveryVersionCheck
	}
	return retrieval.New(f.db, opts)
}

func search(t testing.TB, s *retrieval.Service, ws, bot int64, q string, k int) []retrieval.Hit {
	t.Helper()
	hits, err := s.Search(context.Background(), ws, bot, q, k)
	if err != nil {
		t.Fatalf("search %q: %v", q, err)
	}
	return hits
}

func ids(hits []retrieval.Hit) []int64 {
	out := make([]int64, len(hits))
	for i, h := range hits {
		out[i] = h.PassageID
	}
	return out
}
