package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"concierge/internal/retrieval"
	"concierge/internal/store"
)

type latencyResult struct {
	engine     string
	passages   int
	ingest     time.Duration
	cold       []time.Duration // first search of fresh Services: the index build
	warm       []time.Duration
	qps        float64 // searches per second with GOMAXPROCS goroutines
	selfCores  float64 // during the warm run: cores used by this process
	otherCores float64 // and by everything else (PostgreSQL's backends, other jobs)
	heap       uint64  // live heap held by the index
	afterAdd   time.Duration
	afterDel   time.Duration
	meanHits   float64
	addedPass  int
	deletedPas int
}

// latencyCorpus is the generated bot: the documents loaded up front, and
// one more document held back to measure a small ingest into a large bot.
type latencyCorpus struct {
	docs  []seedDoc
	extra seedDoc
	total int
}

func prepareLatency(gen []genDoc) latencyCorpus {
	docs := make([]seedDoc, len(gen))
	for i, g := range gen {
		d := seedDoc{name: g.name, url: g.url}
		for _, p := range g.passages {
			d.passages = append(d.passages, seedPassage{title: p.title, url: g.url, text: p.text, heading: p.heading})
		}
		docs[i] = d
	}
	analyzeAll(docs)
	c := latencyCorpus{docs: docs[:len(docs)-1], extra: docs[len(docs)-1]}
	for _, d := range c.docs {
		c.total += len(d.passages)
	}
	return c
}

func runLatency(ctx context.Context, db *store.DB, engine string, c latencyCorpus, sf *sciFact, nq int,
	logf func(string, ...any), waitQuiet func()) (latencyResult, error) {
	r := latencyResult{engine: engine, passages: c.total}
	ws, bot, err := newBot(ctx, db, "latency")
	if err != nil {
		return r, err
	}
	start := time.Now()
	docIDs, err := insertDocs(ctx, db, ws, bot, c.docs)
	if err != nil {
		return r, err
	}
	r.ingest = time.Since(start)
	logf("%s: %d passages in %d documents written in %v", engine, c.total, len(c.docs), r.ingest.Round(time.Millisecond))
	queries := make([]string, nq)
	for i := range queries {
		queries[i] = sf.queries[i%len(sf.queries)].Text
	}

	waitQuiet() // writing may have taken long enough for another job to start
	// Cold: the first search of a fresh Service builds the bot's index.
	// The first one also measures the heap the index holds.
	var svc *retrieval.Service
	for i := range 3 {
		var before runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		svc = retrieval.New(db, retrieval.Options{Logger: discard})
		start := time.Now()
		if _, err := svc.Search(ctx, ws, bot, queries[0], 10); err != nil {
			return r, err
		}
		r.cold = append(r.cold, time.Since(start))
		if i == 0 {
			var after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&after)
			if after.HeapAlloc > before.HeapAlloc {
				r.heap = after.HeapAlloc - before.HeapAlloc
			}
			runtime.KeepAlive(svc)
		}
	}
	logf("%s: cold searches %v", engine, r.cold)

	// Warm: one pass discarded, then every query timed, one at a time.
	for _, q := range queries[:min(len(queries), 100)] {
		if _, err := svc.Search(ctx, ws, bot, q, 10); err != nil {
			return r, err
		}
	}
	hits := 0
	meter := startCPU()
	for _, q := range queries {
		start := time.Now()
		h, err := svc.Search(ctx, ws, bot, q, 10)
		if err != nil {
			return r, err
		}
		r.warm = append(r.warm, time.Since(start))
		hits += len(h)
	}
	r.selfCores, r.otherCores = meter.stop()
	r.meanHits = float64(hits) / float64(len(queries))

	// Throughput: one goroutine per core, each running all queries.
	start = time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, runtime.GOMAXPROCS(0))
	for g := range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range queries {
				if _, err := svc.Search(ctx, ws, bot, queries[(i+g*97)%len(queries)], 10); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return r, err
	}
	r.qps = float64(runtime.GOMAXPROCS(0)*len(queries)) / time.Since(start).Seconds()

	// A small ingest into the large bot, then a delete: the next search
	// pays for the incremental update. Invalidate is what the writer in the
	// same process calls after its commit (another replica would notice
	// within retrieval.DefaultVersionCheck).
	if _, err := insertDocs(ctx, db, ws, bot, []seedDoc{c.extra}); err != nil {
		return r, err
	}
	r.addedPass = len(c.extra.passages)
	svc.Invalidate(bot)
	start = time.Now()
	if _, err := svc.Search(ctx, ws, bot, queries[1], 10); err != nil {
		return r, err
	}
	r.afterAdd = time.Since(start)
	if err := deleteDoc(ctx, db, bot, docIDs[0]); err != nil {
		return r, err
	}
	r.deletedPas = len(c.docs[0].passages)
	svc.Invalidate(bot)
	start = time.Now()
	if _, err := svc.Search(ctx, ws, bot, queries[2], 10); err != nil {
		return r, err
	}
	r.afterDel = time.Since(start)
	logf("%s: warm p50 %v p99 %v", engine, percentile(r.warm, 50), percentile(r.warm, 99))
	return r, nil
}

func printLatency(w io.Writer, o options, rs []latencyResult) {
	if len(rs) == 0 {
		return
	}
	fmt.Fprintf(w, "Latency: one bot of %d passages (SciFact sentences recombined), %d queries (SciFact claims), k = 10\n\n",
		rs[0].passages, len(rs[0].warm))
	fmt.Fprintln(w, "| engine | cold first search (3 runs) | warm p50 | warm p99 | warm max | mean hits | cores: bench / others | searches/s, "+
		fmt.Sprint(runtime.GOMAXPROCS(0))+" goroutines |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, r := range rs {
		fmt.Fprintf(w, "| %s | %s, %s, %s | %s | %s | %s | %.1f | %.2f / %.2f | %.0f |\n", r.engine,
			ms(r.cold[0]), ms(r.cold[1]), ms(r.cold[2]),
			ms(percentile(r.warm, 50)), ms(percentile(r.warm, 99)), ms(percentile(r.warm, 100)), r.meanHits,
			r.selfCores, r.otherCores, r.qps)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| engine | write (SQL, large transactions) | index heap | per passage | search after +1 document | search after −1 document |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, r := range rs {
		fmt.Fprintf(w, "| %s | %s | %.0f MiB | %d B | %s (+%d passages) | %s (−%d passages) |\n", r.engine,
			r.ingest.Round(time.Millisecond), float64(r.heap)/(1<<20), r.heap/uint64(r.passages),
			ms(r.afterAdd), r.addedPass, ms(r.afterDel), r.deletedPas)
	}
	fmt.Fprintln(w)
}
