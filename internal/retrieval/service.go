// Package retrieval owns the passage index: it turns a visitor's question
// into the best passages of one bot's knowledge. Keyword ranking is BM25
// computed in Go over the passages' analysed terms (so SQLite and PostgreSQL
// rank identically), with title and heading terms weighted BM25F-style;
// optional dense vectors from an OpenAI-compatible embeddings server add
// the passages they rank best to the keyword candidates, and their cosine
// similarity is one of the second stage's signals.
//
// Each process keeps one in-memory index per recently used bot, bounded in
// passages and evicted least recently used first. Every Search reads the
// bot's knowledge_version and, when it moved, brings the index up to date
// by loading only the documents that became ready and dropping the ones that
// no longer are, so a commit on one replica is visible on every replica by
// the next query.
package retrieval

import (
	"container/list"
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"concierge/internal/store"
)

// Hit is one retrieved passage.
type Hit struct {
	PassageID, DocumentID int64
	// Score is the BM25 score (0 for a passage only the embedding found);
	// comparable within one result list only.
	Score            float64
	Title, URL, Text string
	HeadingPath      []string
	DocumentName     string
	// Terms is the passage's analysed terms as the index stores them
	// (the passages.terms column, Analyze's format), so that an answerer
	// can match words without analysing the passage again: see
	// PassageTerms and TermsOf.
	Terms string
	// Evidence is the second stage's reading of the passage against the
	// question: why it ranks where it does, and how well it answers.
	Evidence Evidence

	cached *cachedPassage // the shared entry behind Memo; nil for a hit built by hand
	// cos is the passage's cosine similarity to the question when both
	// were embedded by the configured model (hasCos).
	cos    float64
	hasCos bool
	// denseOnly is set for a candidate the embedding found and the
	// keyword ranking did not.
	denseOnly bool
}

// PassageTerms returns the terms of the hit's title, heading path and text
// as they were indexed. Without stored terms (a hit built by hand) it
// analyses them with Terms.
func (h *Hit) PassageTerms() []string {
	if h.Terms == "" {
		return Terms(h.Title + " " + strings.Join(h.HeadingPath, " ") + " " + h.Text)
	}
	var out []string
	scanTerms(h.Terms, func(_ int, t string) { out = append(out, t) })
	return out
}

// TermsOf analyses part of the hit's text (a sentence) the way the passage
// was indexed: in the passage's language, rather than in one detected
// from the part alone. Without stored terms it is Terms(part).
func (h *Hit) TermsOf(part string) []string {
	rest, ok := strings.CutPrefix(h.Terms, termsVersion+" ")
	if !ok {
		return Terms(part)
	}
	code, _, _ := strings.Cut(rest, "\n")
	l := parseLang(code)
	if l == langUnknown {
		return Terms(part)
	}
	return emitTerms(segment(part), l, nil)
}

// Options configures a Service. Zero values take the defaults.
type Options struct {
	// K1 and B are the BM25 parameters (defaults 1.2 and 0.9).
	K1, B float64
	// TitleBoost and HeadingBoost weight an occurrence in the title or the
	// heading path against one in the text (defaults 2 and 1.5). Use NoBoost
	// for an explicit 0.
	TitleBoost, HeadingBoost float64
	// MaxCachedPassages bounds the passages held in memory across all bots'
	// indexes (default 2,000,000); least recently searched bots go first.
	MaxCachedPassages int
	// Embedder enables dense retrieval; nil is keyword only.
	Embedder Embedder
	// FirstStageOnly returns the first stage's ranking (BM25, then with
	// dense retrieval the passages only the embedding found) without the
	// second stage: for measuring the first stage.
	FirstStageOnly bool
	// EmbedTimeout bounds embedding one query (default 2s); on timeout the
	// search falls back to keyword ranking.
	EmbedTimeout time.Duration
	// Logger receives warnings (embedder failures) and index updates at
	// debug level (default slog.Default()).
	Logger *slog.Logger
	// Clock times index updates for the log and ages the version check
	// (default time.Now).
	Clock func() time.Time
	// VersionCheck is how long a search may trust the last reading of its
	// bot's knowledge_version instead of reading it again (default
	// DefaultVersionCheck; EveryVersionCheck reads it on every search).
	// Commits made through this Service's Invalidate show at once; a commit
	// by another replica shows within this interval plus one index update.
	VersionCheck time.Duration
	// PassageCacheBytes bounds the passages kept in memory after a search
	// returned them, with what answerers derive from them (default
	// DefaultPassageCacheBytes; NoPassageCache turns the cache off).
	PassageCacheBytes int64
}

// DefaultPassageCacheBytes is the default bound of the passage cache.
const DefaultPassageCacheBytes = 64 << 20

// NoPassageCache is the PassageCacheBytes value that turns the cache off.
const NoPassageCache = -1

// DefaultVersionCheck keeps a warm search free of database round trips
// but one (reading the hits' texts) while other replicas' commits still
// show well within the second the knowledge base promises.
const DefaultVersionCheck = 250 * time.Millisecond

// EveryVersionCheck is the VersionCheck value that reads knowledge_version
// on every search.
const EveryVersionCheck = -1

// NoBoost is the value of TitleBoost or HeadingBoost that weights a field
// zero (a zero value means "default").
const NoBoost = -1

// DefaultOptions are the values New uses for zero fields. The ranking
// parameters were chosen on BEIR SciFact (docs/benchmarks.md has the
// sweep): nDCG@10 is flat within ±0.005 over k1 0.9–1.5, b 0.75–1.0 and
// title boost 1.5–3, and these values sit in the middle of that plateau
// rather than on its noisiest peak. A title that counts twice also suits
// web pages and files, whose titles name their subject. SciFact has no
// headings; 1.5 (between text and title) is a judgement, not a measurement.
var DefaultOptions = Options{K1: 1.2, B: 0.9, TitleBoost: 2, HeadingBoost: 1.5, MaxCachedPassages: 2_000_000}

const (
	maxK       = 1000 // hits one Search returns at most
	denseExtra = 10   // passages the embedding adds to the keyword candidates
)

// Service answers searches over the bots' passages.
type Service struct {
	db     *store.DB
	params params
	opts   Options
	log    *slog.Logger

	mu   sync.Mutex
	bots map[botKey]*botIndex
	lru  *list.List // of *botIndex, most recently searched first

	passages *passageCache // nil when turned off
	cached   int           // passages in the published snapshots of cached bots
}

// botKey selects an index: a bot id alone never does, so a bot id presented
// with another workspace's id finds nothing.
type botKey struct{ workspace, bot int64 }

type botIndex struct {
	key   botKey
	snap  atomic.Pointer[snapshot]
	stale atomic.Bool // Invalidate was called: reconcile even if the version did not move
	// checked is when (Clock, Unix nanoseconds) a version read last found
	// snap current; a search within VersionCheck of it skips the read.
	checked atomic.Int64

	mu     sync.Mutex
	flight *flight // the update in progress, if any

	elem *list.Element // guarded by Service.mu; nil once evicted
	size int           // passages counted in Service.cached; guarded by Service.mu
}

// New returns a Service reading passages from db.
func New(db *store.DB, opts Options) *Service {
	d := DefaultOptions
	if opts.K1 <= 0 {
		opts.K1 = d.K1
	}
	if opts.B < 0 || opts.B > 1 || opts.B == 0 {
		opts.B = d.B
	}
	boost := func(v, def float64) float64 {
		switch {
		case v == NoBoost:
			return 0
		case v <= 0:
			return def
		}
		return v
	}
	opts.TitleBoost = boost(opts.TitleBoost, d.TitleBoost)
	opts.HeadingBoost = boost(opts.HeadingBoost, d.HeadingBoost)
	if opts.MaxCachedPassages <= 0 {
		opts.MaxCachedPassages = d.MaxCachedPassages
	}
	if opts.EmbedTimeout <= 0 {
		opts.EmbedTimeout = 2 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	switch {
	case opts.VersionCheck == 0:
		opts.VersionCheck = DefaultVersionCheck
	case opts.VersionCheck < 0:
		opts.VersionCheck = 0
	}
	switch {
	case opts.PassageCacheBytes == 0:
		opts.PassageCacheBytes = DefaultPassageCacheBytes
	case opts.PassageCacheBytes < 0:
		opts.PassageCacheBytes = 0
	}
	return &Service{
		passages: newPassageCache(opts.PassageCacheBytes),
		db:       db,
		params:   params{k1: opts.K1, b: opts.B, titleBoost: opts.TitleBoost, headingBoost: opts.HeadingBoost},
		opts:     opts,
		log:      opts.Logger,
		bots:     map[botKey]*botIndex{},
		lru:      list.New(),
	}
}

// Search returns up to k passages of one bot for query, best first. The bot
// is selected by both ids: every passage in its index was loaded WHERE
// bot_id = ? AND workspace_id = ? from a ready document, and a bot id of
// another workspace finds nothing. Empty and stop-word-only queries return
// no hits. Ties break by passage id.
func (s *Service) Search(ctx context.Context, workspaceID, botID int64, query string, k int) ([]Hit, error) {
	if k <= 0 || strings.TrimSpace(query) == "" {
		return nil, nil
	}
	k = min(k, maxK)
	key := botKey{workspace: workspaceID, bot: botID}
	snap, err := s.snapshotFor(ctx, key)
	if err != nil || snap == nil {
		return nil, err
	}
	variants := snap.queryVariants(query) // analysed once for both stages
	terms := pool(variants)
	if len(terms) == 0 || snap.live == 0 {
		return nil, nil
	}
	// The first stage finds at least rerankDepth candidates; the second
	// reads them and keeps the best k.
	n := max(k, rerankDepth)
	if s.opts.FirstStageOnly {
		n = k
	}
	var cands []scored
	var qv []float32
	if s.opts.Embedder != nil && snap.vectors > 0 {
		cands, qv = s.hybrid(ctx, snap, query, terms, n)
	} else {
		cands = snap.bm25(terms, n)
	}
	hits, err := s.hydrate(ctx, key, cands)
	if err != nil {
		return nil, err
	}
	if qv != nil {
		snap.similarity(hits, cands, qv)
	}
	if !s.opts.FirstStageOnly {
		snap.rerank(hits, variants)
	}
	hits = hits[:min(k, len(hits))]
	for i := range hits { // the cached passage's slice is shared: callers get their own
		hits[i].HeadingPath = slices.Clone(hits[i].HeadingPath)
	}
	return hits, nil
}

// snapshotFor returns the bot's index, current as of the last version
// check; nil when the bot does not exist in the workspace. The cache entry
// exists only for a (workspace, bot) pair a version read has confirmed, so
// skipping the read never lets a bot id of another workspace through.
func (s *Service) snapshotFor(ctx context.Context, key botKey) (*snapshot, error) {
	bi := s.entry(key)
	now := s.opts.Clock().UnixNano()
	if sn := bi.snap.Load(); sn != nil && !bi.stale.Load() && now-bi.checked.Load() < int64(s.opts.VersionCheck) {
		return sn, nil
	}
	version, ok, err := s.version(ctx, key)
	if err != nil {
		return nil, err
	}
	if !ok {
		s.drop(key)
		return nil, nil
	}
	snap, err := s.current(ctx, bi, version)
	if err != nil {
		return nil, err
	}
	if snap.version >= version {
		bi.checked.Store(now)
	}
	return snap, nil
}

// hybrid adds the dense ranking to the keyword one: the keyword
// candidates stay as they are (with their BM25 scores), the passages the
// embedding ranks best that they lack join them (up to denseExtra, with no
// BM25 score), and every candidate carries its cosine similarity to the
// question for the second stage. When the query cannot be embedded it is
// the keyword ranking alone, never a failed search.
//
// The first version fused the two rankings by reciprocal rank and ordered
// the second stage by the fused score. With a weak model that displaced
// keyword candidates and the BM25 evidence the second stage weighs, and
// most figures of the documentation sets fell (docs/benchmarks.md, "Dense
// retrieval with a real model"). Now a weak model cannot displace what the
// keywords found; it can only add candidates and weigh in.
func (s *Service) hybrid(ctx context.Context, snap *snapshot, query string, terms []string, k int) ([]scored, []float32) {
	kw := snap.bm25(terms, k)
	qv, err := s.embedQuery(ctx, query)
	if err != nil {
		s.log.WarnContext(ctx, "retrieval: query embedding failed, keyword ranking only", "error", err)
		return kw, nil
	}
	cands := slices.Clone(kw)
	in := make(map[int64]bool, len(kw))
	for _, c := range kw {
		in[c.id] = true
	}
	extra := 0
	for _, c := range snap.cosine(qv, k+denseExtra) {
		if extra == denseExtra {
			break
		}
		if !in[c.id] {
			cands = append(cands, scored{slot: c.slot, id: c.id})
			extra++
		}
	}
	return cands, qv
}

// Invalidate makes the next Search of botID reconcile its index with the
// database even if knowledge_version did not move. The writer in this
// process calls it after a commit; other replicas notice through the
// version. The cached data is kept: reconciling loads only what changed.
func (s *Service) Invalidate(botID int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for key, bi := range s.bots {
		if key.bot == botID {
			bi.stale.Store(true)
		}
	}
}

// current returns a snapshot at least as new as version, updating the
// index when needed. One update runs at a time per bot, in a goroutine of
// its own: concurrent searches wait for it and share its result, and a
// search that gives up (its context ends) does not abort an index build
// that the next searches need.
func (s *Service) current(ctx context.Context, bi *botIndex, version int64) (*snapshot, error) {
	for {
		if sn := bi.snap.Load(); sn != nil && sn.version >= version && !bi.stale.Load() {
			return sn, nil
		}
		bi.mu.Lock()
		f := bi.flight
		if f == nil {
			f = &flight{done: make(chan struct{})}
			bi.flight = f
			// Cleared before reading, so an Invalidate during the update
			// is not lost: it sets the flag again and the next search
			// reconciles once more.
			bi.stale.Store(false)
			go s.fly(bi, f, version)
		}
		bi.mu.Unlock()
		select {
		case <-f.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if f.err != nil {
			return nil, f.err
		}
		// The update may have started before this search read its version;
		// then the loop starts (or joins) another.
	}
}

// updateTimeout bounds one index update, which runs detached from the
// searches that wait for it.
const updateTimeout = 5 * time.Minute

type flight struct {
	done chan struct{}
	err  error // set before done is closed
}

func (s *Service) fly(bi *botIndex, f *flight, version int64) {
	ctx, cancel := context.WithTimeout(context.Background(), updateTimeout)
	defer cancel()
	prev := bi.snap.Load()
	if prev == nil {
		prev = emptySnapshot(s.params)
	}
	next, err := s.update(ctx, bi.key, prev, version)
	if err != nil {
		bi.stale.Store(true)
		s.log.Warn("retrieval: index update failed", "bot_id", bi.key.bot, "error", err)
	} else {
		bi.snap.Store(next)
		s.account(bi, next.live)
	}
	bi.mu.Lock()
	bi.flight = nil
	bi.mu.Unlock()
	f.err = err
	close(f.done)
}

// entry returns the bot's cache entry, creating it, and marks it used.
func (s *Service) entry(key botKey) *botIndex {
	s.mu.Lock()
	defer s.mu.Unlock()
	bi, ok := s.bots[key]
	if !ok {
		bi = &botIndex{key: key}
		bi.elem = s.lru.PushFront(bi)
		s.bots[key] = bi
		return bi
	}
	s.lru.MoveToFront(bi.elem)
	return bi
}

// account records a bot's new size and evicts least recently used bots
// while the total is over the bound. The bot just searched is never
// evicted, even when it alone exceeds the bound: it has to be served.
func (s *Service) account(bi *botIndex, passages int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if bi.elem == nil {
		return // evicted while updating; its snapshot dies with its readers
	}
	s.cached += passages - bi.size
	bi.size = passages
	for s.cached > s.opts.MaxCachedPassages {
		back := s.lru.Back()
		victim := back.Value.(*botIndex)
		if victim == bi {
			if back = back.Prev(); back == nil {
				return
			}
			victim = back.Value.(*botIndex)
		}
		s.evictLocked(victim)
	}
}

func (s *Service) drop(key botKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if bi, ok := s.bots[key]; ok {
		s.evictLocked(bi)
	}
}

func (s *Service) evictLocked(bi *botIndex) {
	s.lru.Remove(bi.elem)
	delete(s.bots, bi.key)
	s.cached -= bi.size
	bi.elem, bi.size = nil, 0
	bi.snap.Store(nil)
}

// CachedPassages reports the passages held in memory across all bots.
func (s *Service) CachedPassages() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cached
}
