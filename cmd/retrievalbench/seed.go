package main

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/retrieval"
	"concierge/internal/store"
)

// The benchmark writes documents and passages with SQL the way the
// ingestion side does (terms from retrieval.Analyze, documents 'ready',
// knowledge_version bumped), but in large transactions: it measures search,
// not ingestion.

type seedPassage struct {
	title, url, text string
	heading          []string
	terms            string
}

type seedDoc struct {
	name     string
	url      string
	passages []seedPassage
}

// analyzeAll fills in the terms of every passage, on every core.
func analyzeAll(docs []seedDoc) {
	var wg sync.WaitGroup
	work := make(chan *seedPassage, 256)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for p := range work {
				p.terms = retrieval.Analyze(p.title, p.heading, p.text)
			}
		})
	}
	for i := range docs {
		for j := range docs[i].passages {
			work <- &docs[i].passages[j]
		}
	}
	close(work)
	wg.Wait()
}

// newBot creates a workspace with one bot.
func newBot(ctx context.Context, db *store.DB, name string) (ws, bot int64, err error) {
	now := time.Now().UTC()
	err = db.Tx(ctx, func(tx *sqlx.Tx) error {
		if err := store.Get(ctx, tx, &ws, `INSERT INTO workspaces (email, password_hash, created_at, updated_at)
VALUES (?, 'x', ?, ?) RETURNING id`, fmt.Sprintf("%s-%d@bench.invalid", name, now.UnixNano()), now, now); err != nil {
			return err
		}
		return store.Get(ctx, tx, &bot, `INSERT INTO bots (workspace_id, bot_key, name, created_at, updated_at)
VALUES (?, ?, ?, ?, ?) RETURNING id`, ws, fmt.Sprintf("%s%d", name, now.UnixNano()), name, now, now)
	})
	return ws, bot, err
}

// insertDocs writes ready documents with their passages and bumps the
// bot's knowledge_version once at the end. It returns the document ids.
func insertDocs(ctx context.Context, db *store.DB, ws, bot int64, docs []seedDoc) ([]int64, error) {
	const docsPerTx, rowsPerInsert = 200, 100
	ids := make([]int64, 0, len(docs))
	now := time.Now().UTC()
	for start := 0; start < len(docs); start += docsPerTx {
		var batch []int64 // appended to ids only once the transaction commits (it may be retried)
		err := db.Tx(ctx, func(tx *sqlx.Tx) error {
			batch = batch[:0]
			var rows []any
			nrows := 0
			flush := func() error {
				if nrows == 0 {
					return nil
				}
				q := `INSERT INTO passages (workspace_id, bot_id, document_id, ordinal, title, url, heading_path, text, terms) VALUES ` +
					strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?, ?, ?, ?), ", nrows), ", ")
				_, err := store.Exec(ctx, tx, q, rows...)
				rows, nrows = rows[:0], 0
				return err
			}
			for _, d := range docs[start:min(start+docsPerTx, len(docs))] {
				var id int64
				if err := store.Get(ctx, tx, &id, `INSERT INTO documents (workspace_id, bot_id, name, source, url, title, status,
passages, created_at, updated_at) VALUES (?, ?, ?, 'upload', ?, ?, 'ready', ?, ?, ?) RETURNING id`,
					ws, bot, d.name, d.url, d.passages[0].title, len(d.passages), now, now); err != nil {
					return err
				}
				batch = append(batch, id)
				for i, p := range d.passages {
					rows = append(rows, ws, bot, id, i, p.title, p.url, retrieval.EncodeHeadingPath(p.heading), p.text, p.terms)
					if nrows++; nrows == rowsPerInsert {
						if err := flush(); err != nil {
							return err
						}
					}
				}
			}
			return flush()
		})
		if err != nil {
			return nil, fmt.Errorf("insert documents: %w", err)
		}
		ids = append(ids, batch...)
	}
	return ids, bumpVersion(ctx, db, bot)
}

func bumpVersion(ctx context.Context, db *store.DB, bot int64) error {
	_, err := store.Exec(ctx, db.Writer(), `UPDATE bots SET knowledge_version = knowledge_version + 1 WHERE id = ?`, bot)
	return err
}

func deleteDoc(ctx context.Context, db *store.DB, bot, doc int64) error {
	return db.Tx(ctx, func(tx *sqlx.Tx) error {
		if _, err := store.Exec(ctx, tx, `DELETE FROM passages WHERE document_id = ?`, doc); err != nil {
			return err
		}
		if _, err := store.Exec(ctx, tx, `DELETE FROM documents WHERE id = ?`, doc); err != nil {
			return err
		}
		_, err := store.Exec(ctx, tx, `UPDATE bots SET knowledge_version = knowledge_version + 1 WHERE id = ?`, bot)
		return err
	})
}
