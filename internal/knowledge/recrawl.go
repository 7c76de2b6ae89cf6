package knowledge

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/bot"
	"concierge/internal/jobs"
	"concierge/internal/knowledge/crawl"
	"concierge/internal/store"
)

const (
	jobRecrawl          = "knowledge.recrawl"
	jobRecrawlScheduler = "knowledge.recrawl_scheduler"
	// schedulerEvery is how often due bots are looked for.
	schedulerEvery = 5 * time.Minute
	// goneAfter consecutive 404/410 answers remove a page: one could be a
	// deploy in progress.
	goneAfter = 2
)

// EnsureScheduled queues the recrawl scheduler and, with embeddings, the
// embeddings backfill, unless a copy already waits (every replica calls it
// at start; the unique key keeps one).
func (s *Service) EnsureScheduled(ctx context.Context) error {
	if _, err := s.queue.Enqueue(ctx, jobs.NewJob{Kind: jobRecrawlScheduler, UniqueKey: jobRecrawlScheduler, MaxAttempts: 3}); err != nil {
		return err
	}
	return s.ensureBackfill(ctx)
}

// recrawlSchedulerJob queues a recrawl for every bot that is due and whose
// plan has auto_recrawl, then queues its own next run. Claiming a bot is a
// conditional update of its next-run time, so two replicas never queue the
// same bot twice.
func (s *Service) recrawlSchedulerJob(ctx context.Context, j *jobs.Job) error {
	now := s.clock.Now()
	var due []struct {
		ID          int64 `db:"id"`
		WorkspaceID int64 `db:"workspace_id"`
	}
	if err := store.Select(ctx, s.db.Reader(), &due, `SELECT id, workspace_id FROM bots WHERE recrawl_enabled = TRUE
		AND recrawl_next_at IS NOT NULL AND recrawl_next_at <= ? ORDER BY recrawl_next_at LIMIT 200`, now); err != nil {
		return err
	}
	for _, b := range due {
		ent, err := s.billing.Entitlements(ctx, b.WorkspaceID)
		if err != nil {
			return err
		}
		interval := time.Duration(ent.RecrawlIntervalHours) * time.Hour
		if ent.Require("auto_recrawl") != nil || interval <= 0 {
			interval = 24 * time.Hour // not entitled now: look again tomorrow, keep the setting
		}
		n, err := store.Exec(ctx, s.db.Writer(), `UPDATE bots SET recrawl_next_at = ? WHERE id = ? AND recrawl_next_at <= ?`,
			now.Add(interval), b.ID, now)
		if err != nil || n == 0 || ent.Require("auto_recrawl") != nil {
			continue
		}
		root, err := s.recrawlRoot(ctx, b.ID)
		if err != nil || root == "" {
			continue // nothing crawled yet
		}
		if _, err := s.queueCrawl(ctx, b.WorkspaceID, b.ID, "recrawl", root, int(ent.Limit("crawl_pages")), jobRecrawl); err != nil {
			s.log.InfoContext(ctx, "recrawl not queued", "bot_id", b.ID, "err", err)
		}
	}
	_, err := s.queue.Enqueue(ctx, jobs.NewJob{Kind: jobRecrawlScheduler, UniqueKey: jobRecrawlScheduler,
		RunAt: now.Add(schedulerEvery), MaxAttempts: 3})
	return err
}

// recrawlRoot is where the bot's last crawl started.
func (s *Service) recrawlRoot(ctx context.Context, botID int64) (string, error) {
	var root string
	err := store.Get(ctx, s.db.Reader(), &root, `SELECT root_url FROM crawls WHERE bot_id = ? AND kind = 'crawl'
		ORDER BY id DESC LIMIT 1`, botID)
	if store.IsNotFound(err) {
		return "", nil
	}
	return root, err
}

// recrawlJob re-checks every crawled page of a bot with conditional
// requests: unchanged pages cost nothing; changed ones are re-indexed in
// place by URL; a page answering 404/410 twice in a row is removed; a page
// failing otherwise keeps its last good content. Then it crawls from the
// root for pages that are new. The summary goes on the bot.
func (s *Service) recrawlJob(ctx context.Context, j *jobs.Job) error {
	c, err := s.startCrawlRow(ctx, j)
	if c == nil || err != nil {
		return err
	}
	started := s.clock.Now()
	var pages []struct {
		ID           int64   `db:"id"`
		Name         string  `db:"name"`
		URL          *string `db:"url"`
		ETag         *string `db:"etag"`
		LastModified *string `db:"last_modified"`
		Failures     int     `db:"fetch_failures"`
	}
	if err := store.Select(ctx, s.db.Reader(), &pages, `SELECT id, name, url, etag, last_modified, fetch_failures FROM documents
		WHERE bot_id = ? AND workspace_id = ? AND source = 'crawl' AND status = 'ready' ORDER BY id`, c.BotID, c.WorkspaceID); err != nil {
		return err
	}
	h := &crawlHandler{s: s, c: c, perPage: s.billing.Costs().CrawlPage}
	run := bot.RecrawlRun{StartedAt: started}
	known := map[string]bool{}
	opts := s.crawlOptions(c.MaxPages)
	for _, p := range pages {
		if ctx.Err() != nil {
			break
		}
		known[p.Name] = true
		run.Checked++
		// The URL the page was last fetched from (after redirects), not
		// its normalised key: a server may not answer the normalised form.
		target := p.Name
		if p.URL != nil && *p.URL != "" {
			target = *p.URL
		}
		res, err := crawl.Recheck(ctx, target, deref(p.ETag), deref(p.LastModified), opts)
		now := s.clock.Now()
		switch {
		case err != nil:
			run.Failed++ // transient: the last good content stays
			s.touchPage(ctx, p.ID, p.Failures+1, now)
		case res.Gone:
			if p.Failures+1 >= goneAfter {
				if err := s.removePage(ctx, c, p.ID); err == nil {
					run.Removed++
				}
			} else {
				s.touchPage(ctx, p.ID, p.Failures+1, now)
			}
		case res.NotModified:
			s.touchPage(ctx, p.ID, 0, now)
		default:
			before := h.indexed
			if err := h.Page(ctx, res.Page); err != nil {
				run.Failed++
			} else if h.indexed > before {
				run.Changed++
			} else {
				s.touchPage(ctx, p.ID, 0, now)
			}
		}
	}
	// New pages: a crawl from the root that skips the pages just checked.
	// Skipped pages still count against the crawler's page budget, so the
	// budget grows by them while what is indexed stays within the plan's.
	h.skip = func(url string) bool { return known[url] }
	h.limitNew, h.maxNew = true, h.indexed+max(c.MaxPages-len(known), 0)
	before := h.indexed
	opts.MaxPages = c.MaxPages + len(known)
	summary, crawlErr := crawl.Crawl(ctx, c.RootURL, opts, h)
	if h.stopReason == "" && h.indexed >= h.maxNew {
		crawlErr = nil // stopped at the plan's page budget: a normal end
	}
	run.Added = h.indexed - before
	run.FinishedAt = s.clock.Now()
	return s.finishCrawl(ctx, c, h, summary, crawlErr, func(tx *sqlx.Tx) error {
		raw, _ := json.Marshal(run)
		if _, err := store.Exec(ctx, tx, `UPDATE crawls SET pages_changed = ?, pages_removed = ? WHERE id = ?`,
			run.Changed, run.Removed, c.ID); err != nil {
			return err
		}
		_, err := store.Exec(ctx, tx, `UPDATE bots SET recrawl_last_run = ? WHERE id = ? AND workspace_id = ?`,
			string(raw), c.BotID, c.WorkspaceID)
		return err
	})
}

func (s *Service) touchPage(ctx context.Context, docID int64, failures int, now time.Time) {
	if _, err := store.Exec(ctx, s.db.Writer(), `UPDATE documents SET fetch_failures = ?, last_fetched_at = ? WHERE id = ?`,
		failures, now, docID); err != nil {
		s.log.WarnContext(ctx, "record page check", "document_id", docID, "err", err)
	}
}

func (s *Service) removePage(ctx context.Context, c *Crawl, docID int64) error {
	err := s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		if _, err := store.Exec(ctx, tx, `DELETE FROM documents WHERE id = ? AND workspace_id = ?`, docID, c.WorkspaceID); err != nil {
			return err
		}
		return bumpKnowledge(ctx, tx, c.BotID)
	})
	if err != nil {
		return fmt.Errorf("knowledge: remove vanished page: %w", err)
	}
	s.retrieval.Invalidate(c.BotID)
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
