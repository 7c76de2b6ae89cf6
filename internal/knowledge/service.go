// Package knowledge owns a bot's knowledge base: documents from uploaded
// files and crawled pages, the ingestion and crawl jobs that build them
// (extraction, chunking, analysis, passages), their progress, the credits
// they cost, and auto-recrawl. A document's passages become retrievable all
// at once, when the document turns ready; until then nothing of it is seen.
package knowledge

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"concierge/internal/apperr"
	"concierge/internal/billing"
	"concierge/internal/clock"
	"concierge/internal/jobs"
	"concierge/internal/knowledge/chunk"
	"concierge/internal/knowledge/extract"
	"concierge/internal/retrieval"
	"concierge/internal/safehttp"
	"concierge/internal/store"
)

// Options tune the knowledge base. Zero values get defaults.
type Options struct {
	Chunk       chunk.Options
	Extract     extract.Limits
	MaxFiles    int   // files per upload [20]
	MaxBodySize int64 // whole multipart upload [100 MiB]
	BatchSize   int   // passages written per transaction [200]
	// UserAgent is the crawler's robots.txt token.
	UserAgent string
	// EmbedRetryWait is the wait before the second try of embedding a
	// batch of passages, doubled before the third [500ms].
	EmbedRetryWait time.Duration
}

func (o *Options) defaults() {
	if o.MaxFiles <= 0 {
		o.MaxFiles = 20
	}
	if o.MaxBodySize <= 0 {
		o.MaxBodySize = DefaultMaxUpload
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 200
	}
	if o.UserAgent == "" {
		o.UserAgent = "ConciergeBot"
	}
	if o.EmbedRetryWait <= 0 {
		o.EmbedRetryWait = 500 * time.Millisecond
	}
}

// Service implements the knowledge base.
type Service struct {
	db        *store.DB
	billing   *billing.Service
	queue     *jobs.Queue
	retrieval *retrieval.Service
	embedder  retrieval.Embedder
	client    *http.Client
	readBody  func(*http.Response, int64) ([]byte, error)
	allow     []netip.Prefix
	clock     clock.Clock
	log       *slog.Logger
	opts      Options
	// afterCrawl runs after a completed crawl that indexed pages.
	afterCrawl func(ctx context.Context, workspaceID, botID int64)
}

// SetAfterCrawl installs what runs after a completed crawl that indexed
// pages (the chat area refreshes the detected brand tone).
func (s *Service) SetAfterCrawl(fn func(ctx context.Context, workspaceID, botID int64)) {
	s.afterCrawl = fn
}

// Deps are the collaborators of a Service.
type Deps struct {
	DB        *store.DB
	Billing   *billing.Service
	Queue     *jobs.Queue
	Retrieval *retrieval.Service
	// Embedder, when set, embeds every passage as it is indexed (dense
	// retrieval; CONCIERGE_EMBEDDINGS_*). nil: keyword retrieval only.
	Embedder retrieval.Embedder
	// Client fetches customer-supplied URLs: it must be the SSRF-guarded
	// client, with ReadBody its size-capped reader.
	Client   *http.Client
	ReadBody func(*http.Response, int64) ([]byte, error)
	// Allow lists the outbound allowlist (CONCIERGE_OUTBOUND_ALLOW) for
	// the early URL check.
	Allow  []netip.Prefix
	Clock  clock.Clock
	Logger *slog.Logger
}

// NewService returns the knowledge service.
func NewService(d Deps, opts Options) *Service {
	opts.defaults()
	if d.Clock == nil {
		d.Clock = clock.Real{}
	}
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	return &Service{db: d.DB, billing: d.Billing, queue: d.Queue, retrieval: d.Retrieval, embedder: d.Embedder, client: d.Client,
		readBody: d.ReadBody, allow: d.Allow, clock: d.Clock, log: d.Logger.With("component", "knowledge"), opts: opts}
}

// DefaultMaxUpload is the largest multipart upload accepted by default.
const DefaultMaxUpload = 100 << 20

// MaxUploadBytes is the largest multipart upload accepted (also on a nil
// service, so routes can be described without one).
func (s *Service) MaxUploadBytes() int64 {
	if s == nil {
		return DefaultMaxUpload
	}
	return s.opts.MaxBodySize
}

// RegisterJobs registers the ingestion, crawl and recrawl handlers.
func (s *Service) RegisterJobs(pool *jobs.Pool) {
	pool.Handle(jobIngest, s.ingestJob, jobs.KindOptions{Timeout: 30 * time.Minute})
	pool.Handle(jobCrawl, s.crawlJob, jobs.KindOptions{Timeout: 2 * time.Hour})
	pool.Handle(jobRecrawl, s.recrawlJob, jobs.KindOptions{Timeout: 2 * time.Hour})
	pool.Handle(jobRecrawlScheduler, s.recrawlSchedulerJob, jobs.KindOptions{Timeout: 5 * time.Minute})
	pool.Handle(jobEmbedBackfill, s.embedBackfillJob, jobs.KindOptions{Timeout: 2 * time.Hour})
}

// ownBot checks that botID is the workspace's: another workspace's bot is
// 403 (spec 4.2 rule 3), a missing one 404.
func (s *Service) ownBot(ctx context.Context, q store.Q, workspaceID, botID int64) error {
	var owner int64
	err := store.Get(ctx, q, &owner, `SELECT workspace_id FROM bots WHERE id = ?`, botID)
	if store.IsNotFound(err) {
		return apperr.NotFound("bot not found")
	}
	if err != nil {
		return fmt.Errorf("knowledge: bot: %w", err)
	}
	if owner != workspaceID {
		return apperr.Forbidden("this bot belongs to another workspace")
	}
	return nil
}

// urlCheck validates a customer-supplied URL before anything is fetched.
func (s *Service) urlCheck(raw string) (string, error) {
	u, err := safehttp.CheckURL(raw, s.allow)
	if err != nil {
		return "", err
	}
	return u.String(), nil
}
