package knowledge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"

	"concierge/internal/apperr"
	"concierge/internal/jobs"
	"concierge/internal/knowledge/crawl"
	"concierge/internal/outbox"
	"concierge/internal/secret"
	"concierge/internal/store"
)

const jobCrawl = "knowledge.crawl"

// Crawl statuses (DESIGN.md); "idle" is shown when a bot never crawled.
const (
	CrawlIdle      = "idle"
	CrawlQueued    = "queued"
	CrawlRunning   = "running"
	CrawlCompleted = "completed"
	CrawlCancelled = "cancelled"
	CrawlFailed    = "failed"
)

// Crawl is one crawl (or recrawl) of a bot's site and its progress.
type Crawl struct {
	ID             int64      `db:"id"`
	PublicID       string     `db:"public_id"`
	WorkspaceID    int64      `db:"workspace_id"`
	BotID          int64      `db:"bot_id"`
	Kind           string     `db:"kind"`
	RootURL        string     `db:"root_url"`
	MaxPages       int        `db:"max_pages"`
	Status         string     `db:"status"`
	Found          int        `db:"pages_found"`
	Fetched        int        `db:"pages_fetched"`
	Indexed        int        `db:"pages_indexed"`
	Failed         int        `db:"pages_failed"`
	Skipped        int        `db:"pages_skipped"`
	Changed        int        `db:"pages_changed"`
	Removed        int        `db:"pages_removed"`
	CurrentURL     *string    `db:"current_url"`
	CreditsCharged int64      `db:"credits_charged"`
	Error          *string    `db:"error"`
	JobID          *int64     `db:"job_id"`
	CreatedAt      time.Time  `db:"created_at"`
	UpdatedAt      time.Time  `db:"updated_at"`
	FinishedAt     *time.Time `db:"finished_at"`
}

const crawlColumns = `id, public_id, workspace_id, bot_id, kind, root_url, max_pages, status, pages_found, pages_fetched,
	pages_indexed, pages_failed, pages_skipped, pages_changed, pages_removed, current_url, credits_charged, error, job_id,
	created_at, updated_at, finished_at`

// crawlOptions are the crawler settings for a workspace's plan.
func (s *Service) crawlOptions(maxPages int) crawl.Options {
	return crawl.Options{Client: s.client, ReadBody: s.readBody, UserAgent: s.opts.UserAgent, MaxPages: maxPages}
}

// checkURL refuses what the crawler must never fetch before anything is
// queued (the guarded client refuses it again at dial time).
func (s *Service) checkURL(raw string) (string, error) {
	u, err := s.urlCheck(raw)
	if err != nil {
		return "", apperr.Invalid("body.url", err.Error(), "value_error")
	}
	return u, nil
}

// Discover lists the pages a crawl of rawURL would visit, without indexing.
func (s *Service) Discover(ctx context.Context, workspaceID, botID int64, rawURL string, maxPages int) ([]string, error) {
	if err := s.ownBot(ctx, s.db.Reader(), workspaceID, botID); err != nil {
		return nil, err
	}
	root, err := s.checkURL(rawURL)
	if err != nil {
		return nil, err
	}
	ent, err := s.billing.Entitlements(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	limit := int(ent.Limit("crawl_pages"))
	if maxPages > 0 && maxPages < limit {
		limit = maxPages
	}
	dctx, cancel := context.WithTimeout(ctx, 45*time.Second)
	defer cancel()
	pages, err := crawl.Discover(dctx, root, s.crawlOptions(limit))
	if err != nil {
		return nil, fetchError(err)
	}
	return pages, nil
}

// StartCrawl queues a crawl of rawURL for a bot; one crawl runs at a time
// per bot (409 otherwise).
func (s *Service) StartCrawl(ctx context.Context, workspaceID, botID int64, rawURL string, maxPages int) (*Crawl, error) {
	if err := s.ownBot(ctx, s.db.Reader(), workspaceID, botID); err != nil {
		return nil, err
	}
	root, err := s.checkURL(rawURL)
	if err != nil {
		return nil, err
	}
	ent, err := s.billing.Entitlements(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	if !ent.Serving {
		return nil, &apperr.SubscriptionRequired{Message: "the workspace is not serving: choose a plan to add knowledge"}
	}
	limit := int(ent.Limit("crawl_pages"))
	if maxPages > 0 && maxPages < limit {
		limit = maxPages
	}
	return s.queueCrawl(ctx, workspaceID, botID, "crawl", root, limit, jobCrawl)
}

func (s *Service) queueCrawl(ctx context.Context, workspaceID, botID int64, kind, root string, maxPages int, jobKind string) (*Crawl, error) {
	now := s.clock.Now()
	c := &Crawl{PublicID: secret.Token("crl_", 16), WorkspaceID: workspaceID, BotID: botID, Kind: kind, RootURL: root,
		MaxPages: maxPages, Status: CrawlQueued, CreatedAt: now, UpdatedAt: now}
	err := s.db.Tx(ctx, func(tx *sqlx.Tx) error {
		err := store.Get(ctx, tx, &c.ID, `INSERT INTO crawls (public_id, workspace_id, bot_id, kind, root_url, max_pages, status,
			created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'queued', ?, ?) RETURNING id`,
			c.PublicID, workspaceID, botID, kind, root, maxPages, now, now)
		if store.IsConflict(err) {
			return apperr.Conflict("a crawl of this bot is already running: wait for it or cancel it with POST /crawl/cancel")
		}
		if err != nil {
			return err
		}
		jobID, err := s.queue.EnqueueTx(ctx, tx, jobs.NewJob{Kind: jobKind, WorkspaceID: workspaceID, BotID: botID,
			Payload: map[string]int64{"crawl_id": c.ID}, MaxAttempts: 3})
		if err != nil {
			return err
		}
		c.JobID = &jobID
		_, err = store.Exec(ctx, tx, `UPDATE crawls SET job_id = ? WHERE id = ?`, jobID, c.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.queue.Wake()
	return c, nil
}

// Progress returns a bot's latest crawl, or nil when it never crawled.
func (s *Service) Progress(ctx context.Context, workspaceID, botID int64) (*Crawl, error) {
	if err := s.ownBot(ctx, s.db.Reader(), workspaceID, botID); err != nil {
		return nil, err
	}
	var c Crawl
	err := store.Get(ctx, s.db.Reader(), &c, `SELECT `+crawlColumns+` FROM crawls WHERE bot_id = ? AND workspace_id = ?
		ORDER BY id DESC LIMIT 1`, botID, workspaceID)
	if store.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("knowledge: crawl progress: %w", err)
	}
	return &c, nil
}

// CancelCrawl stops a bot's running crawl; pages already indexed stay. The
// crawl stops within the job heartbeat (seconds).
func (s *Service) CancelCrawl(ctx context.Context, workspaceID, botID int64) (*Crawl, error) {
	c, err := s.Progress(ctx, workspaceID, botID)
	if err != nil {
		return nil, err
	}
	if c == nil || (c.Status != CrawlQueued && c.Status != CrawlRunning) {
		return nil, apperr.Conflict("no crawl of this bot is running")
	}
	if c.JobID != nil {
		if err := s.queue.Cancel(ctx, *c.JobID, workspaceID); err != nil && !store.IsNotFound(err) {
			return nil, err
		}
	}
	// A crawl still queued never starts: settle it here.
	now := s.clock.Now()
	if _, err := store.Exec(ctx, s.db.Writer(), `UPDATE crawls SET status = 'cancelled', finished_at = ?, updated_at = ?
		WHERE id = ? AND status = 'queued'`, now, now, c.ID); err != nil {
		return nil, err
	}
	return s.Progress(ctx, workspaceID, botID)
}

// crawlJob runs a crawl: every page fetched becomes (or replaces) the
// document named by its URL, charged per page once it is indexed.
func (s *Service) crawlJob(ctx context.Context, j *jobs.Job) error {
	c, err := s.startCrawlRow(ctx, j)
	if c == nil || err != nil {
		return err
	}
	h := &crawlHandler{s: s, c: c, perPage: s.billing.Costs().CrawlPage}
	summary, err := crawl.Crawl(ctx, c.RootURL, s.crawlOptions(c.MaxPages), h)
	return s.finishCrawl(ctx, c, h, summary, err, nil)
}

// startCrawlRow loads the job's crawl and marks it running; nil when there
// is nothing to do (deleted, already finished).
func (s *Service) startCrawlRow(ctx context.Context, j *jobs.Job) (*Crawl, error) {
	var p struct {
		CrawlID int64 `json:"crawl_id"`
	}
	if err := j.Decode(&p); err != nil {
		return nil, err
	}
	var c Crawl
	err := store.Get(ctx, s.db.Reader(), &c, `SELECT `+crawlColumns+` FROM crawls WHERE id = ?`, p.CrawlID)
	if store.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if c.Status != CrawlQueued && c.Status != CrawlRunning {
		return nil, nil
	}
	now := s.clock.Now()
	if _, err := store.Exec(ctx, s.db.Writer(), `UPDATE crawls SET status = 'running', updated_at = ? WHERE id = ?`, now, c.ID); err != nil {
		return nil, err
	}
	c.Status = CrawlRunning
	return &c, nil
}

// finishCrawl records how a crawl ended. extra holds a recrawl's summary.
func (s *Service) finishCrawl(ctx context.Context, c *Crawl, h *crawlHandler, summary *crawl.Summary, crawlErr error, extra func(tx *sqlx.Tx) error) error {
	status, reason := CrawlCompleted, ""
	switch {
	case errors.Is(context.Cause(ctx), jobs.ErrCancelled) || (summary != nil && summary.Cancelled && ctx.Err() != nil):
		status = CrawlCancelled
	case ctx.Err() != nil:
		return ctx.Err() // shutdown or lost lease: the job runs again
	case crawlErr != nil:
		status, reason = CrawlFailed, fetchError(crawlErr).Error()
	case h.stopReason != "":
		reason = h.stopReason
	}
	// The handler's context may be cancelled; the bookkeeping must land.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	for !h.flushing.CompareAndSwap(false, true) { // let a background write finish first
		time.Sleep(5 * time.Millisecond)
	}
	h.flush(wctx, true)
	h.flushing.Store(false)
	if status == CrawlCompleted && h.indexed > 0 && s.afterCrawl != nil {
		// Best effort: a crawl that indexed pages refreshes what is
		// derived from them (the brand tone, unless its owner set it),
		// before the crawl reads as completed, so whoever waits for
		// "completed" sees the refreshed values.
		s.afterCrawl(wctx, c.WorkspaceID, c.BotID)
	}
	now := s.clock.Now()
	err := s.db.Tx(wctx, func(tx *sqlx.Tx) error {
		var errText any
		if reason != "" {
			errText = reason
		}
		if _, err := store.Exec(wctx, tx, `UPDATE crawls SET status = ?, error = ?, current_url = NULL, finished_at = ?,
			updated_at = ? WHERE id = ?`, status, errText, now, now, c.ID); err != nil {
			return err
		}
		if extra != nil {
			if err := extra(tx); err != nil {
				return err
			}
		}
		_, err := outbox.Add(wctx, tx, now, outbox.Event{WorkspaceID: c.WorkspaceID, BotID: c.BotID, Type: "crawl." + status,
			Data: map[string]any{"bot_id": c.BotID, "crawl_id": c.PublicID, "kind": c.Kind, "pages_indexed": h.indexed,
				"pages_failed": h.failed}})
		return err
	})
	return err
}

// crawlHandler indexes pages as the crawler delivers them and keeps the
// progress row current without writing on every event.
type crawlHandler struct {
	s       *Service
	c       *Crawl
	perPage int64
	// skip, when set, names URLs the crawl must not index (recrawl: pages
	// already checked one by one); maxNew, when set, bounds how many it
	// indexes.
	skip     func(url string) bool
	limitNew bool
	maxNew   int

	flushing   atomic.Bool
	mu         sync.Mutex
	progress   crawl.Progress
	indexed    int
	failed     int
	credits    int64
	stopReason string
	lastWrite  time.Time
}

func (h *crawlHandler) Page(ctx context.Context, p *crawl.Page) error {
	if h.skip != nil && h.skip(p.URL) {
		return nil
	}
	sum := sha256.Sum256([]byte(p.URL))
	h.mu.Lock()
	if h.limitNew && h.indexed >= h.maxNew {
		h.mu.Unlock()
		return crawl.ErrStop
	}
	h.mu.Unlock()
	link := p.FinalURL
	if link == "" {
		link = p.URL
	}
	res, err := h.s.index(ctx, source{WorkspaceID: h.c.WorkspaceID, BotID: h.c.BotID, Name: p.URL, Kind: "crawl",
		URL: link, Data: p.Body, FileName: fileNameFor(p), ETag: p.ETag, LastModified: p.LastModified, CostPerPage: h.perPage,
		PerDocument: true,
		CreditKey:   fmt.Sprintf("crawl:%d:%s", h.c.ID, hex.EncodeToString(sum[:12]))}, nil)
	h.mu.Lock()
	defer h.mu.Unlock()
	if err != nil {
		h.failed++
		var ic *apperr.InsufficientCredits
		var lr *apperr.LimitReached
		var sr *apperr.SubscriptionRequired
		if errors.As(err, &ic) || errors.As(err, &lr) || errors.As(err, &sr) {
			h.stopReason = "stopped early: " + userMessage(err)
			return crawl.ErrStop
		}
		return err
	}
	if !res.Unchanged {
		h.indexed++
		h.credits += res.Credits
	}
	return nil
}

// Progress records the counts; the row is written in the background at
// most twice a second, so the crawler's workers never wait on the database.
func (h *crawlHandler) Progress(p crawl.Progress) {
	h.mu.Lock()
	h.progress = p
	due := time.Since(h.lastWrite) > 500*time.Millisecond
	h.mu.Unlock()
	if due && h.flushing.CompareAndSwap(false, true) {
		go func() {
			defer h.flushing.Store(false)
			h.flush(context.Background(), false)
		}()
	}
}

// flush writes the progress row (throttled unless final).
func (h *crawlHandler) flush(ctx context.Context, final bool) {
	h.mu.Lock()
	p, indexed, credits := h.progress, h.indexed, h.credits
	h.lastWrite = time.Now()
	h.mu.Unlock()
	var current any
	if !final && p.CurrentURL != "" {
		current = truncate(p.CurrentURL, 2000)
	}
	failed := p.Failed + h.failedCount()
	_, err := store.Exec(ctx, h.s.db.Writer(), `UPDATE crawls SET pages_found = ?, pages_fetched = ?, pages_indexed = ?,
		pages_failed = ?, pages_skipped = ?, current_url = ?, credits_charged = ?, updated_at = ? WHERE id = ?`,
		p.Found, p.Fetched, indexed, failed, p.SkippedRobots, current, credits, h.s.clock.Now(), h.c.ID)
	if err != nil {
		h.s.log.Warn("record crawl progress", "crawl_id", h.c.ID, "err", err)
	}
}

func (h *crawlHandler) failedCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.failed
}

// fileNameFor gives the extractor a name whose extension matches the
// page's content type: URLs rarely end in .html.
func fileNameFor(p *crawl.Page) string {
	mt, _, _ := mime.ParseMediaType(p.ContentType)
	switch mt {
	case "text/html", "application/xhtml+xml":
		return "page.html"
	case "text/markdown":
		return "page.md"
	case "text/plain":
		return "page.txt"
	case "text/csv":
		return "page.csv"
	case "application/pdf":
		return "page.pdf"
	case "application/vnd.openxmlformats-officedocument.wordprocessingml.document":
		return "page.docx"
	}
	if i := strings.LastIndexByte(p.URL, '/'); i >= 0 && strings.Contains(p.URL[i:], ".") {
		return p.URL[i+1:]
	}
	return "page.html"
}

// fetchError turns a crawler error into a caller-safe message: what failed,
// never a response body.
func fetchError(err error) error {
	var ae *apperr.Error
	if errors.As(err, &ae) {
		return err
	}
	return apperr.Invalid("body.url", "the site could not be fetched: "+err.Error(), "value_error")
}
