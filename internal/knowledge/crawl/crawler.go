package crawl

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"net/http"
	"net/url"
	"sync"
)

type item struct {
	u    *url.URL // fetch form, as linked
	key  string
	root bool
}

type outcome int

const (
	outAborted outcome = iota // the crawl was cancelled or stopped meanwhile
	outFetched
	outFailed
	outRobots
	outOther
)

// crawler is one Crawl's state. A dispatcher (run) starts workers from a
// FIFO queue, which gives breadth-first order; workers fetch, then update
// the shared state under mu and hand pages to the Handler one at a time.
type crawler struct {
	s           *session
	h           Handler
	parent      context.Context
	ctx         context.Context // cancelled on cancellation and on ErrStop
	cancel      context.CancelFunc
	workers     int
	maxAttempts int
	hashSeed    maphash.Seed
	handlerSem  chan struct{} // serialises Handler.Page
	wake        chan struct{}
	wg          sync.WaitGroup // workers

	// progMu serialises Handler.Progress calls, made outside mu so a slow
	// callback never stalls dispatch; sent is the last change reported.
	progMu sync.Mutex
	sent   uint64

	mu        sync.Mutex
	queue     []item
	head      int
	known     map[string]bool // keys queued, fetched, redirected to or named canonical: never queued again
	claimed   map[string]bool // keys a page was delivered under
	bodies    map[uint64]bool // hashes of delivered bodies
	prog      Progress
	changes   uint64 // bumped whenever prog changes
	inflight  int    // workers running; each holds one page of the MaxPages budget
	attempts  int    // page requests made or in flight
	delivered int    // Handler.Page calls
	stop      string
	rootErr   error
}

func newCrawler(parent context.Context, s *session, h Handler) *crawler {
	ctx, cancel := context.WithCancel(parent)
	s.ctx = ctx // robots.txt fetches stop with the crawl, ErrStop included
	o := s.opts
	return &crawler{
		s: s, h: h, parent: parent, ctx: ctx, cancel: cancel,
		// Several hosts may share the work; each is still held to its own
		// PerHostConcurrency by its gate.
		workers:     min(max(o.PerHostConcurrency*4, 4), 64),
		maxAttempts: 2*o.MaxPages + 20,
		hashSeed:    maphash.MakeSeed(),
		handlerSem:  make(chan struct{}, 1),
		wake:        make(chan struct{}, 1),
		known:       map[string]bool{},
		claimed:     map[string]bool{},
		bodies:      map[uint64]bool{},
	}
}

// seed queues the root and the sitemap URLs. The root host's robots.txt
// being unreachable ends the crawl with its error before anything else:
// RFC 9309 forbids crawling the host, and it is the clearest message.
func (c *crawler) seed(root *url.URL) error {
	hs, err := c.s.host(c.ctx, root)
	if err != nil {
		return nil // cancelled: run reports it
	}
	if hs.err != nil {
		if c.parent.Err() != nil {
			return nil
		}
		c.mu.Lock()
		c.stop = hs.err.Error()
		c.mu.Unlock()
		return fmt.Errorf("crawl: %s: %w", root.Host, hs.err)
	}
	c.mu.Lock()
	c.known[keyOf(root)] = true
	c.queue = append(c.queue, item{u: root, key: keyOf(root), root: true})
	c.prog.Found++
	c.changes++
	c.unlockAndReport()
	c.s.sitemaps(c.ctx, root, hs, func(u *url.URL) bool {
		c.mu.Lock()
		c.add(u)
		more := len(c.known) < maxKnownURLs
		c.unlockAndReport()
		return more
	})
	return nil
}

// add queues a same-site URL not seen before; mu held.
func (c *crawler) add(u *url.URL) bool {
	if !c.s.sameSite(u) || skippable(u) || len(c.known) >= maxKnownURLs {
		return false
	}
	key := keyOf(u)
	if c.known[key] {
		return false
	}
	c.known[key] = true
	c.queue = append(c.queue, item{u: u, key: key})
	c.prog.Found++
	c.changes++
	return true
}

// unlockAndReport releases mu and reports the counts if they changed.
// Snapshots are taken under mu, so a stale one that loses the race to
// progMu is dropped rather than reported after a newer one.
func (c *crawler) unlockAndReport() {
	snap, n := c.prog, c.changes
	c.mu.Unlock()
	c.progMu.Lock()
	defer c.progMu.Unlock()
	if n > c.sent {
		c.sent = n
		c.h.Progress(snap)
	}
}

func (c *crawler) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// run dispatches until nothing is in flight and nothing more may start.
// It returns only after every worker has finished, so no Handler call
// happens after Crawl returns.
func (c *crawler) run() {
	defer c.wg.Wait()
	done := c.parent.Done()
	for {
		c.mu.Lock()
		if c.parent.Err() != nil && c.stop == "" {
			c.stop = ReasonCancelled
		}
		c.dispatch()
		idle := c.inflight == 0
		c.unlockAndReport()
		if idle {
			return
		}
		select {
		case <-c.wake:
		case <-done:
			done = nil
			c.mu.Lock()
			if c.stop == "" {
				c.stop = ReasonCancelled
			}
			c.mu.Unlock()
			c.cancel() // aborts in-flight requests, sleeps and gate waits
		}
	}
}

// dispatch starts workers while budgets allow; mu held. The page budget
// counts in-flight work as if it will succeed, so the handler never sees
// more than MaxPages pages; a failure hands its slot back.
func (c *crawler) dispatch() {
	for c.stop == "" && c.head < len(c.queue) && c.inflight < c.workers &&
		c.prog.Fetched+c.inflight < c.s.opts.MaxPages && c.attempts < c.maxAttempts {
		it := c.queue[c.head]
		c.queue[c.head] = item{}
		c.head++
		if c.claimed[it.key] { // delivered meanwhile through a redirect or canonical
			c.prog.SkippedOther++
			c.changes++
			continue
		}
		c.inflight++
		c.attempts++
		c.prog.CurrentURL = it.u.String()
		c.changes++
		c.wg.Add(1)
		go c.work(it)
	}
	if c.head > 1024 && c.head*2 > len(c.queue) {
		n := copy(c.queue, c.queue[c.head:])
		clear(c.queue[n:])
		c.queue, c.head = c.queue[:n], 0
	}
}

func (c *crawler) work(it item) {
	defer c.wg.Done()
	out, requested, err := c.process(it)
	c.mu.Lock()
	c.inflight--
	if !requested {
		c.attempts--
	}
	switch out {
	case outFetched:
		c.prog.Fetched++
	case outFailed:
		c.prog.Failed++
	case outRobots:
		c.prog.SkippedRobots++
	case outOther:
		c.prog.SkippedOther++
	}
	if it.root && out != outFetched && out != outAborted && err != nil {
		c.rootErr = err
	}
	if out != outAborted {
		c.changes++
	}
	c.unlockAndReport()
	c.signal()
}

// process fetches one queued URL and delivers it; requested says whether a
// page request was made (robots refusals cost none of the request budget).
func (c *crawler) process(it item) (out outcome, requested bool, err error) {
	hs, err := c.s.host(c.ctx, it.u)
	if err != nil {
		if c.ctx.Err() != nil {
			return outAborted, false, nil
		}
		return outOther, false, err
	}
	if !hs.allowed(it.u) {
		if hs.err != nil { // the host is unreachable rather than forbidding
			return outFailed, false, hs.disallowedError(it.u)
		}
		return outRobots, false, hs.disallowedError(it.u)
	}
	r, err := c.s.fetch(c.ctx, hs, it.u, nil, false)
	if c.ctx.Err() != nil {
		return outAborted, true, nil
	}
	switch {
	case errors.Is(err, ErrDisallowed):
		return outRobots, true, err
	case errors.Is(err, ErrOffSite), errors.Is(err, ErrNotIndexable):
		return outOther, true, err
	case err != nil:
		return outFailed, true, err
	case r.status == http.StatusNotModified: // unasked-for 304: nothing to index
		return outOther, true, &StatusError{URL: r.final.String(), Code: r.status}
	}
	p, finalKey, links := c.s.page(r)
	return c.deliver(p, finalKey, links)
}

// deliver claims the page's keys, queues its links and hands it to the
// handler unless it duplicates a page already delivered.
func (c *crawler) deliver(p *Page, finalKey string, links []*url.URL) (outcome, bool, error) {
	sum := maphash.Bytes(c.hashSeed, p.Body)
	c.mu.Lock()
	c.known[finalKey], c.known[p.URL] = true, true
	dup := c.claimed[p.URL] || c.claimed[finalKey] || c.bodies[sum]
	if !dup {
		c.claimed[p.URL], c.claimed[finalKey], c.bodies[sum] = true, true, true
		for _, u := range links {
			c.add(u)
		}
	}
	c.unlockAndReport()
	if dup {
		return outOther, true, nil
	}
	c.signal() // the new links can start while the handler works

	select {
	case c.handlerSem <- struct{}{}:
	case <-c.ctx.Done():
		return outAborted, true, nil
	}
	defer func() { <-c.handlerSem }()
	if c.ctx.Err() != nil {
		return outAborted, true, nil
	}
	c.mu.Lock()
	c.delivered++
	c.mu.Unlock()
	err := c.h.Page(c.ctx, p)
	if err == nil {
		return outFetched, true, nil
	}
	if errors.Is(err, ErrStop) {
		c.mu.Lock()
		if c.stop == "" {
			c.stop = ReasonStopped
		}
		c.mu.Unlock()
		c.cancel()
	}
	return outFailed, true, err
}

func (c *crawler) summary() *Summary {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := &Summary{Progress: c.prog}
	switch {
	case c.stop != "":
		s.Reason, s.Cancelled = c.stop, c.stop == ReasonCancelled
	case c.prog.Fetched >= c.s.opts.MaxPages:
		s.Reason = ReasonMaxPages
	case c.attempts >= c.maxAttempts && c.head < len(c.queue):
		s.Reason = ReasonMaxRequests
	default:
		s.Reason = ReasonDone
	}
	return s
}
