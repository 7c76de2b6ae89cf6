package retrieval_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"concierge/internal/retrieval"
	"concierge/internal/testkit"
)

// TestConcurrentSearchDuringIngest: 50 goroutines search one bot while a
// writer keeps publishing documents (and leaving decoys in 'indexing').
// Every search sees at least every document published before it started,
// never a decoy, and the race detector sees no unsynchronised sharing
// between the searches and the index updates.
func TestConcurrentSearchDuringIngest(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, e testkit.Engine) {
		f := newFixture(t, e)
		ws := f.workspace()
		bot := f.bot(ws)
		for i := range 20 {
			f.document(ws, bot, fmt.Sprintf("seed%d", i), "ready", passage{Text: "seed notes about kayaks"})
		}
		s := f.service(retrieval.Options{})
		var (
			published atomic.Int64 // documents with "harbour" made ready so far
			ready     sync.Map     // document id → true, for every published document
			done      = make(chan struct{})
			wg        sync.WaitGroup
			searches  atomic.Int64
		)
		const docs = 30
		wg.Go(func() {
			defer close(done)
			for i := range docs {
				f.document(ws, bot, fmt.Sprintf("decoy%d", i), "indexing", passage{Text: "harbour decoy never ready"})
				doc, _ := f.document(ws, bot, fmt.Sprintf("doc%d", i), "indexing",
					passage{Title: "Harbour", Text: fmt.Sprintf("harbour schedule number %d", i)})
				ready.Store(doc, true)
				f.setStatus(bot, doc, "ready")
				published.Add(1)
			}
		})
		errs := make(chan error, 50)
		for range 50 {
			wg.Go(func() {
				for {
					select {
					case <-done:
						return
					default:
					}
					before := published.Load()
					hits, err := s.Search(t.Context(), ws, bot, "harbour schedule", 100)
					if err != nil {
						errs <- err
						return
					}
					searches.Add(1)
					if int64(len(hits)) < before {
						errs <- fmt.Errorf("%d hits, but %d documents were published before the search", len(hits), before)
						return
					}
					for _, h := range hits {
						if _, ok := ready.Load(h.DocumentID); !ok {
							errs <- fmt.Errorf("hit from unpublished document %d: %q", h.DocumentID, h.Text)
							return
						}
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if n := len(search(t, s, ws, bot, "harbour", 100)); n != docs {
			t.Fatalf("after the writer: %d hits, want %d", n, docs)
		}
		t.Logf("%d searches during %d publications", searches.Load(), docs)
	})
}
